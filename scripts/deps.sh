#!/usr/bin/env bash
# Installs every Debian package Strata needs to build, test and benchmark.
# Idempotent: does nothing when all are present. Runs apt-get as root (or via sudo).
set -euo pipefail

PACKAGES=(
  build-essential cmake ninja-build pkg-config clang libclang-rt-14-dev llvm
  libisal-dev zlib1g-dev liblz4-dev libzstd-dev libsnappy-dev
  libspdlog-dev libfmt-dev libcli11-dev nlohmann-json3-dev libasio-dev libssl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  python3 python3-kafka python3-lz4 python3-snappy python3-zstandard
  python3-confluent-kafka kcat librdkafka-dev
)

missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

SUDO=""
[ "$(id -u)" -eq 0 ] || SUDO="sudo"
echo "deps: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
