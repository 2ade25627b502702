#!/usr/bin/python3
"""Transactions with confluent-kafka-python (librdkafka) against a real Strata broker:
  1. consume-transform-produce: a transactional producer reads "in" through a
     read_committed consumer group, writes transformed records to "out" and commits the
     consumer's offsets in the same transaction (send_offsets_to_transaction); every
     third transaction is aborted and its input re-read. A read_committed consumer of
     "out" sees every input exactly once, in order; a read_uncommitted one sees the
     aborted copies too; the group's committed offsets are the end of "in".
  2. fencing: a second producer with the same transactional.id fences the first, whose
     open transaction is aborted and whose commit fails with a fatal PRODUCER_FENCED.
  3. crash: the broker is killed (SIGKILL) with a transaction open; after the restart
     the coordinator aborts it on its timeout, the last stable offset moves past it,
     and read_committed readers never see its records.
Usage: transactions_confluent.py PATH/TO/strata"""
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check

PARTITIONS = 3
COUNT = 300


def create(bootstrap, *topics):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for t, f in admin.create_topics([NewTopic(t, PARTITIONS, 1) for t in topics]).items():
        f.result(20)


def read_all(bootstrap, topic, isolation, idle_polls=15):
    """Every record of `topic` from the start, per partition, as (key, value)."""
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "reader-" + isolation,
                  "enable.auto.commit": False, "isolation.level": isolation})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = {p: [] for p in range(PARTITIONS)}
    idle = 0
    while idle < idle_polls:
        m = c.poll(0.2)
        if m is None or m.error():
            idle += 1
            continue
        idle = 0
        got[m.partition()].append(m.value().decode())
    positions = {tp.partition: tp.offset for tp in c.position(
        [TopicPartition(topic, p) for p in range(PARTITIONS)])}
    highs = {p: c.get_watermark_offsets(TopicPartition(topic, p), 10)[1] for p in range(PARTITIONS)}
    c.close()
    return got, {p: (positions[p], highs[p]) for p in range(PARTITIONS)}


def consume_transform_produce(bootstrap):
    create(bootstrap, "in", "out")
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(COUNT):
        p.produce("in", key=b"k%d" % i, value=b"%d" % i, partition=i % PARTITIONS)
    p.flush(30)

    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "ctp", "enable.auto.commit": False,
                  "isolation.level": "read_committed", "auto.offset.reset": "earliest"})
    c.subscribe(["in"])
    tp = Producer({"bootstrap.servers": bootstrap, "transactional.id": "ctp-producer",
                   "linger.ms": 5})
    tp.init_transactions(30)
    done, txns, aborted, aborted_values = 0, 0, 0, set()
    deadline = time.time() + 120
    while done < COUNT and time.time() < deadline:
        msgs = c.consume(20, 1.0)
        msgs = [m for m in msgs if not m.error()]
        if not msgs:
            continue
        tp.begin_transaction()
        for m in msgs:
            tp.produce("out", key=m.key(), value=b"t" + m.value(), partition=m.partition())
        tp.send_offsets_to_transaction(c.position(c.assignment()), c.consumer_group_metadata(), 30)
        txns += 1
        if txns % 3 == 0:
            # Flushed first: librdkafka purges records still queued when it aborts, and
            # this test wants the aborted records in the log (read_uncommitted sees them).
            tp.flush(30)
            tp.abort_transaction(30)
            aborted += 1
            aborted_values.update("t" + m.value().decode() for m in msgs)
            # Re-read what the aborted transaction consumed: back to the committed offsets.
            for committed in c.committed(c.assignment(), 30):
                c.seek(TopicPartition("in", committed.partition,
                                      committed.offset if committed.offset >= 0 else 0))
        else:
            tp.commit_transaction(30)
            done += len(msgs)
    check(done == COUNT, "consume-transform-produce: %d of %d inputs processed in %d "
                         "transactions (%d aborted)" % (done, COUNT, txns, aborted))
    check(aborted > 0, "some transactions were aborted (%d)" % aborted)

    want = {q: ["t%d" % i for i in range(COUNT) if i % PARTITIONS == q] for q in range(PARTITIONS)}
    got, _ = read_all(bootstrap, "out", "read_committed")
    check(got == want, "read_committed sees every input exactly once, in order "
                       "(%s records per partition)" % [len(got[q]) for q in got])
    raw, _ = read_all(bootstrap, "out", "read_uncommitted")
    raw_count = sum(len(v) for v in raw.values())
    raw_values = set(v for vs in raw.values() for v in vs)
    check(raw_count > COUNT and aborted_values <= raw_values,
          "read_uncommitted also sees the %d aborted records (%d in all)"
          % (raw_count - COUNT, raw_count))
    committed = c.committed([TopicPartition("in", q) for q in range(PARTITIONS)], 30)
    ends = [len(want[q]) for q in range(PARTITIONS)]
    check([t.offset for t in committed] == ends,
          "the group's offsets committed in the transactions are the end of 'in' (%s)"
          % [t.offset for t in committed])
    c.close()


def fencing(bootstrap):
    create(bootstrap, "fenced")
    first = Producer({"bootstrap.servers": bootstrap, "transactional.id": "fence-me"})
    first.init_transactions(30)
    first.begin_transaction()
    for i in range(10):
        first.produce("fenced", value=b"old%d" % i, partition=0)
    first.flush(30)

    second = Producer({"bootstrap.servers": bootstrap, "transactional.id": "fence-me"})
    second.init_transactions(30)
    second.begin_transaction()
    second.produce("fenced", value=b"new", partition=0)
    second.commit_transaction(30)

    fatal = None
    try:
        first.commit_transaction(30)
    except KafkaException as e:
        fatal = e.args[0]
    check(fatal is not None and fatal.fatal() and fatal.name() in ("_FENCED", "PRODUCER_FENCED",
                                                                   "INVALID_PRODUCER_EPOCH"),
          "the fenced producer's commit fails fatally (%s)" % (fatal and fatal.name()))
    got, _ = read_all(bootstrap, "fenced", "read_committed")
    check(got[0] == ["new"], "read_committed sees only the new producer's record (%s)" % got[0])
    raw, _ = read_all(bootstrap, "fenced", "read_uncommitted")
    check(len(raw[0]) == 11, "the fenced producer's records were written, then aborted (%d)"
          % len(raw[0]))


def crash(broker):
    bootstrap = broker.bootstrap
    create(bootstrap, "crash")
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": "crasher",
                  "transaction.timeout.ms": 3000})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(20):
        p.produce("crash", value=b"ok%d" % i, partition=i % PARTITIONS)
    p.commit_transaction(30)
    p.begin_transaction()
    for i in range(20):
        p.produce("crash", value=b"lost%d" % i, partition=i % PARTITIONS)
    p.flush(30)
    before, _ = read_all(bootstrap, "crash", "read_uncommitted", idle_polls=5)
    check(sum(len(v) for v in before.values()) == 40,
          "before the crash the open transaction's records are in the log")
    broker.restart(kill=True)
    del p
    # The coordinator aborts the open transaction on its 3 s timeout.
    deadline = time.time() + 30
    got, positions = {}, {}
    while time.time() < deadline:
        got, positions = read_all(bootstrap, "crash", "read_committed", idle_polls=5)
        if all(pos == high for pos, high in positions.values()):
            break
        time.sleep(0.5)
    values = sorted(v for vs in got.values() for v in vs)
    check(values == sorted("ok%d" % i for i in range(20)),
          "after kill -9 and restart read_committed sees exactly the committed records (%d)"
          % len(values))
    check(all(pos == high for pos, high in positions.values()),
          "the last stable offset moved past the aborted transaction to the high watermark "
          "(position, high watermark: %s)" % positions)


def main():
    overrides = {"transaction.abort.timed.out.transaction.cleanup.interval.ms": "500"}
    with StrataBroker(sys.argv[1], overrides) as broker:
        consume_transform_produce(broker.bootstrap)
        fencing(broker.bootstrap)
        crash(broker)
    print("transactions_confluent: all checks passed")


if __name__ == "__main__":
    main()
