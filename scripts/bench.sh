#!/usr/bin/env bash
# Sets up (packages + build) and runs the main job: C = A*A on an embedded generated problem with
# PETSc's algorithms, SuiteSparse:GraphBLAS and ours, checked against PETSc's default.
# Extra arguments go to the benchmark (e.g. -gen s27 -n 40, -f matrix.mtx, -suite, -json out.json).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/examples/spgemm_bench "$@"
