/*
   BoomerAMG's coarse operators formed through -pc_hypre_boomeramg_rap_via against hypre's own.

   Sets up BoomerAMG directly through hypre's interface on a generated problem (the plugin loaded
   with -dll_append, and the option given or not), then, for every level l >= 1, forms P^T A P again
   with hypre's own hypre_BoomerAMGBuildCoarseOperatorKT from the set-up's A_{l-1} and P_{l-1} (a call
   from outside BoomerAMG's set-up: the plugin leaves it to hypre) and compares it with the set-up's
   A_l on every rank: the same rows, each row of the diagonal block starting with its diagonal, the
   same global columns in each block, values equal to rounding (1e-12 of the row's largest
   magnitude; -tol 0: bit for bit). With -keeptranspose, the transposes kept on P as well. Prints one line per level and
   rank; any difference is an error.

   Options: -problem laplace|laplace27|aniso (7-point, 27-point, anisotropic 7-point), -n <grid side>,
   -coarsen_type <hypre's number> (default 10, HMIS), -interp_type <n> (default 6, extended+i),
   -agg_nl <aggressive levels> (default 0), -keeptranspose, -strong <threshold> (default 0.25).
*/
#include <petscsys.h>

#include "../../examples/petsc_versions.hpp" /* PETSC_SUCCESS before 3.19 */

#include <_hypre_parcsr_ls.h>

#include <algorithm>
#include <cmath>
#include <vector>

static const char help[] = "BoomerAMG's coarse operators by -pc_hypre_boomeramg_rap_via against hypre's own\n";

using Row = std::vector<std::pair<HYPRE_BigInt, HYPRE_Real>>;

/* Row i of a CSR block, columns numbered through colmap (nullptr: col0 + j), sorted */
static void AppendRow(hypre_CSRMatrix *M, HYPRE_Int i, HYPRE_BigInt col0, const HYPRE_BigInt *colmap, Row &r)
{
  for (HYPRE_Int t = hypre_CSRMatrixI(M)[i]; t < hypre_CSRMatrixI(M)[i + 1]; ++t) {
    const HYPRE_Int j = hypre_CSRMatrixJ(M)[t];
    r.emplace_back(colmap ? colmap[j] : col0 + j, hypre_CSRMatrixData(M)[t]);
  }
}

/* ours equals ref: rows of both blocks with the same global columns, values to rounding; with
   diag_first, every row of the diagonal block starting with its diagonal */
static double tolerance = 1e-12; /* -tol: relative to the row's largest magnitude (0: bit for bit) */

static PetscErrorCode CompareBlocks(const char what[], int level, hypre_CSRMatrix *od, hypre_CSRMatrix *oo, const HYPRE_BigInt *omap, hypre_CSRMatrix *rd, hypre_CSRMatrix *ro, const HYPRE_BigInt *rmap, HYPRE_BigInt col0, PetscBool diag_first)
{
  const HYPRE_Int m = hypre_CSRMatrixNumRows(rd);

  PetscFunctionBegin;
  PetscCheck(hypre_CSRMatrixNumRows(od) == m, PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: %d rows, hypre's %d", level, what, (int)hypre_CSRMatrixNumRows(od), (int)m);
  PetscCheck(hypre_CSRMatrixNumNonzeros(od) == hypre_CSRMatrixNumNonzeros(rd), PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: %d entries in the diagonal block, hypre's %d", level, what, (int)hypre_CSRMatrixNumNonzeros(od), (int)hypre_CSRMatrixNumNonzeros(rd));
  PetscCheck((oo ? hypre_CSRMatrixNumNonzeros(oo) : 0) == (ro ? hypre_CSRMatrixNumNonzeros(ro) : 0), PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: %d off-process entries, hypre's %d", level, what, (int)(oo ? hypre_CSRMatrixNumNonzeros(oo) : 0), (int)(ro ? hypre_CSRMatrixNumNonzeros(ro) : 0));
  for (HYPRE_Int i = 0; i < m; ++i) {
    Row a, b;
    AppendRow(od, i, col0, nullptr, a);
    AppendRow(rd, i, col0, nullptr, b);
    if (oo && hypre_CSRMatrixNumNonzeros(oo)) AppendRow(oo, i, 0, omap, a);
    if (ro && hypre_CSRMatrixNumNonzeros(ro)) AppendRow(ro, i, 0, rmap, b);
    if (diag_first && hypre_CSRMatrixI(od)[i] < hypre_CSRMatrixI(od)[i + 1]) PetscCheck(hypre_CSRMatrixJ(od)[hypre_CSRMatrixI(od)[i]] == i, PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: row %d does not start with its diagonal", level, what, (int)i);
    const auto by_col = [](const auto &x, const auto &y) { return x.first < y.first; };
    std::sort(a.begin(), a.end(), by_col);
    std::sort(b.begin(), b.end(), by_col);
    PetscCheck(a.size() == b.size(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: row %d has %d entries, hypre's %d", level, what, (int)i, (int)a.size(), (int)b.size());
    double scale = 0;
    for (const auto &e : b) scale = std::max(scale, std::fabs(e.second));
    for (std::size_t k = 0; k < a.size(); ++k) {
      PetscCheck(a[k].first == b[k].first, PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: row %d has column %lld where hypre's has %lld", level, what, (int)i, (long long)a[k].first, (long long)b[k].first);
      PetscCheck(std::fabs(a[k].second - b[k].second) <= tolerance * (scale > 0 ? scale : 1), PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d %s: (%d, %lld) = %.17g, hypre's %.17g", level, what, (int)i, (long long)a[k].first, a[k].second, b[k].second);
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

int main(int argc, char **argv)
{
  char       problem[32] = "laplace";
  PetscInt   n = 16, coarsen = 10, interp = 6, agg_nl = 0;
  PetscReal  strong = 0.25;
  PetscBool  keep   = PETSC_FALSE;
  HYPRE_Real laplace[4] = {6, -1, -1, -1}, laplace27[2] = {26, -1}, aniso[4] = {2.02, -1, -0.01, -0.01};

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-problem", problem, sizeof problem, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-n", &n, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-coarsen_type", &coarsen, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-interp_type", &interp, NULL));
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-agg_nl", &agg_nl, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-strong", &strong, NULL));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-keeptranspose", &keep, NULL));
  PetscCall(PetscOptionsGetReal(NULL, NULL, "-tol", &tolerance, NULL));

  PetscBool is27, isaniso;
  PetscCall(PetscStrcmp(problem, "laplace27", &is27));
  PetscCall(PetscStrcmp(problem, "aniso", &isaniso));
  /* hypre 3 refuses work before HYPRE_Initialize (HYPRE_Init, a macro for it there); PETSc calls it
     only where PETSc itself first uses hypre, which this program never does */
  PetscCallExternal(HYPRE_Init);
  PetscMPIInt size, rank; /* the ranks in slabs along z */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
  HYPRE_ParCSRMatrix A = is27 ? GenerateLaplacian27pt(PETSC_COMM_WORLD, n, n, n, 1, 1, size, 0, 0, rank, laplace27) : GenerateLaplacian(PETSC_COMM_WORLD, n, n, n, 1, 1, size, 0, 0, rank, isaniso ? aniso : laplace);
  HYPRE_ParVector    b, x;
  PetscCallExternal(HYPRE_ParVectorCreate, PETSC_COMM_WORLD, hypre_ParCSRMatrixGlobalNumRows(A), hypre_ParCSRMatrixRowStarts(A), &b);
  PetscCallExternal(HYPRE_ParVectorInitialize, b);
  PetscCallExternal(HYPRE_ParVectorCreate, PETSC_COMM_WORLD, hypre_ParCSRMatrixGlobalNumRows(A), hypre_ParCSRMatrixRowStarts(A), &x);
  PetscCallExternal(HYPRE_ParVectorInitialize, x);

  HYPRE_Solver amg;
  PetscCallExternal(HYPRE_BoomerAMGCreate, &amg);
  PetscCallExternal(HYPRE_BoomerAMGSetCoarsenType, amg, (HYPRE_Int)coarsen);
  PetscCallExternal(HYPRE_BoomerAMGSetInterpType, amg, (HYPRE_Int)interp);
  PetscCallExternal(HYPRE_BoomerAMGSetAggNumLevels, amg, (HYPRE_Int)agg_nl);
  PetscCallExternal(HYPRE_BoomerAMGSetStrongThreshold, amg, (HYPRE_Real)strong);
  PetscCallExternal(HYPRE_BoomerAMGSetKeepTranspose, amg, (HYPRE_Int)keep);
  PetscCallExternal(HYPRE_BoomerAMGSetPrintLevel, amg, 0);
  PetscCallExternal(HYPRE_BoomerAMGSetup, amg, A, b, x);

  hypre_ParAMGData *data   = (hypre_ParAMGData *)amg;
  const int         levels = hypre_ParAMGDataNumLevels(data);
  PetscCheck(levels > 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "only %d levels: take a larger -n", levels);
  for (int l = 1; l < levels; ++l) {
    hypre_ParCSRMatrix *Af = hypre_ParAMGDataAArray(data)[l - 1], *P = hypre_ParAMGDataPArray(data)[l - 1], *Ah = hypre_ParAMGDataAArray(data)[l], *ref = nullptr;
    PetscCallExternal(hypre_BoomerAMGBuildCoarseOperatorKT, P, Af, P, 0, &ref);
    PetscCall(CompareBlocks("A_H", l, hypre_ParCSRMatrixDiag(Ah), hypre_ParCSRMatrixOffd(Ah), hypre_ParCSRMatrixColMapOffd(Ah), hypre_ParCSRMatrixDiag(ref), hypre_ParCSRMatrixOffd(ref), hypre_ParCSRMatrixColMapOffd(ref), hypre_ParCSRMatrixFirstColDiag(ref), PETSC_TRUE));
    PetscCall(PetscSynchronizedPrintf(PETSC_COMM_WORLD, "level %d: %d local rows, %d + %d entries: equal to hypre's\n", l, (int)hypre_CSRMatrixNumRows(hypre_ParCSRMatrixDiag(ref)), (int)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(ref)), (int)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(ref))));
    if (keep) { /* the transposes kept on P, against hypre's transpose of P's blocks */
      hypre_CSRMatrix *Td = nullptr, *To = nullptr;
      PetscCheck(hypre_ParCSRMatrixDiagT(P), PETSC_COMM_SELF, PETSC_ERR_PLIB, "level %d: -keeptranspose, but no P^T kept on P", l);
      PetscCallExternal(hypre_CSRMatrixTranspose, hypre_ParCSRMatrixDiag(P), &Td, 1);
      if (hypre_CSRMatrixNumCols(hypre_ParCSRMatrixOffd(P))) PetscCallExternal(hypre_CSRMatrixTranspose, hypre_ParCSRMatrixOffd(P), &To, 1);
      PetscCall(CompareBlocks("P^T", l, hypre_ParCSRMatrixDiagT(P), nullptr, nullptr, Td, nullptr, nullptr, 0, PETSC_FALSE));
      if (To) PetscCall(CompareBlocks("P_offd^T", l, hypre_ParCSRMatrixOffdT(P), nullptr, nullptr, To, nullptr, nullptr, 0, PETSC_FALSE));
      hypre_CSRMatrixDestroy(Td);
      if (To) hypre_CSRMatrixDestroy(To);
    }
    hypre_ParCSRMatrixDestroy(ref);
  }
  PetscCall(PetscSynchronizedFlush(PETSC_COMM_WORLD, PETSC_STDOUT));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d levels compared\n", levels));
  PetscCallExternal(HYPRE_BoomerAMGDestroy, amg);
  PetscCallExternal(HYPRE_ParVectorDestroy, b);
  PetscCallExternal(HYPRE_ParVectorDestroy, x);
  PetscCallExternal(HYPRE_ParCSRMatrixDestroy, A);
  PetscCallExternal(HYPRE_Finalize);
  PetscCall(PetscFinalize());
  return 0;
}
