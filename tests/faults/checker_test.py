"""The history checker on synthetic histories (issue 16): a clean history reports nothing;
each anomaly, planted alone, is found, and nothing else is.

    checker_test.py
"""
import copy
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
import checker  # noqa: E402


def clean():
    """Two partitions; plain sends v0-v5; transaction T1 committed (t1a, t1b), T2 aborted
    (t2a, its marker at 9 of partition 0); a consumer reading everything in order; commits
    rising; a healed fault; a read-process-write pipeline drained; both final reads."""
    ops = []

    def op(f, process, start, end, outcome="ok", **fields):
        ops.append(dict(op=len(ops), process=process, f=f, start=start, end=end, outcome=outcome, **fields))

    layout = [("v0", 0, 0), ("v1", 1, 0), ("v2", 0, 1), ("v3", 1, 1), ("v4", 0, 2), ("v5", 1, 2)]
    for i, (v, p, off) in enumerate(layout):
        op("send", "producer-1", i * 0.1, i * 0.1 + 0.02, value=v, partition=p, offset=off)
    op("send", "txn-1", 1.0, 1.01, value="t1a", txn="T1", partition=0, offset=3)
    op("send", "txn-1", 1.0, 1.01, value="t1b", txn="T1", partition=1, offset=3)
    op("txn", "txn-1", 1.0, 1.1, txn="T1", result="commit")  # markers: 0-4, 1-4
    op("send", "txn-1", 1.2, 1.21, value="t2a", txn="T2", partition=0, offset=5)
    op("txn", "txn-1", 1.2, 1.3, txn="T2", result="abort")   # marker: 0-6
    op("send", "producer-1", 1.4, 1.42, value="v6", partition=0, offset=7)
    op("fault", "nemesis", 1.5, 2.0, fault="kill-leader")
    op("send", "producer-1", 2.0, 2.3, value="v7", partition=1, offset=5)
    op("assign", "consumer-1", 0.0, 0.0, partitions=[0, 1])
    committed_reads = [[0, 0, "v0"], [1, 0, "v1"], [0, 1, "v2"], [1, 1, "v3"], [0, 2, "v4"], [1, 2, "v5"],
                       [0, 3, "t1a"], [1, 3, "t1b"], [0, 7, "v6"], [1, 5, "v7"]]
    op("poll", "consumer-1", 2.4, 2.5, isolation="read_committed", records=committed_reads[:6])
    op("commit", "consumer-1", 2.5, 2.6, group="g", offsets={"0": 3, "1": 3})
    op("poll", "consumer-1", 2.6, 2.7, isolation="read_committed", records=committed_reads[6:])
    op("commit", "consumer-1", 2.7, 2.8, group="g", offsets={"0": 8, "1": 6})
    # Read-process-write: "in" copied to "out" by T4 (committed) and T5 (aborted, i1 again).
    op("send", "producer-2", 1.0, 1.01, value="i0", partition="in-0", offset=0)
    op("send", "producer-2", 1.0, 1.01, value="i1", partition="in-0", offset=1)
    op("send", "proc", 1.1, 1.11, value="o-i0-T4", source="i0", txn="T4", partition="out-0", offset=0)
    op("send", "proc", 1.1, 1.11, value="o-i1-T4", source="i1", txn="T4", partition="out-0", offset=1)
    op("txn", "proc", 1.1, 1.2, txn="T4", result="commit")  # marker: out-0 2
    op("send", "proc", 1.3, 1.31, value="o-i1-T5", source="i1", txn="T5", partition="out-0", offset=3)
    op("txn", "proc", 1.3, 1.4, txn="T5", result="abort")   # marker: out-0 4
    op("drained", "proc", 2.8, 2.8, topics=["in"])
    pipeline = [["in-0", 0, "i0"], ["in-0", 1, "i1"], ["out-0", 0, "o-i0-T4"], ["out-0", 1, "o-i1-T4"]]
    op("final", "checker", 3.0, 3.1, isolation="read_committed", records=committed_reads + pipeline)
    op("final", "checker", 3.0, 3.1, isolation="read_uncommitted",
       records=committed_reads + pipeline + [[0, 5, "t2a"], ["out-0", 3, "o-i1-T5"]])
    return ops


def find(ops, **match):
    return next(o for o in ops if all(o.get(k) == v for k, v in match.items()))


def planted(name):
    ops = copy.deepcopy(clean())
    n = len(ops)

    def add(f, process, **fields):
        ops.append(dict(op=n + len(ops), process=process, f=f, start=2.9, end=2.95, outcome="ok", **fields))

    if name == "lost":
        for f in (o for o in ops if o["f"] == "final"):
            f["records"] = [r for r in f["records"] if r[2] != "v4"]
        for p in (o for o in ops if o["f"] == "poll"):
            p["records"] = [r for r in p["records"] if r[2] != "v4"]
    elif name == "duplicate":
        for f in (o for o in ops if o["f"] == "final"):
            f["records"].append([1, 100, "v4"])
    elif name == "inconsistent-offset":
        add("poll", "consumer-9", isolation="read_uncommitted", records=[[0, 1, "other"]])
    elif name == "aborted-read":
        add("poll", "consumer-9", isolation="read_committed", records=[[0, 5, "t2a"]])
    elif name == "uncommitted-read":
        ops.append(dict(op=900, process="txn-1", f="send", start=2.8, end=2.81, outcome="ok", value="t3a", txn="T3",
                        partition=1, offset=50))
        ops.append(dict(op=901, process="txn-1", f="txn", start=2.8, end=2.9, outcome="unknown", txn="T3"))
        add("poll", "consumer-9", isolation="read_committed", records=[[1, 50, "t3a"]])
    elif name == "reordered":
        add("poll", "consumer-1", isolation="read_committed", records=[[0, 2, "v4"]])
    elif name == "skipped":
        second = find(ops, f="poll", process="consumer-1", start=2.6)
        second["records"] = [r for r in second["records"] if r[2] != "t1a"]
    elif name == "commit-backwards":
        add("commit", "consumer-1", group="g", offsets={"0": 4})
    elif name == "processed-twice":
        add("send", "proc", value="o-i0-T6", source="i0", txn="T6", partition="out-0", offset=5)
        add("txn", "proc", txn="T6", result="commit")
        for f in (o for o in ops if o["f"] == "final"):
            f["records"].append(["out-0", 5, "o-i0-T6"])
    elif name == "unprocessed":
        add("send", "producer-2", value="i2", partition="in-0", offset=2)
        for f in (o for o in ops if o["f"] == "final"):
            f["records"].append(["in-0", 2, "i2"])
    return ops


def main():
    failures = []
    report = checker.check(clean())
    if not report.ok():
        failures.append("the clean history reports %s" % dict(report.counts))
    fault = find(clean(), f="fault")["op"]
    gap = report.liveness.get("kill-leader (op %d) healed to next ack" % fault)
    if gap != "0.30 s":
        failures.append("the healed fault's time to the next ack: %r (liveness: %s)" % (gap, report.liveness))
    for name in checker.ANOMALIES:
        report = checker.check(planted(name))
        found = {k for k, v in report.counts.items() if v}
        if found != {name}:
            failures.append("planted %s: found %s (%s)" % (name, sorted(found), report.anomalies))
        else:
            print("ok   planted %s is found alone: %s" % (name, report.anomalies[name][0]))
    # The story of a planted duplicate: its send and both places it was read at.
    story = checker.explain(planted("duplicate"), checker.check(planted("duplicate")))
    if not (story and story[0] == "duplicate v4:" and any("send by" in line for line in story)
            and any("1-100" in line for line in story) and story[-1].startswith("  faults around: kill-leader")):
        failures.append("explain of a duplicate: %s" % story)
    # The command: exit 1 with a table and a plot, exit 0 on the clean history.
    with tempfile.TemporaryDirectory() as d:
        for ops, want in ((clean(), 0), (planted("lost"), 1)):
            path = os.path.join(d, "history.jsonl")
            with open(path, "w") as f:
                f.write("\n".join(json.dumps(o) for o in ops) + "\n")
            svg = os.path.join(d, "plot.svg")
            r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "checker.py"), path,
                                "--plot", svg], capture_output=True, text=True, timeout=30)
            if r.returncode != want or "anomaly" not in r.stdout or not open(svg).read().startswith("<svg"):
                failures.append("checker.py exit %d (want %d): %s %s" % (r.returncode, want, r.stdout, r.stderr))
        with open(os.path.join(d, "bad.jsonl"), "w") as f:
            f.write('{"op": 1}\n')
        r = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "checker.py"),
                            os.path.join(d, "bad.jsonl")], capture_output=True, text=True, timeout=30)
        if r.returncode != 2 or "no 'process'" not in r.stderr:
            failures.append("a bad history: exit %d, %r" % (r.returncode, r.stderr))
    if failures:
        print("\n".join("FAIL " + f for f in failures))
        return 1
    print("OK")
    return 0


if __name__ == "__main__":
    sys.exit(main())
