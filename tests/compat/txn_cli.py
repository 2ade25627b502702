#!/usr/bin/python3
"""`strata txn` (the kafka-transactions.sh-like tool) against a real Strata broker and a
real transactional producer (confluent_kafka / librdkafka):
  1. with a transaction held open on "payments-0" (after two plain records), `list`
     shows it Ongoing (and its filters work), `describe` shows its partition and
     timeout, `describe-producers` its producer with the transaction's start offset 2,
     `find-hanging` finds nothing (the coordinator counts the partition), and a
     read_committed consumer stops before it;
  2. `abort --start-offset 2` writes the ABORT marker (WriteTxnMarkers): the partition
     no longer shows the transaction open and a read_committed consumer reaches the end
     of the partition without the aborted records;
  3. the producer then commits (the coordinator still holds the transaction; its
     COMMIT marker must not bring the aborted records back), and a second transaction
     commits: `describe` shows CompleteCommit, read_committed sees the committed records.
Every table is checked for Kafka's layout (cells padded per column, each followed by a
tab). Usage: txn_cli.py PATH/TO/strata"""
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition

from strata_broker import StrataBroker, check

TOPIC = "payments"
TXN_ID = "payments-txn"
TXN_TIMEOUT_MS = 60000
PLAIN = ["plain-0", "plain-1"]           # offsets 0, 1
ABORTED = ["aborted-0", "aborted-1", "aborted-2"]  # offsets 2-4, then the ABORT marker at 5
COMMITTED = ["committed-0", "committed-1"]


def txn(strata, bs, *args):
    return subprocess.run([strata, "txn", *args, "--bootstrap-server", bs],
                          capture_output=True, text=True, timeout=120)


def table(p, what):
    """The rows of a kafka-transactions.sh table (header first), its layout checked: every
    cell padded to its column's widest cell and followed by a tab."""
    if p.returncode != 0:
        raise AssertionError("%s failed (%d): %s" % (what, p.returncode, p.stderr))
    lines = p.stdout.splitlines()
    check(len(lines) >= 1 and all(l.endswith("\t") for l in lines) and p.stderr == "",
          "%s: every line ends with a tab, nothing on stderr" % what)
    cells = [l.split("\t")[:-1] for l in lines]
    widths = [[len(c) for c in row] for row in cells]
    check(all(w == widths[0] for w in widths) and
          all(max(len(row[i].rstrip(" ")) for row in cells) == widths[0][i]
              for i in range(len(widths[0]))),
          "%s: each column is padded to its widest cell" % what)
    return [[c.rstrip(" ") for c in row] for row in cells]


def read(bs, isolation, eof_wanted=True):
    """Every record of payments-0 from the start, and where the consumer stopped: the
    offset of the partition EOF it reached (None if none came) and the watermarks."""
    c = Consumer({"bootstrap.servers": bs, "group.id": "reader", "enable.auto.commit": False,
                  "isolation.level": isolation, "enable.partition.eof": True})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    values, eof_at = [], None
    deadline = time.time() + (20 if eof_wanted else 3)
    while time.time() < deadline:
        m = c.poll(0.2)
        if m is None:
            continue
        if m.error():
            if m.error().code() == KafkaError._PARTITION_EOF:
                eof_at = m.offset()
                break
            continue
        values.append(m.value().decode())
    high = c.get_watermark_offsets(TopicPartition(TOPIC, 0), 10, cached=False)[1]
    c.close()
    return values, eof_at, high


def describe_row(strata, bs):
    rows = table(txn(strata, bs, "describe", "--transactional-id", TXN_ID), "describe")
    check(rows[0] == ["CoordinatorId", "TransactionalId", "ProducerId", "ProducerEpoch",
                      "TransactionState", "TransactionTimeoutMs",
                      "CurrentTransactionStartTimeMs", "TransactionDurationMs",
                      "TopicPartitions"] and len(rows) == 2,
          "describe: Kafka's header and one row")
    return dict(zip(rows[0], rows[1]))


def settled_row(strata, bs):
    """describe once the transaction has left PrepareCommit/PrepareAbort: the coordinator
    answers EndTxn when the prepare is durable and writes the markers after, as Kafka's."""
    deadline = time.time() + 10
    while True:
        d = describe_row(strata, bs)
        if not d["TransactionState"].startswith("Prepare") or time.time() > deadline:
            return d
        time.sleep(0.1)


def producer_rows(strata, bs):
    rows = table(txn(strata, bs, "describe-producers", "--topic", TOPIC, "--partition", "0"),
                 "describe-producers")
    check(rows[0] == ["ProducerId", "ProducerEpoch", "LatestCoordinatorEpoch", "LastSequence",
                      "LastTimestamp", "CurrentTransactionStartOffset"],
          "describe-producers: Kafka's header")
    return [dict(zip(rows[0], r)) for r in rows[1:]]


def check_open(strata, bs, began_ms):
    d = describe_row(strata, bs)
    now = int(time.time() * 1000)
    check(d["TransactionalId"] == TXN_ID and d["TransactionState"] == "Ongoing" and
          d["TransactionTimeoutMs"] == str(TXN_TIMEOUT_MS) and d["TopicPartitions"] == TOPIC + "-0",
          "describe: Ongoing, timeout %d, partition %s-0 (%s)" % (TXN_TIMEOUT_MS, TOPIC, d))
    start = int(d["CurrentTransactionStartTimeMs"])
    check(began_ms - 1000 <= start <= now and 0 <= int(d["TransactionDurationMs"]) <= now - start + 1000,
          "describe: the start time is when the transaction began, the duration since then")
    pid, epoch, coordinator = d["ProducerId"], d["ProducerEpoch"], d["CoordinatorId"]

    rows = table(txn(strata, bs, "list"), "list")
    check(rows[0] == ["TransactionalId", "Coordinator", "ProducerId", "TransactionState"] and
          rows[1:] == [[TXN_ID, coordinator, pid, "Ongoing"]],
          "list: the transaction, Ongoing, with its coordinator and producer id (%s)" % rows[1:])
    filters = [(["--state", "Ongoing"], 1), (["--state", "completecommit,Empty"], 0),
               (["--producer-id", pid], 1), (["--producer-id", str(int(pid) + 1)], 0),
               (["--duration-filter", "0"], 1), (["--duration-filter", "3600000"], 0)]
    for args, count in filters:
        rows = table(txn(strata, bs, "list", *args), "list " + " ".join(args))
        check(len(rows) - 1 == count, "list %s: %d row(s)" % (" ".join(args), count))
    p = txn(strata, bs, "list", "--state", "Running")
    check(p.returncode == 1 and "Invalid transaction state 'Running'" in p.stderr and p.stdout == "",
          "list --state with an unknown state: error")

    producers = producer_rows(strata, bs)
    check(len(producers) == 1 and producers[0]["ProducerId"] == pid and
          producers[0]["ProducerEpoch"] == epoch and
          producers[0]["CurrentTransactionStartOffset"] == str(len(PLAIN)) and
          producers[0]["LastSequence"] == str(len(ABORTED) - 1) and
          producers[0]["LatestCoordinatorEpoch"] == "-1",
          "describe-producers: the producer, its epoch, last sequence %d and the open "
          "transaction starting at offset %d (%s)" % (len(ABORTED) - 1, len(PLAIN), producers))

    rows = table(txn(strata, bs, "find-hanging", "--topic", TOPIC, "--max-transaction-timeout", "0"),
                 "find-hanging")
    check(rows == [["Topic", "Partition", "ProducerId", "ProducerEpoch", "CoordinatorEpoch",
                    "StartOffset", "LastTimestamp", "Duration(min)"]],
          "find-hanging: the open transaction is not hanging (its coordinator counts the partition)")
    p = txn(strata, bs, "find-hanging")
    check(p.returncode == 1 and "requires either --topic or --broker-id" in p.stderr,
          "find-hanging without --topic or --broker-id: error")

    values, eof_at, _ = read(bs, "read_committed", eof_wanted=False)
    check(values == PLAIN, "read_committed stops before the open transaction (%s)" % values)
    values, _, _ = read(bs, "read_uncommitted")
    check(values == PLAIN + ABORTED, "read_uncommitted sees its records (%s)" % values)
    return pid, epoch


def check_abort(strata, bs, pid, epoch):
    p = txn(strata, bs, "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", "1")
    check(p.returncode == 1 and p.stderr.strip() == "Could not find any open transactions "
          "starting at offset 1 on partition %s-0" % TOPIC,
          "abort at an offset where no transaction starts: Kafka's error (%r)" % p.stderr)
    p = txn(strata, bs, "abort", "--topic", TOPIC, "--partition", "0")
    check(p.returncode == 1 and "--start-offset" in p.stderr, "abort without --start-offset: error")
    p = txn(strata, bs, "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", str(len(PLAIN)))
    check(p.returncode == 0 and p.stdout == "" and p.stderr == "",
          "abort --start-offset %d: done, prints nothing (%r)" % (len(PLAIN), p.stderr))
    producers = producer_rows(strata, bs)
    check(len(producers) == 1 and producers[0]["ProducerId"] == pid and
          producers[0]["CurrentTransactionStartOffset"] == "None" and
          producers[0]["LatestCoordinatorEpoch"] == "0",
          "describe-producers: no open transaction, coordinator epoch 0 from the marker (%s)"
          % producers)
    end = len(PLAIN) + len(ABORTED) + 1
    values, eof_at, high = read(bs, "read_committed")
    check(values == PLAIN and eof_at == end and high == end,
          "read_committed reaches the end (%d, past the ABORT marker) without the aborted "
          "records (%s, EOF at %s, high watermark %s)" % (end, values, eof_at, high))
    p = txn(strata, bs, "abort", "--topic", TOPIC, "--partition", "0", "--start-offset", str(len(PLAIN)))
    check(p.returncode == 1 and "Could not find any open transactions" in p.stderr,
          "a second abort finds no transaction there")


def check_commits(strata, bs, producer):
    producer.commit_transaction(30)
    d = settled_row(strata, bs)
    check(d["TransactionState"] == "CompleteCommit" and d["TopicPartitions"] == "",
          "after commit_transaction: CompleteCommit, no partitions (%s)" % d)
    values, eof_at, high = read(bs, "read_committed")
    end = len(PLAIN) + len(ABORTED) + 2
    check(values == PLAIN and eof_at == end,
          "the COMMIT marker after the abort does not bring the aborted records back (%s, "
          "EOF at %s)" % (values, eof_at))
    producer.begin_transaction()
    for v in COMMITTED:
        producer.produce(TOPIC, value=v.encode(), partition=0)
    producer.commit_transaction(30)
    d = settled_row(strata, bs)
    check(d["TransactionState"] == "CompleteCommit", "a second transaction commits: CompleteCommit")
    values, eof_at, high = read(bs, "read_committed")
    check(values == PLAIN + COMMITTED and eof_at == high,
          "read_committed sees the committed records and reaches the end (%s)" % values)
    rows = table(txn(strata, bs, "list", "--state", "CompleteCommit"), "list --state CompleteCommit")
    check([r[0] for r in rows[1:]] == [TXN_ID], "list --state CompleteCommit finds it")
    p = txn(strata, bs, "describe", "--transactional-id", "nope")
    check(p.returncode == 1 and p.stdout == "" and p.stderr.startswith(
        "Failed to describe transaction state of transactional-id `nope`: "
        "TRANSACTIONAL_ID_NOT_FOUND"), "describe of an unknown id: Kafka's error (%r)" % p.stderr)
    p = txn(strata, bs, "describe-producers", "--topic", "nope", "--partition", "0")
    check(p.returncode == 1 and p.stderr.startswith(
        "Failed to describe producers for partition nope-0 on leader: UNKNOWN_TOPIC_OR_PARTITION"),
        "describe-producers of an unknown partition: Kafka's error (%r)" % p.stderr)


def main():
    strata = sys.argv[1]
    with StrataBroker(strata) as broker:
        bs = broker.bootstrap
        p = subprocess.run([strata, "topic", "--bootstrap-server", bs, "--create", "--topic", TOPIC,
                            "--partitions", "1"], capture_output=True, text=True, timeout=60)
        check(p.returncode == 0, "created %s" % TOPIC)
        plain = Producer({"bootstrap.servers": bs})
        for v in PLAIN:
            plain.produce(TOPIC, value=v.encode(), partition=0)
        check(plain.flush(30) == 0, "two plain records at offsets 0 and 1")
        began_ms = int(time.time() * 1000)
        producer = Producer({"bootstrap.servers": bs, "transactional.id": TXN_ID,
                             "transaction.timeout.ms": TXN_TIMEOUT_MS})
        producer.init_transactions(30)
        producer.begin_transaction()
        for v in ABORTED:
            producer.produce(TOPIC, value=v.encode(), partition=0)
        check(producer.flush(30) == 0, "a transaction holds %d records open" % len(ABORTED))
        pid, epoch = check_open(strata, bs, began_ms)
        check_abort(strata, bs, pid, epoch)
        check_commits(strata, bs, producer)
        del producer, plain  # before the broker stops, so librdkafka does not complain
    print("strata txn: all checks passed")


if __name__ == "__main__":
    main()
