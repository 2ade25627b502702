#!/usr/bin/env bash
# The run command: installs what it needs, builds, and starts the broker on its embedded
# default: one node on 127.0.0.1:9092, data in ./strata-data, topics auto-created, no
# other service. Stop it with Ctrl-C (a clean shutdown). Extra arguments go to
# `strata broker`, e.g. --config server.properties or --override num.partitions=3.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/deps.sh
bash scripts/build.sh build/release -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
exec build/release/src/tools/strata broker "$@"
