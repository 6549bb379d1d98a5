// CSR_Cluster: A stored cluster by cluster (arXiv:2507.21253, §3.1).
//
// For cluster c of s rows, the union of its rows' column indices is stored once (sorted), and for
// each such column the s values of the cluster's rows, contiguous ("column by column"), with an
// explicit zero where a row has no entry. A bit mask per column records which rows really hold
// an entry, so the product can emit exactly each row's own pattern.
//
//   cols  [col_ptr[c] .. col_ptr[c+1])            union columns of cluster c
//   masks [col_ptr[c] .. col_ptr[c+1])            bit l set <=> row rows[ptr[c]+l] has that column
//   values[val_ptr[c] + t*s + l]                  A(rows[ptr[c]+l], cols[col_ptr[c]+t])
//
// Fixed-length clusterings have val_ptr[c] == col_ptr[c] * s; the general layout serves both.
#pragma once

#include "pcluster/clustering.hpp"
#include "pcluster/csr.hpp"

#include <vector>

namespace pcluster {

template <class I, class V>
struct ClusterMatrix {
  I nrows = 0;
  I ncols = 0;
  Clustering<I> clusters;
  std::vector<I> col_ptr;      // num_clusters + 1
  std::vector<I> cols;         // union columns, sorted per cluster
  std::vector<RowMask> masks;  // one per union column
  std::vector<Count> val_ptr;  // num_clusters + 1
  std::vector<V> values;       // val_ptr.back() entries
  std::vector<Count> scatter;  // A's k-th stored entry lands at values[scatter[k]] (refresh)

  // Builds structure and values from A and a clustering of its rows.
  static ClusterMatrix build(const CsrView<I, V> &A, Clustering<I> clusters);
  // Copies A's current values in (same pattern as at build time). O(nnz(A)).
  void refresh_values(const CsrView<I, V> &A);

  I num_clusters() const { return clusters.num_clusters(); }
  Count padding() const { return static_cast<Count>(values.size()) - static_cast<Count>(scatter.size()); }
  // The padding build() would give, without building (the union columns' sizes only).
  static Count padding_of(const CsrView<I, V> &A, const Clustering<I> &clusters);
};

} // namespace pcluster
