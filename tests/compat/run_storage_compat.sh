#!/usr/bin/env bash
# A partition directory written by Strata's storage, read back by kafka-python (batch by
# batch, with its indexes) and dumped by `strata dump-log` (checked line by line).
# Usage: run_storage_compat.sh PATH/TO/write_log PATH/TO/strata
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
dir="$work/orders-0"
"$1" "$dir" > "$work/manifest.jsonl"
/usr/bin/python3 "$here/check_storage.py" "$dir" "$work/manifest.jsonl"
for seg in "$dir"/*.log; do
  /usr/bin/python3 "$here/check_dump_log.py" "$2" "$seg"
done
