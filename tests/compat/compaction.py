#!/usr/bin/python3
"""Log compaction against a real Strata broker:
  - a compacted topic refuses records without a key (INVALID_RECORD);
  - keyed records with overwrites and tombstones are compacted by the broker's cleaner:
    librdkafka and kafka-python then read from offset 0 exactly the latest value of
    every live key, in offset order, with the offsets the producer was given; deleted
    keys do not come back once delete.retention.ms has passed;
  - `strata dump-log` shows the offset gaps and the tombstones' delete horizon;
  - the metrics endpoint (metrics.listener, docs/metrics.md) shows the partition's dirty
    ratio, last clean time and cleanings, `strata topic --describe --metrics-url` prints
    them, and bad HTTP requests get 400/404 while Kafka clients are still served;
  - __consumer_offsets is compacted by the same cleaner (small offsets.topic.segment.bytes,
    thousands of commits of one group) and the group's committed offsets survive a
    restart that replays the cleaned log;
  - everything survives a restart.
Usage: compaction.py PATH/TO/strata"""
import datetime
import glob
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import StrataBroker, check, free_port, java_partition

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


# ---- The metrics endpoint ----------------------------------------------------------

SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$')
LABEL = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


def scrape(url):
    """GET /metrics: {(name, ((label, value), ...)): value}."""
    with urllib.request.urlopen(url + "/metrics", timeout=10) as r:
        content_type = r.headers.get("Content-Type", "")
        body = r.read().decode()
    assert content_type.startswith("text/plain; version=0.0.4"), content_type
    out = {}
    for line in body.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, "unparsable metrics line: %r" % line
        labels = tuple(sorted(LABEL.findall(m.group(2) or "")))
        out[(m.group(1), labels)] = float(m.group(3))
    return out


def partition_metric(metrics, name, topic, partition):
    return metrics.get((name, (("partition", str(partition)), ("topic", topic))))


def raw_http(port, request, timeout=10):
    """Sends raw bytes to the metrics port; returns what comes back before the close, or
    "reset" if the connection was reset."""
    with socket.create_connection(("127.0.0.1", port), timeout=timeout) as s:
        try:
            s.sendall(request)
            data = b""
            while True:
                chunk = s.recv(65536)
                if not chunk:
                    return data
                data += chunk
        except ConnectionResetError:
            return "reset"


def topic_describe(strata, bootstrap, *extra):
    return subprocess.run([strata, "topic", "--bootstrap-server", bootstrap, "--describe",
                           "--timeout-ms", "10000", *extra],
                          capture_output=True, text=True, timeout=60)


def iso_ms(text):
    t = datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ")
    return int(t.replace(tzinfo=datetime.timezone.utc).timestamp() * 1000)


def check_metrics(strata, b, url, port):
    m = scrape(url)
    ratio = partition_metric(m, "strata_log_cleaner_dirty_ratio", TOPIC, 0)
    last = partition_metric(m, "strata_log_cleaner_last_clean_timestamp_ms", TOPIC, 0)
    cleanings = partition_metric(m, "strata_log_cleaner_cleanings_total", TOPIC, 0)
    first_dirty = partition_metric(m, "strata_log_cleaner_first_dirty_offset", TOPIC, 0)
    read = partition_metric(m, "strata_log_cleaner_bytes_read_total", TOPIC, 0)
    written = partition_metric(m, "strata_log_cleaner_bytes_written_total", TOPIC, 0)
    check(ratio is not None and 0 <= ratio <= 1,
          "GET /metrics shows the partition's dirty ratio (%s)" % ratio)
    now_ms = time.time() * 1000
    check(last is not None and now_ms - 600000 < last <= now_ms + 1000,
          "... its last clean time (%s ms ago)" % (None if last is None else int(now_ms - last)))
    check(cleanings is not None and cleanings >= 1, "... cleanings_total >= 1 (%s)" % cleanings)
    check(first_dirty is not None and first_dirty > 0, "... first dirty offset %s" % first_dirty)
    check(read and written and 0 < written < read,
          "... bytes read %s > bytes written %s by the cleanings" % (read, written))
    check(m.get(("strata_partitions", ())) >= 1 and
          m.get(("strata_log_cleaner_compacted_partitions", ())) >= 1 and
          m.get(("strata_log_cleaner_max_dirty_ratio", ())) >= ratio,
          "broker-wide gauges: partitions, compacted partitions, max dirty ratio")

    r = topic_describe(strata, b, "--topic", TOPIC, "--metrics-url", url)
    line = next((l for l in r.stdout.splitlines() if "\tPartition: 0\t" in l), "")
    got = re.search(r"\tDirtyRatio: (\d\.\d\d)\tLastCleaned: (\S+)$", line)
    check(r.returncode == 0 and got and 0 <= float(got.group(1)) <= 1 and
          iso_ms(got.group(2)) >= last,
          "strata topic --describe --metrics-url prints the dirty ratio and last clean time: "
          + repr(line))
    plain = topic_describe(strata, b, "--topic", TOPIC)
    check(plain.returncode == 0 and "Partition: 0" in plain.stdout and "DirtyRatio" not in plain.stdout,
          "without --metrics-url the describe output is unchanged")
    down = topic_describe(strata, b, "--topic", TOPIC, "--metrics-url",
                          "http://127.0.0.1:%d" % free_port())
    check(down.returncode == 1 and "cannot read metrics" in down.stderr and not down.stdout,
          "an unreachable --metrics-url is a clear error: " + down.stderr.strip())

    # Bad requests: answered and closed; Kafka clients and later scrapes are unaffected.
    idle = socket.create_connection(("127.0.0.1", port))  # says nothing; must not block others
    garbage = raw_http(port, b"\x00\x00\x00\x10\x00\x12\x00\x04garbage\r\n\r\n")
    check(garbage == "reset" or garbage.startswith(b"HTTP/1.1 400 "),
          "garbage gets 400 Bad Request (%r)" % garbage[:40])
    huge = raw_http(port, b"GET /metrics HTTP/1.1\r\nX-Huge: " + b"a" * 200000 + b"\r\n\r\n")
    check(huge == "reset" or huge.startswith(b"HTTP/1.1 400 ") or huge.startswith(b"HTTP/1.1 431 "),
          "a huge header gets 400/431 or a closed connection (%r)" % huge[:40])
    check(raw_http(port, b"GET /nope HTTP/1.0\r\n\r\n").startswith(b"HTTP/1.1 404 "),
          "an unknown path gets 404")
    check(raw_http(port, b"POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n").startswith(b"HTTP/1.1 405 "),
          "POST gets 405")
    check(partition_metric(scrape(url), "strata_log_cleaner_cleanings_total", TOPIC, 0) >= 1,
          "the endpoint still serves while a silent connection is open")
    idle.close()
    md = AdminClient({"bootstrap.servers": b}).list_topics(timeout=10)
    check(TOPIC in md.topics and len(workload(read_librdkafka(b))) > 0,
          "Kafka clients are still served")


# ---- __consumer_offsets compaction --------------------------------------------------

GROUP = "offsets-compaction"
FILLER = "offsets-filler"


def commit_many(c, topic, first, count):
    for i in range(first, first + count):
        c.commit(offsets=[TopicPartition(topic, 0, i)], asynchronous=False)


def check_offsets_compaction(b, url, data):
    """Many commits of one group on a 16 KiB-segment __consumer_offsets: the cleaner
    compacts the group's partition like any other, the last commit of (compacted, 0)
    lands in a cleaned segment. Returns the offsets the group must have after a restart."""
    admin = AdminClient({"bootstrap.servers": b})
    admin.create_topics([NewTopic(FILLER, 1, 1)])[FILLER].result(20)
    part = java_partition(GROUP, 50)
    c = Consumer({"bootstrap.servers": b, "group.id": GROUP, "enable.auto.commit": False})
    started = time.time()
    commit_many(c, TOPIC, 1, 1500)
    _, after_last = c.get_watermark_offsets(TopicPartition("__consumer_offsets", part), timeout=10)
    # Later commits of another key roll segments past the last (compacted, 0) commit.
    commit_many(c, FILLER, 1, 600)
    check(True, "2100 offset commits of group %s (__consumer_offsets-%d) in %.1f s"
          % (GROUP, part, time.time() - started))
    _, end = c.get_watermark_offsets(TopicPartition("__consumer_offsets", part), timeout=10)

    def cleaned_past_last_commit():
        # Past the last (compacted, 0) commit, and nothing cleanable left (all but the
        # active segment clean, as of a refresh after the last cleaning).
        m = scrape(url)
        fd = partition_metric(m, "strata_log_cleaner_first_dirty_offset", "__consumer_offsets", part)
        ratio = partition_metric(m, "strata_log_cleaner_dirty_ratio", "__consumer_offsets", part)
        return fd is not None and fd >= after_last and ratio == 0

    wait_for("the cleaner to clean __consumer_offsets-%d past offset %d" % (part, after_last),
             cleaned_past_last_commit)
    m = scrape(url)
    cleanings = partition_metric(m, "strata_log_cleaner_cleanings_total", "__consumer_offsets", part)
    read = partition_metric(m, "strata_log_cleaner_bytes_read_total", "__consumer_offsets", part)
    written = partition_metric(m, "strata_log_cleaner_bytes_written_total", "__consumer_offsets", part)
    check(cleanings >= 1 and written < read / 10,
          "__consumer_offsets-%d is compacted by the same cleaner: %d cleanings, %d bytes read, "
          "%d written" % (part, cleanings, read, written))
    size_now = sum(os.path.getsize(f) for f in glob.glob(
        os.path.join(data, "__consumer_offsets-%d" % part, "*.log")))
    # Each commit is a batch of at least 61 + 30 bytes: 2100 of them fit in the active
    # segment (16 KiB) and a little more only once compacted.
    check(end >= 2100 and size_now < 16384 * 2,
          "its segment files shrank: %d records written, %d bytes of segments now"
          % (end, size_now))
    c.close()
    return {(TOPIC, 0): 1500, (FILLER, 0): 600}


def check_committed(b, want):
    c = Consumer({"bootstrap.servers": b, "group.id": GROUP, "enable.auto.commit": False})
    got = {(tp.topic, tp.partition): tp.offset
           for tp in c.committed([TopicPartition(t, p) for t, p in want], timeout=20)}
    c.close()
    check(got == want, "after the restart the group's committed offsets are the last ones: %s" % got)


def main():
    metrics_port = free_port()
    url = "http://127.0.0.1:%d" % metrics_port
    overrides = {"log.cleaner.backoff.ms": "200", "metrics.listener": url,
                 "offsets.topic.segment.bytes": "16384"}
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
        check_metrics(sys.argv[1], b, url, metrics_port)
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
        committed = check_offsets_compaction(b, url, data)
        broker.restart()
        check(read_librdkafka(b) == everything,
              "the compacted partition reads the same after a restart")
        check_committed(b, committed)
    print("compaction: all checks passed")


if __name__ == "__main__":
    main()
