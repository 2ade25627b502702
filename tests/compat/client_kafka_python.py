#!/usr/bin/python3
"""kafka-python (an independent pure-Python client) against a real Strata broker:
topic creation, keyed records with headers and null values in every codec, a restart
between produce and consume, exact read-back, offsets by time, end offsets, metadata.
Usage: client_kafka_python.py PATH/TO/strata"""
import sys
import time

from kafka import KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import KafkaAdminClient, NewTopic

from strata_broker import StrataBroker, check

CODECS = [None, "gzip", "snappy", "lz4", "zstd"]
PARTITIONS = 2
BASE_TS = int(time.time() * 1000) - 60000


def main():
    with StrataBroker(sys.argv[1]) as broker:
        admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
        admin.create_topics([NewTopic("events", PARTITIONS, 1)])
        check("events" in admin.list_topics(), "the new topic is listed")
        sent = {p: [] for p in range(PARTITIONS)}
        for codec in CODECS:
            producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all",
                                     compression_type=codec, linger_ms=5)
            for i in range(40):
                p = i % PARTITIONS
                key = None if i % 9 == 0 else ("%s-%d" % (codec, i)).encode()
                value = None if i % 13 == 4 else ("value %s %d" % (codec, i)).encode() * (1 + i % 3)
                headers = [("n", str(i).encode())] if i % 3 else []
                producer.send("events", key=key, value=value, partition=p, headers=headers,
                              timestamp_ms=BASE_TS + len(sent[p]))
                sent[p].append((key, value, headers))
            producer.flush()
            producer.close()
            check(True, "produced 40 records with codec %s" % codec)
        admin.close()
        broker.restart()
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, consumer_timeout_ms=5000)
        tps = [TopicPartition("events", p) for p in range(PARTITIONS)]
        consumer.assign(tps)
        consumer.seek_to_beginning()
        got = {p: [] for p in range(PARTITIONS)}
        for m in consumer:
            got[m.partition].append((m.key, m.value, list(m.headers)))
        for p in range(PARTITIONS):
            check(got[p] == sent[p], "partition %d read back exactly after a restart" % p)
        ends = consumer.end_offsets(tps)
        check(all(ends[tp] == len(sent[tp.partition]) for tp in tps), "end offsets: %s" % ends)
        found = consumer.offsets_for_times({tps[0]: BASE_TS + 7})
        check(found[tps[0]].offset == 7, "offsets_for_times: %s" % (found[tps[0]],))
        consumer.close()
        recompression(broker)
    print("kafka-python: all checks passed")


def recompression(broker):
    """compression.type=gzip on a topic: uncompressed batches are stored gzip'ed."""
    import glob
    import os
    import struct
    admin = KafkaAdminClient(bootstrap_servers=broker.bootstrap)
    admin.create_topics([NewTopic("zipped", 1, 1, topic_configs={"compression.type": "gzip"})])
    admin.close()
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap, acks="all", linger_ms=5)
    values = [("zipped value %d " % i * 20).encode() for i in range(100)]
    for v in values:
        producer.send("zipped", value=v, partition=0)
    producer.flush()
    producer.close()
    consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, consumer_timeout_ms=5000)
    consumer.assign([TopicPartition("zipped", 0)])
    consumer.seek_to_beginning()
    check([m.value for m in consumer] == values, "compression.type=gzip: records read back intact")
    consumer.close()
    seg = glob.glob(os.path.join(broker.dir, "data", "zipped-0", "*.log"))[0]
    data = open(seg, "rb").read()
    (attributes,) = struct.unpack_from(">h", data, 21)
    check(attributes & 7 == 1, "compression.type=gzip: the stored batch is gzip (codec %d)" % (attributes & 7))


if __name__ == "__main__":
    main()
