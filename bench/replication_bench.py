"""Replication benchmarks (issue 15), on 3 brokers and 1 etcd on this machine's loopback,
every broker with its defaults (one shard per core):

- partitions: replication factor 3 (min.insync.replicas 2) against 1, acks=all, 100 B
  and 1 KiB, 1, 3, 6 and 12 partitions; one strata_perf (librdkafka, linger 5 ms) per
  run, RF 1 and RF 3 taking turns so the machine's noise falls on both; throughput and
  p50/p99/p99.9 produce latency;
- catch-up: a follower stopped (clean) while GB bytes are written at acks=all to 6
  partitions replicated 3 times, then started: the time until it is back in every ISR,
  and the bytes it fetched meanwhile (its log dirs grew by them), as MB/s;
- failover: an idempotent acks=all producer sends a record every 5 ms to a partition
  replicated 3 times; its leader is killed (-9) or stopped (SIGTERM, controlled
  shutdown): the time from the signal to the first acknowledgement of a record sent
  after it, and the longest pause in acknowledgements from the signal on. A kill is noticed when the broker's etcd lease expires
  (etcd.session.timeout.ms, set to SESSION s here; Kafka's default is 18 s).

Prints RESULT lines and markdown tables.

    replication_bench.py STRATA_BINARY STRATA_PERF [REPEAT] [--quick]
"""
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "cluster"))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "compat"))
from harness import Cluster  # noqa: E402
import perf_run  # noqa: E402  (this directory)
from replicas import all_in_sync, partitions  # noqa: E402

from confluent_kafka import Producer  # noqa: E402
from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

binary, perf = sys.argv[1], sys.argv[2]
args = [a for a in sys.argv[3:] if not a.startswith("--")]
quick = "--quick" in sys.argv
repeat = int(args[0]) if args else 3
SESSION_MS = 3000
COUNTS = [1, 3, 6, 12] if not quick else [1, 3]
LOADS = [(100, 1_000_000), (1024, 300_000)] if not quick else [(100, 20_000)]
CATCHUP_BYTES = (1 << 30) if not quick else (16 << 20)
FAILOVERS = 3 if not quick else 1
DEFAULTS = {"strata.shards": "0", "etcd.session.timeout.ms": str(SESSION_MS), "replica.lag.time.max.ms": "10000"}


def run_perf(bootstrap, topic, size, records, parts):
    return perf_run.run_perf(perf, bootstrap, topic, size, "all", records, parts, max_seconds=120)


def create(admin, topic, parts, rf):
    admin.create_topics([NewTopic(topic, parts, rf, config={"min.insync.replicas": "2" if rf > 1 else "1"})],
                        request_timeout=30)[topic].result(timeout=60)
    if rf == 3:
        all_in_sync(admin, topic, parts)


def dir_bytes(broker, topic):
    total = 0
    for name in os.listdir(broker.data):
        if name.startswith(topic + "-"):
            d = os.path.join(broker.data, name)
            total += sum(os.path.getsize(os.path.join(d, f)) for f in os.listdir(d) if f.endswith(".log"))
    return total


def sweep(c, admin, r, results):
    for parts in COUNTS:
        for size, records in LOADS:
            for rf in (1, 3):
                topic = "sweep-%d-%d-%d-%d" % (parts, size, rf, r)
                create(admin, topic, parts, rf)
                results.setdefault((parts, size, rf), []).append(run_perf(c.bootstrap, topic, size, records, parts))


def catch_up(c, admin, r):
    topic = "catchup-%d" % r
    create(admin, topic, 6, 3)
    follower = c.broker(3)
    follower.stop()
    before = dir_bytes(follower, topic)
    run_perf(c.broker(1).bootstrap, topic, 1024, CATCHUP_BYTES // 1024, 6)
    started = time.time()
    follower.start()
    all_in_sync(admin, topic, 6, timeout=600)
    took = time.time() - started
    fetched = dir_bytes(follower, topic) - before
    return fetched, took


def failover(c, admin, mode, n):
    topic = "failover-%s-%d" % (mode, n)
    create(admin, topic, 1, 3)
    leader = partitions(admin, topic)[0][0]
    acked = []  # (time sent, time acked)
    p = Producer({"bootstrap.servers": c.bootstrap, "enable.idempotence": True, "acks": "all", "linger.ms": 0,
                  "message.timeout.ms": 60000, "retry.backoff.ms": 20, "topic.metadata.refresh.interval.ms": 1000})
    stop = threading.Event()

    def send():
        while not stop.is_set():
            sent = time.time()
            p.produce(topic, value=b"x", partition=0,
                      on_delivery=lambda err, msg, sent=sent: err is None and acked.append((sent, time.time())))
            p.poll(0.005)
        p.flush(60)

    t = threading.Thread(target=send, daemon=True)
    t.start()
    warm = time.time() + 30
    while not acked and time.time() < warm:  # the idempotent producer's start (about 1 s)
        time.sleep(0.05)
    time.sleep(1)
    victim = c.broker(leader)
    signalled = time.time()
    if mode == "kill":
        victim.kill()
    else:
        victim.stop()
    deadline = time.time() + SESSION_MS / 1000 + 30
    first = None
    while time.time() < deadline and first is None:
        after = [a for s, a in acked if s >= signalled]
        first = min(after) if after else None
        time.sleep(0.01)
    time.sleep(2)  # acknowledgements go on: the pause is over
    stop.set()
    t.join(70)
    victim.start()
    all_in_sync(admin, topic, 1)
    if first is None:
        raise RuntimeError("no record sent after the %s was acknowledged" % mode)
    # The longest pause in acknowledgements from the signal on (a stopping leader may
    # still answer for a moment: the pause then comes when its leadership moves).
    times = sorted(a for _, a in acked if a >= signalled - 0.5)
    pause = max(b - a for a, b in zip(times, times[1:]))
    return first - signalled, pause


sweeps, catchups, failovers = {}, [], {"kill": [], "stop": []}
for r in range(repeat):
    with Cluster(binary, brokers=3, overrides=DEFAULTS) as c:
        c.wait_for("3 brokers", lambda br, ctl, cid: len(br) == 3 and ctl > 0)
        admin = AdminClient({"bootstrap.servers": c.bootstrap})
        sweep(c, admin, r, sweeps)
        catchups.append(catch_up(c, admin, r))
        for n in range(FAILOVERS):
            for mode in ("kill", "stop"):
                failovers[mode].append(failover(c, admin, mode, r * FAILOVERS + n))


def med(xs):
    return statistics.median(xs)


print()
print("| partitions | load | RF 1 rec/s | RF 3 rec/s | RF 3 / RF 1 | RF 1 p50 / p99 / p99.9 ms | RF 3 p50 / p99 / p99.9 ms |")
print("|---:|---|---:|---:|---:|---:|---:|")
for parts in COUNTS:
    for size, _ in LOADS:
        one, three = sweeps[(parts, size, 1)], sweeps[(parts, size, 3)]
        cols = [[med([x[i] for x in runs]) for i in range(5)] for runs in (one, three)]
        for rf, c_ in ((1, cols[0]), (3, cols[1])):
            print("RESULT bench=replication_partitions partitions=%d record_size=%d rf=%d records_per_s=%.0f "
                  "mb_per_s=%.1f p50_ms=%.2f p99_ms=%.2f p999_ms=%.2f" % (parts, size, rf, *c_), file=sys.stderr)
        print("| %d | %s, acks=all | %s | %s | %.2f | %.1f / %.1f / %.1f | %.1f / %.1f / %.1f |" % (
            parts, "100 B" if size == 100 else "1 KiB", format(int(cols[0][0]), ","), format(int(cols[1][0]), ","),
            cols[1][0] / cols[0][0], *cols[0][2:], *cols[1][2:]))
rates = [b / t / 1e6 for b, t in catchups]
print()
print("RESULT bench=replication_catchup bytes=%d seconds=%s mb_per_s=%.1f" % (
    med([b for b, _ in catchups]), ",".join("%.1f" % t for _, t in catchups), med(rates)))
for mode, xs in failovers.items():
    firsts, pauses = [x[0] for x in xs], [x[1] for x in xs]
    print("RESULT bench=replication_failover mode=%s session_ms=%d first_ack_s=%.2f longest_pause_s=%.2f "
          "pause_min=%.2f pause_max=%.2f" % (mode, SESSION_MS, med(firsts), med(pauses), min(pauses), max(pauses)))
