# Included by the scripts that run a program under test (cmake -P). Open MPI keeps its session
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
