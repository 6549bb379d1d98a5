// The library-backed orderings: amd (SuiteSparse AMD), nd (METIS_NodeND), gp (METIS k-way), hp
// (Zoltan PHG). Beyond the generic checks of test_ordering.cpp (every ordering a bijection):
//  - bijections on the awkward shapes (empty, one row, diagonal only, disconnected, rectangular,
//    non-symmetric), for 32- and 64-bit indices, and determinism for a fixed seed;
//  - amd and nd reduce the fill of a symbolic Cholesky factorisation of a grid below the natural
//    order's (this also pins the new-to-old convention: the inverse permutation would not);
//  - gp and hp lay their parts out as contiguous blocks, in original order inside a block, balanced
//    within the tolerance passed to METIS / Zoltan, and cut fewer edges / nets of a shuffled grid
//    than a random order cut into the same blocks.
// Own main: Zoltan needs MPI, initialised and finalised around the Catch session here.
#define CATCH_CONFIG_RUNNER
#include "catch.hpp"

#include "ordering/partition.hpp" // src/: the partitions behind gp and hp

#include "pcluster/generators.hpp"
#include "pcluster/ordering.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <vector>

using namespace pcluster;

namespace {

const OrderingType kLibOrderings[] = {OrderingType::Amd, OrderingType::Nd, OrderingType::Gp, OrderingType::Hp};

template <class I>
CsrMatrix<I, double> from_rows(I nrows, I ncols, const std::vector<std::set<std::int64_t>> &rows)
{
  CsrMatrix<I, double> A;
  A.nrows = nrows;
  A.ncols = ncols;
  for (const auto &r : rows) {
    for (const auto j : r) {
      A.colidx.push_back(static_cast<I>(j));
      A.values.push_back(1.0 + static_cast<double>(j % 7));
    }
    A.rowptr.push_back(static_cast<I>(A.colidx.size()));
  }
  return A;
}

// k x k 5-point grid with diagonal, lexicographic numbering.
template <class I>
CsrMatrix<I, double> grid2d(std::int64_t k)
{
  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(k * k));
  for (std::int64_t y = 0; y < k; ++y)
    for (std::int64_t x = 0; x < k; ++x) {
      auto &r = rows[static_cast<std::size_t>(y * k + x)];
      r.insert(y * k + x);
      if (x > 0) r.insert(y * k + x - 1);
      if (x + 1 < k) r.insert(y * k + x + 1);
      if (y > 0) r.insert((y - 1) * k + x);
      if (y + 1 < k) r.insert((y + 1) * k + x);
    }
  return from_rows<I>(static_cast<I>(k * k), static_cast<I>(k * k), rows);
}

// Random pattern: every entry present with probability density (seeded, own Bernoulli: the
// standard distributions are implementation-defined). With upper, only j >= i (non-symmetric).
template <class I>
CsrMatrix<I, double> random_pattern(std::int64_t m, std::int64_t n, double density, bool upper, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t j = upper ? i : 0; j < n; ++j)
      if (static_cast<double>(rng() >> 11) * 0x1.0p-53 < density) rows[static_cast<std::size_t>(i)].insert(j);
  return from_rows<I>(static_cast<I>(m), static_cast<I>(n), rows);
}

template <class I>
std::vector<std::pair<std::string, CsrMatrix<I, double>>> awkward_matrices()
{
  std::vector<std::pair<std::string, CsrMatrix<I, double>>> out;
  out.push_back({"empty 0x0", from_rows<I>(0, 0, {})});
  out.push_back({"0 rows x 5 columns", from_rows<I>(0, 5, {})});
  out.push_back({"single row 1x1", from_rows<I>(1, 1, {{0}})});
  out.push_back({"single empty row 1x3", from_rows<I>(1, 3, {{}})});
  out.push_back({"single row 1x6", from_rows<I>(1, 6, {{0, 2, 5}})});
  out.push_back({"two rows 2x2", from_rows<I>(2, 2, {{0, 1}, {0, 1}})});
  out.push_back({"empty rows 7x7", from_rows<I>(7, 7, std::vector<std::set<std::int64_t>>(7))});
  std::vector<std::set<std::int64_t>> diag(40);
  for (std::int64_t i = 0; i < 40; ++i) diag[static_cast<std::size_t>(i)] = {i};
  out.push_back({"diagonal only 40x40", from_rows<I>(40, 40, diag)});
  {
    // Two grids, isolated vertices and an empty row: disconnected.
    const auto g = grid2d<I>(6);
    std::vector<std::set<std::int64_t>> rows;
    for (int copy = 0; copy < 2; ++copy)
      for (I i = 0; i < g.nrows; ++i) {
        std::set<std::int64_t> r;
        for (I p = g.rowptr[i]; p < g.rowptr[i + 1]; ++p) r.insert(g.colidx[p] + copy * 36);
        rows.push_back(r);
      }
    for (std::int64_t i = 72; i < 80; ++i) rows.push_back({i});
    rows.push_back({});
    out.push_back({"disconnected 81x81", from_rows<I>(81, 81, rows)});
  }
  out.push_back({"grid 12x12", grid2d<I>(12)});
  out.push_back({"rectangular 60x200", random_pattern<I>(60, 200, 0.03, false, 3)});
  out.push_back({"rectangular 300x40", random_pattern<I>(300, 40, 0.05, false, 4)});
  out.push_back({"non-symmetric 150x150", random_pattern<I>(150, 150, 0.02, true, 5)});
  out.push_back({"non-symmetric dense-ish 50x50", random_pattern<I>(50, 50, 0.3, false, 6)});
  return out;
}

template <class I>
std::vector<I> inverse(const std::vector<I> &perm)
{
  std::vector<I> inv(perm.size());
  for (std::size_t k = 0; k < perm.size(); ++k) inv[static_cast<std::size_t>(perm[k])] = static_cast<I>(k);
  return inv;
}

// Entries below the diagonal of the Cholesky factor of P (A + A^T) P^T, P from perm (new to old),
// by explicit elimination on adjacency sets: the spec, simple and only for small graphs.
template <class I>
std::int64_t cholesky_fill(const CsrMatrix<I, double> &A, const std::vector<I> &perm)
{
  const auto inv = inverse(perm);
  std::vector<std::set<I>> adj(static_cast<std::size_t>(A.nrows));
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) {
      const I a = inv[static_cast<std::size_t>(i)], b = inv[static_cast<std::size_t>(A.colidx[p])];
      if (a == b) continue;
      adj[static_cast<std::size_t>(a)].insert(b);
      adj[static_cast<std::size_t>(b)].insert(a);
    }
  std::int64_t nnz_l = 0;
  for (I k = 0; k < A.nrows; ++k) {
    std::vector<I> later;
    for (const I j : adj[static_cast<std::size_t>(k)])
      if (j > k) later.push_back(j);
    nnz_l += static_cast<std::int64_t>(later.size());
    for (const I a : later)
      for (const I b : later)
        if (a != b) adj[static_cast<std::size_t>(a)].insert(b);
  }
  return nnz_l;
}

// Block of every row when the rows are laid out in the order perm and cut into consecutive blocks
// of the given sizes.
template <class I>
std::vector<int> blocks_of_rows(const std::vector<I> &perm, const std::vector<std::int64_t> &sizes)
{
  std::vector<int> block(perm.size());
  std::size_t k = 0;
  for (std::size_t b = 0; b < sizes.size(); ++b)
    for (std::int64_t t = 0; t < sizes[b]; ++t) block[static_cast<std::size_t>(perm[k++])] = static_cast<int>(b);
  REQUIRE(k == perm.size());
  return block;
}

// Off-diagonal entries (i, j) of a square A with i, j in different blocks (each edge of a symmetric
// pattern counted twice, for both orders alike).
template <class I>
std::int64_t edge_cut(const CsrMatrix<I, double> &A, const std::vector<int> &block)
{
  std::int64_t cut = 0;
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p)
      cut += block[static_cast<std::size_t>(i)] != block[static_cast<std::size_t>(A.colidx[p])];
  return cut;
}

// Columns (nets) whose rows (pins) lie in more than one block.
template <class I>
std::int64_t cut_nets(const CsrMatrix<I, double> &A, const std::vector<int> &block)
{
  std::vector<int> first(static_cast<std::size_t>(A.ncols), -1);
  std::vector<char> cut(static_cast<std::size_t>(A.ncols), 0);
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) {
      auto &f = first[static_cast<std::size_t>(A.colidx[p])];
      if (f < 0) f = block[static_cast<std::size_t>(i)];
      else if (f != block[static_cast<std::size_t>(i)]) cut[static_cast<std::size_t>(A.colidx[p])] = 1;
    }
  return std::count(cut.begin(), cut.end(), 1);
}

template <class I>
detail::RowPartition partition_of(OrderingType type, const CsrView<I, double> &A, const OrderingOptions &o)
{
  return type == OrderingType::Gp ? detail::partition_rows_gp(A, o) : detail::partition_rows_hp(A, o);
}

} // namespace

TEMPLATE_TEST_CASE("library orderings return bijections on awkward shapes", "[ordering][libs]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const auto &[name, A] : awkward_matrices<I>())
    for (const auto type : kLibOrderings)
      for (const int parts : {0, 1, 3, 1000}) {
        if (parts != 0 && type != OrderingType::Gp && type != OrderingType::Hp) continue;
        OrderingOptions o;
        o.parts = parts;
        INFO(name << ", ordering " << to_string(type) << ", parts " << parts);
        const auto perm = compute_ordering(type, A.view(), o);
        CHECK(is_permutation_of(perm, A.nrows));
      }
}

TEMPLATE_TEST_CASE("library orderings are deterministic for a fixed seed", "[ordering][libs]", std::int32_t, std::int64_t)
{
  using I = TestType;
  const auto grid = permute_symmetric(grid2d<I>(20).view(), std::uint64_t(11));
  const auto rect = random_pattern<I>(120, 400, 0.02, false, 7);
  for (const auto *A : {&grid, &rect})
    for (const auto type : kLibOrderings)
      for (const std::uint64_t seed : {1u, 42u}) {
        OrderingOptions o;
        o.seed = seed;
        o.parts = 6;
        INFO("ordering " << to_string(type) << ", seed " << seed << ", " << A->nrows << " x " << A->ncols);
        const auto first = compute_ordering(type, A->view(), o);
        // Something in between, so that state a library keeps between calls would show.
        (void)compute_ordering(type, rect.view(), OrderingOptions{});
        const auto second = compute_ordering(type, A->view(), o);
        CHECK(first == second);
      }
}

TEST_CASE("amd and nd reduce Cholesky fill on a grid below the natural order's", "[ordering][libs]")
{
  using I = std::int32_t;
  const auto A = grid2d<I>(24);
  std::vector<I> natural(static_cast<std::size_t>(A.nrows));
  for (I i = 0; i < A.nrows; ++i) natural[static_cast<std::size_t>(i)] = i;
  const auto fill_natural = cholesky_fill(A, natural);
  for (const auto type : {OrderingType::Amd, OrderingType::Nd}) {
    const auto perm = compute_ordering(type, A.view());
    REQUIRE(is_permutation_of(perm, A.nrows));
    CHECK(perm != natural);
    const auto fill = cholesky_fill(A, perm);
    INFO(to_string(type) << ": fill " << fill << ", natural " << fill_natural);
    CHECK(fill < fill_natural * 3 / 4);
  }
  // Shuffled, the natural order is much worse; AMD and ND do not care about the input order.
  const auto S = permute_symmetric(A.view(), std::uint64_t(5));
  for (const auto type : {OrderingType::Amd, OrderingType::Nd})
    CHECK(cholesky_fill(S, compute_ordering(type, S.view())) < cholesky_fill(S, natural) / 2);
}

TEMPLATE_TEST_CASE("gp and hp: balanced contiguous parts that cut less than a random order", "[ordering][libs]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const auto A = permute_symmetric(grid2d<I>(32).view(), std::uint64_t(9)); // 1024 rows
  for (const auto type : {OrderingType::Gp, OrderingType::Hp})
    for (const int parts : {2, 8}) {
      INFO("ordering " << to_string(type) << ", parts " << parts);
      OrderingOptions o;
      o.parts = parts;
      o.seed = 3;
      const auto perm = compute_ordering(type, A.view(), o);
      const auto P = partition_of(type, A.view(), o);
      REQUIRE(P.nparts == parts);
      REQUIRE(P.part.size() == static_cast<std::size_t>(A.nrows));

      // Rows by part, original order inside a part: exactly the stable counting sort of the parts.
      std::vector<I> expected;
      for (int p = 0; p < parts; ++p)
        for (I i = 0; i < A.nrows; ++i)
          if (P.part[static_cast<std::size_t>(i)] == p) expected.push_back(i);
      CHECK(perm == expected);

      // Balance within the tolerance given to the partitioner (+1 row for rounding).
      std::vector<std::int64_t> sizes(static_cast<std::size_t>(parts), 0);
      for (const int p : P.part) ++sizes[static_cast<std::size_t>(p)];
      const double tol = type == OrderingType::Gp ? detail::kGpImbalance : detail::kHpImbalance;
      const double average = static_cast<double>(A.nrows) / parts;
      for (const auto s : sizes) {
        INFO("part of " << s << " rows, average " << average << ", tolerance " << tol);
        CHECK(static_cast<double>(s) <= tol * average + 1);
        CHECK(s > 0);
      }

      // The ordering's blocks are its parts; they cut less than a random order in the same blocks.
      const auto block = blocks_of_rows(perm, sizes);
      for (I i = 0; i < A.nrows; ++i) CHECK(block[static_cast<std::size_t>(i)] == P.part[static_cast<std::size_t>(i)]);
      OrderingOptions r;
      r.seed = 17;
      const auto random_block = blocks_of_rows(compute_ordering(OrderingType::Random, A.view(), r), sizes);
      const auto cut = type == OrderingType::Gp ? edge_cut(A, block) : cut_nets(A, block);
      const auto random_cut = type == OrderingType::Gp ? edge_cut(A, random_block) : cut_nets(A, random_block);
      INFO((type == OrderingType::Gp ? "edge cut " : "cut nets ") << cut << ", random order " << random_cut);
      CHECK(cut * 3 < random_cut);
    }
}

TEST_CASE("hp partitions rectangular and non-symmetric patterns by their column nets", "[ordering][libs]")
{
  using I = std::int32_t;
  // Rows in 4 groups with disjoint column ranges, interleaved: hp with 4 parts must find the groups
  // (no cut net), whatever the symmetry; a random order in the same blocks cuts most nets.
  const std::int64_t m = 200, n = 120;
  std::mt19937_64 rng(8);
  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(m));
  for (std::int64_t i = 0; i < m; ++i) {
    const std::int64_t g = i % 4;
    for (int t = 0; t < 4; ++t) rows[static_cast<std::size_t>(i)].insert(g * 30 + static_cast<std::int64_t>(rng() % 30));
  }
  const auto A = from_rows<I>(static_cast<I>(m), static_cast<I>(n), rows);
  OrderingOptions o;
  o.parts = 4;
  const auto P = detail::partition_rows_hp(A.view(), o);
  std::vector<std::int64_t> sizes(4, 0);
  for (const int p : P.part) ++sizes[static_cast<std::size_t>(p)];
  const auto perm = compute_ordering(OrderingType::Hp, A.view(), o);
  const auto cut = cut_nets(A, blocks_of_rows(perm, sizes));
  const auto random_cut = cut_nets(A, blocks_of_rows(compute_ordering(OrderingType::Random, A.view()), sizes));
  INFO("cut nets " << cut << ", random order " << random_cut);
  CHECK(cut == 0);
  CHECK(random_cut > 60);
  // gp sees the same groups through the rows-sharing-a-column graph.
  const auto G = detail::partition_rows_gp(A.view(), o);
  std::vector<std::int64_t> gsizes(4, 0);
  for (const int p : G.part) ++gsizes[static_cast<std::size_t>(p)];
  CHECK(cut_nets(A, blocks_of_rows(compute_ordering(OrderingType::Gp, A.view(), o), gsizes)) == 0);
}

int main(int argc, char *argv[])
{
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_SERIALIZED, &provided);
  const int result = Catch::Session().run(argc, argv);
  MPI_Finalize();
  return result;
}
