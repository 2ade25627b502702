"""Issue 15, Kafka's replication failure modes: the leader of a partition replicated 3
times (min.insync.replicas 2) bounced again and again while an idempotent
confluent-kafka producer writes acks=all the whole time:

- clean bounce (SIGTERM, restart) of the current leader, 5 times in a row, each a
  controlled shutdown (its leaderships handed to ISR members before it stops);
- hard bounce (SIGKILL, restart) of the current leader, 5 times in a row;

each time waiting until the bounced broker is back in every ISR. Afterwards every
acknowledged record is read back, none twice, each partition's records in the order
they were sent, and the three replicas' segment files are identical.

    bounces.py STRATA_BINARY
"""
import os
import sys
import threading
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster  # noqa: E402
from replicas import partitions, segment_bytes  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
TOPIC, PARTS, BOUNCES = "bounce", 3, 5


class Writer(threading.Thread):
    """Keeps producing "p:seq" values to each partition in turn until stopped."""

    def __init__(self, bootstrap):
        super().__init__(daemon=True)
        self.p = Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "acks": "all",
                           "linger.ms": 2, "message.timeout.ms": 120000})
        self.acked, self.failed = [], []
        self.sent = 0
        self.stopping = threading.Event()

    def done(self, err, msg):
        if err is None:
            self.acked.append((msg.partition(), msg.value()))
        else:
            self.failed.append(err)

    def run(self):
        seq = 0
        while not self.stopping.is_set():
            for part in range(PARTS):
                self.p.produce(TOPIC, value=b"%d:%d" % (part, seq), partition=part, callback=self.done)
            seq += 1
            self.sent += PARTS
            self.p.poll(0.002)
        self.p.flush(120)


def leader_of(admin, p):
    deadline = time.time() + SESSION_MS / 1000 + 20
    while time.time() < deadline:
        ps = partitions(admin, TOPIC)
        if ps and ps[p][0] >= 0:
            return ps[p][0]
        time.sleep(0.1)
    raise AssertionError("no leader for %s-%d" % (TOPIC, p))


def all_in_sync(admin, timeout=60):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, TOPIC)
        if len(last) == PARTS and all(l >= 0 and len(i) == 3 for l, _, i in last.values()):
            return True
        time.sleep(0.2)
    raise AssertionError("not all back in sync: %s" % last)


with Cluster(binary, brokers=3, overrides={"replica.lag.time.max.ms": "3000"}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTS, 3, config={"min.insync.replicas": "2"})],
                        request_timeout=30)[TOPIC].result(timeout=40)
    all_in_sync(admin)
    w = Writer(c.bootstrap)
    w.start()
    time.sleep(1)
    for mode in ("clean", "hard"):
        for n in range(BOUNCES):
            victim = c.broker(leader_of(admin, 0))
            before = len(w.acked)
            if mode == "clean":
                victim.stop()
                check("controlled shutdown: leaderships moved" in victim.log(),
                      "clean stop %d of broker %d handed its leaderships over first" % (n + 1, victim.node_id))
            else:
                victim.kill()
            victim.start()
            all_in_sync(admin)
            # The producer may pause while it learns the new leaders and retries what was
            # in flight; it must go on.
            deadline = time.time() + 20
            while time.time() < deadline and len(w.acked) <= before:
                time.sleep(0.1)
            check(len(w.acked) > before, "%s bounce %d of broker %d (leader of %s-0): writes go on (%d acked)"
                  % (mode, n + 1, victim.node_id, TOPIC, len(w.acked)))
    w.stopping.set()
    w.join(150)
    check(not w.failed, "no produce failed (%d acked; failures %s)" % (len(w.acked), w.failed[:3]))

    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": "g-" + uuid.uuid4().hex,
                     "auto.offset.reset": "earliest", "enable.auto.commit": False})
    cons.assign([TopicPartition(TOPIC, p, 0) for p in range(PARTS)])
    got = {p: [] for p in range(PARTS)}
    deadline = time.time() + 60
    total = 0
    while time.time() < deadline and total < len(w.acked):
        m = cons.poll(0.3)
        if m is not None and m.error() is None:
            got[m.partition()].append(m.value())
            total += 1
    time.sleep(1)
    while True:  # anything beyond: duplicates would show here
        m = cons.poll(1.0)
        if m is None:
            break
        if m.error() is None:
            got[m.partition()].append(m.value())
    cons.close()
    read = [(p, v) for p, vs in got.items() for v in vs]
    missing = set(w.acked) - set(read)
    check(not missing, "every acknowledged record is read back (%d; missing %d)" % (len(w.acked), len(missing)))
    check(len(read) == len(set(read)), "none twice (%d read, %d distinct)" % (len(read), len(set(read))))
    ordered = all([int(v.split(b":")[1]) for v in vs] == sorted(int(v.split(b":")[1]) for v in vs)
                  for vs in got.values())
    check(ordered, "each partition's records are in the order they were sent")
    deadline = time.time() + 30
    same = False
    while time.time() < deadline and not same:
        same = all(len({segment_bytes(b, TOPIC, p) for b in c.brokers}) == 1 for p in range(PARTS))
        time.sleep(0.3)
    check(same, "the three replicas of every partition are identical")
print("OK")
