"""Issue 15, transaction markers are committed like acks=all records: a coordinator
counts a partition's marker as written only once the partition's ISR has it, so a
leader that dies with an unreplicated marker cannot leave the new leader with a
transaction nobody ends.

3 brokers on 1 etcd (12 s sessions, so a paused broker stays registered and in the
ISR); __transaction_state replicated twice (min ISR 1), and a transactional id whose partition is
led by broker 3 with broker 1 as follower; the data partition tm-0 on [1, 2]:

- 10 transactional records acknowledged (both replicas have them), broker 2 paused,
  the transaction committed: the marker is on broker 1 but not below its high
  watermark, and the transaction stays PrepareCommit (DescribeTransactions) for 3 s;
- broker 1 killed (-9), broker 2 resumed: broker 2 leads tm-0 without the marker; the
  coordinator sends it again there, the transaction becomes CompleteCommit, and a
  read_committed consumer reads exactly the 10 records from broker 2.

    markers.py STRATA_BINARY
"""
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
from harness import Cluster, find_coordinator  # noqa: E402
from replicas import partitions, read_all  # noqa: E402
from strata_broker import check, java_partition  # noqa: E402

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
TXN_PARTITIONS = 50


def txn_state(bootstrap, txn_id):
    p = subprocess.run([binary, "txn", "describe", "--bootstrap-server", bootstrap, "--transactional-id", txn_id],
                       capture_output=True, text=True, timeout=30)
    for state in ("PrepareCommit", "CompleteCommit", "Ongoing", "Empty", "PrepareAbort", "CompleteAbort"):
        if state in p.stdout:
            return state
    return p.stdout + p.stderr


with Cluster(binary, brokers=3, overrides={"etcd.session.timeout.ms": "12000",
                                           "transaction.state.log.replication.factor": "2",
                                           "transaction.state.log.min.isr": "1"}) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
    admin = AdminClient({"bootstrap.servers": c.bootstrap})
    admin.create_topics([NewTopic("tm", 1, replica_assignment=[[1, 2]])], request_timeout=30)["tm"].result(timeout=40)
    # FindCoordinator creates __transaction_state; then a transactional id whose
    # partition is [3, 1] (led by 3, broker 2 not a replica).
    find_coordinator(c.broker(1).bootstrap, "probe", 1)
    deadline = time.time() + 20
    state = {}
    while time.time() < deadline and len(state) < TXN_PARTITIONS:
        state = partitions(admin, "__transaction_state")
        time.sleep(0.2)
    txn_id = None
    for i in range(2000):
        name = "tx-%d" % i
        leader, replicas, _ = state.get(java_partition(name, TXN_PARTITIONS), (-1, [], []))
        if leader == 3 and replicas == [1, 3]:
            txn_id = name
            break
    check(txn_id is not None, "a transactional id coordinated by broker 3 on replicas [3, 1]: %s" % txn_id)
    deadline = time.time() + 10
    while time.time() < deadline and find_coordinator(c.broker(1).bootstrap, txn_id, 1) != (0, 3):
        time.sleep(0.2)

    p = Producer({"bootstrap.servers": c.bootstrap, "transactional.id": txn_id, "linger.ms": 5,
                  "message.timeout.ms": 60000, "transaction.timeout.ms": 60000})
    p.init_transactions(30)
    p.begin_transaction()
    for i in range(10):
        p.produce("tm", value=b"v%d" % i, partition=0)
    p.flush(30)
    c.broker(2).pause()
    p.commit_transaction(30)
    # Watched for 3 s of wall time (each look starts a process, slow under sanitizers),
    # well inside the 12 s session that keeps the paused broker registered and in the ISR.
    seen = set()
    watch_until = time.time() + 3
    while time.time() < watch_until or not seen:
        seen.add(txn_state(c.broker(3).bootstrap, txn_id))
        time.sleep(0.2)
    check(seen == {"PrepareCommit"}, "with tm-0's follower paused the commit's marker is not counted: "
          "the transaction stays PrepareCommit for 3 s (%s)" % seen)

    c.broker(1).kill()
    c.broker(2).resume()
    started = time.time()
    deadline = started + 40
    while time.time() < deadline and txn_state(c.broker(3).bootstrap, txn_id) != "CompleteCommit":
        time.sleep(0.3)
    check(txn_state(c.broker(3).bootstrap, txn_id) == "CompleteCommit",
          "after the kill of tm-0's leader the marker is written again on broker 2: CompleteCommit (%.1f s)"
          % (time.time() - started))
    check(partitions(admin, "tm")[0][0] == 2, "broker 2 leads tm-0")
    got = read_all(c.broker(2).bootstrap, "tm", "read_committed", 10, timeout=40)
    check(sorted(got) == sorted("v%d" % i for i in range(10)),
          "read_committed reads exactly the 10 committed records from broker 2 (%d)" % len(got))
print("OK")
