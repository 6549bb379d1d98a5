# Our own PETSc-API test program (plugin_api.cxx: links the plugin and registers it in code): the
# MatProduct API (names set in code, symbolic-only, MatProductClear, MatProductReplaceMats,
# MAT_REUSE_MATRIX, empty/rectangular operands, thread counts, errors leaving the operands untouched;
# every product type against PETSc's default, operands whose pattern changed, AIJ x MAIJ); and a
# wide, sparse product (wide_product.cxx).
# Label: petsc.
add_executable(petsc_plugin_api plugin_api.cxx)
target_link_libraries(petsc_plugin_api PRIVATE petsccluster PkgConfig::PETSC MPI::MPI_CXX OpenMP::OpenMP_CXX) # parallel.hpp: kMinParallelWork
target_compile_options(petsc_plugin_api PRIVATE -Wall -Wextra)
# It reads Mat_Product::alg from petsc/private/matimpl.h, which is not -Wextra clean.
target_include_directories(petsc_plugin_api SYSTEM PRIVATE ${PETSC_INCLUDE_DIRS})
# The thread test checks its operands against the core's parallel-work threshold (src/parallel.hpp);
# products are compared with PETSc's by examples/product_check.hpp.
target_include_directories(petsc_plugin_api PRIVATE "${PROJECT_SOURCE_DIR}/src" "${PROJECT_SOURCE_DIR}/examples")
set(_api_args "")
if(PCLUSTER_TEST_PETSC_NAMES)
  set(_api_args -petsc_names)
endif()
pcluster_petsc_run(NAME plugin_api EXE petsc_plugin_api REQUIRE_REGEX "all plugin API checks passed" NEGATIVE mat ARGS ${_api_args})
pcluster_petsc_run(NAME plugin_api.dll_append_too EXE petsc_plugin_api
  REQUIRE_REGEX "all plugin API checks passed" ARGS -dll_append ${_plugin} ${_api_args})

# A wide and sparse product (B with 2^28 columns) with each of our algorithms and accumulators:
# reference result, and a few MB of peak resident memory where ncols-wide arrays would take 1 GiB;
# -info shows each step's workspace and that -mat_cluster_accumulator dense was not applied.
add_executable(petsc_wide_product wide_product.cxx)
target_link_libraries(petsc_wide_product PRIVATE petsccluster PkgConfig::PETSC MPI::MPI_CXX)
target_include_directories(petsc_wide_product PRIVATE "${PROJECT_SOURCE_DIR}/examples")
target_compile_options(petsc_wide_product PRIVATE -Wall -Wextra)
pcluster_petsc_run(NAME wide_product EXE petsc_wide_product REQUIRE_REGEX "all wide product checks passed" ARGS)
pcluster_petsc_run(NAME wide_product.info EXE petsc_wide_product
  REQUIRE_REGEX "AB rowwise: C = A\\*B: workspace \\(symbolic phase\\) [0-9]+ KiB per thread.*AB cluster_fixed: C = A\\*B: -mat_cluster_accumulator dense not applied"
  ARGS -info :mat)
