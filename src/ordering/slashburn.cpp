// SlashBurn (Lim, Kang & Faloutsos, "SlashBurn: Graph Compression and Mining beyond Caveman
// Communities", IEEE TKDE 26(12), 2014). Real-world graphs fall apart once their few hubs are
// removed: hubs go first, the small pieces that break off go last, and the procedure repeats on
// the giant connected component. Rows touching the hubs' rows of B then share them, and the
// caveman-like small components stay contiguous.
//
// Runs on row_graph(A): the pattern of A + A^T for a square (possibly non-symmetric) A, rows
// sharing a column for a rectangular A. Each round, with k = max(1, floor(hub_fraction * m)) for
// m rows in all (OrderingOptions::hub_fraction):
//  1. the k vertices of highest degree in what is left of the graph are placed next at the front,
//     by descending degree (ties: smaller index first), and removed;
//  2. the connected components of the rest are found (breadth first, from the smallest index up);
//     all but the giant one (the largest; ties: the one found first) are placed next at the back,
//     larger components ahead of smaller ones so the smallest end up last, each in breadth-first
//     order;
//  3. the giant component is what is left for the next round.
// When at most k vertices are left they are placed at the front by descending degree. Isolated
// rows are components of one vertex and so go to the back in the first round. Deterministic.
// Cost: O(nnz(G)) per round for the components; the number of rounds is at most m / k.
#include "orderings.hpp"

#include <algorithm>
#include <cstdint>

namespace pcluster::detail {

template <class I, class V>
std::vector<I> order_slashburn(const CsrView<I, V> &A, const OrderingOptions &o)
{
  const CsrMatrix<I, V> G = row_graph(A);
  const auto n = static_cast<std::size_t>(A.nrows);
  const auto hubs_per_round = std::max<std::size_t>(1, static_cast<std::size_t>(o.hub_fraction * static_cast<double>(n)));

  std::vector<I> degree(n); // degree among the vertices not placed yet
  for (std::size_t v = 0; v < n; ++v) degree[v] = G.rowptr[v + 1] - G.rowptr[v];
  auto by_degree = [&](I a, I b) {
    return degree[static_cast<std::size_t>(a)] != degree[static_cast<std::size_t>(b)]
               ? degree[static_cast<std::size_t>(a)] > degree[static_cast<std::size_t>(b)]
               : a < b;
  };

  std::vector<I> perm(n);
  std::size_t front = 0, back = n; // perm[0, front) and perm[back, n) are placed
  std::vector<char> placed(n, 0);
  std::vector<Count> seen(n, -1); // round in which the component search reached a vertex
  std::vector<I> active(n);       // vertices not placed, ascending
  for (std::size_t v = 0; v < n; ++v) active[v] = static_cast<I>(v);
  std::vector<I> components;                                 // this round's components, one after another
  std::vector<std::pair<std::size_t, std::size_t>> extents;  // [begin, end) of each in components

  for (Count round = 0; !active.empty(); ++round) {
    if (active.size() <= hubs_per_round) {
      std::sort(active.begin(), active.end(), by_degree);
      std::copy(active.begin(), active.end(), perm.begin() + static_cast<std::ptrdiff_t>(front));
      break;
    }
    // 1. Slash the hubs.
    std::partial_sort(active.begin(), active.begin() + static_cast<std::ptrdiff_t>(hubs_per_round), active.end(), by_degree);
    for (std::size_t h = 0; h < hubs_per_round; ++h) {
      const I hub = active[h];
      perm[front++] = hub;
      placed[static_cast<std::size_t>(hub)] = 1;
    }
    for (std::size_t h = 0; h < hubs_per_round; ++h)
      for (I p = G.rowptr[active[h]]; p < G.rowptr[active[h] + 1]; ++p)
        if (!placed[static_cast<std::size_t>(G.colidx[p])]) --degree[static_cast<std::size_t>(G.colidx[p])];
    active.erase(active.begin(), active.begin() + static_cast<std::ptrdiff_t>(hubs_per_round));
    std::sort(active.begin(), active.end());

    // 2. Burn: connected components of the rest.
    components.clear();
    extents.clear();
    for (const I start : active) {
      if (seen[static_cast<std::size_t>(start)] == round) continue;
      const std::size_t begin = components.size();
      components.push_back(start);
      seen[static_cast<std::size_t>(start)] = round;
      for (std::size_t q = begin; q < components.size(); ++q)
        for (I p = G.rowptr[components[q]]; p < G.rowptr[components[q] + 1]; ++p) {
          const I w = G.colidx[p];
          if (!placed[static_cast<std::size_t>(w)] && seen[static_cast<std::size_t>(w)] != round) {
            seen[static_cast<std::size_t>(w)] = round;
            components.push_back(w);
          }
        }
      extents.emplace_back(begin, components.size());
    }
    auto size = [](const std::pair<std::size_t, std::size_t> &e) { return e.second - e.first; };
    const auto giant = std::max_element(extents.begin(), extents.end(),
                                        [&](const auto &a, const auto &b) { return size(a) < size(b); }) -
                       extents.begin();
    std::vector<std::pair<std::size_t, std::size_t>> spokes;
    for (std::ptrdiff_t c = 0; c < static_cast<std::ptrdiff_t>(extents.size()); ++c)
      if (c != giant) spokes.push_back(extents[static_cast<std::size_t>(c)]);
    std::stable_sort(spokes.begin(), spokes.end(), [&](const auto &a, const auto &b) { return size(a) > size(b); });
    std::size_t spoke_vertices = 0;
    for (const auto &e : spokes) spoke_vertices += size(e);
    back -= spoke_vertices;
    std::size_t at = back;
    for (const auto &e : spokes)
      for (std::size_t q = e.first; q < e.second; ++q) {
        perm[at++] = components[q];
        placed[static_cast<std::size_t>(components[q])] = 1;
      }

    // 3. Continue on the giant component.
    const auto &g = extents[static_cast<std::size_t>(giant)];
    active.assign(components.begin() + static_cast<std::ptrdiff_t>(g.first),
                  components.begin() + static_cast<std::ptrdiff_t>(g.second));
    std::sort(active.begin(), active.end());
  }
  return perm;
}

template std::vector<std::int32_t> order_slashburn(const CsrView<std::int32_t, double> &, const OrderingOptions &);
template std::vector<std::int64_t> order_slashburn(const CsrView<std::int64_t, double> &, const OrderingOptions &);
template std::vector<std::int32_t> order_slashburn(const CsrView<std::int32_t, float> &, const OrderingOptions &);
template std::vector<std::int64_t> order_slashburn(const CsrView<std::int64_t, float> &, const OrderingOptions &);

} // namespace pcluster::detail
