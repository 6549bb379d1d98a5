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
#pragma once

#include <cstddef>
#include <memory>

namespace pcluster::detail {

template <class T>
std::unique_ptr<T[]> make_uninitialized_array(std::size_t n)
{
  return std::unique_ptr<T[]>(new T[n]);
}

} // namespace pcluster::detail
