# The installed package, as a user gets it: installs the build to a fresh prefix (not the one given
# at configure time), then
#   1. builds tests/install/user_program.c with `mpicc $(pkg-config --cflags --libs petsccluster)`,
#   2. builds it with CMake's find_package(petsccluster) (tests/install/consumer),
#   3. runs both (A*A with the plugin's algorithm against PETSc's), and
#   4. loads the installed plugin with -dll_append into PETSc's stock ex62 with -matmatmult_via cluster.
#
#   cmake -DBUILD=dir -DPREFIX=dir -DSOURCE=tests/install -DMPICC=mpicc -DEX62=path -DTINY=file
#         -DPETSC_PC_PATH=dir -P run_install.cmake
cmake_minimum_required(VERSION 3.19) # file(REAL_PATH)
function(run what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  message("---- ${what}: ${ARGN} (exit ${rc})\n${out}${err}")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "FAILED: ${what}")
  endif()
  set(out "${out}${err}" PARENT_SCOPE)
endfunction()
function(expect what regex)
  if(NOT out MATCHES "${regex}")
    message(FATAL_ERROR "FAILED: ${what}: output does not match '${regex}'")
  endif()
endfunction()

file(REMOVE_RECURSE "${PREFIX}")
run("install" ${CMAKE_COMMAND} --install "${BUILD}" --prefix "${PREFIX}")
file(REAL_PATH "${PREFIX}" PREFIX)
file(GLOB_RECURSE _pc "${PREFIX}/*/petsccluster.pc")
list(LENGTH _pc _n)
if(NOT _n EQUAL 1)
  message(FATAL_ERROR "FAILED: expected one installed petsccluster.pc under ${PREFIX}, found '${_pc}'")
endif()
get_filename_component(_pc_dir "${_pc}" DIRECTORY)
set(ENV{PKG_CONFIG_PATH} "${_pc_dir}:${PETSC_PC_PATH}")

# 1. pkg-config
run("pkg-config" pkg-config --cflags --libs petsccluster)
string(STRIP "${out}" _flags)
separate_arguments(_flags UNIX_COMMAND "${_flags}")
run("pkg-config plugin path" pkg-config --variable=plugin petsccluster)
string(STRIP "${out}" _plugin)
file(REAL_PATH "${_plugin}" _plugin) # the .pc's paths are relative to its own directory
if(NOT _plugin MATCHES "^${PREFIX}/" OR NOT EXISTS "${_plugin}")
  message(FATAL_ERROR "FAILED: pkg-config's plugin path '${_plugin}' is not the installed plugin under ${PREFIX}")
endif()
set(_work "${PREFIX}-work")
file(REMOVE_RECURSE "${_work}")
file(MAKE_DIRECTORY "${_work}")
run("build with pkg-config" ${MPICC} "${SOURCE}/user_program.c" ${_flags} -o "${_work}/user_pkgconfig")

# 2. find_package
run("configure with find_package" ${CMAKE_COMMAND} -S "${SOURCE}/consumer" -B "${_work}/consumer"
    "-DCMAKE_PREFIX_PATH=${PREFIX}" -DCMAKE_C_COMPILER=${MPICC} -DCMAKE_BUILD_TYPE=Release)
run("build with find_package" ${CMAKE_COMMAND} --build "${_work}/consumer")
file(READ "${_work}/consumer/plugin_path.txt" _cmake_plugin)
file(REAL_PATH "${_cmake_plugin}" _cmake_plugin)
if(NOT _cmake_plugin STREQUAL _plugin)
  message(FATAL_ERROR "FAILED: PETSCCLUSTER_PLUGIN is '${_cmake_plugin}', pkg-config says '${_plugin}'")
endif()

# 3. both programs run on the installed library (found through LD_LIBRARY_PATH, as the user would
#    set it for a prefix outside the loader's path), and the product was the plugin's
get_filename_component(_libdir "${_plugin}" DIRECTORY)
set(ENV{LD_LIBRARY_PATH} "${_libdir}:$ENV{LD_LIBRARY_PATH}")
foreach(exe "${_work}/user_pkgconfig" "${_work}/consumer/user_program")
  run("${exe}" "${exe}")
  expect("${exe}" "petsc-cluster MatProduct AB: algorithm cluster")
  expect("${exe}" "A\\*A with the installed plugin equals PETSc's")
endforeach()

# 4. the installed plugin in a stock PETSc program
run("stock ex62 with the installed plugin" "${EX62}" -dll_append "${_plugin}" -fA "${TINY}" -fB "${TINY}"
    -matmatmult_via cluster -info :mat)
expect("stock ex62" "petsc-cluster takes MatProduct AB")
file(REMOVE_RECURSE "${PREFIX}" "${_work}")
message("PASSED")
