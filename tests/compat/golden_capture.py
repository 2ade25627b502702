#!/usr/bin/python3
"""Golden bytes from a real client: librdkafka (confluent-kafka) produces through a TCP
proxy that records every record batch it sends, and the broker's segment files must hold
exactly those batches, byte for byte except baseOffset (bytes 0-7) and
partitionLeaderEpoch (bytes 12-15), which the leader stamps, in the order sent, and
nothing else.

The proxy forwards both directions untouched. The broker advertises the proxy's port
(advertised.listeners), so the client's every connection, including those it opens from
Metadata, goes through it. It parses the client->broker stream frame by frame (int32
size + frame) and, for Produce (key 0), the request's layout in plain (v3-v8) and
flexible (v9+: compact strings and arrays, tagged fields) versions. librdkafka 2.0 sends
Produce v7; a hand-built v9 request carrying a captured batch exercises the flexible
layout too. Usage: golden_capture.py PATH/TO/strata"""
import glob
import os
import socket
import struct
import sys
import threading
import time

from confluent_kafka import Producer

from strata_broker import StrataBroker, check, read_frame

CODECS = ["none", "gzip", "snappy", "lz4", "zstd"]
TOPIC = "golden"
PARTITIONS = 2
ROUNDS = 3  # flushes per codec: each one ends at least one batch per partition
BATCH_HEADER_BYTES = 61


class Reader:
    """Kafka's primitive types over a byte string; flexible switches to compact forms."""

    def __init__(self, data, at=0):
        self.data, self.at = data, at

    def take(self, n):
        if n < 0 or self.at + n > len(self.data):
            raise ValueError("truncated frame")
        b = self.data[self.at:self.at + n]
        self.at += n
        return b

    def int(self, fmt):
        return struct.unpack(fmt, self.take(struct.calcsize(fmt)))[0]

    def uvarint(self):
        n = shift = 0
        while True:
            b = self.take(1)[0]
            n |= (b & 0x7F) << shift
            if not b & 0x80:
                return n
            shift += 7
            if shift > 28:
                raise ValueError("varint too long")

    def length(self, flexible, wide):
        """A STRING (wide=False) or BYTES/ARRAY (wide=True) length; -1 is null."""
        if flexible:
            return self.uvarint() - 1
        return self.int(">i" if wide else ">h")

    def string(self, flexible):
        n = self.length(flexible, False)
        return None if n < 0 else self.take(n).decode()

    def tagged_fields(self):
        for _ in range(self.uvarint()):
            self.uvarint()
            self.take(self.uvarint())


def parse_produce(frame):
    """(version, [(topic, partition, records bytes)]) of a Produce request frame."""
    r = Reader(frame)
    key, version, _ = r.int(">h"), r.int(">h"), r.int(">i")
    assert key == 0
    flexible = version >= 9
    r.take(max(r.int(">h"), 0))  # client id: an int16 length even in header v2
    if flexible:
        r.tagged_fields()
    if version >= 3:
        r.string(flexible)  # transactional id
    r.int(">h")  # acks
    r.int(">i")  # timeout
    out = []
    for _ in range(r.length(flexible, True)):
        topic = r.string(flexible)
        for _ in range(r.length(flexible, True)):
            partition = r.int(">i")
            n = r.length(flexible, True)
            records = b"" if n < 0 else r.take(n)
            if flexible:
                r.tagged_fields()
            out.append((topic, partition, records))
        if flexible:
            r.tagged_fields()
    if flexible:
        r.tagged_fields()
    if r.at != len(frame):
        raise ValueError("%d bytes left after the Produce v%d request" % (len(frame) - r.at, version))
    return version, out


def split_batches(data):
    """The v2 batches in a byte string (records of a request, or a segment file)."""
    batches, at = [], 0
    while at < len(data):
        if len(data) - at < BATCH_HEADER_BYTES:
            raise ValueError("%d stray bytes at %d" % (len(data) - at, at))
        length = struct.unpack_from(">i", data, at + 8)[0]
        end = at + 12 + length
        if length < BATCH_HEADER_BYTES - 12 or end > len(data) or data[at + 16] != 2:
            raise ValueError("not a v2 batch at %d" % at)
        batches.append(data[at:end])
        at = end
    return batches


def masked(batch):
    """The bytes the broker must keep: all but baseOffset and partitionLeaderEpoch."""
    return batch[8:12] + batch[16:]


def shut(*sockets):
    for s in sockets:
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class Proxy:
    """127.0.0.1:port -> the broker. Records, in arrival order, the batches of every
    Produce request and the versions they came in."""

    def __init__(self):
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.listener.bind(("127.0.0.1", 0))
        self.listener.listen(16)
        self.port = self.listener.getsockname()[1]
        self.upstream = None
        self.lock = threading.Lock()
        self.sent = {}  # partition -> [batch bytes]
        self.versions = set()
        self.errors = []

    def start(self, upstream_port):
        self.upstream = upstream_port
        threading.Thread(target=self.accept, daemon=True).start()

    def accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            broker = socket.create_connection(("127.0.0.1", self.upstream))
            threading.Thread(target=self.requests, args=(client, broker), daemon=True).start()
            threading.Thread(target=self.pump, args=(broker, client), daemon=True).start()

    def pump(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        shut(src, dst)

    def requests(self, client, broker):
        """Forwards client -> broker, parsing each frame as it passes."""
        buf = b""
        try:
            while True:
                data = client.recv(65536)
                if not data:
                    break
                broker.sendall(data)
                buf += data
                while len(buf) >= 4 and len(buf) >= 4 + struct.unpack_from(">i", buf)[0]:
                    size = struct.unpack_from(">i", buf)[0]
                    self.frame(buf[4:4 + size])
                    buf = buf[4 + size:]
        except OSError:
            pass
        shut(client, broker)

    def frame(self, frame):
        if struct.unpack_from(">h", frame)[0] != 0:
            return
        try:
            version, parts = parse_produce(frame)
            with self.lock:
                self.versions.add(version)
                for topic, partition, records in parts:
                    if topic == TOPIC:
                        self.sent.setdefault(partition, []).extend(split_batches(records))
        except (ValueError, AssertionError) as e:
            self.errors.append(str(e))

    def close(self):
        self.listener.close()


def produce(bootstrap):
    base_ts = int(time.time() * 1000) - 60000
    n = 0
    for codec in CODECS:
        p = Producer({"bootstrap.servers": bootstrap, "acks": "all", "compression.type": codec,
                      "linger.ms": 50, "enable.idempotence": False})
        for _ in range(ROUNDS):
            for i in range(40):
                key = None if i % 9 == 0 else ("%s-key-%d" % (codec, n)).encode()
                value = None if i % 13 == 7 else ("%s value %d " % (codec, n) * (1 + i % 5)).encode()
                headers = [("codec", codec.encode()), ("n", str(n).encode())] if i % 2 else None
                p.produce(TOPIC, key=key, value=value, partition=i % PARTITIONS, headers=headers,
                          timestamp=base_ts + n)
                n += 1
            check(p.flush(30) == 0, "produce %s: 40 records acknowledged" % codec)
    return n


def produce_v9(port, batch, partition):
    """Sends one captured batch again in a hand-built flexible Produce v9 request."""
    name = TOPIC.encode()
    body = (b"\x00" + struct.pack(">hi", -1, 10000) + bytes([2, len(name) + 1]) + name +
            bytes([2]) + struct.pack(">i", partition) + uvarint(len(batch) + 1) + batch +
            b"\x00\x00\x00")
    client = b"golden-capture"
    frame = struct.pack(">hhih", 0, 9, 99, len(client)) + client + b"\x00" + body
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        r = Reader(read_frame(s))
    # correlation id, header tags, [topic name, [index, error code, ...]]
    r.int(">i")
    r.tagged_fields()
    r.length(True, True)
    r.string(True)
    r.length(True, True)
    r.int(">i")
    return r.int(">h")


def uvarint(n):
    out = bytearray()
    while n >= 0x80:
        out.append((n & 0x7F) | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)



def read_partition(data_dir, partition):
    files = sorted(glob.glob(os.path.join(data_dir, "%s-%d" % (TOPIC, partition), "*.log")))
    return b"".join(open(f, "rb").read() for f in files), len(files)


def compare(partition, sent, data):
    try:
        stored = split_batches(data)
    except ValueError as e:
        check(False, "partition %d: the segment files parse as v2 batches (%s)" % (partition, e))
        return
    check(len(stored) == len(sent), "partition %d: %d batches sent, %d in the files" %
          (partition, len(sent), len(stored)))
    same = [masked(a) == masked(b) for a, b in zip(sent, stored)]
    check(all(same), "partition %d: every batch byte for byte (bar offset and epoch), in order%s"
          % (partition, "" if all(same) else "; first difference at batch %d" % same.index(False)))
    offsets, expect = [], 0
    for b in stored:
        offsets.append(struct.unpack_from(">q", b)[0] == expect)
        expect += struct.unpack_from(">i", b, 57)[0]  # record count
    check(all(offsets), "partition %d: base offsets are 0 and then contiguous" % partition)
    check(sum(len(b) for b in stored) == len(data), "partition %d: nothing else in the files"
          % partition)


def main():
    proxy = Proxy()
    overrides = {"advertised.listeners": "PLAINTEXT://127.0.0.1:%d" % proxy.port,
                 "num.partitions": str(PARTITIONS)}
    try:
        with StrataBroker(sys.argv[1], overrides) as broker:
            proxy.start(broker.port)
            bootstrap = "127.0.0.1:%d" % proxy.port
            records = produce(bootstrap)
            with proxy.lock:
                versions = sorted(proxy.versions)
                sent = {p: list(b) for p, b in proxy.sent.items()}
            check(proxy.errors == [], "the proxy parsed every Produce request" +
                  "".join("; " + e for e in proxy.errors))
            check(versions != [], "librdkafka sent Produce v%s" % ",".join(map(str, versions)))
            n = sum(len(b) for b in sent.values())
            check(sorted(sent) == list(range(PARTITIONS)) and n >= len(CODECS) * ROUNDS * PARTITIONS,
                  "captured %d batches of %d records on %d partitions" % (n, records, len(sent)))
            error = produce_v9(proxy.port, sent[0][0], 0)
            check(error == 0, "a captured batch re-sent in a hand-built Produce v9 is accepted")
            with proxy.lock:
                sent = {p: list(b) for p, b in proxy.sent.items()}
            check(9 in proxy.versions and len(sent[0]) >= 2 and sent[0][-1] == sent[0][0],
                  "the proxy parsed the flexible v9 request")
            broker.stop()  # clean shutdown: every byte is in the files, nothing more
            for p in range(PARTITIONS):
                data, files = read_partition(os.path.join(broker.dir, "data"), p)
                check(files >= 1, "partition %d: %d segment file(s), %d bytes" % (p, files, len(data)))
                compare(p, sent[p], data)
    finally:
        proxy.close()
    print("golden capture: all checks passed")


if __name__ == "__main__":
    main()
