#!/usr/bin/env bash
# The broker benchmarks of issue 4, in one run, on an existing build (builds nothing).
#
#   bench/broker_bench.sh [BUILD_DIR]        (default build/release)
#
# Measures, each repeated STRATA_BENCH_REPEAT times (default 3) with the compared
# things interleaved so they share the machine's noise:
#   1. start-to-ready: exec of `strata broker` until its port accepts (fresh data dir,
#      STRATA_BENCH_STARTS runs, default 5; and a restart on the data of this run);
#      idle RSS (VmRSS) after start, and after the produce runs.
#   2. strata_perf produce (librdkafka) against Strata and against librdkafka's mock
#      cluster: 100 B and 1 KiB records, acks=all and acks=1, 1 partition, linger 5 ms,
#      no compression; STRATA_BENCH_RECORDS records (default 200000) or 10 s per run.
#      Then strata_perf consume of the 1 KiB topic, both targets.
#   3. iperf3 over loopback (one stream, 5 s): the TCP ceiling.
#   4. raw_produce: 1 MiB produce requests (acks=1 and acks=-1, 4 in flight) and 1 MiB
#      fetches, 5 s each, on a fresh broker per repeat.
# Prints every result line as it comes, then a summary table: median [min-max] and the
# ratios the targets are about. STRATA_BENCH_QUICK=1 makes every run tiny (a smoke run).
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-build/release}
case $build in /*) ;; *) build=$root/$build ;; esac
strata=$build/src/tools/strata
perf=$build/bench/strata_perf
raw=$build/bench/raw_produce
for exe in "$strata" "$perf" "$raw"; do
  [ -x "$exe" ] || { echo "broker_bench: missing $exe (build it first)" >&2; exit 2; }
done
for tool in iperf3 python3; do
  command -v $tool >/dev/null || { echo "broker_bench: needs $tool (scripts/deps.sh)" >&2; exit 2; }
done

repeat=${STRATA_BENCH_REPEAT:-3}
records=${STRATA_BENCH_RECORDS:-200000}
starts=${STRATA_BENCH_STARTS:-5}
perf_seconds=10   # bound of one strata_perf run
raw_seconds=5     # one raw_produce run, one iperf3 run
idle_seconds=2    # settle time before reading idle RSS
if [ "${STRATA_BENCH_QUICK:-0}" = 1 ]; then
  repeat=1 records=2000 starts=2 perf_seconds=5 raw_seconds=1 idle_seconds=0
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/strata-broker-bench.XXXXXX")
results=$work/results     # "name value" lines, summarized at the end
: >"$results"
broker_pid=""
iperf_pid=""
exec {sleep_fd}<> <(:)    # read -t on this fd is a sleep without a fork

cleanup() {
  local rc=$?
  [ -n "$iperf_pid" ] && kill "$iperf_pid" 2>/dev/null && wait "$iperf_pid" 2>/dev/null
  if [ -n "$broker_pid" ]; then
    kill "$broker_pid" 2>/dev/null && wait "$broker_pid" 2>/dev/null
    if [ $rc -ne 0 ]; then echo "---- broker log ----" >&2; tail -30 "$broker_dir/broker.log" >&2; fi
  fi
  rm -rf "$work"
  exit $rc
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}
record() { echo "$1 $2" >>"$results"; }
# field NAME LINE: the value of NAME=... in a RESULT line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# start_broker DIR: starts a broker on DIR (its data and log) and a free port; sets
# broker_pid, broker_port, broker_dir and ready_ms (exec until the port accepts).
start_broker() {
  broker_dir=$1
  broker_port=$(free_port)
  mkdir -p "$broker_dir"
  local t0=$EPOCHREALTIME
  "$strata" broker --override "log.dirs=$broker_dir/data" \
    --override "listeners=PLAINTEXT://127.0.0.1:$broker_port" >>"$broker_dir/broker.log" 2>&1 &
  broker_pid=$!
  local polls=0
  # ':' with a /dev/tcp redirection is a connect attempt without a fork.
  until { : 3<>"/dev/tcp/127.0.0.1/$broker_port"; } 2>/dev/null; do
    kill -0 "$broker_pid" 2>/dev/null || { echo "broker exited at start" >&2; exit 1; }
    polls=$((polls + 1))
    [ $polls -lt 20000 ] || { echo "broker not ready after 20 s" >&2; exit 1; }
    read -t 0.001 -u $sleep_fd || true
  done
  local t1=$EPOCHREALTIME
  ready_ms=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')
}

stop_broker() {
  kill -TERM "$broker_pid"
  local rc=0
  wait "$broker_pid" || rc=$?
  broker_pid=""
  [ $rc -eq 0 ] || { echo "broker exited with $rc on SIGTERM" >&2; tail -30 "$broker_dir/broker.log" >&2; exit 1; }
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$broker_pid/status"; }
hwm_kib() { awk '/^VmHWM:/ { print $2 }' "/proc/$broker_pid/status"; }

# run_perf NAME ARGS...: one strata_perf run; records its RESULT fields under NAME.
run_perf() {
  local name=$1
  shift
  local out line
  out=$("$perf" "$@" 2>&1) || { echo "$out" >&2; echo "strata_perf failed: $*" >&2; exit 1; }
  line=$(grep '^RESULT' <<<"$out")
  echo "$name: $line"
  record "$name.records_per_s" "$(field records_per_s "$line")"
  record "$name.mb_per_s" "$(field mb_per_s "$line")"
  for p in p50_ms p99_ms p999_ms; do
    local v
    v=$(field $p "$line")
    [ -n "$v" ] && record "$name.$p" "$v"
  done
  return 0
}

run_raw() {
  local name=$1
  shift
  local out line
  out=$("$raw" "$@" 2>&1) || { echo "$out" >&2; echo "raw_produce failed: $*" >&2; exit 1; }
  line=$(grep '^RESULT' <<<"$out")
  echo "$name: $line"
  record "$name.mb_per_s" "$(field mb_per_s "$line")"
}

run_iperf() {
  local port out
  port=$(free_port)
  iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  iperf_pid=$!
  local polls=0
  until { : 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null; do
    polls=$((polls + 1))
    [ $polls -lt 5000 ] || { echo "iperf3 server did not start" >&2; exit 1; }
    read -t 0.001 -u $sleep_fd || true
  done
  # The probe used up the one-off server's connection on some versions: restart if so.
  if ! kill -0 "$iperf_pid" 2>/dev/null; then
    wait "$iperf_pid" 2>/dev/null || true
    iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
    iperf_pid=$!
    read -t 0.2 -u $sleep_fd || true
  fi
  out=$(iperf3 -c 127.0.0.1 -p "$port" -t "$raw_seconds" -J)
  wait "$iperf_pid" 2>/dev/null || true
  iperf_pid=""
  local mbps
  mbps=$(python3 -c 'import json,sys; print("%.1f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 8e6))' <<<"$out")
  echo "iperf3: $mbps MB/s"
  record iperf3.mb_per_s "$mbps"
}

echo "# strata broker_bench $(date -u +%Y-%m-%dT%H:%MZ) $(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')"
echo "# $(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg), kernel $(uname -r)"
echo "# build $build; repeat $repeat, $records records per perf run"

# ---- 1. start-to-ready and idle RSS on a fresh data dir ----
for i in $(seq 1 "$starts"); do
  start_broker "$work/start$i"
  record start_fresh.ms "$ready_ms"
  echo "start $i (fresh): ready in $ready_ms ms"
  if [ "$i" = 1 ]; then
    read -t "$idle_seconds" -u $sleep_fd || true
    record rss_idle.mib "$(awk -v k="$(rss_kib)" 'BEGIN { printf "%.1f", k / 1024 }')"
  fi
  stop_broker
  rm -rf "$work/start$i"
done

# ---- 2. strata_perf produce and consume: Strata vs the mock ----
start_broker "$work/main"
echo "broker for the perf runs: pid $broker_pid, port $broker_port"
for r in $(seq 1 "$repeat"); do
  for acks in all 1; do
    for size in 100 1024; do
      common=(--records "$records" --record-size "$size" --acks "$acks" --linger-ms 5
              --compression none --partitions 1 --max-seconds "$perf_seconds")
      run_perf "produce.$size.acks_$acks.strata" produce --bootstrap "127.0.0.1:$broker_port" \
        --topic "perf-$size-$acks-$r" "${common[@]}"
      run_perf "produce.$size.acks_$acks.mock" produce --mock --topic "perf-$size-$acks-$r" "${common[@]}"
    done
  done
  run_perf consume.1024.strata consume --bootstrap "127.0.0.1:$broker_port" \
    --topic "perf-1024-all-$r" --records "$records" --max-seconds "$perf_seconds"
  run_perf consume.1024.mock consume --mock --topic perf-consume --records "$records" \
    --record-size 1024 --max-seconds "$perf_seconds"
done
read -t "$idle_seconds" -u $sleep_fd || true
record rss_after_produce.mib "$(awk -v k="$(rss_kib)" 'BEGIN { printf "%.1f", k / 1024 }')"
record rss_peak.mib "$(awk -v k="$(hwm_kib)" 'BEGIN { printf "%.1f", k / 1024 }')"
stop_broker
for i in $(seq 1 $(( starts < 3 ? starts : 3 ))); do
  start_broker "$work/main"
  record start_with_data.ms "$ready_ms"
  echo "start $i (with this run's data, after a clean shutdown): ready in $ready_ms ms"
  stop_broker
done
echo "data from the perf runs: $(du -sh "$work/main/data" | cut -f1)"
rm -rf "$work/main"

# ---- 3 and 4. loopback TCP ceiling, raw produce and fetch ----
for r in $(seq 1 "$repeat"); do
  run_iperf
  start_broker "$work/raw$r"
  bootstrap=127.0.0.1:$broker_port
  run_raw raw_produce.acks_1 produce --bootstrap "$bootstrap" --topic raw-acks1 --acks 1 \
    --seconds "$raw_seconds" --in-flight 4
  run_raw raw_produce.acks_all produce --bootstrap "$bootstrap" --topic raw-acksall --acks -1 \
    --seconds "$raw_seconds" --in-flight 4
  run_raw raw_fetch fetch --bootstrap "$bootstrap" --topic raw-acks1 --seconds "$raw_seconds" \
    --in-flight 4
  stop_broker
  rm -rf "$work/raw$r"
done

# ---- summary ----
python3 - "$results" <<'EOF'
import statistics, sys
vals = {}
for line in open(sys.argv[1]):
    k, v = line.split()
    vals.setdefault(k, []).append(float(v))

def stat(k, fmt="%.0f"):
    v = vals.get(k)
    if not v: return "-"
    if len(v) == 1: return fmt % v[0]
    return (fmt + " [" + fmt + "-" + fmt + "]") % (statistics.median(v), min(v), max(v))

def ratio(a, b):
    x, y = vals.get(a), vals.get(b)
    if not x or not y: return "-"
    rs = [p / q for p, q in zip(x, y) if q > 0]  # per repeat: run r against run r
    if len(rs) == 1: return "%.2f" % rs[0]
    return "%.2f [%.2f-%.2f]" % (statistics.median(rs), min(rs), max(rs))

print("\n## Summary: median [min-max] over %d repeat(s)\n" % max(len(v) for v in vals.values()))
print("| produce (strata_perf) | Strata rec/s | mock rec/s | Strata/mock | Strata MB/s | Strata p50/p99/p99.9 ms | mock p50/p99/p99.9 ms |")
print("|---|---|---|---|---|---|---|")
for acks in ("all", "1"):
    for size in ("100", "1024"):
        s, m = "produce.%s.acks_%s.strata" % (size, acks), "produce.%s.acks_%s.mock" % (size, acks)
        lat = lambda n: "/".join(stat(n + "." + p, "%.1f").split(" ")[0] for p in ("p50_ms", "p99_ms", "p999_ms"))
        print("| %s B, acks=%s | %s | %s | %s | %s | %s | %s |" % (
            size, acks, stat(s + ".records_per_s"), stat(m + ".records_per_s"),
            ratio(s + ".records_per_s", m + ".records_per_s"), stat(s + ".mb_per_s", "%.1f"),
            lat(s), lat(m)))
print("| consume 1 KiB | %s | %s | %s | %s | | |" % (
    stat("consume.1024.strata.records_per_s"), stat("consume.1024.mock.records_per_s"),
    ratio("consume.1024.strata.records_per_s", "consume.1024.mock.records_per_s"),
    stat("consume.1024.strata.mb_per_s", "%.1f")))
print()
print("| raw (1 MiB requests, 4 in flight) | MB/s | / loopback TCP (iperf3) |")
print("|---|---|---|")
print("| iperf3 loopback, 1 stream | %s | 1 |" % stat("iperf3.mb_per_s"))
for k, what in (("raw_produce.acks_1", "produce acks=1"), ("raw_produce.acks_all", "produce acks=all (fdatasync)"),
                ("raw_fetch", "fetch from offset 0")):
    print("| %s | %s | %s |" % (what, stat(k + ".mb_per_s"), ratio(k + ".mb_per_s", "iperf3.mb_per_s")))
print()
print("| broker | value |")
print("|---|---|")
print("| start-to-ready, fresh data dir (ms) | %s |" % stat("start_fresh.ms", "%.1f"))
print("| start-to-ready, restart on the run's data (ms) | %s |" % stat("start_with_data.ms", "%.1f"))
print("| idle RSS after start (MiB) | %s |" % stat("rss_idle.mib", "%.1f"))
print("| RSS after the perf runs, idle (MiB) | %s |" % stat("rss_after_produce.mib", "%.1f"))
print("| peak RSS (VmHWM) over the perf runs (MiB) | %s |" % stat("rss_peak.mib", "%.1f"))
EOF
