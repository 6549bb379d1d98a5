# Which PETSc the plugin is built for, found through PETSc's pkg-config file:
#   - PETSC_DIR (and PETSC_ARCH), as PETSc users set them for a PETSc built from source: its
#     $PETSC_DIR/$PETSC_ARCH/lib/pkgconfig is searched first;
#   - PCLUSTER_PETSC_PKG, the pkg-config module: PETSc (Debian's default flavour), or PETSc64 for
#     Debian's 64-bit-index flavour (libpetsc64-real*-dev); any PKG_CONFIG_PATH the user set also works.
# Sets PkgConfig::PETSC, PETSC_INCLUDE_DIRS, PCLUSTER_PETSC_VERSION (major.minor.patch),
# PCLUSTER_PETSC_PREFIX and PCLUSTER_PETSC_INT_BITS (32 or 64), and stops with a message on a PETSc
# the plugin cannot work with (complex scalars). The releases we test are listed in README.md.
if(NOT DEFINED PCLUSTER_PETSC_PKG) # (a consumer's package config sets it beforehand)
  set(PCLUSTER_PETSC_PKG "PETSc" CACHE STRING
      "pkg-config module of the PETSc to build for (Debian: PETSc, or PETSc64 for 64-bit indices)")
endif()
set(PCLUSTER_PETSC_TESTED_RELEASES 3.18 3.22 3.25)

foreach(var PETSC_DIR PETSC_ARCH)
  if(NOT DEFINED ${var} AND DEFINED ENV{${var}})
    set(${var} "$ENV{${var}}")
  endif()
endforeach()
if(PETSC_DIR)
  set(_pc_dirs "${PETSC_DIR}/${PETSC_ARCH}/lib/pkgconfig" "${PETSC_DIR}/lib/pkgconfig")
  list(JOIN _pc_dirs ":" _pc_dirs)
  set(ENV{PKG_CONFIG_PATH} "${_pc_dirs}:$ENV{PKG_CONFIG_PATH}")
endif()
pkg_check_modules(PETSC REQUIRED IMPORTED_TARGET ${PCLUSTER_PETSC_PKG})
pkg_get_variable(PCLUSTER_PETSC_PREFIX ${PCLUSTER_PETSC_PKG} prefix)
set(PCLUSTER_PETSC_VERSION "${PETSC_VERSION}")

# petscconf.h says what pkg-config does not: index width and scalar type.
find_file(_petscconf petscconf.h PATHS ${PETSC_INCLUDE_DIRS} NO_DEFAULT_PATH)
if(NOT _petscconf)
  message(FATAL_ERROR "petsc-cluster: petscconf.h not found in ${PCLUSTER_PETSC_PKG}'s include directories (${PETSC_INCLUDE_DIRS})")
endif()
file(READ "${_petscconf}" _conf)
unset(_petscconf CACHE)
if(_conf MATCHES "#define PETSC_USE_COMPLEX 1")
  message(FATAL_ERROR "petsc-cluster: ${PCLUSTER_PETSC_PKG} (${PETSC_VERSION}, ${PCLUSTER_PETSC_PREFIX}) has complex "
                      "scalars; the plugin's kernels are built for real PetscScalar only. Build against a real "
                      "PETSc (Debian: libpetsc-real-dev or libpetsc64-real-dev).")
endif()
if(_conf MATCHES "#define PETSC_USE_64BIT_INDICES 1")
  set(PCLUSTER_PETSC_INT_BITS 64)
else()
  set(PCLUSTER_PETSC_INT_BITS 32)
endif()

string(REGEX MATCH "^[0-9]+\\.[0-9]+" _release "${PETSC_VERSION}")
if(NOT _release IN_LIST PCLUSTER_PETSC_TESTED_RELEASES)
  message(WARNING "petsc-cluster: PETSc ${PETSC_VERSION} is not a release this project tests "
                  "(${PCLUSTER_PETSC_TESTED_RELEASES}). It may build and work; run the tests "
                  "(scripts/test.sh) before relying on it.")
endif()
message(STATUS "petsc-cluster: PETSc ${PETSC_VERSION} (${PCLUSTER_PETSC_PKG}, ${PCLUSTER_PETSC_INT_BITS}-bit PetscInt) in ${PCLUSTER_PETSC_PREFIX}")

# hypre, when PETSc has it (petscconf.h), as PETSc was built with it (petscvariables): its headers for
# -pc_hypre_boomeramg_rap_via (plugins/petsc/hypre_rap.cxx), which redirects calls inside that very
# library. Sets PCLUSTER_HYPRE_INCLUDE_DIRS and PCLUSTER_HYPRE_LIBRARIES, or leaves them empty.
set(PCLUSTER_HYPRE_INCLUDE_DIRS "")
set(PCLUSTER_HYPRE_LIBRARIES "")
set(_petscvariables "${PCLUSTER_PETSC_PREFIX}/lib/petsc/conf/petscvariables")
if(_conf MATCHES "#define PETSC_HAVE_HYPRE 1" AND EXISTS "${_petscvariables}")
  file(STRINGS "${_petscvariables}" _hypre_inc REGEX "^HYPRE_INCLUDE *=")
  file(STRINGS "${_petscvariables}" _hypre_lib REGEX "^HYPRE_LIB *=")
  string(REGEX REPLACE "^HYPRE_INCLUDE *= *" "" _hypre_inc "${_hypre_inc}")
  string(REGEX REPLACE "^HYPRE_LIB *= *" "" _hypre_lib "${_hypre_lib}")
  separate_arguments(_hypre_inc UNIX_COMMAND "${_hypre_inc}")
  separate_arguments(_hypre_lib UNIX_COMMAND "${_hypre_lib}")
  foreach(f IN LISTS _hypre_inc)
    string(REGEX REPLACE "^-I" "" f "${f}")
    list(APPEND PCLUSTER_HYPRE_INCLUDE_DIRS "${f}")
  endforeach()
  set(PCLUSTER_HYPRE_LIBRARIES ${_hypre_lib})
  find_file(_hypre_ls _hypre_parcsr_ls.h PATHS ${PCLUSTER_HYPRE_INCLUDE_DIRS} NO_DEFAULT_PATH)
  if(NOT _hypre_ls)
    message(STATUS "petsc-cluster: ${PCLUSTER_PETSC_PKG} has hypre, but _hypre_parcsr_ls.h is not in ${PCLUSTER_HYPRE_INCLUDE_DIRS}: -pc_hypre_boomeramg_rap_via disabled")
    set(PCLUSTER_HYPRE_INCLUDE_DIRS "")
    set(PCLUSTER_HYPRE_LIBRARIES "")
  else()
    message(STATUS "petsc-cluster: hypre headers ${PCLUSTER_HYPRE_INCLUDE_DIRS} (${PCLUSTER_HYPRE_LIBRARIES}): -pc_hypre_boomeramg_rap_via enabled")
  endif()
  unset(_hypre_ls CACHE)
endif()
