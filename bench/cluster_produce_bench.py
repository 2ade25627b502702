"""Aggregate produce throughput (issues 14 and 15): the same client load against the
single node (no etcd), a 1-broker cluster, a 3-broker cluster on 1 etcd, and the 3-broker
cluster with the topic replicated 3 times (min.insync.replicas 2), all on this machine's
loopback, every broker with its defaults (strata.shards=0: one shard per core).

One strata_perf (librdkafka) produces N records of B bytes to a new topic of 6
partitions, spread by the cluster over its brokers, with acks=all (each broker makes its
partitions durable before it answers, the single node's policy) and acks=1; the three
setups take turns within each repeat so the machine's noise falls on all of them.
Prints one RESULT line per setup and load (median of the repeats, min and max) and a
table of rates relative to the single node.

    cluster_produce_bench.py STRATA_BINARY STRATA_PERF [REPEAT] [--quick]
"""
import os
import shutil
import statistics
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cluster"))
from harness import Broker, Cluster, wait_port  # noqa: E402
import perf_run  # noqa: E402  (this directory)

binary, perf = sys.argv[1], sys.argv[2]
args = [a for a in sys.argv[3:] if not a.startswith("--")]
quick = "--quick" in sys.argv
repeat = int(args[0]) if args else 3
PARTITIONS = 6
DEFAULTS = {"strata.shards": "0"}
LOADS = [(100, "all", 3_000_000), (1024, "all", 1_000_000), (100, "1", 3_000_000), (1024, "1", 1_000_000)]
if quick:
    LOADS = [(100, "all", 20_000), (1024, "1", 5_000)]


def run_perf(bootstrap, topic, size, acks, records):
    return perf_run.run_perf(perf, bootstrap, topic, size, acks, records, PARTITIONS)


class Single:
    """The embedded single node: one broker, no etcd."""

    def __enter__(self):
        self.root = tempfile.mkdtemp(prefix="strata-single-")
        self.broker = Broker(binary, self.root, 1, "", DEFAULTS)
        self.broker.spawn(self.broker.args())  # etcd.connect="": the single node
        wait_port(self.broker.port, self.broker, "single node")
        return self

    @property
    def bootstrap(self):
        return self.broker.bootstrap

    def __exit__(self, *exc):
        self.broker.kill()
        shutil.rmtree(self.root, ignore_errors=True)
        return False


class Replicated:
    """The 3-broker cluster with the topic at replication factor 3 (min.insync.replicas 2):
    acks=all waits for the ISR, each follower fdatasyncs before it counts."""

    def __init__(self):
        self.cluster = Cluster(binary, brokers=3, overrides=DEFAULTS)

    def __enter__(self):
        self.cluster.__enter__()
        return self

    def __exit__(self, *exc):
        return self.cluster.__exit__(*exc)

    @property
    def bootstrap(self):
        return self.cluster.bootstrap

    def prepare(self, topic):
        from confluent_kafka.admin import AdminClient, NewTopic
        admin = AdminClient({"bootstrap.servers": self.bootstrap})
        admin.create_topics([NewTopic(topic, PARTITIONS, 3, config={"min.insync.replicas": "2"})],
                            request_timeout=30)[topic].result(timeout=40)


def setups():
    return [("single node", Single), ("1-broker cluster", lambda: Cluster(binary, brokers=1, overrides=DEFAULTS)),
            ("3-broker cluster", lambda: Cluster(binary, brokers=3, overrides=DEFAULTS)),
            ("3 brokers, replication factor 3", Replicated)]


def wait_brokers(setup, n):
    cluster = setup.cluster if isinstance(setup, Replicated) else setup
    if isinstance(cluster, Cluster):
        cluster.wait_for("%d brokers" % n, lambda br, ctl, cid: len(br) == n and ctl > 0)


results = {}  # (setup, size, acks) -> [(rec/s, MB/s)]
for r in range(repeat):
    for name, make in setups():
        with make() as s:
            wait_brokers(s, 3 if name.startswith("3") else 1)
            for size, acks, records in LOADS:
                topic = "agg-%d-%s-%d" % (size, "all" if acks == "all" else "one", r)
                if isinstance(s, Replicated):
                    s.prepare(topic)
                results.setdefault((name, size, acks), []).append(
                    run_perf(s.bootstrap, topic, size, acks, records))

for (name, size, acks), runs in results.items():
    rates = [x[0] for x in runs]
    print("RESULT bench=aggregate_produce setup=%s record_size=%d acks=%s records_per_s=%.0f "
          "min=%.0f max=%.0f mb_per_s=%.1f p50_ms=%.1f p99_ms=%.1f p999_ms=%.1f" % (
              name.replace(" ", "_").replace(",", ""), size, acks, statistics.median(rates), min(rates),
              max(rates), statistics.median(x[1] for x in runs), statistics.median(x[2] for x in runs),
              statistics.median(x[3] for x in runs), statistics.median(x[4] for x in runs)), flush=True)

print()
print("| load | single node rec/s | 1-broker cluster rec/s (/ single) | 3-broker cluster rec/s (/ single) "
      "| 3 brokers, RF 3 rec/s (/ 3 brokers RF 1) |")
print("|---|---:|---:|---:|---:|")
for size, acks, _ in LOADS:
    def med(name):
        return statistics.median(x[0] for x in results[(name, size, acks)])
    base = med("single node")
    one, three, rf3 = med("1-broker cluster"), med("3-broker cluster"), med("3 brokers, replication factor 3")
    print("| %s, acks=%s | %s | %s (%.2f) | %s (%.2f) | %s (%.2f) |" % (
        "100 B" if size == 100 else "1 KiB", acks, format(int(base), ","), format(int(one), ","),
        one / base, format(int(three), ","), three / base, format(int(rf3), ","), rf3 / three))
