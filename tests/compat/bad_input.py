#!/usr/bin/python3
"""bad_input.py BOOTSTRAP_HOST:PORT: hostile and malformed requests against a running
broker, over plain sockets. Each case checks the broker's answer (an error code, or the
connection closed as Kafka closes it), then that a second, healthy connection still
works (ApiVersions v3 and Metadata v1 round trips). Records produced with
confluent-kafka at the start are read back at the end and compared exactly, and the
bad Produce requests must leave the partition's end offset unchanged.

Cases: 1 truncated frame; 2 frame over socket.request.max.bytes; 3 negative frame size;
4 unknown API key; 5 unknown version (Metadata closes, ApiVersions answers per KIP-511);
6 bad Produce batches and arguments (error codes, nothing appended); 7 garbage frame
after a valid one; 8 bodies and a header cut short; 9 an acks=0 Produce that fails
(Kafka closes the connection); 10 a 3 MiB frame with a request pipelined behind it;
11 200 requests pipelined in one write past the in-flight limit, answered in order.

The broker is expected to run with message.max.bytes=100000 (MAX_MESSAGE_BYTES below),
strata.max.inflight.requests.per.connection=2 and the default socket.request.max.bytes
(100 MiB). One line per check; exits 1 if any
check fails.

    strata broker --override log.dirs=/tmp/badin \\
        --override listeners=PLAINTEXT://127.0.0.1:9092 --override message.max.bytes=100000 \\
        --override strata.max.inflight.requests.per.connection=2
    tests/compat/bad_input.py 127.0.0.1:9092
"""
import random
import socket
import struct
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic
from kafka.record.default_records import DefaultRecordBatchBuilder
from kafka.record.util import calc_crc32c

MAX_MESSAGE_BYTES = 100000  # the broker's message.max.bytes for this test
SOCKET_TIMEOUT_S = 10       # an answer, or a close, must come within this

# Kafka error codes.
NONE = 0
CORRUPT_MESSAGE = 2
UNKNOWN_TOPIC_OR_PARTITION = 3
MESSAGE_TOO_LARGE = 10
INVALID_REQUIRED_ACKS = 21
UNSUPPORTED_VERSION = 35
INVALID_RECORD = 87

# API keys.
PRODUCE, LIST_OFFSETS, METADATA, API_VERSIONS = 0, 2, 3, 18

# v2 batch header positions (Kafka's DefaultRecordBatch).
MAGIC_POS, CRC_POS, ATTRIBUTES_POS, RECORD_COUNT_POS = 16, 17, 21, 57

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)
    return cond


# ---- encoding -------------------------------------------------------------------

def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)


def string(s):
    if s is None:
        return i16(-1)
    b = s.encode()
    return i16(len(b)) + b


def uvarint(v):
    out = bytearray()
    while v >= 0x80:
        out.append((v & 0x7F) | 0x80)
        v >>= 7
    out.append(v)
    return bytes(out)


def compact_string(s):
    b = s.encode()
    return uvarint(len(b) + 1) + b


def array(items):
    return i32(len(items)) + b"".join(items)


def header_v1(key, version, correlation_id, client_id="bad-input"):
    return i16(key) + i16(version) + i32(correlation_id) + string(client_id)


def header_v2(key, version, correlation_id, client_id="bad-input"):
    return header_v1(key, version, correlation_id, client_id) + uvarint(0)


def frame(payload):
    return i32(len(payload)) + payload


def api_versions_v3(correlation_id):
    body = compact_string("bad-input") + compact_string("1.0") + uvarint(0)
    return header_v2(API_VERSIONS, 3, correlation_id) + body


def metadata_v1(correlation_id, topics):
    return header_v1(METADATA, 1, correlation_id) + array([string(t) for t in topics])


def list_offsets_v1(correlation_id, topic, partitions):
    parts = [i32(p) + i64(-1) for p in partitions]  # -1: the latest offset
    return header_v1(LIST_OFFSETS, 1, correlation_id) + i32(-1) + array([string(topic) + array(parts)])


def produce(correlation_id, topic_partitions, acks=-1, version=8):
    """topic_partitions: [(topic, [(partition, records_bytes)])]; v3..v8 layout."""
    assert 3 <= version <= 8
    topics = [string(t) + array([i32(p) + i32(len(r)) + bytes(r) for p, r in parts])
              for t, parts in topic_partitions]
    body = string(None) + i16(acks) + i32(30000) + array(topics)
    return header_v1(PRODUCE, version, correlation_id) + body


# ---- decoding -------------------------------------------------------------------

class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("response truncated at %d (+%d of %d)" % (self.pos, n, len(self.data)))
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def i8(self): return struct.unpack(">b", self.take(1))[0]
    def i16(self): return struct.unpack(">h", self.take(2))[0]
    def i32(self): return struct.unpack(">i", self.take(4))[0]
    def i64(self): return struct.unpack(">q", self.take(8))[0]

    def uvarint(self):
        v, shift = 0, 0
        while True:
            b = self.take(1)[0]
            v |= (b & 0x7F) << shift
            if not b & 0x80:
                return v
            shift += 7

    def string(self):
        n = self.i16()
        return None if n < 0 else self.take(n).decode()

    def array(self, item):
        n = self.i32()
        return [] if n < 0 else [item(self) for _ in range(n)]

    def compact_array(self, item):
        n = self.uvarint() - 1
        return [] if n < 0 else [item(self) for _ in range(n)]

    def skip_tags(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())

    def done(self):
        return self.pos == len(self.data)


def parse_api_versions_v3(r):
    error = r.i16()

    def key(r):
        k = (r.i16(), r.i16(), r.i16())
        r.skip_tags()
        return k
    keys = r.compact_array(key)
    r.i32()  # throttle
    r.skip_tags()
    return error, keys


def parse_metadata_v1(r):
    brokers = r.array(lambda r: (r.i32(), r.string(), r.i32(), r.string()))
    r.i32()  # controller id

    def partition(r):
        error, index, _leader = r.i16(), r.i32(), r.i32()
        r.array(Reader.i32)
        r.array(Reader.i32)
        return index, error

    def topic(r):
        error, name, _internal = r.i16(), r.string(), r.i8()
        return name, (error, r.array(partition))
    topics = dict(r.array(topic))
    return brokers, topics


def parse_list_offsets_v1(r):
    out = {}
    for _ in range(r.i32()):
        name = r.string()
        for _ in range(r.i32()):
            p, error, _ts, offset = r.i32(), r.i16(), r.i64(), r.i64()
            out[(name, p)] = (error, offset)
    return out


def parse_produce(r, version):
    """{(topic, partition): error_code} from a v3..v8 response."""
    out = {}
    for _ in range(r.i32()):
        name = r.string()
        for _ in range(r.i32()):
            p, error = r.i32(), r.i16()
            r.i64()  # base offset
            r.i64()  # log append time
            if version >= 5:
                r.i64()  # log start offset
            if version >= 8:
                r.array(lambda r: (r.i32(), r.string()))
                r.string()
            out[(name, p)] = error
    r.i32()  # throttle
    return out


# ---- connections ----------------------------------------------------------------

class Conn:
    def __init__(self, addr):
        self.sock = socket.create_connection(addr, timeout=SOCKET_TIMEOUT_S)

    def send(self, data):
        self.sock.sendall(data)

    def recv_exact(self, n):
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise EOFError("connection closed after %d of %d bytes" % (len(buf), n))
            buf += chunk
        return bytes(buf)

    def response(self, correlation_id):
        """The body of the next response, after checking its correlation id."""
        size = struct.unpack(">i", self.recv_exact(4))[0]
        data = self.recv_exact(size)
        got = struct.unpack(">i", data[:4])[0]
        if got != correlation_id:
            raise ValueError("correlation id %d, expected %d" % (got, correlation_id))
        return data[4:]

    def closed_by_peer(self):
        """True when the broker closes the connection (EOF or reset) without sending
        anything; False on data or when nothing happens within the timeout."""
        try:
            return self.sock.recv(1) == b""
        except ConnectionResetError:
            return True
        except socket.timeout:
            return False

    def close(self):
        self.sock.close()


class Broker:
    def __init__(self, bootstrap):
        host, port = bootstrap.rsplit(":", 1)
        self.addr = (host, int(port))
        self.bootstrap = bootstrap
        self.next_id = 1000

    def connect(self):
        return Conn(self.addr)

    def cid(self):
        self.next_id += 1
        return self.next_id

    def request(self, payload):
        """One request on a fresh connection; returns the response body."""
        c = self.connect()
        try:
            cid = struct.unpack(">i", payload[4:8])[0]
            c.send(frame(payload))
            return c.response(cid)
        finally:
            c.close()

    def end_offset(self, topic, partition):
        cid = self.cid()
        r = parse_list_offsets_v1(Reader(self.request(list_offsets_v1(cid, topic, [partition]))))
        error, offset = r[(topic, partition)]
        assert error == NONE, "ListOffsets error %d" % error
        return offset

    def produce(self, topic_partitions, acks=-1, version=8):
        cid = self.cid()
        body = self.request(produce(cid, topic_partitions, acks, version))
        return parse_produce(Reader(body), version)


def healthy(broker, topics, what):
    """A new connection gets ApiVersions v3 and Metadata v1 answered correctly."""
    try:
        cid = broker.cid()
        r = Reader(broker.request(api_versions_v3(cid)))
        error, keys = parse_api_versions_v3(r)
        ok = error == NONE and r.done() and {k for k, _, _ in keys} >= {PRODUCE, METADATA, API_VERSIONS}
        cid = broker.cid()
        r = Reader(broker.request(metadata_v1(cid, list(topics))))
        brokers, got = parse_metadata_v1(r)
        ok = ok and r.done() and len(brokers) >= 1
        for name, partitions in topics.items():
            error, parts = got.get(name, (-1, []))
            ok = ok and error == NONE and sorted(p for p, _ in parts) == list(range(partitions))
        return check(ok, "%s: then ApiVersions v3 and Metadata v1 answered on a new connection" % what)
    except (OSError, EOFError, ValueError) as e:
        return check(False, "%s: then a healthy connection fails: %r" % (what, e))


def expect_closed(conn, what):
    return check(conn.closed_by_peer(), "%s: connection closed by the broker" % what)


# ---- batches --------------------------------------------------------------------

def build_batch(records, magic=2):
    """records: [(key, value)], v2 uncompressed, no producer id."""
    b = DefaultRecordBatchBuilder(magic=magic, compression_type=0, is_transactional=0,
                                  producer_id=-1, producer_epoch=-1, base_sequence=-1,
                                  batch_size=1 << 30)
    now = int(time.time() * 1000)
    for i, (k, v) in enumerate(records):
        b.append(i, timestamp=now, key=k, value=v, headers=[])
    return bytearray(b.build())


def fix_crc(batch):
    struct.pack_into(">I", batch, CRC_POS, calc_crc32c(bytes(batch[ATTRIBUTES_POS:])))
    return batch


def batch_of_size(total):
    """One record whose batch is exactly `total` bytes, header included."""
    v = total - 100
    for _ in range(10):
        b = build_batch([(None, b"x" * v)])
        if len(b) == total:
            return b
        v += total - len(b)
    raise AssertionError("cannot build a batch of exactly %d bytes" % total)


# ---- the data that must survive -------------------------------------------------

def create_topics(bootstrap, topics):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    futures = admin.create_topics([NewTopic(t, num_partitions=n, replication_factor=1)
                                   for t, n in topics.items()])
    for f in futures.values():
        f.result(15)


def produce_data(bootstrap, topic, partitions):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "linger.ms": 5,
                  "enable.idempotence": False})
    sent = {}
    for i in range(40):
        part = i % partitions
        key = None if i % 9 == 0 else b"key-%d" % i
        value = b"value %d " % i * (1 + i % 5)
        headers = [("h", b"%d" % i)] if i % 3 == 0 else None
        p.produce(topic, key=key, value=value, partition=part, headers=headers)
        sent.setdefault(part, []).append((key, value, headers or []))
    check(p.flush(30) == 0, "setup: 40 records produced with confluent-kafka, all acknowledged")
    return sent


def consume_data(bootstrap, topic, partitions, sent):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "bad-input-unused",
                  "enable.auto.commit": False, "auto.offset.reset": "earliest"})
    c.assign([TopicPartition(topic, p, 0) for p in range(partitions)])
    want = sum(len(v) for v in sent.values())
    got, n = {}, 0
    deadline = time.time() + 30
    while n < want and time.time() < deadline:
        m = c.poll(0.5)
        if m is None or m.error():
            continue
        got.setdefault(m.partition(), []).append((m.key(), m.value(), list(m.headers() or [])))
        n += 1
    c.close()
    check(got == sent, "end: the %d records produced at the start read back exactly" % want)


# ---- the cases ------------------------------------------------------------------

def case_truncated_frame(b, topics):
    c = b.connect()
    c.send(i32(100) + b"\x00\x12\x00\x00" + b"\x00" * 6)  # 10 of the 100 bytes promised
    c.close()
    healthy(b, topics, "1 truncated frame (size 100, 10 bytes sent, closed by us)")


def case_oversized_frame(b, topics):
    c = b.connect()
    c.send(i32(200 * 1024 * 1024))
    expect_closed(c, "2 frame of 200 MB (over socket.request.max.bytes)")
    c.close()
    healthy(b, topics, "2 frame of 200 MB")


def case_negative_frame(b, topics):
    c = b.connect()
    c.send(i32(-5) + b"\x00" * 16)
    expect_closed(c, "3 negative frame size")
    c.close()
    healthy(b, topics, "3 negative frame size")


def case_unknown_api(b, topics):
    c = b.connect()
    c.send(frame(header_v1(999, 0, b.cid()) + b"\x00" * 8))
    expect_closed(c, "4 unknown API key 999")
    c.close()
    healthy(b, topics, "4 unknown API key")


def case_unknown_version(b, topics):
    c = b.connect()
    c.send(frame(header_v1(METADATA, 99, b.cid()) + i32(-1)))
    expect_closed(c, "5 Metadata v99")
    c.close()
    healthy(b, topics, "5 Metadata v99")

    # KIP-511: ApiVersions at an unknown version is answered in v0 with
    # UNSUPPORTED_VERSION and the versions the broker does support.
    c = b.connect()
    cid = b.cid()
    c.send(frame(header_v2(API_VERSIONS, 99, cid) + b"\x00" * 4))
    try:
        r = Reader(c.response(cid))
        error = r.i16()
        keys = r.array(lambda r: (r.i16(), r.i16(), r.i16()))
        ranges = {k: (lo, hi) for k, lo, hi in keys}
        lo, hi = ranges.get(API_VERSIONS, (1, 0))
        check(error == UNSUPPORTED_VERSION and r.done() and lo == 0 and 3 <= hi < 99,
              "5 ApiVersions v99: error %d (want 35), v0 body listing ApiVersions %d-%d" %
              (error, lo, hi))
    except (OSError, EOFError, ValueError) as e:
        check(False, "5 ApiVersions v99: no v0 answer: %r" % e)
    c.close()
    healthy(b, topics, "5 ApiVersions v99")


def case_bad_produce(b, topics, target):
    good = build_batch([(b"k%d" % i, b"v%d" % i) for i in range(3)])
    before = b.end_offset(target, 0)

    def expect(what, records, want, partition=0, acks=-1):
        try:
            got = b.produce([(target, [(partition, records)])], acks=acks)
            error = got.get((target, partition))
            check(error == want, "6 produce %s: error %s (want %d)" % (what, error, want))
        except (OSError, EOFError, ValueError) as e:
            check(False, "6 produce %s: no answer: %r" % (what, e))

    bad_crc = bytearray(good)
    bad_crc[-1] ^= 0x01  # a value byte: the stored CRC no longer matches
    expect("with a bad CRC", bad_crc, CORRUPT_MESSAGE)

    lying = bytearray(good)
    struct.pack_into(">i", lying, RECORD_COUNT_POS, 4)  # 3 records present; CRC fixed
    expect("whose record count lies (4 for 3)", fix_crc(lying), INVALID_RECORD)

    magic3 = bytearray(good)
    magic3[MAGIC_POS] = 3  # no such format: Kafka's "Invalid magic found in record"
    expect("with magic 3", magic3, CORRUPT_MESSAGE)

    # A v3+ Produce may carry only magic 2 (Kafka's ProduceRequest.validateRecords).
    magic1 = bytearray(good)
    magic1[MAGIC_POS] = 1
    expect("with magic 1 in Produce v8", magic1, INVALID_RECORD)

    expect("of a 150 KB batch (message.max.bytes=%d)" % MAX_MESSAGE_BYTES,
           build_batch([(None, b"x" * 150000)]), MESSAGE_TOO_LARGE)
    # Kafka compares the whole batch, offset and length fields included.
    expect("of a batch of max.message.bytes + 1 bytes", batch_of_size(MAX_MESSAGE_BYTES + 1),
           MESSAGE_TOO_LARGE)

    expect("with acks=5", good, INVALID_REQUIRED_ACKS, acks=5)
    expect("to partition 7 of a 1-partition topic", good, UNKNOWN_TOPIC_OR_PARTITION, partition=7)
    expect("to partition -1", good, UNKNOWN_TOPIC_OR_PARTITION, partition=-1)

    after = b.end_offset(target, 0)
    check(after == before, "6 nothing appended by the bad produces (end offset %d, was %d)" %
          (after, before))
    healthy(b, topics, "6 bad produce")

    # The log is still writable, and a batch of exactly max.message.bytes is allowed.
    for what, batch, count in [("a batch of exactly max.message.bytes", batch_of_size(MAX_MESSAGE_BYTES), 1),
                               ("a valid 3-record batch", good, 3)]:
        start = b.end_offset(target, 0)
        got = b.produce([(target, [(0, batch)])])
        end = b.end_offset(target, 0)
        check(got.get((target, 0)) == NONE and end == start + count,
              "6 then %s is appended (error %s, end offset %d -> %d)" %
              (what, got.get((target, 0)), start, end))


def case_garbage_after_frame(b, topics):
    rng = random.Random(7)
    known = {0, 1, 2, 3, 18, 19, 20}
    while True:
        garbage = bytes(rng.getrandbits(8) for _ in range(64))
        if struct.unpack(">h", garbage[:2])[0] not in known:
            break
    c = b.connect()
    cid = b.cid()
    c.send(frame(api_versions_v3(cid)) + frame(garbage))
    try:
        error, _ = parse_api_versions_v3(Reader(c.response(cid)))
        check(error == NONE, "7 valid ApiVersions followed by a garbage frame: first one answered")
    except (OSError, EOFError, ValueError) as e:
        check(False, "7 valid ApiVersions followed by a garbage frame: no answer: %r" % e)
    expect_closed(c, "7 garbage frame after a valid one")
    c.close()
    healthy(b, topics, "7 garbage after a valid frame")


def case_malformed_body(b, topics, target):
    # Metadata v1: the topic array claims 5 topics, 1 is there.
    c = b.connect()
    c.send(frame(header_v1(METADATA, 1, b.cid()) + i32(5) + string(target)))
    expect_closed(c, "8 Metadata v1 body cut short")
    c.close()
    # Produce v8: the records claim 1000 bytes, 10 are there.
    c = b.connect()
    body = string(None) + i16(-1) + i32(30000) + i32(1) + string(target) + i32(1) + i32(0)
    c.send(frame(header_v1(PRODUCE, 8, b.cid()) + body + i32(1000) + b"\x00" * 10))
    expect_closed(c, "8 Produce v8 body cut short")
    c.close()
    # ApiVersions v3: a compact string longer than the frame.
    c = b.connect()
    c.send(frame(header_v2(API_VERSIONS, 3, b.cid()) + uvarint(50) + b"abc"))
    expect_closed(c, "8 ApiVersions v3 body cut short")
    c.close()
    # A header cut short: client id length past the frame.
    c = b.connect()
    c.send(frame(i16(METADATA) + i16(1) + i32(b.cid()) + i16(200) + b"ab"))
    expect_closed(c, "8 request header cut short")
    c.close()
    healthy(b, topics, "8 malformed bodies")


def case_acks0_error(b, topics, target):
    # Kafka closes an acks=0 producer's connection when its request fails, since
    # there is no response to carry the error (KafkaApis.handleProduceRequest).
    before = b.end_offset(target, 0)
    bad = build_batch([(b"k", b"v")])
    bad[-1] ^= 0x01
    c = b.connect()
    c.send(frame(produce(b.cid(), [(target, [(0, bad)])], acks=0)))
    expect_closed(c, "9 acks=0 produce with a bad CRC")
    c.close()
    check(b.end_offset(target, 0) == before, "9 nothing appended by the acks=0 bad produce")
    healthy(b, topics, "9 acks=0 bad produce")


def case_large_frame(b, topics, target):
    # A 3 MiB frame is read in growing pieces (net/connection.cc); the connection must
    # stay in step: the Produce is answered, then the ApiVersions pipelined behind it.
    before = b.end_offset(target, 0)
    c = b.connect()
    cid1, cid2 = b.cid(), b.cid()
    big = build_batch([(None, b"y" * (3 << 20))])
    c.send(frame(produce(cid1, [(target, [(0, big)])])) + frame(api_versions_v3(cid2)))
    try:
        error = parse_produce(Reader(c.response(cid1)), 8).get((target, 0))
        check(error == MESSAGE_TOO_LARGE, "10 a 3 MiB Produce frame: error %s (want 10)" % error)
        error, _ = parse_api_versions_v3(Reader(c.response(cid2)))
        check(error == NONE, "10 then the ApiVersions pipelined behind it is answered")
    except (OSError, EOFError, ValueError) as e:
        check(False, "10 a 3 MiB Produce frame: no answer: %r" % e)
    c.close()
    check(b.end_offset(target, 0) == before, "10 nothing appended by the 3 MiB produce")
    healthy(b, topics, "10 3 MiB frame")


def case_pipelined(b, topics):
    # The connection handles 2 requests at a time and stops reading past that; the
    # other 198 wait in the socket and are answered in order, nothing dropped.
    c = b.connect()
    cids = [b.cid() for _ in range(200)]
    c.send(b"".join(frame(api_versions_v3(cid) if i % 2 else metadata_v1(cid, list(topics)))
                    for i, cid in enumerate(cids)))
    answered = 0
    try:
        for i, cid in enumerate(cids):
            r = Reader(c.response(cid))
            ok = parse_api_versions_v3(r)[0] == NONE if i % 2 else len(parse_metadata_v1(r)[0]) >= 1
            if not ok:
                break
            answered += 1
    except (OSError, EOFError, ValueError) as e:
        print("     11: %r" % e)
    check(answered == 200, "11 200 pipelined requests (in-flight limit 2): %d answered in order" % answered)
    c.close()
    healthy(b, topics, "11 pipelined")


def main():
    if len(sys.argv) != 2 or ":" not in sys.argv[1]:
        sys.exit("usage: bad_input.py BOOTSTRAP_HOST:PORT")
    b = Broker(sys.argv[1])
    suffix = "%d" % (time.time() * 1000 % 10**9)
    data, target = "badin-data-" + suffix, "badin-target-" + suffix
    topics = {data: 2, target: 1}
    create_topics(b.bootstrap, topics)
    sent = produce_data(b.bootstrap, data, topics[data])
    healthy(b, topics, "0 setup")

    case_truncated_frame(b, topics)
    case_oversized_frame(b, topics)
    case_negative_frame(b, topics)
    case_unknown_api(b, topics)
    case_unknown_version(b, topics)
    case_bad_produce(b, topics, target)
    case_garbage_after_frame(b, topics)
    case_malformed_body(b, topics, target)
    case_acks0_error(b, topics, target)
    case_large_frame(b, topics, target)
    case_pipelined(b, topics)

    consume_data(b.bootstrap, data, topics[data], sent)
    if failures:
        print("%d check(s) failed" % len(failures))
        sys.exit(1)
    print("bad input: all checks passed")


if __name__ == "__main__":
    main()
