// C = A*B: the symbolic/numeric plan shared by the row-wise and cluster-wise kernels.
//
//   std::vector<int> ci, cj;
//   auto plan = SpgemmPlan<int, double>::symbolic(A, B, options, ci, cj);   // pattern of C
//   (or symbolic(A, B, options, ci, cj, &cv): pattern and values in one pass)
//   std::vector<double> cv(cj.size());
//   plan.numeric(A, B, C_pattern_view, cv.data());                           // values of C
//   ... A's and B's values change, patterns do not ...
//   plan.numeric(A, B, C_pattern_view, cv.data());                           // cheap re-run
//
// C has exactly the pattern of the true product (no entry a row's own nonzeros cannot reach),
// column indices sorted in each row, rows in A's row order.
#pragma once

#include "pcluster/clustering.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/names.hpp"
#include "pcluster/ordering.hpp"

#include <memory>
#include <string>
#include <vector>

namespace pcluster {

// How a row (or cluster) gathers its partial products.
//  Hash:  open-addressing table sized from the row's work; stays in cache when ncols is huge.
//  Dense: ncols-wide arrays per thread; O(1) access when rows are dense relative to ncols.
//  Auto:  per row/cluster by the rule documented in src/accumulator.hpp.
// Workspace bounds per thread: src/accumulator.hpp.
enum class Accumulator { Auto, Hash, Dense };
inline constexpr Named<Accumulator> kAccumulatorNames[] = {{Accumulator::Auto, "auto"}, {Accumulator::Hash, "hash"}, {Accumulator::Dense, "dense"}};
inline const char *to_string(Accumulator a) { return name_of(kAccumulatorNames, a); }

// Above this many columns of C no thread allocates ncols-wide arrays: every row uses Hash, whatever
// was asked (SpgemmStats::dense_limited tells when Dense was). (sizeof(I) + 4 + 1/8) bytes a column
// per thread is 136 MiB with 32-bit indices at the limit, 4x what Auto's always-dense clause spends
// (2^22 columns); beyond it a forced Dense would turn a product of a few MB into GiBs per thread
// (2 GiB at 2^28 columns).
constexpr Count kDenseMaxColumns = Count(1) << 24;

// How ProductPlan computes the triple products PtAP and RARt (include/pcluster/product.hpp):
//  Fused:  C = Pt*(A*P) without storing A*P (src/triple_product.hpp): nothing but C kept between
//          the phases, P^T made a block of rows at a time in both (its pattern in the symbolic
//          phase, with values in the numeric one). Its numeric phase runs by rows of C, as
//          (Pt*A)*P, or by rows of A, forming a row of A*P and adding it to the rows of C it
//          reaches: Fused picks one per product (triple_product.cpp, numeric_by_rows_of_c);
//          FusedRowsOfC and FusedRowsOfA ask for one.
//  Stored: the chain A*P, P^T, Pt*(A*P) with A*P and P^T kept for reuse (its numeric phase is two
//          numeric SpGEMMs and a gather), the form the cluster kernel and reordering run in.
enum class TripleForm { Fused, FusedRowsOfC, FusedRowsOfA, Stored };
inline constexpr Named<TripleForm> kTripleFormNames[] = {
    {TripleForm::Fused, "fused"}, {TripleForm::FusedRowsOfC, "fused_rows_of_c"}, {TripleForm::FusedRowsOfA, "fused_rows_of_a"}, {TripleForm::Stored, "stored"}};
inline const char *to_string(TripleForm f) { return name_of(kTripleFormNames, f); }

enum class Kernel { Rowwise, Cluster };
inline constexpr Named<Kernel> kKernelNames[] = {{Kernel::Rowwise, "rowwise"}, {Kernel::Cluster, "cluster"}};
inline const char *to_string(Kernel k) { return name_of(kKernelNames, k); }

struct SpgemmOptions {
  Kernel kernel = Kernel::Rowwise;
  ClusterScheme scheme = ClusterScheme::Auto; // Kernel::Cluster only
  ClusteringOptions clustering;
  int row_block_size = 1; // block size of A's rows (dofs per node), a hint for ClusterScheme::Auto
  Accumulator accumulator = Accumulator::Auto;
  int num_threads = 0; // 0: omp_get_max_threads(); at most kMaxThreads
  // The product runs on copies of A and B permuted by this ordering of A's rows (computed by the
  // symbolic phase, kept for every numeric phase): A's rows, and when A is square its columns (the
  // inner dimension), and when B is square too B's columns; C still comes out in the caller's row and
  // column order (src/spgemm.cpp, "Reordering"). Clusters are formed on the permuted A: fixed and
  // variable clustering group neighbours in the new order; hierarchical clustering groups rows by
  // similarity whatever their order, so the ordering then only decides where its clusters sit.
  // Costs memory for the copies of A and B and a working copy of C (pattern and values), and a gather
  // of A's and B's values per numeric phase. With row_block_size > 1 (dividing A's rows) the rows of
  // a node stay together: the ordering is computed on the node graph.
  OrderingType reorder = OrderingType::Natural;
  OrderingOptions ordering;
  // C's pattern also holds every diagonal entry (i,i), i < min(nrows, ncols), zero where the product
  // has none (PETSc's MAT_FORCE_DIAGONAL_ENTRIES). numeric() fills any superset of the product's
  // pattern, so the extra entries cost nothing there.
  bool include_diagonal = false;
  // Validate A and B (sorted, in-range, unique columns: an O(nnz) pass each) before using them.
  // ProductPlan turns it off for the matrices it has checked already or built itself.
  bool check_operands = true;
  // ProductPlan's PtAP and RARt (ignored by SpgemmPlan). Fused runs with the row-wise kernel or the
  // cluster kernel's Auto scheme (its A*P rows row-wise) and no reordering; a named cluster scheme
  // and SpgemmOptions::reorder take the stored chain.
  TripleForm triple = TripleForm::Fused;
  // false: the rows of C keep their columns in the order the product first reaches them, not sorted:
  // ((P^T A)(i,:)'s columns as A's rows list them, then each of their rows of P as it lists its
  // columns), the order hypre's own triple product writes (plugins/petsc/hypre_rap.cxx, where
  // BoomerAMG's coarsening depends on it). The fused PtAP by rows of C only (TripleForm::FusedRowsOfC,
  // no include_diagonal); its operands need not have sorted rows then (with check_operands false).
  bool sorted_result = true;
};

// Every member compared: a member added without being listed here fails to compile.
inline bool operator==(const SpgemmOptions &x, const SpgemmOptions &y)
{
  const auto &[kernel, scheme, clustering, row_block_size, accumulator, num_threads, reorder, ordering, include_diagonal, check_operands,
               triple, sorted_result] = x;
  return kernel == y.kernel && scheme == y.scheme && clustering == y.clustering && row_block_size == y.row_block_size &&
         accumulator == y.accumulator && num_threads == y.num_threads && reorder == y.reorder && ordering == y.ordering &&
         include_diagonal == y.include_diagonal && check_operands == y.check_operands && triple == y.triple && sorted_result == y.sorted_result;
}
inline bool operator!=(const SpgemmOptions &x, const SpgemmOptions &y) { return !(x == y); }

// Upper bound of SpgemmOptions::num_threads: above the hardware threads of any shared-memory node,
// far below what thread creation survives (2^31-1 made libgomp abort while allocating the team).
constexpr int kMaxThreads = 1024;

// Throws InvalidOption naming the field when num_threads is outside [0, kMaxThreads] or, for the
// cluster kernel, the clustering options are out of range (validate(ClusteringOptions)). The
// ordering's options are checked where an ordering is computed (validate(OrderingOptions)).
void validate(const SpgemmOptions &);

// The threads a parallel loop over `work` units (nonzeros, flops) gets: 1 below the size where
// starting a team costs more than it saves, else `requested` (0: the OpenMP default). The core's
// own loops follow the same rule; callers with loops of their own (the PETSc plugin) use this.
int threads_for_work(Count work, int requested);

// What the symbolic phase measured, for -info, views and benchmarks.
struct SpgemmStats {
  Kernel kernel = Kernel::Rowwise;        // what ran (Auto resolved)
  ClusterScheme scheme = ClusterScheme::Auto;
  Count flops = 0;           // multiply-adds of the true product: sum over A(i,k) of nnz(B(k,:))
  Count cluster_flops = 0;   // multiply-adds the cluster kernel does (padding included)
  Count nnz_c = 0;
  Count num_clusters = 0;    // 0 for row-wise
  Count cluster_padding = 0; // explicit zeros stored in CSR_Cluster
  Count rows_dense = 0;      // rows (or clusters' rows) that used the dense accumulator
  Count repeated_rows = 0;   // rows of B found repeating the row before them (nodes of a block matrix), for runs (src/spgemm_kernel.hpp); 0: too few to pay
  Count shifted_rows = 0;    // rows of C whose pattern the symbolic phase copied from the row before, shifted by one column (a stencil numbered naturally; src/spgemm_kernel.hpp, shifts_row_before)
  Count same_rows = 0;       // rows of C whose pattern the symbolic phase copied from the row before as it is (row i of A holding row i-1's columns)
  Count following_rows = 0;  // rows of C the last numeric phase computed through the positions of the row before (src/spgemm_kernel.hpp, FollowList)
  bool dense_limited = false; // Accumulator::Dense was asked for, but C is too wide for dense arrays: Hash ran
  // Workspace of the kernels' threads (accumulators and per-unit scratch), in bytes allocated, as the
  // threads counted it: the largest one thread held, and the sum over a phase's threads; the largest
  // of the phases run so far (symbolic, and every numeric() since). Not included: C, the chunks'
  // output buffers of the symbolic phase (sized by flops, written only up to nnz(C)), the clusters,
  // the working copies of SpgemmOptions::reorder.
  Count workspace_thread_bytes = 0;
  Count workspace_bytes = 0;
  double seconds_ordering = 0;   // SpgemmOptions::reorder (working copies included; ordering reused: copies only)
  double seconds_clustering = 0; // (clusters reused: building CSR_Cluster only)
  bool left_reused = false;      // ordering and clusters were taken from a LeftAnalysis
  double seconds_symbolic = 0; // includes ordering and clustering
};

// The options that decide what symbolic() derives from A alone (LeftAnalysis): every member of o,
// but for those that cannot change the ordering or the clusters, which are reset to their defaults
// (so a member added to SpgemmOptions counts, until it is listed here as irrelevant).
SpgemmOptions analysis_options(const SpgemmOptions &o);

// What symbolic() derives from A alone: the ordering of SpgemmOptions::reorder and the clusters of
// the cluster kernel. Both depend only on A's pattern and the options, and they are the costly part
// of a symbolic phase that reorders or clusters; a product of the same A with another B (the next
// BFS frontier, a new prolongator) can take them from an earlier plan instead of recomputing them.
template <class I>
struct LeftAnalysis {
  I nrows = 0, ncols = 0; // the A it was made for (shape and nnz are checked; the pattern is the caller's promise)
  Count nnz = 0;
  SpgemmOptions options;  // those it was made with
  std::vector<I> order;   // SpgemmOptions::reorder's, new -> old; empty: natural
  // With an ordering: its inverse, and the pattern of A's working copy A_w (R A R^T for a square A,
  // else R A; src/spgemm.cpp, "Reordering") with the position in A of each of its entries.
  std::vector<I> inverse, a_w_rowptr, a_w_colidx, a_w_source;
  Kernel kernel = Kernel::Rowwise; // what the cluster kernel resolved to (Rowwise when Auto fell back)
  ClusterScheme scheme = ClusterScheme::Auto;
  Clustering<I> clusters; // Kernel::Cluster: of the rows of A in `order`
  double seconds_ordering = 0, seconds_clustering = 0; // what making it cost

  // True if it was made for an A of this shape and nnz with options that give the same analysis
  // (equal analysis_options()).
  bool fits(I a_nrows, I a_ncols, Count a_nnz, const SpgemmOptions &) const;
};

template <class I, class V>
class SpgemmPlan {
 public:
  // Pattern of C = A*B into c_rowptr/c_colidx (resized). Throws std::invalid_argument on a
  // dimension mismatch or malformed operand, IndexOverflow when nnz(C) does not fit I,
  // std::bad_alloc.
  // With c_values, the values of C are formed in the same pass (fused symbolic+numeric, about the
  // cost of the symbolic phase alone): a one-shot product then needs no numeric() call until A's
  // or B's values change.
  // With `left`, A's ordering and clusters are taken from it instead of being computed; it must
  // fit A and opts (LeftAnalysis::fits), else std::invalid_argument.
  static SpgemmPlan symbolic(const CsrView<I, V> &A, const CsrView<I, V> &B, const SpgemmOptions &opts,
                             std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values = nullptr,
                             std::shared_ptr<const LeftAnalysis<I>> left = nullptr);

  // Values of C into c_values (C.nnz() entries), C being the pattern symbolic() produced.
  // A and B must have the patterns they had in symbolic(); their values may differ. Only their
  // sizes and nnz are checked here (std::invalid_argument); the PETSc plugin checks the patterns
  // themselves (a checksum) before calling this.
  // Not thread-safe on one plan: it refreshes the cached clustered copy of A.
  void numeric(const CsrView<I, V> &A, const CsrView<I, V> &B, const CsrView<I, V> &C, V *c_values);

  const SpgemmOptions &options() const { return opts_; }
  const SpgemmStats &stats() const { return stats_; }
  // Clusters of A's rows (row numbers of the working A: A's own unless SpgemmOptions::reorder is set).
  const Clustering<I> *clustering() const;
  // A's ordering and clusters, made or taken by symbolic(), to pass to the next product with this A.
  std::shared_ptr<const LeftAnalysis<I>> left_analysis() const;

  SpgemmPlan();
  SpgemmPlan(SpgemmPlan &&) noexcept;
  SpgemmPlan &operator=(SpgemmPlan &&) noexcept;
  ~SpgemmPlan();

 private:
  struct Impl;
  SpgemmOptions opts_;
  SpgemmStats stats_;
  std::unique_ptr<Impl> impl_;
};

// Convenience: one-shot C = A*B (symbolic + numeric).
template <class I, class V>
CsrMatrix<I, V> multiply(const CsrView<I, V> &A, const CsrView<I, V> &B, const SpgemmOptions &opts = {});

} // namespace pcluster
