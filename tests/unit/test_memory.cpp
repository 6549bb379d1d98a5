// Workspace bounds (src/accumulator.hpp): products whose C has 2^28 .. 2^40 columns and sparse rows
// run with a workspace of a few KB per thread, for every kernel and accumulator choice, and give the
// reference product. Two independent measures: what the plan reports (SpgemmStats::workspace_*),
// and the growth of the process's peak resident memory (VmHWM, reset before each product through
// /proc/self/clear_refs). A positive control shows the second measure sees ncols-wide arrays when
// they are allocated, and that it agrees with the first. Each test case runs in a process of its
// own (catch_discover_tests), so earlier cases' peaks do not mask growth.
#include "reference.hpp"

#include "peak_memory.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"

#include <omp.h>

#include <malloc.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <random>
#include <sstream>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

constexpr double kMiB = 1024.0 * 1024.0;
// What a product with a few thousand rows may add to the peak resident memory (C, its row
// pointers, the chunks' buffers, the workspace): far below one ncols-wide array (1 GiB at 2^28
// columns with 32-bit indices).
constexpr double kMaxGrowthMB = 16;
// What the plan may report for one thread: the hash tables and scratch of units of ~100 columns.
constexpr Count kMaxThreadWorkspace = Count(1) << 20;

// m x n with `per_row` entries a row at uniformly random columns (duplicates merge).
Dense2 wide_matrix(std::int64_t m, std::int64_t n, int per_row, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, n - 1);
  Dense2 M;
  M.nrows = m;
  M.ncols = n;
  for (std::int64_t i = 0; i < m; ++i)
    for (int t = 0; t < per_row; ++t) M.entries[{i, col(rng)}] = pctest::random_value(rng);
  return M;
}

// Rows come in groups of 4 with the same pattern, so that the cluster kernel really runs clusters.
Dense2 grouped_left(std::int64_t m, std::int64_t k, std::uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> col(0, k - 1);
  Dense2 M;
  M.nrows = m;
  M.ncols = k;
  std::vector<std::int64_t> cols;
  for (std::int64_t i = 0; i < m; ++i) {
    if (i % 4 == 0) {
      cols.clear();
      for (int t = 0; t < 3; ++t) cols.push_back(col(rng));
    }
    for (std::int64_t j : cols) M.entries[{i, j}] = pctest::random_value(rng);
  }
  return M;
}

std::vector<SpgemmOptions> configurations()
{
  std::vector<SpgemmOptions> out;
  for (Accumulator acc : {Accumulator::Auto, Accumulator::Hash, Accumulator::Dense}) {
    SpgemmOptions o;
    o.accumulator = acc;
    o.kernel = Kernel::Rowwise;
    out.push_back(o);
    o.kernel = Kernel::Cluster;
    for (ClusterScheme sc : {ClusterScheme::Auto, ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
      o.scheme = sc;
      o.clustering.cluster_size = 4;
      o.clustering.jaccard_threshold = 0.5;
      out.push_back(o);
    }
  }
  return out;
}

std::string describe(const SpgemmOptions &o)
{
  std::ostringstream os;
  os << "kernel " << to_string(o.kernel);
  if (o.kernel == Kernel::Cluster) os << ", scheme " << to_string(o.scheme);
  os << ", accumulator " << to_string(o.accumulator) << ", reorder " << to_string(o.reorder);
  return os.str();
}

// Growth of the peak resident memory (MB) while f runs; the baseline is VmRSS after resetting the
// peak, or, where the peak cannot be reset, the peak so far (this process runs one test case).
// NaN (not measured) under AddressSanitizer, whose shadow memory, redzones and quarantine of freed
// blocks are resident too (a few thousand rows' product then adds 20-30 MB).
template <class F>
double peak_growth_mb(F &&f)
{
#if defined(__SANITIZE_ADDRESS__)
  f();
  return std::nan("");
#else
  double base = ResetPeak();
  if (std::isnan(base)) base = StatusMB("VmHWM");
  f();
  return StatusMB("VmHWM") - base;
#endif
}

// One product of every configuration: result against the reference (symbolic + numeric, and fused),
// reported workspace, and the peak memory the product added.
template <class I>
void check_wide(const Dense2 &Ad, const Dense2 &Bd, const std::vector<SpgemmOptions> &configs)
{
  const auto A = pctest::to_csr<I>(Ad);
  const auto B = pctest::to_csr<I>(Bd);
  const pctest::Reference ref = pctest::reference_of(Ad, Bd);
  REQUIRE(ref.product.entries.size() > 1000);
  { // warm-up outside the measurements: the OpenMP team and the allocator's first arenas
    std::vector<I> ci, cj;
    std::vector<double> cv;
    SpgemmPlan<I, double>::symbolic(A.view(), B.view(), SpgemmOptions{}, ci, cj, &cv);
  }
  for (const SpgemmOptions &o : configs) {
    INFO(describe(o) << ", C " << Ad.nrows << " x " << Bd.ncols);
    std::vector<I> ci, cj, fi, fj;
    std::vector<double> cv, fv;
    SpgemmPlan<I, double> plan, fused;
    const double growth = peak_growth_mb([&] {
      plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj);
      cv.assign(cj.size(), -1.0);
      plan.numeric(A.view(), B.view(), CsrView<I, double>{A.nrows, B.ncols, ci.data(), cj.data(), nullptr}, cv.data());
      fused = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, fi, fj, &fv);
    });
    CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, ci, cj, cv) == "");
    CHECK(pctest::compare_csr<I>(ref, A.nrows, B.ncols, fi, fj, fv) == "");
    // Counted, not left at zero: the numeric phase gives every row (or cluster) a map. The fused
    // symbolic phase alone may need none: rows of A (and one-row clusters) of at most 4 entries,
    // all of them here in the row-wise products, are merged without a map.
    CHECK(plan.stats().workspace_thread_bytes > 0);
    for (const SpgemmStats *st : {&plan.stats(), &fused.stats()}) {
      INFO("workspace per thread " << st->workspace_thread_bytes << " B, all threads " << st->workspace_bytes << " B");
      CHECK(st->rows_dense == 0);
      CHECK(st->dense_limited == (o.accumulator == Accumulator::Dense));
      CHECK(st->workspace_thread_bytes <= kMaxThreadWorkspace);
      CHECK(st->workspace_bytes >= st->workspace_thread_bytes);
      CHECK(st->workspace_bytes <= kMaxThreadWorkspace * omp_get_max_threads());
    }
    if (o.kernel == Kernel::Cluster && o.scheme != ClusterScheme::Auto) CHECK(plan.stats().kernel == Kernel::Cluster);
    INFO("peak resident memory grew by " << growth << " MB");
    if (!std::isnan(growth)) CHECK(growth < kMaxGrowthMB);
  }
}

} // namespace

TEST_CASE("C with 2^28 columns, 32-bit indices: every kernel and accumulator stays within a small workspace", "[memory]")
{
  const std::int64_t n = std::int64_t(1) << 28;
  // 4000 x 500 times 500 x 2^28: 12000 + 2000 entries, ~48000 multiply-adds (two threads' worth)
  check_wide<std::int32_t>(grouped_left(4000, 500, 1), wide_matrix(500, n, 4, 2), configurations());
}

TEST_CASE("C with 2^30 columns, 32-bit indices, and in-product reordering", "[memory]")
{
  const std::int64_t n = std::int64_t(1) << 30;
  // A square, so that the reordering permutes A's rows and the inner dimension (B's rows)
  std::vector<SpgemmOptions> configs = configurations();
  for (SpgemmOptions &o : configs) o.reorder = OrderingType::Rcm;
  const Dense2 A = wide_matrix(3000, 3000, 4, 3);
  check_wide<std::int32_t>(A, wide_matrix(3000, n, 4, 4), configs);
}

TEST_CASE("C with 2^40 columns, 64-bit indices", "[memory]")
{
  const std::int64_t n = std::int64_t(1) << 40;
  check_wide<std::int64_t>(grouped_left(4000, 500, 5), wide_matrix(500, n, 4, 6), configurations());
}

TEST_CASE("product chains with a wide operand (AB, A^T B, A (B C)) stay within a small workspace", "[memory]")
{
  using I = std::int32_t;
  const std::int64_t n = std::int64_t(1) << 28;
  const Dense2 Ad = grouped_left(4000, 500, 7), Bd = wide_matrix(500, n, 4, 8);
  const Dense2 Kd = wide_matrix(500, 500, 3, 9); // the middle factor of ABC
  const Dense2 Atd = wide_matrix(500, 4000, 24, 10); // A^T B: 500 x 4000, transposed to 4000 x 500
  struct Case {
    ProductType type;
    std::vector<const Dense2 *> ops;
    pctest::Reference ref;
  };
  std::vector<Case> cases;
  cases.push_back({ProductType::AB, {&Ad, &Bd}, pctest::reference_of(ProductType::AB, {Ad, Bd})});
  cases.push_back({ProductType::AtB, {&Atd, &Bd}, pctest::reference_of(ProductType::AtB, {Atd, Bd})});
  cases.push_back({ProductType::ABC, {&Ad, &Kd, &Bd}, pctest::reference_of(ProductType::ABC, {Ad, Kd, Bd})});
  for (Case &c : cases) {
    std::vector<CsrMatrix<I, double>> mats;
    for (const Dense2 *d : c.ops) mats.push_back(pctest::to_csr<I>(*d));
    std::vector<CsrView<I, double>> views;
    for (const auto &m : mats) views.push_back(m.view());
    for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
      SpgemmOptions o;
      o.kernel = k;
      INFO(to_string(c.type) << ", kernel " << to_string(k));
      std::vector<I> ci, cj;
      std::vector<double> cv;
      ProductPlan<I, double> plan;
      const std::int64_t rows = c.ref.product.nrows, cols = c.ref.product.ncols;
      const double growth = peak_growth_mb([&] {
        plan = ProductPlan<I, double>::symbolic(c.type, views, o, ci, cj);
        cv.assign(cj.size(), 0.0);
        plan.numeric(views, CsrView<I, double>{static_cast<I>(rows), static_cast<I>(cols), ci.data(), cj.data(), nullptr}, cv.data());
      });
      CHECK(pctest::compare_csr<I>(c.ref, rows, cols, ci, cj, cv) == "");
      for (const ProductStep &st : plan.steps()) {
        if (st.is_transpose) continue;
        INFO(st.what << ": workspace per thread " << st.spgemm.workspace_thread_bytes << " B");
        CHECK(st.spgemm.workspace_thread_bytes <= kMaxThreadWorkspace);
      }
      INFO("peak resident memory grew by " << growth << " MB");
      if (!std::isnan(growth)) CHECK(growth < kMaxGrowthMB);
    }
  }
}

TEST_CASE("positive control: forced dense arrays at the column limit are reported and seen in VmHWM", "[memory]")
{
  // The measures above would pass vacuously if neither saw ncols-wide arrays. Here they exist: at
  // kDenseMaxColumns columns Accumulator::Dense is honoured, and the cluster kernel allocates slots
  // and stamps ((4 + 4) bytes a column per thread with 32-bit indices) and the bitmap. They become
  // resident only where touched (src/memory.hpp), so row 0 of B holds a column every 1024 (every
  // 4 KiB page of the slots and stamps), and 64 rows of A reach it: their flops dominate, so every
  // thread runs some of them. VmHWM must then grow by at least one thread's reported workspace,
  // and by no more than all threads' plus C (64 x 16384 entries, 12 MB) and its staging.
  using I = std::int32_t;
  const std::int64_t n = kDenseMaxColumns;
  Dense2 Ad = grouped_left(4000, 500, 11), Bd = wide_matrix(500, n, 4, 12);
  for (std::int64_t c = 0; c < n; c += 1024) Bd.entries[{0, c}] = 1.0;
  for (std::int64_t i = 0; i < 64; ++i) Ad.entries[{i * 62, 0}] = 1.0;
  const auto A = pctest::to_csr<I>(Ad);
  const auto B = pctest::to_csr<I>(Bd);
  SpgemmOptions o;
  o.kernel = Kernel::Cluster;
  o.scheme = ClusterScheme::Fixed;
  o.clustering.cluster_size = 4;
  o.accumulator = Accumulator::Dense;
  std::vector<I> ci, cj;
  std::vector<double> cv;
  SpgemmPlan<I, double> plan;
  const double growth = peak_growth_mb([&] { plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj, &cv); });
  CHECK(pctest::compare_csr<I>(pctest::reference_of(Ad, Bd), A.nrows, B.ncols, ci, cj, cv) == "");
  const SpgemmStats &st = plan.stats();
  CHECK_FALSE(st.dense_limited);
  CHECK(st.rows_dense == Ad.nrows);
  const Count arrays = n * static_cast<Count>(sizeof(I) + 4);
  CHECK(st.workspace_thread_bytes >= arrays);
  CHECK(st.workspace_thread_bytes <= arrays + n / 4); // the bitmap and the scratch on top
  INFO("reported " << st.workspace_thread_bytes / kMiB << " MiB per thread, " << st.workspace_bytes / kMiB
                   << " MiB all threads; peak resident memory grew by " << growth << " MB");
  if (!std::isnan(growth)) {
    CHECK(growth >= 0.95 * static_cast<double>(st.workspace_thread_bytes) / kMiB);
    CHECK(growth <= static_cast<double>(st.workspace_bytes) / kMiB + 48);
  }
}

TEST_CASE("Auto's dense clause below 2^22 columns needs a product with at least ncols multiply-adds", "[memory]")
{
  // 4000 x 500 times 500 x n, 12000 + 2000 entries, ~48000 multiply-adds: hash at n = 2^22 (a
  // small product would touch its threads' ncols-wide arrays more than it uses them), dense at 2^15.
  using I = std::int32_t;
  const Dense2 Ad = grouped_left(4000, 500, 13);
  for (const std::int64_t n : {std::int64_t(1) << 22, std::int64_t(1) << 15}) {
    const Dense2 Bd = wide_matrix(500, n, 4, 14);
    const auto A = pctest::to_csr<I>(Ad);
    const auto B = pctest::to_csr<I>(Bd);
    for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
      SpgemmOptions o;
      o.kernel = k;
      o.scheme = ClusterScheme::Fixed;
      o.clustering.cluster_size = 4;
      INFO("n " << n << ", kernel " << to_string(k));
      std::vector<I> ci, cj;
      std::vector<double> cv;
      const auto plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj, &cv);
      CHECK(pctest::compare_csr<I>(pctest::reference_of(Ad, Bd), A.nrows, B.ncols, ci, cj, cv) == "");
      const bool small = plan.stats().flops < n;
      CHECK(small == (n == std::int64_t(1) << 22)); // both sides of the rule are exercised
      CHECK(plan.stats().rows_dense == (small ? 0 : Ad.nrows));
      if (small) CHECK(plan.stats().workspace_thread_bytes <= kMaxThreadWorkspace);
    }
  }
}

TEST_CASE("C's columns written where C's values go next, in a heap that keeps freed pages resident", "[memory]")
{
  // In every process linked to Debian's PETSc, SuperLU_DIST's library constructor makes every
  // block come from the brk heap and keeps freed pages resident (src/memory.hpp, release_pages):
  // set the same here. The product is PCGAMG's A*P0 in miniature, its flops bound 8x nnz(C): rows
  // of A in groups of 8 with one pattern, each group's rows of B alike, 64 columns a row of C. The
  // chunks' columns, if left spread over the bound's arena (one chunk where C's values are then
  // allocated, the others beyond), stayed resident beside C: 1.32x C's arrays here, against 1.07x
  // (the rest: the phases' per-row arrays and workspace) with them packed or handed back.
  using I = std::int32_t;
#if defined(__GLIBC__)
  mallopt(M_MMAP_MAX, 0);
  mallopt(M_TRIM_THRESHOLD, -1);
#endif
  const I m = 1 << 16, group = 8, width = 64;
  CsrMatrix<I, double> A, B;
  A.nrows = B.nrows = m;
  A.ncols = m;
  B.ncols = m / group * width;
  for (I i = 0; i < m; ++i) {
    for (I t = 0; t < group; ++t) A.colidx.push_back(i / group * group + t);
    for (I t = 0; t < width; ++t) B.colidx.push_back(i / group * width + t);
    A.rowptr.push_back(static_cast<I>(A.colidx.size()));
    B.rowptr.push_back(static_cast<I>(B.colidx.size()));
  }
  A.values.assign(A.colidx.size(), 1.0);
  B.values.assign(B.colidx.size(), 0.5);
  const Count nnz_c = Count(m) * width;
  for (int threads : {1, 2}) {
    SpgemmOptions o;
    o.kernel = Kernel::Rowwise;
    o.num_threads = threads;
    std::vector<I> ci, cj;
    double *cv = nullptr;
    const double growth = peak_growth_mb([&] {
      // as the PETSc plugin builds C: the pattern, then zeroed values (calloc), then the numeric phase
      auto plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj);
      cv = static_cast<double *>(std::calloc(cj.size(), sizeof(double)));
      REQUIRE(cv);
      plan.numeric(A.view(), B.view(), CsrView<I, double>{m, B.ncols, ci.data(), cj.data(), nullptr}, cv);
    });
    INFO(threads << " thread(s): peak resident memory grew by " << growth << " MB");
    REQUIRE(static_cast<Count>(cj.size()) == nnz_c);
    CHECK(cv[0] == 4.0); // 8 products of 1 * 0.5
    CHECK(cv[nnz_c - 1] == 4.0);
    const double c_mb = (static_cast<double>(ci.size() + cj.size()) * sizeof(I) + static_cast<double>(nnz_c) * sizeof(double)) / kMiB;
    INFO("C's arrays " << c_mb << " MB");
    if (!std::isnan(growth)) CHECK(growth < 1.15 * c_mb);
    std::free(cv);
  }
}
