// SpgemmPlan / multiply against the std::map reference, for every kernel configuration and
// parameter edge, both index widths; numeric reuse; thread-count determinism; invalid input.
#include "reference.hpp"

#include "pcluster/generators.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <cstring>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

std::string describe(const SpgemmOptions &o)
{
  std::ostringstream os;
  os << "kernel=" << to_string(o.kernel);
  if (o.kernel == Kernel::Cluster)
    os << " scheme=" << to_string(o.scheme) << " size=" << o.clustering.cluster_size
       << " threshold=" << o.clustering.jaccard_threshold << " topk=" << o.clustering.hierarchical_topk
       << " row_block_size=" << o.row_block_size;
  os << " accumulator=" << to_string(o.accumulator) << " threads=" << o.num_threads;
  return os.str();
}

// Every configuration the kernels must get right. The cluster sizes include 1, 2, 8, 64 (the
// cap), and 64 is larger than most test matrices' row counts.
std::vector<SpgemmOptions> all_configurations()
{
  std::vector<SpgemmOptions> out;
  const Accumulator accs[] = {Accumulator::Auto, Accumulator::Hash, Accumulator::Dense};
  const int sizes[] = {1, 2, 8, 64};
  const double thresholds[] = {0.0, 0.3, 1.0};
  const int topks[] = {0, 1, kMaxClusterSize - 1}; // the largest top-k the core accepts
  for (Accumulator acc : accs) {
    SpgemmOptions o;
    o.kernel = Kernel::Rowwise;
    o.accumulator = acc;
    out.push_back(o);
    for (int s : sizes) {
      o = SpgemmOptions{};
      o.kernel = Kernel::Cluster;
      o.accumulator = acc;
      o.clustering.cluster_size = s;
      o.scheme = ClusterScheme::Fixed;
      out.push_back(o);
      for (double t : thresholds) {
        o.clustering.jaccard_threshold = t;
        o.scheme = ClusterScheme::Variable;
        out.push_back(o);
        o.scheme = ClusterScheme::Auto;
        out.push_back(o);
        o.scheme = ClusterScheme::Hierarchical;
        for (int k : topks) {
          o.clustering.hierarchical_topk = k;
          out.push_back(o);
        }
        o.clustering.hierarchical_topk = 0;
      }
    }
    // Auto with a block-size hint (bs 3, as for 3-dof elasticity).
    o = SpgemmOptions{};
    o.kernel = Kernel::Cluster;
    o.scheme = ClusterScheme::Auto;
    o.row_block_size = 3;
    o.accumulator = acc;
    out.push_back(o);
  }
  return out;
}

// Checks the partition property of a clustering of nrows rows; "" if fine.

template <class I>
struct Product {
  std::vector<I> rowptr, colidx;
  std::vector<double> values;
};

template <class I>
Product<I> run(const CsrView<I, double> &A, const CsrView<I, double> &B, const SpgemmOptions &o,
               SpgemmPlan<I, double> *keep = nullptr)
{
  Product<I> P;
  auto plan = SpgemmPlan<I, double>::symbolic(A, B, o, P.rowptr, P.colidx);
  P.values.assign(P.colidx.size(), -12345.0); // garbage: numeric must overwrite every entry
  CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
  plan.numeric(A, B, Cv, P.values.data());
  if (keep) *keep = std::move(plan);
  return P;
}

// C = A*B with options o, three ways, each checked bit for bit against the reference C (the
// reference sums each entry over A's columns in order from +0): one-shot with the values formed by
// the symbolic phase, a symbolic phase then the numeric one, and that plan's numeric phase on new
// values A2, B2 (reference C2). Returns the one-shot plan's stats.
template <class I>
SpgemmStats check_bits_three_ways(const CsrMatrix<I, double> &A, const CsrMatrix<I, double> &B, const CsrMatrix<I, double> &A2, const CsrMatrix<I, double> &B2,
                                  const CsrMatrix<I, double> &C, const CsrMatrix<I, double> &C2, const SpgemmOptions &o)
{
  std::vector<I> fi, fj;
  std::vector<double> fv;
  SpgemmPlan<I, double> fused;
  REQUIRE_NOTHROW(fused = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, fi, fj, &fv));
  REQUIRE((fi == C.rowptr && fj == C.colidx));
  CHECK(pctest::same_bits(fv, C.values));
  SpgemmPlan<I, double> plan;
  Product<I> P;
  REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
  REQUIRE((P.rowptr == C.rowptr && P.colidx == C.colidx));
  CHECK(pctest::same_bits(P.values, C.values));
  const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
  std::fill(P.values.begin(), P.values.end(), -777.0);
  REQUIRE_NOTHROW(plan.numeric(A2.view(), B2.view(), Cv, P.values.data()));
  CHECK(pctest::same_bits(P.values, C2.values));
  return fused.stats();
}
} // namespace

TEMPLATE_TEST_CASE("every kernel configuration matches the reference product", "[spgemm]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const auto configs = all_configurations();
  for (const auto &cs : pctest::product_cases()) {
    const auto A = pctest::to_csr<I>(cs.A);
    const auto B = pctest::to_csr<I>(cs.B);
    const pctest::Reference ref = pctest::reference_of(cs.A, cs.B);
    const std::int64_t flops = pctest::reference_flops(cs.A, cs.B);
    for (const auto &o : configs) {
      INFO("case: " << cs.name << "; " << describe(o));
      Product<I> P;
      SpgemmPlan<I, double> plan;
      REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
      const std::string err = pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values);
      CHECK(err == "");
      CHECK(plan.stats().flops == flops);
      CHECK(plan.stats().nnz_c == static_cast<Count>(ref.product.entries.size()));
      { // fused symbolic+numeric: the values formed in the symbolic pass are the product's
        std::vector<I> fi, fj;
        std::vector<double> fv;
        REQUIRE_NOTHROW(SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, fi, fj, &fv));
        CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, fi, fj, fv) == "");
      }
      // Auto may fall back to the row-wise kernel when clusters come out too small (documented
      // rule in src/spgemm.cpp); an explicit scheme never does.
      if (o.kernel == Kernel::Cluster && o.scheme == ClusterScheme::Auto)
        CHECK((plan.stats().kernel == Kernel::Cluster || plan.stats().kernel == Kernel::Rowwise));
      else CHECK(plan.stats().kernel == o.kernel);
      if (plan.stats().kernel == Kernel::Cluster) {
        CHECK(plan.stats().scheme != ClusterScheme::Auto); // Auto is resolved by symbolic
        if (o.scheme != ClusterScheme::Auto) CHECK(plan.stats().scheme == o.scheme);
        CHECK(plan.stats().cluster_flops >= plan.stats().flops);
        if (const Clustering<I> *cl = plan.clustering()) {
          CHECK(pctest::partition_error(*cl, cs.A.nrows, o.clustering.cluster_size) == "");
          CHECK(plan.stats().num_clusters == static_cast<Count>(cl->num_clusters()));
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("multiply() one-shot equals the reference", "[spgemm]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const auto &cs : pctest::product_cases()) {
    const auto A = pctest::to_csr<I>(cs.A);
    const auto B = pctest::to_csr<I>(cs.B);
    const pctest::Reference ref = pctest::reference_of(cs.A, cs.B);
    for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
      SpgemmOptions o;
      o.kernel = k;
      INFO("case: " << cs.name << "; " << describe(o));
      CsrMatrix<I, double> C;
      REQUIRE_NOTHROW(C = multiply<I, double>(A.view(), B.view(), o));
      REQUIRE(C.values.size() == C.colidx.size());
      CHECK(pctest::compare_csr<I>(ref, C) == "");
    }
  }
}

TEMPLATE_TEST_CASE("pattern views (values == nullptr) count every entry as 1", "[spgemm]", std::int32_t, std::int64_t)
{
  using I = TestType;
  const auto configs = all_configurations();
  for (const auto &cs : pctest::product_cases()) {
    const auto A = pctest::to_csr<I>(cs.A);
    const auto B = pctest::to_csr<I>(cs.B);
    CsrView<I, double> Ap = A.view(), Bp = B.view();
    Ap.values = nullptr;
    Bp.values = nullptr;
    const pctest::Reference ref_pp = pctest::reference_of(pctest::ones(cs.A), pctest::ones(cs.B));
    const pctest::Reference ref_pv = pctest::reference_of(pctest::ones(cs.A), cs.B);
    const pctest::Reference ref_vp = pctest::reference_of(cs.A, pctest::ones(cs.B));
    for (std::size_t c = 0; c < configs.size(); c += 7) { // a spread of the configurations
      const auto &o = configs[c];
      INFO("case: " << cs.name << "; " << describe(o));
      Product<I> P;
      REQUIRE_NOTHROW(P = run<I>(Ap, Bp, o));
      CHECK(pctest::compare_csr<I>(ref_pp, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      REQUIRE_NOTHROW(P = run<I>(Ap, B.view(), o));
      CHECK(pctest::compare_csr<I>(ref_pv, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      REQUIRE_NOTHROW(P = run<I>(A.view(), Bp, o));
      CHECK(pctest::compare_csr<I>(ref_vp, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    }
  }
}

TEMPLATE_TEST_CASE("numeric reuse after the values of A and B change gives the new product", "[spgemm][reuse]",
                   std::int32_t, std::int64_t)
{
  using I = TestType;
  const auto configs = all_configurations();
  std::uint64_t seed = 5000;
  for (const auto &cs : pctest::product_cases()) {
    const Dense2 A2d = pctest::revalue(cs.A, seed++), B2d = pctest::revalue(cs.B, seed++);
    const Dense2 A3d = pctest::revalue(cs.A, seed++);
    const auto A = pctest::to_csr<I>(cs.A), B = pctest::to_csr<I>(cs.B);
    const auto A2 = pctest::to_csr<I>(A2d), B2 = pctest::to_csr<I>(B2d), A3 = pctest::to_csr<I>(A3d);
    const pctest::Reference ref2 = pctest::reference_of(A2d, B2d);
    const pctest::Reference ref3 = pctest::reference_of(A3d, B2d);
    for (std::size_t c = 0; c < configs.size(); c += 3) {
      const auto &o = configs[c];
      INFO("case: " << cs.name << "; " << describe(o));
      SpgemmPlan<I, double> plan;
      Product<I> P;
      REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
      const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
      // New values in both operands (new arrays, same patterns).
      std::fill(P.values.begin(), P.values.end(), -777.0);
      REQUIRE_NOTHROW(plan.numeric(A2.view(), B2.view(), Cv, P.values.data()));
      CHECK(pctest::compare_csr<I>(ref2, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      // And again (the plan is const and reusable any number of times).
      REQUIRE_NOTHROW(plan.numeric(A3.view(), B2.view(), Cv, P.values.data()));
      CHECK(pctest::compare_csr<I>(ref3, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    }
  }
}

TEST_CASE("Auto: dense and hash rows side by side in one chunk, symbolic and numeric reuse, any thread count", "[spgemm][reuse][threads]")
{
  // 2^20 columns and far fewer multiply-adds, so Auto takes the dense map only for the heavy rows
  // (every 10th: ~80k columns each, >= ncols/16) and the hash map for the rest, the two kinds
  // alternating inside one chunk.
  using I = std::int32_t;
  const std::int64_t n = std::int64_t(1) << 20;
  Dense2 Bd{8, n, {}};
  std::mt19937_64 rng(77);
  for (std::int64_t k = 0; k < 8; ++k)
    for (int e = 0; e < (k < 4 ? 20000 : 10); ++e) Bd.entries[{k, static_cast<std::int64_t>(rng() % n)}] = pctest::random_value(rng);
  Dense2 Ad{40, 8, {}};
  for (std::int64_t i = 0; i < 40; ++i) {
    if (i % 10 == 0)
      for (std::int64_t k = 0; k < 4; ++k) Ad.entries[{i, k}] = pctest::random_value(rng);
    else if (i % 10 != 5) { // rows 5, 15, ...: empty
      Ad.entries[{i, 4 + i % 4}] = pctest::random_value(rng);
      Ad.entries[{i, 4 + (i + 1) % 4}] = pctest::random_value(rng);
    }
  }
  const Dense2 A2d = pctest::revalue(Ad, 78);
  const auto A = pctest::to_csr<I>(Ad), A2 = pctest::to_csr<I>(A2d), B = pctest::to_csr<I>(Bd);
  const pctest::Reference ref = pctest::reference_of(Ad, Bd), ref2 = pctest::reference_of(A2d, Bd);
  std::vector<double> first;
  for (int threads : {1, 2, 4}) {
    SpgemmOptions o;
    o.kernel = Kernel::Rowwise;
    o.accumulator = Accumulator::Auto;
    o.num_threads = threads;
    INFO("threads " << threads);
    SpgemmPlan<I, double> plan;
    Product<I> P;
    REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
    CHECK(plan.stats().rows_dense == 4); // the heavy rows, and only they
    CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
    std::fill(P.values.begin(), P.values.end(), -777.0);
    REQUIRE_NOTHROW(plan.numeric(A2.view(), B.view(), Cv, P.values.data()));
    CHECK(pctest::compare_csr<I>(ref2, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    if (first.empty()) first = P.values;
    else CHECK(pctest::same_bits(P.values, first)); // bit-identical across thread counts
  }
}

TEST_CASE("row-wise numeric: gathering (narrow C) and positions (wide C) give the same values, any thread count", "[spgemm][reuse][threads]")
{
  // The same product twice: B's columns j, and j spread to 41 j + 7. The narrow C (2000 columns,
  // 16 KB of values) is numeric'd by gathering from a value array, the wide one (82k columns, past
  // kGatherMaxBytes) by positions in C's rows; every entry is the same sum in the same order, so the
  // values must agree bit for bit, with the reference, after one-shot and after the values change.
  // Rows: empty (A's row 3), a dense one (row 0 meets every B row), scattered short ones.
  using I = std::int32_t;
  const std::int64_t n = 2000, spread = 41;
  Dense2 Ad = pctest::random_matrix(50, 60, 0.05, 91), Bd = pctest::random_matrix(60, n, 0.01, 92);
  for (std::int64_t k = 0; k < 60; ++k) Ad.entries[{0, k}] = 0.5 + 0.01 * static_cast<double>(k);
  for (std::int64_t k = 0; k < 60; ++k) Ad.entries.erase({3, k});
  Dense2 Bwide{Bd.nrows, n * spread + 7, {}};
  for (const auto &e : Bd.entries) Bwide.entries[{e.first.first, e.first.second * spread + 7}] = e.second;
  const Dense2 A2d = pctest::revalue(Ad, 93);
  const auto A = pctest::to_csr<I>(Ad), A2 = pctest::to_csr<I>(A2d), B = pctest::to_csr<I>(Bd), Bw = pctest::to_csr<I>(Bwide);
  const pctest::Reference ref = pctest::reference_of(Ad, Bd), ref2 = pctest::reference_of(A2d, Bd);
  const pctest::Reference refw = pctest::reference_of(Ad, Bwide), ref2w = pctest::reference_of(A2d, Bwide);
  std::vector<double> first;
  for (int threads : {1, 2, 4}) {
    SpgemmOptions o;
    o.kernel = Kernel::Rowwise;
    o.accumulator = Accumulator::Dense;
    o.num_threads = threads;
    INFO("threads " << threads);
    SpgemmPlan<I, double> narrow_plan, wide_plan;
    Product<I> N, W;
    REQUIRE_NOTHROW(N = run<I>(A.view(), B.view(), o, &narrow_plan));
    REQUIRE_NOTHROW(W = run<I>(A.view(), Bw.view(), o, &wide_plan));
    CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, N.rowptr, N.colidx, N.values) == "");
    CHECK(pctest::compare_csr<I>(refw, A.nrows, Bw.ncols, W.rowptr, W.colidx, W.values) == "");
    CHECK(pctest::same_bits(N.values, W.values));
    const CsrView<I, double> Nv{A.nrows, B.ncols, N.rowptr.data(), N.colidx.data(), nullptr};
    const CsrView<I, double> Wv{A.nrows, Bw.ncols, W.rowptr.data(), W.colidx.data(), nullptr};
    std::fill(N.values.begin(), N.values.end(), -777.0);
    std::fill(W.values.begin(), W.values.end(), 555.0);
    REQUIRE_NOTHROW(narrow_plan.numeric(A2.view(), B.view(), Nv, N.values.data()));
    REQUIRE_NOTHROW(wide_plan.numeric(A2.view(), Bw.view(), Wv, W.values.data()));
    CHECK(pctest::compare_csr<I>(ref2, A.nrows, B.ncols, N.rowptr, N.colidx, N.values) == "");
    CHECK(pctest::compare_csr<I>(ref2w, A.nrows, Bw.ncols, W.rowptr, W.colidx, W.values) == "");
    CHECK(pctest::same_bits(N.values, W.values));
    if (first.empty()) first = N.values;
    else CHECK(pctest::same_bits(N.values, first)); // bit-identical across thread counts
  }
}

TEMPLATE_TEST_CASE("runs of B's repeated rows: every kernel adds them in row order, bit for bit, any thread count", "[spgemm][reuse][threads]",
                   std::int32_t, std::int64_t)
{
  // Node-block operands (tests/unit/reference.hpp, node_block_matrix): B's rows of a node repeat one
  // another, so the kernels take them as runs (src/spgemm_kernel.hpp, repeated_rows), up to kMaxRun
  // rows at a time (nodes of up to 6); holes in A break its runs, holes in B break B's. The reference
  // sums each entry over A's columns in order from +0, as the kernels must with or without runs: the
  // values must equal it bit for bit, one-shot (fused), after a symbolic + numeric and after the
  // values change. Narrow C (gathering), wide C (B's columns spread: positions), the hash map, and
  // the cluster kernel (fixed clusters of 3 across nodes of other sizes: rows that share their
  // pattern and rows that do not; Auto's variable clusters).
  using I = TestType;
  const std::vector<std::int64_t> fine = pctest::node_starts(60, 6, 301), coarse = pctest::node_starts(20, 3, 302);
  const Dense2 N = pctest::node_block_matrix(fine, fine, 0.08, 0.0, 303);
  const Dense2 Aholes = pctest::node_block_matrix(fine, fine, 0.08, 0.05, 304);
  const Dense2 Bholes = pctest::node_block_matrix(fine, coarse, 0.3, 0.05, 305);
  const std::int64_t spread = 199;
  Dense2 Nwide{N.nrows, N.ncols * spread + 7, {}};
  for (const auto &e : N.entries) Nwide.entries[{e.first.first, e.first.second * spread + 7}] = e.second;
  struct Case {
    const char *name;
    Dense2 A, B;
  };
  const std::vector<Case> cases = {{"square node blocks", N, N}, {"square, wide C", N, Nwide}, {"holes * prolongator", Aholes, Bholes}};
  std::vector<SpgemmOptions> configs;
  for (Accumulator acc : {Accumulator::Dense, Accumulator::Hash}) {
    SpgemmOptions o;
    o.accumulator = acc;
    o.kernel = Kernel::Rowwise;
    configs.push_back(o);
    o.kernel = Kernel::Cluster;
    o.scheme = ClusterScheme::Fixed;
    o.clustering.cluster_size = 3;
    configs.push_back(o);
    o.scheme = ClusterScheme::Auto;
    configs.push_back(o);
  }
  for (const Case &cs : cases) {
    const Dense2 A2d = pctest::revalue(cs.A, 306), B2d = pctest::revalue(cs.B, 307);
    const auto A = pctest::to_csr<I>(cs.A), B = pctest::to_csr<I>(cs.B), A2 = pctest::to_csr<I>(A2d), B2 = pctest::to_csr<I>(B2d);
    const auto C = pctest::to_csr<I>(pctest::reference_product(cs.A, cs.B)), C2 = pctest::to_csr<I>(pctest::reference_product(A2d, B2d));
    for (const SpgemmOptions &base : configs)
      for (int threads : {1, 2, 4}) {
        SpgemmOptions o = base;
        o.num_threads = threads;
        INFO(cs.name << "; " << describe(o));
        CHECK(check_bits_three_ways<I>(A, B, A2, B2, C, C2, o).repeated_rows > 0);
      }
  }
  // A stray repeat (one row of 6000) does not pay for looking for runs (kMinRepeatedShare): none
  // taken, decided on the leading sample (kRepeatSampleRows).
  Dense2 R = pctest::random_matrix(6000, 6000, 0.001, 308);
  R.entries[{10, 3}] = 1.5;
  R.entries[{10, 50}] = -2.0;
  for (std::int64_t j = 0; j < 6000; ++j) {
    R.entries.erase({11, j});
    if (R.entries.count({10, j})) R.entries[{11, j}] = 0.5;
  }
  const auto Rc = pctest::to_csr<I>(R);
  Product<I> P;
  SpgemmPlan<I, double> plan;
  REQUIRE_NOTHROW(P = run<I>(Rc.view(), Rc.view(), SpgemmOptions{}, &plan));
  CHECK(plan.stats().repeated_rows == 0);
  CHECK(pctest::compare_csr<I>(pctest::reference_of(R, R), Rc.nrows, Rc.ncols, P.rowptr, P.colidx, P.values) == "");
}

namespace {
// A 5-point stencil on an nx x ny grid numbered naturally (x fastest), values seeded.
Dense2 grid_5point(std::int64_t nx, std::int64_t ny, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  Dense2 M{nx * ny, nx * ny, {}};
  for (std::int64_t y = 0; y < ny; ++y)
    for (std::int64_t x = 0; x < nx; ++x) {
      const std::int64_t i = y * nx + x;
      for (auto [dx, dy] : {std::pair{0, -1}, {-1, 0}, {0, 0}, {1, 0}, {0, 1}})
        if (x + dx >= 0 && x + dx < nx && y + dy >= 0 && y + dy < ny) M.entries[{i, i + dy * nx + dx}] = pctest::random_value(rng);
    }
  return M;
}

// Rows of M as column sets.
std::vector<std::set<std::int64_t>> row_sets(const Dense2 &M)
{
  std::vector<std::set<std::int64_t>> rows(static_cast<std::size_t>(M.nrows));
  for (const auto &e : M.entries) rows[e.first.first].insert(e.first.second);
  return rows;
}

// Rows i of A*B that src/spgemm_kernel.hpp's rule (shifts_row_before, product_row_shifts_before)
// lets the symbolic phase copy from row i-1: found here on the operands' column sets.
std::int64_t shiftable_rows(const Dense2 &A, const Dense2 &B)
{
  const auto a = row_sets(A), b = row_sets(B);
  auto shifts = [](const std::set<std::int64_t> &row, const std::set<std::int64_t> &before) {
    if (row.empty() || row.size() != before.size()) return false;
    return std::equal(row.begin(), row.end(), before.begin(), [](std::int64_t j, std::int64_t k) { return j == k + 1; });
  };
  std::int64_t n = 0;
  for (std::size_t i = 1; i < a.size(); ++i) {
    bool ok = shifts(a[i], a[i - 1]);
    for (std::int64_t k : a[i]) ok = ok && k > 0 && shifts(b[k], b[k - 1]);
    n += ok;
  }
  return n;
}
} // namespace

TEMPLATE_TEST_CASE("A times a tentative prolongator: runs of its repeated rows only where its rows are long, the reference's bits", "[spgemm][reuse][threads]",
                   std::int32_t, std::int64_t)
{
  // PCGAMG's prolongator smoothing: A (a 5-point stencil, rows of 3-5 entries) times a tentative
  // prolongator P of one entry a row (each grid node's aggregate: 2 x 2 nodes), whose rows repeat
  // the row before along the grid: runs that rows of 1 or 2 entries do not repay (src/spgemm_kernel.hpp,
  // run_rows), rows of 6 do. Aggregates numbered along the grid and shuffled; a few values -0 (a
  // lone -0 product gives +0, as from +0). Values bit for bit against the reference (each entry
  // summed over A's columns in order from +0), one-shot and after a symbolic phase then the numeric
  // one, and after the values change; both accumulators, 1, 2 and 4 threads.
  using I = TestType;
  const std::int64_t nx = 29, ny = 21;
  const Dense2 A = grid_5point(nx, ny, 501);
  const std::int64_t ax = (nx + 1) / 2, naggs = ax * ((ny + 1) / 2);
  std::vector<std::int64_t> shuffled(static_cast<std::size_t>(naggs));
  std::iota(shuffled.begin(), shuffled.end(), 0);
  std::shuffle(shuffled.begin(), shuffled.end(), std::mt19937_64(502));
  auto prolongator = [&](bool shuffle, std::int64_t width, std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    Dense2 P{A.nrows, naggs + width - 1, {}};
    for (std::int64_t i = 0; i < A.nrows; ++i) {
      const std::int64_t agg = (i / nx / 2) * ax + (i % nx) / 2, col = shuffle ? shuffled[agg] : agg;
      for (std::int64_t w = 0; w < width; ++w) P.entries[{i, col + w}] = i % 37 == 5 ? -0.0 : pctest::random_value(rng);
    }
    return P;
  };
  struct Case {
    const char *name;
    Dense2 P;
    bool runs;
  };
  const std::vector<Case> cases = {{"aggregates in grid order", prolongator(false, 1, 503), false},
                                   {"aggregates shuffled", prolongator(true, 1, 504), false},
                                   {"rows of 2 entries", prolongator(true, 2, 505), false},
                                   {"rows of 6 entries", prolongator(false, 6, 506), true}};
  for (const Case &cs : cases) {
    const Dense2 A2d = pctest::revalue(A, 507), P2d = pctest::revalue(cs.P, 508);
    const auto Ac = pctest::to_csr<I>(A), Pc = pctest::to_csr<I>(cs.P), A2 = pctest::to_csr<I>(A2d), P2 = pctest::to_csr<I>(P2d);
    const auto C = pctest::to_csr<I>(pctest::reference_product(A, cs.P)), C2 = pctest::to_csr<I>(pctest::reference_product(A2d, P2d));
    for (Accumulator acc : {Accumulator::Dense, Accumulator::Hash})
      for (int threads : {1, 2, 4}) {
        SpgemmOptions o;
        o.accumulator = acc;
        o.num_threads = threads;
        INFO(cs.name << "; " << describe(o));
        CHECK((check_bits_three_ways<I>(Ac, Pc, A2, P2, C, C2, o).repeated_rows > 0) == cs.runs);
      }
  }
}

TEMPLATE_TEST_CASE("shifted rows (a stencil numbered naturally): the symbolic phase copies C's row before, each column plus one", "[spgemm][reuse][threads]",
                   std::int32_t, std::int64_t)
{
  // A 5-point stencil on a 31 x 23 grid: every row but the first of a grid line shifts the row
  // before it, so the pattern-only symbolic phase copies most rows of C from the row before
  // (shifted_rows), except at the start of each chunk of rows. Broken shifts: B with entries removed
  // from a few rows (those rows and the ones after no longer shift), A with an extra entry in a few
  // rows, a rectangular B whose rows are offset. The pattern must be the reference's, and the values
  // too, one-shot and after the values change, on 1, 2 and 4 threads, with either accumulator and
  // with the cluster kernel's Auto (row-wise where it declines clusters). SpgemmStats::shifted_rows
  // is bounded by the rows the rule allows, counted here on the operands.
  using I = TestType;
  const Dense2 S = grid_5point(31, 23, 401);
  Dense2 Sholes = grid_5point(31, 23, 402), Sextra = grid_5point(31, 23, 403);
  for (std::int64_t k : {40, 41, 300, 500, 712}) Sholes.entries.erase(Sholes.entries.lower_bound({k, 0}));
  for (std::int64_t i : {100, 101, 350}) Sextra.entries[{i, (i * 7) % Sextra.ncols}] = 0.75;
  Dense2 Rect{S.ncols, S.ncols + 9, {}};
  std::mt19937_64 rng(404);
  for (std::int64_t k = 0; k < Rect.nrows; ++k)
    for (std::int64_t d : {0, 4, 9})
      if (k % 97 != 13 || d != 4) Rect.entries[{k, k + d}] = pctest::random_value(rng);
  struct Case {
    const char *name;
    Dense2 A, B;
  };
  const std::vector<Case> cases = {{"5-point squared", S, S}, {"5-point * 5-point with holes", S, Sholes}, {"5-point with extra entries * rectangular", Sextra, Rect}};
  std::vector<SpgemmOptions> configs;
  for (Accumulator acc : {Accumulator::Dense, Accumulator::Hash}) {
    SpgemmOptions o;
    o.accumulator = acc;
    configs.push_back(o);
  }
  SpgemmOptions cl;
  cl.kernel = Kernel::Cluster;
  cl.scheme = ClusterScheme::Auto;
  configs.push_back(cl);
  for (const Case &cs : cases) {
    const std::int64_t allowed = shiftable_rows(cs.A, cs.B);
    REQUIRE(allowed > cs.A.nrows / 2);
    const Dense2 A2d = pctest::revalue(cs.A, 405), B2d = pctest::revalue(cs.B, 406);
    const auto A = pctest::to_csr<I>(cs.A), B = pctest::to_csr<I>(cs.B), A2 = pctest::to_csr<I>(A2d), B2 = pctest::to_csr<I>(B2d);
    const pctest::Reference ref = pctest::reference_of(cs.A, cs.B), ref2 = pctest::reference_of(A2d, B2d);
    for (const SpgemmOptions &base : configs)
      for (int threads : {1, 2, 4}) {
        SpgemmOptions o = base;
        o.num_threads = threads;
        INFO(cs.name << "; " << describe(o));
        SpgemmPlan<I, double> plan;
        Product<I> P;
        REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
        CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
        if (plan.stats().kernel == Kernel::Rowwise) CHECK(plan.stats().shifted_rows > allowed / 2);
        CHECK(plan.stats().shifted_rows <= allowed);
        const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
        std::fill(P.values.begin(), P.values.end(), -777.0);
        REQUIRE_NOTHROW(plan.numeric(A2.view(), B2.view(), Cv, P.values.data()));
        CHECK(pctest::compare_csr<I>(ref2, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      }
    // A reordered product relabels C's columns before putting them in order: no copies there.
    SpgemmOptions o;
    o.reorder = OrderingType::Rcm;
    SpgemmPlan<I, double> plan;
    Product<I> P;
    REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
    CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    CHECK(plan.stats().shifted_rows == 0);
  }
}

namespace {
// Row i holds columns i + lo .. i + hi (those below ncols), values seeded: every row shifts the row
// before it, bar the last ones.
Dense2 banded(std::int64_t n, std::int64_t ncols, std::int64_t lo, std::int64_t hi, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  Dense2 M{n, ncols, {}};
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = i + lo; j <= i + hi && j < ncols; ++j) M.entries[{i, j}] = pctest::random_value(rng);
  return M;
}
} // namespace

TEMPLATE_TEST_CASE("rows repeating or shifting the row before: copied by the symbolic phase, the numeric phase through the recorded positions, bit for bit",
                   "[spgemm][reuse][threads]", std::int32_t, std::int64_t)
{
  // The numeric phase takes rows of C whose products land where the row before's do through the
  // positions recorded on the run's first row (src/spgemm_kernel.hpp, FollowList): rows of A
  // repeating the row before (the 3 rows of a node of a block matrix, times a B of 2 entries a row,
  // too short for runs), rows shifting it (a 5-point stencil squared; banded rows times rows of 13
  // entries, which the numeric phase's loop takes unrolled), and a C wider than the numeric phase
  // gathers (positions bound through the map). Bit for bit against the reference, fused, symbolic +
  // numeric and after the values change (check_bits_three_ways), any accumulator and thread count;
  // SpgemmStats::following_rows, counted by the numeric phase, equals the rows the symbolic phase
  // copied. Then with the diagonal added to C (SpgemmOptions::include_diagonal): a row of A
  // repeating the row before then gives a row of C with another diagonal, and the banded product
  // holds no diagonal, so every row gets one; the numeric phase must match the one-shot's bits.
  using I = TestType;
  const std::int64_t nodes = 150, bs = 3;
  std::mt19937_64 rng(601);
  Dense2 Block{nodes * bs, nodes * bs, {}}, Short{nodes * bs, nodes * bs, {}};
  for (std::int64_t n = 0; n < nodes; ++n)
    for (std::int64_t m : {n - 7, n - 1, n, n + 1, n + 7})
      if (m >= 0 && m < nodes)
        for (std::int64_t d = 0; d < bs; ++d)
          for (std::int64_t e = 0; e < bs; ++e) Block.entries[{n * bs + d, m * bs + e}] = pctest::random_value(rng);
  for (std::int64_t k = 0; k < Short.nrows; ++k)
    for (int t = 0; t < 2; ++t) Short.entries[{k, static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(Short.ncols))}] = pctest::random_value(rng);
  const std::int64_t wide = 33000; // above the 32768 columns of doubles the numeric phase gathers in (kGatherMaxBytes)
  struct Case {
    const char *name;
    Dense2 A, B;
    bool shifts;
  };
  const std::vector<Case> cases = {{"node rows times short rows", Block, Short, false},
                                   {"5-point squared", grid_5point(31, 23, 602), grid_5point(31, 23, 602), true},
                                   {"banded times rows of 13", banded(600, 600, 1, 5, 605), banded(600, 600, 1, 13, 606), true},
                                   {"wide banded squared", banded(wide, wide, 0, 5, 607), banded(wide, wide, 0, 5, 607), true}};
  for (const Case &cs : cases) {
    const Dense2 A2d = pctest::revalue(cs.A, 603), B2d = pctest::revalue(cs.B, 604);
    const auto A = pctest::to_csr<I>(cs.A), B = pctest::to_csr<I>(cs.B), A2 = pctest::to_csr<I>(A2d), B2 = pctest::to_csr<I>(B2d);
    const auto C = pctest::to_csr<I>(pctest::reference_product(cs.A, cs.B)), C2 = pctest::to_csr<I>(pctest::reference_product(A2d, B2d));
    for (Accumulator acc : {Accumulator::Dense, Accumulator::Hash})
      for (int threads : {1, 2, 4}) {
        SpgemmOptions o;
        o.accumulator = acc;
        o.num_threads = threads;
        INFO(cs.name << "; " << describe(o));
        check_bits_three_ways<I>(A, B, A2, B2, C, C2, o);
        SpgemmPlan<I, double> plan;
        REQUIRE_NOTHROW(run<I>(A.view(), B.view(), o, &plan));
        const SpgemmStats &st = plan.stats();
        CHECK(st.repeated_rows == 0);
        CHECK((cs.shifts ? st.shifted_rows : st.same_rows) > A.nrows / 2);
        CHECK(st.following_rows == st.shifted_rows + st.same_rows);

        SpgemmOptions od = o;
        od.include_diagonal = true;
        std::vector<I> fi, fj;
        std::vector<double> fv;
        REQUIRE_NOTHROW(SpgemmPlan<I, double>::symbolic(A2.view(), B2.view(), od, fi, fj, &fv));
        SpgemmPlan<I, double> dplan;
        Product<I> D;
        REQUIRE_NOTHROW(D = run<I>(A.view(), B.view(), od, &dplan));
        REQUIRE((D.rowptr == fi && D.colidx == fj));
        CHECK(dplan.stats().following_rows > 0);
        const CsrView<I, double> Dv{A.nrows, B.ncols, D.rowptr.data(), D.colidx.data(), nullptr};
        std::fill(D.values.begin(), D.values.end(), -777.0);
        REQUIRE_NOTHROW(dplan.numeric(A2.view(), B2.view(), Dv, D.values.data()));
        CHECK(pctest::same_bits(D.values, fv));
      }
  }
}

TEMPLATE_TEST_CASE("copied rows: a numeric phase on operands whose pattern changed with the same sizes stays in C's rows", "[spgemm][reuse]", std::int32_t,
                   std::int64_t)
{
  // numeric() needs the operands' patterns of the symbolic phase and checks only their sizes (the
  // PETSc plugin checks the patterns); with another pattern its values are wrong, but it must not
  // write outside C (run under AddressSanitizer in CI): the first row of a run checks every
  // product's column against C's row before recording its position (numeric_row_recording), the
  // rows that follow check their counts. A 5-point stencil squared, then A with entries moved to
  // other columns (same nnz, same row lengths: the counts still fit), and with entries moved to
  // other rows. The dense map gathering (a narrow C), whose rows that follow no other never wrote
  // outside C; a wide C's numeric phase by positions writes through the map's slots unchecked, as it
  // did before rows were followed.
  using I = TestType;
  {
    const std::int64_t nx = 31, ny = 23;
    const Dense2 S = grid_5point(nx, ny, 611);
    Dense2 Moved = S, Rows = S;
    for (std::int64_t i = nx + 3; i < S.nrows - nx; i += 7) { // an off-diagonal entry to a column two further on
      auto it = Moved.entries.find({i, i + 1});
      if (it == Moved.entries.end() || Moved.entries.count({i, i + 3})) continue;
      const double v = it->second;
      Moved.entries.erase(it);
      Moved.entries[{i, i + 3}] = v;
    }
    for (std::int64_t i = nx + 3; i + 1 < S.nrows - nx; i += 11) { // an entry of row i to row i + 1
      auto it = Rows.entries.find({i, i - nx});
      if (it == Rows.entries.end() || Rows.entries.count({i + 1, i - nx})) continue;
      const double v = it->second;
      Rows.entries.erase(it);
      Rows.entries[{i + 1, i - nx}] = v;
    }
    const auto A = pctest::to_csr<I>(S), M = pctest::to_csr<I>(Moved), R = pctest::to_csr<I>(Rows);
    REQUIRE((M.nnz() == A.nnz() && R.nnz() == A.nnz()));
    SpgemmOptions o;
    o.accumulator = Accumulator::Dense;
    SpgemmPlan<I, double> plan;
    Product<I> P;
    REQUIRE_NOTHROW(P = run<I>(A.view(), A.view(), o, &plan));
    REQUIRE(plan.stats().following_rows > A.nrows / 2);
    const CsrView<I, double> Cv{A.nrows, A.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
    REQUIRE_NOTHROW(plan.numeric(M.view(), A.view(), Cv, P.values.data()));
    REQUIRE_NOTHROW(plan.numeric(R.view(), A.view(), Cv, P.values.data()));
    REQUIRE_NOTHROW(plan.numeric(A.view(), A.view(), Cv, P.values.data())); // and the plan still gives the product
    CHECK(pctest::compare_csr<I>(pctest::reference_of(S, S), A.nrows, A.ncols, P.rowptr, P.colidx, P.values) == "");
  }
}

TEST_CASE("symbolic: short rows merged, longer ones through the map, any accumulator and thread count", "[spgemm][reuse][threads]")
{
  // Row i of A has i % 8 entries, so rows of 0..4 entries take the merge of B's rows (kMergeMaxRows)
  // and rows of 5..7 the column map. B's rows: empty ones, rows that repeat one another, rows packed
  // in 40 columns (merges full of equal heads) and rows scattered over 5000 (rectangular C). The
  // symbolic phase with values (fused: merged sums for short rows, the map's for the others) must
  // give the pattern-only phase's pattern and its numeric's values bit for bit, both the reference's.
  using I = std::int32_t;
  const std::int64_t m = 400, inner = 90, n = 5000;
  std::mt19937_64 rng(2026);
  Dense2 Ad{m, inner, {}}, Bd{inner, n, {}};
  for (std::int64_t i = 0; i < m; ++i)
    for (std::int64_t t = 0; t < i % 8; ++t) Ad.entries[{i, static_cast<std::int64_t>(rng() % inner)}] = pctest::random_value(rng);
  for (std::int64_t k = 0; k < inner; ++k) {
    if (k % 9 == 0) continue; // empty row of B
    const bool packed = k % 2 == 0;
    const std::int64_t len = 1 + static_cast<std::int64_t>(rng() % 12);
    for (std::int64_t t = 0; t < len; ++t) Bd.entries[{k, static_cast<std::int64_t>(rng() % (packed ? 40 : n))}] = pctest::random_value(rng);
  }
  for (std::int64_t k = 1; k < inner; k += 10) // row k repeats row k - 1's pattern
    for (std::int64_t j = 0; j < n; ++j) {
      Bd.entries.erase({k, j});
      if (Bd.entries.count({k - 1, j})) Bd.entries[{k, j}] = pctest::random_value(rng);
    }
  const Dense2 A2d = pctest::revalue(Ad, 77);
  const auto A = pctest::to_csr<I>(Ad), A2 = pctest::to_csr<I>(A2d), B = pctest::to_csr<I>(Bd);
  const pctest::Reference ref = pctest::reference_of(Ad, Bd), ref2 = pctest::reference_of(A2d, Bd);
  std::vector<double> first;
  for (Accumulator acc : {Accumulator::Auto, Accumulator::Hash, Accumulator::Dense})
    for (int threads : {1, 2, 4}) {
      SpgemmOptions o;
      o.kernel = Kernel::Rowwise;
      o.accumulator = acc;
      o.num_threads = threads;
      INFO(describe(o));
      SpgemmPlan<I, double> plan;
      Product<I> P;
      REQUIRE_NOTHROW(P = run<I>(A.view(), B.view(), o, &plan));
      CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      Product<I> F; // fused: pattern and values by the map
      REQUIRE_NOTHROW(SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, F.rowptr, F.colidx, &F.values));
      CHECK(F.rowptr == P.rowptr);
      CHECK(F.colidx == P.colidx);
      CHECK(pctest::same_bits(F.values, P.values));
      const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
      std::fill(P.values.begin(), P.values.end(), -1.0);
      REQUIRE_NOTHROW(plan.numeric(A2.view(), B.view(), Cv, P.values.data()));
      CHECK(pctest::compare_csr<I>(ref2, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
      if (first.empty()) first = P.values;
      else CHECK(pctest::same_bits(P.values, first)); // bit-identical across maps and thread counts
    }
}

TEST_CASE("numeric reuse with values changed in place (same arrays, as PETSc's MatScale does)", "[spgemm][reuse]")
{
  using I = std::int32_t;
  const Dense2 Ad = pctest::grouped_matrix(80, 70, 4, 6, 42, true), Bd = pctest::random_matrix(70, 60, 0.08, 43);
  auto A = pctest::to_csr<I>(Ad);
  auto B = pctest::to_csr<I>(Bd);
  for (const auto &o : all_configurations()) {
    INFO(describe(o));
    SpgemmPlan<I, double> plan;
    Product<I> P = run<I>(A.view(), B.view(), o, &plan);
    const CsrView<I, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
    auto A2 = A;
    for (auto &v : A2.values) v *= 0.9;
    for (std::size_t k = 0; k < A2.values.size(); k += 3) A2.values[k] = -A2.values[k];
    Dense2 A2d = pctest::from_view(A2.view());
    plan.numeric(A2.view(), B.view(), Cv, P.values.data());
    CHECK(pctest::compare_csr<I>(pctest::reference_of(A2d, Bd), A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
  }
}

TEMPLATE_TEST_CASE("results do not depend on the number of threads", "[spgemm][threads]", std::int32_t, std::int64_t)
{
  using I = TestType;
  const Dense2 Ad = pctest::powerlaw_matrix(400, 400, 1.0, 77);
  const Dense2 Gd = pctest::grouped_matrix(300, 400, 5, 10, 78, true);
  const auto A = pctest::to_csr<I>(Ad), G = pctest::to_csr<I>(Gd);
  const pctest::Reference refG = pctest::reference_of(Gd, Ad), refA = pctest::reference_of(Ad, Ad);
  for (auto o : all_configurations()) {
    for (const auto *L : {&G, &A}) {
      INFO(describe(o));
      o.num_threads = 1;
      Product<I> P1 = run<I>(L->view(), A.view(), o);
      CHECK(pctest::compare_csr<I>(L == &G ? refG : refA, L->nrows, A.ncols, P1.rowptr, P1.colidx, P1.values) == "");
      o.num_threads = 2;
      SpgemmPlan<I, double> plan2;
      Product<I> P2 = run<I>(L->view(), A.view(), o, &plan2);
      CHECK(P1.rowptr == P2.rowptr);
      CHECK(P1.colidx == P2.colidx);
      CHECK(P1.values == P2.values); // bitwise: every entry is summed in the same order
    }
  }
  // With in-product reordering too (permuted copies, relabelled and gathered rows; 1, 2 and 4
  // threads), on a matrix large enough for every parallel region to run parallel.
  const Dense2 Rd = pctest::random_matrix(3000, 3000, 0.01, 79);
  const auto R = pctest::to_csr<I>(Rd);
  REQUIRE(R.nnz() > 2 * (Count(1) << 15)); // src/parallel.hpp: kMinParallelWork
  const pctest::Reference refR = pctest::reference_of(Rd, Rd);
  for (OrderingType ord : {OrderingType::Rcm, OrderingType::Random})
    for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
      SpgemmOptions o;
      o.kernel = k;
      o.scheme = ClusterScheme::Variable;
      o.reorder = ord;
      INFO(to_string(ord) << " " << to_string(k));
      o.num_threads = 1;
      const Product<I> P1 = run<I>(R.view(), R.view(), o);
      CHECK(pctest::compare_csr<I>(refR, R.nrows, R.ncols, P1.rowptr, P1.colidx, P1.values) == "");
      for (int t : {2, 4}) {
        o.num_threads = t;
        const Product<I> Pt = run<I>(R.view(), R.view(), o);
        CHECK(P1.rowptr == Pt.rowptr);
        CHECK(P1.colidx == Pt.colidx);
        CHECK(P1.values == Pt.values);
      }
    }
}

TEMPLATE_TEST_CASE("a larger power-law product with heavy rows, 1 and 2 threads", "[spgemm][threads]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  // 3000 rows, Pareto row lengths (a few rows with hundreds of entries): the flop-balanced
  // partition must not lose or duplicate rows, whatever the split.
  const Dense2 Ad = pctest::powerlaw_matrix(3000, 3000, 1.2, 300);
  const Dense2 Bd = pctest::powerlaw_matrix(3000, 2500, 1.6, 301);
  const auto A = pctest::to_csr<I>(Ad), B = pctest::to_csr<I>(Bd);
  const pctest::Reference ref = pctest::reference_of(Ad, Bd);
  std::vector<SpgemmOptions> configs;
  for (Accumulator acc : {Accumulator::Auto, Accumulator::Hash, Accumulator::Dense}) {
    SpgemmOptions o;
    o.accumulator = acc;
    configs.push_back(o);
    o.kernel = Kernel::Cluster;
    for (ClusterScheme sch : {ClusterScheme::Auto, ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
      o.scheme = sch;
      configs.push_back(o);
    }
  }
  for (auto o : configs)
    for (int t : {1, 2}) {
      o.num_threads = t;
      INFO(describe(o));
      const Product<I> P = run<I>(A.view(), B.view(), o);
      CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    }
}

TEST_CASE("random fuzz: shapes, densities, configurations and thread counts", "[spgemm][fuzz]")
{
  // 1500 random products, each with a random configuration (any scheme, accumulator, parameter
  // edge, 0..7 threads), checked against the reference, then reused with new values.
  std::mt19937_64 rng(20261130);
  auto pick = [&](int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng)); };
  const int sizes[] = {1, 2, 3, 5, 8, 16, 63, 64};
  const double thresholds[] = {0.0, 0.1, 0.3, 0.5, 0.9, 1.0};
  for (int it = 0; it < 1500; ++it) {
    const std::int64_t m = pick(90), k = pick(90), n = pick(200);
    const double da = std::pow(10.0, -2.5 * std::uniform_real_distribution<double>(0, 1)(rng));
    const double db = std::pow(10.0, -2.5 * std::uniform_real_distribution<double>(0, 1)(rng));
    const std::uint64_t seed = rng();
    Dense2 Ad = pick(3) == 0 ? pctest::grouped_matrix(std::max<std::int64_t>(m, 1), std::max<std::int64_t>(k, 1),
                                                     1 + pick(6), 1 + pick(8), seed, pick(2) == 1)
                             : pctest::random_matrix(m, k, da, seed);
    const Dense2 Bd = pctest::random_matrix(Ad.ncols, n, db, seed + 1);
    SpgemmOptions o;
    o.kernel = pick(4) == 0 ? Kernel::Rowwise : Kernel::Cluster;
    o.scheme = static_cast<ClusterScheme>(pick(4));
    o.accumulator = static_cast<Accumulator>(pick(3));
    o.clustering.cluster_size = sizes[pick(8)];
    o.clustering.jaccard_threshold = thresholds[pick(6)];
    o.clustering.hierarchical_topk = pick(3) == 0 ? 0 : pick(kMaxClusterSize);
    o.row_block_size = 1 + pick(4);
    o.num_threads = pick(8);
    INFO("iteration " << it << ": A " << Ad.nrows << "x" << Ad.ncols << " (" << Ad.entries.size() << " nnz), B "
                      << Bd.nrows << "x" << Bd.ncols << " (" << Bd.entries.size() << " nnz); " << describe(o));
    const auto A = pctest::to_csr<std::int32_t>(Ad), B = pctest::to_csr<std::int32_t>(Bd);
    SpgemmPlan<std::int32_t, double> plan;
    Product<std::int32_t> P;
    REQUIRE_NOTHROW(P = run<std::int32_t>(A.view(), B.view(), o, &plan));
    REQUIRE(pctest::compare_csr<std::int32_t>(pctest::reference_of(Ad, Bd), A.nrows, B.ncols, P.rowptr, P.colidx, P.values) == "");
    const Dense2 A2d = pctest::revalue(Ad, seed + 2), B2d = pctest::revalue(Bd, seed + 3);
    const auto A2 = pctest::to_csr<std::int32_t>(A2d), B2 = pctest::to_csr<std::int32_t>(B2d);
    const CsrView<std::int32_t, double> Cv{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr};
    plan.numeric(A2.view(), B2.view(), Cv, P.values.data());
    REQUIRE(pctest::compare_csr<std::int32_t>(pctest::reference_of(A2d, B2d), A.nrows, B.ncols, P.rowptr,
                                              P.colidx, P.values) == "");
  }
}

TEMPLATE_TEST_CASE("generated operators: Poisson, elasticity (bs 3), R-MAT, geometric, permuted", "[spgemm]",
                   std::int32_t, std::int64_t)
{
  using I = TestType;
  std::vector<std::pair<std::string, CsrMatrix<I, double>>> mats;
  mats.push_back({"poisson3d_7pt n=6", poisson3d_7pt<I, double>(6, 3)});
  mats.push_back({"stencil3d_27pt n=5", stencil3d_27pt<I, double>(5, 4)});
  const auto E = elasticity3d_27pt<I, double>(4, 5);
  mats.push_back({"elasticity3d_27pt n=4", E});
  mats.push_back({"elasticity3d_27pt n=4 permuted by node", permute_symmetric<I, double>(E.view(), std::uint64_t(6), 3)});
  const auto R = rmat<I, double>(8, 8, true, 7);
  mats.push_back({"rmat scale 8", R});
  mats.push_back({"rmat scale 8 without diagonal, permuted", permute_symmetric<I, double>(rmat<I, double>(8, 8, false, 8).view(), std::uint64_t(9))});
  mats.push_back({"random_geometric_2d 500", random_geometric_2d<I, double>(500, 6.0, false, 10)});
  for (const auto &nm : mats) {
    const Dense2 Ad = pctest::from_view(nm.second.view());
    const pctest::Reference ref = pctest::reference_of(Ad, Ad);
    for (auto o : all_configurations()) {
      for (int bs : {1, 3}) {
        if (o.kernel != Kernel::Cluster || o.scheme != ClusterScheme::Auto) {
          if (bs != 1) continue;
        } else o.row_block_size = bs;
        INFO(nm.first << "; " << describe(o));
        SpgemmPlan<I, double> plan;
        const Product<I> P = run<I>(nm.second.view(), nm.second.view(), o, &plan);
        CHECK(pctest::compare_csr<I>(ref, nm.second.nrows, nm.second.ncols, P.rowptr, P.colidx, P.values) == "");
      }
    }
  }
}

TEST_CASE("Auto with a row block size uses fixed clusters of whole nodes", "[spgemm]")
{
  using I = std::int32_t;
  const auto E = elasticity3d_27pt<I, double>(3, 1); // 81 rows, block size 3
  SpgemmOptions o;
  o.kernel = Kernel::Cluster;
  o.scheme = ClusterScheme::Auto;
  o.row_block_size = 3;
  std::vector<I> ci, cj;
  auto plan = SpgemmPlan<I, double>::symbolic(E.view(), E.view(), o, ci, cj);
  CHECK(plan.stats().kernel == Kernel::Cluster);
  CHECK(plan.stats().scheme == ClusterScheme::Fixed);
  CHECK(plan.stats().num_clusters == 27);
  CHECK(plan.stats().cluster_padding == 0); // the rows of a node share their pattern
}

TEST_CASE("Auto runs row-wise when the product has too few multiply-adds per entry of A to repay the clusters", "[spgemm]")
{
  using I = std::int32_t;
  const auto E = elasticity3d_27pt<I, double>(3, 1); // 81 rows, block size 3, 24 to 81 entries a row
  // B like a tentative prolongator: 2 entries a row, so 2 multiply-adds per entry of E
  Dense2 B;
  B.nrows = E.nrows;
  B.ncols = 18;
  for (std::int64_t i = 0; i < B.nrows; ++i)
    for (std::int64_t t = 0; t < 2; ++t) B.entries[{i, 2 * (i / 9) + t}] = 1.0 + static_cast<double>(i % 5) + 0.5 * static_cast<double>(t);
  const auto Bc = pctest::to_csr<I>(B);
  SpgemmOptions o;
  o.kernel = Kernel::Cluster;
  o.scheme = ClusterScheme::Auto;
  o.row_block_size = 3;
  std::vector<I> ci, cj;
  std::vector<double> cv;
  auto plan = SpgemmPlan<I, double>::symbolic(E.view(), Bc.view(), o, ci, cj, &cv);
  CHECK(plan.stats().flops < 16 * E.nnz());
  CHECK(plan.stats().kernel == Kernel::Rowwise);
  CHECK(plan.stats().num_clusters == 0);
  CHECK(pctest::compare_csr<I>(pctest::reference_of(pctest::from_view(E.view()), B), E.nrows, B.ncols, ci, cj, cv) == "");
  // Control: the same clusters, named, are built and used (the fallback is Auto's rule, not the input).
  o.scheme = ClusterScheme::Fixed;
  o.clustering.cluster_size = 3;
  plan = SpgemmPlan<I, double>::symbolic(E.view(), Bc.view(), o, ci, cj, &cv);
  CHECK(plan.stats().kernel == Kernel::Cluster);
  CHECK(plan.stats().num_clusters == 27);
  CHECK(pctest::compare_csr<I>(pctest::reference_of(pctest::from_view(E.view()), B), E.nrows, B.ncols, ci, cj, cv) == "");
}

TEST_CASE("explicit accumulator choices are honoured in the statistics", "[spgemm]")
{
  using I = std::int32_t;
  const Dense2 Ad = pctest::random_matrix(50, 50, 0.1, 1);
  const auto A = pctest::to_csr<I>(Ad);
  for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
    SpgemmOptions o;
    o.kernel = k;
    o.scheme = ClusterScheme::Fixed;
    o.accumulator = Accumulator::Hash;
    INFO(describe(o));
    SpgemmPlan<I, double> plan;
    run<I>(A.view(), A.view(), o, &plan);
    CHECK(plan.stats().rows_dense == 0);
    o.accumulator = Accumulator::Dense;
    run<I>(A.view(), A.view(), o, &plan);
    CHECK(plan.stats().rows_dense > 0);
  }
}

TEST_CASE("dimension mismatch throws std::invalid_argument", "[spgemm][errors]")
{
  using I = std::int32_t;
  const auto A = pctest::to_csr<I>(pctest::random_matrix(3, 4, 0.5, 1));
  const auto B = pctest::to_csr<I>(pctest::random_matrix(5, 2, 0.5, 2));
  std::vector<I> ci, cj;
  for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
    SpgemmOptions o;
    o.kernel = k;
    INFO(describe(o));
    CHECK_THROWS_AS((SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj)), std::invalid_argument);
    CHECK_THROWS_AS((multiply<I, double>(A.view(), B.view(), o)), std::invalid_argument);
  }
}

TEST_CASE("invalid clustering options are rejected by the plan", "[spgemm][errors]")
{
  using I = std::int32_t;
  const auto A = pctest::to_csr<I>(pctest::random_matrix(10, 10, 0.3, 1));
  std::vector<I> ci, cj;
  SpgemmOptions o;
  o.kernel = Kernel::Cluster;
  o.clustering.cluster_size = 0;
  CHECK_THROWS_AS((SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj)), std::invalid_argument);
  o.clustering.cluster_size = kMaxClusterSize + 1;
  CHECK_THROWS_AS((SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj)), std::invalid_argument);
  o.clustering.cluster_size = 8;
  o.clustering.jaccard_threshold = 1.5;
  CHECK_THROWS_AS((SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj)), std::invalid_argument);
}

TEST_CASE("num_threads outside [0, kMaxThreads] is rejected before a team is started", "[spgemm][errors]")
{
  using I = std::int32_t;
  const auto A = pctest::to_csr<I>(pctest::random_matrix(300, 300, 0.3, 1)); // enough work for a parallel region
  std::vector<I> ci, cj;
  for (int t : {-1, kMaxThreads + 1, 2147483647}) {
    SpgemmOptions o;
    o.num_threads = t;
    INFO("num_threads " << t);
    try {
      SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj);
      FAIL("no exception");
    } catch (const std::invalid_argument &e) {
      CHECK(std::string(e.what()).find("num_threads") != std::string::npos);
    }
    CHECK_THROWS_AS((ProductPlan<I, double>::symbolic(ProductType::PtAP, {A.view(), A.view()}, o, ci, cj)), std::invalid_argument);
  }
}

TEST_CASE("to_string names the enumerators", "[spgemm]")
{
  CHECK(std::string(to_string(Kernel::Rowwise)) != std::string(to_string(Kernel::Cluster)));
  CHECK(std::string(to_string(Accumulator::Hash)) == "hash");
  CHECK(std::string(to_string(Accumulator::Dense)) == "dense");
  CHECK(std::string(to_string(Accumulator::Auto)) == "auto");
}

TEST_CASE("in-product reordering: every ordering gives the product in A's row order", "[spgemm][ordering]")
{
  using I = std::int32_t;
  const auto cases = pctest::product_cases();
  std::vector<SpgemmOptions> configs;
  {
    SpgemmOptions o;
    configs.push_back(o); // row-wise
    o.kernel = Kernel::Cluster;
    for (ClusterScheme sch : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical, ClusterScheme::Auto}) {
      o.scheme = sch;
      o.clustering.cluster_size = 4;
      configs.push_back(o);
    }
  }
  for (OrderingType ord : all_orderings()) {
    for (const auto &c : cases) {
      const pctest::Reference ref = pctest::reference_of(c.A, c.B);
      const std::int64_t m = ref.product.nrows, n = ref.product.ncols;
      const auto A = pctest::to_csr<I>(c.A), B = pctest::to_csr<I>(c.B);
      for (SpgemmOptions o : configs) {
        o.reorder = ord;
        o.ordering.seed = 7;
        INFO(to_string(ord) << " | " << c.name << " | " << describe(o));
        SpgemmPlan<I, double> plan;
        const Product<I> P = run<I>(A.view(), B.view(), o, &plan);
        CHECK(pctest::compare_csr<I>(ref, m, n, P.rowptr, P.colidx, P.values) == "");
        // Numeric reuse with new values keeps the ordering (and clusters) of the symbolic phase.
        const Dense2 A2 = pctest::revalue(c.A, 3), B2 = pctest::revalue(c.B, 4);
        const auto A2c = pctest::to_csr<I>(A2), B2c = pctest::to_csr<I>(B2);
        std::vector<double> v(P.colidx.size(), -1.0);
        plan.numeric(A2c.view(), B2c.view(), CsrView<I, double>{A.nrows, B.ncols, P.rowptr.data(), P.colidx.data(), nullptr}, v.data());
        CHECK(pctest::compare_csr<I>(pctest::reference_of(A2, B2), m, n, P.rowptr, P.colidx, v) == "");
        if (c.A.nrows != c.A.ncols) continue;
        // A*A with one matrix as both operands (B's working copy is A's), fused and two-phase, with
        // the forced diagonal; then reuse with new values, the same and then distinct arrays.
        SpgemmOptions od = o;
        od.include_diagonal = true;
        pctest::Reference sq = pctest::reference_of(c.A, c.A);
        pctest::add_diagonal(sq);
        std::vector<I> fi, fj;
        std::vector<double> fv;
        SpgemmPlan<I, double>::symbolic(A.view(), A.view(), od, fi, fj, &fv);
        CHECK(pctest::compare_csr<I>(sq, m, m, fi, fj, fv) == "");
        SpgemmPlan<I, double> sqplan;
        const Product<I> S = run<I>(A.view(), A.view(), od, &sqplan);
        CHECK(pctest::compare_csr<I>(sq, m, m, S.rowptr, S.colidx, S.values) == "");
        const CsrView<I, double> Sv{A.nrows, A.nrows, S.rowptr.data(), S.colidx.data(), nullptr};
        std::vector<double> w(S.colidx.size(), -1.0);
        sqplan.numeric(A2c.view(), A2c.view(), Sv, w.data());
        pctest::Reference sq2 = pctest::reference_of(A2, A2);
        pctest::add_diagonal(sq2);
        CHECK(pctest::compare_csr<I>(sq2, m, m, S.rowptr, S.colidx, w) == "");
        const Dense2 A3 = pctest::revalue(c.A, 5);
        const auto A3c = pctest::to_csr<I>(A3);
        sqplan.numeric(A2c.view(), A3c.view(), Sv, w.data());
        pctest::Reference sq3 = pctest::reference_of(A2, A3);
        pctest::add_diagonal(sq3);
        CHECK(pctest::compare_csr<I>(sq3, m, m, S.rowptr, S.colidx, w) == "");
      }
    }
  }
}

TEST_CASE("a LeftAnalysis carries A's ordering and clusters to a product with another B", "[spgemm][ordering]")
{
  using I = std::int32_t;
  const Dense2 Ad = pctest::random_matrix(120, 120, 0.06, 3);
  const Dense2 F1 = pctest::random_matrix(120, 9, 0.2, 4), F2 = pctest::random_matrix(120, 9, 0.1, 5);
  const auto A = pctest::to_csr<I>(Ad), B1 = pctest::to_csr<I>(F1), B2 = pctest::to_csr<I>(F2);
  for (OrderingType ord : {OrderingType::Natural, OrderingType::Rcm, OrderingType::Random})
    for (ClusterScheme sch : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
      SpgemmOptions o;
      o.kernel = Kernel::Cluster;
      o.scheme = sch;
      o.clustering.cluster_size = 4;
      o.reorder = ord;
      INFO(to_string(ord) << " " << to_string(sch));
      std::vector<I> ci, cj;
      std::vector<double> cv;
      const auto first = SpgemmPlan<I, double>::symbolic(A.view(), B1.view(), o, ci, cj, &cv);
      const auto analysis = first.left_analysis();
      REQUIRE(analysis);
      CHECK_FALSE(first.stats().left_reused);
      CHECK(analysis->order.size() == (ord == OrderingType::Natural ? 0u : 120u));
      CHECK(analysis->kernel == Kernel::Cluster);
      // The second product takes them, and is still exact, fused and two-phase.
      const auto second = SpgemmPlan<I, double>::symbolic(A.view(), B2.view(), o, ci, cj, &cv, analysis);
      CHECK(second.stats().left_reused);
      CHECK(second.left_analysis() == analysis);
      REQUIRE(second.clustering());
      CHECK(second.clustering()->rows == analysis->clusters.rows);
      CHECK(pctest::compare_csr<I>(pctest::reference_of(Ad, F2), 120, 9, ci, cj, cv) == "");
      SpgemmPlan<I, double> plan;
      const Product<I> P = run<I>(A.view(), B2.view(), o, &plan);
      CHECK(pctest::compare_csr<I>(pctest::reference_of(Ad, F2), 120, 9, P.rowptr, P.colidx, P.values) == "");
      // Other options, or another A, do not fit: an error, never a silently wrong ordering.
      auto symbolic_with = [&](const CsrView<I, double> &M, const SpgemmOptions &opts) {
        return SpgemmPlan<I, double>::symbolic(M, B2.view(), opts, ci, cj, nullptr, analysis);
      };
      SpgemmOptions other = o;
      other.clustering.cluster_size = 3;
      CHECK_THROWS_AS(symbolic_with(A.view(), other), std::invalid_argument);
      other = o;
      other.reorder = OrderingType::Degree;
      CHECK_THROWS_AS(symbolic_with(A.view(), other), std::invalid_argument);
      const auto A2 = pctest::to_csr<I>(pctest::random_matrix(120, 120, 0.03, 6));
      CHECK_THROWS_AS(symbolic_with(A2.view(), o), std::invalid_argument);
    }
}

TEST_CASE("in-product reordering of a block matrix orders nodes and keeps the node clusters", "[spgemm][ordering]")
{
  using I = std::int32_t;
  const auto E = elasticity3d_27pt<I, double>(5);
  const auto A = permute_symmetric(E.view(), std::uint64_t(3), 3); // shuffled by node
  const pctest::Reference ref = pctest::reference_of(pctest::from_view(A.view()), pctest::from_view(A.view()));
  for (OrderingType ord : {OrderingType::Rcm, OrderingType::Gp, OrderingType::Degree}) {
    SpgemmOptions o;
    o.kernel = Kernel::Cluster;
    o.row_block_size = 3;
    o.reorder = ord;
    INFO(to_string(ord));
    std::vector<I> ci, cj;
    std::vector<double> cv;
    const auto plan = SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj, &cv);
    CHECK(pctest::compare_csr<I>(ref, A.nrows, A.ncols, ci, cj, cv) == "");
    // Auto keeps fixed clusters of whole nodes: the ordering did not split them.
    CHECK(plan.stats().kernel == Kernel::Cluster);
    CHECK(plan.stats().scheme == ClusterScheme::Fixed);
    CHECK(plan.stats().cluster_padding == 0);
  }
}
