// The tests' own comparison (reference.hpp: Reference, reference_of, compare_csr) on results that
// are wrong in each way a product can be wrong: it must name the first difference, in its fixed
// words, and accept only what rounding explains. Every other core test trusts it.
#include "reference.hpp"

#include "catch.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

using pctest::Dense2;
using pctest::Reference;

namespace {

using I = std::int32_t;
constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

Dense2 matrix(std::int64_t m, std::int64_t n, pctest::Entries e) { return Dense2{m, n, std::move(e)}; }

// A result as CSR arrays, from its entries in row-major order (so tests can break the order).
struct Result {
  std::int64_t nrows = 0, ncols = 0;
  std::vector<I> rowptr, colidx;
  std::vector<double> values;
};

Result result(std::int64_t m, std::int64_t n, const std::vector<std::vector<std::pair<I, double>>> &rows)
{
  Result r;
  r.nrows = m;
  r.ncols = n;
  r.rowptr.push_back(0);
  for (const auto &row : rows) {
    for (const auto &e : row) {
      r.colidx.push_back(e.first);
      r.values.push_back(e.second);
    }
    r.rowptr.push_back(static_cast<I>(r.colidx.size()));
  }
  return r;
}

std::string compare(const Reference &ref, const Result &r) { return pctest::compare_csr<I>(ref, r.nrows, r.ncols, r.rowptr, r.colidx, r.values); }

} // namespace

TEST_CASE("reference_of: the product and, entry by entry, the product of absolute values", "[reference]")
{
  // P^T A P with P = (1, -1)^T: A00 - A01 - A10 + A11 = 0.5 + 2 - 3 + 4 = 3.5; scale 0.5 + 2 + 3 + 4.
  const Dense2 A = matrix(2, 2, {{{0, 0}, 0.5}, {{0, 1}, -2}, {{1, 0}, 3}, {{1, 1}, 4}});
  const Dense2 P = matrix(2, 1, {{{0, 0}, 1}, {{1, 0}, -1}});
  const Reference R = pctest::reference_of(pcluster::ProductType::PtAP, {A, P});
  CHECK(R.product.entries == pctest::Entries{{{0, 0}, 3.5}});
  CHECK(R.scale.entries == pctest::Entries{{{0, 0}, 9.5}});
  CHECK_FALSE(R.exact); // 0.5 is no integer
  CHECK(pctest::reference_of(pcluster::ProductType::PtAP, {pctest::ones(A), P}).exact);
  // The same values as the plain reference product, for every type.
  const Dense2 B = pctest::random_matrix(2, 2, 1.0, 3), C = pctest::random_matrix(2, 2, 1.0, 4);
  using pcluster::ProductType;
  for (ProductType t : {ProductType::AB, ProductType::AtB, ProductType::ABt, ProductType::PtAP, ProductType::RARt, ProductType::ABC}) {
    INFO(pcluster::to_string(t));
    const Reference X = pctest::reference_of(t, {A, B, C});
    CHECK(X.product.entries == pctest::reference_product(t, {A, B, C}).entries);
    CHECK(X.scale.entries == pctest::reference_product(t, {pctest::absolute(A), pctest::absolute(B), pctest::absolute(C)}).entries);
  }
}

TEST_CASE("compare_csr: each value within rtol of its own scale, not of the largest entry", "[reference]")
{
  // C = (1e8, 1e-3 + 1e-3): the second entry is 11 orders of magnitude below the first.
  const Dense2 A = matrix(1, 2, {{{0, 0}, 1.0}, {{0, 1}, 0.5}});
  const Dense2 B = matrix(2, 2, {{{0, 0}, 1e8}, {{0, 1}, 1e-3}, {{1, 1}, 2e-3}});
  const Reference ref = pctest::reference_of(A, B);
  const double c01 = ref.product.entries.at({0, 1});
  CHECK(compare(ref, result(1, 2, {{{0, 1e8}, {1, c01}}})) == "");
  // Off by 1e-6 (0.05%): within 1e-12 of the largest entry (1e-4), far outside its own (2e-15).
  const std::string err = compare(ref, result(1, 2, {{{0, 1e8}, {1, c01 + 1e-6}}}));
  const double tol = pctest::kDefaultRtol * ref.scale.entries.at({0, 1});
  CHECK(tol < 3e-15);
  CHECK(err == "value at (0,1) = " + pctest::show(c01 + 1e-6) + ", reference " + pctest::show(c01) + " (|diff| " +
                   pctest::show(std::abs(c01 + 1e-6 - c01)) + ", tolerance " + pctest::show(tol) + ")");
  // Rounding is accepted: a few ulps of the entry.
  CHECK(compare(ref, result(1, 2, {{{0, std::nextafter(1e8, 0.0)}, {1, c01 * (1 + 4e-16)}}})) == "");
}

TEST_CASE("compare_csr: an entry that cancels to 0 is checked against the scale of its terms", "[reference]")
{
  // 0.1 * 1 + 0.1 * -1 = 0, scale 0.2: a rounding residue passes, anything larger does not.
  const Reference ref = pctest::reference_of(matrix(1, 2, {{{0, 0}, 0.1}, {{0, 1}, 0.1}}), matrix(2, 1, {{{0, 0}, 1}, {{1, 0}, -1}}));
  CHECK(compare(ref, result(1, 1, {{{0, 0.0}}})) == "");
  CHECK(compare(ref, result(1, 1, {{{0, 2.7e-17}}})) == "");
  CHECK(compare(ref, result(1, 1, {{{0, 1e-12}}})) ==
        "value at (0,0) = 1e-12, reference 0 (|diff| 1e-12, tolerance " + pctest::show(pctest::kDefaultRtol * 0.2) + ")");
}

TEST_CASE("compare_csr: integer operands are compared exactly", "[reference]")
{
  const Reference ref = pctest::reference_of(matrix(1, 2, {{{0, 0}, 2}, {{0, 1}, 3}}), matrix(2, 1, {{{0, 0}, 1}, {{1, 0}, 1}}));
  REQUIRE(ref.exact);
  CHECK(compare(ref, result(1, 1, {{{0, 5.0}}})) == "");
  CHECK_THAT(compare(ref, result(1, 1, {{{0, std::nextafter(5.0, 6.0)}}})), catch_compat::StartsWith("value at (0,0) = 5.000000000000001, reference 5") &&
                                                                              catch_compat::EndsWith("tolerance 0)"));
  // exactly(): bit for bit, whatever the values.
  const Reference same = pctest::exactly(matrix(1, 1, {{{0, 0}, 0.1}}));
  CHECK(compare(same, result(1, 1, {{{0, 0.1}}})) == "");
  CHECK_THAT(compare(same, result(1, 1, {{{0, std::nextafter(0.1, 1.0)}}})), catch_compat::EndsWith("tolerance 0)"));
}

TEST_CASE("compare_csr: NaN and Inf match only their own kind", "[reference]")
{
  // One entry per kind: NaN * 1, Inf * 1, -Inf * 1 + 0.5 * 3.
  const Dense2 A = matrix(3, 2, {{{0, 0}, kNaN}, {{1, 0}, kInf}, {{2, 0}, -kInf}, {{2, 1}, 0.5}});
  const Dense2 B = matrix(2, 1, {{{0, 0}, 1}, {{1, 0}, 3}});
  const Reference ref = pctest::reference_of(A, B);
  REQUIRE(std::isnan(ref.product.entries.at({0, 0})));
  auto with = [&](double a, double b, double c) { return compare(ref, result(3, 1, {{{0, a}}, {{0, b}}, {{0, c}}})); };
  CHECK(with(kNaN, kInf, -kInf) == "");
  CHECK_THAT(with(0.0, kInf, -kInf), catch_compat::StartsWith("value at (0,0) = 0, reference nan"));
  CHECK_THAT(with(kInf, kInf, -kInf), catch_compat::StartsWith("value at (0,0) = inf, reference nan"));
  CHECK_THAT(with(kNaN, -kInf, -kInf), catch_compat::StartsWith("value at (1,0) = -inf, reference inf"));
  CHECK_THAT(with(kNaN, kNaN, -kInf), catch_compat::StartsWith("value at (1,0) = nan, reference inf"));
  CHECK_THAT(with(kNaN, 1e308, -kInf), catch_compat::StartsWith("value at (1,0) = 1e+308, reference inf"));
  CHECK_THAT(with(kNaN, kInf, kInf), catch_compat::StartsWith("value at (2,0) = inf, reference -inf"));
  // A finite reference never takes NaN or Inf.
  const Reference finite = pctest::reference_of(matrix(1, 1, {{{0, 0}, 0.5}}), matrix(1, 1, {{{0, 0}, 0.5}}));
  CHECK_THAT(compare(finite, result(1, 1, {{{0, kNaN}}})), catch_compat::StartsWith("value at (0,0) = nan, reference 0.25"));
  CHECK_THAT(compare(finite, result(1, 1, {{{0, kInf}}})), catch_compat::StartsWith("value at (0,0) = inf, reference 0.25"));
  // A scale that overflows (1e308 - 1e308 = 0, scale 2e308 = Inf): the value exactly.
  const Reference big = pctest::reference_of(matrix(1, 2, {{{0, 0}, 1e308}, {{0, 1}, -1e308}}), matrix(2, 1, {{{0, 0}, 1.5}, {{1, 0}, 1.5}}));
  REQUIRE(std::isinf(big.scale.entries.at({0, 0})));
  CHECK(compare(big, result(1, 1, {{{0, 0.0}}})) == "");
  CHECK_THAT(compare(big, result(1, 1, {{{0, 1e-300}}})), catch_compat::EndsWith("tolerance 0)"));
}

TEST_CASE("compare_csr: the pattern exactly, sorted, nothing missing and nothing extra", "[reference]")
{
  // 2 x 3 with (0,0) (0,2) (1,1).
  const Reference ref = pctest::exactly(matrix(2, 3, {{{0, 0}, 1}, {{0, 2}, 2}, {{1, 1}, 3}}));
  CHECK(compare(ref, result(2, 3, {{{0, 1}, {2, 2}}, {{1, 3}}})) == "");
  CHECK(compare(ref, result(2, 3, {{{0, 1}}, {{1, 3}}})) == "missing entry (0,2)");
  CHECK(compare(ref, result(2, 3, {{{2, 2}}, {{1, 3}}})) == "missing entry (0,0)");
  CHECK(compare(ref, result(2, 3, {{{0, 1}, {2, 2}}, {}})) == "missing entry (1,1)");
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1}, {1, 0}, {2, 2}}, {{1, 3}}})), catch_compat::StartsWith("pattern differs at row 0: entry (0,1)"));
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1}, {2, 2}}, {{1, 3}, {2, 0}}})), catch_compat::StartsWith("pattern differs at row 1: entry (1,2)"));
  CHECK_THAT(compare(ref, result(2, 3, {{{2, 2}, {0, 1}}, {{1, 3}}})), catch_compat::StartsWith("pattern differs at row 0: columns not sorted"));
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1}, {0, 1}, {2, 2}}, {{1, 3}}})), catch_compat::StartsWith("pattern differs at row 0: columns not sorted"));
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1}, {2, 2}}, {{1, 3}, {3, 0}}})), catch_compat::StartsWith("pattern differs at row 1: column 3 out of range"));
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1}, {2, 2}}, {{-1, 0}, {1, 3}}})), catch_compat::StartsWith("pattern differs at row 1: column -1 out of range"));
  // The pattern alone (no values), and an entry in the wrong row.
  Result r = result(2, 3, {{{0, 1}, {2, 2}}, {{1, 3}}});
  CHECK(pctest::compare_csr<I>(ref, 2, 3, r.rowptr, r.colidx, nullptr) == "");
  CHECK(compare(ref, result(2, 3, {{{0, 1}}, {{1, 3}, {2, 2}}})) == "missing entry (0,2)");
  // Broken arrays and sizes.
  CHECK_THAT(compare(ref, result(2, 4, {{{0, 1}, {2, 2}}, {{1, 3}}})), catch_compat::StartsWith("size 2x4 != reference 2x3"));
  r.values.pop_back();
  CHECK(compare(ref, r) == "values has 2 entries, colidx 3");
  r = result(2, 3, {{{0, 1}, {2, 2}}, {{1, 3}}});
  r.rowptr = {0, 3, 2};
  CHECK_THAT(compare(ref, r), catch_compat::StartsWith("rowptr decreases at row 1"));
  r.rowptr = {1, 2, 3};
  CHECK_THAT(compare(ref, r), catch_compat::StartsWith("rowptr[0] = 1"));
  r.rowptr = {0, 2};
  CHECK_THAT(compare(ref, r), catch_compat::StartsWith("rowptr has 2 entries, expected 3"));
  r.rowptr = {0, 2, 2};
  CHECK_THAT(compare(ref, r), catch_compat::StartsWith("rowptr[nrows] = 2 but colidx has 3 entries"));
}

TEST_CASE("add_diagonal: the diagonal in the pattern, 0 where the product has none", "[reference]")
{
  Reference ref = pctest::reference_of(matrix(2, 3, {{{0, 1}, 0.5}}), matrix(3, 3, {{{1, 0}, 3}, {{1, 1}, 0.25}}));
  pctest::add_diagonal(ref);
  CHECK(ref.product.entries == pctest::Entries{{{0, 0}, 1.5}, {{0, 1}, 0.125}, {{1, 1}, 0.0}});
  CHECK(ref.scale.entries == pctest::Entries{{{0, 0}, 1.5}, {{0, 1}, 0.125}, {{1, 1}, 0.0}});
  CHECK(compare(ref, result(2, 3, {{{0, 1.5}, {1, 0.125}}, {{1, 0.0}}})) == "");
  CHECK_THAT(compare(ref, result(2, 3, {{{0, 1.5}, {1, 0.125}}, {{1, 1e-300}}})), catch_compat::StartsWith("value at (1,1) = 1e-300, reference 0"));
}
