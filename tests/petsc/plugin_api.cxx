static char help[] = "Tests the petsc-cluster plugin through PETSc's MatProduct API: algorithm names set in code,\n\
symbolic-only products, MatProductClear, MatProductReplaceMats, MAT_REUSE_MATRIX, empty and\n\
rectangular operands, thread counts, and errors that must leave the operands untouched; for every\n\
product type (AB, AtB, ABt, PtAP, RARt, ABC) against PETSc's default algorithm.\n\
Exits nonzero on the first failed check.\n\
  -petsc_names: run the product-type checks with one of PETSc's own algorithms per type instead of\n\
                ours (a check of the test itself; the checks that only hold for ours are skipped)\n\n";

// Links the plugin and registers it with PetscClusterInitializePackage() (the path for programs
// that link it); may also be run with -dll_append (registration must be idempotent).

#include <petsccluster.h>
#include <petscmat.h>
#include <petsc/private/matimpl.h> // Mat_Product::alg

#include "parallel.hpp" // pcluster::detail::kMinParallelWork
#include "product_check.hpp"
#include "test_matrices.hpp"
#include "user_products.hpp"

#include <cmath>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

#define CHECK_OR_FAIL(cond, ...) \
  do { \
    if (!(cond)) SETERRQ(PETSC_COMM_SELF, PETSC_ERR_PLIB, __VA_ARGS__); \
  } while (0)

namespace {

const char *const kAlgorithms[] = {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE,
                                   MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, MATPRODUCTALGORITHMROWWISE};

// A seeded random m x n SeqAIJ with about `per_row` entries per row; rows listed in `empty_rows`
// stay empty, and column `empty_col` (if >= 0) is never used.
PetscErrorCode RandomAIJ(PetscInt m, PetscInt n, PetscInt per_row, unsigned seed, const std::vector<PetscInt> &empty_rows, PetscInt empty_col, Mat *A)
{
  std::vector<PetscInt> cols;
  std::vector<PetscScalar> vals;
  unsigned s = seed * 2654435761u + 1;
  auto next = [&]() {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  };

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, per_row, NULL, A));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = 0; i < m && n > 0; ++i) {
    bool skip = false;
    for (PetscInt r : empty_rows) skip = skip || r == i;
    if (skip) continue;
    cols.clear();
    vals.clear();
    const PetscInt len = 1 + (PetscInt)(next() % (unsigned)(2 * per_row));
    for (PetscInt t = 0; t < len; ++t) {
      const PetscInt j = (PetscInt)(next() % (unsigned)n);
      if (j == empty_col) continue;
      cols.push_back(j);
      vals.push_back(((PetscScalar)(next() % 2000) - 1000.0) / 997.0 + 0.001);
    }
    PetscCall(MatSetValues(*A, 1, &i, (PetscInt)cols.size(), cols.data(), vals.data(), ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// C = A*B with the given algorithm through the developer API.
PetscErrorCode Product(Mat A, Mat B, const char *alg, const char *prefix, Mat *C)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(A, B, NULL, C));
  if (prefix) PetscCall(MatSetOptionsPrefix(*C, prefix));
  PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFill(*C, PETSC_DEFAULT));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// C against Cref, PETSc's product `type` of X, Y (, Z) (product_check.hpp, rtol 1e-12 of each
// entry's own scale); *why gets the first difference.
PetscErrorCode SameProduct(MatProductType type, Mat X, Mat Y, Mat Z, Mat C, Mat Cref, PetscBool *same, std::string *why)
{
  ProductCheck        r;
  ProductCheckOptions opt;

  PetscFunctionBeginUser;
  PetscCall(CheckProduct(type, X, Y, Z, C, Cref, opt, &r));
  *same = r.ok;
  *why  = r.message;
  PetscFunctionReturn(PETSC_SUCCESS);
}

// C has Cref's pattern (rows, columns in order); the values are not compared.
PetscErrorCode SamePattern(Mat C, Mat Cref, PetscBool *same, std::string *why)
{
  ProductCheck        r;
  ProductCheckOptions opt;

  PetscFunctionBeginUser;
  opt.pattern_only = PETSC_TRUE;
  PetscCall(CompareProduct(C, Cref, NULL, opt, &r));
  *same = r.ok;
  *why  = r.message;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckAgainstDefault(Mat A, Mat B, const char *alg, const char *what)
{
  Mat         Cref, C;
  PetscBool   same;
  std::string why;

  PetscFunctionBeginUser;
  PetscCall(Product(A, B, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref));
  PetscCall(Product(A, B, alg, NULL, &C));
  PetscCall(SameProduct(MATPRODUCT_AB, A, B, NULL, C, Cref, &same, &why));
  CHECK_OR_FAIL(same, "%s: %s differs from PETSc's default: %s", what, alg, why.c_str());
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Runs f with errors returned instead of printed/aborting; *code = the error code.
template <class F>
PetscErrorCode Quietly(F f, PetscErrorCode *code)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *code = f();
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestShapes(void)
{
  struct Shape {
    const char           *name;
    PetscInt              m, k, n, per_row;
    std::vector<PetscInt> empty_rows;
    PetscInt              empty_col;
  };
  const Shape shapes[] = {
    {"square 200", 200, 200, 200, 6, {}, -1},
    {"rectangular 150x90 * 90x260", 150, 90, 260, 5, {}, -1},
    {"empty rows and a column", 120, 120, 120, 4, {0, 5, 6, 7, 119}, 3},
    {"1x1", 1, 1, 1, 1, {}, -1},
    {"single row 1x300 * 300x50", 1, 300, 50, 60, {}, -1},
    {"0 rows 0x10 * 10x7", 0, 10, 7, 2, {}, -1},
    {"inner dimension 0: 6x0 * 0x9", 6, 0, 9, 2, {}, -1},
    {"all rows empty", 30, 30, 30, 3, {0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29}, -1},
  };

  PetscFunctionBeginUser;
  for (const Shape &s : shapes) {
    Mat A, B;
    PetscCall(RandomAIJ(s.m, s.k, s.per_row, 11, s.empty_rows, s.empty_col, &A));
    PetscCall(RandomAIJ(s.k, s.n, s.per_row, 12, {}, -1, &B));
    for (const char *alg : kAlgorithms) PetscCall(CheckAgainstDefault(A, B, alg, s.name));
    PetscCall(MatDestroy(&A));
    PetscCall(MatDestroy(&B));
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "shapes: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestReuseAndLifecycle(void)
{
  Mat         A, B, A2, B2, C, Cref;
  PetscBool   same;
  std::string why;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(160, 140, 5, 21, {}, -1, &A));
  PetscCall(RandomAIJ(140, 170, 5, 22, {}, -1, &B));
  for (const char *alg : kAlgorithms) {
    // MatProductReplaceMats: operands with the same patterns and other values, numeric only.
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B2));
    PetscCall(MatScale(A2, -3.0));
    PetscCall(MatScale(B2, 0.25));
    PetscCall(Product(A, B, alg, NULL, &C));
    PetscCall(MatProductReplaceMats(A2, B2, NULL, C));
    PetscCall(MatProductNumeric(C));
    PetscCall(Product(A2, B2, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref));
    PetscCall(SameProduct(MATPRODUCT_AB, A2, B2, NULL, C, Cref, &same, &why));
    CHECK_OR_FAIL(same, "%s: MatProductReplaceMats + MatProductNumeric differs: %s", alg, why.c_str());
    // MatProductClear: C keeps its values and stays usable.
    PetscCall(MatProductClear(C));
    PetscCall(SameProduct(MATPRODUCT_AB, A2, B2, NULL, C, Cref, &same, &why));
    CHECK_OR_FAIL(same, "%s: C changed after MatProductClear: %s", alg, why.c_str());
    PetscCall(MultiplyByOnes(C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&C));

    // Symbolic only (as PCGAMG's graph squaring does), then MatProductClear: C must be the
    // complete, assembled structure with zero values.
    PetscCall(MatProductCreate(A, B, NULL, &C));
    PetscCall(MatProductSetType(C, MATPRODUCT_AB));
    PetscCall(MatProductSetAlgorithm(C, alg));
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatProductClear(C));
    {
      PetscBool assembled;
      PetscReal nrm;
      MatInfo   ci, ri;
      PetscCall(MatAssembled(C, &assembled));
      CHECK_OR_FAIL(assembled, "%s: symbolic-only C is not assembled", alg);
      PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
      CHECK_OR_FAIL(nrm == 0.0, "%s: symbolic-only C has nonzero values (norm %g)", alg, (double)nrm);
      PetscCall(Product(A, B, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref));
      PetscCall(MatGetInfo(C, MAT_LOCAL, &ci));
      PetscCall(MatGetInfo(Cref, MAT_LOCAL, &ri));
      CHECK_OR_FAIL(ci.nz_used == ri.nz_used, "%s: symbolic-only C has %g nonzeros, PETSc %g", alg, ci.nz_used, ri.nz_used);
      PetscCall(MatDestroy(&Cref));
    }
    PetscCall(MatDestroy(&C));

    // MatDuplicate of a product, and a product destroyed before its operands.
    PetscCall(Product(A, B, alg, NULL, &C));
    {
      Mat D;
      PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &D));
      PetscCall(SameBits(D, C, &same));
      CHECK_OR_FAIL(same, "%s: MatDuplicate(C) differs", alg);
      PetscCall(MatDestroy(&D));
    }
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&A2));
    PetscCall(MatDestroy(&B2));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "reuse and lifecycle: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestMatMatMultReuse(void)
{
  Mat         A, B, C, Cref;
  PetscBool   same;
  std::string why;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(130, 130, 6, 31, {}, -1, &A));
  PetscCall(RandomAIJ(130, 100, 6, 32, {}, -1, &B));
  for (const char *alg : kAlgorithms) {
    // The user API reads -matmatmult_via.
    PetscCall(PetscOptionsSetValue(NULL, "-matmatmult_via", alg));
    PetscCall(MatMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C)); // A*A, one Mat on both sides
    for (int r = 0; r < 3; ++r) {
      PetscCall(MatScale(A, r == 1 ? -0.5 : 1.25));
      PetscCall(MatMatMult(A, A, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C));
    }
    PetscCall(PetscOptionsClearValue(NULL, "-matmatmult_via"));
    PetscCall(Product(A, A, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref));
    PetscCall(SameProduct(MATPRODUCT_AB, A, A, NULL, C, Cref, &same, &why));
    CHECK_OR_FAIL(same, "%s: MatMatMult(A, A, MAT_REUSE_MATRIX) differs after MatScale: %s", alg, why.c_str());
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(CheckAgainstDefault(A, B, alg, "after rescaling"));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatMatMult reuse: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Every failing call must return an error (no crash) and leave A and B exactly as they were.
PetscErrorCode TestErrorsLeaveOperandsUntouched(void)
{
  Mat            A, B, A0, B0;
  PetscErrorCode code = PETSC_SUCCESS;
  PetscBool      eqA, eqB;
  struct Bad {
    const char *what, *alg, *option, *value;
  };
  const Bad bads[] = {
    {"unknown algorithm", "bogus", NULL, NULL},
    {"cluster size 0", MATPRODUCTALGORITHMCLUSTERFIXED, "-bad_mat_cluster_size", "0"},
    {"cluster size 65", MATPRODUCTALGORITHMCLUSTER, "-bad_mat_cluster_size", "65"},
    {"threshold -0.5", MATPRODUCTALGORITHMCLUSTERVARIABLE, "-bad_mat_cluster_jaccard_threshold", "-0.5"},
    {"threshold 2", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-bad_mat_cluster_jaccard_threshold", "2"},
    {"topk -1", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-bad_mat_cluster_topk", "-1"},
    {"accumulator foo", MATPRODUCTALGORITHMROWWISE, "-bad_mat_cluster_accumulator", "foo"},
  };

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(50, 40, 4, 51, {}, -1, &A));
  PetscCall(RandomAIJ(40, 60, 4, 52, {}, -1, &B));
  PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A0));
  PetscCall(MatDuplicate(B, MAT_COPY_VALUES, &B0));
  for (const Bad &b : bads) {
    Mat C = NULL;
    if (b.option) PetscCall(PetscOptionsSetValue(NULL, b.option, b.value));
    PetscCall(Quietly([&]() { return Product(A, B, b.alg, "bad_", &C); }, &code));
    if (b.option) PetscCall(PetscOptionsClearValue(NULL, b.option));
    CHECK_OR_FAIL(code != 0, "%s: no error", b.what);
    PetscCall(MatDestroy(&C));
    PetscCall(MatEqual(A, A0, &eqA));
    PetscCall(MatEqual(B, B0, &eqB));
    CHECK_OR_FAIL(eqA && eqB, "%s: the operands changed after the error", b.what);
    // And the operands still work with a valid algorithm afterwards.
    PetscCall(CheckAgainstDefault(A, B, MATPRODUCTALGORITHMCLUSTER, b.what));
  }
  // Dimension mismatch: PETSc's own check (or ours) must refuse it.
  {
    Mat C = NULL;
    PetscCall(Quietly([&]() { return Product(B, B, MATPRODUCTALGORITHMCLUSTER, NULL, &C); }, &code));
    CHECK_OR_FAIL(code != 0, "40x60 * 40x60: no error");
    PetscCall(MatDestroy(&C));
  }
  PetscCall(MatDestroy(&A0));
  PetscCall(MatDestroy(&B0));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "errors: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// An operand type the plugin does not implement (a dense B): either a clean PETSc error or a correct
// product, never a crash or a wrong result. And A^T*A with our name set in code: a type we
// implement, so it must succeed, run ours and equal PETSc's A^T*A.
PetscErrorCode TestUnhandled(void)
{
  Mat            A, B, Bd, C = NULL, Cref;
  PetscErrorCode code = PETSC_SUCCESS;
  PetscBool      same;
  std::string    why;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(30, 30, 4, 61, {}, -1, &A));
  PetscCall(RandomAIJ(30, 20, 4, 62, {}, -1, &B));
  PetscCall(MatConvert(B, MATSEQDENSE, MAT_INITIAL_MATRIX, &Bd));
  PetscCall(Quietly([&]() { return Product(A, Bd, MATPRODUCTALGORITHMCLUSTER, NULL, &C); }, &code));
  if (!code) {
    PetscCall(MatMatMultEqual(A, Bd, C, 10, &same));
    CHECK_OR_FAIL(same, "A (aij) * B (dense) with algorithm cluster: wrong result");
  }
  PetscCall(MatDestroy(&C));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "aij * dense with cluster: %s\n", code ? "error" : "handed over"));

  PetscCall(MatProductCreate(A, A, NULL, &C));
  PetscCall(MatProductSetType(C, MATPRODUCT_AtB));
  PetscCall(MatProductSetAlgorithm(C, MATPRODUCTALGORITHMCLUSTER));
  PetscCall(MatProductSetFromOptions(C));
  PetscCall(MatProductSymbolic(C));
  PetscCall(MatProductNumeric(C));
  PetscCall(PetscStrcmp(C->product->alg, MATPRODUCTALGORITHMCLUSTER, &same));
  CHECK_OR_FAIL(same, "A^T*A with algorithm cluster set in code ran algorithm %s", C->product->alg);
  PetscCall(MatTransposeMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
  PetscCall(SameProduct(MATPRODUCT_AtB, A, A, NULL, C, Cref, &same, &why));
  CHECK_OR_FAIL(same, "A^T*A with algorithm cluster set in code differs from PETSc's: %s", why.c_str());
  PetscCall(MatDestroy(&Cref));
  PetscCall(MatDestroy(&C));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "AtB with cluster set in code: ok\n"));
  PetscCall(MatDestroy(&Bd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// ---------------------------------------------------------------------------------------------
// Every product type. Operands are built from a square A (n x n) and a P (n x k), R = P^T:
//   AB: A*P   AtB: P^T*A   ABt: A*R^T   PtAP: P^T*A*P   RARt: R*A*R^T   ABC: R*A*P
// Reference: PETSc's default algorithm on the same operands, in this program.

const MatProductType kTypes[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt, MATPRODUCT_ABC};

PetscBool g_petsc_names = PETSC_FALSE; // -petsc_names: harness check with PETSc's algorithms

// The names a type is tested with: ours, or one non-default PETSc algorithm for that type.
std::vector<const char *> AlgorithmsFor(MatProductType type)
{
  if (!g_petsc_names) return std::vector<const char *>(std::begin(kAlgorithms), std::end(kAlgorithms));
  switch (type) {
  case MATPRODUCT_AtB:
    return {"outerproduct"};
  case MATPRODUCT_ABt:
    return {"color"};
  case MATPRODUCT_PtAP:
    return {"scalable"}; // "rap" keeps P^T from the symbolic phase: no MatProductReplaceMats of P
  case MATPRODUCT_RARt:
    return {"r*art"};
  default:
    return {"heap"};
  }
}

// MatProductCreate + type + algorithm (+ prefix), optionally symbolic and numeric.
PetscErrorCode CreateProduct(MatProductType type, const Operands &o, const char *alg, const char *prefix, PetscBool symbolic, PetscBool numeric, Mat *C)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(o.X, o.Y, type == MATPRODUCT_ABC ? o.Z : NULL, C));
  if (prefix) PetscCall(MatSetOptionsPrefix(*C, prefix));
  PetscCall(MatProductSetType(*C, type));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFill(*C, PETSC_DEFAULT));
  PetscCall(MatProductSetFromOptions(*C));
  if (symbolic) PetscCall(MatProductSymbolic(*C));
  if (symbolic && numeric) PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CheckTypeAgainstDefault(MatProductType type, const Operands &o, Mat C, const char *alg, const char *what)
{
  Mat         Cref;
  PetscBool   same;
  std::string why;

  PetscFunctionBeginUser;
  PetscCall(CreateProduct(type, o, MATPRODUCTALGORITHMDEFAULT, "ref_", PETSC_TRUE, PETSC_TRUE, &Cref));
  PetscCall(SameProduct(type, o.X, o.Y, o.Z, C, Cref, &same, &why));
  CHECK_OR_FAIL(same, "%s %s: %s differs from PETSc's default: %s", MatProductTypes[type], alg, what, why.c_str());
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// New values, same pattern (the values stay away from zero so no entry cancels).
PetscErrorCode NewValues(Mat M, PetscScalar factor)
{
  PetscInt     nz;
  PetscScalar *a;
  MatInfo      info;

  PetscFunctionBeginUser;
  PetscCall(MatGetInfo(M, MAT_LOCAL, &info));
  nz = (PetscInt)info.nz_used;
  PetscCall(MatSeqAIJGetArray(M, &a));
  for (PetscInt k = 0; k < nz; ++k) a[k] = factor * a[k] + 0.001 * (PetscScalar)(1 + k % 7);
  PetscCall(MatSeqAIJRestoreArray(M, &a));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// A copy of M with one more nonzero (at the first empty position of the first row that has one).
PetscErrorCode WithExtraNonzero(Mat M, Mat *M2)
{
  PetscInt m, n;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(M, &m, &n));
  PetscCall(MatDuplicate(M, MAT_COPY_VALUES, M2));
  PetscCall(MatSetOption(*M2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt           ncols;
    const PetscInt    *cols;
    PetscInt           j = -1;
    const PetscScalar  v = 2.5;
    PetscCall(MatGetRow(*M2, i, &ncols, &cols, NULL));
    for (PetscInt c = 0; c < n && j < 0; ++c) {
      bool present = false;
      for (PetscInt t = 0; t < ncols; ++t) present = present || cols[t] == c;
      if (!present) j = c;
    }
    PetscCall(MatRestoreRow(*M2, i, &ncols, &cols, NULL));
    if (j >= 0) {
      PetscCall(MatSetValues(*M2, 1, &i, 1, &j, &v, INSERT_VALUES));
      break;
    }
  }
  PetscCall(MatAssemblyBegin(*M2, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M2, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// One type, one algorithm, one shape: the whole life of a product.
PetscErrorCode CheckProductType(MatProductType type, const char *alg, PetscInt n, PetscInt k, const char *shape)
{
  Mat         A, P, R, C;
  Operands    o;
  const char *tn = MatProductTypes[type];
  PetscBool   same;
  std::string why;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(n, n, 5, 71, {}, -1, &A));
  PetscCall(RandomAIJ(n, k, 2, 72, {}, -1, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  o = OperandsFor(type, A, P, R);

  // 1. Symbolic only (PCGAMG's graph squaring), then MatProductClear: complete, assembled, zeros
  //    (PETSc's own seq kernels leave C unassembled, GAMG then marks it assembled: pattern only).
  PetscCall(CreateProduct(type, o, alg, NULL, PETSC_TRUE, PETSC_FALSE, &C));
  PetscCall(MatProductClear(C));
  {
    Mat       Cref;
    PetscBool assembled;
    PetscReal nrm;
    if (!g_petsc_names) {
      PetscCall(MatAssembled(C, &assembled));
      CHECK_OR_FAIL(assembled, "%s %s %s: symbolic-only C is not assembled", tn, alg, shape);
      PetscCall(MatNorm(C, NORM_FROBENIUS, &nrm));
      CHECK_OR_FAIL(nrm == 0.0, "%s %s %s: symbolic-only C has nonzero values (norm %g)", tn, alg, shape, (double)nrm);
    }
    PetscCall(CreateProduct(type, o, MATPRODUCTALGORITHMDEFAULT, "ref_", PETSC_TRUE, PETSC_TRUE, &Cref));
    if (g_petsc_names) { // PETSc's seq kernels leave it unassembled: assemble it as GAMG does, to read its rows
      PetscCall(MatAssembled(C, &assembled));
      if (!assembled) {
        PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
        PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
      }
    }
    PetscCall(SamePattern(C, Cref, &same, &why));
    CHECK_OR_FAIL(same, "%s %s %s: symbolic-only C's pattern differs from PETSc's product: %s", tn, alg, shape, why.c_str());
    PetscCall(MatDestroy(&Cref));
  }
  PetscCall(MatDestroy(&C));

  // 2. Symbolic + numeric, then numeric only after every operand got new values.
  PetscCall(CreateProduct(type, o, alg, NULL, PETSC_TRUE, PETSC_TRUE, &C));
  PetscCall(CheckTypeAgainstDefault(type, o, C, alg, shape));
  PetscCall(MatScale(A, -1.5));
  PetscCall(NewValues(P, 0.75));
  PetscCall(NewValues(R, -2.0));
  PetscCall(MatProductNumeric(C));
  PetscCall(CheckTypeAgainstDefault(type, o, C, alg, "numeric only after new values"));

  // 3. MatProductReplaceMats with copies of the same patterns and other values.
  {
    Operands o2;
    PetscCall(MatDuplicate(o.X, MAT_COPY_VALUES, &o2.X));
    PetscCall(MatDuplicate(o.Y, MAT_COPY_VALUES, &o2.Y));
    if (o.Z) PetscCall(MatDuplicate(o.Z, MAT_COPY_VALUES, &o2.Z));
    PetscCall(NewValues(o2.X, 3.0));
    PetscCall(NewValues(o2.Y, -0.5));
    if (o2.Z) PetscCall(NewValues(o2.Z, 1.5));
    PetscCall(MatProductReplaceMats(o2.X, o2.Y, o2.Z, C));
    PetscCall(MatProductNumeric(C));
    PetscCall(CheckTypeAgainstDefault(type, o2, C, alg, "MatProductReplaceMats + numeric"));
    PetscCall(MatProductReplaceMats(o.X, o.Y, o.Z, C)); // back to the originals
    PetscCall(MatDestroy(&o2.X));
    PetscCall(MatDestroy(&o2.Y));
    PetscCall(MatDestroy(&o2.Z));
  }

  // 4. MatProductClear: C keeps its values and stays usable (PCGAMG keeps its coarse operators).
  PetscCall(MatProductNumeric(C));
  PetscCall(MatProductClear(C));
  PetscCall(CheckTypeAgainstDefault(type, o, C, alg, "after MatProductClear"));
  PetscCall(MultiplyByOnes(C));
  {
    Mat D;
    PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &D));
    PetscCall(SameBits(D, C, &same));
    CHECK_OR_FAIL(same, "%s %s %s: MatDuplicate of a cleared C differs", tn, alg, shape);
    PetscCall(MatDestroy(&D));
  }
  PetscCall(MatDestroy(&C));

  // 5. An operand whose pattern changed since the symbolic phase: an error, never a crash or a
  //    silently wrong C (PETSc's own kernels do not check this, so only for ours).
  if (!g_petsc_names) {
    for (int which = 0; which < (o.Z ? 3 : 2); ++which) {
      Mat            Mchanged;
      Operands       o2 = o;
      PetscErrorCode code = PETSC_SUCCESS;
      PetscCall(CreateProduct(type, o, alg, NULL, PETSC_TRUE, PETSC_TRUE, &C));
      PetscCall(WithExtraNonzero(which == 0 ? o.X : which == 1 ? o.Y : o.Z, &Mchanged));
      (which == 0 ? o2.X : which == 1 ? o2.Y : o2.Z) = Mchanged;
      PetscCall(MatProductReplaceMats(o2.X, o2.Y, o2.Z, C));
      PetscCall(Quietly([&]() { return MatProductNumeric(C); }, &code));
      if (!code) {
        // Accepted: then the result must be right for the new operand.
        PetscCall(CheckTypeAgainstDefault(type, o2, C, alg, "numeric after an operand's pattern changed"));
      }
      CHECK_OR_FAIL(code != 0, "%s %s %s: numeric after operand %d's pattern changed gave no error", tn, alg, shape, which);
      PetscCall(MatDestroy(&C));
      PetscCall(MatDestroy(&Mchanged));
    }
  }

  // 6. The user API (MatMatMult, MatPtAP, ...) with the option it reads, and MAT_REUSE_MATRIX.
  {
    const char *via = ViaOption(type);
    Mat         X = o.X, Y = o.Y, Z = o.Z;
    auto        user = [&](MatReuse reuse) { return UserProduct(type, X, Y, Z, reuse, &C); };
    PetscCall(PetscOptionsSetValue(NULL, via, alg));
    PetscCall(user(MAT_INITIAL_MATRIX));
    for (int r = 0; r < 2; ++r) {
      PetscCall(MatScale(A, r ? 0.5 : -2.0));
      PetscCall(NewValues(P, 1.25));
      PetscCall(NewValues(R, 0.5));
      PetscCall(user(MAT_REUSE_MATRIX));
    }
    PetscCall(PetscOptionsClearValue(NULL, via));
    {
      // The selected name is kept as the product's algorithm (no public getter in 3.18).
      const char *a = C->product ? C->product->alg : "(no product)";
      PetscCall(PetscStrcmp(a, alg, &same));
      CHECK_OR_FAIL(same, "%s %s %s: %s %s ran algorithm %s", tn, alg, shape, via, alg, a);
    }
    PetscCall(CheckTypeAgainstDefault(type, o, C, alg, "user API with MAT_REUSE_MATRIX"));
    PetscCall(MatDestroy(&C));
  }

  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// 1, 2 and 4 threads (-mat_cluster_threads) give the same bits (columns and values compared with
// memcmp) for every product type and algorithm, and reordered by a seeded random ordering for two of
// them (tests/unit/test_determinism.cpp covers every combination in the core): through
// MatProductSymbolic + MatProductNumeric, a second MatProductNumeric, and the user API (MatMatMult()
// & co., whose symbolic phase forms the values on MPIAIJ) followed by MAT_REUSE_MATRIX with the same values.
// The operands are large enough for the core's parallel regions to run in parallel.
PetscErrorCode TestThreads(void)
{
  Mat       A, P, R;
  MatInfo   ia, ip;
  const int threads[] = {1, 2, 4};

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(5000, 5000, 8, 41, {}, -1, &A));
  PetscCall(RandomAIJ(5000, 1700, 7, 42, {}, -1, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &ia));
  PetscCall(MatGetInfo(P, MAT_LOCAL, &ip));
  CHECK_OR_FAIL(ia.nz_used >= pcluster::detail::kMinParallelWork && ip.nz_used >= pcluster::detail::kMinParallelWork, "threads: operands too small to run in parallel");
  for (int t : threads) {
    const std::string prefix = "-t" + std::to_string(t) + "_";
    PetscCall(PetscOptionsSetValue(NULL, (prefix + "mat_cluster_threads").c_str(), std::to_string(t).c_str()));
  }
  for (MatProductType type : kTypes) {
    const Operands o = OperandsFor(type, A, P, R);
    for (const char *alg : kAlgorithms)
      for (const char *order : {"natural", "random"}) {
        if (!std::strcmp(order, "random") && std::strcmp(alg, MATPRODUCTALGORITHMCLUSTER) && std::strcmp(alg, MATPRODUCTALGORITHMROWWISE)) continue;
        Mat       first = NULL, C;
        PetscBool same;
        auto      check = [&](Mat X, int t, const char *how) -> PetscErrorCode {
          PetscFunctionBeginUser;
          PetscCall(SameBits(X, first, &same));
          CHECK_OR_FAIL(same, "%s %s reorder %s: %s with %d thread(s) differs from symbolic+numeric with 1 thread", MatProductTypes[type], alg, order, how, t);
          PetscFunctionReturn(PETSC_SUCCESS);
        };
        PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reorder", order));
        for (int t : threads) {
          const std::string prefix = "t" + std::to_string(t) + "_";
          PetscCall(PetscOptionsSetValue(NULL, ("-" + prefix + "mat_cluster_reorder").c_str(), order));
          PetscCall(CreateProduct(type, o, alg, prefix.c_str(), PETSC_TRUE, PETSC_TRUE, &C));
          if (!first) PetscCall(MatDuplicate(C, MAT_COPY_VALUES, &first));
          PetscCall(check(C, t, "symbolic+numeric"));
          PetscCall(MatProductNumeric(C));
          PetscCall(check(C, t, "a second numeric"));
          PetscCall(MatDestroy(&C));
          // The user API reads the unprefixed options.
          PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_threads", std::to_string(t).c_str()));
          PetscCall(PetscOptionsSetValue(NULL, ViaOption(type), alg));
          PetscCall(UserProduct(type, o.X, o.Y, o.Z, MAT_INITIAL_MATRIX, &C));
          PetscCall(check(C, t, "fused (user API)"));
          PetscCall(PetscObjectStateIncrease((PetscObject)o.X)); // same values, but the reuse must run the numeric kernel
          PetscCall(UserProduct(type, o.X, o.Y, o.Z, MAT_REUSE_MATRIX, &C));
          PetscCall(check(C, t, "MAT_REUSE_MATRIX"));
          PetscCall(PetscOptionsClearValue(NULL, ViaOption(type)));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_threads"));
          PetscCall(MatDestroy(&C));
        }
        PetscCall(MatDestroy(&first));
      }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_reorder"));
  PetscCall(MatDestroy(&R));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "threads: ok (1, 2, 4 threads, every type and algorithm, bit for bit)\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode TestProductTypes(void)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    for (const char *alg : AlgorithmsFor(type)) {
      PetscCall(CheckProductType(type, alg, 60, 60, "square 60, P 60x60"));
      PetscCall(CheckProductType(type, alg, 50, 13, "A 50x50, P 50x13"));
    }
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "product type %s: ok\n", MatProductTypes[type]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Mixed operands: an AIJ A with a MAIJ P (PCHMG's subspace coarsening, DMDA with dof > 1). With our
// name the product must equal the one without (and the one with P converted to AIJ), or stop with
// a clean error when set in code.
PetscErrorCode TestMixedMAIJ(void)
{
  Mat            A, P, Pm, Paij, C1, C2, C3, C = NULL;
  PetscBool      same;
  std::string    why;
  PetscErrorCode code = PETSC_SUCCESS;
  const char    *alg = g_petsc_names ? "rap" : MATPRODUCTALGORITHMCLUSTER;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(100, 100, 5, 81, {}, -1, &A));
  PetscCall(RandomAIJ(50, 13, 2, 82, {}, -1, &P));
  PetscCall(MatCreateMAIJ(P, 2, &Pm)); // 100 x 26
  PetscCall(MatConvert(Pm, MATSEQAIJ, MAT_INITIAL_MATRIX, &Paij));
  PetscCall(MatPtAP(A, Pm, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C1));
  PetscCall(PetscOptionsSetValue(NULL, "-matptap_via", alg));
  PetscCall(MatPtAP(A, Pm, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C2));
  PetscCall(MatScale(A, 0.5));
  PetscCall(MatPtAP(A, Pm, MAT_REUSE_MATRIX, PETSC_DEFAULT, &C2));
  PetscCall(MatPtAP(A, Paij, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &C3));
  PetscCall(PetscOptionsClearValue(NULL, "-matptap_via"));
  PetscCall(MatScale(C1, 0.5));
  PetscCall(SameProduct(MATPRODUCT_PtAP, A, Pm, NULL, C2, C1, &same, &why));
  CHECK_OR_FAIL(same, "AIJ A, MAIJ P: MatPtAP with -matptap_via %s differs from without: %s", alg, why.c_str());
  PetscCall(SameProduct(MATPRODUCT_PtAP, A, Paij, NULL, C3, C1, &same, &why));
  CHECK_OR_FAIL(same, "AIJ A, MAIJ P converted to AIJ: MatPtAP with -matptap_via %s differs: %s", alg, why.c_str());
  PetscCall(MatDestroy(&C3));
  PetscCall(MatDestroy(&C2));
  // Our name set in code on the mixed pair.
  PetscCall(Quietly([&]() { return CreateProduct(MATPRODUCT_PtAP, {A, Pm, NULL}, alg, NULL, PETSC_TRUE, PETSC_TRUE, &C); }, &code));
  if (!code) {
    PetscCall(SameProduct(MATPRODUCT_PtAP, A, Pm, NULL, C, C1, &same, &why));
    CHECK_OR_FAIL(same, "AIJ A, MAIJ P: MatProductSetAlgorithm(%s) gives a wrong result: %s", alg, why.c_str());
  }
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "aij x maij PtAP with %s set in code: %s\n", alg, code ? "error" : "same result"));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&C1));
  PetscCall(MatDestroy(&Paij));
  PetscCall(MatDestroy(&Pm));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "mixed aij x maij: ok\n"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  PetscCall(PetscClusterInitializePackage()); // idempotent
  PetscCall(TestShapes());
  PetscCall(TestReuseAndLifecycle());
  PetscCall(TestMatMatMultReuse());
  PetscCall(TestErrorsLeaveOperandsUntouched());
  PetscCall(TestUnhandled());
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-petsc_names", &g_petsc_names, NULL));
  PetscCall(TestProductTypes());
  PetscCall(TestThreads());
  PetscCall(TestMixedMAIJ());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all plugin API checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
