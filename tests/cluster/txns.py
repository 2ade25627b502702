"""Issue 14, transactions across brokers: 3 brokers on 1 etcd, as processes.

- FindCoordinator for a transactional id names the leader of its __transaction_state
  partition, the same from every broker; the other brokers answer the coordinator's
  requests (InitProducerId) with NOT_COORDINATOR, and a WriteTxnMarkers for a partition
  to a broker that does not lead it gets NOT_LEADER_OR_FOLLOWER (on the wire);
- confluent-kafka: a transactional producer whose coordinator is on one broker and whose
  partitions are led by all three commits, aborts and commits again; read_committed
  sees exactly the committed records, read_uncommitted all of them;
- consume-transform-produce: send_offsets_to_transaction for a group whose coordinator
  is on another broker than the transaction's; the offsets are committed with it;
- kafkajs: transactions with sendOffsets (every third aborted) through a broker that is
  not the coordinator; a read_committed group reads exactly the committed records;
- a partition leader killed (-9) after its records are acknowledged and before the
  commit: the commit's markers wait for it, and once it is back read_committed sees the
  whole transaction;
- ListGroups on each broker lists the groups it coordinates; DescribeGroups and
  DeleteGroups elsewhere answer NOT_COORDINATOR, DescribeProducers off the leader
  NOT_LEADER_OR_FOLLOWER.

    txns.py STRATA_BINARY
"""
import json
import os
import struct
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster, Reader, call, find_coordinator, string  # noqa: E402
from replicas import read_all  # noqa: E402
import flexible  # noqa: E402  (after harness, which puts strata_broker on the path)
from strata_broker import check, read_frame  # noqa: E402

from confluent_kafka import Consumer, Producer, TopicPartition  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
PARTITIONS = 6
NOT_COORDINATOR = 16
NOT_LEADER = 6


def init_pid_error(bootstrap, txn_id):
    """InitProducerId v0 with a transactional id: the error code."""
    r = call(bootstrap, 22, 0, string(txn_id) + struct.pack(">i", 60000))
    r.int32()
    return r.take(">h")


def marker_error(bootstrap, topic, partition):
    """WriteTxnMarkers v0 (an abort for producer 1, epoch 0): the partition's error."""
    body = (struct.pack(">i", 1) + struct.pack(">qh?", 1, 0, False) + struct.pack(">i", 1)
            + string(topic) + struct.pack(">ii", 1, partition) + struct.pack(">i", 0))
    r = call(bootstrap, 27, 0, body)
    r.int32(), r.take(">q"), r.int32(), r.string(), r.int32(), r.int32()
    return r.take(">h")


def list_groups(bootstrap):
    """ListGroups v0: the group ids one broker lists."""
    r = call(bootstrap, 16, 0, b"")
    r.take(">h")
    groups = []
    for _ in range(r.int32()):
        groups.append(r.string())
        r.string()  # protocol type
    return groups


def describe_group_error(bootstrap, group):
    """DescribeGroups v0 of one group: its error code."""
    r = call(bootstrap, 15, 0, struct.pack(">i", 1) + string(group))
    r.int32()  # groups: one
    return r.take(">h")


def delete_group_error(bootstrap, group):
    """DeleteGroups v0 of one group: its error code."""
    r = call(bootstrap, 42, 0, struct.pack(">i", 1) + string(group))
    r.int32(), r.int32()  # throttle, results: one
    r.string()
    return r.take(">h")


def leaders(c, topic):
    return c.metadata_topic(c.broker(1).bootstrap, topic)


def txn_id_on(c, coordinator, avoid=None):
    """A transactional id whose coordinator is `coordinator` (searched by FindCoordinator)."""
    # FindCoordinator creates __transaction_state on first use; its leaders come a moment later.
    agreed(lambda: find_coordinator(c.broker(1).bootstrap, "txn-0", 1)[0], 0)
    for i in range(500):
        name = "txn-%d" % i
        err, node = find_coordinator(c.broker(1).bootstrap, name, 1)
        if err == 0 and node == coordinator and name != avoid:
            return name
    raise AssertionError("no transactional id led by broker %d" % coordinator)


def agreed(ask, want, timeout=10):
    """`ask()` repeated until it answers `want` (at most `timeout` s): its last answer."""
    deadline = time.time() + timeout
    answer = ask()
    while answer != want and time.time() < deadline:
        time.sleep(0.1)
        answer = ask()
    return answer


def group_on(c, not_broker):
    for i in range(500):
        name = "grp-%d" % i
        err, node = find_coordinator(c.broker(1).bootstrap, name, 0)
        if err == 0 and node != not_broker:
            return name, node
    raise AssertionError("no group away from broker %d" % not_broker)


def transactional(bootstrap, txn_id):
    p = Producer({"bootstrap.servers": bootstrap, "transactional.id": txn_id, "linger.ms": 5,
                  "message.timeout.ms": 60000, "transaction.timeout.ms": 60000})
    p.init_transactions(30)
    return p


def send_txn(p, topic, tag, n, commit):
    p.begin_transaction()
    for i in range(n):
        p.produce(topic, key=b"k%d" % i, value=b"%s-%d" % (tag.encode(), i), partition=i % PARTITIONS)
    p.flush(30)
    (p.commit_transaction if commit else p.abort_transaction)(30)


with Cluster(binary, brokers=3, etcd_members=1) as c:
    c.wait_for("3 brokers registered", lambda b, ctl, cid: len(b) == 3)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    futures = admin.create_topics([NewTopic("tx", PARTITIONS, 1), NewTopic("tx-out", PARTITIONS, 1)])
    for f in futures.values():
        f.result(30)
    deadline = time.time() + 20
    while time.time() < deadline and not (leaders(c, "tx") and leaders(c, "tx-out")):
        time.sleep(0.1)
    lead = leaders(c, "tx")
    check(sorted(set(lead)) == [1, 2, 3], "'tx' is led by all 3 brokers: %s" % lead)

    # ---- Coordinators on the wire.
    txn_id = txn_id_on(c, 2)
    # Each broker learns __transaction_state's leaders from its own metadata watch, which
    # may lag the one that answered txn_id_on (seen under CI load): ask each until it agrees.
    answers = {b.node_id: agreed(lambda: find_coordinator(b.bootstrap, txn_id, 1), (0, 2))
               for b in c.brokers}
    check(all(a == (0, 2) for a in answers.values()),
          "every broker names broker 2 as %s's coordinator: %s" % (txn_id, answers))
    check(init_pid_error(c.broker(1).bootstrap, txn_id) == NOT_COORDINATOR,
          "broker 1 answers InitProducerId for %s with NOT_COORDINATOR" % txn_id)
    p0_leader = lead[0]
    other = next(b for b in c.brokers if b.node_id != p0_leader)
    check(marker_error(other.bootstrap, "tx", 0) == NOT_LEADER,
          "WriteTxnMarkers for tx-0 to broker %d (not its leader) gets NOT_LEADER_OR_FOLLOWER"
          % other.node_id)

    # ---- confluent-kafka: commit, abort, commit; coordinator on broker 2, partitions on all.
    p = transactional(c.broker(1).bootstrap, txn_id)
    send_txn(p, "tx", "a", 60, True)
    send_txn(p, "tx", "b", 30, False)
    send_txn(p, "tx", "c", 60, True)
    committed = read_all(c.bootstrap, "tx", "read_committed", 120)
    want = sorted(["a-%d" % i for i in range(60)] + ["c-%d" % i for i in range(60)])
    check(sorted(committed) == want,
          "read_committed sees exactly the 120 committed records (got %d)" % len(committed))
    everything = read_all(c.bootstrap, "tx", "read_uncommitted", 150)
    check(len(everything) == 150, "read_uncommitted sees all 150 (got %d)" % len(everything))

    # ---- Consume-transform-produce: offsets of a group led elsewhere, in the transaction.
    group, group_node = group_on(c, 2)
    check(group_node != 2, "group %s is coordinated by broker %d, the transaction by broker 2"
          % (group, group_node))
    cons = Consumer({"bootstrap.servers": c.bootstrap, "group.id": group, "auto.offset.reset": "earliest",
                     "enable.auto.commit": False, "isolation.level": "read_committed"})
    cons.subscribe(["tx"])
    seen = 0
    p.begin_transaction()
    deadline = time.time() + 30
    while seen < 120 and time.time() < deadline:
        m = cons.poll(0.2)
        if m is None or m.error():
            continue
        seen += 1
        p.produce("tx-out", value=b"out-" + m.value(), partition=m.partition())
    p.flush(30)
    positions = cons.position(cons.assignment())
    p.send_offsets_to_transaction(positions, cons.consumer_group_metadata(), 30)
    p.commit_transaction(30)
    committed_offsets = cons.committed([TopicPartition("tx", i) for i in range(PARTITIONS)], timeout=10)
    cons.close()
    want_offsets = {tp.partition: tp.offset for tp in positions}
    got_offsets = {tp.partition: tp.offset for tp in committed_offsets}
    check(seen == 120 and got_offsets == want_offsets,
          "the group's offsets committed with the transaction: %s (positions %s)" % (got_offsets, want_offsets))
    out = read_all(c.bootstrap, "tx-out", "read_committed", 120)
    check(len(out) == 120 and all(v.startswith("out-") for v in out),
          "tx-out holds the 120 transformed records (got %d)" % len(out))

    # ---- Group and producer admin: each broker answers for what it coordinates or leads.
    listed = {b.node_id: list_groups(b.bootstrap) for b in c.brokers}
    check([n for n, groups in listed.items() if group in groups] == [group_node],
          "only broker %d (the coordinator) lists %s: %s" % (group_node, group, listed))
    away = next(b for b in c.brokers if b.node_id != group_node)
    check(describe_group_error(away.bootstrap, group) == NOT_COORDINATOR
          and describe_group_error(c.broker(group_node).bootstrap, group) == 0,
          "DescribeGroups for %s: NOT_COORDINATOR on broker %d, answered by its coordinator"
          % (group, away.node_id))
    check(delete_group_error(away.bootstrap, group) == NOT_COORDINATOR,
          "DeleteGroups for %s on broker %d: NOT_COORDINATOR" % (group, away.node_id))
    check(flexible.describe_producers(other.bootstrap, "tx", 0)[0] == NOT_LEADER,
          "DescribeProducers for tx-0 on broker %d: NOT_LEADER_OR_FOLLOWER" % other.node_id)
    producers = flexible.describe_producers(c.broker(p0_leader).bootstrap, "tx", 0)
    check(producers[0] == 0 and producers[1] >= 1,
          "its leader describes its producers: %s" % (producers,))

    # ---- kafkajs through broker 3, which coordinates neither its id nor its group.
    js = os.path.join(os.path.dirname(__file__), "..", "compat", "js")

    def node(*args):
        r = subprocess.run(["node", os.path.join(js, "transactions.js"), *args], capture_output=True,
                           text=True, timeout=120)
        if r.returncode != 0:
            raise AssertionError("kafkajs failed: " + r.stderr[-3000:])
        return json.loads(r.stdout.strip().splitlines()[-1])

    js_coord = find_coordinator(c.broker(1).bootstrap, "js-txn", 1)
    admin.create_topics([NewTopic("tx-js", 3, 1)])["tx-js"].result(30)
    deadline = time.time() + 20
    while time.time() < deadline and not leaders(c, "tx-js"):
        time.sleep(0.1)
    check(node("produce", c.broker(3).bootstrap, "tx-js", "9", "3", "js-group")["ok"],
          "kafkajs ran 9 transactions (coordinator: broker %d)" % js_coord[1])
    got = node("consume", c.broker(3).bootstrap, "tx-js", "18", "3")
    want = {str(p): ["%d-%d" % (t, p) for t in range(9) if t % 3 != 2] for p in range(3)}
    check(got == want, "kafkajs read_committed sees exactly the 6 committed transactions")

    # ---- A data partition's leader dies between the records and the commit.
    victim = next(n for n in (1, 3) if n in lead)  # a broker leading some of 'tx', not the coordinator
    p.begin_transaction()
    for i in range(60):
        p.produce("tx", value=b"d-%d" % i, partition=i % PARTITIONS)
    p.flush(30)
    c.broker(victim).kill()
    p.commit_transaction(30)  # the prepare is written; the markers wait for the victim
    time.sleep(1)
    c.broker(victim).start()
    c.wait_for("broker %d is back" % victim, lambda b, ctl, cid: len(b) == 3)
    committed = read_all(c.bootstrap, "tx", "read_committed", 180, timeout=40)
    d = sorted(v for v in committed if v.startswith("d-"))
    check(d == sorted("d-%d" % i for i in range(60)),
          "after broker %d returns, read_committed sees the whole last transaction (%d of 60)"
          % (victim, len(d)))
    p.flush(5)

print("OK")
