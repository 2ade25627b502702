#!/usr/bin/python3
"""What the traffic metrics cost a whole broker (issue 18): two brokers side by side, one
counting BrokerTopicMetrics and the request histograms (the default) and one with
strata.metrics.traffic.enable=false, each loaded in turn by strata_perf produce with the
same workload, REPEAT times, interleaved so both share the machine's noise.

    metrics_cost.py STRATA STRATA_PERF [--quick]    (e.g. build/release/src/tools/strata
                                                     build/release/bench/strata_perf)

Workload: 100 B records, acks=1 (the CPU path, no fdatasync to hide it), linger 5 ms,
8 partitions over the broker's shards (so two shards bump one topic's counters, the
contended case), RECORDS records a run. Reports for each broker the median records/s and
the median broker CPU per record (its utime+stime over the run, /proc/PID/stat), then
the ratios on/off. Prints one "RESULT ..." line for scripts.
"""
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time

strata, perf = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv
REPEAT = 1 if quick else int(os.environ.get("STRATA_BENCH_REPEAT", "5"))
RECORDS = 20000 if quick else int(os.environ.get("STRATA_BENCH_RECORDS", "2000000"))
TICK = os.sysconf("SC_CLK_TCK")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def cpu_seconds(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime, stime


class Broker:
    def __init__(self, name, counting):
        self.name = name
        self.dir = tempfile.mkdtemp(prefix="strata-metrics-cost-")
        self.port = free_port()
        self.bootstrap = "127.0.0.1:%d" % self.port
        self.log = open(os.path.join(self.dir, "broker.log"), "w")
        self.proc = subprocess.Popen(
            [strata, "broker", "--override", "log.dirs=" + os.path.join(self.dir, "data"),
             "--override", "listeners=PLAINTEXT://" + self.bootstrap,
             "--override", "strata.metrics.traffic.enable=" + ("true" if counting else "false")],
            stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.time() + 20
        while time.time() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError("%s did not start" % name)

    def stop(self):
        self.proc.terminate()
        self.proc.wait(30)
        self.log.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def run(broker, topic):
    before = cpu_seconds(broker.proc.pid)
    out = subprocess.run([perf, "produce", "--bootstrap", broker.bootstrap, "--topic", topic, "--records",
                          str(RECORDS), "--record-size", "100", "--acks", "1", "--linger-ms", "5",
                          "--compression", "none", "--partitions", "8", "--max-seconds", "60"],
                         capture_output=True, text=True, timeout=180)
    cpu = cpu_seconds(broker.proc.pid) - before
    line = next((l for l in out.stdout.splitlines() if l.startswith("RESULT")), None)
    if out.returncode != 0 or line is None:
        raise RuntimeError("strata_perf failed: %s %s" % (out.stdout, out.stderr))
    fields = dict(kv.split("=", 1) for kv in line.split()[1:])
    records = int(fields.get("records", RECORDS))
    return float(fields["records_per_s"]), cpu * 1e6 / max(records, 1)


def main():
    brokers = [Broker("counting", True), Broker("not counting", False)]
    results = {b.name: ([], []) for b in brokers}
    try:
        for i in range(REPEAT):
            for b in (brokers if i % 2 == 0 else brokers[::-1]):
                rate, us = run(b, "cost-%d" % i)
                results[b.name][0].append(rate)
                results[b.name][1].append(us)
                print("%-13s run %d: %10.0f records/s, %.3f us broker CPU per record" % (b.name, i, rate, us),
                      flush=True)
    finally:
        for b in brokers:
            b.stop()
    on_rate, on_us = (statistics.median(v) for v in results["counting"])
    off_rate, off_us = (statistics.median(v) for v in results["not counting"])
    print("medians: counting %.0f records/s, %.3f us/record; not counting %.0f records/s, %.3f us/record"
          % (on_rate, on_us, off_rate, off_us))
    print("RESULT rate_ratio=%.3f cpu_ratio=%.3f on_rate=%.0f off_rate=%.0f on_us=%.3f off_us=%.3f repeat=%d "
          "records=%d" % (on_rate / off_rate, on_us / off_us, on_rate, off_rate, on_us, off_us, REPEAT, RECORDS))


if __name__ == "__main__":
    main()
