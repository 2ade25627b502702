"""A Strata cluster as processes on loopback: etcd (1 or 3 members, Debian's etcd-server)
and N brokers, each with its own ports and data dir, all under one temporary directory.

    with Cluster(strata_binary, brokers=3, etcd_members=1) as c:
        c.bootstrap                 # "127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3"
        c.broker(2).kill()          # SIGKILL; .pause() / .resume() (SIGSTOP/SIGCONT);
        c.broker(2).start()         #   .stop() (SIGTERM, clean)
        c.etcd[0].kill(); c.etcd[0].start()
        c.wait_for(lambda md: len(md.brokers) == 3)   # Metadata as kafka-python sees it

Every process is killed and every file removed on exit; logs are printed if the block
fails, so a CI failure shows what each process saw. Sessions are short (3 s) so failover
tests stay short; nothing listens beyond 127.0.0.1.
"""
import os
import shutil
import struct
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "compat"))
from strata_broker import check, free_port, read_frame  # noqa: E402

ETCD = "/usr/bin/etcd"
SESSION_MS = 3000


class Reader:
    """Big-endian fields of a response."""

    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, fmt):
        v = struct.unpack_from(fmt, self.data, self.at)[0]
        self.at += struct.calcsize(fmt)
        return v

    def int32(self):
        return self.take(">i")

    def string(self):
        n = self.take(">h")
        if n < 0:
            return None
        v = self.data[self.at:self.at + n].decode()
        self.at += n
        return v


class Process:
    """One child process with a log file; start/stop/kill/pause/resume."""

    def __init__(self, name, log_path):
        self.name = name
        self.log_path = log_path
        self.proc = None

    def spawn(self, args):
        log = open(self.log_path, "a")
        self.proc = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT)

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill(self):
        if self.proc is None:
            return
        try:
            self.proc.send_signal(signal.SIGCONT)
            self.proc.kill()
        except ProcessLookupError:
            pass
        self.proc.wait(timeout=20)
        self.proc = None

    def stop(self):
        """SIGTERM and wait; the exit status (the process must end within 30 s)."""
        if self.proc is None:
            return None
        self.proc.send_signal(signal.SIGCONT)
        self.proc.terminate()
        try:
            code = self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise RuntimeError("%s did not stop on SIGTERM:\n%s" % (self.name, self.log()))
        self.proc = None
        return code

    def pause(self):
        self.proc.send_signal(signal.SIGSTOP)

    def resume(self):
        self.proc.send_signal(signal.SIGCONT)

    def log(self):
        try:
            return open(self.log_path).read()[-15000:]
        except OSError:
            return ""


def call(bootstrap, api_key, version, body):
    """One request by hand (header v1); the response body after the correlation id."""
    host, port = bootstrap.split(":")
    client = b"cluster-test"
    frame = struct.pack(">hhih", api_key, version, 9, len(client)) + client + body
    with socket.create_connection((host, int(port)), timeout=10) as sock:
        sock.sendall(struct.pack(">i", len(frame)) + frame)
        r = Reader(read_frame(sock))
    r.int32()
    return r


def string(s):
    b = s.encode()
    return struct.pack(">h", len(b)) + b


def find_coordinator(bootstrap, key, key_type):
    """FindCoordinator v1: (error, node id)."""
    r = call(bootstrap, 10, 1, string(key) + struct.pack(">b", key_type))
    r.int32()  # throttle
    error = r.take(">h")
    r.string()  # message
    return error, r.int32()


def coordinator_of(c, key, key_type, avoid=None, timeout=30):
    """The node every live broker names for `key` (and not `avoid`), once they agree."""
    deadline = time.time() + timeout
    answers = None
    while time.time() < deadline:
        try:
            answers = {b.node_id: find_coordinator(b.bootstrap, key, key_type) for b in c.brokers if b.alive()}
        except OSError:
            answers = None
        nodes = {n for e, n in (answers or {}).values() if e == 0}
        if answers and len(nodes) == 1 and all(e == 0 for e, _ in answers.values()) and nodes != {avoid}:
            return nodes.pop()
        time.sleep(0.2)
    check(False, "the brokers agree on the coordinator of %s (last: %s)" % (key, answers))


def wait_port(port, proc, what, timeout=20):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if proc.proc is not None and proc.proc.poll() is not None:
            raise RuntimeError("%s exited with %s:\n%s" % (what, proc.proc.returncode, proc.log()))
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("%s did not start:\n%s" % (what, proc.log()))


class Etcd(Process):
    def __init__(self, root, index, peers):
        super().__init__("etcd-%d" % index, os.path.join(root, "etcd-%d.log" % index))
        self.index = index
        self.client_port = free_port()
        self.peer_port = peers[index]
        self.data = os.path.join(root, "etcd-%d" % index)
        self.peers = peers

    @property
    def endpoint(self):
        return "127.0.0.1:%d" % self.client_port

    def launch(self):
        """Starts the process without waiting (members of one cluster wait for each other)."""
        cluster = ",".join("e%d=http://127.0.0.1:%d" % (i, p) for i, p in enumerate(self.peers))
        self.spawn([ETCD, "--name", "e%d" % self.index, "--data-dir", self.data,
                    "--listen-client-urls", "http://" + self.endpoint,
                    "--advertise-client-urls", "http://" + self.endpoint,
                    "--listen-peer-urls", "http://127.0.0.1:%d" % self.peer_port,
                    "--initial-advertise-peer-urls", "http://127.0.0.1:%d" % self.peer_port,
                    "--initial-cluster", cluster, "--initial-cluster-state", "new",
                    "--log-level", "warn"])

    def start(self):
        self.launch()
        wait_port(self.client_port, self, self.name)
        return self


class Broker(Process):
    def __init__(self, binary, root, node_id, etcd_connect, overrides):
        super().__init__("broker-%d" % node_id, os.path.join(root, "broker-%d.log" % node_id))
        self.binary = binary
        self.node_id = node_id
        self.port = free_port()
        self.data = os.path.join(root, "broker-%d" % node_id)
        self.etcd_connect = etcd_connect
        self.overrides = dict(overrides or {})

    @property
    def bootstrap(self):
        return "127.0.0.1:%d" % self.port

    def args(self):
        settings = {"log.dirs": self.data, "listeners": "PLAINTEXT://" + self.bootstrap,
                    "node.id": str(self.node_id), "etcd.connect": self.etcd_connect,
                    "etcd.session.timeout.ms": str(SESSION_MS), "strata.shards": "1"}
        settings.update(self.overrides)
        out = [self.binary, "broker"]
        for k, v in settings.items():
            out += ["--override", "%s=%s" % (k, v)]
        return out

    def start(self):
        self.spawn(self.args())
        wait_port(self.port, self, self.name)
        return self

    def run_to_exit(self, timeout=30):
        """Runs the broker expecting it to refuse to start: (exit code, its output)."""
        p = subprocess.run(self.args(), capture_output=True, text=True, timeout=timeout)
        return p.returncode, p.stdout + p.stderr


class Cluster:
    def __init__(self, binary, brokers=3, etcd_members=1, chroot="/strata", overrides=None, per_broker=None):
        """`overrides`: settings of every broker; `per_broker`: {node id: settings} over them."""
        self.root = tempfile.mkdtemp(prefix="strata-cluster-")
        peers = [free_port() for _ in range(etcd_members)]
        self.etcd = [Etcd(self.root, i, peers) for i in range(etcd_members)]
        self.etcd_connect = ",".join(e.endpoint for e in self.etcd) + chroot
        self.brokers = [Broker(binary, self.root, i + 1, self.etcd_connect,
                               dict(overrides or {}, **(per_broker or {}).get(i + 1, {})))
                        for i in range(brokers)]
        self.binary = binary

    @property
    def bootstrap(self):
        return ",".join(b.bootstrap for b in self.brokers)

    def broker(self, node_id):
        return self.brokers[node_id - 1]

    def new_broker(self, node_id, etcd_connect=None, overrides=None):
        b = Broker(self.binary, self.root, node_id, etcd_connect or self.etcd_connect, overrides)
        return b

    def start(self):
        for e in self.etcd:
            e.launch()
        for e in self.etcd:
            wait_port(e.client_port, e, e.name)
        for b in self.brokers:
            b.start()
        return self

    def metadata(self, bootstrap=None, timeout=5):
        """One broker's Metadata v2 answer, by hand on a socket (a client would pick any
        broker it knows): (sorted [(node, host, port, rack)], controller id, cluster id)."""
        host, port = (bootstrap or self.brokers[0].bootstrap).split(":")
        client = b"cluster-test"
        body = struct.pack(">hhih", 3, 2, 1, len(client)) + client + struct.pack(">i", 0)
        with socket.create_connection((host, int(port)), timeout=timeout) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            r = Reader(read_frame(sock))
        r.int32()  # correlation id
        brokers = []
        for _ in range(r.int32()):
            brokers.append((r.int32(), r.string(), r.int32(), r.string()))
        cluster_id = r.string()
        controller = r.int32()
        return sorted(brokers), controller, cluster_id

    def metadata_topic(self, bootstrap, topic):
        """One broker's Metadata v1 leaders of `topic`'s partitions (index order); None if
        the broker does not know the topic."""
        states = self.partition_states(bootstrap, topic)
        return None if states is None else [states[p][0] for p in sorted(states)]

    def partition_states(self, bootstrap, topic):
        """One broker's Metadata v1 for `topic`, asked of that broker alone (a client
        would pick any broker it knows, paused ones included): {partition: (leader,
        sorted replicas, sorted isr)}; None if the broker does not know the topic."""
        host, port = bootstrap.split(":")
        client, name = b"cluster-test", topic.encode()
        body = (struct.pack(">hhih", 3, 1, 3, len(client)) + client + struct.pack(">i", 1)
                + struct.pack(">h", len(name)) + name)
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            r = Reader(read_frame(sock))
        r.int32()  # correlation id
        for _ in range(r.int32()):  # brokers
            r.int32(), r.string(), r.int32(), r.string()
        r.int32()  # controller
        r.int32()  # topics: one
        error = r.take(">h")
        r.string()
        r.take(">b")  # is_internal
        if error != 0:
            return None
        states = {}
        for _ in range(r.int32()):
            r.take(">h")
            p = r.int32()
            leader = r.int32()
            replicas = sorted(r.int32() for _ in range(r.int32()))
            isr = sorted(r.int32() for _ in range(r.int32()))
            states[p] = (leader, replicas, isr)
        return states

    def list_offsets_error(self, bootstrap, topic, partition):
        """The error code one broker answers to ListOffsets v1 (latest) for a partition."""
        host, port = bootstrap.split(":")
        client, name = b"cluster-test", topic.encode()
        body = (struct.pack(">hhih", 2, 1, 7, len(client)) + client + struct.pack(">ii", -1, 1)
                + struct.pack(">h", len(name)) + name + struct.pack(">iiq", 1, partition, -1))
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            r = Reader(read_frame(sock))
        r.int32()  # correlation id
        r.int32()  # topics
        r.string()
        r.int32()  # partitions
        r.int32()  # partition
        return r.take(">h")

    def log_dir_partitions(self, bootstrap):
        """DescribeLogDirs v1 (every topic) on one broker: {topic: sorted partitions}."""
        host, port = bootstrap.split(":")
        client = b"cluster-test"
        body = struct.pack(">hhih", 35, 1, 8, len(client)) + client + struct.pack(">i", -1)
        with socket.create_connection((host, int(port)), timeout=5) as sock:
            sock.sendall(struct.pack(">i", len(body)) + body)
            r = Reader(read_frame(sock))
        r.int32(), r.int32()  # correlation id, throttle
        out = {}
        for _ in range(r.int32()):  # log dirs
            r.take(">h"), r.string()
            for _ in range(r.int32()):
                name = r.string()
                for _ in range(r.int32()):
                    out.setdefault(name, []).append(r.int32())
                    r.take(">q"), r.take(">q"), r.take(">?")
        return {t: sorted(ps) for t, ps in out.items()}

    def wait_for(self, what, pred, bootstrap=None, timeout=20):
        deadline = time.time() + timeout
        last = None
        while time.time() < deadline:
            try:
                last = self.metadata(bootstrap)
                if pred(*last):
                    check(True, what)
                    return last
            except (ConnectionError, OSError) as e:
                last = e
            time.sleep(0.1)
        check(False, "%s (last seen: %s)" % (what, last))

    def logs(self):
        out = []
        for p in self.etcd + self.brokers:
            out.append("---- %s ----\n%s" % (p.name, p.log()))
        return "\n".join(out)

    def __enter__(self):
        try:
            return self.start()
        except BaseException:
            self.__exit__(*sys.exc_info())
            raise

    def __exit__(self, exc_type, exc, tb):
        for p in self.brokers + self.etcd:
            try:
                p.kill()
            except Exception:  # noqa: BLE001 (cleanup goes on)
                pass
        if exc_type is not None:
            sys.stderr.write(self.logs() + "\n")
        if not os.environ.get("STRATA_KEEP_CLUSTER"):
            shutil.rmtree(self.root, ignore_errors=True)
        return False
