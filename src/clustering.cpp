// Row clusterings for cluster-wise SpGEMM: fixed-length and variable-length (Islam, Xu, Dai &
// Buluc, "Improving SpGEMM Performance Through Matrix Reordering and Cluster-wise Computation",
// arXiv:2507.21253, §3). Hierarchical clustering lives in clustering_hierarchical.cpp.
//
// What. A clustering partitions A's rows into groups that the cluster-wise kernel multiplies
// together (every row of B fetched for a cluster serves all of the cluster's rows).
//  - Fixed:    groups of `cluster_size` consecutive rows. O(nrows).
//  - Variable: scan rows in order; the first row of a cluster is its representative; the next row
//              joins if Jaccard(row, representative) >= jaccard_threshold and the cluster holds
//              fewer than cluster_size rows, otherwise it starts a new cluster.
//              Cost: one sorted-list intersection per row, O(nnz(A)) in total.
//
// Why blocks. The variable scan is sequential by nature. To run it in parallel, rows are cut into
// blocks of kVariableBlockRows consecutive rows and every block starts a new cluster, whatever the
// number of threads; the result is therefore identical for any OMP_NUM_THREADS (deterministic),
// and it differs from a single sequential scan at most at the nrows / kVariableBlockRows block
// boundaries.
//
// Jaccard of two empty rows is defined as 1 (identical, empty patterns): consecutive empty rows
// form clusters together under the variable scheme, which costs nothing in the cluster-wise
// kernel (an empty row contributes no column to the cluster's union).
#include "pcluster/clustering.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace pcluster {

namespace {

// Rows per independently scanned block of the variable-length scan. Large enough that the forced
// cluster break at each block start is negligible (one in 4096 rows), small enough that a 100k-row
// matrix still yields ~25 blocks to balance across threads.
constexpr std::int64_t kVariableBlockRows = 4096;

} // namespace

void validate(const ClusteringOptions &o)
{
  if (o.cluster_size < 1 || o.cluster_size > kMaxClusterSize)
    throw InvalidOption("cluster_size", option_text(o.cluster_size), "in [1, " + std::to_string(kMaxClusterSize) + "]");
  // Written so that NaN fails too.
  if (!(o.jaccard_threshold >= 0.0 && o.jaccard_threshold <= 1.0))
    throw InvalidOption("jaccard_threshold", option_text(o.jaccard_threshold), "in [0, 1]");
  if (o.hierarchical_topk < 0 || o.hierarchical_topk > kMaxHierarchicalTopk)
    throw InvalidOption("hierarchical_topk", option_text(o.hierarchical_topk),
                        "in [0, " + std::to_string(kMaxHierarchicalTopk) + "] (0 means cluster size - 1)");
}

template <class I>
I Clustering<I>::max_size() const
{
  I m = 0;
  for (std::size_t c = 0; c + 1 < ptr.size(); ++c) m = std::max(m, static_cast<I>(ptr[c + 1] - ptr[c]));
  return m;
}

// |a ∩ b| / |a ∪ b| by a linear merge of the two sorted lists, O(na + nb). Both empty: 1.
// The quotient is formed as double(common) / double(na + nb - common) from exact integers; the
// hierarchical candidate phase uses the same expression so both give bit-identical values.
template <class I>
double jaccard(const I *a, I na, const I *b, I nb)
{
  if (na == 0 && nb == 0) return 1.0;
  Count common = 0;
  I p = 0, q = 0;
  while (p < na && q < nb) {
    const I x = a[p], y = b[q];
    common += (x == y);
    p += (x <= y);
    q += (y <= x);
  }
  const Count uni = static_cast<Count>(na) + static_cast<Count>(nb) - common;
  return static_cast<double>(common) / static_cast<double>(uni);
}

template <class I>
Clustering<I> cluster_fixed(I nrows, int cluster_size)
{
  ClusteringOptions o;
  o.cluster_size = cluster_size;
  validate(o);
  if (nrows < 0) throw std::invalid_argument("cluster_fixed: nrows = " + std::to_string(nrows) + " is negative");

  Clustering<I> cl;
  const Count n = nrows, s = cluster_size;
  const Count nc = (n + s - 1) / s;
  cl.rows.resize(static_cast<std::size_t>(n));
  cl.ptr.resize(static_cast<std::size_t>(nc + 1));
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(n))
  for (Count i = 0; i < n; ++i) cl.rows[i] = static_cast<I>(i);
  for (Count c = 0; c <= nc; ++c) cl.ptr[c] = static_cast<I>(std::min(c * s, n));
  return cl;
}

template <class I, class V>
Clustering<I> cluster_variable(const CsrView<I, V> &A, const ClusteringOptions &opts)
{
  validate(opts);
  const Count n = A.nrows;
  const I cap = static_cast<I>(opts.cluster_size);
  const double threshold = opts.jaccard_threshold;

  // starts[i] = 1 if row i opens a cluster. Blocks are scanned independently.
  std::vector<unsigned char> starts(static_cast<std::size_t>(n), 0);
  const Count nblocks = (n + kVariableBlockRows - 1) / kVariableBlockRows;
#pragma omp parallel for schedule(dynamic, 1) num_threads(detail::threads_for(A.nnz()))
  for (Count b = 0; b < nblocks; ++b) {
    const I lo = static_cast<I>(b * kVariableBlockRows);
    const I hi = static_cast<I>(std::min(n, (b + 1) * kVariableBlockRows));
    I rep = lo, size = 1;
    starts[lo] = 1;
    for (I i = lo + 1; i < hi; ++i) {
      if (size < cap && jaccard(A.colidx + A.rowptr[i], A.row_length(i), A.colidx + A.rowptr[rep],
                                A.row_length(rep)) >= threshold) {
        ++size;
      } else {
        starts[i] = 1;
        rep = i;
        size = 1;
      }
    }
  }

  Clustering<I> cl;
  cl.rows.resize(static_cast<std::size_t>(n));
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(n))
  for (Count i = 0; i < n; ++i) cl.rows[i] = static_cast<I>(i);
  cl.ptr.clear();
  for (Count i = 0; i < n; ++i)
    if (starts[i]) cl.ptr.push_back(static_cast<I>(i));
  cl.ptr.push_back(static_cast<I>(n));
  return cl;
}

template <class I, class V>
Clustering<I> make_clustering(const CsrView<I, V> &A, ClusterScheme scheme, const ClusteringOptions &opts)
{
  validate(opts); // all parameters, even those the chosen scheme ignores
  switch (scheme) {
  case ClusterScheme::Fixed:
    return cluster_fixed<I>(A.nrows, opts.cluster_size);
  case ClusterScheme::Variable:
    return cluster_variable(A, opts);
  case ClusterScheme::Hierarchical:
    return cluster_hierarchical(A, opts);
  case ClusterScheme::Auto:
    throw std::invalid_argument("make_clustering: scheme 'auto' must be resolved by the caller "
                                "(valid here: fixed, variable, hierarchical)");
  }
  throw std::invalid_argument("make_clustering: unknown scheme (valid: fixed, variable, hierarchical)");
}

// Explicit instantiations: I in {int32_t, int64_t}, V in {double, float}.
template struct Clustering<std::int32_t>;
template struct Clustering<std::int64_t>;
template double jaccard<std::int32_t>(const std::int32_t *, std::int32_t, const std::int32_t *, std::int32_t);
template double jaccard<std::int64_t>(const std::int64_t *, std::int64_t, const std::int64_t *, std::int64_t);
template Clustering<std::int32_t> cluster_fixed<std::int32_t>(std::int32_t, int);
template Clustering<std::int64_t> cluster_fixed<std::int64_t>(std::int64_t, int);

#define PCLUSTER_INSTANTIATE(I, V)                                                                 \
  template Clustering<I> cluster_variable<I, V>(const CsrView<I, V> &, const ClusteringOptions &); \
  template Clustering<I> make_clustering<I, V>(const CsrView<I, V> &, ClusterScheme, const ClusteringOptions &);
PCLUSTER_INSTANTIATE(std::int32_t, double)
PCLUSTER_INSTANTIATE(std::int32_t, float)
PCLUSTER_INSTANTIATE(std::int64_t, double)
PCLUSTER_INSTANTIATE(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE

} // namespace pcluster
