"""Issue 19 on a cluster: a consumer-protocol group (KIP-848) whose coordinator dies.
3 brokers on 1 etcd, __consumer_offsets replicated 3 ways, a 6-partition topic with 3
replicas. Two node-rdkafka members (librdkafka 2.12, group.protocol=consumer) share the
topic; the broker coordinating the group is killed (-9). The new leader of the group's
__consumer_offsets partition loads the group from its replicated records: the members
find it, go on heartbeating at the epochs they had (no member is fenced, no partition
changes hands), and every record produced before and after is consumed exactly once.

    kip848.py STRATA_BINARY
"""
import os
import signal
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "compat"))
from group_scenario import Worker, consumed, produce, readers, refused_commits, show, wait_for  # noqa: E402
from harness import Cluster, coordinator_of  # noqa: E402
from kip848_wire import describe_group  # noqa: E402
from strata_broker import check  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

JS = os.path.join(os.path.dirname(__file__), "..", "compat", "js")
TOPIC, GROUP = "kip848-cluster", "kip848-cluster-group"
SETTINGS = {
    "group.consumer.session.timeout.ms": "10000",
    "group.consumer.min.session.timeout.ms": "6000",
    "group.consumer.heartbeat.interval.ms": "500",
    "group.consumer.min.heartbeat.interval.ms": "500",
}


def main():
    with Cluster(sys.argv[1], brokers=3, overrides=SETTINGS) as c:
        c.wait_for("three brokers", lambda brokers, *_: len(brokers) == 3)
        admin = AdminClient({"bootstrap.servers": c.bootstrap})
        admin.create_topics([NewTopic(TOPIC, 6, 3)])[TOPIC].result(30)
        tmp = tempfile.mkdtemp(prefix="strata-kip848-cluster-")
        workers = [Worker(["node", os.path.join(JS, "kip848_worker_rdkafka.js"), c.bootstrap, GROUP, TOPIC,
                           os.path.join(tmp, "w%d" % i)], os.path.join(tmp, "w%d" % i), cwd=JS) for i in range(2)]
        try:
            sent = set(produce(c.bootstrap, TOPIC, 0, 300))
            wait_for("two consumer-protocol members consume every record", lambda: sent <= consumed(workers))
            wait_for("they share the 6 partitions 3/3",
                     lambda: sorted(len(w.assignment()) for w in workers) == [3, 3])
            node = coordinator_of(c, GROUP, 0)
            before = describe_group(c.broker(node).bootstrap, GROUP)
            held = [w.assignment() for w in workers]
            check(before["state"] == "Stable", "the group is Stable on broker %d at epoch %d" %
                  (node, before["group_epoch"]))
            c.broker(node).kill()
            survivors = ",".join(b.bootstrap for b in c.brokers if b.alive())
            new = coordinator_of(c, GROUP, 0, avoid=node)
            sent |= set(produce(survivors, TOPIC, 300, 300))
            wait_for("every record consumed after the coordinator died", lambda: sent <= consumed(workers),
                     timeout=90)
            after = describe_group(c.broker(new).bootstrap, GROUP)
            check(after["group_epoch"] == before["group_epoch"] and
                  sorted(m["epoch"] for m in after["members"]) == sorted(m["epoch"] for m in before["members"]),
                  "broker %d took over the group at the same group and member epochs (%d)" %
                  (new, after["group_epoch"]))
            check([w.assignment() for w in workers] == held,
                  "no partition changed hands across the failover: %s" % held)
            for w in workers:
                w.proc.send_signal(signal.SIGTERM)
            for w in workers:
                w.proc.wait(30)
            refused = refused_commits(workers)
            twice = [k for k, ws in readers(workers).items() if len(ws) > 1 and k not in refused]
            check(consumed(workers) == sent and not twice,
                  "all %d records consumed once (%d refused commits)" % (len(sent), len(refused)))
        except Exception:
            show(workers, "member")
            raise
        finally:
            for w in workers:
                if w.proc.poll() is None:
                    w.proc.kill()


if __name__ == "__main__":
    main()
