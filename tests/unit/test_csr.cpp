// CSR views: validate(), transpose(), checked_index() / IndexOverflow.
#include "reference.hpp"

#include "pcluster/csr.hpp"

#include "catch.hpp"

#include <omp.h>

#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

TEMPLATE_TEST_CASE("transpose matches the reference", "[csr]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const auto &cs : pctest::product_cases()) {
    for (const Dense2 *D : {&cs.A, &cs.B}) {
      INFO(cs.name);
      const auto A = pctest::to_csr<I>(*D);
      const auto At = transpose<I, double>(A.view());
      REQUIRE(At.values.size() == At.colidx.size());
      CHECK(pctest::compare_csr(pctest::exactly(pctest::transposed(*D)), At) == "");
      // Transposing twice gives A back.
      const auto Att = transpose<I, double>(At.view());
      CHECK(Att.rowptr == A.rowptr);
      CHECK(Att.colidx == A.colidx);
      CHECK(Att.values == A.values);
    }
  }
}

TEST_CASE("transpose of a pattern view keeps the pattern", "[csr]")
{
  using I = std::int32_t;
  const Dense2 D = pctest::random_matrix(13, 17, 0.3, 5);
  const auto A = pctest::to_csr<I>(D);
  auto Av = A.view();
  Av.values = nullptr;
  const auto At = transpose<I, double>(Av);
  // Values of a pattern transpose are either absent or all ones.
  CHECK(pctest::compare_csr(pctest::exactly(pctest::transposed(pctest::ones(D))), At) == "");
}

TEST_CASE("validate(CsrView) accepts valid matrices and names the operand and row of a bad one", "[csr][errors]")
{
  using I = std::int32_t;
  const auto good = pctest::to_csr<I>(pctest::random_matrix(6, 5, 0.5, 3));
  CHECK_NOTHROW(validate(good.view(), "A"));
  CHECK_NOTHROW(validate(pctest::to_csr<I>(pctest::random_matrix(0, 5, 0.5, 3)).view(), "A"));

  auto expect_bad = [](const CsrMatrix<I, double> &M, const char *what) {
    INFO(what);
    bool threw = false;
    try {
      validate(M.view(), "Bname");
    } catch (const std::invalid_argument &e) {
      threw = true;
      CHECK(std::string(e.what()).find("Bname") != std::string::npos);
    }
    CHECK(threw);
  };
  // 2x3: row 0 = {0, 2}, row 1 = {1}
  CsrMatrix<I, double> M;
  M.nrows = 2;
  M.ncols = 3;
  M.rowptr = {0, 2, 3};
  M.colidx = {0, 2, 1};
  M.values = {1, 2, 3};
  CHECK_NOTHROW(validate(M.view(), "M"));
  {
    auto X = M;
    X.colidx = {2, 0, 1};
    expect_bad(X, "unsorted row");
  }
  {
    auto X = M;
    X.colidx = {0, 0, 1};
    expect_bad(X, "duplicate column");
  }
  {
    auto X = M;
    X.colidx = {0, 3, 1};
    expect_bad(X, "column out of range");
  }
  {
    auto X = M;
    X.colidx = {-1, 2, 1};
    expect_bad(X, "negative column");
  }
  {
    auto X = M;
    X.rowptr = {0, 3, 2};
    expect_bad(X, "decreasing rowptr");
  }
  {
    auto X = M;
    X.rowptr = {1, 2, 3};
    expect_bad(X, "rowptr[0] != 0");
  }
}

TEST_CASE("validate(CsrView) agrees with a row-by-row check on corrupted matrices with empty and long rows", "[csr][errors]")
{
  // validate() checks flat arrays (descents of the column array only where nonempty rows start);
  // this spells the rule out row by row and corrupts one entry at a time, where rows end and inside.
  using I = std::int32_t;
  auto spec_ok = [](const CsrMatrix<I, double> &M) {
    for (I i = 0; i < M.nrows; ++i)
      for (I p = M.rowptr[i]; p < M.rowptr[i + 1]; ++p) {
        if (M.colidx[p] < 0 || M.colidx[p] >= M.ncols) return false;
        if (p > M.rowptr[i] && M.colidx[p - 1] >= M.colidx[p]) return false;
      }
    return true;
  };
  std::mt19937 rng(11);
  for (int trial = 0; trial < 300; ++trial) {
    // Rows of about 20 of 60 columns, a third of them empty.
    CsrMatrix<I, double> M;
    M.nrows = 1 + static_cast<I>(rng() % 30);
    M.ncols = 60;
    M.rowptr = {0};
    for (I i = 0; i < M.nrows; ++i) {
      std::vector<I> row;
      if (rng() % 3 != 0)
        for (I j = 0; j < M.ncols; ++j)
          if (rng() % 3 == 0) row.push_back(j);
      M.colidx.insert(M.colidx.end(), row.begin(), row.end());
      M.rowptr.push_back(static_cast<I>(M.colidx.size()));
    }
    M.values.assign(M.colidx.size(), 1.0);
    REQUIRE_NOTHROW(validate(M.view(), "M"));
    if (M.colidx.empty()) continue;
    const std::size_t p = rng() % M.colidx.size();
    switch (rng() % 4) {
    case 0: M.colidx[p] = p > 0 ? M.colidx[p - 1] : M.colidx[p]; break; // duplicate of the entry before (or nothing)
    case 1: M.colidx[p] = static_cast<I>(rng() % 60); break;             // anywhere in range
    case 2: M.colidx[p] = rng() % 2 ? M.ncols : -1; break;               // out of range
    default: std::swap(M.colidx[p], M.colidx[(p + 1) % M.colidx.size()]); // swapped with the next
    }
    INFO("trial " << trial);
    if (spec_ok(M)) CHECK_NOTHROW(validate(M.view(), "M"));
    else CHECK_THROWS_AS(validate(M.view(), "M"), std::invalid_argument);
  }
}

TEST_CASE("checked_index detects overflow of the index type", "[csr][errors]")
{
  const Count max32 = std::numeric_limits<std::int32_t>::max();
  CHECK(checked_index<std::int32_t>(0, "n") == 0);
  CHECK(checked_index<std::int32_t>(max32, "n") == std::numeric_limits<std::int32_t>::max());
  CHECK_THROWS_AS(checked_index<std::int32_t>(max32 + 1, "nnz(C)"), IndexOverflow);
  CHECK_THROWS_AS(checked_index<std::int32_t>(-1, "nnz(C)"), IndexOverflow);
  CHECK(checked_index<std::int64_t>(max32 + 1, "n") == max32 + 1);
  try {
    checked_index<std::int32_t>(Count(1) << 40, "nnz(C)");
    FAIL("no exception");
  } catch (const IndexOverflow &e) {
    CHECK(std::string(e.what()).find("nnz(C)") != std::string::npos);
  }
  // IndexOverflow is a std::overflow_error (callers may catch the standard type).
  CHECK_THROWS_AS(checked_index<std::int32_t>(Count(1) << 33, "x"), std::overflow_error);
}

TEST_CASE("transpose is the same for any number of threads, and its source map gathers the values", "[csr][threads]")
{
  using I = std::int32_t;
  // Large enough (> 2^15 entries) for the parallel path; empty rows and columns included.
  Dense2 D = pctest::random_matrix(600, 500, 0.15, 11);
  pctest::zero_rows(D, {0, 1, 250, 599});
  pctest::zero_cols(D, {0, 7, 499});
  const auto A = pctest::to_csr<I>(D);
  REQUIRE(A.nnz() > (1 << 15));
  const pctest::Reference T = pctest::exactly(pctest::transposed(D));
  const int saved = omp_get_max_threads();
  for (int nt : {1, 2, 3, 4}) {
    INFO("threads " << nt);
    omp_set_num_threads(nt);
    std::vector<I> source;
    const auto At = transpose<I, double>(A.view(), &source);
    CHECK(pctest::compare_csr(T, At) == "");
    REQUIRE(source.size() == At.colidx.size());
    bool gathers = true;
    for (std::size_t q = 0; q < source.size(); ++q) gathers = gathers && At.values[q] == A.values[source[q]];
    CHECK(gathers);
  }
  omp_set_num_threads(saved);
}

TEMPLATE_TEST_CASE("permute is P A Q^T with a source map that gathers the values", "[csr]", std::int32_t, std::int64_t)
{
  using I = TestType;
  // Large enough for the parallel path; empty rows and columns, and a rectangular shape.
  Dense2 D = pctest::random_matrix(400, 300, 0.12, 17);
  pctest::zero_rows(D, {0, 399});
  pctest::zero_cols(D, {5});
  const auto A = pctest::to_csr<I>(D);
  std::vector<I> rows(400), cols(300);
  for (I r = 0; r < 400; ++r) rows[r] = (r * 7 + 3) % 400;  // new -> old (7 is prime to 400)
  for (I j = 0; j < 300; ++j) cols[j] = (j * 11 + 5) % 300; // old -> new (11 is prime to 300)
  for (bool permute_rows : {false, true})
    for (bool permute_cols : {false, true}) {
      INFO("rows " << permute_rows << " cols " << permute_cols);
      Dense2 want;
      want.nrows = 400;
      want.ncols = 300;
      std::vector<I> new_row(400);
      for (I r = 0; r < 400; ++r) new_row[permute_rows ? rows[r] : r] = r;
      for (const auto &e : D.entries)
        want.entries[{new_row[e.first.first], permute_cols ? cols[e.first.second] : e.first.second}] = e.second;
      std::vector<I> source;
      const auto P = permute<I, double>(A.view(), permute_rows ? rows.data() : nullptr, permute_cols ? cols.data() : nullptr, &source);
      CHECK(pctest::compare_csr(pctest::exactly(want), P) == "");
      REQUIRE(source.size() == P.colidx.size());
      bool gathers = true;
      for (std::size_t q = 0; q < source.size(); ++q) gathers = gathers && P.values[q] == A.values[source[q]];
      CHECK(gathers);
    }
}
