"""Hosts on one machine for fault tests (issue 16): each host a network namespace with a
veth on one bridge, addresses in a private /24 that only these namespaces and the bridge
(the root namespace's side, for the test's own clients) use. Made and removed by the test.

    with Net() as net:
        a = net.add("etcd")              # -> "10.213.N.1"
        p = net.spawn("etcd", [...])     # a process inside the namespace
        net.cut("etcd")                  # the host's link down: isolated entirely
        net.heal("etcd")

        net.block("b1", ["b2", "b3"])   # b1 drops b2's and b3's packets (iptables)
        net.heal_rules("b1")

Needs root, iproute2 and iptables. Every name carries this run's tag, so runs side by side (ctest
-j) do not meet; close() kills what runs in the namespaces and removes them.

Traffic stays on the machine: while the Net lives, its /24 also has an `unreachable`
route of low priority in the root namespace, so a client that outlives the bridge gets
an error at once instead of a packet sent to the default gateway. Clients made in the
test must still be closed before close() removes that route (it collects garbage first).
"""
import gc
import os
import socket
import subprocess
import time


def sh(*args, check=True):
    return subprocess.run(list(args), check=check, capture_output=True, text=True, timeout=30)


def claim_subnet():
    """Claims a 10.213.N.0/24 that no interface and no route uses, by adding its low
    priority `unreachable` route: `ip route add` fails if another run (ctest -j) added it
    first, and then the next N is tried, so two runs never share a subnet."""
    used = sh("ip", "-4", "-o", "addr").stdout + sh("ip", "-4", "route").stdout
    start = 1 + os.getpid() % 200
    for n in list(range(start, 255)) + list(range(1, start)):
        if (" 10.213.%d." % n) in used or ("10.213.%d.0/24" % n) in used:
            continue
        if sh("ip", "route", "add", "unreachable", "10.213.%d.0/24" % n, "metric", "4000",
              check=False).returncode == 0:
            return n
    raise RuntimeError("no free 10.213.N.0/24")


class Net:
    def __init__(self):
        self.tag = "%x" % (os.getpid() & 0xFFFF)
        self.subnet = None  # claimed on entry
        self.bridge = "sb%s" % self.tag
        self.hosts = {}  # name -> (namespace, veth on the bridge side, address, veth inside)
        self.procs = []
        self.root_nat = []  # redirect's rules in the root namespace
        self.keep_route = False

    def __enter__(self):
        self.subnet = claim_subnet()
        sh("ip", "link", "add", self.bridge, "type", "bridge")
        sh("ip", "addr", "add", "10.213.%d.254/24" % self.subnet, "dev", self.bridge)
        sh("ip", "link", "set", self.bridge, "up")
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def add(self, name):
        i = len(self.hosts) + 1
        ns = "strata-%s-%s" % (self.tag, name)
        outer, inner = "sv%sh%d" % (self.tag, i), "si%sh%d" % (self.tag, i)
        addr = "10.213.%d.%d" % (self.subnet, i)
        sh("ip", "netns", "add", ns)
        sh("ip", "link", "add", outer, "type", "veth", "peer", "name", inner)
        sh("ip", "link", "set", inner, "netns", ns)
        sh("ip", "link", "set", outer, "master", self.bridge)
        sh("ip", "link", "set", outer, "up")
        sh("ip", "netns", "exec", ns, "ip", "addr", "add", addr + "/24", "dev", inner)
        sh("ip", "netns", "exec", ns, "ip", "link", "set", inner, "up")
        sh("ip", "netns", "exec", ns, "ip", "link", "set", "lo", "up")
        self.hosts[name] = (ns, outer, addr, inner)
        return addr

    def addr(self, name):
        return self.hosts[name][2]

    def spawn(self, name, args, log, env=None):
        """Runs `args` inside host `name` (with environment `env`, else ours), output to
        the file `log`."""
        out = open(log, "ab")
        p = subprocess.Popen(["ip", "netns", "exec", self.hosts[name][0]] + list(args),
                             stdout=out, stderr=subprocess.STDOUT, env=env)
        out.close()
        self.procs.append(p)
        return p

    def run_in(self, name, *args, check=True):
        """Runs a command inside host `name` (iptables, tc) and waits for it."""
        return sh("ip", "netns", "exec", self.hosts[name][0], *args, check=check)

    @property
    def bridge_addr(self):
        """The root namespace's address on the bridge (every host reaches it)."""
        return "10.213.%d.254" % self.subnet

    def redirect(self, dst, port, to, to_port, mark):
        """New connections to DST:PORT, from every other host and from the root namespace
        (but for sockets with mark MARK), go to TO:TO_PORT instead (iptables DNAT), and
        those open now are ended (ss -K) so that they reconnect there. Undone by
        unredirect."""
        rule = ["OUTPUT", "-d", dst, "-p", "tcp", "--dport", str(port), "-j", "DNAT",
                "--to-destination", "%s:%d" % (to, to_port)]
        root_rule = rule[:1] + ["-m", "mark", "!", "--mark", str(mark)] + rule[1:]
        sh("iptables", "-t", "nat", "-I", *root_rule)
        self.root_nat.append(root_rule)
        for name in self.hosts:
            if self.addr(name) != dst:
                self.run_in(name, "iptables", "-t", "nat", "-I", *rule)
        self.end_connections(dst, port)

    def unredirect(self):
        for rule in self.root_nat:
            sh("iptables", "-t", "nat", "-D", *rule, check=False)
        self.root_nat.clear()
        for name in self.hosts:
            self.run_in(name, "iptables", "-t", "nat", "-F", "OUTPUT", check=False)

    def end_connections(self, dst, port):
        """Ends every TCP connection to DST:PORT from the root namespace and the hosts."""
        kill = ["ss", "-K", "dst", dst, "dport", "=", str(port)]
        sh(*kill, check=False)
        for name in self.hosts:
            self.run_in(name, *kill, check=False)

    def block(self, name, peers):
        """Host `name` drops every packet from and to the hosts `peers` (iptables in its
        namespace; other hosts stay reachable). Undone by heal_rules."""
        for peer in peers:
            ip = self.addr(peer)
            self.run_in(name, "iptables", "-I", "INPUT", "-s", ip, "-j", "DROP")
            self.run_in(name, "iptables", "-I", "OUTPUT", "-d", ip, "-j", "DROP")

    def lose(self, name, probability):
        """Host `name` drops each packet it receives or sends with `probability`
        (iptables' statistic match). Undone by heal_rules."""
        for chain in ("INPUT", "OUTPUT"):
            self.run_in(name, "iptables", "-I", chain, "-m", "statistic", "--mode", "random",
                        "--probability", "%.3f" % probability, "-j", "DROP")

    def heal_rules(self, name):
        self.run_in(name, "iptables", "-F", "INPUT")
        self.run_in(name, "iptables", "-F", "OUTPUT")

    def limit(self, name, rate):
        """Host `name`'s link carries at most `rate` (tc's notation, "2mbit") each way: a
        token bucket (tc tbf) on both ends of its veth. Undone by unlimit."""
        _, outer, _, inner = self.hosts[name]
        tbf = ["tbf", "rate", rate, "burst", "32kbit", "latency", "500ms"]
        self.run_in(name, "tc", "qdisc", "add", "dev", inner, "root", *tbf)
        sh("tc", "qdisc", "add", "dev", outer, "root", *tbf)

    def unlimit(self, name):
        _, outer, _, inner = self.hosts[name]
        self.run_in(name, "tc", "qdisc", "del", "dev", inner, "root")
        sh("tc", "qdisc", "del", "dev", outer, "root", check=False)

    def cut(self, name):
        """Host `name` loses its link: no packet in or out, its processes run on."""
        sh("ip", "link", "set", self.hosts[name][1], "down")

    def heal(self, name):
        sh("ip", "link", "set", self.hosts[name][1], "up")

    def close(self):
        self.unredirect()
        for p in self.procs:
            if p.poll() is None:
                p.kill()
        for p in self.procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass
        for ns, outer, _, _ in self.hosts.values():
            pids = sh("ip", "netns", "pids", ns, check=False).stdout.split()
            for pid in pids:
                try:
                    os.kill(int(pid), 9)
                except (ProcessLookupError, ValueError):
                    pass
            sh("ip", "link", "del", outer, check=False)  # its peer goes with it
            sh("ip", "netns", "del", ns, check=False)
        self.hosts.clear()
        sh("ip", "link", "del", self.bridge, check=False)
        gc.collect()  # a client the test dropped but did not destroy goes now, not after the route
        if not self.keep_route:
            self.drop_route()

    def drop_route(self):
        """Removes the run's `unreachable` route (close does, unless keep_route is set: then
        the caller does, last, when none of its clients can send any more)."""
        if self.subnet is None:
            return
        sh("ip", "route", "del", "unreachable", "10.213.%d.0/24" % self.subnet, "metric", "4000", check=False)


def etcd_args(ip, data_dir, name="e0", initial_cluster=None):
    """An etcd member serving clients at IP:2379 (Debian's /usr/bin/etcd); alone, or one of
    `initial_cluster` ("e1=http://IP:2380,...")."""
    return ["/usr/bin/etcd", "--name", name, "--data-dir", data_dir,
            "--listen-client-urls", "http://%s:2379" % ip, "--advertise-client-urls", "http://%s:2379" % ip,
            "--listen-peer-urls", "http://%s:2380" % ip, "--initial-advertise-peer-urls", "http://%s:2380" % ip,
            "--initial-cluster", initial_cluster or "%s=http://%s:2380" % (name, ip),
            "--initial-cluster-state", "new", "--heartbeat-interval", "100", "--election-timeout", "1000"]


def reachable(addr, port, timeout=1.0):
    try:
        with socket.create_connection((addr, port), timeout=timeout):
            return True
    except OSError:
        return False


def wait_port(addr, port, want=True, timeout=30):
    """Whether ADDR:PORT became reachable (with `want` False: unreachable) within `timeout` s."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if reachable(addr, port) == want:
            return True
        time.sleep(0.2)
    return False


def leftovers(tag, tag_subnet=None, route=True):
    """Namespaces, links, root-namespace NAT rules and (with `route`) the route of run
    `tag` (subnet `tag_subnet`) still present (a test checks none are)."""
    left = [n for n in sh("ip", "netns", "list").stdout.split() if n.startswith("strata-%s-" % tag)]
    if tag_subnet is not None:
        left += ["nat rule: " + r for r in sh("iptables", "-t", "nat", "-S").stdout.splitlines()
                 if "10.213.%d." % tag_subnet in r]
    if route and tag_subnet is not None and ("10.213.%d.0/24" % tag_subnet) in sh("ip", "route").stdout:
        left.append("route 10.213.%d.0/24" % tag_subnet)
    for line in sh("ip", "-o", "link").stdout.splitlines():
        name = line.split(":")[1].strip().split("@")[0]
        if name in ("sb" + tag,) or name.startswith("sv%sh" % tag):
            left.append(name)
    return left
