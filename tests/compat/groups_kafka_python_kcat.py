#!/usr/bin/python3
"""kafka-python and kcat (-G) join consumer groups on a real Strata broker and commit:
each reads a topic through a group, commits, and a second run of the same group reads
only what was produced since; committed offsets are checked with confluent-kafka.
Usage: groups_kafka_python_kcat.py PATH/TO/strata"""
import subprocess
import sys

from confluent_kafka import Consumer, TopicPartition
from kafka import KafkaConsumer

from group_scenario import create_topic, produce
from strata_broker import StrataBroker, check

PARTITIONS = 6


def committed(bootstrap, group, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group})
    got = c.committed([TopicPartition(topic, p) for p in range(PARTITIONS)], timeout=10)
    c.close()
    return {tp.partition: tp.offset for tp in got if tp.offset >= 0}


def kafka_python_reads(bootstrap, group, topic, want):
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, enable_auto_commit=False,
                      auto_offset_reset="earliest", consumer_timeout_ms=8000)
    got = []
    for m in c:
        got.append(m.value.decode())
        if len(got) == want:
            break
    c.commit()
    c.close()
    return got


def kcat_reads(bootstrap, group, topic):
    # auto.offset.reset, not -o: kcat's -o overrides committed offsets on every assign.
    out = subprocess.run(["kcat", "-b", bootstrap, "-G", group, topic, "-e",
                          "-q", "-f", "%s\\n", "-X", "session.timeout.ms=6000", "-X", "auto.offset.reset=earliest"],
                         capture_output=True, text=True, timeout=60)
    return [line for line in out.stdout.splitlines() if line]


def main():
    with StrataBroker(sys.argv[1], {"group.initial.rebalance.delay.ms": "0"}) as broker:
        b = broker.bootstrap
        create_topic(b, "kp")
        first = set(produce(b, "kp", 0, 60))
        got = kafka_python_reads(b, "kp-group", "kp", 60)
        check(set(got) == first and len(got) == 60, "kafka-python read 60 records through a group")
        check(committed(b, "kp-group", "kp") == {p: 10 for p in range(PARTITIONS)},
              "kafka-python committed 10 per partition")
        second = set(produce(b, "kp", 60, 30))
        got = kafka_python_reads(b, "kp-group", "kp", 30)
        check(set(got) == second, "kafka-python resumed from its commits: only the 30 new records")

        create_topic(b, "kc")
        first = set(produce(b, "kc", 0, 60))
        got = kcat_reads(b, "kc-group", "kc")
        check(set(got) == first and len(got) == 60, "kcat -G read 60 records through a group")
        check(committed(b, "kc-group", "kc") == {p: 10 for p in range(PARTITIONS)},
              "kcat committed 10 per partition")
        second = set(produce(b, "kc", 60, 30))
        got = kcat_reads(b, "kc-group", "kc")
        check(set(got) == second and len(got) == 30, "kcat -G resumed from its commits: only the 30 new records")


if __name__ == "__main__":
    main()
