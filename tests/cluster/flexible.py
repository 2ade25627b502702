"""Kafka's flexible versions by hand, for the few requests the cluster tests check on the
wire that clients hide (KIP-951's leader hints): compact strings and arrays, unsigned
varints, tagged fields. Request header v2, response header v1."""
import socket
import struct

import harness
from strata_broker import read_frame


def uvarint(n):
    out = b""
    while n >= 0x80:
        out += bytes([(n & 0x7F) | 0x80])
        n >>= 7
    return out + bytes([n])


def compact_string(s):
    if s is None:
        return uvarint(0)
    b = s.encode()
    return uvarint(len(b) + 1) + b


def compact_array(items):
    """`items` are already encoded elements."""
    return uvarint(len(items) + 1) + b"".join(items)


NO_TAGS = uvarint(0)


class Reader(harness.Reader):
    """harness.Reader's big-endian fields plus the flexible versions' compact ones."""

    def int8(self):
        return self.take(">b")

    def int16(self):
        return self.take(">h")

    def int64(self):
        return self.take(">q")

    def uvarint(self):
        n, shift = 0, 0
        while True:
            b = self.data[self.at]
            self.at += 1
            n |= (b & 0x7F) << shift
            if b < 0x80:
                return n
            shift += 7

    def raw(self, n):
        v = self.data[self.at:self.at + n]
        self.at += n
        return v

    def uuid(self):
        return self.raw(16)

    def string(self):
        n = self.uvarint()
        return None if n == 0 else self.raw(n - 1).decode()

    def bytes(self):
        n = self.uvarint()
        return None if n == 0 else self.raw(n - 1)

    def array(self, element):
        n = self.uvarint()
        return None if n == 0 else [element(self) for _ in range(n - 1)]

    def tags(self):
        """{tag: Reader over the field's bytes}."""
        out = {}
        for _ in range(self.uvarint()):
            tag = self.uvarint()
            out[tag] = Reader(self.raw(self.uvarint()))
        return out


def call(bootstrap, api_key, version, body, timeout=10):
    """Sends one request (header v2) and returns a Reader after the response header v1."""
    host, port = bootstrap.split(":")
    client = b"flexible-test"
    frame = struct.pack(">hhih", api_key, version, 11, len(client)) + client + NO_TAGS + body
    with socket.create_connection((host, int(port)), timeout=timeout) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        r = Reader(read_frame(sock))
    r.int32()  # correlation id
    r.tags()
    return r


def node_endpoint(r):
    node = (r.int32(), r.string(), r.int32(), r.string())
    r.tags()
    return node


def leader_and_epoch(tags, tag):
    """A tagged LeaderIdAndEpoch: (leader id, leader epoch), or None when absent."""
    if tag not in tags:
        return None
    t = tags[tag]
    return t.int32(), t.int32()


def topic_id(bootstrap, topic):
    """The topic's id from Metadata v12."""
    body = (compact_array([uuid_zero() + compact_string(topic) + NO_TAGS])
            + struct.pack(">??", False, False) + NO_TAGS)
    r = call(bootstrap, 3, 12, body)
    r.int32()  # throttle
    r.array(node_endpoint)  # brokers
    r.string(), r.int32()  # cluster id, controller
    ids = []

    def one_topic(t):
        t.int16()
        name = t.string()
        tid = t.uuid()
        t.int8()
        t.array(lambda p: (p.int16(), p.int32(), p.int32(), p.int32(), p.array(Reader.int32),
                           p.array(Reader.int32), p.array(Reader.int32), p.tags()))
        t.int32()
        t.tags()
        ids.append((name, tid))

    r.array(one_topic)
    return dict(ids)[topic]


def uuid_zero():
    return b"\0" * 16


def produce_hint(bootstrap, topic, partition):
    """Produce v10 (no records) for one partition: (error, current leader, node endpoints)."""
    part = struct.pack(">i", partition) + uvarint(0) + NO_TAGS  # records: null
    body = (compact_string(None) + struct.pack(">hi", 1, 5000)
            + compact_array([compact_string(topic) + compact_array([part]) + NO_TAGS]) + NO_TAGS)
    r = call(bootstrap, 0, 10, body)
    out = {}

    def one_partition(p):
        index, error = p.int32(), p.int16()
        p.int64(), p.int64(), p.int64()
        p.array(lambda e: (e.int32(), e.string(), e.tags()))
        p.string()
        out[index] = (error, leader_and_epoch(p.tags(), 0))

    r.array(lambda t: (t.string(), t.array(one_partition), t.tags()))
    r.int32()  # throttle
    tags = r.tags()
    endpoints = tags[0].array(node_endpoint) if 0 in tags else []
    error, leader = out[partition]
    return error, leader, endpoints


def fetch_hint(bootstrap, tid, partition):
    """Fetch v16 (by topic id) of one partition from offset 0:
    (error, current leader, node endpoints, records: None when null)."""
    part = struct.pack(">iiqiqi", partition, -1, 0, -1, -1, 1 << 20) + NO_TAGS
    body = (struct.pack(">iiibii", 0, 1, 1 << 20, 0, 0, -1)
            + compact_array([tid + compact_array([part]) + NO_TAGS])
            + compact_array([]) + compact_string("") + NO_TAGS)
    r = call(bootstrap, 1, 16, body)
    r.int32(), r.int16(), r.int32()  # throttle, error, session id
    out = {}

    def one_partition(p):
        index, error = p.int32(), p.int16()
        p.int64(), p.int64(), p.int64()
        p.array(lambda a: (a.int64(), a.int64(), a.tags()))
        p.int32()
        records = p.bytes()
        out[index] = (error, leader_and_epoch(p.tags(), 1), records)

    r.array(lambda t: (t.uuid(), t.array(one_partition), t.tags()))
    tags = r.tags()
    endpoints = tags[0].array(node_endpoint) if 0 in tags else []
    error, leader, records = out[partition]
    return error, leader, endpoints, records


def describe_producers(bootstrap, topic, partition):
    """DescribeProducers v0 of one partition: (error, number of active producers)."""
    body = (compact_array([compact_string(topic) + compact_array([struct.pack(">i", partition)])
                           + NO_TAGS]) + NO_TAGS)
    r = call(bootstrap, 61, 0, body)
    r.int32()  # throttle
    out = {}

    def one_partition(p):
        index, error = p.int32(), p.int16()
        p.string()
        producers = p.array(lambda a: (a.int64(), a.int32(), a.int32(), a.int64(), a.int32(),
                                       a.int64(), a.tags()))
        p.tags()
        out[index] = (error, len(producers or []))

    r.array(lambda t: (t.string(), t.array(one_partition), t.tags()))
    return out[partition]
