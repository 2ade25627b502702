#!/usr/bin/env bash
# The test command: installs what it needs, builds, runs every test.
#  1. release build (gcc): unit tests, crash and corruption tests, cross-checks against
#     kafka-python, real clients (kcat, confluent-kafka, kafka-python, kafkajs) against a
#     real broker process, and a smoke run of each benchmark so they keep working;
#  2. sanitizer build (gcc, ASan + UBSan): all of the above again, broker included;
#  3. fuzz build (clang, libFuzzer + ASan + UBSan): every decoder's fuzz target for
#     STRATA_FUZZ_SECONDS (default 20) each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
jobs=$(nproc)
export ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1

# ctest in build dir $1 (extra arguments after it); on failure, the failed tests' own
# output again, last, where CI's excerpt of the run shows it.
run_ctest() {
  local dir=$1
  shift
  if ! (cd "$dir" && ctest --output-on-failure -j "$jobs" "$@"); then
    python3 scripts/failed_tests.py "$dir" 60
    return 1
  fi
}

echo "== release build"
bash scripts/build.sh build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo
run_ctest build/release

echo "== sanitizer build (gcc, ASan+UBSan)"
bash scripts/build.sh build/asan -DCMAKE_BUILD_TYPE=Debug -DSTRATA_SANITIZE=ON -DSTRATA_BENCH=OFF
# Real-client tests with latency bounds scale them for the sanitizer's slowdown.
STRATA_SANITIZED=1 run_ctest build/asan

echo "== fuzz build (clang, libFuzzer+ASan+UBSan)"
bash scripts/build.sh build/fuzz -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DSTRATA_SANITIZE=ON -DSTRATA_FUZZ=ON -DSTRATA_BENCH=OFF \
  -DSTRATA_FUZZ_SECONDS="${STRATA_FUZZ_SECONDS:-20}"
run_ctest build/fuzz -R '^fuzz_'
