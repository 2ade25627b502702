#!/usr/bin/env bash
# The run command. Until the broker exists (issue 4) it shows what Strata can do today:
# kafka-python writes a log segment, and `strata dump-log` prints it in Kafka's format,
# then as an annotated byte map of its first batch.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
bash scripts/build.sh build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
seg=data/sample-0/00000000000000000000.log
/usr/bin/python3 tests/compat/make_segment.py "$seg"
build/release/src/tools/strata dump-log --print-data-log --files "$seg"
echo
echo "== the first batch's bytes, field by field (strata dump-log --explain --max-bytes 130)"
build/release/src/tools/strata dump-log --explain --max-bytes 130 --files "$seg"
