// gp: graph partitioning ordering with METIS_PartGraphKway, edge-cut objective (G. Karypis and
// V. Kumar, "Multilevel k-way partitioning scheme for irregular graphs", J. Parallel Distrib.
// Comput. 48(1), 96-129, 1998, doi:10.1006/jpdc.1997.1404). Rows are laid out part by part, so rows
// that share columns (few cut edges) sit in the same block of rows and reuse the same rows of B.
//
// Input. METIS partitions an undirected graph: row_graph(A) (ordering.hpp), i.e. the pattern of
// A + A^T without the diagonal for a square, possibly non-symmetric A, and the rows-sharing-a-column
// graph (pattern of A A^T) for a rectangular A. Vertices are unweighted: parts balance row counts.
//
// Output. Rows ordered by part (part 0 first), in their original order inside a part
// (order_by_part, partition.hpp).
//
// Tunables. OrderingOptions::parts (0 = max(2, nrows / kPartRows), capped at nrows) and
// OrderingOptions::seed -> METIS_OPTION_SEED. Imbalance: METIS_OPTION_UFACTOR = kGpUfactor
// (partition.hpp, METIS's own default for k-way). Objective METIS_OBJTYPE_CUT (edge cut).
//
// One part, one row or a graph without edges: the natural order split into equal blocks, without
// calling METIS (any partition has cut 0 there, and METIS rejects nparts = 1 in some versions).
#include "metis_graph.hpp"
#include "orderings.hpp"
#include "partition.hpp"

#include <cstdint>

namespace pcluster::detail {

template <class I, class V>
RowPartition partition_rows_gp(const CsrView<I, V> &A, const OrderingOptions &o)
{
  const int nparts = resolve_parts(o.parts, A.nrows);
  if (nparts <= 1 || A.nrows <= 1) return block_partition(A.nrows, nparts);
  MetisGraph G = metis_graph(A, "gp");
  if (!G.has_edges()) return block_partition(A.nrows, nparts);

  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  options[METIS_OPTION_OBJTYPE] = METIS_OBJTYPE_CUT;
  options[METIS_OPTION_UFACTOR] = kGpUfactor;
  options[METIS_OPTION_SEED] = metis_seed(o.seed);
  idx_t ncon = 1, mparts = nparts, edgecut = 0;
  std::vector<idx_t> part(static_cast<std::size_t>(G.nvtxs));
  check_metis_status(METIS_PartGraphKway(&G.nvtxs, &ncon, G.xadj.data(), G.adjncy.data(), nullptr, nullptr, nullptr,
                                         &mparts, nullptr, nullptr, options, &edgecut, part.data()),
                     "gp ordering: METIS_PartGraphKway");
  RowPartition P;
  P.nparts = nparts;
  P.part.assign(part.begin(), part.end());
  return P;
}

template <class I, class V>
std::vector<I> order_gp(const CsrView<I, V> &A, const OrderingOptions &o)
{
  return order_by_part<I>(partition_rows_gp(A, o));
}

#define PCLUSTER_INSTANTIATE_GP(I, V)                                                                     \
  template RowPartition partition_rows_gp<I, V>(const CsrView<I, V> &, const OrderingOptions &); \
  template std::vector<I> order_gp<I, V>(const CsrView<I, V> &, const OrderingOptions &);
PCLUSTER_INSTANTIATE_GP(std::int32_t, double)
PCLUSTER_INSTANTIATE_GP(std::int64_t, double)
PCLUSTER_INSTANTIATE_GP(std::int32_t, float)
PCLUSTER_INSTANTIATE_GP(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_GP

} // namespace pcluster::detail
