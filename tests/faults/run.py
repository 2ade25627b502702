"""A fault run (issue 16): a workload through real clients on 3 brokers and 3 etcd
members, each in its own network namespace, while a nemesis puts fault families in force
and heals them; then a final read and the checker.

    run.py STRATA_BINARY [--workload queue|txn] [--faults all|F1,F2,...] [--seed N]
           [--duration S] [--window S] [--warmup S] [--out DIR]

- Without --duration: each family of --faults once, in an order the seed picks.
- With --duration S (a soak, by hand): families drawn by the seed until S seconds pass.
- --window S: how long each fault is in force (default 6; a pause or cut outlasts the
  brokers' 3 s etcd sessions).
- --warmup S: fault-free seconds before the first fault (default 4), the baseline.
- --out DIR: each process's output (NAME.log), the history (history.jsonl), its plot
  (history.svg), with STRATA_FAULT_KEEP_DATA=1 the workload's partition dirs of every
  broker (data/bN/in-0, ...), and a summary
  (summary.json: seed, faults, the checker's counts, per fault the throughput and p99
  during and after it and the time from heal to throughput back) are written there.

The seed is printed first: the same seed replays the same families in the same order
with the same windows (the victim is the leader at the time; the clients' timing varies). Exit 0 when the checker finds no anomaly and
writes were acknowledged after the last heal; 1 otherwise.
"""
import argparse
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

sys.path.insert(0, os.path.dirname(__file__))
import checker  # noqa: E402
import nemesis  # noqa: E402
from fault_cluster import FaultCluster  # noqa: E402
from netns import Net, leftovers, sh  # noqa: E402
from workloads import History, QueueWorkload, TxnWorkload  # noqa: E402

from confluent_kafka.admin import AdminClient, NewTopic  # noqa: E402

SETTLE = 3.0     # after a heal, at least this long before the next fault
RECOVER = 20.0   # after a heal, at most this long waiting for acknowledgements again


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--workload", choices=("queue", "txn"), default="queue")
    ap.add_argument("--faults", default="all")
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--duration", type=float, default=None)
    ap.add_argument("--window", type=float, default=6.0)
    ap.add_argument("--warmup", type=float, default=4.0)
    ap.add_argument("--out", default=os.environ.get("STRATA_FAULT_OUT"))
    a = ap.parse_args(argv)
    a.faults = list(nemesis.FAMILIES) if a.faults == "all" else a.faults.split(",")
    for f in a.faults:
        if f not in nemesis.FAMILIES:
            ap.error("unknown fault family %r (known: %s)" % (f, ", ".join(nemesis.FAMILIES)))
    if a.seed is None:
        a.seed = random.randrange(1 << 30)
    return a


def create_topics(bootstrap, topics):
    admin = AdminClient({"bootstrap.servers": bootstrap})
    deadline = time.time() + 60
    for name, parts in topics.items():
        while True:
            try:
                admin.create_topics([NewTopic(name, parts, 3, config={"min.insync.replicas": "2"})],
                                    request_timeout=20)[name].result(timeout=30)
                break
            except Exception as e:  # noqa: BLE001 (the brokers still joining)
                if "already exists" in str(e):
                    break
                if time.time() > deadline:
                    raise
                time.sleep(0.5)
    while time.time() < deadline:
        md = admin.list_topics(timeout=5).topics
        if all(name in md and len(md[name].partitions) == parts
               and all(p.leader >= 0 and len(p.isrs) == 3 for p in md[name].partitions.values())
               for name, parts in topics.items()):
            return admin
        time.sleep(0.2)
    raise RuntimeError("the topics' replicas were not all in sync within 60 s")


def target(admin, topic, rng, cluster):
    """The leader of a random partition of `topic` (a random broker if none is known).
    `rng` is the victims' own: how many draws a choice takes depends on what the metadata
    shows, so the families' and windows' draws stay the seed's alone."""
    try:
        parts = admin.list_topics(topic, timeout=5).topics[topic].partitions
        leaders = [p.leader for p in parts.values() if p.leader in cluster.broker_ids]
        if leaders:
            return rng.choice(sorted(leaders))
    except Exception:  # noqa: BLE001 (metadata unavailable in a fault: any broker then)
        pass
    return rng.choice(cluster.broker_ids)


def acks_since(history, t, enough=None):
    """Acknowledged writes completed after `t`; with `enough`, counting stops there (the
    newest first: a poll does not rescan the whole history)."""
    n = 0
    for op in reversed(list(history.ops)):
        if op["f"] == "send" and op["outcome"] == "ok" and op["end"] > t:
            n += 1
            if enough is not None and n >= enough:
                break
    return n


def wait_recovered(history, healed_at):
    """Until writes are acknowledged again after the heal (at most RECOVER s)."""
    deadline = time.time() + RECOVER
    while time.time() < deadline and acks_since(history, healed_at, enough=20) < 20:
        time.sleep(0.2)


def schedule(args, rng):
    if args.duration is None:
        order = list(args.faults)
        rng.shuffle(order)
        return iter(order)

    def soak():
        end = time.time() + args.duration
        while time.time() < end:
            yield rng.choice(args.faults)
    return soak()


def inject(cluster, admin, topic, history, rng, victims, family, window):
    n = target(admin, topic, victims, cluster)
    start = history.now()
    print("%7.2f  %s on broker %d" % (start, family, n), flush=True)
    label, heal = nemesis.FAMILIES[family](cluster, rng, n)
    time.sleep(window * (0.8 + 0.4 * rng.random()))
    heal()
    end = history.now()
    history.add(process="nemesis", f="fault", start=start, end=end, outcome="ok", fault=label, family=family)
    print("%7.2f  healed %s" % (end, label), flush=True)
    wait_recovered(history, end)
    time.sleep(SETTLE * (0.5 + rng.random()))


def run(args, net, root, history, workload, rng):
    cluster = FaultCluster(net, args.binary, root)
    try:
        cluster.start()
        topics = workload.topics()
        admin = create_topics(cluster.bootstrap, topics)
        workload.start(cluster.bootstrap, history)
        net.procs.extend(workload.processes())  # killed with the Net if the run ends early
        time.sleep(args.warmup)
        first = sorted(topics)[0]
        victims = random.Random(args.seed ^ 0x5EED)
        for family in schedule(args, rng):
            inject(cluster, admin, first, history, rng, victims, family, args.window)
        workload.stop()
        workload.final(cluster.bootstrap, history)
        stuck = workload.running()
        if stuck:
            raise RuntimeError("workload threads did not stop: %s" % stuck)
    except Exception:
        sys.stderr.write(cluster.logs())
        raise
    finally:
        if args.out and os.environ.get("STRATA_FAULT_KEEP_DATA"):
            keep_data(cluster, os.path.join(args.out, "data"))
        cluster.close()


def keep_data(cluster, to):
    """The workload topics' partition dirs of every broker, copied to `to`/bN/ once the
    processes are killed (before close() unmounts the disks): the evidence for an anomaly
    (`strata dump-log` reads them). STRATA_FAULT_KEEP_DATA=1 with --out asks for it."""
    for name in list(cluster.procs):
        try:
            cluster.kill(name)
        except Exception:  # noqa: BLE001 (close() tries again)
            pass
    shutil.rmtree(to, ignore_errors=True)
    for n, disk in cluster.disks.items():
        data = os.path.join(disk.path, "data")
        if not os.path.isdir(data):
            continue
        for d in os.listdir(data):
            if d.rsplit("-", 1)[0] in ("in", "out") and os.path.isdir(os.path.join(data, d)):
                os.makedirs(os.path.join(to, "b%s" % n), exist_ok=True)
                # Sparse: a segment's file is preallocated to segment.bytes.
                p = subprocess.run(["cp", "-a", "--sparse=always", os.path.join(data, d), os.path.join(to, "b%s" % n)],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    sys.stderr.write("keeping %s of broker %s: %s\n" % (d, n, p.stderr.strip()))


def main(argv):
    args = parse(argv)
    # SIGTERM (a user, faults_bench's timeout) unwinds like an error: the cluster,
    # namespaces and disks go; a second one does not interrupt that. (ctest's timeout
    # sends SIGKILL: nothing can clean up then.)
    def terminated(*_):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.exit("terminated")
    signal.signal(signal.SIGTERM, terminated)
    print("seed %d  workload %s  faults %s" % (args.seed, args.workload, ",".join(args.faults)), flush=True)
    rng = random.Random(args.seed)
    root = tempfile.mkdtemp(prefix="strata-fault-")
    history = History()
    workload = QueueWorkload() if args.workload == "queue" else TxnWorkload(random.Random(args.seed + 1))
    global NET
    net = NET = Net()
    # A client thread stuck in a fault could outlive the run: the route that keeps the
    # run's addresses on this machine goes last, just before the process ends.
    net.keep_route = True
    try:
        with net:
            run(args, net, root, history, workload, rng)
    finally:
        if args.out:  # what each process printed
            os.makedirs(args.out, exist_ok=True)
            for name in os.listdir(root):
                if name.endswith(".log"):
                    shutil.copy(os.path.join(root, name), args.out)
        mounted = [line for line in sh("findmnt", "-rn", "-o", "TARGET").stdout.splitlines()
                   if line.startswith(root)]
        shutil.rmtree(root, ignore_errors=True)
    left = leftovers(net.tag, net.subnet, route=False) + ["mount %s" % m for m in mounted]
    report = checker.check(history.ops)
    print(report.table())
    summary = {"seed": args.seed, "workload": args.workload,
               "faults": [op["fault"] for op in history.ops if op["f"] == "fault"],
               "operations": len(history.ops), "anomalies": dict(report.counts),
               "per fault": checker.per_fault(history.ops)}
    print(json.dumps(summary["per fault"], indent=1))
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "history.jsonl"), "w") as f:
            f.write("\n".join(json.dumps(op) for op in history.ops) + "\n")
        checker.plot(history.ops, os.path.join(args.out, "history.svg"))
        with open(os.path.join(args.out, "summary.json"), "w") as f:
            json.dump(summary, f, indent=1)
    last_heal = max((op["end"] for op in history.ops if op["f"] == "fault"), default=0)
    acked = acks_since(history, 0)
    after = acks_since(history, last_heal)
    problems = []
    if left:
        problems.append("left behind by the run: %s" % left)
    if not report.ok():
        problems.append("anomalies: %s" % dict(report.counts))
    if acked < 500 or after < 20:
        problems.append("%d writes acknowledged, %d after the last heal" % (acked, after))
    if args.workload == "txn" and not any(op["f"] == "drained" for op in history.ops):
        problems.append("the processor did not drain its input")
    if not report.ok():  # last, as CI shows a failing test's last lines
        print("\n".join(checker.explain(history.ops, report)))
    for p in problems:
        print("FAIL %s (seed %d)" % (p, args.seed))
    print("%d ops, %d acknowledged writes, seed %d: %s" % (len(history.ops), acked, args.seed,
                                                         "FAIL" if problems else "OK"))
    return 1 if problems else 0


NET = None

if __name__ == "__main__":
    try:
        code = main(sys.argv[1:])
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else 1
    except BaseException:
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    if NET is not None:
        NET.drop_route()
    os._exit(code)  # daemon client threads end here, just after the route
