#!/usr/bin/python3
"""confluent-kafka-python (librdkafka) against a real Strata broker:
topics with several partitions, keyed records with headers and null values in every
codec, a clean restart and an unclean one between produce and consume, exact read-back,
offsets by timestamp, metadata. Usage: client_confluent.py PATH/TO/strata"""
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
# Recent timestamps: older ones would be deleted by retention.ms (7 days), as in Kafka.
BASE_TS = int(time.time() * 1000) - 60000
PARTITIONS = 3


def produce(bootstrap, topic):
    sent = {}
    for codec in CODECS:
        p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "compression.type": codec,
                      "linger.ms": 5, "enable.idempotence": False})
        for i in range(60):
            key = None if i % 7 == 0 else ("%s-key-%d" % (codec, i)).encode()
            value = None if i % 11 == 5 else ("%s value %d " % (codec, i) * (1 + i % 4)).encode()
            headers = [("codec", codec.encode()), ("i", str(i).encode())] if i % 2 else None
            part = i % PARTITIONS
            p.produce(topic, key=key, value=value, partition=part, headers=headers,
                      timestamp=BASE_TS + len(sent.get(part, [])))
            sent.setdefault(part, []).append((key, value, headers or []))
        check(p.flush(20) == 0, "produce %s: every record acknowledged" % codec)
    return sent


def consume(bootstrap, topic, sent):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "unused", "enable.auto.commit": False,
                  "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, p, 0) for p in range(PARTITIONS)])
    got = {}
    want = sum(len(v) for v in sent.values())
    deadline = time.time() + 30
    n = 0
    while n < want and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        got.setdefault(m.partition(), []).append((m.key(), m.value(), list(m.headers() or [])))
        n += 1
    for p in range(PARTITIONS):
        check(got.get(p) == sent.get(p), "partition %d read back exactly (%d records)" %
              (p, len(sent.get(p, []))))
    # The first record at or after a timestamp, and past the end.
    tps = c.offsets_for_times([TopicPartition(topic, 0, BASE_TS + 10)], timeout=10)
    check(tps[0].offset == 10, "offsets_for_times finds offset 10 (got %d)" % tps[0].offset)
    lo, hi = c.get_watermark_offsets(TopicPartition(topic, 1), timeout=10)
    check((lo, hi) == (0, len(sent[1])), "watermarks of partition 1: %s" % ((lo, hi),))
    c.close()


def main():
    with StrataBroker(sys.argv[1]) as broker:
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.create_topics([NewTopic("orders", num_partitions=PARTITIONS,
                                               replication_factor=1)]).values():
            f.result(10)
        md = admin.list_topics(timeout=10)
        check("orders" in md.topics and len(md.topics["orders"].partitions) == PARTITIONS,
              "metadata lists the topic with %d partitions" % PARTITIONS)
        sent = produce(broker.bootstrap, "orders")
        broker.restart()
        consume(broker.bootstrap, "orders", sent)
        broker.restart(kill=True)
        consume(broker.bootstrap, "orders", sent)
        admin = AdminClient({"bootstrap.servers": broker.bootstrap})
        for f in admin.delete_topics(["orders"]).values():
            try:
                f.result(10)
            except Exception:
                pass
        check("orders" not in admin.list_topics(timeout=10).topics, "deleted topic is gone")
    print("confluent-kafka: all checks passed")


if __name__ == "__main__":
    main()
