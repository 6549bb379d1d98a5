#!/usr/bin/env bash
# Builds the project against another PETSc than this machine's default and runs the tests that
# depend on it. Usage: scripts/test_petsc.sh 3.22|3.25|64 [--all | --prepare] [ctest arguments]
#
#   64    Debian's 64-bit-index flavour of this machine's PETSc (libpetsc64-real<release>-dev,
#         pkg-config module PETSc64), built in build-petsc64/. The core is the same code as in build/
#         (templated on the index type), so only the PETSc-level tests run, and the examples
#         (benchmarks) are not built.
#   3.22  PETSc 3.22 with hypre 2.32, Catch2 v3, SuiteSparse 7 and gcc 14 of Debian 13 (trixie)
#   3.25  PETSc 3.25 with hypre 3.1 of Debian unstable (sid), which changes daily: not run by CI
#         Both in a Debian root made by debootstrap under $PCLUSTER_ROOTS (default build-roots/)
#         and reused by later runs: scripts/setup.sh --build-packages installs its packages inside,
#         this tree is bind-mounted at /src (../shared at /shared), the build goes to the root's
#         /build. Unit tests and PETSc-level tests run.
#
# PETSc-level tests: by default the ones each release must pass (CI runs them): PETSc's stock
# programs ex62, ex93 and ex111 with our algorithms, the PCGAMG, PCMG Galerkin and PCHMG tutorials
# against their stock residual histories, BoomerAMG's coarse operators on our kernels against
# hypre's own (-pc_hypre_boomeramg_rap_via, on the hypre each release ships), the bad-option and
# bad-input checks, the MPIAIJ products on 1-4 ranks (but not the 3-rank runs of every product on
# whole matrices: 85 of the stage's ~600 seconds, the ranks' logic the same on every PETSc; their
# 2-rank runs stay, and the first CI stage runs all), the products in flight and the plugin's
# load-time checks. --all runs every test.
# --prepare (3.22, 3.25) only makes the root and installs its packages (.ci/run does this in the
# background while the host's tests run).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
what=${1:?usage: scripts/test_petsc.sh 3.22|3.25|64 [--all] [ctest arguments]}
shift
subset=(-R '^unit\.|^fuzz_corpus\.|^petsc\.(ex62|ex93|ex111|amg|hypre_rap|error|mpi|bad_input|in_flight|loaded_twice|install)'
        -E '^petsc\.mpi\.products\.[^.]+\.np3$')
prepare_only=no
case "${1:-}" in
--all) subset=(); shift ;;
--prepare) prepare_only=yes; shift ;;
esac
# Open MPI refuses to run as root without these; past 2 ranks it needs oversubscription.
# (Open MPI 5 in trixie and sid takes oversubscription from PRRTE's variable.)
mpi_env=(OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
         PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe)
start=$SECONDS

case "$what" in
64)
  scripts/setup.sh --packages # with the 64-bit flavour
  echo "== configuring and building (build-petsc64/, PETSc64)"
  cmake -S . -B build-petsc64 -DCMAKE_BUILD_TYPE=Release -DPCLUSTER_PETSC_PKG=PETSc64 -DPCLUSTER_BUILD_UNIT_TESTS=OFF \
    -DPCLUSTER_BUILD_EXAMPLES=OFF
  cmake --build build-petsc64 -j"$(nproc)"
  cd build-petsc64
  env "${mpi_env[@]}" ctest --output-on-failure -j2 ${subset[@]+"${subset[@]}"} "$@"
  ;;
3.22 | 3.25)
  [ "$what" = 3.22 ] && suite=trixie || suite=sid
  roots=${PCLUSTER_ROOTS:-$repo/build-roots}
  root=$roots/$suite
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo=sudo
  if [ ! -x "$root/usr/bin/apt-get" ]; then
    command -v debootstrap > /dev/null || scripts/setup.sh --packages
    echo "== making a Debian $suite root in $root (debootstrap)"
    mkdir -p "$roots"
    $sudo debootstrap --variant=minbase "$suite" "$root" > "$roots/debootstrap-$suite.log" ||
      { tail -20 "$roots/debootstrap-$suite.log"; exit 1; }
  fi
  # Unstable's Release file is valid for a week only; a package mirror that is a snapshot of it
  # (as here) goes stale, and apt-get update then refuses it. The root is for our tests only.
  [ "$suite" = sid ] && echo 'Acquire::Check-Valid-Until "false";' | $sudo tee "$root/etc/apt/apt.conf.d/99pcluster-snapshot" > /dev/null
  mounts=()
  mount_in() { # source target [mount options...]: mounted for this run only
    local target=$root$2
    mkdir -p "$target"
    mountpoint -q "$target" || { $sudo mount "${@:3}" "$1" "$target" && mounts=("$target" "${mounts[@]}"); }
  }
  cleanup() { for m in ${mounts[@]+"${mounts[@]}"}; do $sudo umount "$m" || true; done; }
  trap cleanup EXIT
  mount_in proc /proc -t proc      # MPI
  mount_in sysfs /sys -t sysfs     # hwloc (Open MPI's view of the cores)
  mount_in tmpfs /dev/shm -t tmpfs # Open MPI's shared-memory transport
  mount_in "$repo" /src --bind
  [ -d "$repo/../shared" ] && mount_in "$(cd "$repo/../shared" && pwd)" /shared --bind
  in_root() { $sudo chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }
  in_root /src/scripts/setup.sh --build-packages
  if [ $prepare_only = yes ]; then
    echo "== scripts/test_petsc.sh $what --prepare: the $suite root is ready in $((SECONDS - start)) s"
    exit 0
  fi
  echo "== configuring and building in the $suite root (/build)"
  in_root cmake -S /src -B /build -DCMAKE_BUILD_TYPE=Release
  in_root cmake --build /build -j"$(nproc)"
  # The ranks talk through shared memory: without network interfaces of its own, the root gives
  # Open MPI's TCP transport nothing to pair.
  in_root env "${mpi_env[@]}" OMPI_MCA_btl=^tcp ctest --test-dir /build --output-on-failure -j2 ${subset[@]+"${subset[@]}"} "$@"
  ;;
*)
  echo "scripts/test_petsc.sh: unknown target '$what': use 3.22 (Debian trixie), 3.25 (Debian sid) or 64 (64-bit PetscInt)" >&2
  exit 2
  ;;
esac
echo "== scripts/test_petsc.sh $what: passed in $((SECONDS - start)) s"
