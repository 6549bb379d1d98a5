// C = A*B, row-wise (Gustavson 1978) and cluster-wise (Islam, Xu, Dai & Buluc, arXiv:2507.21253):
// the plan that runs the two phases. One kernel body serves both kernels (src/spgemm_kernel.hpp):
// A's rows are processed in *units*, a row each row-wise, a cluster of rows stored in CSR_Cluster
// cluster-wise (whose union columns each carry s values, one per row of the cluster, and a mask of
// the rows that really hold the entry).
//
// The symbolic phase, in its steps (SpgemmPlan::symbolic):
//  1. A's analysis: the ordering of SpgemmOptions::reorder with the working copies it implies
//     (src/spgemm_reordering.hpp), then the clusters (src/cluster_choice.cpp: the scheme, or Auto's
//     choice), both made here or taken from a LeftAnalysis;
//  2. the flop pass: per-row flops, and bounds of nnz(C);
//  3. the units split into chunks of equal flops (prefix sums of per-unit flops), several chunks
//     per thread, scheduled dynamically: one heavy power-law row cannot serialise a thread, and
//     every unit writes only its own rows, so results do not depend on the thread count;
//  4. the kernel over every chunk, each chunk appending its rows' columns to its own buffer;
//  5. the row assembly: rowptr is a prefix sum of row counts, and the buffers are copied into
//     place: a chunk's buffer whole where its rows follow each other in C (row-wise, consecutive
//     clusters), else row by row in parallel (in C's row order when reordered).
// On matrices of a few entries per row (a road network: 3.4 per row of C) this bookkeeping costs
// as much as the kernel, mostly in first-touch page faults of per-row arrays: so each row costs one
// Count (its flops, summed in place into the chunks' cost prefix) and its count in C's rowptr, and
// a row's start in its chunk's buffer is kept only where rows are copied one by one.
// nnz(C) is known to fit the index type before any buffer of step 4 is allocated (bounds from the
// row flops, or an exact count when they cannot tell): an overflowing product fails with
// IndexOverflow at the cost of O(nnz(A)), not after filling gigabytes.
//
// The numeric phase reruns step 4 on C's known pattern, with the chunks kept; rows whose pattern
// step 4 copied from the row before take their products' positions in C from it
// (src/spgemm_kernel.hpp, FollowList).
//
// Padding: cluster-wise numeric multiplies the explicit zeros of CSR_Cluster too (that is what
// lets the s-wide update vectorise). 0*b is an exact zero for finite b, so values are unchanged;
// if B holds Inf/NaN, 0*Inf would be NaN, so numeric then runs the row-wise body instead.
#include "pcluster/spgemm.hpp"

#include "cluster_choice.hpp"
#include "spgemm_kernel.hpp"
#include "spgemm_reordering.hpp"

#include <omp.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <string>
#include <type_traits>

namespace pcluster {

void validate(const SpgemmOptions &o)
{
  if (o.num_threads < 0 || o.num_threads > kMaxThreads)
    throw InvalidOption("num_threads", option_text(o.num_threads), "in [0, " + std::to_string(kMaxThreads) + "] (0 means the OpenMP default)");
  if (o.kernel == Kernel::Cluster) validate(o.clustering);
}

int threads_for_work(Count work, int requested)
{
  if (work < detail::kMinParallelWork) return 1;
  return requested > 0 ? requested : omp_get_max_threads();
}

SpgemmOptions analysis_options(const SpgemmOptions &o)
{
  const SpgemmOptions defaults;
  SpgemmOptions key = o;
  // Never part of the analysis: how the product is accumulated, on how many threads, its diagonal,
  // the operand checks, the triple products' form and the order of C's columns (orderings and
  // clusterings do not depend on the thread count).
  key.accumulator = defaults.accumulator;
  key.num_threads = defaults.num_threads;
  key.include_diagonal = defaults.include_diagonal;
  key.check_operands = defaults.check_operands;
  key.triple = defaults.triple;
  key.sorted_result = defaults.sorted_result;
  if (o.kernel == Kernel::Rowwise) { // no clusters
    key.scheme = defaults.scheme;
    key.clustering = defaults.clustering;
  }
  if (o.reorder == OrderingType::Natural) key.ordering = defaults.ordering; // no ordering
  if (o.kernel == Kernel::Rowwise && o.reorder == OrderingType::Natural) key.row_block_size = defaults.row_block_size;
  return key;
}

template <class I>
bool LeftAnalysis<I>::fits(I a_nrows, I a_ncols, Count a_nnz, const SpgemmOptions &o) const
{
  return nrows == a_nrows && ncols == a_ncols && nnz == a_nnz && analysis_options(options) == analysis_options(o);
}

namespace {
using namespace detail;

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

template <class I, class V>
CsrView<I, V> pattern_only(const CsrView<I, V> &M)
{
  return CsrView<I, V>{M.nrows, M.ncols, M.rowptr, M.colidx, nullptr};
}

} // namespace

template <class I, class V>
struct SpgemmPlan<I, V>::Impl {
  std::shared_ptr<const LeftAnalysis<I>> left;
  Kernel kernel = Kernel::Rowwise;
  std::optional<ClusterMatrix<I, V>> clustered; // of the working A
  std::vector<I> chunks;                        // unit boundaries, balanced by flops
  int threads = 1;
  Count a_nnz = 0, b_nnz = 0;
  std::vector<V> ones_a, ones_b; // pattern operands (values == nullptr) count as ones
  WorkingCopies<I, V> work;      // SpgemmOptions::reorder
  std::vector<std::uint8_t> b_repeats; // the working B's repeated rows (repeated_rows), empty if none
  std::vector<std::uint8_t> c_follows; // row-wise numeric: C's rows following the row before (FollowList), empty if none

  const std::uint8_t *repeats() const { return b_repeats.empty() ? nullptr : b_repeats.data(); }

  const V *values_or_ones(const CsrView<I, V> &M, std::vector<V> &ones)
  {
    if (M.values) return M.values;
    ones.assign(M.nnz(), V(1));
    return ones.data();
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

namespace {

// Step 2, the flop pass: per-row flops (64-bit; row i's at [i + 1], [0] = 0, so that step 3 sums
// them in place) and a lower bound of nnz(C) (a row of C holds at least the longest row of B its row
// of A reaches), which already rules out a C too large for I.
template <class I, class V>
std::vector<Count> row_flops_of(const CsrView<I, V> &Aw, const CsrView<I, V> &Bw, int nt, Count *flops)
{
  std::vector<Count> row_flops(static_cast<std::size_t>(Aw.nrows) + 1);
  row_flops[0] = 0;
  Count nnz_lower = 0;
#pragma omp parallel for schedule(static) num_threads(nt) reduction(+ : nnz_lower)
  for (I i = 0; i < Aw.nrows; ++i) {
    Count f = 0;
    I longest = 0;
    for (I p = Aw.rowptr[i]; p < Aw.rowptr[i + 1]; ++p) {
      f += Bw.row_length(Aw.colidx[p]);
      longest = std::max(longest, Bw.row_length(Aw.colidx[p]));
    }
    row_flops[static_cast<std::size_t>(i) + 1] = f;
    nnz_lower += longest;
  }
  *flops = std::accumulate(row_flops.begin(), row_flops.end(), Count(0));
  if (nnz_lower > static_cast<Count>(std::numeric_limits<I>::max()))
    throw IndexOverflow("nnz(C) >= " + std::to_string(nnz_lower) + " does not fit the index type (max " +
                        std::to_string(static_cast<Count>(std::numeric_limits<I>::max())) + ")");
  return row_flops;
}

// Steps 3 to 5 of the symbolic phase: the units' chunks, the kernel over them, and C's rows put
// together from the chunks' buffers.
template <class I, class V>
class SymbolicPass {
 public:
  SymbolicPass(const UnitSource<I, V> &units, const CsrView<I, V> &Bw, const V *b_values, const std::uint8_t *b_repeats,
               const std::uint8_t *b_shifted, const WorkingCopies<I, V> &work, Accumulator acc, Count flops, int nt)
    : units_(units), Bw_(Bw), b_values_(b_values), b_repeats_(b_repeats), b_shifted_(b_shifted), work_(work), acc_(acc), flops_(flops), nt_(nt)
  {
  }

  // Rows of C the kernel copies from the row before (row-wise, pattern only, unreordered products
  // only): repeats of it where A's row repeats the row before (a_repeats, nullable: repeated_rows
  // of A), and shifts of it where b_shifted is given. Their marks go to the numeric phase
  // (take_follows).
  void copy_rows_from_before(const std::uint8_t *a_repeats)
  {
    copies_    = true;
    a_repeats_ = a_repeats;
    follows_.assign(static_cast<std::size_t>(units_.A->nrows), 0);
  }
  // The copied rows' marks (see FollowList), or none where fewer than kMinRepeatedShare of the rows
  // were copied: too few to be worth their byte per row.
  std::vector<std::uint8_t> take_follows(const SpgemmStats &st)
  {
    if (static_cast<double>(st.shifted_rows + st.same_rows) < kMinRepeatedShare * static_cast<double>(units_.A->nrows)) follows_ = {};
    return std::move(follows_);
  }

  // Step 3: per-unit cost (work + 1 per row: the distinct-column bound, union flops, plus the row's
  // own overhead) summed into cost_prefix_, chunks of equal cost, and each chunk's output bound
  // (min(work, ncols) per row); the row counts go to C's rowptr (to row_count_ when reordered), and
  // rows' starts in their chunk's buffer are kept only where rows are copied one by one.
  void make_chunks(std::vector<Count> row_flops, std::vector<I> &c_rowptr, SpgemmStats &st)
  {
    const I nunits = units_.count();
    if (units_.M) {
      std::vector<Count>().swap(row_flops); // not needed any more: one Count per row less at the peak
      cost_prefix_.resize(static_cast<std::size_t>(nunits) + 1);
      cost_prefix_[0] = 0;
#pragma omp parallel for schedule(static) num_threads(nt_)
      for (I c = 0; c < nunits; ++c) {
        const Unit<I, V> u = units_(c);
        Count f = 0;
        for (I t = 0; t < u.n; ++t) f += Bw_.row_length(u.cols[t]);
        cost_prefix_[static_cast<std::size_t>(c) + 1] = (f + 1) * u.s;
      }
      for (I c = 0; c < nunits; ++c) {
        st.cluster_flops += cost_prefix_[c + 1] - units_(c).s;
        cost_prefix_[c + 1] += cost_prefix_[c];
      }
      st.num_clusters = nunits;
      st.cluster_padding = units_.M->padding();
    } else {
      cost_prefix_ = std::move(row_flops); // row i's flops at [i + 1]: summed in place
      for (I u = 0; u < nunits; ++u) cost_prefix_[u + 1] += cost_prefix_[u] + 1;
    }
    chunks_ = balanced_chunks<I>(cost_prefix_, nt_ * kChunksPerThread);
    const int nchunks = static_cast<int>(chunks_.size()) - 1;
    chunk_bound_.assign(nchunks, 0);
    for (int ch = 0; ch < nchunks; ++ch)
      for (I uidx = chunks_[ch]; uidx < chunks_[ch + 1]; ++uidx) {
        const Count b = std::min<Count>(unit_work(uidx), Bw_.ncols) * (units_.M ? units_(uidx).s : 1);
        chunk_bound_[ch] += b;
        unit_bound_max_ = std::max(unit_bound_max_, b);
      }
    const I nrows = units_.A->nrows;
    c_rowptr.resize(static_cast<std::size_t>(nrows) + 1);
    if (work_.active()) {
      row_count_.resize(nrows);
      row_chunk_.resize(nrows);
    }
    row_count_of_ = work_.active() ? row_count_.data() : c_rowptr.data() + 1;
    rows_follow_ = !work_.active() && (!units_.M || rows_in_order(units_.M->clusters));
    if (!rows_follow_) row_start_.resize(nrows);
  }

  // Step 4 and nnz(C): with fused, the values too. nnz(C) must fit I, and be known to fit before
  // the chunks' buffers (sized by the upper bound) and C's arrays are allocated. The bounds decide at
  // O(nnz(A)) in nearly every product; only when the lower bound fits and the upper one does not is
  // nnz(C) counted exactly first, by the kernel keeping no columns (a second pass, in that case only).
  Count run(bool fused, SpgemmStats &st)
  {
    if (std::accumulate(chunk_bound_.begin(), chunk_bound_.end(), Count(0)) > static_cast<Count>(std::numeric_limits<I>::max())) {
      kernel(false, true, st);
      checked_index<I>(count_nnz(), "nnz(C)");
    }
    const int nchunks = static_cast<int>(chunks_.size()) - 1;
    out_.resize(nchunks);
    // One arena for every chunk's columns, with room for values of the same count: once C's columns
    // are copied out and it is freed, C's values (nnz(C) V, allocated next by the caller) fit in the
    // hole and take over the pages the chunks touched. With an arena of indices only (or a buffer
    // per chunk) those pages stayed resident beside C's new values: peak 1.36x PETSc's default's
    // on a Delaunay graph (A*A, 65k rows), the chunks' touched memory the excess. Untouched room
    // costs address space only, but one request above physical memory can be refused where the same
    // bytes in pieces are not (overcommit heuristics): beyond half of it the room goes, and beyond
    // that each chunk gets its own buffer (the bound of a power-law product can far exceed nnz(C)).
    const std::size_t total = static_cast<std::size_t>(std::accumulate(chunk_bound_.begin(), chunk_bound_.end(), Count(0)));
    const std::size_t with_room = total * std::max(sizeof(I), sizeof(V)), half_memory = physical_memory_bytes() / 2;
    // The bounds can be many times the output (PCGAMG's A*P0 on elasticity: 20x), so chunks placed
    // at their bounds' offsets touch pages spread over the arena, most of which the values do not
    // cover. So on one thread, which takes the chunks in order, each starts where the one before
    // ended (kernel); on several, each thread writes a chunk in a buffer of its own and copies it to
    // the arena's next free place (gathered_: a copy of C's columns, cheaper than the faults of
    // fresh pages). Either way the written pages are C's columns' count, all under the values' hole.
    // Values staged with the columns (fused) have a buffer per chunk, and on several threads the
    // chunks stay at their bounds' offsets: the pages beyond the hole are handed back (assemble).
    const bool one_arena = total * sizeof(I) <= half_memory;
    arenas_.clear();
    if (one_arena) arenas_.push_back(make_raw_storage(with_room <= half_memory ? with_room : total * sizeof(I)));
    packed_ = one_arena && nt_ == 1;
    gathered_ = one_arena && nt_ > 1 && !fused;
    values_room_ = one_arena && with_room <= half_memory;
    gathered_end_ = 0;
    Count offset = 0;
    for (int ch = 0; ch < nchunks; ++ch) {
      if (packed_ || gathered_) out_[ch].cols = nullptr; // placed by the kernel
      else if (one_arena) out_[ch].cols = static_cast<I *>(arenas_[0].get()) + offset;
      else {
        arenas_.push_back(make_raw_storage(static_cast<std::size_t>(chunk_bound_[ch]) * sizeof(I)));
        out_[ch].cols = static_cast<I *>(arenas_.back().get());
      }
      offset += chunk_bound_[ch];
      if (fused) out_[ch].vals = make_uninitialized_array<V>(static_cast<std::size_t>(chunk_bound_[ch]));
    }
    kernel(fused, false, st);
    const Count nnz = count_nnz();
    checked_index<I>(nnz, "nnz(C)");
    return nnz;
  }

  // Step 5: C's rowptr (a 64-bit prefix sum in C's row order) and its rows copied from the chunks'
  // buffers; the arena freed once all are copied (fused values: each chunk's freed once copied).
  // Where a chunk's rows follow each other, its buffer is appended whole: C's arrays are then never
  // zero-filled before being written.
  void assemble(Count nnz, std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values)
  {
    const I nrows = units_.A->nrows;
    const std::vector<I> &order = work_.order(), &inverse = work_.inverse();
    c_rowptr[0] = 0;
    if (work_.active())
      for (I i = 0; i < nrows; ++i) c_rowptr[i + 1] = c_rowptr[i] + row_count_[inverse[i]];
    else
      for (I i = 0; i < nrows; ++i) c_rowptr[i + 1] += c_rowptr[i];
    const int nchunks = static_cast<int>(chunks_.size()) - 1;
    c_colidx.clear();
    if (c_values) c_values->clear();
    if (rows_follow_) {
      c_colidx.reserve(static_cast<std::size_t>(nnz));
      if (c_values) c_values->reserve(static_cast<std::size_t>(nnz));
      for (int ch = 0; ch < nchunks; ++ch) {
        c_colidx.insert(c_colidx.end(), out_[ch].cols, out_[ch].cols + out_[ch].size);
        if (c_values) c_values->insert(c_values->end(), out_[ch].vals.get(), out_[ch].vals.get() + out_[ch].size);
        free_values(out_[ch]);
      }
    } else {
      c_colidx.resize(static_cast<std::size_t>(nnz));
      if (c_values) c_values->resize(static_cast<std::size_t>(nnz));
      auto copy_row = [&](I r, const ChunkOutput<I, V> &from) { // working row r into C's row
        const I c_row = work_.active() ? order[r] : r;
        const I count = c_rowptr[c_row + 1] - c_rowptr[c_row];
        std::copy_n(from.cols + row_start_[r], count, c_colidx.begin() + c_rowptr[c_row]);
        if (c_values) std::copy_n(from.vals.get() + row_start_[r], count, c_values->begin() + c_rowptr[c_row]);
      };
      if (!work_.active()) { // chunk after chunk
#pragma omp parallel for schedule(dynamic, 1) num_threads(nt_)
        for (int ch = 0; ch < nchunks; ++ch) {
          for (I uidx = chunks_[ch]; uidx < chunks_[ch + 1]; ++uidx) {
            const Unit<I, V> u = units_(uidx);
            for (I l = 0; l < u.s; ++l) copy_row(u.rows[l], out_[ch]);
          }
          free_values(out_[ch]);
        }
      } else { // in C's row order, gathering rows from the chunks (see src/spgemm_reordering.hpp)
#pragma omp parallel for schedule(static) num_threads(nt_)
        for (I i = 0; i < nrows; ++i) copy_row(inverse[i], out_[row_chunk_[inverse[i]]]);
      }
    }
    release_written_pages(nnz);
    out_.clear();
    arenas_.clear();
  }

  std::vector<I> take_chunks() { return std::move(chunks_); }

 private:
  // A chunk's values (fused), their written pages handed back first (see release_pages).
  static void free_values(ChunkOutput<I, V> &o)
  {
    if (o.vals) release_pages(o.vals.get(), o.vals.get() + o.size);
    o.vals.reset();
  }

  // The pages the chunks wrote, handed back before their buffers are freed, but those under the
  // arena's first nnz(C) values: the hole C's values are allocated in next (run).
  void release_written_pages(Count nnz)
  {
    const char *const keep_end = values_room_ ? static_cast<const char *>(arenas_[0].get()) + static_cast<std::size_t>(nnz) * sizeof(V) : nullptr;
    for (ChunkOutput<I, V> &o : out_) {
      free_values(o);
      if (!o.cols || o.size == 0) continue;
      const char *b = reinterpret_cast<const char *>(o.cols), *const e = reinterpret_cast<const char *>(o.cols + o.size);
      if (keep_end && b < keep_end) b = keep_end;
      release_pages(b, e);
    }
  }

  // The kernel over every unit. count_only: only row_count is wanted, each unit's columns go to a
  // per-thread scratch buffer (unit_bound_max_ long) that the next unit overwrites.
  void kernel(bool fused, bool count_only, SpgemmStats &st)
  {
    RegionErrors errors;
    Count dense_rows = 0, shifted = 0, same = 0, pass_thread = 0, pass_total = 0;
    const int nchunks = static_cast<int>(chunks_.size()) - 1;
    const bool with_values = fused && !count_only;
    const I *const out_cols = work_.out_cols();
    // Row-wise units all take the map of `uniform`, when there is one (see uniform_accumulator).
    const std::optional<Accumulator> uniform = units_.M ? std::nullopt : uniform_accumulator<I>(acc_, Bw_.ncols, flops_);
    const bool gather = gathered_ && !count_only;
    const Count own_bound = gather ? *std::max_element(chunk_bound_.begin(), chunk_bound_.end()) : 0; // the largest chunk
#pragma omp parallel num_threads(nt_) reduction(+ : dense_rows, shifted, same, pass_total) reduction(max : pass_thread)
    {
      Workspace<I, V> ws;
      ChunkOutput<I, V> scratch;
      std::unique_ptr<I[]> scratch_cols;
      if (count_only)
        errors.guard([&] {
          scratch_cols = make_uninitialized_array<I>(static_cast<std::size_t>(unit_bound_max_));
          scratch.cols = scratch_cols.get();
        });
      std::unique_ptr<I[]> own; // gathered_: this thread's chunk, before it is copied to the arena
      Count own_used = 0;
      if (gather) errors.guard([&] { own = make_uninitialized_array<I>(static_cast<std::size_t>(own_bound)); });
#pragma omp for schedule(dynamic, 1)
      for (int ch = 0; ch < nchunks; ++ch)
        errors.guard([&] {
          ChunkOutput<I, V> &dst = count_only ? scratch : out_[ch];
          if (packed_ && !count_only) dst.cols = ch == 0 ? static_cast<I *>(arenas_[0].get()) : out_[ch - 1].cols + out_[ch - 1].size;
          if (gather) dst.cols = own.get();
          // Row i of C repeating or shifting row i-1, which this thread has just put at the end of its
          // buffer (only for row-wise, pattern-only, unreordered products: copies_ is false otherwise;
          // a count-only pass keeps no rows). Rows no longer than the merge takes are merged: cheaper
          // than checked and copied (see look_for_shifts in symbolic()).
          auto copy_from_row_before = [&](I i) {
            if (!copies_ || count_only || i == chunks_[ch] || units_.A->row_length(i) <= kMergeMaxRows) return false;
            I shift;
            if (a_repeats_ && a_repeats_[i]) shift = 0;
            else if (b_shifted_ && product_row_shifts_before(*units_.A, i, b_shifted_)) shift = 1;
            else return false;
            const I count = row_count_of_[i - 1];
            const I *const __restrict before = dst.cols + dst.size - count;
            I *const __restrict row = dst.cols + dst.size;
            for (I t = 0; t < count; ++t) row[t] = before[t] + shift;
            row_count_of_[i] = count;
            if (!rows_follow_) row_start_[i] = dst.size;
            dst.size += count;
            if (!row_chunk_.empty()) row_chunk_[i] = ch;
            follows_[i] = 1;
            ++(shift ? shifted : same);
            return true;
          };
          auto run_unit = [&](auto &map, const Unit<I, V> &u, Count work) {
            auto unit = [&](auto row_wise, auto values) {
              symbolic_unit<decltype(row_wise)::value, decltype(values)::value>(u, work, Bw_, b_values_, b_repeats_, out_cols, map, ws, dst, row_count_of_,
                                                                                rows_follow_ ? nullptr : row_start_.data());
            };
            using Yes = std::true_type;
            using No = std::false_type;
            if (u.s > 1 && with_values) unit(No{}, Yes{});
            else if (u.s > 1) unit(No{}, No{});
            else if (with_values) unit(Yes{}, Yes{});
            else unit(Yes{}, No{});
            if (count_only) scratch.size = 0;
            else if (!row_chunk_.empty())
              for (I l = 0; l < u.s; ++l) row_chunk_[u.rows[l]] = ch;
          };
          // Row-wise pattern only needs the marks; slots too with values or for a cluster.
          if (uniform) {
            if (*uniform == Accumulator::Dense && !count_only) dense_rows += chunks_[ch + 1] - chunks_[ch];
            with_column_map<I>(ws.maps, *uniform, Bw_.ncols, kMarks | (with_values ? kSlots : 0u), [&](auto &map) {
              for (I uidx = chunks_[ch]; uidx < chunks_[ch + 1]; ++uidx)
                if (!copy_from_row_before(uidx)) run_unit(map, units_(uidx), std::min<Count>(unit_work(uidx), Bw_.ncols));
            });
          } else {
            for (I uidx = chunks_[ch]; uidx < chunks_[ch + 1]; ++uidx) {
              if (copy_from_row_before(uidx)) continue;
              const Unit<I, V> u = units_(uidx);
              const Count work = std::min<Count>(unit_work(uidx), Bw_.ncols);
              const Accumulator kind = choose_accumulator<I>(acc_, work, Bw_.ncols, flops_);
              if (kind == Accumulator::Dense && !count_only) dense_rows += u.s;
              const unsigned uses = kMarks | (u.s > 1 || with_values ? kSlots : 0u);
              with_column_map<I>(ws.maps, kind, Bw_.ncols, uses, [&](auto &map) { run_unit(map, u, work); });
            }
          }
          if (gather) { // the chunk to the arena's next free place (row starts are relative to the chunk)
            I *const place = static_cast<I *>(arenas_[0].get()) + gathered_end_.fetch_add(dst.size, std::memory_order_relaxed);
            std::copy_n(own.get(), dst.size, place);
            dst.cols = place;
            own_used = std::max(own_used, dst.size);
          }
        });
      if (own) release_pages(own.get(), own.get() + own_used);
      pass_thread = ws.bytes();
      pass_total = pass_thread;
    }
    errors.rethrow();
    if (!count_only) {
      st.rows_dense = dense_rows;
      st.shifted_rows = shifted;
      st.same_rows = same;
    }
    st.workspace_thread_bytes = std::max(st.workspace_thread_bytes, pass_thread);
    st.workspace_bytes = std::max(st.workspace_bytes, pass_total);
  }

  Count count_nnz() const { return std::accumulate(row_count_of_, row_count_of_ + units_.A->nrows, Count(0)); }

  // A unit's work bound (its union flops), from its cost (see make_chunks).
  Count unit_work(I u) const
  {
    const Count cost = cost_prefix_[u + 1] - cost_prefix_[u];
    return units_.M ? cost / units_(u).s - 1 : cost - 1;
  }

  // Do the clusters hold consecutive rows in order (fixed and variable clusterings do)?
  static bool rows_in_order(const Clustering<I> &cl)
  {
    for (std::size_t k = 0; k < cl.rows.size(); ++k)
      if (cl.rows[k] != static_cast<I>(k)) return false;
    return true;
  }

  const UnitSource<I, V> &units_;
  const CsrView<I, V> &Bw_;
  const V *b_values_;
  const std::uint8_t *b_repeats_; // nullable: repeated_rows
  const std::uint8_t *b_shifted_; // nullable: shifted_rows; only for row-wise, pattern-only, unreordered products
  bool copies_ = false;           // copy_rows_from_before()
  const std::uint8_t *a_repeats_ = nullptr; // nullable: repeated_rows of A (copy_rows_from_before)
  std::vector<std::uint8_t> follows_; // rows copied from the row before
  const WorkingCopies<I, V> &work_;
  const Accumulator acc_;
  const Count flops_;
  const int nt_;
  std::vector<Count> cost_prefix_;   // per unit, summed (make_chunks)
  std::vector<I> chunks_;
  std::vector<Count> chunk_bound_;
  Count unit_bound_max_ = 0;
  I *row_count_of_ = nullptr;        // by working row: C's rowptr shifted by one, or row_count_
  bool rows_follow_ = false;         // each chunk's rows are consecutive rows of C, in order
  std::vector<I> row_count_;         // reordered: by working row
  std::vector<Count> row_start_;     // unless rows_follow_: by working row, in its chunk's buffer
  std::vector<int> row_chunk_;       // reordered: the chunk holding each working row
  std::vector<RawStorage> arenas_;   // the chunks' columns: one arena, or one per chunk (run)
  bool packed_ = false;              // one arena, one thread: each chunk's columns follow the chunk before's
  bool gathered_ = false;            // one arena, several threads, no values: chunks copied to the arena as done
  std::atomic<Count> gathered_end_{0}; // gathered_: the arena's next free place
  bool values_room_ = false;         // the one arena has room for C's values (run)
  std::vector<ChunkOutput<I, V>> out_;
};

} // namespace

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
    if (!B.same_pattern_as(A)) validate(B, "B"); // A*A: once
  }
  validate(opts);
  if (left && !left->fits(A.nrows, A.ncols, A.nnz(), opts))
    throw std::invalid_argument("C = A*B: the LeftAnalysis given was made for another A (" + std::to_string(left->nrows) + " x " +
                                std::to_string(left->ncols) + ", nnz " + std::to_string(left->nnz) + ") or other options");

  SpgemmPlan plan;
  plan.opts_ = opts;
  Impl &im = *plan.impl_;
  SpgemmStats &st = plan.stats_;
  const ScopedMaxThreads team(opts.num_threads);
  im.threads = opts.num_threads;
  im.a_nnz = A.nnz();
  im.b_nnz = B.nnz();

  // Step 1a: the ordering and the working copies of A and B it implies; everything below works on
  // them. With `left` they come from it; otherwise they are made here, into the plan's new analysis.
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
  im.work.use(im.left.get());
  if (opts.reorder != OrderingType::Natural) {
    const auto to = std::chrono::steady_clock::now();
    if (made) {
      // Rows of a node (row_block_size dofs) are ordered together: splitting them would break the
      // node clusters of the cluster kernel (measured: shuffled elasticity with rcm fell back to
      // row-wise, 0.83 s against 0.48 s unordered).
      const int bs = opts.row_block_size > 1 && A.nrows % opts.row_block_size == 0 ? opts.row_block_size : 1;
      made->order = compute_ordering(opts.reorder, A, opts.ordering, bs);
      WorkingCopies<I, V>::make_working_a(A, *made);
    }
    im.work.make_working_b(A, B);
    st.seconds_ordering = seconds_since(to);
    if (made) made->seconds_ordering = st.seconds_ordering;
  }
  // Values are gathered into the working copies only when this phase uses them (fused values, the
  // clusters' values); otherwise the numeric phase gathers them, once.
  const CsrView<I, V> Aw = im.work.working_a(fused || opts.kernel == Kernel::Cluster ? A : pattern_only(A));
  const CsrView<I, V> Bw = im.work.working_b(Aw.values ? A : pattern_only(A), fused ? B : pattern_only(B));

  // Step 2.
  std::vector<Count> row_flops = row_flops_of(Aw, Bw, threads_for(A.nnz()), &st.flops);
  const int nt = threads_for(st.flops + A.nnz());

  // Step 1b: the clusters (cluster kernel only); Auto picks the scheme, or falls back to row-wise.
  im.kernel = opts.kernel;
  if (!made) { // the clusters of the analysis given, on the same working A
    const auto tc = std::chrono::steady_clock::now();
    im.kernel = im.left->kernel;
    st.scheme = im.left->scheme;
    if (im.left->kernel == Kernel::Cluster) im.clustered = ClusterMatrix<I, V>::build(Aw, im.left->clusters);
    st.seconds_clustering = seconds_since(tc);
  } else if (opts.kernel == Kernel::Cluster) {
    const auto tc = std::chrono::steady_clock::now();
    SchemeChoice<I, V> choice = choose_scheme(Aw, opts, st.flops);
    st.scheme = choice.scheme;
    im.clustered = std::move(choice.clusters);
    if (!im.clustered) im.kernel = Kernel::Rowwise;
    st.seconds_clustering = seconds_since(tc);
    made->kernel = im.kernel;
    made->scheme = st.scheme;
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

  // Steps 3 to 5.
  st.dense_limited = opts.accumulator == Accumulator::Dense && !DenseColumnMap<I>::supports(B.ncols);
  im.b_repeats = run_rows(Bw, threads_for(B.nnz()));
  st.repeated_rows = std::count(im.b_repeats.begin(), im.b_repeats.end(), std::uint8_t(1));
  // Rows of C repeating or shifting the row before: only the pattern-only row-wise kernel copies
  // them, and only rows of A longer than the merge takes (kMergeMaxRows). Shifts need B's shifted
  // rows (shifted_rows), a pass over B, so they are looked for only where A's rows are longer than
  // that on average: a road network's rows of 2-3 entries, half of them shifting, merged faster than
  // they were checked and copied (luxembourg_osm, symbolic 3-5% slower with them copied).
  const bool copies = !fused && !units.M && !im.work.active();
  const bool look_for_shifts = copies && Aw.nnz() > kMergeMaxRows * static_cast<Count>(Aw.nrows);
  const std::vector<std::uint8_t> b_shifted = look_for_shifts ? shifted_rows(Bw, threads_for(B.nnz())) : std::vector<std::uint8_t>{};
  SymbolicPass<I, V> pass(units, Bw, b_values, im.repeats(), b_shifted.empty() ? nullptr : b_shifted.data(), im.work, opts.accumulator, st.flops, nt);
  // The marks (a byte per row) only where rows can be copied: B's rows shift, or A's rows repeat
  // (judged on a leading sample first, rows_like_before): a product of scattered rows allocates
  // nothing more than before. A*A: B's flags, where made, are A's.
  std::vector<std::uint8_t> a_repeats_made;
  const std::uint8_t *a_repeats = nullptr;
  if (copies && im.repeats() && Aw.same_pattern_as(Bw)) a_repeats = im.repeats();
  else if (copies && !(a_repeats_made = repeated_rows(Aw, threads_for(A.nnz()))).empty()) a_repeats = a_repeats_made.data();
  if (!b_shifted.empty() || a_repeats) pass.copy_rows_from_before(a_repeats);
  pass.make_chunks(std::move(row_flops), c_rowptr, st);
  Count nnz = pass.run(fused, st);
  pass.assemble(nnz, c_rowptr, c_colidx, fused ? c_values : nullptr);
  im.chunks = pass.take_chunks();
  // The numeric phase follows the copied rows (FollowList) only without runs of B's rows: a run's
  // products summed in registers, B's columns loaded once per run, were faster (block matrices:
  // elasticity reuse 1.6-2.3x PETSc's with runs, 1.0-1.15x through the recorded positions).
  if (copies) {
    std::vector<std::uint8_t> follows = pass.take_follows(st);
    if (im.b_repeats.empty()) im.c_follows = std::move(follows);
  }

  if (opts.include_diagonal) nnz += insert_missing_diagonal(B.ncols, c_rowptr, c_colidx, fused ? c_values : static_cast<std::vector<V> *>(nullptr));
  st.nnz_c = nnz;
  im.work.make_working_output(B.ncols, c_rowptr, c_colidx);
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
      (im.work.active() && C.nnz() != im.work.working_output_nnz()))
    throw std::invalid_argument("C = A*B numeric: operands do not match the symbolic phase");
  const ScopedMaxThreads team(im.threads);
  const int nt = threads_for(stats_.flops + A.nnz());
  const CsrView<I, V> Aw = im.work.working_a(A), Bw = im.work.working_b(A, B);
  const V *b_values = im.values_or_ones(Bw, im.ones_b);
  // The working C: C itself, or its rows in working order (src/spgemm_reordering.hpp).
  const bool reordered = im.work.active();
  const CsrView<I, V> Cw = reordered ? im.work.working_output() : C;
  V *const cw_values = reordered ? im.work.working_output_values() : c_values;

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
  const bool gather = numeric_gathers<V>(C.ncols);
  const std::optional<Accumulator> uniform = units.M ? std::nullopt : uniform_accumulator<I>(acc, C.ncols, stats_.flops);
  RegionErrors errors;
  Count ws_thread = 0, ws_total = 0, followed = 0;
#pragma omp parallel num_threads(nt) reduction(+ : ws_total, followed) reduction(max : ws_thread)
  {
    Workspace<I, V> ws;
#pragma omp for schedule(dynamic, 1)
    for (int ch = 0; ch < nchunks; ++ch)
      errors.guard([&] {
        auto run_unit = [&](auto &map, const Unit<I, V> &u, Count expected) {
          if (u.s > 1) numeric_unit<false>(u, expected, Bw, b_values, im.repeats(), Cw, cw_values, map, ws, gather);
          else numeric_unit<true>(u, expected, Bw, b_values, im.repeats(), Cw, cw_values, map, ws, gather);
        };
        const unsigned row_uses = gather ? 0u : kPositions;
        if (uniform) { // row-wise, one map for every row (see uniform_accumulator), following copied rows (FollowList)
          const std::uint8_t *const follows = clustered || im.c_follows.empty() ? nullptr : im.c_follows.data();
          with_column_map<I>(ws.maps, *uniform, C.ncols, follows ? kPositions : row_uses, [&](auto &map) {
            followed += numeric_rows(Aw, units.a_values, Bw, b_values, im.repeats(), Cw, cw_values, chunks[ch], chunks[ch + 1], map, ws, gather, follows);
          });
          return;
        }
        for (I uidx = chunks[ch]; uidx < chunks[ch + 1]; ++uidx) {
          const Unit<I, V> u = units(uidx);
          const Count expected = std::min<Count>(expected_entries(u, Cw), C.ncols);
          const Accumulator kind = choose_accumulator<I>(acc, expected, C.ncols, stats_.flops);
          with_column_map<I>(ws.maps, kind, C.ncols, u.s > 1 ? kSlots : row_uses, [&](auto &map) { run_unit(map, u, expected); });
        }
      });
    ws_thread = ws.bytes();
    ws_total = ws_thread;
  }
  errors.rethrow();
  stats_.workspace_thread_bytes = std::max(stats_.workspace_thread_bytes, ws_thread);
  stats_.workspace_bytes = std::max(stats_.workspace_bytes, ws_total);
  stats_.following_rows = followed;
  if (reordered) im.work.copy_working_values(C, c_values);
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
