# Runs a PETSc program that must fail: checks that the exit code is nonzero, that it did not crash,
# that it reported no unfreed memory (-malloc_dump, when it got as far as PetscFinalize), and that
# its error message (stdout+stderr without PETSc's echo of the options) matches every
# regex given as EXPECT1..EXPECT9 (all must match, in any order).
#
#   cmake -DEXE=prog -DARGS="a|b|c" -DEXPECT1=regex [-DEXPECT2=regex ...] [-DALLOW_SUCCESS=ON]
#         [-DEXIT_CODE=n] [-DLAUNCH="mpiexec|-n|2"] -P run_expect_error.cmake
#
# ALLOW_SUCCESS: exit code 0 is also a pass (input whose validity is a design choice: if it is
# rejected, the message must still be right). EXIT_CODE: the exit code must be n (PETSc aborts
# with the error code of an error raised in main). LAUNCH: the program runs under this launcher.
cmake_minimum_required(VERSION 3.18)
string(REPLACE "|" ";" _args "${ARGS}")
string(REPLACE "|" ";" _launch "${LAUNCH}")
execute_process(COMMAND ${_launch} ${EXE} ${_args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
message("---- output of ${EXE} ${ARGS} (exit ${rc}) ----\n${all}")
include(${CMAKE_CURRENT_LIST_DIR}/malloc_dump.cmake)
if(all MATCHES "${PCLUSTER_MALLOC_DUMP_REGEX}")
  message(FATAL_ERROR "FAILED: PETSc reports unfreed memory (-malloc_dump): ${CMAKE_MATCH_0}")
endif()
# Only the error message itself counts: PETSc echoes the command line in its "Option Table"
# (which would match any option name), and prints the configure line and the program path.
string(FIND "${all}" "PETSc Option Table entries" _cut)
if(_cut GREATER -1)
  string(SUBSTRING "${all}" 0 ${_cut} all)
endif()
string(REGEX REPLACE "[^\n]*Configure options[^\n]*" "" all "${all}")
string(REGEX REPLACE "[^\n]* on a [^\n]* named [^\n]*" "" all "${all}")
if(rc EQUAL 0)
  if(ALLOW_SUCCESS)
    message("PASSED: the program accepted the input (ALLOW_SUCCESS)")
    return()
  endif()
  message(FATAL_ERROR "FAILED: expected a nonzero exit code")
endif()
if(NOT rc MATCHES "^[0-9]+$")
  # A crash ("Segmentation fault", "Child aborted") is not a clean error.
  message(FATAL_ERROR "FAILED: the program did not exit cleanly: ${rc}")
endif()
if(DEFINED EXIT_CODE AND NOT rc EQUAL EXIT_CODE)
  message(FATAL_ERROR "FAILED: exit code ${rc}, expected ${EXIT_CODE}")
endif()
if(all MATCHES "Caught signal")
  message(FATAL_ERROR "FAILED: the program crashed (PETSc caught a signal) instead of raising an error")
endif()
set(_fail FALSE)
foreach(i RANGE 1 9)
  if(DEFINED EXPECT${i})
    if(NOT all MATCHES "${EXPECT${i}}")
      message("missing in the error output: /${EXPECT${i}}/")
      set(_fail TRUE)
    endif()
  endif()
endforeach()
if(_fail)
  message(FATAL_ERROR "FAILED: error message incomplete")
endif()
message("PASSED: error as expected")
