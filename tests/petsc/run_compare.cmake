# Runs a PETSc program and checks it the way PETSc's own test harness does: exit code 0, and
# (when EXPECTED is given) its standard output equal to the expected output file installed next
# to the stock program, after an optional line filter.
#
#   cmake -DEXE=prog -DARGS="a|b|c" [-DEXPECTED=file.out | -DREF_ARGS="a|b"] [-DFILTER_OUT=regex]
#         [-DREQUIRE_REGEX=regex] [-DLOG_LESS=EvA<EvB] [-DWORKDIR=dir] [-DLAUNCH="mpiexec|-n|2"]
#         -P run_compare.cmake
#
# SKIP_RETURN_CODE (optional): if the program exits with this code and printed no PETSc error, the
# script prints "PCLUSTER_TEST_SKIPPED: ..." and stops with an error, which the test's
# SKIP_REGULAR_EXPRESSION turns into a skip (pcluster_petsc_run sets both); no other check runs. (A
# PETSc error in main exits with its error code, and PETSC_ERR_PLIB is 77: that is a failure.)
# LAUNCH (optional): a launcher put before EXE (the program and its reference run), e.g. mpiexec.
# With LAUNCH, -info lines are gathered from per-rank files (see below), whole, after the output.
# REF_LAUNCH (optional): another launcher for the reference run (e.g. another number of ranks).
#
# REF_ARGS: instead of a file, the expected output is that of a run of the same program with these
# arguments (PETSc's own algorithms): used where the installed output file was made on another
# platform and differs in the last printed digits even for PETSc's own run here.
# FORBID_REGEX (optional): the combined stdout+stderr must not match it.
# Whatever the arguments, the output must not contain -malloc_dump's report of unfreed memory
# (malloc_dump.cmake; the tests pass -malloc_dump).
# REQUIRE_REGEX (optional): the combined stdout+stderr must match it (e.g. an -info line showing
# that the plugin, not PETSc, ran the product).
# REQUIRE_COUNT1..REQUIRE_COUNT9 (optional): "<n>:<regex>": the combined stdout+stderr holds exactly
# n matches of the regex (e.g. an -info line once per product: nothing registered or wrapped twice).
# LOG_LESS (optional): "EventA<EventB[,EventC<EventD...]": in the -log_view table of the output,
# both events must appear and EventA must have run fewer times than EventB (e.g. symbolic fewer
# times than numeric when MAT_REUSE_MATRIX reuses the structure).
# FILTER_OUT drops every output line matching the regex (PETSc's "filter: grep -v ..." in a TEST
# block). Comparison ignores trailing white space on each line and trailing empty lines.
cmake_minimum_required(VERSION 3.18)
if(NOT DEFINED EXE)
  message(FATAL_ERROR "run_compare.cmake: EXE not set")
endif()
string(REPLACE "|" ";" _args "${ARGS}")
string(REPLACE "|" ";" _launch "${LAUNCH}")
set(_ref_launch "${_launch}")
if(DEFINED REF_LAUNCH)
  string(REPLACE "|" ";" _ref_launch "${REF_LAUNCH}")
endif()
if(NOT DEFINED WORKDIR)
  set(WORKDIR ".")
endif()
# Under a launcher the ranks share one stdout, in which their -info lines can interleave mid-line
# and defeat the regex checks below: "-info [:classes]" then writes to files of this run (PETSc
# opens one per rank), whose lines are added to the output after the run.
set(_info_dir "")
list(FIND _args "-info" _at)
if(NOT "${_launch}" STREQUAL "" AND _at GREATER -1)
  math(EXPR _next "${_at} + 1")
  list(LENGTH _args _nargs)
  set(_classes "")
  set(_named FALSE)
  if(_next LESS _nargs)
    list(GET _args ${_next} _value)
    if(_value MATCHES "^:")
      set(_classes "${_value}")
      list(REMOVE_AT _args ${_next})
    elseif(NOT _value MATCHES "^-")
      set(_named TRUE) # the caller chose the file
    endif()
  endif()
  if(NOT _named)
    string(RANDOM LENGTH 12 _tag)
    set(_info_dir "${CMAKE_CURRENT_BINARY_DIR}/info-${_tag}")
    file(MAKE_DIRECTORY "${_info_dir}")
    list(INSERT _args ${_next} "${_info_dir}/info${_classes}")
  endif()
endif()
execute_process(COMMAND ${_launch} ${EXE} ${_args}
  WORKING_DIRECTORY ${WORKDIR}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(_info_dir)
  file(GLOB _info_files "${_info_dir}/info*")
  list(SORT _info_files)
  foreach(_f IN LISTS _info_files)
    file(READ "${_f}" _lines)
    string(APPEND out "\n${_lines}")
  endforeach()
  file(REMOVE_RECURSE "${_info_dir}")
endif()
string(REPLACE ";" "|" _shown "${_args}")
if(DEFINED SKIP_RETURN_CODE AND NOT "${SKIP_RETURN_CODE}" STREQUAL "" AND "${rc}" STREQUAL "${SKIP_RETURN_CODE}")
  message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
  if("${out}\n${err}" MATCHES "PETSC ERROR")
    message(FATAL_ERROR "FAILED: ${LAUNCH} ${EXE} ${ARGS} exited with ${rc} after a PETSc error (the code of the error, not a skip)")
  endif()
  message("PCLUSTER_TEST_SKIPPED: ${EXE} exited with ${rc}")
  message(FATAL_ERROR "skipped: exit code ${rc} (SKIP_RETURN_CODE); ctest reports the test as skipped")
endif()
if(NOT rc EQUAL 0)
  message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
  message(FATAL_ERROR "FAILED: ${LAUNCH} ${EXE} ${ARGS} exited with ${rc}")
endif()
if(NOT "${err}" STREQUAL "")
  message("---- stderr (exit code 0) ----\n${err}")
endif()

function(_normalise text outvar)
  # One list element per line; escape ';' so list operations keep lines intact.
  string(REPLACE ";" "<SEMI>" text "${text}")
  string(REPLACE "\r" "" text "${text}")
  string(REPLACE "\n" ";" lines "${text}")
  set(result "")
  foreach(line IN LISTS lines)
    if(DEFINED FILTER_OUT AND NOT "${FILTER_OUT}" STREQUAL "" AND line MATCHES "${FILTER_OUT}")
      continue()
    endif()
    string(REGEX REPLACE "[ \t]+$" "" line "${line}")
    string(APPEND result "${line}\n")
  endforeach()
  string(REGEX REPLACE "\n+$" "" result "${result}")
  set(${outvar} "${result}" PARENT_SCOPE)
endfunction()

include(${CMAKE_CURRENT_LIST_DIR}/malloc_dump.cmake)
if("${out}\n${err}" MATCHES "${PCLUSTER_MALLOC_DUMP_REGEX}")
  message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
  message(FATAL_ERROR "FAILED: PETSc reports unfreed memory (-malloc_dump): ${CMAKE_MATCH_0}")
endif()
if(DEFINED FORBID_REGEX AND NOT "${FORBID_REGEX}" STREQUAL "")
  if("${out}\n${err}" MATCHES "${FORBID_REGEX}")
    message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
    message(FATAL_ERROR "FAILED: output matches /${FORBID_REGEX}/")
  endif()
endif()
if(DEFINED REQUIRE_REGEX AND NOT "${REQUIRE_REGEX}" STREQUAL "")
  if(NOT "${out}\n${err}" MATCHES "${REQUIRE_REGEX}")
    message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
    message(FATAL_ERROR "FAILED: output does not match /${REQUIRE_REGEX}/")
  endif()
endif()

foreach(_i RANGE 1 9)
  if(NOT DEFINED REQUIRE_COUNT${_i})
    continue()
  endif()
  if(NOT "${REQUIRE_COUNT${_i}}" MATCHES "^([0-9]+):(.+)$")
    message(FATAL_ERROR "REQUIRE_COUNT${_i}: expected <n>:<regex>, got ${REQUIRE_COUNT${_i}}")
  endif()
  set(_want ${CMAKE_MATCH_1})
  set(_re "${CMAKE_MATCH_2}")
  string(REGEX MATCHALL "${_re}" _found "${out}\n${err}")
  list(LENGTH _found _n)
  if(NOT _n EQUAL _want)
    message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
    message(FATAL_ERROR "FAILED: /${_re}/ matches ${_n} times, expected ${_want}")
  endif()
  message("count: /${_re}/ ${_n} times")
endforeach()

if(DEFINED LOG_LESS AND NOT "${LOG_LESS}" STREQUAL "")
  string(REPLACE "," ";" _pairs "${LOG_LESS}")
  foreach(_pair IN LISTS _pairs)
    string(REPLACE "<" ";" _ev "${_pair}")
    list(GET _ev 0 _ev_a)
    list(GET _ev 1 _ev_b)
    foreach(_e IN ITEMS a b)
      # -log_view rows: name at the start of the line, then the count.
      if(NOT "\n${out}" MATCHES "\n${_ev_${_e}} +([0-9]+) ")
        message("---- stdout ----\n${out}\n---- stderr ----\n${err}")
        message(FATAL_ERROR "FAILED: event ${_ev_${_e}} is not in the -log_view output")
      endif()
      set(_n_${_e} ${CMAKE_MATCH_1})
    endforeach()
    if(NOT _n_a LESS _n_b)
      message("---- stdout ----\n${out}")
      message(FATAL_ERROR "FAILED: ${_ev_a} ran ${_n_a} times, ${_ev_b} ${_n_b} times; expected fewer ${_ev_a}")
    endif()
    message("log: ${_ev_a} ${_n_a} < ${_ev_b} ${_n_b}")
  endforeach()
endif()

set(_have_expected FALSE)
if(DEFINED REF_ARGS AND NOT "${REF_ARGS}" STREQUAL "")
  # The expected output is that of a reference run of the same program (PETSc's own algorithms).
  string(REPLACE "|" ";" _ref_args "${REF_ARGS}")
  execute_process(COMMAND ${_ref_launch} ${EXE} ${_ref_args} WORKING_DIRECTORY ${WORKDIR}
    RESULT_VARIABLE ref_rc OUTPUT_VARIABLE expected ERROR_VARIABLE ref_err)
  if(NOT ref_rc EQUAL 0)
    message("---- reference stderr ----\n${ref_err}")
    message(FATAL_ERROR "FAILED: the reference run ${EXE} ${REF_ARGS} exited with ${ref_rc}")
  endif()
  set(EXPECTED "reference-run.out")
  set(_have_expected TRUE)
elseif(DEFINED EXPECTED AND NOT "${EXPECTED}" STREQUAL "")
  # PETSc 3.25 dropped its empty expected outputs: those tests name output/empty.out instead.
  get_filename_component(_empty "${EXPECTED}" DIRECTORY)
  set(_empty "${_empty}/empty.out")
  if(NOT EXISTS "${EXPECTED}" AND EXISTS "${_empty}")
    message("(${EXPECTED} is not installed: this PETSc's tests name ${_empty} for an empty output)")
    set(EXPECTED "${_empty}")
  endif()
  if(NOT EXISTS "${EXPECTED}")
    message(FATAL_ERROR "expected output file ${EXPECTED} is missing")
  endif()
  file(READ "${EXPECTED}" expected)
  set(_have_expected TRUE)
endif()
if(_have_expected)
  _normalise("${out}" got)
  _normalise("${expected}" want)
  if(NOT got STREQUAL want)
    get_filename_component(_name "${EXPECTED}" NAME)
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${_name}.got" "${got}\n")
    file(WRITE "${CMAKE_CURRENT_BINARY_DIR}/${_name}.want" "${want}\n")
    execute_process(COMMAND diff -u "${CMAKE_CURRENT_BINARY_DIR}/${_name}.want" "${CMAKE_CURRENT_BINARY_DIR}/${_name}.got"
      OUTPUT_VARIABLE d)
    string(SUBSTRING "${d}" 0 4000 d)
    message("---- diff (expected -> got), first 4000 chars ----\n${d}")
    message(FATAL_ERROR "FAILED: output of ${EXE} differs from ${EXPECTED}")
  endif()
endif()
message("PASSED: ${EXE} ${ARGS}")
