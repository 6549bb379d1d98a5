#!/usr/bin/env bash
# Installs what the project needs (Debian bookworm packages) and builds it into ./build.
# Usage: scripts/setup.sh            (idempotent; skips apt when everything is already installed)
#        scripts/setup.sh --packages (the packages only, no build: scripts/fuzz.sh builds its own)
#        scripts/setup.sh --fault-injection  (the build of scripts/test.sh: with the negative
#                                     controls compiled in, PCLUSTER_FAULT_INJECTION; without the
#                                     flag the build is a clean one, as for benchmarks)
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(build-essential cmake pkg-config petsc-dev libpetsc3.18-dev-examples libhypre-dev libmetis-dev
          libsuitesparse-dev libtrilinos-zoltan-dev catch2 libopenmpi-dev openmpi-bin libgraphblas-dev
          python3-matplotlib valgrind
          clang libclang-rt-dev libomp-dev) # the fuzzers (scripts/fuzz.sh): clang, libFuzzer, clang's OpenMP
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  echo "== installing: ${missing[*]}"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
[ "${1:-}" = --packages ] && exit 0

faults=OFF
[ "${1:-}" = --fault-injection ] && faults=ON
echo "== configuring and building (build/, fault injection $faults)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPCLUSTER_FAULT_INJECTION=$faults
cmake --build build -j"$(nproc)"
