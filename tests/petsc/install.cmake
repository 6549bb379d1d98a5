# The installed package (tests/install/run_install.cmake): installed to a temporary prefix, a user
# program built through pkg-config and through find_package and run, the installed plugin loaded
# into PETSc's stock ex62. Not in the sanitizer build (a user's program is not instrumented).
# Labels: petsc, install.
if(_have_stock AND NOT PCLUSTER_SANITIZE)
  string(REPLACE ";" ":" _petsc_pc_path "$ENV{PKG_CONFIG_PATH}")
  add_test(NAME petsc.install COMMAND ${CMAKE_COMMAND}
    "-DBUILD=${PROJECT_BINARY_DIR}" "-DPREFIX=${CMAKE_CURRENT_BINARY_DIR}/install-test/prefix"
    "-DSOURCE=${PROJECT_SOURCE_DIR}/tests/install" "-DMPICC=${MPI_C_COMPILER}"
    "-DEX62=$<TARGET_FILE:stock_ex62>" "-DTINY=${_tiny}" "-DPETSC_PC_PATH=${_petsc_pc_path}"
    -P "${PROJECT_SOURCE_DIR}/tests/install/run_install.cmake")
  set_tests_properties(petsc.install PROPERTIES LABELS "petsc;install" TIMEOUT 300 ENVIRONMENT "${_test_env}")
endif()
