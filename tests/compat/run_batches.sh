#!/usr/bin/env bash
# The batch cross-check, both directions:
#   kafka-python builds each case -> Strata decodes it and compares with the inputs, and
#   builds the same case (uncompressed: byte-identical) -> kafka-python decodes Strata's.
# Usage: run_batches.sh PATH/TO/compat_batches
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
/usr/bin/python3 "$here/make_cases.py" "$work"
"$1" "$work"
/usr/bin/python3 "$here/check_strata.py" "$work"
