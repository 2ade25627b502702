"""Starts and stops a real `strata broker` process for the compatibility tests.

    with StrataBroker(strata_binary) as b:
        b.bootstrap            # "127.0.0.1:PORT"
        b.restart()            # clean shutdown (SIGTERM) and start on the same data
        b.restart(kill=True)   # SIGKILL instead: an unclean restart
    StrataBroker(binary, overrides, popen_kwargs={"preexec_fn": f})  # e.g. a lower ulimit

Each broker gets a fresh data directory and a free port; its log is printed if a test
fails, so a CI failure shows what the broker saw.
"""
import os
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def recv_exact(sock, n):
    """Exactly n bytes from sock; ConnectionError if the broker closes first."""
    out = bytearray()
    while len(out) < n:
        chunk = sock.recv(n - len(out))
        if not chunk:
            raise ConnectionError("connection closed by the broker")
        out += chunk
    return bytes(out)


def read_frame(sock):
    """One size-prefixed response: its bytes after the 4-byte size."""
    size = struct.unpack(">i", recv_exact(sock, 4))[0]
    return recv_exact(sock, size)


class StrataBroker:
    def __init__(self, binary, overrides=None, popen_kwargs=None):
        self.binary = binary
        self.dir = tempfile.mkdtemp(prefix="strata-compat-")
        self.port = free_port()
        self.bootstrap = "127.0.0.1:%d" % self.port
        self.overrides = dict(overrides or {})
        self.popen_kwargs = dict(popen_kwargs or {})
        self.proc = None
        self.log_path = os.path.join(self.dir, "broker.log")

    def start(self):
        args = [self.binary, "broker",
                "--override", "log.dirs=" + os.path.join(self.dir, "data"),
                "--override", "listeners=PLAINTEXT://127.0.0.1:%d" % self.port]
        for k, v in self.overrides.items():
            args += ["--override", "%s=%s" % (k, v)]
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, **self.popen_kwargs)
        deadline = time.time() + 20
        while time.time() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError("broker exited with %s:\n%s" % (self.proc.returncode, self.log()))
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("broker did not start:\n" + self.log())

    def stop(self, kill=False):
        if self.proc is None:
            return
        self.proc.send_signal(signal.SIGKILL if kill else signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("broker did not stop on SIGTERM:\n" + self.log())
        self.proc = None
        if not kill and code != 0:
            raise RuntimeError("broker exited with %d:\n%s" % (code, self.log()))

    def restart(self, kill=False):
        self.stop(kill=kill)
        self.start()

    def log(self):
        try:
            return open(self.log_path).read()[-20000:]
        except OSError:
            return ""

    def __enter__(self):
        return self.start()

    def __exit__(self, exc_type, exc, tb):
        try:
            self.stop()
        finally:
            if exc_type is not None:
                sys.stderr.write("---- broker log ----\n" + self.log() + "\n")
            shutil.rmtree(self.dir, ignore_errors=True)
        return False


def delete_records_v0(port, topic_name, partition, offset):
    """DeleteRecords v0 by hand (none of the Python clients here has it), to the partition's
    leader at `port`: returns (low watermark, error)."""
    name = topic_name.encode()
    body = (struct.pack(">i", 1) + struct.pack(">h", len(name)) + name +
            struct.pack(">iiqi", 1, partition, offset, 10000))
    client = b"strata-test"
    frame = struct.pack(">hhih", 21, 0, 7, len(client)) + client + body
    with socket.create_connection(("127.0.0.1", port), timeout=10) as s:
        s.sendall(struct.pack(">i", len(frame)) + frame)
        resp = read_frame(s)
    # correlation id, throttle, [topic: name, [partition, low watermark, error]]
    at = 4 + 4 + 4
    n = struct.unpack_from(">h", resp, at)[0]
    at += 2 + n + 4
    _, low, error = struct.unpack_from(">iqh", resp, at)
    return low, error


def java_partition(key, partitions):
    """Kafka's partitionFor, for a group id or transactional id: Utils.abs of Java's
    String.hashCode (ASCII keys), modulo the internal topic's partition count."""
    h = 0
    for ch in key.encode():
        h = (31 * h + ch) & 0xFFFFFFFF
    if h >= 1 << 31:
        h -= 1 << 32
    return (0 if h == -(1 << 31) else abs(h)) % partitions


def check(cond, what):
    """One line per check; a failed check raises."""
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        raise AssertionError(what)
