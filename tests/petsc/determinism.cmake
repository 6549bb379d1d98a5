# Thread safety and determinism: the same bits on any thread count (determinism.cxx), products in
# flight at once (products_in_flight.cxx), and the plugin loaded twice.
# Labels: petsc, determinism (under mpiexec: mpi).
#
# determinism.cxx: every product type x algorithm of ours, natural and reordered, on 1, 2 (and 4)
# threads: the same bits (MatProductSymbolic+Numeric, a second numeric, the fused user API and its
# MAT_REUSE_MATRIX), on SeqAIJ (one rank) and MPIAIJ (two ranks, two threads each). ctest compares the
# output of two runs with the thread counts in another order: each product's digest of C (global
# columns and value bits) must be the same in both processes.
add_executable(petsc_determinism determinism.cxx)
target_link_libraries(petsc_determinism PRIVATE petsccluster pcluster_support PkgConfig::PETSC MPI::MPI_CXX)
target_include_directories(petsc_determinism PRIVATE "${PROJECT_SOURCE_DIR}/examples")
target_compile_options(petsc_determinism PRIVATE -Wall -Wextra)
# NEGATIVE: the first result is checked against PETSc's (the other checks compare ours with ours);
# its reuses keep the operands' values, so a stale reuse gives the same bits: no `stale` control.
pcluster_petsc_run(NAME determinism.seq EXE petsc_determinism NP 1 ENV OMP_NUM_THREADS=2 LABEL determinism
  NEGATIVE mat NEGATIVE_FAULTS perturb drop zero nan swap
  REQUIRE_REGEX "seqaij on 1 rank.* 0 failed" ARGS -threads 1,2,4 REF_ARGS -threads 4,2,1)
pcluster_petsc_run(NAME determinism.mpi.np2 EXE petsc_determinism NP 2 ENV OMP_NUM_THREADS=2 LABEL determinism
  REQUIRE_REGEX "mpiaij on 2 rank.* 0 failed" ARGS -threads 1,2 REF_ARGS -threads 2,1)
pcluster_petsc_run(NAME determinism.mpi.rmat.np2 EXE petsc_determinism NP 2 ENV OMP_NUM_THREADS=2 LABEL determinism
  REQUIRE_REGEX "mpiaij on 2 rank.* 0 failed" ARGS -gen rmat -n 10 -types AB,PtAP -threads 1,2 REF_ARGS -gen rmat -n 10 -types AB,PtAP -threads 2,1)
# A*B and A*B^T (natural order) come out with the same bits on 1 and 3 ranks: each row of C is summed
# over A's row in increasing global column order on any distribution. (A^T*B, P^T*A*P, R*A*R^T add
# several ranks' contributions in PETSc's COO assembly: their last bits depend on the ranks.)
pcluster_petsc_run(NAME determinism.ranks.AB_ABt EXE petsc_determinism NP 3 REF_NP 1 ENV OMP_NUM_THREADS=1 LABEL determinism
  FILTER_OUT "rank\\(s\\)" REQUIRE_REGEX "mpiaij on 3 rank.* 0 failed"
  ARGS -types AB,ABt -reorder natural -threads 1 REF_ARGS -types AB,ABt -reorder natural -threads 1)
# Two ranks x two threads on a small machine: run alone (barriers of oversubscribed teams are slow).
set_tests_properties(petsc.determinism.mpi.np2 petsc.determinism.mpi.rmat.np2 PROPERTIES PROCESSORS 4)

# products_in_flight.cxx: eleven products alive at once on different matrices (and one A in products
# with different algorithms and prefixes), symbolic phases all first, numeric phases interleaved and
# reordered after new values, a product made while the others live, destroyed in another order; each
# checked against PETSc's default. SeqAIJ and MPIAIJ, and without leaks.
add_executable(petsc_products_in_flight products_in_flight.cxx)
target_link_libraries(petsc_products_in_flight PRIVATE petsccluster pcluster_support PkgConfig::PETSC MPI::MPI_CXX)
target_include_directories(petsc_products_in_flight PRIVATE "${PROJECT_SOURCE_DIR}/examples")
target_compile_options(petsc_products_in_flight PRIVATE -Wall -Wextra)
pcluster_petsc_run(NAME in_flight.seq EXE petsc_products_in_flight LABEL determinism REQUIRE_REGEX "on seqaij.* 0 failed" NEGATIVE mat)
pcluster_petsc_run(NAME in_flight.mpi.np2 EXE petsc_products_in_flight NP 2 ENV OMP_NUM_THREADS=2 LABEL determinism
  REQUIRE_REGEX "on mpiaij.* 0 failed")
set_tests_properties(petsc.in_flight.mpi.np2 PROPERTIES PROCESSORS 4)
pcluster_petsc_run(NAME in_flight.mpi.np3 EXE petsc_products_in_flight NP 3 ENV OMP_NUM_THREADS=1 LABEL determinism
  REQUIRE_REGEX "on mpiaij.* 0 failed" ARGS -n 8)
pcluster_petsc_run(NAME in_flight.malloc_dump EXE petsc_products_in_flight LABEL determinism
  REQUIRE_REGEX " 0 failed" ARGS -n 8)
pcluster_petsc_run(NAME in_flight.mpi.malloc_dump.np2 EXE petsc_products_in_flight NP 2 ENV OMP_NUM_THREADS=1 LABEL determinism
  REQUIRE_REGEX " 0 failed" ARGS -n 8 -malloc_debug)

# The plugin loaded twice: products_in_flight registers it itself (PetscClusterInitializePackage) and
# also gets -dll_append, with the plugin once, twice, and with a copy from another directory (same
# file name, so PETSc calls its register function too). Registration must happen once (-info: the
# constructors wrapped once; -help: our help once, each product's options once; -log_view: one
# MatClusterSym event) and the dispatch must not be wrapped twice (-info: our hook takes each of the
# eleven products once), without leaks.
set(_plugin_copy "${CMAKE_CURRENT_BINARY_DIR}/plugin_copy/libpetsccluster.so")
add_custom_command(OUTPUT "${_plugin_copy}" COMMAND ${CMAKE_COMMAND} -E copy "$<TARGET_FILE:petsccluster>" "${_plugin_copy}"
  DEPENDS petsccluster COMMENT "A copy of the plugin under another directory (tests of loading it twice)")
add_custom_target(petsc_plugin_copy ALL DEPENDS "${_plugin_copy}")
set(_once_info "1:petsc-cluster: seqaij and mpiaij constructors wrapped" "1:petsc-cluster registered:"
    "11:petsc-cluster takes MatProduct")
# (and p01 takes A's clusters from p10, once)
pcluster_petsc_run(NAME loaded_twice.dll_append EXE petsc_products_in_flight LABEL determinism
  REQUIRE_REGEX " 0 failed" REQUIRE_COUNT ${_once_info} "1:AB cluster_hierarchical: A's ordering and clusters taken from an earlier product"
  ARGS -n 6 -dll_append ${_plugin} -info :mat,sys)
pcluster_petsc_run(NAME loaded_twice.dll_append_list EXE petsc_products_in_flight LABEL determinism
  REQUIRE_REGEX " 0 failed" REQUIRE_COUNT ${_once_info} "1:\nMatClusterSym +[0-9]+ "
  ARGS -n 6 -dll_append ${_plugin},${_plugin},${_plugin_copy} -info :mat,sys -log_view)
pcluster_petsc_run(NAME loaded_twice.help EXE petsc_products_in_flight LABEL determinism
  REQUIRE_REGEX " 0 failed" REQUIRE_COUNT "1:petsc-cluster SpGEMM plugin:" "1:-p03_mat_cluster_size:? <" # "-x <v>" up to 3.18, "-x: <now v ...>" later
  ARGS -n 6 -dll_append ${_plugin},${_plugin_copy} -help)
pcluster_petsc_run(NAME loaded_twice.malloc_dump EXE petsc_products_in_flight LABEL determinism
  REQUIRE_REGEX " 0 failed" ARGS -n 6 -dll_append ${_plugin},${_plugin_copy})
