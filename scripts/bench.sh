#!/usr/bin/env bash
# Sets up (packages + build) and runs the main job: algebraic multigrid set-up (PCGAMG, and PCHMG with
# hypre's BoomerAMG coarsening) on generated 3D Poisson and elasticity problems, with PETSc's default
# sparse products, with ours, and with PETSc's -matptap_via hypre; iterations and residuals are checked
# against the default run (-check). Extra arguments go to the example (e.g. -n 60, -problem elasticity,
# -algs cluster,rowwise, -reps 3, -json out.json; -help lists all).
# The SpGEMM benchmark itself: build/examples/spgemm_bench (see README).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
exec build/examples/amg_setup -check "$@"
