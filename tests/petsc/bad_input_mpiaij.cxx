/*
   The MATMPIAIJ section of the bad-input program (see bad_input.hpp), run on more than one rank:
   an error on one rank must fail all. Unknown names, a parameter range, a pattern changed on the
   last rank only, unassembled operands, operands with another row layout; then nnz(C) beyond
   PetscInt on rank 0 only (bad_input_limits.cxx).
*/
#include "bad_input.hpp"

#include <string>

namespace bad_input {

PetscErrorCode MPIAIJCases(void)
{
  MPI_Comm comm = PETSC_COMM_WORLD;
  Mat      A, P, R;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(comm, 60, 60, 5, 11, &A));
  PetscCall(RandomAIJ(comm, 60, 17, 2, 12, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  for (MatProductType type : kTypes) {
    const Operands o  = OperandsFor(type, A, P, R);
    const char    *tn = MatProductTypes[type];
    for (Entry e : {kOption, kUser}) {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", " + AlgorithmOption(e, type) + " bogus";
      c.code      = PETSC_ERR_USER;
      c.words     = {"bogus", "Available options", "petsc-cluster adds for mpiaij operands", "cluster_hierarchical"};
      c.petsc_leaks = true; /* PetscOptionsGetEList keeps its list of names on this error */
      if ((type == MATPRODUCT_ABt && e == kUser) || type == MATPRODUCT_RARt) {
        /* PETSc's MPIAIJ selectors read no option for R*A*R^T, and -matmatmult_via for A*B^T (not
           the SeqAIJ -matmattransmult_via, which the plugin reads on both): a name that is not ours
           is ignored, as without the plugin */
        c.code        = 0;
        c.words       = {};
        c.petsc_leaks = false;
      }
      c.options   = AlgOptions(e, type, "bogus");
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, NULL, C); };
      PetscCall(Run(c));
    }
    {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", MatProductSetAlgorithm cluster, -mat_cluster_size 65";
      c.code      = PETSC_ERR_ARG_OUTOFRANGE;
      c.words     = {"-mat_cluster_size 65", "[1, 64]"};
      c.options   = {{"-mat_cluster_size", "65"}};
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      Operands changed = o, bad = o;
      Mat     *slot = k == 0 ? &changed.X : k == 1 ? &changed.Y : &changed.Z;
      Mat     *bslot = k == 0 ? &bad.X : k == 1 ? &bad.Y : &bad.Z;
      PetscCall(WithExtraNonzero(*slot, slot)); /* on the last rank only */
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + OperandName(type, k) + " with one more entry on the last rank";
      c.code      = PETSC_ERR_ARG_INCOMP;
      c.words     = {std::string("nonzero pattern of ") + OperandName(type, k) + " changed since the symbolic phase"};
      c.unchanged = List(changed);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatProductReplaceMats(changed.X, changed.Y, changed.Z, *C));
        PetscCall(MatProductNumeric(*C));
        return PETSC_SUCCESS;
      };
      PetscCall(Run(c));
      PetscCall(MatDestroy(slot));
      PetscCall(Unassembled(*bslot, bslot));
      Case u;
      u.section   = "MPI";
      u.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + OperandName(type, k) + " unassembled";
      u.code      = PETSC_ERR_ARG_WRONGSTATE;
      u.words     = {"assembled"}; /* ours, or PETSc's "Not for unassembled matrix" where PETSc looks first (MatTranspose, ...) */
      u.unchanged = List(o);
      u.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatProductReplaceMats(bad.X, bad.Y, bad.Z, *C));
        PetscCall(MatProductNumeric(*C));
        return PETSC_SUCCESS;
      };
      PetscCall(Run(u));
      PetscCall(MatAssemblyBegin(*bslot, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(*bslot, MAT_FINAL_ASSEMBLY));
      PetscCall(MatDestroy(bslot));
    }
  }
  { /* the same global sizes, another row layout: the local pieces would not fit together */
    Mat      B;
    PetscInt local = g_rank == 0 ? 10 : (60 - 10) / (g_size - 1) + (g_rank <= (60 - 10) % (g_size - 1) ? 1 : 0);
    PetscCall(MatCreate(comm, &B));
    PetscCall(MatSetSizes(B, local, PETSC_DECIDE, 60, 17));
    PetscCall(MatSetType(B, MATAIJ));
    PetscCall(MatSetUp(B));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    for (MatProductType type : {MATPRODUCT_AB, MATPRODUCT_PtAP}) {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(MatProductTypes[type]) + ", MatProductSetAlgorithm cluster, " + OperandName(type, 1) + " with another row layout";
      c.code      = PETSC_ERR_ARG_SIZ;
      c.words     = {"must have the same size and parallel layout"};
      c.unchanged = {A, B};
      c.call      = [=](Mat *C) { return FormProduct(kInCode, type, {A, B, NULL}, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&R));
  PetscCall(Overflow(comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace bad_input
