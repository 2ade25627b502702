#!/usr/bin/python3
"""How long a consumer group takes to settle after a member joins or dies, and what it
consumes meanwhile: the classic protocol (eager range, and cooperative-sticky) beside
KIP-848's consumer protocol, with one client library for all three (node-rdkafka, its
bundled librdkafka 2.12; tests/compat/js/kip848_worker_rdkafka.js) against one Strata
broker, N members on a 2N-partition topic fed at a steady rate.

  join:  a member starts -> every partition held by exactly one member and the newcomer
         holding its share (the time includes the newcomer's own start-up, the same for
         every protocol);
  death: a member is killed (SIGKILL) -> its partitions held by the others again (the
         6 s session timeout dominates, the same for every protocol: the difference is
         what the other members do meanwhile).
For each it prints the settle time, the records consumed per second while it settled
and in the second before, and how many partitions the members that stayed gave up
(eager: all of theirs; cooperative and consumer: only those that move).

Usage: kip848_rebalance.py build/release/src/tools/strata [--members 3,30] [--rate 3000]
       [--protocols classic-eager,classic-cooperative,consumer] [--quick]
--quick (the ctest smoke run): 3 members, the join only, classic-eager and consumer."""
import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
TESTS = os.path.join(HERE, "..", "tests", "compat")
sys.path.insert(0, TESTS)

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402
from strata_broker import StrataBroker  # noqa: E402

JS = os.path.join(TESTS, "js")
SETTINGS = {
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.initial.rebalance.delay.ms": "0",
}


class Member:
    def __init__(self, bootstrap, group, topic, path, protocol):
        env = dict(os.environ, STRATA_GROUP_PROTOCOL=protocol, STRATA_AUTO_COMMIT="1")
        self.path = path
        self.proc = subprocess.Popen(["node", os.path.join(JS, "kip848_worker_rdkafka.js"), bootstrap, group, topic,
                                      path], cwd=JS, env=env, stdout=subprocess.DEVNULL,
                                     stderr=open(path + ".err", "w"))
        self.at = 0
        self.held = set()
        self.gave_up = []  # (time, partitions revoked)
        self.records = []  # times of consumed records

    def read(self):
        """Takes the events written since the last read."""
        try:
            with open(self.path) as f:
                f.seek(self.at)
                data = f.read()
        except FileNotFoundError:
            return
        end = data.rfind("\n") + 1
        self.at += len(data[:end].encode())
        for line in data[:end].splitlines():
            e = json.loads(line)
            if e["ev"] == "assign":
                self.held |= set(e["parts"])
            elif e["ev"] == "revoke":
                self.held -= set(e["parts"])
                self.gave_up.append((e["t"], len(e["parts"])))
            elif e["ev"] == "rec":
                self.records.append(e["t"])


def settled(members, partitions, newcomer=None):
    for m in members:
        m.read()
    held = [p for m in members for p in m.held]
    if sorted(held) != list(range(partitions)):
        return False
    return newcomer is None or len(newcomer.held) >= partitions // (len(members))


def wait(cond, limit):
    deadline = time.time() + limit
    while time.time() < deadline:
        if cond():
            return time.time()
        time.sleep(0.02)
    return None


def feed(bootstrap, topic, partitions, rate, stop):
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5})
    i = 0
    start = time.time()
    while not stop.is_set():
        due = int((time.time() - start) * rate)
        while i < due:
            p.produce(topic, value=b"x%d" % i, partition=i % partitions)
            i += 1
        p.poll(0)
        time.sleep(0.005)
    p.flush(10)


def rate_between(members, t0, t1):
    n = sum(1 for m in members for t in m.records if t0 <= t < t1)
    return n / max(t1 - t0, 1e-3)


def run(bootstrap, protocol, n, rate, quick):
    topic, group = "bench-%s-%d" % (protocol, n), "bench-%s-%d" % (protocol, n)
    partitions = 2 * n
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, partitions, 1)])[topic].result(30)
    tmp = tempfile.mkdtemp(prefix="strata-kip848-bench-")
    stop = threading.Event()
    feeder = threading.Thread(target=feed, args=(bootstrap, topic, partitions, rate, stop), daemon=True)
    feeder.start()
    members = [Member(bootstrap, group, topic, os.path.join(tmp, "m%d" % i), protocol) for i in range(n)]
    spawned = list(members)
    results = {}
    try:
        if wait(lambda: settled(members, partitions), 120) is None:
            raise RuntimeError("%s, %d members: the group never settled" % (protocol, n))
        time.sleep(2)
        settled(members, partitions)
        # Join.
        t0 = time.time()
        newcomer = Member(bootstrap, group, topic, os.path.join(tmp, "new"), protocol)
        spawned.append(newcomer)
        everyone = members + [newcomer]
        t1 = wait(lambda: settled(everyone, partitions, newcomer), 120)
        if t1 is None:
            raise RuntimeError("%s, %d members: the join never settled" % (protocol, n))
        time.sleep(1)
        settled(everyone, partitions)
        moved = sum(sum(k for t, k in m.gave_up if t >= t0) for m in members)
        results["join"] = (t1 - t0, rate_between(everyone, t0, t1), rate_between(everyone, t0 - 1, t0), moved)
        if not quick:
            victim = members[0]
            t0 = time.time()
            victim.proc.send_signal(signal.SIGKILL)
            victim.proc.wait()
            rest = [m for m in everyone if m is not victim]
            t1 = wait(lambda: settled(rest, partitions), 60)
            if t1 is None:
                raise RuntimeError("%s, %d members: the death never settled" % (protocol, n))
            moved = sum(sum(k for t, k in m.gave_up if t >= t0) for m in rest)
            results["death"] = (t1 - t0, rate_between(rest, t0, t1), rate_between(everyone, t0 - 1, t0), moved)
    finally:
        stop.set()
        for m in spawned:
            if m.proc.poll() is None:
                m.proc.kill()
                m.proc.wait()
    return results


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("strata")
    ap.add_argument("--members", default="3,30")
    ap.add_argument("--rate", type=int, default=3000)
    ap.add_argument("--protocols", default="classic-eager,classic-cooperative,consumer")
    ap.add_argument("--quick", action="store_true")
    a = ap.parse_args()
    sizes = [3] if a.quick else [int(x) for x in a.members.split(",")]
    protocols = ["classic-eager", "consumer"] if a.quick else a.protocols.split(",")
    rows = []
    with StrataBroker(a.strata, SETTINGS) as broker:
        for n in sizes:
            for protocol in protocols:
                r = run(broker.bootstrap, protocol, n, a.rate, a.quick)
                for event, (secs, during, before, moved) in r.items():
                    rows.append((protocol, n, event, secs, during, before, moved))
                    print("%-20s %3d members  %-5s settled in %6.2f s  consumed %7.0f rec/s meanwhile "
                          "(%7.0f rec/s the second before)  partitions given up by members that stayed: %d"
                          % (protocol, n, event, secs, during, before, moved), flush=True)
    print("\n| protocol | members | event | settled in (s) | rec/s meanwhile | rec/s before | partitions given up by those that stayed |")
    print("|---|---|---|---|---|---|---|")
    for protocol, n, event, secs, during, before, moved in rows:
        print("| %s | %d | %s | %.2f | %.0f | %.0f | %d |" % (protocol, n, event, secs, during, before, moved))


if __name__ == "__main__":
    main()
