#!/usr/bin/python3
"""Transactions with kafkajs against a real Strata broker: a kafkajs transactional
producer runs transactions over every partition of a topic, each also committing a
consumer-group offset (sendOffsets), and aborts every third. A kafkajs read_committed
consumer and a librdkafka one see exactly the committed transactions' records, in
order; a read_uncommitted reader sees all of them; the group's committed offset is the
last committed transaction's (aborted sendOffsets are dropped).
Usage: transactions_kafkajs.py PATH/TO/strata"""
import json
import os
import subprocess
import sys

from confluent_kafka import Consumer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check

HERE = os.path.dirname(os.path.abspath(__file__))
PARTITIONS = 3
TXNS = 30


def node(*args):
    out = subprocess.run(["node", os.path.join(HERE, "js", "transactions.js")] + list(args),
                         capture_output=True, text=True, timeout=300, cwd=os.path.join(HERE, "js"))
    if out.returncode != 0:
        raise AssertionError("kafkajs failed: " + out.stderr[-3000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def read_all(bootstrap, topic, isolation):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "check-" + isolation,
                  "enable.auto.commit": False, "isolation.level": isolation})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = {p: [] for p in range(PARTITIONS)}
    idle = 0
    while idle < 15:
        m = c.poll(0.2)
        if m is None or m.error():
            idle += 1
            continue
        idle = 0
        got[m.partition()].append(m.value().decode())
    c.close()
    return got


def main():
    with StrataBroker(sys.argv[1]) as broker:
        b = broker.bootstrap
        admin = AdminClient({"bootstrap.servers": b})
        admin.create_topics([NewTopic("js-txn", PARTITIONS, 1)])["js-txn"].result(20)
        check(node("produce", b, "js-txn", str(TXNS), str(PARTITIONS), "js-group")["ok"],
              "kafkajs: %d transactions sent, every third aborted" % TXNS)
        committed = [t for t in range(TXNS) if t % 3 != 2]
        want = {p: ["%d-%d" % (t, p) for t in committed] for p in range(PARTITIONS)}
        js = node("consume", b, "js-txn", str(len(committed) * PARTITIONS), str(PARTITIONS))
        js = {int(k): v for k, v in js.items()}
        check(js == want, "kafkajs read_committed consumer sees exactly the committed records, "
                          "in order (%s)" % [len(js[p]) for p in js])
        got = read_all(b, "js-txn", "read_committed")
        check(got == want, "librdkafka read_committed sees the same (%s)" % [len(got[p]) for p in got])
        raw = read_all(b, "js-txn", "read_uncommitted")
        check(all(len(raw[p]) == TXNS for p in raw),
              "read_uncommitted sees all %d transactions' records" % TXNS)
        c = Consumer({"bootstrap.servers": b, "group.id": "js-group"})
        offset = c.committed([TopicPartition("js-txn", 0)], 30)[0].offset
        c.close()
        check(offset == committed[-1] + 1,
              "the group's offset is the last committed transaction's (%d)" % offset)
    print("transactions_kafkajs: all checks passed")


if __name__ == "__main__":
    main()
