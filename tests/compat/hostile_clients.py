#!/usr/bin/python3
"""Hostile clients against a real broker started with `ulimit -n 1024`, all on 127.0.0.1:

  - 3000 connections: half idle (nothing sent), half half-open (a size prefix promising
    socket.request.max.bytes, then 10 bytes and nothing more). The broker runs out of
    descriptors after about a thousand: fd exhaustion.
  - a client that pipelines thousands of Fetch requests and never reads a response;
  - slow-drip frames: 10 connections sending ApiVersions one byte per 100 ms (answered in
    the end) and 10 sending a 1 MiB frame the same way (never finished);
  - then all of them go away, and 2000 connections each send a negative frame size
    (each is closed with a warning, which must be rate-limited).

Checked, with the bounds below: the broker's RSS (VmRSS) stays under RSS_MAX_MB; a
well-behaved connection keeps getting ApiVersions + Metadata answered within
LATENCY_MAX_S; the broker's log stays under LOG_MAX_BYTES; its CPU during fd
exhaustion stays under CPU_MAX_FRACTION of a core; the slow-drip ApiVersions are
answered; and once the hostile clients are gone, new clients (raw sockets, then
confluent-kafka producing and consuming) are served with nothing done to the broker.
The whole run is bounded (about a minute). Usage: hostile_clients.py PATH/TO/strata"""
import os
import resource
import socket
import struct
import sys
import threading
import time

from confluent_kafka import Consumer, Producer

from strata_broker import StrataBroker, check, read_frame

RSS_MAX_MB = 250          # resident set of the broker, at any sample
SLOWDOWN = 10 if os.environ.get("STRATA_SANITIZED") else 1  # set by scripts/test.sh for ASan
LATENCY_MAX_S = 1.0 * SLOWDOWN      # ApiVersions + Metadata round trip of the well-behaved client
LOG_MAX_BYTES = 1 << 20   # the broker's whole log for the run
CPU_MAX_FRACTION = 0.20   # of one core, over CPU_WINDOW_S of fd exhaustion
CPU_WINDOW_S = 3.0
BROKER_NOFILE = 1024      # the broker's RLIMIT_NOFILE
FLOOD_CONNECTIONS = 3000
DRIP_INTERVAL_S = 0.1
RECOVERY_MAX_S = 5.0      # a new client is served within this after the flood leaves
BAD_FRAMES = 2000         # connections closed for a negative frame size, each a warning
TOPIC = "hostile"

API_VERSIONS, METADATA, FETCH = 18, 3, 1


def i8(v): return struct.pack(">b", v)
def i16(v): return struct.pack(">h", v)
def i32(v): return struct.pack(">i", v)
def i64(v): return struct.pack(">q", v)


def string(s):
    b = s.encode()
    return i16(len(b)) + b


def header_v1(key, version, correlation_id):
    return i16(key) + i16(version) + i32(correlation_id) + string("hostile")


def frame(payload):
    return i32(len(payload)) + payload


def api_versions_v0(cid):
    return frame(header_v1(API_VERSIONS, 0, cid))


def metadata_v1(cid):
    return frame(header_v1(METADATA, 1, cid) + i32(1) + string(TOPIC))


def fetch_v4(cid):
    partition = i32(0) + i64(0) + i32(1 << 20)
    topics = i32(1) + string(TOPIC) + i32(1) + partition
    body = i32(-1) + i32(0) + i32(1) + i32(4 << 20) + i8(0) + topics
    return frame(header_v1(FETCH, 4, cid) + body)



def round_trip(sock, request, cid):
    sock.sendall(request)
    body = read_frame(sock)
    return struct.unpack(">i", body[:4])[0] == cid


class WellBehaved:
    """One connection, ApiVersions + Metadata round trips; records the worst latency."""

    def __init__(self, port):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=10)
        self.cid = 0
        self.worst = 0.0
        self.failures = 0

    def probe(self):
        t0 = time.time()
        try:
            self.cid += 2
            ok = round_trip(self.sock, api_versions_v0(self.cid), self.cid) and \
                round_trip(self.sock, metadata_v1(self.cid + 1), self.cid + 1)
        except OSError:
            ok = False
        if not ok:
            self.failures += 1
        self.worst = max(self.worst, time.time() - t0)
        return ok


def rss_mb(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return 0.0


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def nonblocking_connect(port):
    s = socket.socket()
    s.setblocking(False)
    s.connect_ex(("127.0.0.1", port))
    return s


def try_send(s, data):
    try:
        return s.send(data)
    except OSError:
        return 0


def new_client_served(port, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1) as s:
                if round_trip(s, api_versions_v0(7), 7) and round_trip(s, metadata_v1(8), 8):
                    return True
        except OSError:
            time.sleep(0.1)
    return False


def main():
    # Under AddressSanitizer freed memory waits in its quarantine; keep it small so the
    # RSS bound is about the broker.
    os.environ["ASAN_OPTIONS"] = ":".join(
        x for x in [os.environ.get("ASAN_OPTIONS", ""), "quarantine_size_mb=16"] if x)
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = FLOOD_CONNECTIONS + 500
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(want, hard), hard))
    started = time.time()
    broker = StrataBroker(sys.argv[1], popen_kwargs={"preexec_fn": lambda: resource.setrlimit(
        resource.RLIMIT_NOFILE, (BROKER_NOFILE, BROKER_NOFILE))})
    with broker:
        pid = broker.proc.pid
        port = broker.port
        p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
        for i in range(2000):
            p.produce(TOPIC, value=b"x" * 1000, partition=0)
        check(p.flush(30) == 0, "2000 records of 1 KB produced for the fetchers")
        rss_base = rss_mb(pid)
        print("broker RSS before the hostile clients: %.1f MB" % rss_base, flush=True)

        good = WellBehaved(port)
        check(good.probe(), "a well-behaved connection is served")
        rss_max = rss_base

        def sample():
            nonlocal rss_max
            rss_max = max(rss_max, rss_mb(pid))
            good.probe()

        # The client that never reads: Fetch after Fetch until its socket buffer is full.
        never_reads = socket.create_connection(("127.0.0.1", port))
        never_reads.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        never_reads.setblocking(False)
        fetches = 0
        payload = b"".join(fetch_v4(1000 + i) for i in range(500))
        for _ in range(40):
            sent = try_send(never_reads, payload)
            fetches += sent // len(fetch_v4(0))
            if sent < len(payload):
                break
        print("fetch requests written without reading: %d" % fetches, flush=True)

        # Slow drips, connected before the flood takes the broker's descriptors.
        drips_ok = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
        drips_big = [socket.create_connection(("127.0.0.1", port)) for _ in range(10)]
        drip_frames = {s: api_versions_v0(500 + i) for i, s in enumerate(drips_ok)}
        for s in drips_big:
            drip_frames[s] = i32(1 << 20) + b"\x00" * 400
        stop_drip = threading.Event()

        def drip():
            at = 0
            while not stop_drip.is_set():
                for s, f in drip_frames.items():
                    if at < len(f):
                        try_send(s, f[at:at + 1])
                at += 1
                time.sleep(DRIP_INTERVAL_S)

        dripper = threading.Thread(target=drip, daemon=True)
        dripper.start()

        # The flood: idle and half-open connections, far past the broker's descriptors.
        flood = []
        half_open = i32(104857600) + b"\x00" * 10
        for i in range(FLOOD_CONNECTIONS):
            flood.append(nonblocking_connect(port))
            if i % 200 == 0:
                sample()
        time.sleep(0.5)
        for s in flood[1::2]:
            try_send(s, half_open)
        time.sleep(1.0)
        sample()
        fds = open_fds(pid)
        print("broker descriptors open: %d of %d" % (fds, BROKER_NOFILE), flush=True)
        check(fds >= BROKER_NOFILE - 5, "the broker is out of descriptors (fd exhaustion)")

        cpu0 = cpu_seconds(pid)
        t0 = time.time()
        while time.time() - t0 < CPU_WINDOW_S:
            sample()
            time.sleep(0.25)
        cpu = (cpu_seconds(pid) - cpu0) / (time.time() - t0)
        print("broker CPU during fd exhaustion: %.1f%% of a core" % (100 * cpu), flush=True)
        check(cpu < CPU_MAX_FRACTION, "CPU under %d%% of a core while out of descriptors"
              % int(100 * CPU_MAX_FRACTION))

        # Let the drips finish their ApiVersions (about 2.5 s at 100 ms a byte).
        drip_deadline = time.time() + 3 + len(api_versions_v0(0)) * DRIP_INTERVAL_S
        answered = 0
        for i, s in enumerate(drips_ok):
            s.settimeout(max(0.1, drip_deadline - time.time()))
            try:
                body = read_frame(s)
                answered += struct.unpack(">i", body[:4])[0] == 500 + i
            except OSError:
                pass
            sample()
        check(answered == len(drips_ok), "slow-drip ApiVersions answered (%d of %d)"
              % (answered, len(drips_ok)))

        sample()
        print("broker RSS under the hostile clients: at most %.1f MB (before: %.1f MB)"
              % (rss_max, rss_base), flush=True)
        # Growth over the RSS before the hostile clients: a sanitizer build starts near
        # 270 MB of its own.
        check(rss_max - rss_base < RSS_MAX_MB, "broker RSS grew by less than %d MB" % RSS_MAX_MB)
        print("well-behaved client: worst ApiVersions + Metadata round trip %.3f s, %d failed"
              % (good.worst, good.failures), flush=True)
        check(good.failures == 0 and good.worst < LATENCY_MAX_S,
              "well-behaved client served within %.1f s throughout" % LATENCY_MAX_S)

        # The hostile clients go away.
        stop_drip.set()
        dripper.join()
        for s in flood + drips_ok + drips_big + [never_reads]:
            s.close()
        t0 = time.time()
        check(new_client_served(port, RECOVERY_MAX_S), "a new client is served after the flood "
              "leaves (%.2f s)" % (time.time() - t0))
        print("recovered in %.2f s" % (time.time() - t0), flush=True)
        check(good.probe(), "the well-behaved connection is still served")

        t0 = time.time()
        p = Producer({"bootstrap.servers": broker.bootstrap, "linger.ms": 5})
        p.produce(TOPIC, value=b"after", partition=0)
        check(p.flush(10) == 0, "confluent-kafka produces after the flood")
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": "after-flood",
                      "auto.offset.reset": "earliest"})
        c.subscribe([TOPIC])
        got = 0
        deadline = time.time() + 20
        while got < 2001 and time.time() < deadline:
            m = c.poll(1.0)
            if m is not None and not m.error():
                got += 1
        c.close()
        check(got == 2001, "confluent-kafka consumes all 2001 records after the flood (%.1f s)"
              % (time.time() - t0))

        # Bad frames, each closing its connection with a warning: rate-limited lines.
        t0 = time.time()
        for _ in range(BAD_FRAMES):
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(i32(-1))
                try:
                    s.recv(1)
                except OSError:
                    pass
        print("%d bad frames sent in %.1f s" % (BAD_FRAMES, time.time() - t0), flush=True)
        check(good.probe(), "the well-behaved connection is served after the bad frames")

        log_bytes = os.path.getsize(broker.log_path)
        print("broker log: %d bytes; its warnings:" % log_bytes, flush=True)
        with open(broker.log_path) as f:
            for line in f:
                if "[warning]" in line or "[error]" in line:
                    print("    " + line.rstrip()[:160])
        check(log_bytes < LOG_MAX_BYTES, "broker log under %d bytes" % LOG_MAX_BYTES)
    print("hostile_clients: all checks passed in %.1f s" % (time.time() - started), flush=True)


if __name__ == "__main__":
    main()
