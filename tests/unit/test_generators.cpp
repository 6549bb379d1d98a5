// Problem generators: sizes, sorted rows, symmetry (pattern and values), determinism, value
// spread, and permute_symmetric == P A P^T (by node for block matrices, compared bit for bit by the
// core tests' compare_csr, reference.hpp).
#include "reference.hpp"

#include "pcluster/generators.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>
#include <vector>

using namespace pcluster;

namespace {

using Entries = std::map<std::pair<long long, long long>, double>;

template <class I, class V>
Entries entries(const CsrMatrix<I, V> &A)
{
  Entries m;
  for (I i = 0; i < A.nrows; ++i)
    for (I k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) m[{i, A.colidx[k]}] = static_cast<double>(A.values[k]);
  return m;
}

// Sorted unique rows, indices in range, values present.
template <class I, class V>
void check_well_formed(const CsrMatrix<I, V> &A)
{
  REQUIRE(A.rowptr.size() == static_cast<std::size_t>(A.nrows) + 1);
  REQUIRE(A.rowptr.front() == 0);
  REQUIRE(A.colidx.size() == static_cast<std::size_t>(A.rowptr.back()));
  REQUIRE(A.values.size() == A.colidx.size());
  for (I i = 0; i < A.nrows; ++i) {
    REQUIRE(A.rowptr[i] <= A.rowptr[i + 1]);
    for (I k = A.rowptr[i]; k < A.rowptr[i + 1]; ++k) {
      REQUIRE(A.colidx[k] >= 0);
      REQUIRE(A.colidx[k] < A.ncols);
      if (k > A.rowptr[i]) REQUIRE(A.colidx[k - 1] < A.colidx[k]);
    }
  }
}

bool symmetric(const Entries &e)
{
  for (const auto &x : e) {
    auto t = e.find({x.first.second, x.first.first});
    if (t == e.end() || t->second != x.second) return false;
  }
  return true;
}

std::size_t distinct_values(const Entries &e)
{
  std::set<double> s;
  for (const auto &x : e) s.insert(x.second);
  return s.size();
}

// diag = 1 + sum of |off-diagonal| in every row that has a diagonal
bool diagonally_dominant(const Entries &e)
{
  std::map<long long, double> off, diag;
  for (const auto &x : e) {
    if (x.first.first == x.first.second) diag[x.first.first] = x.second;
    else off[x.first.first] += std::abs(x.second);
  }
  for (const auto &d : diag)
    if (std::abs(d.second - (1.0 + off[d.first])) > 1e-12 * d.second) return false;
  return true;
}

} // namespace

TEMPLATE_TEST_CASE("stencil generators: sizes, symmetry, values", "[gen]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (I n : {I(1), I(2), I(5)}) {
    INFO("n = " << n);
    const long long nn = n, m = 3 * nn - 2;
    const auto P = poisson3d_7pt<I, double>(n);
    const auto S = stencil3d_27pt<I, double>(n);
    const auto E = elasticity3d_27pt<I, double>(n);
    check_well_formed(P);
    check_well_formed(S);
    check_well_formed(E);
    CHECK(P.nrows == nn * nn * nn);
    CHECK(P.nnz() == 7 * nn * nn * nn - 6 * nn * nn);
    CHECK(S.nrows == nn * nn * nn);
    CHECK(S.nnz() == m * m * m);
    CHECK(E.nrows == 3 * nn * nn * nn);
    CHECK(E.nnz() == 9 * m * m * m);
    for (const auto *A : {&P, &S, &E}) {
      const Entries e = entries(*A);
      CHECK(symmetric(e));
      CHECK(diagonally_dominant(e));
      if (n > 1) CHECK(distinct_values(e) > e.size() / 3);
    }
  }
  // the 7-point stencil of an interior node of a 3^3 grid: node 13, neighbours 4,10,12,14,16,22
  const auto P = poisson3d_7pt<I, double>(3);
  std::vector<I> row13(P.colidx.begin() + P.rowptr[13], P.colidx.begin() + P.rowptr[14]);
  CHECK(row13 == std::vector<I>{4, 10, 12, 13, 14, 16, 22});
  // elasticity: node-major, every coupled node pair is a full 3x3 block
  const auto E = elasticity3d_27pt<I, double>(2);
  for (I i = 0; i < E.nrows; ++i) CHECK(E.rowptr[i + 1] - E.rowptr[i] == 24); // 8 nodes x 3
}

TEST_CASE("generators are deterministic and seeded", "[gen]")
{
  CHECK(entries(poisson3d_7pt<std::int32_t, double>(4, 7)) == entries(poisson3d_7pt<std::int32_t, double>(4, 7)));
  CHECK(entries(poisson3d_7pt<std::int32_t, double>(4, 7)) != entries(poisson3d_7pt<std::int32_t, double>(4, 8)));
  CHECK(entries(rmat<std::int32_t, double>(8, 16, true, 3)) == entries(rmat<std::int32_t, double>(8, 16, true, 3)));
  CHECK(entries(rmat<std::int32_t, double>(8, 16, true, 3)) != entries(rmat<std::int32_t, double>(8, 16, true, 4)));
  CHECK(entries(random_geometric_2d<std::int32_t, double>(500, 5, false, 3)) == entries(random_geometric_2d<std::int32_t, double>(500, 5, false, 3)));
  CHECK(random_permutation<std::int64_t>(100, 5) == random_permutation<std::int64_t>(100, 5));
  CHECK(random_permutation<std::int64_t>(100, 5) != random_permutation<std::int64_t>(100, 6));
}

TEMPLATE_TEST_CASE("rmat: power-law graph, symmetric, diagonal or none", "[gen]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (bool diagonal : {false, true}) {
    INFO("diagonal = " << diagonal);
    const auto A = rmat<I, double>(10, 16, diagonal, 11);
    check_well_formed(A);
    CHECK(A.nrows == 1024);
    const Entries e = entries(A);
    CHECK(symmetric(e));
    long long diag = 0, maxdeg = 0;
    for (I i = 0; i < A.nrows; ++i) maxdeg = std::max<long long>(maxdeg, A.rowptr[i + 1] - A.rowptr[i]);
    for (const auto &x : e) diag += x.first.first == x.first.second;
    CHECK(diag == (diagonal ? A.nrows : 0));
    if (diagonal) CHECK(diagonally_dominant(e));
    CHECK(maxdeg > 10 * A.nnz() / A.nrows); // skewed degrees: hubs
    CHECK(A.nnz() > 16 * 1024);             // 16k edges both ways, minus duplicates
  }
  CHECK(rmat<std::int32_t, double>(0).nrows == 1);
  CHECK_THROWS_AS((rmat<std::int32_t, double>(40)), std::invalid_argument);
}

TEMPLATE_TEST_CASE("random geometric graph: degree ~5, local numbering, symmetric", "[gen]", std::int32_t, std::int64_t)
{
  using I = TestType;
  const I n = 20000;
  const auto A = random_geometric_2d<I, double>(n, 5.0, false, 2);
  check_well_formed(A);
  CHECK(A.nrows == n);
  const double deg = static_cast<double>(A.nnz()) / n;
  CHECK(deg > 4.5);
  CHECK(deg < 5.3);
  const Entries e = entries(A);
  CHECK(symmetric(e));
  long long far = 0;
  for (const auto &x : e) {
    CHECK(x.first.first != x.first.second);
    far += std::abs(x.first.first - x.first.second) > n / 10;
  }
  CHECK(far == 0); // cell-sorted numbering: neighbours are at most ~2 cell rows apart
  const auto D = random_geometric_2d<I, double>(n, 5.0, true, 2);
  CHECK(D.nnz() == A.nnz() + n);
  CHECK(diagonally_dominant(entries(D)));
  CHECK(random_geometric_2d<I, double>(0).nrows == 0);
  CHECK(random_geometric_2d<I, double>(1).nnz() == 0);
}

TEMPLATE_TEST_CASE("permute_symmetric is P A P^T, by node for block matrices", "[gen]", std::int32_t, std::int64_t)
{
  using I = TestType;
  {
    const auto A = stencil3d_27pt<I, double>(4);
    const auto perm = random_permutation<I>(A.nrows, 9);
    const auto B = permute_symmetric(A.view(), perm);
    check_well_formed(B);
    pctest::Dense2 want{A.nrows, A.ncols, {}};
    for (const auto &x : entries(A)) want.entries[{perm[x.first.first], perm[x.first.second]}] = x.second;
    CHECK(pctest::compare_csr(pctest::exactly(want), B) == "");
    CHECK(pctest::compare_csr(pctest::exactly(want), permute_symmetric(A.view(), std::uint64_t(9))) == "");
  }
  {
    const auto A = elasticity3d_27pt<I, double>(3);
    const auto perm = random_permutation<I>(A.nrows / 3, 4);
    const auto B = permute_symmetric(A.view(), perm, 3);
    check_well_formed(B);
    pctest::Dense2 want{A.nrows, A.ncols, {}};
    for (const auto &x : entries(A))
      want.entries[{3 * perm[x.first.first / 3] + x.first.first % 3, 3 * perm[x.first.second / 3] + x.first.second % 3}] = x.second;
    CHECK(pctest::compare_csr(pctest::exactly(want), B) == "");
    // blocks stay together: every row is a union of whole node blocks
    for (I i = 0; i < B.nrows; ++i)
      for (I k = B.rowptr[i]; k < B.rowptr[i + 1]; k += 3) {
        CHECK(B.colidx[k] % 3 == 0);
        CHECK(B.colidx[k + 2] == B.colidx[k] + 2);
      }
  }
  const auto A = poisson3d_7pt<I, double>(2);
  CHECK_THROWS_AS(permute_symmetric(A.view(), std::vector<I>{0, 1, 2}), std::invalid_argument);            // wrong length
  CHECK_THROWS_AS(permute_symmetric(A.view(), std::vector<I>{0, 1, 2, 3, 4, 5, 6, 6}), std::invalid_argument); // repeated
  CHECK_THROWS_AS(permute_symmetric(A.view(), std::uint64_t(1), 3), std::invalid_argument);                // 3 does not divide 8
  CsrMatrix<I, double> R;
  R.nrows = 2;
  R.ncols = 3;
  R.rowptr = {0, 0, 0};
  CHECK_THROWS_AS(permute_symmetric(R.view(), std::uint64_t(1)), std::invalid_argument);
}
