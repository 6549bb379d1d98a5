static char help[] = "Several petsc-cluster products alive at once in one program, on MATAIJ operands (SeqAIJ on one rank,\n\
MPIAIJ on several): products of every type on different matrices, and the same A in products with\n\
different algorithms and options prefixes (some sharing A's ordering and clusters kept on A). All are\n\
created, then all symbolic phases run, then the numeric phases interleaved; the operands get new\n\
values and the numeric phases run again in another order; a product is added while the others live;\n\
products are destroyed in another order than created, the operands' handles before the last ones.\n\
Every result is checked against PETSc's default algorithm on the same operands (examples/product_check.hpp:\n\
pattern exactly, values to -rtol of each entry's own scale). Registers the plugin itself (PetscClusterInitializePackage) and may also be given\n\
-dll_append <plugin> (registration must then happen once). Exits with code 1 on any disagreement.\n\
  -n <N>       grid size of the operands (default 10: A a 27-point, B a 7-point stencil on N^3 points)\n\
  -rtol <r>    tolerance on |C - C_ref| of each entry relative to its scale, the same product of the\n\
               operands' absolute values (default 1e-12)\n\n";

#include <petsccluster.h>
#include <petscmat.h>

#include "../../examples/problem.hpp"
#include "../../examples/product_check.hpp"
#include "test_matrices.hpp"

#include <string>

namespace
{

struct Spec {
  const char    *prefix;
  MatProductType type;
  const char    *operands; /* letters of the operands: A, B (another A), P, R = P^T */
  const char    *alg;
  const char    *options; /* its options, under its prefix */
};

/* The same A appears in most. A keeps one record of its ordering and clusters (SeqAIJ), the last made:
   p10 makes it, p01 (same algorithm and options, symbolic right after) takes it, p03 and p07 replace it;
   p10 keeps using the clusters it shares with p01 after p01 is destroyed. */
const Spec kSpecs[] = {
  {"p01_", MATPRODUCT_AB, "AB", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, ""},
  {"p02_", MATPRODUCT_AB, "AA", MATPRODUCTALGORITHMROWWISE, "-p02_mat_cluster_reorder random -p02_mat_cluster_threads 2"},
  {"p03_", MATPRODUCT_PtAP, "AP", MATPRODUCTALGORITHMCLUSTER, "-p03_mat_cluster_size 4"},
  {"p04_", MATPRODUCT_PtAP, "BP", MATPRODUCTALGORITHMCLUSTERVARIABLE, "-p04_mat_cluster_threads 1"},
  {"p05_", MATPRODUCT_AtB, "PA", MATPRODUCTALGORITHMCLUSTERFIXED, "-p05_mat_cluster_size 3"},
  {"p06_", MATPRODUCT_ABt, "AR", MATPRODUCTALGORITHMROWWISE, "-p06_mat_cluster_accumulator hash"},
  {"p07_", MATPRODUCT_RARt, "AR", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-p07_mat_cluster_reorder rcm"},
  {"p08_", MATPRODUCT_ABC, "RAP", MATPRODUCTALGORITHMCLUSTER, ""},
  {"p09_", MATPRODUCT_AB, "AB", MATPRODUCTALGORITHMCLUSTERVARIABLE, "-p09_mat_cluster_threads 2"},
  {"p10_", MATPRODUCT_AB, "AP", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, ""},
  {"p11_", MATPRODUCT_PtAP, "AP", MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-p11_mat_cluster_reorder random"}, /* made later */
};
constexpr int kCount = (int)(sizeof(kSpecs) / sizeof(kSpecs[0]));
constexpr int kLate  = kCount - 1; /* p11: created while the others live */

struct Operands {
  Mat A = NULL, B = NULL, P = NULL, R = NULL;
  Mat of(char c) const { return c == 'A' ? A : c == 'B' ? B : c == 'P' ? P : R; }
};

PetscErrorCode Create(const Spec &s, const Operands &o, Mat *C)
{
  PetscFunctionBeginUser;
  const std::string ops = s.operands;
  PetscCall(MatProductCreate(o.of(ops[0]), o.of(ops[1]), ops.size() > 2 ? o.of(ops[2]) : NULL, C));
  PetscCall(MatSetOptionsPrefix(*C, s.prefix));
  PetscCall(MatProductSetType(*C, s.type));
  PetscCall(MatProductSetAlgorithm(*C, s.alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

int g_checks = 0, g_failures = 0;

/* C against PETSc's default algorithm on the product's current operands */
PetscErrorCode Check(Mat C, const Spec &s, const char *stage, PetscReal rtol)
{
  Mat                 Cref, X, Y, Z;
  ProductCheck        r;
  ProductCheckOptions opt;

  PetscFunctionBeginUser;
  PetscCall(MatProductGetMats(C, &X, &Y, &Z));
  PetscCall(MatProductCreate(X, Y, Z, &Cref));
  PetscCall(MatSetOptionsPrefix(Cref, "ref_"));
  PetscCall(MatProductSetType(Cref, s.type));
  PetscCall(MatProductSetAlgorithm(Cref, MATPRODUCTALGORITHMDEFAULT));
  PetscCall(MatProductSetFromOptions(Cref));
  PetscCall(MatProductSymbolic(Cref));
  PetscCall(MatProductNumeric(Cref));
  opt.rtol = rtol;
  PetscCall(CheckProduct(s.type, X, Y, Z, C, Cref, opt, &r));
  ++g_checks;
  if (!r.ok) ++g_failures;
  PetscCall(PetscPrintf(PetscObjectComm((PetscObject)C), "  %-4s %-5s %-21s %-36s %s (err %.2e)%s%s\n", s.prefix, MatProductTypes[s.type], s.alg, stage, r.ok ? "ok" : "FAILED", (double)r.max_err, r.ok ? "" : ": ", r.message.c_str()));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values on every operand, same patterns; R stays P^T */
PetscErrorCode NewValues(Operands &o, PetscInt seed)
{
  PetscFunctionBeginUser;
  PetscCall(Perturb(o.A, seed));
  PetscCall(MatScale(o.B, -0.75));
  PetscCall(Perturb(o.P, seed + 5));
  PetscCall(MatTranspose(o.P, MAT_REUSE_MATRIX, &o.R));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  PetscInt  n    = 10;
  PetscReal rtol = 1e-12;
  Operands  o;
  Mat       C[kCount] = {};
  MPI_Comm  comm;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage()); /* also when -dll_append loaded the plugin already */
  comm = PETSC_COMM_WORLD;
  PetscOptionsBegin(comm, NULL, "petsc-cluster products in flight", NULL);
  PetscCall(PetscOptionsInt("-n", "grid size", NULL, n, &n, NULL));
  PetscCall(PetscOptionsReal("-rtol", "relative tolerance", NULL, rtol, &rtol, NULL));
  PetscOptionsEnd();
  for (const Spec &s : kSpecs) PetscCall(PetscOptionsInsertString(NULL, s.options));

  {
    Problem pa, pb;
    Csr     MA, MB;
    Mat     seq;
    pa.gen = "s27", pa.n = n;
    pb.gen = "p7", pb.n = n;
    PetscCall(BuildProblem(pa, 1, &seq, &MA));
    PetscCall(MatDestroy(&seq));
    PetscCall(BuildProblem(pb, 1, &seq, &MB));
    PetscCall(MatDestroy(&seq));
    PetscCall(MatFromCsrDistributed(comm, MA, 1, RowLayout::Uneven, &o.A, MATAIJ));
    PetscCall(MatFromCsrDistributed(comm, MB, 1, RowLayout::Uneven, &o.B, MATAIJ));
  }
  PetscCall(Prolongator(o.A, 4, &o.P));
  PetscCall(MatTranspose(o.P, MAT_INITIAL_MATRIX, &o.R));
  {
    MatType type;
    PetscCall(MatGetType(o.A, &type));
    PetscCall(PetscPrintf(comm, "operands on %s: A 27-point, B 7-point on %" PetscInt_FMT "^3 points, P aggregates of 4\n", type, n));
  }

  /* 1. Create all, then every symbolic phase (in another order), then the numeric phases interleaved */
  for (int k = 0; k < kLate; ++k) PetscCall(Create(kSpecs[k], o, &C[k]));
  for (int k : {9, 0, 2, 6, 4, 8, 1, 7, 3, 5}) PetscCall(MatProductSymbolic(C[k]));
  for (int k : {2, 0, 4, 7, 1, 6, 3, 5, 9, 8}) PetscCall(MatProductNumeric(C[k]));
  for (int k = 0; k < kLate; ++k) PetscCall(Check(C[k], kSpecs[k], "interleaved numeric", rtol));

  /* 2. New values; numeric phases in yet another order, one product twice */
  PetscCall(NewValues(o, 3));
  for (int k : {8, 5, 3, 9, 0, 7, 2, 6, 1, 4, 8}) PetscCall(MatProductNumeric(C[k]));
  for (int k = 0; k < kLate; ++k) PetscCall(Check(C[k], kSpecs[k], "new values, numeric in another order", rtol));

  /* 3. A product made while the others live (symbolic + numeric between theirs) */
  PetscCall(Create(kSpecs[kLate], o, &C[kLate]));
  PetscCall(MatProductNumeric(C[2]));
  PetscCall(MatProductSymbolic(C[kLate]));
  PetscCall(MatProductNumeric(C[6]));
  PetscCall(MatProductNumeric(C[kLate]));
  PetscCall(Check(C[kLate], kSpecs[kLate], "made while the others live", rtol));

  /* 4. Destroy some in another order than created (p01 first: p10 still uses the clusters p01 left
        on A), new values, the survivors' numeric phases */
  for (int k : {0, 4, 2, 7}) PetscCall(MatDestroy(&C[k]));
  PetscCall(NewValues(o, 7));
  for (int k : {9, 10, 1, 3, 5, 6, 8}) PetscCall(MatProductNumeric(C[k]));
  for (int k : {1, 3, 5, 6, 8, 9, 10}) PetscCall(Check(C[k], kSpecs[k], "after others were destroyed", rtol));

  /* 5. The operands' handles go first (the products hold references); numeric again gives the same bits */
  {
    Mat       keep[kCount] = {};
    PetscBool same;
    for (int k : {1, 6, 9}) PetscCall(MatDuplicate(C[k], MAT_COPY_VALUES, &keep[k]));
    PetscCall(MatDestroy(&o.R));
    PetscCall(MatDestroy(&o.A));
    PetscCall(MatDestroy(&o.P));
    PetscCall(MatDestroy(&o.B));
    for (int k : {9, 1, 6}) {
      PetscCall(MatProductNumeric(C[k]));
      PetscCall(SameBits(C[k], keep[k], &same));
      ++g_checks;
      if (!same) ++g_failures;
      PetscCall(PetscPrintf(comm, "  %-4s %-5s %-21s %-36s %s\n", kSpecs[k].prefix, MatProductTypes[kSpecs[k].type], kSpecs[k].alg, "numeric after the operands' handles", same ? "ok (same bits)" : "FAILED (bits differ)"));
      PetscCall(MatDestroy(&keep[k]));
    }
  }
  for (int k : {8, 3, 10, 1, 9, 5, 6}) PetscCall(MatDestroy(&C[k]));

  PetscCall(PetscPrintf(comm, "%d checks, %d failed\n", g_checks, g_failures));
  PetscCall(PetscFinalize());
  return g_failures ? 1 : 0;
}
