// The body of C = A*B shared by the row-wise and the cluster-wise kernel: one unit (a row, or a
// cluster of rows) at a time, against any column map (src/accumulator.hpp). SpgemmPlan
// (src/spgemm.cpp) splits A's units into chunks and runs these on its threads.
//
// A unit of s rows: for every stored column k of the unit, row k of B is fetched once and applied
// to all s rows. A cluster of one row is a row: it takes the row-wise body (no masks, no s-wide
// accumulator).
//
// Symbolic (pattern of C, exact): a column map assigns a slot to each distinct output column j and
// the masks of the A columns that reach j are ORed together; row l of the unit then owns exactly
// the columns whose mask has bit l, so no padding reaches C. Columns are put in order once per
// unit (not once per row), by the map's own scan where it has one, else by sorting. Each chunk
// appends its rows' columns to its own buffer (ChunkOutput).
//
// Numeric (values, pattern known): the map is filled from C's own columns, so slot -> output
// position is known before any product is formed; s partial sums per slot are accumulated
// contiguously (acc[slot*s + l]) and written to C in its sorted order. Row-wise the slot *is* the
// position in the row, so products are added straight into C.
#pragma once

#include "accumulator.hpp"
#include "memory.hpp"
#include "parallel.hpp"
#include "pcluster/cluster_matrix.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

namespace pcluster::detail {

// Chunks per thread: enough for dynamic scheduling to absorb cost misprediction (cache effects,
// rows whose flops are far above their output size), few enough that the per-chunk buffers and
// scheduling overhead stay negligible.
constexpr int kChunksPerThread = 8;

// f(std::bool_constant<b>...) for the runtime flags b...: a loop steered by them is compiled once per
// combination, with no test left inside it.
template <class F>
decltype(auto) with_constants(F &&f)
{
  return f();
}
template <class F, class... Flags>
decltype(auto) with_constants(F &&f, bool first, Flags... rest)
{
  if (first) return with_constants([&](auto... flags) { return f(std::true_type{}, flags...); }, rest...);
  return with_constants([&](auto... flags) { return f(std::false_type{}, flags...); }, rest...);
}

// One unit of work, uniform for rows and clusters.
template <class I, class V>
struct Unit {
  const I *rows;    // s rows of the (working) A
  I s;
  const I *cols;    // n distinct columns of A touched by the unit, sorted
  I n;
  const RowMask *masks; // per column: rows holding it (nullptr: row-wise, s == 1)
  const V *values;      // per column: s values, contiguous
  const I *cols_end;    // end of the array `cols` points into: the next units' columns follow
};

// B's row k is fetched for every stored A(i,k); on a scattered numbering each is a cache miss the
// kernel waits for (the hot spot of the symbolic and the numeric phase on a shuffled 7-point
// Laplacian). So the row kPrefetchAhead entries of A ahead is prefetched, past the unit's end into
// the next units' columns: short rows (7 entries) would otherwise leave no distance to hide the
// latency. On an ordered numbering the hardware prefetcher has the rows already and the hint costs
// a load of A's next columns (sequential) and of B's row pointer (the same miss it saves later).
constexpr int kPrefetchAhead = 8;

// always_inline: as a plain inline function GCC 12 found it free of side effects (a prefetch does
// not count) and deleted its calls before inlining them, so no prefetch was ever emitted.
template <class I, class V>
__attribute__((always_inline)) inline void prefetch_row(const I *ahead, const I *end, const I *bptr, const I *bcol, const V *bval)
{
  if (ahead >= end) return;
  const I q = bptr[*ahead];
  __builtin_prefetch(bcol + q);
  if (bval) __builtin_prefetch(bval + q);
}

// Rows of B that repeat the row before them: the rows of one node of a block matrix (the dofs of a
// vector PDE; PETSc's "inodes") hold the same columns, in A and in a prolongator alike. A row of A
// holding consecutive columns k, k+1, ... of such rows meets the same columns of B again and again:
// the kernels take them as one run, loading B's columns once and adding the run's products into
// each sum in a register, in the order they are added one row at a time (so the values are
// bit-identical), and the pattern-only symbolic phase skips the repeats outright. Measured on
// elasticity (27-point couplings of 3-dof nodes, A*A, 1 thread): one-shot 1.8x and reuse 1.4-1.6x
// faster than row by row (docs/results/block_runs_issue16.txt).
// repeats[k] != 0: row k of B holds exactly row k-1's columns. Empty (the plain loops run) unless
// at least kMinRepeatedShare of B's rows repeat: looking for runs costs a load and a compare per
// entry of A, which a few stray repeats never repay (measured, reuse at 1 thread: a road network
// with 42 repeats in 115k rows 1.12x slower, a geometric graph 1.3x; a stiffness matrix with 17%
// repeats, bcsstk13, 1.08x faster). The leading kRepeatSampleRows rows (or 1/32 of B) are looked at
// first, and a B with less than half that share among them is not looked at further: on a road
// network the whole scan cost 5% of a one-shot product.
constexpr double kMinRepeatedShare = 0.125;
constexpr Count kRepeatSampleRows = 4096;
// And runs pay only on long rows of B: a run saves loading its rows of B again (their length each)
// and costs, per entry of A, the look for it and a dispatch on its length, mispredicted where runs
// vary. Measured with PCGAMG's tentative prolongators (1 thread): a 7-point Poisson's, one entry a
// row (its aggregate) and runs of the aggregates' sizes: A*P reuse 1.4x slower with runs, and
// still slower with its rows widened to 2-4 entries; P^T A P (fused, -pc_gamg_agg_nsmooths 0)
// 1.2x slower. Elasticity's, 6 entries (the rigid body modes) in runs of 3: A*P 1.25x faster with
// them. So B's (P's) rows must hold kMinRunRowLength entries on average (run_rows, below).
constexpr Count kMinRunRowLength = 5;
template <class I, class V>
inline bool repeats_row_before(const CsrView<I, V> &B, I k)
{
  const I len = B.row_length(k);
  return len > 0 && len == B.row_length(k - 1) && std::equal(B.colidx + B.rowptr[k], B.colidx + B.rowptr[k + 1], B.colidx + B.rowptr[k - 1]);
}
// A row as its sorted parts, to walk rows of one pattern side by side, entry t of each at once: a
// CsrView's row is one part, a PiecedView's own row its diagonal and off-diagonal blocks' parts.
// (Mapped: a PiecedView's, whose columns may be numbered through a map; a CsrView's are not.)
template <class I, class V, bool Mapped>
struct RowPart {
  const I *col;
  const V *val; // nullptr: a pattern
  I len, col0;
  const I *colmap; // column t is colmap[col[t]], or col0 + col[t] without one
  I column(I t) const
  {
    if constexpr (Mapped) return colmap ? colmap[col[t]] : col0 + col[t];
    else return col[t];
  }
};
template <class M>
struct RowPartOf;
template <class I, class V>
struct RowPartOf<CsrView<I, V>> {
  using type = RowPart<I, V, false>;
};
template <class I, class V>
struct RowPartOf<PiecedView<I, V>> {
  using type = RowPart<I, V, true>;
};
template <class I, class V>
inline int row_parts(const CsrView<I, V> &M, I k, RowPart<I, V, false> (&p)[2])
{
  const I b = M.rowptr[k], e = M.rowptr[k + 1];
  p[0] = {M.colidx + b, M.values ? M.values + b : nullptr, e - b, I(0), nullptr};
  return b < e ? 1 : 0;
}
template <class I, class V>
inline int row_parts(const PiecedView<I, V> &M, I k, RowPart<I, V, true> (&p)[2])
{
  int n = 0;
  M.for_each_segment(k, [&](const I *col, const V *val, I len, I col0, const I *colmap) { p[n++] = {col, val, len, col0, colmap}; });
  return n;
}
// Has row k the parts of `first` (n of them), of the same lengths? (Runs check it of rows found
// repeating: a pattern changed since then never makes them read past a part.)
template <class M, class I, class Part>
inline bool same_part_lengths(const M &B, I k, const Part (&first)[2], int n)
{
  Part p[2]{};
  if (row_parts(B, k, p) != n) return false;
  for (int q = 0; q < n; ++q)
    if (p[q].len != first[q].len) return false;
  return true;
}
// A PiecedView's rows part by part (so that entry t of one is entry t of the other): the same parts
// with the same columns in the same numbering (a row of the rank's own beside a fetched one never).
template <class I, class V>
inline bool repeats_row_before(const PiecedView<I, V> &B, I k)
{
  RowPart<I, V, true> a[2]{}, b[2]{};
  const int n = row_parts(B, k, a);
  if (n == 0 || n != row_parts(B, k - 1, b)) return false;
  for (int q = 0; q < n; ++q)
    if (a[q].len != b[q].len || a[q].col0 != b[q].col0 || a[q].colmap != b[q].colmap || !std::equal(a[q].col, a[q].col + a[q].len, b[q].col)) return false;
  return true;
}
// flags[k] = like_before(B, k) for the rows k >= 1 of B, or empty where fewer than kMinRepeatedShare
// of them are (a leading sample judged first, as above).
template <class M, class LikeBefore>
std::vector<std::uint8_t> rows_like_before(const M &B, int nt, LikeBefore like_before)
{
  using I = decltype(B.nrows);
  const I sample = static_cast<I>(std::min<Count>(B.nrows, std::max<Count>(kRepeatSampleRows, B.nrows / 32)));
  if (sample < B.nrows) { // a B of at most `sample` rows is scanned once, below
    Count in_sample = 0;
    for (I k = 1; k < sample; ++k) in_sample += like_before(B, k);
    if (static_cast<double>(in_sample) < 0.5 * kMinRepeatedShare * static_cast<double>(sample)) return {};
  }
  std::vector<std::uint8_t> flags(static_cast<std::size_t>(B.nrows), 0);
  Count count = 0;
#pragma omp parallel for schedule(static) reduction(+ : count) num_threads(nt)
  for (I k = 1; k < B.nrows; ++k) {
    flags[k] = like_before(B, k);
    count += flags[k];
  }
  if (count == 0 || static_cast<double>(count) < kMinRepeatedShare * static_cast<double>(B.nrows)) flags = {};
  return flags;
}
template <class M>
std::vector<std::uint8_t> repeated_rows(const M &B, int nt)
{
  return rows_like_before(B, nt, [](const M &m, auto k) { return repeats_row_before(m, k); });
}
// The rows of B (CsrView or PiecedView) the kernels take in runs: its repeated rows where its rows
// are long enough for runs to pay (kMinRunRowLength on average), else none.
template <class M>
std::vector<std::uint8_t> run_rows(const M &B, int nt)
{
  if (B.nnz() < kMinRunRowLength * static_cast<Count>(B.nrows)) return {};
  return repeated_rows(B, nt);
}

// Rows that shift the row before them: on a structured grid numbered naturally (PETSc's DMDA), a
// point's stencil is its neighbour's along the fastest axis moved by one column, so row k holds row
// k-1's columns, each plus one. If row i of A shifts row i-1 and every row k of B it holds shifts
// row k-1, then row i of C = the union of those rows of B = row i-1 of C, each column plus one: the
// pattern-only symbolic phase copies it instead of marking and scanning (PETSc's inodes do the like
// for identical rows). Measured on 7-point Poisson (A*A, 1 thread): see SymbolicPass.
template <class I, class V>
inline bool shifts_row_before(const CsrView<I, V> &M, I k)
{
  const I b = M.rowptr[k], len = M.rowptr[k + 1] - b, before = M.rowptr[k - 1];
  if (len == 0 || len != b - before) return false;
  for (I t = 0; t < len; ++t)
    if (M.colidx[b + t] != M.colidx[before + t] + 1) return false;
  return true;
}
// shifted[k] != 0: row k of B shifts row k-1 (empty where too few do: rows_like_before).
template <class I, class V>
std::vector<std::uint8_t> shifted_rows(const CsrView<I, V> &B, int nt)
{
  return rows_like_before(B, nt, [](const CsrView<I, V> &m, I k) { return shifts_row_before(m, k); });
}
// Row i of C = row i-1 of C shifted by one (see shifts_row_before; b_shifted from shifted_rows).
template <class I, class V>
inline bool product_row_shifts_before(const CsrView<I, V> &A, I i, const std::uint8_t *b_shifted)
{
  if (!shifts_row_before(A, i)) return false;
  for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
    if (!b_shifted[A.colidx[p]]) return false;
  return true;
}

// Rows of B taken together at most (the dofs of a node: 3 for 3D elasticity, a few more elsewhere;
// longer runs are taken in pieces).
constexpr int kMaxRun = 4;

// How many of A's columns cols[t], cols[t+1], ... (of n) are k, k+1, ... with rows of B repeating
// row k's columns, up to kMaxRun. The rows' lengths are compared too (bptr): a B whose pattern
// changed since repeats were found then gives shorter runs, never reads past a row.
template <class I>
__attribute__((always_inline)) inline int run_at(const I *cols, I t, I n, const std::uint8_t *repeats, const I *bptr)
{
  const I k = cols[t], len = bptr[k + 1] - bptr[k];
  int m = 1;
  while (m < kMaxRun && t + m < n && cols[t + m] == k + m && repeats[k + m] && bptr[k + m + 1] - bptr[k + m] == len) ++m;
  return m;
}

// Is column t of a sorted list (cols) the row after column t-1's, repeating it (repeats: nullable)?
// Then its pattern was just added to a union, and a pattern-only pass skips it.
template <class I>
inline bool repeats_previous(const std::uint8_t *repeats, const I *cols, I t)
{
  return repeats && t > 0 && repeats[cols[t]] && cols[t - 1] == cols[t] - 1;
}

// Calls f(std::integral_constant<int, m>) for a run length m in [1, kMaxRun].
template <class F>
__attribute__((always_inline)) inline void with_run_length(int m, F &&f)
{
  static_assert(kMaxRun == 4);
  switch (m) {
  case 1: f(std::integral_constant<int, 1>{}); break;
  case 2: f(std::integral_constant<int, 2>{}); break;
  case 3: f(std::integral_constant<int, 3>{}); break;
  default: f(std::integral_constant<int, 4>{});
  }
}

// A's rows as units: either each row alone, or the clusters of a ClusterMatrix.
template <class I, class V>
struct UnitSource {
  const CsrView<I, V> *A = nullptr;
  const V *a_values = nullptr; // A's values (or ones) for the row-wise case
  const ClusterMatrix<I, V> *M = nullptr;
  std::vector<I> row_ids; // row-wise: 0, 1, ..., the rows the units point to

  // Row-wise: every row of A is a unit of its own, with A's values (or ones) a_values.
  void use_rows(const V *values)
  {
    M = nullptr;
    a_values = values;
    row_ids.resize(A->nrows);
    std::iota(row_ids.begin(), row_ids.end(), I(0));
  }
  I count() const { return M ? M->num_clusters() : A->nrows; }
  Unit<I, V> operator()(I u) const
  {
    if (!M) // a_values is null in a symbolic phase without values (no offset on null: undefined)
      return {row_ids.data() + u,  1, A->colidx + A->rowptr[u], A->row_length(u), nullptr, a_values ? a_values + A->rowptr[u] : nullptr,
              A->colidx + A->nnz()};
    const Clustering<I> &cl = M->clusters;
    return {cl.rows.data() + cl.ptr[u], cl.size(u), M->cols.data() + M->col_ptr[u], M->col_ptr[u + 1] - M->col_ptr[u],
            M->masks.data() + M->col_ptr[u], M->values.data() + M->val_ptr[u], M->cols.data() + M->cols.size()};
  }
};

// Rows of C whose products land where the row before's do (`follows`, marked by the symbolic phase
// where it copies a row's pattern from the row before): row i of A holds row i-1's columns (the rows
// of a node of a block matrix, times a B not taken in runs), or shifts them while every row of B it
// holds shifts too (a structured grid numbered naturally: product_row_shifts_before). Then the
// t-th product of row i goes to the same position of C's row as the t-th of row i-1, so the
// positions of a run's first row are recorded once (FollowList) and its other rows add their
// products through them: no column of B or C is read, no value array gathered and cleared.
// Each entry is the same sum in the same order from +0 as numeric_row's: bit-identical.
template <class I>
struct FollowList {
  std::vector<I> pos;  // per product of the recorded row, its position in C's row
  I row = -1, len = 0; // the row the list is valid for (-1: none), and C's row length there
};

// Per-thread workspace: one map of each kind (allocated on first use) and scratch arrays (bounds:
// the head of src/accumulator.hpp).
template <class I, class V>
struct Workspace {
  ColumnMaps<I> maps;
  std::vector<I> slot_col;
  std::vector<RowMask> slot_mask;
  std::vector<std::pair<I, I>> sorted;
  std::vector<I> entry_slot;
  std::vector<V> acc;
  ZeroedArray<V> gather_values; // row-wise numeric by gathering (kGatherMaxBytes); zero between rows
  std::size_t ngather_values = 0;
  FollowList<I> follow;         // row-wise numeric of rows that follow the row before

  // Bytes allocated: capacities, which only grow, so at the end of a phase this is the thread's peak.
  Count bytes() const
  {
    std::size_t maps_bytes = 0;
    std::apply([&](const auto &...map) { maps_bytes = (map.bytes() + ...); }, maps);
    return static_cast<Count>(maps_bytes + slot_col.capacity() * sizeof(I) + slot_mask.capacity() * sizeof(RowMask) +
                              sorted.capacity() * sizeof(std::pair<I, I>) + entry_slot.capacity() * sizeof(I) + acc.capacity() * sizeof(V) +
                              follow.pos.capacity() * sizeof(I) +
                              ngather_values * sizeof(V));
  }
};

// Short rows dominate sparse products; insertion sort beats introsort's set-up below this size.
constexpr std::size_t kInsertionSortMax = 32;

template <class T, class Less>
void sort_small(T *first, T *last, Less less)
{
  if (static_cast<std::size_t>(last - first) > kInsertionSortMax) {
    std::sort(first, last, less);
    return;
  }
  if (last - first < 2) return; // first + 1 would point past an empty range (null for an empty vector)
  for (T *i = first + 1; i < last; ++i) {
    T v = *i;
    T *j = i;
    for (; j > first && less(v, *(j - 1)); --j) *j = *(j - 1);
    *j = v;
  }
}

// Orders (column, slot) pairs by column.
struct ByColumn {
  template <class P>
  bool operator()(const P &a, const P &b) const
  {
    return a.first < b.first;
  }
};

// A chunk's rows' columns, row after row: the chunk's part of the symbolic phase's arena (or a
// thread's scratch), room for the chunk's flops (an upper bound on its output) but never
// initialised: pages the chunk does not write are never touched.
template <class I, class V>
struct ChunkOutput {
  I *cols = nullptr;
  std::unique_ptr<V[]> vals; // fused symbolic+numeric only
  Count size = 0;
};

// acc[slot[j]*s + l] += A(row l, k) * B(k, j) for every stored B(k, j) of the cluster's columns k;
// slot[j] is a map's slot (MapSlots) or a bound position (the map's Positions). Runs of repeated
// rows of B (repeats, nullable: see repeated_rows) are added together.
// W > 0 fixes s == W at compile time; W == 0 reads s from the unit.
template <int W, class I, class V, class Slots>
void accumulate_cluster(const Unit<I, V> &u, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats, const Slots &slot, V *acc)
{
  const I s = W > 0 ? I(W) : u.s;
  const I *const __restrict bptr = B.rowptr;
  const I *const __restrict bcol = B.colidx;
  if constexpr (W > 0)
    if (repeats) {
      for (I t = 0; t < u.n;) {
        const int m = run_at(u.cols, t, u.n, repeats, bptr);
        const I k = u.cols[t];
        for (int r = 0; r < m; ++r) prefetch_row(u.cols + t + r + kPrefetchAhead, u.cols_end, bptr, bcol, b_values);
        with_run_length(m, [&](auto run) {
          constexpr int M = decltype(run)::value;
          I q[M];
          V a[M][W];
          for (int r = 0; r < M; ++r) {
            q[r] = bptr[k + r];
            for (I l = 0; l < s; ++l) a[r][l] = u.values[static_cast<std::size_t>(t + r) * s + l];
          }
          const I len = bptr[k + 1] - q[0];
          for (I p = 0; p < len; ++p) {
            V *const __restrict dst = acc + static_cast<std::size_t>(slot[bcol[q[0] + p]]) * s;
            for (I l = 0; l < s; ++l) {
              V v = dst[l];
              for (int r = 0; r < M; ++r) v += a[r][l] * b_values[q[r] + p];
              dst[l] = v;
            }
          }
        });
        t += m;
      }
      return;
    }
  for (I t = 0; t < u.n; ++t) {
    const I k = u.cols[t];
    prefetch_row(u.cols + t + kPrefetchAhead, u.cols_end, bptr, bcol, b_values);
    const V *const __restrict a = u.values + static_cast<std::size_t>(t) * s;
    for (I q = bptr[k]; q < bptr[k + 1]; ++q) {
      const V b = b_values[q];
      V *const __restrict dst = acc + static_cast<std::size_t>(slot[bcol[q]]) * s;
      for (I l = 0; l < s; ++l) dst[l] += a[l] * b;
    }
  }
}

// The same for any s: common cluster sizes get a compile-time width, so the s-wide update vectorises.
template <class I, class V, class Slots>
void accumulate_cluster_any(const Unit<I, V> &u, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats, const Slots &slot,
                            V *acc)
{
  switch (u.s) {
  case 2: accumulate_cluster<2>(u, B, b_values, repeats, slot, acc); break;
  case 3: accumulate_cluster<3>(u, B, b_values, repeats, slot, acc); break;
  case 4: accumulate_cluster<4>(u, B, b_values, repeats, slot, acc); break;
  case 6: accumulate_cluster<6>(u, B, b_values, repeats, slot, acc); break;
  case 8: accumulate_cluster<8>(u, B, b_values, repeats, slot, acc); break;
  default: accumulate_cluster<0>(u, B, b_values, repeats, slot, acc);
  }
}

// A map's slots as a lookup: slot[j] is map.find(j).
template <class Map>
struct MapSlots {
  const Map &map;
  template <class J>
  auto operator[](J j) const
  {
    return map.find(j);
  }
};

// Rows of A with at most kMergeMaxRows entries: their rows of B (sorted) are merged straight into
// the output, PETSc's rowmerge way, with no map to mark and scan (reordered products excepted: their
// columns are relabelled before being put in order). On short rows the map's per-row work (reset,
// marks, the scan of its summary words) costs more than the merge's compare per output column and
// row: measured on a road network (luxembourg_osm, 2.1 entries per row of A), symbolic 5.9 -> 3.3 ms
// with rows of up to 4 merged; up to 8, a Delaunay mesh's (6 per row) went 26 -> 33 ms.
// Values are summed over A's entries in order from +0, as the map's accumulation and the numeric
// phase do, so they are bit-identical to theirs.
constexpr int kMergeMaxRows = 4;

// The union of B's rows u.cols[0..K), ascending, into out (and with Values their sums into vals);
// returns its length.
template <int K, bool Values, class I, class V>
I merge_rows(const Unit<I, V> &u, const I *bptr, const I *bcol, const V *bval, I *out, V *vals)
{
  constexpr I kDone = std::numeric_limits<I>::max(); // above every column
  I q[K], end[K], head[K];
  for (int t = 0; t < K; ++t) {
    q[t] = bptr[u.cols[t]];
    end[t] = bptr[u.cols[t] + 1];
    head[t] = q[t] < end[t] ? bcol[q[t]] : kDone;
  }
  I n = 0;
  while (true) {
    I m = head[0];
    for (int t = 1; t < K; ++t) m = std::min(m, head[t]);
    if (m == kDone) return n;
    V sum = V(0);
    for (int t = 0; t < K; ++t)
      if (head[t] == m) {
        if (Values) sum += u.values[t] * bval[q[t]];
        head[t] = ++q[t] < end[t] ? bcol[q[t]] : kDone;
      }
    if (Values) vals[n] = sum;
    out[n++] = m;
  }
}

template <bool Values, class I, class V>
I merge_rows(const Unit<I, V> &u, const I *bptr, const I *bcol, const V *bval, I *out, V *vals)
{
  switch (u.n) {
  case 0: return 0;
  case 1: return merge_rows<1, Values>(u, bptr, bcol, bval, out, vals);
  case 2: return merge_rows<2, Values>(u, bptr, bcol, bval, out, vals);
  case 3: return merge_rows<3, Values>(u, bptr, bcol, bval, out, vals);
  default: static_assert(kMergeMaxRows == 4); return merge_rows<4, Values>(u, bptr, bcol, bval, out, vals);
  }
}

// The symbolic phase of one unit: its rows' columns (sorted) appended to `out`, with their values
// when WithValues (fused symbolic+numeric: a one-shot product then needs no separate numeric
// pass). repeats: B's repeated rows (nullable; repeated_rows). out_cols (nullptr: none) relabels B's columns to C's before they are sorted (reordered
// products, src/spgemm_reordering.hpp). Each row's count goes to row_count, and its start in `out`
// to row_start unless that is null (the caller then knows the rows follow each other).
template <bool RowWise, bool WithValues, class I, class V, class Map>
void symbolic_unit(const Unit<I, V> &u, Count work, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats, const I *out_cols, Map &map,
                   Workspace<I, V> &ws, ChunkOutput<I, V> &out, I *row_count, Count *row_start)
{
  const I *const __restrict bptr = B.rowptr;
  const I *const __restrict bcol = B.colidx;
  if (RowWise && !out_cols && u.n <= kMergeMaxRows) {
    for (I t = 0; t < u.n; ++t) prefetch_row(u.cols + t + kPrefetchAhead, u.cols_end, bptr, bcol, b_values);
    const I count = merge_rows<WithValues>(u, bptr, bcol, b_values, out.cols + out.size, WithValues ? out.vals.get() + out.size : nullptr);
    row_count[u.rows[0]] = count;
    if (row_start) row_start[u.rows[0]] = out.size;
    out.size += count;
    return;
  }
  map.reset(work);
  if (RowWise) { // columns go straight to the chunk's buffer, then are put in order in place
    I *const begin = out.cols + out.size;
    I *end = begin;
    if (!WithValues) {
      for (I t = 0; t < u.n; ++t) {
        const I k = u.cols[t];
        prefetch_row(u.cols + t + kPrefetchAhead, u.cols_end, bptr, bcol, static_cast<const V *>(nullptr));
        if (repeats_previous(repeats, u.cols, t)) continue; // row k-1's columns, just marked
        end = map.mark_new(bcol + bptr[k], bcol + bptr[k + 1], end);
      }
    } else {
      if (static_cast<Count>(ws.acc.size()) < work) ws.acc.resize(work);
      V *const __restrict acc = ws.acc.data();
      for (I t = 0; t < u.n;) {
        const int m = repeats ? run_at(u.cols, t, u.n, repeats, bptr) : 1;
        const I k = u.cols[t];
        for (int r = 0; r < m; ++r) prefetch_row(u.cols + t + r + kPrefetchAhead, u.cols_end, bptr, bcol, b_values);
        with_run_length(m, [&](auto run) {
          constexpr int M = decltype(run)::value;
          I q[M];
          V a[M];
          for (int r = 0; r < M; ++r) {
            q[r] = bptr[k + r];
            a[r] = u.values[t + r];
          }
          const I len = bptr[k + 1] - q[0];
          for (I p = 0; p < len; ++p) {
            const I j = bcol[q[0] + p];
            bool inserted;
            const I slot = map.template insert<true>(j, inserted);
            V v = V(0); // from +0 as in numeric(): a lone -0 product gives +0 in both
            if (inserted) *end++ = j;
            else v = acc[slot];
            for (int r = 0; r < M; ++r) v += a[r] * b_values[q[r] + p];
            acc[slot] = v;
          }
        });
        t += m;
      }
    }
    V *const vals = WithValues ? out.vals.get() + out.size : nullptr;
    if (out_cols) { // relabel to C's columns, then sort (with the slots, for the values)
      map.unrecord(begin, end);
      if (!WithValues) {
        for (I *c = begin; c < end; ++c) *c = out_cols[*c];
        sort_small(begin, end, std::less<I>());
      } else {
        ws.sorted.clear();
        for (I *c = begin; c < end; ++c) ws.sorted.emplace_back(out_cols[*c], map.find(*c));
        sort_small(ws.sorted.data(), ws.sorted.data() + ws.sorted.size(), ByColumn{});
        for (std::size_t z = 0; z < ws.sorted.size(); ++z) {
          begin[z] = ws.sorted[z].first;
          vals[z] = ws.acc[ws.sorted[z].second];
        }
      }
    } else {
      if (!map.scan_sorted(begin, end - begin)) {
        sort_small(begin, end, std::less<I>());
        map.unrecord(begin, end);
      }
      if (WithValues)
        for (I *c = begin; c < end; ++c) vals[c - begin] = ws.acc[map.find(*c)];
    }
    row_count[u.rows[0]] = static_cast<I>(end - begin);
    if (row_start) row_start[u.rows[0]] = out.size;
    out.size += end - begin;
    return;
  }
  // Pattern first (slots, and which rows reach each column), then the values by the numeric
  // phase's accumulation loop: two tight loops run faster than one that branches on every
  // product between a first store and an add, with a run-time cluster width.
  const I s = u.s;
  ws.slot_col.clear();
  ws.slot_mask.clear();
  for (I t = 0; t < u.n; ++t) {
    const I k = u.cols[t];
    prefetch_row(u.cols + t + kPrefetchAhead, u.cols_end, bptr, bcol, static_cast<const V *>(nullptr));
    const RowMask m = u.masks[t];
    if (repeats_previous(repeats, u.cols, t) && u.masks[t - 1] == m) continue; // the columns just inserted, for the same rows
    for (I q = bptr[k]; q < bptr[k + 1]; ++q) {
      bool inserted;
      const I slot = map.template insert<true>(bcol[q], inserted);
      if (inserted) {
        ws.slot_col.push_back(bcol[q]);
        ws.slot_mask.push_back(m);
      } else ws.slot_mask[slot] |= m;
    }
  }
  const std::size_t nslots = ws.slot_col.size();
  if (WithValues) {
    ws.acc.assign(nslots * static_cast<std::size_t>(s), V(0));
    accumulate_cluster_any(u, B, b_values, repeats, MapSlots<Map>{map}, ws.acc.data());
  }
  const V *const __restrict acc = ws.acc.data();
  ws.sorted.resize(nslots); // (column, slot), sorted by column
  bool ordered = false;
  if (!out_cols) { // the map's scan, as in the row-wise body
    if (ws.entry_slot.size() < nslots) ws.entry_slot.resize(nslots);
    ordered = map.scan_sorted(ws.entry_slot.data(), static_cast<Count>(nslots));
    if (ordered)
      for (std::size_t z = 0; z < nslots; ++z) ws.sorted[z] = {ws.entry_slot[z], map.find(ws.entry_slot[z])};
  }
  if (!ordered) {
    map.unrecord(ws.slot_col.data(), ws.slot_col.data() + nslots);
    for (std::size_t z = 0; z < nslots; ++z) ws.sorted[z] = {out_cols ? out_cols[ws.slot_col[z]] : ws.slot_col[z], static_cast<I>(z)};
    sort_small(ws.sorted.data(), ws.sorted.data() + nslots, ByColumn{});
  }
  I *const cols = out.cols;
  for (I l = 0; l < s; ++l) {
    const RowMask bit = RowMask(1) << l;
    const Count start = out.size;
    for (const auto &e : ws.sorted)
      if (ws.slot_mask[e.second] & bit) {
        if (WithValues) out.vals[out.size] = acc[static_cast<std::size_t>(e.second) * s + l];
        cols[out.size++] = e.first;
      }
    if (row_start) row_start[u.rows[l]] = start;
    row_count[u.rows[l]] = static_cast<I>(out.size - start);
  }
}

// add(j, A(i,k) * B(k,j)) for every stored A(i,k) of one row (its columns cols[0..n), values vals;
// cols_end: the end of the array cols points into, for the prefetch) and every stored B(k,j).
// Unrolled: the loop over B's row unrolled by 4 (see kUnrollMinRowLength).
template <bool Unrolled = false, class I, class V, class Add>
__attribute__((always_inline)) inline void for_each_product(const I *cols, I n, const V *vals, const I *cols_end, const I *__restrict bptr,
                                                            const I *__restrict bcol, const V *__restrict bval, Add &&add)
{
  for (I t = 0; t < n; ++t) {
    const I k = cols[t];
    prefetch_row(cols + t + kPrefetchAhead, cols_end, bptr, bcol, bval);
    const V a = vals[t];
    const I q0 = bptr[k], q1 = bptr[k + 1];
    if constexpr (Unrolled) {
#pragma GCC unroll 4
      for (I q = q0; q < q1; ++q) add(bcol[q], a * bval[q]);
    } else
      for (I q = q0; q < q1; ++q) add(bcol[q], a * bval[q]);
  }
}

// B's rows of at least this many entries on average take the numeric phase's loop over a row of B
// unrolled (for_each_product): four products per iteration, one loop test. Measured (reuse, 1 thread,
// best of 20, 3 rounds): rows of 32 (dnn-n1024-l1) 1.25-1.35x faster, R-MAT scale 12 1.15-1.5x;
// rows of 6 (delaunay_n16) 1.15-1.3x slower, the remainder's branch mispredicted on every row.
constexpr Count kUnrollMinRowLength = 12;
template <class I, class V>
bool unrolls_rows(const CsrView<I, V> &B)
{
  return B.nnz() >= kUnrollMinRowLength * static_cast<Count>(B.nrows);
}

// target(j) += A(i,k) * B(k,j) for every stored A(i,k) and B(k,j), as for_each_product (target(j):
// a reference to column j's sum), with runs of B's repeated rows (repeated_rows) added together.
template <class I, class V, class Target>
__attribute__((always_inline)) inline void for_each_run(const I *cols, I n, const V *vals, const I *cols_end, const I *__restrict bptr,
                                                        const I *__restrict bcol, const V *__restrict bval, const std::uint8_t *repeats,
                                                        Target &&target)
{
  for (I t = 0; t < n;) {
    const int m = run_at(cols, t, n, repeats, bptr);
    const I k = cols[t];
    for (int r = 0; r < m; ++r) prefetch_row(cols + t + r + kPrefetchAhead, cols_end, bptr, bcol, bval);
    with_run_length(m, [&](auto run) {
      constexpr int M = decltype(run)::value;
      I q[M];
      V a[M];
      for (int r = 0; r < M; ++r) {
        q[r] = bptr[k + r];
        a[r] = vals[t + r];
      }
      const I len = bptr[k + 1] - q[0];
      for (I p = 0; p < len; ++p) {
        V &sum = target(bcol[q[0] + p]);
        V v = sum;
        for (int r = 0; r < M; ++r) v += a[r] * bval[q[r] + p];
        sum = v;
      }
    });
    t += m;
  }
}

// A row-wise numeric phase with the dense map runs one of two ways: by positions (the map's slot
// array binds C's columns of the row to their places, and each product is added into C's row through
// it), or by gathering (PETSc's own way: each product is added into an ncols-wide value array, from
// which C's row is then gathered, clearing it). Gathering saves a dependent load per product;
// positions keep half the bytes per column. Measured with spgemm_bench (1 thread, reuse, gathering
// against positions): R-MAT scales 11-15 (2k-33k columns) +15-30%, 27-point elasticity 24k columns
// +20%, shuffled 7-point 27k columns +7%; but 7-point natural 125k-343k columns -6 to -15%, shuffled
// 27-point 50k columns -3%, shuffled geometric graph 1M columns -16%. So gathering where the value
// array takes at most kGatherMaxBytes, an eighth of this machine's 2 MiB L2.
constexpr std::size_t kGatherMaxBytes = std::size_t(256) << 10;
template <class V>
bool numeric_gathers(Count ncols)
{
  return static_cast<std::size_t>(ncols) * sizeof(V) <= kGatherMaxBytes;
}

// The ncols-wide value array of a gathering numeric phase (numeric_gathers), zero, allocated once
// per thread and phase.
template <class I, class V>
V *gather_array(Workspace<I, V> &ws, Count ncols)
{
  if (ws.ngather_values < static_cast<std::size_t>(ncols)) {
    ws.gather_values = make_zeroed_array<V>(static_cast<std::size_t>(ncols));
    ws.ngather_values = static_cast<std::size_t>(ncols);
  }
  return ws.gather_values.get();
}

// The numeric phase of one row of C (columns ccol[0..len), values c) from one row of A (cols, n,
// vals, cols_end as in for_each_product): gathering through `acc` (Gather: numeric_gathers; the
// dense map), or by the map's positions; Runs: B's repeated rows in runs (`repeats`, for_each_run).
// Either way each entry is the same sum in the same order, from +0: the values are bit-identical.
// (Short rows keep the map here: walking each row of B along C's sorted row, as the symbolic phase
// merges, costs a mispredicted branch per product; measured, reuse 2.5x slower on a FEM mesh, wing,
// and 1.5x on a geometric graph.)
template <bool Unrolled, bool Gather, bool Runs, class I, class V, class Map>
__attribute__((always_inline)) inline void numeric_row(const I *cols, I n, const V *vals, const I *cols_end, const I *bptr, const I *bcol,
                                                       const V *bval, const std::uint8_t *repeats, const I *__restrict ccol, I len, V *c_row,
                                                       Map &map, V *__restrict acc)
{
  if constexpr (Gather) {
    if constexpr (Runs) for_each_run(cols, n, vals, cols_end, bptr, bcol, bval, repeats, [acc](I j) -> V & { return acc[j]; });
    else for_each_product<Unrolled>(cols, n, vals, cols_end, bptr, bcol, bval, [acc](I j, V ab) { acc[j] += ab; });
    V *const __restrict c = c_row;
    for (I p = 0; p < len; ++p) {
      c[p] = acc[ccol[p]];
      acc[ccol[p]] = V(0);
    }
  } else {
    const auto position = map.bind_positions(ccol, len, c_row);
    // The row's values zeroed, and then a restrict pointer to them: declared before the zeroing
    // (which then ran through it), the numeric phase of PtAP's products ran 6-13% slower (measured
    // with GCC 12 on this machine; the loop's code looked the same, the mechanism is not pinned down).
    V *const __restrict c = c_row;
    if constexpr (Runs) for_each_run(cols, n, vals, cols_end, bptr, bcol, bval, repeats, [c, position](I j) -> V & { return c[position[j]]; });
    else for_each_product<Unrolled>(cols, n, vals, cols_end, bptr, bcol, bval, [c, position](I j, V ab) { c[position[j]] += ab; });
  }
}

// Entries of C in the unit's rows.
template <class I, class V>
Count expected_entries(const Unit<I, V> &u, const CsrView<I, V> &C)
{
  Count n = 0;
  for (I l = 0; l < u.s; ++l) n += C.row_length(u.rows[l]);
  return n;
}

// Do the unit's rows have one pattern in C? Only if every row holds every column of the unit (all
// masks full: the rows of a node of a block matrix); then C's rows are compared too (a diagonal
// added by SpgemmOptions::include_diagonal differs between them). Such a cluster needs no map of its
// union: a column's slot is its position in the first row, bound in one pass as the row-wise
// numeric does (measured on elasticity with node clusters, reuse: the union's map, one insert per
// entry of C and a gather through the slots, cost about a third of the phase).
template <class I, class V>
bool shares_pattern(const Unit<I, V> &u, const CsrView<I, V> &C)
{
  const RowMask full = u.s >= 64 ? ~RowMask(0) : (RowMask(1) << u.s) - 1;
  for (I t = 0; t < u.n; ++t)
    if (u.masks[t] != full) return false;
  const I *const first = C.colidx + C.rowptr[u.rows[0]];
  const I len = C.row_length(u.rows[0]);
  for (I l = 1; l < u.s; ++l)
    if (C.row_length(u.rows[l]) != len || !std::equal(first, first + len, C.colidx + C.rowptr[u.rows[l]])) return false;
  return true;
}

// The numeric phase of one unit into C's values. `expected` bounds the unit's distinct columns;
// `gather`: a row-wise unit with the dense map gathers (see numeric_gathers).
template <bool RowWise, class I, class V, class Map>
void numeric_unit(const Unit<I, V> &u, Count expected, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats, const CsrView<I, V> &C,
                  V *c_values, Map &map, Workspace<I, V> &ws, bool gather)
{
  if constexpr (RowWise) { // the slot of a column is its position in C's row
    const I i = u.rows[0], base = C.rowptr[i];
    V *const acc = Map::kind == Accumulator::Dense && gather ? gather_array(ws, C.ncols) : nullptr;
    with_constants(
        [&](auto gathering, auto runs) {
          numeric_row<false, gathering, runs>(u.cols, u.n, u.values, u.cols_end, B.rowptr, B.colidx, b_values, repeats, C.colidx + base,
                                            C.rowptr[i + 1] - base, c_values + base, map, acc);
        },
        acc != nullptr, repeats != nullptr);
  } else if (shares_pattern(u, C)) { // the slot of a column is its position in the rows' common pattern
    const I s = u.s, base = C.rowptr[u.rows[0]], len = C.rowptr[u.rows[0] + 1] - base;
    ws.acc.assign(static_cast<std::size_t>(len) * s, V(0));
    V *const __restrict acc = ws.acc.data();
    const auto position = map.bind_positions(C.colidx + base, len, acc);
    accumulate_cluster_any(u, B, b_values, repeats, position, acc);
    for (I l = 0; l < s; ++l) {
      V *const __restrict c = c_values + C.rowptr[u.rows[l]];
      for (I p = 0; p < len; ++p) c[p] = acc[static_cast<std::size_t>(p) * s + l];
    }
  } else { // cluster: s partial sums per slot of the rows' union
    map.reset(expected);
    const I s = u.s;
    bool inserted;
    ws.entry_slot.resize(static_cast<std::size_t>(expected_entries(u, C)));
    I *const __restrict entry_slot = ws.entry_slot.data();
    std::size_t e = 0;
    for (I l = 0; l < s; ++l)
      for (I p = C.rowptr[u.rows[l]]; p < C.rowptr[u.rows[l] + 1]; ++p) entry_slot[e++] = map.insert(C.colidx[p], inserted);
    ws.acc.assign(static_cast<std::size_t>(map.size()) * s, V(0));
    V *acc = ws.acc.data();
    accumulate_cluster_any(u, B, b_values, repeats, MapSlots<Map>{map}, acc);
    e = 0;
    for (I l = 0; l < s; ++l)
      for (I p = C.rowptr[u.rows[l]]; p < C.rowptr[u.rows[l] + 1]; ++p) c_values[p] = acc[static_cast<std::size_t>(entry_slot[e++]) * s + l];
  }
}

// Row i's values through the positions recorded on the run's first row: false (the row's values
// left unreliable) where its counts no longer fit the list (its row of C, or the products of its
// row of A), for the caller to compute it the usual way. Only counts are checked: like every
// numeric phase, this one needs the operands' patterns of the symbolic phase (the plugin checks
// them), and with other patterns of the same counts its values are wrong but its writes stay in
// the row.
template <class I, class V>
__attribute__((always_inline)) inline bool numeric_row_follows(const I *cols, I n, const V *vals, const I *__restrict bptr, const V *__restrict bval,
                                                               I len, V *__restrict c, const FollowList<I> &list)
{
  if (len != list.len) return false;
  for (I p = 0; p < len; ++p) c[p] = V(0);
  const I *const __restrict pos = list.pos.data();
  const std::size_t npos = list.pos.size();
  std::size_t at = 0;
  for (I t = 0; t < n; ++t) {
    const I q0 = bptr[cols[t]], blen = bptr[cols[t] + 1] - q0;
    if (at + static_cast<std::size_t>(blen) > npos) return false;
    const V a = vals[t];
    const V *const __restrict b = bval + q0;
    const I *const __restrict pl = pos + at;
    for (I p = 0; p < blen; ++p) c[pl[p]] += a * b[p];
    at += static_cast<std::size_t>(blen);
  }
  return at == npos;
}

// Row i's values by the map's positions, recording them in `list` for the rows that follow it.
// False (nothing recorded, the row's values unreliable) where a product's column is not in C's
// row, which only operands whose pattern changed since the symbolic phase give: the map's slot of
// such a column is stale, so every position is checked before it is written through (one compare
// per product, on one row per run).
template <class I, class V, class Map>
__attribute__((always_inline)) inline bool numeric_row_recording(const I *cols, I n, const V *vals, const I *cols_end, const I *__restrict bptr,
                                                                 const I *__restrict bcol, const V *__restrict bval, const I *ccol, I len, V *c_row,
                                                                 Map &map, FollowList<I> &list)
{
  const auto position = map.bind_positions(ccol, len, c_row);
  V *const __restrict c = c_row;
  bool fits = true;
  list.pos.clear();
  for_each_product(cols, n, vals, cols_end, bptr, bcol, bval, [&](I j, V ab) {
    const I p = position[j];
    if (p < 0 || p >= len || ccol[p] != j) {
      fits = false;
      return;
    }
    list.pos.push_back(p);
    c[p] += ab;
  });
  list.len = len;
  return fits;
}

// The row-wise numeric phase of rows [first, last) of A (values a_values), every row on the same map
// (a uniform accumulator): numeric_unit's row-wise path in one loop over rows, with A's, B's and C's
// arrays in locals. Per row, building a Unit and reloading the operands' arrays through their views
// cost about 15 cycles, a third of the time on a road network's rows of 2 entries (luxembourg_osm
// reuse, 1 thread: 2.2 ms through units, 1.6 ms in this loop). follows (nullable): see FollowList;
// the map must then be prepared for positions. Returns the rows computed through recorded positions.
// The loop is compiled once per combination of its choices (Unrolled: B's rows unrolled; Gather;
// Runs: `repeats`; Follows: `follows`), made once by numeric_rows below: tested inside it, once or
// twice per row, they cost registers and reloads (luxembourg_osm again: 1.9-2.0 ms with them, 1.3-1.4
// ms without).
template <bool Unrolled, bool Gather, bool Runs, bool Follows, class I, class V, class Map>
Count numeric_rows_as(const CsrView<I, V> &A, const V *a_values, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats,
                      const CsrView<I, V> &C, V *c_values, I first, I last, Map &map, V *acc, FollowList<I> &list, const std::uint8_t *follows)
{
  const I *const aptr = A.rowptr, *const acol = A.colidx, *const acol_end = A.colidx + A.nnz();
  const I *const bptr = B.rowptr, *const bcol = B.colidx;
  const I *const cptr = C.rowptr, *const ccol = C.colidx;
  list.row = -1;
  Count followed = 0;
  for (I i = first; i < last; ++i) {
    const I *const cols = acol + aptr[i], n = aptr[i + 1] - aptr[i];
    const V *const vals = a_values + aptr[i];
    const I len = cptr[i + 1] - cptr[i];
    V *const c = c_values + cptr[i];
    if constexpr (Follows) {
      // (A chunk's first row is never marked: the symbolic phase copies no row across chunks.)
      if (follows[i] && i > first && list.row == i - 1 && numeric_row_follows(cols, n, vals, bptr, b_values, len, c, list)) {
        list.row = i;
        ++followed;
        continue;
      }
      list.row = -1;
      if (i + 1 < last && follows[i + 1] && numeric_row_recording(cols, n, vals, acol_end, bptr, bcol, b_values, ccol + cptr[i], len, c, map, list)) {
        list.row = i;
        continue;
      }
    }
    numeric_row<Unrolled, Gather, Runs>(cols, n, vals, acol_end, bptr, bcol, b_values, repeats, ccol + cptr[i], len, c, map, acc);
  }
  return followed;
}

template <class I, class V, class Map>
Count numeric_rows(const CsrView<I, V> &A, const V *a_values, const CsrView<I, V> &B, const V *b_values, const std::uint8_t *repeats,
                   const CsrView<I, V> &C, V *c_values, I first, I last, Map &map, Workspace<I, V> &ws, bool gather, const std::uint8_t *follows)
{
  V *const acc = Map::kind == Accumulator::Dense && gather ? gather_array(ws, C.ncols) : nullptr;
  // (Runs take B's rows in their own loop, unrolled or not; the hash map never gathers.)
  return with_constants(
      [&](auto unrolled, auto gathering, auto runs, auto following) -> Count {
        if constexpr ((unrolled && runs) || (gathering && Map::kind != Accumulator::Dense)) return 0; // not reached
        else
          return numeric_rows_as<unrolled, gathering, runs, following>(A, a_values, B, b_values, repeats, C, c_values, first, last, map, acc,
                                                                       ws.follow, follows);
      },
      unrolls_rows(B) && !repeats, acc != nullptr, repeats != nullptr, follows != nullptr);
}

// Unit boundaries of `parts` chunks with about equal total cost (cost prefix sums over n units,
// n + 1 entries from 0: e.g. a CSR row pointer; binary search).
template <class I, class T>
std::vector<I> balanced_chunks(const T *cost_prefix, I n, int parts)
{
  parts = std::max(1, static_cast<int>(std::min<Count>(parts, std::max<I>(n, 1))));
  std::vector<I> bounds(parts + 1, n);
  bounds[0] = 0;
  const Count total = static_cast<Count>(cost_prefix[n]);
  for (int c = 1; c < parts; ++c) {
    const Count target = total / parts * c + (total % parts) * c / parts;
    bounds[c] = static_cast<I>(std::lower_bound(cost_prefix, cost_prefix + n + 1, target,
                                                [](const T &cost, Count t) { return static_cast<Count>(cost) < t; }) -
                               cost_prefix);
    bounds[c] = std::clamp(bounds[c], bounds[c - 1], n);
  }
  return bounds;
}
template <class I>
std::vector<I> balanced_chunks(const std::vector<Count> &cost_prefix, int parts)
{
  return balanced_chunks(cost_prefix.data(), static_cast<I>(cost_prefix.size()) - 1, parts);
}

template <class I, class V>
bool all_finite(const V *v, Count n)
{
  bool ok = true;
#pragma omp parallel for reduction(&& : ok) schedule(static) num_threads(threads_for(n))
  for (Count p = 0; p < n; ++p) ok = ok && std::isfinite(v[p]);
  return ok;
}

} // namespace pcluster::detail
