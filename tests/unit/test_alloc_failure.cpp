// Allocation failure anywhere in a product: every allocation the core makes through operator new
// is failed in turn (fault injection, one run per allocation), on the calling thread and on OpenMP
// worker threads alike. Each run must end in std::bad_alloc or in the right result, never in
// std::terminate (an exception leaving an OpenMP region), and the plan, the LeftAnalysis and the
// operands must stay usable: the next run without a failure gives the reference product.
#include "reference.hpp"

#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include "catch.hpp"

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <new>
#include <string>
#include <vector>

// GCC pairs the free() below with the operator new it sees inlined and warns; both are ours.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"

namespace {
// -1: no failure armed; k >= 0: the allocation after k more succeeds fails.
std::atomic<long> g_fail_after{-1};
std::atomic<long> g_count{0}; // allocations since the counter was reset
} // namespace

// The replaceable global allocation functions, every form of them: AddressSanitizer replaces each
// form itself, so one left out (Catch2's nothrow new, the core's new[]) would pair ASan's allocation
// with our free(), or escape the injection. Only the throwing forms fail on purpose.
void *operator new(std::size_t n)
{
  if (g_fail_after.load(std::memory_order_relaxed) >= 0 && g_fail_after.fetch_sub(1) == 0) throw std::bad_alloc();
  g_count.fetch_add(1, std::memory_order_relaxed);
  if (void *p = std::malloc(n ? n : 1)) return p;
  throw std::bad_alloc();
}
void *operator new[](std::size_t n) { return operator new(n); }
void *operator new(std::size_t n, const std::nothrow_t &) noexcept { return std::malloc(n ? n : 1); }
void *operator new[](std::size_t n, const std::nothrow_t &) noexcept { return std::malloc(n ? n : 1); }
void operator delete(void *p) noexcept { std::free(p); }
void operator delete[](void *p) noexcept { std::free(p); }
void operator delete(void *p, std::size_t) noexcept { std::free(p); }
void operator delete[](void *p, std::size_t) noexcept { std::free(p); }
void operator delete(void *p, const std::nothrow_t &) noexcept { std::free(p); }
void operator delete[](void *p, const std::nothrow_t &) noexcept { std::free(p); }

using namespace pcluster;

namespace {

using I = std::int32_t;

struct Outcome {
  long runs = 0, failed = 0, completed = 0;
};

// Calls run() once per allocation it makes, failing that allocation; check() must hold afterwards
// (whether run() completed or threw std::bad_alloc). Any other exception fails the test.
Outcome fail_each_allocation(const std::function<void()> &run, const std::function<void()> &check)
{
  g_count = 0;
  run();
  const long total = g_count.load();
  Outcome o;
  for (long k = 0; k < total; ++k) {
    g_fail_after = k;
    bool threw = false;
    try {
      run();
    } catch (const std::bad_alloc &) {
      threw = true;
    }
    g_fail_after = -1;
    ++o.runs;
    (threw ? o.failed : o.completed)++;
    check();
  }
  return o;
}

std::vector<SpgemmOptions> configurations()
{
  std::vector<SpgemmOptions> out;
  SpgemmOptions o;
  out.push_back(o); // row-wise, auto accumulator
  o.accumulator = Accumulator::Hash;
  out.push_back(o);
  o = SpgemmOptions{};
  o.kernel = Kernel::Cluster;
  o.scheme = ClusterScheme::Variable;
  out.push_back(o);
  o.scheme = ClusterScheme::Hierarchical;
  out.push_back(o);
  o.scheme = ClusterScheme::Fixed;
  o.reorder = OrderingType::Rcm;
  out.push_back(o);
  return out;
}

} // namespace

TEST_CASE("a failed allocation anywhere in SpgemmPlan ends in std::bad_alloc, 2 threads", "[alloc][errors]")
{
  // Large enough that the kernels' parallel regions run on both threads.
  const auto Ad = pctest::random_matrix(1500, 1500, 0.012, 7);
  const auto A = pctest::to_csr<I>(Ad);
  const pctest::Reference ref = pctest::reference_of(Ad, Ad);
  for (SpgemmOptions o : configurations()) {
    o.num_threads = 2;
    INFO("kernel " << to_string(o.kernel) << " scheme " << to_string(o.scheme) << " reorder " << to_string(o.reorder));
    std::vector<I> ci, cj;
    std::vector<double> cv;
    // Symbolic, fused symbolic+numeric.
    Outcome s = fail_each_allocation([&] { SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj, &cv); }, [] {});
    CHECK(s.failed > 0);
    SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj, &cv);
    CHECK(pctest::compare_csr<I>(ref, A.nrows, A.ncols, ci, cj, cv) == "");
    // Numeric on a plan made once: a failure leaves the plan usable.
    auto plan = SpgemmPlan<I, double>::symbolic(A.view(), A.view(), o, ci, cj);
    const CsrView<I, double> C{A.nrows, A.ncols, ci.data(), cj.data(), nullptr};
    cv.assign(cj.size(), 0.0);
    Outcome n = fail_each_allocation([&] { plan.numeric(A.view(), A.view(), C, cv.data()); }, [&] {
      std::vector<double> again(cj.size());
      plan.numeric(A.view(), A.view(), C, again.data());
      REQUIRE(pctest::compare_csr<I>(ref, A.nrows, A.ncols, ci, cj, again) == "");
    });
    INFO("symbolic: " << s.failed << " failed of " << s.runs << "; numeric: " << n.failed << " failed of " << n.runs);
    CHECK(s.runs > 0);
  }
}

TEST_CASE("a failed allocation anywhere in ProductPlan (PtAP) ends in std::bad_alloc, 2 threads", "[alloc][errors]")
{
  const auto Ad = pctest::random_matrix(1200, 1200, 0.015, 3), Pd = pctest::random_matrix(1200, 300, 0.01, 4);
  const auto A = pctest::to_csr<I>(Ad), P = pctest::to_csr<I>(Pd);
  const std::vector<CsrView<I, double>> ops{A.view(), P.view()};
  const pctest::Reference ref = pctest::reference_of(ProductType::PtAP, {Ad, Pd});
  for (SpgemmOptions o : configurations()) {
    o.num_threads = 2;
    INFO("kernel " << to_string(o.kernel) << " scheme " << to_string(o.scheme));
    std::vector<I> ci, cj;
    std::vector<double> cv;
    Outcome s = fail_each_allocation([&] { ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, o, ci, cj, &cv); }, [] {});
    CHECK(s.failed > 0);
    auto plan = ProductPlan<I, double>::symbolic(ProductType::PtAP, ops, o, ci, cj);
    const CsrView<I, double> C{P.ncols, P.ncols, ci.data(), cj.data(), nullptr};
    cv.assign(cj.size(), 0.0);
    fail_each_allocation([&] { plan.numeric(ops, C, cv.data()); }, [&] {
      std::vector<double> again(cj.size());
      plan.numeric(ops, C, again.data());
      REQUIRE(pctest::compare_csr<I>(ref, P.ncols, P.ncols, ci, cj, again) == "");
    });
  }
}
