"""The fault families of the fault runs (issue 16). Each is a function
`family(cluster, rng, target) -> (label, heal)`: it puts the fault in force on the
FaultCluster and returns a label for the history and a function that heals it. `target`
is the broker the run aims at (the leader of a partition of the workload's topic).

Where a fault leaves a broker dead (killed, or halted by its own disk failure), the heal
starts it again, as an operator would.
"""
import os
import signal
import subprocess
import sys
import time

PROXY_MARK = 0x5EE  # the delay proxy's own connections (not redirected to itself)


def others(cluster, n):
    return ["b%d" % m for m in cluster.broker_ids if m != n]


def halted(cluster, n):
    """disk_failure_halts_the_broker (found by these runs: a broker whose disk failed
    kept its leaderships and refused every write until restarted): as a replica of every
    partition it meets the failure on its next write, and halts as Kafka does."""
    # A broker with nothing to write in the window (its partitions stalled by another
    # fault, healed first) meets the failure once writes resume: up to 20 s more.
    deadline = time.time() + 20
    while cluster.alive("b%d" % n) and time.time() < deadline:
        time.sleep(0.2)
    if cluster.alive("b%d" % n):
        raise RuntimeError("broker %d still runs on a failed disk (it must halt, as Kafka does)" % n)
    if "the log dir's disk failed" not in cluster.tail("b%d" % n):
        raise RuntimeError("broker %d died without its disk failure's halt: %s" % (n, cluster.tail("b%d" % n, 1500)))


def kill(c, rng, n):
    """SIGKILL of a broker; started again at the heal."""
    c.kill_broker(n)
    return "kill-b%d" % n, lambda: c.start_broker(n)


def pause(c, rng, n):
    """SIGSTOP of a broker for longer than its etcd session: it loses its registration and
    leaderships while it still holds connections; SIGCONT at the heal."""
    c.signal("b%d" % n, signal.SIGSTOP)
    return "pause-b%d" % n, lambda: c.signal("b%d" % n, signal.SIGCONT)


def isolate(c, rng, n):
    """A broker's link down: it reaches nothing and nothing reaches it."""
    c.net.cut("b%d" % n)
    return "isolate-b%d" % n, lambda: c.net.heal("b%d" % n)


def leader_from_followers(c, rng, n):
    """A broker cut from the other brokers but not from etcd (iptables): it keeps its
    registration, its followers stop fetching from it."""
    c.net.block("b%d" % n, others(c, n))
    return "cut-b%d-from-brokers" % n, lambda: c.net.heal_rules("b%d" % n)


def leader_from_etcd(c, rng, n):
    """A broker cut from every etcd member but not from the other brokers: its session
    expires while its followers and clients still reach it."""
    c.net.block("b%d" % n, c.etcd_names)
    return "cut-b%d-from-etcd" % n, lambda: c.net.heal_rules("b%d" % n)


def etcd_kill(c, rng, n):
    """SIGKILL of one etcd member (of three); started again at the heal."""
    name = rng.choice(c.etcd_names)
    c.kill(name)
    return "kill-%s" % name, lambda: c.start_etcd(name)


def etcd_minority(c, rng, n):
    """One etcd member cut from the other two (a minority without a leader), still reached
    by the brokers."""
    name = rng.choice(c.etcd_names)
    c.net.block(name, [e for e in c.etcd_names if e != name])
    return "cut-%s-from-etcd" % name, lambda: c.net.heal_rules(name)


def loss(c, rng, n):
    """Every broker drops 10-25% of the packets it receives and sends (iptables statistic)."""
    p = 0.10 + rng.random() * 0.15
    for m in c.broker_ids:
        c.net.lose("b%d" % m, p)

    def heal():
        for m in c.broker_ids:
            c.net.heal_rules("b%d" % m)
    return "loss-%d%%" % round(p * 100), heal


def bandwidth(c, rng, n):
    """A broker's link limited to 1 Mbit/s each way (tc tbf)."""
    c.net.limit("b%d" % n, "1mbit")
    return "bandwidth-b%d-1mbit" % n, lambda: c.net.unlimit("b%d" % n)


def delay(c, rng, n):
    """Every connection to a broker's Kafka port (clients', and the other brokers'
    fetches) delayed 100-300 ms each way: a user-space proxy (delay_proxy.py) in the root
    namespace, the connections sent to it by DNAT; open ones are ended so that they
    reconnect through it. At the heal the rules go, the proxied connections are ended
    and the proxy stops: its clients reconnect directly."""
    ms = rng.randint(100, 300)
    victim = c.ips["b%d" % n]
    port = 19090 + n
    proxy = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "delay_proxy.py"),
                              c.net.bridge_addr, str(port), victim, "9092", str(ms), str(PROXY_MARK)],
                             stdout=subprocess.PIPE, text=True)
    c.net.procs.append(proxy)  # killed with the Net whatever happens
    if proxy.stdout.readline().strip() != "ready":
        raise RuntimeError("the delay proxy did not start")
    c.net.redirect(victim, 9092, c.net.bridge_addr, port, PROXY_MARK)

    def heal():
        # The proxied connections are ended on both ends here (ss -K), not by the proxy's
        # death: its closing packets would meet connection tracking with the DNAT rules
        # gone, and the peers would wait out their socket timeouts on dead connections.
        c.net.unredirect()
        c.net.end_connections(victim, 9092)  # the clients' ends and the proxy's upstream ones
        proxy.kill()
        proxy.wait(timeout=10)
    return "delay-b%d-%dms" % (n, ms), heal


def clock_skew(c, rng, n):
    """A broker restarted with its wall clock hours ahead or behind (faketime); restarted
    with the right clock at the heal."""
    skew = "%s%dh" % (rng.choice("+-"), rng.randint(1, 48))
    c.stop("b%d" % n)
    c.start_broker(n, skew=skew)

    def heal():
        c.stop("b%d" % n)
        c.start_broker(n)
    return "clock-skew-b%d-%s" % (n, skew), heal


def spoil_disk(c, n, name, spoil, mend):
    """Broker n's disk spoiled by `spoil`: the broker halts. At the heal, checked to have
    halted; the disk mended by `mend` and the broker started."""
    spoil()

    def heal():
        halted(c, n)
        mend()
        c.start_broker(n)
    return "%s-b%d" % (name, n), heal


def disk_full(c, rng, n):
    """A broker's log dir file system filled to its last block; emptied at the heal."""
    return spoil_disk(c, n, "disk-full", c.disks[n].fill, c.disks[n].drain)


def disk_read_only(c, rng, n):
    """A broker's log dir file system turned read-only under it (ext4's emergency
    read-only); checked and mounted again at the heal."""
    return spoil_disk(c, n, "disk-read-only", c.disks[n].fail, c.disks[n].repair)


FAMILIES = {
    "kill": kill, "pause": pause, "isolate": isolate,
    "leader-from-followers": leader_from_followers, "leader-from-etcd": leader_from_etcd,
    "etcd-kill": etcd_kill, "etcd-minority": etcd_minority,
    "loss": loss, "bandwidth": bandwidth, "delay": delay, "clock-skew": clock_skew,
    "disk-full": disk_full, "disk-read-only": disk_read_only,
}

# Faults on one broker that combine with a fault elsewhere (network-wide or etcd).
PROCESS = ("kill", "pause", "isolate", "leader-from-followers", "leader-from-etcd", "disk-full")
AMBIENT = ("loss", "etcd-kill", "etcd-minority")


def combined(c, rng, n):
    """One broker fault and one ambient fault at once."""
    a, b = rng.choice(PROCESS), rng.choice(AMBIENT)
    label_a, heal_a = FAMILIES[a](c, rng, n)
    label_b, heal_b = FAMILIES[b](c, rng, n)

    def heal():
        heal_b()
        heal_a()
    return "%s+%s" % (label_a, label_b), heal


FAMILIES["combined"] = combined
