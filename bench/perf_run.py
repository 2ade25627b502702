"""One strata_perf produce run, for the cluster benchmarks (cluster_produce_bench.py,
replication_bench.py)."""
import subprocess


def run_perf(perf, bootstrap, topic, size, acks, records, partitions, max_seconds=60):
    """strata_perf producing `records` of `size` bytes to `topic` (made with `partitions`
    if absent): [records/s, MB/s, p50, p99, p99.9 ms]; raises unless all were delivered."""
    out = subprocess.run([perf, "produce", "--bootstrap", bootstrap, "--topic", topic,
                          "--records", str(records), "--record-size", str(size), "--acks", acks,
                          "--partitions", str(partitions), "--max-seconds", str(max_seconds)],
                         capture_output=True, text=True, timeout=max_seconds * 3 + 60)
    if out.returncode != 0:
        raise RuntimeError("strata_perf failed: " + out.stderr[-2000:])
    line = next(l for l in out.stdout.splitlines() if l.startswith("RESULT"))
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    if int(fields["delivered"]) != records:
        raise RuntimeError("strata_perf delivered %s of %d" % (fields["delivered"], records))
    return [float(fields[k]) for k in ("records_per_s", "mb_per_s", "p50_ms", "p99_ms", "p999_ms")]
