// How many OpenMP threads a parallel region gets.
//
// Every parallel region of the core asks threads_for(work): regions with little work run on one
// thread, because waking a team and meeting at its barrier costs tens of microseconds (far more on
// a loaded machine), more than a small product takes. SpgemmPlan sets the team size for everything
// it calls (clustering included) with ScopedMaxThreads, so SpgemmOptions::num_threads governs all.
#pragma once

#include "pcluster/csr.hpp"

#include <omp.h>

namespace pcluster::detail {

// Work units (nonzeros touched, flops) below which a region runs serially: ~32k units is ~30 us of
// work at ~1 ns each, the order of a team start-up.
constexpr Count kMinParallelWork = Count(1) << 15;

inline int threads_for(Count work) { return work < kMinParallelWork ? 1 : omp_get_max_threads(); }

class ScopedMaxThreads {
 public:
  explicit ScopedMaxThreads(int n) : saved_(omp_get_max_threads())
  {
    if (n > 0) omp_set_num_threads(n);
  }
  ~ScopedMaxThreads() { omp_set_num_threads(saved_); }
  ScopedMaxThreads(const ScopedMaxThreads &) = delete;
  ScopedMaxThreads &operator=(const ScopedMaxThreads &) = delete;

 private:
  int saved_;
};

} // namespace pcluster::detail
