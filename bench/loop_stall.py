#!/usr/bin/python3
"""Event-loop stall under topic churn (issue 13), measured from outside the broker.

Probe connections (dealt round-robin over the broker's shards) each send ApiVersions
every 5 ms and time the answer: an event loop that blocks (an fsync, a directory
removal, a big decompression) shows up as a slow answer on the probes of its shard.
Meanwhile a churn workload runs: an admin client creates a topic of PARTITIONS
partitions, produces into it, and deletes it, in a loop, while a producer keeps
appending to a steady topic with acks=all.

Prints p50 / p99 / max probe latency (ms) for an idle broker and under churn.
Usage: loop_stall.py PATH/TO/strata [SECONDS] [PARTITIONS]
Run it on two binaries (before/after) back to back; compare the ratios, the machine is
shared and noisy."""
import os
import socket
import struct
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "compat"))
from strata_broker import StrataBroker, read_frame  # noqa: E402

from confluent_kafka import KafkaException, Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

PROBES = 4
INTERVAL_S = 0.005


def api_versions_frame(correlation):
    client = b"stall-probe"
    body = struct.pack(">hhih", 18, 0, correlation, len(client)) + client
    return struct.pack(">i", len(body)) + body



def probe(bootstrap, stop, samples):
    host, port = bootstrap.split(":")
    s = socket.create_connection((host, int(port)))
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    n = 0
    while not stop.is_set():
        t0 = time.perf_counter()
        s.sendall(api_versions_frame(n))
        read_frame(s)
        samples.append((time.perf_counter() - t0) * 1000)
        n += 1
        time.sleep(INTERVAL_S)
    s.close()


def churn(bootstrap, stop, partitions, counts):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    p = Producer({"bootstrap.servers": bootstrap, "linger.ms": 5, "acks": "all"})
    i = 0
    while not stop.is_set():
        name = "stall-%d" % i
        i += 1
        try:
            admin.create_topics([NewTopic(name, partitions, 1)])[name].result(30)
            for k in range(2000):
                p.produce(name, value=b"x" * 100, partition=k % partitions)
                p.produce("stall-steady", value=b"y" * 100)
            p.flush(30)
            admin.delete_topics([name])[name].result(30)
            counts["cycles"] += 1
        except (KafkaException, BufferError):
            counts["errors"] += 1


def measure(bootstrap, seconds, workload=None):
    stop = threading.Event()
    samples = [[] for _ in range(PROBES)]
    threads = [threading.Thread(target=probe, args=(bootstrap, stop, samples[i])) for i in range(PROBES)]
    if workload:
        threads.append(threading.Thread(target=workload, args=(stop,)))
    for t in threads:
        t.start()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join(120)
    all_ms = sorted(x for s in samples for x in s)
    pick = lambda q: all_ms[min(len(all_ms) - 1, int(q * len(all_ms)))]  # noqa: E731
    return len(all_ms), pick(0.5), pick(0.99), all_ms[-1]


def main():
    strata = sys.argv[1]
    seconds = float(sys.argv[2]) if len(sys.argv) > 2 else 20
    partitions = int(sys.argv[3]) if len(sys.argv) > 3 else 50
    with StrataBroker(strata, {"auto.create.topics.enable": "true"}) as b:
        admin = AdminClient({"bootstrap.servers": b.bootstrap})
        admin.create_topics([NewTopic("stall-steady", 3, 1)])["stall-steady"].result(30)
        n, p50, p99, mx = measure(b.bootstrap, min(5, seconds))
        print("idle:  %6d probes  p50 %.2f ms  p99 %.2f ms  max %.2f ms" % (n, p50, p99, mx))
        counts = {"cycles": 0, "errors": 0}
        n, p50, p99, mx = measure(b.bootstrap, seconds,
                                  lambda stop: churn(b.bootstrap, stop, partitions, counts))
        print("churn: %6d probes  p50 %.2f ms  p99 %.2f ms  max %.2f ms  (%d create/produce/delete "
              "cycles of %d partitions, %d errors)" % (n, p50, p99, mx, counts["cycles"], partitions,
                                                       counts["errors"]))


if __name__ == "__main__":
    main()
