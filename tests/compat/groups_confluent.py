#!/usr/bin/python3
"""Consumer groups with confluent-kafka-python (librdkafka) against a real Strata broker:
the shared group scenario (group_scenario.py) with the eager and the cooperative-sticky
(incremental) assignors, committed offsets surviving clean and
unclean broker restarts with a consumer resuming exactly at its commit, and static
membership (KIP-345): a member restarting within its session timeout keeps its
partitions and the other member sees no rebalance.
Usage: groups_confluent.py PATH/TO/strata"""
import os
import signal
import sys
import tempfile
import time

from confluent_kafka import Consumer, TopicPartition

import group_scenario
from group_scenario import Worker, create_topic, produce, wait_for
from strata_broker import StrataBroker, check

HERE = os.path.dirname(os.path.abspath(__file__))


def spawn(bootstrap, instance=None):
    def start(group, topic, events):
        argv = ["/usr/bin/python3", os.path.join(HERE, "group_worker_confluent.py"), bootstrap,
                group, topic, events] + ([instance] if instance else [])
        return Worker(argv, events)
    return start


def consume_some(bootstrap, group, topic, count):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False,
                  "auto.offset.reset": "earliest", "session.timeout.ms": 6000})
    c.subscribe([topic])
    got = []
    deadline = time.time() + 30
    while len(got) < count and time.time() < deadline:
        m = c.poll(0.2)
        if m is not None and not m.error():
            got.append((m.partition(), m.offset()))
            c.commit(message=m, asynchronous=False)
    c.close()
    return got


def restarts(broker):
    topic, group = "resume", "resume-group"
    create_topic(broker.bootstrap, topic)
    produce(broker.bootstrap, topic, 0, 60)
    first = consume_some(broker.bootstrap, group, topic, 24)
    check(len(first) == 24, "consumed and committed 24 records")
    next_of = {}
    for p, o in first:
        next_of[p] = max(next_of.get(p, 0), o + 1)
    for kill in (False, True):
        broker.restart(kill=kill)
        c = Consumer({"bootstrap.servers": broker.bootstrap, "group.id": group})
        committed = c.committed([TopicPartition(topic, p) for p in range(6)], timeout=10)
        c.close()
        got = {tp.partition: tp.offset for tp in committed if tp.offset >= 0}
        check(got == next_of, "committed offsets survive a %s restart: %s" %
              ("kill -9" if kill else "clean", got))
    more = consume_some(broker.bootstrap, group, topic, 60 - 24)
    starts = {}
    for p, o in more:
        starts.setdefault(p, o)
    check(all(starts[p] == next_of.get(p, 0) for p in starts) and len(more) == 36,
          "a restarted consumer resumes exactly at its committed positions %s" % starts)


def static_membership(broker):
    topic, group = "static", "static-group"
    create_topic(broker.bootstrap, topic)
    tmp = tempfile.mkdtemp(prefix="strata-static-")
    a = spawn(broker.bootstrap, "member-a")(group, topic, os.path.join(tmp, "a"))
    b = spawn(broker.bootstrap, "member-b")(group, topic, os.path.join(tmp, "b"))
    try:
        produce(broker.bootstrap, topic, 0, 60)
        wait_for("two static members split the partitions",
                 lambda: sorted(a.assignment() + b.assignment()) == list(range(6))
                 and len(a.assignment()) == 3)
        a_parts = a.assignment()
        time.sleep(1)
        b_assigns = [e for e in b.events() if e["ev"] in ("assign", "revoke")]
        # Restart a: a static member's close sends no LeaveGroup; the new process joins
        # with the same group.instance.id well within the 6 s session timeout.
        a.proc.send_signal(signal.SIGTERM)
        a.proc.wait(30)
        a2 = spawn(broker.bootstrap, "member-a")(group, topic, os.path.join(tmp, "a2"))
        try:
            wait_for("the restarted static member is assigned again", lambda: a2.assignment() != [])
            check(a2.assignment() == a_parts, "the restarted member keeps its partitions %s" % a_parts)
            produce(broker.bootstrap, topic, 60, 60)
            wait_for("both members consume after the restart",
                     lambda: len([e for e in a2.events() if e["ev"] == "rec"]) > 0)
            after = [e for e in b.events() if e["ev"] in ("assign", "revoke")]
            check(after == b_assigns, "the other member saw no rebalance (%d events before, %d after)"
                  % (len(b_assigns), len(after)))
        finally:
            a2.proc.kill()
    finally:
        for w in (a, b):
            if w.proc.poll() is None:
                w.proc.kill()


def main():
    with StrataBroker(sys.argv[1]) as broker:
        group_scenario.run(broker.bootstrap, spawn(broker.bootstrap), "confluent")
        os.environ["STRATA_ASSIGNOR"] = "cooperative-sticky"  # incremental rebalancing
        group_scenario.run(broker.bootstrap, spawn(broker.bootstrap), "cooperative")
        del os.environ["STRATA_ASSIGNOR"]
        static_membership(broker)
        restarts(broker)


if __name__ == "__main__":
    main()
