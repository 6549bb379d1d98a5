// Random ordering: a uniformly random permutation of the rows, the worst-case baseline of the seed
// paper (Islam, Xu, Dai & Buluc, "Improving SpGEMM Performance Through Matrix Reordering and
// Cluster-wise Computation", arXiv:2507.21253, §4: random order is where every locality is lost).
//
// Fisher-Yates with std::mt19937_64(OrderingOptions::seed), the same shuffle as the generators'
// random_permutation (which it reuses): deterministic for a seed on every platform, since no
// std::*_distribution is involved. The pattern is not looked at, so square, non-symmetric and
// rectangular matrices are all the same to it.
#include "orderings.hpp"

#include "pcluster/generators.hpp"

#include <cstdint>

namespace pcluster::detail {

template <class I, class V>
std::vector<I> order_random(const CsrView<I, V> &A, const OrderingOptions &o)
{
  // The inverse of a uniformly random permutation is uniformly random too, so the generators'
  // old-to-new shuffle serves as new-to-old.
  return random_permutation<I>(A.nrows, o.seed);
}

template std::vector<std::int32_t> order_random(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_random(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_random(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_random(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
