"""Issue 15, coordinators move with leadership: 3 brokers on 1 etcd, __consumer_offsets
and __transaction_state replicated 3 ways (offsets.topic.replication.factor and
transaction.state.log.replication.factor, 3; transaction.state.log.min.isr, 2).

- both internal topics have 3 replicas per partition; __transaction_state's
  min.insync.replicas is 2;
- OffsetFetch v1 (no field for a request-wide error) asked of a broker that does not
  coordinate the group: NOT_COORDINATOR on each partition asked for, as Kafka answers,
  not an empty list a client would take for "nothing committed"; asked of the
  coordinator: the committed offsets;
- a consumer group commits offsets, then the broker coordinating it is killed (-9):
  FindCoordinator names the new leader of the group's partition, which loaded the
  replicated offsets, and a new member resumes exactly at the committed offsets;
- a transactional producer commits one transaction, aborts one and has a third open
  (records acknowledged, not committed) when the broker coordinating it is killed (-9):
  the new coordinator loaded its state, the producer commits, and read_committed sees
  exactly the two committed transactions.

    coordinators.py STRATA_BINARY
"""
import os
import struct
import sys
import time
import uuid

sys.path.insert(0, os.path.dirname(__file__))
from harness import SESSION_MS, Cluster, call, coordinator_of, string  # noqa: E402
from replicas import all_in_sync, partitions  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, ConfigResource, NewTopic  # noqa: E402

binary = sys.argv[1]
PARTITIONS = 6
RECORDS = 600
GROUP_KEY, TXN_KEY = 0, 1


def internal_replicas(admin, topic):
    """{partition: (replica count, isr count)} of an internal topic."""
    return {p: (len(r), len(i)) for p, (_, r, i) in partitions(admin, topic).items()}


def offset_fetch_v1(bootstrap, group, topic, count):
    """OffsetFetch v1 of partitions 0..count-1 asked of one broker: {partition: (offset,
    error)} as answered (v1 has no request-wide error)."""
    body = string(group) + struct.pack(">i", 1) + string(topic) + struct.pack(">i", count)
    body += b"".join(struct.pack(">i", q) for q in range(count))
    r = call(bootstrap, 9, 1, body)
    out = {}
    for _ in range(r.int32()):
        r.string()
        for _ in range(r.int32()):
            q = r.int32()
            offset = r.take(">q")
            r.string()
            out[q] = (offset, r.take(">h"))
    return out


def read(bootstrap, topic, group, expect, isolation="read_committed", timeout=60, stop=False):
    """(the member, [(partition, offset, value)]) a member of `group` reads: until
    `expect` and a quiet second, or with `stop` as soon as it has `expect`."""
    cons = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "isolation.level": isolation})
    cons.subscribe([topic])
    got = []
    deadline = time.time() + timeout
    quiet_until = None
    while time.time() < deadline:
        m = cons.poll(0.3)
        if m is not None and m.error() is None:
            got.append((m.partition(), m.offset(), m.value()))
            quiet_until = None
            if stop and len(got) >= expect:
                break
        elif len(got) >= expect:
            quiet_until = quiet_until or time.time() + 1
            if time.time() > quiet_until:
                break
    return cons, got


with Cluster(binary, brokers=3, overrides={"replica.lag.time.max.ms": "3000"}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("work", PARTITIONS, 3, config={"min.insync.replicas": "2"})],
                        request_timeout=30)["work"].result(timeout=40)
    deadline = time.time() + 30
    while time.time() < deadline and not (len(partitions(admin, "work")) == PARTITIONS and all(
            l >= 0 and len(i) == 3 for l, _, i in partitions(admin, "work").values())):
        time.sleep(0.2)
    p = Producer({"bootstrap.servers": c.bootstrap, "enable.idempotence": True, "linger.ms": 5})
    for i in range(RECORDS):
        p.produce("work", key=b"k%d" % i, value=b"v%d" % i)
    check(p.flush(60) == 0, "%d records acknowledged (acks=all, idempotent)" % RECORDS)

    # ---- A consumer group across its coordinator's kill.
    first, got = read(c.bootstrap, "work", "moving", RECORDS // 2, timeout=60, stop=True)
    ends = {q: 0 for q in range(PARTITIONS)}
    for q, off, _ in got:
        ends[q] = max(ends[q], off + 1)
    first.commit(offsets=[TopicPartition("work", q, o) for q, o in ends.items()], asynchronous=False)
    committed = {tp.partition: tp.offset for tp in first.committed(
        [TopicPartition("work", q) for q in range(PARTITIONS)], timeout=10)}
    first.close()
    check(committed == ends and sum(ends.values()) == len(got) == RECORDS // 2,
          "the group committed what it read (%d): %s" % (len(got), committed))
    # In sync within the lag bound (a loaded machine may drop a follower for a moment).
    deadline = time.time() + 30
    while True:
        offsets_rf = internal_replicas(admin, "__consumer_offsets")
        if (len(offsets_rf) == 50 and set(offsets_rf.values()) == {(3, 3)}) or time.time() > deadline:
            break
        time.sleep(0.2)
    check(len(offsets_rf) == 50 and set(offsets_rf.values()) == {(3, 3)},
          "__consumer_offsets: 50 partitions of 3 replicas, all in sync (%s)" % sorted(set(offsets_rf.values())))
    old = coordinator_of(c, "moving", GROUP_KEY)
    other = next(b for b in c.brokers if b.node_id != old)
    answered = offset_fetch_v1(other.bootstrap, "moving", "work", PARTITIONS)
    check(answered == {q: (-1, 16) for q in range(PARTITIONS)},
          "OffsetFetch v1 asked of broker %d (broker %d coordinates): NOT_COORDINATOR on each partition: %s"
          % (other.node_id, old, answered))
    answered = offset_fetch_v1(c.broker(old).bootstrap, "moving", "work", PARTITIONS)
    check(answered == {q: (o, 0) for q, o in committed.items()},
          "OffsetFetch v1 asked of the coordinator: the committed offsets: %s" % answered)
    c.broker(old).kill()
    started = time.time()
    new = coordinator_of(c, "moving", GROUP_KEY, avoid=old, timeout=SESSION_MS / 1000 + 30)
    check(new != old, "after the kill of broker %d, broker %d coordinates the group (%.1f s)"
          % (old, new, time.time() - started))
    live = ",".join(b.bootstrap for b in c.brokers if b.alive())
    second, rest = read(live, "work", "moving", RECORDS - len(got), timeout=60)
    second.close()
    starts = {}
    for q, off, _ in rest:
        starts[q] = min(off, starts.get(q, off))
    check(len(starts) > 0 and all(starts.get(q, committed[q]) == committed[q] for q in range(PARTITIONS)),
          "a new member resumes exactly at the committed offsets %s (first read: %s)" % (committed, starts))
    values = [v for _, _, v in got] + [v for _, _, v in rest]
    check(sorted(values) == sorted(b"v%d" % i for i in range(RECORDS)),
          "the two members together read each of the %d records once (%d read)" % (RECORDS, len(values)))
    c.broker(old).start()
    all_in_sync(admin, "work", PARTITIONS)

    # ---- A transaction across its coordinator's kill.
    tp = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": "tx-moving", "linger.ms": 5})
    tp.init_transactions(30)
    for tag, commit in ((b"c1", True), (b"a2", False)):
        tp.begin_transaction()
        for i in range(50):
            tp.produce("work", key=b"%s-%d" % (tag, i), value=b"%s-%d" % (tag, i))
        (tp.commit_transaction if commit else tp.abort_transaction)(30)
    cfg = admin.describe_configs([ConfigResource("TOPIC", "__transaction_state")])
    txn_cfg = list(cfg.values())[0].result(timeout=10)
    check(txn_cfg["min.insync.replicas"].value == "2", "__transaction_state has min.insync.replicas 2")
    txn_rf = internal_replicas(admin, "__transaction_state")
    check(len(txn_rf) == 50 and all(r == 3 for r, _ in txn_rf.values()),
          "__transaction_state: 50 partitions of 3 replicas")
    tp.begin_transaction()
    for i in range(50):
        tp.produce("work", key=b"c3-%d" % i, value=b"c3-%d" % i)
    check(tp.flush(30) == 0, "the open transaction's 50 records are acknowledged")
    # Every replica in sync first: with one out, the kill would leave a partition below
    # its min.insync.replicas of 2 (a loaded machine may lag a follower for a moment).
    all_in_sync(admin, "work", PARTITIONS)
    all_in_sync(admin, "__transaction_state", 50)
    old = coordinator_of(c, "tx-moving", TXN_KEY)
    c.broker(old).kill()
    started = time.time()
    tp.commit_transaction(60)
    check(True, "the producer commits through the new coordinator after the kill of broker %d (%.1f s)"
          % (old, time.time() - started))
    new = coordinator_of(c, "tx-moving", TXN_KEY, avoid=old, timeout=10)
    check(new != old, "broker %d coordinates the transactional id now" % new)
    live = ",".join(b.bootstrap for b in c.brokers if b.alive())
    cons, seen = read(live, "work", "g-" + uuid.uuid4().hex, RECORDS + 100)
    cons.close()
    txn_values = sorted(v for _, _, v in seen if v[:1] in (b"c", b"a"))
    want = sorted([b"c1-%d" % i for i in range(50)] + [b"c3-%d" % i for i in range(50)])
    check(txn_values == want, "read_committed sees exactly the 2 committed transactions (%d of %d; aborted: %d)"
          % (len(txn_values), len(want), sum(1 for v in txn_values if v.startswith(b"a2"))))
    check(len(seen) == RECORDS + 100, "and every plain record (%d read)" % len(seen))
print("OK")
