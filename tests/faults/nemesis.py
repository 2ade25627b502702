"""The fault families of the fault runs (issue 16). Each is a function
`family(cluster, rng, target) -> (label, heal)`: it puts the fault in force on the
FaultCluster and returns a label for the history and a function that heals it. `target`
is the broker the run aims at (the leader of a partition of the workload's topic).

Where a fault leaves a broker dead (killed, or shut down by its own disk failure), the heal
starts it again, as an operator would.
"""
import os
import signal
import subprocess
import sys

PROXY_MARK = 0x5EE  # the delay proxy's own connections (not redirected to itself)


def others(cluster, n):
    return ["b%d" % m for m in cluster.broker_ids if m != n]


def restart_if_dead(cluster, n):
    if not cluster.alive("b%d" % n):
        cluster.start_broker(n)


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
    reconnect through it. At the heal the rules go and the proxy stops (its connections
    end and reconnect directly)."""
    ms = rng.randint(100, 300)
    victim = c.ips["b%d" % n]
    port = 19090 + n
    proxy = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "delay_proxy.py"),
                              c.net.bridge_addr, str(port), victim, "9092", str(ms), str(PROXY_MARK)],
                             stdout=subprocess.PIPE, text=True)
    if proxy.stdout.readline().strip() != "ready":
        raise RuntimeError("the delay proxy did not start")
    c.net.redirect(victim, 9092, c.net.bridge_addr, port, PROXY_MARK)

    def heal():
        c.net.unredirect()
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


def disk_full(c, rng, n):
    """A broker's log dir file system filled to its last block; emptied at the heal."""
    c.disks[n].fill()

    def heal():
        c.disks[n].drain()
        restart_if_dead(c, n)
    return "disk-full-b%d" % n, heal


def disk_read_only(c, rng, n):
    """A broker's log dir file system turned read-only under it (ext4's emergency
    read-only); at the heal the broker is stopped if it still runs, the file system
    checked and mounted again, and the broker started."""
    c.disks[n].fail()

    def heal():
        c.kill_broker(n)
        c.disks[n].repair()
        c.start_broker(n)
    return "disk-read-only-b%d" % n, heal


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
