"""Cluster benchmarks (issue 14), on this machine's loopback with 1 etcd and 3 brokers
(tests/cluster/harness.py):

- metadata propagation: CreateTopics of P partitions through broker 1, until every broker's
  Metadata answers a leader for every partition (P = 1, 100, 1000), against the
  CreateTopics round trip alone;
- etcd traffic per topic created: etcd's own counters (/metrics: puts, txns, bytes
  received) before and after;
- broker start-to-ready in a cluster: process start until its Metadata lists itself.

    cluster_bench.py STRATA_BINARY [REPEAT]
Prints one RESULT line per measurement.
"""
import os
import statistics
import subprocess
import sys
import time
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cluster"))
from harness import Cluster  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary = sys.argv[1]
repeat = int(sys.argv[2]) if len(sys.argv) > 2 else 3


def etcd_counters(endpoint):
    text = urllib.request.urlopen("http://%s/metrics" % endpoint, timeout=5).read().decode()
    out = {}
    for line in text.splitlines():
        for name in ("etcd_mvcc_put_total", "etcd_mvcc_txn_total", "etcd_mvcc_range_total",
                     "etcd_network_client_grpc_received_bytes_total"):
            if line.startswith(name + " "):
                out[name] = float(line.split()[1])
    return out


def routable_everywhere(c, topic, partitions):
    for b in c.brokers:
        md = c.metadata_topic(b.bootstrap, topic)
        if md is None or len(md) != partitions or any(l < 0 for l in md):
            return False
    return True


with Cluster(binary, brokers=3) as c:
    c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3)
    admin = AdminClient({"bootstrap.servers": c.broker(1).bootstrap})
    for partitions in (1, 100, 1000):
        create_ms, all_ms = [], []
        traffic = None
        for r in range(repeat):
            topic = "bench-%d-%d" % (partitions, r)
            before = etcd_counters(c.etcd[0].endpoint)
            t0 = time.time()
            admin.create_topics([NewTopic(topic, partitions, 1)], request_timeout=60)[topic].result(timeout=90)
            t1 = time.time()
            while not routable_everywhere(c, topic, partitions):
                time.sleep(0.005)
            t2 = time.time()
            time.sleep(0.5)  # the controller's writes settle before the counters are read
            after = etcd_counters(c.etcd[0].endpoint)
            create_ms.append((t1 - t0) * 1000)
            all_ms.append((t2 - t0) * 1000)
            traffic = {k: after[k] - before.get(k, 0) for k in after}
        print("RESULT bench=metadata_propagation partitions=%d create_ms=%.1f routable_everywhere_ms=%.1f "
              "etcd_puts=%d etcd_txns=%d etcd_bytes_in=%d" % (
                  partitions, statistics.median(create_ms), statistics.median(all_ms),
                  traffic.get("etcd_mvcc_put_total", 0), traffic.get("etcd_mvcc_txn_total", 0),
                  traffic.get("etcd_network_client_grpc_received_bytes_total", 0)), flush=True)
    ready = []
    for r in range(repeat):
        b = c.broker(3)
        b.stop()
        t0 = time.time()
        b.spawn(b.args())
        while True:
            try:
                br, _, _ = c.metadata(b.bootstrap)
                if 3 in [x[0] for x in br]:
                    break
            except OSError:
                pass
            time.sleep(0.002)
        ready.append((time.time() - t0) * 1000)
    print("RESULT bench=broker_start_to_ready ms=%.1f (median of %d; min %.1f max %.1f)" % (
        statistics.median(ready), repeat, min(ready), max(ready)), flush=True)
