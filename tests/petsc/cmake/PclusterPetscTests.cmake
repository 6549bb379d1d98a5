# The functions every file of tests/petsc adds its tests with (included by CMakeLists.txt before the
# per-area files). Each PETSc run goes through run_compare.cmake or run_expect_error.cmake, with the
# environment _test_env and the memory checks of malloc_dump.cmake.
#
# Every run of a PETSc program with the plugin has -malloc_dump (PETSc's report of unfreed memory
# at PetscFinalize; a report fails the test) and, but for runs under mpiexec, -malloc_debug (its
# checking allocator); see malloc_dump.cmake.

# pcluster_petsc_run(NAME <test> EXE <target> [EXPECTED <file>] [FILTER_OUT <regex>]
#                    [REQUIRE_REGEX <regex>] [FORBID_REGEX <regex>] [LOG_LESS <evA<evB,...>]
#                    [REQUIRE_COUNT <n>:<regex> ...] [REF_NP <ranks>] [SKIP_RETURN_CODE <code>]
#                    [WORKDIR <dir>] [LABEL <sublabel>] [NP <ranks>] [ENV var=value ...]
#                    [WRAP <command> ...] [OWN_LEAK_CHECK]
#                    [NEGATIVE <layer> [NEGATIVE_FAULTS f ...] [NEGATIVE_ALSO <regex>]]
#                    ARGS ... [REF_ARGS ...])
# The program runs with -malloc_dump, and fails on a report of unfreed memory; and with
# -malloc_debug unless under mpiexec (malloc_dump.cmake). OWN_LEAK_CHECK: the program checks
# PETSc's memory itself, case by case (bad_input.cxx, some of whose cases make PETSc leak on its own
# error paths): -malloc_debug -malloc_dump 0 (with -malloc_debug alone PETSc 3.18 dumps too).
# NP: run under mpiexec on that many ranks (label mpi; ranks not bound to cores, so OpenMP threads
# can spread).
# WRAP: a command the program runs under (on each rank under mpiexec), e.g. valgrind and its options.
# REF_ARGS: compare with the output of the same program run with these arguments instead of a file.
# LOG_LESS: in the -log_view output, event A ran fewer times than event B (see run_compare.cmake).
# REQUIRE_COUNT: each regex matches the output exactly n times (at most 9).
# REF_NP: the reference run (REF_ARGS) on this many ranks instead of NP.
# NEGATIVE: also the negative controls of this run (tests/negative/negative.cmake, in a build with
# PCLUSTER_FAULT_INJECTION): with each fault (or those of NEGATIVE_FAULTS) injected it must fail
# with the message of <layer> (mat, view, amg, hist), or with NEGATIVE_ALSO (the program's own check).
# SKIP_RETURN_CODE: the program exiting with this code (e.g. 77: a shared matrix is missing) is a
# skipped test, reported as such by ctest; any other nonzero code still fails. (The test runs
# run_compare.cmake, and cmake -P cannot exit with a given code before CMake 3.29: the script prints
# PCLUSTER_TEST_SKIPPED for that code only, and the test's SKIP_REGULAR_EXPRESSION matches it.)
function(pcluster_petsc_run)
  cmake_parse_arguments(T "OWN_LEAK_CHECK" "NAME;EXE;EXPECTED;FILTER_OUT;REQUIRE_REGEX;FORBID_REGEX;LOG_LESS;WORKDIR;LABEL;NP;REF_NP;SKIP_RETURN_CODE;NEGATIVE;NEGATIVE_ALSO" "ARGS;REF_ARGS;ENV;REQUIRE_COUNT;WRAP;NEGATIVE_FAULTS" ${ARGN})
  if(NOT T_WORKDIR)
    set(T_WORKDIR "${CMAKE_CURRENT_BINARY_DIR}")
  endif()
  if(T_OWN_LEAK_CHECK)
    list(APPEND T_ARGS -malloc_debug -malloc_dump 0)
    list(APPEND T_ENV ${PCLUSTER_SANITIZER_ENV_OWN_LEAK_CHECK}) # after _test_env's LSAN_OPTIONS: replaces it
  elseif(T_NP)
    list(APPEND T_ARGS ${PCLUSTER_MALLOC_CHECK_ARGS_MPI})
  else()
    list(APPEND T_ARGS ${PCLUSTER_MALLOC_CHECK_ARGS})
  endif()
  list(JOIN T_ARGS "|" _a)
  list(JOIN T_REF_ARGS "|" _r)
  set(_cmd ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:${T_EXE}>" "-DARGS=${_a}"
           "-DWORKDIR=${T_WORKDIR}")
  if(T_EXPECTED)
    list(APPEND _cmd "-DEXPECTED=${T_EXPECTED}")
  endif()
  if(T_FILTER_OUT)
    list(APPEND _cmd "-DFILTER_OUT=${T_FILTER_OUT}")
  endif()
  if(T_REQUIRE_REGEX)
    list(APPEND _cmd "-DREQUIRE_REGEX=${T_REQUIRE_REGEX}")
  endif()
  if(T_FORBID_REGEX)
    list(APPEND _cmd "-DFORBID_REGEX=${T_FORBID_REGEX}")
  endif()
  if(T_REF_ARGS)
    list(APPEND _cmd "-DREF_ARGS=${_r}")
  endif()
  if(T_LOG_LESS)
    list(APPEND _cmd "-DLOG_LESS=${T_LOG_LESS}")
  endif()
  if(DEFINED T_SKIP_RETURN_CODE)
    list(APPEND _cmd "-DSKIP_RETURN_CODE=${T_SKIP_RETURN_CODE}")
  endif()
  set(_i 0)
  foreach(_c IN LISTS T_REQUIRE_COUNT)
    math(EXPR _i "${_i} + 1")
    list(APPEND _cmd "-DREQUIRE_COUNT${_i}=${_c}")
  endforeach()
  set(_launch "")
  if(T_NP) # under MPI: NP ranks (the environment allows root and oversubscription)
    set(_launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_NP} ${MPIEXEC_PREFLAGS})
    if(T_REF_NP)
      set(_ref_launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${T_REF_NP} ${MPIEXEC_PREFLAGS} ${T_WRAP})
      list(JOIN _ref_launch "|" _ref_launch)
      list(APPEND _cmd "-DREF_LAUNCH=${_ref_launch}")
    endif()
    list(APPEND T_LABEL mpi)
    list(PREPEND T_ENV "OMPI_MCA_hwloc_base_binding_policy=none")
  endif()
  list(APPEND _launch ${T_WRAP})
  if(_launch)
    list(JOIN _launch "|" _launch)
    list(APPEND _cmd "-DLAUNCH=${_launch}")
  endif()
  add_test(NAME petsc.${T_NAME} COMMAND ${_cmd} -P "${CMAKE_CURRENT_SOURCE_DIR}/run_compare.cmake")
  set(_labels petsc)
  if(T_LABEL)
    list(APPEND _labels ${T_LABEL})
  endif()
  set_tests_properties(petsc.${T_NAME} PROPERTIES LABELS "${_labels}" TIMEOUT 300 ENVIRONMENT "${_test_env};${T_ENV}")
  set(_skip "")
  if(DEFINED T_SKIP_RETURN_CODE)
    set(_skip "PCLUSTER_TEST_SKIPPED: ")
    set_tests_properties(petsc.${T_NAME} PROPERTIES SKIP_REGULAR_EXPRESSION "${_skip}")
  endif()
  if(T_NEGATIVE)
    pcluster_negative(NAME ${T_NAME} LAYER ${T_NEGATIVE} FAULTS ${T_NEGATIVE_FAULTS} ALSO "${T_NEGATIVE_ALSO}" LABELS ${_labels} ENVIRONMENT "${_test_env};${T_ENV}"
      SKIP_REGULAR_EXPRESSION "${_skip}" COMMAND ${_cmd} -P "${CMAKE_CURRENT_SOURCE_DIR}/run_compare.cmake")
  endif()
endfunction()

# pcluster_petsc_error(NAME <test> EXE <target> [ALLOW_SUCCESS] [EXIT_CODE <code>] [NP <ranks>]
#                      ARGS ... EXPECT <regex> ...)
# Runs with -malloc_debug (PETSc's checking allocator) so that memory corruption on the error path
# turns into a crash, which fails the test, and -malloc_dump (a program that gets to PetscFinalize
# must not report unfreed memory); under mpiexec -malloc_dump only (malloc_dump.cmake).
# EXIT_CODE: the exit code required (PETSc aborts with the error code of an error in main).
# NP: under mpiexec on that many ranks (label mpi).
function(pcluster_petsc_error)
  cmake_parse_arguments(T "ALLOW_SUCCESS" "NAME;EXE;EXIT_CODE;NP" "ARGS;EXPECT" ${ARGN})
  if(T_NP)
    list(APPEND T_ARGS ${PCLUSTER_MALLOC_CHECK_ARGS_MPI})
  else()
    list(APPEND T_ARGS ${PCLUSTER_MALLOC_CHECK_ARGS})
  endif()
  list(JOIN T_ARGS "|" _a)
  set(_cmd ${CMAKE_COMMAND} "-DEXE=$<TARGET_FILE:${T_EXE}>" "-DARGS=${_a}")
  set(_labels petsc errors)
  if(T_ALLOW_SUCCESS)
    list(APPEND _cmd "-DALLOW_SUCCESS=ON")
  endif()
  if(DEFINED T_EXIT_CODE)
    list(APPEND _cmd "-DEXIT_CODE=${T_EXIT_CODE}")
  endif()
  if(T_NP)
    list(JOIN MPIEXEC_PREFLAGS "|" _pre)
    set(_launch "${MPIEXEC_EXECUTABLE}|${MPIEXEC_NUMPROC_FLAG}|${T_NP}")
    if(_pre)
      string(APPEND _launch "|${_pre}")
    endif()
    list(APPEND _cmd "-DLAUNCH=${_launch}")
    list(APPEND _labels mpi)
  endif()
  set(i 0)
  foreach(re IN LISTS T_EXPECT)
    math(EXPR i "${i} + 1")
    list(APPEND _cmd "-DEXPECT${i}=${re}")
  endforeach()
  add_test(NAME petsc.error.${T_NAME} COMMAND ${_cmd} -P "${CMAKE_CURRENT_SOURCE_DIR}/run_expect_error.cmake")
  set_tests_properties(petsc.error.${T_NAME} PROPERTIES LABELS "${_labels}" TIMEOUT 120 ENVIRONMENT "${_test_env}")
endfunction()

# ---------------------------------------------------------------------------------------------
# Product types and the flags that select their algorithm (products.cmake, amg.cmake,
# valgrind.cmake). PCLUSTER_TEST_PETSC_NAMES=ON (the harness check, see CMakeLists.txt) puts one of
# PETSc's own non-default algorithms per type in place of ours.
set(_types AB AtB ABt PtAP RARt ABC)
set(_via_AB -matmatmult_via)
set(_via_AtB -mattransposematmult_via)
set(_via_ABt -matmattransmult_via)
set(_via_PtAP -matptap_via)
set(_via_RARt -matrart_via)
set(_via_ABC -matmatmatmult_via)
set(_petsc_alg_AB heap)
set(_petsc_alg_AtB outerproduct)
set(_petsc_alg_ABt color)
set(_petsc_alg_PtAP rap)
set(_petsc_alg_RARt r*art)
set(_petsc_alg_ABC heap)

# _pcluster_alg(<out> <type> <alg>): <alg>, or PETSc's stand-in for <type> in the harness check.
function(_pcluster_alg out type alg)
  if(PCLUSTER_TEST_PETSC_NAMES)
    set(alg "${_petsc_alg_${type}}")
  endif()
  set(${out} "${alg}" PARENT_SCOPE)
endfunction()
# _pcluster_via(<out> <alg> <type>...): "-matptap_via <alg> ..." for the given types.
function(_pcluster_via out alg)
  set(r "")
  foreach(type IN LISTS ARGN)
    _pcluster_alg(a ${type} ${alg})
    list(APPEND r ${_via_${type}} ${a})
  endforeach()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()
# _pcluster_prefixed(<out> <alg> <type>...): "-<type>_mat_product_algorithm <alg> ..." (ex62, ex81).
function(_pcluster_prefixed out alg)
  set(r "")
  foreach(type IN LISTS ARGN)
    _pcluster_alg(a ${type} ${alg})
    list(APPEND r -${type}_mat_product_algorithm ${a})
  endforeach()
  set(${out} "${r}" PARENT_SCOPE)
endfunction()
# _pcluster_engaged(NAME <n> EXE <t> TYPE <type> ALG <alg> ARGS ...): with -info, the plugin says it
# took a product of this type with this algorithm (left out in the harness check).
function(_pcluster_engaged)
  cmake_parse_arguments(E "" "NAME;EXE;TYPE;ALG;NP" "ARGS" ${ARGN})
  if(PCLUSTER_TEST_PETSC_NAMES)
    return()
  endif()
  set(_np "")
  if(E_NP)
    set(_np NP ${E_NP} ENV OMP_NUM_THREADS=1)
  endif()
  pcluster_petsc_run(NAME engaged.${E_NAME} EXE ${E_EXE} LABEL engaged ${_np}
    REQUIRE_REGEX "petsc-cluster takes MatProduct ${E_TYPE} [^\n]*algorithm ${E_ALG}[\r\n]" ARGS ${E_ARGS} -info :mat)
endfunction()

# pcluster_view_negatives(<alg> <out>): in <out>, the arguments that give a stock program's .view entry
# its negative controls (tests/negative), for one algorithm only (cluster): the faults are injected
# after the kernel, so one algorithm shows the check catches them.
macro(pcluster_view_negatives alg out)
  set(${out} "")
  if("${alg}" STREQUAL "cluster")
    set(${out} NEGATIVE view)
  endif()
endmacro()
