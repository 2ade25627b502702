#!/usr/bin/python3
"""Log compaction against a real Strata broker:
  - a compacted topic refuses records without a key (INVALID_RECORD);
  - keyed records with overwrites and tombstones are compacted by the broker's cleaner:
    librdkafka and kafka-python then read from offset 0 exactly the latest value of
    every live key, in offset order, with the offsets the producer was given; deleted
    keys do not come back once delete.retention.ms has passed;
  - `strata dump-log` shows the offset gaps and the tombstones' delete horizon;
  - everything survives a restart.
Usage: compaction.py PATH/TO/strata"""
import glob
import os
import subprocess
import sys
import time

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check

KEYS = 200
ROUNDS = 10
TOPIC = "compacted"
TOPIC_CONFIG = {"cleanup.policy": "compact", "segment.bytes": "16384",
                "min.cleanable.dirty.ratio": "0.01", "delete.retention.ms": "2000"}


def produce_workload(bootstrap):
    """ROUNDS overwrites of KEYS keys; in the last round every 10th key is deleted.
    Returns the model: key -> (offset, value or None)."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    model = {}

    def record(err, msg):
        if err is None:
            model[msg.key().decode()] = (msg.offset(), msg.value())

    for r in range(ROUNDS):
        for k in range(KEYS):
            tomb = r == ROUNDS - 1 and k % 10 == 0
            p.produce(TOPIC, key=b"key%d" % k, value=None if tomb else b"v%d-%d" % (k, r),
                      partition=0, on_delivery=record)
        p.flush(30)
    return model


def fill(bootstrap, tag, count=1200):
    """Records of ten other keys, enough to roll the active segment (the cleaner never
    cleans the active segment) so the workload before them becomes cleanable."""
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    for i in range(count):
        p.produce(TOPIC, key=b"fill%d" % (i % 10), value=b"%s-%08d" % (tag, i), partition=0)
    p.flush(30)


def workload(records):
    return [r for r in records if r[1].startswith("key")]


def keyless_refused(bootstrap):
    p = Producer({"bootstrap.servers": bootstrap, "retries": 0})
    errors = []
    p.produce(TOPIC, value=b"no key", partition=0,
              on_delivery=lambda err, msg: errors.append(err))
    p.flush(30)
    return errors and errors[0] is not None and errors[0].code() == KafkaError.INVALID_RECORD


def read_librdkafka(bootstrap):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "compaction-check",
                  "enable.auto.commit": False})
    c.assign([TopicPartition(TOPIC, 0, 0)])
    out, idle = [], 0
    while idle < 10:
        m = c.poll(0.3)
        if m is None or m.error():
            idle += 1
            continue
        idle = 0
        out.append((m.offset(), m.key().decode(), m.value()))
    c.close()
    return out


def read_kafka_python(bootstrap):
    from kafka import KafkaConsumer
    from kafka.structs import TopicPartition as KTP
    c = KafkaConsumer(bootstrap_servers=bootstrap, enable_auto_commit=False,
                      consumer_timeout_ms=3000)
    c.assign([KTP(TOPIC, 0)])
    c.seek(KTP(TOPIC, 0), 0)
    out = [(m.offset, m.key.decode(), m.value) for m in c]
    c.close()
    return out


def expected(model, with_tombstones):
    return sorted((off, k, v) for k, (off, v) in model.items() if v is not None or with_tombstones)


def segments(data_dir):
    return sorted(glob.glob(os.path.join(data_dir, TOPIC + "-0", "*.log")))


def dump_log(strata, data_dir):
    return subprocess.run([strata, "dump-log", "--files", ",".join(segments(data_dir))],
                          capture_output=True, text=True, timeout=60).stdout


def wait_for(what, cond, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.5)
    check(False, "timed out waiting for " + what)


def main():
    overrides = {"log.cleaner.backoff.ms": "200"}
    with StrataBroker(sys.argv[1], overrides) as broker:
        b = broker.bootstrap
        admin = AdminClient({"bootstrap.servers": b})
        admin.create_topics([NewTopic(TOPIC, 1, 1, config=TOPIC_CONFIG)])[TOPIC].result(20)
        check(keyless_refused(b), "a record without a key is refused with INVALID_RECORD")
        model = produce_workload(b)
        check(len(model) == KEYS, "%d records produced over %d keys" % (KEYS * ROUNDS, KEYS))
        data = os.path.join(broker.dir, "data")
        fill(b, b"a")
        # The cleaner keeps the latest record of each key (tombstones too, until
        # delete.retention.ms has passed since the first cleaning saw them).
        wait_for("the first cleaning", lambda: len(workload(read_librdkafka(b))) == KEYS)
        got = workload(read_librdkafka(b))
        check(got == expected(model, with_tombstones=True),
              "librdkafka reads the latest value of every key (tombstones included) with its "
              "original offset (%d records)" % len(got))
        first_dump = dump_log(sys.argv[1], data)
        check("deleteHorizonMs: OptionalLong[" in first_dump,
              "dump-log shows the delete horizon of the batches holding tombstones")
        # Tombstones go once delete.retention.ms (2 s) has passed and a later cleaning
        # runs: more writes make the log dirty again.
        time.sleep(2.5)
        p = Producer({"bootstrap.servers": b})
        for i in range(50):
            p.produce(TOPIC, key=b"key%d" % (1 + i % 9), value=b"late%d" % i, partition=0,
                      on_delivery=lambda err, msg: model.__setitem__(
                          msg.key().decode(), (msg.offset(), msg.value())))
        p.flush(30)
        fill(b, b"b")
        wait_for("tombstones removed", lambda: len(workload(read_librdkafka(b))) == KEYS - KEYS // 10)
        got = workload(read_librdkafka(b))
        check(got == expected(model, with_tombstones=False),
              "after delete.retention.ms the tombstones are gone and deleted keys do not come "
              "back (%d live keys)" % len(got))
        everything = read_librdkafka(b)
        kp = read_kafka_python(b)
        check(kp == everything, "kafka-python reads the same compacted partition (%d records)" % len(kp))
        dump = dump_log(sys.argv[1], data)
        gaps = [l for l in dump.splitlines() if l.startswith("baseOffset:")
                and int(l.split()[3]) - int(l.split()[1]) + 1 > int(l.split()[5])]
        check(gaps, "dump-log shows batches with offset gaps (%d)" % len(gaps))
        broker.restart()
        check(read_librdkafka(b) == everything,
              "the compacted partition reads the same after a restart")
    print("compaction: all checks passed")


if __name__ == "__main__":
    main()
