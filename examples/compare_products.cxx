static char help[] = "Compares C = A*B computed by PETSc's default SeqAIJ algorithm with each petsc-cluster\n\
algorithm (product_check.hpp): identical nonzero pattern, and values within -rtol of each entry's own\n\
scale (the entry of |A||B|; exact if every value of A and B is an integer), after the symbolic and\n\
numeric phases and again after the operands' values change (numeric reuse).\n\
Options:\n\
  -f <file>                Matrix Market (.mtx) or PETSc binary matrix\n\
  -pairing <aa|ata|aat>    the product: A*A (default for square A), A^T*A (default otherwise), A*A^T\n\
  -algorithms <a,b,...>    names to check (default: cluster,cluster_fixed,cluster_variable,\n\
                           cluster_hierarchical,rowwise)\n\
  -rtol <1e-12>            tolerance on |C - C_ref| of each entry relative to its entry of |A||B|\n\
  -skip_if_missing         exit with code 77 (a skipped test) if the file does not exist\n\
Our product C has no options prefix, so -mat_cluster_size etc. apply to it; the reference product\n\
has the prefix ref_. The table's errors are the largest |C - C_ref| relative to the entry's scale.\n\
Exits with code 1 if any algorithm disagrees with the reference.\n\n";

// Uses only public headers: PETSc's and the plugin's (registered by PetscClusterInitializePackage),
// plus the core's Matrix Market reader (through problem.hpp, as the other examples).

#include <petsccluster.h>
#include <petscmat.h>
#include <petscsys.h>
#include <petsctime.h>

#include "problem.hpp"
#include "product_check.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

namespace {

// Loads a Matrix Market or PETSc binary file into a MATSEQAIJ.
PetscErrorCode LoadMatrix(const char *path, Mat *A)
{
  PetscFunctionBeginUser;
  const std::string p(path);
  const bool mtx = p.size() > 4 && p.compare(p.size() - 4, 4, ".mtx") == 0;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  if (mtx) {
    Csr M;
    PetscCall(ReadMatrixMarket(p, &M));
    PetscCall(MatSetSizes(*A, M.nrows, M.ncols, M.nrows, M.ncols));
    PetscCall(MatSetType(*A, MATSEQAIJ));
    PetscCall(MatSeqAIJSetPreallocationCSR(*A, M.rowptr.data(), M.colidx.data(), M.values.empty() ? nullptr : M.values.data()));
  } else {
    PetscViewer viewer;
    PetscCall(MatSetType(*A, MATSEQAIJ));
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, path, FILE_MODE_READ, &viewer));
    PetscCall(MatLoad(*A, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// New values, same pattern: every entry scaled by its own factor in [-1.5, 1.5] (not a uniform
// scaling, which a kernel that caches values could get right by accident).
PetscErrorCode PerturbValues(Mat A, PetscInt salt)
{
  PetscScalar *v;
  PetscInt     m, nz;
  MatInfo      info;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(A, &m, NULL));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  nz = (PetscInt)info.nz_used;
  PetscCall(MatSeqAIJGetArray(A, &v));
  for (PetscInt k = 0; k < nz; ++k) v[k] *= (PetscReal)(((k * 7 + salt) % 13) - 6) / 4.0 + 0.01;
  PetscCall(MatSeqAIJRestoreArray(A, &v));
  PetscFunctionReturn(PETSC_SUCCESS);
}

// Fresh copies of the operands L0, R0 (the reuse step changes their values); R0 NULL: A*A, one
// matrix on both sides, as PETSc programs do.
PetscErrorCode CopyOperands(Mat L0, Mat R0, Mat *L, Mat *R)
{
  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(L0, MAT_COPY_VALUES, L));
  if (R0) PetscCall(MatDuplicate(R0, MAT_COPY_VALUES, R));
  else {
    *R = *L;
    PetscCall(PetscObjectReference((PetscObject)*L));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

// The reuse step's new values in both operands, the same patterns.
PetscErrorCode NewValues(Mat L, Mat R)
{
  PetscFunctionBeginUser;
  PetscCall(PerturbValues(L, 3));
  if (R != L) {
    PetscCall(PerturbValues(R, 5));
    PetscCall(MatScale(R, -0.5));
  } else PetscCall(MatScale(L, 0.75));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode CreateProduct(Mat L, Mat R, const char *alg, const char *prefix, Mat *C, PetscLogDouble *t_sym, PetscLogDouble *t_num)
{
  PetscLogDouble t0, t1, t2;

  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(L, R, NULL, C));
  if (prefix) PetscCall(MatSetOptionsPrefix(*C, prefix));
  PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFill(*C, PETSC_DEFAULT));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(PetscTime(&t0));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(PetscTime(&t1));
  PetscCall(MatProductNumeric(*C));
  PetscCall(PetscTime(&t2));
  *t_sym = t1 - t0;
  *t_num = t2 - t1;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char        file[PETSC_MAX_PATH_LEN] = "", pairing[8] = "";
  char       *algs[16];
  PetscInt    nalgs = 16, m, n;
  PetscReal   rtol  = 1e-12;
  PetscBool   skip_if_missing = PETSC_FALSE, flg, exists;
  PetscMPIInt size;
  Mat         A, L0 = NULL, R0 = NULL;
  MatInfo     info;
  int         failures = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "compare_products is a uniprocessor (SeqAIJ) program");

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "compare_products options", NULL);
  PetscCall(PetscOptionsString("-f", "Matrix Market (.mtx) or PETSc binary file", NULL, file, file, sizeof(file), &flg));
  PetscCall(PetscOptionsString("-pairing", "aa, ata or aat", NULL, pairing, pairing, sizeof(pairing), NULL));
  PetscCall(PetscOptionsStringArray("-algorithms", "Algorithms to compare with PETSc's default", NULL, algs, &nalgs, &flg));
  if (!flg) nalgs = 0;
  PetscCall(PetscOptionsReal("-rtol", "Relative tolerance", NULL, rtol, &rtol, NULL));
  PetscCall(PetscOptionsBool("-skip_if_missing", "Exit with code 77 if the file does not exist", NULL, skip_if_missing, &skip_if_missing, NULL));
  PetscOptionsEnd();
  PetscCheck(file[0], PETSC_COMM_WORLD, PETSC_ERR_USER_INPUT, "Give a matrix file with -f");

  PetscCall(PetscTestFile(file, 'r', &exists));
  if (!exists && skip_if_missing) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SKIPPED: matrix file not found: %s\n", file));
    for (PetscInt i = 0; i < nalgs; ++i) PetscCall(PetscFree(algs[i]));
    PetscCall(PetscFinalize());
    return 77;
  }
  PetscCheck(exists, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "%s: cannot open the file for reading", file);
  if (nalgs == 0) {
    const char *def[] = {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, MATPRODUCTALGORITHMROWWISE};
    for (const char *d : def) PetscCall(PetscStrallocpy(d, &algs[nalgs++]));
  }

  PetscCall(LoadMatrix(file, &A));
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetInfo(A, MAT_LOCAL, &info));
  if (!pairing[0]) PetscCall(PetscStrcpy(pairing, m == n ? "aa" : "ata"));
  PetscCall(PetscStrcmp(pairing, "aa", &flg));
  if (flg) {
    PetscCheck(m == n, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-pairing aa needs a square matrix, %s is %" PetscInt_FMT "x%" PetscInt_FMT, file, m, n);
    L0 = A;
    PetscCall(PetscObjectReference((PetscObject)A));
  } else {
    Mat At;
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, &At));
    PetscCall(PetscStrcmp(pairing, "ata", &flg));
    if (flg) {
      L0 = At;
      R0 = A;
    } else {
      PetscCall(PetscStrcmp(pairing, "aat", &flg));
      PetscCheck(flg, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-pairing %s: use aa, ata or aat", pairing);
      L0 = A;
      R0 = At;
    }
    PetscCall(PetscObjectReference((PetscObject)A));
  }
  PetscCall(MatDestroy(&A));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", nnz %.0f, product %s, rtol %g\n", file, m, n, info.nz_used, pairing, (double)rtol));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %12s %8s %12s %12s %12s %12s %10s\n", "algorithm", "nnz(C)", "pattern", "err", "reuse.err", "repeat.err", "symbolic s", "numeric s"));

  // The scales of the product before and after the reuse step's new values (|L||R|, the same for
  // every algorithm: each starts from fresh copies of L0, R0).
  ProductScale scale0, scale1;
  {
    Mat L, R;
    PetscCall(CopyOperands(L0, R0, &L, &R));
    PetscCall(CreateProductScale(MATPRODUCT_AB, L, R, NULL, &scale0));
    PetscCall(NewValues(L, R));
    PetscCall(CreateProductScale(MATPRODUCT_AB, L, R, NULL, &scale1));
    PetscCall(MatDestroy(&L));
    PetscCall(MatDestroy(&R));
  }
  ProductCheckOptions opt;
  opt.rtol = rtol;

  for (PetscInt a = 0; a < nalgs; ++a) {
    Mat            L, R, Cref, C;
    PetscLogDouble ts_ref, tn_ref, ts, tn;
    ProductCheck   d0, d1, d2;
    MatInfo        cinfo;
    PetscBool      ok;

    PetscCall(CopyOperands(L0, R0, &L, &R));
    PetscCall(CreateProduct(L, R, MATPRODUCTALGORITHMDEFAULT, "ref_", &Cref, &ts_ref, &tn_ref));
    PetscCall(CreateProduct(L, R, algs[a], NULL, &C, &ts, &tn));
    PetscCall(CompareProduct(C, Cref, &scale0, opt, &d0));

    // Numeric reuse: new values in both operands, the same patterns.
    PetscCall(NewValues(L, R));
    PetscCall(MatProductNumeric(Cref));
    PetscCall(MatProductNumeric(C));
    PetscCall(CompareProduct(C, Cref, &scale1, opt, &d1));
    // And once more without changes (numeric must be repeatable).
    PetscCall(MatProductNumeric(C));
    PetscCall(CompareProduct(C, Cref, &scale1, opt, &d2));

    PetscCall(MatGetInfo(C, MAT_LOCAL, &cinfo));
    ok = (PetscBool)(d0.ok && d1.ok && d2.ok);
    const bool same_pattern = !d0.pattern_rows && !d1.pattern_rows && !d2.pattern_rows;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %12.0f %8s %12.3e %12.3e %12.3e %12.4f %10.4f%s\n", algs[a], cinfo.nz_used, same_pattern ? "same" : "DIFFERS", (double)d0.max_err, (double)d1.max_err, (double)d2.max_err, ts, tn, ok ? "" : "   <-- MISMATCH"));
    if (!ok) {
      ++failures;
      if (!d0.ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    one-shot: %s\n", d0.message.c_str()));
      if (!d1.ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    reuse: %s\n", d1.message.c_str()));
      if (!d2.ok) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "    repeat: %s\n", d2.message.c_str()));
    }
    if (a == 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-22s %12s %8s %12s %12s %12s %12.4f %10.4f\n", "(PETSc default)", "", "", "", "", "", ts_ref, tn_ref));

    PetscCall(MatDestroy(&C));
    PetscCall(MatDestroy(&Cref));
    PetscCall(MatDestroy(&L));
    PetscCall(MatDestroy(&R));
  }
  if (failures) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "FAILED: %d algorithm(s) disagree with PETSc's default\n", failures));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PASSED: all %" PetscInt_FMT " algorithms equal PETSc's default\n", nalgs));

  for (PetscInt i = 0; i < nalgs; ++i) PetscCall(PetscFree(algs[i]));
  PetscCall(DestroyProductScale(&scale0));
  PetscCall(DestroyProductScale(&scale1));
  PetscCall(MatDestroy(&L0));
  PetscCall(MatDestroy(&R0));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
