// The fused triple product (SpgemmOptions::triple, src/triple_product.hpp) against the stored chain
// it replaces and against the reference of its own order: by rows of A the stored chain's bits, by
// rows of C reference_fused's, each on 1, 2 and 4 threads; non-finite entries of P where the stored
// chain has them, and R A R^T. (test_product.cpp runs every product type and shape through both forms;
// test_determinism.cpp compares them on its large operands.)
#include "reference.hpp"

#include "pcluster/generators.hpp"
#include "pcluster/product.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <stdexcept>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

using I = std::int32_t;
using Csr = CsrMatrix<I, double>;

// The tentative prolongator P0 on the n^3 grid of poisson3d_7pt: aggregates of 3x3x3 nodes
// numbered in space (as PCGAMG numbers them), an entry per row.
Csr tentative_aggregation(const Csr &A, I n)
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
  return P0;
}

// A smoothed-aggregation prolongator: one Jacobi step P = (I - 0.6 D^-1 A) P0 from the tentative
// one, so that a fine row reaches the aggregates next to its own.
Csr smoothed_aggregation(const Csr &A, I n)
{
  const Csr P0 = tentative_aggregation(A, n);
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

std::array<I, 2> result_dimensions(ProductType type, const std::vector<CsrView<I, double>> &ops) { return product_dimensions(type, ops); }
std::array<I, 2> result_dimensions(ProductType, const std::vector<PiecedView<I, double>> &ops) { return {ops[1].ncols, ops[1].ncols}; } // PtAP

// The product's symbolic phase with values, then a numeric phase on the revalued operands
template <class View>
Result run(ProductType type, const std::vector<View> &ops, const std::vector<View> &revalued, const SpgemmOptions &o)
{
  Result r;
  auto plan = ProductPlan<I, double>::symbolic(type, ops, o, r.rowptr, r.colidx, &r.values);
  const std::array<I, 2> dims = result_dimensions(type, ops);
  r.renumeric.assign(r.colidx.size(), -1.0);
  plan.numeric(revalued, CsrView<I, double>{dims[0], dims[1], r.rowptr.data(), r.colidx.data(), nullptr}, r.renumeric.data());
  r.steps = plan.steps();
  return r;
}

Result run(ProductType type, const std::vector<CsrView<I, double>> &ops, const std::vector<CsrView<I, double>> &revalued, TripleForm form,
           int threads)
{
  SpgemmOptions o;
  o.triple = form;
  o.num_threads = threads;
  return run(type, ops, revalued, o);
}

Csr revalue(Csr M, double scale)
{
  for (std::size_t q = 0; q < M.values.size(); ++q) M.values[q] = scale * std::sin(0.7 * double(q) + 1.0);
  return M;
}

// The fused forms that name the numeric phase's order
constexpr TripleForm kFusedOrders[] = {TripleForm::FusedRowsOfA, TripleForm::FusedRowsOfC};

// A fused PtAP's result (first operands A, P; then A2, P2) against what its order promises: by rows
// of A the stored chain's bits, by rows of C reference_fused's; the stored chain's pattern either way.
void check_fused_bits(const Result &fused, TripleForm form, const Result &stored, const Csr &A, const Csr &P, const Csr &A2, const Csr &P2)
{
  REQUIRE(fused.steps.back().fused_triple);
  CHECK(fused.steps.back().by_rows_of_c == (form == TripleForm::FusedRowsOfC));
  CHECK(pctest::same_bits(fused.rowptr, stored.rowptr));
  CHECK(pctest::same_bits(fused.colidx, stored.colidx));
  if (form == TripleForm::FusedRowsOfA) {
    CHECK(pctest::same_bits(fused.values, stored.values));
    CHECK(pctest::same_bits(fused.renumeric, stored.renumeric));
    return;
  }
  const auto ref = [](const Csr &a, const Csr &p) { return pctest::to_csr<I>(pctest::reference_fused(pctest::from_view(a.view()), pctest::from_view(p.view()))); };
  const Csr first = ref(A, P), again = ref(A2, P2);
  REQUIRE(pctest::same_bits(first.colidx, fused.colidx));
  CHECK(pctest::same_bits(fused.values, first.values));
  CHECK(pctest::same_bits(fused.renumeric, again.values));
}

} // namespace

TEST_CASE("fused PtAP with a smoothed-aggregation P: the stored chain's bits on 1 2 4 threads, nothing kept but C", "[triple]")
{
  const I n = 24;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
  const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Stored, 1);
  REQUIRE(stored.steps.front().what == "AP = A*P");
  for (const TripleForm form : kFusedOrders)
    for (int threads : {1, 2, 4}) {
      INFO(to_string(form) << ", " << threads << " threads");
      const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, form, threads);
      check_fused_bits(fused, form, stored, A, P, A2, P2);
      CHECK(fused.steps.size() == 1); // nothing but C: no transpose, no A*P
    }
  // The default picks by rows of C here: A's rows reached from a row of P^T lie close together
  CHECK(run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Fused, 1).steps.back().by_rows_of_c);
}

TEST_CASE("fused PtAP by the default form: the order chosen before the pass, values formed in it by rows of C, the bits of the order named", "[triple]")
{
  // The default (TripleForm::Fused) decides its numeric phase's order from a sample of C's rows
  // before the symbolic pass, and by rows of C forms the values in that pass: they, and a numeric
  // phase after it, must be the bits of the form that names the order. The tentative prolongator
  // (an entry per row) goes by rows of A, the smoothed one by rows of C.
  const I n = 15;
  const Csr A = poisson3d_7pt<I, double>(n), A2 = revalue(A, 2.0);
  bool orders[2] = {false, false};
  for (const Csr &P : {tentative_aggregation(A, n), smoothed_aggregation(A, n)}) {
    const Csr P2 = revalue(P, 0.5);
    for (int threads : {1, 2, 4}) {
      INFO("nnz(P) " << P.nnz() << ", " << threads << " threads");
      const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Fused, threads);
      const bool by_rows_of_c = fused.steps.back().by_rows_of_c;
      orders[by_rows_of_c] = true;
      const Result named = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, by_rows_of_c ? TripleForm::FusedRowsOfC : TripleForm::FusedRowsOfA, threads);
      CHECK(pctest::same_bits(fused.colidx, named.colidx));
      CHECK(pctest::same_bits(fused.values, named.values));
      CHECK(pctest::same_bits(fused.renumeric, named.renumeric));
      CHECK(fused.steps.back().spgemm.flops == named.steps.back().spgemm.flops);
    }
  }
  CHECK(orders[0]); // by rows of A
  CHECK(orders[1]); // by rows of C
}

TEST_CASE("fused PtAP by rows of C: a numeric phase on a P whose pattern moved (same counts) is refused, not run on stale counts", "[triple]")
{
  // The numeric phase by rows of C makes P^T's blocks from the row counts the symbolic phase kept:
  // a P with the same number of entries in other columns must be an error, never writes past a block.
  const I n = 10;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  Csr moved = P; // the last entry of the last row moved to the first column that row does not hold
  const I k = P.nrows - 1;
  I to = 0;
  while (std::count(P.colidx.begin() + P.rowptr[k], P.colidx.begin() + P.rowptr[k + 1], to)) ++to;
  REQUIRE(to < P.ncols);
  moved.colidx[P.rowptr[k + 1] - 1] = to;
  std::sort(moved.colidx.begin() + P.rowptr[k], moved.colidx.begin() + P.rowptr[k + 1]);
  for (int threads : {1, 2}) {
    INFO(threads << " threads");
    SpgemmOptions o;
    o.triple = TripleForm::FusedRowsOfC;
    o.num_threads = threads;
    std::vector<I> rowptr, colidx;
    std::vector<double> values;
    auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, {A.view(), P.view()}, o, rowptr, colidx, &values);
    const CsrView<I, double> C{P.ncols, P.ncols, rowptr.data(), colidx.data(), nullptr};
    std::vector<double> again(colidx.size());
    CHECK_THROWS_AS(plan.numeric({A.view(), moved.view()}, C, again.data()), std::invalid_argument);
    plan.numeric({A.view(), P.view()}, C, again.data()); // the plan is still good for the P it was made of
    CHECK(pctest::same_bits(again, values));
  }
}

TEST_CASE("fused PtAP's long rows of C: listed by a scan of the marks where they fill their span, sorted where scattered", "[triple]")
{
  // The symbolic phase lists a row of C longer than kInsertionSortMax by scanning its marks over its
  // span when it fills enough of it (Stamps::sort_marked): dense rows (60 coarse columns), and
  // rows of tens of entries among 20000 columns, which it sorts.
  for (std::int64_t coarse : {60, 20000}) {
    INFO(coarse << " columns of P");
    const Csr A = pctest::to_csr<I>(pctest::random_matrix(2000, 2000, 0.005, 11));
    const Csr P = pctest::to_csr<I>(pctest::random_matrix(2000, coarse, coarse < 100 ? 0.05 : 0.0002, 12));
    const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
    const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Stored, 1);
    I longest = 0;
    for (std::size_t i = 0; i + 1 < stored.rowptr.size(); ++i) longest = std::max(longest, stored.rowptr[i + 1] - stored.rowptr[i]);
    REQUIRE(longest > 32); // the premise: rows past the insertion sort
    for (const TripleForm form : kFusedOrders)
      for (int threads : {1, 2}) {
        INFO(to_string(form) << ", " << threads << " threads");
        check_fused_bits(run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, form, threads), form, stored, A, P, A2, P2);
      }
  }
}

TEST_CASE("fused PtAP on node-block operands (runs of P's repeated rows): the stored chain's bits on 1 2 4 threads", "[triple]")
{
  // P's rows of a node repeat one another, so A*P's rows are formed by runs and merged into C's rows
  // together (src/triple_product.cpp, merge_run); the stored chain's A*P is checked against the
  // reference bit for bit in test_spgemm.cpp. C's rows: short (walked whole) with few coarse nodes,
  // long (searched, past kSearchedRowLength) with many. A: rows of a node alike (formed in one pass),
  // or with holes and an empty row inside a node (each row of the run formed alone, a zero one).
  // P's rows hold 5 entries or more on average (run_rows), and a P of one entry a row (a tentative
  // prolongator: the same aggregate for a node's rows) is taken row by row, to the same bits.
  for (std::int64_t coarse_nodes : {6, 60})
  for (double holes : {0.0, 0.1}) {
    INFO(coarse_nodes << " coarse nodes, holes in A " << holes);
    const std::vector<std::int64_t> fine = pctest::node_starts(50, 6, 401), coarse = pctest::node_starts(coarse_nodes, 3, 402);
    Dense2 Ad = pctest::node_block_matrix(fine, fine, 0.1, holes, 403);
    if (holes > 0) {
      const std::int64_t node = std::adjacent_find(fine.begin(), fine.end(), [](auto a, auto b) { return b - a >= 3; }) - fine.begin();
      for (std::int64_t j = 0; j < Ad.ncols; ++j) Ad.entries.erase({fine[node] + 1, j}); // the middle row of a node of 3 or more
    }
    const Csr A = pctest::to_csr<I>(Ad);
    Dense2 Pd = pctest::node_block_matrix(fine, coarse, coarse_nodes < 20 ? 0.6 : 0.3, 0.0, 404), Ptent{Pd.nrows, Pd.ncols, {}};
    for (std::size_t f = 0; f + 1 < fine.size(); ++f) // fine node f's rows: one entry, in the column of coarse node f mod the count
      for (std::int64_t i = fine[f]; i < fine[f + 1]; ++i) Ptent.entries[{i, coarse[f % (coarse.size() - 1)]}] = 0.5 + 0.01 * static_cast<double>(i % 7);
    for (const bool tentative : {false, true}) {
      INFO((tentative ? "P of one entry a row" : "P of node blocks"));
      const Csr P = pctest::to_csr<I>(tentative ? Ptent : Pd);
      REQUIRE((P.nnz() >= 5 * static_cast<Count>(P.nrows)) == !tentative); // the premise: run_rows' 5 entries a row on average
      const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
      const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Stored, 1);
      for (const TripleForm form : kFusedOrders)
        for (int threads : {1, 2, 4}) {
          INFO(to_string(form) << ", " << threads << " threads");
          const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, form, threads);
          CHECK((fused.steps.back().spgemm.repeated_rows > 0) == !tentative);
          check_fused_bits(fused, form, stored, A, P, A2, P2);
        }
    }
  }
}

TEST_CASE("fused RARt: R A R^T equals the stored chain's bits and the reference", "[triple]")
{
  const I n = 12;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n), R = transpose(P.view());
  const Csr A2 = revalue(A, 3.0), R2 = revalue(R, 0.25);
  const Result stored = run(ProductType::RARt, {A.view(), R.view()}, {A2.view(), R2.view()}, TripleForm::Stored, 1);
  const Csr P2 = transpose(R2.view());
  for (const TripleForm form : kFusedOrders) {
    INFO(to_string(form));
    const Result fused = run(ProductType::RARt, {A.view(), R.view()}, {A2.view(), R2.view()}, form, 2);
    check_fused_bits(fused, form, stored, A, P, A2, P2);
    // RARt with R = P^T is PtAP (P^T given, or made in blocks)
    const Result ptap = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, form, 2);
    CHECK(pctest::same_bits(fused.colidx, ptap.colidx));
    CHECK(pctest::same_bits(fused.renumeric, ptap.renumeric));
  }
}

TEST_CASE("fused PtAP: a non-finite entry of P reaches exactly the entries it reaches in the stored chain", "[triple]")
{
  const I n = 9;
  const Csr A = poisson3d_7pt<I, double>(n);
  Csr P = smoothed_aggregation(A, n);
  P.values[P.values.size() / 3] = std::numeric_limits<double>::infinity();
  P.values[P.values.size() / 2] = std::numeric_limits<double>::quiet_NaN();
  const Result stored = run(ProductType::PtAP, {A.view(), P.view()}, {A.view(), P.view()}, TripleForm::Stored, 1);
  for (const TripleForm form : kFusedOrders) {
    INFO(to_string(form));
    const Result fused = run(ProductType::PtAP, {A.view(), P.view()}, {A.view(), P.view()}, form, 2);
    REQUIRE(pctest::same_bits(fused.colidx, stored.colidx));
    std::size_t nonfinite = 0;
    for (std::size_t q = 0; q < stored.values.size(); ++q) {
      INFO("entry " << q);
      CHECK(std::isfinite(fused.renumeric[q]) == std::isfinite(stored.renumeric[q]));
      if (form == TripleForm::FusedRowsOfA) { // the chain's sums, so the same kind: NaN where it has NaN
        CHECK(std::isnan(fused.renumeric[q]) == std::isnan(stored.renumeric[q]));
        CHECK(std::isinf(fused.renumeric[q]) == std::isinf(stored.renumeric[q]));
      }
      if (std::isfinite(stored.renumeric[q])) {
        if (form == TripleForm::FusedRowsOfA) CHECK(fused.renumeric[q] == stored.renumeric[q]);
        else CHECK(fused.renumeric[q] == Approx(stored.renumeric[q]).epsilon(1e-13).margin(1e-13));
      } else ++nonfinite;
    }
    CHECK(nonfinite > 0);
    CHECK(nonfinite < stored.values.size() / 2); // the non-finite entries stay where they reach
  }
}

namespace {

// M's rows pieced as a rank of an MPIAIJ holds them: rows [r0, r1) its own, split into a diagonal
// block (columns [d0, d1), numbered from 0) and an off-diagonal block (the other columns, numbered
// by their rank among the columns those rows use, mapped back by colmap); the other rows as they are.
struct Pieces {
  Csr diag, offdiag, other;
  std::vector<I> colmap;
  PiecedView<I, double> view(I r0, I r1, I d0) const
  {
    PiecedView<I, double> v;
    v.nrows = diag.nrows + other.nrows;
    v.ncols = diag.ncols;
    v.own_row0 = r0;
    v.own_rows = r1 - r0;
    v.diag = diag.view();
    v.diag_col0 = d0;
    v.offdiag = offdiag.view();
    v.offdiag_colmap = colmap.data();
    v.other = other.view();
    return v;
  }
};

Pieces piece(const Csr &M, I r0, I r1, I d0, I d1)
{
  Pieces p;
  for (I i = r0; i < r1; ++i)
    for (I q = M.rowptr[i]; q < M.rowptr[i + 1]; ++q)
      if (M.colidx[q] < d0 || M.colidx[q] >= d1) p.colmap.push_back(M.colidx[q]);
  std::sort(p.colmap.begin(), p.colmap.end());
  p.colmap.erase(std::unique(p.colmap.begin(), p.colmap.end()), p.colmap.end());
  p.diag.nrows = p.offdiag.nrows = r1 - r0;
  p.diag.ncols = M.ncols; // read as the whole's column count by view()
  p.other.nrows = M.nrows - (r1 - r0);
  for (I i = 0; i < M.nrows; ++i) {
    const bool own = i >= r0 && i < r1;
    for (I q = M.rowptr[i]; q < M.rowptr[i + 1]; ++q) {
      const I c = M.colidx[q];
      if (!own) {
        p.other.colidx.push_back(c);
        p.other.values.push_back(M.values[q]);
      } else if (c >= d0 && c < d1) {
        p.diag.colidx.push_back(c - d0);
        p.diag.values.push_back(M.values[q]);
      } else {
        p.offdiag.colidx.push_back(static_cast<I>(std::lower_bound(p.colmap.begin(), p.colmap.end(), c) - p.colmap.begin()));
        p.offdiag.values.push_back(M.values[q]);
      }
    }
    if (own) {
      p.diag.rowptr.push_back(static_cast<I>(p.diag.colidx.size()));
      p.offdiag.rowptr.push_back(static_cast<I>(p.offdiag.colidx.size()));
    } else p.other.rowptr.push_back(static_cast<I>(p.other.colidx.size()));
  }
  return p;
}

// The pieced PtAP (ops, then a numeric phase on revalued) on 1, 2 and 4 threads against the CSR
// product csr: C's pattern, its values bit for bit with `exact`, else to rounding (a pieced row is
// summed block by block), and the same bits on every thread count; with `runs`, P's repeated rows
// found. options: as given (by default the operands checked), the thread count set here.
SpgemmOptions checked_operands()
{
  SpgemmOptions o;
  o.check_operands = true;
  return o;
}
void check_pieced_ptap(const std::vector<PiecedView<I, double>> &ops, const std::vector<PiecedView<I, double>> &revalued, const Result &csr,
                       bool exact, bool runs, const SpgemmOptions &options = checked_operands())
{
  Result first;
  for (int threads : {1, 2, 4}) {
    INFO(threads << " threads");
    SpgemmOptions o = options;
    o.num_threads = threads;
    const Result r = run(ProductType::PtAP, ops, revalued, o);
    if (runs) CHECK(r.steps.back().spgemm.repeated_rows > 0);
    REQUIRE(pctest::same_bits(r.rowptr, csr.rowptr));
    REQUIRE(pctest::same_bits(r.colidx, csr.colidx));
    if (exact) {
      CHECK(pctest::same_bits(r.values, csr.values));
      CHECK(pctest::same_bits(r.renumeric, csr.renumeric));
    } else
      for (std::size_t q = 0; q < r.values.size(); ++q) {
        INFO("entry " << q);
        CHECK(r.values[q] == Approx(csr.values[q]).epsilon(1e-13).margin(1e-13));
        CHECK(r.renumeric[q] == Approx(csr.renumeric[q]).epsilon(1e-13).margin(1e-13));
      }
    if (threads == 1) first = r;
    CHECK(pctest::same_bits(r.values, first.values));
    CHECK(pctest::same_bits(r.renumeric, first.renumeric));
  }
}

} // namespace

TEST_CASE("fused PtAP on pieced operands (a rank's MPIAIJ blocks): the CSR product, bit-identical on 1 2 4 threads, reuse", "[triple]")
{
  const I n = 12;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
  const I N = A.nrows, r0 = N / 3, r1 = 2 * N / 3; // rows [r0, r1) own, columns [r0, r1) A's diagonal block
  const I m = P.ncols, d0 = m / 4, d1 = m / 2;      // P's diagonal block: columns [d0, d1)
  const Pieces a = piece(A, r0, r1, r0, r1), p = piece(P, r0, r1, d0, d1), a2 = piece(A2, r0, r1, r0, r1), p2 = piece(P2, r0, r1, d0, d1);
  REQUIRE(a.offdiag.nnz() > 0);
  REQUIRE(p.offdiag.nnz() > 0);
  REQUIRE(p.other.nnz() > 0);
  const std::vector<PiecedView<I, double>> ops{a.view(r0, r1, r0), p.view(r0, r1, d0)}, revalued{a2.view(r0, r1, r0), p2.view(r0, r1, d0)};
  // the same product on plain CSR (the reference's pattern; values to rounding: A's rows are summed in another order)
  const Result csr = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Fused, 1);
  check_pieced_ptap(ops, revalued, csr, false, false);
}

namespace {

// PtAP on A's and P's rows pieced as a rank holds them (own rows [r0, r1), diagonal blocks: A's
// columns [r0, r1), P's [d0, d1)), with C's rows [m/3, 2m/3) written elsewhere (ResultScatter) and
// the others compactly, on 1, 2 and 4 threads, against the CSR product: its bits with `exact`, else
// to rounding (a pieced row is summed block by block).
void check_scattered_ptap(const Csr &A, const Csr &P, I r0, I r1, I d0, I d1, bool exact)
{
  const I m = P.ncols;
  const Pieces a = piece(A, r0, r1, r0, r1), p = piece(P, r0, r1, d0, d1);
  const std::vector<PiecedView<I, double>> ops{a.view(r0, r1, r0), p.view(r0, r1, d0)};
  const Result csr = run(ProductType::PtAP, {A.view(), P.view()}, {A.view(), P.view()}, TripleForm::Fused, 1);
  const I s0 = m / 3, s1 = 2 * m / 3; // C's rows [s0, s1) scattered
  const I lo = csr.rowptr[s0], hi = csr.rowptr[s1], nnz = csr.rowptr[m];
  // Row i's place: [2 (b - lo), 2 (b - lo) + 2 len), b its first entry. Even rows in three runs, in
  // another order (middle, last, first) and apart; odd rows through positions, reversed, apart.
  std::vector<I> runs(static_cast<std::size_t>(5 * (s1 - s0))), pos;
  std::vector<I> dest(static_cast<std::size_t>(hi - lo)); // where each entry should land
  for (I i = s0; i < s1; ++i) {
    const I b = csr.rowptr[i], len = csr.rowptr[i + 1] - b, place = 2 * (b - lo), cut1 = len / 3, cut2 = 2 * len / 3;
    I *g = runs.data() + 5 * (i - s0);
    if ((i - s0) % 2 == 0) {
      g[0] = cut1, g[1] = cut2, g[2] = place + 2 * len - cut1, g[3] = place, g[4] = place + (cut2 - cut1) + 1;
      for (I t = 0; t < len; ++t) dest[b - lo + t] = t < cut1 ? g[2] + t : t < cut2 ? g[3] + t - cut1 : g[4] + t - cut2;
    } else {
      g[0] = -1, g[1] = 0, g[2] = static_cast<I>(pos.size()), g[3] = g[4] = 0;
      for (I t = 0; t < len; ++t) pos.push_back(dest[b - lo + t] = place + 2 * (len - 1 - t) + 1);
    }
  }
  std::vector<bool> used(static_cast<std::size_t>(2 * (hi - lo)), false);
  for (I d : dest) used[d] = true;
  for (int threads : {1, 2, 4}) {
    INFO(threads << " threads");
    SpgemmOptions o;
    o.num_threads = threads;
    std::vector<I> ci, cj;
    auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, o, ci, cj);
    REQUIRE(pctest::same_bits(ci, csr.rowptr));
    std::vector<double> scattered(static_cast<std::size_t>(2 * (hi - lo)), 7.0), others(static_cast<std::size_t>(nnz - (hi - lo)), -1.0);
    ResultScatter<I, double> sc;
    sc.row0 = s0;
    sc.rows = s1 - s0;
    sc.runs = runs.data();
    sc.pos = pos.data();
    sc.values = scattered.data();
    plan.numeric(ops, CsrView<I, double>{m, m, ci.data(), cj.data(), nullptr}, others.data(), &sc);
    for (I e = 0; e < nnz; ++e) {
      INFO("entry " << e);
      const double got = e < lo ? others[e] : e >= hi ? others[e - (hi - lo)] : scattered[dest[e - lo]];
      if (exact) CHECK(pctest::same_bits(std::vector<double>{got}, std::vector<double>{csr.values[e]}));
      else CHECK(got == Approx(csr.values[e]).epsilon(1e-13).margin(1e-13));
    }
    for (std::size_t q = 0; q < used.size(); ++q)
      if (!used[q]) CHECK(scattered[q] == 7.0); // the holes stay as they were
  }
}

} // namespace

TEST_CASE("pieced PtAP's numeric writes a range of C's rows elsewhere (in runs, or through positions), the others compactly", "[triple]")
{
  const I n = 12;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  const I N = A.nrows, m = P.ncols;
  check_scattered_ptap(A, P, N / 3, 2 * N / 3, m / 4, m / 2, false);
}

TEST_CASE("fused PtAP on pieced node-block operands: runs of P's repeated rows across a rank's blocks, the CSR product's bits", "[triple]")
{
  // Where the diagonal blocks start at column 0 (the first rank), a pieced row's parts come in column
  // order, so the pieced product sums as the CSR one does and must give its bits (which are the
  // stored chain's: see the node-block test above): runs formed from a row's two parts and from
  // fetched rows, merged into C's rows kept compactly and scattered. Elsewhere, to rounding.
  const std::vector<std::int64_t> fine = pctest::node_starts(60, 6, 411), coarse = pctest::node_starts(20, 3, 412);
  for (double holes : {0.0, 0.1}) {
    INFO("holes in A " << holes);
    const Csr A = pctest::to_csr<I>(pctest::node_block_matrix(fine, fine, 0.1, holes, 413));
    const Csr P = pctest::to_csr<I>(pctest::node_block_matrix(fine, coarse, 0.3, 0.0, 414));
    const Csr A2 = revalue(A, 2.0), P2 = revalue(P, 0.5);
    const I N = A.nrows, m = P.ncols;
    const Result csr = run(ProductType::PtAP, {A.view(), P.view()}, {A2.view(), P2.view()}, TripleForm::Fused, 1);
    REQUIRE(csr.steps.back().spgemm.repeated_rows > 0);
    for (const bool first_rank : {true, false}) {
      INFO((first_rank ? "first rank" : "a middle rank"));
      const I r0 = first_rank ? 0 : N / 3, r1 = first_rank ? N / 2 : 2 * N / 3, d0 = first_rank ? 0 : m / 4, d1 = m / 2;
      const Pieces a = piece(A, r0, r1, r0, r1), p = piece(P, r0, r1, d0, d1), a2 = piece(A2, r0, r1, r0, r1), p2 = piece(P2, r0, r1, d0, d1);
      REQUIRE(p.offdiag.nnz() > 0);
      REQUIRE(p.other.nnz() > 0);
      const std::vector<PiecedView<I, double>> ops{a.view(r0, r1, r0), p.view(r0, r1, d0)}, revalued{a2.view(r0, r1, r0), p2.view(r0, r1, d0)};
      check_pieced_ptap(ops, revalued, csr, first_rank, true);
      check_scattered_ptap(A, P, r0, r1, d0, d1, first_rank);
    }
  }
}

TEST_CASE("pieced operands: only the fused PtAP takes them; a column twice is named", "[triple]")
{
  const I n = 6;
  const Csr A = poisson3d_7pt<I, double>(n), P = smoothed_aggregation(A, n);
  const I N = A.nrows, m = P.ncols;
  const Pieces a = piece(A, 0, N, 0, N), p = piece(P, 0, N, 0, m);
  const std::vector<PiecedView<I, double>> ops{a.view(0, N, 0), p.view(0, N, 0)};
  std::vector<I> ci, cj;
  SpgemmOptions stored;
  stored.triple = TripleForm::Stored;
  using Plan = ProductPlan<I, double>;
  CHECK_THROWS_AS(Plan::symbolic(ProductType::PtAP, ops, stored, ci, cj), std::invalid_argument);
  CHECK_THROWS_AS(Plan::symbolic(ProductType::RARt, ops, SpgemmOptions{}, ci, cj), std::invalid_argument);
  Pieces bad = p;
  bad.offdiag = bad.diag; // every entry of the own rows twice: in the diagonal block and (mapped) in the off-diagonal one
  bad.colmap.resize(static_cast<std::size_t>(m));
  std::iota(bad.colmap.begin(), bad.colmap.end(), I(0));
  SpgemmOptions checked;
  checked.check_operands = true;
  const std::vector<PiecedView<I, double>> twice{a.view(0, N, 0), bad.view(0, N, 0)};
  CHECK_THROWS_WITH(Plan::symbolic(ProductType::PtAP, twice, checked, ci, cj), catch_compat::Contains("P: row 0 has column") && catch_compat::Contains("twice"));
}

namespace {

// Each row's entries rotated by a row-dependent amount, A's diagonal then moved first: rows in an order
// of their own, as hypre keeps them
Csr unsorted_rows(Csr M, bool diagonal_first)
{
  for (I i = 0; i < M.nrows; ++i) {
    const I b = M.rowptr[i], e = M.rowptr[i + 1];
    if (e - b < 2) continue;
    const I by = (i * 7 + 3) % (e - b);
    std::rotate(M.colidx.begin() + b, M.colidx.begin() + b + by, M.colidx.begin() + e);
    std::rotate(M.values.begin() + b, M.values.begin() + b + by, M.values.begin() + e);
    for (I q = b; diagonal_first && q < e; ++q)
      if (M.colidx[q] == i) {
        std::swap(M.colidx[b], M.colidx[q]);
        std::swap(M.values[b], M.values[q]);
      }
  }
  return M;
}

// hypre_BoomerAMGBuildCoarseOperatorKT's loop, written independently: row i of P^T A P as
// (P^T A)(i,:) over the rows i1 of P reaching column i in ascending order, its columns listed as A's
// rows first list them, then (P^T A)(i,:) P in that order, C's columns listed as P's rows first list
// them; every sum starts with its first product.
Csr hypre_order_reference(const Csr &A, const Csr &P)
{
  Csr C;
  C.nrows = C.ncols = P.ncols;
  std::vector<I> ra_pos(static_cast<std::size_t>(A.ncols), -1), c_pos(static_cast<std::size_t>(P.ncols), -1);
  for (I i = 0; i < P.ncols; ++i) {
    std::vector<I> ra_cols;
    std::vector<double> ra;
    for (I i1 = 0; i1 < P.nrows; ++i1)
      for (I q = P.rowptr[i1]; q < P.rowptr[i1 + 1]; ++q) {
        if (P.colidx[q] != i) continue;
        for (I t = A.rowptr[i1]; t < A.rowptr[i1 + 1]; ++t) {
          const I k = A.colidx[t];
          const double x = P.values[q] * A.values[t];
          if (ra_pos[k] < 0) {
            ra_pos[k] = static_cast<I>(ra_cols.size());
            ra_cols.push_back(k);
            ra.push_back(x);
          } else
            ra[ra_pos[k]] += x;
        }
      }
    const std::size_t row0 = C.colidx.size();
    for (std::size_t e = 0; e < ra_cols.size(); ++e) {
      const I k = ra_cols[e];
      for (I q = P.rowptr[k]; q < P.rowptr[k + 1]; ++q) {
        const I j = P.colidx[q];
        const double x = ra[e] * P.values[q];
        if (c_pos[j] < 0) {
          c_pos[j] = static_cast<I>(C.colidx.size() - row0);
          C.colidx.push_back(j);
          C.values.push_back(x);
        } else
          C.values[row0 + c_pos[j]] += x;
      }
    }
    for (I k : ra_cols) ra_pos[k] = -1;
    for (std::size_t q = row0; q < C.colidx.size(); ++q) c_pos[C.colidx[q]] = -1;
    C.rowptr.push_back(static_cast<I>(C.colidx.size()));
  }
  return C;
}

// The fused form by rows of C on rows as hypre keeps them (unsorted), C's columns as first reached
SpgemmOptions hypre_order_options(int threads)
{
  SpgemmOptions o;
  o.triple = TripleForm::FusedRowsOfC;
  o.sorted_result = false;
  o.check_operands = false;
  o.num_threads = threads;
  return o;
}

} // namespace

TEST_CASE("fused PtAP by rows of C on unsorted rows, sorted_result false: C's columns as first reached, hypre's loop bit for bit", "[triple]")
{
  const I n = 9;
  const Csr As = poisson3d_7pt<I, double>(n), Ps = smoothed_aggregation(As, n);
  const Csr A = unsorted_rows(revalue(As, 1.0), true), P = unsorted_rows(revalue(Ps, 0.5), false);
  const Csr A2 = unsorted_rows(revalue(As, -2.0), true), P2 = unsorted_rows(revalue(Ps, 3.0), false);
  REQUIRE_FALSE(std::is_sorted(A.colidx.begin() + A.rowptr[5], A.colidx.begin() + A.rowptr[6]));
  const Csr ref = hypre_order_reference(A, P), ref2 = hypre_order_reference(A2, P2);
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    const SpgemmOptions o = hypre_order_options(threads);
    const Result r = run(ProductType::PtAP, std::vector<CsrView<I, double>>{A.view(), P.view()}, std::vector<CsrView<I, double>>{A2.view(), P2.view()}, o);
    CHECK(pctest::same_bits(r.rowptr, ref.rowptr));
    CHECK(pctest::same_bits(r.colidx, ref.colidx)); // the order, not only the set
    CHECK(pctest::same_bits(r.values, ref.values));
    CHECK(pctest::same_bits(r.renumeric, ref2.values)); // reuse with new values
  }
  // negative control: the default (sorted rows) lists the same columns in another order
  SpgemmOptions sorted;
  sorted.triple = TripleForm::FusedRowsOfC;
  sorted.check_operands = false;
  const Result s = run(ProductType::PtAP, std::vector<CsrView<I, double>>{A.view(), P.view()}, std::vector<CsrView<I, double>>{A.view(), P.view()}, sorted);
  CHECK_FALSE(pctest::same_bits(s.colidx, ref.colidx));
  // only that form takes it
  for (TripleForm form : {TripleForm::Fused, TripleForm::FusedRowsOfA, TripleForm::Stored}) {
    SpgemmOptions o;
    o.triple = form;
    o.sorted_result = false;
    std::vector<I> rp, ci;
    const std::vector<CsrView<I, double>> ops{As.view(), Ps.view()};
    using Plan = ProductPlan<I, double>;
    CHECK_THROWS_AS(Plan::symbolic(ProductType::PtAP, ops, o, rp, ci), std::invalid_argument);
  }
}

namespace {

// An allocator for CallerArray that counts what it holds (malloc's, as a C library's would be)
struct CountingAllocator {
  long live = 0; // buffers allocated and not yet freed
  bool fail = false; // the next reallocate returns null
  CallerAllocator get()
  {
    CallerAllocator a;
    a.reallocate = [](void *self, void *old, std::size_t bytes) -> void * {
      auto &c = *static_cast<CountingAllocator *>(self);
      if (c.fail) return nullptr;
      void *p = std::realloc(old, bytes);
      if (!old && p) ++c.live;
      return p;
    };
    a.release = [](void *self, void *p) {
      --static_cast<CountingAllocator *>(self)->live;
      std::free(p);
    };
    a.context = this;
    return a;
  }
};

} // namespace

TEST_CASE("CallerArray: grows as std::vector, through the caller's allocator, and hands its buffer over", "[triple]")
{
  CountingAllocator alloc;
  {
    CallerArray<I> a(alloc.get());
    CHECK(a.size() == 0);
    CHECK(a.data() == nullptr);
    const std::vector<I> part{3, 1, 4, 1, 5};
    for (int k = 0; k < 100; ++k) a.insert(a.end(), part.begin(), part.end());
    a.push_back(9);
    REQUIRE(a.size() == 501);
    CHECK(a[500] == 9);
    CHECK(std::equal(a.begin(), a.begin() + 5, part.begin()));
    CHECK(alloc.live == 1);
    CHECK_THROWS_AS(a.insert(a.begin(), part.begin(), part.end()), std::logic_error); // at the end only
    a.resize(510);
    CHECK(a[509] == 0);
    a.shrink_to_fit();
    CHECK(a.capacity() == 510);
    alloc.fail = true;
    CHECK_THROWS_AS(a.reserve(1 << 20), std::bad_alloc);
    CHECK(a.size() == 510); // left as it was
    CHECK(a[500] == 9);
    alloc.fail = false;
    I *const p = a.release();
    CHECK(a.data() == nullptr);
    CHECK(a.size() == 0);
    CHECK(p[500] == 9);
    CHECK(alloc.live == 1); // the caller's now
    alloc.get().release(&alloc, p);
  }
  CHECK(alloc.live == 0);
  {
    CallerArray<I> a(alloc.get());
    a.reserve(10);
    CHECK(alloc.live == 1);
  } // freed with the array when never handed over
  CHECK(alloc.live == 0);
}

TEST_CASE("fused PtAP into a caller's arrays (CallerArray): the pattern and values a vector gets, written into the caller's memory", "[triple]")
{
  const I n = 9;
  const Csr As = poisson3d_7pt<I, double>(n), Ps = smoothed_aggregation(As, n);
  const Csr A = unsorted_rows(revalue(As, 1.0), true), P = unsorted_rows(revalue(Ps, 0.5), false);
  const std::vector<CsrView<I, double>> ops{A.view(), P.view()};
  using Plan = ProductPlan<I, double>;
  // one thread writes columns and values straight in its one pass; several gather their staged rows
  // and form the values in a numeric phase after it
  for (int threads : {1, 2, 4}) {
    INFO("threads " << threads);
    const SpgemmOptions o = hypre_order_options(threads);
    std::vector<I> rowptr, colidx, rowptr2, rowptr3;
    std::vector<double> values;
    Plan::symbolic(ProductType::PtAP, ops, o, rowptr, colidx, &values);
    CountingAllocator alloc;
    {
      CallerArray<I> cols(alloc.get()), cols3(alloc.get());
      CallerArray<double> vals(alloc.get());
      Plan::symbolic(ProductType::PtAP, ops, o, rowptr2, cols, &vals);
      CHECK(pctest::same_bits(rowptr2, rowptr));
      REQUIRE(cols.size() == colidx.size());
      CHECK(std::equal(cols.begin(), cols.end(), colidx.begin()));
      REQUIRE(vals.size() == values.size());
      CHECK(std::equal(vals.begin(), vals.end(), values.begin())); // same bits
      CHECK(alloc.live == 2);
      // the pattern alone, then a numeric phase on the caller's array
      Plan plan = Plan::symbolic(ProductType::PtAP, ops, o, rowptr3, cols3);
      CHECK(std::equal(cols3.begin(), cols3.end(), colidx.begin()));
      std::vector<double> values3(colidx.size());
      plan.numeric(ops, CsrView<I, double>{P.ncols, P.ncols, rowptr3.data(), cols3.data(), nullptr}, values3.data());
      CHECK(pctest::same_bits(values3, values));
    }
    CHECK(alloc.live == 0);
  }
  // only the fused PtAP, without include_diagonal
  SpgemmOptions stored, diagonal;
  stored.triple = TripleForm::Stored;
  diagonal.include_diagonal = true;
  for (const SpgemmOptions &o : {stored, diagonal}) {
    CountingAllocator alloc;
    CallerArray<I> cols(alloc.get());
    std::vector<I> rowptr;
    CHECK_THROWS_AS(Plan::symbolic(ProductType::PtAP, {As.view(), Ps.view()}, o, rowptr, cols), std::invalid_argument);
    CHECK(alloc.live == 0);
  }
  CountingAllocator alloc;
  CallerArray<I> cols(alloc.get());
  std::vector<I> rowptr;
  CHECK_THROWS_AS(Plan::symbolic(ProductType::AB, {As.view(), As.view()}, SpgemmOptions{}, rowptr, cols), std::invalid_argument);
}

TEST_CASE("fused PtAP by rows of C on pieced operands with unsorted parts (as hypre keeps its blocks): the sorted product to rounding", "[triple]")
{
  const I n = 12;
  const Csr As0 = poisson3d_7pt<I, double>(n), Ps0 = smoothed_aggregation(As0, n);
  const Csr As = revalue(As0, 1.0), Ps = revalue(Ps0, 0.5), As2 = revalue(As0, -2.0), Ps2 = revalue(Ps0, 3.0); // sorted
  const Csr A = unsorted_rows(As, true), P = unsorted_rows(Ps, false), A2 = unsorted_rows(As2, true), P2 = unsorted_rows(Ps2, false);
  const I N = A.nrows, r0 = N / 3, r1 = 2 * N / 3, m = P.ncols, d0 = m / 4, d1 = m / 2;
  const Pieces a = piece(A, r0, r1, r0, r1), p = piece(P, r0, r1, d0, d1), a2 = piece(A2, r0, r1, r0, r1), p2 = piece(P2, r0, r1, d0, d1);
  const std::vector<PiecedView<I, double>> ops{a.view(r0, r1, r0), p.view(r0, r1, d0)}, revalued{a2.view(r0, r1, r0), p2.view(r0, r1, d0)};
  // the parts are unsorted, as hypre keeps its blocks (the check of sorted parts refuses them)
  const auto unsorted = [](const Csr &M) {
    for (I i = 0; i < M.nrows; ++i)
      if (!std::is_sorted(M.colidx.begin() + M.rowptr[i], M.colidx.begin() + M.rowptr[i + 1])) return true;
    return false;
  };
  REQUIRE(unsorted(a.diag));
  REQUIRE(unsorted(p.diag));
  SpgemmOptions checked;
  checked.triple = TripleForm::FusedRowsOfC;
  checked.check_operands = true;
  std::vector<I> ci, cj;
  using Plan = ProductPlan<I, double>;
  CHECK_THROWS_WITH(Plan::symbolic(ProductType::PtAP, ops, checked, ci, cj), catch_compat::Contains("not sorted within a part"));
  // the reference: the same product on sorted CSR
  const Result csr = run(ProductType::PtAP, {As.view(), Ps.view()}, {As2.view(), Ps2.view()}, TripleForm::Fused, 1);
  SpgemmOptions unchecked;
  unchecked.triple = TripleForm::FusedRowsOfC;
  unchecked.check_operands = false;
  check_pieced_ptap(ops, revalued, csr, false, false, unchecked); // C's rows sorted, values to rounding
}
