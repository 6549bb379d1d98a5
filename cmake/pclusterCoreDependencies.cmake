# The libraries behind the core's library-backed orderings (src/ordering/): METIS (nd, gp),
# SuiteSparse AMD (amd), Zoltan from Trilinos (hp, which also needs MPI). Debian bookworm ships
# none of them with a CMake package of its own that works without the rest of Trilinos, so they are
# found here by header and library and wrapped in imported targets pcluster::metis, pcluster::amd,
# pcluster::zoltan. Used twice: by src/CMakeLists.txt when building, and by the installed package
# config (petscclusterConfig.cmake), because the static pcluster_core carries these targets in its
# exported link interface and a consumer must be able to resolve them.
include_guard(GLOBAL)

function(_pcluster_find_library target header library)
  if(TARGET ${target})
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${target}" var)
  string(TOUPPER "${var}" var)
  find_path(${var}_INCLUDE_DIR ${header} PATH_SUFFIXES ${ARGN})
  find_library(${var}_LIBRARY ${library})
  if(NOT ${var}_INCLUDE_DIR OR NOT ${var}_LIBRARY)
    message(FATAL_ERROR "petsc-cluster needs ${header} and lib${library} (${target}); on Debian: "
                        "apt-get install libmetis-dev libsuitesparse-dev libtrilinos-zoltan-dev "
                        "(found header: '${${var}_INCLUDE_DIR}', library: '${${var}_LIBRARY}')")
  endif()
  add_library(${target} UNKNOWN IMPORTED)
  set_target_properties(${target} PROPERTIES
    IMPORTED_LOCATION "${${var}_LIBRARY}"
    INTERFACE_INCLUDE_DIRECTORIES "${${var}_INCLUDE_DIR}")
  message(STATUS "petsc-cluster: ${target}: ${${var}_LIBRARY} (headers in ${${var}_INCLUDE_DIR})")
endfunction()

_pcluster_find_library(pcluster::metis metis.h metis)
# amd.h includes SuiteSparse_config.h from its own directory: we include <suitesparse/amd.h>.
_pcluster_find_library(pcluster::amd suitesparse/amd.h amd)
_pcluster_find_library(pcluster::zoltan zoltan.h trilinos_zoltan trilinos)
# hp.cpp calls MPI itself (MPI_Init_thread when the program has not) and includes mpi.h from C++.
if(NOT TARGET MPI::MPI_CXX)
  find_package(MPI REQUIRED COMPONENTS C CXX)
endif()
set_property(TARGET pcluster::zoltan APPEND PROPERTY INTERFACE_LINK_LIBRARIES MPI::MPI_CXX)
