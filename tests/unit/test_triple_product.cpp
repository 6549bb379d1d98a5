// The fused triple product (SpgemmOptions::triple, src/triple_product.hpp) against the stored chain
// it replaces: the same bits on 1, 2 and 4 threads, non-finite entries of P where the stored chain
// has them, and R A R^T. (test_product.cpp runs every product type and shape through both forms;
// test_determinism.cpp compares them on its large operands.)
#include "reference.hpp"

#include "pcluster/generators.hpp"
#include "pcluster/product.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

using namespace pcluster;

namespace {

using I = std::int32_t;
using Csr = CsrMatrix<I, double>;

// A smoothed-aggregation prolongator on the n^3 grid of poisson3d_7pt: aggregates of 3x3x3 nodes
// numbered in space (as PCGAMG numbers them), then one Jacobi step P = (I - 0.6 D^-1 A) P0, so
// that a fine row reaches the aggregates next to its own.
Csr smoothed_aggregation(const Csr &A, I n)
{
  const I na = (n + 2) / 3;
  Csr P0;
  P0.nrows = A.nrows;
  P0.ncols = na * na * na;
  for (I node = 0; node < A.nrows; ++node) {
    const I x = node % n, y = node / n % n, z = node / (n * n);
    P0.colidx.push_back(x / 3 + na * (y / 3 + na * (z / 3)));
    P0.values.push_back(1.0 + 0.25 * (node % 3));
    P0.rowptr.push_back(static_cast<I>(P0.colidx.size()));
  }
  Csr DA = A; // D^-1 A, scaled by -0.6, plus the identity
  for (I i = 0; i < A.nrows; ++i) {
    double d = 1;
    for (I q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q)
      if (A.colidx[q] == i) d = A.values[q];
    for (I q = A.rowptr[i]; q < A.rowptr[i + 1]; ++q) DA.values[q] = (A.colidx[q] == i ? 1.0 : 0.0) - 0.6 * A.values[q] / d;
  }
  return multiply(DA.view(), P0.view());
}

struct Result {
  std::vector<I> rowptr, colidx;
  std::vector<double> values, renumeric;
  std::vector<ProductStep> steps;
};

Result run(ProductType type, const std::vector<CsrView<I, double>> &ops, const std::vector<CsrView<I, double>> &revalued, TripleForm form,
           int threads)
{
  SpgemmOptions o;
  o.triple = form;
  o.num_threads = threads;
  Result r;
  auto plan = ProductPlan<I, double>::symbolic(type, ops, o, r.rowptr, r.colidx, &r.values);
  const std::array<I, 2> dims = product_dimensions(type, ops);
  r.renumeric.assign(r.colidx.size(), -1.0);
  plan.numeric(revalued, CsrView<I, double>{dims[0], dims[1], r.rowptr.data(), r.colidx.data(), nullptr}, r.renumeric.data());
  r.steps = plan.steps();
  return r;
}

Csr revalue(Csr M, double scale)
{
  for (std::size_t q = 0; q < M.values.size(); ++q) M.values[q] = scale * std::sin(0.7 * double(q) + 1.0);
  return M;
}

} // namespace

TEST_CASE("fused PtAP with a smoothed-aggregation P: the stored chain's bits on 1 2 4 threads, nothing kept but C", "[triple]")
{
  const I n = 24;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
  const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Stored, 1);
  REQUIRE(stored.steps.front().what == "AP = A*P");
  for (int threads : {1, 2, 4}) {
    INFO(threads << " threads");
    const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Fused, threads);
    REQUIRE(fused.steps.back().fused_triple);
    CHECK(pctest::same_bits(fused.rowptr, stored.rowptr));
    CHECK(pctest::same_bits(fused.colidx, stored.colidx));
    CHECK(pctest::same_bits(fused.values, stored.values));
    CHECK(pctest::same_bits(fused.renumeric, stored.renumeric));
    CHECK(fused.steps.size() == 1); // nothing but C: no transpose, no A*P
  }
}

TEST_CASE("fused RARt: R A R^T equals the stored chain's bits and the reference", "[triple]")
{
  const I n = 12;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n), R = transpose(P.view());
  const Csr A2 = revalue(A, 3.0), R2 = revalue(R, 0.25);
  const Result stored = run(ProductType::RARt, {A.view(), R.view()}, {A2.view(), R2.view()}, TripleForm::Stored, 1);
  const Result fused = run(ProductType::RARt, {A.view(), R.view()}, {A2.view(), R2.view()}, TripleForm::Fused, 2);
  CHECK(fused.steps.back().fused_triple);
  CHECK(pctest::same_bits(fused.colidx, stored.colidx));
  CHECK(pctest::same_bits(fused.values, stored.values));
  CHECK(pctest::same_bits(fused.renumeric, stored.renumeric));
  // RARt with R = P^T is PtAP
  const Result ptap = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), transpose(R2.view()).view()}, TripleForm::Fused, 2);
  CHECK(pctest::same_bits(fused.colidx, ptap.colidx));
  CHECK(pctest::same_bits(fused.renumeric, ptap.renumeric));
}

TEST_CASE("fused PtAP: a non-finite entry of P reaches exactly the entries it reaches in the stored chain", "[triple]")
{
  const I n = 9;
  const Csr A = poisson3d_7pt<I, double>(n);
  Csr P = smoothed_aggregation(A, n);
  P.values[P.values.size() / 3] = std::numeric_limits<double>::infinity();
  P.values[P.values.size() / 2] = std::numeric_limits<double>::quiet_NaN();
  const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A.view(), P.view()}, TripleForm::Stored, 1);
  const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A.view(), P.view()}, TripleForm::Fused, 2);
  REQUIRE(pctest::same_bits(fused.colidx, stored.colidx));
  std::size_t nonfinite = 0;
  for (std::size_t q = 0; q < stored.values.size(); ++q) {
    INFO("entry " << q);
    CHECK(std::isnan(fused.renumeric[q]) == std::isnan(stored.renumeric[q]));
    CHECK(std::isinf(fused.renumeric[q]) == std::isinf(stored.renumeric[q]));
    if (std::isfinite(stored.renumeric[q])) CHECK(fused.renumeric[q] == stored.renumeric[q]);
    else ++nonfinite;
  }
  CHECK(nonfinite > 0);
  CHECK(nonfinite < stored.values.size() / 2); // the non-finite entries stay where they reach
}
