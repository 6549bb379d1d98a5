# The sanitizer build's test set-up, included by tests/CMakeLists.txt when PCLUSTER_SANITIZE is on
# (the top-level CMakeLists.txt compiles and links every target with -fsanitize=address,undefined).
# scripts/sanitize.sh configures, builds and tests such a build in build-asan/.

# Added to the ENVIRONMENT of every test (tests/unit, tests/petsc); mpiexec passes it to the ranks.
# Leaks are checked (LeakSanitizer) with third-party leaks suppressed in lsan.supp; UBSan reports
# abort already (-fno-sanitize-recover), print_stacktrace says where from.
# intercept_tls_get_addr=0: GCC 12's LeakSanitizer, tracking dynamic TLS through __tls_get_addr,
# takes a block that lies 16 bytes past a page boundary for glibc 2.19's layout and reads a size and
# start from the 16 bytes before it; under glibc 2.36 those are other data, and scanning the bogus
# range ("DTLS 8 at 0x000000001034-0x000400002136" with LSAN_OPTIONS=verbosity=1:log_threads=1)
# crashes LSan's tracer at exit ("Tracer caught signal 11"). It struck the unit tests that start MPI
# (Open MPI's components use dynamic TLS) when the heap's layout put such a block there. Without
# the tracking LSan scans less as roots: it can only report more, never hide a leak.
set(PCLUSTER_SANITIZER_ENV
  "ASAN_OPTIONS=detect_leaks=1:intercept_tls_get_addr=0"
  "LSAN_OPTIONS=suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:print_suppressions=0"
  "UBSAN_OPTIONS=print_stacktrace=1")

# A program that checks PETSc's memory itself, case by case (pcluster_petsc_run OWN_LEAK_CHECK:
# bad_input.cxx, some of whose cases make PETSc 3.18 leak on its own error paths, which PetscFinalize
# then forgets): LeakSanitizer leaves what PETSc's allocator holds to the program and still checks
# every other allocation (ours through new and malloc). PETSc, built without frame pointers, shows
# only PetscMallocAlign in its stacks.
set(_own_check_supp "${CMAKE_CURRENT_BINARY_DIR}/lsan_own_petsc_check.supp")
file(READ "${CMAKE_CURRENT_LIST_DIR}/lsan.supp" _supp)
file(WRITE "${_own_check_supp}" "${_supp}# PETSc's allocator: checked by the program itself\nleak:PetscMallocAlign\n")
set(PCLUSTER_SANITIZER_ENV_OWN_LEAK_CHECK "LSAN_OPTIONS=suppressions=${_own_check_supp}:print_suppressions=0")

# Test timeouts are this many times the normal build's (tests/petsc): instrumented code runs a few
# times slower, and the slowest tests take minutes already.
set(PCLUSTER_SANITIZER_TIMEOUT_FACTOR 4)

add_library(pcluster_keep_dlopened OBJECT ${CMAKE_CURRENT_LIST_DIR}/keep_dlopened.c)

# pcluster_keep_dlopened_everywhere(<dir>): links keep_dlopened.c into every executable defined in
# <dir> and below (ours and the stock PETSc programs), its dlclose exported so that the shared
# libraries (PETSc, Open MPI) bind to it.
function(pcluster_keep_dlopened_everywhere dir)
  get_property(_targets DIRECTORY "${dir}" PROPERTY BUILDSYSTEM_TARGETS)
  foreach(t IN LISTS _targets)
    get_target_property(_type ${t} TYPE)
    if(_type STREQUAL "EXECUTABLE")
      target_link_libraries(${t} PRIVATE pcluster_keep_dlopened)
      target_link_options(${t} PRIVATE "LINKER:--export-dynamic-symbol=dlclose")
    endif()
  endforeach()
  get_property(_subdirs DIRECTORY "${dir}" PROPERTY SUBDIRECTORIES)
  foreach(d IN LISTS _subdirs)
    pcluster_keep_dlopened_everywhere("${d}")
  endforeach()
endfunction()
