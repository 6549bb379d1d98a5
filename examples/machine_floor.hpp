/*
   The floor of a product on this machine (design/benchmarks.md, "The floor"): the bytes a phase must
   move over the machine's STREAM triad bandwidth, plus the first-touch page faults of the memory it
   writes for the first time. Both are measured once the first input has run (MeasureMachine, about
   half a second), so every row of a benchmark can say how far a phase is from what the hardware
   allows, and a run that stops at a bad option or file pays nothing for it.

   Bytes of a phase (CSR: a nonzero is a 4-byte index and an 8-byte value, a row a 4-byte pointer):
     symbolic  reads A's and B's patterns, writes C's pattern;
     numeric   reads A, B and C's pattern, writes C's values;
   a one-shot product is both, with C's pattern and values written into fresh pages (faults); a
   reuse writes C's values again, into pages already resident.
*/
#pragma once

#include <petscsys.h> /* PetscInt64 */

#include <omp.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

struct MachineFloor {
  double triad_gbs_1t = 0; /* STREAM triad, one thread, GB/s */
  double triad_gbs_nt = 0; /* ... on omp_get_max_threads() threads */
  int    threads      = 1;
  double fault_us     = 0; /* seconds per 4 KiB page written for the first time, in us */
};

/* STREAM triad a = b + s c on arrays of n doubles (each twice the last-level cache here), best of reps,
   on one thread and on `threads`: the arrays are made (and their pages faulted) once for both */
inline void TriadGBs(std::size_t n, int threads, int reps, double *gbs_1t, double *gbs_nt)
{
  std::vector<double> a(n), b(n, 1.0), c(n, 2.0);
  auto                best_of = [&](int t) {
    double best = 1e30;
    for (int r = 0; r < reps; ++r) {
      const double t0 = omp_get_wtime();
#pragma omp parallel for schedule(static) num_threads(t)
      for (std::size_t i = 0; i < n; ++i) a[i] = b[i] + 3.0 * c[i];
      best = std::min(best, omp_get_wtime() - t0);
    }
    return 3.0 * 8.0 * static_cast<double>(n) / best * 1e-9;
  };
  *gbs_1t = best_of(1);
  *gbs_nt = threads > 1 ? best_of(threads) : *gbs_1t;
  volatile double keep = a[n / 2]; /* the loop is not dead */
  (void)keep;
}

/* First touch of fresh anonymous pages: one write per 4 KiB page of a new mapping, best of reps */
inline double FaultMicroseconds(std::size_t bytes, int reps)
{
  double best = 1e30;
  for (int r = 0; r < reps; ++r) {
    void *p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return 0;
    char          *c = static_cast<char *>(p);
    const double t0 = omp_get_wtime();
    for (std::size_t k = 0; k < bytes; k += 4096) c[k] = 1;
    const double t1 = omp_get_wtime();
    munmap(p, bytes);
    best = std::min(best, (t1 - t0) / static_cast<double>(bytes / 4096) * 1e6);
  }
  return best;
}

inline MachineFloor MeasureMachine()
{
  MachineFloor m;
  m.threads = omp_get_max_threads();
  TriadGBs(std::size_t(1) << 23, m.threads, 4, &m.triad_gbs_1t, &m.triad_gbs_nt); /* 3 x 64 MiB */
  m.fault_us = FaultMicroseconds(std::size_t(64) << 20, 3);
  return m;
}

/* The floor of one product's phases, in seconds, on `threads` threads' bandwidth */
struct ProductFloor {
  double symbolic = 0, numeric_first = 0, reuse = 0, oneshot = 0;
};

inline ProductFloor FloorOf(const MachineFloor &m, PetscInt64 rows_a, PetscInt64 nnz_a, PetscInt64 rows_b, PetscInt64 nnz_b, PetscInt64 nnz_c, int threads)
{
  const double gbs       = (threads > 1 ? m.triad_gbs_nt : m.triad_gbs_1t) * 1e9;
  const double pattern_a = 4.0 * static_cast<double>(nnz_a + rows_a), pattern_b = 4.0 * static_cast<double>(nnz_b + rows_b);
  const double pattern_c = 4.0 * static_cast<double>(nnz_c + rows_a), values_c = 8.0 * static_cast<double>(nnz_c);
  const double values_a = 8.0 * static_cast<double>(nnz_a), values_b = 8.0 * static_cast<double>(nnz_b);
  auto         faults = [&](double bytes) { return bytes / 4096.0 * m.fault_us * 1e-6; };
  ProductFloor f;
  f.symbolic      = (pattern_a + pattern_b + pattern_c) / gbs + faults(pattern_c);
  f.reuse         = (pattern_a + values_a + pattern_b + values_b + pattern_c + values_c) / gbs;
  f.numeric_first = f.reuse + faults(values_c);
  f.oneshot       = f.symbolic + f.numeric_first;
  return f;
}
