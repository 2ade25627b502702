#!/usr/bin/env bash
# The test command: installs what it needs, builds, runs every test.
#  1. release build (gcc): unit tests, cross-checks against kafka-python, dump-log tests,
#     and a smoke run of each benchmark so they keep working;
#  2. sanitizer build (clang, ASan + UBSan, libFuzzer instrumentation): the unit tests
#     again under sanitizers, then every fuzz target for STRATA_FUZZ_SECONDS each.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
jobs=$(nproc)

echo "== release build"
bash scripts/build.sh build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo
(cd build/release && ctest --output-on-failure -j "$jobs")

echo "== sanitizer + fuzz build (clang, ASan+UBSan)"
bash scripts/build.sh build/asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_C_COMPILER=clang \
  -DCMAKE_CXX_COMPILER=clang++ -DSTRATA_SANITIZE=ON -DSTRATA_FUZZ=ON -DSTRATA_BENCH=OFF \
  -DSTRATA_FUZZ_SECONDS="${STRATA_FUZZ_SECONDS:-20}"
(cd build/asan && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
  ctest --output-on-failure -j "$jobs")
