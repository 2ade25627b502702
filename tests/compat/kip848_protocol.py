#!/usr/bin/python3
"""KIP-848 at the protocol level, against a real Strata broker: what the clients here
never send. Members driven by hand (kip848_wire.py) check
  - member ids: v0 may leave it to the broker, v1 must send one (KIP-1082);
  - group.consumer.max.size: one member too many gets GROUP_MAX_SIZE_REACHED;
  - revoke before assign: a new member waits while the old owner holds its partitions,
    and a member that never acknowledges a revocation is fenced after its rebalance
    timeout, its partitions then going to the waiting member;
  - epochs out of order: ahead of the coordinator or behind it, fenced; behind by one
    with a subset of its partitions (a lost answer), accepted;
  - regular-expression subscriptions evaluated on the broker: a new matching topic
    joins the assignment, a changed expression moves it, a bad one is refused;
  - static membership: a held instance id is refused, a temporary leave (-2) keeps the
    partitions for the member that comes back under a new id;
  - OffsetCommit v9 with the member epoch: a stale epoch, an unknown member, an old
    version from a consumer-protocol member;
  - the group's records in __consumer_offsets as `strata dump-log --offsets-decoder`
    prints them, and the group rebuilt from them after a restart;
  - ListGroups shows the group as a consumer group; DescribeGroups as Dead (Kafka).
Usage: kip848_protocol.py PATH/TO/strata"""
import glob
import os
import struct
import subprocess
import sys
import time

from confluent_kafka.admin import AdminClient, NewTopic

from kip848_wire import describe_group, heartbeat, topic_id  # first: puts tests/cluster on the path
from flexible import NO_TAGS, call, compact_array, compact_string  # noqa: E402
from strata_broker import StrataBroker, check, java_partition

INVALID_REQUEST, UNKNOWN_MEMBER_ID, FENCED_INSTANCE_ID = 42, 25, 82
FENCED_MEMBER_EPOCH, UNRELEASED_INSTANCE_ID, STALE_MEMBER_EPOCH = 110, 111, 113
UNSUPPORTED_VERSION, INVALID_REGULAR_EXPRESSION, UNSUPPORTED_ASSIGNOR = 35, 128, 112
GROUP_MAX_SIZE_REACHED = 81

SETTINGS = {
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.consumer.max.size": "2",  # every scenario's group has at most 2 members
}


def create(bootstrap, *topics, partitions=6):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    for f in admin.create_topics([NewTopic(t, partitions, 1) for t in topics]).values():
        f.result(20)


def join(b, group, member, topics=None, regex=None, **kw):
    kw.setdefault("rebalance_timeout_ms", 60000)
    return heartbeat(b, group, member, 0, topics=topics if topics is not None else ([] if regex else None),
                     regex=regex, owned={}, **kw)


def count(assignment):
    return sum(len(ps) for ps in (assignment or {}).values())


def member_ids(b):
    r = heartbeat(b, "ids", "", 0, version=0, topics=["t"], rebalance_timeout_ms=5000, owned={})
    check(r["error"] == 0 and len(r["member_id"] or "") == 22,
          "v0 join without a member id: the broker chose %r (a 22-character Kafka Uuid)" % r["member_id"])
    r = heartbeat(b, "ids", "", 0, version=1, topics=["t"], rebalance_timeout_ms=5000, owned={})
    check(r["error"] == INVALID_REQUEST, "v1 join without a member id: INVALID_REQUEST (%s)" % r["message"])
    r = heartbeat(b, "ids", "m-x", 0, topics=["t"], rebalance_timeout_ms=5000, owned={}, assignor="sticky")
    check(r["error"] == UNSUPPORTED_ASSIGNOR, "an assignor the broker lacks: UNSUPPORTED_ASSIGNOR")


def max_size(b):
    join(b, "full", "A", ["t"])
    join(b, "full", "B", ["t"])
    r = join(b, "full", "C", ["t"])
    check(r["error"] == GROUP_MAX_SIZE_REACHED,
          "a third member of a group at group.consumer.max.size=2: GROUP_MAX_SIZE_REACHED (%s)" % r["message"])
    r = heartbeat(b, "full", "A", -1)
    check(r["error"] == 0 and r["epoch"] == -1, "A leaves (epoch -1)")
    r = join(b, "full", "C", ["t"])
    check(r["error"] == 0 and r["epoch"] > 0, "then C joins at epoch %d" % r["epoch"])


def revocation(b):
    g = "revoke"
    a = join(b, g, "A", ["t"], rebalance_timeout_ms=2000)
    check(a["epoch"] == 1 and count(a["assignment"]) == 6, "A alone: epoch 1, all 6 partitions")
    held = a["assignment"]
    bb = join(b, g, "B", ["t"])
    check(bb["epoch"] == 2 and count(bb["assignment"]) == 0,
          "B joins at epoch 2 with nothing yet: A still holds every partition")
    a2 = heartbeat(b, g, "A", 1, owned=held)
    check(a2["epoch"] == 1 and count(a2["assignment"]) == 3,
          "A is asked to give up 3 partitions and stays at epoch 1 until it does")
    d = describe_group(b, g)
    check(d["state"] == "Reconciling" and d["group_epoch"] == 2,
          "ConsumerGroupDescribe while A revokes: Reconciling, group epoch 2")
    # A never acknowledges: it keeps claiming all six until its rebalance timeout (2 s).
    deadline = time.time() + 15
    fenced = None
    b_epoch, b_owned = 2, {}
    while time.time() < deadline:
        r = heartbeat(b, g, "A", 1, owned=held)
        rb = heartbeat(b, g, "B", b_epoch, owned=b_owned)
        if not (rb["error"] == 0 and (r["error"] != 0 or count(rb["assignment"]) == 0)):
            check(False, "B gets nothing while A holds the partitions: %s" % rb)
        b_epoch = rb["epoch"]
        if rb["assignment"] is not None:
            b_owned = rb["assignment"]
        if r["error"] != 0:
            fenced = r
            break
        time.sleep(0.3)
    check(fenced is not None and fenced["error"] == UNKNOWN_MEMBER_ID,
          "A, never acknowledging, is removed after its rebalance timeout (then UNKNOWN_MEMBER_ID)")
    for _ in range(3):
        rb = heartbeat(b, g, "B", b_epoch, owned=b_owned)
        b_epoch = rb["epoch"]
        if rb["assignment"] is not None:
            b_owned = rb["assignment"]
    check(count(b_owned) == 6 and b_epoch == 3, "B then gets all 6 partitions at epoch 3")


def epochs(b):
    g = "epochs"
    a = join(b, g, "A", ["t"])
    join(b, g, "B", ["t"])
    a2 = heartbeat(b, g, "A", 1, owned=a["assignment"])
    kept = a2["assignment"]
    a3 = heartbeat(b, g, "A", 1, owned=kept)
    check(a3["epoch"] == 2, "A acknowledges the revocation: epoch 2")
    r = heartbeat(b, g, "A", 7, owned=kept)
    check(r["error"] == FENCED_MEMBER_EPOCH, "an epoch ahead of the coordinator: FENCED_MEMBER_EPOCH")
    r = heartbeat(b, g, "A", 1, owned=kept)
    check(r["error"] == 0 and r["epoch"] == 2,
          "the previous epoch with a subset of its partitions (a lost answer): accepted, epoch 2")
    r = heartbeat(b, g, "A", 1, owned=a["assignment"])
    check(r["error"] == FENCED_MEMBER_EPOCH,
          "the previous epoch claiming partitions it gave up: FENCED_MEMBER_EPOCH")
    r = heartbeat(b, g, "A", 0, topics=["t"], rebalance_timeout_ms=60000, owned=a["assignment"])
    check(r["error"] == INVALID_REQUEST, "a rejoin that claims partitions: INVALID_REQUEST (%s)" % r["message"])


def regexes(b):
    g = "regex"
    create(b, "re-a1", "re-b1", partitions=2)
    a = join(b, g, "R", regex="re-a.*")
    ids = {name: topic_id(b, name) for name in ("re-a1", "re-b1")}
    check(a["error"] == 0 and a["assignment"] == {ids["re-a1"]: [0, 1]},
          "regex re-a.* resolves on the broker to re-a1 only (a full match)")
    create(b, "re-a2", partitions=2)
    ids["re-a2"] = topic_id(b, "re-a2")
    deadline = time.time() + 10
    r = a
    while time.time() < deadline:
        r = heartbeat(b, g, "R", r["epoch"], owned=r["assignment"] or a["assignment"])
        if r["assignment"] and ids["re-a2"] in r["assignment"]:
            break
        time.sleep(0.2)
    check(set(r["assignment"] or {}) == {ids["re-a1"], ids["re-a2"]},
          "a new topic matching the regex joins the assignment (group epoch %d)" % r["epoch"])
    owned = r["assignment"]
    r = heartbeat(b, g, "R", r["epoch"], regex="re-b.*", owned=owned)
    # Nobody else holds re-b1: the member gives up re-a* and then gets re-b1.
    for _ in range(5):
        if r["assignment"] == {ids["re-b1"]: [0, 1]}:
            break
        r = heartbeat(b, g, "R", r["epoch"], owned=r["assignment"] if r["assignment"] is not None else owned)
    check(r["assignment"] == {ids["re-b1"]: [0, 1]}, "a changed regex moves the subscription to re-b1")
    bad = heartbeat(b, g, "R", r["epoch"], regex="re-(", owned=r["assignment"])
    check(bad["error"] == INVALID_REGULAR_EXPRESSION and "re-(" in (bad["message"] or ""),
          "an invalid regex: INVALID_REGULAR_EXPRESSION (%s)" % bad["message"])
    d = describe_group(b, g)
    check(d["members"][0]["regex"] == "re-b.*", "ConsumerGroupDescribe shows the member's regex")


def static_members(b):
    g = "static"
    a = join(b, g, "S1", ["t"], instance_id="inst-1")
    r = join(b, g, "S2", ["t"], instance_id="inst-1")
    check(r["error"] == UNRELEASED_INSTANCE_ID, "another process with a held instance id: UNRELEASED_INSTANCE_ID")
    r = heartbeat(b, g, "S2", 1, instance_id="inst-1", owned=None)
    check(r["error"] == FENCED_INSTANCE_ID, "a heartbeat naming someone else's instance id: FENCED_INSTANCE_ID")
    r = heartbeat(b, g, "S1", -2, instance_id="inst-1")
    check(r["error"] == 0 and r["epoch"] == -2, "a static member leaves for now (epoch -2)")
    back = join(b, g, "S3", ["t"], instance_id="inst-1")
    check(back["error"] == 0 and back["assignment"] == a["assignment"] and back["epoch"] == 1,
          "back under a new member id with the same partitions, no rebalance (epoch 1)")


def commit_v9(b, group, member, epoch, version=9):
    """OffsetCommit of partition t-0 at offset 5; returns its error code."""
    part = struct.pack(">iqi", 0, 5, -1) + compact_string(None) + NO_TAGS
    body = (compact_string(group) + struct.pack(">i", epoch) + compact_string(member) + compact_string(None)
            + compact_array([compact_string("t") + compact_array([part]) + NO_TAGS]) + NO_TAGS)
    r = call(b, 8, version, body)
    r.int32()
    out = []
    r.array(lambda t: (t.string(), t.array(lambda p: out.append((p.int32(), p.int16(), p.tags()))), t.tags()))
    return out[0][1]


def commits(b):
    g = "commits"
    a = join(b, g, "C", ["t"])
    check(commit_v9(b, g, "C", a["epoch"]) == 0, "OffsetCommit v9 at the member's epoch: accepted")
    check(commit_v9(b, g, "C", a["epoch"] + 1) == STALE_MEMBER_EPOCH, "at another epoch: STALE_MEMBER_EPOCH")
    check(commit_v9(b, g, "nobody", a["epoch"]) == UNKNOWN_MEMBER_ID, "from an unknown member: UNKNOWN_MEMBER_ID")
    check(commit_v9(b, g, "C", a["epoch"], version=8) == UNSUPPORTED_VERSION,
          "v8 from a consumer-protocol member: UNSUPPORTED_VERSION")


def listing(b):
    r = call(b, 16, 5, compact_array([]) + compact_array([]) + NO_TAGS)
    r.int32(), r.int16()
    groups = {}
    r.array(lambda g: groups.__setitem__(g.string(), (g.string(), g.string(), g.string(), g.tags())))
    check(groups.get("static", ("",))[:3] == ("consumer", "Stable", "consumer"),
          "ListGroups v5: protocol type consumer, state Stable, type consumer (%s)" % (groups.get("static"),))
    body = compact_array([compact_string("static")]) + struct.pack(">?", False) + NO_TAGS
    r = call(b, 15, 5, body)
    r.int32()
    described = r.array(lambda g: (g.int16(), g.string(), g.string()))
    check(described[0][2] == "Dead", "DescribeGroups v5 of a consumer group: Dead, as Kafka answers before v6")


def dump_log(binary, broker, group):
    part = java_partition(group, 50)
    files = sorted(glob.glob(os.path.join(broker.dir, "data", "__consumer_offsets-%d" % part, "*.log")))
    out = subprocess.run([binary, "dump-log", "--offsets-decoder", "--files", files[0]],
                         capture_output=True, text=True, timeout=60).stdout
    for needle in ('"type":"3"', '"type":"5"', '"type":"6"', '"type":"7"', '"type":"8"', '"memberEpoch"',
                   '"assignmentEpoch"', '"subscribedTopicNames"'):
        check(needle in out, "dump-log --offsets-decoder prints %s of group %s" % (needle, group))
    rex = java_partition("regex", 50)
    files = sorted(glob.glob(os.path.join(broker.dir, "data", "__consumer_offsets-%d" % rex, "*.log")))
    out = subprocess.run([binary, "dump-log", "--offsets-decoder", "--files", files[0]],
                         capture_output=True, text=True, timeout=60).stdout
    check('"type":"16"' in out and '"regularExpression":"re-b.*"' in out,
          "dump-log prints the regex record (type 16) with its expression")


def cli(binary, b):
    """`strata group describe` of a consumer-protocol group, as kafka-consumer-groups.sh
    shows one: epochs and target assignments."""
    def run(*args):
        return subprocess.run([binary, "group", "describe", "static", "--bootstrap-server", b] + list(args),
                              capture_output=True, text=True, timeout=60)
    d = describe_group(b, "static")
    m = d["members"][0]
    out = run("--members", "--verbose").stdout
    header, row = out.strip().split("\n")[:2]
    check(header.split() == ["GROUP", "CONSUMER-ID", "GROUP-INSTANCE-ID", "HOST", "CLIENT-ID", "#PARTITIONS",
                             "CURRENT-EPOCH", "CURRENT-ASSIGNMENT", "TARGET-EPOCH", "TARGET-ASSIGNMENT"],
          "strata group describe --members --verbose: Kafka 4's columns for a consumer group")
    want = ["static", m["id"], "inst-1", m["client_host"], m["client_id"], "6", str(m["epoch"]),
            "t:0,1,2,3,4,5", str(d["assignment_epoch"]), "t:0,1,2,3,4,5"]
    check(row.split() == want, "its row: %s" % row.split())
    out = run("--state", "--verbose").stdout.strip().split("\n")
    check(out[0].split()[-3:] == ["GROUP-EPOCH", "TARGET-ASSIGNMENT-EPOCH", "#MEMBERS"] and
          out[1].split()[-5:] == ["uniform", "Stable", str(d["group_epoch"]), str(d["assignment_epoch"]), "1"],
          "strata group describe --state --verbose: assignor, state, group and target epochs (%s)" % out[1])


def restart(broker):
    before = describe_group(broker.bootstrap, "static")
    broker.restart()
    after = describe_group(broker.bootstrap, "static")
    check(after["group_epoch"] == before["group_epoch"] and after["assignment_epoch"] == before["assignment_epoch"]
          and [(m["id"], m["epoch"], m["assigned"]) for m in after["members"]] ==
          [(m["id"], m["epoch"], m["assigned"]) for m in before["members"]],
          "after a restart the group is rebuilt from its records: epochs, members, assignments")
    m = after["members"][0]
    r = heartbeat(broker.bootstrap, "static", m["id"], m["epoch"], instance_id="inst-1", owned=None)
    check(r["error"] == 0 and r["epoch"] == m["epoch"], "its member goes on heartbeating at its epoch")


def main():
    binary = sys.argv[1]
    with StrataBroker(binary, SETTINGS) as broker:
        b = broker.bootstrap
        create(b, "t")
        member_ids(b)
        max_size(b)
        revocation(b)
        epochs(b)
        regexes(b)
        static_members(b)
        commits(b)
        listing(b)
        dump_log(binary, broker, "static")
        cli(binary, b)
        restart(broker)


if __name__ == "__main__":
    main()
