"""ConsumerGroupHeartbeat (key 68) and ConsumerGroupDescribe (key 69) by hand, for the
KIP-848 tests: what the clients here never send (epochs out of order, a member that
never acknowledges a revocation, regex changes) and what they do not show (epochs,
target assignments). Flexible versions through tests/cluster/flexible.py."""
import os
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cluster"))

from flexible import NO_TAGS, Reader, call, compact_array, compact_string, topic_id, uvarint  # noqa: E402

HEARTBEAT, DESCRIBE = 68, 69


def _strings(items):
    return uvarint(0) if items is None else compact_array([compact_string(s) for s in items])


def _partitions(owned):
    """{topic id bytes: [partitions]} -> TopicPartitions, or null for None."""
    if owned is None:
        return uvarint(0)
    return compact_array([tid + compact_array([struct.pack(">i", p) for p in sorted(ps)]) + NO_TAGS
                          for tid, ps in owned.items()])


def heartbeat(bootstrap, group, member_id, epoch, version=1, instance_id=None, rack_id=None,
              rebalance_timeout_ms=-1, topics=None, regex=None, assignor=None, owned=None):
    """One ConsumerGroupHeartbeat. Returns {"error", "message", "member_id", "epoch",
    "interval", "assignment": {topic id: [partitions]} or None}."""
    body = (compact_string(group) + compact_string(member_id) + struct.pack(">i", epoch)
            + compact_string(instance_id) + compact_string(rack_id) + struct.pack(">i", rebalance_timeout_ms)
            + _strings(topics))
    if version >= 1:
        body += compact_string(regex)
    body += compact_string(assignor) + _partitions(owned) + NO_TAGS
    r = call(bootstrap, HEARTBEAT, version, body)
    out = {"throttle": r.int32(), "error": r.int16(), "message": r.string(), "member_id": r.string(),
           "epoch": r.int32(), "interval": r.int32(), "assignment": None}
    if r.int8() == 1:
        assignment = {}

        def one(t):
            tid = t.uuid()
            assignment[tid] = sorted(t.array(Reader.int32))
            t.tags()

        r.array(one)
        r.tags()
        out["assignment"] = assignment
    return out


def describe_group(bootstrap, group, version=1):
    """ConsumerGroupDescribe of one group: {"error", "state", "group_epoch",
    "assignment_epoch", "assignor", "members": [{"id", "epoch", "instance_id",
    "topics", "regex", "assigned": {name: [partitions]}, "target": {...}, "type"}]}."""
    body = compact_array([compact_string(group)]) + struct.pack(">?", False) + NO_TAGS
    r = call(bootstrap, DESCRIBE, version, body)
    r.int32()  # throttle

    def assignment(a):
        out = {}

        def one(t):
            t.uuid()
            name = t.string()
            out[name] = sorted(t.array(Reader.int32))
            t.tags()

        a.array(one)
        a.tags()
        return out

    def member(m):
        d = {"id": m.string(), "instance_id": m.string(), "rack_id": m.string(), "epoch": m.int32(),
             "client_id": m.string(), "client_host": m.string(), "topics": m.array(Reader.string),
             "regex": m.string(), "assigned": assignment(m), "target": assignment(m)}
        if version >= 1:
            d["type"] = m.int8()
        m.tags()
        return d

    def group_entry(g):
        d = {"error": g.int16(), "message": g.string(), "group_id": g.string(), "state": g.string(),
             "group_epoch": g.int32(), "assignment_epoch": g.int32(), "assignor": g.string(),
             "members": g.array(member)}
        g.int32()  # authorized operations
        g.tags()
        return d

    groups = r.array(group_entry)
    return groups[0]


__all__ = ["heartbeat", "describe_group", "topic_id"]
