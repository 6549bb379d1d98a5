# examples/amg_setup at small sizes (included from tests/petsc/CMakeLists.txt). Each run sets up PCGAMG
# and PCHMG (Galerkin PtAP) with PETSc's default products and with ours; -check makes the run fail
# when one of our rows needs different iterations, reaches a different residual (relative 1e-6),
# builds different levels, or does not converge. The 'hypre' row (PETSc's own -matptap_via hypre)
# is printed but not checked.
if(TARGET amg_setup)
  set(_amg_env "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMP_NUM_THREADS=2;OMP_WAIT_POLICY=passive;PETSC_OPTIONS="
    ${PCLUSTER_SANITIZER_ENV})
  set(_amg_cases
    # the README's job at a small size: both problems, both preconditioners, cluster, re-setup
    "small|-n|8|-check"
    # every algorithm of ours, JSON output, two repetitions
    "all_algs|-n|6|-algs|cluster,cluster_fixed,cluster_variable,cluster_hierarchical,rowwise|-reps|2|-check|-json|amg_setup_all_algs.json"
    # block size 3 (cluster takes fixed clusters of a node's rows), GAMG only, no re-setup
    "elasticity_gamg|-problem|elasticity|-pcs|gamg|-n|9|-algs|cluster,cluster_fixed|-resetup|0|-check"
    # PCHMG's Galerkin products reused numerically on re-setup; a tight tolerance
    "poisson_hmg|-problem|poisson|-pcs|hmg|-n|12|-algs|cluster_variable,rowwise|-ksp_rtol|1e-10|-check"
    # our options under the same flags (-mat_cluster_* apply to every product of ours)
    "params|-n|6|-algs|cluster_hierarchical|-mat_cluster_size|4|-mat_cluster_accumulator|hash|-check")
  if(PCLUSTER_HYPRE_INCLUDE_DIRS) # hypre's BoomerAMG with its coarse operators by ours (-pc_hypre_boomeramg_rap_via)
    list(APPEND _amg_cases "hypre|-pcs|hypre|-n|10|-algs|cluster,rowwise|-check")
  endif()
  foreach(c IN LISTS _amg_cases)
    string(REPLACE "|" ";" c "${c}")
    list(POP_FRONT c name)
    add_test(NAME petsc.amg_setup.${name} COMMAND amg_setup ${c} ${PCLUSTER_MALLOC_CHECK_ARGS})
    set_tests_properties(petsc.amg_setup.${name} PROPERTIES LABELS petsc TIMEOUT 300 ENVIRONMENT "${_amg_env}"
      FAIL_REGULAR_EXPRESSION "PETSC ERROR")
  endforeach()
  # -check really fails: with 2 iterations allowed nothing converges, so the default row and ours
  # (cluster at one thread, and at OMP_NUM_THREADS=2 threads) are reported and the exit code is 1
  # (run_expect_error.cmake: that code, that report, no crash, no PETSc error in its place); PETSc's
  # rap row fails too but is not counted.
  list(JOIN PCLUSTER_MALLOC_CHECK_ARGS "|" _malloc_args)
  add_test(NAME petsc.amg_setup.check_fails COMMAND ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:amg_setup>"
    "-DARGS=-problem|poisson|-pcs|gamg|-n|6|-ksp_max_it|2|-check|${_malloc_args}" -DEXIT_CODE=1
    "-DEXPECT1=WARNING: poisson gamg cluster differs: not converged;"
    "-DEXPECT3=WARNING: poisson gamg cluster, 2 threads differs: not converged;"
    "-DEXPECT2=[^0-9]3 row\\(s\\) of ours differ from the default row, or the default did not converge \\(-check: exit code 1\\)"
    -P "${CMAKE_CURRENT_SOURCE_DIR}/run_expect_error.cmake")
  set_tests_properties(petsc.amg_setup.check_fails PROPERTIES LABELS petsc TIMEOUT 60 ENVIRONMENT "${_amg_env}")
  # -help documents every option of the example (and the program still runs, here at a tiny size, and
  # exits with 0). PETSc lists an option as "-n <4>: ..." up to 3.18, "-n: <now 4 : ...>" later.
  pcluster_petsc_run(NAME amg_setup.help EXE amg_setup
    REQUIRE_REGEX "-problem:? <[^\n]*poisson elasticity all.*-n:? <.*-pcs:? <.*-algs:? <.*-ksp_rtol:? <.*-ksp_max_it:? <.*-resetup: .*-reps:? <.*-check: .*-check_rtol:? <.*-json:? <"
    ARGS -help -problem poisson -pcs gamg -n 4)
  # Under MPI (MPIAIJ products), 2 ranks x 1 thread and 3 ranks: the same iterations and levels as
  # PETSc's default, with the set-up time of every rank. Residuals are compared at 1e-4: on several
  # ranks our products add a coarse entry's terms in another order than PETSc's (A's ghost columns
  # are not summed after its local ones, remote contributions arrive through COO), so the coarse
  # operators differ from PETSc's in the last bits, and the final residuals (about 1e-9 |b|) by up
  # to a few 1e-6 relative; PETSc's own MPI PtAP algorithms happen to share one order.
  # PETSc 3.22's own MPIAIJ PtAP (MatPtAPSymbolic_MPIAIJ_MPIAIJ, the default row) writes past a
  # 32-byte block in PCHMG's Galerkin product on 3 ranks here, with the plugin not even registered
  # (valgrind shows PETSc's frames only): there the 3-rank run is PCGAMG's only.
  foreach(np 2 3)
    set(_pcs)
    if(np EQUAL 3 AND PCLUSTER_PETSC_VERSION MATCHES "^3\\.22\\.")
      set(_pcs -pcs gamg)
    endif()
    pcluster_petsc_run(NAME amg_setup.mpi.np${np} EXE amg_setup NP ${np} ENV OMP_NUM_THREADS=1 REQUIRE_REGEX "PCSetUp per rank"
      ARGS -n 10 -algs cluster,rowwise -check -check_rtol 1e-4 ${_pcs})
  endforeach()
  if(PCLUSTER_HYPRE_INCLUDE_DIRS)
    # BoomerAMG's coarse operators on 2 ranks equal hypre's to rounding only, which moves ties of its
    # coarsening: the same iterations, final residuals within 1e-2 (elasticity: 0.4% apart)
    pcluster_petsc_run(NAME amg_setup.mpi.hypre.np2 EXE amg_setup NP 2 ENV OMP_NUM_THREADS=1 REQUIRE_REGEX "PCHYPRE BoomerAMG"
      ARGS -pcs hypre -n 10 -algs rowwise -check -check_rtol 1e-2)
  endif()
endif()
