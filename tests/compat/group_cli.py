#!/usr/bin/python3
"""`strata group` (the kafka-consumer-groups.sh-like tool) and `strata dump-log
--offsets-decoder` against a real Strata broker and a real consumer (confluent_kafka):
list, describe (offsets, --members, --state) while the consumer is in the group and
after it left, reset-offsets (dry run, then --execute with every scenario, checked with
Consumer.committed and by a new consumer's first records), the refusal to reset an
active group, the decoded __consumer_offsets segment, and delete.
Usage: group_cli.py PATH/TO/strata"""
import os
import subprocess
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition

from strata_broker import StrataBroker, check, java_partition

TOPIC = "orders"
GROUP = "g1"
PARTITIONS = 3
RECORDS = 10                     # per partition
T0 = 1704067200000               # 2024-01-01T00:00:00.000Z: record i has T0 + i s
CLIENT_ID = "group-cli-consumer"
OFFSETS_PARTITIONS = 50          # offsets.topic.num.partitions


def strata_run(strata, *args):
    return subprocess.run([strata, *args], capture_output=True, text=True, timeout=120)


def group(strata, bs, *args):
    return strata_run(strata, "group", *args, "--bootstrap-server", bs)


def table(stdout):
    """Rows of a kafka-consumer-groups.sh table: the header, then one list per row."""
    lines = [l.split() for l in stdout.splitlines() if l.strip()]
    return lines[0], lines[1:]


def describe_rows(strata, bs):
    p = group(strata, bs, "describe", GROUP)
    if p.returncode != 0:
        raise AssertionError("describe failed: " + p.stderr)
    header, rows = table(p.stdout)
    check(header == ["GROUP", "TOPIC", "PARTITION", "CURRENT-OFFSET", "LOG-END-OFFSET", "LAG",
                     "CONSUMER-ID", "HOST", "CLIENT-ID"], "describe header: %s" % header)
    return p, {int(r[2]): r for r in rows if r[1] == TOPIC}


def produce(bs):
    p = Producer({"bootstrap.servers": bs, "acks": "all"})
    for part in range(PARTITIONS):
        for i in range(RECORDS):
            p.produce(TOPIC, value=b"v%d-%d" % (part, i), partition=part, timestamp=T0 + i * 1000)
    check(p.flush(30) == 0, "produced %d records to each of %d partitions" % (RECORDS, PARTITIONS))


def committed(bs):
    """What a new member of the group would resume from, per partition (-1001: none)."""
    c = Consumer({"bootstrap.servers": bs, "group.id": GROUP, "enable.auto.commit": False})
    try:
        tps = c.committed([TopicPartition(TOPIC, p) for p in range(PARTITIONS)], timeout=30)
        return [tp.offset for tp in tps]
    finally:
        c.close()


def first_offsets(bs):
    """The first offset a new subscriber of the group reads from each partition."""
    c = Consumer({"bootstrap.servers": bs, "group.id": GROUP, "enable.auto.commit": False,
                  "auto.offset.reset": "latest"})
    c.subscribe([TOPIC])
    first = {}
    deadline = time.time() + 60
    while len(first) < PARTITIONS and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            first.setdefault(m.partition(), m.offset())
    c.close()
    return [first.get(p) for p in range(PARTITIONS)]


def wait_for_state(strata, bs, state):
    deadline = time.time() + 30
    while time.time() < deadline:
        p = group(strata, bs, "describe", GROUP, "--state")
        if p.returncode == 0 and table(p.stdout)[1][0][-2] == state:
            return True
        time.sleep(0.2)
    return False


def check_active(strata, bs):
    p = group(strata, bs, "list")
    check(p.returncode == 0 and p.stdout == GROUP + "\n", "list: %r" % p.stdout)
    p = group(strata, bs, "list", "--state")
    check(p.returncode == 0 and table(p.stdout) == (["GROUP", "STATE"], [[GROUP, "Stable"]]),
          "list --state: GROUP/STATE, g1 Stable")
    check(p.stdout.splitlines()[0] == "GROUP" + " " * 20 + " STATE" + " " * 15,
          "list --state pads as Kafka (group column 15+10, state 20)")
    p, rows = describe_rows(strata, bs)
    check(p.stdout.startswith("\n") and p.stderr == "", "describe: blank line first, no notes")
    # The coordinator names a member "<client.id>-<uuid>" (this client has no memberid()).
    member = rows[0][6] if 0 in rows else ""
    check(member.startswith(CLIENT_ID + "-") and len(member) == len(CLIENT_ID) + 37,
          "CONSUMER-ID is the member id the coordinator gave the consumer: %s" % member)
    expected = {0: ["4", "10", "6"], 1: ["7", "10", "3"], 2: ["10", "10", "0"]}
    for part, (cur, end, lag) in expected.items():
        r = rows.get(part)
        check(r is not None and r[3:6] == [cur, end, lag],
              "partition %d: CURRENT-OFFSET %s LOG-END-OFFSET %s LAG %s (%s)" % (part, cur, end, lag, r))
        check(r is not None and r[6:] == [member, "/127.0.0.1", CLIENT_ID],
              "partition %d: CONSUMER-ID, HOST, CLIENT-ID of the live member" % part)
    p = group(strata, bs, "describe", GROUP, "--members")
    header, rows = table(p.stdout)
    check(header == ["GROUP", "CONSUMER-ID", "HOST", "CLIENT-ID", "#PARTITIONS"] and
          rows == [[GROUP, member, "/127.0.0.1", CLIENT_ID, str(PARTITIONS)]],
          "describe --members: one member owning %d partitions" % PARTITIONS)
    p = group(strata, bs, "describe", GROUP, "--state")
    header, rows = table(p.stdout)
    check(header == ["GROUP", "COORDINATOR", "(ID)", "ASSIGNMENT-STRATEGY", "STATE", "#MEMBERS"]
          and len(rows) == 1 and rows[0][0] == GROUP and rows[0][1] == bs and
          rows[0][3:] == ["range", "Stable", "1"],
          "describe --state: coordinator, range, Stable, 1 member: %s" % rows)
    before = committed(bs)
    p = group(strata, bs, "reset-offsets", GROUP, "--all-topics", "--to-earliest", "--execute")
    check(p.returncode == 1 and "Assignments can only be reset if the group 'g1' is inactive, "
          "but the current state is Stable." in p.stderr and p.stdout == "",
          "reset-offsets of an active group is refused")
    check(committed(bs) == before, "and the committed offsets are unchanged: %s" % before)


def reset(strata, bs, *args):
    p = group(strata, bs, "reset-offsets", GROUP, *args)
    if p.returncode != 0:
        raise AssertionError("reset-offsets %s failed: %s" % (args, p.stderr))
    header, rows = table(p.stdout)
    check(header == ["GROUP", "TOPIC", "PARTITION", "NEW-OFFSET"],
          "reset-offsets %s prints the NEW-OFFSET table" % " ".join(args))
    return p, {int(r[2]): int(r[3]) for r in rows}


def check_resets(strata, bs):
    check(wait_for_state(strata, bs, "Empty"), "after the consumer closed the group is Empty")
    p, rows = describe_rows(strata, bs)
    check("Consumer group 'g1' has no active members." in p.stderr, "describe notes no members")
    check(all(r[6:] == ["-", "-", "-"] for r in rows.values()) and
          [rows[q][3] for q in range(PARTITIONS)] == ["4", "7", "10"],
          "describe of the empty group: committed offsets kept, consumer columns '-'")
    p = group(strata, bs, "list", "--state", "Stable")
    check(p.returncode == 0 and table(p.stdout)[1] == [], "list --state Stable: no rows")
    p = group(strata, bs, "list", "--state", "empty")
    check(table(p.stdout)[1] == [[GROUP, "Empty"]], "list --state empty (any case) finds it")

    p, plan = reset(strata, bs, "--all-topics", "--to-earliest")
    check(plan == {0: 0, 1: 0, 2: 0}, "dry run plans offset 0 everywhere: %s" % plan)
    check(committed(bs) == [4, 7, 10], "dry run (the default) commits nothing")
    p, plan = reset(strata, bs, "--all-topics", "--to-earliest", "--dry-run")
    check(committed(bs) == [4, 7, 10], "--dry-run commits nothing")

    cases = [
        (["--all-topics", "--to-earliest", "--execute"], [0, 0, 0]),
        (["--topic", TOPIC, "--to-offset", "3", "--execute"], [3, 3, 3]),
        (["--topic", TOPIC + ":0,1", "--shift-by", "2", "--execute"], [5, 5, 3]),
        (["--topic", TOPIC + ":2", "--shift-by", "-100", "--execute"], [5, 5, 0]),
        (["--all-topics", "--to-latest", "--execute"], [10, 10, 10]),
        (["--all-topics", "--to-datetime", "2024-01-01T00:00:06.500", "--execute"], [7, 7, 7]),
        (["--topic", TOPIC + ":1", "--to-datetime", "2024-01-01T01:00:04.000+01:00", "--execute"],
         [7, 4, 7]),
    ]
    for args, want in cases:
        p, plan = reset(strata, bs, *args)
        got = committed(bs)
        check(got == want, "%s: committed %s, want %s" % (" ".join(args), got, want))
    check("is lower than earliest offset for topic partition orders-2" in
          group(strata, bs, "reset-offsets", GROUP, "--topic", TOPIC + ":2", "--shift-by", "-100")
          .stderr, "a shift below the log start warns and is clamped")
    p, plan = reset(strata, bs, "--all-topics", "--to-datetime", "2030-01-01T00:00:00.000")
    check(plan == {0: 10, 1: 10, 2: 10} and "is empty. Falling back to latest known offset" in p.stderr,
          "--to-datetime after the last record falls back to the log end, with a warning")
    check(first_offsets(bs) == [7, 4, 7], "a new consumer resumes from the reset offsets")

    p = group(strata, bs, "reset-offsets", GROUP, "--all-topics", "--to-latest", "--to-earliest")
    check(p.returncode == 1 and "exactly one of" in p.stderr, "two scenarios: usage error")
    p = group(strata, bs, "reset-offsets", GROUP, "--to-latest")
    check(p.returncode == 1 and "--all-topics, --topic" in p.stderr, "no scope: usage error")
    p = group(strata, bs, "reset-offsets", GROUP, "--all-topics", "--to-datetime", "yesterday")
    check(p.returncode == 1 and "Error parsing timestamp" in p.stderr, "bad --to-datetime")
    p = group(strata, bs, "reset-offsets", GROUP, "--topic", "nope", "--to-latest")
    check(p.returncode == 1 and "Topic 'nope' does not exist" in p.stderr, "unknown topic")


def check_dump(strata, data_dir):
    n = java_partition(GROUP, OFFSETS_PARTITIONS)
    path = os.path.join(data_dir, "__consumer_offsets-%d" % n, "00000000000000000000.log")
    p = strata_run(strata, "dump-log", "--offsets-decoder", "--print-data-log", "--files", path)
    check(p.returncode == 0 and p.stderr == "", "dump-log --offsets-decoder of partition %d" % n)
    records = [l for l in p.stdout.splitlines() if l.startswith("| offset:")]
    key0 = ' key: {"type":"1","data":{"group":"g1","topic":"orders","partition":0}}'
    commits = [l for l in records if key0 in l]
    check(len(commits) >= 6, "every commit of orders-0 is decoded (%d)" % len(commits))
    check(' payload: {"version":"3","data":{"offset":7,"leaderEpoch":' in commits[-1] and
          ',"metadata":"","commitTimestamp":' in commits[-1],
          "the last commit of orders-0 decodes as offset 7: %s" % commits[-1][-120:])
    groups = [l for l in records if ' key: {"type":"2","data":{"group":"g1"}}' in l]
    check(any('"protocolType":"consumer"' in l and '"clientId":"%s"' % CLIENT_ID in l and
              '"assignment":{"assignedPartitions":[{"topic":"orders","partitions":[0,1,2]}]' in l
              for l in groups),
          "the group record decodes its member and the consumer-protocol assignment")
    check(not any("Error at offset" in l or "Unknown record type" in l for l in records),
          "no record failed to decode")
    return path


def check_delete(strata, bs, dump_path):
    p = group(strata, bs, "delete", GROUP)
    check(p.returncode == 0 and
          p.stdout == "Deletion of requested consumer groups ('g1') was successful.\n",
          "delete: %r" % p.stdout)
    p = group(strata, bs, "list")
    check(p.returncode == 0 and p.stdout == "", "list no longer shows it")
    p = group(strata, bs, "describe", GROUP)
    check(p.returncode == 1 and "Consumer group 'g1' does not exist." in p.stderr,
          "describe of the deleted group: does not exist")
    check(committed(bs) == [-1001] * PARTITIONS, "its offsets are gone")
    p = group(strata, bs, "delete", GROUP, "missing")
    check(p.returncode == 1 and "* Group 'g1' could not be deleted due to: GROUP_ID_NOT_FOUND"
          in p.stderr and "* Group 'missing'" in p.stderr, "deleting unknown groups fails")
    p = strata_run(strata, "dump-log", "--offsets-decoder", "--files", dump_path)
    tombstones = [l for l in p.stdout.splitlines() if l.endswith(" payload: <DELETE>")]
    check(any('{"group":"g1"}} payload: <DELETE>' in l for l in tombstones) and
          any('"partition":0}} payload: <DELETE>' in l for l in tombstones),
          "the deletion wrote tombstones for the group and its offsets (--offsets-decoder "
          "alone implies --print-data-log)")


def main():
    strata = sys.argv[1]
    with StrataBroker(strata, {"group.initial.rebalance.delay.ms": 0}) as broker:
        bs = broker.bootstrap
        p = strata_run(strata, "topic", "--bootstrap-server", bs, "--create", "--topic", TOPIC,
                       "--partitions", str(PARTITIONS))
        check(p.returncode == 0, "created %s with %d partitions" % (TOPIC, PARTITIONS))
        produce(bs)
        consumer = Consumer({"bootstrap.servers": bs, "group.id": GROUP, "client.id": CLIENT_ID,
                             "auto.offset.reset": "earliest", "enable.auto.commit": False})
        consumer.subscribe([TOPIC])
        seen = 0
        deadline = time.time() + 60
        while seen < PARTITIONS * RECORDS and time.time() < deadline:
            m = consumer.poll(0.5)
            if m is not None and not m.error():
                seen += 1
        check(seen == PARTITIONS * RECORDS, "the consumer read all %d records" % seen)
        consumer.commit(offsets=[TopicPartition(TOPIC, 0, 4), TopicPartition(TOPIC, 1, 7),
                                 TopicPartition(TOPIC, 2, 10)], asynchronous=False)
        check(committed(bs) == [4, 7, 10], "the consumer committed 4, 7, 10")
        check_active(strata, bs)
        consumer.close()
        check_resets(strata, bs)
        dump_path = check_dump(strata, os.path.join(broker.dir, "data"))
        check_delete(strata, bs, dump_path)
    print("strata group: all checks passed")


if __name__ == "__main__":
    main()
