# Included by the scripts that run a program under test (cmake -P), and by the test directories'
# CMakeLists (pcluster_own_ompi_session_dirs). Open MPI keeps its session
# files under /tmp/ompi.<host>.<uid>, shared by every process of the user: one finishing removes
# that directory while another creates its own in it, and the other's MPI_Init fails ("A call to
# mkdir was unable to create the desired directory": twice in ctest -j2 runs of the suite,
# 2026-12-06). pcluster_ompi_session_begin() gives the runs that follow a directory of their own
# (short: it holds sockets), pcluster_ompi_session_end() removes it.
macro(pcluster_ompi_session_begin)
  if(NOT DEFINED _pcluster_ompi_tmp)
    string(RANDOM LENGTH 10 _pcluster_ompi_tag)
    set(_pcluster_ompi_tmp "/tmp/pcluster-ompi-${_pcluster_ompi_tag}")
  endif()
  file(MAKE_DIRECTORY "${_pcluster_ompi_tmp}")
  set(ENV{OMPI_MCA_orte_tmpdir_base} "${_pcluster_ompi_tmp}")
endmacro()
macro(pcluster_ompi_session_end)
  file(REMOVE_RECURSE "${_pcluster_ompi_tmp}")
endmacro()

# The same for the tests that run a program directly (no script between): each test gets its own
# session directory base through its environment, named by a hash of the build directory and the
# test's name (Open MPI creates it, and leaves it empty after the run; the test reuses it next time).
function(pcluster_ompi_session_env build_dir test out)
  string(MD5 _hash "${build_dir}/${test}")
  string(SUBSTRING "${_hash}" 0 12 _hash)
  set(${out} "OMPI_MCA_orte_tmpdir_base=/tmp/pcluster-ompi-tests/${_hash}" PARENT_SCOPE)
endfunction()
# Every test of the calling directory so far.
function(pcluster_own_ompi_session_dirs)
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS _tests)
    pcluster_ompi_session_env("${CMAKE_BINARY_DIR}" "${t}" _env)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "${_env}")
  endforeach()
endfunction()
