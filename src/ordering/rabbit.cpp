// Rabbit order (Arai, Shiokawa, Yamamuro, Onizuka, Iwamura, "Rabbit Order: Just-in-time Parallel
// Reordering for Fast Graph Analysis", IPDPS 2016). Densely connected communities are numbered
// contiguously, and the communities they merged into lie next to them, so the hierarchy of
// communities maps onto the hierarchy of caches.
//
// A faithful sequential version of its two phases, on row_graph(A) (the pattern of A + A^T for a
// square, possibly non-symmetric, A; rows sharing a column for a rectangular A), unit edge weights:
//  1. Community detection by incremental aggregation. Vertices are visited by increasing degree
//     (ties: smaller index). The visited vertex u stands for its community: its own edges plus
//     those of the vertices merged into it so far, re-targeted to the communities their ends now
//     belong to (edges inside the community dropped, parallel edges summed). Among the neighbouring
//     communities v it picks the best modularity gain
//        dQ(u, v) = 2 (w(u,v) / 2M - d(u) d(v) / (2M)^2),
//     with w the summed edge weight between u and v, d the summed degrees of a community's
//     vertices and 2M the sum of all degrees (ties: smaller v). If dQ > 0, u (with everything in it)
//     is merged into v and becomes v's child in the dendrogram; otherwise u is a top-level
//     community.
//  2. Ordering. Each top-level community's dendrogram is traversed depth first (a vertex, then its
//     children in the order they were merged into it, each with its own subtree), numbering
//     vertices in visit order; top-level communities follow one another by their representative's index.
// The comparisons are exact (integer weights), so the result is deterministic. Isolated rows are
// communities of their own. The paper's parallel, lock-free merging is replaced by this sequential
// loop: same merge rule, one fixed visiting order.
#include "orderings.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <utility>

namespace pcluster::detail {

template <class I, class V>
std::vector<I> order_rabbit(const CsrView<I, V> &A, const OrderingOptions &)
{
  const CsrMatrix<I, V> G = row_graph(A);
  const auto n = static_cast<std::size_t>(A.nrows);
  using Edge = std::pair<I, Count>; // (neighbour, weight)

  std::vector<std::vector<Edge>> edges(n);
  std::vector<Count> degree(n); // summed degree of a community's vertices
  Count two_m = 0;
  for (std::size_t v = 0; v < n; ++v) {
    for (I p = G.rowptr[v]; p < G.rowptr[v + 1]; ++p) edges[v].emplace_back(G.colidx[p], 1);
    degree[v] = G.rowptr[v + 1] - G.rowptr[v];
    two_m += degree[v];
  }
  // merged_into[v] = the vertex v was merged into (v itself for community representatives).
  std::vector<I> merged_into(n);
  std::iota(merged_into.begin(), merged_into.end(), I(0));
  auto community = [&](I v) {
    I root = v;
    while (merged_into[static_cast<std::size_t>(root)] != root) root = merged_into[static_cast<std::size_t>(root)];
    while (merged_into[static_cast<std::size_t>(v)] != root) v = std::exchange(merged_into[static_cast<std::size_t>(v)], root);
    return root;
  };
  // The dendrogram is kept separately from merged_into, which path compression flattens.
  std::vector<std::vector<I>> children(n);
  std::vector<char> top_level(n, 0);

  std::vector<I> visit(n);
  std::iota(visit.begin(), visit.end(), I(0));
  std::stable_sort(visit.begin(), visit.end(), [&](I a, I b) { return degree[static_cast<std::size_t>(a)] < degree[static_cast<std::size_t>(b)]; });

  std::vector<Count> weight_to(n, 0); // scratch: summed weight from u to each neighbouring community
  std::vector<I> neighbours;
  for (const I u : visit) {
    const auto su = static_cast<std::size_t>(u);
    // Aggregate u's edges onto the current communities.
    neighbours.clear();
    for (const Edge &e : edges[su]) {
      const I c = community(e.first);
      if (c == u) continue;
      if (weight_to[static_cast<std::size_t>(c)] == 0) neighbours.push_back(c);
      weight_to[static_cast<std::size_t>(c)] += e.second;
    }
    edges[su].clear();
    // Best gain: dQ > 0 compares w(u,v) * 2M with d(u) d(v); scaled by 2M to stay in integers,
    // compared as the 128-bit values they can reach.
    I best = u;
    __int128 best_gain = 0;
    for (const I c : neighbours) {
      const auto sc = static_cast<std::size_t>(c);
      const __int128 gain = static_cast<__int128>(weight_to[sc]) * two_m - static_cast<__int128>(degree[su]) * degree[sc];
      if (gain > best_gain || (gain == best_gain && gain > 0 && c < best)) best_gain = gain, best = c;
      edges[su].emplace_back(c, weight_to[sc]);
      weight_to[sc] = 0;
    }
    if (best == u) {
      top_level[su] = 1;
      continue;
    }
    const auto sb = static_cast<std::size_t>(best);
    merged_into[su] = best;
    children[sb].push_back(u);
    degree[sb] += degree[su];
    if (edges[sb].size() < edges[su].size()) edges[sb].swap(edges[su]); // append the shorter list
    edges[sb].insert(edges[sb].end(), edges[su].begin(), edges[su].end());
    edges[su] = std::vector<Edge>();
  }

  // Depth-first numbering of each top-level dendrogram; children in merge order.
  std::vector<I> perm;
  perm.reserve(n);
  std::vector<std::pair<I, std::size_t>> stack; // (vertex, next child to visit)
  for (std::size_t r = 0; r < n; ++r) {
    if (!top_level[r]) continue;
    perm.push_back(static_cast<I>(r));
    stack.emplace_back(static_cast<I>(r), 0);
    while (!stack.empty()) {
      auto &[v, next] = stack.back();
      const auto &kids = children[static_cast<std::size_t>(v)];
      if (next == kids.size()) {
        stack.pop_back();
        continue;
      }
      const I child = kids[next++];
      perm.push_back(child);
      stack.emplace_back(child, 0);
    }
  }
  return perm;
}

template std::vector<std::int32_t> order_rabbit(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_rabbit(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_rabbit(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_rabbit(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
