// ClusterScheme::Auto (src/cluster_choice.hpp).
//
// A block size above 1 means rows of a node share their pattern: fixed clusters of whole nodes;
// otherwise variable-length clusters. The cluster kernel saves one column-map lookup per B entry
// for every extra row of a cluster but multiplies padding zeros too; measured on 3D stencils (s27:
// pairs with 33% padding ran 1.4x slower than row-wise, e27 node clusters with none 1.2x faster),
// it pays only when clusters are real and nearly padding-free: clusters averaging at least
// kMinMeanClusterSize rows, padding at most kMaxAutoPaddingRatio of nnz(A). Otherwise the
// row-wise kernel runs instead.
//
// Building the CSR_Cluster costs O(nnz(A)) (a copy of A's values in cluster layout, a scatter map,
// union columns and masks: about 18 bytes per entry of A, written to fresh pages), while the kernel
// saves per multiply-add. A product with few multiply-adds per entry of A cannot repay the build:
// Auto needs at least kMinFlopsPerEntry of them. Measured at one thread on elasticity (block size 3,
// 17k rows, 1.3M entries): A*P with PCGAMG's tentative P (6 per row, 6 multiply-adds per entry of A)
// took 0.016 s with clusters against 0.015 s row-wise when its memory was warm, and 0.097 s against
// 0.033 s in a process whose memory was fresh, as in PCGAMG's set-up (the build alone 0.07 s); with
// the smoothed P (23 per row) clusters were 1.17x faster one-shot, and A*A (72 per row) 1.09-1.2x.
//
// The test is asked first of a leading sample of A's rows, so that a matrix that will run row-wise
// anyway (a 7-point stencil, say) does not pay for clustering all of it. The padding is counted
// from the clusters' union columns alone (ClusterMatrix::padding_of), so a rejected clustering never
// builds its CSR_Cluster: on small matrices (cryg2500, 2500 rows), where the sample is the whole of
// A, building and dropping it cost a third of the product. Where the clusters pay, the union
// columns are counted again by the build: the price of never building one in vain.
#include "cluster_choice.hpp"

#include <algorithm>
#include <cstdint>

namespace pcluster::detail {

namespace {

constexpr double kMinMeanClusterSize = 1.5;
constexpr double kMaxAutoPaddingRatio = 0.10; // explicit zeros / nnz(A)
constexpr Count kMinFlopsPerEntry = 16;        // multiply-adds of the product / nnz(A)
// The sample: the leading rows holding max(kAutoSampleNnz, nnz(A) / kAutoSampleFraction) entries
// (clustering costs O(nnz) of Jaccard merges, so the sample is measured in entries).
constexpr Count kAutoSampleNnz = Count(1) << 16;
constexpr Count kAutoSampleFraction = 32;

// Do the clusters of M pay?
template <class I, class V>
bool clusters_pay(const CsrView<I, V> &M, const Clustering<I> &cl)
{
  const double mean = cl.num_clusters() ? double(M.nrows) / cl.num_clusters() : 0.0;
  if (mean < kMinMeanClusterSize) return false;
  return static_cast<double>(ClusterMatrix<I, V>::padding_of(M, cl)) <= kMaxAutoPaddingRatio * static_cast<double>(M.nnz());
}

} // namespace

template <class I, class V>
SchemeChoice<I, V> choose_scheme(const CsrView<I, V> &A, const SpgemmOptions &opts, Count flops)
{
  SchemeChoice<I, V> choice;
  ClusteringOptions copts = opts.clustering;
  const bool is_auto = opts.scheme == ClusterScheme::Auto;
  choice.scheme = opts.scheme;
  if (is_auto) {
    if (opts.row_block_size > 1 && opts.row_block_size <= kMaxClusterSize) {
      choice.scheme = ClusterScheme::Fixed;
      copts.cluster_size = opts.row_block_size;
    } else choice.scheme = ClusterScheme::Variable;
  }
  if (!is_auto) {
    choice.clusters = ClusterMatrix<I, V>::build(A, make_clustering(A, choice.scheme, copts));
    return choice;
  }
  if (flops < kMinFlopsPerEntry * A.nnz()) return choice; // the build would not be repaid
  const Count sample_nnz = std::max<Count>(kAutoSampleNnz, A.nnz() / kAutoSampleFraction);
  const I sample_rows = static_cast<I>(std::lower_bound(A.rowptr, A.rowptr + A.nrows, sample_nnz) - A.rowptr);
  if (sample_rows < A.nrows) {
    const CsrView<I, V> head{sample_rows, A.ncols, A.rowptr, A.colidx, A.values}; // rows [0, sample_rows)
    if (!clusters_pay<I, V>(head, make_clustering(head, choice.scheme, copts))) return choice;
  }
  // The whole of A (a small A: its own sample); its CSR_Cluster is built only once the clusters pay.
  Clustering<I> clusters = make_clustering(A, choice.scheme, copts);
  if (clusters_pay(A, clusters)) choice.clusters = ClusterMatrix<I, V>::build(A, std::move(clusters));
  return choice;
}

#define PCLUSTER_INSTANTIATE_CHOICE(I, V) template SchemeChoice<I, V> choose_scheme<I, V>(const CsrView<I, V> &, const SpgemmOptions &, Count);
PCLUSTER_INSTANTIATE_CHOICE(std::int32_t, double)
PCLUSTER_INSTANTIATE_CHOICE(std::int64_t, double)
PCLUSTER_INSTANTIATE_CHOICE(std::int32_t, float)
PCLUSTER_INSTANTIATE_CHOICE(std::int64_t, float)

} // namespace pcluster::detail
