#!/usr/bin/env bash
# Produce and fetch throughput with many partitions (issue 13): the same librdkafka load
# (strata_perf) against two broker binaries, interleaved so they share the machine's
# noise, for 6, 600 and 6,000 partitions and 100 B and 1 KiB records, acks=all.
#
#   bench/partitions_bench.sh BEFORE_STRATA AFTER_STRATA [STRATA_PERF]
#
# STRATA_BENCH_REPEAT (default 3) runs of each; STRATA_BENCH_RECORDS 100 B records per
# run (default 1000000; a quarter as many of 1 KiB); STRATA_BENCH_PARTITIONS (default
# "6 600 6000"). Each run is a fresh broker and data dir: produce (timed), then consume
# of the same topic from the beginning (timed). Prints one RESULT line per run and a
# summary: median MB/s of each binary and after/before.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
before=$1
after=$2
perf=${3:-$root/build/release/bench/strata_perf}
repeat=${STRATA_BENCH_REPEAT:-3}
records=${STRATA_BENCH_RECORDS:-1000000}
partition_counts=${STRATA_BENCH_PARTITIONS:-"6 600 6000"}
out=$(mktemp)
trap 'rm -f "$out"' EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

run_one() {  # label binary partitions size
  local label=$1 bin=$2 parts=$3 size=$4 dir port pid n
  dir=$(mktemp -d)
  port=$(free_port)
  "$bin" broker --override "log.dirs=$dir/data" --override "listeners=PLAINTEXT://127.0.0.1:$port" \
    >"$dir/log" 2>&1 &
  pid=$!
  for _ in $(seq 100); do
    (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break
    sleep 0.05
  done
  n=$records
  [ "$size" -ge 1024 ] && n=$((records / 4))
  local p c
  "$perf" produce --bootstrap 127.0.0.1:$port --topic bench --records "$n" --record-size "$size" \
    --acks all --linger-ms 5 --partitions "$parts" --max-seconds 60 >"$dir/produce" 2>&1 || true
  "$perf" consume --bootstrap 127.0.0.1:$port --topic bench --records "$n" --max-seconds 60 \
    >"$dir/consume" 2>&1 || true
  p=$(grep '^RESULT' "$dir/produce" || true)
  c=$(grep '^RESULT' "$dir/consume" || true)
  # A run without a result says why (the client's last words, the broker's warnings).
  [ -n "$p" ] || { echo "NO RESULT ($label produce):"; tail -3 "$dir/produce"; grep -E 'warn|error' "$dir/log" | tail -3; } >&2
  [ -n "$c" ] || { echo "NO RESULT ($label consume):"; tail -3 "$dir/consume"; } >&2
  kill "$pid"; wait "$pid" 2>/dev/null || true
  rm -rf "$dir"
  echo "RESULT binary=$label partitions=$parts size=$size produce_mb_per_s=$(sed -n 's/.*mb_per_s=\([0-9.]*\).*/\1/p' <<<"$p") consume_mb_per_s=$(sed -n 's/.*mb_per_s=\([0-9.]*\).*/\1/p' <<<"$c")" | tee -a "$out"
}

for parts in $partition_counts; do
  for size in 100 1024; do
    for r in $(seq "$repeat"); do
      run_one before "$before" "$parts" "$size"
      run_one after "$after" "$parts" "$size"
    done
  done
done

python3 - "$out" <<'EOF'
import statistics, sys, collections
rows = collections.defaultdict(list)
for line in open(sys.argv[1]):
    f = dict(kv.split("=") for kv in line.split()[1:])
    rows[(int(f["partitions"]), int(f["size"]), f["binary"])].append(
        (float(f["produce_mb_per_s"] or 0), float(f["consume_mb_per_s"] or 0)))
print("%10s %6s %22s %22s %14s" % ("partitions", "size", "produce MB/s bef/aft", "consume MB/s bef/aft", "after/before"))
for (parts, size) in sorted({(p, s) for p, s, _ in rows}):
    b, a = rows[(parts, size, "before")], rows[(parts, size, "after")]
    pb, pa = statistics.median(x[0] for x in b), statistics.median(x[0] for x in a)
    cb, ca = statistics.median(x[1] for x in b), statistics.median(x[1] for x in a)
    ratio = lambda x, y: ("%.2f" % (y / x)) if x else "-"
    print("%10d %6d %10.1f / %-10.1f %10.1f / %-10.1f  p %s c %s" % (parts, size, pb, pa, cb, ca,
          ratio(pb, pa), ratio(cb, ca)))
EOF
