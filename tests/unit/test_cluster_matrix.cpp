// CSR_Cluster (ClusterMatrix::build / refresh_values): every entry of A lands at its place,
// explicit zeros elsewhere, masks record exactly the rows that hold an entry.
#include "reference.hpp"

#include "pcluster/cluster_matrix.hpp"

#include "catch.hpp"

#include <cstdint>
#include <set>
#include <sstream>
#include <string>
#include <vector>

using namespace pcluster;
using pctest::Dense2;

namespace {

// Checks M against A (whose values are `values`, or all ones if null). "" when consistent.
template <class I>
std::string check_cluster_matrix(const ClusterMatrix<I, double> &M, const CsrView<I, double> &A)
{
  std::ostringstream os;
  const auto &cl = M.clusters;
  const I nc = cl.num_clusters();
  if (M.nrows != A.nrows || M.ncols != A.ncols) return "dimensions differ from A";
  if (M.col_ptr.size() != static_cast<std::size_t>(nc) + 1) return "col_ptr has the wrong length";
  if (M.val_ptr.size() != static_cast<std::size_t>(nc) + 1) return "val_ptr has the wrong length";
  if (M.col_ptr[0] != 0 || M.val_ptr[0] != 0) return "col_ptr/val_ptr do not start at 0";
  if (M.cols.size() != static_cast<std::size_t>(M.col_ptr[nc])) return "cols.size() != col_ptr.back()";
  if (M.masks.size() != M.cols.size()) return "masks.size() != cols.size()";
  if (M.values.size() != static_cast<std::size_t>(M.val_ptr[nc])) return "values.size() != val_ptr.back()";
  if (M.scatter.size() != static_cast<std::size_t>(A.nnz())) return "scatter.size() != nnz(A)";
  std::vector<char> hit(M.values.size(), 0);
  Count entries = 0;
  for (I c = 0; c < nc; ++c) {
    const I s = cl.size(c);
    const I b = cl.ptr[c];
    const I cb = M.col_ptr[c], ce = M.col_ptr[c + 1];
    if (M.val_ptr[c + 1] - M.val_ptr[c] != static_cast<Count>(ce - cb) * s) {
      os << "cluster " << c << ": val_ptr span " << (M.val_ptr[c + 1] - M.val_ptr[c]) << " != ncols*s "
         << static_cast<Count>(ce - cb) * s;
      return os.str();
    }
    // Union of the cluster's rows' columns.
    std::set<I> uni;
    for (I l = 0; l < s; ++l) {
      const I r = cl.rows[b + l];
      for (I p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p) uni.insert(A.colidx[p]);
    }
    if (uni.size() != static_cast<std::size_t>(ce - cb)) {
      os << "cluster " << c << ": " << (ce - cb) << " union columns stored, expected " << uni.size();
      return os.str();
    }
    auto uit = uni.begin();
    for (I t = 0; t < ce - cb; ++t, ++uit) {
      const I col = M.cols[cb + t];
      if (col != *uit) {
        os << "cluster " << c << ": union column " << t << " is " << col << ", expected " << *uit << " (sorted)";
        return os.str();
      }
      for (I l = 0; l < s; ++l) {
        const I r = cl.rows[b + l];
        // Does row r hold column col, and with which value?
        I found = -1;
        for (I p = A.rowptr[r]; p < A.rowptr[r + 1]; ++p)
          if (A.colidx[p] == col) found = p;
        const bool bit = (M.masks[cb + t] >> l) & RowMask(1);
        const Count at = M.val_ptr[c] + static_cast<Count>(t) * s + l;
        const double v = M.values[static_cast<std::size_t>(at)];
        if (bit != (found >= 0)) {
          os << "cluster " << c << ", row " << r << ", column " << col << ": mask bit " << bit << " but A "
             << (found >= 0 ? "has" : "has no") << " entry";
          return os.str();
        }
        if (found >= 0) {
          const double expect = A.values ? A.values[found] : 1.0;
          if (v != expect) {
            os << "A(" << r << "," << col << ") = " << expect << " stored as " << v;
            return os.str();
          }
          if (M.scatter[static_cast<std::size_t>(found)] != at) {
            os << "scatter of A's entry " << found << " is " << M.scatter[static_cast<std::size_t>(found)]
               << ", expected " << at;
            return os.str();
          }
          ++entries;
        } else if (v != 0.0) {
          os << "padding at cluster " << c << ", row " << r << ", column " << col << " is " << v << ", not 0";
          return os.str();
        }
      }
      // No bits above the cluster size.
      if (s < 64 && (M.masks[cb + t] >> s) != 0) {
        os << "cluster " << c << ": mask has bits beyond the cluster size";
        return os.str();
      }
    }
  }
  if (entries != A.nnz()) {
    os << entries << " entries found, nnz(A) = " << A.nnz();
    return os.str();
  }
  if (M.padding() != static_cast<Count>(M.values.size()) - A.nnz()) return "padding() inconsistent";
  return "";
}

template <class I>
Clustering<I> reversed_pairs(I n)
{
  // Non-consecutive clusters listed out of row order: {n-1, 0}, {n-2, 1}, ... (rows ascending
  // inside each cluster as the format requires).
  Clustering<I> cl;
  cl.ptr = {0};
  for (I i = 0; i < n / 2; ++i) {
    cl.rows.push_back(i);
    cl.rows.push_back(n - 1 - i);
    cl.ptr.push_back(static_cast<I>(cl.rows.size()));
  }
  if (n % 2) {
    cl.rows.push_back(n / 2);
    cl.ptr.push_back(static_cast<I>(cl.rows.size()));
  }
  return cl;
}

} // namespace

TEMPLATE_TEST_CASE("ClusterMatrix::build places every entry and pads with zeros", "[cluster_matrix]", std::int32_t,
                   std::int64_t)
{
  using I = TestType;
  std::vector<std::pair<std::string, Dense2>> mats = {
      {"empty 0x4", pctest::random_matrix(0, 4, 0.5, 1)},
      {"1x1", pctest::random_matrix(1, 1, 1.0, 2)},
      {"all-zero 6x6", pctest::random_matrix(6, 6, 0.0, 3)},
      {"random 45x30", pctest::random_matrix(45, 30, 0.15, 4)},
      {"grouped 100x80 shuffled", pctest::grouped_matrix(100, 80, 4, 6, 5, true)},
      {"power-law 150x150", pctest::powerlaw_matrix(150, 150, 1.0, 6)},
      {"dense 70x20", pctest::random_matrix(70, 20, 1.0, 7)},
  };
  for (const auto &nm : mats) {
    const auto A = pctest::to_csr<I>(nm.second);
    const auto Av = A.view();
    std::vector<std::pair<std::string, Clustering<I>>> clusterings;
    for (int s : {1, 3, 8, 64}) {
      clusterings.push_back({"fixed " + std::to_string(s), cluster_fixed<I>(A.nrows, s)});
      ClusteringOptions o;
      o.cluster_size = s;
      o.jaccard_threshold = 0.2;
      clusterings.push_back({"variable " + std::to_string(s), cluster_variable<I, double>(Av, o)});
      clusterings.push_back({"hierarchical " + std::to_string(s), cluster_hierarchical<I, double>(Av, o)});
    }
    clusterings.push_back({"reversed pairs", reversed_pairs<I>(A.nrows)});
    for (const auto &nc : clusterings) {
      INFO(nm.first << " with " << nc.first);
      ClusterMatrix<I, double> M;
      REQUIRE_NOTHROW(M = ClusterMatrix<I, double>::build(Av, nc.second));
      CHECK(M.num_clusters() == nc.second.num_clusters());
      CHECK(M.clusters.rows == nc.second.rows);
      CHECK(check_cluster_matrix(M, Av) == "");
      if (nc.first == "fixed 1") CHECK(M.padding() == 0); // singleton clusters never pad

      // refresh_values: new values, same pattern.
      Dense2 N = pctest::revalue(nm.second, 99);
      const auto A2 = pctest::to_csr<I>(N);
      REQUIRE(A2.colidx == A.colidx);
      M.refresh_values(A2.view());
      CHECK(check_cluster_matrix(M, A2.view()) == "");

      // Pattern view: every stored entry counts as 1.
      CsrView<I, double> Ap = Av;
      Ap.values = nullptr;
      ClusterMatrix<I, double> Mp;
      REQUIRE_NOTHROW(Mp = ClusterMatrix<I, double>::build(Ap, nc.second));
      CHECK(check_cluster_matrix(Mp, Ap) == "");
    }
  }
}

TEST_CASE("fixed-length clusters have val_ptr == col_ptr * size", "[cluster_matrix]")
{
  using I = std::int32_t;
  const auto A = pctest::to_csr<I>(pctest::random_matrix(64, 50, 0.1, 11));
  for (int s : {2, 4, 8, 16}) {
    const auto M = ClusterMatrix<I, double>::build(A.view(), cluster_fixed<I>(64, s));
    for (I c = 0; c <= M.num_clusters(); ++c) CHECK(M.val_ptr[c] == static_cast<Count>(M.col_ptr[c]) * s);
  }
}

TEST_CASE("identical rows in a cluster store their columns once, with no padding", "[cluster_matrix]")
{
  using I = std::int32_t;
  Dense2 D;
  D.nrows = 8;
  D.ncols = 12;
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j : {0, 5, 11}) D.entries[{i, j}] = static_cast<double>(i + 1);
  const auto A = pctest::to_csr<I>(D);
  const auto M = ClusterMatrix<I, double>::build(A.view(), cluster_fixed<I>(8, 8));
  REQUIRE(M.num_clusters() == 1);
  CHECK(M.cols == std::vector<I>{0, 5, 11});
  CHECK(M.padding() == 0);
  for (auto m : M.masks) CHECK(m == RowMask(0xFF));
}
