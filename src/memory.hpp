// Large, short-lived work arrays.
//
// A product writes hundreds of megabytes into fresh memory once, and on this class of machine each
// 4 KiB page fault costs ~2 us, a visible share of a product's time. Arrays are therefore left
// uninitialised where every element is written before it is read (pages never written are never
// touched), and vectors are not zero-filled twice.
//
// Transparent huge pages (madvise(MADV_HUGEPAGE)) were tried and removed: in a fresh process they
// cut fault time 3x, but in a long-running one (PCHMG set-up) the kernel compacts memory on the
// faulting thread when the huge pages are fragmented, and 27 MB of product output then took 88 ms
// to fault in against 13 ms in small pages, so the AMG set-ups got up to 2x slower.
//
// Arrays that must start zeroed (the dense accumulator's stamps and bitmap) come from calloc: its
// large blocks are fresh pages, which the kernel zero-fills on first touch, so an ncols-wide array
// of which a product touches a narrow window makes only that window resident (and costs no memset).
#pragma once

#include "pcluster/pages.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>
#include <unistd.h>

namespace pcluster::detail {

template <class T>
std::unique_ptr<T[]> make_uninitialized_array(std::size_t n)
{
  return std::unique_ptr<T[]>(new T[n]);
}

// Uninitialised storage of a byte size, for trivial types written before they are read (operator
// new: a failure is std::bad_alloc, as for every allocation of the core).
struct RawDeleter {
  void operator()(void *p) const { ::operator delete(p); }
};
using RawStorage = std::unique_ptr<void, RawDeleter>;
inline RawStorage make_raw_storage(std::size_t bytes) { return RawStorage(::operator new(bytes ? bytes : 1)); }

// The machine's physical memory (0 where the system does not say). Asked once: sysconf makes a
// system call (sysinfo) each time, 1% of a small product's symbolic phase (cryg2500, 2500 rows).
inline std::size_t physical_memory_bytes()
{
  static const std::size_t bytes = [] {
    const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? static_cast<std::size_t>(pages) * static_cast<std::size_t>(page) : std::size_t(0);
  }();
  return bytes;
}

struct FreeDeleter {
  void operator()(void *p) const { std::free(p); }
};
template <class T>
using ZeroedArray = std::unique_ptr<T[], FreeDeleter>;

template <class T>
ZeroedArray<T> make_zeroed_array(std::size_t n)
{
  static_assert(std::is_trivial_v<T>, "calloc'd memory holds only trivial types");
  void *p = std::calloc(n ? n : 1, sizeof(T));
  if (!p) throw std::bad_alloc();
  return ZeroedArray<T>(static_cast<T *>(p));
}

} // namespace pcluster::detail
