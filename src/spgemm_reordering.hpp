// Reordered products (SpgemmOptions::reorder): the working copies of A, B and C that SpgemmPlan
// runs its kernel on, and the way back to the caller's order.
//
// The product runs on permuted copies, C = R^T (A_w B_w) Q with A_w = R A K^T and B_w = K B Q^T.
// R puts A's rows in the ordering's order (computed on A). When A is square, the inner dimension
// follows the same order (K = R), so that consecutive working rows fetch rows of B_w that are
// neighbours in memory; when B is square too, so do B's columns, C's (Q = R), so that a working
// row's output columns fall in a narrow window of the accumulator. (A row order alone does not
// pay: the rows of B and the accumulator stay scattered, and C's rows are written in a scattered
// order on top.)
//
// Working row u is C's row order[u]: the symbolic phase relabels its columns to C's (out_cols()),
// sorts them and copies the rows into C's order; the numeric phase fills a copy of C's pattern in
// working order (rows order[u], columns in B_w's numbering: make_working_output()) and copies its
// rows into C (copy_working_values()). (Writing each working row straight into its scattered place
// in C took 2.5x the product itself on a shuffled 7-point A*A: every row waited for its cache
// lines, prefetch or not; the copy reads rows from scattered places instead, which the memory
// system overlaps.) Every numeric phase refreshes A_w's (and B_w's) values by a gather along the
// copies' source maps.
//
// A_w's pattern depends on A alone, so it lives in the LeftAnalysis with the ordering (shared by
// every product with this A, see include/pcluster/spgemm.hpp); A_w's values, B_w and C_w are the
// plan's. Without an ordering (analysis order empty) A and B are used as they are and this class
// does nothing.
#pragma once

#include "parallel.hpp"
#include "pcluster/spgemm.hpp"

#include <algorithm>
#include <vector>

namespace pcluster::detail {

template <class I, class V>
class WorkingCopies {
 public:
  // A_w's pattern into the analysis being made (its order set).
  static void make_working_a(const CsrView<I, V> &A, LeftAnalysis<I> &made)
  {
    made.inverse = inverse_permutation(made.order);
    const bool inner = A.nrows == A.ncols;
    CsrMatrix<I, V> Aw = permute(CsrView<I, V>{A.nrows, A.ncols, A.rowptr, A.colidx, nullptr}, made.order.data(),
                                 inner ? made.inverse.data() : nullptr, &made.a_w_source);
    made.a_w_rowptr = std::move(Aw.rowptr);
    made.a_w_colidx = std::move(Aw.colidx);
  }

  // The analysis whose ordering (possibly none) applies; before anything below.
  void use(const LeftAnalysis<I> *left) { left_ = left; }
  bool active() const { return !left_->order.empty(); }
  const std::vector<I> &order() const { return left_->order; }     // working row -> C's row
  const std::vector<I> &inverse() const { return left_->inverse; } // C's row -> working row
  // B_w's columns -> C's (nullptr: the same numbering)
  const I *out_cols() const { return permute_output_ ? left_->order.data() : nullptr; }

  // B_w's pattern for this product (after use()).
  void make_working_b(const CsrView<I, V> &A, const CsrView<I, V> &B)
  {
    permute_inner_ = A.nrows == A.ncols;
    permute_output_ = permute_inner_ && B.nrows == B.ncols;
    b_is_a_ = permute_output_ && A.same_pattern_as(B);
    if (permute_inner_ && !b_is_a_)
      b_w_ = permute(CsrView<I, V>{B.nrows, B.ncols, B.rowptr, B.colidx, nullptr}, order().data(), permute_output_ ? inverse().data() : nullptr,
                     &b_source_);
  }

  // The working operands with A's and B's current values (gathered along the source maps).
  CsrView<I, V> working_a(const CsrView<I, V> &A)
  {
    if (!active()) return A;
    if (A.values) gather(A.values, left_->a_w_source, a_w_values_);
    return CsrView<I, V>{A.nrows, A.ncols, left_->a_w_rowptr.data(), left_->a_w_colidx.data(), A.values ? a_w_values_.data() : nullptr};
  }
  CsrView<I, V> working_b(const CsrView<I, V> &A, const CsrView<I, V> &B) // after working_a(A)
  {
    if (!active() || !permute_inner_) return B;
    if (b_is_a_) {
      const V *values = nullptr;
      if (B.values == A.values) values = A.values ? a_w_values_.data() : nullptr;
      else if (B.values) {
        gather(B.values, left_->a_w_source, b_w_.values);
        values = b_w_.values.data();
      }
      return CsrView<I, V>{B.nrows, B.ncols, left_->a_w_rowptr.data(), left_->a_w_colidx.data(), values};
    }
    if (B.values) gather(B.values, b_source_, b_w_.values);
    return CsrView<I, V>{b_w_.nrows, b_w_.ncols, b_w_.rowptr.data(), b_w_.colidx.data(), B.values ? b_w_.values.data() : nullptr};
  }

  // After symbolic: C's pattern with rows in working order and columns in B_w's numbering, which
  // the numeric phase fills in sequence.
  void make_working_output(I ncols, const std::vector<I> &c_rowptr, const std::vector<I> &c_colidx)
  {
    if (!active()) return;
    const std::vector<I> &order = this->order(), &inverse = this->inverse();
    const I n = static_cast<I>(order.size());
    c_w_.nrows = n;
    c_w_.ncols = ncols;
    c_w_.rowptr.resize(static_cast<std::size_t>(n) + 1);
    c_w_.rowptr[0] = 0;
    for (I u = 0; u < n; ++u) c_w_.rowptr[u + 1] = c_w_.rowptr[u] + (c_rowptr[order[u] + 1] - c_rowptr[order[u]]);
    c_w_.colidx.resize(c_colidx.size());
    c_w_.values.resize(c_colidx.size());
#pragma omp parallel for schedule(dynamic, 1024) num_threads(threads_for(static_cast<Count>(c_colidx.size())))
    for (I u = 0; u < n; ++u) {
      const I *src = c_colidx.data() + c_rowptr[order[u]];
      I *dst = c_w_.colidx.data() + c_w_.rowptr[u];
      for (I t = 0; t < c_w_.rowptr[u + 1] - c_w_.rowptr[u]; ++t) dst[t] = permute_output_ ? inverse[src[t]] : src[t];
    }
  }
  CsrView<I, V> working_output() const { return c_w_.view(); }
  V *working_output_values() { return c_w_.values.data(); }
  Count working_output_nnz() const { return c_w_.nnz(); }

  // The working output's values into C's rows.
  void copy_working_values(const CsrView<I, V> &C, V *c_values) const
  {
    const std::vector<I> &inverse = this->inverse();
#pragma omp parallel for schedule(static) num_threads(threads_for(C.nnz()))
    for (I i = 0; i < C.nrows; ++i)
      std::copy(c_w_.values.data() + c_w_.rowptr[inverse[i]], c_w_.values.data() + c_w_.rowptr[inverse[i] + 1], c_values + C.rowptr[i]);
  }

 private:
  static void gather(const V *from, const std::vector<I> &source, std::vector<V> &to)
  {
    to.resize(source.size());
    const Count n = static_cast<Count>(source.size());
#pragma omp parallel for schedule(static) num_threads(threads_for(n))
    for (Count q = 0; q < n; ++q) to[q] = from[source[q]];
  }

  const LeftAnalysis<I> *left_ = nullptr;
  bool permute_inner_ = false;  // A square: A_w = R A R^T, B_w's rows follow R
  bool permute_output_ = false; // and B square: B_w = R B R^T, C's columns follow R
  bool b_is_a_ = false;         // B's pattern is A's (A*A): B_w is A_w
  std::vector<V> a_w_values_;
  CsrMatrix<I, V> b_w_; // pattern unused when b_is_a_
  std::vector<I> b_source_;
  CsrMatrix<I, V> c_w_; // C's rows in working order, columns numbered as B_w's (in C's order within a row)
};

} // namespace pcluster::detail
