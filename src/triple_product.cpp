// The fused triple product C = Pt * (A * P) (design and bounds: triple_product.hpp).
#include "triple_product.hpp"

#include "memory.hpp"
#include "parallel.hpp"
#include "spgemm_kernel.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <numeric>
#include <string>
#include <stdexcept>
#include <type_traits>
#include <utility>

#include <unistd.h>

namespace pcluster::detail {

namespace {

// Numeric phase: a row of C longer than this is walked only over the column range of the row of
// A*P being added (two binary searches), shorter ones whole. Measured (1 thread, PCGAMG's P, reuse):
// searching every row made a 7-point Poisson product (rows of C of ~33) 1.6x slower, and a 3D
// elasticity one (rows of ~140, 6 rigid-body modes) 1.4x faster.
constexpr std::ptrdiff_t kSearchedRowLength = 64;
// Numeric phase by rows of C: P^T is made in blocks of at most 1/kPtBlockParts of P's entries per
// thread (at least kMinPtBlock): so at most kPtBlockParts passes over (the rows that reach a block
// of) P. Measured with a row of P^T A sized by its multiply-adds, a quarter took one PtAP's peak to
// 1.8x PETSc's scalable on elasticity (e27 n=20, 1 thread), a sixteenth to 1.3x; with that row
// capped at A's columns (as below), a sixteenth to 0.93x, and an MPIAIJ rank's (p7 n=80, 2 ranks)
// to 1.16-1.18x allatonce's, rows of A 1.13-1.15x.
constexpr Count kPtBlockParts = 16;
constexpr Count kMinPtBlock = 4096;
// The symbolic phase makes P^T's pattern in blocks too, as small as the numeric phase's where that
// costs few passes over P: each block is a pass over the rows of P that reach it, which on a
// scattered numbering (or with aggregates numbered apart from their rows) is all of P. So it takes
// the most parts of kPtBlockParts, 8 and kPtSymbolicMinParts whose blocks pass over at most
// kPtSymbolicMaxPasses times P's rows in all (symbolic_pt_budget). Measured, 1 thread: shuffled
// 7-point (1M rows), sixteen blocks took 0.18 s more of a 0.7 s symbolic phase; the natural 7-point
// 0.05 s more of 0.27 s, its PCGAMG aggregates reaching rows far apart.
constexpr Count kPtSymbolicMinParts = 4;
constexpr Count kPtSymbolicMaxPasses = 4;

// m-wide marks: column c is marked in the current set iff stamp[c] == now.
class Stamps {
 public:
  explicit Stamps(std::size_t m) : stamp_(m, 0) {}
  std::uint32_t *data() { return stamp_.data(); }
  std::uint32_t next()
  {
    if (++now_ == 0) { // wrapped: forget every old mark
      std::fill(stamp_.begin(), stamp_.end(), 0);
      now_ = 1;
    }
    return now_;
  }
  std::uint32_t current() const { return now_; }
  std::size_t bytes() const { return stamp_.capacity() * sizeof(std::uint32_t); }
  // Sorts `cols`, the columns marked now: by sorting the list, or where they fill enough of their
  // span, by scanning the marks over it (an R-MAT C has rows of 4300 of 4500 columns, and sorting
  // them was a third of its symbolic phase).
  template <class I>
  void sort_marked(std::vector<I> &cols) const
  {
    const std::size_t n = cols.size();
    if (n <= kInsertionSortMax) return sort_small(cols.data(), cols.data() + n, std::less<I>());
    const auto [lo, hi] = std::minmax_element(cols.begin(), cols.end());
    const I c0 = *lo, c1 = *hi + 1;
    if (static_cast<double>(c1 - c0) > 4.0 * static_cast<double>(n) * std::log2(static_cast<double>(n)))
      return std::sort(cols.begin(), cols.end());
    cols.clear();
    for (I c = c0; c < c1; ++c)
      if (stamp_[static_cast<std::size_t>(c)] == now_) cols.push_back(c);
  }

 private:
  std::vector<std::uint32_t> stamp_;
  std::uint32_t now_ = 0;
};

// The rows of both kinds of operand alike: f(column, value) for each entry of row i, in order.
template <class I, class V, class F>
inline void for_each_entry(const CsrView<I, V> &M, I i, F &&f)
{
  const I *const col = M.colidx;
  const V *const val = M.values;
  for (I t = M.rowptr[i]; t < M.rowptr[i + 1]; ++t) f(col[t], val ? val[t] : V(1));
}
template <class I, class V, class F>
inline void for_each_entry(const PiecedView<I, V> &M, I i, F &&f)
{
  M.for_each(i, f);
}
// for_each_entry over A's row k, where f fetches P's row of each column: on a scattered numbering
// those are cache misses, so the row kPrefetchAhead entries ahead is prefetched (spgemm_kernel.hpp).
template <class I, class V, class F>
inline void for_each_entry_fetching(const CsrView<I, V> &A, I k, const CsrView<I, V> &P, F &&f)
{
  const I *const col = A.colidx, *const end = A.colidx + A.nnz();
  const V *const val = A.values;
  for (I t = A.rowptr[k]; t < A.rowptr[k + 1]; ++t) {
    prefetch_row(col + t + kPrefetchAhead, end, P.rowptr, P.colidx, P.values);
    f(col[t], val ? val[t] : V(1));
  }
}
template <class I, class V, class F>
inline void for_each_entry_fetching(const PiecedView<I, V> &A, I k, const PiecedView<I, V> &, F &&f)
{
  A.for_each(k, f);
}

// The row of M that *ahead names (ahead < end), prefetched: its columns, and its values if asked; a
// PiecedView's row in each of its parts (its rows too are fetched at random where the numbering is
// scattered, and pieced rows took no prefetch before: MPIAIJ and hypre's blocks on several ranks).
template <class I, class V>
inline void prefetch_row_of(const CsrView<I, V> &M, const I *ahead, const I *end, bool values)
{
  prefetch_row(ahead, end, M.rowptr, M.colidx, values ? M.values : static_cast<const V *>(nullptr));
}
template <class I, class V>
inline void prefetch_row_of(const PiecedView<I, V> &M, const I *ahead, const I *end, bool values)
{
  if (ahead >= end) return;
  const I i = *ahead, r = i - M.own_row0;
  const auto part = [values](const CsrView<I, V> &X, I q) {
    const I b = X.rowptr[q];
    __builtin_prefetch(X.colidx + b);
    if (values && X.values) __builtin_prefetch(X.values + b);
  };
  if (r >= 0 && r < M.own_rows) {
    part(M.diag, r);
    if (M.offdiag.rowptr) part(M.offdiag, r);
  } else if (M.other.rowptr) part(M.other, r < 0 ? i : i - M.own_rows);
}

// Widens [lo, hi] to hold row i's columns: from the ends of its sorted parts, not entry by entry.
template <class I, class V>
inline void widen_to_row(const CsrView<I, V> &M, I i, I &lo, I &hi)
{
  if (M.rowptr[i] == M.rowptr[i + 1]) return;
  lo = std::min(lo, M.colidx[M.rowptr[i]]);
  hi = std::max(hi, M.colidx[M.rowptr[i + 1] - 1]);
}
template <class I, class V>
inline void widen_to_row(const PiecedView<I, V> &M, I i, I &lo, I &hi)
{
  M.for_each_part(i, [&](const I *first, const I *last, I col0, const I *colmap) {
    lo = std::min(lo, colmap ? colmap[*first] : col0 + *first);
    hi = std::max(hi, colmap ? colmap[*last] : col0 + *last);
  });
}

// Writes to out the columns of (A*P)(k,:), each once, in the order first reached (room: the row's
// multiply-adds), and returns how many; they stay marked in `marks` (stamp == marks.current()).
template <class I, class V, class M>
I ap_row_pattern(const TripleOperands<I, V, M> &ops, I k, Stamps &marks, I *out)
{
  std::uint32_t *const __restrict stamp = marks.data();
  const std::uint32_t now = marks.next();
  I len = 0;
  for_each_entry(ops.A, k, [&](I j, V) {
    for_each_entry(ops.P, j, [&](I c, V) {
      const bool fresh = stamp[c] != now;
      stamp[c] = now;
      out[len] = c;
      len += fresh;
    });
  });
  return len;
}

// The multiply-adds of (A*P)(k,:): a bound on its length.
template <class I, class V, class M>
Count ap_row_flops(const TripleOperands<I, V, M> &ops, I k)
{
  Count f = 0;
  for_each_entry(ops.A, k, [&](I j, V) { f += ops.P.row_length(j); });
  return f;
}

template <class I, class V, class M>
int team_size(const TripleOperands<I, V, M> &ops, I m)
{
  const Count per_row = ops.A.nrows > 0 ? ops.A.nnz() / ops.A.nrows + 1 : 1; // entries of A per row of A*P
  return static_cast<int>(std::min<Count>(threads_for(ops.P.nnz() * per_row), std::max<I>(m, 1)));
}

// A thread's rows of C's pattern, staged in blocks of fixed size: no growth by doubling
// (which held up to twice the pattern, plus the old buffer while it moved), and each block's pages
// handed back as soon as it is copied into C (freed alone, they can stay resident: release_pages).
template <class T>
class Staging {
 public:
  static constexpr std::size_t kBlock = std::size_t(1) << 16;
  void append(const T *row, std::size_t n)
  {
    for (std::size_t done = 0; done < n;) {
      if (blocks_.empty() || blocks_.back().size() == kBlock) {
        blocks_.emplace_back();
        blocks_.back().reserve(kBlock);
      }
      std::vector<T> &b = blocks_.back();
      const std::size_t take = std::min(n - done, kBlock - b.size());
      b.insert(b.end(), row + done, row + done + take);
      done += take;
    }
    size_ += static_cast<Count>(n);
  }
  void append(const std::vector<T> &row) { append(row.data(), row.size()); }
  Count size() const { return size_; }
  std::size_t bytes() const { return blocks_.size() * kBlock * sizeof(T); }
  // Copies the rows to dst, freeing the blocks one by one.
  void move_to(T *dst)
  {
    for (std::vector<T> &b : blocks_) {
      dst = std::copy(b.begin(), b.end(), dst);
      release_pages(b.data(), b.data() + b.capacity());
      std::vector<T>().swap(b);
    }
    blocks_.clear();
  }

 private:
  std::vector<std::vector<T>> blocks_;
  Count size_ = 0;
};

// Throws IndexOverflow when a lower bound of nnz(C) exceeds the index type, at the cost of
// O(nnz(A) + nnz(P)): a row of C holds at least the longest row of P that its rows of A reach.
template <class I, class V, class M>
void check_fits(const TripleOperands<I, V, M> &ops)
{
  const M &A = ops.A, &P = ops.P;
  std::vector<I> longest(static_cast<std::size_t>(A.nrows), 0); // per row k of A: the longest P(j,:) it reaches
  for (I k = 0; k < A.nrows; ++k) for_each_entry(A, k, [&](I j, V) { longest[k] = std::max(longest[k], P.row_length(j)); });
  std::vector<I> row(static_cast<std::size_t>(P.ncols), 0); // per row i of C: the longest P(j,:) a row k of A with P(k,i) reaches
  for (I k = 0; k < P.nrows; ++k) for_each_entry(P, k, [&](I i, V) { row[i] = std::max(row[i], longest[k]); });
  const Count lower = std::accumulate(row.begin(), row.end(), Count(0));
  if (lower > static_cast<Count>(std::numeric_limits<I>::max()))
    throw IndexOverflow("nnz(C) >= " + std::to_string(lower) + " does not fit the index type (max " +
                        std::to_string(static_cast<Count>(std::numeric_limits<I>::max())) + ")");
}

// Numeric phase: the entries [e0, e1) of C's row i (cptr, ccol) with columns in [lo, hi] (those a row
// of A*P there adds to; the others would get +0), searched for in long rows only, short ones whole.
template <class I>
std::pair<I, I> entries_in_range(const I *cptr, const I *ccol, I i, I lo, I hi)
{
  if (cptr[i + 1] - cptr[i] <= kSearchedRowLength) return {cptr[i], cptr[i + 1]};
  const I *const b = std::lower_bound(ccol + cptr[i], ccol + cptr[i + 1], lo);
  return {static_cast<I>(b - ccol), static_cast<I>(std::upper_bound(b, ccol + cptr[i + 1], hi) - ccol)};
}

template <class I, class V>
bool has_values(const CsrView<I, V> &M)
{
  return M.values != nullptr;
}
template <class I, class V>
bool has_values(const PiecedView<I, V> &M)
{
  return M.diag.values != nullptr;
}

// Numeric phase: how many rows of P from k on (up to kMaxRun) repeat row k's pattern (repeats:
// spgemm_kernel.hpp, repeated_rows; their parts' lengths compared too, so a P whose pattern changed
// since the symbolic phase never makes merge_run read past a row); 1 if they cannot be merged as
// one: a non-finite value among them, or no entry in their rows of A.
template <class I, class V, class M>
int mergeable_run(const M &A, const M &P, const std::uint8_t *repeats, I k)
{
  typename RowPartOf<M>::type first[2]{};
  const int parts = row_parts(P, k, first);
  int r = 1;
  while (r < kMaxRun && k + r < P.nrows && repeats[k + r] && same_part_lengths(P, k + r, first, parts)) ++r;
  if (r == 1) return 1;
  bool any_a = false, finite = true;
  for (int q = 0; q < r; ++q) {
    any_a = any_a || A.row_length(k + q) > 0;
    for_each_entry(P, k + q, [&](I, V p) { finite = finite && std::isfinite(p); }); // p * 0 would be NaN: the row-by-row path takes the exact pattern
  }
  return any_a && finite ? r : 1;
}

// Rows k..k+r-1 of P share one pattern, so their rows of A*P are added to the same rows of C: they
// are formed side by side (acc[c*r + q], zero outside their patterns) and merged into each row of C
// in one pass, every entry taking the same products in the same order (k's, then k+1's, ...) as r
// passes would, so bit for bit the row-by-row result. (A row of A*P is also added where it has no
// entry, within the run's span: p * 0 with p finite is +-0, and a sum begun at +0 is never -0, so
// adding +-0 changes no bit.) Where A's rows k.. share their pattern too
// (a_rep), the r rows of A*P are formed in one pass over it, each row of P loaded once. The merge
// into C's rows (longer than A*P's) is where the fused form spends its time: on a block matrix this
// walks them once per node instead of once per dof. C's rows [c0, c1) are this thread's; searched
// as in numeric(); row_slots(i, e0, e1, f) calls f(e, value of entry e) for C's row i.
template <class I, class V, class M, class RowSlots>
void merge_run(const M &A, const M &P, const std::uint8_t *a_rep, I k, int r, I c0, I c1, bool searched, const CsrView<I, V> &C, V *acc,
               RowSlots &&row_slots)
{
  constexpr bool csr = std::is_same_v<M, CsrView<I, V>>;
  typename RowPartOf<M>::type pk[kMaxRun][2], ak[kMaxRun][2];
  const int np = row_parts(P, k, pk[0]);
  bool mine = false; // a row of C of this thread's
  for (int s = 0; s < np; ++s)
    for (I t = 0; t < pk[0][s].len; ++t) {
      const I i = pk[0][s].column(t);
      mine = mine || (i >= c0 && i < c1);
    }
  if (!mine) return;
  for (int q = 1; q < r; ++q) row_parts(P, k + q, pk[q]);
  const int na = row_parts(A, k, ak[0]);
  bool a_shared = a_rep != nullptr; // A(k+q,:) at the same positions for every q
  for (int q = 1; q < r && a_shared; ++q) a_shared = a_rep[k + q] && same_part_lengths(A, k + q, ak[0], na);
  if (a_shared)
    for (int q = 1; q < r; ++q) row_parts(A, k + q, ak[q]);
  I lo = searched ? P.ncols : 0, hi = searched ? -1 : P.ncols - 1; // the run's columns of A*P lie in [lo, hi]
  if (searched)
    for (int q = 0; q < (a_shared ? 1 : r); ++q) for_each_entry(A, k + q, [&](I j, V) { widen_to_row(P, j, lo, hi); });
  const I *const ccol = C.colidx;
  const auto span = [&](I i) { return entries_in_range(C.rowptr, ccol, i, lo, hi); };
  with_run_length(r, [&](auto run) {
    constexpr int R = decltype(run)::value;
    V *const __restrict racc = acc;
    if (a_shared)
      for (int s = 0; s < na; ++s)
        for (I t = 0; t < ak[0][s].len; ++t) {
          if constexpr (csr) prefetch_row(ak[0][s].col + t + kPrefetchAhead, A.colidx + A.nnz(), P.rowptr, P.colidx, P.values);
          V a[R];
          for (int q = 0; q < R; ++q) a[q] = ak[q][s].val[t];
          for_each_entry(P, ak[0][s].column(t), [&](I c, V p) {
            V *const d = racc + static_cast<std::size_t>(c) * R;
            for (int q = 0; q < R; ++q) d[q] += a[q] * p;
          });
        }
    else
      for (int q = 0; q < R; ++q) {
        const auto add = [racc, q](I c, V ap) { racc[static_cast<std::size_t>(c) * R + q] += ap; };
        if constexpr (csr) {
          const I a0 = A.rowptr[k + q];
          for_each_product(A.colidx + a0, A.rowptr[k + q + 1] - a0, A.values + a0, A.colidx + A.nnz(), P.rowptr, P.colidx, P.values, add);
        } else
          for_each_entry(A, k + q, [&](I j, V a) { for_each_entry(P, j, [&](I c, V p) { add(c, a * p); }); });
      }
    I last = -1;
    for (int s = 0; s < np; ++s)
      for (I t = 0; t < pk[0][s].len; ++t) {
        const I i = pk[0][s].column(t);
        if (i < c0 || i >= c1) continue;
        last = i;
        V p[R];
        for (int q = 0; q < R; ++q) p[q] = pk[q][s].val[t];
        const auto [e0, e1] = span(i);
        row_slots(i, e0, e1, [&](I e, V &slot) {
          const V *const d = racc + static_cast<std::size_t>(ccol[e]) * R;
          V v = slot;
          for (int q = 0; q < R; ++q) v += p[q] * d[q];
          slot = v;
        });
      }
    const auto [z0, z1] = span(last); // C(last,:) holds every row of the run's pattern
    for (I e = z0; e < z1; ++e)
      for (int q = 0; q < R; ++q) racc[static_cast<std::size_t>(ccol[e]) * R + q] = V(0);
  });
}

// Which order the numeric phase takes (triple_product.hpp). Both read the operand they fetch at random
// as often: rows of A fetch P's rows nnz(A) times, rows of C fetch A's rows nnz(P) times, the same
// bytes; rows of C do fewer multiply-adds, those of Pt*A and of (Pt*A)*P (rows_of_c), against A*P's
// and a row of C per entry of P (rows_of_a), but also make P^T's blocks and use two accumulators.
// With "the cache" half the last-level cache (the other half holds C's rows and the streamed
// operand; from sysconf, 32 MiB when it does not say) and the window the span of the rows of A that
// a (median) row of P^T reaches:
//  - window beyond the cache (A's rows come from memory by rows of C) and P within it: rows of A
//    (shuffled 27-point, 1 thread, reuse: 0.94x PETSc's fastest by rows of A, 0.71x by rows of C);
//  - window beyond the cache, P beyond the whole last-level cache and C beyond the cache (rows of A
//    add into C's rows at random): rows of C (shuffled 7-point, 39 MB of P, 31 MB of C: 0.70-1.14
//    against 0.64-0.77x in 3 runs); with C in the cache (a shuffled geometric graph, 38 MB of P, 13 MB
//    of C) rows of A, once they prefetched P's rows, took 1.11x and rows of C 0.68x;
//  - otherwise the multiply-adds decide: rows of C where rows_of_a >= kRowsOfCMinGain * rows_of_c
//    (measured: geometric graphs at 1.4, one numbered in space and one at random with 23 MB of P,
//    0.93 against 0.67x and 0.56 against 0.36-0.42x by rows of A; R-MAT at 1.61, 1.07 against
//    1.33x; shuffled elasticity at 2.4 with 24 MB of P, 0.89 against 1.32x; 27-point at 2.0 and
//    7-point at 3.0 also faster by rows of C).
//  Pieced operands (a rank's rows of MPIAIJ matrices) need kRowsOfCMinGainPieced: by rows of C their
//  multiply-adds cost more against rows of A's than on CSR operands (A's rows fetched nnz(P) times in
//  parts, P^T's blocks made from P's parts). Measured (mpi_bench, 1 and 2 ranks x 1 thread, reuse,
//  rows of A / rows of C against PETSc's nonscalable in the same run): 27-point elasticity at 2.1-2.2
//  1.0-1.19x / 0.84-0.93x, the 27-point stencil at 2.4 0.94 / 0.86x (2.5: 0.85 / 0.80x), the 7-point
//  stencil at 2.6 0.59-0.81 / 0.74-0.85x; PCGAMG's elasticity set-up on 2 ranks (its finest product at
//  1.9) re-set up in 0.93-0.94x PETSc's fastest by rows of A, 0.50-0.55x by rows of C.
constexpr double kRowsOfCMinGain = 1.5;
constexpr double kRowsOfCMinGainPieced = 2.4;
inline double numeric_cache_bytes()
{
  static const double bytes = [] {
    long l3 = -1;
#ifdef _SC_LEVEL3_CACHE_SIZE
    l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
#endif
    return 0.5 * static_cast<double>(l3 > 0 ? l3 : 32L << 20);
  }();
  return bytes;
}
// median_span: of the nonempty rows of P^T, the median span of the rows of A each reaches (last - first + 1)
template <class I, class V, class M>
bool numeric_by_rows_of_c(const M &A, const M &P, I median_span, Count c_nnz, Count rows_of_a, Count rows_of_c)
{
  if (median_span == 0) return true;
  constexpr double entry = sizeof(I) + sizeof(V);
  const double a_row = entry * static_cast<double>(A.nnz()) / std::max<double>(A.nrows, 1) + sizeof(I);
  const double p_bytes = entry * static_cast<double>(P.nnz()) + sizeof(I) * static_cast<double>(P.nrows);
  const double cache = numeric_cache_bytes();
  const bool wide = static_cast<double>(median_span) * a_row > cache;
  if (wide && p_bytes <= cache) return false;
  if (wide && p_bytes > 2 * cache && entry * static_cast<double>(c_nnz) > cache) return true;
  const double gain = std::is_same_v<M, PiecedView<I, V>> ? kRowsOfCMinGainPieced : kRowsOfCMinGain;
  return static_cast<double>(rows_of_a) >= gain * static_cast<double>(rows_of_c);
}
// The median of span(i) over the rows i of P^T with span(i) > 0 (0 if none)
template <class I, class Span>
I median_span(I m, Span &&span)
{
  std::vector<I> spans;
  spans.reserve(static_cast<std::size_t>(m));
  for (I i = 0; i < m; ++i)
    if (const I w = span(i); w > 0) spans.push_back(w);
  if (spans.empty()) return 0;
  std::nth_element(spans.begin(), spans.begin() + static_cast<std::ptrdiff_t>(spans.size() / 2), spans.end());
  return spans[spans.size() / 2];
}

template <class I, class V, class M>
PtRowStats<I> pt_row_stats(const M &P, I c0, I c1)
{
  PtRowStats<I> s;
  s.c0 = c0;
  const std::size_t n = static_cast<std::size_t>(c1 - c0);
  s.count.assign(n, 0);
  s.first.assign(n, P.nrows);
  s.last.assign(n, -1);
  for (I k = 0; k < P.nrows; ++k)
    for_each_entry(P, k, [&](I i, V) {
      if (i < c0 || i >= c1) return;
      const std::size_t r = static_cast<std::size_t>(i - c0);
      if (s.count[r]++ == 0) s.first[r] = k;
      s.last[r] = k;
    });
  return s;
}

// The block of P^T's rows that starts at b0: rows while their entries fit the budget (at least one),
// not past c1. Returns its end and sets [lo, hi] to the rows of P that reach it (lo > hi: none).
template <class I>
I pt_block_end(const PtRowStats<I> &s, I b0, I c1, Count budget, I p_rows, I &lo, I &hi)
{
  const auto count = [&](I i) { return s.count[static_cast<std::size_t>(i - s.c0)]; };
  Count entries = 0;
  lo = p_rows;
  hi = -1;
  I b1 = b0;
  do {
    entries += count(b1);
    if (count(b1) > 0) {
      lo = std::min(lo, s.first[static_cast<std::size_t>(b1 - s.c0)]);
      hi = std::max(hi, s.last[static_cast<std::size_t>(b1 - s.c0)]);
    }
    ++b1;
  } while (b1 < c1 && entries + count(b1) <= budget);
  return b1;
}

// A thread's rows [c0, c1) of P^T, a block of rows at a time: neither phase holds P^T whole (nor
// keeps it between calls). A block takes rows while their entries fit the budget, and one pass over
// the rows of P that reach them fills it; with_values: P's values too (the numeric phase).
template <class I, class V, class M>
class PtBlocks {
 public:
  // stats: rows [c0, c1) at least, made by the caller (shared by the threads), or null (made here)
  PtBlocks(const M &P, I c0, I c1, Count budget, bool with_values, const PtRowStats<I> *stats = nullptr)
      : P_(P), c1_(c1), budget_(std::max<Count>(budget, 1)), with_values_(with_values), b1_(c0)
  {
    if (!stats) {
      own_ = pt_row_stats<I, V>(P, c0, c1);
      stats = &own_;
    }
    stats_ = stats;
  }
  PtBlocks(const PtBlocks &) = delete; // it points into own_
  PtBlocks &operator=(const PtBlocks &) = delete;
  // Makes the next block of rows, [the last one's end, b1()); called while rows remain.
  void next()
  {
    b0_ = b1_;
    I lo, hi;
    b1_ = pt_block_end(*stats_, b0_, c1_, budget_, P_.nrows, lo, hi);
    ptr_.assign(static_cast<std::size_t>(b1_ - b0_) + 1, I(0));
    for (I i = b0_; i < b1_; ++i) ptr_[static_cast<std::size_t>(i - b0_) + 1] = ptr_[static_cast<std::size_t>(i - b0_)] + stats_->count[static_cast<std::size_t>(i - stats_->c0)];
    const std::size_t entries = static_cast<std::size_t>(ptr_.back());
    k_.resize(entries);
    if (with_values_) v_.resize(entries);
    next_.assign(ptr_.begin(), ptr_.end() - 1);
    bool fits = true;
    for (I k = lo; k <= hi; ++k)
      for_each_entry(P_, k, [&](I i, V p) {
        if (i < b0_ || i >= b1_) return;
        const std::size_t r = static_cast<std::size_t>(i - b0_);
        if (next_[r] == ptr_[r + 1]) { // more entries than the statistics say: P is not the P they were made of
          fits = false;
          return;
        }
        const I at = next_[r]++;
        k_[static_cast<std::size_t>(at)] = k;
        if (with_values_) v_[static_cast<std::size_t>(at)] = p;
      });
    if (!fits || !std::equal(next_.begin(), next_.end(), ptr_.begin() + 1))
      throw std::invalid_argument("the fused triple product's numeric phase: P's pattern changed since the symbolic phase");
  }
  I b1() const { return b1_; }
  // Row i of P^T (in the block): its columns k (increasing) and values (with_values), and where the block's end.
  const I *cols(I i) const { return k_.data() + ptr_[static_cast<std::size_t>(i - b0_)]; }
  const V *values(I i) const { return v_.data() + ptr_[static_cast<std::size_t>(i - b0_)]; }
  I length(I i) const { return ptr_[static_cast<std::size_t>(i - b0_) + 1] - ptr_[static_cast<std::size_t>(i - b0_)]; }
  const I *cols_end() const { return k_.data() + k_.size(); }
  std::size_t bytes() const { return (own_.count.capacity() * 3 + ptr_.capacity() + next_.capacity() + k_.capacity()) * sizeof(I) + v_.capacity() * sizeof(V); }

 private:
  const M &P_;
  I c1_;
  Count budget_;
  bool with_values_;
  PtRowStats<I> own_;                     // made here when the caller has none
  const PtRowStats<I> *stats_ = nullptr; // the rows' entries, first and last row of P holding them
  I b1_, b0_ = 0;
  std::vector<I> ptr_, next_, k_;
  std::vector<V> v_;
};

// A block of P^T holds at most 1/parts of P's entries per thread (at least kMinPtBlock)
inline Count pt_block_budget(Count p_nnz, int threads, Count parts)
{
  return std::max<Count>(kMinPtBlock, p_nnz / (parts * threads));
}

// The symbolic phase's block budget (kPtSymbolicMaxPasses): the rows of P that the threads' blocks
// (thread t: rows [rows[t], rows[t + 1]) of P^T) would pass over are counted, blocks formed as PtBlocks forms them.
template <class I>
Count symbolic_pt_budget(const PtRowStats<I> &s, const std::vector<I> &rows, I p_rows, Count p_nnz, int threads)
{
  for (const Count parts : {kPtBlockParts, kPtBlockParts / 2}) { // the fewest parts need no count: taken if these pass too often
    const Count budget = pt_block_budget(p_nnz, threads, parts);
    Count passed = 0;
    for (int t = 0; t < threads; ++t)
      for (I i = rows[t], lo, hi; i < rows[t + 1]; passed += hi >= lo ? hi - lo + 1 : 0) i = pt_block_end(s, i, rows[t + 1], budget, p_rows, lo, hi);
    if (passed <= kPtSymbolicMaxPasses * static_cast<Count>(p_rows)) return budget;
  }
  return pt_block_budget(p_nnz, threads, kPtSymbolicMinParts);
}

// The numeric phase's order (numeric_by_rows_of_c) from a sample of C's rows, so that it is known
// before the symbolic pass and a product asked for with values forms them in that pass by rows of C
// (the pass then walks A and P once for the pattern and the values). The rows of P^T are grouped by
// their length nk (powers of two) and up to kOrderSampleRows of each group taken, evenly spaced:
// their (Pt A)(i,:) and C(i,:) give the multiply-adds of both orders and C's size, per entry of
// P^T, scaled up by the group's entries. By groups, because rows much longer than the others (the
// hubs of a graph) weigh most in C's rows times nk: an even sample of every 32nd row of an R-MAT
// P^T took those twice what they are. A*P's multiply-adds (by rows of A) are counted whole
// (ap_flops). Pt: P^T's pattern where the caller has it, else the sampled rows are made here from P
// (stats: P^T's row counts). A group gives at most an eighth of its rows (kOrderSampleShare), at
// least one: each sampled row costs what the pass does for it, and where C has few rows (an AMG
// hierarchy's coarse levels: 50 rows, C dense) sixteen a group were nearly all of them, the pass made twice.
constexpr Count kOrderSampleRows = 16;
constexpr Count kOrderSampleShare = 8;
struct SampledRowsOfC {
  Count c_nnz = 0, rows_of_a = 0, rows_of_c = 0; // C's entries, the multiply-adds by rows of A and by rows of C
};
template <class I, class V, class M>
SampledRowsOfC sample_rows_of_c(const TripleOperands<I, V, M> &ops, const PtRowStats<I> &stats, Count ap_flops)
{
  const M &A = ops.A, &P = ops.P;
  const CsrView<I, V> &Pt = ops.Pt;
  const I m = P.ncols;
  const auto length = [&](I i) -> Count { return Pt.rowptr ? Pt.row_length(i) : stats.count[static_cast<std::size_t>(i)]; };
  const auto group = [](Count nk) { return nk > 0 ? 64 - __builtin_clzll(static_cast<unsigned long long>(nk)) : 0; }; // 0: empty
  constexpr int kGroups = 65;
  struct Group {
    Count rows = 0, stride = 1, seen = 0;
    Count entries = 0, sampled_entries = 0;
    Count merged = 0, rows_of_c = 0, c_nnz = 0; // over the sampled rows
  };
  std::array<Group, kGroups> g{};
  for (I i = 0; i < m; ++i) {
    Group &x = g[static_cast<std::size_t>(group(length(i)))];
    ++x.rows;
    x.entries += length(i);
  }
  for (Group &x : g) {
    const Count samples = std::min(kOrderSampleRows, std::max<Count>(1, x.rows / kOrderSampleShare));
    x.stride = std::max<Count>(1, (x.rows + samples - 1) / samples);
  }
  // the sampled rows (slot: their place in ptr, else -1) and their columns k
  std::vector<I> slot(static_cast<std::size_t>(m), I(-1)), ptr(1, I(0)), rows;
  for (I i = 0; i < m; ++i) {
    if (length(i) == 0) continue;
    Group &x = g[static_cast<std::size_t>(group(length(i)))];
    if (x.seen++ % x.stride) continue;
    slot[static_cast<std::size_t>(i)] = static_cast<I>(rows.size());
    rows.push_back(i);
    ptr.push_back(static_cast<I>(ptr.back() + length(i)));
  }
  std::vector<I> ks(static_cast<std::size_t>(ptr.back()));
  if (Pt.rowptr) {
    for (std::size_t s = 0; s < rows.size(); ++s) std::copy(Pt.colidx + Pt.rowptr[rows[s]], Pt.colidx + Pt.rowptr[rows[s] + 1], ks.begin() + ptr[s]);
  } else {
    std::vector<I> next(ptr.begin(), ptr.end() - 1);
    for (I k = 0; k < P.nrows; ++k)
      for_each_entry(P, k, [&](I i, V) {
        if (const I s = slot[static_cast<std::size_t>(i)]; s >= 0) ks[static_cast<std::size_t>(next[static_cast<std::size_t>(s)]++)] = k;
      });
  }
  // marks of sampled row s: s + 1; calloc'ed, so that only the pages of the columns the sample
  // reaches become resident (no zero-filled array of A's columns for a thousand rows)
  const ZeroedArray<std::uint32_t> fine = make_zeroed_array<std::uint32_t>(static_cast<std::size_t>(A.ncols));
  const ZeroedArray<std::uint32_t> coarse = make_zeroed_array<std::uint32_t>(static_cast<std::size_t>(m));
  std::uint32_t *const __restrict fstamp = fine.get();
  std::uint32_t *const __restrict cstamp = coarse.get();
  std::vector<I> w;
  for (std::size_t s = 0; s < rows.size(); ++s) {
    const std::uint32_t fnow = static_cast<std::uint32_t>(s) + 1, cnow = fnow;
    const Count nk = ptr[s + 1] - ptr[s];
    Count flops = 0, row = 0;
    w.clear();
    for (I q = ptr[s]; q < ptr[s + 1]; ++q)
      for_each_entry(A, ks[static_cast<std::size_t>(q)], [&](I j, V) {
        ++flops;
        if (fstamp[j] != fnow) {
          fstamp[j] = fnow;
          w.push_back(j);
        }
      });
    for (const I j : w)
      for_each_entry(P, j, [&](I c, V) {
        ++flops;
        if (cstamp[c] != cnow) {
          cstamp[c] = cnow;
          ++row;
        }
      });
    Group &x = g[static_cast<std::size_t>(group(nk))];
    x.sampled_entries += nk;
    x.merged += nk * row;
    x.rows_of_c += flops;
    x.c_nnz += row;
  }
  double merged = 0, rows_of_c = 0, c_nnz = 0;
  for (const Group &x : g)
    if (x.sampled_entries > 0) {
      const double scale = static_cast<double>(x.entries) / static_cast<double>(x.sampled_entries);
      merged += scale * static_cast<double>(x.merged);
      rows_of_c += scale * static_cast<double>(x.rows_of_c);
      c_nnz += scale * static_cast<double>(x.c_nnz);
    }
  return {static_cast<Count>(c_nnz), static_cast<Count>(merged) + ap_flops, static_cast<Count>(rows_of_c)};
}

// Workspace of the numeric phase by rows of C, per thread: (Pt A)(i,:)'s columns as a bit each in
// `marks` (stamps took 4 bytes; cleared by the row's words), its values in `facc` (set where first
// reached), its columns listed as first reached in w and their values in wv, and C(i,:)'s sums in
// `cacc` (zero between rows).
template <class I, class V>
struct RowsOfCWorkspace {
  ZeroedArray<std::uint64_t> marks;
  std::unique_ptr<V[]> facc;
  ZeroedArray<V> cacc;
  std::vector<I> w;
  std::vector<V> wv;
  RowsOfCWorkspace(I fine, I coarse)
    : marks(make_zeroed_array<std::uint64_t>((static_cast<std::size_t>(fine) + 63) / 64)), facc(make_uninitialized_array<V>(static_cast<std::size_t>(fine))),
      cacc(make_zeroed_array<V>(static_cast<std::size_t>(coarse)))
  {
  }
  std::size_t bytes(I fine, I coarse) const
  {
    return (static_cast<std::size_t>(fine) + 63) / 64 * 8 + (static_cast<std::size_t>(fine) + static_cast<std::size_t>(coarse)) * sizeof(V) +
           w.capacity() * sizeof(I) + wv.capacity() * sizeof(V);
  }
};

// Row i of C by rows of C, its sums added into coarse(c) (a reference to column c's sum, +0 before
// the row's first product): (Pt A)(i,:) = sum over Pt(i,k) (columns ks[0..nk), values pv) of
// Pt(i,k) A(k,:), each of its sums from +0 in that order, then (Pt A)(i,:) P in the order its columns
// were first reached. The numeric phase by rows of C and the symbolic phase forming the values
// (FusedRowsOfC) both run it, so their values are the same bits. WithValues: the operands have
// values; ARuns, PRuns: A's and P's repeated rows (a_rep, p_rep) taken as runs (CsrView operands with
// values only), summed as one row at a time would. (Template arguments, so that the numeric phase's
// loop over rows tests them once, as numeric_rows_as in src/spgemm_kernel.hpp does.)
// Returns the length of (Pt A)(i,:), whose columns are then ws.w[0..len). A, P and coarse by value:
// with references to them the numeric phase ran 5-8% slower (e27 n=16, reuse, 1 thread).
template <bool WithValues, bool ARuns, bool PRuns, class I, class V, class M, class Coarse>
__attribute__((always_inline)) inline I row_of_c(const M A, const M P, const std::uint8_t *a_rep, const std::uint8_t *p_rep, I nk, const I *ks,
                                                    const V *pv, const I *ks_end, RowsOfCWorkspace<I, V> &ws, Coarse coarse)
{
  constexpr bool csr = std::is_same_v<M, CsrView<I, V>>;
  static_assert(WithValues || !(ARuns || PRuns), "runs are summed: operands with values only");
  Count bound = 0; // (Pt A)(i,:)'s columns, at most
  for (I q = 0; q < nk; ++q) bound += A.row_length(ks[q]);
  bound = std::min<Count>(bound, A.ncols);
  if (static_cast<Count>(ws.w.size()) < bound) {
    ws.w.resize(static_cast<std::size_t>(bound));
    ws.wv.resize(static_cast<std::size_t>(bound));
  }
  std::uint64_t *const __restrict marks = ws.marks.get();
  V *const __restrict facc = ws.facc.get();
  I *const __restrict wp = ws.w.data();
  I len = 0;
  // its first use marks column j, lists it and starts its sum at +0 (always_inline: GCC 12 made it
  // a call, which reloaded marks, the list and its length through the closure at every product)
  const auto fine_sum = [&](I j) __attribute__((always_inline)) -> V & {
    std::uint64_t &word = marks[static_cast<std::size_t>(j) >> 6];
    const std::uint64_t bit = std::uint64_t(1) << (j & 63);
    if (!(word & bit)) {
      word |= bit;
      wp[len++] = j;
      facc[j] = V(0);
    }
    return facc[j];
  };
  if constexpr (csr && ARuns) for_each_run(ks, nk, pv, ks_end, A.rowptr, A.colidx, A.values, a_rep, fine_sum);
  else if constexpr (csr && WithValues) for_each_product(ks, nk, pv, ks_end, A.rowptr, A.colidx, A.values, [&](I j, V x) { fine_sum(j) += x; });
  else
    for (I q = 0; q < nk; ++q) {
      if constexpr (!csr) prefetch_row_of(A, ks + q + kPrefetchAhead, ks_end, WithValues);
      for_each_entry(A, ks[q], [&](I j, V a) { fine_sum(j) += pv[q] * a; });
    }
  // C(i,:) = (Pt A)(i,:) P
  V *const __restrict wvp = ws.wv.data();
  for (I e = 0; e < len; ++e) {
    wvp[e] = facc[wp[e]];
    marks[static_cast<std::size_t>(wp[e]) >> 6] = 0; // every mark in the word is one of these columns'
  }
  if constexpr (csr && PRuns) for_each_run(wp, len, wvp, wp + len, P.rowptr, P.colidx, P.values, p_rep, coarse);
  else if constexpr (csr && WithValues) for_each_product(wp, len, wvp, wp + len, P.rowptr, P.colidx, P.values, [&](I c, V x) { coarse(c) += x; });
  else
    for (I e = 0; e < len; ++e) {
      if constexpr (!csr) prefetch_row_of(P, wp + e + kPrefetchAhead, wp + len, WithValues);
      for_each_entry(P, wp[e], [&](I c, V p) { coarse(c) += wvp[e] * p; });
    }
  return len;
}

} // namespace

template <class I, class V>
template <class M, class Columns, class Values>
FusedTripleProduct<I, V> FusedTripleProduct<I, V>::symbolic(const TripleOperands<I, V, M> &given, TripleForm form, std::vector<I> &c_rowptr,
                                                            Columns &c_colidx, bool sorted, Values *c_values)
{
  const TripleOperands<I, V, M> &ops = given;
  const M &A = ops.A, &P = ops.P;
  const I m = P.ncols;
  const CsrView<I, V> &Pt = ops.Pt; // RARt: R's pattern; PtAP: none, made a block of rows at a time (PtBlocks)
  const bool given_pt = Pt.rowptr != nullptr;
  const int nt = team_size(ops, m);
  check_fits(ops);
  PtRowStats<I> stats; // PtAP: P^T's row counts and spans, one pass over P
  std::vector<I> pt_rowptr;
  if (!given_pt) {
    checked_index<I>(P.nnz(), "nnz of P's local rows"); // P^T's row pointers (a PiecedView's parts fit the index type, their sum need not)
    stats = pt_row_stats<I, V>(P, 0, m);
    pt_rowptr.resize(static_cast<std::size_t>(m) + 1);
    pt_rowptr[0] = 0;
    for (I i = 0; i < m; ++i) pt_rowptr[static_cast<std::size_t>(i) + 1] = pt_rowptr[i] + stats.count[static_cast<std::size_t>(i)];
  }
  const std::vector<I> rows = balanced_chunks(given_pt ? Pt.rowptr : pt_rowptr.data(), m, nt); // an entry of Pt: a row of A to merge
  pt_rowptr = std::vector<I>();
  // the rows of A (and P) a row of Pt reaches: their median span, for the blocks and the numeric phase's order
  const I span = given_pt ? median_span(m, [&](I i) { return Pt.row_length(i) > 0 ? Pt.colidx[Pt.rowptr[i + 1] - 1] - Pt.colidx[Pt.rowptr[i]] + 1 : I(0); })
                          : median_span(m, [&](I i) { return stats.count[static_cast<std::size_t>(i)] > 0 ? stats.last[static_cast<std::size_t>(i)] - stats.first[static_cast<std::size_t>(i)] + 1 : I(0); });
  const Count pt_budget = given_pt ? 0 : symbolic_pt_budget(stats, rows, P.nrows, P.nnz(), nt);
  FusedTripleProduct plan;
  plan.a_nnz_ = A.nnz();
  plan.p_nnz_ = P.nnz();
  plan.n_ = A.nrows;
  plan.m_ = P.ncols;
  c_rowptr.assign(static_cast<std::size_t>(m) + 1, I(0));
  // Rows of A and of P repeating the row before them (block matrices): their patterns were just
  // added to the union, so they are skipped (exact: a union). P's only where its rows are long
  // enough for the numeric phase's runs to pay (spgemm_kernel.hpp, run_rows).
  plan.p_repeats_ = detail::run_rows(P, nt);
  plan.a_repeats_ = detail::repeated_rows(A, nt);
  const std::uint8_t *const a_rep = plan.a_repeats_.empty() ? nullptr : plan.a_repeats_.data();
  const std::uint8_t *const p_rep = plan.p_repeats_.empty() ? nullptr : plan.p_repeats_.data();
  std::vector<Staging<I>> cols(static_cast<std::size_t>(nt)); // each thread's rows of C, in order
  // A*P's multiply-adds (the numeric phase by rows of A), and the numeric phase's order
  Count ap_flops = 0;
  if (form != TripleForm::FusedRowsOfC)
    for (I k = 0; k < P.nrows; ++k)
      if (P.row_length(k) > 0) ap_flops += ap_row_flops(ops, k);
  const bool values_by_rows_of_c = c_values && nt == 1 && form != TripleForm::FusedRowsOfA; // if the order is rows of C
  // sampled for the order (Fused), and on one thread for C's size too (direct_cols, below)
  const SampledRowsOfC sample = form == TripleForm::Fused || nt == 1 ? sample_rows_of_c(ops, stats, ap_flops) : SampledRowsOfC{};
  plan.by_rows_of_c_ = form == TripleForm::Fused ? numeric_by_rows_of_c<I, V>(A, P, span, sample.c_nnz, sample.rows_of_a, sample.rows_of_c)
                                                 : form == TripleForm::FusedRowsOfC;
  // With c_values, the values too where the numeric phase goes by rows of C, as numeric() forms
  // them, on one thread: appended to c_values as the rows come (room for the sampled size and a
  // quarter: its pages resident only as written). On several, each thread's would be staged until
  // the threads before it are done, and C's values held twice at the end. given_pt needs P^T's values.
  if (c_values && given_pt && !Pt.values) throw std::invalid_argument("the fused triple product's symbolic phase forms values with P^T's values only, where P^T is given");
  const bool with_values = values_by_rows_of_c && plan.by_rows_of_c_;
  plan.values_formed_ = with_values;
  const std::size_t c_room = static_cast<std::size_t>(sample.c_nnz + sample.c_nnz / 4 + 1024);
  if (with_values) {
    c_values->clear();
    c_values->reserve(c_room);
  }
  // C's columns likewise, on one thread where nnz(C) was sampled. Staged and then copied into
  // c_colidx, they were held twice at the end (the staging's blocks, freed as copied, stay in the
  // heap): the peak of PCGAMG's 1-process set-up on a 7-point Poisson grid, +1.5 MB in the
  // coarsener's PtAP of the graph, and 297 against 223 MB for one R-MAT PtAP
  // (docs/results/investigations_2026-12-06.txt). Several threads stage theirs, as for the values.
  const bool direct_cols = nt == 1 && sample.c_nnz > 0;
  if (direct_cols) {
    c_colidx.clear();
    c_colidx.reserve(c_room);
  }
  const bool operand_values = has_values(A) && has_values(P);
  std::vector<Count> bytes(static_cast<std::size_t>(nt), 0), merged(static_cast<std::size_t>(nt), 0), rows_of_c_flops(static_cast<std::size_t>(nt), 0);
  RegionErrors errors;
#pragma omp parallel num_threads(nt)
  errors.guard([&] {
    const int t = omp_get_thread_num();
    const M A = ops.A, P = ops.P; // the thread's own copies: the compiler then knows the stores below leave them alone
    Stamps fine(with_values ? 0 : static_cast<std::size_t>(A.ncols)), coarse(static_cast<std::size_t>(m));
    std::uint32_t *const __restrict fstamp = fine.data();
    std::uint32_t *const __restrict cstamp = coarse.data();
    std::vector<I> w;   // (Pt A)(i,:)'s pattern
    std::vector<I> row; // C(i,:)'s
    Staging<I> &out = cols[static_cast<std::size_t>(t)];
    std::optional<RowsOfCWorkspace<I, V>> values_ws;
    if (with_values) values_ws.emplace(A.ncols, m);
    std::optional<PtBlocks<I, V, M>> blocks;
    // forming values, the numeric phase's blocks (their values too: three times the bytes of the pattern's)
    if (!given_pt) blocks.emplace(P, rows[t], rows[t + 1], with_values ? pt_block_budget(P.nnz(), nt, kPtBlockParts) : pt_budget, with_values, &stats);
    I b1 = rows[t];
    for (I i = rows[t]; i < rows[t + 1]; ++i) {
      if (i == b1 && blocks) { // the next block of P^T's rows
        blocks->next();
        b1 = blocks->b1();
      }
      const I nk = given_pt ? Pt.row_length(i) : blocks->length(i);
      const I *const ks = given_pt ? Pt.colidx + Pt.rowptr[i] : blocks->cols(i);
      const I *const ks_end = given_pt ? Pt.colidx + Pt.nnz() : blocks->cols_end();
      Count bound = 0;
      for (I q = 0; q < nk; ++q) bound += A.row_length(ks[q]);
      const std::uint32_t cnow = coarse.next();
      row.clear();
      I len = 0;
      const I *wcols = nullptr;
      if (with_values) { // the numeric phase's row, C's columns listed as first reached
        const V *const pv = given_pt ? Pt.values + Pt.rowptr[i] : blocks->values(i);
        V *const __restrict cacc = values_ws->cacc.get();
        const auto coarse_sum = [&](I c) __attribute__((always_inline)) -> V & {
          if (cstamp[c] != cnow) {
            cstamp[c] = cnow;
            row.push_back(c);
          }
          return cacc[c];
        };
        len = with_constants(
            [&](auto valued, auto a_runs, auto p_runs) -> I {
              if constexpr ((a_runs || p_runs) && !valued) return 0; // not reached (runs only with values)
              else return row_of_c<valued, a_runs, p_runs>(A, P, a_rep, p_rep, nk, ks, pv, ks_end, *values_ws, coarse_sum);
            },
            operand_values, operand_values && a_rep, operand_values && p_rep);
        wcols = values_ws->w.data();
      } else {
        if (static_cast<Count>(w.size()) < bound) w.resize(static_cast<std::size_t>(bound));
        const std::uint32_t fnow = fine.next();
        for (I q = 0; q < nk; ++q) {
          const I k = ks[q];
          // A's rows are fetched at random (the hot spot of a scattered numbering), so is P's below
          prefetch_row_of(A, ks + q + kPrefetchAhead, ks_end, false);
          if (repeats_previous(a_rep, ks, q)) continue;
          for_each_entry(A, k, [&](I j, V) {
            const bool fresh = fstamp[j] != fnow;
            fstamp[j] = fnow;
            w[len] = j;
            len += fresh;
          });
        }
        for (I e = 0; e < len; ++e) {
          prefetch_row_of(P, w.data() + e + kPrefetchAhead, w.data() + len, false);
          if (repeats_previous(p_rep, w.data(), e)) continue;
          for_each_entry(P, w[e], [&](I c, V) {
            if (cstamp[c] != cnow) {
              cstamp[c] = cnow;
              row.push_back(c);
            }
          });
        }
        wcols = w.data();
      }
      if (sorted) coarse.sort_marked(row);
      if (direct_cols) c_colidx.insert(c_colidx.end(), row.begin(), row.end());
      else out.append(row);
      if (with_values) { // gathered in C's order, the sums zeroed for the next row
        V *const __restrict cacc = values_ws->cacc.get();
        for (const I c : row) {
          c_values->push_back(cacc[c]);
          cacc[c] = V(0);
        }
      }
      c_rowptr[static_cast<std::size_t>(i) + 1] = static_cast<I>(row.size());
      if (!plan.by_rows_of_c_) { // the numeric phase's multiply-adds, of the order chosen before the pass
        merged[t] += static_cast<Count>(nk) * static_cast<Count>(row.size());
      } else {
        rows_of_c_flops[t] += bound; // (Pt A)(i,:)'s multiply-adds
        for (I e = 0; e < len; ++e) rows_of_c_flops[t] += P.row_length(wcols[e]); // (Pt A)(i,:) P's
      }
      checked_index<I>(direct_cols ? static_cast<Count>(c_colidx.size()) : out.size(), "nnz(C) of the triple product"); // stop at once past the index type
    }
    bytes[t] = static_cast<Count>(fine.bytes() + coarse.bytes() + (w.capacity() + row.capacity()) * sizeof(I) + out.bytes() +
                                  (with_values ? values_ws->bytes(A.ncols, m) : 0) + (blocks ? blocks->bytes() : 0));
  });
  errors.rethrow();
  Count nnz = 0;
  for (I i = 0; i < m; ++i) {
    nnz += c_rowptr[static_cast<std::size_t>(i) + 1];
    c_rowptr[static_cast<std::size_t>(i) + 1] = checked_index<I>(nnz, "nnz(C) of the triple product");
  }
  // The numeric phase's multiply-adds in its order
  plan.flops_ = plan.by_rows_of_c_ ? std::accumulate(rows_of_c_flops.begin(), rows_of_c_flops.end(), Count(0))
                                   : std::accumulate(merged.begin(), merged.end(), Count(0)) + ap_flops; // rows of A: A*P's, then into C's rows
  // P^T's row statistics: kept for the numeric phase by rows of C (its blocks of P^T: no pass over P
  // to count them again, 2-5% of a numeric phase; 3 I bytes a row of C), else freed before C's
  // staged columns are gathered into their array
  if (plan.by_rows_of_c_ && !given_pt) plan.pt_stats_ = std::move(stats);
  else stats = PtRowStats<I>();
  if (!direct_cols) {
    c_colidx.resize(static_cast<std::size_t>(nnz));
#pragma omp parallel for schedule(static, 1) num_threads(nt)
    for (int t = 0; t < nt; ++t) cols[t].move_to(c_colidx.data() + c_rowptr[rows[t]]);
  }
  for (int t = 0; t < nt; ++t) plan.workspace_thread_bytes_ = std::max(plan.workspace_thread_bytes_, bytes[t]);
  return plan;
}

template <class I, class V>
template <class M>
void FusedTripleProduct<I, V>::numeric(const TripleOperands<I, V, M> &ops, const CsrView<I, V> &C, V *c_values, const ResultScatter<I, V> *scatter) const
{
  const M &A = ops.A, &P = ops.P;
  if (A.nrows != n_ || P.ncols != m_ || A.nnz() != a_nnz_ || P.nnz() != p_nnz_)
    throw std::invalid_argument("the fused triple product's numeric phase: an operand's pattern changed since the symbolic phase");
  const I m = C.nrows, n = A.nrows;
  const int nt = team_size(ops, m);
  const std::vector<I> rows = balanced_chunks(C.rowptr, m, nt); // an entry of C: a multiply-add per row of A*P merged
  const bool by_rows_of_c = by_rows_of_c_;
  RegionErrors errors;
#pragma omp parallel num_threads(nt)
  errors.guard([&] {
    const int t = omp_get_thread_num();
    const M A = ops.A, P = ops.P; // the thread's own copies: the compiler then knows the stores below leave them alone
    const I c0 = rows[t], c1 = rows[t + 1];
    const I *const cptr = C.rowptr, *const ccol = C.colidx;
    // Rows [s0, s1) are scattered (through pos, into diag and offdiag); the others' values are
    // c_values, entry e at e - shift(i) (their entries before the scattered rows', then after)
    const I s0 = scatter ? scatter->row0 : 0, s1 = scatter ? scatter->row0 + scatter->rows : 0, gap = cptr[s1] - cptr[s0];
    V *const scattered_values = scatter ? scatter->values : nullptr;
    const auto shift = [&](I i) { return i < s0 ? I(0) : gap; };
    // Entries [e0, e1) of scattered row i: f(e, where its value goes) for each (runs, or positions)
    const auto for_each_slot = [&](I i, I e0, I e1, auto &&f) {
      const I *const g = scatter->runs + 5 * static_cast<std::ptrdiff_t>(i - s0);
      const I b = cptr[i];
      if (g[0] < 0) {
        const I *const pos = scatter->pos + g[2];
        for (I e = e0; e < e1; ++e) f(e, scattered_values[pos[e - b]]);
        return;
      }
      const I cut1 = b + g[0], cut2 = b + g[1];
      V *const __restrict v = scattered_values;
      for (I e = e0; e < std::min(e1, cut1); ++e) f(e, v[g[2] + (e - b)]);
      for (I e = std::max(e0, cut1); e < std::min(e1, cut2); ++e) f(e, v[g[3] + (e - cut1)]);
      for (I e = std::max(e0, cut2); e < e1; ++e) f(e, v[g[4] + (e - cut2)]);
    };
    if (!by_rows_of_c) {
      for (const auto &[r0, r1] : {std::make_pair(c0, std::min(c1, s0)), std::make_pair(std::max(c0, s1), c1)})
        if (r0 < r1) std::fill(c_values + (cptr[r0] - shift(r0)), c_values + (cptr[r1] - shift(r0)), V(0));
      for (I i = std::max(c0, s0); i < std::min(c1, s1); ++i) for_each_slot(i, cptr[i], cptr[i + 1], [](I, V &slot) { slot = V(0); });
    }
    // C's row i, entries [e0, e1): f(e, its value)
    const auto row_slots = [&](I i, I e0, I e1, auto &&f) {
      if (scatter && i >= s0 && i < s1) return for_each_slot(i, e0, e1, f);
      V *const __restrict cv = c_values;
      const I sh = shift(i);
      for (I e = e0; e < e1; ++e) f(e, cv[e - sh]);
    };
    if (by_rows_of_c) {
      const bool with_values = has_values(A) && has_values(P);
      const std::uint8_t *const a_rep = with_values && !a_repeats_.empty() ? a_repeats_.data() : nullptr;
      const std::uint8_t *const p_rep = with_values && !p_repeats_.empty() ? p_repeats_.data() : nullptr;
      RowsOfCWorkspace<I, V> ws(A.ncols, P.ncols);
      V *const __restrict cacc = ws.cacc.get();
      const bool given = ops.Pt.rowptr && ops.Pt.values; // RARt: Pt = R, with values
      std::optional<PtBlocks<I, V, M>> blocks;
      if (!given) blocks.emplace(P, c0, c1, pt_block_budget(P.nnz(), nt, kPtBlockParts), true,
                                  pt_stats_.count.size() == static_cast<std::size_t>(m) ? &pt_stats_ : nullptr);
      // The loop compiled per combination of its choices (see row_of_c); P^T given or made in blocks.
      constexpr bool csr = std::is_same_v<M, CsrView<I, V>>;
      with_constants(
          [&](auto valued, auto a_runs, auto p_runs, auto pt_given) {
            if constexpr ((a_runs || p_runs) && !(valued && csr)) return; // not reached (runs only with values, on CSR operands)
            else {
              I b1 = c0;
              for (I i = c0; i < c1; ++i) {
                if constexpr (!pt_given)
                  if (i == b1) { // the next block of P^T's rows
                    blocks->next();
                    b1 = blocks->b1();
                  }
                const I nk = pt_given ? ops.Pt.row_length(i) : blocks->length(i);
                const I *const ks = pt_given ? ops.Pt.colidx + ops.Pt.rowptr[i] : blocks->cols(i);
                const V *const pv = pt_given ? ops.Pt.values + ops.Pt.rowptr[i] : blocks->values(i);
                const I *const ks_end = pt_given ? ops.Pt.colidx + ops.Pt.nnz() : blocks->cols_end();
                row_of_c<valued, a_runs, p_runs>(A, P, a_rep, p_rep, nk, ks, pv, ks_end, ws, [cacc](I c) -> V & { return cacc[c]; });
                // gathered over C's pattern
                row_slots(i, cptr[i], cptr[i + 1], [&](I e, V &slot) {
                  slot = cacc[ccol[e]];
                  cacc[ccol[e]] = V(0);
                });
              }
            }
          },
          with_values, csr && a_rep, csr && p_rep, given);
      return;
    }
    // P's repeated rows (operands with values): runs of them are merged together
    const std::uint8_t *const repeats = !p_repeats_.empty() && has_values(A) && has_values(P) ? p_repeats_.data() : nullptr;
    // (A*P)(k,:), zero outside its pattern between rows; with runs, then kMaxRun such rows side by side (merge_run)
    const std::size_t stride = static_cast<std::size_t>(P.ncols);
    std::vector<V> acc_v(stride * (repeats ? 1 + kMaxRun : 1), V(0)); // runs: after the row's, interleaved
    V *const __restrict acc = acc_v.data();
    std::unique_ptr<Stamps> exact; // a non-finite P(k,i): the pattern of (A*P)(k,:), made for that row
    std::vector<I> pattern;
    const bool all_rows = c0 == 0 && c1 == m; // every row of C is this thread's
    bool searched = false;                    // a row of C this thread adds to is searched (longer than kSearchedRowLength)
    for (I i = c0; i < c1 && !searched; ++i) searched = cptr[i + 1] - cptr[i] > kSearchedRowLength;
    for (I k = 0; k < n; ++k) {
      if (repeats) {
        const int r = mergeable_run<I, V>(A, P, repeats, k);
        if (r > 1) {
          merge_run(A, P, a_repeats_.empty() ? nullptr : a_repeats_.data(), k, r, c0, c1, searched, C, acc + stride, row_slots);
          k += r - 1;
          continue;
        }
      }
      if (A.row_length(k) == 0) continue; // (A*P)(k,:) is empty: it would add +0 (MPIAIJ ranks: rows of other ranks)
      if (all_rows ? P.row_length(k) == 0 : [&] { // no column of P(k,:) in [c0, c1): no row of C of this thread's
            bool none = true;
            for_each_entry(P, k, [&](I i, V) { none = none && (i < c0 || i >= c1); });
            return none;
          }())
        continue;
      I lo = 0, hi = P.ncols - 1; // (A*P)(k,:)'s columns lie in [lo, hi]; narrowed where a row is searched
      if (searched) {
        lo = P.ncols;
        hi = -1;
        for_each_entry_fetching(A, k, P, [&](I j, V a) {
          widen_to_row(P, j, lo, hi);
          for_each_entry(P, j, [&](I c, V p) { acc[c] += a * p; });
        });
      } else
        for_each_entry_fetching(A, k, P, [&](I j, V a) { for_each_entry(P, j, [&](I c, V p) { acc[c] += a * p; }); });
      const auto span = [&](I i) { return entries_in_range(cptr, ccol, i, lo, hi); };
      // p * 0 would be NaN for a non-finite p: its entries of C(i,:) [e0, e1) take only the row's own
      // pattern (rare: out of the loop below)
      const auto add_exact = [&](I i, I e0, I e1, V p) __attribute__((noinline)) {
        if (!exact) exact = std::make_unique<Stamps>(static_cast<std::size_t>(P.ncols));
        pattern.resize(static_cast<std::size_t>(ap_row_flops(ops, k)));
        ap_row_pattern(ops, k, *exact, pattern.data());
        const std::uint32_t now = exact->current();
        const auto add = [&](I e, V &slot) {
          if (exact->data()[ccol[e]] == now) slot += p * acc[ccol[e]];
        };
        row_slots(i, e0, e1, add);
      };
      I last = -1; // a row of C this thread adds (A*P)(k,:) to
      for_each_entry(P, k, [&](I i, V p) {
        if (i < c0 || i >= c1) return;
        last = i;
        const auto [e0, e1] = span(i);
        if (!std::isfinite(p)) add_exact(i, e0, e1, p);
        else row_slots(i, e0, e1, [&](I e, V &slot) { slot += p * acc[ccol[e]]; });
      });
      const auto [z0, z1] = span(last); // C(i,:) holds (A*P)(k,:)'s pattern: clear the accumulator there
      for (I e = z0; e < z1; ++e) acc[ccol[e]] = V(0);
    }
  });
  errors.rethrow();
}

#define PCLUSTER_INSTANTIATE_TRIPLE(I, V) \
  template class FusedTripleProduct<I, V>; \
  template FusedTripleProduct<I, V> FusedTripleProduct<I, V>::symbolic(const TripleOperands<I, V, CsrView<I, V>> &, TripleForm, std::vector<I> &, std::vector<I> &, bool, std::vector<V> *); \
  template FusedTripleProduct<I, V> FusedTripleProduct<I, V>::symbolic(const TripleOperands<I, V, PiecedView<I, V>> &, TripleForm, std::vector<I> &, std::vector<I> &, bool, std::vector<V> *); \
  template FusedTripleProduct<I, V> FusedTripleProduct<I, V>::symbolic(const TripleOperands<I, V, CsrView<I, V>> &, TripleForm, std::vector<I> &, CallerArray<I> &, bool, CallerArray<V> *); \
  template void FusedTripleProduct<I, V>::numeric(const TripleOperands<I, V, CsrView<I, V>> &, const CsrView<I, V> &, V *, const ResultScatter<I, V> *) const; \
  template void FusedTripleProduct<I, V>::numeric(const TripleOperands<I, V, PiecedView<I, V>> &, const CsrView<I, V> &, V *, const ResultScatter<I, V> *) const;
PCLUSTER_INSTANTIATE_TRIPLE(std::int32_t, double)
PCLUSTER_INSTANTIATE_TRIPLE(std::int64_t, double)
PCLUSTER_INSTANTIATE_TRIPLE(std::int32_t, float)
PCLUSTER_INSTANTIATE_TRIPLE(std::int64_t, float)

} // namespace pcluster::detail
