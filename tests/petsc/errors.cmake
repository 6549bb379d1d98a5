# Bad input must end in a PETSc error that says what is wrong, without memory errors.
# - Bad options (petsc.error.*, in stock programs): unknown algorithm names and out-of-range
#   parameters must end in a PETSc error that names the option and lists the valid choices.
# - bad_input (bad_input*.cxx, also on 2 ranks): every bad-input case of issue 6 with
#   its error code and message, the operands unchanged and usable afterwards (see its header).
# - Malformed Matrix Market files (petsc.error.mtx.*) given to every program that reads them.
# Labels: petsc, errors (under mpiexec: mpi).

# Bad options, in stock programs.
if(_have_stock)
  set(_names "cluster" "cluster_fixed" "cluster_variable" "cluster_hierarchical" "rowwise")
  pcluster_petsc_error(NAME matmatmult_via_bogus EXE stock_ex93
    ARGS ${_load} -matmatmult_via bogus
    EXPECT "bogus" "-matmatmult_via" ${_names} "scalable")
  pcluster_petsc_error(NAME mat_product_algorithm_bogus EXE stock_ex62
    ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm bogus
    EXPECT "bogus" "-AB_mat_product_algorithm" ${_names})
  foreach(v 0 65 -3)
    pcluster_petsc_error(NAME mat_cluster_size_${v} EXE stock_ex93
      ARGS ${_load} -matmatmult_via cluster_fixed -mat_cluster_size ${v}
      EXPECT "-mat_cluster_size ${v} is out of range: must be in \\[1, 64\\]")
  endforeach()
  pcluster_petsc_error(NAME mat_cluster_accumulator_foo EXE stock_ex93
    ARGS ${_load} -matmatmult_via cluster -mat_cluster_accumulator foo
    EXPECT "-mat_cluster_accumulator" "foo" "auto" "hash" "dense")
  pcluster_petsc_error(NAME mat_cluster_triple_product_foo EXE stock_ex93
    ARGS ${_load} -matptap_via rowwise -mat_cluster_triple_product foo
    EXPECT "-mat_cluster_triple_product" "foo" "fused" "fused_rows_of_c" "fused_rows_of_a" "stored")
  pcluster_petsc_error(NAME mat_cluster_jaccard_threshold_1.5 EXE stock_ex93
    ARGS ${_load} -matmatmult_via cluster_variable -mat_cluster_jaccard_threshold 1.5
    EXPECT "-mat_cluster_jaccard_threshold")
  pcluster_petsc_error(NAME mat_cluster_topk_-1 EXE stock_ex93
    ARGS ${_load} -matmatmult_via cluster_hierarchical -mat_cluster_topk -1
    EXPECT "-mat_cluster_topk")
  # A top-k above what the largest cluster can absorb (63) is refused naming the option and range.
  pcluster_petsc_error(NAME mat_cluster_topk_100 EXE stock_ex93
    ARGS ${_load} -matmatmult_via cluster_hierarchical -mat_cluster_topk 100
    EXPECT "-mat_cluster_topk" "63")
  pcluster_petsc_error(NAME AB_mat_cluster_size_0 EXE stock_ex62
    ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm cluster -AB_mat_cluster_size 0
    EXPECT "-AB_mat_cluster_size" "64")
  # An unknown ordering for -mat_cluster_reorder lists the valid ones.
  pcluster_petsc_error(NAME mat_cluster_reorder_bogus EXE stock_ex93
    ARGS ${_load} -matmatmult_via cluster -mat_cluster_reorder bogus
    EXPECT "-mat_cluster_reorder" "bogus" "natural" "rcm" "amd" "gray" "slashburn")
  pcluster_petsc_error(NAME mat_cluster_reorder_hub_fraction_0 EXE stock_ex93
    ARGS ${_load} -matmatmult_via rowwise -mat_cluster_reorder slashburn -mat_cluster_reorder_hub_fraction 0
    EXPECT "-mat_cluster_reorder_hub_fraction")
  # The same tunables, checked the same way, when our ordering is a PETSc ordering (MatGetOrdering).
  pcluster_petsc_error(NAME mat_ordering_pcluster_gray_bits_0 EXE stock_ksp_ex4
    ARGS ${_load} -m 6 -n 6 -pc_type lu -pc_factor_mat_ordering_type pcluster_gray -mat_cluster_reorder_gray_bits 0
    EXPECT "-mat_cluster_reorder_gray_bits" "1, 62")
endif()

# bad_input.cxx: bad input case by case (issue 6): the error code and message of each call, the
# caller's matrices unchanged afterwards and no PETSc memory left behind by the call (checked per
# case under -malloc_debug, hence OWN_LEAK_CHECK: PETSc's own leaks on some of its error paths make
# -malloc_dump unusable here). On 2 ranks: the MATMPIAIJ cases (an error on one rank must fail all).
# One program: on one rank the SeqAIJ and limits sections, on more the MATMPIAIJ ones (bad_input.hpp).
add_executable(petsc_bad_input bad_input.cxx bad_input_seqaij.cxx bad_input_limits.cxx bad_input_mpiaij.cxx)
target_link_libraries(petsc_bad_input PRIVATE petsccluster PkgConfig::PETSC MPI::MPI_CXX)
target_compile_options(petsc_bad_input PRIVATE -Wall -Wextra)
pcluster_petsc_run(NAME bad_input EXE petsc_bad_input LABEL errors OWN_LEAK_CHECK
  REQUIRE_REGEX "all bad-input checks passed" FORBID_REGEX "Corrupted memory")
pcluster_petsc_run(NAME bad_input.np2 EXE petsc_bad_input NP 2 LABEL errors OWN_LEAK_CHECK ENV OMP_NUM_THREADS=1
  REQUIRE_REGEX "all bad-input checks passed" FORBID_REGEX "Corrupted memory")

# Malformed Matrix Market files given to every program that reads them (spgemm_bench -f and -files,
# compare_products, mpi_bench, bfs): each must stop with PETSC_ERR_FILE_UNEXPECTED (or, for a file
# that cannot be opened, PETSC_ERR_FILE_OPEN) and a message naming the file and the line, no crash.
# The files are written here, at configure time. Each entry: name | expected exit code (PETSc's
# error code) | regex after "<name>.mtx:" (the line number, then what is wrong) | contents.
set(_mm_dir "${CMAKE_CURRENT_BINARY_DIR}/malformed_mtx")
set(_g "%%MatrixMarket matrix coordinate real general\n")
set(_mm_cases
  "empty|79|1: empty file|"
  "bad_banner|79|1: bad banner: the first line must start with '%%MatrixMarket'|%%MatrixMarkt matrix coordinate real general\n2 2 1\n1 1 1\n"
  "object_vector|79|1: bad banner: object 'vector'|%%MatrixMarket vector coordinate real general\n2 2 1\n1 1 1\n"
  "format_array|79|1: the dense 'array' format is not supported|%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n"
  "format_other|79|1: bad banner: format 'sparse'|%%MatrixMarket matrix sparse real general\n2 2 1\n1 1 1\n"
  "field_complex|79|1: complex matrices are not supported|%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n"
  "field_other|79|1: bad banner: field 'quaternion'|%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n"
  "symmetry_other|79|1: bad banner: symmetry 'diagonal'|%%MatrixMarket matrix coordinate real diagonal\n1 1 1\n1 1 1\n"
  "no_size_line|79|3: file ends before the size line|${_g}% a comment and nothing else\n"
  "size_line_text|79|2: bad size line '2 x 1'|${_g}2 x 1\n1 1 1\n"
  "size_line_short|79|2: bad size line '2 2'|${_g}2 2\n1 1 1\n"
  "size_negative|79|2: negative count in the size line|${_g}-2 2 1\n"
  "rows_beyond_int32|79|2: rows = 3000000000 does not fit the index type|${_g}3000000000 2 1\n1 1 1\n"
  "entries_beyond_int32|79|2: stored entries after mirroring = 3000000000 does not fit|${_g}2 2 3000000000\n1 1 1\n"
  "fewer_entries|79|5: file is truncated: 2 of the 3 entries announced on line 2 were found|${_g}2 2 3\n1 1 1\n2 2 2\n"
  "more_entries|79|4: more entries than the 1 announced on line 2|${_g}2 2 1\n1 1 1\n2 2 2\n"
  "row_index_0|79|3: index \\(0, 1\\) out of range: the matrix is 2 x 2|${_g}2 2 1\n0 1 1\n"
  "column_index_beyond|79|3: index \\(1, 3\\) out of range: the matrix is 2 x 2|${_g}2 2 1\n1 3 1\n"
  "index_negative|79|3: index \\(-1, 1\\) out of range|${_g}2 2 1\n-1 1 1\n"
  "index_not_integer|79|3: bad entry '1 x 1': expected two integer indices|${_g}2 2 1\n1 x 1\n"
  "value_not_numeric|79|3: bad entry '1 1 abc': the value is not a finite real number|${_g}2 2 1\n1 1 abc\n"
  "value_nan|79|3: bad entry '1 1 nan': the value is not a finite real number|${_g}2 2 1\n1 1 nan\n"
  "value_missing|79|4: bad entry '2 1': the value is missing|${_g}2 2 2\n1 1 1\n2 1\n"
  "truncated_entry|79|4: bad entry '2': expected two integer indices|${_g}2 2 2\n1 1 1\n2"
  "extra_text|79|3: bad entry '1 1 1 7': unexpected text after the value|${_g}2 2 1\n1 1 1 7\n")
file(MAKE_DIRECTORY "${_mm_dir}")
set(_mm_readers
  "spgemm_bench.f|spgemm_bench|-f|@|-reps|1"
  "spgemm_bench.files|spgemm_bench|-files|@|-reps|1"
  "compare_products|compare_products|-f|@"
  "mpi_bench|mpi_bench|-f|@|-reps|1"
  "bfs|bfs|-f|@|-reps|1")
foreach(c IN LISTS _mm_cases ITEMS "does_not_exist|65| cannot open the file for reading|")
  string(FIND "${c}" "|" _p1)
  string(SUBSTRING "${c}" 0 ${_p1} _name)
  math(EXPR _p1 "${_p1} + 1")
  string(SUBSTRING "${c}" ${_p1} -1 c)
  string(FIND "${c}" "|" _p2)
  string(SUBSTRING "${c}" 0 ${_p2} _code)
  math(EXPR _p2 "${_p2} + 1")
  string(SUBSTRING "${c}" ${_p2} -1 c)
  string(FIND "${c}" "|" _p3)
  string(SUBSTRING "${c}" 0 ${_p3} _re)
  math(EXPR _p3 "${_p3} + 1")
  string(SUBSTRING "${c}" ${_p3} -1 _text)
  set(_file "${_mm_dir}/${_name}.mtx")
  if(NOT _name STREQUAL "does_not_exist")
    file(WRITE "${_file}" "${_text}")
  endif()
  foreach(r IN LISTS _mm_readers)
    string(REPLACE "|" ";" r "${r}")
    list(POP_FRONT r _reader _exe)
    if(NOT TARGET ${_exe})
      continue()
    endif()
    string(REPLACE "@" "${_file}" r "${r}")
    pcluster_petsc_error(NAME mtx.${_name}.${_reader} EXE ${_exe} EXIT_CODE ${_code}
      ARGS ${r} EXPECT "${_name}\\.mtx:${_re}")
  endforeach()
endforeach()
# Every rank reads the file: on 2 ranks the job stops (the first rank's MPI_Abort may end the
# other before it prints), with the message, and does not hang.
if(TARGET mpi_bench) # not with PCLUSTER_BUILD_EXAMPLES=OFF
  foreach(_name bad_banner column_index_beyond)
    pcluster_petsc_error(NAME mtx.${_name}.mpi_bench.np2 EXE mpi_bench NP 2 ARGS -f "${_mm_dir}/${_name}.mtx" -reps 1
      EXPECT "PETSC ERROR: [^ ]*${_name}\\.mtx:")
  endforeach()
endif()

# A plugin built for the other PetscInt width (Debian installs both flavours side by side: PETSc and
# PETSc64) must refuse to register, with a message, instead of misreading every matrix: PETSc's
# stock ex62 built against the other flavour loads this build's plugin.
if(_have_stock)
  if(PCLUSTER_PETSC_PKG STREQUAL "PETSc64")
    set(_other_flavour PETSc)
  else()
    set(_other_flavour PETSc64)
  endif()
  pkg_check_modules(PETSC_OTHER QUIET IMPORTED_TARGET ${_other_flavour})
  if(PETSC_OTHER_FOUND AND PETSC_OTHER_VERSION VERSION_EQUAL PETSC_VERSION)
    add_executable(stock_ex62_other_flavour "${_mat_tests}/ex62.c")
    target_link_libraries(stock_ex62_other_flavour PRIVATE PkgConfig::PETSC_OTHER MPI::MPI_C m)
    target_compile_options(stock_ex62_other_flavour PRIVATE -w)
    add_dependencies(stock_ex62_other_flavour petsccluster)
    pcluster_petsc_error(NAME flavour_mismatch EXE stock_ex62_other_flavour
      ARGS ${_load} -fA ${_tiny} -fB ${_tiny}
      EXPECT "petsc-cluster was built for a PETSc with ${PCLUSTER_PETSC_INT_BITS}-bit PetscInt, but this program runs [^\n]* with [0-9]+-bit PetscInt: rebuild the plugin for it")
  else()
    message(STATUS "tests/petsc: no ${_other_flavour} ${PETSC_VERSION} (the other PetscInt width) to test the plugin's refusal with")
  endif()
endif()
