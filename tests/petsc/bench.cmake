# The benchmark as a correctness check (it exits nonzero if any algorithm's result differs from
# PETSc's default): the README's main job on its embedded default, the generated suite shrunk, a
# shared real matrix, A times PCGAMG's tentative prolongator, and the MatMatMult path where our
# symbolic phase also forms the values; the ordering study (ordering_study) and its chart; the
# batched BFS.
# Labels: petsc, bench.
if(TARGET spgemm_bench)
  set(_bench_cases
    "default|-reps|1"
    "suite_small|-suite|-suite_scale|0.002|-reps|1"
    "matmatmult_api|-gen|s27|-n|16|-api|matmatmult|-reps|1"
    "shuffled_e27|-gen|e27|-n|8|-shuffle|7|-reps|1"
    # C = P^T A P with PCGAMG's own prolongator, through MatProduct and through MatPtAP()
    "ptap_suite_small|-product|ptap|-suite|-suite_scale|0.002|-reps|1"
    "ptap_matptap_api|-product|ptap|-gen|e27|-n|8|-shuffle|7|-api|matptap|-reps|1"
    # C = A P with PCGAMG's tentative prolongator (one entry a row; e27: six, rigid body modes)
    "ap_p7|-product|ap|-gen|p7|-n|14|-reps|1"
    "ap_e27_matmatmult_api|-product|ap|-gen|e27|-n|6|-api|matmatmult|-reps|1")
  foreach(c IN LISTS _bench_cases)
    string(REPLACE "|" ";" c "${c}")
    list(POP_FRONT c name)
    add_test(NAME petsc.bench.${name} COMMAND spgemm_bench ${c} ${PCLUSTER_MALLOC_CHECK_ARGS})
    set_tests_properties(petsc.bench.${name} PROPERTIES LABELS "petsc;bench" TIMEOUT 600 ENVIRONMENT "${_test_env}")
  endforeach()
  # Issue 17's memory bound: one PtAP with PCGAMG's P (mid-size 3D Poisson and elasticity, an R-MAT
  # graph) adds at its peak no more than 1.1x what PETSc's default (scalable) adds, measured in the
  # same run (-max_peak_ratio; the program fails if it cannot measure PETSc's figure), through
  # MatProductSymbolic/Numeric and through MatPtAP (whose symbolic pass forms the values too, by
  # rows of C). Without PETSc's -malloc_debug, whose guards would inflate PETSc's figure, and not in
  # the sanitizer build, whose allocator keeps freed memory in quarantine.
  if(NOT PCLUSTER_SANITIZE)
    foreach(g "p7|50" "e27|20" "rmat|12")
      string(REPLACE "|" ";" g "${g}")
      list(GET g 0 _gen)
      list(GET g 1 _n)
      foreach(_api matproduct matptap)
        set(_name petsc.bench.ptap_memory.${_gen})
        if(_api STREQUAL "matptap")
          set(_name petsc.bench.ptap_memory_matptap.${_gen})
        endif()
        add_test(NAME ${_name} COMMAND spgemm_bench -product ptap -gen ${_gen} -n ${_n} -api ${_api} -algs scalable,rowwise,cluster
                 -reps 1 -max_peak_ratio 1.1)
        set_tests_properties(${_name} PROPERTIES LABELS "petsc;bench" TIMEOUT 600 ENVIRONMENT "${_test_env};OMP_NUM_THREADS=1"
                             FAIL_REGULAR_EXPRESSION "OVER THE LIMIT") # and the exit code
      endforeach()
    endforeach()
    # MPIAIJ (issue 17, item 2): one MatPtAP on 2 ranks at most 1.2 x allatonce's peak, the largest rank's:
    # a 7-point grid (1.01-1.04 here at n = 80; 1.08-1.12 at n = 50) and an R-MAT graph, whose local
    # result is nearly all of C, half of it sent to the other rank (0.83 at scale 12; 1.75 when PETSc's
    # COO assembly carried those rows)
    if(TARGET mpi_bench)
      foreach(_case "p7;80" "rmat;12")
        list(GET _case 0 _gen)
        list(GET _case 1 _n)
        add_test(NAME petsc.bench.ptap_memory_mpi.${_gen}.np2
                 COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 ${MPIEXEC_PREFLAGS} $<TARGET_FILE:mpi_bench> -product ptap -gen ${_gen} -n ${_n}
                         -petsc_algs allatonce -algs rowwise,cluster -reps 1 -max_peak_ratio 1.2)
        set_tests_properties(petsc.bench.ptap_memory_mpi.${_gen}.np2 PROPERTIES LABELS "petsc;bench;mpi" TIMEOUT 600 ENVIRONMENT "${_test_env};OMP_NUM_THREADS=1"
                             FAIL_REGULAR_EXPRESSION "OVER THE LIMIT")
      endforeach()
    endif()
  endif()
  if(EXISTS "${_shared}/bcsstk13.mtx")
    add_test(NAME petsc.bench.bcsstk13 COMMAND spgemm_bench -f "${_shared}/bcsstk13.mtx" -reps 1 ${PCLUSTER_MALLOC_CHECK_ARGS})
    set_tests_properties(petsc.bench.bcsstk13 PROPERTIES LABELS "petsc;bench" TIMEOUT 600 ENVIRONMENT "${_test_env}")
  endif()
endif()

if(TARGET ordering_study)
  # examples/ordering_study (issue 4's Table 2) on a shrunk suite, and its chart (Debian's python3,
  # which has python3-matplotlib; another python3 may come first on PATH).
  add_test(NAME petsc.bench.study_orderings COMMAND ordering_study -suite -suite_scale 0.002 -orderings rcm,hp -reps 1
           -json ${CMAKE_CURRENT_BINARY_DIR}/study_orderings.json ${PCLUSTER_MALLOC_CHECK_ARGS})
  set_tests_properties(petsc.bench.study_orderings PROPERTIES LABELS "petsc;bench" TIMEOUT 600 ENVIRONMENT "${_test_env}"
                       FIXTURES_SETUP study_orderings_json)
  find_program(_debian_python3 python3 PATHS /usr/bin NO_DEFAULT_PATH)
  if(_debian_python3)
    add_test(NAME petsc.bench.plot_orderings COMMAND ${_debian_python3} ${PROJECT_SOURCE_DIR}/scripts/plot_orderings.py
             ${CMAKE_CURRENT_BINARY_DIR}/study_orderings.json ${CMAKE_CURRENT_BINARY_DIR}/study_orderings.png)
    set_tests_properties(petsc.bench.plot_orderings PROPERTIES LABELS "petsc;bench" FIXTURES_REQUIRED study_orderings_json)
  endif()
endif()

# The batched multi-source BFS (issue 4's square x tall-skinny workload): it exits nonzero if any
# level's product differs from PETSc's (pattern, or path counts: integers, compared exactly). Every kind of our
# algorithm, with and without reordering, on a power-law graph and on a shuffled grid; and, in -info,
# the second level's product taking A's ordering and clusters from the first (not recomputing them).
if(TARGET bfs)
  add_test(NAME petsc.bench.bfs_rmat COMMAND bfs -n 10 -sources 16 -reps 1
           -algs sorted,llcondensed,rowwise,cluster,cluster_fixed,cluster_variable,cluster_hierarchical -orderings natural,rcm,gp,random
           ${PCLUSTER_MALLOC_CHECK_ARGS})
  add_test(NAME petsc.bench.bfs_grid_shuffled COMMAND bfs -gen p7 -n 8 -shuffle 3 -sources 8 -reps 1
           -algs sorted,rowwise,cluster_fixed,cluster_hierarchical -orderings natural,rcm,degree ${PCLUSTER_MALLOC_CHECK_ARGS})
  set_tests_properties(petsc.bench.bfs_rmat petsc.bench.bfs_grid_shuffled PROPERTIES LABELS "petsc;bench" TIMEOUT 600 ENVIRONMENT "${_test_env}")
  pcluster_petsc_run(NAME bfs.analysis_reused EXE bfs LABEL bench
    REQUIRE_REGEX "A's ordering and clusters taken from an earlier product with the same A"
    ARGS -n 8 -sources 4 -reps 1 -algs sorted,cluster_variable -orderings rcm -max_levels 3 -info :mat)
  # With -mat_cluster_reuse_analysis false nothing is kept on A.
  pcluster_petsc_run(NAME bfs.analysis_not_reused EXE bfs LABEL bench
    FORBID_REGEX "taken from an earlier product"
    ARGS -n 8 -sources 4 -reps 1 -algs sorted,cluster_variable -orderings rcm -max_levels 3 -mat_cluster_reuse_analysis false -info :mat)
endif()
