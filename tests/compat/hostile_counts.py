#!/usr/bin/python3
"""hostile_counts.py PATH/TO/strata: request frames whose array counts claim tens of
millions of elements, against a real broker (issue 13: one 90 MB Fetch whose topics
array claimed 90 million elements took the broker to 5.6 GiB).

Eleven connections at once each send one such frame (Fetch v4 and v12, Produce v3 and
v9, Metadata v1, v4 and v12, CreateTopics v4 and v5, OffsetCommit v2 and v8; top-level and
nested arrays; 1 to 90 MB, 181 MB in all), twice over. Checks:
  - the broker answers or closes each such connection within SOCKET_TIMEOUT_S;
  - its RSS (VmRSS sampled every 10 ms, and VmHWM) stays under RSS_BOUND_MIB: the frames
    themselves are held while they are read, the elements they claim are never allocated
    (above twice the bound the broker is killed, so a regression cannot exhaust the
    machine);
  - another client's Metadata round trips, on a connection of its own, each take under
    OTHER_CLIENT_MAX_S while this goes on;
  - afterwards the broker is alive and serves: Metadata, and confluent-kafka producing
    and consuming 10 records.
Traffic goes to 127.0.0.1 only; the whole test takes well under a minute.
"""
import os
import socket
import struct
import sys
import threading
import time

from strata_broker import StrataBroker, check

RSS_BOUND_MIB = 300
# STRATA_SANITIZED (scripts/test.sh sets it for the sanitizer build): ASan reads a
# 90 MB frame several times slower, so time bounds there are ten times as long.
SLOWDOWN = 10 if os.environ.get("STRATA_SANITIZED") else 1
OTHER_CLIENT_MAX_S = 1.0 * SLOWDOWN
SOCKET_TIMEOUT_S = 90  # a sanitizer build on a busy machine reads 90 MB slowly
ROUNDS = 2
MIB = 1 << 20

PRODUCE, FETCH, METADATA, OFFSET_COMMIT, CREATE_TOPICS = 0, 1, 3, 8, 19


def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)


def uvarint(v):
    out = b""
    while v >= 0x80:
        out += bytes([(v & 0x7F) | 0x80])
        v >>= 7
    return out + bytes([v])


def string(s): return i16(len(s)) + s.encode()
def compact_string(s): return uvarint(len(s) + 1) + s.encode()
def array(n, flexible): return uvarint(n + 1) if flexible else i32(n)


def frame(api_key, version, flexible, body, total_bytes, correlation_id=7):
    """A request frame of `total_bytes` (size prefix included): header, `body`, zeros."""
    header = i16(api_key) + i16(version) + i32(correlation_id) + string("hostile")
    if flexible:
        header += uvarint(0)  # the header's tagged fields
    content = header + body
    assert len(content) + 4 <= total_bytes
    content += bytes(total_bytes - 4 - len(content))
    return i32(len(content)) + content


def hostile_frames():
    """(name, frame): each claims far more elements than its bytes could hold."""
    fetch4 = i32(-1) + i32(0) + i32(0) + i32(1 << 20) + i8(0)
    fetch12 = i32(-1) + i32(0) + i32(0) + i32(1 << 20) + i8(0) + i32(0) + i32(-1)
    return [
        # The request: 90 million topics in 90 MB.
        ("Fetch v4 topics=90M in 90 MB",
         frame(FETCH, 4, False, fetch4 + array(90_000_000, False), 90 * MIB)),
        ("Fetch v12 one topic, partitions=20M in 1 MB",
         frame(FETCH, 12, True, fetch12 + array(1, True) + compact_string("t")
               + array(20_000_000, True), 1 * MIB)),
        ("Produce v3 topic_data=30M in 16 MB",
         frame(PRODUCE, 3, False, i16(-1) + i16(-1) + i32(1000) + array(30_000_000, False),
               16 * MIB)),
        ("Produce v9 one topic, partition_data=40M in 4 MB",
         frame(PRODUCE, 9, True, uvarint(0) + i16(-1) + i32(1000) + array(1, True)
               + compact_string("t") + array(40_000_000, True), 4 * MIB)),
        ("Metadata v1 topics=40M in 32 MB",
         frame(METADATA, 1, False, array(40_000_000, False), 32 * MIB)),
        ("Metadata v12 topics=25M in 2 MB",
         frame(METADATA, 12, True, array(25_000_000, True), 2 * MIB)),
        ("CreateTopics v4 topics=20M in 8 MB",
         frame(CREATE_TOPICS, 4, False, array(20_000_000, False), 8 * MIB)),
        ("CreateTopics v5 one topic, configs=50M in 2 MB",
         frame(CREATE_TOPICS, 5, True, array(1, True) + compact_string("t") + i32(1) + i16(1)
               + array(0, True) + array(50_000_000, True), 2 * MIB)),
        ("OffsetCommit v2 topics=30M in 8 MB",
         frame(OFFSET_COMMIT, 2, False, string("g") + i32(1) + string("m") + i64(-1)
               + array(30_000_000, False), 8 * MIB)),
        ("OffsetCommit v8 one topic, partitions=30M in 2 MB",
         frame(OFFSET_COMMIT, 8, True, compact_string("g") + i32(1) + compact_string("m")
               + uvarint(0) + array(1, True) + compact_string("t") + array(30_000_000, True),
               2 * MIB)),
        ("Metadata v4 topics=INT32_MAX in 8 MB",
         frame(METADATA, 4, False, array(0x7FFFFFFF, False), 8 * MIB)),
    ]


def read_exact(sock, n):
    buf = b""
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            return None
        buf += chunk
    return buf


def answered_or_closed(sock):
    """'closed' or 'answered' once the broker does either; 'timeout' otherwise."""
    sock.settimeout(SOCKET_TIMEOUT_S)
    try:
        head = read_exact(sock, 4)
        if head is None:
            return "closed"
        return "answered" if read_exact(sock, struct.unpack(">i", head)[0]) else "closed"
    except socket.timeout:
        return "timeout"
    except ConnectionError:
        return "closed"


def metadata_round_trip(sock, correlation_id):
    """Metadata v1 for no topics (an empty array): the brokers. Returns seconds taken."""
    start = time.monotonic()
    body = i16(METADATA) + i16(1) + i32(correlation_id) + string("other") + i32(0)
    sock.sendall(i32(len(body)) + body)
    head = read_exact(sock, 4)
    if head is None:
        raise ConnectionError("closed")
    reply = read_exact(sock, struct.unpack(">i", head)[0])
    if reply is None or struct.unpack(">i", reply[:4])[0] != correlation_id:
        raise ConnectionError("bad reply")
    return time.monotonic() - start


def status_kib(pid, field):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


class RssMonitor(threading.Thread):
    """Samples the broker's VmRSS; kills it above twice the bound."""
    def __init__(self, proc, base_kib):
        super().__init__(daemon=True)
        self.proc, self.max_kib, self.stop, self.killed = proc, 0, False, False
        self.base_kib = base_kib

    def run(self):
        while not self.stop and self.proc.poll() is None:
            try:
                kib = status_kib(self.proc.pid, "VmRSS")
            except OSError:
                return
            self.max_kib = max(self.max_kib, kib)
            if kib - self.base_kib > 2 * RSS_BOUND_MIB * 1024:
                self.killed = True
                self.proc.kill()
                return
            time.sleep(0.01)


class OtherClient(threading.Thread):
    """Metadata round trips on a connection of its own, until told to stop."""
    def __init__(self, port):
        super().__init__(daemon=True)
        self.port, self.stop, self.latencies, self.error = port, False, [], None

    def run(self):
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=5) as s:
                s.settimeout(5 * SLOWDOWN)
                n = 0
                while not self.stop:
                    n += 1
                    self.latencies.append(metadata_round_trip(s, 1000 + n))
                    time.sleep(0.02)
        except (OSError, ConnectionError) as e:
            self.error = repr(e)


def send_hostile(port, name, data, outcomes, go):
    try:
        s = socket.create_connection(("127.0.0.1", port), timeout=SOCKET_TIMEOUT_S)
    except OSError as e:
        outcomes[name] = "connect failed: %r" % e
        return
    with s:
        go.wait()
        try:
            s.sendall(data)
        except (BrokenPipeError, ConnectionResetError):
            outcomes[name] = "closed"  # closed before the whole frame was read: fine
            return
        outcomes[name] = answered_or_closed(s)


def serve_afterwards(bootstrap):
    from confluent_kafka import Consumer, Producer
    p = Producer({"bootstrap.servers": bootstrap})
    for i in range(10):
        p.produce("after-hostile", value=b"record-%d" % i)
    check(p.flush(15) == 0, "afterwards: 10 records produced")
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": "after-hostile",
                  "auto.offset.reset": "earliest"})
    c.subscribe(["after-hostile"])
    got, deadline = [], time.time() + 20
    while len(got) < 10 and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            got.append(m.value())
    c.close()
    check(got == [b"record-%d" % i for i in range(10)], "afterwards: the 10 records consumed")


def main():
    # Under AddressSanitizer, freed frames wait in its quarantine (256 MiB by default) and
    # would count as the broker's memory; a small one keeps the bound about the broker.
    os.environ["ASAN_OPTIONS"] = ":".join(
        x for x in [os.environ.get("ASAN_OPTIONS", ""), "quarantine_size_mb=16"] if x)
    started = time.monotonic()
    frames = hostile_frames()
    print("%d hostile frames, %.0f MB in all" % (len(frames), sum(len(f) for _, f in frames) / 1e6))
    with StrataBroker(sys.argv[1]) as broker:
        pid = broker.proc.pid
        time.sleep(0.5)
        idle_kib = status_kib(pid, "VmRSS")
        print("broker idle RSS %.1f MiB" % (idle_kib / 1024))
        monitor = RssMonitor(broker.proc, idle_kib)
        monitor.start()
        other = OtherClient(broker.port)
        other.start()
        for rnd in range(ROUNDS):
            outcomes, go = {}, threading.Event()
            senders = [threading.Thread(target=send_hostile, args=(broker.port, n, f, outcomes, go))
                       for n, f in frames]
            for t in senders:
                t.start()
            t0 = time.monotonic()
            go.set()
            for t in senders:
                t.join(SOCKET_TIMEOUT_S + 10)
            print("round %d: %d connections done in %.2f s" % (rnd + 1, len(frames),
                                                                time.monotonic() - t0))
            for name, _ in frames:
                got = outcomes.get(name, "no outcome")
                check(got in ("closed", "answered"), "round %d: %s: %s" % (rnd + 1, name, got))
        other.stop = True
        other.join(10)
        monitor.stop = True
        monitor.join(5)
        check(not monitor.killed, "broker not killed for RSS above %d MiB" % (2 * RSS_BOUND_MIB))
        check(broker.proc.poll() is None, "broker alive after the hostile frames")
        hwm_kib = status_kib(pid, "VmHWM")
        print("broker RSS: idle %.1f MiB, max sampled %.1f MiB, VmHWM %.1f MiB" % (
            idle_kib / 1024, monitor.max_kib / 1024, hwm_kib / 1024))
        # Growth over the idle RSS: a sanitizer build starts near 270 MiB of its own.
        check(max(monitor.max_kib, hwm_kib) - idle_kib < RSS_BOUND_MIB * 1024,
              "broker RSS grew by less than %d MiB over idle" % RSS_BOUND_MIB)
        check(other.error is None, "other client's connection kept working (%s)" % other.error)
        worst = max(other.latencies) if other.latencies else float("inf")
        print("other client: %d Metadata round trips, slowest %.3f s" % (len(other.latencies), worst))
        check(len(other.latencies) > 0 and worst < OTHER_CLIENT_MAX_S,
              "other client served within %.1f s throughout" % OTHER_CLIENT_MAX_S)
        with socket.create_connection(("127.0.0.1", broker.port), timeout=5) as s:
            s.settimeout(5)
            check(metadata_round_trip(s, 1) < OTHER_CLIENT_MAX_S, "afterwards: Metadata answered")
        serve_afterwards(broker.bootstrap)
    print("done in %.1f s" % (time.monotonic() - started))


if __name__ == "__main__":
    main()
