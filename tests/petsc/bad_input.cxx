static char help[] = "Bad input to the petsc-cluster plugin, case by case (issue 6): for each case the PETSc error code\n\
and message of the call, and that the caller's matrices are unchanged and still usable afterwards.\n\
Sections: unknown names, parameter ranges, sizes, unassembled operands, malformed operands, operand\n\
types the plugin does not take, pattern changes before a numeric phase, nnz(C) beyond PetscInt,\n\
allocation failure (RLIMIT_AS). On more than one MPI rank: the MATMPIAIJ cases.\n\
Prints one line per failed case and a summary per section; exits nonzero if any case failed.\n\
  -section <name>: run only that section\n\
  -verbose: print every case\n\n";

/* The runner, the operands every part uses, and main; the case table and the map of the parts are
   in bad_input.hpp. */
#include "bad_input.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace bad_input {

namespace {

std::vector<std::pair<std::string, Tally>> g_tally;

PetscErrorCode SetOptions(const Options &o)
{
  PetscFunctionBeginUser;
  for (const auto &kv : o) PetscCall(PetscOptionsSetValue(NULL, kv.first.c_str(), kv.second.empty() ? NULL : kv.second.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode ClearOptions(const Options &o)
{
  PetscFunctionBeginUser;
  for (const auto &kv : o) PetscCall(PetscOptionsClearValue(NULL, kv.first.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc memory in use (-malloc_debug), after `call` ran and its result was destroyed */
PetscErrorCode LeftAllocated(const Case &c, PetscLogDouble *bytes)
{
  PetscLogDouble before, after;
  Mat            C = NULL;

  PetscFunctionBeginUser;
  PetscCall(PetscMallocGetCurrentUsage(&before));
  PetscCall(SetOptions(c.options));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  (void)c.call(&C);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ClearOptions(c.options));
  PetscCall(MatDestroy(&C));
  PetscCall(PetscMallocGetCurrentUsage(&after));
  *bytes = after - before;
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

Tally &TallyOf(const std::string &section)
{
  for (auto &t : g_tally)
    if (t.first == section) return t.second;
  g_tally.push_back({section, Tally{}});
  return g_tally.back().second;
}

long StatusKiB(const char *key)
{
  std::FILE *f = std::fopen("/proc/self/status", "r");
  char       line[256];
  long       v = -1;
  if (!f) return -1;
  while (std::fgets(line, sizeof line, f))
    if (!std::strncmp(line, key, std::strlen(key))) v = std::atol(line + std::strlen(key));
  std::fclose(f);
  return v;
}

/* C = the product of `type` on o, with algorithm alg through entry point e; the options of e are
   set by the case (AlgorithmOption) */
PetscErrorCode FormProduct(Entry e, MatProductType type, const Operands &o, const char *alg, Mat *C)
{
  PetscFunctionBeginUser;
  if (e == kUser) {
    PetscCall(UserProduct(type, o.X, o.Y, o.Z, MAT_INITIAL_MATRIX, C));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(MatProductCreate(o.X, o.Y, type == MATPRODUCT_ABC ? o.Z : NULL, C));
  PetscCall(MatProductSetType(*C, type));
  if (e == kInCode) PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs one case; records whether it held */
PetscErrorCode Run(const Case &c)
{
  std::vector<Mat> copies;
  Mat              C = NULL;
  PetscErrorCode   ierr;
  const char      *message = NULL;
  std::string      problem;
  long             peak0 = StatusKiB("VmHWM:");

  PetscFunctionBeginUser;
  for (Mat M : c.unchanged) {
    Mat D;
    PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &D));
    copies.push_back(D);
  }
  PetscCall(SetOptions(c.options));
  PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
  ierr = c.call(&C);
  PetscCall(PetscPopErrorHandler());
  PetscCall(ClearOptions(c.options));
  PetscCall(ErrorMessage(ierr, NULL, &message));
  const std::string msg = ierr && message ? message : "";

  if (ierr != c.code && ierr != c.code_too) problem += "error code " + std::to_string((int)ierr) + ", expected " + std::to_string(c.code) + "; ";
  {
    PetscErrorCode mine = ierr;
    /* MPI: did this rank fail by itself (its message is its own) or because another did? */
    const bool other = !c.words_other_ranks.empty() && msg.find("failed on rank") != std::string::npos;
    (void)mine;
    for (const std::string &w : other ? c.words_other_ranks : c.words)
      if (msg.find(w) == std::string::npos) problem += "message lacks '" + w + "'; ";
  }
  for (size_t k = 0; k < copies.size(); ++k) {
    PetscBool eq;
    PetscCall(MatEqual(c.unchanged[k], copies[k], &eq));
    if (!eq) problem += "matrix " + std::to_string(k) + " changed; ";
    PetscCall(MatDestroy(&copies[k]));
  }
  if (c.max_peak_growth_mib >= 0 && peak0 >= 0) {
    const long grown = (StatusKiB("VmHWM:") - peak0) / 1024;
    if (grown > c.max_peak_growth_mib) problem += "peak memory grew by " + std::to_string(grown) + " MiB; ";
  }
  PetscCall(MatDestroy(&C));
  /* the calls are collective on MPI: every rank decides alike whether to run them again */
  PetscBool all_ok = (PetscBool)problem.empty();
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  if (all_ok && !c.petsc_leaks) {
    /* A leak shows as memory still in use after a second and a third run (the first run of a kind
       of call may register types, functions and classes once) */
    PetscLogDouble second, third;
    PetscCall(LeftAllocated(c, &second));
    PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &second, 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PETSC_COMM_WORLD));
    if (second > 0) {
      PetscCall(LeftAllocated(c, &third));
      if (third > 0) problem += "PETSc memory left allocated: " + std::to_string((long)third) + " bytes per call; ";
    }
  }
  if (all_ok && c.after) {
    PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
    ierr = c.after();
    PetscCall(PetscPopErrorHandler());
    if (ierr) {
      PetscCall(ErrorMessage(ierr, NULL, &message));
      problem += std::string("afterwards: ") + (message ? message : "") + "; ";
    }
  }
  Tally &t = TallyOf(c.section);
  t.cases++;
  if (!problem.empty()) t.failed++;
  if (!problem.empty() || g_verbose)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s %s: %s: %s\n      message: %s\n", (int)g_rank, problem.empty() ? "ok    " : "FAILED", c.section.c_str(), c.what.c_str(), problem.c_str(), msg.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Operands and checks every part uses */

/* m x n SeqAIJ (or MPIAIJ on comm) with about per_row entries per row, seeded, values away from 0 */
PetscErrorCode RandomAIJ(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt per_row, unsigned seed, Mat *A)
{
  unsigned s = seed * 2654435761u + 1;
  PetscInt lo, hi;
  auto     next = [&]() {
    s = s * 1664525u + 1013904223u;
    return s >> 8;
  };

  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, m, n));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*A, per_row + 1, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*A, per_row + 1, NULL, per_row + 1, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
  for (PetscInt i = 0; i < m; ++i) {
    for (PetscInt t = 0; t < per_row; ++t) {
      const PetscInt    j = (PetscInt)(next() % (unsigned)n);
      const PetscScalar v = 1.0 + (PetscScalar)(next() % 100) / 50.0;
      if (i >= lo && i < hi) PetscCall(MatSetValue(*A, i, j, v, ADD_VALUES));
    }
    if (i < n && i >= lo && i < hi) PetscCall(MatSetValue(*A, i, i, 4.0, ADD_VALUES));
  }
  PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Same sizes, one entry more (the first position missing in the first row that has one) */
PetscErrorCode WithExtraNonzero(Mat M, Mat *M2)
{
  PetscInt m, n, lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(M, &m, &n));
  PetscCall(MatGetOwnershipRange(M, &lo, &hi));
  PetscCall(MatDuplicate(M, MAT_COPY_VALUES, M2));
  PetscCall(MatSetOption(*M2, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
  PetscCall(MatSetOption(*M2, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
  if (g_rank == g_size - 1) { /* on the last rank only (on all ranks in one-rank runs) */
    for (PetscInt i = lo; i < hi; ++i) {
      PetscInt        ncols, j = -1;
      const PetscInt *cols;
      PetscCall(MatGetRow(*M2, i, &ncols, &cols, NULL));
      for (PetscInt c = 0; c < n && j < 0; ++c)
        if (std::find(cols, cols + ncols, c) == cols + ncols) j = c;
      PetscCall(MatRestoreRow(*M2, i, &ncols, &cols, NULL));
      if (j >= 0) {
        PetscCall(MatSetValue(*M2, i, j, 2.5, INSERT_VALUES));
        break;
      }
    }
  }
  PetscCall(MatAssemblyBegin(*M2, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M2, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Same result: pattern and values within rtol (MatMultEqual-free: compares by MatAXPY norm) */
PetscErrorCode SameMatrix(Mat X, Mat Y, PetscBool *same)
{
  Mat       D;
  PetscReal nx, nd;
  PetscInt  m1, n1, m2, n2;

  PetscFunctionBeginUser;
  *same = PETSC_FALSE;
  PetscCall(MatGetSize(X, &m1, &n1));
  PetscCall(MatGetSize(Y, &m2, &n2));
  if (m1 != m2 || n1 != n2) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatConvert(X, MATAIJ, MAT_INITIAL_MATRIX, &D));
  {
    Mat Ya;
    PetscCall(MatConvert(Y, MATAIJ, MAT_INITIAL_MATRIX, &Ya));
    PetscCall(MatAXPY(D, -1.0, Ya, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&Ya));
  }
  PetscCall(MatNorm(X, NORM_FROBENIUS, &nx));
  PetscCall(MatNorm(D, NORM_FROBENIUS, &nd));
  *same = (PetscBool)(nd <= 1e-10 * (nx > 0 ? nx : 1));
  PetscCall(MatDestroy(&D));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operands still give the right product with one of our algorithms */
PetscErrorCode StillUsable(MatProductType type, const Operands &o)
{
  Mat       Cref, C;
  PetscBool same;

  PetscFunctionBeginUser;
  PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMDEFAULT, &Cref));
  PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, &C));
  PetscCall(SameMatrix(Cref, C, &same));
  PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the operands no longer give the right %s product", MatProductTypes[type]);
  PetscCall(MatDestroy(&C));
  PetscCall(MatDestroy(&Cref));
  PetscFunctionReturn(PETSC_SUCCESS);
}

std::vector<Mat> List(const Operands &o)
{
  std::vector<Mat> v{o.X, o.Y};
  if (o.Z) v.push_back(o.Z);
  return v;
}

/* An assembled copy of M made unassembled again by MatSetValue (same value, existing position) */
PetscErrorCode Unassembled(Mat M, Mat *U)
{
  PetscInt          lo, hi, ncols;
  const PetscInt   *cols;
  const PetscScalar *vals;

  PetscFunctionBeginUser;
  PetscCall(MatDuplicate(M, MAT_COPY_VALUES, U));
  PetscCall(MatGetOwnershipRange(*U, &lo, &hi));
  if (hi > lo) {
    PetscCall(MatGetRow(M, lo, &ncols, &cols, &vals));
    const PetscInt    j = ncols ? cols[0] : 0;
    const PetscScalar v = ncols ? vals[0] : 0;
    PetscCall(MatRestoreRow(M, lo, &ncols, &cols, &vals));
    PetscCall(MatSetValue(*U, lo, j, v, INSERT_VALUES)); /* leaves U unassembled */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace bad_input

using namespace bad_input;

int main(int argc, char **argv)
{
  char      section[64] = "";
  PetscBool only        = PETSC_FALSE;
  Fixture   f;
  int       cases = 0, failed = 0, all_failed = 0;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &g_rank));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &g_size));
  PetscCall(PetscOptionsGetBool(NULL, NULL, "-verbose", &g_verbose, NULL));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-section", section, sizeof(section), &only));
  auto want = [&](const char *s) { return !only || !std::strcmp(section, s); };

  if (g_size > 1) PetscCall(MPIAIJCases());
  else {
    PetscCall(RandomAIJ(PETSC_COMM_SELF, 40, 40, 4, 1, &f.A));
    PetscCall(RandomAIJ(PETSC_COMM_SELF, 40, 13, 2, 2, &f.P));
    PetscCall(MatTranspose(f.P, MAT_INITIAL_MATRIX, &f.R));
    if (want("names")) PetscCall(UnknownNames(f));
    if (want("ranges")) PetscCall(Ranges(f));
    if (want("sizes")) PetscCall(Sizes());
    if (want("unassembled")) PetscCall(UnassembledOperands(f));
    if (want("malformed")) PetscCall(MalformedOperands(f));
    if (want("types")) PetscCall(OtherTypes(f));
    if (want("pattern")) PetscCall(PatternChanges(f));
    if (want("overflow")) PetscCall(Overflow(PETSC_COMM_SELF));
    if (want("memory")) PetscCall(Memory());
    if (want("petsc_malloc")) PetscCall(PetscAllocations(f));
    PetscCall(MatDestroy(&f.A));
    PetscCall(MatDestroy(&f.P));
    PetscCall(MatDestroy(&f.R));
  }
  FreeSpoiledArrays();
  for (const auto &t : g_tally) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-20s %4d cases, %d failed\n", t.first.c_str(), t.second.cases, t.second.failed));
    cases += t.second.cases;
    failed += t.second.failed;
  }
  PetscCallMPI(MPI_Allreduce(&failed, &all_failed, 1, MPI_INT, MPI_SUM, PETSC_COMM_WORLD));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%d bad-input cases on %d rank(s), %d failed\n", cases, (int)g_size, all_failed));
  if (!all_failed) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "all bad-input checks passed\n"));
  PetscCall(PetscFinalize());
  return all_failed ? 1 : 0;
}
