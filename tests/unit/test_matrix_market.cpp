// Matrix Market reader/writer (written with the reader): accepted variants, every malformed case
// (message names the file and the line), round trips, and the shared real matrices against their
// MANIFEST. test_matrix_market_io.cpp tests the same reader independently. Matrices read are
// compared with what they must be by the core tests' compare_csr (reference.hpp), bit for bit.
#include "reference.hpp"

#include "pcluster/matrix_market.hpp"

#include "catch.hpp"

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

using namespace pcluster;

namespace {

// An m x n matrix that a file read must give exactly.
pctest::Reference exactly(std::int64_t m, std::int64_t n, pctest::Entries e) { return pctest::exactly(pctest::Dense2{m, n, std::move(e)}); }

template <class I, class V>
bool rows_sorted_unique(const CsrMatrix<I, V> &A)
{
  for (I i = 0; i < A.nrows; ++i)
    for (I k = A.rowptr[i] + 1; k < A.rowptr[i + 1]; ++k)
      if (A.colidx[k - 1] >= A.colidx[k]) return false;
  return true;
}

// The error for `text` must be a MatrixMarketError on `line` whose message starts "name:line:"
// and contains `words`.
void expect_error(const std::string &text, long line, const std::string &words)
{
  INFO(text);
  try {
    parse_matrix_market<std::int32_t, double>(text, "snippet.mtx");
    FAIL("no exception");
  } catch (const MatrixMarketError &e) {
    const std::string what = e.what();
    INFO(what);
    CHECK(e.file == "snippet.mtx");
    CHECK(e.line == line);
    CHECK(what.rfind("snippet.mtx:" + std::to_string(line) + ":", 0) == 0);
    CHECK(what.find(words) != std::string::npos);
  }
}

const std::string kGeneral = "%%MatrixMarket matrix coordinate real general\n";

} // namespace

TEMPLATE_TEST_CASE("Matrix Market: general real, duplicates summed, rows sorted", "[mm]", std::int32_t, std::int64_t)
{
  using I = TestType;
  const std::string text = "%%MatrixMarket Matrix Coordinate Real General\r\n% a comment\r\n\r\n3 4 5\r\n3 4 1.5\r\n1 2 -2\r\n"
                           "1 1 +1e1\r\n1 2 0.5\r\n\r\n2 3 2.5D-1\r\n";
  MatrixMarketInfo info;
  const auto A = parse_matrix_market<I, double>(text, "x.mtx", &info);
  CHECK(A.nrows == 3);
  CHECK(A.ncols == 4);
  CHECK(rows_sorted_unique(A));
  CHECK(pctest::compare_csr(exactly(3, 4, {{{0, 0}, 10.0}, {{0, 1}, -1.5}, {{1, 2}, 0.25}, {{2, 3}, 1.5}}), A) == "");
  CHECK(info.field == "real");
  CHECK(info.symmetry == "general");
  CHECK(info.entries_stored == 5);
  CHECK(info.nnz == 4);
}

TEST_CASE("Matrix Market: symmetric, skew-symmetric, pattern and integer fields", "[mm]")
{
  {
    const auto A = parse_matrix_market<std::int32_t, double>("%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n1 1 4\n2 1 -1\n3 2 -2\n", "s");
    CHECK(pctest::compare_csr(exactly(3, 3, {{{0, 0}, 4}, {{0, 1}, -1}, {{1, 0}, -1}, {{1, 2}, -2}, {{2, 1}, -2}}), A) == "");
  }
  {
    const auto A = parse_matrix_market<std::int64_t, float>("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n2 1 3\n", "k");
    CHECK(pctest::compare_csr(exactly(2, 2, {{{0, 1}, -3}, {{1, 0}, 3}}), A) == "");
  }
  {
    const auto A = parse_matrix_market<std::int32_t, double>("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n2 1\n3 3\n", "p");
    CHECK(pctest::compare_csr(exactly(3, 3, {{{0, 1}, 1}, {{1, 0}, 1}, {{2, 2}, 1}}), A) == "");
  }
  {
    const auto A = parse_matrix_market<std::int32_t, double>("%%MatrixMarket matrix coordinate integer general\n1 2 2\n1 2 -7\n1 1 3\n", "i");
    CHECK(pctest::compare_csr(exactly(1, 2, {{{0, 0}, 3}, {{0, 1}, -7}}), A) == "");
  }
  {
    const auto A = parse_matrix_market<std::int32_t, double>(kGeneral + "0 0 0\n", "empty");
    CHECK(A.nrows == 0);
    CHECK(A.rowptr.size() == 1);
    CHECK(A.nnz() == 0);
  }
  {
    const auto A = parse_matrix_market<std::int32_t, double>(kGeneral + "4 2 0\n", "no entries");
    CHECK(A.nrows == 4);
    CHECK(A.rowptr == std::vector<std::int32_t>(5, 0));
  }
}

TEST_CASE("Matrix Market: malformed input names the file and the line", "[mm]")
{
  expect_error("", 1, "empty file");
  expect_error("%MatrixMarket matrix coordinate real general\n1 1 1\n1 1 1\n", 1, "bad banner");
  expect_error("%%MatrixMarket vector coordinate real general\n", 1, "object");
  expect_error("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n", 1, "'array' format is not supported");
  expect_error("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n", 1, "complex");
  expect_error("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n", 1, "hermitian");
  expect_error("%%MatrixMarket matrix coordinate real weird\n", 1, "symmetry");
  expect_error("%%MatrixMarket matrix coordinate real general extra\n", 1, "after the symmetry");
  expect_error(kGeneral, 2, "before the size line");
  expect_error(kGeneral + "% c\n2 2\n1 1 1\n", 3, "bad size line");
  expect_error(kGeneral + "2 x 1\n", 2, "bad size line");
  expect_error(kGeneral + "2 -2 1\n", 2, "negative");
  expect_error(kGeneral + "3000000000 2 1\n1 1 1\n", 2, "does not fit");
  // 2 x entries of a symmetric file past 2^63 (signed overflow before; found by fuzz_matrix_market)
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n4 4 7000000000000000004\n", 2, "does not fit");
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 3 1\n1 1 1\n", 2, "square");
  expect_error(kGeneral + "2 2 3\n1 1 1\n2 2 2\n", 5, "truncated: 2 of the 3 entries");
  expect_error(kGeneral + "2 2 3\n1 1 1\n2 2 2", 5, "truncated"); // the missing entry would be line 5
  expect_error(kGeneral + "2 2 1\n1 1 1\n2 2 2\n", 4, "more entries than the 1");
  expect_error(kGeneral + "2 2 2\n1 1 1\n3 1 2\n", 4, "out of range");
  expect_error(kGeneral + "2 2 2\n1 1 1\n1 0 2\n", 4, "out of range");
  expect_error(kGeneral + "2 2 2\n1 1 1\n2 1 abc\n", 4, "not a finite real");
  expect_error(kGeneral + "2 2 2\n1 1 1\n2 1 nan\n", 4, "not a finite real");
  expect_error(kGeneral + "2 2 2\n1 1 1\n2 1\n", 4, "missing");
  expect_error(kGeneral + "2 2 2\n1 1 1\n2 1.5 1\n", 4, "two integer indices");
  expect_error(kGeneral + "2 2 2\n1 1 1\n2 1 1 9\n", 4, "unexpected text");
  expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n2 1 2.5\n", 3, "not an integer");
  expect_error("%%MatrixMarket matrix coordinate pattern general\n2 2 1\n2 1 7\n", 3, "unexpected text");
  expect_error("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", 3, "diagonal");
  CHECK_THROWS_AS((read_matrix_market<std::int32_t, double>("/nonexistent/x.mtx")), MatrixMarketError);
}

TEST_CASE("Matrix Market: a value beyond float's range is an error for a float matrix, not Inf", "[mm]")
{
  // Found by fuzz_matrix_market: 1e39 was read as Inf into a float matrix (which write_matrix_market
  // then wrote as "inf", which the reader rejects).
  const std::string text = kGeneral + "2 2 2\n1 1 1\n2 1 -1e39\n";
  try {
    parse_matrix_market<std::int32_t, float>(text, "f.mtx");
    FAIL("no exception");
  } catch (const MatrixMarketError &e) {
    CHECK(e.line == 4);
    CHECK(std::string(e.what()).find("out of the range of float") != std::string::npos);
  }
  CHECK(parse_matrix_market<std::int32_t, double>(text, "d.mtx").values[1] == -1e39);
  CHECK(parse_matrix_market<std::int32_t, float>(kGeneral + "1 1 1\n1 1 3.4e38\n", "f.mtx").values[0] == 3.4e38f);
}

TEST_CASE("Matrix Market: more malformed input, each on its line", "[mm]")
{
  expect_error("%%MatrixMarket matrix sparse real general\n2 2 1\n1 1 1\n", 1, "format 'sparse'");
  expect_error("%%MatrixMarket matrix coordinate quaternion general\n1 1 1\n1 1 1\n", 1, "field 'quaternion'");
  expect_error("%%MatrixMarket matrix\n", 1, "bad banner"); // banner cut short
  expect_error(kGeneral + "2 2\n1 1 1\n", 2, "bad size line '2 2'");
  expect_error(kGeneral + "2 2 1 4\n1 1 1\n", 2, "bad size line");
  expect_error(kGeneral + "2 2 -1\n", 2, "negative");
  expect_error(kGeneral + "2 2 3000000000\n1 1 1\n", 2, "stored entries after mirroring = 3000000000 does not fit");
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 2 1500000000\n1 1 1\n", 2, "stored entries after mirroring = 3000000000");
  expect_error(kGeneral + "2 2 99999999999999999999\n", 2, "bad size line"); // beyond 64 bits
  expect_error(kGeneral + "2 2 1\n-1 1 1\n", 3, "index (-1, 1) out of range");
  expect_error(kGeneral + "2 2 1\n99999999999999999999 1 1\n", 3, "two integer indices");
  expect_error(kGeneral + "2 2 1\n1 1 inf\n", 3, "not a finite real");
  expect_error(kGeneral + "2 2 1\n1 1 1e400\n", 3, "not a finite real"); // overflows double
  expect_error(kGeneral + "2 2 1\n1 1 0x1p3\n", 3, "not a finite real");
  expect_error(kGeneral + "2 2 2\n1 1 1\n\n% a comment\n2", 6, "two integer indices"); // last line cut
  expect_error("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 1 99999999999999999999\n", 3, "not an integer");
  expect_error("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 1 1\n1 3 1\n", 4, "out of range");
}

TEST_CASE("Matrix Market: accepted layouts around the entries", "[mm]")
{
  // Windows line ends, blank lines and comments between the entries, no newline at the end.
  const auto A = parse_matrix_market<std::int32_t, double>(kGeneral + "% c\r\n2 3 2\r\n\r\n1 3 2.5\r\n% between\n2 1 -1", "layouts.mtx");
  CHECK(pctest::compare_csr(exactly(2, 3, {{{0, 2}, 2.5}, {{1, 0}, -1.0}}), A) == "");
}

TEMPLATE_TEST_CASE("Matrix Market: write then read gives the same matrix", "[mm]", float, double)
{
  using V = TestType;
  CsrMatrix<std::int64_t, V> A;
  A.nrows = 3;
  A.ncols = 5;
  A.rowptr = {0, 2, 2, 5};
  A.colidx = {1, 4, 0, 2, 3};
  A.values = {V(0.1), V(-1e-30), V(3), V(1.0 / 3.0), V(-7.25e12)};
  // A name of its own per value type: ctest runs the two cases at once, in the same folder, and one
  // removed the other's file before it was read (CI, 2026-12-07).
  const std::string path = std::string("pcluster_test_roundtrip_") + (sizeof(V) == sizeof(float) ? "float" : "double") + ".mtx";
  write_matrix_market(path, A.view(), "round trip\nsecond comment line");
  const auto B = read_matrix_market<std::int64_t, V>(path);
  std::remove(path.c_str());
  CHECK(B.nrows == A.nrows);
  CHECK(B.ncols == A.ncols);
  CHECK(B.rowptr == A.rowptr);
  CHECK(B.colidx == A.colidx);
  CHECK(B.values == A.values);
}

TEST_CASE("Matrix Market: the shared real matrices match their MANIFEST", "[mm][shared]")
{
  // ../shared/matrices next to the repository (tests/unit/ -> repository root -> ..).
  std::string here = __FILE__;
  const std::string dir = here.substr(0, here.rfind("/tests/unit/")) + "/../shared/matrices";
  // The folder is part of the workspace: without it the matrices are not checked, which is a
  // failure, not a pass (Catch2 v2 has no skip).
  std::ifstream manifest(dir + "/MANIFEST.md");
  if (!manifest) FAIL("no " << dir << "/MANIFEST.md: the shared matrices cannot be checked");
  int checked = 0;
  for (std::string line; std::getline(manifest, line);) {
    // | file | rows | cols | nnz stored | field / symmetry | nnz expanded | ...
    std::vector<std::string> cells;
    std::stringstream ss(line);
    for (std::string c; std::getline(ss, c, '|');) {
      const auto b = c.find_first_not_of(' '), e = c.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : c.substr(b, e - b + 1));
    }
    if (cells.size() < 7 || cells[1].size() < 5 || cells[1].substr(cells[1].size() - 4) != ".mtx") continue;
    INFO(cells[1]);
    MatrixMarketInfo info;
    const auto A = read_matrix_market<std::int32_t, double>(dir + "/" + cells[1], &info);
    CHECK(std::to_string(A.nrows) == cells[2]);
    CHECK(std::to_string(A.ncols) == cells[3]);
    CHECK(std::to_string(info.entries_stored) == cells[4]);
    CHECK(info.field + " / " + info.symmetry == cells[5]);
    CHECK(std::to_string(A.nnz()) == cells[6]);
    CHECK(rows_sorted_unique(A));
    ++checked;
  }
  CHECK(checked == 35);
}
