// Row orderings (include/pcluster/ordering.hpp): every ordering is a deterministic bijection whose
// permuted matrix P A P^T (square) and P A (any shape) equal the explicitly permuted matrix, on a
// catalogue of shapes; then the property each ordering exists for; row_graph against a std::set
// specification; names and option checks.
#include "reference.hpp"

#include "pcluster/generators.hpp"
#include "pcluster/ordering.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

struct Case {
  std::string name;
  Dense2 M;
};

Dense2 from_edges(std::int64_t n, const std::vector<std::pair<std::int64_t, std::int64_t>> &edges, bool diagonal)
{
  Dense2 M;
  M.nrows = M.ncols = n;
  for (const auto &e : edges) {
    M.entries[{e.first, e.second}] = 1.0 + 0.01 * static_cast<double>(e.first);
    M.entries[{e.second, e.first}] = 1.0 + 0.01 * static_cast<double>(e.second);
  }
  if (diagonal)
    for (std::int64_t i = 0; i < n; ++i) M.entries[{i, i}] = 4.0;
  return M;
}

// 5-point Laplacian pattern on an nx x ny grid, natural numbering.
Dense2 grid2d(std::int64_t nx, std::int64_t ny)
{
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      if (x + 1 < nx) edges.push_back({y * nx + x, y * nx + x + 1});
      if (y + 1 < ny) edges.push_back({y * nx + x, (y + 1) * nx + x});
    }
  return from_edges(nx * ny, edges, true);
}

// Disjoint cliques of the given sizes, vertices numbered by a seeded shuffle; clique_of[v] says
// which clique vertex v belongs to.
Dense2 shuffled_cliques(const std::vector<int> &sizes, std::uint64_t seed, std::vector<int> &clique_of)
{
  std::int64_t n = 0;
  for (int s : sizes) n += s;
  std::vector<std::int64_t> label(static_cast<std::size_t>(n));
  std::iota(label.begin(), label.end(), 0);
  std::shuffle(label.begin(), label.end(), std::mt19937_64(seed));
  clique_of.assign(static_cast<std::size_t>(n), -1);
  std::vector<std::pair<std::int64_t, std::int64_t>> edges;
  std::int64_t first = 0;
  for (std::size_t c = 0; c < sizes.size(); ++c) {
    for (std::int64_t a = first; a < first + sizes[c]; ++a) {
      clique_of[static_cast<std::size_t>(label[a])] = static_cast<int>(c);
      for (std::int64_t b = a + 1; b < first + sizes[c]; ++b) edges.push_back({label[a], label[b]});
    }
    first += sizes[c];
  }
  return from_edges(n, edges, true);
}

// Rows drawn from a few patterns, the patterns interleaved; pattern_of[i] says which.
Dense2 repeated_patterns(std::int64_t m, std::int64_t n, int patterns, std::uint64_t seed, std::vector<int> &pattern_of)
{
  const Dense2 base = pctest::random_matrix(patterns, n, 0.2, seed);
  std::mt19937_64 rng(seed + 1);
  Dense2 M;
  M.nrows = m;
  M.ncols = n;
  pattern_of.assign(static_cast<std::size_t>(m), 0);
  for (std::int64_t i = 0; i < m; ++i) {
    const int p = static_cast<int>(rng() % static_cast<std::uint64_t>(patterns));
    pattern_of[static_cast<std::size_t>(i)] = p;
    for (const auto &e : base.entries)
      if (e.first.first == p) M.entries[{i, e.first.second}] = 1.0 + static_cast<double>(i);
  }
  return M;
}

template <class I>
Dense2 generated(const CsrMatrix<I, double> &A)
{
  return pctest::from_view(A.view());
}

template <class I>
std::vector<Case> catalogue()
{
  std::vector<Case> cases;
  cases.push_back({"empty 0x0", Dense2{}});
  {
    Dense2 M;
    M.nrows = 1;
    M.ncols = 5;
    M.entries[{0, 1}] = 2.0;
    M.entries[{0, 4}] = 3.0;
    cases.push_back({"single row 1x5", M});
  }
  {
    Dense2 M;
    M.nrows = M.ncols = 1;
    M.entries[{0, 0}] = 1.0;
    cases.push_back({"single entry 1x1", M});
  }
  {
    Dense2 M;
    M.nrows = M.ncols = 7;
    cases.push_back({"all rows empty 7x7", M});
  }
  {
    Dense2 M;
    M.nrows = 4;
    M.ncols = 9;
    cases.push_back({"all rows empty 4x9", M});
  }
  cases.push_back({"diagonal 12x12", from_edges(12, {}, true)});
  {
    std::vector<std::pair<std::int64_t, std::int64_t>> edges;
    for (std::int64_t i = 0; i + 1 < 19; ++i) edges.push_back({i, i + 1});
    cases.push_back({"path 19", from_edges(19, edges, false)});
  }
  {
    // Two paths, a triangle, isolated vertices (one with a diagonal entry), interleaved numbering.
    Dense2 M = from_edges(16, {{0, 2}, {2, 4}, {4, 6}, {1, 3}, {3, 5}, {7, 9}, {9, 11}, {7, 11}}, false);
    M.entries[{13, 13}] = 1.0;
    cases.push_back({"disconnected components", M});
  }
  cases.push_back({"2D grid 9x7", grid2d(9, 7)});
  cases.push_back({"3D grid 5^3", generated(poisson3d_7pt<I, double>(5))});
  cases.push_back({"rmat scale 8", generated(rmat<I, double>(8, 8))});
  {
    Dense2 M = pctest::random_matrix(40, 40, 0.08, 3);
    pctest::zero_rows(M, {5, 17, 31});
    cases.push_back({"non-symmetric 40x40 with empty rows", M});
  }
  cases.push_back({"rectangular 30x70", pctest::random_matrix(30, 70, 0.06, 4)});
  {
    Dense2 M = pctest::random_matrix(70, 30, 0.06, 5);
    pctest::zero_rows(M, {0, 69});
    cases.push_back({"rectangular 70x30 with empty rows", M});
  }
  std::vector<int> pattern_of, clique_of;
  cases.push_back({"identical row patterns 36x50", repeated_patterns(36, 50, 5, 6, pattern_of)});
  cases.push_back({"shuffled cliques", shuffled_cliques({4, 7, 3, 6}, 7, clique_of)});
  return cases;
}

using Row = std::vector<std::pair<std::int64_t, double>>;

std::vector<Row> rows_of(const Dense2 &M)
{
  std::vector<Row> rows(static_cast<std::size_t>(M.nrows));
  for (const auto &e : M.entries) rows[static_cast<std::size_t>(e.first.first)].push_back({e.first.second, e.second});
  return rows;
}

// P A: row k of the result is row perm[k] of A (independent of the library's permute_symmetric).
template <class I>
Dense2 permute_rows(const Dense2 &M, const std::vector<I> &perm)
{
  const auto old_to_new = inverse_permutation(perm);
  Dense2 P;
  P.nrows = M.nrows;
  P.ncols = M.ncols;
  for (const auto &e : M.entries) P.entries[{old_to_new[static_cast<std::size_t>(e.first.first)], e.first.second}] = e.second;
  return P;
}

// Every check the brief asks of any ordering result; returns "" or what failed.
template <class I>
std::string check_ordering(const Dense2 &M, const std::vector<I> &perm)
{
  const auto A = pctest::to_csr<I>(M);
  if (!is_permutation_of(perm, A.nrows)) return "not a permutation";
  // P A has the rows of A in the new order: the same multiset, row k = row perm[k].
  const Dense2 PA = permute_rows(M, perm);
  auto rows_a = rows_of(M), rows_pa = rows_of(PA);
  for (std::size_t k = 0; k < perm.size(); ++k)
    if (rows_pa[k] != rows_a[static_cast<std::size_t>(perm[k])]) return "row " + std::to_string(k) + " of P A is not row perm[k] of A";
  std::sort(rows_a.begin(), rows_a.end());
  std::sort(rows_pa.begin(), rows_pa.end());
  if (rows_a != rows_pa) return "P A does not have the multiset of rows of A";
  if (A.nrows == A.ncols) {
    // P A P^T from the generators (perm[old] = new) against the explicitly renumbered entries.
    const auto old_to_new = inverse_permutation(perm);
    const auto B = permute_symmetric(A.view(), old_to_new);
    Dense2 expected;
    expected.nrows = expected.ncols = M.nrows;
    for (const auto &e : M.entries)
      expected.entries[{old_to_new[static_cast<std::size_t>(e.first.first)], old_to_new[static_cast<std::size_t>(e.first.second)]}] =
          e.second;
    if (pctest::from_view(B.view()).entries != expected.entries) return "P A P^T differs from the renumbered entries";
    // A symmetric renumbering keeps the multiset of rows up to the renaming of columns: compare the
    // rows of P A P^T, columns mapped back to old numbers, with the rows of A.
    auto rows_b = rows_of(pctest::from_view(B.view()));
    for (auto &row : rows_b) {
      for (auto &entry : row) entry.first = perm[static_cast<std::size_t>(entry.first)];
      std::sort(row.begin(), row.end());
    }
    std::sort(rows_b.begin(), rows_b.end());
    if (rows_b != rows_a) return "P A P^T does not have the multiset of rows of A";
  }
  return "";
}

template <class I>
I bandwidth(const CsrMatrix<I, double> &A)
{
  I band = 0;
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) band = std::max<I>(band, static_cast<I>(std::abs(A.colidx[p] - i)));
  return band;
}

} // namespace

TEMPLATE_TEST_CASE("every ordering is a deterministic bijection that permutes the matrix", "[ordering]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const auto cases = catalogue<I>();
  for (const OrderingType type : all_orderings()) {
    for (const Case &cs : cases) {
      INFO(to_string(type) << " on " << cs.name);
      const auto A = pctest::to_csr<I>(cs.M);
      std::vector<I> first, second;
      try {
        first = compute_ordering(type, A.view());
        second = compute_ordering(type, A.view());
      } catch (const std::exception &e) {
        FAIL_CHECK("threw: " << e.what());
        continue;
      }
      CHECK(check_ordering<I>(cs.M, first) == "");
      CHECK(first == second);
    }
  }
}

TEST_CASE("every ordering accepts non-default options and float values", "[ordering]")
{
  OrderingOptions options;
  options.seed = 12345;
  options.parts = 3;
  options.hub_fraction = 1.0;
  options.gray_bits = 62;
  options.gray_dense_fraction = 0.0;
  std::vector<Case> cases;
  cases.push_back({"rmat scale 7", generated(rmat<std::int32_t, double>(7, 4))});
  cases.push_back({"rectangular 30x70", pctest::random_matrix(30, 70, 0.06, 8)});
  cases.push_back({"rectangular 70x30", pctest::random_matrix(70, 30, 0.06, 9)});
  for (const OrderingType type : all_orderings()) {
    for (const Case &cs : cases) {
      INFO(to_string(type) << " on " << cs.name);
      const auto A = pctest::to_csr<std::int64_t>(cs.M);
      CsrMatrix<std::int32_t, float> Af;
      Af.nrows = static_cast<std::int32_t>(A.nrows);
      Af.ncols = static_cast<std::int32_t>(A.ncols);
      Af.rowptr.assign(A.rowptr.begin(), A.rowptr.end());
      Af.colidx.assign(A.colidx.begin(), A.colidx.end());
      Af.values.assign(A.values.begin(), A.values.end());
      try {
        const auto perm64 = compute_ordering(type, A.view(), options);
        CHECK(check_ordering<std::int64_t>(cs.M, perm64) == "");
        CHECK(perm64 == compute_ordering(type, A.view(), options));
        // The index and value types do not change the result.
        const auto perm32 = compute_ordering(type, Af.view(), options);
        CHECK(std::vector<std::int64_t>(perm32.begin(), perm32.end()) == perm64);
      } catch (const std::exception &e) {
        FAIL_CHECK("threw: " << e.what());
      }
    }
  }
}

TEST_CASE("degree: rows by descending length, ties in original order", "[ordering]")
{
  for (const Case &cs : catalogue<std::int32_t>()) {
    INFO(cs.name);
    const auto A = pctest::to_csr<std::int32_t>(cs.M);
    const auto perm = compute_ordering(OrderingType::Degree, A.view());
    for (std::size_t k = 1; k < perm.size(); ++k) {
      const auto before = A.view().row_length(perm[k - 1]), after = A.view().row_length(perm[k]);
      CHECK(before >= after);
      if (before == after) CHECK(perm[k - 1] < perm[k]);
    }
  }
}

TEST_CASE("random: a seeded shuffle", "[ordering]")
{
  const auto A = pctest::to_csr<std::int32_t>(grid2d(10, 10));
  OrderingOptions one, two;
  one.seed = 1;
  two.seed = 2;
  const auto p1 = compute_ordering(OrderingType::Random, A.view(), one);
  const auto p2 = compute_ordering(OrderingType::Random, A.view(), two);
  CHECK(is_permutation_of(p1, A.nrows));
  CHECK(is_permutation_of(p2, A.nrows));
  CHECK(p1 != p2);
  CHECK(p1 == compute_ordering(OrderingType::Random, A.view(), one));
  std::vector<std::int32_t> identity(p1.size());
  std::iota(identity.begin(), identity.end(), 0);
  CHECK(p1 != identity);
}

TEST_CASE("rcm: restores a narrow band on a shuffled grid", "[ordering]")
{
  const std::int32_t side = 14;
  const auto grid = pctest::to_csr<std::int32_t>(grid2d(side, side));
  const auto shuffled = permute_symmetric(grid.view(), std::uint64_t(11));
  const auto perm = compute_ordering(OrderingType::Rcm, shuffled.view());
  REQUIRE(is_permutation_of(perm, shuffled.nrows));
  const auto reordered = permute_symmetric(shuffled.view(), inverse_permutation(perm));
  const auto before = bandwidth(shuffled), after = bandwidth(reordered);
  INFO("bandwidth shuffled " << before << ", after rcm " << after << ", natural " << bandwidth(grid));
  CHECK(after < before / 4);
  CHECK(after <= side + 2); // a breadth-first numbering of a grid: one anti-diagonal per level
}

TEST_CASE("rcm: every component is numbered, each contiguously", "[ordering]")
{
  const Dense2 M = from_edges(16, {{0, 2}, {2, 4}, {4, 6}, {1, 3}, {3, 5}, {7, 9}, {9, 11}, {7, 11}}, false);
  const auto A = pctest::to_csr<std::int32_t>(M);
  const auto perm = compute_ordering(OrderingType::Rcm, A.view());
  REQUIRE(is_permutation_of(perm, A.nrows));
  const std::vector<std::set<std::int32_t>> components = {{0, 2, 4, 6}, {1, 3, 5}, {7, 9, 11}};
  const auto position = inverse_permutation(perm);
  for (const auto &c : components) {
    std::vector<std::int32_t> at;
    for (auto v : c) at.push_back(position[static_cast<std::size_t>(v)]);
    CHECK(*std::max_element(at.begin(), at.end()) - *std::min_element(at.begin(), at.end()) + 1 ==
          static_cast<std::int32_t>(c.size()));
  }
  // A path is numbered from one end to the other.
  const std::vector<std::int32_t> path = {position[0], position[2], position[4], position[6]};
  CHECK((std::is_sorted(path.begin(), path.end()) || std::is_sorted(path.rbegin(), path.rend())));
}

TEST_CASE("slashburn: the highest-degree vertex comes first, isolated rows last", "[ordering]")
{
  for (const Case &cs : catalogue<std::int32_t>()) {
    const auto A = pctest::to_csr<std::int32_t>(cs.M);
    if (A.nrows == 0) continue;
    INFO(cs.name);
    const auto G = row_graph(A.view());
    std::int32_t max_degree = 0;
    for (std::int32_t v = 0; v < G.nrows; ++v) max_degree = std::max(max_degree, G.rowptr[v + 1] - G.rowptr[v]);
    const auto perm = compute_ordering(OrderingType::SlashBurn, A.view());
    CHECK(G.rowptr[perm[0] + 1] - G.rowptr[perm[0]] == max_degree);
  }
  // A star with an extra isolated vertex: the centre is the hub, the isolated vertex is last.
  std::vector<std::pair<std::int64_t, std::int64_t>> star;
  for (std::int64_t leaf = 1; leaf < 9; ++leaf) star.push_back({5, leaf == 5 ? 0 : leaf});
  const auto A = pctest::to_csr<std::int32_t>(from_edges(10, star, true));
  OrderingOptions options;
  options.hub_fraction = 0.1; // one hub per round
  const auto perm = compute_ordering(OrderingType::SlashBurn, A.view(), options);
  CHECK(perm.front() == 5);
  CHECK(perm.back() == 9);
}

TEST_CASE("gray: rows with identical patterns are adjacent", "[ordering]")
{
  std::vector<int> pattern_of;
  for (std::int64_t ncols : {50, 3000}) {
    const Dense2 M = repeated_patterns(48, ncols, 6, 21, pattern_of);
    const auto A = pctest::to_csr<std::int32_t>(M);
    for (const double dense_fraction : {0.1, 0.0}) {
      OrderingOptions options;
      options.gray_dense_fraction = dense_fraction; // 0: every nonempty row is dense
      options.gray_bits = 62;
      INFO("ncols " << ncols << ", gray_dense_fraction " << dense_fraction);
      const auto perm = compute_ordering(OrderingType::Gray, A.view(), options);
      REQUIRE(is_permutation_of(perm, A.nrows));
      // Identical patterns get the same word, hence the same rank: each pattern's rows form one run.
      // (With 62 bits, distinct patterns of 50 columns never share a word; with 3000 columns they
      // might, and the runs are then checked on the words instead.)
      std::set<int> finished;
      for (std::size_t k = 0; k < perm.size(); ++k) {
        const int p = pattern_of[static_cast<std::size_t>(perm[k])];
        if (k > 0 && pattern_of[static_cast<std::size_t>(perm[k - 1])] != p)
          finished.insert(pattern_of[static_cast<std::size_t>(perm[k - 1])]);
        CHECK(finished.count(p) == 0);
      }
    }
  }
  // Dense rows (more than gray_dense_fraction of the columns) come first, longest first.
  Dense2 M = pctest::random_matrix(20, 40, 0.05, 22);
  for (std::int64_t j = 0; j < 30; ++j) M.entries[{7, j}] = 1.0;
  for (std::int64_t j = 0; j < 20; ++j) M.entries[{13, j}] = 1.0;
  const auto A = pctest::to_csr<std::int32_t>(M);
  const auto perm = compute_ordering(OrderingType::Gray, A.view());
  CHECK(perm[0] == 7);
  CHECK(perm[1] == 13);
}

TEST_CASE("gray: sparse rows follow the Gray sequence of their column blocks", "[ordering]")
{
  // 4 bits over 4 columns: row i's word is its columns, column 0 the most significant bit. The
  // 4-bit reflected Gray sequence is 0000 0001 0011 0010 0110 0111 0101 0100 1100 ...
  const std::vector<std::vector<std::int64_t>> columns = {{0}, {3}, {2}, {2, 3}, {1, 2}, {}, {0, 1}};
  Dense2 M;
  M.nrows = static_cast<std::int64_t>(columns.size());
  M.ncols = 4;
  for (std::size_t i = 0; i < columns.size(); ++i)
    for (auto j : columns[i]) M.entries[{static_cast<std::int64_t>(i), j}] = 1.0;
  OrderingOptions options;
  options.gray_bits = 4;
  options.gray_dense_fraction = 1.0; // no dense rows
  const auto A = pctest::to_csr<std::int32_t>(M);
  // words: 1000 0001 0010 0011 0110 0000 1100 -> Gray ranks 15 1 3 2 4 0 8
  CHECK(compute_ordering(OrderingType::Gray, A.view(), options) == std::vector<std::int32_t>{5, 1, 3, 2, 4, 6, 0});
}

TEST_CASE("rabbit: each disconnected clique is contiguous", "[ordering]")
{
  for (std::uint64_t seed : {1, 2, 3}) {
    std::vector<int> clique_of;
    const Dense2 M = shuffled_cliques({5, 8, 3, 6, 4}, seed, clique_of);
    const auto A = pctest::to_csr<std::int32_t>(M);
    const auto perm = compute_ordering(OrderingType::Rabbit, A.view());
    REQUIRE(is_permutation_of(perm, A.nrows));
    std::set<int> finished;
    for (std::size_t k = 0; k < perm.size(); ++k) {
      const int c = clique_of[static_cast<std::size_t>(perm[k])];
      if (k > 0 && clique_of[static_cast<std::size_t>(perm[k - 1])] != c) finished.insert(clique_of[static_cast<std::size_t>(perm[k - 1])]);
      INFO("seed " << seed << ", position " << k);
      CHECK(finished.count(c) == 0);
    }
  }
}

TEST_CASE("row_graph matches a std::set specification", "[ordering]")
{
  Dense2 square = pctest::random_matrix(40, 40, 0.07, 31);
  pctest::zero_rows(square, {3, 22});
  for (const Dense2 &M : {square, pctest::random_matrix(30, 70, 0.05, 32), pctest::random_matrix(70, 30, 0.05, 33),
                          Dense2{}}) {
    INFO(M.nrows << " x " << M.ncols);
    std::vector<std::set<std::int64_t>> spec(static_cast<std::size_t>(M.nrows));
    if (M.nrows == M.ncols) {
      for (const auto &e : M.entries)
        if (e.first.first != e.first.second) {
          spec[static_cast<std::size_t>(e.first.first)].insert(e.first.second);
          spec[static_cast<std::size_t>(e.first.second)].insert(e.first.first);
        }
    } else {
      std::map<std::int64_t, std::set<std::int64_t>> rows_of_column;
      for (const auto &e : M.entries) rows_of_column[e.first.second].insert(e.first.first);
      for (const auto &c : rows_of_column)
        for (auto i : c.second)
          for (auto j : c.second)
            if (i != j) spec[static_cast<std::size_t>(i)].insert(j);
    }
    const auto A = pctest::to_csr<std::int32_t>(M);
    const auto G = row_graph(A.view());
    CHECK(G.nrows == A.nrows);
    CHECK(G.ncols == A.nrows);
    CHECK(G.values.empty());
    REQUIRE(G.rowptr.size() == static_cast<std::size_t>(M.nrows) + 1);
    for (std::int32_t i = 0; i < G.nrows; ++i) {
      const std::vector<std::int64_t> row(G.colidx.begin() + G.rowptr[i], G.colidx.begin() + G.rowptr[i + 1]);
      CHECK(row == std::vector<std::int64_t>(spec[static_cast<std::size_t>(i)].begin(), spec[static_cast<std::size_t>(i)].end()));
    }
  }
}

TEST_CASE("ordering names round-trip, and an unknown name lists the valid ones", "[ordering]")
{
  CHECK(all_orderings().size() == 11);
  for (const OrderingType type : all_orderings()) CHECK(ordering_from_string(to_string(type)) == type);
  try {
    ordering_from_string("reverse-cuthill");
    FAIL("no exception");
  } catch (const std::invalid_argument &e) {
    const std::string message = e.what();
    CHECK(message.find("reverse-cuthill") != std::string::npos);
    for (const OrderingType type : all_orderings()) CHECK(message.find(to_string(type)) != std::string::npos);
  }
}

TEST_CASE("invalid options are rejected by name", "[ordering]")
{
  const auto A = pctest::to_csr<std::int32_t>(grid2d(4, 4));
  auto rejects = [&](OrderingOptions options, const std::string &name) {
    INFO(name);
    try {
      compute_ordering(OrderingType::Degree, A.view(), options);
      FAIL_CHECK("accepted");
    } catch (const std::invalid_argument &e) {
      CHECK(std::string(e.what()).find(name) != std::string::npos);
    }
  };
  OrderingOptions o;
  o.hub_fraction = 0.0;
  rejects(o, "hub_fraction");
  o = {};
  o.hub_fraction = 1.5;
  rejects(o, "hub_fraction");
  o = {};
  o.gray_bits = 0;
  rejects(o, "gray_bits");
  o = {};
  o.gray_bits = 63;
  rejects(o, "gray_bits");
  o = {};
  o.gray_dense_fraction = -0.1;
  rejects(o, "gray_dense_fraction");
  o = {};
  o.parts = -1;
  rejects(o, "parts");
}

TEST_CASE("inverse_permutation and is_permutation_of", "[ordering]")
{
  const std::vector<std::int32_t> perm = {2, 0, 3, 1};
  CHECK(inverse_permutation(perm) == std::vector<std::int32_t>{1, 3, 0, 2});
  CHECK(is_permutation_of(perm, 4));
  CHECK_FALSE(is_permutation_of(perm, 5));
  CHECK_FALSE(is_permutation_of(std::vector<std::int32_t>{0, 0, 1}, 3));
  CHECK_FALSE(is_permutation_of(std::vector<std::int32_t>{0, 3, 1}, 3));
  CHECK_FALSE(is_permutation_of(std::vector<std::int32_t>{0, -1, 1}, 3));
  CHECK(is_permutation_of(std::vector<std::int64_t>{}, std::int64_t(0)));
}

TEST_CASE("with a block size, every ordering keeps the rows of a node together, in order", "[ordering]")
{
  using I = std::int32_t;
  // A node-shuffled 3D elasticity matrix (3 dofs per node) and a rectangular one with 2-row nodes.
  const auto E = elasticity3d_27pt<I, double>(4);
  const auto shuffled = permute_symmetric(E.view(), std::uint64_t(5), 3);
  const auto R = pctest::to_csr<I>(pctest::random_matrix(40, 17, 0.2, 9));
  for (const OrderingType type : all_orderings()) {
    for (const auto &[M, b] : {std::pair{&shuffled, 3}, std::pair{&R, 2}}) {
      INFO(to_string(type) << ", block size " << b << ", " << M->nrows << " x " << M->ncols);
      std::vector<I> perm;
      REQUIRE_NOTHROW(perm = compute_ordering(type, M->view(), OrderingOptions{}, b));
      CHECK(is_permutation_of(perm, M->nrows));
      bool whole_nodes = true;
      for (I r = 0; r < M->nrows; ++r) whole_nodes = whole_nodes && perm[r] % b == r % b && perm[r] - r % b == perm[r - r % b];
      CHECK(whole_nodes);
      CHECK(compute_ordering(type, M->view(), OrderingOptions{}, b) == perm); // deterministic
    }
  }
  // rcm on the node graph restores locality of the shuffled nodes.
  const auto perm = compute_ordering(OrderingType::Rcm, shuffled.view(), OrderingOptions{}, 3);
  const auto reordered = permute_symmetric(shuffled.view(), inverse_permutation(perm));
  CHECK(bandwidth(reordered) < bandwidth(shuffled));
  CHECK_THROWS_AS(compute_ordering(OrderingType::Rcm, R.view(), OrderingOptions{}, 3), std::invalid_argument); // 3 does not divide 40
}
