/*
   The peak resident memory an operation adds, as the benchmarks (spgemm_bench, mpi_bench) and the
   memory tests (tests/unit/test_memory.cpp, tests/petsc/wide_product.cxx) measure it. Linux only;
   no PETSc, so the core's unit tests can use it too.

     const double rss0 = ResetPeak();           // malloc_trim(0), VmHWM := VmRSS, returns VmRSS (MB)
     ... the operation ...
     const double peak = StatusMB("VmHWM") - rss0;

   The figure is what the operation made resident at its peak, above what was resident before: its
   result and whatever it keeps count, pages allocated but never touched do not. Caveat: memory freed
   earlier but kept by the allocator can be reused without raising VmHWM and so hide growth;
   malloc_trim(0) returns most of it to the OS first.
*/
#pragma once

#include <malloc.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

/* A field of /proc/self/status in MB (VmRSS, VmHWM), or NaN if it cannot be read */
inline double StatusMB(const char *field)
{
  char        line[256];
  double      mb  = std::nan("");
  std::size_t len = std::strlen(field);
  std::FILE  *fp  = std::fopen("/proc/self/status", "r");
  if (!fp) return mb;
  while (std::fgets(line, sizeof line, fp))
    if (!std::strncmp(line, field, len) && line[len] == ':') {
      mb = std::atof(line + len + 1) / 1024.0; /* kB */
      break;
    }
  std::fclose(fp);
  return mb;
}

/* Returns free heap memory to the OS, resets VmHWM to VmRSS ("5" written to /proc/self/clear_refs),
   and returns VmRSS in MB (NaN if the peak cannot be reset) */
inline double ResetPeak()
{
  malloc_trim(0);
  std::FILE *fp = std::fopen("/proc/self/clear_refs", "w");
  if (!fp) return std::nan("");
  const bool ok = std::fputs("5", fp) >= 0;
  if (std::fclose(fp) != 0 || !ok) return std::nan("");
  return StatusMB("VmRSS");
}
