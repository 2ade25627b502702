#!/usr/bin/python3
"""KIP-848's online migration against a real Strata broker: an application rolled, one
process at a time, from classic members (confluent-kafka, librdkafka 2.0.2, eager range
and then cooperative-sticky) to consumer-protocol members (node-rdkafka, librdkafka 2.12,
group.protocol=consumer), with records flowing throughout.

  three classic members share a 6-partition topic and commit after each record ->
  a consumer-protocol member joins: the running classic group becomes a consumer-protocol
  group at the classic generation, the classic members keep their partitions until they
  are asked (REBALANCE_IN_PROGRESS) to join again, then get the server's assignment
  through JoinGroup/SyncGroup -> each classic member is stopped and replaced in turn.
And the way back (Kafka's downgrade): classic members join a consumer-protocol group; when
its last consumer-protocol member leaves, it is a classic group again and rebalances.
Checked: every record consumed, none twice except where a commit was refused; the
offsets committed by classic members are where the consumer members resume; the group
ends a consumer-protocol group (ConsumerGroupDescribe) whose members are all of the
consumer type, with committed offsets at the log end.
Usage: kip848_migration.py PATH/TO/strata"""
import os
import signal
import sys
import tempfile
import time

from confluent_kafka import Consumer, TopicPartition

from group_scenario import Worker, consumed, create_topic, produce, readers, refused_commits, show, wait_for
from kip848_wire import describe_group
from strata_broker import StrataBroker, check

HERE = os.path.dirname(os.path.abspath(__file__))
SETTINGS = {
    "group.consumer.session.timeout.ms": "6000",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.consumer.min.heartbeat.interval.ms": "500",
    "group.initial.rebalance.delay.ms": "0",
}


def partitions_held(workers):
    return sorted(p for w in workers for p in w.assignment())


def run(bootstrap, assignor):
    label = "classic-" + (assignor or "range")
    topic, group = "migrate-" + label, "migrate-group-" + label
    create_topic(bootstrap, topic)
    tmp = tempfile.mkdtemp(prefix="strata-migrate-")
    env = dict(os.environ)
    if assignor:
        env["STRATA_ASSIGNOR"] = assignor

    def classic(i):
        path = os.path.join(tmp, "classic%d" % i)
        return Worker(["/usr/bin/python3", os.path.join(HERE, "group_worker_confluent.py"), bootstrap, group, topic,
                       path], path, env=env)

    def consumer(i):
        path = os.path.join(tmp, "consumer%d" % i)
        return Worker(["node", os.path.join(HERE, "js", "kip848_worker_rdkafka.js"), bootstrap, group, topic, path],
                      path, cwd=os.path.join(HERE, "js"))

    classics = [classic(i) for i in range(3)]
    consumers = []
    everyone = list(classics)
    try:
        sent = set(produce(bootstrap, topic, 0, 300))
        wait_for("%s: three classic members consume every record" % label, lambda: sent <= consumed(everyone))
        wait_for("%s: the classic members share the partitions" % label,
                 lambda: partitions_held(classics) == list(range(6)) and
                 all(len(w.assignment()) == 2 for w in classics))
        for i in range(3):
            c = consumer(i)
            consumers.append(c)
            everyone.append(c)
            live = [w for w in everyone if w.proc.poll() is None]
            wait_for("%s: consumer member %d gets partitions beside the others" % (label, i),
                     lambda: len(c.assignment()) >= 1 and partitions_held(live) == list(range(6)), timeout=60)
            if i == 0:
                d = describe_group(bootstrap, group)
                check(d["error"] == 0 and sorted(m["type"] for m in d["members"]) == [0, 0, 0, 1],
                      "%s: the running classic group became a consumer-protocol group hosting its 3 classic "
                      "members (group epoch %d)" % (label, d["group_epoch"]))
            sent |= set(produce(bootstrap, topic, 300 * (i + 1), 300))
            gone = classics[i]
            gone.proc.send_signal(signal.SIGTERM)
            gone.proc.wait(30)
            live = [w for w in everyone if w.proc.poll() is None]
            wait_for("%s: classic member %d's partitions move on after it leaves" % (label, i),
                     lambda: partitions_held(live) == list(range(6)), timeout=60)
            wait_for("%s: every record consumed after replacing classic member %d" % (label, i),
                     lambda: sent <= consumed(everyone))
        check(True, "%s: all three classic members replaced by consumer members: %s" %
              (label, [w.assignment() for w in consumers]))
        sent |= set(produce(bootstrap, topic, 1200, 300))
        wait_for("%s: every record consumed at the end" % label, lambda: sent <= consumed(everyone))
        wait_for("%s: the group is Stable with three consumer-protocol members" % label,
                 lambda: stable_consumers(bootstrap, group, 3))
        for w in consumers:
            w.proc.send_signal(signal.SIGTERM)
        for w in consumers:
            w.proc.wait(30)
        check(consumed(everyone) == sent, "%s: all %d records consumed, none skipped" % (label, len(sent)))
        refused = refused_commits(everyone)
        twice = [k for k, ws in readers(everyone).items() if len(ws) > 1 and k not in refused]
        check(not twice, "%s: no record consumed twice but where a commit was refused (%d refused; unexplained %s)"
              % (label, len(refused), twice[:10]))
        ends = committed_vs_end(bootstrap, group, topic)
        check(all(c == e for c, e in ends), "%s: the committed offsets reached the log end: %s" % (label, ends))
    except Exception:
        show(everyone, "member")
        raise
    finally:
        for w in everyone:
            if w.proc.poll() is None:
                w.proc.kill()


def downgrade(bootstrap):
    """Classic members join a consumer-protocol group; when its last consumer-protocol
    member leaves, the group is a classic group again and its members rebalance."""
    label = "downgrade"
    topic, group = "migrate-down", "migrate-group-down"
    create_topic(bootstrap, topic)
    tmp = tempfile.mkdtemp(prefix="strata-migrate-")
    first = Worker(["node", os.path.join(HERE, "js", "kip848_worker_rdkafka.js"), bootstrap, group, topic,
                    os.path.join(tmp, "consumer")], os.path.join(tmp, "consumer"), cwd=os.path.join(HERE, "js"))
    everyone = [first]
    try:
        sent = set(produce(bootstrap, topic, 0, 300))
        wait_for("%s: a consumer-protocol member consumes" % label, lambda: sent <= consumed(everyone))
        classics = [Worker(["/usr/bin/python3", os.path.join(HERE, "group_worker_confluent.py"), bootstrap, group,
                            topic, os.path.join(tmp, "classic%d" % i)], os.path.join(tmp, "classic%d" % i))
                    for i in range(2)]
        everyone += classics
        wait_for("%s: two classic members join the consumer-protocol group and get partitions" % label,
                 lambda: all(w.assignment() for w in classics) and partitions_held(everyone) == list(range(6)))
        d = describe_group(bootstrap, group)
        check(sorted(m["type"] for m in d["members"]) == [0, 0, 1],
              "%s: ConsumerGroupDescribe shows two classic members and one consumer member" % label)
        first.proc.send_signal(signal.SIGTERM)
        first.proc.wait(30)
        sent |= set(produce(bootstrap, topic, 300, 300))
        wait_for("%s: the classic members rebalance and share every partition" % label,
                 lambda: partitions_held(classics) == list(range(6)))
        wait_for("%s: every record consumed after the downgrade" % label, lambda: sent <= consumed(everyone))
        d = describe_group(bootstrap, group)
        check(d["error"] == 69, "%s: the group is no longer a consumer-protocol group (GROUP_ID_NOT_FOUND)" % label)
        for w in classics:
            w.proc.send_signal(signal.SIGTERM)
        for w in classics:
            w.proc.wait(30)
        check(consumed(everyone) == sent, "%s: all %d records consumed, none skipped" % (label, len(sent)))
    except Exception:
        show(everyone, "member")
        raise
    finally:
        for w in everyone:
            if w.proc.poll() is None:
                w.proc.kill()


def stable_consumers(bootstrap, group, n):
    d = describe_group(bootstrap, group)
    return (d["error"] == 0 and d["state"] == "Stable" and len(d["members"]) == n and
            all(m["type"] == 1 for m in d["members"]))


def committed_vs_end(bootstrap, group, topic):
    c = Consumer({"bootstrap.servers": bootstrap, "group.id": group, "enable.auto.commit": False})
    try:
        parts = [TopicPartition(topic, p) for p in range(6)]
        committed = c.committed(parts, timeout=20)
        return [(t.offset, c.get_watermark_offsets(t, timeout=20)[1]) for t in committed]
    finally:
        c.close()


def main():
    with StrataBroker(sys.argv[1], SETTINGS) as broker:
        run(broker.bootstrap, None)
        run(broker.bootstrap, "cooperative-sticky")
        downgrade(broker.bootstrap)


if __name__ == "__main__":
    main()
