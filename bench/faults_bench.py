#!/usr/bin/env python3
"""The queue workload's throughput and latency under each fault family (issue 16): one
fault run (tests/faults/run.py: 3 brokers, 3 etcd members, in namespaces) with a
fault-free warm-up as the baseline, then each family once; per family the acknowledged
writes per second and p99 send latency during the fault and in the 10 s after its heal,
and the time from the heal to a second with half the baseline's rate again.

    faults_bench.py STRATA_BINARY [--faults F1,F2|all] [--seed N] [--window S] [--warmup S]

Prints a Markdown table (docs/reliability.md keeps one). Needs root, as the fault runs.
"""
import json
import os
import subprocess
import sys
import tempfile

RUN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "faults", "run.py")


def main(argv):
    if not argv:
        sys.stderr.write(__doc__)
        return 2
    binary, rest = argv[0], argv[1:]
    if "--warmup" not in rest:
        rest += ["--warmup", "10"]
    with tempfile.TemporaryDirectory() as out:
        run = subprocess.Popen([sys.executable, RUN, binary, "--workload", "queue", "--out", out] + rest,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            stdout, stderr = run.communicate(timeout=1800)
        except subprocess.TimeoutExpired:
            run.terminate()  # SIGTERM: run.py removes its cluster, namespaces and disks
            stdout, stderr = run.communicate(timeout=300)
        verdict = [line for line in stdout.splitlines() if " acknowledged writes, seed " in line][-1:]
        if not os.path.exists(os.path.join(out, "summary.json")):
            sys.stderr.write(stdout[-3000:] + stderr[-3000:])
            return 1
        summary = json.load(open(os.path.join(out, "summary.json")))
    per = summary["per fault"]
    if "baseline acks/s" not in per or not per["baseline acks/s"]:
        sys.stderr.write("no baseline: %s\n" % per)
        return 1
    base, base_p99 = per.pop("baseline acks/s"), per.pop("baseline p99")
    print("seed %d; baseline (fault-free warm-up): %.0f acks/s, p99 %.3f s" % (summary["seed"], base, base_p99))
    print()
    print("| fault | acks/s during (x baseline) | p99 during (s) | acks/s 10 s after (x baseline) | p99 after (s) | heal to half rate (s) |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, f in per.items():
        print("| %s | %.0f (%.2f) | %s | %.0f (%.2f) | %s | %s |" % (
            name, f["acks/s during"], f["acks/s during"] / base, f["p99 during"], f["acks/s after"],
            f["acks/s after"] / base, f["p99 after"], f["recovery s"]))
    print()
    print("anomalies: %s; %s" % (summary["anomalies"] or "none", " ".join(verdict)))
    return run.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
