static char help[] = "Tests the petsc-cluster plugin through PETSc's MatProduct API: algorithm names set in code,\n\
symbolic-only products, MatProductClear, MatProductReplaceMats, MAT_REUSE_MATRIX, empty and\n\
rectangular operands, thread counts, and errors that must leave the operands untouched.\n\
Exits nonzero on the first failed check.\n\n";

// Links the plugin and registers it with PetscClusterInitializePackage() (the path for programs
// that link it); may also be run with -dll_append (registration must be idempotent).

#include <petsccluster.h>
#include <petscmat.h>

#include <cmath>
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
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

// Same nonzero pattern and values within rtol * max|Cref|.
PetscErrorCode SameProduct(Mat Cref, Mat C, PetscReal rtol, PetscBool *same)
{
  PetscInt           m, mc, n, nc;
  const PetscInt    *ia, *ja, *ib, *jb;
  PetscBool          d1, d2;
  const PetscScalar *va, *vb;

  PetscFunctionBeginUser;
  *same = PETSC_FALSE;
  PetscCall(MatGetSize(Cref, &m, &n));
  PetscCall(MatGetSize(C, &mc, &nc));
  if (m != mc || n != nc) PetscFunctionReturn(0);
  PetscCall(MatGetRowIJ(Cref, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &d1));
  PetscCall(MatGetRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &mc, &ib, &jb, &d2));
  *same = (PetscBool)(d1 && d2);
  for (PetscInt i = 0; i <= m && *same; ++i) *same = (PetscBool)(ia[i] == ib[i]);
  for (PetscInt k = 0; *same && k < ia[m]; ++k) *same = (PetscBool)(ja[k] == jb[k]);
  if (*same) {
    PetscReal scale = 0, diff = 0;
    PetscCall(MatSeqAIJGetArrayRead(Cref, &va));
    PetscCall(MatSeqAIJGetArrayRead(C, &vb));
    for (PetscInt k = 0; k < ia[m]; ++k) {
      scale = PetscMax(scale, PetscAbsScalar(va[k]));
      diff  = PetscMax(diff, PetscAbsScalar(va[k] - vb[k]));
    }
    *same = (PetscBool)(diff <= rtol * (scale > 0 ? scale : 1.0));
    PetscCall(MatSeqAIJRestoreArrayRead(C, &vb));
    PetscCall(MatSeqAIJRestoreArrayRead(Cref, &va));
  }
  PetscCall(MatRestoreRowIJ(C, 0, PETSC_FALSE, PETSC_FALSE, &mc, &ib, &jb, &d2));
  PetscCall(MatRestoreRowIJ(Cref, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &d1));
  PetscFunctionReturn(0);
}

PetscErrorCode CheckAgainstDefault(Mat A, Mat B, const char *alg, const char *what)
{
  Mat       Cref, C;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(Product(A, B, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref));
  PetscCall(Product(A, B, alg, NULL, &C));
  PetscCall(SameProduct(Cref, C, 1e-12, &same));
  CHECK_OR_FAIL(same, "%s: %s differs from PETSc's default", what, alg);
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(0);
}

// Runs f with errors returned instead of printed/aborting; *code = the error code.
template <class F>
PetscErrorCode Quietly(F f, PetscErrorCode *code)
{
  PetscFunctionBeginUser;
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  *code = f();
  PetscCall(PetscPopErrorHandler());
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

PetscErrorCode TestReuseAndLifecycle(void)
{
  Mat A, B, A2, B2, C, Cref;
  PetscBool same;

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
    PetscCall(SameProduct(Cref, C, 1e-12, &same));
    CHECK_OR_FAIL(same, "%s: MatProductReplaceMats + MatProductNumeric differs", alg);
    // MatProductClear: C keeps its values and stays usable.
    PetscCall(MatProductClear(C));
    PetscCall(SameProduct(Cref, C, 1e-12, &same));
    CHECK_OR_FAIL(same, "%s: C changed after MatProductClear", alg);
    {
      Vec x, y;
      PetscCall(MatCreateVecs(C, &x, &y));
      PetscCall(VecSet(x, 1.0));
      PetscCall(MatMult(C, x, y));
      PetscCall(VecDestroy(&x));
      PetscCall(VecDestroy(&y));
    }
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
      PetscCall(SameProduct(C, D, 0.0, &same));
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
  PetscFunctionReturn(0);
}

PetscErrorCode TestMatMatMultReuse(void)
{
  Mat       A, B, C, Cref;
  PetscBool same;

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
    PetscCall(SameProduct(Cref, C, 1e-12, &same));
    CHECK_OR_FAIL(same, "%s: MatMatMult(A, A, MAT_REUSE_MATRIX) differs after MatScale", alg);
    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(CheckAgainstDefault(A, B, alg, "after rescaling"));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "MatMatMult reuse: ok\n"));
  PetscFunctionReturn(0);
}

PetscErrorCode TestThreads(void)
{
  Mat       A, C1, C2;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(400, 400, 8, 41, {}, -1, &A));
  for (const char *alg : kAlgorithms) {
    PetscCall(PetscOptionsSetValue(NULL, "-t1_mat_cluster_threads", "1"));
    PetscCall(PetscOptionsSetValue(NULL, "-t2_mat_cluster_threads", "2"));
    PetscCall(Product(A, A, alg, "t1_", &C1));
    PetscCall(Product(A, A, alg, "t2_", &C2));
    PetscCall(SameProduct(C1, C2, 0.0, &same));
    CHECK_OR_FAIL(same, "%s: 1 and 2 threads give different results", alg);
    PetscCall(MatDestroy(&C1));
    PetscCall(MatDestroy(&C2));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "threads: ok\n"));
  PetscFunctionReturn(0);
}

// Every failing call must return an error (no crash) and leave A and B exactly as they were.
PetscErrorCode TestErrorsLeaveOperandsUntouched(void)
{
  Mat            A, B, A0, B0;
  PetscErrorCode code = 0;
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
  PetscFunctionReturn(0);
}

// Operand types and product types the plugin does not implement (here: a dense B, and A^T*B with
// our name): either a clean PETSc error or a correct product, never a crash or a wrong result.
PetscErrorCode TestUnhandled(void)
{
  Mat            A, B, Bd, C = NULL, Cref;
  PetscErrorCode code = 0;
  PetscBool      same;

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
  PetscCall(Quietly([&]() -> PetscErrorCode {
    PetscCall(MatProductSetFromOptions(C));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatProductNumeric(C));
    return 0;
  }, &code));
  if (!code) {
    PetscCall(MatTransposeMatMult(A, A, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &Cref));
    PetscCall(SameProduct(Cref, C, 1e-12, &same));
    CHECK_OR_FAIL(same, "A^T*A with algorithm cluster: wrong result");
    PetscCall(MatDestroy(&Cref));
  }
  PetscCall(MatDestroy(&C));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "AtB with cluster: %s\n", code ? "error" : "handed over"));
  PetscCall(MatDestroy(&Bd));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&B));
  PetscFunctionReturn(0);
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
  PetscCall(TestThreads());
  PetscCall(TestErrorsLeaveOperandsUntouched());
  PetscCall(TestUnhandled());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all plugin API checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
