// CSR_Cluster construction (see include/pcluster/cluster_matrix.hpp for the layout).
#include "pcluster/cluster_matrix.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <cstdint>

namespace pcluster {

namespace {
// Sorted union of the column lists of a cluster's rows into `out`. Rows of a cluster usually share
// most columns (the dofs of one node share all), so each row is first compared with the union so
// far and merged only if it differs: O(s * row length) instead of sorting the concatenation, which
// cost as much as a third of a whole product for block-size-3 operators. Large clusters of
// differing rows would make repeated merging quadratic in s, so they are sorted instead.
template <class I, class V>
void union_columns(const CsrView<I, V> &A, const I *rows, I s, std::vector<I> &out, std::vector<I> &tmp)
{
  out.clear();
  if (s == 0) return;
  const I *first = A.colidx + A.rowptr[rows[0]];
  out.assign(first, first + A.row_length(rows[0]));
  if (s > 16) {
    for (I l = 1; l < s; ++l) out.insert(out.end(), A.colidx + A.rowptr[rows[l]], A.colidx + A.rowptr[rows[l] + 1]);
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return;
  }
  for (I l = 1; l < s; ++l) {
    const I *b = A.colidx + A.rowptr[rows[l]], *e = A.colidx + A.rowptr[rows[l] + 1];
    if (static_cast<std::size_t>(e - b) == out.size() && std::equal(b, e, out.begin())) continue;
    tmp.resize(out.size() + static_cast<std::size_t>(e - b));
    tmp.erase(std::set_union(out.begin(), out.end(), b, e, tmp.begin()), tmp.end());
    out.swap(tmp);
  }
}
// Pass 1 of build(): each cluster's number of union columns.
template <class I, class V>
std::vector<Count> union_sizes(const CsrView<I, V> &A, const Clustering<I> &cl)
{
  const I nc = cl.num_clusters();
  std::vector<Count> ucount(nc);
  detail::RegionErrors errors;
#pragma omp parallel num_threads(detail::threads_for(A.nnz()))
  {
    std::vector<I> u, tmp;
#pragma omp for schedule(dynamic, 256)
    for (I c = 0; c < nc; ++c)
      errors.guard([&] {
        union_columns(A, cl.rows.data() + cl.ptr[c], cl.size(c), u, tmp);
        ucount[c] = static_cast<Count>(u.size());
      });
  }
  errors.rethrow();
  return ucount;
}
} // namespace

template <class I, class V>
Count ClusterMatrix<I, V>::padding_of(const CsrView<I, V> &A, const Clustering<I> &clusters)
{
  const std::vector<Count> ucount = union_sizes(A, clusters);
  Count stored = 0;
  for (I c = 0; c < clusters.num_clusters(); ++c) stored += ucount[c] * clusters.size(c);
  return stored - A.nnz();
}

template <class I, class V>
ClusterMatrix<I, V> ClusterMatrix<I, V>::build(const CsrView<I, V> &A, Clustering<I> clustering)
{
  ClusterMatrix M;
  M.nrows = A.nrows;
  M.ncols = A.ncols;
  M.clusters = std::move(clustering);
  const I nc = M.clusters.num_clusters();
  const Clustering<I> &cl = M.clusters;
  M.col_ptr.assign(static_cast<std::size_t>(nc) + 1, 0);
  M.val_ptr.assign(static_cast<std::size_t>(nc) + 1, 0);

  // Pass 1: union sizes, to lay out cols/masks/values exactly.
  const std::vector<Count> ucount = union_sizes(A, cl);
  detail::RegionErrors errors;
  Count ncol_total = 0, nval_total = 0;
  for (I c = 0; c < nc; ++c) {
    M.col_ptr[c] = checked_index<I>(ncol_total, "CSR_Cluster union columns");
    M.val_ptr[c] = nval_total;
    ncol_total += ucount[c];
    nval_total += ucount[c] * cl.size(c);
  }
  M.col_ptr[nc] = checked_index<I>(ncol_total, "CSR_Cluster union columns");
  M.val_ptr[nc] = nval_total;
  M.cols.resize(static_cast<std::size_t>(ncol_total));
  M.masks.assign(static_cast<std::size_t>(ncol_total), 0);
  M.values.assign(static_cast<std::size_t>(nval_total), V(0)); // padding stays zero
  M.scatter.resize(static_cast<std::size_t>(A.nnz()));

  // Pass 2: union columns, masks, scatter map; values through refresh_values().
#pragma omp parallel num_threads(detail::threads_for(A.nnz()))
  {
    std::vector<I> u, tmp;
#pragma omp for schedule(dynamic, 256)
    for (I c = 0; c < nc; ++c)
      errors.guard([&] {
        const I *rows = cl.rows.data() + cl.ptr[c];
        const I s = cl.size(c);
        union_columns(A, rows, s, u, tmp);
        std::copy(u.begin(), u.end(), M.cols.begin() + M.col_ptr[c]);
        RowMask *mask = M.masks.data() + M.col_ptr[c];
        for (I l = 0; l < s; ++l) {
          std::size_t t = 0;
          for (I p = A.rowptr[rows[l]]; p < A.rowptr[rows[l] + 1]; ++p) {
            while (u[t] != A.colidx[p]) ++t; // both sorted; u contains every column of the row
            mask[t] |= RowMask(1) << l;
            M.scatter[p] = M.val_ptr[c] + static_cast<Count>(t) * s + l;
          }
        }
      });
  }
  errors.rethrow();
  M.refresh_values(A);
  return M;
}

template <class I, class V>
void ClusterMatrix<I, V>::refresh_values(const CsrView<I, V> &A)
{
  const Count nnz = A.nnz();
#pragma omp parallel for schedule(static) num_threads(detail::threads_for(nnz))
  for (Count p = 0; p < nnz; ++p) values[scatter[p]] = A.values ? A.values[p] : V(1);
}

template struct ClusterMatrix<std::int32_t, double>;
template struct ClusterMatrix<std::int64_t, double>;
template struct ClusterMatrix<std::int32_t, float>;
template struct ClusterMatrix<std::int64_t, float>;

} // namespace pcluster
