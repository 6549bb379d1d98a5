// CSR validation and transpose.
#include "pcluster/csr.hpp"

#include "parallel.hpp"

#include <algorithm>
#include <cstdint>
#include <string>

namespace pcluster {

template <class I, class V>
void validate(const CsrView<I, V> &A, const char *name)
{
  auto fail = [&](const std::string &what) { throw std::invalid_argument(std::string(name) + ": " + what); };
  if (A.nrows < 0 || A.ncols < 0) fail("negative dimensions");
  if (A.nrows == 0) return;
  if (!A.rowptr) fail("null row pointer");
  if (A.rowptr[0] != 0) fail("row pointer does not start at 0");
  if (A.nnz() > 0 && !A.colidx) fail("null column indices");
  // Flat passes, without a branch per row (rows of a few entries made a per-row check cost a sixth of
  // a road network's symbolic phase): row pointers nondecreasing (so that every one lies in [0, nnz]),
  // then columns in range and ascending within rows, i.e. every descent colidx[p-1] >= colidx[p] sits
  // where a nonempty row starts (as many descents over all entries as over those starts). Only a
  // failed check searches for the first failing row, for the message.
  const Count nnz = A.nnz();
  const int nt = detail::threads_for(nnz + A.nrows);
  Count bad_rowptr = 0;
#pragma omp parallel for schedule(static) reduction(+ : bad_rowptr) num_threads(nt)
  for (I i = 0; i < A.nrows; ++i) bad_rowptr += A.rowptr[i + 1] < A.rowptr[i];
  if (bad_rowptr > 0)
    for (I i = 0; i < A.nrows; ++i)
      if (A.rowptr[i + 1] < A.rowptr[i]) fail("row pointer decreases at row " + std::to_string(i));
  Count bad_cols = 0, descents = 0, start_descents = 0;
#pragma omp parallel num_threads(nt)
  {
#pragma omp for schedule(static) reduction(+ : start_descents) nowait
    for (I i = 0; i < A.nrows; ++i) {
      const I p = A.rowptr[i];
      start_descents += p > 0 && p < A.rowptr[i + 1] && A.colidx[p - 1] >= A.colidx[p];
    }
#pragma omp for schedule(static) reduction(+ : bad_cols, descents)
    for (Count p = 1; p < nnz; ++p) {
      const I j = A.colidx[p];
      bad_cols += (j < 0) | (j >= A.ncols);
      descents += A.colidx[p - 1] >= j;
    }
  }
  if (nnz > 0) bad_cols += A.colidx[0] < 0 || A.colidx[0] >= A.ncols;
  if (bad_cols == 0 && descents == start_descents) return;
  for (I i = 0; i < A.nrows; ++i)
    for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) {
      const I j = A.colidx[p];
      if (j < 0 || j >= A.ncols)
        fail("column index " + std::to_string(j) + " out of range [0," + std::to_string(A.ncols) + ") in row " + std::to_string(i));
      if (p > A.rowptr[i] && A.colidx[p - 1] >= j) fail("column indices not sorted and unique in row " + std::to_string(i));
    }
}

template <class I, class V>
CsrMatrix<I, V> transpose(const CsrView<I, V> &A, std::vector<I> *source)
{
  CsrMatrix<I, V> T;
  T.nrows = A.ncols;
  T.ncols = A.nrows;
  const Count nnz = A.nnz();
  T.rowptr.assign(static_cast<std::size_t>(A.ncols) + 1, 0);
  T.colidx.resize(static_cast<std::size_t>(nnz));
  if (A.values) T.values.resize(static_cast<std::size_t>(nnz));
  if (source) source->resize(static_cast<std::size_t>(nnz));
  // Each thread takes a contiguous block of A's rows (about equal nonzeros) and counts its entries
  // per column; column j of thread t then starts after column j of threads 0..t-1. Rows are visited
  // in order within a block and blocks in order within a column, so every row of T comes out sorted,
  // and the result does not depend on the number of threads.
  // The cursors are ncols-wide per thread: at most 1 + nnz/ncols threads, so that they never take
  // more than T itself (a wide, sparse A, e.g. B of A*B^T with 2^28 columns, gets one thread).
  const int nt = static_cast<int>(std::min<Count>(detail::threads_for(nnz + A.ncols), 1 + nnz / std::max<Count>(A.ncols, 1)));
  std::vector<I> block(static_cast<std::size_t>(nt) + 1, A.nrows);
  block[0] = 0;
  for (int t = 1; t < nt; ++t)
    block[t] = static_cast<I>(std::lower_bound(A.rowptr, A.rowptr + A.nrows, nnz / nt * t) - A.rowptr);
  std::vector<I> next(static_cast<std::size_t>(nt) * A.ncols, 0); // thread t's cursor for column j
#pragma omp parallel num_threads(nt)
  {
    const int t = omp_get_thread_num();
    I *const cursor = next.data() + static_cast<std::size_t>(t) * A.ncols;
    for (I p = A.rowptr[block[t]]; p < A.rowptr[block[t + 1]]; ++p) ++cursor[A.colidx[p]];
#pragma omp barrier
#pragma omp single
    {
      I offset = 0; // column-major prefix over (column, thread)
      for (I j = 0; j < A.ncols; ++j) {
        T.rowptr[j] = offset;
        for (int u = 0; u < nt; ++u) {
          I &c = next[static_cast<std::size_t>(u) * A.ncols + j];
          const I count = c;
          c = offset;
          offset += count;
        }
      }
      T.rowptr[A.ncols] = offset;
    }
    for (I i = block[t]; i < block[t + 1]; ++i)
      for (I p = A.rowptr[i]; p < A.rowptr[i + 1]; ++p) {
        const I dst = cursor[A.colidx[p]]++;
        T.colidx[dst] = i;
        if (A.values) T.values[dst] = A.values[p];
        if (source) (*source)[dst] = p;
      }
  }
  return T;
}

template <class I, class V>
CsrMatrix<I, V> permute(const CsrView<I, V> &A, const I *row_order, const I *col_new, std::vector<I> *source)
{
  CsrMatrix<I, V> P;
  P.nrows = A.nrows;
  P.ncols = A.ncols;
  const Count nnz = A.nnz();
  auto old_row = [row_order](I r) { return row_order ? row_order[r] : r; };
  P.rowptr.assign(static_cast<std::size_t>(A.nrows) + 1, I(0));
  for (I r = 0; r < A.nrows; ++r) P.rowptr[r + 1] = P.rowptr[r] + A.row_length(old_row(r));
  P.colidx.resize(static_cast<std::size_t>(nnz));
  if (A.values) P.values.resize(static_cast<std::size_t>(nnz));
  std::vector<I> own_source;
  std::vector<I> &src = source ? *source : own_source;
  src.resize(static_cast<std::size_t>(nnz));
  // Rows up to this long are sorted by insertion as they are read; longer ones (hubs of power-law
  // graphs, thousands of entries) by std::sort of (column, source) pairs.
  constexpr I kInsertionMax = 32;
  detail::RegionErrors errors; // the pairs of a long row are allocated inside the region
#pragma omp parallel num_threads(detail::threads_for(nnz))
  {
    std::vector<std::pair<I, I>> pairs;
#pragma omp for schedule(dynamic, 1024)
    for (I r = 0; r < A.nrows; ++r)
      errors.guard([&] {
        const I i = old_row(r), begin = P.rowptr[r], len = P.rowptr[r + 1] - begin, first = A.rowptr[i];
        I *const cols = P.colidx.data() + begin;
        I *const from = src.data() + begin;
        auto new_col = [&](I t) { return col_new ? col_new[A.colidx[first + t]] : A.colidx[first + t]; };
        if (!col_new || len <= kInsertionMax) {
          for (I t = 0; t < len; ++t) {
            const I j = new_col(t);
            I q = t;
            for (; q > 0 && cols[q - 1] > j; --q) {
              cols[q] = cols[q - 1];
              from[q] = from[q - 1];
            }
            cols[q] = j;
            from[q] = first + t;
          }
        } else {
          pairs.clear();
          for (I t = 0; t < len; ++t) pairs.emplace_back(new_col(t), first + t);
          std::sort(pairs.begin(), pairs.end());
          for (I t = 0; t < len; ++t) cols[t] = pairs[t].first, from[t] = pairs[t].second;
        }
        if (A.values)
          for (I t = 0; t < len; ++t) P.values[begin + t] = A.values[from[t]];
      });
  }
  errors.rethrow();
  return P;
}

template <class I, class V>
Count insert_missing_diagonal(I ncols, std::vector<I> &rowptr, std::vector<I> &colidx, std::vector<V> *values)
{
  const I nrows = static_cast<I>(rowptr.size()) - 1;
  const I ndiag = std::min(nrows, ncols);
  auto has_diagonal = [&](I i) { return std::binary_search(colidx.begin() + rowptr[i], colidx.begin() + rowptr[i + 1], i); };
  Count missing = 0;
  for (I i = 0; i < ndiag; ++i) missing += !has_diagonal(i);
  if (!missing) return 0;
  const Count nnz = static_cast<Count>(colidx.size()) + missing;
  checked_index<I>(nnz, "nnz with the diagonal");
  std::vector<I> new_rowptr(rowptr.size()), new_colidx(static_cast<std::size_t>(nnz));
  std::vector<V> new_values(values ? static_cast<std::size_t>(nnz) : 0);
  I q = 0;
  for (I i = 0; i < nrows; ++i) {
    const bool add = i < ndiag && !has_diagonal(i);
    bool done = !add;
    for (I p = rowptr[i]; p < rowptr[i + 1]; ++p) {
      if (!done && colidx[p] > i) {
        new_colidx[q] = i;
        if (values) new_values[q] = V(0);
        ++q, done = true;
      }
      new_colidx[q] = colidx[p];
      if (values) new_values[q] = (*values)[p];
      ++q;
    }
    if (!done) {
      new_colidx[q] = i;
      if (values) new_values[q] = V(0);
      ++q;
    }
    new_rowptr[i + 1] = q;
  }
  rowptr.swap(new_rowptr);
  colidx.swap(new_colidx);
  if (values) values->swap(new_values);
  return missing;
}

#define PCLUSTER_INSTANTIATE_CSR(I, V) \
  template Count insert_missing_diagonal<I, V>(I, std::vector<I> &, std::vector<I> &, std::vector<V> *); \
  template void validate<I, V>(const CsrView<I, V> &, const char *); \
  template CsrMatrix<I, V> transpose<I, V>(const CsrView<I, V> &, std::vector<I> *); \
  template CsrMatrix<I, V> permute<I, V>(const CsrView<I, V> &, const I *, const I *, std::vector<I> *);
PCLUSTER_INSTANTIATE_CSR(std::int32_t, double)
PCLUSTER_INSTANTIATE_CSR(std::int64_t, double)
PCLUSTER_INSTANTIATE_CSR(std::int32_t, float)
PCLUSTER_INSTANTIATE_CSR(std::int64_t, float)

} // namespace pcluster
