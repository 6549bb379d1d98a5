// C = A*B, row-wise (Gustavson 1978) and cluster-wise (Islam, Xu, Dai & Buluc, arXiv:2507.21253).
//
// One kernel body serves both: A's rows are processed in *units*. Row-wise, a unit is one row;
// cluster-wise, a unit is a cluster of rows stored in CSR_Cluster, whose union columns each carry
// s values (one per row of the cluster) and a mask of the rows that really hold the entry.
// For every stored column k of the unit, row k of B is fetched once and applied to all s rows.
// A cluster of one row is a row: it takes the row-wise body (no masks, no s-wide accumulator).
//
// Symbolic phase (pattern of C, exact): per unit, a ColumnMap (src/accumulator.hpp) assigns a
// slot to each distinct output column j and ORs together the masks of the A columns that reach j.
// Row l of the unit then owns exactly the columns whose mask has bit l: no padding reaches C.
// Columns are sorted once per unit (not once per row). Each chunk of units appends its rows'
// columns to its own buffer; rowptr is a prefix sum of row counts (64-bit, checked against the
// index type before C is allocated) and the buffers are copied into place in parallel.
//
// Numeric phase (values, pattern known): per unit, the map is filled from C's own columns, so
// slot -> output position is known before any product is formed; s partial sums per slot are
// accumulated contiguously (acc[slot*s + l]) and written to C in its sorted order. Row-wise the
// slot *is* the position in the row, so products are added straight into C.
//
// Work is split into chunks of units with equal flops (prefix sums of per-unit flops), several
// chunks per thread, scheduled dynamically: one heavy power-law row cannot serialise a thread,
// and every unit writes only its own rows, so results do not depend on the thread count.
//
// Reordering (SpgemmOptions::reorder): the product runs on permuted copies, C = R^T (A_w B_w) Q with
// A_w = R A K^T and B_w = K B Q^T. R puts A's rows in the ordering's order (computed on A). When A
// is square, the inner dimension follows the same order (K = R), so that consecutive working rows
// fetch rows of B_w that are neighbours in memory; when B is square too, so do B's columns, C's
// (Q = R), so that a working row's output columns fall in a narrow window of the accumulator.
// (A row order alone does not pay: the rows of B and the accumulator stay scattered, and C's rows
// are written in a scattered order on top.) Working row u is C's row order[u]: the symbolic phase
// relabels its columns to C's, sorts them and copies the rows into C's order; the numeric phase
// fills a copy of C's pattern in working order (rows order[u], columns in B_w's numbering) and
// copies its rows into C. Every numeric phase refreshes A_w's (and B_w's) values by a gather
// along the copies' source maps. The ordering, and the clusters formed on A_w, can be handed to
// the next product with the same A (LeftAnalysis).
//
// Padding: cluster-wise numeric multiplies the explicit zeros of CSR_Cluster too (that is what
// lets the s-wide update vectorise). 0*b is an exact zero for finite b, so values are unchanged;
// if B holds Inf/NaN, 0*Inf would be NaN, so numeric then runs the row-wise body instead.
#include "pcluster/spgemm.hpp"

#include "accumulator.hpp"
#include "memory.hpp"
#include "parallel.hpp"
#include "pcluster/cluster_matrix.hpp"

#include <omp.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>

namespace pcluster {

const char *to_string(Accumulator a)
{
  switch (a) {
  case Accumulator::Auto: return "auto";
  case Accumulator::Hash: return "hash";
  case Accumulator::Dense: return "dense";
  }
  return "?";
}

const char *to_string(Kernel k) { return k == Kernel::Rowwise ? "rowwise" : "cluster"; }

namespace {
using namespace detail;

// Chunks per thread: enough for dynamic scheduling to absorb cost misprediction (cache effects,
// rows whose flops are far above their output size), few enough that the per-chunk buffers and
// scheduling overhead stay negligible.
constexpr int kChunksPerThread = 8;
// Auto scheme: a block size above 1 means rows of a node share their pattern (fixed clusters of
// whole nodes); otherwise variable-length clusters. The cluster kernel saves one column-map
// lookup per B entry for every extra row of a cluster but multiplies padding zeros too; measured
// on 3D stencils (s27: pairs with 33% padding ran 1.4x slower than row-wise, e27 node clusters
// with none 1.2x faster), it pays only when clusters are real and nearly padding-free. Otherwise
// the row-wise kernel runs instead.
constexpr double kMinMeanClusterSize = 1.5;
constexpr double kMaxAutoPaddingRatio = 0.10; // explicit zeros / nnz(A)
// Auto first tries its rule on a leading sample of A's rows with max(kAutoSampleNnz, nnz / 32)
// entries: clustering costs O(nnz) of Jaccard merges, so the sample is measured in entries.
constexpr Count kAutoSampleNnz = Count(1) << 16;
constexpr Count kAutoSampleFraction = 32;

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
};

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
      return {row_ids.data() + u, 1, A->colidx + A->rowptr[u], A->row_length(u), nullptr, a_values ? a_values + A->rowptr[u] : nullptr};
    const Clustering<I> &cl = M->clusters;
    return {cl.rows.data() + cl.ptr[u], cl.size(u), M->cols.data() + M->col_ptr[u], M->col_ptr[u + 1] - M->col_ptr[u],
            M->masks.data() + M->col_ptr[u], M->values.data() + M->val_ptr[u]};
  }
};

// Per-thread workspace: both maps (allocated on first use) and scratch arrays (bounds: the head
// of src/accumulator.hpp).
template <class I, class V>
struct Workspace {
  DenseColumnMap<I> dense;
  HashColumnMap<I> hash;
  std::vector<I> slot_col;
  std::vector<RowMask> slot_mask;
  std::vector<std::pair<I, I>> sorted;
  std::vector<I> entry_slot;
  std::vector<V> acc;
  // Row-wise numeric with the dense accumulator: column -> position in C's row. Only C's columns are
  // looked up, just after being written, so it is never initialised (memory.hpp).
  std::unique_ptr<I[]> dense_position;
  std::size_t dense_positions = 0;

  // Bytes allocated: capacities, which only grow, so at the end of a phase this is the thread's peak.
  Count bytes() const
  {
    return static_cast<Count>(dense.bytes() + hash.bytes() + slot_col.capacity() * sizeof(I) + slot_mask.capacity() * sizeof(RowMask) +
                              sorted.capacity() * sizeof(std::pair<I, I>) + entry_slot.capacity() * sizeof(I) + acc.capacity() * sizeof(V) +
                              dense_positions * sizeof(I));
  }
};

// ---- symbolic -------------------------------------------------------------------------------

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

// A chunk's rows' columns, row after row. Allocated for the chunk's flops (an upper bound on its
// output) but never initialised: pages the chunk does not write are never touched.
template <class I, class V>
struct ChunkOutput {
  std::unique_ptr<I[]> cols;
  std::unique_ptr<V[]> vals; // fused symbolic+numeric only
  Count size = 0;
};

// acc[slot*s + l] += A(row l, k) * B(k, j) for every stored B(k, j) of the cluster's columns k.
// W > 0 fixes s == W at compile time; W == 0 reads s from the unit.
template <int W, class I, class V, class Map>
void accumulate_cluster(const Unit<I, V> &u, const CsrView<I, V> &B, const V *b_values, const Map &map, V *acc)
{
  const I s = W > 0 ? I(W) : u.s;
  const I *const __restrict bptr = B.rowptr;
  const I *const __restrict bcol = B.colidx;
  for (I t = 0; t < u.n; ++t) {
    const I k = u.cols[t];
    const V *const __restrict a = u.values + static_cast<std::size_t>(t) * s;
    for (I q = bptr[k]; q < bptr[k + 1]; ++q) {
      const V b = b_values[q];
      V *const __restrict dst = acc + static_cast<std::size_t>(map.find(bcol[q])) * s;
      for (I l = 0; l < s; ++l) dst[l] += a[l] * b;
    }
  }
}

// The same for any s: common cluster sizes get a compile-time width, so the s-wide update vectorises.
template <class I, class V, class Map>
void accumulate_cluster_any(const Unit<I, V> &u, const CsrView<I, V> &B, const V *b_values, const Map &map, V *acc)
{
  switch (u.s) {
  case 2: accumulate_cluster<2>(u, B, b_values, map, acc); break;
  case 3: accumulate_cluster<3>(u, B, b_values, map, acc); break;
  case 4: accumulate_cluster<4>(u, B, b_values, map, acc); break;
  case 6: accumulate_cluster<6>(u, B, b_values, map, acc); break;
  case 8: accumulate_cluster<8>(u, B, b_values, map, acc); break;
  default: accumulate_cluster<0>(u, B, b_values, map, acc);
  }
}

// With WithValues, the symbolic phase also forms the product's values (fused symbolic+numeric):
// a one-shot product then needs no separate numeric pass (see SpgemmPlan::symbolic).
// out_cols (nullptr: none) relabels B's columns to C's before they are sorted (see "Reordering").
template <bool RowWise, bool WithValues, class I, class V, class Map>
void symbolic_unit(const Unit<I, V> &u, Count work, const CsrView<I, V> &B, const V *b_values, const I *out_cols, Map &map,
                   Workspace<I, V> &ws, ChunkOutput<I, V> &out, I *row_count, Count *row_start)
{
  constexpr bool kDense = std::is_same_v<Map, DenseColumnMap<I>>;
  const I *const __restrict bptr = B.rowptr;
  const I *const __restrict bcol = B.colidx;
  map.reset(work);
  if (RowWise) { // columns go straight to the chunk's buffer, then are sorted in place
    I *const begin = out.cols.get() + out.size;
    I *end = begin;
    I lo = B.ncols, hi = -1; // window of the row's columns, for sorting by scan
    if (!WithValues) {
      for (I t = 0; t < u.n; ++t) {
        const I k = u.cols[t];
        for (I q = bptr[k]; q < bptr[k + 1]; ++q)
          if (map.mark(bcol[q])) {
            *end++ = bcol[q];
            lo = std::min(lo, bcol[q]);
            hi = std::max(hi, bcol[q]);
          }
      }
    } else {
      if (static_cast<Count>(ws.acc.size()) < work) ws.acc.resize(work);
      V *const __restrict acc = ws.acc.data();
      for (I t = 0; t < u.n; ++t) {
        const I k = u.cols[t];
        const V a = u.values[t];
        for (I q = bptr[k]; q < bptr[k + 1]; ++q) {
          bool inserted;
          const I slot = map.insert(bcol[q], inserted);
          if (inserted) {
            *end++ = bcol[q];
            if constexpr (kDense) map.mark(bcol[q]); // for take_sorted()
            lo = std::min(lo, bcol[q]);
            hi = std::max(hi, bcol[q]);
            acc[slot] = V(0) + a * b_values[q]; // from +0 as in numeric(): a lone -0 product gives +0 in both
          } else acc[slot] += a * b_values[q];
        }
      }
    }
    V *const vals = WithValues ? out.vals.get() + out.size : nullptr;
    if (out_cols && !WithValues) { // relabel to C's columns, then sort
      if constexpr (kDense) map.unmark(begin, end);
      for (I *c = begin; c < end; ++c) *c = out_cols[*c];
      sort_small(begin, end, std::less<I>());
    } else if (out_cols) { // the same, with the slots, for the values
      if constexpr (kDense) map.unmark(begin, end);
      ws.sorted.clear();
      for (I *c = begin; c < end; ++c) ws.sorted.emplace_back(out_cols[*c], map.find(*c));
      sort_small(ws.sorted.data(), ws.sorted.data() + ws.sorted.size(), [](const auto &a, const auto &b) { return a.first < b.first; });
      for (std::size_t z = 0; z < ws.sorted.size(); ++z) {
        begin[z] = ws.sorted[z].first;
        vals[z] = ws.acc[ws.sorted[z].second];
      }
    } else {
      if constexpr (kDense) {
        if (begin == end) {
        } else if (prefer_scan(end - begin, Count(hi) - lo + 1)) map.take_sorted(lo, hi, begin);
        else {
          sort_small(begin, end, std::less<I>());
          map.unmark(begin, end);
        }
      } else sort_small(begin, end, std::less<I>());
      if (WithValues)
        for (I *c = begin; c < end; ++c) vals[c - begin] = ws.acc[map.find(*c)];
    }
    row_count[u.rows[0]] = static_cast<I>(end - begin);
    row_start[u.rows[0]] = out.size;
    out.size += end - begin;
    return;
  }
  // Pattern first (slots, and which rows reach each column), then the values by the numeric
  // phase's accumulation loop: two tight loops run faster than one that branches on every
  // product between a first store and an add, with a run-time cluster width.
  const I s = u.s;
  ws.slot_col.clear();
  ws.slot_mask.clear();
  I lo = B.ncols, hi = -1; // window of the cluster's columns, for ordering by scan
  for (I t = 0; t < u.n; ++t) {
    const I k = u.cols[t];
    const RowMask m = u.masks[t];
    for (I q = bptr[k]; q < bptr[k + 1]; ++q) {
      bool inserted;
      const I slot = map.insert(bcol[q], inserted);
      if (inserted) {
        ws.slot_col.push_back(bcol[q]);
        ws.slot_mask.push_back(m);
        if constexpr (kDense) {
          map.mark(bcol[q]);
          lo = std::min(lo, bcol[q]);
          hi = std::max(hi, bcol[q]);
        }
      } else ws.slot_mask[slot] |= m;
    }
  }
  const std::size_t nslots = ws.slot_col.size();
  if (WithValues) {
    ws.acc.assign(nslots * static_cast<std::size_t>(s), V(0));
    accumulate_cluster_any(u, B, b_values, map, ws.acc.data());
  }
  const V *const __restrict acc = ws.acc.data();
  ws.sorted.resize(nslots); // (column, slot), sorted by column
  bool ordered = false;
  if constexpr (kDense) { // as in the row-wise body: scan the window's bitmap, or sort and unmark
    if (!out_cols && nslots > 0 && prefer_scan(static_cast<Count>(nslots), Count(hi) - lo + 1)) {
      ws.entry_slot.resize(nslots);
      map.take_sorted(lo, hi, ws.entry_slot.data());
      for (std::size_t z = 0; z < nslots; ++z) ws.sorted[z] = {ws.entry_slot[z], map.find(ws.entry_slot[z])};
      ordered = true;
    } else map.unmark(ws.slot_col.data(), ws.slot_col.data() + nslots);
  }
  if (!ordered) {
    for (std::size_t z = 0; z < nslots; ++z) ws.sorted[z] = {out_cols ? out_cols[ws.slot_col[z]] : ws.slot_col[z], static_cast<I>(z)};
    sort_small(ws.sorted.data(), ws.sorted.data() + nslots, [](const auto &a, const auto &b) { return a.first < b.first; });
  }
  I *const cols = out.cols.get();
  for (I l = 0; l < s; ++l) {
    const RowMask bit = RowMask(1) << l;
    const Count start = out.size;
    for (const auto &e : ws.sorted)
      if (ws.slot_mask[e.second] & bit) {
        if (WithValues) out.vals[out.size] = acc[static_cast<std::size_t>(e.second) * s + l];
        cols[out.size++] = e.first;
      }
    row_start[u.rows[l]] = start;
    row_count[u.rows[l]] = static_cast<I>(out.size - start);
  }
}

// ---- numeric --------------------------------------------------------------------------------

// add(j, A(i,k) * B(k,j)) for every stored A(i,k) of a one-row unit and every stored B(k,j).
template <class I, class V, class Add>
inline void for_each_product(const Unit<I, V> &u, const CsrView<I, V> &B, const V *b_values, Add &&add)
{
  const I *const __restrict bptr = B.rowptr;
  const I *const __restrict bcol = B.colidx;
  const V *const __restrict bval = b_values;
  for (I t = 0; t < u.n; ++t) {
    const I k = u.cols[t];
    const V a = u.values[t];
    for (I q = bptr[k]; q < bptr[k + 1]; ++q) add(bcol[q], a * bval[q]);
  }
}

template <bool RowWise, class I, class V, class Map>
void numeric_unit(const Unit<I, V> &u, Count expected, const CsrView<I, V> &B, const V *b_values, const CsrView<I, V> &C,
                  V *c_values, Map &map, Workspace<I, V> &ws)
{
  if constexpr (RowWise && std::is_same_v<Map, DenseColumnMap<I>>) {
    // Dense row-wise: an ncols-wide array maps each column of C's row to its position in the row,
    // and products add straight into C's values. The position array is half the bytes of a value
    // array, so a row's column window stays in L1 where a dense value array spilled to L2
    // (measured 1.4x on a 27-point elasticity A*A), and it needs no reset: only C's columns are
    // ever looked up, and they were just written.
    (void)map, (void)expected;
    if (ws.dense_positions < static_cast<std::size_t>(C.ncols)) {
      ws.dense_positions = static_cast<std::size_t>(C.ncols);
      ws.dense_position = make_uninitialized_array<I>(ws.dense_positions);
    }
    I *const __restrict pos = ws.dense_position.get();
    const I i = u.rows[0], base = C.rowptr[i];
    for (I p = base; p < C.rowptr[i + 1]; ++p) {
      pos[C.colidx[p]] = p - base;
      c_values[p] = V(0);
    }
    V *const __restrict c = c_values + base;
    for_each_product(u, B, b_values, [c, pos](I j, V ab) { c[pos[j]] += ab; });
  } else if constexpr (RowWise) { // hash: the slot of a column is its position in C's row
    map.reset(expected);
    const I i = u.rows[0], base = C.rowptr[i];
    for (I p = base; p < C.rowptr[i + 1]; ++p) {
      map.put(C.colidx[p], p - base); // the slot is the position in the row
      c_values[p] = V(0);
    }
    V *const __restrict c = c_values + base;
    for_each_product(u, B, b_values, [c, &map](I j, V ab) { c[map.find(j)] += ab; });
  } else { // cluster: s partial sums per slot
    map.reset(expected);
    const I s = u.s;
    bool inserted;
    ws.entry_slot.clear();
    for (I l = 0; l < s; ++l)
      for (I p = C.rowptr[u.rows[l]]; p < C.rowptr[u.rows[l] + 1]; ++p) ws.entry_slot.push_back(map.insert(C.colidx[p], inserted));
    ws.acc.assign(static_cast<std::size_t>(map.size()) * s, V(0));
    V *acc = ws.acc.data();
    accumulate_cluster_any(u, B, b_values, map, acc);
    std::size_t e = 0;
    for (I l = 0; l < s; ++l)
      for (I p = C.rowptr[u.rows[l]]; p < C.rowptr[u.rows[l] + 1]; ++p) c_values[p] = acc[static_cast<std::size_t>(ws.entry_slot[e++]) * s + l];
  }
}

// Unit boundaries of `parts` chunks with about equal total cost (cost prefix sums, binary search).
template <class I>
std::vector<I> balanced_chunks(const std::vector<Count> &cost_prefix, int parts)
{
  const I n = static_cast<I>(cost_prefix.size()) - 1;
  parts = std::max(1, static_cast<int>(std::min<Count>(parts, std::max<I>(n, 1))));
  std::vector<I> bounds(parts + 1, n);
  bounds[0] = 0;
  const Count total = cost_prefix.back();
  for (int c = 1; c < parts; ++c) {
    const Count target = total / parts * c + (total % parts) * c / parts;
    bounds[c] = static_cast<I>(std::lower_bound(cost_prefix.begin(), cost_prefix.end(), target) - cost_prefix.begin());
    bounds[c] = std::clamp(bounds[c], bounds[c - 1], n);
  }
  return bounds;
}

template <class I, class V>
bool all_finite(const V *v, Count n)
{
  bool ok = true;
#pragma omp parallel for reduction(&& : ok) schedule(static) num_threads(threads_for(n))
  for (Count p = 0; p < n; ++p) ok = ok && std::isfinite(v[p]);
  return ok;
}

} // namespace

template <class I>
bool LeftAnalysis<I>::fits(I a_nrows, I a_ncols, Count a_nnz, const SpgemmOptions &o) const
{
  const SpgemmOptions &m = options;
  const ClusteringOptions &mc = m.clustering, &oc = o.clustering;
  const OrderingOptions &mo = m.ordering, &oo = o.ordering;
  const bool same_clusters = m.kernel == o.kernel && (o.kernel == Kernel::Rowwise ||
                              (m.scheme == o.scheme && m.row_block_size == o.row_block_size && mc.cluster_size == oc.cluster_size &&
                               mc.jaccard_threshold == oc.jaccard_threshold && mc.hierarchical_topk == oc.hierarchical_topk));
  const bool same_order = m.reorder == o.reorder && (o.reorder == OrderingType::Natural ||
                           (m.row_block_size == o.row_block_size && mo.seed == oo.seed && mo.parts == oo.parts && mo.hub_fraction == oo.hub_fraction &&
                            mo.gray_bits == oo.gray_bits && mo.gray_dense_fraction == oo.gray_dense_fraction));
  return nrows == a_nrows && ncols == a_ncols && nnz == a_nnz && same_clusters && same_order;
}

template <class I, class V>
struct SpgemmPlan<I, V>::Impl {
  std::shared_ptr<const LeftAnalysis<I>> left;
  Kernel kernel = Kernel::Rowwise;
  std::optional<ClusterMatrix<I, V>> clustered; // of the working A
  std::vector<I> chunks; // unit boundaries, balanced by flops
  int threads = 1;
  Count a_nnz = 0, b_nnz = 0;
  std::vector<V> ones_a, ones_b; // pattern operands (values == nullptr) count as ones

  // SpgemmOptions::reorder (see "Reordering"): with left->order empty, A and B are used as they are.
  // A_w's pattern is the analysis' (shared by every product with this A); its values, B_w and C_w
  // are this plan's.
  bool permute_inner = false;  // A square: A_w = R A R^T, B_w's rows follow R
  bool permute_output = false; // and B square: B_w = R B R^T, C's columns follow R
  bool b_is_a = false;         // B's pattern is A's (A*A): B_w is A_w
  std::vector<V> a_w_values;
  CsrMatrix<I, V> b_w; // pattern unused when b_is_a
  std::vector<I> b_source;
  CsrMatrix<I, V> c_w; // C's rows in working order, columns numbered as B_w's (in C's order within a row)

  const std::vector<I> &order() const { return left->order; }
  const std::vector<I> &inverse() const { return left->inverse; }

  const V *values_or_ones(const CsrView<I, V> &M, std::vector<V> &ones)
  {
    if (M.values) return M.values;
    ones.assign(M.nnz(), V(1));
    return ones.data();
  }

  // A_w's pattern into the analysis being made (its order set).
  static void make_working_a(const CsrView<I, V> &A, LeftAnalysis<I> &made)
  {
    made.inverse = inverse_permutation(made.order);
    const bool inner = A.nrows == A.ncols;
    CsrMatrix<I, V> Aw = permute(CsrView<I, V>{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr}, made.order.data(), inner ? made.inverse.data() : nullptr,
                                 &made.a_w_source);
    made.a_w_rowptr = std::move(Aw.rowptr);
    made.a_w_colidx = std::move(Aw.colidx);
  }
  // B_w for this product (after left is set).
  void make_working_b(const CsrView<I, V> &A, const CsrView<I, V> &B)
  {
    permute_inner = A.nrows == A.ncols;
    permute_output = permute_inner && B.nrows == B.ncols;
    b_is_a = permute_output && A.rowptr == B.rowptr && A.colidx == B.colidx;
    if (permute_inner && !b_is_a)
      b_w = permute(CsrView<I, V>{B.nrows, B.ncols, B.rowptr, B.colidx, nullptr}, order().data(), permute_output ? inverse().data() : nullptr, &b_source);
  }
  // The working operands with A's and B's current values (gathered along the source maps).
  static void gather(const V *from, const std::vector<I> &source, std::vector<V> &to)
  {
    to.resize(source.size());
    const Count n = static_cast<Count>(source.size());
#pragma omp parallel for schedule(static) num_threads(threads_for(n))
    for (Count q = 0; q < n; ++q) to[q] = from[source[q]];
  }
  CsrView<I, V> working_a(const CsrView<I, V> &A)
  {
    if (order().empty()) return A;
    if (A.values) gather(A.values, left->a_w_source, a_w_values);
    return CsrView<I, V>{A.nrows, A.ncols, left->a_w_rowptr.data(), left->a_w_colidx.data(), A.values ? a_w_values.data() : nullptr};
  }
  CsrView<I, V> working_b(const CsrView<I, V> &A, const CsrView<I, V> &B) // after working_a(A)
  {
    if (!permute_inner) return B;
    if (b_is_a) {
      const V *values = nullptr;
      if (B.values == A.values) values = A.values ? a_w_values.data() : nullptr;
      else if (B.values) {
        gather(B.values, left->a_w_source, b_w.values);
        values = b_w.values.data();
      }
      return CsrView<I, V>{B.nrows, B.ncols, left->a_w_rowptr.data(), left->a_w_colidx.data(), values};
    }
    if (B.values) gather(B.values, b_source, b_w.values);
    return CsrView<I, V>{b_w.nrows, b_w.ncols, b_w.rowptr.data(), b_w.colidx.data(), B.values ? b_w.values.data() : nullptr};
  }
  // After symbolic: C's pattern with rows in working order and columns in B_w's numbering, which
  // the numeric phase fills in sequence; its values are then copied row by row into C. (Writing each
  // working row straight into its scattered place in C took 2.5x the product itself on a shuffled
  // 7-point A*A: every row waited for its cache lines, prefetch or not; the copy reads rows from
  // scattered places instead, which the memory system overlaps.)
  void make_working_output(I ncols, const std::vector<I> &c_rowptr, const std::vector<I> &c_colidx)
  {
    const std::vector<I> &order = this->order(), &inverse = this->inverse();
    if (order.empty()) return;
    const I n = static_cast<I>(order.size());
    c_w.nrows = n;
    c_w.ncols = ncols;
    c_w.rowptr.resize(static_cast<std::size_t>(n) + 1);
    c_w.rowptr[0] = 0;
    for (I u = 0; u < n; ++u) c_w.rowptr[u + 1] = c_w.rowptr[u] + (c_rowptr[order[u] + 1] - c_rowptr[order[u]]);
    c_w.colidx.resize(c_colidx.size());
    c_w.values.resize(c_colidx.size());
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads_for(static_cast<Count>(c_colidx.size())))
    for (I u = 0; u < n; ++u) {
      const I *src = c_colidx.data() + c_rowptr[order[u]];
      I *dst = c_w.colidx.data() + c_w.rowptr[u];
      for (I t = 0; t < c_w.rowptr[u + 1] - c_w.rowptr[u]; ++t) dst[t] = permute_output ? inverse[src[t]] : src[t];
    }
  }
  void copy_working_values(const CsrView<I, V> &C, V *c_values) const
  {
    const std::vector<I> &inverse = this->inverse();
#pragma omp parallel for schedule(static) num_threads(threads_for(C.nnz()))
    for (I i = 0; i < C.nrows; ++i)
      std::copy(c_w.values.data() + c_w.rowptr[inverse[i]], c_w.values.data() + c_w.rowptr[inverse[i] + 1], c_values + C.rowptr[i]);
  }
};

template <class I, class V>
SpgemmPlan<I, V>::SpgemmPlan() : impl_(std::make_unique<Impl>()) {}
template <class I, class V>
SpgemmPlan<I, V>::SpgemmPlan(SpgemmPlan &&) noexcept = default;
template <class I, class V>
SpgemmPlan<I, V> &SpgemmPlan<I, V>::operator=(SpgemmPlan &&) noexcept = default;
template <class I, class V>
SpgemmPlan<I, V>::~SpgemmPlan() = default;

template <class I, class V>
const Clustering<I> *SpgemmPlan<I, V>::clustering() const
{
  return impl_ && impl_->clustered ? &impl_->clustered->clusters : nullptr;
}

template <class I, class V>
std::shared_ptr<const LeftAnalysis<I>> SpgemmPlan<I, V>::left_analysis() const
{
  return impl_ ? impl_->left : nullptr;
}

template <class I, class V>
SpgemmPlan<I, V> SpgemmPlan<I, V>::symbolic(const CsrView<I, V> &A, const CsrView<I, V> &B, const SpgemmOptions &opts,
                                            std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values,
                                            std::shared_ptr<const LeftAnalysis<I>> left)
{
  const auto t0 = std::chrono::steady_clock::now();
  bool fused = c_values != nullptr;
  if (A.ncols != B.nrows)
    throw std::invalid_argument("C = A*B: dimension mismatch, A is " + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) +
                                " but B is " + std::to_string(B.nrows) + " x " + std::to_string(B.ncols));
  if (opts.check_operands) {
    validate(A, "A");
    validate(B, "B");
  }
  if (opts.kernel == Kernel::Cluster) validate(opts.clustering);
  if (left && !left->fits(A.nrows, A.ncols, A.nnz(), opts))
    throw std::invalid_argument("C = A*B: the LeftAnalysis given was made for another A (" + std::to_string(left->nrows) + " x " +
                                std::to_string(left->ncols) + ", nnz " + std::to_string(left->nnz) + ") or other options");

  SpgemmPlan plan;
  plan.opts_ = opts;
  Impl &im = *plan.impl_;
  SpgemmStats &st = plan.stats_;
  const ScopedMaxThreads team(opts.num_threads);
  im.threads = opts.num_threads;
  im.b_nnz = B.nnz();
  int nt = threads_for(A.nnz());

  // The ordering of SpgemmOptions::reorder, computed once here, and the working copies of A and B
  // it implies (see "Reordering"); everything below works on them.
  // With `left`, both come from it; otherwise they are made here, into the plan's new analysis.
  std::shared_ptr<LeftAnalysis<I>> made;
  if (!left) {
    made = std::make_shared<LeftAnalysis<I>>();
    made->nrows = A.nrows;
    made->ncols = A.ncols;
    made->nnz = A.nnz();
    made->options = opts;
  }
  st.left_reused = left != nullptr;
  im.left = left ? std::move(left) : made;
  if (opts.reorder != OrderingType::Natural) {
    const auto to = std::chrono::steady_clock::now();
    if (made) {
      // Rows of a node (row_block_size dofs) are ordered together: splitting them would break the
      // node clusters of the cluster kernel (measured: shuffled elasticity with rcm fell back to
      // row-wise, 0.83 s against 0.48 s unordered).
      const int bs = opts.row_block_size > 1 && A.nrows % opts.row_block_size == 0 ? opts.row_block_size : 1;
      made->order = compute_ordering(opts.reorder, A, opts.ordering, bs);
      Impl::make_working_a(A, *made);
    }
    im.make_working_b(A, B);
    st.seconds_ordering = seconds_since(to);
    if (made) made->seconds_ordering = st.seconds_ordering;
  }
  im.a_nnz = A.nnz();
  // Values are gathered into the working copies only when this phase uses them (fused values, the
  // clusters' values); otherwise the numeric phase gathers them, once.
  auto pattern_of = [](const CsrView<I, V> &M) { return CsrView<I, V>{M.nrows, M.ncols, M.rowptr, M.colidx, nullptr}; };
  const CsrView<I, V> Aw = im.working_a(fused || opts.kernel == Kernel::Cluster ? A : pattern_of(A));
  const CsrView<I, V> Bw = im.working_b(Aw.values ? A : pattern_of(A), fused ? B : pattern_of(B));
  const I *const out_cols = im.permute_output ? im.order().data() : nullptr; // B_w's columns -> C's

  // Per-row flops (64-bit) and their total.
  std::vector<Count> row_flops(Aw.nrows);
#pragma omp parallel for schedule(static) num_threads(nt)
  for (I i = 0; i < Aw.nrows; ++i) {
    Count f = 0;
    for (I p = Aw.rowptr[i]; p < Aw.rowptr[i + 1]; ++p) f += Bw.row_length(Aw.colidx[p]);
    row_flops[i] = f;
  }
  st.flops = std::accumulate(row_flops.begin(), row_flops.end(), Count(0));
  nt = threads_for(st.flops + A.nnz());

  // Clustering (cluster kernel only); Auto picks the scheme, or falls back to row-wise.
  im.kernel = opts.kernel;
  if (!made) { // the clusters of the analysis given, on the same working A
    const auto tc = std::chrono::steady_clock::now();
    im.kernel = im.left->kernel;
    st.scheme = im.left->scheme;
    if (im.left->kernel == Kernel::Cluster) im.clustered = ClusterMatrix<I, V>::build(Aw, im.left->clusters);
    st.seconds_clustering = seconds_since(tc);
  } else if (opts.kernel == Kernel::Cluster) {
    const auto tc = std::chrono::steady_clock::now();
    ClusterScheme scheme = opts.scheme;
    ClusteringOptions copts = opts.clustering;
    if (scheme == ClusterScheme::Auto) {
      if (opts.row_block_size > 1 && opts.row_block_size <= kMaxClusterSize) {
        scheme = ClusterScheme::Fixed;
        copts.cluster_size = opts.row_block_size;
      } else scheme = ClusterScheme::Variable;
    }
    st.scheme = scheme;
    // Auto's fallback test: do the clusters average >= kMinMeanClusterSize rows, with padding
    // <= kMaxAutoPaddingRatio of nnz? Asked first of a leading sample of A's rows, so that a
    // matrix that will run row-wise anyway (a 7-point stencil, say) does not pay for clustering
    // all of it and building its CSR_Cluster.
    auto clusters_pay = [&](const CsrView<I, V> &M, const Clustering<I> &cl, const ClusterMatrix<I, V> *built) {
      const double mean = cl.num_clusters() ? double(M.nrows) / cl.num_clusters() : 0.0;
      if (mean < kMinMeanClusterSize) return false;
      const Count padding = built ? built->padding() : ClusterMatrix<I, V>::build(M, cl).padding();
      return static_cast<double>(padding) <= kMaxAutoPaddingRatio * static_cast<double>(M.nnz());
    };
    const bool is_auto = opts.scheme == ClusterScheme::Auto;
    // The sample: the leading rows holding max(kAutoSampleNnz, nnz(A) / kAutoSampleFraction) entries.
    const Count sample_nnz = std::max<Count>(kAutoSampleNnz, A.nnz() / kAutoSampleFraction);
    const I sample_rows = static_cast<I>(std::lower_bound(Aw.rowptr, Aw.rowptr + Aw.nrows, sample_nnz) - Aw.rowptr);
    bool pays = true;
    if (is_auto && sample_rows < Aw.nrows) {
      const CsrView<I, V> head{sample_rows, Aw.ncols, Aw.rowptr, Aw.colidx, Aw.values}; // rows [0, sample_rows)
      pays = clusters_pay(head, make_clustering(head, scheme, copts), nullptr);
    }
    if (pays) {
      im.clustered = ClusterMatrix<I, V>::build(Aw, make_clustering(Aw, scheme, copts));
      if (is_auto && !clusters_pay(Aw, im.clustered->clusters, &*im.clustered)) im.clustered.reset();
    }
    if (!im.clustered) im.kernel = Kernel::Rowwise;
    st.seconds_clustering = seconds_since(tc);
    made->kernel = im.kernel;
    made->scheme = scheme;
    if (im.clustered) made->clusters = im.clustered->clusters;
    made->seconds_clustering = st.seconds_clustering;
  }
  st.kernel = im.kernel;

  UnitSource<I, V> units;
  units.A = &Aw;
  units.M = im.clustered ? &*im.clustered : nullptr;
  const V *b_values = fused ? im.values_or_ones(Bw, im.ones_b) : nullptr;
  // Cluster padding times Inf/NaN in B would be NaN (see "Padding"): compute values in numeric().
  const bool values_by_numeric = fused && units.M && !all_finite<I, V>(b_values, B.nnz());
  if (values_by_numeric) fused = false;
  if (!units.M) units.use_rows(fused ? im.values_or_ones(Aw, im.ones_a) : nullptr);
  const I nunits = units.count();

  // Per-unit work: distinct-column bound (union flops, capped at ncols) and multiply count.
  std::vector<Count> unit_work, cost_prefix(static_cast<std::size_t>(nunits) + 1, 0);
  if (units.M) {
    std::vector<Count>().swap(row_flops); // not needed any more: one array of one Count per row less at the peak
    unit_work.resize(nunits);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (I c = 0; c < nunits; ++c) {
      const Unit<I, V> u = units(c);
      Count f = 0;
      for (I t = 0; t < u.n; ++t) f += Bw.row_length(u.cols[t]);
      unit_work[c] = f;
    }
    for (I c = 0; c < nunits; ++c) {
      cost_prefix[c + 1] = cost_prefix[c] + unit_work[c] * units(c).s + units(c).s;
      st.cluster_flops += unit_work[c] * units(c).s;
    }
    st.num_clusters = nunits;
    st.cluster_padding = units.M->padding();
  } else {
    unit_work = std::move(row_flops);
    for (I u = 0; u < nunits; ++u) cost_prefix[u + 1] = cost_prefix[u] + unit_work[u] + 1;
  }
  im.chunks = balanced_chunks<I>(cost_prefix, nt * kChunksPerThread);
  const int nchunks = static_cast<int>(im.chunks.size()) - 1;

  // Rows are counted and started by working row; C's row of working row r is c_row(r).
  auto c_row = [&im](I r) { return im.order().empty() ? r : im.order()[r]; };
  std::vector<I> row_count(A.nrows, 0);
  std::vector<Count> row_start(A.nrows, 0);
  std::vector<int> row_chunk(im.order().empty() ? 0 : A.nrows); // reordered: the chunk holding each working row
  std::vector<ChunkOutput<I, V>> out(nchunks);
  for (int ch = 0; ch < nchunks; ++ch) {
    Count bound = 0;
    for (I uidx = im.chunks[ch]; uidx < im.chunks[ch + 1]; ++uidx)
      bound += std::min<Count>(unit_work[uidx], B.ncols) * (units.M ? units(uidx).s : 1);
    out[ch].cols = make_uninitialized_array<I>(static_cast<std::size_t>(bound));
    if (fused) out[ch].vals = make_uninitialized_array<V>(static_cast<std::size_t>(bound));
  }
  Count dense_rows = 0;
  const Accumulator acc = opts.accumulator;
  st.dense_limited = acc == Accumulator::Dense && B.ncols > kDenseMaxColumns;
  Count ws_thread = 0, ws_total = 0; // workspace bytes: the largest thread's, and all threads'
#pragma omp parallel num_threads(nt) reduction(+ : dense_rows, ws_total) reduction(max : ws_thread)
  {
    Workspace<I, V> ws;
#pragma omp for schedule(dynamic, 1)
    for (int ch = 0; ch < nchunks; ++ch) {
      for (I uidx = im.chunks[ch]; uidx < im.chunks[ch + 1]; ++uidx) {
        const Unit<I, V> u = units(uidx);
        const Count work = std::min<Count>(unit_work[uidx], B.ncols);
        const bool dense = use_dense(acc, work, B.ncols, st.flops);
        auto run = [&](auto &map) {
          auto unit = [&](auto row_wise, auto with_values) {
            symbolic_unit<decltype(row_wise)::value, decltype(with_values)::value>(u, work, Bw, b_values, out_cols, map, ws, out[ch],
                                                                                   row_count.data(), row_start.data());
          };
          using Yes = std::true_type;
          using No = std::false_type;
          if (u.s > 1 && fused) unit(No{}, Yes{});
          else if (u.s > 1) unit(No{}, No{});
          else if (fused) unit(Yes{}, Yes{});
          else unit(Yes{}, No{});
        };
        if (dense) {
          // Row-wise pattern only, in C's own columns: the bitmap suffices.
          ws.dense.prepare_marks(B.ncols);
          if (u.s > 1 || fused) ws.dense.prepare_slots(B.ncols);
          dense_rows += u.s;
          run(ws.dense);
        } else run(ws.hash);
        if (!row_chunk.empty())
          for (I l = 0; l < u.s; ++l) row_chunk[u.rows[l]] = ch;
      }
    }
    ws_thread = ws.bytes();
    ws_total = ws_thread;
  }
  st.rows_dense = dense_rows;
  st.workspace_thread_bytes = ws_thread;
  st.workspace_bytes = ws_total;

  // Row pointer: 64-bit prefix sum in C's row order, checked before C's column array is allocated.
  Count nnz = 0;
  for (I i = 0; i < A.nrows; ++i) nnz += row_count[i];
  checked_index<I>(nnz, "nnz(C)");
  c_rowptr.resize(static_cast<std::size_t>(A.nrows) + 1);
  c_rowptr[0] = 0;
  for (I i = 0; i < A.nrows; ++i) c_rowptr[i + 1] = c_rowptr[i] + row_count[im.order().empty() ? i : im.inverse()[i]];
  c_colidx.resize(static_cast<std::size_t>(nnz));
  if (fused) c_values->resize(static_cast<std::size_t>(nnz));
  auto copy_row = [&](I r, const ChunkOutput<I, V> &from) { // working row r into C's row c_row(r)
    std::copy_n(from.cols.get() + row_start[r], row_count[r], c_colidx.begin() + c_rowptr[c_row(r)]);
    if (fused) std::copy_n(from.vals.get() + row_start[r], row_count[r], c_values->begin() + c_rowptr[c_row(r)]);
  };
  if (im.order().empty()) { // chunk after chunk, each freed once copied
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt)
    for (int ch = 0; ch < nchunks; ++ch) {
      for (I uidx = im.chunks[ch]; uidx < im.chunks[ch + 1]; ++uidx) {
        const Unit<I, V> u = units(uidx);
        for (I l = 0; l < u.s; ++l) copy_row(u.rows[l], out[ch]);
      }
      out[ch].cols.reset();
      out[ch].vals.reset();
    }
  } else { // in C's row order, gathering rows from the chunks (see make_working_output)
#pragma omp parallel for schedule(static) num_threads(nt)
    for (I i = 0; i < A.nrows; ++i) copy_row(im.inverse()[i], out[row_chunk[im.inverse()[i]]]);
  }
  out.clear();
  if (opts.include_diagonal) nnz += insert_missing_diagonal(B.ncols, c_rowptr, c_colidx, fused ? c_values : static_cast<std::vector<V> *>(nullptr));
  st.nnz_c = nnz;
  im.make_working_output(B.ncols, c_rowptr, c_colidx);
  if (values_by_numeric) {
    c_values->resize(nnz);
    plan.numeric(A, B, CsrView<I, V>{A.nrows, B.ncols, c_rowptr.data(), c_colidx.data(), nullptr}, c_values->data());
  }
  st.seconds_symbolic = seconds_since(t0);
  return plan;
}

template <class I, class V>
void SpgemmPlan<I, V>::numeric(const CsrView<I, V> &A, const CsrView<I, V> &B, const CsrView<I, V> &C, V *c_values)
{
  Impl &im = *impl_;
  if (!im.left) throw std::invalid_argument("C = A*B numeric: the plan has no symbolic phase");
  if (A.ncols != B.nrows || C.nrows != A.nrows || C.ncols != B.ncols || A.nnz() != im.a_nnz || B.nnz() != im.b_nnz ||
      (!im.order().empty() && C.nnz() != im.c_w.nnz()))
    throw std::invalid_argument("C = A*B numeric: operands do not match the symbolic phase");
  const ScopedMaxThreads team(im.threads);
  const int nt = threads_for(stats_.flops + A.nnz());
  const CsrView<I, V> Aw = im.working_a(A), Bw = im.working_b(A, B);
  const V *b_values = im.values_or_ones(Bw, im.ones_b);
  // The working C: C itself, or its rows in working order (see make_working_output).
  const bool reordered = !im.order().empty();
  const CsrView<I, V> Cw = reordered ? im.c_w.view() : C;
  V *const cw_values = reordered ? im.c_w.values.data() : c_values;

  UnitSource<I, V> units;
  units.A = &Aw;
  bool clustered = im.clustered.has_value();
  if (clustered && !all_finite<I, V>(b_values, B.nnz())) clustered = false; // see "Padding" above
  if (clustered) {
    if (static_cast<Count>(im.clustered->scatter.size()) != A.nnz())
      throw std::invalid_argument("C = A*B numeric: A's pattern changed since the symbolic phase");
    im.clustered->refresh_values(Aw);
    units.M = &*im.clustered;
  } else units.use_rows(im.values_or_ones(Aw, im.ones_a));
  // Chunks were balanced for the symbolic kernel's units; a row-wise fallback re-balances by rows.
  std::vector<I> chunks = im.chunks;
  if (!clustered && im.clustered) {
    std::vector<Count> prefix(static_cast<std::size_t>(A.nrows) + 1, 0);
    for (I u = 0; u < A.nrows; ++u) prefix[u + 1] = prefix[u] + Cw.row_length(u) + 1;
    chunks = balanced_chunks<I>(prefix, nt * kChunksPerThread);
  }
  const int nchunks = static_cast<int>(chunks.size()) - 1;
  const Accumulator acc = opts_.accumulator;
  Count ws_thread = 0, ws_total = 0;
#pragma omp parallel num_threads(nt) reduction(+ : ws_total) reduction(max : ws_thread)
  {
    Workspace<I, V> ws;
#pragma omp for schedule(dynamic, 1)
    for (int ch = 0; ch < nchunks; ++ch) {
      for (I uidx = chunks[ch]; uidx < chunks[ch + 1]; ++uidx) {
        const Unit<I, V> u = units(uidx);
        Count expected = 0;
        for (I l = 0; l < u.s; ++l) expected += Cw.row_length(u.rows[l]);
        expected = std::min<Count>(expected, C.ncols);
        const bool dense = use_dense(acc, expected, C.ncols, stats_.flops);
        auto run = [&](auto &map) {
          if (u.s > 1) numeric_unit<false>(u, expected, Bw, b_values, Cw, cw_values, map, ws);
          else numeric_unit<true>(u, expected, Bw, b_values, Cw, cw_values, map, ws);
        };
        if (dense) {
          if (u.s > 1) ws.dense.prepare_slots(C.ncols); // row-wise dense uses ws.dense_position instead
          run(ws.dense);
        } else run(ws.hash);
      }
    }
    ws_thread = ws.bytes();
    ws_total = ws_thread;
  }
  stats_.workspace_thread_bytes = std::max(stats_.workspace_thread_bytes, ws_thread);
  stats_.workspace_bytes = std::max(stats_.workspace_bytes, ws_total);
  if (reordered) im.copy_working_values(C, c_values);
}

template <class I, class V>
CsrMatrix<I, V> multiply(const CsrView<I, V> &A, const CsrView<I, V> &B, const SpgemmOptions &opts)
{
  CsrMatrix<I, V> C;
  C.nrows = A.nrows;
  C.ncols = B.ncols;
  SpgemmPlan<I, V>::symbolic(A, B, opts, C.rowptr, C.colidx, &C.values);
  return C;
}

template struct LeftAnalysis<std::int32_t>;
template struct LeftAnalysis<std::int64_t>;

#define PCLUSTER_INSTANTIATE_SPGEMM(I, V) \
  template class SpgemmPlan<I, V>; \
  template CsrMatrix<I, V> multiply<I, V>(const CsrView<I, V> &, const CsrView<I, V> &, const SpgemmOptions &);
PCLUSTER_INSTANTIATE_SPGEMM(std::int32_t, double)
PCLUSTER_INSTANTIATE_SPGEMM(std::int64_t, double)
PCLUSTER_INSTANTIATE_SPGEMM(std::int32_t, float)
PCLUSTER_INSTANTIATE_SPGEMM(std::int64_t, float)

} // namespace pcluster
