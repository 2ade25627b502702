#!/usr/bin/python3
"""kafkajs (npm) against a real Strata broker: admin topic creation, produce (none and
gzip) with keys, null values and headers, a restart, then kafkajs admin offsets and
time lookups, and an exact read-back of what kafkajs sent through kafka-python.
Usage: client_kafkajs.py PATH/TO/strata"""
import json
import os
import subprocess
import sys

from kafka import KafkaConsumer, TopicPartition

from strata_broker import StrataBroker, check

HERE = os.path.dirname(os.path.abspath(__file__))


def node(*args):
    out = subprocess.run(["node", os.path.join(HERE, "js", "client.js"), *args],
                         capture_output=True, text=True, timeout=60, cwd=os.path.join(HERE, "js"))
    if out.returncode != 0:
        raise AssertionError("kafkajs failed: " + out.stderr[-4000:])
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    with StrataBroker(sys.argv[1]) as broker:
        produced = node(broker.bootstrap, "produce")
        sent = produced["sent"]
        check(True, "kafkajs produced %d records" % sum(len(v) for v in sent.values()))
        broker.restart()
        info = node(broker.bootstrap, "check", str(produced["base_ts"] + 5))
        highs = {o["partition"]: int(o["high"]) for o in info["offsets"]}
        check(highs == {0: len(sent["0"]), 1: len(sent["1"])}, "kafkajs sees offsets %s" % highs)
        check(info["partitions"] == 2, "kafkajs metadata has 2 partitions")
        by_time = {o["partition"]: int(o["offset"]) for o in info["byTime"]}
        check(by_time == {0: 5, 1: 5}, "kafkajs offsets by timestamp %s" % by_time)
        consumer = KafkaConsumer(bootstrap_servers=broker.bootstrap, consumer_timeout_ms=5000)
        consumer.assign([TopicPartition("clicks", p) for p in (0, 1)])
        consumer.seek_to_beginning()
        got = {"0": [], "1": []}
        for m in consumer:
            headers = [[k, v.decode()] for k, v in m.headers]
            got[str(m.partition)].append([None if m.key is None else m.key.decode(),
                                          None if m.value is None else m.value.decode(), headers])
        consumer.close()
        for p in ("0", "1"):
            check(got[p] == sent[p], "kafka-python reads back partition %s as kafkajs sent it" % p)
    print("kafkajs: all checks passed")


if __name__ == "__main__":
    main()
