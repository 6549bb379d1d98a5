// Degree ordering: rows by descending number of stored entries, the "Degree" ordering of the seed
// paper (Islam, Xu, Dai & Buluc, arXiv:2507.21253, §4; a classic of graph reordering, e.g. Balaji &
// Lucia, "When is Graph Reordering an Optimization?", IISWC 2018). Heavy rows come first, so the
// rows of B that many rows of A touch are fetched early and stay in cache.
//
// The degree is the row length in A itself, not in the symmetrised row graph: it is what the
// row-wise kernel's work per row depends on, and it is defined for non-symmetric and rectangular
// matrices alike. Ties keep the original order (stable sort), so the result is deterministic and
// a matrix with equal row lengths keeps its natural order.
#include "orderings.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>

namespace pcluster::detail {

template <class I, class V>
std::vector<I> order_degree(const CsrView<I, V> &A, const OrderingOptions &)
{
  std::vector<I> perm(static_cast<std::size_t>(A.nrows));
  std::iota(perm.begin(), perm.end(), I(0));
  std::stable_sort(perm.begin(), perm.end(), [&](I a, I b) { return A.row_length(a) > A.row_length(b); });
  return perm;
}

template std::vector<std::int32_t> order_degree(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_degree(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_degree(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_degree(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
