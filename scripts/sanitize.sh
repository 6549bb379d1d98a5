#!/usr/bin/env bash
# Builds everything (core, plugin, tests, examples, the stock PETSc programs the tests compile) with
# AddressSanitizer + UndefinedBehaviorSanitizer into build-asan/ and runs every test there: unit,
# PETSc-level and MPI. An invalid access, undefined behaviour, a leak (LeakSanitizer; third-party
# leaks suppressed in tests/sanitizers/lsan.supp) or PETSc's -malloc_dump report fails the test.
# Extra arguments go to ctest (e.g. -L unit, -R ex62, --rerun-failed).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --packages
echo "== configuring and building (build-asan/)"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCLUSTER_SANITIZE=ON
# The build runs the unit test binaries to list their test cases, and one starts MPI: its leaks at
# exit are Open MPI's (the tests themselves get this from their environment).
# intercept_tls_get_addr=0: see PCLUSTER_SANITIZER_ENV in tests/sanitizers/sanitizers.cmake.
ASAN_OPTIONS=intercept_tls_get_addr=0 LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp \
  cmake --build build-asan -j"$(nproc)"
# Open MPI refuses to run as root without these; past 2 ranks it needs oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd build-asan
ctest --output-on-failure -j2 "$@"
