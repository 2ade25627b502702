#!/usr/bin/python3
"""The web console on a big partition (issue 18): how long its pages take when one
partition holds GB of records, side by side with kcat asking the broker the same thing.

    console_bench.py STRATA STRATA_PERF [GB] [--quick]   (default 10 GB; --quick: 0.05 GB)

One broker (its log dir under $TMPDIR), one topic of one partition filled by strata_perf
with 1 KiB records (acks=1, uncompressed, so the log holds GB gigabytes on disk). Then, each REPEAT times (median
reported), through the admin listener's API (what the page fetches):

- cluster page: /api/settings + /api/cluster + /api/topics (ListOffsets included);
- topic page: /api/topics/T (partitions, watermarks, configs);
- batch inspector at the start, the middle and the end of the log, and one batch opened
  (records and byte map) in the middle;
- message browser: the newest 50, 50 from the middle offset, 50 from a timestamp in the
  middle (ListOffsets by time), and a filter that matches nothing (it reads its 16 MiB
  scan limit and stops);

and, for the three reads of 50 records, `kcat -C -o OFFSET -c 50` (librdkafka fetching the
same records: the peer). Prints a table and one RESULT line.
"""
import json
import os
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

strata, perf = sys.argv[1], sys.argv[2]
quick = "--quick" in sys.argv
args = [a for a in sys.argv[3:] if not a.startswith("--")]
GB = 0.05 if quick else float(args[0]) if args else 10.0
REPEAT = 1 if quick else 5
RECORD = 1024
TOPIC = "big"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_port(port):
    deadline = time.time() + 30
    while time.time() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError("port %d did not open" % port)


def get(port, path):
    t = time.perf_counter()
    with urllib.request.urlopen("http://127.0.0.1:%d%s" % (port, path), timeout=120) as r:
        body = r.read()
    return time.perf_counter() - t, json.loads(body)


def timed(fn):
    times = []
    for _ in range(REPEAT):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def kcat(bootstrap, offset):
    p = subprocess.run(["kcat", "-C", "-q", "-b", bootstrap, "-t", TOPIC, "-p", "0", "-o", str(offset), "-c", "50",
                        "-e"], capture_output=True, timeout=120)
    if p.returncode != 0 or p.stdout.count(b"\n") < 50:
        raise RuntimeError("kcat: %s" % p.stderr[-300:])


def main():
    root = tempfile.mkdtemp(prefix="strata-console-bench-")
    port, admin = free_port(), free_port()
    bootstrap = "127.0.0.1:%d" % port
    log = open(os.path.join(root, "broker.log"), "w")
    broker = subprocess.Popen([strata, "broker", "--override", "log.dirs=" + os.path.join(root, "data"),
                               "--override", "listeners=PLAINTEXT://" + bootstrap,
                               "--override", "metrics.listener=http://127.0.0.1:%d" % admin],
                              stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_port(port)
        records = int(GB * 1e9 / RECORD)
        t = time.time()
        out = subprocess.run([perf, "produce", "--bootstrap", bootstrap, "--topic", TOPIC, "--records", str(records),
                              "--record-size", str(RECORD), "--acks", "1", "--linger-ms", "20", "--compression", "none",
                              "--partitions", "1", "--max-seconds", "3600"], capture_output=True, text=True)
        if out.returncode != 0:
            raise RuntimeError(out.stdout + out.stderr)
        print("filled %s-0 with %d records of %d B (%.1f GB) in %.0f s" % (TOPIC, records, RECORD, GB,
                                                                         time.time() - t), flush=True)
        _, t0 = get(admin, "/api/topics/" + TOPIC)
        end = t0["partitions"][0]["high_watermark"]
        mid = end // 2
        _, m = get(admin, "/api/topics/%s/partitions/0/messages?offset=%d&limit=1" % (TOPIC, mid))
        mid_ts = m["records"][0]["timestamp"]
        base = "/api/topics/%s/partitions/0" % TOPIC
        rows = [
            ("cluster page (settings, cluster, topics)", lambda: [get(admin, p) for p in
                                                           ("/api/settings", "/api/cluster", "/api/topics")], None),
            ("topic page", lambda: get(admin, "/api/topics/" + TOPIC), None),
            ("batches from the start", lambda: get(admin, base + "/batches?offset=0"), None),
            ("batches from the middle", lambda: get(admin, base + "/batches?offset=%d" % mid), None),
            ("batches at the end", lambda: get(admin, base + "/batches?offset=%d" % (end - 100)), None),
            ("one batch opened (middle)", lambda: get(admin, base + "/batches/%d" % mid), None),
            ("newest 50 records", lambda: get(admin, base + "/messages?from=newest&limit=50"),
             lambda: kcat(bootstrap, end - 50)),
            ("50 records from the middle offset", lambda: get(admin, base + "/messages?offset=%d&limit=50" % mid),
             lambda: kcat(bootstrap, mid)),
            ("50 records from a timestamp", lambda: get(admin, base + "/messages?timestamp=%d&limit=50" % mid_ts),
             lambda: kcat(bootstrap, mid)),
            ("a filter matching nothing (16 MiB scan)",
             lambda: get(admin, base + "/messages?offset=%d&limit=50&filter=no-such-text" % mid), None),
        ]
        print("%-42s %12s %12s" % ("query", "console ms", "kcat ms"))
        result = {}
        for name, console, peer in rows:
            c = timed(console)
            k = timed(peer) if peer else None
            result[name] = (c, k)
            print("%-42s %12.1f %12s" % (name, c, "%.1f" % k if k is not None else "-"), flush=True)
        size = sum(os.path.getsize(os.path.join(dp, f)) for dp, _, fs in os.walk(os.path.join(root, "data"))
                   for f in fs if f.endswith(".log"))
        print("RESULT bench=console gb=%.2f log_bytes=%d records=%d repeat=%d page_ms=%.1f middle_ms=%.1f "
              "kcat_middle_ms=%.1f batches_middle_ms=%.1f" % (
                  GB, size, end, REPEAT, result[rows[0][0]][0], result[rows[7][0]][0], result[rows[7][0]][1],
                  result[rows[3][0]][0]))
    finally:
        broker.terminate()
        broker.wait(60)
        log.close()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
