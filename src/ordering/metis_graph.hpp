// What nd.cpp (METIS_NodeND) and gp.cpp (METIS_PartGraphKway) share: row_graph(A) in METIS's
// index type, and METIS's return codes as exceptions.
#pragma once

#include "pcluster/ordering.hpp"

#include <metis.h>

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcluster::detail {

// row_graph(A) with idx_t indices (IDXTYPEWIDTH of metis.h: 32 bits in Debian's libmetis, so an
// int64 matrix whose graph has more than 2^31-1 entries or rows cannot be passed on).
struct MetisGraph {
  idx_t nvtxs = 0;
  std::vector<idx_t> xadj, adjncy;
  bool has_edges() const { return !adjncy.empty(); }
};

template <class I, class V>
MetisGraph metis_graph(const CsrView<I, V> &A, const char *ordering)
{
  const CsrView<I, double> pattern{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr};
  const CsrMatrix<I, double> G = row_graph(pattern);
  constexpr auto kMax = static_cast<Count>(std::numeric_limits<idx_t>::max());
  if (static_cast<Count>(G.nrows) > kMax || G.nnz() > kMax)
    throw IndexOverflow(std::string(ordering) + " ordering: the row graph (" + std::to_string(G.nrows) + " rows, " +
                        std::to_string(G.nnz()) + " entries) does not fit METIS's " +
                        std::to_string(IDXTYPEWIDTH) + "-bit idx_t");
  MetisGraph M;
  M.nvtxs = static_cast<idx_t>(G.nrows);
  M.xadj.assign(G.rowptr.begin(), G.rowptr.end());
  M.adjncy.assign(G.colidx.begin(), G.colidx.end());
  return M;
}

inline void check_metis_status(int status, const char *call)
{
  if (status == METIS_OK) return;
  const char *meaning = status == METIS_ERROR_INPUT    ? "METIS_ERROR_INPUT: invalid input or options"
                        : status == METIS_ERROR_MEMORY ? "METIS_ERROR_MEMORY: out of memory"
                                                       : "METIS_ERROR";
  throw std::runtime_error(std::string(call) + " failed with status " + std::to_string(status) + " (" + meaning + ")");
}

// METIS_OPTION_SEED from OrderingOptions::seed, folded to a non-negative idx_t.
inline idx_t metis_seed(std::uint64_t seed)
{
  return static_cast<idx_t>((seed ^ (seed >> 32)) & static_cast<std::uint64_t>(std::numeric_limits<idx_t>::max()));
}

} // namespace pcluster::detail
