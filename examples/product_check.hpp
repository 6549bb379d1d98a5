/*
   The one comparison of a product with PETSc's, for every PETSc program of ours that checks one:
   compare_products, spgemm_bench and ordering_study (bench_common.hpp), bfs, and tests/petsc's
   plugin_api, mpi_products and products_in_flight. C is compared with a reference Cref (PETSc's
   default algorithm on the same operands) row by row with MatGetRow over each rank's rows, on SeqAIJ
   or MPIAIJ (any type with MatGetRow); the result is collective on C's communicator.

   The rules:
   - The pattern is identical: the same sizes, the same rows on every rank, and in every row the same
     columns in the same increasing order: no extra and no missing stored entry, explicit zeros
     included (ProductCheckOptions::allow_extra_zeros lets a third-party result store extra entries
     that hold exactly 0; they are counted, not failed).
   - A finite value c of entry (i,j) agrees with the reference's r when |c - r| <= rtol * s(i,j), s
     being the entry's own scale: the same product of the operands' absolute values (|A||B| for AB,
     |A|^T |B| for AtB, |A||B|^T for ABt, |P|^T |A||P| for PtAP, |R||A||R|^T for RARt, |A||B||C| for
     ABC) computed by PETSc's default algorithm (CreateProductScale). s(i,j) bounds every partial sum
     of the entry's terms, so it bounds the rounding of any summation order (about the number of
     terms times the unit roundoff, times s), and it gives an entry whose terms cancel to about 0 an
     absolute floor instead of asking it for digits it never had. (An entry the scale lacks, or whose
     scale is not finite, is held to rtol * |r|.) A scale below the smallest normal number counts as
     that number: subnormal values round in absolute steps (adder_dcop_05 squared has entries of
     2e-316; with A's values doubled every algorithm, PETSc's too, was 2 subnormal units away from
     twice the reference.)
   - The comparison is exact (tolerance 0) where every operand value is an integer and s(i,j) <= 2^53:
     every partial sum is then an integer that a double holds exactly, in any order.
   - NaN, +Inf and -Inf agree only with the same kind in the reference; anything else (a finite value
     against a non-finite one, NaN against Inf) is a mismatch.

   The first difference found is reported, with the same text on every rank, in one of these forms
   (negative tests match them; a pattern difference is reported before any value mismatch):
     "sizes differ: <m> x <n>, reference <M> x <N>"
     "row ranges differ on rank <r>: [<a>, <b>), reference [<c>, <d>)"
     "pattern differs at row <i>: <what>"   (<what>: "column <j> is not in the reference",
                                             "the reference's column <j> is missing",
                                             "columns not increasing at position <k> (<j> after <j'>)")
     "value mismatch at (<i>,<j>): <got>, reference <want> (tolerance <t>)"
     "non-finite value at (<i>,<j>): <got>, reference <want>"

   Use: CheckProduct(type, X, Y, Z, C, Cref, options, &result) makes the scale of the product of X, Y
   (and Z for ABC) and compares; CreateProductScale + CompareProduct + DestroyProductScale keep a scale
   for several comparisons with one reference.
*/
#pragma once

#include <petscmat.h>

#include "petsc_versions.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#if defined(PETSC_USE_COMPLEX)
  #error "product_check.hpp compares real scalars only"
#endif

/* Every integer up to this value is a PetscReal: sums of integer terms whose absolute values add up
   to at most it are exact in any order */
constexpr PetscReal kProductCheckExactLimit = (PetscReal)(1ull << std::numeric_limits<PetscReal>::digits);

/* The scale of every entry of a product (see the top of the file) */
struct ProductScale {
  Mat       S       = NULL;        /* the product of the operands' absolute values */
  PetscBool integer = PETSC_FALSE; /* every operand value is a finite integer */
};

struct ProductCheckOptions {
  PetscReal rtol              = 1e-12;
  PetscReal ref_factor        = 1;            /* compare C with ref_factor * Cref (scale: |ref_factor| * S) */
  PetscBool pattern_only      = PETSC_FALSE;  /* the pattern alone (e.g. a symbolic-only C); no scale needed */
  PetscBool allow_extra_zeros = PETSC_FALSE;  /* extra stored entries of C holding exactly 0 are counted, not failed */
};

struct ProductCheck {
  PetscBool   ok           = PETSC_FALSE;
  PetscInt64  pattern_rows = 0; /* rows whose pattern differs (a row-range difference counts once per rank) */
  PetscInt64  mismatches   = 0; /* entries whose values disagree */
  PetscInt64  extra_zeros  = 0; /* extra zero entries let through by allow_extra_zeros */
  PetscInt64  nnz          = 0; /* stored entries of C */
  PetscReal   max_err      = 0; /* max over the compared finite entries of |c - r| / s(i,j) (0 where c = r);
                                   infinite for a non-finite mismatch */
  std::string message;          /* empty when ok, else the first difference */
};

namespace product_check_detail
{

/* |M| in place on a SeqAIJ; *integer becomes false if a value is not a finite integer */
inline PetscErrorCode AbsSeqAIJ(Mat M, PetscBool *integer)
{
  MatInfo      info;
  PetscScalar *a;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(M, MAT_LOCAL, &info));
  const PetscInt nz = (PetscInt)info.nz_used;
  PetscCall(MatSeqAIJGetArray(M, &a));
  for (PetscInt k = 0; k < nz; ++k) {
    const PetscReal v = PetscRealPart(a[k]);
    if (!(std::isfinite(v) && std::trunc(v) == v)) *integer = PETSC_FALSE;
    a[k] = PetscAbsScalar(a[k]);
  }
  PetscCall(MatSeqAIJRestoreArray(M, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A copy of M (SeqAIJ, MPIAIJ, or converted to AIJ) holding the absolute values of M's entries */
inline PetscErrorCode AbsCopy(Mat M, Mat *Ma, PetscBool *integer)
{
  PetscBool aij, mpi;

  PetscFunctionBeginUser;
  PetscCall(PetscObjectTypeCompareAny((PetscObject)M, &aij, MATSEQAIJ, MATMPIAIJ, ""));
  if (aij) PetscCall(MatDuplicate(M, MAT_COPY_VALUES, Ma));
  else PetscCall(MatConvert(M, MATAIJ, MAT_INITIAL_MATRIX, Ma)); /* MAIJ, dense, ... */
  PetscCall(PetscObjectTypeCompare((PetscObject)*Ma, MATMPIAIJ, &mpi));
  if (mpi) {
    Mat Ad, Ao;
    PetscCall(MatMPIAIJGetSeqAIJ(*Ma, &Ad, &Ao, NULL));
    PetscCall(AbsSeqAIJ(Ad, integer));
    PetscCall(AbsSeqAIJ(Ao, integer));
  } else {
    MatType type;
    PetscCall(PetscObjectTypeCompare((PetscObject)*Ma, MATSEQAIJ, &aij));
    PetscCall(MatGetType(*Ma, &type));
    PetscCheck(aij, PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "product_check: no absolute values of a %s operand", type);
    PetscCall(AbsSeqAIJ(*Ma, integer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* 0 finite, 1 NaN, 2 +Inf, 3 -Inf */
inline int Kind(PetscReal v)
{
  return std::isnan(v) ? 1 : std::isinf(v) ? (v > 0 ? 2 : 3) : 0;
}

inline std::string Text(PetscReal v)
{
  char buf[32];
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::snprintf(buf, sizeof buf, "%.17g", (double)v);
  return buf;
}

} // namespace product_check_detail

/* PETSc's algorithm for the reference products: its default, except for MPIAIJ A^T*B, where its
   default (one pass over A's rows, sending the products to their owners) takes seconds on a matrix
   with dense rows (rajat01 on 2 ranks: 14 s against 10 s for the whole test with the explicit
   transpose), so the reference is PETSc's own "at*b" (A^T formed, then (A^T)*B). */
inline const char *ReferenceProductAlgorithm(MatProductType type, Mat X)
{
  PetscBool mpi = PETSC_FALSE;
  if (type == MATPRODUCT_AtB && PetscObjectTypeCompare((PetscObject)X, MATMPIAIJ, &mpi) == PETSC_SUCCESS && mpi) return MATPRODUCTALGORITHMATB;
  return MATPRODUCTALGORITHMDEFAULT;
}

/* scale->S = the product `type` of |X|, |Y| (and |Z| for ABC) by PETSc's algorithm (above), and
   scale->integer: every value of X, Y (, Z) is a finite integer. Collective. */
inline PetscErrorCode CreateProductScale(MatProductType type, Mat X, Mat Y, Mat Z, ProductScale *scale)
{
  Mat       ops[3] = {X, Y, type == MATPRODUCT_ABC ? Z : NULL}, abs[3] = {NULL, NULL, NULL};
  PetscBool integer = PETSC_TRUE, all;

  PetscFunctionBeginUser;
  for (int k = 0; k < 3; ++k) {
    if (!ops[k]) continue;
    for (int l = 0; l < k && !abs[k]; ++l) /* one operand on two sides (A*A): one copy */
      if (ops[l] == ops[k]) {
        abs[k] = abs[l];
        PetscCall(PetscObjectReference((PetscObject)abs[k]));
      }
    if (!abs[k]) PetscCall(product_check_detail::AbsCopy(ops[k], &abs[k], &integer));
  }
  PetscCallMPI(MPI_Allreduce(&integer, &all, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)X)));
  PetscCall(MatProductCreate(abs[0], abs[1], abs[2], &scale->S));
  PetscCall(MatSetOptionsPrefix(scale->S, "product_check_scale_")); /* no option of the caller's applies */
  PetscCall(MatProductSetType(scale->S, type));
  PetscCall(MatProductSetAlgorithm(scale->S, ReferenceProductAlgorithm(type, abs[0])));
  PetscCall(MatProductSetFill(scale->S, PETSC_DEFAULT));
  PetscCall(MatProductSetFromOptions(scale->S));
  PetscCall(MatProductSymbolic(scale->S));
  PetscCall(MatProductNumeric(scale->S));
  PetscCall(MatProductClear(scale->S));
  for (Mat &M : abs) PetscCall(MatDestroy(&M));
  scale->integer = all;
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode DestroyProductScale(ProductScale *scale)
{
  PetscFunctionBeginUser;
  PetscCall(MatDestroy(&scale->S));
  scale->integer = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compares C with opt.ref_factor * Cref by the rules at the top of the file; scale may be NULL with
   opt.pattern_only. Collective on C's communicator; *r is the same on every rank. */
inline PetscErrorCode CompareProduct(Mat C, Mat Cref, const ProductScale *scale, const ProductCheckOptions &opt, ProductCheck *r)
{
  using namespace product_check_detail;
  MPI_Comm    comm = PetscObjectComm((PetscObject)C);
  PetscMPIInt rank, size;
  PetscInt    m, n, mr, nr, lo, hi, lor, hir;
  PetscInt64  local[4] = {0, 0, 0, 0}, global[4]; /* pattern rows, mismatches, extra zeros, nnz */
  PetscReal   max_err  = 0;
  char        pattern_msg[256] = "", value_msg[256] = "";
  const bool  values           = !opt.pattern_only;

  PetscFunctionBeginUser;
  *r = ProductCheck();
  PetscCheck(!values || (scale && scale->S), comm, PETSC_ERR_ARG_NULL, "CompareProduct: comparing values needs the product's scale (CreateProductScale)");
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  PetscCall(MatGetSize(C, &m, &n));
  PetscCall(MatGetSize(Cref, &mr, &nr));
  if (m != mr || n != nr) { /* the same on every rank */
    char buf[128];
    std::snprintf(buf, sizeof buf, "sizes differ: %" PetscInt_FMT " x %" PetscInt_FMT ", reference %" PetscInt_FMT " x %" PetscInt_FMT, m, n, mr, nr);
    r->message      = buf;
    r->pattern_rows = mr;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatGetOwnershipRange(C, &lo, &hi));
  PetscCall(MatGetOwnershipRange(Cref, &lor, &hir));
  const bool layout = lo != lor || hi != hir;
  if (layout) {
    std::snprintf(pattern_msg, sizeof pattern_msg, "row ranges differ on rank %d: [%" PetscInt_FMT ", %" PetscInt_FMT "), reference [%" PetscInt_FMT ", %" PetscInt_FMT ")", (int)rank, lo, hi, lor, hir);
    local[0] = 1;
  }
  if (values) { /* the scale must be the reference's shape (a harness error otherwise) */
    PetscInt  ms, ns, los, his;
    PetscBool bad, anybad;
    PetscCall(MatGetSize(scale->S, &ms, &ns));
    PetscCall(MatGetOwnershipRange(scale->S, &los, &his));
    bad = (PetscBool)(ms != mr || ns != nr || los != lor || his != hir);
    PetscCallMPI(MPI_Allreduce(&bad, &anybad, 1, MPIU_BOOL, MPI_LOR, comm));
    PetscCheck(!anybad, comm, PETSC_ERR_ARG_SIZ, "CompareProduct: the scale is not the shape of the reference (made from other operands?)");
  }

  for (PetscInt i = lo; !layout && i < hi; ++i) {
    PetscInt           nc, nref, ns = 0;
    const PetscInt    *cc, *cr, *cs = NULL;
    const PetscScalar *vc, *vr, *vs = NULL;
    char               what[160] = "";

    PetscCall(MatGetRow(C, i, &nc, &cc, &vc));
    PetscCall(MatGetRow(Cref, i, &nref, &cr, &vr));
    if (values) PetscCall(MatGetRow(scale->S, i, &ns, &cs, &vs));
    local[3] += nc;
    for (PetscInt k = 1; k < nc && !what[0]; ++k)
      if (cc[k] <= cc[k - 1]) std::snprintf(what, sizeof what, "columns not increasing at position %" PetscInt_FMT " (%" PetscInt_FMT " after %" PetscInt_FMT ")", k, cc[k], cc[k - 1]);
    for (PetscInt p = 0, q = 0, t = 0; !what[0] && (p < nc || q < nref);) {
      const PetscInt cj = p < nc ? cc[p] : PETSC_MAX_INT, rj = q < nref ? cr[q] : PETSC_MAX_INT;
      if (cj < rj) {
        if (opt.allow_extra_zeros && vc && PetscRealPart(vc[p]) == 0) {
          ++local[2];
          ++p;
          continue;
        }
        std::snprintf(what, sizeof what, "column %" PetscInt_FMT " is not in the reference", cj);
        break;
      }
      if (rj < cj) {
        std::snprintf(what, sizeof what, "the reference's column %" PetscInt_FMT " is missing", rj);
        break;
      }
      const PetscReal got = values ? PetscRealPart(vc[p]) : 0, want = values ? opt.ref_factor * PetscRealPart(vr[q]) : 0;
      ++p, ++q;
      if (!values) continue;
      while (t < ns && cs[t] < cj) ++t;
      const PetscReal s     = t < ns && cs[t] == cj ? PetscAbsReal(opt.ref_factor) * PetscRealPart(vs[t]) : std::numeric_limits<PetscReal>::quiet_NaN();
      const bool      has_s = std::isfinite(s);
      if (Kind(got) || Kind(want)) { /* a non-finite value on either side */
        if (Kind(got) != Kind(want)) {
          ++local[1];
          max_err = std::numeric_limits<PetscReal>::infinity();
          if (!value_msg[0]) std::snprintf(value_msg, sizeof value_msg, "non-finite value at (%" PetscInt_FMT ",%" PetscInt_FMT "): %s, reference %s", i, cj, Text(got).c_str(), Text(want).c_str());
        }
        continue;
      }
      const bool      exact = scale->integer && has_s && s <= kProductCheckExactLimit;
      const PetscReal base  = has_s ? s : PetscAbsReal(want);
      /* below the normal range a double's precision is absolute (one subnormal unit per rounding), so the
         scale gets the floor of the smallest normal number: rtol * DBL_MIN is thousands of such units */
      const PetscReal held  = exact ? base : PetscMax(base, std::numeric_limits<PetscReal>::min());
      const PetscReal tol   = exact ? 0 : opt.rtol * held;
      const PetscReal diff  = PetscAbsReal(got - want);
      if (diff > 0) max_err = PetscMax(max_err, diff / held); /* exact with scale 0: infinite */
      if (!(diff <= tol)) {
        ++local[1];
        if (!value_msg[0])
          std::snprintf(value_msg, sizeof value_msg, "value mismatch at (%" PetscInt_FMT ",%" PetscInt_FMT "): %s, reference %s (tolerance %.3g)", i, cj, Text(got).c_str(), Text(want).c_str(), (double)tol);
      }
    }
    if (values) PetscCall(MatRestoreRow(scale->S, i, &ns, &cs, &vs));
    PetscCall(MatRestoreRow(Cref, i, &nref, &cr, &vr));
    PetscCall(MatRestoreRow(C, i, &nc, &cc, &vc));
    if (what[0]) {
      ++local[0];
      if (!pattern_msg[0]) std::snprintf(pattern_msg, sizeof pattern_msg, "pattern differs at row %" PetscInt_FMT ": %s", i, what);
    }
  }

  PetscCallMPI(MPI_Allreduce(local, global, 4, MPIU_INT64, MPI_SUM, comm));
  PetscCallMPI(MPI_Allreduce(&max_err, &r->max_err, 1, MPIU_REAL, MPIU_MAX, comm));
  r->pattern_rows = global[0];
  r->mismatches   = global[1];
  r->extra_zeros  = global[2];
  r->nnz          = global[3];
  r->ok           = (PetscBool)(!global[0] && !global[1]);
  if (!r->ok) { /* the first difference of the lowest rank that has one: a pattern difference first */
    const char *mine = global[0] ? pattern_msg : value_msg;
    PetscMPIInt have = mine[0] ? rank : size, root;
    char        buf[256];
    PetscCallMPI(MPI_Allreduce(&have, &root, 1, MPI_INT, MPI_MIN, comm));
    std::snprintf(buf, sizeof buf, "%s", mine);
    PetscCallMPI(MPI_Bcast(buf, (PetscMPIInt)sizeof buf, MPI_CHAR, root, comm));
    r->message = buf;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Makes the scale of the product `type` of X, Y (, Z for ABC), the operands of C and Cref, and
   compares C with Cref (CompareProduct). Collective. */
inline PetscErrorCode CheckProduct(MatProductType type, Mat X, Mat Y, Mat Z, Mat C, Mat Cref, const ProductCheckOptions &opt, ProductCheck *r)
{
  ProductScale scale;

  PetscFunctionBeginUser;
  if (!opt.pattern_only) PetscCall(CreateProductScale(type, X, Y, Z, &scale));
  PetscCall(CompareProduct(C, Cref, &scale, opt, r));
  PetscCall(DestroyProductScale(&scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}
