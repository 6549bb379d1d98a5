// amd: approximate minimum degree ordering with SuiteSparse AMD (P. R. Amestoy, T. A. Davis and
// I. S. Duff, "An approximate minimum degree ordering algorithm", SIAM J. Matrix Anal. Appl. 17(4),
// 886-905, 1996, doi:10.1137/S0895479894278952; "Algorithm 837: AMD", ACM TOMS 30(3), 381-388,
// 2004, doi:10.1145/1024074.1024081).
//
// Input. AMD orders a square, symmetric pattern. We give it row_graph(A) (ordering.hpp): for a
// square, possibly non-symmetric A the pattern of A + A^T without the diagonal (AMD ignores the
// diagonal anyway and would form A + A^T itself), for a rectangular A the rows-sharing-a-column
// graph (pattern of A A^T). row_graph's rows are sorted and unique, so AMD orders it in place
// without its internal copy (it never answers AMD_OK_BUT_JUMBLED here).
//
// Output. AMD's P is already new to old (P[k] = the row eliminated k-th), our convention.
//
// Tunables. AMD's own defaults (Control = NULL): rows of the graph with more than
// AMD_DEFAULT_DENSE * sqrt(n) neighbours count as dense and are ordered last, aggressive absorption
// on. No OrderingOptions field applies: AMD is deterministic and has no seed.
//
// Index width. int32 rows use amd_order, int64 rows amd_l_order. Their index and status types are
// taken from the functions themselves: SuiteSparse 5 (Debian bookworm) declares int and
// SuiteSparse_long with that type as the status too, SuiteSparse 7 (trixie, sid) int32_t and
// int64_t with an int status.
//
// Zero or one rows, or a graph without edges: the natural order, without calling AMD.
#include "orderings.hpp"

#include <suitesparse/amd.h>

#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

namespace pcluster::detail {

namespace {

void check_amd_status(long status, const char *call)
{
  if (status == AMD_OK || status == AMD_OK_BUT_JUMBLED) return;
  std::string what = std::string("amd ordering: ") + call + " failed with status " + std::to_string(status);
  if (status == AMD_OUT_OF_MEMORY) what += " (AMD_OUT_OF_MEMORY: not enough memory, or the problem is too large)";
  else if (status == AMD_INVALID) what += " (AMD_INVALID: invalid graph passed to AMD, an internal error of row_graph)";
  throw std::runtime_error(what);
}

template <class I, class Status, class Lib>
std::vector<I> amd_with(const CsrMatrix<I, double> &G, Status (*order)(Lib, const Lib *, const Lib *, Lib *, double *, double *),
                        const char *call)
{
  const std::size_t n = static_cast<std::size_t>(G.nrows);
  std::vector<I> perm(n);
  double info[AMD_INFO];
  if constexpr (std::is_same_v<I, Lib>) {
    check_amd_status(order(G.nrows, G.rowptr.data(), G.colidx.data(), perm.data(), nullptr, info), call);
  } else {
    // Same width, different type names (e.g. long vs long long): copy, it costs one pass.
    static_assert(sizeof(I) == sizeof(Lib), "AMD index width differs from the row index width");
    std::vector<Lib> p(G.rowptr.begin(), G.rowptr.end()), c(G.colidx.begin(), G.colidx.end()), q(n);
    check_amd_status(order(static_cast<Lib>(G.nrows), p.data(), c.data(), q.data(), nullptr, info), call);
    for (std::size_t k = 0; k < n; ++k) perm[k] = static_cast<I>(q[k]);
  }
  return perm;
}

} // namespace

template <class I, class V>
std::vector<I> order_amd(const CsrView<I, V> &A, const OrderingOptions &)
{
  // AMD rejects n = 0 with an empty (null) P; nothing to order for one row either.
  if (A.nrows <= 1) return std::vector<I>(static_cast<std::size_t>(A.nrows), I(0));
  const CsrView<I, double> pattern{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr};
  const CsrMatrix<I, double> G = row_graph(pattern);
  // No edges, no fill whatever the order; AMD would also reject the empty (null) index array.
  if (G.colidx.empty()) {
    std::vector<I> perm(static_cast<std::size_t>(A.nrows));
    for (I i = 0; i < A.nrows; ++i) perm[static_cast<std::size_t>(i)] = i;
    return perm;
  }
  if constexpr (sizeof(I) == 4) return amd_with<I>(G, amd_order, "amd_order");
  else return amd_with<I>(G, amd_l_order, "amd_l_order");
}

#define PCLUSTER_INSTANTIATE_AMD(I, V) template std::vector<I> order_amd<I, V>(const CsrView<I, V> &, const OrderingOptions &);
PCLUSTER_INSTANTIATE_AMD(std::int32_t, double)
PCLUSTER_INSTANTIATE_AMD(std::int64_t, double)
PCLUSTER_INSTANTIATE_AMD(std::int32_t, float)
PCLUSTER_INSTANTIATE_AMD(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_AMD

} // namespace pcluster::detail
