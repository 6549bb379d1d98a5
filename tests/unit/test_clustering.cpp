// Clusterings: partitions of the rows, size caps, the variable-length and hierarchical rules,
// option validation, Jaccard, thread-count independence.
#include "reference.hpp"

#include "pcluster/clustering.hpp"

#include "catch.hpp"

#include <omp.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {


template <class I>
double row_jaccard(const CsrView<I, double> &A, I r, I s)
{
  return jaccard<I>(A.colidx + A.rowptr[r], A.row_length(r), A.colidx + A.rowptr[s], A.row_length(s));
}

template <class I>
bool same_pattern(const CsrView<I, double> &A, I r, I s)
{
  if (A.row_length(r) != A.row_length(s)) return false;
  for (I t = 0; t < A.row_length(r); ++t)
    if (A.colidx[A.rowptr[r] + t] != A.colidx[A.rowptr[s] + t]) return false;
  return true;
}

struct NamedMatrix {
  std::string name;
  Dense2 M;
};

std::vector<NamedMatrix> clustering_cases()
{
  std::vector<NamedMatrix> v;
  v.push_back({"0 rows", pctest::random_matrix(0, 10, 0.5, 1)});
  v.push_back({"1 row", pctest::random_matrix(1, 10, 0.5, 2)});
  v.push_back({"1x1", pctest::random_matrix(1, 1, 1.0, 3)});
  v.push_back({"empty 7x7", pctest::random_matrix(7, 7, 0.0, 4)});
  v.push_back({"0 cols 9x0", pctest::random_matrix(9, 0, 0.5, 5)});
  v.push_back({"random 50x40 d=0.1", pctest::random_matrix(50, 40, 0.1, 6)});
  v.push_back({"random 70x70 d=0.5", pctest::random_matrix(70, 70, 0.5, 7)});
  {
    Dense2 M = pctest::random_matrix(60, 50, 0.15, 8);
    pctest::zero_rows(M, {0, 1, 2, 30, 59});
    pctest::fill_row(M, 10, 9);
    v.push_back({"empty rows + dense row 60x50", M});
  }
  v.push_back({"power-law 300x300", pctest::powerlaw_matrix(300, 300, 1.1, 10)});
  v.push_back({"grouped 200x150 in order", pctest::grouped_matrix(200, 150, 4, 8, 11, false)});
  v.push_back({"grouped 203x150 shuffled", pctest::grouped_matrix(203, 150, 6, 8, 12, true)});
  {
    // Identical rows: 0..19 all the same, 20..39 random, 40..59 all the same as each other.
    Dense2 M = pctest::random_matrix(60, 30, 0.2, 13);
    for (std::int64_t i = 0; i < 60; ++i) {
      if (i >= 20 && i < 40) continue;
      for (std::int64_t j = 0; j < 30; ++j) M.entries.erase({i, j});
      for (std::int64_t j = (i < 20 ? 0 : 15); j < (i < 20 ? 6 : 22); ++j) M.entries[{i, j}] = 1.0;
    }
    v.push_back({"runs of identical rows 60x30", M});
  }
  return v;
}

} // namespace

TEMPLATE_TEST_CASE("every clustering is a partition of the rows within the size cap", "[clustering]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const int sizes[] = {1, 2, 3, 8, 64};
  const double thresholds[] = {0.0, 0.3, 0.7, 1.0};
  const int topks[] = {0, 1, 3, kMaxClusterSize - 1};
  for (const auto &nc : clustering_cases()) {
    const auto A = pctest::to_csr<I>(nc.M);
    const auto Av = A.view();
    for (int s : sizes)
      for (double t : thresholds)
        for (int k : topks)
          for (ClusterScheme sch : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical}) {
            if (sch == ClusterScheme::Fixed && (t != 0.0 || k != 0)) continue;
            if (sch == ClusterScheme::Variable && k != 0) continue;
            ClusteringOptions o;
            o.cluster_size = s;
            o.jaccard_threshold = t;
            o.hierarchical_topk = k;
            INFO(nc.name << ": scheme=" << to_string(sch) << " size=" << s << " threshold=" << t << " topk=" << k);
            Clustering<I> cl;
            REQUIRE_NOTHROW(cl = make_clustering<I, double>(Av, sch, o));
            CHECK(pctest::partition_error(cl, nc.M.nrows, s) == "");
            if (sch == ClusterScheme::Fixed) {
              REQUIRE(cl.num_clusters() == static_cast<I>((nc.M.nrows + s - 1) / s));
              for (I c = 0; c < cl.num_clusters(); ++c) {
                CHECK(cl.rows[cl.ptr[c]] == c * s); // consecutive groups
                CHECK(cl.size(c) == std::min<I>(s, static_cast<I>(nc.M.nrows) - c * s));
              }
            }
          }
  }
}

TEMPLATE_TEST_CASE("cluster_fixed groups consecutive rows", "[clustering]", std::int32_t, std::int64_t)
{
  using I = TestType;
  for (I n : {I(0), I(1), I(7), I(8), I(9), I(64), I(100)})
    for (int s : {1, 2, 8, 64}) {
      INFO("n=" << n << " s=" << s);
      const Clustering<I> cl = cluster_fixed<I>(n, s);
      CHECK(pctest::partition_error(cl, n, s) == "");
      CHECK(cl.num_clusters() == static_cast<I>((n + s - 1) / s));
      for (I p = 0; p < static_cast<I>(cl.rows.size()); ++p) CHECK(cl.rows[p] == p);
    }
}

TEMPLATE_TEST_CASE("variable clusters are consecutive rows similar to the cluster's first row", "[clustering]",
                   std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const auto &nc : clustering_cases()) {
    const auto A = pctest::to_csr<I>(nc.M);
    const auto Av = A.view();
    for (int s : {1, 2, 8, 64})
      for (double t : {0.0, 0.3, 0.5, 1.0}) {
        ClusteringOptions o;
        o.cluster_size = s;
        o.jaccard_threshold = t;
        INFO(nc.name << ": size=" << s << " threshold=" << t);
        const Clustering<I> cl = cluster_variable<I, double>(Av, o);
        REQUIRE(pctest::partition_error(cl, nc.M.nrows, s) == "");
        I expect_next = 0;
        for (I c = 0; c < cl.num_clusters(); ++c) {
          const I first = cl.rows[cl.ptr[c]];
          CHECK(first == expect_next); // clusters in row order, covering rows consecutively
          for (I p = cl.ptr[c]; p < cl.ptr[c + 1]; ++p) {
            CHECK(cl.rows[p] == first + (p - cl.ptr[c]));
            if (p > cl.ptr[c]) {
              CHECK(row_jaccard(Av, cl.rows[p], first) >= t - 1e-12);
              if (t == 1.0) CHECK(same_pattern(Av, cl.rows[p], first));
            }
          }
          expect_next = first + cl.size(c);
        }
        if (t == 0.0 && s == 1) CHECK(cl.num_clusters() == static_cast<I>(nc.M.nrows));
      }
  }
}

TEMPLATE_TEST_CASE("variable clustering is the greedy scan of the specification", "[clustering]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  // Within one scan block (the core starts a new cluster at every block of rows so that threads
  // agree; blocks are thousands of rows) the result is fully determined: row r joins the current
  // cluster iff Jaccard(r, first row) >= threshold and the cluster has fewer than cap rows.
  for (const auto &nc : clustering_cases()) {
    if (nc.M.nrows > 256) continue;
    const auto A = pctest::to_csr<I>(nc.M);
    const auto Av = A.view();
    for (int s : {1, 2, 3, 8, 64})
      for (double t : {0.0, 0.25, 0.5, 1.0}) {
        ClusteringOptions o;
        o.cluster_size = s;
        o.jaccard_threshold = t;
        INFO(nc.name << ": size=" << s << " threshold=" << t);
        std::vector<I> want_ptr{0};
        I first = 0;
        for (I r = 0; r < A.nrows; ++r) {
          const bool join = r > first && (r - first) < s && row_jaccard(Av, r, first) >= t;
          if (r > 0 && !join) {
            want_ptr.push_back(r);
            first = r;
          }
        }
        if (A.nrows > 0) want_ptr.push_back(A.nrows);
        const auto cl = cluster_variable<I, double>(Av, o);
        CHECK(cl.ptr == want_ptr);
      }
  }
}

TEST_CASE("a Jaccard similarity exactly at the threshold joins", "[clustering]")
{
  using I = std::int32_t;
  // Rows 0 and 1 share 2 of 4 columns (Jaccard exactly 0.5); rows 0 and 5 too (hierarchical,
  // not adjacent); the others are disjoint from everything.
  Dense2 M;
  M.nrows = 6;
  M.ncols = 40;
  for (std::int64_t j : {0, 1, 2}) M.entries[{0, j}] = 1;
  for (std::int64_t j : {1, 2, 3}) M.entries[{1, j}] = 1;
  for (std::int64_t j : {10, 11}) M.entries[{2, j}] = 1;
  for (std::int64_t j : {20, 21}) M.entries[{3, j}] = 1;
  for (std::int64_t j : {30, 31}) M.entries[{4, j}] = 1;
  for (std::int64_t j : {0, 1, 2, 5}) M.entries[{5, j}] = 1; // Jaccard(0,5) = 3/4, Jaccard(1,5) = 2/5
  const auto A = pctest::to_csr<I>(M);
  ClusteringOptions o;
  o.cluster_size = 2;
  o.jaccard_threshold = 0.5;
  const auto v = cluster_variable<I, double>(A.view(), o);
  REQUIRE(v.num_clusters() >= 1);
  CHECK(v.size(0) == 2); // rows 0 and 1: Jaccard 0.5 >= 0.5
  // Hierarchical, cap 2: the best pair (0,5) merges first; 1 then has no partner >= 0.5 left.
  const auto h = cluster_hierarchical<I, double>(A.view(), o);
  REQUIRE(h.num_clusters() == 5);
  CHECK(h.rows[h.ptr[0]] == 0);
  CHECK(h.rows[h.ptr[0] + 1] == 5);
  // Cap 3: then 1 joins {0,5} through the root pair if Jaccard(root rows) >= 0.5, which is
  // Jaccard(0,1) = 0.5 when 0 is the root, or Jaccard(5,1) = 0.4 when 5 is: either is valid, but
  // the result must stay a partition with the connectivity property (checked elsewhere).
  o.cluster_size = 3;
  const auto h3 = cluster_hierarchical<I, double>(A.view(), o);
  CHECK(pctest::partition_error(h3, 6, 3) == "");
  // Threshold just above: nothing merges in the variable scheme.
  o.cluster_size = 2;
  o.jaccard_threshold = 0.5000001;
  CHECK(cluster_variable<I, double>(A.view(), o).num_clusters() == 6);
}

TEST_CASE("variable clustering merges a run of identical rows up to the cap", "[clustering]")
{
  using I = std::int32_t;
  // 24 identical rows: threshold 1 must group them (as long as the scan blocks allow: at least
  // the clusters must be non-trivial on average).
  Dense2 M;
  M.nrows = 24;
  M.ncols = 10;
  for (std::int64_t i = 0; i < 24; ++i)
    for (std::int64_t j : {1, 4, 7}) M.entries[{i, j}] = 1.0;
  const auto A = pctest::to_csr<I>(M);
  ClusteringOptions o;
  o.cluster_size = 8;
  o.jaccard_threshold = 1.0;
  const auto cl = cluster_variable<I, double>(A.view(), o);
  CHECK(pctest::partition_error(cl, 24, 8) == "");
  CHECK(cl.num_clusters() <= 6); // 3 full clusters ideally; never mostly singletons
}

TEMPLATE_TEST_CASE("hierarchical clustering respects the cap and the threshold", "[clustering][hierarchical]",
                   std::int32_t, std::int64_t)
{
  using I = TestType;
  for (const auto &nc : clustering_cases()) {
    const auto A = pctest::to_csr<I>(nc.M);
    const auto Av = A.view();
    for (int s : {1, 2, 5, 8, 64})
      for (double t : {0.0, 0.2, 0.5, 1.0})
        for (int k : {0, 1, kMaxClusterSize - 1}) {
          ClusteringOptions o;
          o.cluster_size = s;
          o.jaccard_threshold = t;
          o.hierarchical_topk = k;
          INFO(nc.name << ": size=" << s << " threshold=" << t << " topk=" << k);
          const Clustering<I> cl = cluster_hierarchical<I, double>(Av, o);
          REQUIRE(pctest::partition_error(cl, nc.M.nrows, s) == "");
          // Clusters are ordered by their smallest row.
          for (I c = 1; c < cl.num_clusters(); ++c) CHECK(cl.rows[cl.ptr[c - 1]] < cl.rows[cl.ptr[c]]);
          for (I c = 0; c < cl.num_clusters(); ++c) {
            const I b = cl.ptr[c], e = cl.ptr[c + 1];
            if (t == 1.0) {
              // Only identical patterns may merge.
              for (I p = b + 1; p < e; ++p) CHECK(same_pattern(Av, cl.rows[p], cl.rows[b]));
            }
            if (t > 0 && e - b > 1) {
              // Every merge joined two clusters through a pair scoring >= threshold, so the
              // graph "Jaccard >= threshold" restricted to the cluster is connected.
              std::vector<char> reached(static_cast<std::size_t>(e - b), 0);
              std::vector<I> stack{0};
              reached[0] = 1;
              while (!stack.empty()) {
                const I u = stack.back();
                stack.pop_back();
                for (I w = 0; w < e - b; ++w)
                  if (!reached[w] && row_jaccard(Av, cl.rows[b + u], cl.rows[b + w]) >= t - 1e-12) {
                    reached[w] = 1;
                    stack.push_back(w);
                  }
              }
              for (I w = 0; w < e - b; ++w) CHECK(reached[w]);
            }
          }
        }
  }
}

TEST_CASE("hierarchical clustering finds identical rows that are far apart", "[clustering][hierarchical]")
{
  using I = std::int32_t;
  // Row i and row i+h are identical; column i (i<h) is unique to that pair, so every other pair
  // has Jaccard < 1. With cap 2 and threshold 1 the clustering must be exactly these pairs.
  const std::int64_t h = 40;
  Dense2 M;
  M.nrows = 2 * h;
  M.ncols = h + 30;
  std::mt19937_64 rng(99);
  std::uniform_int_distribution<std::int64_t> col(h, h + 29);
  for (std::int64_t i = 0; i < h; ++i) {
    M.entries[{i, i}] = 1.0;
    M.entries[{i + h, i}] = 2.0;
    for (int t = 0; t < 4; ++t) {
      const std::int64_t j = col(rng);
      M.entries[{i, j}] = 1.0;
      M.entries[{i + h, j}] = 3.0;
    }
  }
  const auto A = pctest::to_csr<I>(M);
  for (int k : {0, 1, 5}) {
    ClusteringOptions o;
    o.cluster_size = 2;
    o.jaccard_threshold = 1.0;
    o.hierarchical_topk = k;
    INFO("topk=" << k);
    const auto cl = cluster_hierarchical<I, double>(A.view(), o);
    REQUIRE(pctest::partition_error(cl, 2 * h, 2) == "");
    REQUIRE(cl.num_clusters() == h);
    for (I c = 0; c < h; ++c) {
      REQUIRE(cl.size(c) == 2);
      CHECK(cl.rows[cl.ptr[c]] == c);
      CHECK(cl.rows[cl.ptr[c] + 1] == c + h);
    }
  }
  // With a larger cap, threshold 0.99, still only the pairs (nothing else is identical).
  ClusteringOptions o;
  o.cluster_size = 8;
  o.jaccard_threshold = 0.99;
  const auto cl = cluster_hierarchical<I, double>(A.view(), o);
  CHECK(cl.num_clusters() == h);
}

TEMPLATE_TEST_CASE("clusterings do not depend on the number of threads", "[clustering][threads]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  const int saved = omp_get_max_threads();
  for (const auto &nc : clustering_cases()) {
    const auto A = pctest::to_csr<I>(nc.M);
    for (ClusterScheme sch : {ClusterScheme::Fixed, ClusterScheme::Variable, ClusterScheme::Hierarchical})
      for (int s : {2, 8})
        for (double t : {0.0, 0.3}) {
          ClusteringOptions o;
          o.cluster_size = s;
          o.jaccard_threshold = t;
          INFO(nc.name << ": scheme=" << to_string(sch) << " size=" << s << " threshold=" << t);
          omp_set_num_threads(1);
          const auto c1 = make_clustering<I, double>(A.view(), sch, o);
          omp_set_num_threads(2);
          const auto c2 = make_clustering<I, double>(A.view(), sch, o);
          CHECK(c1.rows == c2.rows);
          CHECK(c1.ptr == c2.ptr);
        }
  }
  omp_set_num_threads(saved);
}

TEST_CASE("make_clustering does not accept Auto", "[clustering][errors]")
{
  using I = std::int32_t;
  const auto A = pctest::to_csr<I>(pctest::random_matrix(10, 10, 0.3, 1));
  CHECK_THROWS_AS((make_clustering<I, double>(A.view(), ClusterScheme::Auto, ClusteringOptions{})),
                  std::invalid_argument);
}

namespace {
std::string lower(std::string s)
{
  for (auto &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}
std::string validate_message(const ClusteringOptions &o)
{
  try {
    validate(o);
  } catch (const std::invalid_argument &e) {
    return lower(e.what());
  }
  return "";
}
} // namespace

TEST_CASE("validate(ClusteringOptions) rejects out-of-range values and names them", "[clustering][errors]")
{
  ClusteringOptions ok;
  CHECK_NOTHROW(validate(ok));
  for (int s : {1, 2, 64}) {
    ClusteringOptions o;
    o.cluster_size = s;
    CHECK_NOTHROW(validate(o));
  }
  for (double t : {0.0, 1.0}) {
    ClusteringOptions o;
    o.jaccard_threshold = t;
    CHECK_NOTHROW(validate(o));
  }
  {
    ClusteringOptions o;
    o.hierarchical_topk = 0;
    CHECK_NOTHROW(validate(o));
    o.hierarchical_topk = kMaxClusterSize - 1;
    CHECK_NOTHROW(validate(o));
  }
  for (int s : {0, -1, 65, 1000}) {
    ClusteringOptions o;
    o.cluster_size = s;
    INFO("cluster_size=" << s);
    CHECK_THROWS_AS(validate(o), std::invalid_argument);
    const auto msg = validate_message(o);
    CHECK(msg.find("size") != std::string::npos);
    CHECK(msg.find("64") != std::string::npos); // the valid range
  }
  for (double t : {-0.01, 1.01, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()}) {
    ClusteringOptions o;
    o.jaccard_threshold = t;
    INFO("threshold=" << t);
    CHECK_THROWS_AS(validate(o), std::invalid_argument);
    const auto msg = validate_message(o);
    CHECK((msg.find("threshold") != std::string::npos || msg.find("jaccard") != std::string::npos));
  }
  {
    ClusteringOptions o;
    o.hierarchical_topk = -1;
    CHECK_THROWS_AS(validate(o), std::invalid_argument);
    CHECK(validate_message(o).find("top") != std::string::npos);
  }
}

TEST_CASE("jaccard of sorted index lists", "[clustering]")
{
  using I = std::int32_t;
  const I a[] = {1, 2, 3}, b[] = {2, 3, 4}, c[] = {5, 6}, d[] = {1, 2, 3};
  CHECK(jaccard<I>(a, 3, b, 3) == Approx(0.5));
  CHECK(jaccard<I>(a, 3, c, 2) == 0.0);
  CHECK(jaccard<I>(a, 3, d, 3) == 1.0);
  CHECK(jaccard<I>(a, 0, c, 0) == 1.0); // both empty
  CHECK(jaccard<I>(a, 0, c, 2) == 0.0);
  CHECK(jaccard<I>(a, 1, d, 3) == Approx(1.0 / 3.0));
  const std::int64_t e[] = {0, 10, 20, 30}, f[] = {10, 30};
  CHECK(jaccard<std::int64_t>(e, 4, f, 2) == Approx(0.5));
}
