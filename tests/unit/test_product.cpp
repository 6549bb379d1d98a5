// ProductPlan (AB, AtB, ABt, PtAP, RARt, ABC) against the std::map reference: every type on square,
// rectangular, empty and AMG-shaped operands, for each kernel family; symbolic-only pattern, fused
// values, numeric reuse with new values, thread-count determinism, and invalid input.
#include "reference.hpp"

#include "pcluster/generators.hpp"
#include "pcluster/product.hpp"

#include "catch.hpp"

#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

using pctest::transposed;

struct Case {
  std::string name;
  ProductType type;
  std::vector<Dense2> operands;
};

// A piecewise-constant aggregation prolongator (n fine rows, aggregates of agg rows) with one
// smoothing-like extra entry per row: the shape PCGAMG's P has.
Dense2 aggregation_prolongator(std::int64_t n, std::int64_t agg, std::uint64_t seed)
{
  Dense2 P;
  P.nrows = n;
  P.ncols = (n + agg - 1) / agg;
  std::mt19937_64 rng(seed);
  for (std::int64_t i = 0; i < n; ++i) {
    P.entries[{i, i / agg}] = pctest::random_value(rng);
    if (i / agg + 1 < P.ncols && i % agg == agg - 1) P.entries[{i, i / agg + 1}] = pctest::random_value(rng);
  }
  return P;
}

// aggregation_prolongator's pattern with `dofs` columns per aggregate, all of an aggregate's columns
// with the same pattern (as for a vector problem's near-null-space vectors), values random.
Dense2 block_prolongator(std::int64_t n, std::int64_t agg, std::int64_t dofs, std::uint64_t seed)
{
  const Dense2 S = aggregation_prolongator(n, agg, seed);
  Dense2 P;
  P.nrows = S.nrows;
  P.ncols = S.ncols * dofs;
  std::mt19937_64 rng(seed + 1);
  for (const auto &e : S.entries)
    for (std::int64_t t = 0; t < dofs; ++t) P.entries[{e.first.first, e.first.second * dofs + t}] = pctest::random_value(rng);
  return P;
}

std::vector<Case> cases()
{
  using pctest::random_matrix;
  std::vector<Case> out;
  const ProductType all[] = {ProductType::AB, ProductType::AtB, ProductType::ABt, ProductType::PtAP, ProductType::RARt, ProductType::ABC};
  std::uint64_t seed = 1000;
  for (ProductType t : all) {
    const std::string tn = to_string(t);
    auto add = [&](std::string name, std::vector<Dense2> ops) { out.push_back({tn + " " + name, t, std::move(ops)}); };
    const double dens[] = {0.05, 0.3};
    for (double d : dens) {
      const std::string ds = " d=" + std::to_string(d);
      switch (t) {
      case ProductType::AB: add("37x53*53x29" + ds, {random_matrix(37, 53, d, seed), random_matrix(53, 29, d, seed + 1)}); break;
      case ProductType::AtB: add("(53x37)^T*53x29" + ds, {random_matrix(53, 37, d, seed), random_matrix(53, 29, d, seed + 1)}); break;
      case ProductType::ABt: add("37x53*(29x53)^T" + ds, {random_matrix(37, 53, d, seed), random_matrix(29, 53, d, seed + 1)}); break;
      case ProductType::PtAP: add("A 50x50, P 50x13" + ds, {random_matrix(50, 50, d, seed), random_matrix(50, 13, d, seed + 1)}); break;
      case ProductType::RARt: add("A 50x50, R 13x50" + ds, {random_matrix(50, 50, d, seed), random_matrix(13, 50, d, seed + 1)}); break;
      case ProductType::ABC:
        add("31x40*40x50*50x13" + ds, {random_matrix(31, 40, d, seed), random_matrix(40, 50, d, seed + 1), random_matrix(50, 13, d, seed + 2)});
        break;
      }
      seed += 10;
    }
    // Empty operands and dimension 0.
    switch (t) {
    case ProductType::AB: add("0 rows", {random_matrix(0, 5, 0.5, 1), random_matrix(5, 4, 0.5, 2)}); break;
    case ProductType::AtB: add("0 inner", {random_matrix(0, 5, 0.5, 1), random_matrix(0, 4, 0.5, 2)}); break;
    case ProductType::ABt: add("empty B", {random_matrix(6, 5, 0.5, 1), random_matrix(4, 5, 0.0, 2)}); break;
    case ProductType::PtAP: add("P with 0 columns", {random_matrix(6, 6, 0.5, 1), random_matrix(6, 0, 0.5, 2)}); break;
    case ProductType::RARt: add("all-zero A", {random_matrix(6, 6, 0.0, 1), random_matrix(3, 6, 0.5, 2)}); break;
    case ProductType::ABC: add("empty middle", {random_matrix(4, 5, 0.5, 1), random_matrix(5, 6, 0.0, 2), random_matrix(6, 3, 0.5, 3)}); break;
    }
  }
  // AMG shapes: a 3D Poisson operator with an aggregation prolongator, as PtAP, RARt (R = P^T) and
  // ABC (P^T A P as a MatGalerkin with R != P would call it).
  {
    const auto A = poisson3d_7pt<std::int64_t, double>(7);
    const Dense2 Ad = pctest::from_view(A.view());
    const Dense2 P = aggregation_prolongator(Ad.nrows, 8, 77);
    out.push_back({"PtAP Poisson 7^3 with aggregation P", ProductType::PtAP, {Ad, P}});
    out.push_back({"RARt Poisson 7^3 with R = P^T", ProductType::RARt, {Ad, transposed(P)}});
    out.push_back({"ABC P^T A P", ProductType::ABC, {transposed(P), Ad, P}});
  }
  return out;
}

std::vector<SpgemmOptions> configurations()
{
  std::vector<SpgemmOptions> out;
  SpgemmOptions o;
  out.push_back(o); // row-wise, auto accumulator
  o.accumulator = Accumulator::Hash;
  out.push_back(o);
  o = SpgemmOptions{};
  o.triple = TripleForm::Stored; // PtAP and RARt as the chain with A*P kept
  out.push_back(o);
  o.triple = TripleForm::FusedRowsOfA; // the fused form's numeric phase in each order (the default picks one)
  out.push_back(o);
  o.triple = TripleForm::FusedRowsOfC;
  out.push_back(o);
  o = SpgemmOptions{};
  o.kernel = Kernel::Cluster;
  const ClusterScheme schemes[] = {ClusterScheme::Auto, ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical};
  for (ClusterScheme s : schemes) {
    o.scheme = s;
    o.clustering.cluster_size = 4;
    out.push_back(o);
  }
  o.scheme = ClusterScheme::Fixed;
  o.accumulator = Accumulator::Dense;
  o.clustering.cluster_size = 64;
  out.push_back(o);
  return out;
}

std::string describe(const SpgemmOptions &o)
{
  return std::string("kernel=") + to_string(o.kernel) + " scheme=" + to_string(o.scheme) + " size=" + std::to_string(o.clustering.cluster_size) +
         " accumulator=" + to_string(o.accumulator) +
         " triple=" + to_string(o.triple);
}

template <class I>
struct Operands {
  std::vector<CsrMatrix<I, double>> mats;
  std::vector<CsrView<I, double>> views() const
  {
    std::vector<CsrView<I, double>> v;
    for (const auto &m : mats) v.push_back(m.view());
    return v;
  }
};

template <class I>
Operands<I> to_operands(const std::vector<Dense2> &ds)
{
  Operands<I> o;
  for (const auto &d : ds) o.mats.push_back(pctest::to_csr<I>(d));
  return o;
}

} // namespace

TEMPLATE_TEST_CASE("every product type matches its definition, two-phase and fused", "[product]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const Case &c : cases()) {
    const pctest::Reference ref = pctest::reference_of(c.type, c.operands);
    const std::int64_t m = ref.product.nrows, n = ref.product.ncols;
    const Operands<I> ops = to_operands<I>(c.operands);
    for (const SpgemmOptions &o : configurations()) {
      INFO(c.name << " | " << describe(o));
      // Symbolic, then numeric into garbage: every value must be written.
      std::vector<I> ci, cj;
      auto plan = ProductPlan<I, double>::symbolic(c.type, ops.views(), o, ci, cj, nullptr, {{1, 1}, {1, 1}, {1, 1}});
      CHECK(pctest::compare_csr<I>(ref, m, n, ci, cj, nullptr) == "");
      std::vector<double> cv(cj.size(), -12345.0);
      const CsrView<I, double> C{static_cast<I>(m), static_cast<I>(n), ci.data(), cj.data(), nullptr};
      plan.numeric(ops.views(), C, cv.data());
      CHECK(pctest::compare_csr<I>(ref, m, n, ci, cj, cv) == "");
      // The fused triple product runs where it applies (SpgemmOptions::triple), and counts its own work.
      const ProductStep last = plan.steps().back();
      CHECK(last.fused_triple == ((c.type == ProductType::PtAP || c.type == ProductType::RARt) && o.triple != TripleForm::Stored &&
                             (o.kernel == Kernel::Rowwise || o.scheme == ClusterScheme::Auto) && o.reorder == OrderingType::Natural));
      if (!last.fused_triple) CHECK(plan.flops() == pctest::reference_chain_flops(c.type, c.operands));
      else CHECK(plan.flops() == pctest::reference_fused_flops(c.type, c.operands, last.by_rows_of_c));

      // Fused: values from the symbolic phase, identical to the two-phase result.
      std::vector<I> fi, fj;
      std::vector<double> fv;
      ProductPlan<I, double>::symbolic(c.type, ops.views(), o, fi, fj, &fv);
      CHECK(fi == ci);
      CHECK(fj == cj);
      CHECK(pctest::compare_csr<I>(ref, m, n, fi, fj, fv) == "");

      // Reuse: new values, same patterns; only numeric runs.
      std::vector<Dense2> revalued;
      for (std::size_t k = 0; k < c.operands.size(); ++k) revalued.push_back(pctest::revalue(c.operands[k], 50 + k));
      const Operands<I> ops2 = to_operands<I>(revalued);
      plan.numeric(ops2.views(), C, cv.data());
      CHECK(pctest::compare_csr<I>(pctest::reference_of(c.type, revalued), m, n, ci, cj, cv) == "");
    }
  }
}

TEST_CASE("include_diagonal adds the missing diagonal entries as zeros, for every type", "[product]")
{
  using I = std::int32_t;
  for (const Case &c : cases()) {
    pctest::Reference ref = pctest::reference_of(c.type, c.operands);
    pctest::add_diagonal(ref); // keeps existing values
    const std::int64_t m = ref.product.nrows, n = ref.product.ncols;
    const Operands<I> ops = to_operands<I>(c.operands);
    for (SpgemmOptions o : configurations()) {
      INFO(c.name << " | " << describe(o));
      o.include_diagonal = true;
      std::vector<I> ci, cj, fi, fj;
      std::vector<double> fv;
      auto plan = ProductPlan<I, double>::symbolic(c.type, ops.views(), o, ci, cj);
      ProductPlan<I, double>::symbolic(c.type, ops.views(), o, fi, fj, &fv);
      std::vector<double> cv(cj.size(), -1.0);
      plan.numeric(ops.views(), CsrView<I, double>{static_cast<I>(m), static_cast<I>(n), ci.data(), cj.data(), nullptr}, cv.data());
      CHECK(pctest::compare_csr<I>(ref, m, n, ci, cj, cv) == "");
      CHECK(pctest::compare_csr<I>(ref, m, n, fi, fj, fv) == "");
    }
  }
}

TEST_CASE("product results do not depend on the number of threads", "[product][threads]")
{
  using I = std::int32_t;
  const auto A = stencil3d_27pt<I, double>(14);
  const Dense2 Ad = pctest::from_view(A.view());
  const Dense2 P = aggregation_prolongator(Ad.nrows, 27, 5);
  const Operands<I> ops = to_operands<I>({Ad, P});
  const pctest::Reference ref = pctest::reference_of(ProductType::PtAP, {Ad, P});
  for (const SpgemmOptions &base : configurations()) {
    INFO(describe(base));
    std::vector<double> first;
    std::vector<I> first_j;
    for (int nt : {1, 2, 4}) {
      SpgemmOptions o = base;
      o.num_threads = nt;
      std::vector<I> ci, cj;
      std::vector<double> cv;
      auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops.views(), o, ci, cj, &cv);
      const CsrView<I, double> C{static_cast<I>(P.ncols), static_cast<I>(P.ncols), ci.data(), cj.data(), nullptr};
      std::vector<double> nv(cj.size());
      plan.numeric(ops.views(), C, nv.data());
      CHECK(nv == cv); // fused and two-phase agree bit for bit
      if (first.empty()) {
        CHECK(pctest::compare_csr<I>(ref, P.ncols, P.ncols, ci, cj, cv) == "");
        first = cv;
        first_j = cj;
      } else {
        CHECK(cj == first_j);
        CHECK(cv == first); // bit for bit
      }
    }
  }
}

TEST_CASE("block sizes steer Auto per step: P's column block size for P^T", "[product]")
{
  using I = std::int32_t;
  // PtAP's stored chain runs AP = A*P (left factor A: A's row block size), Pt = P^T, C = Pt*AP (left factor P^T,
  // whose rows are P's columns: P's column block size). A is 3-dof elasticity (rows of a node share
  // their pattern); P = A * P0, P0 with two columns per aggregate with the same pattern (two
  // near-null-space vectors), so P^T's rows come in pairs that share their pattern. P's rows have
  // block size 3 (A's columns) and its columns 2: P.ncols / 2 fixed clusters on P^T can only come
  // from the column block size (the row block size would give P.ncols / 3, with padding). P is
  // smoothed (A * P0) so that both steps have the multiply-adds per entry of their left factor that
  // Auto asks of clusters (cluster_choice.cpp): P0 alone has 2 per row.
  const auto A = elasticity3d_27pt<I, double>(5);
  const Dense2 Ad = pctest::from_view(A.view());
  const Dense2 P = pctest::reference_product(Ad, block_prolongator(Ad.nrows, 6, 2, 9));
  REQUIRE(P.ncols == 126); // 63 aggregates of 6 of the 375 rows, 2 columns each
  REQUIRE(static_cast<double>(P.entries.size()) >= 16.0 * static_cast<double>(P.nrows));
  const Operands<I> ops = to_operands<I>({Ad, P});
  const pctest::Reference ref = pctest::reference_of(ProductType::PtAP, {Ad, P});
  SpgemmOptions o;
  o.kernel = Kernel::Cluster;
  o.scheme = ClusterScheme::Auto;
  o.triple = TripleForm::Stored; // Auto would run the fused form, which has no steps of its own to cluster
  std::vector<I> ci, cj;
  std::vector<double> cv;
  auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops.views(), o, ci, cj, &cv, {{3, 3}, {3, 2}});
  auto steps = plan.steps();
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].what == "AP = A*P");
  CHECK(steps[1].is_transpose);
  REQUIRE(steps[2].what == "C = Pt*AP");
  // A*P: A's rows come in blocks of 3 -> fixed clusters of whole nodes (choose_scheme in
  // cluster_choice.cpp), padding-free, so Auto keeps them.
  CHECK(steps[0].spgemm.kernel == Kernel::Cluster);
  CHECK(steps[0].spgemm.scheme == ClusterScheme::Fixed);
  CHECK(steps[0].spgemm.num_clusters == A.nrows / 3);
  CHECK(steps[0].spgemm.cluster_padding == 0);
  // Pt*AP: P's column block size 2 -> fixed clusters of the pairs of P^T's rows.
  CHECK(steps[2].spgemm.kernel == Kernel::Cluster);
  CHECK(steps[2].spgemm.scheme == ClusterScheme::Fixed);
  CHECK(steps[2].spgemm.num_clusters == P.ncols / 2);
  CHECK(steps[2].spgemm.cluster_padding == 0);
  CHECK(pctest::compare_csr<I>(ref, P.ncols, P.ncols, ci, cj, cv) == "");

  // Control: without P's column block size the step gets no fixed clusters (Auto: variable ones, or
  // row-wise), so the check above sees the block size, not a coincidence.
  plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops.views(), o, ci, cj, &cv, {{3, 3}, {3, 1}});
  steps = plan.steps();
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].spgemm.scheme == ClusterScheme::Fixed);
  CHECK_FALSE((steps[2].spgemm.kernel == Kernel::Cluster && steps[2].spgemm.scheme == ClusterScheme::Fixed));
  CHECK(pctest::compare_csr<I>(ref, P.ncols, P.ncols, ci, cj, cv) == "");
}

TEST_CASE("product dimension mismatches throw std::invalid_argument naming the sizes", "[product][errors]")
{
  using I = std::int32_t;
  const Operands<I> sq = to_operands<I>({pctest::random_matrix(5, 5, 0.5, 1), pctest::random_matrix(4, 3, 0.5, 2)});
  std::vector<I> ci, cj;
  const SpgemmOptions o;
  for (ProductType t : {ProductType::AB, ProductType::AtB, ProductType::PtAP, ProductType::RARt}) {
    INFO(to_string(t));
    try {
      ProductPlan<I, double>::symbolic(t, sq.views(), o, ci, cj);
      FAIL("no exception");
    } catch (const std::invalid_argument &e) {
      const std::string msg = e.what();
      CHECK(msg.find(to_string(t)) == 0);
      CHECK(msg.find("5 x 5") != std::string::npos);
      CHECK(msg.find("4 x 3") != std::string::npos);
    }
  }
  // ABt with matching columns is fine; PtAP of a non-square A is not.
  const Operands<I> rect = to_operands<I>({pctest::random_matrix(5, 6, 0.5, 1), pctest::random_matrix(6, 3, 0.5, 2)});
  CHECK_THROWS_AS((ProductPlan<I, double>::symbolic(ProductType::PtAP, rect.views(), o, ci, cj)), std::invalid_argument);
  CHECK_THROWS_AS((ProductPlan<I, double>::symbolic(ProductType::ABC, rect.views(), o, ci, cj)), std::invalid_argument); // 2 operands
}

TEST_CASE("numeric refuses an operand whose pattern changed", "[product][errors]")
{
  using I = std::int32_t;
  const Dense2 A = pctest::random_matrix(30, 30, 0.2, 3), P = pctest::random_matrix(30, 7, 0.3, 4);
  const Operands<I> ops = to_operands<I>({A, P});
  std::vector<I> ci, cj;
  auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops.views(), SpgemmOptions{}, ci, cj);
  std::vector<double> cv(cj.size());
  const CsrView<I, double> C{7, 7, ci.data(), cj.data(), nullptr};
  Dense2 P2 = P;
  P2.entries[{0, 6}] = 1.0, P2.entries[{1, 6}] = 1.0; // more entries in P
  REQUIRE(P2.entries.size() > P.entries.size());
  const Operands<I> ops2 = to_operands<I>({A, P2});
  CHECK_THROWS_AS(plan.numeric(ops2.views(), C, cv.data()), std::invalid_argument);
}
