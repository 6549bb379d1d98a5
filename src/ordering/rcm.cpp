// Reverse Cuthill-McKee (Cuthill & McKee, "Reducing the bandwidth of sparse symmetric matrices",
// ACM 1969; reversed as proposed by George, 1971; start vertices by the pseudo-peripheral node
// finder of George & Liu, "An implementation of a pseudoperipheral node finder", ACM TOMS 5(3),
// 1979). A breadth-first numbering keeps each row's neighbours within a narrow band of positions,
// so consecutive rows of A touch nearby rows of B.
//
// Runs on row_graph(A): the pattern of A + A^T for a square (possibly non-symmetric) A, rows
// sharing a column for a rectangular A. Every connected component is numbered in turn, each from
// a pseudo-peripheral vertex found from its lowest-numbered vertex; neighbours are visited by
// increasing degree, ties by index; the whole sequence is then reversed. Isolated rows (empty, or
// with only a diagonal entry) are components of one vertex. Deterministic; O(nnz(G) * number of
// pseudo-peripheral iterations), a few in practice.
#include "orderings.hpp"

#include <algorithm>
#include <cstdint>

namespace pcluster::detail {

namespace {

// Breadth-first level structure of the component of root: its vertices into order, level after
// level, each marked with stamp (a new stamp per call, so mark is never cleared). Returns the
// number of levels; last_level_begin is where the deepest level starts in order.
template <class I, class V>
I level_structure(const CsrMatrix<I, V> &G, I root, std::vector<I> &order, std::vector<Count> &mark, Count stamp,
                  std::size_t &last_level_begin)
{
  order.clear();
  order.push_back(root);
  mark[static_cast<std::size_t>(root)] = stamp;
  std::size_t level_begin = 0;
  I levels = 0;
  while (level_begin < order.size()) {
    const std::size_t level_end = order.size();
    last_level_begin = level_begin;
    ++levels;
    for (std::size_t q = level_begin; q < level_end; ++q)
      for (I p = G.rowptr[order[q]]; p < G.rowptr[order[q] + 1]; ++p) {
        const I w = G.colidx[p];
        if (mark[static_cast<std::size_t>(w)] != stamp) {
          mark[static_cast<std::size_t>(w)] = stamp;
          order.push_back(w);
        }
      }
    level_begin = level_end;
  }
  return levels;
}

} // namespace

template <class I, class V>
std::vector<I> order_rcm(const CsrView<I, V> &A, const OrderingOptions &)
{
  const CsrMatrix<I, V> G = row_graph(A);
  const auto n = static_cast<std::size_t>(A.nrows);
  auto degree = [&](I v) { return G.rowptr[v + 1] - G.rowptr[v]; };
  auto by_degree = [&](I a, I b) { return degree(a) != degree(b) ? degree(a) < degree(b) : a < b; };

  std::vector<I> perm;
  perm.reserve(n);
  std::vector<char> numbered(n, 0);
  std::vector<Count> mark(n, -1);
  std::vector<I> levels_order;
  Count stamp = 0;
  for (I seed = 0; seed < A.nrows; ++seed) {
    if (numbered[static_cast<std::size_t>(seed)]) continue;
    // George-Liu: from the current root, move to a lowest-degree vertex of the last level while
    // that makes the level structure deeper.
    I root = seed;
    std::size_t last_begin = 0;
    I height = level_structure(G, root, levels_order, mark, stamp++, last_begin);
    for (;;) {
      const I candidate = *std::min_element(levels_order.begin() + static_cast<std::ptrdiff_t>(last_begin),
                                            levels_order.end(), by_degree);
      const I candidate_height = level_structure(G, candidate, levels_order, mark, stamp++, last_begin);
      if (candidate_height <= height) break;
      root = candidate;
      height = candidate_height;
    }
    // Cuthill-McKee from root: breadth first, each vertex's unnumbered neighbours by degree.
    const std::size_t component_begin = perm.size();
    perm.push_back(root);
    numbered[static_cast<std::size_t>(root)] = 1;
    for (std::size_t q = component_begin; q < perm.size(); ++q) {
      const std::size_t children_begin = perm.size();
      for (I p = G.rowptr[perm[q]]; p < G.rowptr[perm[q] + 1]; ++p) {
        const I w = G.colidx[p];
        if (!numbered[static_cast<std::size_t>(w)]) {
          numbered[static_cast<std::size_t>(w)] = 1;
          perm.push_back(w);
        }
      }
      std::sort(perm.begin() + static_cast<std::ptrdiff_t>(children_begin), perm.end(), by_degree);
    }
  }
  std::reverse(perm.begin(), perm.end());
  return perm;
}

template std::vector<std::int32_t> order_rcm(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_rcm(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_rcm(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_rcm(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
