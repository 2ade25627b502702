"""Issue 16's stuck follower and its duplicates: a broker that lost a partition's
leadership while a request to it was under way must not write that request's records or
markers into the partition's log, which is a follower's log by then. It used to: a
WriteTxnMarkers request writes its partitions one after another, each waiting for its
ISR, and the later ones were written without asking whether this broker still led them,
stamped with the new leader's epoch. The follower then held a batch its leader did not
have under the leader's own epoch, so no truncation found the difference and it never
caught up ("batch at offset N is below the log end"); a produce resolved before the
leadership moved did the same with a client's batch, which its producer then wrote again
at the new leader.

3 brokers on 1 etcd (15 s sessions, so a paused broker keeps its registration and ISR
place); sa-0 on [1, 2], sb-0 on [3, 1] led by broker 1 after broker 3's bounce:

- broker 2 paused, so sa-0's high watermark stands still; WriteTxnMarkers (v0, by hand)
  for sa-0 and then sb-0 sent to broker 1; while sa-0's marker waits, a preferred
  election gives sb-0 to broker 3; broker 2 resumed;
- sa-0's marker is written (NONE); sb-0's is refused NOT_LEADER_OR_FOLLOWER;
- sb-0's two replicas end identical, broker 1 logs no replicated append refused, and
  records produced after it are read back once each.

    stale_leader_writes.py STRATA_BINARY
"""
import os
import struct
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster, call, string  # noqa: E402
from replicas import check_identical, create_placed, partitions, produce_acked as produce, read_all  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
PID = 4242


def write_markers(bootstrap, out):
    """WriteTxnMarkers v0: one COMMIT marker of producer PID (epoch 0, coordinator epoch
    0) for sa-0, then sb-0. {topic: error code} into `out`."""
    body = struct.pack(">i", 1) + struct.pack(">qhb", PID, 0, 1) + struct.pack(">i", 2)
    for topic in ("sa", "sb"):
        body += string(topic) + struct.pack(">ii", 1, 0)
    body += struct.pack(">i", 0)
    try:
        r = call(bootstrap, 27, 0, body)
        for _ in range(r.int32()):
            r.take(">q")
            for _ in range(r.int32()):
                name = r.string()
                for _ in range(r.int32()):
                    r.int32()
                    out[name] = r.take(">h")
    except OSError as e:
        out["error"] = repr(e)
    out["at"] = time.time()


def wait_state(admin, topic, pred, what, timeout=40):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        last = partitions(admin, topic).get(0)
        if last is not None and pred(*last):
            return last
        time.sleep(0.2)
    raise AssertionError("%s: %s-0 is %s" % (what, topic, last))


with Cluster(binary, brokers=3, overrides={"replica.lag.time.max.ms": "10000",
                                           "etcd.session.timeout.ms": "15000",
                                           "auto.leader.rebalance.enable": "false"}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    create_placed(admin, [NewTopic("sa", 1, replica_assignment=[[1, 2]]),
                          NewTopic("sb", 1, replica_assignment=[[3, 1]])])
    wait_state(admin, "sa", lambda l, r, isr: l == 1 and len(isr) == 2, "sa-0 led by 1, both in sync")
    wait_state(admin, "sb", lambda l, r, isr: l == 3 and len(isr) == 2, "sb-0 led by 3, both in sync")
    produce(c.bootstrap, "sa", ["a%d" % i for i in range(5)])
    produce(c.bootstrap, "sb", ["b%d" % i for i in range(5)])
    # sb-0 to broker 1: broker 3 bounced (a clean stop leaves the ISR at once).
    c.broker(3).stop()
    wait_state(admin, "sb", lambda l, r, isr: l == 1, "sb-0 led by broker 1 while 3 is down")
    c.broker(3).start()
    wait_state(admin, "sb", lambda l, r, isr: l == 1 and len(isr) == 2, "broker 3 back in sb-0's ISR")
    check(True, "sb-0 is led by broker 1 with broker 3 in sync")

    c.broker(2).pause()
    answer = {}
    sender = threading.Thread(target=write_markers, args=(c.broker(1).bootstrap, answer))
    sender.start()
    time.sleep(0.5)
    p = subprocess.run([binary, "leader-election", "--bootstrap-server", c.broker(3).bootstrap,
                        "--election-type", "PREFERRED", "--topic", "sb", "--partition", "0"],
                       capture_output=True, text=True, timeout=60)
    check(p.returncode == 0, "preferred election of sb-0 while sa-0's marker waits: %r %r" % (p.stdout, p.stderr))
    # Broker 1 must know before sa-0's marker is through.
    deadline = time.time() + 20
    while time.time() < deadline:
        led = c.metadata_topic(c.broker(1).bootstrap, "sb")
        if led and led[0] == 3:
            break
        time.sleep(0.1)
    check(sender.is_alive(), "the WriteTxnMarkers request is still waiting on sa-0 when broker 1 sees the move")
    c.broker(2).resume()
    sender.join(40)
    check(answer.get("sa") == 0, "sa-0's marker (broker 1 leads it): NONE: %s" % answer)
    check(answer.get("sb") == 6,
          "sb-0's marker, reached after broker 1 lost sb-0 to broker 3: NOT_LEADER_OR_FOLLOWER: %s" % answer)

    produce(c.bootstrap, "sb", ["c%d" % i for i in range(5)])
    check_identical([c.broker(1), c.broker(3)], "sb", 1)
    refused = [line for line in c.broker(1).log().splitlines() if "below the log end" in line]
    check(not refused, "broker 1 refused no replicated append: %s" % refused[:2])
    values = read_all(c.bootstrap, "sb", "read_committed", 10)
    check(sorted(values) == sorted(["b%d" % i for i in range(5)] + ["c%d" % i for i in range(5)]),
          "sb-0 reads back its 10 records once each: %s" % values)
