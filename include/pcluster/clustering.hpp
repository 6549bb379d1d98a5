// Row clusterings for cluster-wise SpGEMM (Islam, Xu, Dai & Buluc, arXiv:2507.21253, §3).
//
// A clustering is a partition of A's rows into groups that are multiplied together: every row of
// B fetched for a cluster is applied to all rows of the cluster while it is hot in cache.
#pragma once

#include "pcluster/csr.hpp"
#include "pcluster/names.hpp"

#include <cstdint>
#include <vector>

namespace pcluster {

// The mask type that records which rows of a cluster hold an entry: bounds the cluster size.
using RowMask = std::uint64_t;
constexpr int kMaxClusterSize = 64;

// Cluster c holds rows[ptr[c]] .. rows[ptr[c+1]-1], in ascending row order. Every row of the
// matrix appears in exactly one cluster. Clusters are listed in the order they are computed.
template <class I>
struct Clustering {
  std::vector<I> rows;
  std::vector<I> ptr{I(0)};

  I num_clusters() const { return static_cast<I>(ptr.size()) - 1; }
  I size(I c) const { return ptr[c + 1] - ptr[c]; }
  I max_size() const;
};

// Auto is resolved by SpgemmPlan::symbolic (the rule: src/cluster_choice.cpp, choose_scheme()).
enum class ClusterScheme { Auto, Fixed, Variable, Hierarchical };
inline constexpr Named<ClusterScheme> kClusterSchemeNames[] = {
  {ClusterScheme::Auto, "auto"}, {ClusterScheme::Fixed, "fixed"}, {ClusterScheme::Variable, "variable"}, {ClusterScheme::Hierarchical, "hierarchical"}};
inline const char *to_string(ClusterScheme s) { return name_of(kClusterSchemeNames, s); }

struct ClusteringOptions {
  int cluster_size = 8;            // Fixed: rows per cluster. Variable/Hierarchical: the cap.
  double jaccard_threshold = 0.3;  // Variable/Hierarchical: minimum Jaccard similarity to join.
  int hierarchical_topk = 0;       // Hierarchical: candidate pairs kept per row; 0 = cluster_size - 1.
};

// Every member compared: a member added without being listed here fails to compile.
inline bool operator==(const ClusteringOptions &x, const ClusteringOptions &y)
{
  const auto &[size, threshold, topk] = x;
  return size == y.cluster_size && threshold == y.jaccard_threshold && topk == y.hierarchical_topk;
}
inline bool operator!=(const ClusteringOptions &x, const ClusteringOptions &y) { return !(x == y); }

// Upper bound of hierarchical_topk: more candidates than a cluster can ever absorb
// (kMaxClusterSize - 1) only cost memory and heap work.
constexpr int kMaxHierarchicalTopk = kMaxClusterSize - 1;

// Throws InvalidOption naming the parameter and its valid range.
void validate(const ClusteringOptions &);

// Groups of `cluster_size` consecutive rows (the last may be shorter).
template <class I>
Clustering<I> cluster_fixed(I nrows, int cluster_size);

// Scan rows in order; a row joins the current cluster if its Jaccard similarity to the cluster's
// first row is >= threshold and the cluster has fewer than cluster_size rows. Rows are scanned in
// fixed-size blocks that always start a new cluster, so the result does not depend on the number
// of threads.
template <class I, class V>
Clustering<I> cluster_variable(const CsrView<I, V> &A, const ClusteringOptions &);

// Top-k most similar row pairs from one pattern SpGEMM A*A^T, merged greedily (max-heap,
// union-find, size cap). Clusters are ordered by their smallest row.
template <class I, class V>
Clustering<I> cluster_hierarchical(const CsrView<I, V> &A, const ClusteringOptions &);

// Dispatch on the scheme (Auto is not accepted here).
template <class I, class V>
Clustering<I> make_clustering(const CsrView<I, V> &A, ClusterScheme, const ClusteringOptions &);

// Jaccard similarity |a ∩ b| / |a ∪ b| of two sorted index lists (1 when both are empty).
template <class I>
double jaccard(const I *a, I na, const I *b, I nb);

} // namespace pcluster
