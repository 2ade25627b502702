#!/usr/bin/env bash
# dump-log on a segment written by kafka-python, checked line by line (run by ctest).
# Usage: run_dump_log.sh PATH/TO/strata
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
seg="$work/sample-0/00000000000000000042.log"
/usr/bin/python3 "$here/make_segment.py" "$seg"
/usr/bin/python3 "$here/check_dump_log.py" "$1" "$seg"
