"""Issue 14, etcd's faults and a whole-cluster restart: 3 etcd members and 3 brokers.

- one etcd member killed: topics are still created and served;
- every etcd member down: brokers keep serving the partitions they lead (produce and
  fetch), refuse metadata changes (CreateTopics) with a clear error, and recover once
  etcd returns (a topic is created again);
- the whole cluster stopped and started in the reverse order: the same topics, leaders
  and every acknowledged record.

    etcd_faults.py STRATA_BINARY
"""
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]


def create(bootstrap, topic, partitions=6, timeout=30):
    """CreateTopics through `bootstrap`, waited for (the client is kept until it answers)."""
    admin = AdminClient({"bootstrap.servers": bootstrap})
    return admin.create_topics([NewTopic(topic, partitions, 1)], request_timeout=15)[topic].result(timeout=timeout)


def producer(bootstrap):
    return Producer({"bootstrap.servers": bootstrap, "enable.idempotence": True, "linger.ms": 5,
                     "message.timeout.ms": 20000})


def produce(bootstrap, topic, n, tag, p=None):
    p = p or producer(bootstrap)
    acked = []
    for i in range(n):
        p.produce(topic, key=b"%d" % i, value=b"%s-%d" % (tag, i),
                  callback=lambda err, msg: acked.append(msg.value()) if err is None else None)
    p.flush(30)
    return acked


def consume(bootstrap, topic, partitions, n, timeout=40):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    got = []
    deadline = time.time() + timeout
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.append(m.value())
    c.close()
    return got


with Cluster(binary, brokers=3, etcd_members=3) as c:
    c.wait_for("3 brokers on 3 etcd members", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    create(c.bootstrap, "before")
    acked = produce(c.bootstrap, "before", 600, b"b")
    check(len(acked) == 600, "600 records acknowledged")

    c.etcd[2].kill()
    create(c.broker(2).bootstrap, "one-member-down")
    check(True, "with one etcd member killed a topic is created")
    acked += produce(c.bootstrap, "before", 300, b"m")
    check(len(acked) == 900, "and records are acknowledged")

    # A producer that has its id before etcd goes (a new one needs an id block, which
    # comes from etcd, as Kafka's come from its controller).
    steady = producer(c.bootstrap)
    acked += produce(c.bootstrap, "before", 1, b"s", steady)
    for e in c.etcd[:2]:
        e.kill()
    time.sleep(1)
    more = produce(c.bootstrap, "before", 300, b"d", steady)
    check(len(more) == 300, "with etcd down, brokers keep taking records for what they lead")
    acked += more
    got = consume(c.bootstrap, "before", 6, len(acked))
    check(sorted(got) == sorted(acked), "and serve them (%d records)" % len(got))
    try:
        create(c.broker(1).bootstrap, "while-down")
        check(False, "CreateTopics is refused while etcd is down")
    except Exception as e:  # noqa: BLE001 (the client's KafkaException)
        check("metadata store is unavailable" in str(e) or "REQUEST_TIMED_OUT" in str(e),
              "CreateTopics is refused while etcd is down: %s" % str(e)[:160])

    for e in c.etcd:
        e.start()
    deadline = time.time() + 30
    created = False
    while time.time() < deadline and not created:
        try:
            create(c.broker(1).bootstrap, "after-etcd")
            created = True
        except Exception:  # noqa: BLE001
            time.sleep(0.5)
    check(created, "once etcd returns, topics are created again")
    c.wait_for("all 3 brokers are registered again", lambda br, ctl, cid: len(br) == 3 and ctl > 0,
               timeout=SESSION_MS / 1000 + 20)

    # The whole cluster stopped, then started in the reverse order.
    for b in c.brokers:
        check(b.stop() == 0, "broker %d stopped cleanly" % b.node_id)
    for b in reversed(c.brokers):
        b.start()
    c.wait_for("all 3 brokers back", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    deadline = time.time() + 20
    while time.time() < deadline:
        md = admin.list_topics(timeout=5)
        if all(t in md.topics for t in ("before", "one-member-down", "after-etcd")) and \
                all(p.leader >= 0 for p in md.topics["before"].partitions.values()):
            break
        time.sleep(0.2)
    check(all(t in md.topics for t in ("before", "one-member-down", "after-etcd")),
          "every topic is there after the restart")
    got = consume(c.bootstrap, "before", 6, len(acked))
    check(sorted(got) == sorted(acked), "every acknowledged record is back (%d)" % len(got))

print("etcd_faults: all checks passed")
