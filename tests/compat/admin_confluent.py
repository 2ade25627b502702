#!/usr/bin/python3
"""admin_confluent.py BOOTSTRAP | PATH/TO/strata: real admin clients against Strata.

BOOTSTRAP (host:port) names a running broker; given the strata binary instead, the
script starts its own broker on a free port and a fresh data dir (strata_broker.py).

Checks DescribeConfigs, AlterConfigs, IncrementalAlterConfigs, CreatePartitions,
DeleteRecords, DescribeCluster, DescribeLogDirs and OffsetForLeaderEpoch with
  - confluent-kafka-python's AdminClient (librdkafka), for what it exposes;
  - kafka-python's KafkaAdminClient, and its protocol classes for the non-flexible
    versions of the APIs it has no method for;
  - a small hand-written codec (below) for the flexible versions no client here speaks.
Prints one line per check and exits 1 if any failed. Creates topics named
admin-<client>-<random> (so it may run twice against one broker) and leaves them behind.
"""
import os
import socket
import struct
import sys
import uuid

from confluent_kafka import Consumer, KafkaError, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, ConfigResource, NewPartitions, NewTopic
import kafka.admin as kadmin
from kafka.protocol.api import Request, Response
from kafka.protocol.types import Array, Boolean, Int8, Int16, Int32, Int64, Schema, String

# Kafka's error codes, config sources and config types (the protocol's numbers).
NONE, OFFSET_OUT_OF_RANGE, UNKNOWN_TOPIC = 0, 1, 3
INVALID_PARTITIONS, INVALID_REPLICA_ASSIGNMENT, INVALID_CONFIG = 37, 39, 40
INVALID_REQUEST, POLICY_VIOLATION = 42, 44
FENCED_LEADER_EPOCH, UNKNOWN_LEADER_EPOCH = 74, 75
MISMATCHED_ENDPOINT_TYPE = 114
TOPIC_CONFIG, STATIC_BROKER_CONFIG, DEFAULT_CONFIG = 1, 4, 5
TYPE_STRING, TYPE_INT, TYPE_LONG, TYPE_LIST = 2, 3, 5, 7
TOPIC, BROKER = 2, 4
TOPIC_CONFIGS = {
    "cleanup.policy", "compression.type", "delete.retention.ms", "file.delete.delay.ms",
    "flush.messages", "flush.ms", "index.interval.bytes", "max.compaction.lag.ms",
    "max.message.bytes", "message.timestamp.type", "min.cleanable.dirty.ratio",
    "min.compaction.lag.ms", "min.insync.replicas", "retention.bytes", "retention.ms", "segment.bytes",
    "segment.index.bytes", "segment.ms", "unclean.leader.election.enable",
}

FAILED = []


def check(name, cond, detail=""):
    print("%s %s%s" % ("ok  " if cond else "FAIL", name, (": " + str(detail)) if detail and not cond else ""))
    if not cond:
        FAILED.append(name)
    return cond


def guarded(fn):
    """Runs one group of checks; an exception fails the group instead of the script."""
    def run(*args):
        try:
            fn(*args)
        except Exception as e:  # report and go on to the next group
            check(fn.__name__, False, "%s: %r" % (type(e).__name__, e))
    return run


def unique(prefix):
    return "admin-%s-%s" % (prefix, uuid.uuid4().hex[:8])


# ---- A minimal Kafka codec for flexible (and plain) versions -----------------------
# A schema is a list of (name, type); a type is 'i8' 'i16' 'i32' 'i64' 'bool' 'str'
# 'nstr' (nullable), ('arr', T) or ('narr', T) (nullable) where T is a type or a schema.

def uvarint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def read_uvarint(buf, pos):
    n = shift = 0
    while True:
        b = buf[pos]
        pos += 1
        n |= (b & 0x7F) << shift
        if not b & 0x80:
            return n, pos
        shift += 7


FIXED = {"i8": ">b", "i16": ">h", "i32": ">i", "i64": ">q", "bool": ">?"}


def encode(t, v, flex):
    if isinstance(t, list):
        out = b"".join(encode(ft, v[name], flex) for name, ft in t)
        return out + (b"\x00" if flex else b"")  # no tagged fields
    if isinstance(t, str) and t in FIXED:
        return struct.pack(FIXED[t], v)
    if t in ("str", "nstr"):
        if v is None:
            return b"\x00" if flex else struct.pack(">h", -1)
        b = v.encode()
        return (uvarint(len(b) + 1) if flex else struct.pack(">h", len(b))) + b
    kind, elem = t
    if v is None:
        return b"\x00" if flex else struct.pack(">i", -1)
    head = uvarint(len(v) + 1) if flex else struct.pack(">i", len(v))
    return head + b"".join(encode(elem, x, flex) for x in v)


def decode(t, buf, pos, flex):
    if isinstance(t, list):
        obj = {}
        for name, ft in t:
            obj[name], pos = decode(ft, buf, pos, flex)
        if flex:  # skip tagged fields
            count, pos = read_uvarint(buf, pos)
            for _ in range(count):
                _, pos = read_uvarint(buf, pos)
                size, pos = read_uvarint(buf, pos)
                pos += size
        return obj, pos
    if isinstance(t, str) and t in FIXED:
        size = struct.calcsize(FIXED[t])
        return struct.unpack_from(FIXED[t], buf, pos)[0], pos + size
    if t in ("str", "nstr"):
        if flex:
            n, pos = read_uvarint(buf, pos)
            n -= 1
        else:
            n = struct.unpack_from(">h", buf, pos)[0]
            pos += 2
        if n < 0:
            return None, pos
        return buf[pos:pos + n].decode(), pos + n
    kind, elem = t
    if flex:
        n, pos = read_uvarint(buf, pos)
        n -= 1
    else:
        n = struct.unpack_from(">i", buf, pos)[0]
        pos += 4
    if n < 0:
        return None, pos
    out = []
    for _ in range(n):
        x, pos = decode(elem, buf, pos, flex)
        out.append(x)
    return out, pos


class Raw:
    """One connection; request(key, version, flexible, req_schema, body, resp_schema)."""

    def __init__(self, bootstrap):
        host, port = bootstrap.rsplit(":", 1)
        self.sock = socket.create_connection((host, int(port)), timeout=10)
        self.correlation = 0

    def request(self, key, version, flex, req_schema, body, resp_schema):
        self.correlation += 1
        client = b"strata-admin-test"
        header = struct.pack(">hhih", key, version, self.correlation, len(client)) + client
        if flex:
            header += b"\x00"
        frame = header + encode(req_schema, body, flex)
        self.sock.sendall(struct.pack(">i", len(frame)) + frame)
        size = struct.unpack(">i", self._read(4))[0]
        buf = self._read(size)
        correlation = struct.unpack_from(">i", buf, 0)[0]
        assert correlation == self.correlation, (correlation, self.correlation)
        pos = 4
        if flex:
            pos += 1  # response header v1: empty tagged fields
        obj, pos = decode(resp_schema, buf, pos, flex)
        assert pos == len(buf), "trailing bytes in response to %d v%d" % (key, version)
        return obj

    def _read(self, n):
        data = b""
        while len(data) < n:
            chunk = self.sock.recv(n - len(data))
            if not chunk:
                raise ConnectionError("broker closed the connection")
            data += chunk
        return data

    def close(self):
        self.sock.close()


ALTER_RESULT = [("error_code", "i16"), ("error_message", "nstr"), ("resource_type", "i8"),
                ("resource_name", "str")]


def describe_cluster_schema(v):
    req = [("include_cluster_authorized_operations", "bool")] + ([("endpoint_type", "i8")] if v >= 1 else [])
    resp = ([("throttle_time_ms", "i32"), ("error_code", "i16"), ("error_message", "nstr")] +
            ([("endpoint_type", "i8")] if v >= 1 else []) +
            [("cluster_id", "str"), ("controller_id", "i32"),
             ("brokers", ("arr", [("broker_id", "i32"), ("host", "str"), ("port", "i32"),
                                  ("rack", "nstr")])),
             ("cluster_authorized_operations", "i32")])
    return req, resp


INCREMENTAL_REQ = [("resources", ("arr", [
    ("resource_type", "i8"), ("resource_name", "str"),
    ("configs", ("arr", [("name", "str"), ("config_operation", "i8"), ("value", "nstr")]))])),
    ("validate_only", "bool")]
ALTER_RESP = [("throttle_time_ms", "i32"), ("responses", ("arr", ALTER_RESULT))]
DELETE_RECORDS_REQ = [("topics", ("arr", [("name", "str"), ("partitions", ("arr", [
    ("partition_index", "i32"), ("offset", "i64")]))])), ("timeout_ms", "i32")]
DELETE_RECORDS_RESP = [("throttle_time_ms", "i32"), ("topics", ("arr", [("name", "str"), ("partitions", ("arr", [
    ("partition_index", "i32"), ("low_watermark", "i64"), ("error_code", "i16")]))]))]
LOG_DIRS_REQ = [("topics", ("narr", [("topic", "str"), ("partitions", ("arr", "i32"))]))]
LOG_DIRS_RESP_V4 = [("throttle_time_ms", "i32"), ("error_code", "i16"), ("results", ("arr", [
    ("error_code", "i16"), ("log_dir", "str"),
    ("topics", ("arr", [("name", "str"), ("partitions", ("arr", [
        ("partition_index", "i32"), ("partition_size", "i64"), ("offset_lag", "i64"),
        ("is_future_key", "bool")]))])),
    ("total_bytes", "i64"), ("usable_bytes", "i64")]))]
EPOCH_REQ_V4 = [("replica_id", "i32"), ("topics", ("arr", [("topic", "str"), ("partitions", ("arr", [
    ("partition", "i32"), ("current_leader_epoch", "i32"), ("leader_epoch", "i32")]))]))]
EPOCH_RESP_V4 = [("throttle_time_ms", "i32"), ("topics", ("arr", [("topic", "str"), ("partitions", ("arr", [
    ("error_code", "i16"), ("partition", "i32"), ("leader_epoch", "i32"), ("end_offset", "i64")]))]))]
DESCRIBE_CONFIGS_REQ_V4 = [("resources", ("arr", [("resource_type", "i8"), ("resource_name", "str"),
                                                   ("configuration_keys", ("narr", "str"))])),
                           ("include_synonyms", "bool"), ("include_documentation", "bool")]
DESCRIBE_CONFIGS_RESP_V4 = [("throttle_time_ms", "i32"), ("results", ("arr", [
    ("error_code", "i16"), ("error_message", "nstr"), ("resource_type", "i8"), ("resource_name", "str"),
    ("configs", ("arr", [("name", "str"), ("value", "nstr"), ("read_only", "bool"),
                         ("config_source", "i8"), ("is_sensitive", "bool"),
                         ("synonyms", ("arr", [("name", "str"), ("value", "nstr"), ("source", "i8")])),
                         ("config_type", "i8"), ("documentation", "nstr")]))]))]
CREATE_PARTITIONS_REQ = [("topics", ("arr", [("name", "str"), ("count", "i32"),
                                             ("assignments", ("narr", [("broker_ids", ("arr", "i32"))]))])),
                         ("timeout_ms", "i32"), ("validate_only", "bool")]
CREATE_PARTITIONS_RESP = [("throttle_time_ms", "i32"), ("results", ("arr", [
    ("name", "str"), ("error_code", "i16"), ("error_message", "nstr")]))]


# ---- kafka-python protocol classes for APIs its admin client lacks (non-flexible) ----

class DeleteRecordsResponse_v0(Response):
    API_KEY, API_VERSION = 21, 0
    SCHEMA = Schema(("throttle_time_ms", Int32), ("topics", Array(
        ("name", String("utf-8")), ("partitions", Array(
            ("partition_index", Int32), ("low_watermark", Int64), ("error_code", Int16))))))


class DeleteRecordsRequest_v0(Request):
    API_KEY, API_VERSION, RESPONSE_TYPE = 21, 0, DeleteRecordsResponse_v0
    SCHEMA = Schema(("topics", Array(("name", String("utf-8")), ("partitions", Array(
        ("partition_index", Int32), ("offset", Int64))))), ("timeout_ms", Int32))


class DescribeLogDirsResponse_v1(Response):
    API_KEY, API_VERSION = 35, 1
    SCHEMA = Schema(("throttle_time_ms", Int32), ("results", Array(
        ("error_code", Int16), ("log_dir", String("utf-8")), ("topics", Array(
            ("name", String("utf-8")), ("partitions", Array(
                ("partition_index", Int32), ("partition_size", Int64), ("offset_lag", Int64),
                ("is_future_key", Boolean))))))))


class DescribeLogDirsRequest_v1(Request):
    API_KEY, API_VERSION, RESPONSE_TYPE = 35, 1, DescribeLogDirsResponse_v1
    SCHEMA = Schema(("topics", Array(("topic", String("utf-8")), ("partitions", Array(Int32)))))


class OffsetForLeaderEpochResponse_v3(Response):
    API_KEY, API_VERSION = 23, 3
    SCHEMA = Schema(("throttle_time_ms", Int32), ("topics", Array(
        ("topic", String("utf-8")), ("partitions", Array(
            ("error_code", Int16), ("partition", Int32), ("leader_epoch", Int32),
            ("end_offset", Int64))))))


class OffsetForLeaderEpochRequest_v3(Request):
    API_KEY, API_VERSION, RESPONSE_TYPE = 23, 3, OffsetForLeaderEpochResponse_v3
    SCHEMA = Schema(("replica_id", Int32), ("topics", Array(("topic", String("utf-8")), ("partitions", Array(
        ("partition", Int32), ("current_leader_epoch", Int32), ("leader_epoch", Int32))))))


class IncrementalAlterConfigsResponse_v0(Response):
    API_KEY, API_VERSION = 44, 0
    SCHEMA = Schema(("throttle_time_ms", Int32), ("responses", Array(
        ("error_code", Int16), ("error_message", String("utf-8")), ("resource_type", Int8),
        ("resource_name", String("utf-8")))))


class IncrementalAlterConfigsRequest_v0(Request):
    API_KEY, API_VERSION, RESPONSE_TYPE = 44, 0, IncrementalAlterConfigsResponse_v0
    SCHEMA = Schema(("resources", Array(("resource_type", Int8), ("resource_name", String("utf-8")), ("configs", Array(
        ("name", String("utf-8")), ("config_operation", Int8), ("value", String("utf-8")))))),
        ("validate_only", Boolean))


def kp_send(admin, request):
    """Sends a kafka-python request to the (only) broker and returns the response."""
    future = admin._send_request_to_node(admin._client.least_loaded_node(), request)
    admin._wait_for_futures([future])
    return future.value


# ---- helpers -----------------------------------------------------------------

def ck_describe(a, rtype, name):
    r = ConfigResource(rtype, name)
    [(res, f)] = a.describe_configs([r]).items()
    return f.result()


def ck_error_code(fn):
    """The KafkaError code an admin future raised (None if it succeeded)."""
    try:
        fn()
        return None
    except Exception as e:
        err = e.args[0] if e.args else None
        return err.code() if isinstance(err, KafkaError) else repr(e)


def produce(bootstrap, topic, partition, count, size=10):
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 0})
    errors = []
    for i in range(count):
        p.produce(topic, value=b"v" * size, key=str(i).encode(), partition=partition,
                  on_delivery=lambda err, msg: errors.append(err) if err else None)
    p.flush(15)
    return errors


def raw_config_map(result):
    return {c["name"]: c for c in result["configs"]}


# ---- confluent-kafka-python -------------------------------------------------------

@guarded
def confluent_describe_configs(bs, a, node):
    t = unique("ck")
    [f.result() for f in a.create_topics([NewTopic(t, 2, 1, config={"retention.ms": "100000"})]).values()]
    cfg = ck_describe(a, "topic", t)
    check("ck describe_configs topic: every topic config", set(cfg) == TOPIC_CONFIGS, sorted(cfg))
    ret = cfg["retention.ms"]
    check("ck describe_configs topic: override value and DYNAMIC_TOPIC_CONFIG",
          ret.value == "100000" and ret.source == TOPIC_CONFIG and not ret.is_default,
          (ret.value, ret.source))
    check("ck describe_configs topic: override synonym first",
          [s.name for s in ret.synonyms.values()][:1] == ["retention.ms"], list(ret.synonyms))
    seg = cfg["segment.bytes"]
    check("ck describe_configs topic: default value, DEFAULT_CONFIG, broker synonym",
          seg.value == "1073741824" and seg.source == DEFAULT_CONFIG and seg.is_default
          and "log.segment.bytes" in seg.synonyms, (seg.value, seg.source, list(seg.synonyms)))
    check("ck describe_configs topic: not read-only, not sensitive",
          all(not c.is_read_only and not c.is_sensitive for c in cfg.values()))
    check("ck describe_configs topic: cleanup.policy delete", cfg["cleanup.policy"].value == "delete")
    code = ck_error_code(lambda: ck_describe(a, "topic", unique("missing")))
    check("ck describe_configs unknown topic -> UNKNOWN_TOPIC_OR_PARTITION", code == UNKNOWN_TOPIC, code)
    b = ck_describe(a, "broker", str(node))
    check("ck describe_configs broker: Kafka-named settings",
          {"log.segment.bytes", "log.retention.ms", "num.partitions", "listeners", "message.max.bytes"} <= set(b),
          sorted(b))
    check("ck describe_configs broker: read-only", all(c.is_read_only for c in b.values()))
    check("ck describe_configs broker: static listener", b["listeners"].source == STATIC_BROKER_CONFIG,
          b["listeners"].source)


@guarded
def confluent_alter_configs(bs, a, node):
    t = unique("ck")
    [f.result() for f in a.create_topics([NewTopic(t, 1, 1, config={"retention.ms": "100000"})]).values()]

    def alter(configs, validate_only=False, rtype="topic", name=t):
        r = ConfigResource(rtype, name, set_config=configs)
        [(res, f)] = a.alter_configs([r], validate_only=validate_only).items()
        return f.result()

    alter({"segment.bytes": "1000000"})
    cfg = ck_describe(a, "topic", t)
    check("ck alter_configs: new override", (cfg["segment.bytes"].value, cfg["segment.bytes"].source) ==
          ("1000000", TOPIC_CONFIG), cfg["segment.bytes"])
    check("ck alter_configs: replaces the whole set (retention.ms back to default)",
          cfg["retention.ms"].source == DEFAULT_CONFIG and cfg["retention.ms"].value == "604800000",
          (cfg["retention.ms"].value, cfg["retention.ms"].source))
    code = ck_error_code(lambda: alter({"segment.bytes": "abc"}))
    check("ck alter_configs bad value -> INVALID_CONFIG", code == INVALID_CONFIG, code)
    code = ck_error_code(lambda: alter({"no.such.config": "1"}))
    check("ck alter_configs unknown config -> INVALID_CONFIG", code == INVALID_CONFIG, code)
    alter({"retention.ms": "5"}, validate_only=True)
    cfg = ck_describe(a, "topic", t)
    check("ck alter_configs validate_only changes nothing",
          cfg["retention.ms"].value == "604800000" and cfg["segment.bytes"].value == "1000000")
    code = ck_error_code(lambda: alter({"retention.ms": "5"}, name=unique("missing")))
    check("ck alter_configs unknown topic -> UNKNOWN_TOPIC_OR_PARTITION", code == UNKNOWN_TOPIC, code)
    code = ck_error_code(lambda: alter({"log.retention.ms": "5"}, rtype="broker", name=str(node)))
    check("ck alter_configs broker -> INVALID_REQUEST", code == INVALID_REQUEST, code)
    # The live log takes the new settings: a 2000-byte record over max.message.bytes=1000.
    alter({"max.message.bytes": "1000"})
    errors = produce(bs, t, 0, 1, size=2000)
    check("ck alter_configs applies to the live log (MSG_SIZE_TOO_LARGE)",
          len(errors) == 1 and errors[0].code() == KafkaError.MSG_SIZE_TOO_LARGE, errors)
    alter({})
    errors = produce(bs, t, 0, 1, size=2000)
    check("ck alter_configs reverting lets it through", errors == [], errors)


@guarded
def confluent_create_partitions(bs, a, node):
    t = unique("ck")
    [f.result() for f in a.create_topics([NewTopic(t, 2, 1)]).values()]

    def grow(count, validate_only=False, assignment=None):
        # (This binding refuses an explicit replica_assignment=None.)
        parts = NewPartitions(t, count, assignment) if assignment else NewPartitions(t, count)
        [(topic, f)] = a.create_partitions([parts], validate_only=validate_only).items()
        return f.result()

    def count():
        return len(a.list_topics(t, timeout=10).topics[t].partitions)

    grow(4)
    check("ck create_partitions 2 -> 4", count() == 4, count())
    code = ck_error_code(lambda: grow(3))
    check("ck create_partitions decrease -> INVALID_PARTITIONS", code == INVALID_PARTITIONS, code)
    code = ck_error_code(lambda: grow(4))
    check("ck create_partitions same count -> INVALID_PARTITIONS", code == INVALID_PARTITIONS, code)
    grow(6, validate_only=True)
    check("ck create_partitions validate_only changes nothing", count() == 4, count())
    grow(6, assignment=[[node], [node]])
    check("ck create_partitions with assignments 4 -> 6", count() == 6, count())
    code = ck_error_code(lambda: grow(7, assignment=[[node + 1000]]))
    check("ck create_partitions foreign broker -> INVALID_REPLICA_ASSIGNMENT",
          code == INVALID_REPLICA_ASSIGNMENT, code)
    errors = produce(bs, t, 5, 3)
    check("ck create_partitions: new partition takes records", errors == [], errors)


@guarded
def confluent_newer_apis(bs, a, node):
    # confluent-kafka >= 2.x has these; older builds (1.7 on Debian 12) do not.
    for name in ("incremental_alter_configs", "delete_records", "describe_cluster"):
        print("ok   ck %s: %s" % (name, "available" if hasattr(a, name) else
                                  "not in this confluent-kafka, checked below with kafka-python"))
    if hasattr(a, "describe_cluster"):
        d = a.describe_cluster().result()
        check("ck describe_cluster: one node, controller", len(d.nodes) == 1 and d.controller.id == node)


# ---- kafka-python ---------------------------------------------------------------

@guarded
def kp_admin(bs, admin, node):
    t = unique("kp")
    admin.create_topics([kadmin.NewTopic(t, 1, 1, topic_configs={"retention.ms": "200000"})])
    [resp] = admin.describe_configs([kadmin.ConfigResource(kadmin.ConfigResourceType.TOPIC, t)],
                                    include_synonyms=True)
    [(err, msg, rtype, rname, entries)] = resp.resources
    cfg = {e[0]: e for e in entries}
    check("kp describe_configs v%d topic: every topic config" % resp.API_VERSION,
          err == NONE and set(cfg) == TOPIC_CONFIGS, (err, sorted(cfg)))
    check("kp describe_configs topic: override source", cfg["retention.ms"][1] == "200000" and
          cfg["retention.ms"][3] == TOPIC_CONFIG, cfg["retention.ms"])
    [resp] = admin.describe_configs([kadmin.ConfigResource(kadmin.ConfigResourceType.BROKER, str(node))])
    [(err, msg, rtype, rname, entries)] = resp.resources
    check("kp describe_configs broker", err == NONE and any(e[0] == "log.segment.bytes" for e in entries), err)
    resp = admin.alter_configs([kadmin.ConfigResource(kadmin.ConfigResourceType.TOPIC, t,
                                                      configs={"cleanup.policy": "compact"})])
    check("kp alter_configs v%d topic" % resp.API_VERSION, resp.resources[0][0] == NONE, resp.resources)
    [resp] = admin.describe_configs([kadmin.ConfigResource(kadmin.ConfigResourceType.TOPIC, t,
                                                           configs={"cleanup.policy": None})])
    entries = resp.resources[0][4]
    check("kp alter_configs took effect", [(e[0], e[1]) for e in entries] == [("cleanup.policy", "compact")],
          entries)
    resp = admin.alter_configs([kadmin.ConfigResource(kadmin.ConfigResourceType.TOPIC, t,
                                                      configs={"retention.bytes": "x"})])
    check("kp alter_configs bad value -> INVALID_CONFIG", resp.resources[0][0] == INVALID_CONFIG,
          resp.resources)
    resp = admin.create_partitions({t: kadmin.NewPartitions(3)})
    check("kp create_partitions v%d 1 -> 3" % resp.API_VERSION, resp.topic_errors[0][1] == NONE,
          resp.topic_errors)
    try:  # kafka-python raises on an error code here
        admin.create_partitions({t: kadmin.NewPartitions(2)})
        code = NONE
    except Exception as e:
        code = getattr(e, "errno", repr(e))
    check("kp create_partitions decrease -> INVALID_PARTITIONS", code == INVALID_PARTITIONS, code)
    cluster = admin.describe_cluster()
    check("kp describe_cluster (metadata): one broker, controller",
          len(cluster["brokers"]) == 1 and cluster["controller_id"] == node, cluster)


@guarded
def kp_delete_records(bs, a, admin, node):
    t = unique("dr")
    [f.result() for f in a.create_topics([NewTopic(t, 2, 1)]).values()]
    errors = produce(bs, t, 0, 10)
    check("delete_records setup: 10 records", errors == [], errors)

    def delete(partitions, topic=t):
        resp = kp_send(admin, DeleteRecordsRequest_v0(topics=[(topic, partitions)], timeout_ms=5000))
        return {p[0]: (p[1], p[2]) for p in resp.topics[0][1]}

    r = delete([(0, 3)])
    check("kp DeleteRecords v0 offset 3 -> low watermark 3", r[0] == (3, NONE), r)
    c = Consumer({"bootstrap.servers": bs, "group.id": unique("g")})
    low, high = c.get_watermark_offsets(TopicPartition(t, 0), timeout=10)
    check("ck watermarks after DeleteRecords: low 3, high 10", (low, high) == (3, 10), (low, high))
    r = delete([(0, 1)])
    check("kp DeleteRecords below the start answers the start", r[0] == (3, NONE), r)
    r = delete([(0, 11)])
    check("kp DeleteRecords past the end -> OFFSET_OUT_OF_RANGE", r[0] == (-1, OFFSET_OUT_OF_RANGE), r)
    r = delete([(0, -1), (1, -1)])
    check("kp DeleteRecords -1 -> high watermark", r[0] == (10, NONE) and r[1] == (0, NONE), r)
    low, high = c.get_watermark_offsets(TopicPartition(t, 0), timeout=10)
    check("ck watermarks after DeleteRecords -1: 10, 10", (low, high) == (10, 10), (low, high))
    c.close()
    r = delete([(7, 0)])
    check("kp DeleteRecords unknown partition -> UNKNOWN_TOPIC_OR_PARTITION", r[7] == (-1, UNKNOWN_TOPIC), r)
    r = delete([(0, 0)], topic=unique("missing"))
    check("kp DeleteRecords unknown topic -> UNKNOWN_TOPIC_OR_PARTITION", r[0] == (-1, UNKNOWN_TOPIC), r)
    compacted = unique("dr")
    [f.result() for f in a.create_topics([NewTopic(compacted, 1, 1, config={"cleanup.policy": "compact"})]).values()]
    r = delete([(0, 0)], topic=compacted)
    check("kp DeleteRecords on a compacted topic -> POLICY_VIOLATION", r[0] == (-1, POLICY_VIOLATION), r)
    raw = Raw(bs)
    resp = raw.request(21, 2, True, DELETE_RECORDS_REQ,
                       {"topics": [{"name": t, "partitions": [{"partition_index": 0, "offset": -1}]}],
                        "timeout_ms": 5000}, DELETE_RECORDS_RESP)
    p = resp["topics"][0]["partitions"][0]
    check("raw DeleteRecords v2 (flexible)", (p["low_watermark"], p["error_code"]) == (10, NONE), p)
    raw.close()


@guarded
def kp_describe_log_dirs(bs, a, admin, node):
    t = unique("ld")
    [f.result() for f in a.create_topics([NewTopic(t, 2, 1)]).values()]
    errors = produce(bs, t, 0, 5, size=100)
    check("describe_log_dirs setup", errors == [], errors)
    resp = kp_send(admin, DescribeLogDirsRequest_v1(topics=[(t, [0, 1, 9])]))
    [(err, log_dir, topics)] = resp.results
    parts = {p[0]: p for (name, ps) in topics if name == t for p in ps}
    check("kp DescribeLogDirs v1: one absolute dir", err == NONE and log_dir.startswith("/"), (err, log_dir))
    check("kp DescribeLogDirs v1: requested partitions it has",
          sorted(parts) == [0, 1] and len(topics) == 1, topics)
    check("kp DescribeLogDirs v1: sizes", parts[0][1] > 500 and parts[1][1] == 0, parts)
    check("kp DescribeLogDirs v1: no lag, no future log",
          all(p[2] == 0 and not p[3] for p in parts.values()), parts)
    raw = Raw(bs)
    resp = raw.request(35, 4, True, LOG_DIRS_REQ, {"topics": None}, LOG_DIRS_RESP_V4)
    [d] = resp["results"]
    names = {x["name"] for x in d["topics"]}
    check("raw DescribeLogDirs v4 (flexible): all topics when null", t in names, sorted(names))
    check("raw DescribeLogDirs v4: volume total and usable bytes",
          d["total_bytes"] > 0 and 0 <= d["usable_bytes"] <= d["total_bytes"], d)
    resp = raw.request(35, 4, True, LOG_DIRS_REQ, {"topics": []}, LOG_DIRS_RESP_V4)
    check("raw DescribeLogDirs v4: empty list describes no partition",
          resp["results"][0]["topics"] == [], resp["results"][0]["topics"])
    raw.close()


@guarded
def kp_offset_for_leader_epoch(bs, a, admin, node):
    t = unique("ep")
    [f.result() for f in a.create_topics([NewTopic(t, 1, 1)]).values()]
    empty = kp_send(admin, OffsetForLeaderEpochRequest_v3(replica_id=-1, topics=[(t, [(0, -1, 0)])]))
    check("kp OffsetForLeaderEpoch v3 empty log: epoch 0 ends at 0",
          tuple(empty.topics[0][1][0]) == (NONE, 0, 0, 0), empty)
    errors = produce(bs, t, 0, 7)
    check("offset_for_leader_epoch setup", errors == [], errors)

    def ask(partition, current, epoch, topic=t):
        resp = kp_send(admin, OffsetForLeaderEpochRequest_v3(
            replica_id=-1, topics=[(topic, [(partition, current, epoch)])]))
        return tuple(resp.topics[0][1][0])

    check("kp OffsetForLeaderEpoch v3 epoch 0 -> (0, log end)", ask(0, -1, 0) == (NONE, 0, 0, 7), ask(0, -1, 0))
    check("kp OffsetForLeaderEpoch v3 current epoch 0 accepted", ask(0, 0, 0) == (NONE, 0, 0, 7), ask(0, 0, 0))
    check("kp OffsetForLeaderEpoch v3 later epoch -> undefined", ask(0, -1, 3) == (NONE, 0, -1, -1), ask(0, -1, 3))
    check("kp OffsetForLeaderEpoch v3 newer current epoch -> UNKNOWN_LEADER_EPOCH",
          ask(0, 5, 0)[0] == UNKNOWN_LEADER_EPOCH, ask(0, 5, 0))
    check("kp OffsetForLeaderEpoch v3 older current epoch -> FENCED_LEADER_EPOCH",
          ask(0, -5, 0)[0] == FENCED_LEADER_EPOCH, ask(0, -5, 0))
    check("kp OffsetForLeaderEpoch v3 unknown partition -> UNKNOWN_TOPIC_OR_PARTITION",
          ask(4, -1, 0)[0] == UNKNOWN_TOPIC, ask(4, -1, 0))
    raw = Raw(bs)
    resp = raw.request(23, 4, True, EPOCH_REQ_V4, {"replica_id": -1, "topics": [{"topic": t, "partitions": [
        {"partition": 0, "current_leader_epoch": 0, "leader_epoch": 0}]}]}, EPOCH_RESP_V4)
    p = resp["topics"][0]["partitions"][0]
    check("raw OffsetForLeaderEpoch v4 (flexible)", (p["error_code"], p["leader_epoch"], p["end_offset"]) ==
          (NONE, 0, 7), p)
    raw.close()


@guarded
def kp_incremental_alter_configs(bs, a, admin, node):
    t = unique("ia")
    [f.result() for f in a.create_topics([NewTopic(t, 1, 1)]).values()]

    def alter(configs, validate_only=False, rtype=TOPIC, name=t):
        resp = kp_send(admin, IncrementalAlterConfigsRequest_v0(
            resources=[(rtype, name, configs)], validate_only=validate_only))
        return resp.responses[0][0]

    def current(key):
        c = ck_describe(a, "topic", t)[key]
        return c.value, c.source

    check("kp IncrementalAlterConfigs v0 SET", alter([("retention.ms", 0, "1234")]) == NONE)
    check("  ... retention.ms is the override", current("retention.ms") == ("1234", TOPIC_CONFIG),
          current("retention.ms"))
    check("kp IncrementalAlterConfigs APPEND cleanup.policy", alter([("cleanup.policy", 2, "compact")]) == NONE)
    check("  ... delete,compact", current("cleanup.policy") == ("delete,compact", TOPIC_CONFIG),
          current("cleanup.policy"))
    check("kp IncrementalAlterConfigs SUBTRACT cleanup.policy", alter([("cleanup.policy", 3, "delete")]) == NONE)
    check("  ... compact", current("cleanup.policy") == ("compact", TOPIC_CONFIG), current("cleanup.policy"))
    check("kp IncrementalAlterConfigs DELETE", alter([("retention.ms", 1, None)]) == NONE)
    check("  ... retention.ms back to default", current("retention.ms") == ("604800000", DEFAULT_CONFIG),
          current("retention.ms"))
    check("  ... other override kept", current("cleanup.policy") == ("compact", TOPIC_CONFIG))
    check("kp IncrementalAlterConfigs APPEND to a non-list -> INVALID_CONFIG",
          alter([("retention.ms", 2, "5")]) == INVALID_CONFIG)
    check("kp IncrementalAlterConfigs bad value -> INVALID_CONFIG",
          alter([("segment.bytes", 0, "1")]) == INVALID_CONFIG)
    check("kp IncrementalAlterConfigs validate_only", alter([("retention.ms", 0, "99")], validate_only=True)
          == NONE and current("retention.ms") == ("604800000", DEFAULT_CONFIG), current("retention.ms"))
    check("kp IncrementalAlterConfigs duplicate key -> INVALID_REQUEST",
          alter([("retention.ms", 0, "1"), ("retention.ms", 0, "2")]) == INVALID_REQUEST)
    check("kp IncrementalAlterConfigs unknown topic -> UNKNOWN_TOPIC_OR_PARTITION",
          alter([("retention.ms", 0, "1")], name=unique("missing")) == UNKNOWN_TOPIC)
    check("kp IncrementalAlterConfigs broker -> INVALID_REQUEST",
          alter([("log.retention.ms", 0, "1")], rtype=BROKER, name=str(node)) == INVALID_REQUEST)
    raw = Raw(bs)
    resource = {"resource_type": TOPIC, "resource_name": t,
                "configs": [{"name": "flush.messages", "config_operation": 0, "value": "1000"}]}
    resp = raw.request(44, 1, True, INCREMENTAL_REQ, {"resources": [resource], "validate_only": False}, ALTER_RESP)
    r = resp["responses"][0]
    check("raw IncrementalAlterConfigs v1 (flexible)", r["error_code"] == NONE and r["error_message"] is None
          and current("flush.messages") == ("1000", TOPIC_CONFIG), (r, current("flush.messages")))
    resp = raw.request(44, 1, True, INCREMENTAL_REQ, {"resources": [resource, resource], "validate_only": False},
                       ALTER_RESP)
    check("raw IncrementalAlterConfigs duplicate resource -> INVALID_REQUEST",
          [x["error_code"] for x in resp["responses"]] == [INVALID_REQUEST] * 2, resp)
    raw.close()


@guarded
def raw_describe_cluster(bs, a, admin, node):
    raw = Raw(bs)
    cluster_id = a.list_topics(timeout=10).cluster_id
    for v in (0, 1):
        req, resp_schema = describe_cluster_schema(v)
        body = {"include_cluster_authorized_operations": False, "endpoint_type": 1}
        r = raw.request(60, v, True, req, body, resp_schema)
        check("raw DescribeCluster v%d: cluster id, controller, one broker" % v,
              r["error_code"] == NONE and r["cluster_id"] == cluster_id and r["controller_id"] == node
              and [b["broker_id"] for b in r["brokers"]] == [node] and r["brokers"][0]["rack"] is None, r)
        check("raw DescribeCluster v%d: no authorized operations unless asked" % v,
              r["cluster_authorized_operations"] == -2147483648, r["cluster_authorized_operations"])
    req, resp_schema = describe_cluster_schema(1)
    r = raw.request(60, 1, True, req, {"include_cluster_authorized_operations": True, "endpoint_type": 1},
                    resp_schema)
    check("raw DescribeCluster v1: authorized operations when asked",
          r["cluster_authorized_operations"] > 0, r["cluster_authorized_operations"])
    r = raw.request(60, 1, True, req, {"include_cluster_authorized_operations": False, "endpoint_type": 2},
                    resp_schema)
    check("raw DescribeCluster v1 controllers -> MISMATCHED_ENDPOINT_TYPE",
          r["error_code"] == MISMATCHED_ENDPOINT_TYPE, r)
    raw.close()


@guarded
def raw_flexible_configs(bs, a, admin, node):
    t = unique("fx")
    [f.result() for f in a.create_topics([NewTopic(t, 1, 1, config={"segment.ms": "3600000"})]).values()]
    raw = Raw(bs)
    body = {"resources": [{"resource_type": TOPIC, "resource_name": t, "configuration_keys": None}],
            "include_synonyms": True, "include_documentation": True}
    r = raw.request(32, 4, True, DESCRIBE_CONFIGS_REQ_V4, body, DESCRIBE_CONFIGS_RESP_V4)["results"][0]
    cfg = raw_config_map(r)
    check("raw DescribeConfigs v4 (flexible): every topic config", set(cfg) == TOPIC_CONFIGS, sorted(cfg))
    check("raw DescribeConfigs v4: config types", (cfg["segment.bytes"]["config_type"],
          cfg["segment.ms"]["config_type"], cfg["cleanup.policy"]["config_type"],
          cfg["message.timestamp.type"]["config_type"]) == (TYPE_INT, TYPE_LONG, TYPE_LIST, TYPE_STRING))
    check("raw DescribeConfigs v4: documentation when asked",
          all(c["documentation"] for c in cfg.values()))
    check("raw DescribeConfigs v4: override synonym then nothing for segment.ms",
          [(s["name"], s["source"]) for s in cfg["segment.ms"]["synonyms"]] == [("segment.ms", TOPIC_CONFIG)],
          cfg["segment.ms"]["synonyms"])
    body["include_documentation"] = False
    body["resources"].append({"resource_type": BROKER, "resource_name": "", "configuration_keys": None})
    body["resources"].append({"resource_type": 8, "resource_name": str(node), "configuration_keys": None})
    rs = raw.request(32, 4, True, DESCRIBE_CONFIGS_REQ_V4, body, DESCRIBE_CONFIGS_RESP_V4)["results"]
    check("raw DescribeConfigs v4: no documentation unless asked",
          all(c["documentation"] is None for c in rs[0]["configs"]))
    check("raw DescribeConfigs v4: cluster default broker resource is empty",
          rs[1]["error_code"] == NONE and rs[1]["configs"] == [], rs[1])
    check("raw DescribeConfigs v4: broker logger -> INVALID_REQUEST", rs[2]["error_code"] == INVALID_REQUEST,
          rs[2])
    body["resources"] = [{"resource_type": BROKER, "resource_name": name, "configuration_keys": None}
                         for name in (str(node + 1000), "one", str(node))]
    rs = raw.request(32, 4, True, DESCRIBE_CONFIGS_REQ_V4, body, DESCRIBE_CONFIGS_RESP_V4)["results"]
    check("raw DescribeConfigs v4: another broker id or a non-number -> INVALID_REQUEST",
          [r["error_code"] for r in rs[:2]] == [INVALID_REQUEST] * 2, rs[:2])
    cfg = raw_config_map(rs[2])
    check("raw DescribeConfigs v4 broker: types and sources",
          (cfg["num.partitions"]["config_type"], cfg["log.retention.ms"]["config_type"],
           cfg["auto.create.topics.enable"]["config_type"], cfg["num.partitions"]["config_source"],
           [s["source"] for s in cfg["num.partitions"]["synonyms"]]) ==
          (TYPE_INT, TYPE_LONG, 1, DEFAULT_CONFIG, [DEFAULT_CONFIG]), cfg["num.partitions"])
    alter_req = [("resources", ("arr", [("resource_type", "i8"), ("resource_name", "str"),
                                        ("configs", ("arr", [("name", "str"), ("value", "nstr")]))])),
                 ("validate_only", "bool")]
    v0_req = [("resources", ("arr", [("resource_type", "i8"), ("resource_name", "str"),
                                     ("configuration_keys", ("narr", "str"))]))]
    v0_resp = [("throttle_time_ms", "i32"), ("results", ("arr", [
        ("error_code", "i16"), ("error_message", "nstr"), ("resource_type", "i8"), ("resource_name", "str"),
        ("configs", ("arr", [("name", "str"), ("value", "nstr"), ("read_only", "bool"), ("is_default", "bool"),
                             ("is_sensitive", "bool")]))]))]
    r = raw.request(32, 0, False, v0_req, {"resources": [
        {"resource_type": TOPIC, "resource_name": t, "configuration_keys": ["segment.ms", "segment.bytes"]}]},
        v0_resp)["results"][0]
    cfg = raw_config_map(r)
    check("raw DescribeConfigs v0: is_default", (cfg["segment.ms"]["is_default"], cfg["segment.bytes"]["is_default"])
          == (False, True), cfg)
    resource = {"resource_type": TOPIC, "resource_name": t, "configs": [{"name": "retention.bytes", "value": "1000000"}]}
    r = raw.request(33, 2, True, alter_req, {"resources": [resource], "validate_only": False}, ALTER_RESP)
    check("raw AlterConfigs v2 (flexible)", r["responses"][0]["error_code"] == NONE, r)
    r = raw.request(32, 4, True, DESCRIBE_CONFIGS_REQ_V4, {"resources": [
        {"resource_type": TOPIC, "resource_name": t, "configuration_keys": ["retention.bytes", "segment.ms"]}],
        "include_synonyms": False, "include_documentation": False}, DESCRIBE_CONFIGS_RESP_V4)["results"][0]
    cfg = raw_config_map(r)
    check("raw DescribeConfigs v4: configuration_keys filter", sorted(cfg) == ["retention.bytes", "segment.ms"],
          sorted(cfg))
    check("raw AlterConfigs v2 replaced the overrides", (cfg["retention.bytes"]["value"],
          cfg["segment.ms"]["config_source"]) == ("1000000", DEFAULT_CONFIG), cfg)
    r = raw.request(37, 3, True, CREATE_PARTITIONS_REQ, {"topics": [
        {"name": t, "count": 3, "assignments": None}, {"name": t, "count": 4, "assignments": None}],
        "timeout_ms": 5000, "validate_only": False}, CREATE_PARTITIONS_RESP)
    check("raw CreatePartitions v3 (flexible) duplicate topic -> INVALID_REQUEST",
          [x["error_code"] for x in r["results"]] == [INVALID_REQUEST] * 2, r)
    r = raw.request(37, 3, True, CREATE_PARTITIONS_REQ, {"topics": [
        {"name": t, "count": 3, "assignments": [{"broker_ids": [node]}]}],
        "timeout_ms": 5000, "validate_only": False}, CREATE_PARTITIONS_RESP)
    check("raw CreatePartitions v3: assignment count mismatch -> INVALID_REPLICA_ASSIGNMENT",
          r["results"][0]["error_code"] == INVALID_REPLICA_ASSIGNMENT, r)
    r = raw.request(37, 3, True, CREATE_PARTITIONS_REQ, {"topics": [
        {"name": t, "count": 3, "assignments": None}], "timeout_ms": 5000, "validate_only": False},
        CREATE_PARTITIONS_RESP)
    check("raw CreatePartitions v3: 1 -> 3", r["results"][0]["error_code"] == NONE and
          r["results"][0]["error_message"] is None, r)
    raw.close()


def run_all(bs):
    a = AdminClient({"bootstrap.servers": bs})
    md = a.list_topics(timeout=10)
    [node] = list(md.brokers)
    admin = kadmin.KafkaAdminClient(bootstrap_servers=bs, client_id="strata-admin-test")
    confluent_describe_configs(bs, a, node)
    confluent_alter_configs(bs, a, node)
    confluent_create_partitions(bs, a, node)
    confluent_newer_apis(bs, a, node)
    kp_admin(bs, admin, node)
    kp_delete_records(bs, a, admin, node)
    kp_describe_log_dirs(bs, a, admin, node)
    kp_offset_for_leader_epoch(bs, a, admin, node)
    kp_incremental_alter_configs(bs, a, admin, node)
    raw_describe_cluster(bs, a, admin, node)
    raw_flexible_configs(bs, a, admin, node)
    admin.close()


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    target = sys.argv[1]
    if os.path.isfile(target) and os.access(target, os.X_OK):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from strata_broker import StrataBroker
        with StrataBroker(target) as broker:
            run_all(broker.bootstrap)
    else:
        run_all(target)
    print("admin checks: %d failed" % len(FAILED))
    sys.exit(1 if FAILED else 0)


if __name__ == "__main__":
    main()
