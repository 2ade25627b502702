#!/usr/bin/python3
"""`strata topic` (the kafka-topics.sh-like admin tool) against a real Strata broker: create
with partitions and configs, list, describe (partitions, leaders, configs, log start and
end offsets after kcat produced and a DeleteRecords moved the start), alter partitions,
alter configs, delete, and the error paths (Kafka error names on stderr, exit code 1),
including an API the broker does not list in ApiVersions (a fake broker).
Usage: topic_cli.py PATH/TO/strata"""
import socket
import struct
import subprocess
import sys
import threading

from strata_broker import StrataBroker, check, delete_records_v0, free_port, read_frame

TOPIC = "orders"


def topic(strata, bootstrap, *args):
    return subprocess.run([strata, "topic", "--bootstrap-server", bootstrap, *args],
                          capture_output=True, text=True, timeout=60)


def ok(p):
    return p.returncode == 0 and p.stderr == ""


def failed_with(p, text):
    return p.returncode == 1 and text in p.stderr and p.stdout == ""


def describe(strata, bootstrap, *args):
    """{topic: (header fields, [partition fields...])} from --describe's lines."""
    p = topic(strata, bootstrap, "--describe", *args)
    if p.returncode != 0:
        raise AssertionError("describe failed: " + p.stderr)
    topics = {}
    for line in p.stdout.splitlines():
        fields = dict(f.split(": ", 1) for f in line.lstrip("\t").split("\t"))
        if line.startswith("\t"):
            topics[fields["Topic"]][1].append(fields)
        else:
            topics[fields["Topic"]] = (fields, [])
    return topics


def configs(header):
    return dict(kv.split("=", 1) for kv in header["Configs"].split(",") if kv)


def kcat_produce(bootstrap, partition, values):
    subprocess.run(["kcat", "-b", bootstrap, "-P", "-t", TOPIC, "-p", str(partition),
                    "-X", "acks=all"], input="\n".join(values) + "\n", text=True,
                   timeout=60, check=True)



def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def fake_broker(listener, apis):
    """Answers ApiVersions with `apis` (an older version first, as KIP-511 has it), and
    hangs up on anything else."""
    while True:
        try:
            conn, _ = listener.accept()
        except OSError:
            return
        with conn:
            while True:
                try:
                    frame = read_frame(conn)
                except (EOFError, OSError):
                    break
                key, version, corr = struct.unpack_from(">hhi", frame)
                if key != 18:
                    break
                conn.sendall(api_versions_answer(apis, version, corr))


def api_versions_answer(apis, version, corr):
    max_version = next(a[2] for a in apis if a[0] == 18)
    if version > max_version:  # KIP-511: UNSUPPORTED_VERSION with our range, in v0
        body = struct.pack(">hi", 35, 1) + struct.pack(">hhh", 18, 0, max_version)
    elif version >= 3:  # flexible body; the response header is v0 regardless
        body = struct.pack(">h", 0) + uvarint(len(apis) + 1)
        body += b"".join(struct.pack(">hhh", *a) + b"\0" for a in apis)
        body += struct.pack(">i", 0) + b"\0"
    else:
        body = struct.pack(">hi", 0, len(apis))
        body += b"".join(struct.pack(">hhh", *a) for a in apis)
        body += struct.pack(">i", 0) if version >= 1 else b""
    return struct.pack(">ii", len(body) + 4, corr) + body


def check_create_list(strata, bs):
    p = topic(strata, bs, "--create", "--topic", TOPIC, "--partitions", "3",
              "--config", "retention.ms=86400000", "--config", "max.message.bytes=2000000")
    check(ok(p) and p.stdout == "Created topic %s.\n" % TOPIC,
          "--create --partitions 3 --config x2 prints 'Created topic orders.'")
    p = topic(strata, bs, "--create", "--topic", TOPIC)
    check(failed_with(p, "TOPIC_ALREADY_EXISTS"), "--create again: TOPIC_ALREADY_EXISTS, exit 1")
    p = topic(strata, bs, "--create", "--topic", TOPIC, "--if-not-exists")
    check(ok(p) and p.stdout == "", "--create --if-not-exists on an existing topic: exit 0")
    p = topic(strata, bs, "--create", "--topic", "audit", "--replication-factor", "1")
    check(ok(p), "--create without --partitions (broker default)")
    p = topic(strata, bs, "--create", "--topic", "bad", "--replication-factor", "3")
    check(failed_with(p, "INVALID_REPLICATION_FACTOR"),
          "--create --replication-factor 3 on one broker: INVALID_REPLICATION_FACTOR")
    p = topic(strata, bs, "--create", "--topic", "bad", "--config", "no.such.config=1")
    check(failed_with(p, "INVALID_CONFIG"), "--create with an unknown config: INVALID_CONFIG")
    p = topic(strata, bs, "--list")
    check(ok(p) and p.stdout == "audit\norders\n", "--list: one name a line, sorted")
    p = topic(strata, bs, "--list", "--topic", "audit")
    check(ok(p) and p.stdout == "audit\n", "--list --topic audit")


def check_describe(strata, bs, port):
    kcat_produce(bs, 0, ["a%d" % i for i in range(5)])
    kcat_produce(bs, 2, ["c%d" % i for i in range(3)])
    low, error = delete_records_v0(port, TOPIC, 2, 1)
    check((low, error) == (1, 0), "DeleteRecords (by hand) moved partition 2's start to 1")
    topics = describe(strata, bs, "--topic", TOPIC)
    check(list(topics) == [TOPIC], "--describe --topic shows that topic alone")
    header, parts = topics[TOPIC]
    check(len(header.get("TopicId", "")) == 22, "TopicId in Kafka's 22-character form")
    check(header["PartitionCount"] == "3" and header["ReplicationFactor"] == "1",
          "PartitionCount: 3, ReplicationFactor: 1")
    c = configs(header)
    check(c.get("retention.ms") == "86400000" and c.get("max.message.bytes") == "2000000",
          "Configs show the two overrides: %s" % header["Configs"])
    check([q["Partition"] for q in parts] == ["0", "1", "2"], "one line per partition, in order")
    check(all(q["Leader"] == q["Replicas"] == q["Isr"] and q["Leader"].isdigit() for q in parts),
          "Leader, Replicas and Isr name the one broker")
    marks = [(q["LogStartOffset"], q["LogEndOffset"]) for q in parts]
    check(marks == [("0", "5"), ("0", "0"), ("1", "3")],
          "watermarks after producing 5/0/3 and deleting 1 record of partition 2: %s" % marks)
    every = describe(strata, bs)
    check(sorted(every) == ["audit", TOPIC], "--describe without --topic shows every topic")
    check(configs(every["audit"][0]) == {}, "a topic without overrides shows empty Configs")
    p = topic(strata, bs, "--describe", "--topic", "missing")
    check(failed_with(p, "Topic 'missing' does not exist as expected"),
          "--describe a missing topic: error, exit 1")
    p = topic(strata, bs, "--describe", "--topic", "missing", "--if-exists")
    check(ok(p) and p.stdout == "", "--describe --if-exists a missing topic: nothing, exit 0")


def check_alter(strata, bs):
    p = topic(strata, bs, "--alter", "--topic", TOPIC, "--partitions", "5")
    check(ok(p), "--alter --partitions 5")
    header, parts = describe(strata, bs, "--topic", TOPIC)[TOPIC]
    check(header["PartitionCount"] == "5" and len(parts) == 5, "describe shows 5 partitions")
    check([(q["LogStartOffset"], q["LogEndOffset"]) for q in parts[3:]] == [("0", "0")] * 2,
          "the new partitions are empty")
    p = topic(strata, bs, "--alter", "--topic", TOPIC, "--partitions", "2")
    check(failed_with(p, "INVALID_PARTITIONS"), "--alter to fewer partitions: INVALID_PARTITIONS")
    p = topic(strata, bs, "--alter", "--topic", "missing", "--partitions", "2")
    check(failed_with(p, "does not exist"), "--alter a missing topic: error")
    p = topic(strata, bs, "--alter-config", "--topic", TOPIC, "--config", "retention.ms=1000",
              "--config", "segment.bytes=1048576", "--delete-config", "max.message.bytes")
    check(ok(p) and p.stdout == "Completed updating config for topic %s.\n" % TOPIC,
          "--alter-config: set two, delete one")
    c = configs(describe(strata, bs, "--topic", TOPIC)[TOPIC][0])
    check(c == {"retention.ms": "1000", "segment.bytes": "1048576"},
          "describe shows the altered configs: %s" % c)
    p = topic(strata, bs, "--alter-config", "--topic", TOPIC, "--config", "retention.ms=soon")
    check(failed_with(p, "INVALID_CONFIG"), "--alter-config with a bad value: INVALID_CONFIG")


def check_delete(strata, bs):
    p = topic(strata, bs, "--delete", "--topic", TOPIC)
    check(ok(p) and p.stdout == "", "--delete")
    p = topic(strata, bs, "--list")
    check(ok(p) and p.stdout == "audit\n", "--list no longer shows it")
    p = topic(strata, bs, "--delete", "--topic", TOPIC)
    check(failed_with(p, "does not exist"), "--delete again: error, exit 1")
    p = topic(strata, bs, "--delete", "--topic", TOPIC, "--if-exists")
    check(ok(p), "--delete --if-exists: exit 0")


def check_usage_and_network(strata):
    p = topic(strata, "127.0.0.1:%d" % free_port(), "--list")
    check(failed_with(p, "cannot connect to 127.0.0.1"), "nothing listening: connect error, exit 1")
    p = topic(strata, "127.0.0.1:1", "--list", "--describe")
    check(failed_with(p, "exactly one of"), "two actions: usage error")
    p = topic(strata, "127.0.0.1:1", "--create")
    check(failed_with(p, "--topic is required"), "--create without --topic: usage error")


def check_unsupported(strata):
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    # ApiVersions 0-3 (an older broker), Metadata, CreateTopics; no admin APIs.
    apis = [(18, 0, 3), (3, 0, 12), (19, 0, 7)]
    threading.Thread(target=fake_broker, args=(listener, apis), daemon=True).start()
    bs = "127.0.0.1:%d" % listener.getsockname()[1]
    try:
        p = topic(strata, bs, "--alter", "--topic", "t", "--partitions", "2")
        check(failed_with(p, "CreatePartitions is not supported by the broker"),
              "a broker without CreatePartitions: 'not supported by the broker'")
        p = topic(strata, bs, "--alter-config", "--topic", "t", "--config", "retention.ms=1")
        check(failed_with(p, "IncrementalAlterConfigs is not supported by the broker"),
              "a broker without IncrementalAlterConfigs: 'not supported by the broker'")
    finally:
        listener.close()


def main():
    strata = sys.argv[1]
    with StrataBroker(strata) as broker:
        check_create_list(strata, broker.bootstrap)
        check_describe(strata, broker.bootstrap, broker.port)
        check_alter(strata, broker.bootstrap)
        check_delete(strata, broker.bootstrap)
    check_usage_and_network(strata)
    check_unsupported(strata)
    print("strata topic: all checks passed")


if __name__ == "__main__":
    main()
