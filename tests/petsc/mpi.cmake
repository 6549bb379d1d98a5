# MATMPIAIJ: every product type x every algorithm of ours against PETSc's own MPI algorithm, on 1-4
# ranks, even, uneven and empty-first row layouts (tests/petsc/mpi_products.cxx), generated and real
# matrices; 2 OpenMP threads per rank in the hybrid runs; a pattern change on one rank fails on all.
# (The stock programs on 2 and 3 ranks are in products.cmake, the multigrid tutorials on 2 and 4
# ranks in amg.cmake, amg_setup under mpiexec in amg_example.cmake.)
# Labels: petsc, mpi (and compare on the real matrices).
add_executable(petsc_mpi_products mpi_products.cxx)
target_link_libraries(petsc_mpi_products PRIVATE petsccluster pcluster_support PkgConfig::PETSC MPI::MPI_CXX)
target_include_directories(petsc_mpi_products PRIVATE "${PROJECT_SOURCE_DIR}/examples")
target_compile_options(petsc_mpi_products PRIVATE -Wall -Wextra)
foreach(np 1 2 3 4)
  set(_neg "")
  if(np EQUAL 2)
    set(_neg NEGATIVE mat) # the negative controls of the MPI layer (tests/negative)
  endif()
  pcluster_petsc_run(NAME mpi.products.p7.np${np} EXE petsc_mpi_products NP ${np} ENV OMP_NUM_THREADS=1 ${_neg}
    REQUIRE_REGEX " 0 failed" ARGS -gen p7 -n 8)
endforeach()
pcluster_petsc_run(NAME mpi.products.p7.uneven.np3 EXE petsc_mpi_products NP 3 ENV OMP_NUM_THREADS=1
  REQUIRE_REGEX " 0 failed" ARGS -gen p7 -n 9 -layout uneven)
foreach(np 2 3)
  pcluster_petsc_run(NAME mpi.products.s27.empty_first.np${np} EXE petsc_mpi_products NP ${np} ENV OMP_NUM_THREADS=1
    REQUIRE_REGEX " 0 failed" ARGS -gen s27 -n 7 -layout empty_first)
endforeach()
pcluster_petsc_run(NAME mpi.products.e27.hybrid.np2 EXE petsc_mpi_products NP 2 ENV OMP_NUM_THREADS=2
  REQUIRE_REGEX " 0 failed" ARGS -gen e27 -n 5 -layout uneven)
pcluster_petsc_run(NAME mpi.products.rmat.np3 EXE petsc_mpi_products NP 3 ENV OMP_NUM_THREADS=1
  REQUIRE_REGEX " 0 failed" ARGS -gen rmat -n 9)
# In-product reordering of each rank's local pieces
foreach(ord rcm gp)
  pcluster_petsc_run(NAME mpi.products.e27.reorder_${ord}.np2 EXE petsc_mpi_products NP 2 ENV OMP_NUM_THREADS=1
    REQUIRE_REGEX " 0 failed" ARGS -gen e27 -n 4 -algorithms cluster,rowwise -mat_cluster_reorder ${ord})
endforeach()
# Real matrices (skipped without ../shared/matrices: the program exits with 77, which ctest reports as
# a skip): FEM, circuit with an uneven layout, a power-law graph with rank 0 owning no rows, the
# rectangular Franz6 (A^T*A, A*A^T), dense rows (mbeacxc). Label compare, as the other comparisons on
# ../shared/matrices: the sanitizer stage of CI leaves them out (the generated runs above take the same paths).
foreach(c IN ITEMS "bcsstk13|2|even" "rajat01|3|uneven|-types|AB,AtB,PtAP" "ca-GrQc|3|empty_first"
                   "Franz6_id1959_aug|2|uneven" "mbeacxc|2|even")
  string(REPLACE "|" ";" c "${c}")
  list(POP_FRONT c name np layout)
  pcluster_petsc_run(NAME mpi.products.${name}.np${np} EXE petsc_mpi_products NP ${np} ENV OMP_NUM_THREADS=1 LABEL compare
    REQUIRE_REGEX " 0 failed" SKIP_RETURN_CODE 77 ARGS -f "${_shared}/${name}.mtx" -skip_if_missing -layout ${layout} ${c})
endforeach()
# The plugin, not PETSc, made the MPI products (-info), for every type
pcluster_petsc_run(NAME mpi.products.engaged.np2 EXE petsc_mpi_products NP 2 ENV OMP_NUM_THREADS=1
  REQUIRE_REGEX "petsc-cluster AB cluster: local rows.*petsc-cluster AtB cluster: local rows.*petsc-cluster ABt cluster: local rows.*petsc-cluster PtAP cluster: local rows.*petsc-cluster RARt cluster: local rows.*petsc-cluster ABC cluster: local rows"
  ARGS -gen p7 -n 6 -algorithms cluster -info)
