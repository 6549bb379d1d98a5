// Handing a block's pages back to the system before the block is freed.
#pragma once

#include <cstdint>
#include <sys/mman.h>
#include <unistd.h>

namespace pcluster {

// Hands the whole pages inside [begin, end) of a block we own back to the system; their contents
// are lost (zero pages if touched again). For memory about to be freed whose pages the allocator may
// keep resident: in every process linked to Debian's PETSc, SuperLU_DIST's library constructor sets
// mallopt(M_MMAP_MAX, 0) and M_TRIM_THRESHOLD -1, so every block, however large, comes from the brk
// heap and freed memory is never returned; touched pages of a freed block stay resident until a later
// allocation happens to reuse them. The allocator's own bookkeeping lies outside the whole pages of
// the block's interior, or is written again (onto a zero page) when the block is freed.
inline void release_pages(const void *begin, const void *end)
{
  static const std::uintptr_t page = static_cast<std::uintptr_t>(sysconf(_SC_PAGESIZE));
  const std::uintptr_t b = (reinterpret_cast<std::uintptr_t>(begin) + page - 1) & ~(page - 1);
  const std::uintptr_t e = reinterpret_cast<std::uintptr_t>(end) & ~(page - 1);
  if (e > b) madvise(reinterpret_cast<void *>(b), e - b, MADV_DONTNEED);
}

} // namespace pcluster
