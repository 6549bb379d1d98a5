// What the partitioning orderings (gp.cpp: METIS, hp.cpp: Zoltan PHG) share: the number of parts,
// the part of every row, and the ordering "rows by part, original order inside a part". The
// partition itself is exposed (not only the permutation) so that tests can check the balance and
// the cut of the parts the ordering lays out contiguously.
#pragma once

#include "pcluster/ordering.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pcluster::detail {

// Allowed imbalance (largest part / average part, in rows), passed to the libraries explicitly so
// that tests can check it: METIS_PartGraphKway's default ufactor 30 (1.03) and Zoltan's default
// IMBALANCE_TOL (1.1). Tighter values cost the partitioners cut quality for no gain here: parts are
// cache blocks, not processes waiting on each other.
constexpr int kGpUfactor = 30; // METIS_OPTION_UFACTOR: max part <= (1 + ufactor/1000) * average
constexpr double kGpImbalance = 1.0 + kGpUfactor / 1000.0;
constexpr double kHpImbalance = 1.1; // Zoltan IMBALANCE_TOL
// Zoltan PHG_EDGE_SIZE_THRESHOLD (its default): nets (columns) with more pins than this fraction of
// the rows are dropped before partitioning; every partition cuts such a dense column anyway.
constexpr double kHpEdgeSizeThreshold = 0.25;

// part[i] in 0..nparts-1 is the part of row i.
struct RowPartition {
  int nparts = 1;
  std::vector<int> part;
};

// OrderingOptions::parts resolved for nrows rows: 0 means max(2, nrows / kPartRows); never more
// parts than rows (empty parts would only confuse the partitioners), at least 1.
inline int resolve_parts(int parts, std::int64_t nrows)
{
  std::int64_t p = parts > 0 ? parts : std::max<std::int64_t>(2, nrows / kPartRows);
  p = std::min<std::int64_t>(p, nrows);
  return static_cast<int>(std::max<std::int64_t>(p, 1));
}

// Rows in contiguous blocks of (nearly) equal size in their original order: the partition used
// when there is nothing to partition (one part, one row, no edges or nets); any partition then has
// a cut of zero, and this one is balanced and keeps the natural order.
inline RowPartition block_partition(std::int64_t nrows, int nparts)
{
  RowPartition P;
  P.nparts = nparts;
  P.part.resize(static_cast<std::size_t>(nrows));
  for (std::int64_t i = 0; i < nrows; ++i)
    P.part[static_cast<std::size_t>(i)] = static_cast<int>(i * nparts / std::max<std::int64_t>(nrows, 1));
  return P;
}

// New to old: rows of part 0 first, then part 1, ...; inside a part in original order (a stable
// counting sort), so the order within a part is the caller's, not an artefact of the partitioner.
template <class I>
std::vector<I> order_by_part(const RowPartition &P)
{
  std::vector<std::size_t> start(static_cast<std::size_t>(P.nparts) + 1, 0);
  for (const int p : P.part) ++start[static_cast<std::size_t>(p) + 1];
  for (int p = 0; p < P.nparts; ++p) start[static_cast<std::size_t>(p) + 1] += start[static_cast<std::size_t>(p)];
  std::vector<I> perm(P.part.size());
  for (std::size_t i = 0; i < P.part.size(); ++i) perm[start[static_cast<std::size_t>(P.part[i])]++] = static_cast<I>(i);
  return perm;
}

// The partitions behind order_gp and order_hp (gp.cpp, hp.cpp).
template <class I, class V> RowPartition partition_rows_gp(const CsrView<I, V> &A, const OrderingOptions &o);
template <class I, class V> RowPartition partition_rows_hp(const CsrView<I, V> &A, const OrderingOptions &o);

} // namespace pcluster::detail
