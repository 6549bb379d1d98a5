# A negative control: runs a test's own command with a fault injected into every product
# (PCLUSTER_FAULT=<FAULT>, src/fault_injection.hpp) and passes only if that command fails cleanly
# (nonzero exit, no crash) with output matching EXPECT: the layer the test belongs to saw the wrong
# product and said so in its own words. A command that passes, crashes or fails for another reason
# fails this test.
#
#   cmake -DFAULT=<fault> -DEXPECT=<regex> -P run_negative.cmake -- <command> [args...]
cmake_minimum_required(VERSION 3.18)
foreach(v FAULT EXPECT)
  if(NOT DEFINED ${v})
    message(FATAL_ERROR "run_negative.cmake: ${v} not set")
  endif()
endforeach()
set(_cmd "")
set(_after FALSE)
math(EXPR _last "${CMAKE_ARGC} - 1")
foreach(i RANGE 0 ${_last})
  if(_after)
    list(APPEND _cmd "${CMAKE_ARGV${i}}")
  elseif("${CMAKE_ARGV${i}}" STREQUAL "--")
    set(_after TRUE)
  endif()
endforeach()
if(NOT _cmd)
  message(FATAL_ERROR "run_negative.cmake: no command after --")
endif()
set(ENV{PCLUSTER_FAULT} "${FAULT}")
execute_process(COMMAND ${_cmd} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
set(all "${out}\n${err}")
string(LENGTH "${all}" _len)
if(_len GREATER 20000) # the end holds the verdict; the start the program's own report
  string(SUBSTRING "${all}" 0 8000 _head)
  math(EXPR _from "${_len} - 8000")
  string(SUBSTRING "${all}" ${_from} 8000 _tail)
  message("---- output with PCLUSTER_FAULT=${FAULT} (exit ${rc}), first and last 8000 characters ----\n${_head}\n[...]\n${_tail}")
else()
  message("---- output with PCLUSTER_FAULT=${FAULT} (exit ${rc}) ----\n${all}")
endif()
if(rc EQUAL 0)
  message(FATAL_ERROR "FAILED: PCLUSTER_FAULT=${FAULT} went unnoticed: the command passed")
endif()
if(NOT rc MATCHES "^[0-9]+$" OR all MATCHES "Caught signal|Segmentation fault|core dumped")
  message(FATAL_ERROR "FAILED: the command crashed with PCLUSTER_FAULT=${FAULT} (${rc}) instead of reporting a mismatch")
endif()
# CMake's message(FATAL_ERROR) wraps long lines at spaces (a message naming a long build path can
# break anywhere), so the messages are matched with each run of white space made one space.
string(REGEX REPLACE "[ \t\r\n]+" " " flat "${all}")
if(NOT flat MATCHES "${EXPECT}")
  message(FATAL_ERROR "FAILED: the command failed with PCLUSTER_FAULT=${FAULT}, but not with the expected mismatch message /${EXPECT}/")
endif()
string(REGEX MATCH "${EXPECT}" _said "${flat}")
message("PASSED: PCLUSTER_FAULT=${FAULT} caught: ${_said}")
