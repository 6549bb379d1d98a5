// Compressed sparse row views and owning matrices: the only data type the core kernels see.
//
// The core never includes a PETSc header. The PETSc plugin wraps a MATSEQAIJ's arrays in a
// CsrView without copying (PetscInt = I, PetscScalar = V).
#pragma once

#include "pcluster/errors.hpp"

#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

namespace pcluster {

// Counts of flops and nonzeros are 64-bit even when indices are 32-bit, so overflow of the
// index type is detected before anything is allocated (see checked_index()).
using Count = std::int64_t;

// A read-only view of a CSR matrix. values may be nullptr: the matrix is then a pattern and
// every stored entry counts as 1.
template <class I, class V>
struct CsrView {
  I nrows = 0;
  I ncols = 0;
  const I *rowptr = nullptr; // nrows + 1 entries, rowptr[0] == 0
  const I *colidx = nullptr; // rowptr[nrows] entries, sorted and unique within each row
  const V *values = nullptr; // rowptr[nrows] entries, or nullptr for a pattern

  Count nnz() const { return nrows > 0 ? static_cast<Count>(rowptr[nrows]) : 0; }
  I row_begin(I i) const { return rowptr[i]; }
  I row_end(I i) const { return rowptr[i + 1]; }
  I row_length(I i) const { return rowptr[i + 1] - rowptr[i]; }
  // The same pattern arrays and dimensions (a product of a matrix with itself, e.g. A*A).
  bool same_pattern_as(const CsrView &o) const { return nrows == o.nrows && ncols == o.ncols && rowptr == o.rowptr && colidx == o.colidx; }
};

// A read-only view of the rows a rank holds of a distributed matrix, pieced together without
// copying them: its own rows [own_row0, own_row0 + own_rows) from PETSc's MPIAIJ diagonal block
// (column c is diag_col0 + c) and off-diagonal block (column c is offdiag_colmap[c]), the other rows
// (fetched from other ranks) from `other`, in order: a row i before the own rows is other's row i,
// one after them other's row i - own_rows. offdiag and other may be empty (rowptr nullptr). Within a
// row, columns are unique; each part's rows are sorted and offdiag_colmap is increasing (as PETSc
// keeps them), so each part of a row is sorted, not the row. values nullptr (in every part): a
// pattern, every entry 1.
template <class I, class V>
struct PiecedView {
  I nrows = 0;
  I ncols = 0;
  I own_row0 = 0, own_rows = 0;
  CsrView<I, V> diag;
  I diag_col0 = 0;
  CsrView<I, V> offdiag;
  const I *offdiag_colmap = nullptr;
  CsrView<I, V> other;

  Count nnz() const { return part_nnz(diag) + part_nnz(offdiag) + part_nnz(other); }
  I row_length(I i) const
  {
    const I r = i - own_row0;
    if (r >= 0 && r < own_rows) return diag.row_length(r) + (offdiag.rowptr ? offdiag.row_length(r) : I(0));
    return other.rowptr ? other.row_length(r < 0 ? i : i - own_rows) : I(0);
  }
  // f(columns, values, length, col0, colmap) for each nonempty part of row i, in order: length
  // column indices, numbered as col0 + c or colmap[c] (colmap nullptr: col0), with their values
  // (nullptr: a pattern, ones).
  template <class F>
  void for_each_segment(I i, F &&f) const
  {
    const I r = i - own_row0;
    const auto part = [&](const CsrView<I, V> &M, I q, I col0, const I *colmap) {
      const I b = M.rowptr[q], e = M.rowptr[q + 1];
      if (b < e) f(M.colidx + b, M.values ? M.values + b : static_cast<const V *>(nullptr), e - b, col0, colmap);
    };
    if (r >= 0 && r < own_rows) {
      part(diag, r, diag_col0, nullptr);
      if (offdiag.rowptr) part(offdiag, r, 0, offdiag_colmap);
    } else if (other.rowptr)
      part(other, r < 0 ? i : i - own_rows, 0, nullptr);
  }
  // f(column, value) for each entry of row i.
  template <class F>
  void for_each(I i, F &&f) const
  {
    for_each_segment(i, [&](const I *col, const V *val, I len, I col0, const I *colmap) {
      for (I t = 0; t < len; ++t) f(colmap ? colmap[col[t]] : col0 + col[t], val ? val[t] : V(1));
    });
  }
  // f(first, last, col0, colmap) for each nonempty sorted part of row i: pointers to its first and
  // last column index, numbered as col0 + c or colmap[c].
  template <class F>
  void for_each_part(I i, F &&f) const
  {
    for_each_segment(i, [&](const I *col, const V *, I len, I col0, const I *colmap) { f(col, col + len - 1, col0, colmap); });
  }

 private:
  static Count part_nnz(const CsrView<I, V> &M) { return M.rowptr ? M.nnz() : 0; }
};

// An owning CSR matrix (tests, references, intermediate results such as transposes).
template <class I, class V>
struct CsrMatrix {
  I nrows = 0;
  I ncols = 0;
  std::vector<I> rowptr{I(0)};
  std::vector<I> colidx;
  std::vector<V> values;

  CsrView<I, V> view() const
  {
    return CsrView<I, V>{nrows, ncols, rowptr.data(), colidx.data(), values.empty() ? nullptr : values.data()};
  }
  Count nnz() const { return static_cast<Count>(colidx.size()); }
};

template <class I>
I checked_index(Count n, const char *what)
{
  if (n < 0 || n > static_cast<Count>(std::numeric_limits<I>::max()))
    throw IndexOverflow(std::string(what) + " = " + std::to_string(n) + " does not fit the index type (max " +
                        std::to_string(static_cast<Count>(std::numeric_limits<I>::max())) + ")");
  return static_cast<I>(n);
}

// Checks the invariants the kernels rely on (monotone rowptr, column indices in range, sorted and
// unique within a row). Throws std::invalid_argument naming the operand and the first offending row.
template <class I, class V>
void validate(const CsrView<I, V> &A, const char *name);

// Transpose (pattern and values), O(nnz + nrows + ncols). The result has sorted rows. With source,
// source[q] is the position in A of the transpose's entry q, so that a transpose of A with new
// values and the same pattern is a gather: T.values[q] = A.values[source[q]].
template <class I, class V>
CsrMatrix<I, V> transpose(const CsrView<I, V> &A, std::vector<I> *source = nullptr);

// P A Q^T: row r of the result is row row_order[r] of A (row_order: new -> old, nullptr keeps A's
// rows), column j of A becomes column col_new[j] (col_new: old -> new, nullptr keeps A's columns).
// Rows come out sorted. With source, source[q] is the position in A of the result's entry q, so the
// values of a permuted copy are refreshed by a gather, as for transpose().
template <class I, class V>
CsrMatrix<I, V> permute(const CsrView<I, V> &A, const I *row_order, const I *col_new, std::vector<I> *source = nullptr);

// Adds the missing diagonal entries (i,i), i < min(nrows, ncols), to a CSR pattern with sorted rows
// (values, if given, get 0 there): PETSc's MAT_FORCE_DIAGONAL_ENTRIES. O(nnz), and no copy when
// every diagonal entry is present. Returns the number added.
template <class I, class V>
Count insert_missing_diagonal(I ncols, std::vector<I> &rowptr, std::vector<I> &colidx, std::vector<V> *values);

} // namespace pcluster
