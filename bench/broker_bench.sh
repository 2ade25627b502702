#!/usr/bin/env bash
# The broker benchmarks of issue 4, in one run, on an existing build (builds nothing).
#
#   bench/broker_bench.sh [BUILD_DIR]        (default build/release)
#
# Measures, each repeated STRATA_BENCH_REPEAT times (default 5) with the compared
# things interleaved so they share the machine's noise:
#   1. start-to-ready: exec of `strata broker` until its port accepts (fresh data dir,
#      STRATA_BENCH_STARTS runs, default 5; and a restart on the data of this run);
#      idle RSS (VmRSS) after start, and after the produce runs.
#   2. strata_perf produce (librdkafka) against Strata and against librdkafka's mock
#      cluster: 100 B and 1 KiB records, acks=all and acks=1, 1 partition, linger 5 ms,
#      no compression; STRATA_BENCH_RECORDS 100 B records (default 2000000; a quarter
#      as many of 1 KiB) or 10 s per run, and 100 B at a fixed 10,000 records/s for 3 s.
#      Then strata_perf consume of the 1 KiB topic from Strata only: the mock keeps just
#      the last 5 MiB of each partition (librdkafka's mock max_size), too little to time.
#   3. iperf3 over loopback (one stream, 5 s): the TCP ceiling.
#   4. raw_produce: 1 MiB produce requests (acks=1 and acks=-1, 4 in flight) and 1 MiB
#      fetches, 5 s each, on a fresh broker per repeat.
# Prints every result line as it comes, then a summary table: median [min-max] and the
# ratios the targets are about. STRATA_BENCH_QUICK=1 makes every run tiny (a smoke run).
# STRATA_BENCH_PIN=1 runs the broker on CPU 1 (taskset; it then runs one shard) and the
# clients (strata_perf, the mock inside it, raw_produce) on CPU 0: the broker with a core
# of its own, as on its own machine, instead of sharing both cores with the client.
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

repeat=${STRATA_BENCH_REPEAT:-5}
pin_broker=() pin_client=()
if [ "${STRATA_BENCH_PIN:-0}" = 1 ]; then
  command -v taskset >/dev/null || { echo "broker_bench: STRATA_BENCH_PIN needs taskset" >&2; exit 2; }
  pin_broker=(taskset -c 1) pin_client=(taskset -c 0)
fi
records=${STRATA_BENCH_RECORDS:-2000000}  # per 100 B run; 1 KiB runs send a quarter
starts=${STRATA_BENCH_STARTS:-5}
perf_seconds=10   # bound of one strata_perf run
raw_seconds=5     # one raw_produce run, one iperf3 run
idle_seconds=2    # settle time before reading idle RSS
raw_max=1000000   # requests per raw run (the time bound comes first)
lat_rate=10000    # records/s of the fixed-rate latency runs
if [ "${STRATA_BENCH_QUICK:-0}" = 1 ]; then
  repeat=1 records=4000 starts=2 perf_seconds=5 raw_seconds=1 idle_seconds=0 raw_max=32
  lat_rate=4000
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
record() {
  [ -n "$2" ] || { echo "broker_bench: no value for $1" >&2; exit 1; }
  echo "$1 $2" >>"$results"
}
# field NAME LINE: the value of NAME=... in a RESULT line.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$2"; }

# start_broker DIR: starts a broker on DIR (its data and log) and a free port; sets
# broker_pid, broker_port, broker_dir and ready_ms (exec until the port accepts).
start_broker() {
  broker_dir=$1
  broker_port=$(free_port)
  mkdir -p "$broker_dir"
  local t0=$EPOCHREALTIME
  "${pin_broker[@]}" "$strata" broker --override "log.dirs=$broker_dir/data" \
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

# run_perf NAME ARGS...: one strata_perf run; records its RESULT fields under NAME, and
# MB per CPU-second of the whole system under test: the client process (the mock runs
# inside it) plus, for NAME *.strata, the broker's threads (schedstat).
run_perf() {
  local name=$1
  shift
  local out line r0=0 r1=0 w
  [[ $name == *.strata ]] && read -r r0 w < <(sched_ns)
  out=$("${pin_client[@]}" "$perf" "$@" 2>&1) || { echo "$out" >&2; echo "strata_perf failed: $*" >&2; exit 1; }
  [[ $name == *.strata ]] && read -r r1 w < <(sched_ns)
  line=$(grep '^RESULT' <<<"$out")
  echo "$name: $line"
  record "$name.records_per_s" "$(field records_per_s "$line")"
  record "$name.mb_per_s" "$(field mb_per_s "$line")"
  for p in p50_ms p99_ms p999_ms; do
    local v
    v=$(field $p "$line")
    [ -n "$v" ] && record "$name.$p" "$v"
  done
  record "$name.mb_per_cpu_s" "$(awk -v m="$(field mb_per_s "$line")" -v s="$(field seconds "$line")" \
    -v c="$(field cpu_s "$line")" -v r0="$r0" -v r1="$r1" 'BEGIN { printf "%.1f", m * s / (c + (r1 - r0) / 1e9) }')"
  return 0
}

run_raw() {
  local name=$1
  shift
  local out line
  out=$("${pin_client[@]}" "$raw" "$@" 2>&1) || { echo "$out" >&2; echo "raw_produce failed: $*" >&2; exit 1; }
  line=$(grep '^RESULT' <<<"$out")
  echo "$name: $line"
  record "$name.mb_per_s" "$(field mb_per_s "$line")"
  raw_mb=$(awk -v m="$(field mb_per_s "$line")" -v s="$(field seconds "$line")" 'BEGIN { print m * s }')
  raw_cpu_s=$(field cpu_s "$line")
}

# Nanoseconds the broker's threads ran, and waited runnable for a CPU (schedstat).
sched_ns() { cat /proc/"$broker_pid"/task/*/schedstat | awk '{ r += $1; w += $2 } END { print r, w }'; }
# run_raw_broker NAME ARGS...: raw_produce against the running broker, plus CPU counts:
# cores the broker ran and cores it waited for a CPU over the run, and MB moved per
# CPU-second of client and broker together (comparable with iperf3's, whatever the load).
run_raw_broker() {
  local name=$1 mode=$2
  shift 2
  local r0 w0 r1 w1 t0 t1
  read -r r0 w0 < <(sched_ns)
  t0=$EPOCHREALTIME
  run_raw "$name" "$mode" --bootstrap "127.0.0.1:$broker_port" --max-requests "$raw_max" "$@"
  t1=$EPOCHREALTIME
  read -r r1 w1 < <(sched_ns)
  local v
  v=$(awk -v r0="$r0" -v r1="$r1" -v w0="$w0" -v w1="$w1" -v a="$t0" -v b="$t1" \
        -v m="$raw_mb" -v c="$raw_cpu_s" 'BEGIN {
        wall = (b - a) * 1e9; cpu = (r1 - r0) / 1e9 + c
        printf "%.2f %.2f %.0f", (r1 - r0) / wall, (w1 - w0) / wall, m / cpu }')
  read -r run wait per_cpu <<<"$v"
  record "$name.broker_cores" "$run"
  record "$name.broker_waiting_cores" "$wait"
  record "$name.mb_per_cpu_s" "$per_cpu"
}

# listening PORT: true when something listens on PORT (no connection is made).
listening() {
  local hex
  hex=$(printf '%04X' "$1")
  awk -v p=":$hex" '$4 == "0A" && substr($2, length($2) - 4) == p { found = 1 } END { exit !found }' \
    /proc/net/tcp /proc/net/tcp6
}

run_iperf() {
  local port out
  port=$(free_port)
  iperf3 -s -1 -p "$port" >/dev/null 2>&1 &
  iperf_pid=$!
  local polls=0
  until listening "$port"; do
    polls=$((polls + 1))
    [ $polls -lt 5000 ] || { echo "iperf3 server did not start" >&2; exit 1; }
    read -t 0.001 -u $sleep_fd || true
  done
  out=$(iperf3 -c 127.0.0.1 -p "$port" -t "$raw_seconds" -J)
  wait "$iperf_pid" 2>/dev/null || true
  iperf_pid=""
  local mbps sender receiver
  read -r mbps sender receiver < <(python3 -c '
import json, sys
end = json.load(sys.stdin)["end"]
cpu = end["cpu_utilization_percent"]
print("%.1f %.1f %.1f" % (end["sum_received"]["bits_per_second"] / 8e6, cpu["host_total"],
                          cpu["remote_total"]))' <<<"$out")
  echo "iperf3: $mbps MB/s, sender CPU $sender%, receiver CPU $receiver%"
  record iperf3.mb_per_s "$mbps"
  record iperf3.receiver_cores "$(awk -v c="$receiver" 'BEGIN { printf "%.2f", c / 100 }')"
  record iperf3.mb_per_cpu_s "$(awk -v s="$sender" -v r="$receiver" -v m="$mbps" \
    'BEGIN { printf "%.0f", m / ((s + r) / 100) }')"
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
      n=$(( size == 100 ? records : records / 4 ))
      common=(--records "$n" --record-size "$size" --acks "$acks" --linger-ms 5
              --compression none --partitions 1 --max-seconds "$perf_seconds")
      run_perf "produce.$size.acks_$acks.strata" produce --bootstrap "127.0.0.1:$broker_port" \
        --topic "perf-$size-$acks-$r" "${common[@]}"
      run_perf "produce.$size.acks_$acks.mock" produce --mock --topic "perf-$size-$acks-$r" "${common[@]}"
      # The physical limit of a durable acks=all produce: the same bytes written to the
      # data dir's disk as 1 MiB pwrites with an fdatasync every 4, right after.
      if [ $acks = all ]; then
        run_raw "durable_write.$size" write --dir "$work/main" --seconds "$perf_seconds" \
          --sync-every 4 --max-requests $(( (n * size + (1 << 20) - 1) >> 20 ))
      fi
    done
  done
  # Latency at a fixed rate that neither target saturates (no client queueing).
  lat=(--records $((lat_rate * 3)) --throughput "$lat_rate" --record-size 100 --acks all
       --linger-ms 5 --partitions 1 --max-seconds "$perf_seconds")
  run_perf latency.100.acks_all.strata produce --bootstrap "127.0.0.1:$broker_port" \
    --topic "lat-$r" "${lat[@]}"
  run_perf latency.100.acks_all.mock produce --mock --topic "lat-$r" "${lat[@]}"
  run_perf consume.1024.strata consume --bootstrap "127.0.0.1:$broker_port" \
    --topic "perf-1024-all-$r" --records $((records / 4)) --max-seconds "$perf_seconds"
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

# ---- 3 and 4. loopback TCP ceiling, file system ceiling, raw produce and fetch ----
# Raw runs get a fresh broker each (bounded disk use: one run's data at a time). The
# tmpfs runs (/dev/shm) show the broker's own ceiling without the disk; they are skipped
# when /dev/shm has less than 8 GiB free.
tmpfs_ok=0
if [ -d /dev/shm ] && [ "$(df -Pk /dev/shm | awk 'NR == 2 { print $4 }')" -gt $((8 << 20)) ]; then
  tmpfs_ok=1
fi
tmpfs_seconds=$(( raw_seconds < 3 ? raw_seconds : 3 ))  # <= ~3 GB of RAM per run
for r in $(seq 1 "$repeat"); do
  run_iperf
  run_raw write.disk write --dir "$work" --seconds "$raw_seconds" --max-requests "$raw_max"
  run_raw write.disk_sync4 write --dir "$work" --seconds "$raw_seconds" --sync-every 4 \
    --max-requests "$raw_max"
  start_broker "$work/raw$r"
  run_raw_broker raw_produce.disk.acks_1 produce --topic raw-acks1 --acks 1 --seconds "$raw_seconds"
  run_raw_broker raw_fetch.disk fetch --topic raw-acks1 --seconds "$raw_seconds"
  stop_broker
  rm -rf "$work/raw$r"
  start_broker "$work/raw$r"
  run_raw_broker raw_produce.disk.acks_all produce --topic raw-acksall --acks -1 --seconds "$raw_seconds"
  stop_broker
  rm -rf "$work/raw$r"
  if [ $tmpfs_ok = 1 ]; then
    shm=$(mktemp -d /dev/shm/strata-broker-bench.XXXXXX)
    run_raw write.tmpfs write --dir "$shm" --seconds "$tmpfs_seconds" --max-requests "$raw_max"
    for acks in 1 -1; do
      start_broker "$shm/b"
      name=raw_produce.tmpfs.acks_$([ $acks = 1 ] && echo 1 || echo all)
      run_raw_broker "$name" produce --topic raw --acks $acks --seconds "$tmpfs_seconds"
      [ $acks = 1 ] && run_raw_broker raw_fetch.tmpfs fetch --topic raw --seconds "$tmpfs_seconds"
      stop_broker
      rm -rf "$shm/b"
    done
    rm -rf "$shm"
  fi
done

# ---- summary ----
python3 - "$results" "$repeat" "$lat_rate" <<'EOF'
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

print("\n## Summary: median [min-max] over %s repeat(s); ratios per repeat\n" % sys.argv[2])
def lat(n):  # medians only
    return "/".join(stat(n + "." + p, "%.1f").split(" ")[0] for p in ("p50_ms", "p99_ms", "p999_ms"))

print("| produce (strata_perf) | Strata rec/s | mock rec/s | Strata/mock | Strata MB/s | Strata p50/p99/p99.9 ms | mock p50/p99/p99.9 ms | MB per CPU-s, Strata / mock |")
print("|---|---|---|---|---|---|---|---|")
for acks in ("all", "1"):
    for size in ("100", "1024"):
        s, m = "produce.%s.acks_%s.strata" % (size, acks), "produce.%s.acks_%s.mock" % (size, acks)
        print("| %s B, acks=%s | %s | %s | %s | %s | %s | %s | %s |" % (
            size, acks, stat(s + ".records_per_s"), stat(m + ".records_per_s"),
            ratio(s + ".records_per_s", m + ".records_per_s"), stat(s + ".mb_per_s", "%.1f"),
            lat(s), lat(m), ratio(s + ".mb_per_cpu_s", m + ".mb_per_cpu_s")))
for size in ("100", "1024"):
    s = "produce.%s.acks_all.strata.mb_per_s" % size
    if "durable_write.%s.mb_per_s" % size in vals:
        print("| %s B, acks=all: the same bytes written durably to the data dir (pwrite 1 MiB + fdatasync every 4) | | | Strata / that: %s | %s | | | |" % (
            size, ratio(s, "durable_write.%s.mb_per_s" % size), stat("durable_write.%s.mb_per_s" % size, "%.1f")))
print("| latency run: 100 B, acks=all, %s records/s | %s | %s | | | %s | %s | %s |" % (
    sys.argv[3], stat("latency.100.acks_all.strata.records_per_s"),
    stat("latency.100.acks_all.mock.records_per_s"),
    lat("latency.100.acks_all.strata"), lat("latency.100.acks_all.mock"),
    ratio("latency.100.acks_all.strata.mb_per_cpu_s", "latency.100.acks_all.mock.mb_per_cpu_s")))
print("| consume 1 KiB (Strata only) | %s | | | %s | | | |" % (
    stat("consume.1024.strata.records_per_s"), stat("consume.1024.strata.mb_per_s", "%.1f")))
print()
print("| raw, 1 MiB requests, 4 in flight | MB/s | / loopback TCP | / file system | server cores running | server cores waiting for a CPU | MB per CPU-s, client + server | that / iperf3's |")
print("|---|---|---|---|---|---|---|---|")
print("| iperf3 loopback, 1 stream | %s | 1 | | %s | | %s | 1 |" % (
    stat("iperf3.mb_per_s"), stat("iperf3.receiver_cores", "%.2f"), stat("iperf3.mb_per_cpu_s")))
for k, what in (("write.disk", "pwrite 1 MiB, data dir's file system"),
                ("write.disk_sync4", "pwrite 1 MiB + fdatasync every 4, same"),
                ("write.tmpfs", "pwrite 1 MiB, tmpfs")):
    if k + ".mb_per_s" in vals:
        print("| %s | %s | %s | 1 | | | | |" % (what, stat(k + ".mb_per_s"), ratio(k + ".mb_per_s", "iperf3.mb_per_s")))
rows = (("raw_produce.disk.acks_1", "produce acks=1, disk", "write.disk"),
        ("raw_produce.disk.acks_all", "produce acks=all (fdatasync), disk", "write.disk_sync4"),
        ("raw_fetch.disk", "fetch 1 MiB from offset 0, disk (page cache)", None),
        ("raw_produce.tmpfs.acks_1", "produce acks=1, tmpfs", "write.tmpfs"),
        ("raw_produce.tmpfs.acks_all", "produce acks=all, tmpfs", "write.tmpfs"),
        ("raw_fetch.tmpfs", "fetch 1 MiB from offset 0, tmpfs", None))
for k, what, fs in rows:
    if k + ".mb_per_s" not in vals: continue
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        what, stat(k + ".mb_per_s"), ratio(k + ".mb_per_s", "iperf3.mb_per_s"),
        ratio(k + ".mb_per_s", fs + ".mb_per_s") if fs else "",
        stat(k + ".broker_cores", "%.2f"), stat(k + ".broker_waiting_cores", "%.2f"),
        stat(k + ".mb_per_cpu_s"), ratio(k + ".mb_per_cpu_s", "iperf3.mb_per_cpu_s")))
print()
print("| broker | value |")
print("|---|---|")
print("| start-to-ready, fresh data dir (ms) | %s |" % stat("start_fresh.ms", "%.1f"))
print("| start-to-ready, restart on the run's data (ms) | %s |" % stat("start_with_data.ms", "%.1f"))
print("| idle RSS after start (MiB) | %s |" % stat("rss_idle.mib", "%.1f"))
print("| RSS after the perf runs, idle (MiB) | %s |" % stat("rss_after_produce.mib", "%.1f"))
print("| peak RSS (VmHWM) over the perf runs (MiB) | %s |" % stat("rss_peak.mib", "%.1f"))
EOF
