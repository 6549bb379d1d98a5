// nd: nested dissection with METIS_NodeND (G. Karypis and V. Kumar, "A fast and high quality
// multilevel scheme for partitioning irregular graphs", SIAM J. Sci. Comput. 20(1), 359-392, 1998,
// doi:10.1137/S1064827595287997; ordering after A. George, "Nested dissection of a regular finite
// element mesh", SIAM J. Numer. Anal. 10(2), 345-363, 1973).
//
// Input. METIS orders an undirected graph: row_graph(A) (ordering.hpp), i.e. the pattern of A + A^T
// without the diagonal for a square, possibly non-symmetric A, and the rows-sharing-a-column graph
// (pattern of A A^T) for a rectangular A. METIS splits disconnected graphs itself.
//
// Output. METIS_NodeND's perm is new to old ("row k of the permuted matrix is row perm[k] of A"),
// our convention; iperm is its inverse.
//
// Tunables. OrderingOptions::seed -> METIS_OPTION_SEED (METIS's coarsening visits vertices in a
// random order); everything else METIS's defaults (node compression on, ufactor 200, ...).
//
// Graphs without edges (this includes 0 and 1 rows) get the natural order without calling METIS:
// no ordering causes fill there, and METIS_NodeND rejects or mishandles some of them.
#include "metis_graph.hpp"
#include "orderings.hpp"

#include <cstdint>
#include <numeric>

namespace pcluster::detail {

template <class I, class V>
std::vector<I> order_nd(const CsrView<I, V> &A, const OrderingOptions &o)
{
  std::vector<I> perm(static_cast<std::size_t>(A.nrows));
  std::iota(perm.begin(), perm.end(), I(0));
  if (A.nrows <= 1) return perm;
  MetisGraph G = metis_graph(A, "nd");
  if (!G.has_edges()) return perm;

  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_SEED] = metis_seed(o.seed);
  std::vector<idx_t> mperm(static_cast<std::size_t>(G.nvtxs)), iperm(static_cast<std::size_t>(G.nvtxs));
  check_metis_status(METIS_NodeND(&G.nvtxs, G.xadj.data(), G.adjncy.data(), nullptr, options, mperm.data(), iperm.data()),
                     "nd ordering: METIS_NodeND");
  for (std::size_t k = 0; k < perm.size(); ++k) perm[k] = static_cast<I>(mperm[k]);
  return perm;
}

#define PCLUSTER_INSTANTIATE_ND(I, V) template std::vector<I> order_nd<I, V>(const CsrView<I, V> &, const OrderingOptions &);
PCLUSTER_INSTANTIATE_ND(std::int32_t, double)
PCLUSTER_INSTANTIATE_ND(std::int64_t, double)
PCLUSTER_INSTANTIATE_ND(std::int32_t, float)
PCLUSTER_INSTANTIATE_ND(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_ND

} // namespace pcluster::detail
