"""The consumer-group scenario every client runs against a real Strata broker, through
worker processes (group_worker_*.py / js/group_worker.js) that log what they consume.

  three members share a 6-partition topic -> one is killed (SIGKILL): its partitions
  move to the others within the session timeout -> one leaves in order (SIGTERM) ->
  every record produced was consumed; duplicates only from the killed member's last
  uncommitted records; none across the orderly rebalance.
"""
import json
import os
import signal
import subprocess
import tempfile
import time

from confluent_kafka import Producer
from confluent_kafka.admin import AdminClient, NewTopic

from strata_broker import check

PARTITIONS = 6


class Worker:
    def __init__(self, argv, events_path, cwd=None, env=None):
        self.events_path = events_path
        self.proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL,
                                     stderr=open(events_path + ".err", "w"))

    def events(self):
        try:
            with open(self.events_path) as f:
                return [json.loads(line) for line in f if line.endswith("\n")]
        except FileNotFoundError:
            return []

    def records(self):
        return [(e["p"], e["o"], e["v"]) for e in self.events() if e["ev"] == "rec"]

    def assignment(self):
        """The partitions the member holds now: assigns add, revokes remove (eager
        rebalances revoke everything first; cooperative ones move only some)."""
        parts = set()
        for e in self.events():
            if e["ev"] == "assign":
                parts |= set(e["parts"])
            elif e["ev"] == "revoke":
                parts -= set(e["parts"])
        return sorted(parts)

    def stderr(self):
        try:
            return open(self.events_path + ".err").read()[-3000:]
        except OSError:
            return ""


def create_topic(bootstrap, topic):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    admin.create_topics([NewTopic(topic, PARTITIONS, 1)])[topic].result(20)


def produce(bootstrap, topic, start, count):
    p = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    values = []
    for i in range(start, start + count):
        v = "r%d" % i
        p.produce(topic, value=v.encode(), partition=i % PARTITIONS)
        values.append(v)
    check(p.flush(30) == 0, "produced records %d..%d" % (start, start + count - 1))
    return values


def wait_for(what, cond, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    check(False, what)


def consumed(workers):
    return {v for w in workers for (_, _, v) in w.records()}


def readers(workers):
    """(partition, offset) -> the workers that consumed it (one entry per reading)."""
    seen = {}
    for w in workers:
        for (p, o, _) in w.records():
            seen.setdefault((p, o), []).append(w)
    return seen


def refused_commits(workers):
    """(partition, offset) of each record whose commit the broker refused."""
    return {(e["p"], e["o"]) for w in workers for e in w.events() if e["ev"] == "commit_failed"}


def show(workers, name="worker"):
    """After a failed check: each worker's stderr and its events but the records."""
    for i, w in enumerate(workers):
        print("---- %s %d stderr ----\n%s" % (name, i, w.stderr()))
        print("---- %s %d events (no records) ----\n%s" % (name, i, [e for e in w.events() if e["ev"] != "rec"]))


def run(bootstrap, spawn, label):
    """`spawn(group, topic, events_path)` starts one member and returns its Worker."""
    topic, group = "orders-" + label, "group-" + label
    create_topic(bootstrap, topic)
    tmp = tempfile.mkdtemp(prefix="strata-group-")
    workers = [spawn(group, topic, os.path.join(tmp, "w%d" % i)) for i in range(3)]
    try:
        sent = set(produce(bootstrap, topic, 0, 300))
        wait_for("%s: three members consume every record" % label,
                 lambda: sent <= consumed(workers))
        wait_for("%s: the 6 partitions are split 2/2/2" % label,
                 lambda: sorted(len(w.assignment()) for w in workers) == [2, 2, 2]
                 and sorted(p for w in workers for p in w.assignment()) == list(range(6)))
        check(True, "%s: three members share the partitions: %s" %
              (label, [w.assignment() for w in workers]))

        killed = workers[2]
        killed_parts = killed.assignment()
        killed.proc.send_signal(signal.SIGKILL)
        killed.proc.wait()
        dead_at = time.time()
        survivors = workers[:2]
        sent |= set(produce(bootstrap, topic, 300, 300))
        wait_for("%s: the killed member's partitions move to the others" % label,
                 lambda: sorted(p for w in survivors for p in w.assignment()) == list(range(6)))
        moved_after = time.time() - dead_at
        check(moved_after < 6 + 10, "%s: partitions %s moved %.1f s after the kill (session 6 s)" %
              (label, killed_parts, moved_after))
        wait_for("%s: every record consumed after the kill" % label,
                 lambda: sent <= consumed(workers))

        leaving = workers[1]
        leaving.proc.send_signal(signal.SIGTERM)
        leaving.proc.wait(30)
        check(any(e["ev"] == "closed" for e in leaving.events()),
              "%s: a member left in order" % label)
        stayed = workers[0]
        sent |= set(produce(bootstrap, topic, 600, 300))
        wait_for("%s: the last member takes every partition" % label,
                 lambda: stayed.assignment() == list(range(6)))
        wait_for("%s: every record consumed after the orderly leave" % label,
                 lambda: sent <= consumed(workers))

        stayed.proc.send_signal(signal.SIGTERM)
        stayed.proc.wait(30)
        dups = {k: ws for k, ws in readers(workers).items() if len(ws) > 1}
        check(consumed(workers) == sent, "%s: all %d records consumed, none skipped" % (label, len(sent)))
        # A record may come twice only if its first reader never committed it: the killed
        # member's last one per partition, or one whose commit the broker refused because
        # it raced a rebalance (which Kafka refuses too).
        refused = refused_commits(workers)
        bad = [k for k, ws in dups.items() if killed not in ws and k not in refused]
        check(not bad, "%s: no record consumed twice except uncommitted ones (%d redelivered: "
                       "%d refused commits, the rest the killed member's; unexplained: %s)"
              % (label, len(dups), len(refused), bad))
        killed_dups = [k for k, ws in dups.items() if killed in ws and k not in refused]
        check(len(killed_dups) <= len(killed_parts),
              "%s: at most one redelivery per partition of the killed member" % label)
    except Exception:
        show(workers)
        raise
    finally:
        for w in workers:
            if w.proc.poll() is None:
                w.proc.kill()
