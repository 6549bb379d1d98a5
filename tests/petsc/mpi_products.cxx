static char help[] = "Checks every MatProduct type on MATMPIAIJ with petsc-cluster's algorithms against PETSc's own\n\
MPI algorithm (its default for the type; A^T*B with A^T formed) in the same run, by examples/product_check.hpp: identical\n\
nonzero pattern on every rank and values within -rtol of each entry's own scale, for the fused path\n\
(MatMatMult() & co. selected by -mat*_via), for MatProductSymbolic() (zeros) then MatProductNumeric(),\n\
and again after the operands' values change (MAT_REUSE_MATRIX / MatProductNumeric only) and after\n\
MatProductReplaceMats() with new operands of the same patterns.\n\
Options:\n\
  -gen <p7|s27|e27|rmat|rgg> -n <N>   generated A (default p7, n 8), or\n\
  -f <file.mtx>                        A from a Matrix Market file (every rank reads it)\n\
  -skip_if_missing                     exit with code 77 (skipped) if -f does not exist\n\
  -layout <even|uneven|empty_first>    rows per rank (default even; empty_first: rank 0 owns none)\n\
  -types <AB,AtB,ABt,PtAP,RARt,ABC>    product types (default all; a rectangular A: AtB,ABt)\n\
  -algorithms <a,b,...>                ours (default cluster,cluster_fixed,cluster_variable,\n\
                                       cluster_hierarchical,rowwise)\n\
  -agg <k>                             rows per aggregate of the prolongator P (default 4)\n\
  -rtol <1e-12>                        tolerance on |C - C_ref| of each entry relative to its scale,\n\
                                       the same product of the operands' absolute values\n\
The operands: B = A for AB, AtB and ABt; P = (I - 0.5 D^-1 A) P0 with P0 the aggregation of k\n\
consecutive rows of a rank (a smoothed-aggregation prolongator, made by PETSc) for PtAP and ABC\n\
(C = P^T A P as R*A*P with R = P^T), R = P^T for RARt. Last, MAT_REUSE_MATRIX after A's pattern\n\
changed on one rank must fail on every rank with PETSC_ERR_ARG_INCOMP. Exits with code 1 on any\n\
disagreement.\n\n";

#include <petsccluster.h>
#include <petscmat.h>

#include "../../examples/problem.hpp"
#include "../../examples/product_check.hpp"
#include "test_matrices.hpp"
#include "user_products.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace
{

/* Every stored value of C is zero (a symbolic-only product) */
PetscErrorCode AllZero(Mat C, PetscBool *zero)
{
  PetscReal norm;

  PetscFunctionBeginUser;
  PetscCall(MatNorm(C, NORM_FROBENIUS, &norm));
  *zero = norm == 0 ? PETSC_TRUE : PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct TypeInfo {
  const char    *name;
  MatProductType type;
};
const TypeInfo kTypes[] = {
  {"AB", MATPRODUCT_AB}, {"AtB", MATPRODUCT_AtB}, {"ABt", MATPRODUCT_ABt}, {"PtAP", MATPRODUCT_PtAP}, {"RARt", MATPRODUCT_RARt}, {"ABC", MATPRODUCT_ABC},
};

PetscErrorCode MakeProduct(MatProductType type, const char alg[], Mat X, Mat Y, Mat Z, Mat *C)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(X, Y, Z, C));
  PetscCall(MatProductSetType(*C, type));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

int main(int argc, char **argv)
{
  char        gen[16] = "p7", file[PETSC_MAX_PATH_LEN] = "";
  PetscInt    n = 8, agg = 4, layout_i = 0;
  PetscReal   rtol = 1e-12;
  PetscBool   skip_if_missing = PETSC_FALSE, have_file, have_types, have_algs;
  int         failures = 0, checks = 0;
  Mat         A, P, R;
  Csr         M;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  std::vector<std::string> types, algs = kOurAlgs;
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "MPIAIJ products against PETSc", NULL);
  PetscCall(PetscOptionsString("-gen", "generator", NULL, gen, gen, sizeof(gen), NULL));
  PetscCall(PetscOptionsInt("-n", "generator size", NULL, n, &n, NULL));
  PetscCall(PetscOptionsString("-f", "Matrix Market file", NULL, file, file, sizeof(file), &have_file));
  PetscCall(PetscOptionsBool("-skip_if_missing", "exit 77 if -f is missing", NULL, skip_if_missing, &skip_if_missing, NULL));
  PetscCall(PetscOptionsEList("-layout", "rows per rank", NULL, kRowLayoutNames, 3, kRowLayoutNames[0], &layout_i, NULL));
  PetscCall(OptionsStringList(PetscOptionsObject, "-types", "product types", &types, &have_types));
  PetscCall(OptionsStringList(PetscOptionsObject, "-algorithms", "our algorithms", &algs, &have_algs));
  PetscCall(PetscOptionsInt("-agg", "rows per aggregate of P", NULL, agg, &agg, NULL));
  PetscCall(PetscOptionsReal("-rtol", "relative tolerance", NULL, rtol, &rtol, NULL));
  PetscOptionsEnd();
  PetscCheck(agg >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-agg must be >= 1");

  Problem p;
  if (have_file) {
    PetscBool exists;
    PetscCall(PetscTestFile(file, 'r', &exists));
    if (!exists && skip_if_missing) {
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "SKIP: %s does not exist\n", file));
      PetscCall(PetscFinalize());
      return 77;
    }
    p.file = file;
  } else {
    p.gen = gen;
    p.n   = n;
  }
  {
    Mat seq;
    PetscCall(BuildProblem(p, 1, &seq, &M)); /* every rank holds the whole matrix; each takes its rows */
    PetscCall(MatDestroy(&seq));
  }
  PetscCall(MatFromCsrDistributed(PETSC_COMM_WORLD, M, 1, (RowLayout)layout_i, &A));
  const bool square = M.nrows == M.ncols;

  if (!have_types && square) types = {"AB", "AtB", "ABt", "PtAP", "RARt", "ABC"};
  else if (!have_types) types = {"AtB", "ABt"};
  P = R = NULL;
  if (square) {
    PetscCall(Prolongator(A, agg, &P));
    PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  }
  {
    PetscInt lo, hi;
    PetscCall(MatGetOwnershipRange(A, &lo, &hi));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros on %d ranks (layout %s)\n", ProblemName(p).c_str(), M.nrows, M.ncols, (PetscInt64)M.colidx.size(), (int)size, kRowLayoutNames[layout_i]));
    PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "  rank rows [%" PetscInt_FMT ", %" PetscInt_FMT ")\n", lo, hi));
    PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  }

  for (const std::string &tname : types) {
    const TypeInfo *t = NULL;
    for (const TypeInfo &c : kTypes)
      if (tname == c.name) t = &c;
    PetscCheck(t, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-types: unknown type %s (valid: AB AtB ABt PtAP RARt ABC)", tname.c_str());
    PetscCheck(square || t->type == MATPRODUCT_AtB || t->type == MATPRODUCT_ABt, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "-types %s needs a square A", t->name);
    /* Operands: the product of X, Y (, Z) */
    Mat X = A, Y = A, Z = NULL;
    if (t->type == MATPRODUCT_PtAP) Y = P;
    if (t->type == MATPRODUCT_RARt) Y = R;
    if (t->type == MATPRODUCT_ABC) X = R, Y = A, Z = P;

    for (const std::string &alg : algs) {
      Mat                 Cref, Capi, Cprod;
      ProductCheck        r;
      ProductCheckOptions values, pattern;
      PetscBool           zero = PETSC_FALSE;
      values.rtol          = rtol;
      pattern.pattern_only = PETSC_TRUE;
      auto note            = [&](const char *stage, const ProductCheck &c, bool ok, const char *why) -> PetscErrorCode {
        PetscFunctionBeginUser;
        ++checks;
        if (!ok) ++failures;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-5s %-21s %-28s %s (err %.2e)%s%s\n", t->name, alg.c_str(), stage, ok ? "ok" : "FAILED", (double)c.max_err, ok ? "" : ": ", ok ? "" : why));
        PetscFunctionReturn(PETSC_SUCCESS);
      };
      /* C against Cref, PETSc's product of the operands O1, O2 (, O3) */
      auto check = [&](const char *stage, Mat C, Mat O1, Mat O2, Mat O3) -> PetscErrorCode {
        PetscFunctionBeginUser;
        PetscCall(CheckProduct(t->type, O1, O2, O3, C, Cref, values, &r));
        PetscCall(note(stage, r, r.ok, r.message.c_str()));
        PetscFunctionReturn(PETSC_SUCCESS);
      };
      /* PETSc's algorithm (ReferenceProductAlgorithm: its default, A^T formed for A^T*B), fresh operands' values */
      PetscCall(MakeProduct(t->type, ReferenceProductAlgorithm(t->type, X), X, Y, Z, &Cref));
      PetscCall(MatProductNumeric(Cref));

      /* Fused: MatMatMult() & co. with -mat*_via */
      PetscCall(PetscOptionsSetValue(NULL, ViaOption(t->type), alg.c_str()));
      PetscCall(UserProduct(t->type, X, Y, Z, MAT_INITIAL_MATRIX, &Capi));
      PetscCall(check("MatMatMult & co.", Capi, X, Y, Z));

      /* Symbolic (zeros), then numeric */
      PetscCall(MakeProduct(t->type, alg.c_str(), X, Y, Z, &Cprod));
      PetscCall(AllZero(Cprod, &zero));
      PetscCall(CompareProduct(Cprod, Cref, NULL, pattern, &r)); /* the pattern only: values are zero */
      PetscCall(note("symbolic: pattern, zeros", r, r.ok && zero, !r.ok ? r.message.c_str() : "nonzero values after symbolic"));
      PetscCall(MatProductNumeric(Cprod));
      PetscCall(check("MatProductNumeric", Cprod, X, Y, Z));

      /* New values, same patterns: numeric only */
      for (Mat O : {X, Y, Z})
        if (O) PetscCall(Perturb(O, 7));
      PetscCall(MatDestroy(&Cref)); /* a fresh reference: PETSc's own MPI A*B^T does not refresh B^T on reuse */
      PetscCall(MakeProduct(t->type, ReferenceProductAlgorithm(t->type, X), X, Y, Z, &Cref));
      PetscCall(MatProductNumeric(Cref));
      PetscCall(UserProduct(t->type, X, Y, Z, MAT_REUSE_MATRIX, &Capi));
      PetscCall(check("MAT_REUSE_MATRIX", Capi, X, Y, Z));
      PetscCall(MatProductNumeric(Cprod));
      PetscCall(check("MatProductNumeric, new values", Cprod, X, Y, Z));
      PetscCall(PetscOptionsClearValue(NULL, ViaOption(t->type)));

      /* New operand objects with the same patterns (MatProductReplaceMats): numeric only */
      {
        Mat X2 = NULL, Y2 = NULL, Z2 = NULL;
        PetscCall(MatDuplicate(X, MAT_COPY_VALUES, &X2));
        PetscCall(MatDuplicate(Y, MAT_COPY_VALUES, &Y2));
        if (Z) PetscCall(MatDuplicate(Z, MAT_COPY_VALUES, &Z2));
        for (Mat O : {X2, Y2, Z2})
          if (O) PetscCall(Perturb(O, 11));
        PetscCall(MatProductReplaceMats(X2, Y2, Z2, Cprod));
        PetscCall(MatProductNumeric(Cprod));
        PetscCall(MatDestroy(&Cref));
        PetscCall(MakeProduct(t->type, ReferenceProductAlgorithm(t->type, X2), X2, Y2, Z2, &Cref));
        PetscCall(MatProductNumeric(Cref));
        PetscCall(check("MatProductReplaceMats", Cprod, X2, Y2, Z2));
        PetscCall(MatDestroy(&X2));
        PetscCall(MatDestroy(&Y2));
        PetscCall(MatDestroy(&Z2));
      }

      PetscCall(MatDestroy(&Cref));
      PetscCall(MatDestroy(&Capi));
      PetscCall(MatDestroy(&Cprod));
    }
  }
  /* MAT_REUSE_MATRIX after A's pattern changed on one rank only: an error on every rank (no hang, no
     out-of-bounds write), for every algorithm */
  if (square) {
    Mat      A2;
    PetscInt lo, hi;
    PetscCall(MatDuplicate(A, MAT_COPY_VALUES, &A2));
    PetscCall(MatSetOption(A2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
    PetscCall(MatGetOwnershipRange(A2, &lo, &hi));
    {
      PetscMPIInt rank;
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      if (rank == size - 1 && hi > lo) { /* the last rank: one new entry in its first row */
        PetscInt        ncols, j = -1;
        const PetscInt *cols;
        PetscCall(MatGetRow(A2, lo, &ncols, &cols, NULL));
        for (PetscInt c = 0; c < M.ncols && j < 0; ++c) /* a column not in the row */
          if (std::find(cols, cols + ncols, c) == cols + ncols) j = c;
        PetscCall(MatRestoreRow(A2, lo, &ncols, &cols, NULL));
        if (j >= 0) PetscCall(MatSetValue(A2, lo, j, 1.0, INSERT_VALUES));
      }
    }
    PetscCall(MatAssemblyBegin(A2, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(A2, MAT_FINAL_ASSEMBLY));
    for (const std::string &alg : algs) {
      Mat            C;
      PetscErrorCode ierr;
      PetscCall(MakeProduct(MATPRODUCT_AB, alg.c_str(), A, A, NULL, &C));
      PetscCall(MatProductNumeric(C));
      PetscCall(MatProductReplaceMats(A2, A2, NULL, C));
      PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
      ierr = MatProductNumeric(C);
      PetscCall(PetscPopErrorHandler());
      ++checks;
      {
        const char *msg = NULL;
        PetscBool   ok;
        PetscCall(ErrorMessage(ierr, NULL, &msg));
        /* the code and the message, on every rank (the change is on the last rank only) */
        ok = (PetscBool)(ierr == PETSC_ERR_ARG_INCOMP && msg && std::strstr(msg, "nonzero pattern of A changed since the symbolic phase"));
        PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
        if (!ok) ++failures;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-5s %-21s %-28s %s (error code %d, expected %d: %s)\n", "AB", alg.c_str(), "pattern changed: error", ok ? "ok" : "FAILED", (int)ierr, (int)PETSC_ERR_ARG_INCOMP, msg ? msg : ""));
      }
      PetscCall(MatDestroy(&C));
    }
    PetscCall(MatDestroy(&A2));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d checks, %d failed\n", checks, failures));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
