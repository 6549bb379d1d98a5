// The clusters of the cluster-wise kernel for one product, and the Auto rule that decides whether
// clusters pay at all (SpgemmPlan::symbolic calls choose_scheme() on the working A).
#pragma once

#include "pcluster/cluster_matrix.hpp"
#include "pcluster/spgemm.hpp"

#include <optional>

namespace pcluster::detail {

template <class I, class V>
struct SchemeChoice {
  ClusterScheme scheme = ClusterScheme::Auto;  // the scheme that ran (Auto resolved)
  std::optional<ClusterMatrix<I, V>> clusters; // empty: Auto fell back to the row-wise kernel
};

// opts.scheme, or for Auto the rule in cluster_choice.cpp, on A (the working copy the kernel runs
// on, values included); flops: the product's multiply-adds.
template <class I, class V>
SchemeChoice<I, V> choose_scheme(const CsrView<I, V> &A, const SpgemmOptions &opts, Count flops);

} // namespace pcluster::detail
