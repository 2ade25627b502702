#!/usr/bin/env bash
# scripts/build.sh DIR [cmake args...]: configures (once) and builds Strata with Ninja.
set -euo pipefail
dir=$1; shift
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$dir/build.ninja" ]; then
  cmake -S "$root" -B "$dir" -G Ninja "$@" >/dev/null
fi
ninja -C "$dir"
