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
