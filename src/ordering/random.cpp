// Random ordering: a uniformly random permutation of the rows, the worst-case baseline of the seed
// paper (Islam, Xu, Dai & Buluc, "Improving SpGEMM Performance Through Matrix Reordering and
// Cluster-wise Computation", arXiv:2507.21253, §4: random order is where every locality is lost).
//
// Fisher-Yates with std::mt19937_64(OrderingOptions::seed) (random_permutation, which the test
// generators' shuffles use too): deterministic for a seed on every platform, since no
// std::*_distribution is involved. The pattern is not looked at, so square, non-symmetric and
// rectangular matrices are all the same to it.
#include "orderings.hpp"

#include <cstdint>
#include <numeric>
#include <random>
#include <stdexcept>

namespace pcluster {

template <class I>
std::vector<I> random_permutation(I n, std::uint64_t seed)
{
  if (n < 0) throw std::invalid_argument("random_permutation: n must be >= 0");
  std::vector<I> perm(static_cast<std::size_t>(n));
  std::iota(perm.begin(), perm.end(), I(0));
  std::mt19937_64 rng(seed);
  for (Count i = static_cast<Count>(n) - 1; i > 0; --i) {
    const Count j = static_cast<Count>(rng() % static_cast<std::uint64_t>(i + 1));
    std::swap(perm[static_cast<std::size_t>(i)], perm[static_cast<std::size_t>(j)]);
  }
  return perm;
}

template std::vector<std::int32_t> random_permutation<std::int32_t>(std::int32_t, std::uint64_t);
template std::vector<std::int64_t> random_permutation<std::int64_t>(std::int64_t, std::uint64_t);

namespace detail {

template <class I, class V>
std::vector<I> order_random(const CsrView<I, V> &A, const OrderingOptions &o)
{
  // The inverse of a uniformly random permutation is uniformly random too, so the old-to-new
  // shuffle serves as new-to-old.
  return random_permutation<I>(A.nrows, o.seed);
}

template std::vector<std::int32_t> order_random(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_random(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_random(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_random(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace detail
} // namespace pcluster
