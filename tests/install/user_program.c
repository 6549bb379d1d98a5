/*
   A user's program built against the installed package (tests/install/run_install.cmake builds it
   twice: with pkg-config and with CMake's find_package). It registers the plugin it links,
   computes C = A*A for a 1D Laplacian with the plugin's cluster algorithm and with PETSc's default,
   and fails unless both results are equal; it prints C's product view, in which the test looks for
   the plugin's name (PETSc 3.18 has no public MatProductGetAlgorithm).
*/
#include <petsccluster.h>

static PetscErrorCode Laplacian(PetscInt n, Mat *A)
{
  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, n, 3, NULL, A));
  for (PetscInt i = 0; i < n; ++i) {
    if (i > 0) PetscCall(MatSetValue(*A, i, i - 1, -1.0, INSERT_VALUES));
    PetscCall(MatSetValue(*A, i, i, 2.0 + 0.01 * (PetscReal)i, INSERT_VALUES));
    if (i < n - 1) PetscCall(MatSetValue(*A, i, i + 1, -1.0, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode Square(Mat A, const char alg[], Mat *C)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(A, A, NULL, C));
  PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(0);
}

int main(int argc, char **argv)
{
  Mat       A, C, D;
  PetscReal diff;

  PetscCall(PetscInitialize(&argc, &argv, NULL, NULL));
  PetscCall(PetscClusterInitializePackage());
  PetscCall(Laplacian(1000, &A));
  PetscCall(Square(A, MATPRODUCTALGORITHMCLUSTER, &C));
  PetscCall(Square(A, MATPRODUCTALGORITHMDEFAULT, &D));
  PetscCall(PetscViewerPushFormat(PETSC_VIEWER_STDOUT_SELF, PETSC_VIEWER_ASCII_INFO));
  PetscCall(MatView(C, PETSC_VIEWER_STDOUT_SELF));
  PetscCall(PetscViewerPopFormat(PETSC_VIEWER_STDOUT_SELF));
  PetscCall(MatAXPY(D, -1.0, C, DIFFERENT_NONZERO_PATTERN));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &diff));
  PetscCheck(diff < 1e-12, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the plugin's A*A differs from PETSc's by %g", (double)diff);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "A*A with the installed plugin equals PETSc's\n"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&D));
  PetscCall(PetscFinalize());
  return 0;
}
