/*
  spgemm_bench: PETSc's SeqAIJ algorithms, GraphBLAS (graphblas_adapter.hpp) and ours on C = A*A or
  C = P^T A P, timed and checked as bench_common.hpp says (TimeMatProduct); help[] lists the options.
  -product ptap: P is PCGAMG's prolongator for A, made by an untimed PCGAMG set-up with PETSc's own
  products.
*/
#include <petscmat.h>
#include <petscpc.h>
#include <petsctime.h>
#include <petscviewer.h>
#include <petsccluster.h>

#include "bench_common.hpp"
#include "graphblas_adapter.hpp"
#include "pcluster/ordering.hpp"
#include "peak_memory.hpp"
#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

static const char help[] =
  "spgemm_bench: times C = A*A (A*A^T if A is not square), or C = P^T A P with PCGAMG's prolongator P (-product ptap),\n"
  "with PETSc's SeqAIJ algorithms, SuiteSparse:GraphBLAS GrB_mxm (A*A only) and petsc-cluster's algorithms, in one run,\n"
  "and checks every result against PETSc's default.\n"
  "\n"
  BENCH_HELP_MATRICES
  "What is run and how:\n"
  "  -algs <a,b,...>        algorithms (default: all): PETSc's sorted,scalable,scalable_fast,heap,btheap,\n"
  "                         llcondensed,rowmerge,hypre (-product ptap: scalable,rap,hypre); graphblas (ab only);\n"
  "                         ours rowwise,cluster,cluster_fixed,cluster_variable,cluster_hierarchical\n"
  "  -reps <N>              best of N for one-shot and for reuse (default 3)\n"
  "  -api <matproduct|matmatmult|matptap>  matproduct (default): MatProductCreate, SetType(AB), SetAlgorithm,\n"
  "                         SetFromOptions, Symbolic, Numeric; reuse = Numeric. matmatmult: MatMatMult(\n"
  "                         MAT_INITIAL_MATRIX) with -matmatmult_via set to each algorithm; reuse =\n"
  "                         MatMatMult(MAT_REUSE_MATRIX); no separate symbolic figure (matptap: -product ptap)\n"
  "  -graphblas_threads <t1,t2,...>  GraphBLAS thread counts, one row each (default: omp_get_max_threads())\n"
  "  -check_tol <tol>       max |C - C_ref| / max |C_ref| allowed (default 1e-12)\n"
  "  -memory <bool>         measure each algorithm's peak memory (default true; false skips the extra one-shots):\n"
  "                         peak MB = the resident memory one extra, untimed one-shot product adds at its peak\n"
  "                         (after the timed runs: malloc_trim(0), VmHWM reset through /proc/self/clear_refs,\n"
  "                         VmRSS read; after the product VmHWM - VmRSS(before)). It includes C and whatever the\n"
  "                         algorithm keeps for reuse (ours: transposes, intermediates of PtAP); pages allocated\n"
  "                         but never touched do not count. GraphBLAS: new + mxm + wait + unpack, the same way.\n"
  "  -json <file>           also write the figures as JSON\n"
  "The row-ordering study (the seed paper's Table 2; C = A*A, -api matproduct):\n"
  "  -study orderings       for each matrix, each ordering and each of our algorithms in -algs (default rowwise,\n"
  "                         cluster_fixed,cluster_variable, plus cluster_hierarchical at natural order only): one-shot\n"
  "                         and reuse with -mat_cluster_reorder ORDERING set in the options database, checked as above;\n"
  "                         speedup over the same algorithm at natural order; the ordering's cost in SpGEMMs =\n"
  "                         MatGetOrdering(A, \"pcluster_<name>\") time / rowwise natural one-shot time; PETSc's built-ins\n"
  "                         in -algs (default all) as the reference; then geometric means over the matrices\n"
  "  -orderings <a,b,...>   orderings of the study (default all: natural,random,rcm,amd,nd,gp,hp,gray,rabbit,degree,\n"
  "                         slashburn; natural is always run, as the baseline)\n"
  "C = P^T A P with PCGAMG's prolongator (-product ptap):\n"
  "  -product <ab|ptap>     ab (default): C = A*A as above. ptap: A as above (square), then an untimed PCGAMG\n"
  "                         set-up on A with PETSc's own product algorithms gives P = the finest level's\n"
  "                         interpolation (PCMGGetInterpolation, copied); C = P^T A P is timed with PETSc's\n"
  "                         scalable (its default), rap, hypre and ours. e27: block size 3 and the 6 rigid\n"
  "                         body modes of its grid as near-null space; other inputs: PCGAMG's default\n"
  "                         (constant). PCGAMG options apply to the set-up (-pc_gamg_agg_nsmooths, default 1,\n"
  "                         -pc_gamg_threshold, -pc_gamg_aggressive_coarsening, ...). No GraphBLAS, no GF/s:\n"
  "                         times and ratios against PETSc's fastest PtAP and its default; -api matmatmult\n"
  "                         (or matptap) times MatPtAP(MAT_INITIAL_MATRIX / MAT_REUSE_MATRIX) with -matptap_via\n"
  "Do not pass -mat_product_algorithm (or, with -api matmatmult, -matmatmult_via or -matptap_via): the program\n"
  "sets them. " BENCH_HELP_REUSE_ANALYSIS
  "Exit code: nonzero if any result fails its check or any algorithm raises an error.\n";



namespace {

const std::vector<std::string> kPetscPtAPAlgs = {"scalable", "rap", "hypre"};
const char *const kPetscPtAPDefault = "scalable"; /* "default" for SeqAIJ C=P^T*A*P in PETSc 3.18 */

const char *DefaultAlg(const Settings &s)
{
  return s.ptap ? kPetscPtAPDefault : kPetscDefault;
}

/* -memory: one extra, untimed one-shot product (as timed, through the same API) and the resident
   memory it adds at its peak (peak_memory.hpp); the product is destroyed */
PetscErrorCode PeakMemory(Mat A, Mat B, const char *alg, const Settings &s, Figures *f)
{
  Mat C = NULL;

  PetscFunctionBegin;
  if (s.matmatmult && std::string(alg) != "default") PetscCall(PetscOptionsSetValue(NULL, ViaOption(s), alg));
  const double rss0 = ResetPeak();
  if (s.matmatmult) PetscCall(OneCallProduct(A, B, MAT_INITIAL_MATRIX, s, &C));
  else {
    PetscCall(CreateProduct(A, B, alg, s, &C));
    PetscCall(MatProductSymbolic(C));
    PetscCall(MatProductNumeric(C));
  }
  f->peak_mb = StatusMB("VmHWM") - rss0;
  PetscCall(MatDestroy(&C));
  if (s.matmatmult) PetscCall(PetscOptionsClearValue(NULL, ViaOption(s)));
  PetscFunctionReturn(0);
}


/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                      */

const char *const kPeakLegend = "peak = resident memory an extra, untimed one-shot adds at its peak (VmHWM reset before it, minus VmRSS before; C and what the algorithm keeps for reuse included).";

/* -product ptap: no GF/s; ratios of one-shot and reuse against PETSc's fastest and its default */
void PrintTablePtAP(const Summary &S, const Settings &s)
{
  std::printf("\nMatrix %s, C = P^T*A*P: A %" PetscInt_FMT " rows, nnz(A) %" PetscInt64_FMT "; P %" PetscInt_FMT " x %" PetscInt_FMT ", nnz(P) %" PetscInt64_FMT
              "; nnz(C) %" PetscInt64_FMT ", OpenMP threads %d, best of %" PetscInt_FMT "\n",
              S.name.c_str(), S.rows, S.nnz, S.P.rows, S.P.cols, S.P.nnz, S.nnz_c, MaxThreads(), s.reps);
  std::printf("%-22s %10s %10s %10s %12s %7s %7s %7s %7s %9s  %s\n", "algorithm", "one-shot", "symbolic", "reuse", "nnz(C)", "x best", "x dflt", "x best", "x dflt",
              "peak", "check (max rel. error)");
  std::printf("%-22s %10s %10s %10s %12s %7s %7s %7s %7s %9s\n", "", "[s]", "[s]", "[s]", "", "1-shot", "1-shot", "reuse", "reuse", "[MB]");
  for (const Figures &f : S.figs) {
    std::string label = f.name;
    if (f.name == S.default_name) label += " (default)";
    if (!f.ran || !f.error.empty()) {
      std::printf("%-22s %10s %10s %10s %12s %7s %7s %7s %7s %9s  ERROR: %s\n", label.c_str(), "-", "-", "-", "-", "-", "-", "-", "-", "-",
                  f.error.empty() ? "did not run" : f.error.c_str());
      continue;
    }
    std::string check = f.check.empty() ? "ok (" + Fmt("%.1e", f.rel_err) + ")" : "FAIL: " + f.check;
    if (f.extra_zeros) check += " +" + std::to_string(f.extra_zeros) + " explicit zeros";
    std::printf("%-22s %10s %10s %10s %12" PetscInt64_FMT " %7s %7s %7s %7s %9s  %s\n", label.c_str(), Fmt("%.4g", f.oneshot).c_str(), Fmt("%.4g", f.symbolic).c_str(),
                Fmt("%.4g", f.reuse).c_str(), f.nnz_c, Fmt("%.2f", Ratio(S.best_builtin, f.oneshot)).c_str(), Fmt("%.2f", Ratio(S.dflt, f.oneshot)).c_str(),
                Fmt("%.2f", Ratio(S.best_builtin_reuse, f.reuse)).c_str(), Fmt("%.2f", Ratio(S.dflt_reuse, f.reuse)).c_str(), Fmt("%.1f", f.peak_mb).c_str(), check.c_str());
  }
  std::printf("x best = (PETSc's fastest built-in: %s one-shot; fastest reuse of any built-in) / this; x dflt = (PETSc default = %s) / this; > 1 is faster.\n",
              S.best_builtin_name.empty() ? "none" : S.best_builtin_name.c_str(), S.default_name.c_str());
  if (s.memory) std::printf("%s\n", kPeakLegend);
}

void PrintTable(const Summary &S, const Settings &s)
{
  if (s.ptap) {
    PrintTablePtAP(S, s);
    return;
  }
  std::printf("\nMatrix %s, C = %s: %" PetscInt_FMT " rows, nnz(A) %" PetscInt64_FMT ", flops (multiply-adds) %" PetscInt64_FMT ", nnz(C) %" PetscInt64_FMT
              ", OpenMP threads %d, best of %" PetscInt_FMT "\n",
              S.name.c_str(), S.product.c_str(), S.rows, S.nnz, S.flops, S.nnz_c, MaxThreads(), s.reps);
  std::printf("%-22s %10s %10s %10s %8s %8s %12s %7s %7s %7s %9s  %s\n", "algorithm", "one-shot", "symbolic", "reuse", "GF/s", "GF/s", "nnz(C)", "x best",
              "x dflt", "x best", "peak", "check (max rel. error)");
  std::printf("%-22s %10s %10s %10s %8s %8s %12s %7s %7s %7s %9s\n", "", "[s]", "[s]", "[s]", "1-shot", "reuse", "", "1-shot", "1-shot", "reuse", "[MB]");
  for (const Figures &f : S.figs) {
    std::string label = f.name;
    if (f.name == kPetscDefault) label += " (default)";
    if (!f.ran || !f.error.empty()) {
      std::printf("%-22s %10s %10s %10s %8s %8s %12s %7s %7s %7s %9s  ERROR: %s\n", label.c_str(), "-", "-", "-", "-", "-", "-", "-", "-", "-", "-",
                  f.error.empty() ? "did not run" : f.error.c_str());
      continue;
    }
    const double gf = 1e-9 * static_cast<double>(S.flops);
    std::string  check = f.check.empty() ? "ok (" + Fmt("%.1e", f.rel_err) + ")" : "FAIL: " + f.check;
    if (f.extra_zeros) check += " +" + std::to_string(f.extra_zeros) + " explicit zeros";
    std::printf("%-22s %10s %10s %10s %8s %8s %12" PetscInt64_FMT " %7s %7s %7s %9s  %s\n", label.c_str(), Fmt("%.4g", f.oneshot).c_str(),
                Fmt("%.4g", f.symbolic).c_str(), Fmt("%.4g", f.reuse).c_str(), Fmt("%.3f", Ratio(gf, f.oneshot)).c_str(),
                Fmt("%.3f", Ratio(gf, f.reuse)).c_str(), f.nnz_c, Fmt("%.2f", Ratio(S.best_builtin, f.oneshot)).c_str(),
                Fmt("%.2f", Ratio(S.dflt, f.oneshot)).c_str(), Fmt("%.2f", Ratio(S.best_builtin_reuse, f.reuse)).c_str(), Fmt("%.1f", f.peak_mb).c_str(), check.c_str());
  }
  std::printf("x best = (PETSc's fastest built-in one-shot: %s) / this; x dflt = (PETSc default = %s) / this; > 1 is faster.\n",
              S.best_builtin_name.empty() ? "none" : S.best_builtin_name.c_str(), kPetscDefault);
  if (s.memory) std::printf("%s\n", kPeakLegend);
}

void WriteJson(std::FILE *fp, const std::vector<Summary> &all, const Settings &s)
{
  const char *api = !s.matmatmult ? "matproduct" : s.ptap ? "matptap" : "matmatmult";
  std::fprintf(fp, "{\n  \"program\": \"spgemm_bench\",\n  \"threads\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"check_tol\": %s,\n", MaxThreads(), s.reps,
               JsonNumber(s.tol).c_str());
  std::fprintf(fp, "  \"product_type\": %s,\n", JsonString(s.ptap ? "ptap" : "ab").c_str());
  std::fprintf(fp, "  \"api\": %s,\n", JsonString(api).c_str());
  std::string timed;
  if (s.ptap)
    timed = s.matmatmult ? "one-shot = MatPtAP(MAT_INITIAL_MATRIX) with -matptap_via ALG on a fresh C; reuse = MatPtAP(MAT_REUSE_MATRIX) after A is marked modified; "
                         : "one-shot = MatProductCreate(A,P)..SetType(PtAP)..SetFromOptions + Symbolic + first Numeric on a fresh C; "
                           "symbolic = MatProductSymbolic; reuse = MatProductNumeric after A is marked modified; ";
  else
    timed = s.matmatmult ? "one-shot = MatMatMult(MAT_INITIAL_MATRIX) with -matmatmult_via ALG on a fresh C; reuse = MatMatMult(MAT_REUSE_MATRIX) after A is marked modified; "
                         : "one-shot = MatProductCreate..SetFromOptions + Symbolic + first Numeric on a fresh C; "
                           "symbolic = MatProductSymbolic; reuse = MatProductNumeric after A is marked modified; ";
  timed += s.ptap ? "best of reps each; P = PCGAMG's finest interpolation, made untimed with PETSc's own products; no flops"
                  : "best of reps each; graphblas = GrB_Matrix_new + GrB_mxm + GrB_wait + GxB_Matrix_unpack_CSR (import of A not timed); flops = multiply-adds";
  std::fprintf(fp, "  \"timed\": %s,\n", JsonString(timed).c_str());
  std::fprintf(fp, "  \"peak_mb\": %s,\n", JsonString(s.memory ? kPeakLegend : "not measured (-memory false)").c_str());
  std::fprintf(fp, "  \"matrices\": [\n");
  for (std::size_t m = 0; m < all.size(); ++m) {
    const Summary    &S     = all[m];
    const std::string flops = S.flops >= 0 ? std::to_string(static_cast<long long>(S.flops)) : "null";
    std::fprintf(fp, "    {\"name\": %s, \"product\": %s, \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"flops\": %s, \"nnz_c\": %" PetscInt64_FMT ", \"threads\": %d,\n",
                 JsonString(S.name).c_str(), JsonString(S.product).c_str(), S.rows, S.nnz, flops.c_str(), S.nnz_c, MaxThreads());
    if (s.ptap)
      std::fprintf(fp,
                   "     \"prolongator\": {\"made_by\": \"PCGAMG\", \"levels\": %" PetscInt_FMT ", \"rows\": %" PetscInt_FMT ", \"cols\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT
                   ", \"row_block_size\": %" PetscInt_FMT ", \"col_block_size\": %" PetscInt_FMT ", \"agg_nsmooths\": %" PetscInt_FMT ", \"near_null_space\": %s, \"setup_s\": %s},\n",
                   S.P.levels, S.P.rows, S.P.cols, S.P.nnz, S.P.rbs, S.P.cbs, S.P.nsmooths, JsonString(S.P.near_null).c_str(), JsonNumber(S.P.setup_s).c_str());
    std::fprintf(fp,
                 "     \"best_builtin\": %s, \"best_builtin_oneshot_s\": %s, \"best_builtin_reuse_s\": %s, \"default\": %s, \"default_oneshot_s\": %s, \"default_reuse_s\": %s,\n"
                 "     \"algorithms\": [\n",
                 JsonString(S.best_builtin_name).c_str(), JsonNumber(S.best_builtin).c_str(), JsonNumber(S.best_builtin_reuse).c_str(), JsonString(S.default_name).c_str(),
                 JsonNumber(S.dflt).c_str(), JsonNumber(S.dflt_reuse).c_str());
    for (std::size_t a = 0; a < S.figs.size(); ++a) {
      const Figures &f  = S.figs[a];
      const double   gf = S.flops >= 0 ? 1e-9 * static_cast<double>(S.flops) : kInf; /* inf: written as null */
      std::fprintf(fp,
                   "       {\"name\": %s, \"kind\": %s, \"status\": %s, \"error\": %s, \"check\": %s, \"oneshot_s\": %s, \"symbolic_s\": %s, \"reuse_s\": %s, "
                   "\"gflops_oneshot\": %s, \"gflops_reuse\": %s, \"nnz_c\": %" PetscInt64_FMT ", \"rel_err\": %s, \"speedup_vs_best_builtin\": %s, "
                   "\"speedup_vs_default\": %s, \"reuse_speedup_vs_best_builtin\": %s, \"reuse_speedup_vs_default\": %s, \"extra_explicit_zeros\": %" PetscInt64_FMT ", \"peak_mb\": %s}%s\n",
                   JsonString(f.name).c_str(), JsonString(f.kind).c_str(), JsonString(!f.ran || !f.error.empty() ? "error" : f.check.empty() ? "ok" : "FAIL").c_str(),
                   JsonString(f.error).c_str(), JsonString(f.check).c_str(), JsonNumber(f.oneshot).c_str(), JsonNumber(f.symbolic).c_str(),
                   JsonNumber(f.reuse).c_str(), JsonNumber(Ratio(gf, f.oneshot)).c_str(), JsonNumber(Ratio(gf, f.reuse)).c_str(), f.nnz_c,
                   JsonNumber(f.ran ? f.rel_err : kInf).c_str(), JsonNumber(Ratio(S.best_builtin, f.oneshot)).c_str(),
                   JsonNumber(Ratio(S.dflt, f.oneshot)).c_str(), JsonNumber(Ratio(S.best_builtin_reuse, f.reuse)).c_str(), JsonNumber(Ratio(S.dflt_reuse, f.reuse)).c_str(),
                   f.extra_zeros, JsonNumber(f.peak_mb).c_str(), a + 1 < S.figs.size() ? "," : "");
    }
    std::fprintf(fp, "     ]}%s\n", m + 1 < all.size() ? "," : "");
  }
  std::fprintf(fp, "  ]\n}\n");
}

/* ------------------------------------------------------------------------------------------ */

/* The prolongator PCGAMG builds for A: an untimed PCGAMG set-up on A (PCGAMG's options apply;
   smoothed aggregation with 1 smoothing step unless -pc_gamg_agg_nsmooths says otherwise), then a
   copy of the finest level's interpolation, so that P outlives the PC. xyz: node coordinates for
   rigid body modes (block size 3), or empty for PCGAMG's default near-null space (constant per
   block). */
PetscErrorCode GamgProlongator(Mat A, std::vector<PetscScalar> &xyz, Mat *P, Prolongator *info)
{
  PC             pc;
  Mat            Pl;
  MatNullSpace   nsp = NULL;
  PetscInt       bs;
  PetscBool      set;
  PetscLogDouble t0, t1;
  MatInfo        minfo;

  PetscFunctionBegin;
  /* The set-up must use PETSc's own product algorithms: PCGAMG's MatPtAP/MatMatMult calls read only
     these global options, which -api matmatmult sets for the algorithm being timed. */
  for (const char *via : {"-matptap_via", "-matmatmult_via", "-matmatmatmult_via"}) PetscCall(PetscOptionsClearValue(NULL, via));
  PetscCall(MatGetBlockSize(A, &bs));
  if (!xyz.empty()) {
    Vec coords;
    PetscInt m;
    PetscCall(MatGetLocalSize(A, &m, NULL));
    PetscCheck(bs == 3 && static_cast<PetscInt>(xyz.size()) == m, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "coordinates do not match A's nodes");
    PetscCall(VecCreateSeqWithArray(PETSC_COMM_SELF, 3, static_cast<PetscInt>(xyz.size()), xyz.data(), &coords));
    PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
    PetscCall(VecDestroy(&coords));
    PetscCall(MatSetNearNullSpace(A, nsp));
    info->near_null = "6 rigid body modes from the grid coordinates (MatNullSpaceCreateRigidBody)";
  } else info->near_null = bs > 1 ? "PCGAMG default: constant per component of each " + std::to_string(static_cast<long long>(bs)) + "-row block (no coordinates)"
                                  : "PCGAMG default: constant";
  PetscCall(PCCreate(PETSC_COMM_SELF, &pc));
  PetscCall(PCSetOperators(pc, A, A));
  PetscCall(PCSetType(pc, PCGAMG));
  PetscCall(PCGAMGSetNSmooths(pc, 1)); /* PCGAMG's default, stated: smoothed aggregation */
  PetscCall(PCSetFromOptions(pc));
  PetscCall(PetscTime(&t0));
  PetscCall(PCSetUp(pc));
  PetscCall(PetscTime(&t1));
  PetscCall(PCMGGetLevels(pc, &info->levels));
  PetscCheck(info->levels >= 2, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "PCGAMG made %" PetscInt_FMT " level(s) for this matrix: no prolongator (matrix too small?)", info->levels);
  PetscCall(PCMGGetInterpolation(pc, info->levels - 1, &Pl));
  PetscCall(MatDuplicate(Pl, MAT_COPY_VALUES, P));
  PetscCall(PCDestroy(&pc));
  if (nsp) {
    PetscCall(MatSetNearNullSpace(A, NULL));
    PetscCall(MatNullSpaceDestroy(&nsp));
  }
  info->nsmooths = 1;
  PetscCall(PetscOptionsGetInt(NULL, NULL, "-pc_gamg_agg_nsmooths", &info->nsmooths, &set));
  info->setup_s = t1 - t0;
  PetscCall(MatGetSize(*P, &info->rows, &info->cols));
  PetscCall(MatGetBlockSizes(*P, &info->rbs, &info->cbs));
  PetscCall(MatGetInfo(*P, MAT_LOCAL, &minfo));
  info->nnz = static_cast<PetscInt64>(minfo.nz_used);
  PetscFunctionReturn(0);
}

/* Runs every selected algorithm on one problem. Algorithm errors are recorded, not fatal. */
PetscErrorCode RunProblem(const Problem &p, const std::vector<std::string> &algs, const Settings &s, Summary *S)
{
  Mat       A = NULL, B = NULL, C = NULL;
  Csr       M, MB;
  Reference ref;

  PetscFunctionBegin;
  /* PCGAMG takes its block size from A: e27's 3 unknowns per node (the AB runs keep block size 1) */
  PetscCall(BuildAndDescribe(p, s.ptap && p.gen == "e27" && p.file.empty() ? 3 : 1, &A, &M, S));
  if (s.ptap) { /* C = P^T*A*P with PCGAMG's P for A */
    std::vector<PetscScalar> xyz = NodeCoordinates(p);
    PetscCheck(M.nrows == M.ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-product ptap: %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", p.name.c_str(), M.nrows, M.ncols);
    PetscCall(GamgProlongator(A, xyz, &B, &S->P));
    S->product      = "P^T*A*P";
    S->default_name = DefaultAlg(s);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "[%s] P: PCGAMG (smoothed aggregation, -pc_gamg_agg_nsmooths %" PetscInt_FMT ") set up on A in %.2f s (untimed, PETSc's own products), %" PetscInt_FMT
                          " levels; P = the finest level's interpolation (copied), %" PetscInt_FMT " x %" PetscInt_FMT ", nnz %" PetscInt64_FMT
                          ", block sizes %" PetscInt_FMT " x %" PetscInt_FMT "; near-null space: %s\n",
                          p.name.c_str(), S->P.nsmooths, S->P.setup_s, S->P.levels, S->P.rows, S->P.cols, S->P.nnz, S->P.rbs, S->P.cbs, S->P.near_null.c_str()));
  } else PetscCall(SecondFactorAB(A, M, &B, &MB, S));
  PetscCall(ComputeReference(p, A, B, s, &ref, S));
  for (const std::string &alg : algs) {
    if (alg == "graphblas") {
#if defined(PCLUSTER_HAVE_GRAPHBLAS)
      for (int t : s.graphblas_threads) {
        Figures f;
        f.name = "graphblas_" + std::to_string(t) + "t";
        f.kind = "graphblas";
        PetscCall(PetscLogStagePush(StageFor(f.name)));
        PetscErrorCode ierr = TimeGraphBLAS(M, B == A ? NULL : &MB, t, s, ref, &f);
        PetscCall(PetscLogStagePop());
        if (ierr) f.error = "GraphBLAS error (see the message above)";
        S->figs.push_back(f);
      }
#else
      Figures f;
      f.name  = "graphblas";
      f.kind  = "graphblas";
      f.error = "not compiled in (GraphBLAS.h / libgraphblas not found by CMake)";
      S->figs.push_back(f);
#endif
      continue;
    }
    Figures f;
    f.name = alg;
    const std::vector<std::string> &builtin = s.ptap ? kPetscPtAPAlgs : kPetscAlgs;
    f.kind = std::find(builtin.begin(), builtin.end(), alg) != builtin.end() ? "petsc" : "petsc-cluster";
    PetscCall(PetscLogStagePush(StageFor(alg)));
    PetscErrorCode ierr = TimeMatProduct(A, B, alg.c_str(), s, &ref, &f, &C);
    PetscCall(PetscLogStagePop());
    if (ierr) f.error = ErrorText(ierr);
    if (s.matmatmult) PetscCall(PetscOptionsClearValue(NULL, ViaOption(s))); /* also after an error */
    PetscCall(MatDestroy(&C));
    if (!ierr && s.memory) PetscCall(PeakMemory(A, B, alg.c_str(), s, &f)); /* after the timed runs: its trim does not touch them */
    S->figs.push_back(f);
  }
  if (B != A) PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  Summarise(S);
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* -study orderings: the seed paper's Table 2 on our suite                                     */

/* One (ordering, algorithm) product of the study */
struct StudyRun {
  std::string ordering;
  Figures     f;
  /* ratios; inf (null) when a figure is missing */
  double x_nat_oneshot = kInf, x_nat_reuse = kInf;     /* same algorithm at natural order / this */
  double x_rwnat_oneshot = kInf, x_rwnat_reuse = kInf; /* rowwise at natural order / this */
  double x_best_oneshot = kInf;                        /* PETSc's fastest built-in one-shot / this */
};

struct StudyOrdering {
  std::string name;
  double      time_s = kInf; /* MatGetOrdering(A, "pcluster_<name>"), best of reps; 0 for natural */
  double      cost_spgemms = kInf;
  std::string note; /* why there is no time */
};

struct StudyMatrix {
  Summary                    S; /* the matrix and PETSc's built-ins (S.figs) */
  std::vector<StudyOrdering> orderings;
  std::vector<StudyRun>      runs;
  double                     rowwise_natural_oneshot = kInf, rowwise_natural_reuse = kInf;
};

/* Best-of-reps wall time of MatGetOrdering(A, "pcluster_<name>"): exactly what the product computes
   in its symbolic phase (same core routine, same options), plus PETSc's IS creation and its
   permutation check. */
PetscErrorCode TimeOrdering(Mat A, const std::string &name, const Settings &s, double *t)
{
  const std::string type = "pcluster_" + name;
  PetscLogDouble    t0, t1;

  PetscFunctionBegin;
  for (PetscInt r = 0; r < s.reps; ++r) {
    IS rperm = NULL, cperm = NULL;
    PetscCall(PetscTime(&t0));
    PetscCall(MatGetOrdering(A, type.c_str(), &rperm, &cperm));
    PetscCall(PetscTime(&t1));
    PetscCall(ISDestroy(&rperm));
    PetscCall(ISDestroy(&cperm));
    *t = std::min(*t, t1 - t0);
  }
  PetscFunctionReturn(0);
}

const StudyRun *FindRun(const StudyMatrix &M, const std::string &ordering, const std::string &alg)
{
  for (const StudyRun &r : M.runs)
    if (r.ordering == ordering && r.f.name == alg) return &r;
  return nullptr;
}

/* Every ordering x algorithm on one matrix; orderings[0] is natural. Algorithm errors are recorded,
   not fatal. */
PetscErrorCode RunOrderingStudy(const Problem &p, const std::vector<std::string> &builtins, const std::vector<std::string> &algs,
                                const std::vector<std::string> &orderings, const Settings &s, StudyMatrix *out)
{
  Mat       A = NULL, B = NULL, C = NULL;
  Csr       M, MB;
  Reference ref;
  Summary  &S = out->S;

  PetscFunctionBegin;
  PetscCall(BuildAndDescribe(p, 1, &A, &M, &S));
  PetscCall(SecondFactorAB(A, M, &B, &MB, &S));
  PetscCall(ComputeReference(p, A, B, s, &ref, &S));
  for (const std::string &alg : builtins) { /* the reference point: PETSc's fastest on this matrix */
    Figures f;
    f.name = alg;
    f.kind = "petsc";
    PetscCall(PetscLogStagePush(StageFor(alg)));
    PetscErrorCode ierr = TimeMatProduct(A, B, alg.c_str(), s, &ref, &f, &C);
    PetscCall(PetscLogStagePop());
    if (ierr) f.error = ErrorText(ierr);
    PetscCall(MatDestroy(&C));
    S.figs.push_back(f);
  }
  Summarise(&S);

  for (const std::string &ord : orderings) {
    StudyOrdering o;
    o.name = ord;
    if (ord == "natural") o.time_s = 0;
    else if (M.nrows != M.ncols) o.note = "MatGetOrdering needs a square matrix (the product orders A's row graph; its time is in the one-shot figure only)";
    else {
      PetscErrorCode ierr = TimeOrdering(A, ord, s, &o.time_s);
      if (ierr) {
        o.time_s = kInf;
        o.note   = ErrorText(ierr);
      }
    }
    for (const std::string &alg : algs) {
      /* hierarchical clustering groups rows by similarity whatever their order: natural only */
      if (alg == MATPRODUCTALGORITHMCLUSTERHIERARCHICAL && ord != "natural") continue;
      StudyRun run;
      run.ordering = ord;
      run.f.name   = alg;
      run.f.kind   = "petsc-cluster";
      /* C has no prefix (MatProductCreate), so the plugin reads the unprefixed option */
      PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reorder", ord.c_str()));
      PetscCall(PetscLogStagePush(StageFor(alg + "@" + ord)));
      PetscErrorCode ierr = TimeMatProduct(A, B, alg.c_str(), s, &ref, &run.f, &C);
      PetscCall(PetscLogStagePop());
      PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_reorder")); /* also after an error */
      if (ierr) run.f.error = ErrorText(ierr);
      PetscCall(MatDestroy(&C));
      if (ord == "natural" && alg == MATPRODUCTALGORITHMROWWISE && run.f.ok()) {
        out->rowwise_natural_oneshot = run.f.oneshot;
        out->rowwise_natural_reuse   = run.f.reuse;
      }
      out->runs.push_back(run);
    }
    out->orderings.push_back(o);
  }
  if (B != A) PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));

  for (StudyOrdering &o : out->orderings) o.cost_spgemms = Ratio(o.time_s, out->rowwise_natural_oneshot);
  for (StudyRun &r : out->runs) {
    if (!r.f.ok()) continue;
    const StudyRun *nat = FindRun(*out, "natural", r.f.name);
    if (nat && nat->f.ok()) {
      r.x_nat_oneshot = Ratio(nat->f.oneshot, r.f.oneshot);
      r.x_nat_reuse   = Ratio(nat->f.reuse, r.f.reuse);
    }
    r.x_rwnat_oneshot = Ratio(out->rowwise_natural_oneshot, r.f.oneshot);
    r.x_rwnat_reuse   = Ratio(out->rowwise_natural_reuse, r.f.reuse);
    r.x_best_oneshot  = Ratio(S.best_builtin, r.f.oneshot);
  }
  PetscFunctionReturn(0);
}

const StudyOrdering *FindOrdering(const StudyMatrix &M, const std::string &name)
{
  for (const StudyOrdering &o : M.orderings)
    if (o.name == name) return &o;
  return nullptr;
}

void PrintStudyMatrix(const StudyMatrix &M, const Settings &s)
{
  const Summary &S = M.S;
  std::printf("\nMatrix %s, C = %s: %" PetscInt_FMT " rows, nnz(A) %" PetscInt64_FMT ", flops (multiply-adds) %" PetscInt64_FMT ", nnz(C) %" PetscInt64_FMT
              ", OpenMP threads %d, best of %" PetscInt_FMT "\n",
              S.name.c_str(), S.product.c_str(), S.rows, S.nnz, S.flops, S.nnz_c, MaxThreads(), s.reps);
  std::printf("PETSc built-ins (reference):");
  for (const Figures &f : S.figs) {
    if (f.ok()) std::printf(" %s %s/%s", f.name.c_str(), Fmt("%.4g", f.oneshot).c_str(), Fmt("%.4g", f.reuse).c_str());
    else std::printf(" %s %s", f.name.c_str(), f.error.empty() ? "FAIL" : "ERROR");
  }
  std::printf(" [s one-shot/reuse]; fastest one-shot %s %s s, fastest reuse %s s\n", S.best_builtin_name.empty() ? "none" : S.best_builtin_name.c_str(),
              Fmt("%.4g", S.best_builtin).c_str(), Fmt("%.4g", S.best_builtin_reuse).c_str());
  std::printf("%-10s %-21s %9s %9s %7s %7s %7s %7s %7s %9s %8s  %s\n", "ordering", "algorithm", "one-shot", "reuse", "x nat", "x nat", "x rwnat", "x rwnat", "x best",
              "ordering", "cost", "check (max rel. error)");
  std::printf("%-10s %-21s %9s %9s %7s %7s %7s %7s %7s %9s %8s\n", "", "", "[s]", "[s]", "1-shot", "reuse", "1-shot", "reuse", "1-shot", "[s]", "[SpGEMM]");
  for (const StudyRun &r : M.runs) {
    const StudyOrdering *o = FindOrdering(M, r.ordering);
    if (!r.f.ran || !r.f.error.empty()) {
      std::printf("%-10s %-21s ERROR: %s\n", r.ordering.c_str(), r.f.name.c_str(), r.f.error.empty() ? "did not run" : r.f.error.c_str());
      continue;
    }
    const std::string check = r.f.check.empty() ? "ok (" + Fmt("%.1e", r.f.rel_err) + ")" : "FAIL: " + r.f.check;
    std::printf("%-10s %-21s %9s %9s %7s %7s %7s %7s %7s %9s %8s  %s%s%s\n", r.ordering.c_str(), r.f.name.c_str(), Fmt("%.4g", r.f.oneshot).c_str(),
                Fmt("%.4g", r.f.reuse).c_str(), Fmt("%.2f", r.x_nat_oneshot).c_str(), Fmt("%.2f", r.x_nat_reuse).c_str(), Fmt("%.2f", r.x_rwnat_oneshot).c_str(),
                Fmt("%.2f", r.x_rwnat_reuse).c_str(), Fmt("%.2f", r.x_best_oneshot).c_str(), Fmt("%.4g", o ? o->time_s : kInf).c_str(),
                Fmt("%.2f", o ? o->cost_spgemms : kInf).c_str(), check.c_str(), o && !o->note.empty() ? "; ordering: " : "", o ? o->note.c_str() : "");
  }
  std::printf("x nat = same algorithm at natural order / this; x rwnat = rowwise at natural order / this; x best = PETSc's fastest built-in one-shot (%s) / this;\n"
              "ordering = MatGetOrdering(A, \"pcluster_<name>\") timed on its own (what the product computes in its symbolic phase, which the one-shot includes);\n"
              "cost = ordering / rowwise natural one-shot (%s s). > 1 is faster.\n",
              S.best_builtin_name.empty() ? "none" : S.best_builtin_name.c_str(), Fmt("%.4g", M.rowwise_natural_oneshot).c_str());
}

/* The Table-2-shaped summary of one (ordering, algorithm) over the matrices */
struct StudyCell {
  std::string ordering, alg;
  int         n = 0;                 /* matrices with both this run and its baseline ok */
  double      gm_oneshot = kInf, gm_reuse = kInf, share_oneshot = kInf, share_reuse = kInf;
  double      gm_rwnat_oneshot = kInf, gm_rwnat_reuse = kInf;
  int         n_cost = 0, paid5 = 0, paid20 = 0; /* n_cost: matrices with an ordering time */
  double      median_cost = kInf;
};

std::vector<StudyCell> SummariseStudy(const std::vector<StudyMatrix> &all, const std::vector<std::string> &orderings, const std::vector<std::string> &algs)
{
  std::vector<StudyCell> cells;
  auto geomean = [](const std::vector<double> &v) {
    if (v.empty()) return kInf;
    double l = 0;
    for (double x : v) l += std::log(x);
    return std::exp(l / v.size());
  };
  for (const std::string &ord : orderings)
    for (const std::string &alg : algs) {
      if (alg == MATPRODUCTALGORITHMCLUSTERHIERARCHICAL && ord != "natural") continue;
      StudyCell           c;
      std::vector<double> one, reuse, rwone, rwreuse, costs;
      int                 up1 = 0, upr = 0;
      c.ordering = ord;
      c.alg      = alg;
      for (const StudyMatrix &M : all) {
        const StudyRun      *r = FindRun(M, ord, alg);
        const StudyOrdering *o = FindOrdering(M, ord);
        if (!r || !std::isfinite(r->x_nat_oneshot) || !std::isfinite(r->x_nat_reuse)) continue;
        ++c.n;
        one.push_back(r->x_nat_oneshot);
        reuse.push_back(r->x_nat_reuse);
        up1 += r->x_nat_oneshot > 1.0;
        upr += r->x_nat_reuse > 1.0;
        if (std::isfinite(r->x_rwnat_oneshot) && std::isfinite(r->x_rwnat_reuse)) {
          rwone.push_back(r->x_rwnat_oneshot);
          rwreuse.push_back(r->x_rwnat_reuse);
        }
        if (o && std::isfinite(o->cost_spgemms)) {
          ++c.n_cost;
          costs.push_back(o->cost_spgemms);
          /* paid for itself: cheap enough, and every later (reuse) product is faster */
          c.paid5 += o->cost_spgemms <= 5 && r->x_nat_reuse > 1.0;
          c.paid20 += o->cost_spgemms <= 20 && r->x_nat_reuse > 1.0;
        }
      }
      c.gm_oneshot       = geomean(one);
      c.gm_reuse         = geomean(reuse);
      c.gm_rwnat_oneshot = geomean(rwone);
      c.gm_rwnat_reuse   = geomean(rwreuse);
      if (c.n) {
        c.share_oneshot = static_cast<double>(up1) / c.n;
        c.share_reuse   = static_cast<double>(upr) / c.n;
      }
      if (!costs.empty()) {
        std::sort(costs.begin(), costs.end());
        const std::size_t h = costs.size() / 2;
        c.median_cost       = costs.size() % 2 ? costs[h] : 0.5 * (costs[h - 1] + costs[h]);
      }
      cells.push_back(c);
    }
  return cells;
}

void PrintStudySummary(const std::vector<StudyCell> &cells, std::size_t nmatrices)
{
  std::printf("\nTable-2 summary over %zu matrices: speedup of each ordering over the same algorithm at natural order (geometric mean, share of matrices > 1.0)\n",
              nmatrices);
  std::printf("%-10s %-21s %3s %8s %6s %8s %6s %8s %8s %8s %7s %7s\n", "ordering", "algorithm", "n", "gm x nat", "sped", "gm x nat", "sped", "gm x rw", "gm x rw",
              "median", "paid", "paid");
  std::printf("%-10s %-21s %3s %8s %6s %8s %6s %8s %8s %8s %7s %7s\n", "", "", "", "1-shot", "up", "reuse", "up", "nat 1sh", "nat re", "cost", "<=5", "<=20");
  for (const StudyCell &c : cells) {
    const bool  hier = c.alg == MATPRODUCTALGORITHMCLUSTERHIERARCHICAL;
    const auto  pct  = [](double v) { return std::isfinite(v) ? std::to_string(static_cast<int>(std::lround(100 * v))) + "%" : std::string("-"); };
    const auto  frac = [&](int k) { return c.ordering == "natural" || !c.n_cost ? std::string("-") : std::to_string(k) + "/" + std::to_string(c.n_cost); };
    std::printf("%-10s %-21s %3d %8s %6s %8s %6s %8s %8s %8s %7s %7s\n", c.ordering.c_str(), c.alg.c_str(), c.n, hier ? "-" : Fmt("%.2f", c.gm_oneshot).c_str(),
                hier ? "-" : pct(c.share_oneshot).c_str(), hier ? "-" : Fmt("%.2f", c.gm_reuse).c_str(), hier ? "-" : pct(c.share_reuse).c_str(),
                Fmt("%.2f", c.gm_rwnat_oneshot).c_str(), Fmt("%.2f", c.gm_rwnat_reuse).c_str(), Fmt("%.2f", c.median_cost).c_str(), frac(c.paid5).c_str(),
                frac(c.paid20).c_str());
  }
  std::printf("1-shot includes the ordering (computed in the symbolic phase); reuse = numeric only. gm x rw nat = speedup over rowwise at natural order (the\n"
              "combined effect of ordering and clustering). cost = MatGetOrdering(A, \"pcluster_<name>\") time / rowwise natural one-shot A*A, in SpGEMMs\n"
              "(timed on its own; the plugin registers these orderings and computes the same permutation inside the product). paid <=k: matrices whose\n"
              "ordering costs <= k SpGEMMs and whose reuse product is faster than at natural order (out of those with an ordering time).\n"
              "cluster_hierarchical runs at natural order only (it groups rows by similarity whatever their order): compare it by gm x rw nat.\n");
}

void WriteStudyJson(std::FILE *fp, const std::vector<StudyMatrix> &all, const std::vector<StudyCell> &cells, const Settings &s)
{
  std::fprintf(fp, "{\n  \"program\": \"spgemm_bench\",\n  \"study\": \"orderings\",\n  \"product_type\": \"ab\",\n  \"api\": \"matproduct\",\n");
  std::fprintf(fp, "  \"threads\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"check_tol\": %s,\n", MaxThreads(), s.reps, JsonNumber(s.tol).c_str());
  std::fprintf(fp, "  \"timed\": %s,\n",
               JsonString("one-shot = MatProductCreate..SetFromOptions + Symbolic + first Numeric on a fresh C, with -mat_cluster_reorder ORDERING in the options "
                          "database (the ordering is computed in the symbolic phase, so one-shot includes it); reuse = MatProductNumeric after A is marked "
                          "modified; best of reps each; flops = multiply-adds")
                 .c_str());
  std::fprintf(fp, "  \"ordering_time\": %s,\n",
               JsonString("MatGetOrdering(A, \"pcluster_<name>\") timed on its own, best of reps (the plugin registers these orderings; they compute the "
                          "permutation the product uses); cost_spgemms = ordering_s / rowwise natural one-shot A*A")
                 .c_str());
  std::fprintf(fp, "  \"paid_within\": %s,\n", JsonString("cost_spgemms <= k and speedup_vs_natural_reuse > 1").c_str());
  std::fprintf(fp, "  \"matrices\": [\n");
  for (std::size_t m = 0; m < all.size(); ++m) {
    const StudyMatrix &M = all[m];
    const Summary     &S = M.S;
    std::fprintf(fp, "    {\"name\": %s, \"product\": %s, \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"flops\": %" PetscInt64_FMT ", \"nnz_c\": %" PetscInt64_FMT ",\n",
                 JsonString(S.name).c_str(), JsonString(S.product).c_str(), S.rows, S.nnz, S.flops, S.nnz_c);
    std::fprintf(fp, "     \"best_builtin\": %s, \"best_builtin_oneshot_s\": %s, \"best_builtin_reuse_s\": %s, \"rowwise_natural_oneshot_s\": %s, \"rowwise_natural_reuse_s\": %s,\n",
                 JsonString(S.best_builtin_name).c_str(), JsonNumber(S.best_builtin).c_str(), JsonNumber(S.best_builtin_reuse).c_str(),
                 JsonNumber(M.rowwise_natural_oneshot).c_str(), JsonNumber(M.rowwise_natural_reuse).c_str());
    std::fprintf(fp, "     \"builtins\": [");
    for (std::size_t a = 0; a < S.figs.size(); ++a) {
      const Figures &f = S.figs[a];
      std::fprintf(fp, "%s{\"name\": %s, \"status\": %s, \"error\": %s, \"check\": %s, \"oneshot_s\": %s, \"reuse_s\": %s}", a ? ", " : "", JsonString(f.name).c_str(),
                   JsonString(!f.ran || !f.error.empty() ? "error" : f.check.empty() ? "ok" : "FAIL").c_str(), JsonString(f.error).c_str(), JsonString(f.check).c_str(),
                   JsonNumber(f.oneshot).c_str(), JsonNumber(f.reuse).c_str());
    }
    std::fprintf(fp, "],\n     \"orderings\": [");
    for (std::size_t k = 0; k < M.orderings.size(); ++k) {
      const StudyOrdering &o = M.orderings[k];
      std::fprintf(fp, "%s{\"name\": %s, \"ordering_s\": %s, \"cost_spgemms\": %s, \"note\": %s}", k ? ", " : "", JsonString(o.name).c_str(), JsonNumber(o.time_s).c_str(),
                   JsonNumber(o.cost_spgemms).c_str(), JsonString(o.note).c_str());
    }
    std::fprintf(fp, "],\n     \"runs\": [\n");
    for (std::size_t k = 0; k < M.runs.size(); ++k) {
      const StudyRun &r = M.runs[k];
      std::fprintf(fp,
                   "       {\"ordering\": %s, \"algorithm\": %s, \"status\": %s, \"error\": %s, \"check\": %s, \"oneshot_s\": %s, \"symbolic_s\": %s, \"reuse_s\": %s, "
                   "\"rel_err\": %s, \"speedup_vs_natural_oneshot\": %s, \"speedup_vs_natural_reuse\": %s, \"speedup_vs_rowwise_natural_oneshot\": %s, "
                   "\"speedup_vs_rowwise_natural_reuse\": %s, \"speedup_vs_best_builtin\": %s}%s\n",
                   JsonString(r.ordering).c_str(), JsonString(r.f.name).c_str(), JsonString(!r.f.ran || !r.f.error.empty() ? "error" : r.f.check.empty() ? "ok" : "FAIL").c_str(),
                   JsonString(r.f.error).c_str(), JsonString(r.f.check).c_str(), JsonNumber(r.f.oneshot).c_str(), JsonNumber(r.f.symbolic).c_str(),
                   JsonNumber(r.f.reuse).c_str(), JsonNumber(r.f.ran ? r.f.rel_err : kInf).c_str(), JsonNumber(r.x_nat_oneshot).c_str(), JsonNumber(r.x_nat_reuse).c_str(),
                   JsonNumber(r.x_rwnat_oneshot).c_str(), JsonNumber(r.x_rwnat_reuse).c_str(), JsonNumber(r.x_best_oneshot).c_str(), k + 1 < M.runs.size() ? "," : "");
    }
    std::fprintf(fp, "     ]}%s\n", m + 1 < all.size() ? "," : "");
  }
  std::fprintf(fp, "  ],\n  \"summary\": [\n");
  for (std::size_t k = 0; k < cells.size(); ++k) {
    const StudyCell &c = cells[k];
    std::fprintf(fp,
                 "    {\"ordering\": %s, \"algorithm\": %s, \"matrices\": %d, \"geomean_speedup_oneshot\": %s, \"share_sped_up_oneshot\": %s, "
                 "\"geomean_speedup_reuse\": %s, \"share_sped_up_reuse\": %s, \"geomean_speedup_vs_rowwise_natural_oneshot\": %s, "
                 "\"geomean_speedup_vs_rowwise_natural_reuse\": %s, \"median_cost_spgemms\": %s, \"matrices_with_cost\": %d, \"paid_within_5\": %d, \"paid_within_20\": %d}%s\n",
                 JsonString(c.ordering).c_str(), JsonString(c.alg).c_str(), c.n, JsonNumber(c.gm_oneshot).c_str(), JsonNumber(c.share_oneshot).c_str(),
                 JsonNumber(c.gm_reuse).c_str(), JsonNumber(c.share_reuse).c_str(), JsonNumber(c.gm_rwnat_oneshot).c_str(), JsonNumber(c.gm_rwnat_reuse).c_str(),
                 JsonNumber(c.median_cost).c_str(), c.n_cost, c.paid5, c.paid20, k + 1 < cells.size() ? "," : "");
  }
  std::fprintf(fp, "  ]\n}\n");
}

} // namespace

int main(int argc, char **argv)
{
  MatrixOptions            mo;
  PetscBool                set;
  char                     json[PETSC_MAX_PATH_LEN] = "";
  char                    *alglist[64];
  PetscInt                 nalgs = 64;
  PetscInt                 gbt[16] = {0}, ngbt = 16;
  Settings                 s;
  std::vector<std::string> algs;
  PetscBool                study_orderings = PETSC_FALSE;
  char                    *ordlist[64];
  PetscInt                 nords = 64;
  std::vector<std::string> orderings;
  std::vector<Problem>     problems;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(BenchSetUp("spgemm_bench"));

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "spgemm_bench options", "Mat");
  PetscCall(MatrixOptionsRead(PetscOptionsObject, &mo));
  PetscCall(PetscOptionsStringArray("-algs", "Comma-separated algorithms (default: all)", "", alglist, &nalgs, &set));
  if (!set) nalgs = 0;
  PetscCall(PetscOptionsInt("-reps", "Best of this many runs", "", s.reps, &s.reps, NULL));
  {
    const char *products[] = {"ab", "ptap"};
    PetscInt    product    = 0;
    PetscCall(PetscOptionsEList("-product", "C = A*A, or C = P^T*A*P with PCGAMG's prolongator P", "", products, 2, products[0], &product, NULL));
    s.ptap = product == 1;
  }
  {
    const char *apis[] = {"matproduct", "matmatmult", "matptap"};
    PetscInt    api    = 0;
    PetscCall(PetscOptionsEList("-api", "How products are formed: MatProductCreate/Symbolic/Numeric, or MatMatMult (MatPtAP for -product ptap)", "", apis, 3,
                                apis[0], &api, NULL));
    PetscCheck(api != 2 || s.ptap, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-api matptap needs -product ptap (for C = A*A: -api matmatmult)");
    s.matmatmult = api != 0;
  }
  PetscCall(PetscOptionsIntArray("-graphblas_threads", "GraphBLAS thread counts (one row each)", "", gbt, &ngbt, &set));
  if (!set) ngbt = 0;
  PetscCall(PetscOptionsReal("-check_tol", "Max relative error vs PETSc's default", "", s.tol, &s.tol, NULL));
  {
    PetscBool memory = s.memory ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscOptionsBool("-memory", "Measure each algorithm's peak memory on an extra, untimed one-shot", "", memory, &memory, NULL));
    s.memory = memory;
  }
  PetscCall(PetscOptionsString("-json", "Write the figures to this JSON file", "", json, json, sizeof json, NULL));
  {
    const char *studies[] = {"none", "orderings"};
    PetscInt    study     = 0;
    PetscCall(PetscOptionsEList("-study", "Run a study instead of the algorithm comparison: orderings (the seed paper's Table 2)", "", studies, 2, studies[0], &study, NULL));
    study_orderings = study == 1 ? PETSC_TRUE : PETSC_FALSE;
  }
  PetscCall(PetscOptionsStringArray("-orderings", "Comma-separated orderings of -study orderings (default: all)", "", ordlist, &nords, &set));
  if (!set) nords = 0;
  PetscOptionsEnd();

  PetscCheck(s.reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", s.reps);
  PetscCall(MatrixOptionsProblems(mo, &problems));
  for (PetscInt i = 0; i < ngbt; ++i) {
    PetscCheck(gbt[i] >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-graphblas_threads: %" PetscInt_FMT " must be >= 1", gbt[i]);
    s.graphblas_threads.push_back(static_cast<int>(gbt[i]));
  }
  if (s.graphblas_threads.empty()) s.graphblas_threads.push_back(MaxThreads());

  {
    std::vector<std::string> valid = s.ptap ? kPetscPtAPAlgs : kPetscAlgs;
    if (!s.ptap) valid.push_back("graphblas"); /* GrB_mxm is A*B only */
    valid.insert(valid.end(), kOurAlgs.begin(), kOurAlgs.end());
    std::string valid_list;
    for (const std::string &v : valid) valid_list += " " + v;
    for (PetscInt i = 0; i < nalgs; ++i) {
      const std::string a = alglist[i];
      PetscCall(PetscFree(alglist[i]));
      PetscCheck(std::find(valid.begin(), valid.end(), a) != valid.end(), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE,
                 "-algs: unknown algorithm '%s' for -product %s; valid:%s", a.c_str(), s.ptap ? "ptap" : "ab", valid_list.c_str());
      algs.push_back(a);
    }
    if (algs.empty() && !study_orderings) algs = valid;
  }
  {
    std::vector<std::string> valid;
    std::string              valid_list;
    for (pcluster::OrderingType t : pcluster::all_orderings()) {
      valid.push_back(pcluster::to_string(t));
      valid_list += " " + valid.back();
    }
    for (PetscInt i = 0; i < nords; ++i) {
      const std::string o = ordlist[i];
      PetscCall(PetscFree(ordlist[i]));
      PetscCheck(std::find(valid.begin(), valid.end(), o) != valid.end(), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-orderings: unknown ordering '%s'; valid:%s",
                 o.c_str(), valid_list.c_str());
      if (std::find(orderings.begin(), orderings.end(), o) == orderings.end()) orderings.push_back(o);
    }
    PetscCheck(study_orderings || nords == 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-orderings needs -study orderings");
    if (orderings.empty())
      for (pcluster::OrderingType t : pcluster::all_orderings()) orderings.push_back(pcluster::to_string(t));
    /* natural is the baseline of every speedup: always run, first */
    orderings.erase(std::remove(orderings.begin(), orderings.end(), std::string("natural")), orderings.end());
    orderings.insert(orderings.begin(), "natural");
  }
  std::vector<std::string> study_builtins, study_algs;
  if (study_orderings) {
    PetscCheck(!s.ptap && !s.matmatmult, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-study orderings runs C = A*A through MatProductCreate: no -product ptap, no -api matmatmult");
    for (const std::string &a : algs) {
      PetscCheck(a != "graphblas", PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-study orderings: graphblas has no ordering option; leave it out of -algs");
      if (std::find(kPetscAlgs.begin(), kPetscAlgs.end(), a) != kPetscAlgs.end()) study_builtins.push_back(a);
      else study_algs.push_back(a);
    }
    if (study_builtins.empty()) study_builtins = kPetscAlgs;
    if (study_algs.empty()) study_algs = {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL};
    /* rowwise at natural order is the unit of the ordering cost ("SpGEMMs"): always run */
    if (std::find(study_algs.begin(), study_algs.end(), MATPRODUCTALGORITHMROWWISE) == study_algs.end()) study_algs.insert(study_algs.begin(), MATPRODUCTALGORITHMROWWISE);
  }

  PetscCall(GraphBLASInitialize());
  if (s.ptap) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spgemm_bench: C = P^T*A*P, P = PCGAMG's prolongator for A (finest level, made untimed with PETSc's own products); OpenMP threads "
                          "(omp_get_max_threads) %d (PETSc's own algorithms are sequential); best of %" PetscInt_FMT "\n"
                          "timed: %s\n"
                          "check: pattern identical to and values within %.1e (relative to max|C|) of PETSc's default (scalable), after one-shot, reuse, and reuse with A doubled.\n",
                          MaxThreads(), s.reps,
                          s.matmatmult ? "one-shot = MatPtAP(MAT_INITIAL_MATRIX) with -matptap_via ALG on a fresh C; reuse = MatPtAP(MAT_REUSE_MATRIX) after A is marked modified;"
                                       : "one-shot = MatProductCreate(A,P)/SetType(PtAP)/SetAlgorithm/SetFromOptions + Symbolic + first Numeric on a fresh C; symbolic = "
                                         "MatProductSymbolic; reuse = MatProductNumeric after A is marked modified;",
                          (double)s.tol));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spgemm_bench: C = A*A (A*A^T, A^T formed untimed, if A is not square); OpenMP threads (omp_get_max_threads) %d (PETSc's own algorithms are sequential); best of %" PetscInt_FMT "\n"
                          "timed: %s\n"
                          "       graphblas = GrB_Matrix_new + GrB_mxm(PLUS_TIMES_FP64) + GrB_wait + GxB_Matrix_unpack_CSR (sorted CSR), A's import untimed.\n"
                          "check: pattern identical to and values within %.1e (relative to max|C|) of PETSc's default, after one-shot, reuse, and reuse with A doubled.\n",
                          MaxThreads(), s.reps,
                          s.matmatmult ? "one-shot = MatMatMult(MAT_INITIAL_MATRIX) with -matmatmult_via ALG on a fresh C; reuse = MatMatMult(MAT_REUSE_MATRIX) after A is marked modified;"
                                       : "one-shot = MatProductCreate/SetType/SetAlgorithm/SetFromOptions + Symbolic + first Numeric on a fresh C; symbolic = MatProductSymbolic; reuse = MatProductNumeric after A is marked modified;",
                          (double)s.tol));
  }

  bool any_bad = false;
  if (study_orderings) {
    std::string ords, ours, refs;
    for (const std::string &o : orderings) ords += " " + o;
    for (const std::string &a : study_algs) ours += " " + a;
    for (const std::string &a : study_builtins) refs += " " + a;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "study: orderings:%s\n       ours:%s (cluster_hierarchical at natural order only), each with -mat_cluster_reorder ORDERING; PETSc's (reference):%s\n"
                          "       ordering cost: MatGetOrdering(A, \"pcluster_<name>\") timed on its own (the plugin registers these PETSc orderings; they compute the\n"
                          "       permutation the product uses), best of %" PetscInt_FMT ", in units of one rowwise natural-order one-shot A*A\n",
                          ords.c_str(), ours.c_str(), refs.c_str(), s.reps));
    std::vector<StudyMatrix> study;
    for (const Problem &p : problems) {
      StudyMatrix M;
      PetscCall(RunOrderingStudy(p, study_builtins, study_algs, orderings, s, &M));
      PrintStudyMatrix(M, s);
      std::fflush(stdout);
      for (const Figures &f : M.S.figs) any_bad = any_bad || !f.ok();
      for (const StudyRun &r : M.runs) any_bad = any_bad || !r.f.ok();
      study.push_back(std::move(M));
      if (json[0]) PetscCall(RewriteJson(json, [&](std::FILE *fp) { WriteStudyJson(fp, study, SummariseStudy(study, orderings, study_algs), s); }));
    }
    PrintStudySummary(SummariseStudy(study, orderings, study_algs), study.size());
  } else {
    std::vector<Summary> all;
    for (const Problem &p : problems) {
      Summary S;
      PetscCall(RunProblem(p, algs, s, &S));
      PrintTable(S, s);
      std::fflush(stdout);
      for (const Figures &f : S.figs) any_bad = any_bad || !f.ok();
      all.push_back(std::move(S));
      if (json[0]) PetscCall(RewriteJson(json, [&](std::FILE *fp) { WriteJson(fp, all, s); }));
    }
  }
  if (json[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nJSON written to %s\n", json));
  if (any_bad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nspgemm_bench: at least one algorithm FAILED its check or raised an error (exit code 1)\n"));
  GraphBLASFinalize();
  PetscCall(PetscFinalize());
  return any_bad ? 1 : 0;
}
