"""Issue 15, Kafka's replication failure modes: the leader of a partition replicated 3
times (min.insync.replicas 2) bounced again and again while idempotent producers of two
client libraries (confluent-kafka and kafkajs) write acks=all the whole time:

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
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster  # noqa: E402
from replicas import JsWriter, Writer, all_in_sync, check_identical, check_read_back, partitions  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
TOPIC, PARTS, BOUNCES = "bounce", 3, 5


def leader_of(admin, p):
    deadline = time.time() + SESSION_MS / 1000 + 20
    while time.time() < deadline:
        ps = partitions(admin, TOPIC)
        if ps and ps[p][0] >= 0:
            return ps[p][0]
        time.sleep(0.1)
    raise AssertionError("no leader for %s-%d" % (TOPIC, p))


with Cluster(binary, brokers=3, overrides={"replica.lag.time.max.ms": "3000"}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic(TOPIC, PARTS, 3, config={"min.insync.replicas": "2"})],
                        request_timeout=30)[TOPIC].result(timeout=40)
    all_in_sync(admin, TOPIC, PARTS)
    w = Writer(c.bootstrap, TOPIC, PARTS)
    w.start()
    js = JsWriter(c.bootstrap, TOPIC, PARTS)
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
            all_in_sync(admin, TOPIC, PARTS)
            # The producer may pause while it learns the new leaders and retries what was
            # in flight; it must go on.
            deadline = time.time() + 20
            while time.time() < deadline and len(w.acked) <= before:
                time.sleep(0.1)
            check(len(w.acked) > before, "%s bounce %d of broker %d (leader of %s-0): writes go on (%d acked)"
                  % (mode, n + 1, victim.node_id, TOPIC, len(w.acked)))
    w.finish()
    js.finish()
    check_read_back(c.bootstrap, TOPIC, PARTS, w.acked + js.acked)
    check_identical(c.brokers, TOPIC, PARTS)
print("OK")
