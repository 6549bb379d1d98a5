static char help[] = "Checks that petsc-cluster's products give the same bits whatever the number of OpenMP threads,\n\
and when run again: for every MatProduct type and algorithm of ours, on MATAIJ operands (SeqAIJ on one\n\
rank, MPIAIJ on several), each thread count of -threads computes C by MatProductSymbolic +\n\
MatProductNumeric (then MatProductNumeric again) and by the user API (MatMatMult() & co., fused, then\n\
MAT_REUSE_MATRIX with the same values); every result must equal the first one bit for bit (row by row,\n\
columns and values compared with memcmp), and the MAT_REUSE_MATRIX result the fused one it reuses;\n\
and the first one must equal PETSc's own product (its default algorithm; examples/product_check.hpp).\n\
Then prints one line per product with a digest of C (its global rows, columns and value bits;\n\
independent of the row distribution): two runs of the program print the same lines, whatever their\n\
-threads order (ctest compares two runs). Values, hence digests, may differ between numbers of ranks\n\
(see README, Determinism).\n\
Options:\n\
  -gen <p7|s27|e27|rmat|rgg> -n <N>   generated A (default s27, n 14)\n\
  -threads <1,2,4>                    thread counts (-mat_cluster_threads), the first one's digest printed\n\
  -types <AB,AtB,ABt,PtAP,RARt,ABC>   product types (default all)\n\
  -algorithms <a,b,...>               ours (default all five)\n\
  -reorder <name>                     also every product with -mat_cluster_reorder <name> (default random;\n\
                                      natural: only once)\n\
The operands: B = A for AB, AtB and ABt; P = (I - 0.5 D^-1 A) P0 (aggregates of 4 rows) for PtAP and\n\
ABC (R*A*P with R = P^T), R = P^T for RARt. Exits with code 1 on any difference.\n\n";

#include <petsccluster.h>
#include <petscmat.h>

#include "../../examples/problem.hpp"
#include "../../examples/product_check.hpp"
#include "test_matrices.hpp"
#include "user_products.hpp"

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace
{

struct TypeInfo {
  const char    *name;
  MatProductType type;
};
const TypeInfo kTypes[] = {
  {"AB", MATPRODUCT_AB}, {"AtB", MATPRODUCT_AtB}, {"ABt", MATPRODUCT_ABt}, {"PtAP", MATPRODUCT_PtAP}, {"RARt", MATPRODUCT_RARt}, {"ABC", MATPRODUCT_ABC},
};

std::uint64_t Mix(std::uint64_t h, std::uint64_t x)
{
  h ^= x + 0x9E3779B97F4A7C15ull + (h << 6) + (h >> 2);
  return h * 0xBF58476D1CE4E5B9ull;
}

/* A digest of C: the sum over its global rows of a hash of (row, columns, value bits), so it depends on
   C only, not on how the rows are split over ranks */
PetscErrorCode Digest(Mat C, std::uint64_t *digest, PetscInt64 *nnz)
{
  MPI_Comm      comm = PetscObjectComm((PetscObject)C);
  PetscInt      lo, hi;
  std::uint64_t sum   = 0;
  PetscInt64    count = 0;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(C, &lo, &hi));
  for (PetscInt i = lo; i < hi; ++i) {
    PetscInt           n;
    const PetscInt    *cols;
    const PetscScalar *vals;
    std::uint64_t      h = Mix(0, (std::uint64_t)i);
    PetscCall(MatGetRow(C, i, &n, &cols, &vals));
    for (PetscInt k = 0; k < n; ++k) {
      std::uint64_t bits;
      std::memcpy(&bits, &vals[k], sizeof bits);
      h = Mix(Mix(h, (std::uint64_t)cols[k]), bits);
    }
    sum += h;
    count += n;
    PetscCall(MatRestoreRow(C, i, &n, &cols, &vals));
  }
  PetscCallMPI(MPI_Allreduce(&sum, digest, 1, MPI_UINT64_T, MPI_SUM, comm)); /* modulo 2^64, in any order */
  PetscCallMPI(MPI_Allreduce(&count, nnz, 1, MPIU_INT64, MPI_SUM, comm));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C by MatProductSymbolic + MatProductNumeric under an options prefix */
PetscErrorCode DeveloperProduct(MatProductType type, const char alg[], const char prefix[], Mat X, Mat Y, Mat Z, Mat *C)
{
  PetscFunctionBeginUser;
  PetscCall(MatProductCreate(X, Y, Z, C));
  PetscCall(MatSetOptionsPrefix(*C, prefix));
  PetscCall(MatProductSetType(*C, type));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  char       gen[16] = "s27", reorder[32] = "random";
  PetscInt   n = 14, threads[8] = {1, 2}, nthreads = 8;
  PetscBool  have_types, have_algs, have_threads;
  int        failures = 0, checks = 0;
  Mat        A, P, R;
  Csr        M;
  MPI_Comm   comm;
  PetscMPIInt size;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  comm = PETSC_COMM_WORLD;
  PetscCallMPI(MPI_Comm_size(comm, &size));
  std::vector<std::string> types = {"AB", "AtB", "ABt", "PtAP", "RARt", "ABC"}, algs = kOurAlgs;
  PetscOptionsBegin(comm, NULL, "petsc-cluster determinism", NULL);
  PetscCall(PetscOptionsString("-gen", "generator", NULL, gen, gen, sizeof(gen), NULL));
  PetscCall(PetscOptionsInt("-n", "generator size", NULL, n, &n, NULL));
  PetscCall(PetscOptionsIntArray("-threads", "thread counts", NULL, threads, &nthreads, &have_threads));
  PetscCall(OptionsStringList(PetscOptionsObject, "-types", "product types", &types, &have_types));
  PetscCall(OptionsStringList(PetscOptionsObject, "-algorithms", "our algorithms", &algs, &have_algs));
  PetscCall(PetscOptionsString("-reorder", "ordering of the reordered runs", NULL, reorder, reorder, sizeof(reorder), NULL));
  PetscOptionsEnd();
  if (!have_threads) nthreads = 2;
  PetscCheck(nthreads >= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-threads: give at least one thread count");

  Problem p;
  p.gen = gen;
  p.n   = n;
  {
    Mat seq;
    PetscCall(BuildProblem(p, 1, &seq, &M));
    PetscCall(MatDestroy(&seq));
  }
  PetscCall(MatFromCsrDistributed(comm, M, 1, RowLayout::Even, &A, MATAIJ));
  PetscCall(Prolongator(A, 4, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  {
    MatType type;
    PetscCall(MatGetType(A, &type));
    PetscCall(PetscPrintf(comm, "%s: %" PetscInt_FMT " x %" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros, %s on %d rank(s)\n", ProblemName(p).c_str(), M.nrows, M.ncols, (PetscInt64)M.colidx.size(), type, (int)size));
  }

  /* One options prefix per thread count for the developer API */
  for (PetscInt t = 0; t < nthreads; ++t) {
    char opt[64], val[16];
    PetscCall(PetscSNPrintf(opt, sizeof(opt), "-t%" PetscInt_FMT "_mat_cluster_threads", t));
    PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, threads[t]));
    PetscCall(PetscOptionsSetValue(NULL, opt, val));
  }

  for (const std::string &tname : types) {
    const TypeInfo *ti = NULL;
    for (const TypeInfo &c : kTypes)
      if (tname == c.name) ti = &c;
    PetscCheck(ti, comm, PETSC_ERR_ARG_OUTOFRANGE, "-types: unknown type %s (valid: AB AtB ABt PtAP RARt ABC)", tname.c_str());
    Mat X = A, Y = A, Z = NULL;
    if (ti->type == MATPRODUCT_PtAP) Y = P;
    if (ti->type == MATPRODUCT_RARt) Y = R;
    if (ti->type == MATPRODUCT_ABC) X = R, Y = A, Z = P;
    for (const std::string &alg : algs)
      for (const char *order : {"natural", (const char *)reorder}) {
        if (order == reorder && !std::strcmp(reorder, "natural")) continue; /* -reorder natural: once */
        Mat         first = NULL;
        std::string what  = std::string(ti->name) + " " + alg + " reorder " + order;
        auto        check = [&](Mat C, const char *stage, PetscInt t) -> PetscErrorCode {
          PetscBool same;
          PetscFunctionBeginUser;
          ++checks;
          PetscCall(SameBits(C, first, &same));
          if (!same) {
            ++failures;
            PetscCall(PetscPrintf(comm, "FAILED: %s, %s with %" PetscInt_FMT " thread(s) differs from %s with %" PetscInt_FMT " thread(s)\n", what.c_str(), stage, threads[t], "symbolic+numeric", threads[0]));
          }
          PetscFunctionReturn(PETSC_SUCCESS);
        };
        PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reorder", order));
        for (PetscInt t = 0; t < nthreads; ++t) {
          char prefix[16], val[16];
          Mat  Cdev, Capi, Cagain;
          PetscCall(PetscSNPrintf(prefix, sizeof(prefix), "t%" PetscInt_FMT "_", t));
          PetscCall(PetscOptionsSetValue(NULL, (std::string("-") + prefix + "mat_cluster_reorder").c_str(), order));
          /* Symbolic + numeric, then numeric again: the same bits */
          PetscCall(DeveloperProduct(ti->type, alg.c_str(), prefix, X, Y, Z, &Cdev));
          if (!first) { /* the reference of every other run: first checked against PETSc's own product */
            Mat          Cref;
            ProductCheck r;
            PetscCall(MatDuplicate(Cdev, MAT_COPY_VALUES, &first));
            PetscCall(DeveloperProduct(ti->type, "default", "ref_", X, Y, Z, &Cref));
            PetscCall(CheckProduct(ti->type, X, Y, Z, first, Cref, ProductCheckOptions(), &r));
            ++checks;
            if (!r.ok) {
              ++failures;
              PetscCall(PetscPrintf(comm, "FAILED: %s with %" PetscInt_FMT " thread(s) differs from PETSc's product: %s\n", what.c_str(), threads[0], r.message.c_str()));
            }
            PetscCall(MatDestroy(&Cref));
          }
          PetscCall(check(Cdev, "symbolic+numeric", t));
          PetscCall(MatProductNumeric(Cdev));
          PetscCall(check(Cdev, "numeric again", t));
          /* The user API (MPIAIJ: fused symbolic), then MAT_REUSE_MATRIX with the same values (our numeric kernel) */
          PetscCall(PetscSNPrintf(val, sizeof(val), "%" PetscInt_FMT, threads[t]));
          PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_threads", val));
          PetscCall(PetscOptionsSetValue(NULL, ViaOption(ti->type), alg.c_str()));
          PetscCall(UserProduct(ti->type, X, Y, Z, MAT_INITIAL_MATRIX, &Capi));
          PetscCall(check(Capi, "fused (MatMatMult & co.)", t));
          PetscCall(MatDuplicate(Capi, MAT_COPY_VALUES, &Cagain));
          PetscCall(MatScale(X, 1.0)); /* a new object state: the reuse must run the numeric kernel */
          PetscCall(UserProduct(ti->type, X, Y, Z, MAT_REUSE_MATRIX, &Capi));
          PetscCall(check(Capi, "MAT_REUSE_MATRIX", t));
          { /* the numeric kernel on the same values gives the bits the fused product (whose symbolic phase
               formed the values) gave on this thread count, whether or not those equal the first run's */
            PetscBool same;
            ++checks;
            PetscCall(SameBits(Capi, Cagain, &same));
            if (!same) {
              ++failures;
              PetscCall(PetscPrintf(comm, "FAILED: %s, MAT_REUSE_MATRIX with %" PetscInt_FMT " thread(s) differs from the fused product it reuses\n", what.c_str(), threads[t]));
            }
          }
          PetscCall(PetscOptionsClearValue(NULL, ViaOption(ti->type)));
          PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_threads"));
          PetscCall(MatDestroy(&Cagain));
          PetscCall(MatDestroy(&Capi));
          PetscCall(MatDestroy(&Cdev));
        }
        std::uint64_t digest = 0;
        PetscInt64    nnz    = 0;
        PetscCall(Digest(first, &digest, &nnz));
        PetscCall(PetscPrintf(comm, "  %-5s %-21s reorder %-8s nnz %-9" PetscInt64_FMT " digest %016llx\n", ti->name, alg.c_str(), order, nnz, (unsigned long long)digest));
        PetscCall(MatDestroy(&first));
      }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_reorder"));
  PetscCall(PetscPrintf(comm, "%d checks, %d failed\n", checks, failures));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&R));
  PetscCall(PetscFinalize());
  return failures ? 1 : 0;
}
