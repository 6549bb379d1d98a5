#!/usr/bin/env bash
# Installs what the project needs (Debian packages) and builds it into ./build.
# Usage: scripts/setup.sh            (idempotent; skips apt when everything is already installed)
#        scripts/setup.sh --packages (the packages only, no build: scripts/fuzz.sh builds its own)
#        scripts/setup.sh --build-packages (only what building and testing against PETSc needs: what
#                                     scripts/test_petsc.sh installs in a Debian trixie or sid root)
#        scripts/setup.sh --fault-injection  (the build of scripts/test.sh: with the negative
#                                     controls compiled in, PCLUSTER_FAULT_INJECTION; without the
#                                     flag the build is a clean one, as for benchmarks)
# Works on Debian bookworm (PETSc 3.18), trixie (3.22) and sid (3.25): the stock examples package
# is the one of the PETSc release the distribution ships.
set -euo pipefail
cd "$(dirname "$0")/.."

sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
apt_updated=no
apt_update() { [ $apt_updated = yes ] || $sudo apt-get update -q; apt_updated=yes; }

# libpetsc<release>-dev-examples for the PETSc release behind petsc-dev
examples=$(dpkg-query -W -f='${db:Status-Abbrev} ${Package}\n' 'libpetsc*-dev-examples' 2>/dev/null |
           sed -n 's/^ii  *\(libpetsc[0-9.]*-dev-examples\)$/\1/p' | sort -V | tail -1 || true)
if [ -z "$examples" ]; then
  apt_update
  examples=$(apt-cache search --names-only '^libpetsc[0-9.]+-dev-examples$' | cut -d' ' -f1 | sort -V | tail -1)
fi
build_packages=(build-essential cmake pkg-config petsc-dev "$examples" libhypre-dev libmetis-dev
                libsuitesparse-dev libtrilinos-zoltan-dev catch2 libopenmpi-dev openmpi-bin valgrind)
release=${examples#libpetsc}
release=${release%-dev-examples}
other_packages=(libgraphblas-dev python3-matplotlib # benchmarks
                clang libclang-rt-dev libomp-dev    # the fuzzers (scripts/fuzz.sh): clang, libFuzzer, clang's OpenMP
                "libpetsc64-real$release-dev" debootstrap) # scripts/test_petsc.sh 64 | 3.22 | 3.25
packages=("${build_packages[@]}" "${other_packages[@]}")
recommends=()
if [ "${1:-}" = --build-packages ]; then
  packages=("${build_packages[@]}")
  recommends=(--no-install-recommends)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "== installing: ${missing[*]}"
  apt_update
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q ${recommends[@]+"${recommends[@]}"} "${missing[@]}"
fi
case "${1:-}" in --packages | --build-packages) exit 0 ;; esac

faults=OFF
[ "${1:-}" = --fault-injection ] && faults=ON
echo "== configuring and building (build/, fault injection $faults)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DPCLUSTER_FAULT_INJECTION=$faults
cmake --build build -j"$(nproc)"
