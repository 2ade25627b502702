"""Issue 18, `strata produce` and `strata consume` against a real broker, with
kafka-console-producer/consumer flags, round trips with other clients' data:

- lines with headers and keys (parse.headers, parse.key, key.separator=:) are read back
  by confluent-kafka exactly (keys, values, headers, order); a null.marker gives null
  keys and values; -H and --key give every record a header and key;
- --compression-codec zstd writes zstd batches (the segment says so);
- records with binary values and headers produced by confluent-kafka come back from
  `strata consume --format json` byte for byte (base64 where not UTF-8);
- Kafka's formatter: print.timestamp/partition/offset/headers/key in Kafka's order and
  text; a template; --partition with --offset N and --offset @TIMESTAMP; --max-messages;
  --timeout-ms; "Processed a total of N messages";
- a group: a second run of the same --group starts where the first committed;
- Kafka's misuse errors: --offset without --partition, --group with --partition; a
  line without the key separator stops the producer with Kafka's message, exit 1;
- `strata perf produce` prints kafka-producer-perf-test's summary (the records really
  land: their count is the partition's end) and `strata perf consume` its CSV line, with
  every record counted, from a --payload-file too.

    console_tools.py STRATA_BINARY
"""
import base64
import glob
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from strata_broker import StrataBroker, check  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402

binary = sys.argv[1]


def produce(b, topic, lines, *flags):
    p = subprocess.run([binary, "produce", "--bootstrap-server", b.bootstrap, "--topic", topic] + list(flags),
                       input="".join(l + "\n" for l in lines), capture_output=True, text=True, timeout=60)
    return p.returncode, p.stderr


def consume(b, topic, *flags):
    p = subprocess.run([binary, "consume", "--bootstrap-server", b.bootstrap, "--topic", topic] + list(flags),
                       capture_output=True, timeout=60)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode()


def read_with_confluent(b, topic, n):
    c = Consumer({"bootstrap.servers": b.bootstrap, "group.id": "check-" + topic, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, 0, 0)])
    got = []
    deadline = time.time() + 30
    while len(got) < n and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and m.error() is None:
            got.append((m.key(), m.value(), m.headers() or []))
    c.close()
    return got


with StrataBroker(binary) as b:
    subprocess.run([binary, "topic", "--create", "--bootstrap-server", b.bootstrap, "--topic", "lines",
                    "--partitions", "1"], check=True, capture_output=True, timeout=30)
    lines = ["h1:a,h2:b\tk1:v1", "h3:c\tk2:value:with:colons", "\tk3:v3"]
    code, err = produce(b, "lines", lines, "--property", "parse.headers=true", "--property", "parse.key=true",
                        "--property", "key.separator=:")
    check(code == 0, "strata produce wrote 3 lines with headers and keys (%s)" % err.strip())
    got = read_with_confluent(b, "lines", 3)
    check(got == [(b"k1", b"v1", [("h1", b"a"), ("h2", b"b")]), (b"k2", b"value:with:colons", [("h3", b"c")]),
                  (b"k3", b"v3", [])],
          "confluent-kafka reads them back: keys, values (separators and all) and headers (%s)" % got)

    code, err = produce(b, "lines", ["<null>|<null>", "key4|<null>"], "--property", "parse.key=true",
                        "--property", "key.separator=|", "--property", "null.marker=<null>", "-H", "fixed:1")
    check(code == 0, "null.marker and -H accepted (%s)" % err.strip())
    got = read_with_confluent(b, "lines", 5)[3:]
    check(got == [(None, None, [("fixed", b"1")]), (b"key4", None, [("fixed", b"1")])],
          "null.marker gives null keys and values; -H a header on each (%s)" % got)
    # (librdkafka sends a batch uncompressed when compression would not shrink it.)
    code, err = produce(b, "zipped", ["%d %s" % (i, "compressible " * 20) for i in range(50)],
                        "--compression-codec", "zstd")
    dump = subprocess.run([binary, "dump-log", "--files",
                           sorted(glob.glob(os.path.join(b.dir, "data", "zipped-0", "*.log")))[0]],
                          capture_output=True, text=True, timeout=30).stdout
    check(code == 0 and "compresscodec: zstd" in dump.lower(), "--compression-codec zstd writes zstd batches")

    code, err = produce(b, "lines", ["fine:1", "no separator here"], "--property", "parse.key=true",
                        "--property", "key.separator=:")
    check(code == 1 and "No key separator found on line number 2: 'no separator here'" in err,
          "a line without the key separator stops it, as Kafka's: %r" % err.strip())

    # Kafka's formatter over the first three records.
    code, out, err = consume(b, "lines", "--from-beginning", "--max-messages", "3", "--property", "print.key=true",
                             "--property", "print.headers=true", "--property", "print.partition=true",
                             "--property", "print.offset=true")
    check(out == "Partition:0\tOffset:0\th1:a,h2:b\tk1\tv1\nPartition:0\tOffset:1\th3:c\tk2\tvalue:with:colons\n"
                 "Partition:0\tOffset:2\tNO_HEADERS\tk3\tv3\n", "Kafka's formatter: %r" % out)
    check("Processed a total of 3 messages" in err, "stderr: %r" % err.strip())
    code, out, _ = consume(b, "lines", "--partition", "0", "--offset", "1", "--max-messages", "1",
                           "--format", "%t/%p@%o %k=%v [%h]\\n")
    check(out == "lines/0@1 k2=value:with:colons [h3=c]\n", "--partition --offset 1 with a template: %r" % out)
    code, out, err = consume(b, "lines", "--offset", "1")
    check(code == 1 and "The partition is required when offset is specified." in err, "Kafka's misuse error")
    code, out, err = consume(b, "lines", "--partition", "0", "--group", "g")
    check(code == 1 and "Options group and partition cannot be specified together." in err, "and another")

    # Binary values and headers from confluent-kafka, back through --format json.
    subprocess.run([binary, "topic", "--create", "--bootstrap-server", b.bootstrap, "--topic", "bin",
                    "--partitions", "1"], check=True, capture_output=True, timeout=30)
    p = Producer({"bootstrap.servers": b.bootstrap})
    sent = [(bytes([i, 0, 255, 10, 13]), ("bin", bytes([0, i, 200])), "k%d" % i) for i in range(5)]
    before = int(time.time() * 1000)
    for value, header, key in sent:
        p.produce("bin", value=value, key=key, headers=[header], partition=0)
        time.sleep(0.01)
    p.flush(30)
    code, out, err = consume(b, "bin", "--from-beginning", "--max-messages", "5", "--format", "json")
    rows = [json.loads(l) for l in out.splitlines()]
    back = [(base64.b64decode(r["value"]["base64"]), ("bin", base64.b64decode(r["headers"][0]["value"]["base64"])),
             r["key"]) for r in rows]
    check(back == sent and all(r["timestamp"] >= before and r["timestamp_type"] == "CreateTime" for r in rows),
          "binary values and headers come back byte for byte as JSON lines")
    ts = rows[3]["timestamp"]
    code, out, _ = consume(b, "bin", "--partition", "0", "--offset", "@%d" % ts, "--max-messages", "1",
                           "--format", "%o\\n")
    check(out == "3\n", "--offset @TIMESTAMP starts at the first record at or after it: %r" % out)

    # A group: the second run goes on from the first's commit.
    code, out, err = consume(b, "lines", "--group", "readers", "--from-beginning", "--max-messages", "2",
                             "--consumer-property", "auto.commit.interval.ms=100")
    check(out == "v1\nvalue:with:colons\n", "group run 1 reads the first two: %r" % out)
    code, out, err = consume(b, "lines", "--group", "readers", "--timeout-ms", "10000")
    # (offsets 2-5: k3's, the two null.marker records and "fine:1"'s "1"; the timeout
    # outlasts the group's join, which waits group.initial.rebalance.delay.ms, 3 s)
    check(out == "v3\nnull\nnull\n1\n" and "Processed a total of 4 messages" in err,
          "group run 2 starts after them and stops after --timeout-ms: %r %r" % (out, err.strip()))

    # The perf tools.
    subprocess.run([binary, "topic", "--create", "--bootstrap-server", b.bootstrap, "--topic", "perf",
                    "--partitions", "3"], check=True, capture_output=True, timeout=30)
    p = subprocess.run([binary, "perf", "produce", "--topic", "perf", "--num-records", "20000", "--record-size", "100",
                        "--throughput", "-1", "--producer-props", "bootstrap.servers=" + b.bootstrap, "acks=all"],
                       capture_output=True, text=True, timeout=120)
    summary = re.fullmatch(r"20000 records sent, [0-9.]+ records/sec \([0-9.]+ MB/sec\), [0-9.]+ ms avg latency, "
                           r"[0-9.]+ ms max latency, \d+ ms 50th, \d+ ms 95th, \d+ ms 99th, \d+ ms 99\.9th\.\n",
                           p.stdout.splitlines(keepends=True)[-1] if p.stdout else "")
    check(p.returncode == 0 and summary, "perf produce: kafka-producer-perf-test's summary: %r %r" % (p.stdout, p.stderr))
    ends = subprocess.run([binary, "topic", "--describe", "--topic", "perf", "--bootstrap-server", b.bootstrap],
                          capture_output=True, text=True, timeout=30).stdout
    landed = sum(int(x) for x in re.findall(r"LogEndOffset: (\d+)", ends))
    check(landed == 20000, "the 20000 records landed (log ends sum to %d)" % landed)
    payload_file = os.path.join(b.dir, "payloads.txt")
    with open(payload_file, "w") as f:
        f.write("alpha\nbeta\ngamma\n")
    began = time.time()
    p = subprocess.run([binary, "perf", "produce", "--topic", "perf", "--num-records", "1000", "--payload-file",
                        payload_file, "--throughput", "2000", "--bootstrap-server", b.bootstrap],
                       capture_output=True, text=True, timeout=120)
    took = time.time() - began
    check(p.returncode == 0 and p.stdout.startswith("1000 records sent") and took >= 0.45,
          "perf produce --payload-file --throughput 2000: 1000 records take at least 0.5 s (%.2f s)" % took)
    p = subprocess.run([binary, "perf", "consume", "--topic", "perf", "--messages", "21000", "--bootstrap-server",
                        b.bootstrap, "--timeout", "20000"], capture_output=True, text=True, timeout=120)
    lines = p.stdout.splitlines()
    check(len(lines) == 2 and lines[0] == "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, "
          "nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
          "perf consume: kafka-consumer-perf-test's header (%r)" % lines)
    cells = lines[1].split(", ") if len(lines) == 2 else []
    check(len(cells) == 10 and cells[4] == "21000" and re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d:\d{3}", cells[0]),
          "perf consume counts all 21000 records, dates as Kafka's: %r" % lines[1:])
print("console tools: all checks passed")
