static char help[] = "Wide and sparse products through PETSc: C = A*B and C = X^T*B with B a MATSEQAIJ of 2^28 columns (a\n\
few thousand nonzeros), with each of our algorithms and accumulators (-matmatmult_via, -mattransposematmult_via,\n\
-mat_cluster_accumulator), one-shot and reuse after A's values change. Each result is checked against a\n\
reference formed here entry by entry, and the peak resident memory the products add (VmHWM, reset before\n\
each) must stay below -max_growth_mb (an ncols-wide array of 32-bit integers would be 1024 MB).\n\
  -ncols <n>          columns of B (default 2^28)\n\
  -max_growth_mb <m>  allowed growth of the peak resident memory per algorithm (default 16)\n\
  -petsc_algs <a,b>   also run these PETSc algorithms for C = A*B and print their peak memory, unchecked\n\
                      against the limit (their symbolic or numeric phases may hold ncols-wide arrays)\n\
Exits nonzero on the first failed check; prints \"all wide product checks passed\" otherwise.\n\n";

#include <petscmat.h>
#include <petsccluster.h>

#include "peak_memory.hpp"
#include "user_products.hpp"

#include <cmath>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace {

using Entries = std::map<std::pair<PetscInt, PetscInt>, PetscScalar>;

const char *const kAlgorithms[]   = {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL};
const char *const kAccumulators[] = {"auto", "hash", "dense"};

/* An m x n SeqAIJ with per_row random columns a row; rows come in groups of `group` with one pattern
   (so that the cluster algorithms form real clusters); its entries also into E */
PetscErrorCode WideAIJ(PetscInt m, PetscInt n, int per_row, int group, unsigned seed, Mat *M, Entries *E)
{
  std::mt19937_64                         rng(seed);
  std::uniform_int_distribution<PetscInt> col(0, n - 1);
  std::uniform_real_distribution<double>  val(0.5, 1.5);
  std::vector<PetscInt>                   cols;

  PetscFunctionBeginUser;
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, m, n, per_row, NULL, M));
  for (PetscInt i = 0; i < m; ++i) {
    if (i % group == 0) {
      cols.clear();
      for (int t = 0; t < per_row; ++t) cols.push_back(col(rng));
    }
    for (PetscInt j : cols) {
      const PetscScalar v = val(rng);
      PetscCall(MatSetValue(*M, i, j, v, INSERT_VALUES));
      (*E)[{i, j}] = v; /* a repeated column keeps the last value, as INSERT_VALUES */
    }
  }
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X*Y (or X^T*Y) written entry by entry */
Entries Reference(const Entries &X, bool transpose_x, const Entries &Y)
{
  std::map<PetscInt, std::vector<std::pair<PetscInt, PetscScalar>>> rows;
  for (const auto &e : Y) rows[e.first.first].push_back({e.first.second, e.second});
  Entries C;
  for (const auto &x : X) {
    const PetscInt i = transpose_x ? x.first.second : x.first.first, k = transpose_x ? x.first.first : x.first.second;
    auto it = rows.find(k);
    if (it == rows.end()) continue;
    for (const auto &y : it->second) C[{i, y.first}] += x.second * y.second;
  }
  return C;
}

/* C against scale * ref: exact pattern, values to 1e-12 relative */
PetscErrorCode Check(Mat C, const Entries &ref, PetscScalar scale, const std::string &what)
{
  PetscInt m;
  auto     it = ref.begin();

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(C, &m, NULL));
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt           n;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(C, i, &n, &cols, &vals));
    for (PetscInt k = 0; k < n; ++k, ++it) {
      PetscCheck(it != ref.end() && it->first.first == i && it->first.second == cols[k], PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: entry (%" PetscInt_FMT ", %" PetscInt_FMT ") is not the reference's next", what.c_str(), i, cols[k]);
      PetscCheck(PetscAbsScalar(vals[k] - scale * it->second) <= 1e-12 * PetscAbsScalar(scale * it->second), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: value at (%" PetscInt_FMT ", %" PetscInt_FMT ") differs", what.c_str(), i, cols[k]);
    }
    PetscCall(MatRestoreRow(C, i, &n, &cols, &vals));
  }
  PetscCheck(it == ref.end(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "%s: C lacks entries of the reference", what.c_str());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* One-shot and reuse (A's values doubled) with the algorithm set through the type's option; the peak
   resident memory both add, in MB (NaN if it cannot be measured) */
PetscErrorCode Run(MatProductType type, Mat X, Mat B, const Entries &ref, const std::string &what, double *growth)
{
  Mat C = NULL;

  PetscFunctionBeginUser;
  double base = ResetPeak();
  if (std::isnan(base)) base = StatusMB("VmHWM");
  PetscCall(UserProduct(type, X, B, NULL, MAT_INITIAL_MATRIX, &C));
  PetscCall(Check(C, ref, 1.0, what + " one-shot"));
  PetscCall(MatScale(X, 2.0));
  PetscCall(UserProduct(type, X, B, NULL, MAT_REUSE_MATRIX, &C));
  PetscCall(MatScale(X, 0.5));
  PetscCall(Check(C, ref, 2.0, what + " reuse"));
  *growth = StatusMB("VmHWM") - base;
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  Mat       A, X, B;
  Entries   Ae, Xe, Be;
  PetscInt  ncols = PetscInt(1) << 28;
  PetscReal max_growth = 16;
  char     *petsc_algs[16];
  PetscInt  npetsc = 16;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-ncols", &ncols, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-max_growth_mb", &max_growth, NULL));
  PetscCall(PetscOptionsGetStringArray(NULL, NULL, "-petsc_algs", petsc_algs, &npetsc, NULL));
  PetscCall(WideAIJ(4000, 500, 3, 4, 1, &A, &Ae));  /* C = A*B: 4000 x ncols */
  PetscCall(WideAIJ(500, 3000, 3, 1, 2, &X, &Xe));  /* C = X^T*B: 3000 x ncols */
  PetscCall(WideAIJ(500, ncols, 4, 1, 3, &B, &Be));
  const Entries ref_ab = Reference(Ae, false, Be), ref_atb = Reference(Xe, true, Be);
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "B: 500 x %" PetscInt_FMT ", %zu nonzeros; nnz(A*B) %zu, nnz(X^T*B) %zu\n", ncols, Be.size(), ref_ab.size(), ref_atb.size()));

  for (const MatProductType type : {MATPRODUCT_AB, MATPRODUCT_AtB}) {
    for (const char *alg : kAlgorithms) {
      for (const char *acc : kAccumulators) {
        const std::string what = std::string(type == MATPRODUCT_AB ? "A*B " : "X^T*B ") + alg + ", accumulator " + acc;
        double            growth = NAN; /* set by Run */
        PetscCall(PetscOptionsSetValue(NULL, ViaOption(type), alg));
        PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_accumulator", acc));
        PetscCall(Run(type, type == MATPRODUCT_AB ? A : X, B, type == MATPRODUCT_AB ? ref_ab : ref_atb, what, &growth));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-50s peak resident memory +%.1f MB\n", what.c_str(), growth));
        PetscCheck(std::isnan(growth) || growth < max_growth, PETSC_COMM_SELF, PETSC_ERR_MEM, "%s: the products added %.1f MB to the peak resident memory (limit %g MB)", what.c_str(), growth, (double)max_growth);
      }
    }
  }
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_accumulator"));
  for (PetscInt k = 0; k < npetsc; ++k) {
    const std::string what = std::string("A*B PETSc ") + petsc_algs[k];
    double            growth = NAN; /* set by Run */
    PetscCall(PetscOptionsSetValue(NULL, "-matmatmult_via", petsc_algs[k]));
    PetscCall(Run(MATPRODUCT_AB, A, B, ref_ab, what, &growth));
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "%-50s peak resident memory +%.1f MB (not checked)\n", what.c_str(), growth));
    PetscCall(PetscFree(petsc_algs[k]));
  }
  PetscCall(PetscOptionsClearValue(NULL, "-matmatmult_via"));
  PetscCall(PetscOptionsClearValue(NULL, "-mattransposematmult_via"));
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&X));
  PetscCall(MatDestroy(&B));
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "all wide product checks passed\n"));
  PetscCall(PetscFinalize());
  return 0;
}
