"""Issue 15, followers cut off: 3 brokers on 1 etcd with 10 s sessions and
replica.lag.time.max.ms 1.5 s, so a paused (SIGSTOP) follower keeps its registration and
leaves the ISR by the lag rule alone, as in Kafka.

- 'cut': 3 partitions of replicas [1, 2, 3] (broker 1 leads), min.insync.replicas 2; an
  idempotent acks=all producer writes the whole time;
- broker 3 paused: every ISR drops it within the lag time (plus the leader's once-a-second
  check), and the producer keeps being acknowledged (2 in sync, 2 needed);
- resumed: it catches up and rejoins every ISR;
- brokers 2 and 3 paused: the ISRs shrink to the leader alone, and acks=all gets
  NOT_ENOUGH_REPLICAS;
- both resumed: they rejoin, the producer's held records are acknowledged, every
  acknowledged record is read back once, and the three replicas are byte-identical.

    follower_cut.py STRATA_BINARY
"""
import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster  # noqa: E402
from replicas import segment_bytes  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
PARTITIONS = 3
LAG_MS = 1500


def wait_isrs(c, pred, what, timeout):
    """Asks broker 1 (never paused: a client could pick a paused broker and wait out its
    timeout) until every partition's sorted ISR satisfies `pred`."""
    deadline = time.time() + timeout
    started = time.time()
    last = None
    while time.time() < deadline:
        try:
            last = c.partition_states(c.broker(1).bootstrap, "cut") or {}
        except OSError:
            last = {}
        if len(last) == PARTITIONS and all(pred(sorted(i)) for _, _, i in last.values()):
            check(True, "%s (%.1f s)" % (what, time.time() - started))
            return
        time.sleep(0.1)
    check(False, "%s (last: %s)" % (what, last))


class Writer(threading.Thread):
    """An idempotent acks=all producer writing until stopped; what was acknowledged."""

    def __init__(self, bootstrap):
        super().__init__(daemon=True)
        self.p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                           "linger.ms": 2, "message.timeout.ms": 60000})
        self.acked, self.failed, self.stop = [], [], False

    def done(self, err, msg):
        (self.acked if err is None else self.failed).append(msg.value() if err is None else err)

    def run(self):
        i = 0
        while not self.stop:
            self.p.produce("cut", value=b"w-%d" % i, partition=i % PARTITIONS, callback=self.done)
            i += 1
            self.p.poll(0.002)

    def finish(self):
        self.stop = True
        self.join(10)
        self.p.flush(60)


with Cluster(binary, brokers=3, overrides={"etcd.session.timeout.ms": "10000",
                                           "replica.lag.time.max.ms": str(LAG_MS)}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("cut", PARTITIONS, replica_assignment=[[1, 2, 3]] * PARTITIONS,
                                  config={"min.insync.replicas": "2"})], request_timeout=30)["cut"].result(timeout=40)
    wait_isrs(c, lambda i: i == [1, 2, 3], "'cut': 3 partitions led by broker 1, all in sync", 30)
    w = Writer(c.broker(1).bootstrap)
    w.start()
    time.sleep(1)

    c.broker(3).pause()
    before = len(w.acked)
    wait_isrs(c, lambda i: i == [1, 2], "broker 3 paused: every ISR drops it by the lag rule",
              LAG_MS / 1000 + 5)
    time.sleep(1)
    check(len(w.acked) > before, "the producer keeps being acknowledged with 2 of 3 in sync (%d more)"
          % (len(w.acked) - before))
    c.broker(3).resume()
    wait_isrs(c, lambda i: i == [1, 2, 3], "broker 3 resumed: it catches up and rejoins every ISR", 20)

    c.broker(2).pause()
    c.broker(3).pause()
    wait_isrs(c, lambda i: i == [1], "brokers 2 and 3 paused: the ISRs shrink to the leader", LAG_MS / 1000 + 5)
    solo = Producer({"bootstrap.servers": c.broker(1).bootstrap, "acks": "all", "retries": 0,
                     "message.timeout.ms": 4000})
    errors = []
    for q in range(PARTITIONS):
        solo.produce("cut", value=b"refused", partition=q, callback=lambda err, msg: errors.append(err))
    solo.flush(15)
    names = sorted({e.name() if e is not None else "OK" for e in errors})
    check(names == ["NOT_ENOUGH_REPLICAS"], "acks=all with 1 of 2 required replicas in sync: %s" % names)
    c.broker(2).resume()
    c.broker(3).resume()
    wait_isrs(c, lambda i: i == [1, 2, 3], "both resumed: they rejoin every ISR", 20)
    time.sleep(1)
    w.finish()
    check(not w.failed, "the continuous producer had nothing fail (%s)" % w.failed[:3])

    deadline = time.time() + 30
    while time.time() < deadline and any(len({segment_bytes(b, "cut", q) for b in c.brokers}) != 1
                                         for q in range(PARTITIONS)):
        time.sleep(0.2)
    check(all(len({segment_bytes(b, "cut", q) for b in c.brokers}) == 1 for q in range(PARTITIONS)),
          "the three replicas of every partition are byte-identical")
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False})
    cons.assign([TopicPartition("cut", q, 0) for q in range(PARTITIONS)])
    got = []
    deadline = time.time() + 60
    while time.time() < deadline and len(got) < len(w.acked):
        m = cons.poll(0.3)
        if m is not None and m.error() is None:
            got.append(m.value())
    cons.close()
    check(sorted(got) == sorted(w.acked) and len(set(got)) == len(got),
          "all %d acknowledged records are read back, none twice, none refused (%d read)"
          % (len(w.acked), len(got)))
print("OK")
