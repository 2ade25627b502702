#!/usr/bin/python3
"""The consumer group protocol of KIP-848 with the real clients that speak it, against a
real Strata broker: node-rdkafka (its bundled librdkafka 2.12, group.protocol=consumer)
and @platformatic/kafka (groupProtocol 'consumer'), each member a node process logging
what it is given and consumes (js/kip848_worker_*.js).

Per client, on a fresh 6-partition topic:
  three members share it 2/2/2 -> one leaves in order (SIGTERM) -> one is killed (SIGKILL;
  its partitions move once the broker's session timeout ends it) -> a new one joins.
Checked: every record consumed, none skipped; a record consumed twice only if its first
reader was the killed member and never committed it (the @platformatic/kafka worker skips
what its client reads again below a committed offset: see its `floor`); members that stay are never asked
to give up a partition when others leave or die, and when a member joins they give up
exactly the partitions it receives (no partition moves that need not); the group ends
Stable with every member at the group's assignment epoch (ConsumerGroupDescribe).
Usage: kip848_clients.py PATH/TO/strata [rdkafka|platformatic ...]"""
import os
import signal
import sys
import tempfile
import time

import group_scenario
from group_scenario import Worker, consumed, create_topic, produce, readers, refused_commits, show, wait_for
from kip848_wire import describe_group
from strata_broker import StrataBroker, check

HERE = os.path.dirname(os.path.abspath(__file__))
JS = os.path.join(HERE, "js")
SESSION_MS = 6000

BROKER_SETTINGS = {
    "group.consumer.session.timeout.ms": str(SESSION_MS),
    "group.consumer.min.session.timeout.ms": str(SESSION_MS),
    "group.consumer.heartbeat.interval.ms": "500",
    "group.consumer.min.heartbeat.interval.ms": "500",
}


def revokes(worker, since):
    return [p for e in worker.events() if e["ev"] == "revoke" and e["t"] >= since for p in e["parts"]]


def run(bootstrap, client):
    topic, group = "kip848-" + client, "kip848-group-" + client
    create_topic(bootstrap, topic)
    tmp = tempfile.mkdtemp(prefix="strata-kip848-")

    def spawn(i):
        argv = ["node", os.path.join(JS, "kip848_worker_%s.js" % client), bootstrap, group, topic,
                os.path.join(tmp, "w%d" % i)]
        return Worker(argv, argv[-1], cwd=JS)

    workers = [spawn(i) for i in range(3)]
    try:
        sent = set(produce(bootstrap, topic, 0, 300))
        wait_for("%s: three members consume every record" % client, lambda: sent <= consumed(workers))
        wait_for("%s: the 6 partitions are split 2/2/2" % client,
                 lambda: sorted(len(w.assignment()) for w in workers) == [2, 2, 2]
                 and sorted(p for w in workers for p in w.assignment()) == list(range(6)))
        check(True, "%s: three members share the partitions: %s" % (client, [w.assignment() for w in workers]))

        # One leaves in order: the others only gain.
        leaving, stay = workers[1], [workers[0], workers[2]]
        left_at = time.time()
        leaving.proc.send_signal(signal.SIGTERM)
        leaving.proc.wait(30)
        check(any(e["ev"] == "closed" for e in leaving.events()), "%s: a member left in order" % client)
        sent |= set(produce(bootstrap, topic, 300, 300))
        wait_for("%s: the leaver's partitions move to the two others" % client,
                 lambda: sorted(p for w in stay for p in w.assignment()) == list(range(6)))
        check(True, "%s: partitions moved %.1f s after the leave" % (client, time.time() - left_at))
        wait_for("%s: every record consumed after the leave" % client, lambda: sent <= consumed(workers))

        # One is killed: the last one takes its partitions when its session ends.
        killed, last = workers[2], workers[0]
        killed_parts = killed.assignment()
        killed.proc.send_signal(signal.SIGKILL)
        killed.proc.wait()
        dead_at = time.time()
        sent |= set(produce(bootstrap, topic, 600, 300))
        wait_for("%s: the killed member's partitions move to the last one" % client,
                 lambda: last.assignment() == list(range(6)), timeout=SESSION_MS / 1000 + 30)
        moved_after = time.time() - dead_at
        check(moved_after < SESSION_MS / 1000 + 10,
              "%s: partitions %s moved %.1f s after the kill (session %d ms)" %
              (client, killed_parts, moved_after, SESSION_MS))
        check(not revokes(last, left_at),
              "%s: the members that stayed gave up nothing while others left or died" % client)
        wait_for("%s: every record consumed after the kill" % client, lambda: sent <= consumed(workers))

        # A new member joins: the last one gives up exactly what the newcomer gets.
        joined_at = time.time()
        newcomer = spawn(3)
        workers.append(newcomer)
        wait_for("%s: the newcomer gets half the partitions" % client,
                 lambda: len(newcomer.assignment()) == 3 and len(last.assignment()) == 3)
        check(sorted(revokes(last, joined_at)) == newcomer.assignment(),
              "%s: the member that stayed gave up only the partitions the newcomer received (%s)" %
              (client, newcomer.assignment()))
        sent |= set(produce(bootstrap, topic, 900, 300))
        wait_for("%s: every record consumed after the join" % client, lambda: sent <= consumed(workers))

        wait_for("%s: the group is Stable, every member at the assignment epoch" % client,
                 lambda: stable(bootstrap, group, 2))
        d = describe_group(bootstrap, group)
        check(True, "%s: ConsumerGroupDescribe: %s, group epoch %d, assignment epoch %d, members %s" %
              (client, d["state"], d["group_epoch"], d["assignment_epoch"],
               [(m["epoch"], m["assigned"]) for m in d["members"]]))

        for w in (last, newcomer):
            w.proc.send_signal(signal.SIGTERM)
        for w in (last, newcomer):
            w.proc.wait(30)
        check(consumed(workers) == sent, "%s: all %d records consumed, none skipped" % (client, len(sent)))
        dups = {k: ws for k, ws in readers(workers).items() if len(ws) > 1}
        refused = refused_commits(workers)
        bad = [(k, [workers.index(w) for w in ws]) for k, ws in dups.items() if killed not in ws and k not in refused]
        stale = sum(1 for w in workers for e in w.events() if e["ev"] == "stale")
        check(not bad, "%s: no record consumed twice except the killed member's uncommitted ones "
                       "(%d redelivered, %d refused commits, %d re-reads skipped by the worker; "
                       "unexplained, with their readers: %s)" % (client, len(dups), len(refused), stale, bad))
        killed_dups = [k for k, ws in dups.items() if killed in ws and k not in refused]
        check(len(killed_dups) <= len(killed_parts),
              "%s: at most one redelivery per partition of the killed member (%d)" % (client, len(killed_dups)))
    except Exception:
        show(workers)
        raise
    finally:
        for w in workers:
            if w.proc.poll() is None:
                w.proc.kill()


def stable(bootstrap, group, members):
    d = describe_group(bootstrap, group)
    return (d["state"] == "Stable" and len(d["members"]) == members and
            all(m["epoch"] == d["assignment_epoch"] for m in d["members"]))


def main():
    clients = sys.argv[2:] or ["rdkafka", "platformatic"]
    with StrataBroker(sys.argv[1], BROKER_SETTINGS) as broker:
        for client in clients:
            run(broker.bootstrap, client)


if __name__ == "__main__":
    main()
