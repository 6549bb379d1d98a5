// Large, short-lived work arrays.
//
// A product writes hundreds of megabytes into fresh memory once; on this class of machine each 4 KiB
// page fault costs microseconds, a large share of a product's time. Asking for transparent huge
// pages (Linux madvise, honoured when THP is "madvise" or "always") cuts the number of faults 512x.
// Arrays are left uninitialised: every element is written before it is read, and pages never
// written are never touched.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>
#if defined(__linux__)
  #include <sys/mman.h>
#endif

namespace pcluster::detail {

constexpr std::size_t kHugePage = std::size_t(2) << 20;

inline void advise_huge_pages(void *p, std::size_t bytes)
{
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (bytes < 2 * kHugePage) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void *>(begin), end - begin, MADV_HUGEPAGE); // a hint: failure is harmless
#else
  (void)p, (void)bytes;
#endif
}

// Resizes a large output vector, asking for huge pages first: reserve() gets the final block and
// the zero-fill of resize() then faults it in huge pages. Only for vectors that grow from empty
// (a vector that already holds the capacity keeps its pages).
template <class T>
void resize_large(std::vector<T> &v, std::size_t n)
{
  if (v.capacity() < n) {
    v.reserve(n);
    advise_huge_pages(v.data(), n * sizeof(T));
  }
  v.resize(n);
}

template <class T>
std::unique_ptr<T[]> make_uninitialized_array(std::size_t n)
{
  std::unique_ptr<T[]> a(new T[n]);
  advise_huge_pages(a.get(), n * sizeof(T));
  return a;
}

} // namespace pcluster::detail
