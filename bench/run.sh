#!/usr/bin/env bash
# Runs the benchmarks behind docs/performance.md on a release build.
# Usage: bench/run.sh [extra Google Benchmark flags]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
bash scripts/build.sh build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
build/release/bench/record_bench --benchmark_min_time=0.5 "$@"
# Storage (issue 3): 1 GiB segments in $STRATA_BENCH_DIR (default /tmp, ~1.2 GiB free).
build/release/bench/storage_bench --benchmark_min_time=0.5 --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true "$@"
build/release/bench/storage_sync_bench --benchmark_min_time=1 "$@"
