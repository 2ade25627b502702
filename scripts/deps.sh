#!/usr/bin/env bash
# Installs every Debian package Strata needs to build, test and benchmark.
# Idempotent: does nothing when all are present. Runs apt-get as root (or via sudo).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev llvm
  libisal-dev zlib1g-dev liblz4-dev libzstd-dev libsnappy-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libasio-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  libre2-dev  # consumer groups' regular-expression subscriptions (KIP-848), as Kafka's RE2/J
  python3 python3-kafka python3-lz4 python3-snappy python3-zstandard
  python3-confluent-kafka kcat librdkafka-dev iperf3
  etcd-server etcd-client libcpp-httplib-dev
  prometheus  # scrapes the metrics endpoint in tests/compat/kafka_metrics.py (its service is not started)
  iproute2  # ip netns, veth, bridge: the fault tests' hosts (tests/faults/netns.py)
  iptables faketime e2fsprogs  # the fault tests' partitions, packet loss, clock skew, disks
  chromium  # the web console's browser test (tests/compat/console_browser.js, through playwright-core)
)

# kafkajs, the JavaScript client the compatibility tests drive, the two KIP-848 clients
# (@platformatic/kafka, pure JavaScript; node-rdkafka, whose bundled librdkafka 2.12 npm
# compiles here, about a minute and a half on two cores), and playwright-core, which
# drives Debian's Chromium in the console's browser test, come from npm (never a browser
# download: playwright-core has none).
install_kafkajs() {
  local js
  js="$(cd "$(dirname "$0")/.." && pwd)/tests/compat/js"
  [ -d "$js/node_modules/kafkajs" ] && [ -d "$js/node_modules/playwright-core" ] &&
    [ -d "$js/node_modules/@platformatic/kafka" ] && [ -f "$js/node_modules/node-rdkafka/build/Release/node-librdkafka.node" ] &&
    return 0
  if ! command -v npm >/dev/null 2>&1; then
    $SUDO apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends nodejs npm
  fi
  echo "deps: installing kafkajs, @platformatic/kafka, node-rdkafka and playwright-core from npm"
  # The version is pinned in package.json; no lock file (it would name registry hosts).
  (cd "$js" && npm install --no-audit --no-fund --no-package-lock --loglevel=error)
}

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  install_kafkajs
  exit 0
fi

echo "deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
install_kafkajs
