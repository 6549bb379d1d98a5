# PETSc's report of unfreed memory: with -malloc_dump, PetscFinalize prints one line per block
# still allocated through PetscMalloc, e.g. "[ 0] 112 bytes MatProductSymbolic_X() at file.c:7",
# and still exits with 0. Included by CMakeLists.txt (FAIL_REGULAR_EXPRESSION of the tests it adds
# directly) and by run_compare.cmake and run_expect_error.cmake, which fail on a match.
set(PCLUSTER_MALLOC_DUMP_REGEX "\\[ *[0-9]+\\] *[0-9]+ bytes [^\n]*\\(\\) at ")
# The options every test of a PETSc program with the plugin adds: the report above, and PETSc's
# checking of the whole heap on every PetscMalloc/PetscFree (corruption becomes an error). Runs
# under mpiexec leave the second out: mpi_products and amg_setup, which make thousands of matrices,
# run 10 to 40 times slower with it (the single-process runs, at most twice).
set(PCLUSTER_MALLOC_CHECK_ARGS -malloc_debug -malloc_dump)
set(PCLUSTER_MALLOC_CHECK_ARGS_MPI -malloc_dump)
