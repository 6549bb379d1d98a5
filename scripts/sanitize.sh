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
LSAN_OPTIONS=suppressions=$PWD/tests/sanitizers/lsan.supp cmake --build build-asan -j"$(nproc)"
# Open MPI refuses to run as root without these; past 2 ranks it needs oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd build-asan
# LeakSanitizer's own stop-the-world tracer crashes now and then at exit, after a test has passed
# ("Tracer caught signal 11 ... LeakSanitizer has encountered a fatal error": a crash inside LSan,
# not a finding; google/sanitizers#1170). In CI it hit, twice in a row, a unit test that starts MPI
# (the hp ordering) and ends within a second, both before and after moving the leak check ahead of
# MPI_Finalize; here it did not reproduce in 60 runs. So when every failure is that crash, those
# tests (and only then) run once more, leak check included; any other failure fails at once.
set +e
ctest --output-on-failure -j2 "$@" 2>&1 | tee ctest_output.log
status=${PIPESTATUS[0]}
set -e
[ "$status" -eq 0 ] && exit 0
failed=$(grep -cE '\*\*\*(Failed|Exception|Timeout|Not Run)' ctest_output.log || true)
tracer=$(grep -c 'Tracer caught signal' ctest_output.log || true)
if [ "$failed" -gt 0 ] && [ "$failed" -eq "$tracer" ]; then
  echo "== $failed test(s) failed only by LeakSanitizer's tracer crash: running them once more"
  ctest --output-on-failure --rerun-failed
  exit $?
fi
exit "$status"
