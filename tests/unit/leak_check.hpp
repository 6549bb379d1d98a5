// LeakSanitizer's check, run by the unit tests' mains before MPI stops its threads.
//
// LSan checks for leaks at exit, after the atexit handlers; one of them is the hp ordering's
// MPI_Finalize (src/ordering/hp.cpp), which ends Open MPI's threads. LSan's stop-the-world tracer
// crashes now and then when threads are exiting as it starts ("Tracer caught signal 11 ...
// LeakSanitizer has encountered a fatal error", a known LSan flake: google/sanitizers#1170; here
// once in a CI run of ~900 tests, a test that had passed). Called at the end of main, the check sees
// idle threads and the same heap (everything the tests allocated is freed or still reachable), and
// LSan checks at most once, so the exit path runs without it. No-op without AddressSanitizer.
#pragma once

#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/lsan_interface.h>
#endif

namespace pctest {

inline void check_leaks_now()
{
#if defined(__SANITIZE_ADDRESS__)
  __lsan_do_leak_check(); // exits with LSan's exit code if it finds a leak
#endif
}

} // namespace pctest
