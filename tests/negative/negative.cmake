# Negative controls (label `negative`; only in a build with PCLUSTER_FAULT_INJECTION): every test
# layer is shown to catch a wrong product. Each entry runs an existing test's own command with a
# fault injected into every product (PCLUSTER_FAULT, src/fault_injection.hpp) and passes only if it
# fails with its layer's specific mismatch message (run_negative.cmake): not merely fails.
#
# The faults: perturb (one value times 1 + 1e-4), drop (an entry of the pattern removed), zero (an
# explicit zero added), nan (a value made NaN), swap (two rows exchanged), stale (reuse leaves the
# old values). The messages each layer's comparison words them with:
#   csr    the core's tests (tests/unit/reference.hpp compare_csr)
#   mat    the PETSc-level programs (examples/product_check.hpp CompareProduct)
#   view   a stock program's printed products diffed against its run with PETSc's own algorithms
#          (run_compare.cmake), or the program's own check of them against PETSc's
#   amg    examples/amg_setup -check: our rows against PETSc's default (iterations, residuals, levels)
#   hist   a multigrid tutorial's residual history diffed against its stock run
set(PCLUSTER_FAULTS perturb drop zero nan swap stale)
set(_neg_csr_perturb "value at \\([0-9]+,[0-9]+\\) = ")
set(_neg_csr_drop "missing entry \\(|pattern differs at row")
set(_neg_csr_zero "pattern differs at row [0-9]+: entry")
set(_neg_csr_nan "value at \\([0-9]+,[0-9]+\\) = -?nan")
set(_neg_csr_swap "missing entry \\(|pattern differs at row")
set(_neg_csr_stale "value at \\([0-9]+,[0-9]+\\) = ")
set(_neg_mat_perturb "value mismatch at \\(")
set(_neg_mat_drop "pattern differs at row")
set(_neg_mat_zero "pattern differs at row")
set(_neg_mat_nan "non-finite value at \\(")
set(_neg_mat_swap "pattern differs at row")
set(_neg_mat_stale "value mismatch at \\(")
foreach(f IN LISTS PCLUSTER_FAULTS)
  set(_neg_view_${f} "output of [^\n]* differs from")
  set(_neg_hist_${f} "output of [^\n]* differs from")
  set(_neg_amg_${f} "row\\(s\\) of ours differ")
endforeach()

# pcluster_negative(NAME <name> LAYER <csr|mat|view|amg|hist> [FAULTS f ...] [EXPECT_<fault> <regex>]
#                   [ALSO <regex>] [SKIP_REGULAR_EXPRESSION <regex>] [LABELS l ...] [ENVIRONMENT e ...] [TIMEOUT s] COMMAND <command> [args...])
# negative.<name>.<fault> for each fault (default: all): <command> with the fault must fail with the
# layer's message for it (or EXPECT_<fault> instead), or with ALSO: the words of a program's own
# check against PETSc's product (a stock program that stops at its own check before it prints).
function(pcluster_negative)
  if(NOT PCLUSTER_FAULT_INJECTION)
    return()
  endif()
  set(_one NAME LAYER TIMEOUT ALSO SKIP_REGULAR_EXPRESSION)
  foreach(f IN LISTS PCLUSTER_FAULTS)
    list(APPEND _one EXPECT_${f})
  endforeach()
  cmake_parse_arguments(N "" "${_one}" "FAULTS;LABELS;ENVIRONMENT;COMMAND" ${ARGN})
  if(NOT N_FAULTS)
    set(N_FAULTS ${PCLUSTER_FAULTS})
  endif()
  if(NOT N_TIMEOUT)
    set(N_TIMEOUT 300)
  endif()
  foreach(f IN LISTS N_FAULTS)
    set(_re "${_neg_${N_LAYER}_${f}}")
    if(DEFINED N_EXPECT_${f})
      set(_re "${N_EXPECT_${f}}")
    endif()
    if("${_re}" STREQUAL "")
      message(FATAL_ERROR "pcluster_negative(${N_NAME}): no expected message for layer ${N_LAYER}, fault ${f}")
    endif()
    if(N_ALSO)
      set(_re "${_re}|${N_ALSO}")
    endif()
    add_test(NAME negative.${N_NAME}.${f}
      COMMAND ${CMAKE_COMMAND} -DFAULT=${f} "-DEXPECT=${_re}" -P "${PROJECT_SOURCE_DIR}/tests/negative/run_negative.cmake" -- ${N_COMMAND})
    set_tests_properties(negative.${N_NAME}.${f} PROPERTIES LABELS "negative;${N_LABELS}" TIMEOUT ${N_TIMEOUT} ENVIRONMENT "${N_ENVIRONMENT}")
    if(N_SKIP_REGULAR_EXPRESSION) # the test it controls is skipped (e.g. a shared matrix is missing): so is it
      set_tests_properties(negative.${N_NAME}.${f} PROPERTIES SKIP_REGULAR_EXPRESSION "${N_SKIP_REGULAR_EXPRESSION}")
    endif()
  endforeach()
endfunction()
