// Matrix Market reader and writer: fields, symmetries, duplicates, malformed input (with the
// file:line of the error), round trip.
#include "reference.hpp"

#include "pcluster/matrix_market.hpp"

#include "catch.hpp"

#include <cstdint>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

template <class I = std::int32_t>
CsrMatrix<I, double> parse(const std::string &text, MatrixMarketInfo *info = nullptr)
{
  return parse_matrix_market<I, double>(text, "test.mtx", info);
}

Dense2 dense(std::int64_t m, std::int64_t n, std::initializer_list<std::tuple<std::int64_t, std::int64_t, double>> e)
{
  Dense2 D;
  D.nrows = m;
  D.ncols = n;
  for (const auto &t : e) D.entries[{std::get<0>(t), std::get<1>(t)}] = std::get<2>(t);
  return D;
}

// Parses and returns the error's line (-1 if no MatrixMarketError was thrown).
long error_line(const std::string &text, std::string *what = nullptr)
{
  try {
    parse(text);
  } catch (const MatrixMarketError &e) {
    if (what) *what = e.what();
    return e.line;
  }
  return -1;
}

} // namespace

TEMPLATE_TEST_CASE("Matrix Market general real, with comments and duplicates", "[matrix_market]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const std::string text = "%%MatrixMarket matrix coordinate real general\n"
                           "% a comment\n"
                           "%another\n"
                           "3 4 5\n"
                           "1 1 1.5\n"
                           "3 4 -2e-3\n"
                           "2 2 7\n"
                           "1 1 0.5\n" // duplicate: summed
                           "1 3 3.25\n";
  MatrixMarketInfo info;
  const auto A = parse<I>(text, &info);
  CHECK(info.field == "real");
  CHECK(info.symmetry == "general");
  CHECK(info.rows == 3);
  CHECK(info.cols == 4);
  CHECK(info.entries_stored == 5);
  CHECK(info.nnz == 4);
  const Dense2 want = dense(3, 4, {{0, 0, 2.0}, {0, 2, 3.25}, {1, 1, 7.0}, {2, 3, -2e-3}});
  CHECK(pctest::compare_csr(pctest::exactly(want), A) == "");
}

TEST_CASE("Matrix Market symmetric, skew-symmetric, pattern and integer", "[matrix_market]")
{
  {
    const auto A = parse("%%MatrixMarket matrix coordinate real symmetric\n3 3 4\n1 1 4\n2 1 -1\n3 2 -2\n3 3 5\n");
    CHECK(pctest::compare_csr(pctest::exactly(dense(3, 3, {{0, 0, 4}, {0, 1, -1}, {1, 0, -1}, {1, 2, -2}, {2, 1, -2}, {2, 2, 5}})), A) == "");
  }
  {
    const auto A = parse("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 2\n2 1 3\n3 1 -4\n");
    CHECK(pctest::compare_csr(pctest::exactly(dense(3, 3, {{0, 1, -3}, {0, 2, 4}, {1, 0, 3}, {2, 0, -4}})), A) == "");
    // A skew-symmetric matrix has a zero diagonal: a stored diagonal entry is an error.
    CHECK(error_line("%%MatrixMarket matrix coordinate real skew-symmetric\n3 3 1\n2 2 3\n") == 3);
  }
  {
    MatrixMarketInfo info;
    const auto A = parse("%%MatrixMarket matrix coordinate pattern general\n2 3 3\n1 2\n2 1\n2 3\n", &info);
    CHECK(info.field == "pattern");
    CHECK(pctest::compare_csr(pctest::exactly(dense(2, 3, {{0, 1, 1}, {1, 0, 1}, {1, 2, 1}})), A) == "");
  }
  {
    const auto A = parse("%%MatrixMarket matrix coordinate pattern symmetric\n3 3 2\n1 1\n3 1\n");
    CHECK(pctest::compare_csr(pctest::exactly(dense(3, 3, {{0, 0, 1}, {0, 2, 1}, {2, 0, 1}})), A) == "");
  }
  {
    const auto A = parse("%%MatrixMarket matrix coordinate integer general\n2 2 2\n1 2 -7\n2 2 12\n");
    CHECK(pctest::compare_csr(pctest::exactly(dense(2, 2, {{0, 1, -7}, {1, 1, 12}})), A) == "");
  }
  {
    // Banner keywords are case-insensitive in practice (files from many tools use capitals).
    const auto A = parse("%%MatrixMarket MATRIX Coordinate Real General\n1 1 1\n1 1 2\n");
    CHECK(A.nnz() == 1);
  }
  {
    // Empty matrices.
    const auto A = parse("%%MatrixMarket matrix coordinate real general\n0 0 0\n");
    CHECK(A.nrows == 0);
    CHECK(A.nnz() == 0);
    const auto B = parse("%%MatrixMarket matrix coordinate real general\n4 5 0\n");
    CHECK(B.nrows == 4);
    CHECK(B.ncols == 5);
    CHECK(B.rowptr == std::vector<std::int32_t>{0, 0, 0, 0, 0});
  }
}

TEST_CASE("Matrix Market malformed input is rejected with its line", "[matrix_market][errors]")
{
  std::string what;
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n3 1 1.0\n", &what) == 3); // row > 2
  CHECK(what.find("test.mtx:3") != std::string::npos);
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 0 1.0\n") == 3);  // col 0
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 abc\n") == 3);  // not a number
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1\n") == 3);      // value missing
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 1 1.0\n") >= 0);  // too few entries
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n") >= 0); // too many
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n2 x 1\n1 1 1.0\n") == 2);  // size line
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n") >= 0);                  // no size line
  CHECK(error_line("") >= 0);                                                                 // empty file
  CHECK(error_line("%%NotMatrixMarket matrix coordinate real general\n1 1 0\n") == 1);        // banner
  CHECK(error_line("%%MatrixMarket matrix array real general\n2 2\n1\n2\n3\n4\n") == 1);      // dense format
  CHECK(error_line("%%MatrixMarket matrix coordinate complex general\n1 1 1\n1 1 1 0\n") == 1);
  CHECK(error_line("%%MatrixMarket matrix coordinate real hermitian\n1 1 1\n1 1 1\n") == 1);
  CHECK(error_line("%%MatrixMarket matrix coordinate real general\n-2 2 0\n") == 2);          // negative size
}

TEST_CASE("Matrix Market file that does not exist", "[matrix_market][errors]")
{
  try {
    read_matrix_market<std::int32_t, double>("/nonexistent/dir/x.mtx");
    FAIL("no exception");
  } catch (const MatrixMarketError &e) {
    CHECK(e.line == 0);
    CHECK(std::string(e.what()).find("/nonexistent/dir/x.mtx") != std::string::npos);
  }
}

TEMPLATE_TEST_CASE("Matrix Market write then read gives the same matrix", "[matrix_market]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const std::string path = "pcluster_unit_roundtrip_" + std::to_string(sizeof(I)) + ".mtx";
  for (const auto &cs : pctest::product_cases()) {
    INFO(cs.name);
    const auto A = pctest::to_csr<I>(cs.A);
    REQUIRE_NOTHROW(write_matrix_market<I, double>(path, A.view(), "written by the unit tests"));
    MatrixMarketInfo info;
    const auto B = read_matrix_market<I, double>(path, &info);
    CHECK(B.nrows == A.nrows);
    CHECK(B.ncols == A.ncols);
    CHECK(B.rowptr == A.rowptr);
    CHECK(B.colidx == A.colidx);
    CHECK(B.values == A.values); // bitwise: enough digits are written
    CHECK(info.nnz == A.nnz());
    // Written to a stream and parsed from memory: the same matrix.
    std::ostringstream text;
    write_matrix_market<I, double>(text, A.view(), "written by the unit tests");
    const auto S = parse_matrix_market<I, double>(text.str(), "stream");
    CHECK(S.colidx == A.colidx);
    CHECK(S.values == A.values);
    // A pattern view is written as a pattern file.
    auto P = A.view();
    P.values = nullptr;
    write_matrix_market<I, double>(path, P);
    const auto Q = read_matrix_market<I, double>(path, &info);
    CHECK(info.field == "pattern");
    CHECK(Q.colidx == A.colidx);
  }
  std::remove(path.c_str());
}
