// How many OpenMP threads a parallel region gets.
//
// Every parallel region of the core asks threads_for(work): regions with little work run on one
// thread, because waking a team and meeting at its barrier costs tens of microseconds (far more on
// a loaded machine), more than a small product takes. SpgemmPlan sets the team size for everything
// it calls (clustering included) with ScopedMaxThreads, so SpgemmOptions::num_threads governs all.
#pragma once

#include "pcluster/csr.hpp"

#include <omp.h>

#include <atomic>
#include <exception>

namespace pcluster::detail {

// Work units (nonzeros touched, flops) below which a region runs serially: ~32k units is ~30 us of
// work at ~1 ns each, the order of a team start-up.
constexpr Count kMinParallelWork = Count(1) << 15;

inline int threads_for(Count work) { return work < kMinParallelWork ? 1 : omp_get_max_threads(); }

// An exception must not leave an OpenMP region: that is std::terminate. A region whose body can
// throw (an allocation failing: std::bad_alloc) runs it through guard(); the first exception is
// kept, the region's remaining guarded work is skipped, and rethrow() after the region raises it
// on the calling thread, where the caller's handlers (the plugin's PETSC_ERR_MEM) see it.
class RegionErrors {
 public:
  template <class F>
  void guard(F &&f) noexcept
  {
    if (failed_.load(std::memory_order_relaxed)) return;
    try {
      f();
    } catch (...) {
#pragma omp critical(pcluster_region_errors)
      if (!error_) error_ = std::current_exception();
      failed_.store(true, std::memory_order_relaxed);
    }
  }
  void rethrow() const
  {
    if (error_) std::rethrow_exception(error_);
  }

 private:
  std::atomic<bool> failed_{false};
  std::exception_ptr error_;
};

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
