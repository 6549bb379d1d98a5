#!/usr/bin/env bash
# Sets up (packages + build) and runs every test: Catch2 unit tests of the core, PETSc's stock
# product tests with the plugin loaded, our comparisons on ../shared/matrices, bad-option checks,
# and the negative controls (label negative: each test layer shown to catch a wrong product; the
# build has the fault injection compiled in for them).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --fault-injection
# Open MPI refuses to run as root without these; past 2 ranks it needs oversubscription.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
cd build
ctest --output-on-failure -j2 "$@"
