// Products beyond 32-bit indices: nnz(C) > 2^31-1 with int32 indices is an IndexOverflow raised
// before C (or anything of its size) is allocated, for every kernel and product type; flops above
// 2^31 with an nnz(C) that fits are no error (flops are counted in 64 bits).
#include "reference.hpp"

#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

using namespace pcluster;
using I = std::int32_t;
using Csr = CsrMatrix<I, double>;

namespace {

// The process' peak resident memory so far (VmHWM), in MiB; -1 if /proc is not there.
long peak_rss_mib()
{
  std::FILE *f = std::fopen("/proc/self/status", "r");
  if (!f) return -1;
  char line[256];
  long kib = -1;
  while (std::fgets(line, sizeof line, f))
    if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::atol(line + 6);
  std::fclose(f);
  return kib < 0 ? -1 : kib / 1024;
}

// m x n, row i holding the columns cols(i) (sorted), values 1.
template <class Cols>
Csr make(I m, I n, Cols cols)
{
  Csr M;
  M.nrows = m;
  M.ncols = n;
  M.rowptr.assign(static_cast<std::size_t>(m) + 1, 0);
  for (I i = 0; i < m; ++i) {
    for (I j : cols(i)) M.colidx.push_back(j);
    M.rowptr[i + 1] = static_cast<I>(M.colidx.size());
  }
  M.values.assign(M.colidx.size(), 1.0);
  return M;
}

std::vector<I> range(I b, I e)
{
  std::vector<I> r;
  for (I j = b; j < e; ++j) r.push_back(j);
  return r;
}

Csr ones(I m, I n) { return make(m, n, [n](I) { return range(0, n); }); }

std::vector<SpgemmOptions> every_kernel()
{
  std::vector<SpgemmOptions> out;
  for (ClusterScheme s : {ClusterScheme::Auto, ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
    SpgemmOptions o;
    o.kernel = Kernel::Cluster;
    o.scheme = s;
    out.push_back(o);
  }
  out.push_back(SpgemmOptions{}); // row-wise
  for (Accumulator a : {Accumulator::Hash, Accumulator::Dense}) {
    SpgemmOptions o;
    o.accumulator = a;
    out.push_back(o);
  }
  return out;
}

// n*n > 2^31 - 1: the outer product of two vectors of n ones has too many nonzeros for int32.
constexpr I kN = 46341;
static_assert(Count(kN) * kN > std::numeric_limits<std::int32_t>::max(), "kN x kN must overflow int32");

// What an overflowing call must do: throw IndexOverflow naming nnz(C) without the peak memory
// growing by anything like C's size (8.6 GB of column indices alone); when the bounds decide, also
// within seconds (quick), not after a pass over C's 2^31 entries.
template <class F>
void expect_overflow(F &&f, bool quick = true)
{
  const long before = peak_rss_mib();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    f();
    FAIL("no IndexOverflow");
  } catch (const IndexOverflow &e) {
    CHECK(std::string(e.what()).find("nnz(C)") != std::string::npos);
    CHECK(std::string(e.what()).find("2147483647") != std::string::npos);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (quick) CHECK(seconds < 20);
  if (before >= 0) CHECK(peak_rss_mib() - before < 256);
}

} // namespace

TEST_CASE("nnz(C) > 2^31-1 with int32 indices: IndexOverflow before C is allocated, every kernel", "[overflow][errors]")
{
  const Csr col = ones(kN, 1), row = ones(1, kN); // n x 1 and 1 x n
  for (const SpgemmOptions &o : every_kernel()) {
    INFO("kernel " << to_string(o.kernel) << " scheme " << to_string(o.scheme) << " accumulator " << to_string(o.accumulator));
    std::vector<I> ci, cj;
    std::vector<double> cv;
    expect_overflow([&] { SpgemmPlan<I, double>::symbolic(col.view(), row.view(), o, ci, cj); });
    expect_overflow([&] { SpgemmPlan<I, double>::symbolic(col.view(), row.view(), o, ci, cj, &cv); });
    CHECK(cj.capacity() < 1000000);
  }
}

TEST_CASE("nnz(C) > 2^31-1 with int32 indices: every product type", "[overflow][errors]")
{
  // Each type's result is the kN x kN matrix of ones:
  //   AB: (n x 1)(1 x n)  AtB: (1 x n)^T (1 x n)  ABt: (n x 1)(n x 1)^T
  //   PtAP: (1 x n)^T (1 x 1)(1 x n)  RARt: (n x 1)(1 x 1)(n x 1)^T  ABC: (n x 1)(1 x 1)(1 x n)
  const Csr col = ones(kN, 1), row = ones(1, kN), one = ones(1, 1);
  struct Case {
    ProductType type;
    std::vector<CsrView<I, double>> ops;
  };
  const Case cases[] = {
    {ProductType::AB, {col.view(), row.view()}},         {ProductType::AtB, {row.view(), row.view()}},
    {ProductType::ABt, {col.view(), col.view()}},        {ProductType::PtAP, {one.view(), row.view()}},
    {ProductType::RARt, {one.view(), col.view()}},       {ProductType::ABC, {col.view(), one.view(), row.view()}},
  };
  for (const Case &c : cases)
    for (Kernel k : {Kernel::Rowwise, Kernel::Cluster}) {
      INFO(to_string(c.type) << " " << to_string(k));
      SpgemmOptions o;
      o.kernel = k;
      std::vector<I> ci, cj;
      std::vector<double> cv;
      expect_overflow([&] { ProductPlan<I, double>::symbolic(c.type, c.ops, o, ci, cj); });
      expect_overflow([&] { ProductPlan<I, double>::symbolic(c.type, c.ops, o, ci, cj, &cv); });
    }
}

TEST_CASE("nnz(C) > 2^31-1 that the row bounds cannot tell: counted before anything of C's size", "[overflow][errors]")
{
  // B's two rows are the two halves of the columns, and every row of A holds both: each row of C
  // is full (n entries, 2^31+ in all) while the longest row of B reached is n/2 (the lower bound
  // fits). The exact count runs the kernel without keeping columns.
  const Csr A = ones(kN, 2);
  const Csr B = make(2, kN, [](I i) { return i == 0 ? range(0, kN / 2) : range(kN / 2, kN); });
  SpgemmOptions o;
  o.accumulator = Accumulator::Dense; // each row's flops equal the columns: the bitmap is the cheap map
  std::vector<I> ci, cj;
  expect_overflow([&] { SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj); }, false);
}

TEST_CASE("flops above 2^31 with nnz(C) that fits int32 are no error", "[overflow]")
{
  // C = A*B with A (m x k) and B (k x n) all ones: flops = m*k*n > 2^31 - 1, nnz(C) = m*n,
  // every entry of C equal to k.
  const I m = 512, k = 8193, n = 512;
  REQUIRE(Count(m) * k * n > std::numeric_limits<std::int32_t>::max());
  const Csr A = ones(m, k), B = ones(k, n);
  SpgemmOptions o;
  std::vector<I> ci, cj;
  std::vector<double> cv;
  const auto plan = SpgemmPlan<I, double>::symbolic(A.view(), B.view(), o, ci, cj, &cv);
  CHECK(plan.stats().flops == Count(m) * k * n);
  CHECK(plan.stats().nnz_c == Count(m) * n);
  REQUIRE(cv.size() == static_cast<std::size_t>(m) * n);
  // The reference, by hand (the std::map one would take 2^31 steps): every entry is k, the sum of k
  // ones, its own scale; integers, so compared exactly.
  pctest::Reference ref;
  ref.product = {m, n, {}};
  for (I i = 0; i < m; ++i)
    for (I j = 0; j < n; ++j) ref.product.entries.emplace_hint(ref.product.entries.end(), std::make_pair(i, j), double(k));
  ref.scale = ref.product;
  ref.exact = true;
  CHECK(pctest::compare_csr<I>(ref, m, n, ci, cj, cv) == "");
}
