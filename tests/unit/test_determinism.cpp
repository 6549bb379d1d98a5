// Determinism: for every kernel (row-wise; cluster-wise with fixed, variable, hierarchical and
// automatic clustering), accumulator (hash, dense, auto), product type and in-product ordering
// (natural, random with a seed, rcm), 1, 2 and 4 threads give the same bits: C's pattern, the
// fused symbolic values, the numeric values, the values after new operand values, and the
// clusters and ordering of A. A repeated numeric phase and a fresh plan give the same bits too, and
// the fused symbolic values equal the numeric ones (signed zeros included).
//
// "Same bits" is memcmp, not ==: 0.0 == -0.0 would hide a difference. The operands are big enough
// for every parallel region to run in parallel (src/parallel.hpp: kMinParallelWork, checked below;
// the variable clustering scans blocks of 4096 rows, so they have more), and have what makes
// parallel code go wrong: power-law rows (R-MAT hubs: chunks of very unequal rows), many equal rows
// (Jaccard ties for the hierarchical clustering's top-k and heap), a few dense rows, and explicit
// zeros times negative values (products equal to -0).
#include "parallel.hpp"
#include "reference.hpp"
#include "pcluster/clustering.hpp"
#include "pcluster/generators.hpp"
#include "pcluster/ordering.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"
#include <omp.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <sstream>
#include <string>
#include <vector>

using namespace pcluster;

namespace {

using I = std::int32_t;
using Csr = CsrMatrix<I, double>;

constexpr int kThreadCounts[] = {1, 2, 4};

using pctest::same_bits;

std::uint64_t mix(std::uint64_t x)
{
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}
// A value in [-1, -0.1] u [0.1, 1] from a hash.
double value_of(std::uint64_t h) { return (h & 1 ? -1.0 : 1.0) * (0.1 + 0.9 * double(h >> 11) / double(1ull << 53)); }

Csr from_rows(I nrows, I ncols, std::vector<std::vector<std::pair<I, double>>> &rows)
{
  Csr M;
  M.nrows = nrows;
  M.ncols = ncols;
  M.rowptr.assign(static_cast<std::size_t>(nrows) + 1, 0);
  for (I i = 0; i < nrows; ++i) {
    auto &r = rows[i];
    std::sort(r.begin(), r.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
    r.erase(std::unique(r.begin(), r.end(), [](const auto &a, const auto &b) { return a.first == b.first; }), r.end());
    for (const auto &e : r) {
      M.colidx.push_back(e.first);
      M.values.push_back(e.second);
    }
    M.rowptr[i + 1] = static_cast<I>(M.colidx.size());
  }
  return M;
}

// n x n with ties: rows come from n/32 templates, four consecutive rows per template and every
// template again every n/8 rows (equal rows, equal values, near and far apart); every 997th row is
// dense (every 16th column); every 101st row holds one explicit zero.
Csr tie_matrix(I n)
{
  std::vector<std::vector<std::pair<I, double>>> rows(n);
  const I templates = std::max<I>(1, n / 32);
  for (I i = 0; i < n; ++i) {
    auto &r = rows[i];
    if (i % 997 == 5) {
      for (I j = i % 16; j < n; j += 16) r.emplace_back(j, value_of(mix(std::uint64_t(i) * n + j)));
    } else if (i % 101 == 7) {
      r.emplace_back(static_cast<I>(mix(i) % n), 0.0);
    } else {
      const std::uint64_t t = (i / 4) % templates;
      const int len = 4 + static_cast<int>(t % 13);
      for (int l = 0; l < len; ++l) r.emplace_back(static_cast<I>(mix(t * 64 + l) % n), value_of(mix(t * 64 + l + 7777)));
    }
  }
  return from_rows(n, n, rows);
}

// n x ceil(n/4): aggregates of four rows, the next aggregate and two scattered columns per row
// (the shape of a smoothed prolongator, with enough entries for parallel transposes).
Csr prolongator(I n)
{
  const I nc = (n + 3) / 4;
  std::vector<std::vector<std::pair<I, double>>> rows(n);
  for (I i = 0; i < n; ++i) {
    rows[i].emplace_back(i / 4, value_of(mix(3 * i)));
    rows[i].emplace_back((i / 4 + 1) % nc, value_of(mix(3 * i + 1)));
    rows[i].emplace_back(static_cast<I>(mix(3 * i + 2) % nc), value_of(mix(3 * i + 2) >> 1));
    rows[i].emplace_back(static_cast<I>(mix(5 * i + 9) % nc), value_of(mix(5 * i + 9) >> 1));
  }
  return from_rows(n, nc, rows);
}

Csr transposed(const Csr &M)
{
  std::vector<std::vector<std::pair<I, double>>> rows(M.ncols);
  for (I i = 0; i < M.nrows; ++i)
    for (I p = M.rowptr[i]; p < M.rowptr[i + 1]; ++p) rows[M.colidx[p]].emplace_back(i, M.values[p]);
  return from_rows(M.ncols, M.nrows, rows);
}

// Same pattern, new values (explicit zeros stay zero).
Csr revalued(Csr M, std::uint64_t seed)
{
  for (std::size_t p = 0; p < M.values.size(); ++p)
    if (M.values[p] != 0.0) M.values[p] = value_of(mix(seed * 1000003 + p));
  return M;
}

struct Operands {
  std::string name;
  ProductType type;
  std::vector<const Csr *> mats;
  std::vector<CsrView<I, double>> views() const
  {
    std::vector<CsrView<I, double>> v;
    for (const Csr *m : mats) v.push_back(m->view());
    return v;
  }
};

struct Config {
  Kernel kernel;
  ClusterScheme scheme;
  Accumulator acc;
  OrderingType reorder;
};

std::string describe(const Config &c)
{
  std::ostringstream os;
  os << to_string(c.kernel);
  if (c.kernel == Kernel::Cluster) os << "/" << to_string(c.scheme);
  os << " accumulator " << to_string(c.acc) << " reorder " << to_string(c.reorder);
  return os.str();
}

SpgemmOptions options_of(const Config &c, int threads)
{
  SpgemmOptions o;
  o.kernel = c.kernel;
  o.scheme = c.scheme;
  o.accumulator = c.acc;
  o.reorder = c.reorder;
  o.ordering.seed = 5;
  o.clustering.cluster_size = c.scheme == ClusterScheme::Fixed ? 4 : 8;
  o.num_threads = threads;
  return o;
}

// Everything one thread count produced for one product.
struct Outcome {
  std::vector<I> rowptr, colidx;
  std::vector<double> fused, numeric, renumeric;
  bool by_rows_of_c = false; // a fused triple product's numeric phase by rows of C: its own order of sums
  std::vector<I> order, cluster_rows, cluster_ptr;   // A's analysis
  std::vector<Count> step_stats;                     // per step: kernel, scheme, clusters, padding, nnz
};

Outcome run(const Operands &ops, const std::vector<CsrView<I, double>> &new_values, const Config &c, int threads)
{
  Outcome out;
  const SpgemmOptions o = options_of(c, threads);
  const auto views = ops.views();
  // Fused: pattern and values in one pass.
  auto fused = ProductPlan<I, double>::symbolic(ops.type, views, o, out.rowptr, out.colidx, &out.fused);
  const std::array<I, 2> dims = product_dimensions(ops.type, views);
  const CsrView<I, double> C{dims[0], dims[1], out.rowptr.data(), out.colidx.data(), nullptr};
  // Two-phase: a fresh plan, pattern only, then numeric (twice: a repeat must not drift).
  std::vector<I> ri, rj;
  auto plan = ProductPlan<I, double>::symbolic(ops.type, views, o, ri, rj);
  REQUIRE(same_bits(ri, out.rowptr));
  REQUIRE(same_bits(rj, out.colidx));
  out.numeric.assign(rj.size(), 12345.0);
  plan.numeric(views, C, out.numeric.data());
  std::vector<double> again(rj.size(), -1.0);
  plan.numeric(views, C, again.data());
  CHECK(same_bits(again, out.numeric));
  // New values, same patterns, on both plans.
  out.renumeric.assign(rj.size(), 0.0);
  plan.numeric(new_values, C, out.renumeric.data());
  fused.numeric(new_values, C, again.data());
  CHECK(same_bits(again, out.renumeric));
  if (auto a = plan.a_analysis()) {
    out.order = a->order;
    out.cluster_rows = a->clusters.rows;
    out.cluster_ptr = a->clusters.ptr;
  }
  for (const ProductStep &s : plan.steps()) out.by_rows_of_c = out.by_rows_of_c || s.by_rows_of_c;
  for (const ProductStep &s : plan.steps())
    out.step_stats.insert(out.step_stats.end(), {Count(s.spgemm.kernel), Count(s.spgemm.scheme), s.spgemm.num_clusters,
                                                 s.spgemm.cluster_padding, s.nnz});
  return out;
}

// Also: with the same ordering, every kernel and accumulator gives the same bits. Each entry of C is
// summed over A's columns in the working order whatever the kernel (a cluster's padding adds exact
// zeros to sums that start from +0), so the algorithm name does not change the result either; a
// fused triple product by rows of C sums in its own order ((P^T A) P), compared with its like.
void check_all_thread_counts(const Operands &ops, const std::vector<Csr> &new_values, const std::vector<Config> &configs)
{
  std::vector<CsrView<I, double>> nv;
  std::map<std::pair<OrderingType, bool>, std::pair<Config, Outcome>> by_order; // the first configuration of each ordering (and order of sums)
  for (const Csr &m : new_values) nv.push_back(m.view());
  for (const Config &c : configs) {
    INFO(ops.name << ": " << describe(c));
    Outcome first;
    for (int t : kThreadCounts) {
      INFO(t << " threads against 1");
      Outcome now = run(ops, nv, c, t);
      // The fused symbolic values are the numeric ones, bit for bit (also a lone -0 product).
      CHECK(same_bits(now.fused, now.numeric));
      if (t == kThreadCounts[0]) {
        first = std::move(now);
        continue;
      }
      CHECK(same_bits(now.rowptr, first.rowptr));
      CHECK(same_bits(now.colidx, first.colidx));
      CHECK(same_bits(now.fused, first.fused));
      CHECK(same_bits(now.numeric, first.numeric));
      CHECK(same_bits(now.renumeric, first.renumeric));
      CHECK(same_bits(now.order, first.order));
      CHECK(same_bits(now.cluster_rows, first.cluster_rows));
      CHECK(same_bits(now.cluster_ptr, first.cluster_ptr));
      CHECK(same_bits(now.step_stats, first.step_stats));
    }
    const std::pair<OrderingType, bool> key{c.reorder, first.by_rows_of_c};
    const auto known = by_order.find(key);
    if (known == by_order.end()) by_order.emplace(key, std::make_pair(c, std::move(first)));
    else {
      INFO("against " << describe(known->second.first));
      CHECK(same_bits(first.colidx, known->second.second.colidx));
      CHECK(same_bits(first.numeric, known->second.second.numeric));
      CHECK(same_bits(first.renumeric, known->second.second.renumeric));
    }
  }
}

// Every kernel with every accumulator in natural order; with a reordering (random with a seed,
// rcm), every kernel with the accumulators given (the accumulator does not touch the ordering code).
std::vector<Config> configs(const std::vector<std::pair<OrderingType, std::vector<Accumulator>>> &orders)
{
  std::vector<Config> out;
  for (const auto &oa : orders)
    for (Accumulator acc : oa.second) {
      out.push_back({Kernel::Rowwise, ClusterScheme::Auto, acc, oa.first});
      for (ClusterScheme s : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical, ClusterScheme::Auto})
        out.push_back({Kernel::Cluster, s, acc, oa.first});
    }
  return out;
}
const std::vector<Accumulator> kAllAccumulators = {Accumulator::Hash, Accumulator::Dense, Accumulator::Auto};

// The operands, made once: T (ties, 9000 rows: three blocks of the variable scan), its P and R = P^T,
// and an R-MAT graph.
struct Matrices {
  Csr T = tie_matrix(9000), P = prolongator(9000), R = transposed(P);
  Csr T2 = revalued(T, 1), P2 = revalued(P, 2), R2 = transposed(P2);
  Csr G = rmat<I, double>(12, 8, true, 3), G2 = revalued(G, 4);
};
const Matrices &matrices()
{
  static const Matrices m;
  return m;
}

// Every product type on T and P: the operands of each step and the steps' work are above the
// threshold under which a region runs on one thread.
std::vector<std::pair<Operands, std::vector<Csr>>> tie_products()
{
  const Matrices &m = matrices();
  return {
    {{"AB: T*T", ProductType::AB, {&m.T, &m.T}}, {m.T2, m.T2}},
    {{"AB: T*P", ProductType::AB, {&m.T, &m.P}}, {m.T2, m.P2}},
    {{"AtB: T^T*P", ProductType::AtB, {&m.T, &m.P}}, {m.T2, m.P2}},
    {{"ABt: T*R^T", ProductType::ABt, {&m.T, &m.R}}, {m.T2, m.R2}},
    {{"PtAP: P^T*T*P", ProductType::PtAP, {&m.T, &m.P}}, {m.T2, m.P2}},
    {{"RARt: R*T*R^T", ProductType::RARt, {&m.T, &m.R}}, {m.T2, m.R2}},
    {{"ABC: R*T*P", ProductType::ABC, {&m.R, &m.T, &m.P}}, {m.R2, m.T2, m.P2}},
  };
}

} // namespace

TEST_CASE("the test operands are big enough for every parallel region to run in parallel", "[determinism]")
{
  const Matrices &m = matrices();
  const Count w = detail::kMinParallelWork;
  for (const Csr *M : {&m.T, &m.P, &m.R, &m.G}) CHECK(M->nnz() >= w); // transposes, gathers, clusters' values
  CHECK(m.T.nrows > 2 * 4096); // several blocks of the variable clustering's scan
  CHECK(m.G.nrows >= 2048);
  // Every SpGEMM step's flops (the threshold of its kernel) exceed it.
  for (const auto &pc : tie_products()) {
    std::vector<I> ci, cj;
    const auto plan = ProductPlan<I, double>::symbolic(pc.first.type, pc.first.views(), SpgemmOptions{}, ci, cj);
    for (const ProductStep &s : plan.steps())
      if (!s.is_transpose) {
        INFO(pc.first.name << ", step " << s.what);
        CHECK(s.spgemm.flops >= w);
      }
  }
  // The cluster kernel really runs on T, with clusters of several rows, for every explicit scheme.
  for (ClusterScheme sch : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
    INFO(to_string(sch));
    std::vector<I> ci, cj;
    const auto plan = SpgemmPlan<I, double>::symbolic(m.T.view(), m.T.view(), options_of({Kernel::Cluster, sch, Accumulator::Auto, OrderingType::Natural}, 0), ci, cj);
    CHECK(plan.stats().kernel == Kernel::Cluster);
    CHECK(plan.stats().num_clusters < m.T.nrows / 2);
  }
}

TEST_CASE("A's analysis made on 4 threads gives the same bits on 1 thread", "[determinism][threads]")
{
  // ProductPlan takes a LeftAnalysis whatever thread count made it (LeftAnalysis::fits ignores it).
  const Matrices &m = matrices();
  const std::vector<CsrView<I, double>> ops = {m.T.view(), m.P.view()};
  for (ClusterScheme sch : {ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
    INFO(to_string(sch));
    const Config c{Kernel::Cluster, sch, Accumulator::Auto, OrderingType::Random};
    std::vector<I> i4, j4, i1, j1, ia, ja;
    std::vector<double> v4, v1, va;
    const auto plan4 = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, options_of(c, 4), i4, j4, &v4);
    ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, options_of(c, 1), i1, j1, &v1);
    ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, options_of(c, 1), ia, ja, &va, {}, plan4.a_analysis());
    CHECK(same_bits(ia, i1));
    CHECK(same_bits(ja, j1));
    CHECK(same_bits(va, v1));
    CHECK(same_bits(v4, v1));
  }
}

// One test case per product type (ctest runs them side by side).
void check_type(ProductType type)
{
  const auto cs = configs({{OrderingType::Natural, kAllAccumulators},
                           {OrderingType::Random, {Accumulator::Hash, Accumulator::Auto}},
                           {OrderingType::Rcm, {Accumulator::Auto}}});
  int n = 0;
  for (const auto &pc : tie_products())
    if (pc.first.type == type) {
      check_all_thread_counts(pc.first, pc.second, cs);
      ++n;
    }
  CHECK(n > 0);
}

TEST_CASE("AB: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::AB); }
TEST_CASE("AtB: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::AtB); }
TEST_CASE("ABt: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::ABt); }
TEST_CASE("PtAP: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::PtAP); }
TEST_CASE("RARt: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::RARt); }
TEST_CASE("ABC: the same bits on 1 2 4 threads for every kernel accumulator and ordering", "[determinism][threads]") { check_type(ProductType::ABC); }

TEST_CASE("power-law R-MAT: the same bits on 1 2 4 threads", "[determinism][threads]")
{
  const Matrices &m = matrices();
  const auto cs = configs({{OrderingType::Natural, {Accumulator::Hash, Accumulator::Auto}}, {OrderingType::Random, {Accumulator::Auto}}});
  check_all_thread_counts({"AB: G*G (R-MAT scale 12)", ProductType::AB, {&m.G, &m.G}}, {m.G2, m.G2}, cs);
}

TEST_CASE("clusterings and orderings do not depend on the number of threads", "[determinism][threads][clustering]")
{
  struct Params {
    ClusterScheme scheme;
    int size;
    double threshold;
    int topk;
  };
  const Params params[] = {
    {ClusterScheme::Fixed, 2, 0, 0},          {ClusterScheme::Fixed, 64, 0, 0},
    {ClusterScheme::Variable, 2, 0.3, 0},     {ClusterScheme::Variable, 8, 0.0, 0},      {ClusterScheme::Variable, 64, 1.0, 0},
    {ClusterScheme::Hierarchical, 2, 0.3, 0}, {ClusterScheme::Hierarchical, 8, 0.0, 0},  {ClusterScheme::Hierarchical, 8, 0.3, 1},
    {ClusterScheme::Hierarchical, 8, 1.0, 0}, {ClusterScheme::Hierarchical, 64, 0.3, 63},
  };
  const Matrices &m = matrices();
  const int saved = omp_get_max_threads();
  for (const Csr *M : {&m.T, &m.R, &m.G}) {
    for (const Params &p : params) {
      ClusteringOptions o;
      o.cluster_size = p.size;
      o.jaccard_threshold = p.threshold;
      o.hierarchical_topk = p.topk;
      INFO(M->nrows << " rows, " << to_string(p.scheme) << " size " << p.size << " threshold " << p.threshold << " topk " << p.topk);
      Clustering<I> first;
      for (int t : kThreadCounts) {
        omp_set_num_threads(t);
        const Clustering<I> c = make_clustering<I, double>(M->view(), p.scheme, o);
        if (t == kThreadCounts[0]) first = c;
        CHECK(same_bits(c.rows, first.rows));
        CHECK(same_bits(c.ptr, first.ptr));
      }
    }
    for (OrderingType ord : {OrderingType::Random, OrderingType::Rcm, OrderingType::Gray, OrderingType::Rabbit, OrderingType::Degree,
                             OrderingType::SlashBurn}) {
      INFO(M->nrows << " rows, ordering " << to_string(ord));
      std::vector<I> first;
      for (int t : kThreadCounts) {
        omp_set_num_threads(t);
        OrderingOptions o;
        o.seed = 11;
        const std::vector<I> p = compute_ordering<I, double>(ord, M->view(), o);
        if (t == kThreadCounts[0]) first = p;
        CHECK(same_bits(p, first));
      }
    }
  }
  omp_set_num_threads(saved);
}

TEST_CASE("fused symbolic values equal numeric values bit for bit, signed zeros included", "[determinism]")
{
  // C(0,0) = 0 * -1 = -0 as a lone product; the numeric phase starts every entry from +0 and adds,
  // giving +0. Both phases must agree (PETSc's numeric phases give +0 too).
  Csr A, B;
  A.nrows = A.ncols = B.nrows = B.ncols = 2;
  A.rowptr = {0, 1, 2};
  A.colidx = {0, 1};
  A.values = {0.0, -0.0};
  B.rowptr = {0, 1, 2};
  B.colidx = {0, 1};
  B.values = {-1.0, 2.0};
  for (Kernel k : {Kernel::Rowwise, Kernel::Cluster})
    for (Accumulator acc : {Accumulator::Hash, Accumulator::Dense})
      for (OrderingType ord : {OrderingType::Natural, OrderingType::Random}) {
        SpgemmOptions o;
        o.kernel = k;
        o.scheme = ClusterScheme::Fixed;
        o.accumulator = acc;
        o.reorder = ord;
        INFO(to_string(k) << " " << to_string(acc) << " " << to_string(ord));
        std::vector<I> ci, cj;
        std::vector<double> fused;
        auto plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj, &fused);
        std::vector<double> numeric(cj.size());
        plan.numeric(A.view(), B.view(), CsrView<I, double>{2, 2, ci.data(), cj.data(), nullptr}, numeric.data());
        REQUIRE(numeric.size() == 2);
        CHECK_FALSE(std::signbit(numeric[0]));
        CHECK_FALSE(std::signbit(numeric[1]));
        CHECK(same_bits(fused, numeric));
      }
}

TEST_CASE("PtAP and RARt: the fused triple product by rows of A gives the stored chain's bits, by rows of C its own on any thread count", "[determinism][threads]")
{
  // (form, threads): by rows of A on 4 threads against the stored chain on 1; by rows of C, 1 against 4
  const std::pair<TripleForm, int> runs[4] = {{TripleForm::Stored, 1}, {TripleForm::FusedRowsOfA, 4}, {TripleForm::FusedRowsOfC, 1}, {TripleForm::FusedRowsOfC, 4}};
  for (const auto &[ops, new_values] : tie_products()) {
    if (ops.type != ProductType::PtAP && ops.type != ProductType::RARt) continue;
    INFO(ops.name);
    std::vector<CsrView<I, double>> revalued;
    for (const Csr &M : new_values) revalued.push_back(M.view());
    std::vector<double> values[4], renumeric[4];
    std::vector<I> rowptr[4], colidx[4];
    for (int f = 0; f < 4; ++f) {
      SpgemmOptions o;
      o.triple = runs[f].first;
      o.num_threads = runs[f].second;
      auto plan = ProductPlan<I, double>::symbolic(ops.type, ops.views(), o, rowptr[f], colidx[f], &values[f]);
      CHECK(plan.steps().back().fused_triple == (runs[f].first != TripleForm::Stored));
      const std::array<I, 2> dims = product_dimensions(ops.type, ops.views());
      renumeric[f].assign(colidx[f].size(), 0.0);
      plan.numeric(revalued, CsrView<I, double>{dims[0], dims[1], rowptr[f].data(), colidx[f].data(), nullptr}, renumeric[f].data());
    }
    for (int f : {1, 3}) {
      INFO(to_string(runs[f].first) << " on " << runs[f].second << " threads against " << to_string(runs[f - 1].first) << " on " << runs[f - 1].second);
      CHECK(same_bits(rowptr[f - 1], rowptr[f]));
      CHECK(same_bits(colidx[f - 1], colidx[f]));
      CHECK(same_bits(values[f - 1], values[f]));
      CHECK(same_bits(renumeric[f - 1], renumeric[f]));
    }
  }
}
