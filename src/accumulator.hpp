// Column maps: the accumulators of Gustavson's algorithm, reduced to what both phases need.
//
// A column map assigns consecutive slots 0,1,2,... to the distinct output columns of one row (or
// one cluster) as they are first seen. The symbolic phase records, per slot, the column and the
// mask of cluster rows that reach it; the numeric phase keeps values in a slot-indexed array.
// Keeping values out of the map keeps the map small (keys and slots only) and lets the cluster
// kernel store s values per slot contiguously.
//
// The kernel (src/spgemm_kernel.hpp) is written once against the operations every map offers:
//
//   static constexpr Accumulator kind;         the option value that names it
//   static bool supports(Count ncols);         can it serve a product with ncols columns of C?
//   void prepare(I ncols, unsigned uses);      allocate what the uses below need (kMarks, kSlots,
//                                              kPositions), before the first row of a phase
//   void reset(Count expected);                start a row/cluster with <= expected columns
//   bool mark(I j);                            record column j (no slot); true if new
//   I *mark_new(const I *first, const I *last, I *out); mark() each of [first, last), appending the
//                                              new ones to out; returns out's new end
//   I insert<Track>(I j, bool &inserted);      slot of j, a new one if j is new; with Track the
//                                              column is also recorded as mark() does
//   I find(I j) const;                         slot of a column inserted since reset()
//   bool scan_sorted(I *out, Count n);         the n recorded columns in ascending order into out,
//                                              clearing the record, if the map can do it faster
//                                              than a sort; false (and nothing done) otherwise
//   void unrecord(const I *first, const I *last); clear the record of these columns
//   Positions bind_positions(const I *cols, I n, V *values); row-wise numeric: column cols[p] is at
//                                              position p, and values[p] = 0, in one pass; the
//                                              returned lookup (position[j]: a pointer, or a small
//                                              value) gives a bound column's position
//   std::size_t bytes() const;                 allocated so far (never shrinks: the phase's peak)
//
// To add an accumulator: write one class with these operations here, add its value to the enum
// Accumulator and its name to kAccumulatorNames (include/pcluster/spgemm.hpp), and append the class
// to ColumnMaps below. choose_accumulator() then honours it when asked for by name; teaching Auto
// when to pick it is a change of prefer_dense()'s rule.
//
// The two maps, chosen per row/cluster by choose_accumulator() (once per chunk where every row gets the
// same one: uniform_accumulator()):
//  - DenseColumnMap: ncols-wide slot and stamp arrays per thread, O(1) with no probing; allocated
//    lazily, only by threads that meet a row for which it is chosen.
//  - HashColumnMap: open addressing with linear probing and Fibonacci hashing, capacity the next
//    power of two >= 2x the expected number of distinct columns (>= kMinHashCapacity), so a
//    sparse row's table stays in L1 however large ncols is (Nagasaka et al., ICPP 2018 / Parallel
//    Computing 2019; GraphBLAS's saxpy3 uses the same sizing rule).
//
// Workspace per thread (bytes; n = ncols of C, W = the multiply-adds of the largest unit the thread
// runs, every row of a cluster counted (each map is sized by at most W: the unit's flops, or its
// entries of C), I = sizeof(index), V = sizeof(value)):
//  - hash map: keys and slots of capacity <= max(16, 4W), plus a used list of half that: <= 10 W I;
//  - dense map, only where choose_accumulator() allows it, so only for n <= kDenseMaxColumns:
//      symbolic, row-wise pattern only: the bitmap, n/8 + n/512 (summary words);
//      symbolic with values, or a cluster: slots and stamps n (I + 4), plus the bitmap;
//      numeric, row-wise: positions n I (the slot array), or where it gathers (src/spgemm_kernel.hpp,
//      numeric_gathers: n V <= 256 KiB) the value array n V, and the positions too where it follows
//      rows copied from the row before (FollowList); numeric, cluster: slots and stamps n (I + 4);
//  - per-unit scratch (src/spgemm_kernel.hpp, Workspace): <= W (5 I + 8 + V) (the numeric phase's
//    FollowList: W I of it).
// So a thread never holds more than kDenseMaxColumns (I + 4 + 1/8) bytes of dense arrays
// (2^24 columns: 136 MiB with 32-bit indices; Auto's 2^22 clause: 34 MiB, and only for a product
// of >= ncols multiply-adds) plus O(W) for its largest unit, and with ncols > kDenseMaxColumns
// nothing ncols-wide at all. Dense arrays become resident only where touched (memory.hpp). The
// symbolic and numeric phases report what their threads allocated (SpgemmStats::workspace_*).
#pragma once

#include "memory.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/spgemm.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <vector>

namespace pcluster::detail {

// What a phase asks of a map (prepare()).
enum MapUse : unsigned {
  kMarks = 1,     // mark(), insert<true>(), scan_sorted(), unrecord()
  kSlots = 2,     // insert(), find()
  kPositions = 4, // bind_positions()
};

// Smallest hash table, so tiny rows do not rehash constantly and the shift below stays < 64.
constexpr std::size_t kMinHashCapacity = 16;
// The dense map pays for touching an ncols-wide array; it wins when a row's expected number of
// distinct columns is at least ncols / kDenseDivisor (GraphBLAS uses the same m/16 cut-off between
// its hash and Gustavson tasks), or when the arrays are small enough to live in L2 anyway.
constexpr Count kDenseDivisor = 16;
// Up to 2^22 columns the dense accumulator wins even on randomly numbered rows: measured with the
// benchmark (1 thread), a shuffled 2D geometric graph with 1M columns ran A*A at 1.02x PETSc's
// rowmerge with dense against 0.75x with hash, a shuffled 7-point Laplacian with 512k columns
// 0.98x against 0.74x. Its row-wise symbolic phase uses only an ncols-bit bitmap (512 KiB here).
// The clause needs a product with at least ncols multiply-adds in all: a small product with wide,
// sparse rows touches its threads' ncols-wide arrays more than it uses them (4000 x 500 times
// 500 x n with 48k multiply-adds, 1 thread, fused row-wise: dense many times slower than hash at
// n = 2^20, about 2x at 2^18, on par at 2^16; measured on a loaded machine, so ratios only).
constexpr Count kDenseAlwaysBelowColumns = Count(1) << 22;

// With the dense map, a row's n columns spread over a window of w = max - min + 1 columns are put
// in order by scanning the map's two-level bitmap rather than sorting: a summary bit per 64-column
// word says which words hold marks, so the scan reads ~w/4096 summary words, the ~n words that
// hold marks, and extracts n bits; a sort costs ~n log2 n compares with unpredictable branches.
// (A 7-point Laplacian squared has n = 25 in ~400 words: a one-level scan lost to insertion sort,
// the two-level one reads ~7 + 25 words; measured on its own, the symbolic phase then costs the
// same, being bound by writing its output.) Sort only when the window is so wide that even its
// summary words outnumber the columns kScanWordsPerColumn-fold.
constexpr Count kScanWordsPerColumn = 4;
inline bool prefer_scan(Count n, Count window) { return window / 4096 <= n * kScanWordsPerColumn; }

// kDenseMaxColumns (include/pcluster/spgemm.hpp) caps every dense choice. Auto uses dense arrays
// above 2^22 columns only for rows with work >= ncols/16; there (up to 2^24 columns) the arrays
// cost at most 16 (sizeof(I) + 4 + 1/8) bytes per unit of the row's work, 3x its hash table's 10 I.

// Auto rule: `work` is an upper bound on the distinct columns of the row (its flops, capped at
// ncols), `flops` the whole product's multiply-adds.
inline bool dense_for_every_row(Count ncols, Count flops) { return ncols <= kDenseAlwaysBelowColumns && flops >= ncols; }
inline bool prefer_dense(Count work, Count ncols, Count flops) { return dense_for_every_row(ncols, flops) || work * kDenseDivisor >= ncols; }

template <class I>
class DenseColumnMap {
 public:
  static constexpr Accumulator kind = Accumulator::Dense;
  static bool supports(Count ncols) { return ncols <= kDenseMaxColumns; }

  // The marks are a bitmap (ncols bits: 128 KiB for 2^20 columns, so it stays in L2); slots need
  // the slot and stamp arrays, positions the slot array only. Slots are read only where a stamp is
  // current (positions only where just bound), so they need no initialisation; stamps and bitmap
  // start zeroed without being written (memory.hpp): only the pages of columns a product touches
  // become resident.
  void prepare(I ncols, unsigned uses)
  {
    if ((uses & kMarks) && nwords_ < words(ncols)) {
      nwords_ = words(ncols);
      bits_ = make_zeroed_array<std::uint64_t>(nwords_);
      summary_ = make_zeroed_array<std::uint64_t>((nwords_ + 63) / 64);
    }
    if ((uses & (kSlots | kPositions)) && nslot_array_ < static_cast<std::size_t>(ncols)) {
      nslot_array_ = static_cast<std::size_t>(ncols);
      slot_ = make_uninitialized_array<I>(nslot_array_);
    }
    if ((uses & kSlots) && nstamps_ < static_cast<std::size_t>(ncols)) {
      nstamps_ = static_cast<std::size_t>(ncols);
      stamp_ = make_zeroed_array<std::uint32_t>(nstamps_);
      epoch_ = 0;
    }
  }
  void reset(Count /*expected*/)
  {
    n_ = 0;
    lo_ = std::numeric_limits<I>::max();
    hi_ = -1;
    if (nstamps_ && ++epoch_ == 0) { // wrapped: stale stamps could alias, clear them
      std::fill(stamp_.get(), stamp_.get() + nstamps_, 0u);
      epoch_ = 1;
    }
  }
  bool mark(I j)
  {
    const std::size_t wi = static_cast<std::size_t>(j) >> 6;
    std::uint64_t &w = bits_[wi];
    const std::uint64_t bit = std::uint64_t(1) << (j & 63);
    if (w & bit) return false;
    w |= bit;
    summary_[wi >> 6] |= std::uint64_t(1) << (wi & 63);
    lo_ = std::min(lo_, j);
    hi_ = std::max(hi_, j);
    return true;
  }
  // mark() for each column of [first, last), the new ones appended to out: the row-wise symbolic
  // loop. The map's pointers and window stay in registers; calling mark() per column, each store
  // through out (an I*, which may alias them) made the compiler reload them.
  I *mark_new(const I *__restrict first, const I *last, I *__restrict out)
  {
    std::uint64_t *const __restrict bits = bits_.get();
    std::uint64_t *const __restrict summary = summary_.get();
    I lo = lo_, hi = hi_;
    for (; first < last; ++first) {
      const I j = *first;
      const std::size_t wi = static_cast<std::size_t>(j) >> 6;
      const std::uint64_t bit = std::uint64_t(1) << (j & 63), w = bits[wi];
      if (w & bit) continue;
      bits[wi] = w | bit;
      summary[wi >> 6] |= std::uint64_t(1) << (wi & 63);
      lo = std::min(lo, j);
      hi = std::max(hi, j);
      *out++ = j;
    }
    lo_ = lo;
    hi_ = hi;
    return out;
  }
  template <bool Track = false>
  I insert(I j, bool &inserted)
  {
    if (stamp_[j] != epoch_) {
      stamp_[j] = epoch_;
      slot_[j] = n_++;
      inserted = true;
      if constexpr (Track) mark(j);
    } else inserted = false;
    return slot_[j];
  }
  I find(I j) const { return slot_[j]; }

  // The marked columns lie in [lo_, hi_]: a scan of the window's summary words, and of the bitmap
  // words they flag, when that beats sorting n columns (prefer_scan()).
  bool scan_sorted(I *out, Count n)
  {
    if (n == 0 || !prefer_scan(n, Count(hi_) - lo_ + 1)) return false;
    const std::size_t first = static_cast<std::size_t>(lo_) >> 12, last = static_cast<std::size_t>(hi_) >> 12;
    for (std::size_t sw = first; sw <= last; ++sw) {
      std::uint64_t words_set = summary_[sw];
      summary_[sw] = 0;
      while (words_set) {
        const std::size_t w = (sw << 6) + static_cast<std::size_t>(__builtin_ctzll(words_set));
        words_set &= words_set - 1;
        std::uint64_t x = bits_[w];
        bits_[w] = 0;
        while (x) {
          *out++ = static_cast<I>((w << 6) + static_cast<std::size_t>(__builtin_ctzll(x)));
          x &= x - 1;
        }
      }
    }
    return true;
  }
  void unrecord(const I *first, const I *last)
  {
    for (; first < last; ++first) {
      const std::size_t wi = static_cast<std::size_t>(*first) >> 6;
      bits_[wi] = 0;
      summary_[wi >> 6] = 0;
    }
  }

  // Row-wise numeric: C's columns of the row map to their positions in the row (the slot array).
  // Half the bytes of a value array, and no reset: only C's columns are ever looked up, just after
  // being bound. Where a value array is small, the kernel gathers instead (src/spgemm_kernel.hpp,
  // numeric_gathers: the measurements).
  using Positions = const I *;
  template <class V>
  Positions bind_positions(const I *cols, I n, V *values)
  {
    I *const __restrict slot = slot_.get();
    for (I p = 0; p < n; ++p) {
      slot[cols[p]] = p;
      values[p] = V(0);
    }
    return slot;
  }

  I size() const { return n_; }
  std::size_t bytes() const
  {
    return (nwords_ + (nwords_ + 63) / 64) * sizeof(std::uint64_t) + nslot_array_ * sizeof(I) + nstamps_ * sizeof(std::uint32_t);
  }

 private:
  static std::size_t words(I ncols) { return (static_cast<std::size_t>(ncols) + 63) / 64; }
  std::size_t nwords_ = 0, nslot_array_ = 0, nstamps_ = 0;
  ZeroedArray<std::uint64_t> bits_;    // bit j: column j is marked
  ZeroedArray<std::uint64_t> summary_; // bit w: word w of bits_ is nonzero
  std::unique_ptr<I[]> slot_;
  ZeroedArray<std::uint32_t> stamp_;
  std::uint32_t epoch_ = 0;
  I n_ = 0;
  I lo_ = 0, hi_ = -1; // window of the marked columns
};

template <class I>
class HashColumnMap {
 public:
  static constexpr Accumulator kind = Accumulator::Hash;
  static bool supports(Count) { return true; }

  void prepare(I, unsigned) {} // sized per row by reset()
  void reset(Count expected)
  {
    std::size_t cap = kMinHashCapacity;
    while (cap < 2 * static_cast<std::size_t>(expected)) cap *= 2;
    if (cap != keys_.size()) {
      keys_.assign(cap, kEmpty);
      slots_.resize(cap);
      shift_ = 64 - log2(cap);
    } else if (n_ > 0) {
      // Clear only what was used when that is cheaper than a full fill.
      if (static_cast<std::size_t>(n_) * 4 < cap)
        for (I s = 0; s < n_; ++s) keys_[used_[s]] = kEmpty;
      else std::fill(keys_.begin(), keys_.end(), kEmpty);
    }
    used_.resize(cap / 2 + 1);
    n_ = 0;
  }
  bool mark(I j)
  {
    bool inserted;
    position_of(j, inserted);
    return inserted;
  }
  I *mark_new(const I *first, const I *last, I *out)
  {
    for (; first < last; ++first)
      if (mark(*first)) *out++ = *first;
    return out;
  }
  template <bool Track = false>
  I insert(I j, bool &inserted)
  {
    const std::size_t h = position_of(j, inserted);
    if (inserted) slots_[h] = n_ - 1;
    return slots_[h];
  }
  I find(I j) const
  {
    std::size_t h = hash(j);
    const std::size_t mask = keys_.size() - 1;
    while (keys_[h] != j) h = (h + 1) & mask;
    return slots_[h];
  }
  // A hash table holds no order: the kernel sorts.
  bool scan_sorted(I *, Count) { return false; }
  void unrecord(const I *, const I *) {}

  struct Positions {
    const HashColumnMap *map;
    I operator[](I j) const { return map->find(j); }
  };
  template <class V>
  Positions bind_positions(const I *cols, I n, V *values)
  {
    reset(n);
    for (I p = 0; p < n; ++p) {
      bool inserted;
      slots_[position_of(cols[p], inserted)] = p;
      values[p] = V(0);
    }
    return Positions{this};
  }

  I size() const { return n_; }
  std::size_t bytes() const { return (keys_.capacity() + slots_.capacity() + used_.capacity()) * sizeof(I); }

 private:
  static constexpr I kEmpty = -1;
  // Table position of j, claiming an empty one (and counting it) if j is new.
  std::size_t position_of(I j, bool &inserted)
  {
    std::size_t h = hash(j);
    const std::size_t mask = keys_.size() - 1;
    while (true) {
      if (keys_[h] == j) {
        inserted = false;
        return h;
      }
      if (keys_[h] == kEmpty) {
        keys_[h] = j;
        used_[n_++] = static_cast<I>(h);
        inserted = true;
        return h;
      }
      h = (h + 1) & mask;
    }
  }
  static int log2(std::size_t x)
  {
    int b = 0;
    while ((std::size_t(1) << b) < x) ++b;
    return b;
  }
  std::size_t hash(I j) const { return static_cast<std::size_t>((static_cast<std::uint64_t>(j) * 0x9E3779B97F4A7C15ull) >> shift_); }

  std::vector<I> keys_, slots_, used_;
  int shift_ = 60;
  I n_ = 0;
};

// Every accumulator the kernel can run; the first is the fallback of choose_accumulator().
template <class I>
using ColumnMaps = std::tuple<HashColumnMap<I>, DenseColumnMap<I>>;

// Whether Maps... hold a map of this kind that supports ncols columns.
template <class Maps>
struct ColumnMapList;
template <class... Maps>
struct ColumnMapList<std::tuple<Maps...>> {
  static bool usable(Accumulator kind, Count ncols) { return ((Maps::kind == kind && Maps::supports(ncols)) || ...); }
};

// The map of one row (or cluster): the option if it names a map that supports ncols (else the
// fallback), Auto by prefer_dense(). `work` bounds the row's distinct columns, `flops` is the
// product's.
template <class I>
Accumulator choose_accumulator(Accumulator asked, Count work, Count ncols, Count flops)
{
  constexpr Accumulator fallback = std::tuple_element_t<0, ColumnMaps<I>>::kind;
  if (asked == Accumulator::Auto)
    return DenseColumnMap<I>::supports(ncols) && prefer_dense(work, ncols, flops) ? Accumulator::Dense : fallback;
  return ColumnMapList<ColumnMaps<I>>::usable(asked, ncols) ? asked : fallback;
}

// The map every row of a product gets when that does not depend on the row (an explicit option, or
// Auto where prefer_dense()'s product-wide clause holds): the kernel then dispatches once per chunk
// rather than once per row, whose overhead is comparable to the work of a row of a few entries.
template <class I>
std::optional<Accumulator> uniform_accumulator(Accumulator asked, Count ncols, Count flops)
{
  if (asked != Accumulator::Auto) return choose_accumulator<I>(asked, 0, ncols, flops);
  if (DenseColumnMap<I>::supports(ncols) && dense_for_every_row(ncols, flops)) return Accumulator::Dense;
  return std::nullopt;
}

// The one dispatch from a map's kind to its class: f(map) with this thread's map of that kind,
// prepared for `uses` on ncols columns.
template <class I, class F>
void with_column_map(ColumnMaps<I> &maps, Accumulator kind, I ncols, unsigned uses, F &&f)
{
  std::apply([&](auto &...map) { (void)((map.kind == kind ? (map.prepare(ncols, uses), f(map), true) : false) || ...); }, maps);
}

} // namespace pcluster::detail
