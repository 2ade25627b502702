"""The cluster under test for the fault runs (issue 16): etcd members and brokers, each in
its own network namespace (netns.Net), each broker's log dir an ext4 file system of its
own on a loop device, so that a disk can fill up or turn read-only under one broker.

    with Net() as net:
        c = FaultCluster(net, binary, root)
        c.start()                     # 3 etcd members, 3 brokers
        c.kill_broker(2); c.start_broker(2)
        c.start_broker(3, skew="+1h") # its wall clock an hour ahead (faketime)
        c.close()                     # before the Net closes: unmounts the disks

Every broker is started with the same settings (SESSION_MS etcd sessions, one shard);
what each process printed is in ROOT/NAME.log.
"""
import os
import signal
import subprocess
import time

from netns import etcd_args, sh, wait_port

SESSION_MS = 3000
LIBFAKETIME = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1"  # Debian's libfaketime
DISK_MB = 512


class Disk:
    """An ext4 file system in a sparse file, loop-mounted at `path`."""

    def __init__(self, image, path, mb=DISK_MB):
        self.image, self.path, self.mb = image, path, mb

    def make(self):
        with open(self.image, "wb") as f:
            f.truncate(self.mb << 20)
        sh("mkfs.ext4", "-q", "-F", "-m", "0", self.image)  # no blocks kept for root: the broker is root
        self.mount()

    def mount(self):
        os.makedirs(self.path, exist_ok=True)
        sh("mount", "-o", "loop,errors=remount-ro", self.image, self.path)

    def device(self):
        return sh("findmnt", "-n", "-o", "SOURCE", self.path).stdout.strip()

    def mounted(self):
        return sh("findmnt", "-n", self.path, check=False).returncode == 0

    def fill(self):
        """Leaves the file system (almost) no free block: ballast files, one more while the
        broker's own writes race the last one."""
        for i in range(100):
            st = os.statvfs(self.path)
            free = st.f_bavail * st.f_frsize
            if free < (64 << 10):
                return
            sh("fallocate", "-l", str(free - (16 << 10)), os.path.join(self.path, "ballast%d" % i), check=False)
        raise RuntimeError("could not fill %s" % self.path)

    def drain(self):
        for name in os.listdir(self.path):
            if name.startswith("ballast"):
                os.unlink(os.path.join(self.path, name))

    def fail(self):
        """The file system turns read-only at once, as ext4 does on an error with
        errors=remount-ro (its sysfs trigger_fs_error): every later write fails with EROFS."""
        dev = os.path.basename(self.device())
        with open("/sys/fs/ext4/%s/trigger_fs_error" % dev, "w") as f:
            f.write("strata fault test: log dir made read-only\n")

    def repair(self):
        """After fail(), with no process holding a file on it: unmount, fsck, mount again."""
        if not self.unmount():
            raise RuntimeError("%s is still busy: cannot repair it" % self.path)
        fsck = sh("e2fsck", "-fy", self.image, check=False)
        if fsck.returncode >= 4:  # 1 and 2: errors corrected
            raise RuntimeError("e2fsck could not repair %s: %s" % (self.image, fsck.stdout[-500:]))
        self.mount()

    def unmount(self, lazy=False):
        """Whether the file system is unmounted (within 5 s); with `lazy`, detached at
        the end anyway (the run's cleanup)."""
        for _ in range(50):
            if not self.mounted() or sh("umount", self.path, check=False).returncode == 0:
                return True
            time.sleep(0.1)
        if lazy:
            sh("umount", "-l", self.path, check=False)
        return False


class FaultCluster:
    def __init__(self, net, binary, root, brokers=3, etcds=3, overrides=None):
        self.net, self.binary, self.root = net, binary, root
        self.broker_ids = list(range(1, brokers + 1))
        self.etcd_names = ["e%d" % i for i in range(1, etcds + 1)]
        self.overrides = dict(overrides or {})
        self.procs = {}  # host name -> Popen
        self.disks = {}
        self.ips = {}

    # -- start-up

    def start(self):
        for name in self.etcd_names + ["b%d" % n for n in self.broker_ids]:
            self.ips[name] = self.net.add(name)
        for name in self.etcd_names:
            self.start_etcd(name)
        for name in self.etcd_names:
            if not wait_port(self.ips[name], 2379):
                raise RuntimeError("etcd member %s did not start" % name)
        # The disks' parent is a shared mount, so that unmounting a disk here reaches the
        # copies of it in the brokers' mount namespaces (`ip netns exec` makes each process
        # one, a slave of ours); else the file system outlives its unmount and comes back in
        # its failed state when mounted again.
        self.disk_root = os.path.join(self.root, "disks")
        os.makedirs(self.disk_root)
        sh("mount", "--bind", self.disk_root, self.disk_root)
        sh("mount", "--make-shared", self.disk_root)
        for n in self.broker_ids:
            disk = Disk(os.path.join(self.root, "b%d.img" % n), os.path.join(self.disk_root, "b%d" % n))
            disk.make()
            self.disks[n] = disk
            self.start_broker(n, wait=False)
        for n in self.broker_ids:
            self.wait_broker(n)

    @property
    def etcd_connect(self):
        return ",".join("%s:2379" % self.ips[e] for e in self.etcd_names) + "/strata"

    @property
    def bootstrap(self):
        return ",".join("%s:9092" % self.ips["b%d" % n] for n in self.broker_ids)

    def start_etcd(self, name):
        initial = ",".join("%s=http://%s:2380" % (e, self.ips[e]) for e in self.etcd_names)
        args = etcd_args(self.ips[name], os.path.join(self.root, name), name, initial)
        self.procs[name] = self.net.spawn(name, args, os.path.join(self.root, name + ".log"))

    def broker_args(self, n):
        settings = {"log.dirs": os.path.join(self.disks[n].path, "data"),
                    "listeners": "PLAINTEXT://%s:9092" % self.ips["b%d" % n],
                    "node.id": str(n), "etcd.connect": self.etcd_connect,
                    "etcd.session.timeout.ms": str(SESSION_MS), "replica.lag.time.max.ms": "3000",
                    "strata.shards": "1"}
        settings.update(self.overrides)
        args = [self.binary, "broker"]
        for k, v in settings.items():
            args += ["--override", "%s=%s" % (k, v)]
        return args

    def start_broker(self, n, skew=None, wait=True):
        """Starts broker `n` once no earlier process holds its port; with `skew` (libfaketime's
        "+1h", "-30m") its wall clock is off by that much (its monotonic clock is not)."""
        name = "b%d" % n
        if not wait_port(self.ips[name], 9092, want=False, timeout=30):
            raise RuntimeError("broker %d's port is still taken by an earlier process" % n)
        env = None
        if skew:
            # libfaketime preloaded into the broker itself (the faketime command would run it
            # as a child, and a signal to the command would leave the broker running), ahead
            # of a sanitizer build's runtime, which then wants verify_asan_link_order=0.
            asan = os.environ.get("ASAN_OPTIONS", "")
            env = dict(os.environ, LD_PRELOAD=LIBFAKETIME, FAKETIME=skew, FAKETIME_DONT_FAKE_MONOTONIC="1",
                       ASAN_OPTIONS=(asan + ":" if asan else "") + "verify_asan_link_order=0")
        self.procs[name] = self.net.spawn(name, self.broker_args(n), os.path.join(self.root, name + ".log"), env=env)
        if wait:
            self.wait_broker(n)

    def wait_broker(self, n, timeout=60):
        p = self.procs["b%d" % n]
        deadline = time.time() + timeout
        while time.time() < deadline:
            if p.poll() is not None:
                raise RuntimeError("broker %d exited (%s): %s" % (n, p.returncode, self.tail("b%d" % n)))
            if wait_port(self.ips["b%d" % n], 9092, timeout=0.5):
                return
        raise RuntimeError("broker %d did not listen within %d s" % (n, timeout))

    # -- processes

    def alive(self, name):
        p = self.procs.get(name)
        return p is not None and p.poll() is None

    def signal(self, name, sig):
        if self.alive(name):
            self.procs[name].send_signal(sig)

    def kill(self, name):
        p = self.procs.get(name)
        if p is not None and p.poll() is None:
            p.send_signal(signal.SIGCONT)
            p.kill()
            p.wait(timeout=30)

    def stop(self, name, timeout=30):
        """SIGTERM (a broker's controlled shutdown), then SIGKILL after `timeout` s."""
        p = self.procs.get(name)
        if p is None or p.poll() is not None:
            return
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(timeout=30)

    def kill_broker(self, n):
        self.kill("b%d" % n)

    def tail(self, name, chars=3000):
        try:
            with open(os.path.join(self.root, name + ".log"), errors="replace") as f:
                return f.read()[-chars:]
        except OSError:
            return ""

    def logs(self):
        return "".join("---- %s ----\n%s\n" % (name, self.tail(name)) for name in sorted(self.procs))

    def close(self):
        """Kills every process and unmounts the disks (the Net removes the namespaces);
        each step whatever the others did."""
        for name in list(self.procs):
            try:
                self.kill(name)
            except Exception:  # noqa: BLE001 (stuck: the Net kills what is in its namespaces)
                pass
        for disk in self.disks.values():
            disk.unmount(lazy=True)
        if getattr(self, "disk_root", None):
            sh("umount", "-l", self.disk_root, check=False)
