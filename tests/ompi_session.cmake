# Open MPI keeps its session files under /tmp/ompi.<host>.<uid>, shared by every process of the
# user: one finishing removes that directory while another creates its own in it, and the other's
# MPI_Init fails ("A call to mkdir was unable to create the desired directory": twice in ctest -j2
# runs of the suite, 2026-12-06). So each test gets its own session directory base through its
# environment (the scripts that run programs under test pass it on), named by a hash of the build
# directory and the test's name; Open MPI creates it and leaves it empty after the run, and the test
# reuses it next time. Short: the directory holds sockets.
function(pcluster_ompi_session_env build_dir test out)
  string(MD5 _hash "${build_dir}/${test}")
  string(SUBSTRING "${_hash}" 0 12 _hash)
  set(${out} "OMPI_MCA_orte_tmpdir_base=/tmp/pcluster-ompi-tests/${_hash}" PARENT_SCOPE)
endfunction()
# Every test of the calling directory so far (called after its last add_test).
function(pcluster_own_ompi_session_dirs)
  get_property(_tests DIRECTORY PROPERTY TESTS)
  foreach(t IN LISTS _tests)
    pcluster_ompi_session_env("${CMAKE_BINARY_DIR}" "${t}" _env)
    set_property(TEST ${t} APPEND PROPERTY ENVIRONMENT "${_env}")
  endforeach()
endfunction()
