#!/usr/bin/env bash
# sendfile(2) against pread + write for Fetch responses (issue 4: "measure sendfile
# against read+write on loopback and keep the faster"), on an existing build.
#
#   bench/sendfile_bench.sh [BUILD_DIR] [DATA_PARENT]   (defaults build/release, /tmp)
#
# One topic is filled with raw_produce (acks=1, 1 MiB requests of 1 KiB records, 3 s);
# then, STRATA_BENCH_REPEAT times (default 5), the broker is started on that data with
# strata.fetch.sendfile=false and then =true, and raw_produce fetch reads 1 MiB
# responses (4 in flight) for 5 s each: MB/s, and the broker's CPU seconds (utime +
# stime from /proc) per GB sent. The page cache holds the data throughout (a fetch
# from disk would measure the disk). Prints each run and the medians.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
case $build in /*) ;; *) build=$root/$build ;; esac
parent=${2:-/tmp}
strata=$build/src/tools/strata
raw=$build/bench/raw_produce
repeat=${STRATA_BENCH_REPEAT:-5}
seconds=${STRATA_BENCH_SECONDS:-5}
for exe in "$strata" "$raw"; do
  [ -x "$exe" ] || { echo "sendfile_bench: missing $exe (build it first)" >&2; exit 2; }
done

work=$(mktemp -d "$parent/strata-sendfile-bench.XXXXXX")
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
pid=""
cleanup() {
  [ -n "$pid" ] && kill "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT

start() {  # start SENDFILE
  "$strata" broker --override "log.dirs=$work/data" \
    --override "listeners=PLAINTEXT://127.0.0.1:$port" \
    --override "strata.fetch.sendfile=$1" >>"$work/broker.log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do
    (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "sendfile_bench: broker did not start" >&2
  exit 1
}
stop() {
  kill "$pid" && wait "$pid" || true
  pid=""
}
cpu_s() {  # utime + stime of $pid in seconds
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$pid/stat"
}

start false
"$raw" produce --bootstrap "127.0.0.1:$port" --topic t --acks 1 --seconds 3 | tail -1
stop

results=$work/results
for r in $(seq 1 "$repeat"); do
  for mode in false true; do
    start "$mode"
    before=$(cpu_s)
    line=$("$raw" fetch --bootstrap "127.0.0.1:$port" --topic t --seconds "$seconds" | tail -1)
    after=$(cpu_s)
    stop
    mbps=$(sed -n 's/.*mb_per_s=\([0-9.]*\).*/\1/p' <<<"$line")
    per_gb=$(awk -v b="$before" -v a="$after" -v m="$mbps" -v s="$seconds" \
      'BEGIN { printf "%.3f", (a - b) / (m * s / 1000) }')
    echo "repeat $r sendfile=$mode: $mbps MB/s, broker $per_gb CPU-s per GB"
    echo "$mode $mbps $per_gb" >>"$results"
  done
done
python3 - "$results" <<'EOF'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1])]
by = {m: [(float(a), float(b)) for k, a, b in rows if k == m] for m in ("false", "true")}
pairs = list(zip(by["false"], by["true"]))
for m, name in (("false", "pread + write"), ("true", "sendfile")):
    mb = [a for a, _ in by[m]]
    cpu = [b for _, b in by[m]]
    print("%-13s MB/s %7.0f [%.0f-%.0f]  broker CPU-s/GB %.3f [%.3f-%.3f]"
          % (name, statistics.median(mb), min(mb), max(mb), statistics.median(cpu), min(cpu), max(cpu)))
ratios = [t[0] / f[0] for f, t in pairs]
cpu_ratios = [t[1] / f[1] for f, t in pairs]
print("sendfile / pread+write, repeat by repeat: MB/s %s (median %.2f); CPU per GB %s (median %.2f)"
      % (" ".join("%.2f" % x for x in ratios), statistics.median(ratios),
         " ".join("%.2f" % x for x in cpu_ratios), statistics.median(cpu_ratios)))
EOF
