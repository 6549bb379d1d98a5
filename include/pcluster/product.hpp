// The sparse products PETSc's MatProduct offers, each computed as a short chain of SpGEMMs (by
// SpgemmPlan, row-wise or cluster-wise) and explicit transposes, with the same two phases:
//
//   std::vector<int> ci, cj;
//   auto plan = ProductPlan<int, double>::symbolic(ProductType::PtAP, {A, P}, options, ci, cj);
//   std::vector<double> cv(cj.size());
//   plan.numeric({A, P}, C_pattern_view, cv.data());   // again whenever values change
//
// Operands follow PETSc's naming: AB, AtB, ABt take {A, B}; PtAP takes {A, P}; RARt takes {A, R};
// ABC takes {A, B, C}. The result has exactly the structural pattern of the true product (no
// cancellation is dropped), columns sorted, so it equals PETSc's own algorithms' pattern.
//
// The formulations (why each chain is what it is):
//   AB    A*B.
//   AtB   (A^T)*B with A^T explicit: the row-wise kernels need A^T's rows; the transpose costs
//         O(nnz(A)) against the product's flops, while the outer-product form (sum of A(k,:)^T B(k,:))
//         scatters into every row of C from every thread.
//   ABt   A*(B^T), B^T explicit, for the same reason.
//   PtAP  P^T*(A*P), fused by default (SpgemmOptions::triple, src/triple_product.hpp): A*P is formed
//         row by row and never stored, so nothing but C is kept between the phases. The symbolic
//         phase walks C's rows (rows of C by threads, no races) and finds each as (P^T A)(i,:) P's
//         pattern; the numeric phase walks A's rows and adds each row of A*P to the rows of C that
//         P's row names, gathering over C's own pattern (no pattern work).
//         The values are the stored chain's, bit for bit. PETSc's outer-product "scalable" form
//         also stores no A*P but writes C's rows from every row of A, walking them by merging.
//         The stored form (TripleForm::Stored, and the cluster kernel and reorderings, which run on
//         A's rows as a left factor) keeps A*P and P^T (with the transpose's position map): its
//         numeric phase is two numeric SpGEMMs and a gather, at the memory of A*P and P^T.
//   RARt  R*(A*R^T): the same with P = R^T, formed explicitly (kept, values refreshed by a gather)
//         and R itself as P^T.
//   ABC   A*(B*C), as PETSc: in Galerkin-type triple products (R*A*P) the middle operand is the large
//         operator and the right one tall and thin, so the right product first keeps the
//         intermediate narrow, as in PtAP.
// Intermediates (A*P, P^T, ...), where a chain has them, are kept by the plan and reused by every
// numeric phase.
#pragma once

#include "pcluster/caller_array.hpp"
#include "pcluster/csr.hpp"
#include "pcluster/names.hpp"
#include "pcluster/spgemm.hpp"

#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

namespace pcluster {

enum class ProductType { AB, AtB, ABt, PtAP, RARt, ABC };
inline constexpr Named<ProductType> kProductTypeNames[] = {{ProductType::AB, "AB"},     {ProductType::AtB, "AtB"},
                                                           {ProductType::ABt, "ABt"},   {ProductType::PtAP, "PtAP"},
                                                           {ProductType::RARt, "RARt"}, {ProductType::ABC, "ABC"}};
inline const char *to_string(ProductType t) { return name_of(kProductTypeNames, t); }
int operand_count(ProductType); // 2, or 3 for ABC
// The name of operand k in PETSc's naming: "A", then "B" ("P" for PtAP, "R" for RARt), then "C".
const char *operand_name(ProductType, int k);

// Dimensions of the result for the given operands; throws std::invalid_argument naming the product
// and the operands' sizes when they do not fit together.
template <class I, class V>
std::array<I, 2> product_dimensions(ProductType type, const std::vector<CsrView<I, V>> &operands);

// Where the numeric phase of a pieced PtAP puts the values of C's rows [row0, row0 + rows) when
// they belong in another matrix (a rank's own rows of a distributed result, kept by PETSc as a
// diagonal and an off-diagonal block, whose rows may hold more entries: those are left alone).
// Row row0 + r is cut in three runs, each contiguous in values: with g = runs + 5 r, its entries
// [0, g[0]) go to values[g[2] + t], [g[0], g[1]) to values[g[3] + t - g[0]], the rest to
// values[g[4] + t - g[1]] (t: the entry's place in its row); g[0] < 0 (the destination's row holds
// more entries): entry t goes to values[pos[g[2] + t]]. The c_values array then holds the other
// rows' values only: theirs before row0, then after.
template <class I, class V>
struct ResultScatter {
  I row0 = 0, rows = 0;
  const I *runs = nullptr; // 5 a row
  const I *pos = nullptr;  // for the rows with g[0] < 0 only
  V *values = nullptr;

  // Where entry t of scattered row r goes (the kernel walks whole runs instead).
  V &slot(I r, I t) const
  {
    const I *const g = runs + 5 * static_cast<std::ptrdiff_t>(r);
    if (g[0] < 0) return values[pos[g[2] + t]];
    return values[t < g[0] ? g[2] + t : t < g[1] ? g[3] + (t - g[0]) : g[4] + (t - g[1])];
  }
};

// Whether ProductPlan forms this product with the fused triple product (PtAP and RARt, row-wise
// or cluster's Auto, no reordering, TripleForm::Fused): the form that takes pieced operands.
bool fused_triple(ProductType type, const SpgemmOptions &options);

// Dofs per node of an operand's rows and columns (MatGetBlockSizes): a hint for ClusterScheme::Auto
// on whichever matrix is the left factor of a step (e.g. P's column block size for P^T).
struct BlockSizes {
  int rows = 1, cols = 1;
};

// One step of a chain, for views and -info.
struct ProductStep {
  std::string what;      // e.g. "AP = A*P", "Pt = P^T"
  bool is_transpose = false;
  Count nnz = 0;         // of the step's result
  SpgemmStats spgemm;    // SpGEMM steps and the fused triple product
  bool fused_triple = false; // the fused triple product (SpgemmOptions::triple, src/triple_product.hpp)
  bool by_rows_of_c = false; // fused: its numeric phase by rows of C ((Pt*A)*P), else by rows of A
};

template <class I, class V>
class ProductPlan {
 public:
  // Pattern of the product into c_rowptr/c_colidx (resized); with c_values, its values too (fused,
  // as SpgemmPlan::symbolic; a fused PtAP whose numeric phase goes by rows of C, on one thread, forms
  // them in the same pass over A and P as its pattern, the bits numeric() gives). options apply to every SpGEMM step; options.row_block_size is replaced
  // per step by the left factor's row block size from block_sizes (one entry per operand, or
  // empty for 1). a_analysis: the ordering and clusters of the first operand (A) from an earlier
  // plan (a_analysis()), used by the steps whose left factor is A (AB, A*P of PtAP, A*R^T of RARt,
  // A*(BC) of ABC). Throws what SpgemmPlan::symbolic throws.
  static ProductPlan symbolic(ProductType type, const std::vector<CsrView<I, V>> &operands, const SpgemmOptions &options,
                              std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values = nullptr,
                              const std::vector<BlockSizes> &block_sizes = {},
                              std::shared_ptr<const LeftAnalysis<I>> a_analysis = nullptr);

  // A fused PtAP (fused_triple(PtAP, options)) with C's column indices, and with c_values its values,
  // written into memory from the caller's allocator (CallerArray: a library takes the arrays over, as
  // hypre does its matrices'), once, with no copy; no include_diagonal. Throws std::invalid_argument
  // for another product or form, otherwise as above.
  static ProductPlan symbolic(ProductType type, const std::vector<CsrView<I, V>> &operands, const SpgemmOptions &options,
                              std::vector<I> &c_rowptr, CallerArray<I> &c_colidx, CallerArray<V> *c_values = nullptr);

  // Values of the product into c_values for the pattern C that symbolic() produced. The operands
  // must have the patterns they had in symbolic(); their values may differ.
  void numeric(const std::vector<CsrView<I, V>> &operands, const CsrView<I, V> &C, V *c_values);

  // PtAP of operands {A, P} pieced together from blocks (a rank's rows of MPIAIJ matrices, without
  // copying them): the fused form only (fused_triple(PtAP, options) must hold), no block sizes or
  // analysis to share. Each part of a row sorted (checked with check_operands), except with the form
  // by rows of C (TripleForm::FusedRowsOfC), which takes the parts' columns in any order (hypre's
  // blocks, diagonal first). Otherwise as above; throws std::invalid_argument for another product or form.
  static ProductPlan symbolic(ProductType type, const std::vector<PiecedView<I, V>> &operands, const SpgemmOptions &options,
                              std::vector<I> &c_rowptr, std::vector<I> &c_colidx, std::vector<V> *c_values = nullptr);
  void numeric(const std::vector<PiecedView<I, V>> &operands, const CsrView<I, V> &C, V *c_values, const ResultScatter<I, V> *scatter = nullptr);

  ProductType type() const;
  const SpgemmOptions &options() const;
  std::vector<ProductStep> steps() const;
  Count flops() const;            // multiply-adds of all SpGEMM steps
  double seconds_symbolic() const; // all steps, clustering and transposes included
  double seconds_clustering() const;
  // The ordering and clusters of A as a left factor (nullptr if no step has A on the left), made or
  // taken by symbolic(), for the next product with the same A.
  std::shared_ptr<const LeftAnalysis<I>> a_analysis() const;

  ProductPlan();
  ProductPlan(ProductPlan &&) noexcept;
  ProductPlan &operator=(ProductPlan &&) noexcept;
  ~ProductPlan();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace pcluster
