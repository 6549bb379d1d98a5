// C = Pt * (A * P) without storing A*P, keeping C and P^T's row counts between the phases: the fused
// triple product behind PtAP (Pt = P^T) and RARt (P = R^T, Pt = R) in ProductPlan (src/product.cpp;
// why this form: include/pcluster/product.hpp).
//
// Symbolic (C's pattern), by rows of C, each thread a range of them: C(i,:)'s pattern is that of
// (Pt A)(i,:) P, the same structural pattern as Pt (A P) (no cancellation is dropped either way),
// found without forming a row of A*P: first the fine columns j of (Pt A)(i,:) (the union of A's
// rows k over Pt(i,k)), then the union of P's rows j. It costs sum over Pt(i,k) of nnz(A(k,:)), plus
// sum over C's rows of nnz((Pt A)(i,:)) times P's entries per row: less than forming A*P's rows
// where P has fewer columns than rows, and nothing of A*P is held. Pt's pattern is needed here
// only (RARt has it: R); for PtAP it is made a block of rows at a time, as the numeric phase makes
// Pt with values (PtBlocks, below), after one pass over P that counts each row of Pt's entries: the
// whole of P^T's pattern (4 bytes an entry of P) took a PCGAMG elasticity product's symbolic phase to
// more memory than C.
//
// Numeric (C's values), in one of two orders (chosen per product in the symbolic phase,
// numeric_by_rows_of_c in triple_product.cpp, or named: TripleForm), each thread a range of C's rows:
//  - By rows of C, as (Pt A) P: for each row i, (Pt A)(i,:) in a dense accumulator over A's columns
//    (a bit a column marks its columns, listed as first reached), then (Pt A)(i,:) P in one over
//    C's columns, gathered into C(i,:). Pt with values is made a block of rows at a time (PtBlocks:
//    a sixteenth of P's entries per thread at most, so at most sixteen passes over P's rows, each
//    over only the rows that reach the block; never P^T whole).
//    Its multiply-adds are those of Pt*A and of (Pt*A)*P: 1.4-3.4x fewer than by rows of A with
//    PCGAMG's P (measured, 9 matrices), but it fetches A's rows nnz(P) times where rows of A fetch
//    P's rows nnz(A) times: the same bytes, from the larger operand.
//  - By rows of A: each thread walks A's rows in order; for a row k whose P(k,:) has columns in its
//    range it forms (A*P)(k,:) in a dense accumulator that is zero outside the row's pattern, then
//    for each such column i adds P(k,i) * accumulator over C(i,:)'s own pattern (which holds the
//    row's pattern). A gather over (the part of) C's row per entry of P: more work, as C's rows are
//    longer, but P is fetched at random instead of A, and where P fits in the cache and the rows of
//    A that a row of P^T reaches do not (a randomly numbered mesh), this order is the faster.
//    Entries outside (A*P)(k,:) add exactly +0, so every value is the stored chain's sum in the
//    chain's order (A*P's row from +0 in A's order, C's row from +0 in k's order), bit for bit; a
//    non-finite P(k,i) (whose product with 0 is NaN) takes the row's exact pattern instead.
// Either way each entry of C is summed by one thread in a fixed order: bit for bit the same for any
// number of threads. By rows of C the sums are (Pt A)(i,j) over k increasing, then C(i,c) over
// (Pt A)(i,:)'s columns as first reached: equal to the stored chain's to rounding only.
//
// Operands (TripleOperands): CSR views, or PiecedView (a rank's rows of MPIAIJ matrices, read in
// place from PETSc's diagonal and off-diagonal blocks and the fetched rows): a CsrView's rows sorted,
// a PiecedView's parts of a row (A*P's column range is read from their ends). A PiecedView's own
// row is summed block by block (diagonal block first), so on MPIAIJ the fused form's values differ
// in the last bits from the stored form's (which copies A's rows in column order). A numeric phase
// may write a range of C's rows elsewhere, in runs or through positions (ResultScatter: a rank's own
// rows, straight into its part of the distributed C), the other rows compactly.
//
// Kept between the phases: C, and for the numeric phase by rows of C P^T's row statistics
// (PtRowStats: 3 I bytes a row of C; PtAP, where P^T is not given).
// Workspace per thread (m = C's columns, n = A's columns): symbolic: 4 (n + m) bytes of stamps, a
// row of (Pt A), the thread's rows of C's pattern until they are copied to C (in blocks of 64 Ki
// entries) and a block of Pt's pattern (as below, I bytes an entry), plus 3 I m bytes in all (Pt's
// row counts and spans); numeric by rows of C: (V + 1/8) n bytes of accumulator and marks, V m, a row of
// (Pt A) ((I + V) a column of it) and the block of P^T (at most a sixteenth of P's entries over
// the threads, (I + V) bytes each, at least 4096), plus 3 I per row of C of the thread's; by rows of
// A: V m bytes of accumulator. Where P's rows repeat one another (a block
// matrix's nodes; CSR and pieced operands alike, a pieced row part by part) the plan keeps a byte
// per row of P and of A saying which: the symbolic phase skips the repeats, and the numeric phase
// forms a run of A*P's rows side by side (4 V m bytes more) and merges them into C's rows in one
// pass (merge_run; same sums in the same order), the rows written elsewhere (ResultScatter) too.
#pragma once

#include "pcluster/caller_array.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/product.hpp"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace pcluster::detail {

// M: CsrView, or PiecedView (a rank's rows of MPIAIJ operands, taken from PETSc's blocks without a
// copy); rows (CsrView) or parts of rows (PiecedView) sorted.
template <class I, class V, class M = CsrView<I, V>>
struct TripleOperands {
  M A;              // n x n
  M P;              // n x m, with values (or a pattern: ones)
  CsrView<I, V> Pt; // symbolic: the pattern of P^T if the caller has it (RARt: R), else empty (rowptr null)
};

// Rows [c0, c1) of P^T (columns of P): each one's entries and the first and last row of P holding
// it, from one pass over P; all that is known of P^T until a block of it is made (PtBlocks,
// triple_product.cpp).
template <class I>
struct PtRowStats {
  I c0 = 0;
  std::vector<I> count, first, last;
};

template <class I, class V>
class FusedTripleProduct {
 public:
  // C's pattern (exact, columns sorted; with sorted false in the order first reached, for FusedRowsOfC
  // only: SpgemmOptions::sorted_result) into c_rowptr/c_colidx (resized).
  // form: Fused (the numeric phase's order chosen here, before the pass), FusedRowsOfC or FusedRowsOfA.
  // c_values (or null): where the numeric phase goes by rows of C and the pass runs on one thread,
  // C's values too, formed in the same pass over the rows, the same bits as numeric() gives (a
  // one-shot product then walks A and P once, not twice), and values_formed() holds; else left alone.
  // Columns, Values: std::vector, or CallerArray (memory a library takes over, caller_array.hpp).
  template <class M, class Columns = std::vector<I>, class Values = std::vector<V>>
  static FusedTripleProduct symbolic(const TripleOperands<I, V, M> &ops, TripleForm form, std::vector<I> &c_rowptr, Columns &c_colidx, bool sorted = true,
                                     Values *c_values = nullptr);
  // C's values for the pattern symbolic() made, or a superset of it (e.g. with diagonal entries
  // added: entries the product does not reach get 0). ops.Pt is not read. Throws
  // std::invalid_argument if A or P has not the shape and number of entries it had in symbolic().
  // With scatter, C's rows [scatter->row0, + rows) go elsewhere (ResultScatter, product.hpp) and
  // c_values holds the other rows' only.
  template <class M>
  void numeric(const TripleOperands<I, V, M> &ops, const CsrView<I, V> &C, V *c_values, const ResultScatter<I, V> *scatter = nullptr) const;

  // Multiply-adds of a numeric phase on one thread: by rows of C those of Pt*A and of (Pt*A)*P; by
  // rows of A the rows of A*P that Pt reaches, once each, and for every entry Pt(i,k) a row of C(i,:)'s length.
  Count flops() const { return flops_; }
  // Rows of P found repeating the row before them (taken as runs; 0 where too few repeat to pay).
  Count repeated_rows() const { return static_cast<Count>(std::count(p_repeats_.begin(), p_repeats_.end(), std::uint8_t(1))); }
  // The numeric phase's order: by rows of C, else by rows of A.
  bool by_rows_of_c() const { return by_rows_of_c_; }
  // Did symbolic() form C's values (its c_values)?
  bool values_formed() const { return values_formed_; }
  // The largest workspace one thread held in the symbolic phase, in bytes.
  Count workspace_thread_bytes() const { return workspace_thread_bytes_; }

 private:
  Count a_nnz_ = 0, p_nnz_ = 0;
  I n_ = 0, m_ = 0;
  Count flops_ = 0;
  Count workspace_thread_bytes_ = 0;
  // CsrView operands: P's and A's repeated rows (spgemm_kernel.hpp, repeated_rows), empty if none
  std::vector<std::uint8_t> p_repeats_, a_repeats_;
  bool by_rows_of_c_ = true; // the numeric phase's order (triple_product.cpp, numeric_by_rows_of_c)
  PtRowStats<I> pt_stats_;    // PtAP by rows of C: P^T's row statistics, for the numeric phase's blocks of P^T
  bool values_formed_ = false;
};

} // namespace pcluster::detail
