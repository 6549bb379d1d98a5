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
#include "machine_floor.hpp"
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
  "  -rounds <R>            every algorithm once, then again, R times (interleaved); each figure is the median\n"
  "                         of the R rounds' best-of-N, its range reported (default 1; 3 for -sweep)\n"
  "  -prune <F>             after round 1, PETSc's built-in algorithms F times slower than PETSc's fastest there\n"
  "                         in one-shot, and in reuse too unless another built-in that stays runs the same\n"
  "                         numeric function, are not run again: they cannot be the fastest (their figure is that\n"
  "                         one round, never taken as PETSc's fastest; the ones left out are printed). 0: off\n"
  "                         (default; 4 for -sweep)\n"
  "  -api <matproduct|matmatmult|matptap>  matproduct (default): MatProductCreate, SetType(AB), SetAlgorithm,\n"
  "                         SetFromOptions, Symbolic, Numeric; reuse = Numeric. matmatmult: MatMatMult(\n"
  "                         MAT_INITIAL_MATRIX) with -matmatmult_via set to each algorithm; reuse =\n"
  "                         MatMatMult(MAT_REUSE_MATRIX); no separate symbolic figure (matptap: -product ptap)\n"
  "  -graphblas_threads <t1,t2,...>  GraphBLAS thread counts, one row each (default: omp_get_max_threads())\n"
  "  -check_tol <tol>       |C - C_ref| allowed per entry, relative to its scale: the entry of |A||B| (of\n"
  "                         |P|^T|A||P| for ptap); exact where every operand value is an integer (default 1e-12)\n"
  "  -memory <bool>         measure each algorithm's peak memory (default true; false skips the extra one-shots):\n"
  "                         peak MB = the resident memory one extra, untimed one-shot product adds at its peak\n"
  "                         (after the timed runs: malloc_trim(0), VmHWM reset through /proc/self/clear_refs,\n"
  "                         VmRSS read; after the product VmHWM - VmRSS(before)). It includes C and whatever the\n"
  "                         algorithm keeps for reuse (ours: transposes, intermediates of PtAP); pages allocated\n"
  "                         but never touched do not count. GraphBLAS: new + mxm + wait + unpack, the same way.\n"
  "  -max_peak_ratio <r>    exit nonzero if the peak memory of one of our algorithms exceeds r times PETSc default's\n"
  "                         (scalable for ptap) on the same matrix (0, the default: no limit; needs -memory)\n"
  "  -json <file>           also write the figures as JSON\n"
  "The row-ordering study (the seed paper's Table 2) is the program ordering_study (the same matrix options).\n"
  "C = P^T A P with PCGAMG's prolongator (-product ptap):\n"
  "  -product <ab|ptap|ap>  ab (default): C = A*A as above. ptap: A as above (square), then an untimed PCGAMG\n"
  "                         set-up on A with PETSc's own product algorithms gives P = the finest level's\n"
  "                         interpolation (PCMGGetInterpolation, copied); C = P^T A P is timed with PETSc's\n"
  "                         scalable (its default), rap, hypre and ours. e27: block size 3 and the 6 rigid\n"
  "                         body modes of its grid as near-null space; other inputs: PCGAMG's default\n"
  "                         (constant). PCGAMG options apply to the set-up (-pc_gamg_agg_nsmooths, default 1,\n"
  "                         -pc_gamg_threshold, -pc_gamg_aggressive_coarsening, ...). No GraphBLAS, no GF/s:\n"
  "                         times and ratios against PETSc's fastest PtAP and its default; -api matmatmult\n"
  "                         (or matptap) times MatPtAP(MAT_INITIAL_MATRIX / MAT_REUSE_MATRIX) with -matptap_via\n"
  "C = A P with PCGAMG's tentative prolongator (-product ap): the product of PCGAMG's prolongator smoothing\n"
  "  -product ap            A as above (square), P = the finest level's interpolation of an untimed PCGAMG set-up\n"
  "                         with -pc_gamg_agg_nsmooths 0 (unsmoothed: one entry a row with PCGAMG's constant\n"
  "                         near-null space, 6 a row for e27's rigid body modes); C = A*P is timed as A*A is\n"
  "                         (every AB algorithm, GraphBLAS, -api matmatmult)\n"
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

/* -max_peak_ratio: each of our algorithms' peak memory against PETSc default's on the same matrix, in the same run */
PetscErrorCode CheckPeaks(const Summary &S, const Settings &s, PetscReal limit, bool *any_bad)
{
  const Figures *def = nullptr;

  PetscFunctionBeginUser;
  for (const Figures &f : S.figs)
    if (f.name == DefaultAlg(s)) def = &f;
  PetscCheck(def && def->ok() && std::isfinite(def->peak_mb), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-max_peak_ratio: %s needs PETSc's default (%s) in -algs, measured", S.name.c_str(),
             DefaultAlg(s));
  for (const Figures &f : S.figs) {
    if (f.kind != "petsc-cluster" || !f.ok()) continue;
    const double ratio = f.peak_mb / def->peak_mb;
    const bool   over  = !(ratio <= limit); /* NaN (not measured) fails too */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "peak memory %s on %s: %.1f MB = %.2f x %s's %.1f MB (limit %.2f)%s\n", f.name.c_str(), S.name.c_str(), f.peak_mb, ratio, def->name.c_str(),
                          def->peak_mb, (double)limit, over ? ": OVER THE LIMIT" : ""));
    *any_bad = *any_bad || over;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
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
  PetscFunctionReturn(PETSC_SUCCESS);
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

/* Our algorithms' ratios on one matrix: PETSc's fastest built-in / ours (> 1: ours faster) */
struct OurRatios {
  double oneshot = kInf, reuse = kInf;
};
inline OurRatios RatiosOf(const Summary &S, const Figures &f)
{
  return {Ratio(S.best_builtin, f.oneshot), Ratio(S.best_builtin_reuse, f.reuse)};
}

/* The sweep's summary (C = A*A): per matrix PETSc's fastest and each of ours against it and against
   the machine's floor; then per algorithm of ours the geometric mean and the minimum of the ratios,
   and for `cluster` how often it chose the cluster-wise kernel and what that bought over rowwise */
void PrintSummary(const std::vector<Summary> &all, const Settings &s, const MachineFloor &m)
{
  std::vector<std::string> ours;
  for (const Figures &f : all.front().figs)
    if (f.kind == "petsc-cluster") ours.push_back(f.name);
  if (ours.empty() || s.ptap) return;
  std::printf("\nSummary over %zu matrices: ratio = PETSc's fastest built-in (SeqAIJ AB: %zu algorithms) / ours, %s; > 1: ours faster.\n"
              "floor = bytes / STREAM triad (%.1f GB/s on %d thread(s)) + first-touch faults (%.2f us per 4 KiB page) of the memory written; x floor = time / floor,\n"
              "per phase: symbolic (MatProductSymbolic), first numeric (one-shot - symbolic) and reuse; peak = our one-shot's peak / PETSc default's (-memory).\n",
              all.size(), kPetscAlgs.size(), s.rounds > 1 ? ("medians of " + std::to_string(static_cast<long long>(s.rounds)) + " interleaved rounds (range: min-max)").c_str() : "one round",
              MaxThreads() > 1 ? m.triad_gbs_nt : m.triad_gbs_1t, MaxThreads(), m.fault_us);
  std::printf("%-30s %-22s %-22s %-15s", "matrix", "PETSc 1-shot [s]", "PETSc reuse [s]", "floor 1s/reuse");
  for (const std::string &a : ours) std::printf(" | %-64s", (a + ": 1-shot, reuse, x floor sym/num1/reuse, peak, kernel").c_str());
  std::printf("\n");
  std::map<std::string, std::vector<double>> r1, rr;
  std::map<std::string, std::pair<double, std::string>> min1, minr, max_peak;
  int cluster_chosen = 0, cluster_seen = 0;
  std::vector<double> cluster_gain; /* cluster / rowwise one-shot speed where cluster ran cluster-wise */
  for (const Summary &S : all) {
    const ProductFloor fl = FloorOf(m, S.rows, S.nnz, S.rows_b, S.nnz_b, S.nnz_c, MaxThreads());
    std::string best_reuse_name;
    double      default_peak = std::nan("");
    for (const Figures &f : S.figs) {
      if (f.kind == "petsc" && f.ok() && f.reuse == S.best_builtin_reuse) best_reuse_name = f.name;
      if (f.name == kPetscDefault && f.ok()) default_peak = f.peak_mb;
    }
    std::printf("%-30s %8s %-13s %8s %-13s %6s/%-8s", S.name.substr(0, 30).c_str(), Fmt("%.4g", S.best_builtin).c_str(), S.best_builtin_name.c_str(), Fmt("%.4g", S.best_builtin_reuse).c_str(),
                best_reuse_name.c_str(), Fmt("%.3g", fl.oneshot).c_str(), Fmt("%.3g", fl.reuse).c_str());
    const Figures *rowwise = nullptr, *cluster = nullptr;
    for (const std::string &a : ours)
      for (const Figures &f : S.figs) {
        if (f.name != a) continue;
        if (a == MATPRODUCTALGORITHMROWWISE) rowwise = &f;
        if (a == MATPRODUCTALGORITHMCLUSTER) cluster = &f;
        const OurRatios q = RatiosOf(S, f);
        const double    peak = f.peak_mb / default_peak; /* NaN without -memory */
        char            cell[200];
        std::snprintf(cell, sizeof cell, "%s[%s-%s] %s  %s/%s/%s  %s %s", Fmt("%.2f", q.oneshot).c_str(), Fmt("%.2f", Ratio(S.best_builtin, Figures::Highest(f.oneshot_rounds))).c_str(),
                      Fmt("%.2f", Ratio(S.best_builtin, Figures::Lowest(f.oneshot_rounds))).c_str(), Fmt("%.2f", q.reuse).c_str(), Fmt("%.1f", Ratio(f.symbolic, fl.symbolic)).c_str(),
                      Fmt("%.1f", Ratio(f.oneshot - f.symbolic, fl.numeric_first)).c_str(), Fmt("%.1f", Ratio(f.reuse, fl.reuse)).c_str(),
                      std::isnan(peak) ? "-" : Fmt("%.2f", peak).c_str(), f.ok() ? f.chosen.c_str() : "FAILED");
        std::printf(" | %-64s", cell);
        if (!f.ok()) continue;
        if (!std::isnan(peak) && (!max_peak.count(a) || peak > max_peak[a].first)) max_peak[a] = {peak, S.name};
        r1[a].push_back(q.oneshot);
        rr[a].push_back(q.reuse);
        if (!min1.count(a) || q.oneshot < min1[a].first) min1[a] = {q.oneshot, S.name};
        if (!minr.count(a) || q.reuse < minr[a].first) minr[a] = {q.reuse, S.name};
      }
    if (cluster && cluster->ok()) {
      ++cluster_seen;
      if (cluster->chosen.rfind("cluster", 0) == 0) {
        ++cluster_chosen;
        if (rowwise && rowwise->ok()) cluster_gain.push_back(rowwise->oneshot / cluster->oneshot);
      }
    }
    std::printf("\n");
  }
  auto geomean = [](const std::vector<double> &v) {
    double l = 0;
    for (double x : v) l += std::log(x);
    return v.empty() ? kInf : std::exp(l / static_cast<double>(v.size()));
  };
  for (const std::string &a : ours)
    std::printf("%-22s geometric mean 1-shot %s, reuse %s; minimum 1-shot %s (%s), reuse %s (%s)\n", a.c_str(), Fmt("%.3f", geomean(r1[a])).c_str(), Fmt("%.3f", geomean(rr[a])).c_str(),
                Fmt("%.3f", min1[a].first).c_str(), min1[a].second.c_str(), Fmt("%.3f", minr[a].first).c_str(), minr[a].second.c_str());
  for (const std::string &a : ours)
    if (max_peak.count(a)) std::printf("%-22s largest peak against PETSc's default %s (%s)\n", a.c_str(), Fmt("%.2f", max_peak[a].first).c_str(), max_peak[a].second.c_str());
  if (cluster_seen)
    std::printf("cluster chose the cluster-wise kernel on %d of %d matrices%s%s\n", cluster_chosen, cluster_seen, cluster_gain.empty() ? "" : "; there its one-shot was rowwise's x ",
                cluster_gain.empty() ? "" : Fmt("%.3f", geomean(cluster_gain)).c_str());
}

void WriteJson(std::FILE *fp, const std::vector<Summary> &all, const Settings &s, const MachineFloor &m)
{
  const char *api = !s.matmatmult ? "matproduct" : s.ptap ? "matptap" : "matmatmult";
  std::fprintf(fp, "{\n  \"program\": \"spgemm_bench\",\n  \"threads\": %d,\n  \"reps\": %" PetscInt_FMT ",\n  \"check_tol\": %s,\n", MaxThreads(), s.reps,
               JsonNumber(s.tol).c_str());
  std::fprintf(fp, "  \"product_type\": %s,\n", JsonString(s.ptap ? "ptap" : s.tentative ? "ap" : "ab").c_str());
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
  std::fprintf(fp, "  \"rounds\": %" PetscInt_FMT ", \"figures\": %s,\n", s.rounds, JsonString(s.rounds > 1 ? "medians of the rounds' best-of-reps; *_lo/*_hi their range" : "best of reps").c_str());
  std::fprintf(fp, "  \"machine\": {\"triad_gbs_1t\": %s, \"triad_gbs\": %s, \"threads\": %d, \"fault_us_per_page\": %s},\n", JsonNumber(m.triad_gbs_1t).c_str(), JsonNumber(m.triad_gbs_nt).c_str(), m.threads,
               JsonNumber(m.fault_us).c_str());
  std::fprintf(fp, "  \"matrices\": [\n");
  for (std::size_t mi = 0; mi < all.size(); ++mi) {
    const Summary    &S     = all[mi];
    const std::string flops = S.flops >= 0 ? std::to_string(static_cast<long long>(S.flops)) : "null";
    std::fprintf(fp, "    {\"name\": %s, \"product\": %s, \"rows\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT ", \"flops\": %s, \"nnz_c\": %" PetscInt64_FMT ", \"threads\": %d,\n",
                 JsonString(S.name).c_str(), JsonString(S.product).c_str(), S.rows, S.nnz, flops.c_str(), S.nnz_c, MaxThreads());
    if (s.ptap || s.tentative)
      std::fprintf(fp,
                   "     \"prolongator\": {\"made_by\": \"PCGAMG\", \"levels\": %" PetscInt_FMT ", \"rows\": %" PetscInt_FMT ", \"cols\": %" PetscInt_FMT ", \"nnz\": %" PetscInt64_FMT
                   ", \"row_block_size\": %" PetscInt_FMT ", \"col_block_size\": %" PetscInt_FMT ", \"agg_nsmooths\": %" PetscInt_FMT ", \"near_null_space\": %s, \"setup_s\": %s},\n",
                   S.P.levels, S.P.rows, S.P.cols, S.P.nnz, S.P.rbs, S.P.cbs, S.P.nsmooths, JsonString(S.P.near_null).c_str(), JsonNumber(S.P.setup_s).c_str());
    if (!s.ptap) {
      const ProductFloor fl = FloorOf(m, S.rows, S.nnz, S.rows_b, S.nnz_b, S.nnz_c, MaxThreads());
      std::fprintf(fp, "     \"floor_s\": {\"symbolic\": %s, \"numeric_first\": %s, \"reuse\": %s, \"oneshot\": %s},\n", JsonNumber(fl.symbolic).c_str(), JsonNumber(fl.numeric_first).c_str(),
                   JsonNumber(fl.reuse).c_str(), JsonNumber(fl.oneshot).c_str());
    }
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
                   "\"speedup_vs_default\": %s, \"reuse_speedup_vs_best_builtin\": %s, \"reuse_speedup_vs_default\": %s, \"extra_explicit_zeros\": %" PetscInt64_FMT ", \"peak_mb\": %s, "
                   "\"oneshot_lo_s\": %s, \"oneshot_hi_s\": %s, \"reuse_lo_s\": %s, \"reuse_hi_s\": %s, \"kernel\": %s}%s\n",
                   JsonString(f.name).c_str(), JsonString(f.kind).c_str(), JsonString(!f.ran || !f.error.empty() ? "error" : f.check.empty() ? "ok" : "FAIL").c_str(),
                   JsonString(f.error).c_str(), JsonString(f.check).c_str(), JsonNumber(f.oneshot).c_str(), JsonNumber(f.symbolic).c_str(),
                   JsonNumber(f.reuse).c_str(), JsonNumber(Ratio(gf, f.oneshot)).c_str(), JsonNumber(Ratio(gf, f.reuse)).c_str(), f.nnz_c,
                   JsonNumber(f.ran ? f.rel_err : kInf).c_str(), JsonNumber(Ratio(S.best_builtin, f.oneshot)).c_str(),
                   JsonNumber(Ratio(S.dflt, f.oneshot)).c_str(), JsonNumber(Ratio(S.best_builtin_reuse, f.reuse)).c_str(), JsonNumber(Ratio(S.dflt_reuse, f.reuse)).c_str(),
                   f.extra_zeros, JsonNumber(f.peak_mb).c_str(), JsonNumber(Figures::Lowest(f.oneshot_rounds)).c_str(), JsonNumber(Figures::Highest(f.oneshot_rounds)).c_str(),
                   JsonNumber(Figures::Lowest(f.reuse_rounds)).c_str(), JsonNumber(Figures::Highest(f.reuse_rounds)).c_str(), JsonString(f.chosen).c_str(), a + 1 < S.figs.size() ? "," : "");
    }
    std::fprintf(fp, "     ]}%s\n", mi + 1 < all.size() ? "," : "");
  }
  std::fprintf(fp, "  ]\n}\n");
}

/* ------------------------------------------------------------------------------------------ */

/* The prolongator PCGAMG builds for A: an untimed PCGAMG set-up on A (PCGAMG's options apply;
   smoothed aggregation with 1 smoothing step unless -pc_gamg_agg_nsmooths says otherwise), then a
   copy of the finest level's interpolation, so that P outlives the PC. xyz: node coordinates for
   rigid body modes (block size 3), or empty for PCGAMG's default near-null space (constant per
   block). nsmooths: PCGAMG's prolongator smoothing steps, or -1 for its options' (default 1). */
PetscErrorCode GamgProlongator(Mat A, std::vector<PetscScalar> &xyz, PetscInt nsmooths, Mat *P, Prolongator *info)
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
  if (nsmooths >= 0) PetscCall(PCGAMGSetNSmooths(pc, nsmooths)); /* after the options: this one holds */
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
  if (nsmooths >= 0) info->nsmooths = nsmooths;
  info->setup_s = t1 - t0;
  PetscCall(MatGetSize(*P, &info->rows, &info->cols));
  PetscCall(MatGetBlockSizes(*P, &info->rbs, &info->cbs));
  PetscCall(MatGetInfo(*P, MAT_LOCAL, &minfo));
  info->nnz = static_cast<PetscInt64>(minfo.nz_used);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -prune: the built-ins whose first round was `factor` times slower than PETSc's fastest built-in
   of that round in one-shot, and in reuse too unless another built-in that stays runs the same
   numeric function (PETSc's sorted, heap, btheap, llcondensed and rowmerge share theirs): marked
   Figures::pruned (and printed). Their medians could be the fastest only if the machine changed
   speed by that factor between rounds. */
PetscErrorCode PruneSlowBuiltins(std::vector<Figures> &figs, double factor, const std::string &name)
{
  double      best_oneshot = kInf, best_reuse = kInf;
  std::string list;

  PetscFunctionBegin;
  for (const Figures &f : figs)
    if (f.kind == "petsc" && f.ok()) {
      best_oneshot = std::min(best_oneshot, f.oneshot);
      best_reuse   = std::min(best_reuse, f.reuse);
    }
  auto slow_oneshot = [&](const Figures &f) { return f.kind == "petsc" && f.ok() && f.oneshot > factor * best_oneshot; };
  for (Figures &f : figs) {
    if (!slow_oneshot(f)) continue;
    bool numeric_runs_on = false; /* in a built-in that stays */
    for (const Figures &g : figs) numeric_runs_on = numeric_runs_on || (g.kind == "petsc" && g.ok() && !slow_oneshot(g) && g.numeric_fn && g.numeric_fn == f.numeric_fn);
    if (f.reuse > factor * best_reuse || numeric_runs_on) {
      f.pruned = true;
      list += " " + f.name;
    }
  }
  if (!list.empty())
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%s] -prune %g: run in round 1 only (one-shot slower than PETSc's fastest by that factor; reuse too, or its numeric function runs on in another):%s\n",
                          name.c_str(), factor, list.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Runs every selected algorithm on one problem. Algorithm errors are recorded, not fatal. */
PetscErrorCode RunProblem(const Problem &p, const std::vector<std::string> &algs, const Settings &s, Summary *S)
{
  Mat       A = NULL, B = NULL, C = NULL;
  Csr       M, MB;
  Reference ref;

  PetscFunctionBegin;
  /* PCGAMG takes its block size from A: e27's 3 unknowns per node (the AB runs keep block size 1) */
  PetscCall(BuildAndDescribe(p, (s.ptap || s.tentative) && p.gen == "e27" && p.file.empty() ? 3 : 1, &A, &M, S));
  if (s.ptap || s.tentative) { /* C = P^T*A*P with PCGAMG's P for A, or C = A*P with its tentative P */
    std::vector<PetscScalar> xyz = NodeCoordinates(p);
    PetscCheck(M.nrows == M.ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-product %s: %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", s.ptap ? "ptap" : "ap", p.name.c_str(), M.nrows, M.ncols);
    PetscCall(GamgProlongator(A, xyz, s.tentative ? 0 : -1, &B, &S->P));
    if (s.tentative) {
      PetscCall(CsrFromMat(B, &MB));
      S->product = "A*P (P: PCGAMG's tentative prolongator)";
      S->flops   = Flops(M, MB);
    } else S->product = "P^T*A*P";
    S->default_name = DefaultAlg(s);
    PetscCall(PetscPrintf(PETSC_COMM_SELF,
                          "[%s] P: PCGAMG (aggregation, -pc_gamg_agg_nsmooths %" PetscInt_FMT ") set up on A in %.2f s (untimed, PETSc's own products), %" PetscInt_FMT
                          " levels; P = the finest level's interpolation (copied), %" PetscInt_FMT " x %" PetscInt_FMT ", nnz %" PetscInt64_FMT
                          ", block sizes %" PetscInt_FMT " x %" PetscInt_FMT "; near-null space: %s\n",
                          p.name.c_str(), S->P.nsmooths, S->P.setup_s, S->P.levels, S->P.rows, S->P.cols, S->P.nnz, S->P.rbs, S->P.cbs, S->P.near_null.c_str()));
  } else PetscCall(SecondFactorAB(A, M, &B, &MB, S));
  PetscCall(ComputeReference(p, A, B, s, &ref, S));
  S->rows_b = B == A ? M.nrows : MB.nrows;
  S->nnz_b  = B == A ? static_cast<PetscInt64>(M.colidx.size()) : static_cast<PetscInt64>(MB.colidx.size());
  /* -rounds: every algorithm once, then again (interleaved), each figure the median of the rounds */
  std::vector<Figures> figs;
  for (PetscInt round = 0; round < s.rounds; ++round) {
    if (round == 1 && s.prune > 0) PetscCall(PruneSlowBuiltins(figs, s.prune, p.name));
    std::size_t slot = 0;
    auto        record = [&](const Figures &f) {
      if (round == 0) {
        figs.push_back(Figures());
        figs.back().name = f.name;
        figs.back().kind = f.kind;
      }
      figs[slot++].add_round(f);
    };
    for (const std::string &alg : algs) {
      if (round > 0 && figs[slot].pruned) { /* a built-in: one slot */
        ++slot;
        continue;
      }
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
          record(f);
        }
#else
        Figures f;
        f.name  = "graphblas";
        f.kind  = "graphblas";
        f.error = "not compiled in (GraphBLAS.h / libgraphblas not found by CMake)";
        record(f);
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
      record(f);
    }
  }
  for (Figures &f : figs) /* after every timed run: the trim of the memory measure does not touch them */
    if (f.error.empty() && f.kind != "graphblas" && s.memory) PetscCall(PeakMemory(A, B, f.name.c_str(), s, &f));
  S->figs = std::move(figs);
  PetscCall(ReferenceDestroy(&ref));
  if (B != A) PetscCall(MatDestroy(&B));
  PetscCall(MatDestroy(&A));
  Summarise(S);
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  MatrixOptions            mo;
  PetscBool                set;
  char                     json[PETSC_MAX_PATH_LEN] = "";
  PetscReal                max_peak_ratio = 0;
  char                    *alglist[64];
  PetscInt                 nalgs = 64;
  PetscInt                 gbt[16] = {0}, ngbt = 16;
  Settings                 s;
  PetscBool                rounds_set = PETSC_FALSE, prune_set = PETSC_FALSE;
  std::vector<std::string> algs;
  std::vector<Problem>     problems;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(BenchSetUp("spgemm_bench"));

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "spgemm_bench options", "Mat");
  PetscCall(MatrixOptionsRead(PetscOptionsObject, &mo));
  PetscCall(PetscOptionsStringArray("-algs", "Comma-separated algorithms (default: all)", "", alglist, &nalgs, &set));
  if (!set) nalgs = 0;
  PetscCall(PetscOptionsInt("-reps", "Best of this many runs", "", s.reps, &s.reps, NULL));
  PetscCall(PetscOptionsInt("-rounds", "Interleaved rounds of all algorithms; figures are medians (default 1, 3 for -sweep)", "", s.rounds, &s.rounds, &set));
  rounds_set = set;
  PetscCall(PetscOptionsReal("-prune", "After round 1, PETSc's built-ins this many times slower than its fastest (one-shot and reuse) run no more rounds (0: off; 4 for -sweep)", "",
                             s.prune, &s.prune, &set));
  prune_set = set;
  {
    const char *products[] = {"ab", "ptap", "ap"};
    PetscInt    product    = 0;
    PetscCall(PetscOptionsEList("-product", "C = A*A, C = P^T*A*P with PCGAMG's prolongator P, or C = A*P with its tentative P", "", products, 3, products[0], &product, NULL));
    s.ptap      = product == 1;
    s.tentative = product == 2;
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
  PetscCall(PetscOptionsReal("-check_tol", "Max error vs PETSc's default, relative to each entry's scale", "", s.tol, &s.tol, NULL));
  {
    PetscBool memory = s.memory ? PETSC_TRUE : PETSC_FALSE;
    PetscCall(PetscOptionsBool("-memory", "Measure each algorithm's peak memory on an extra, untimed one-shot", "", memory, &memory, NULL));
    s.memory = memory;
  }
  PetscCall(PetscOptionsReal("-max_peak_ratio", "Exit nonzero if one of our algorithms' peak memory exceeds this multiple of PETSc default's (0: no limit)", "",
                             max_peak_ratio, &max_peak_ratio, NULL));
  PetscCall(PetscOptionsString("-json", "Write the figures to this JSON file", "", json, json, sizeof json, NULL));
  PetscOptionsEnd();
  PetscCheck(max_peak_ratio >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-max_peak_ratio %g must be >= 0", (double)max_peak_ratio);
  PetscCheck(max_peak_ratio == 0 || s.memory, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-max_peak_ratio needs -memory true");

  for (const char *moved : {"-study", "-orderings"}) {
    PetscBool given;
    PetscCall(PetscOptionsHasName(NULL, NULL, moved, &given));
    PetscCheck(!given, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "%s: the ordering study is the program ordering_study (the same options, without -study)", moved);
  }
  PetscCheck(s.reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", s.reps);
  if (mo.sweep && !rounds_set) s.rounds = 3;
  if (mo.sweep && !prune_set) s.prune = 4;
  PetscCheck(s.prune == 0 || s.prune >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-prune %g must be 0 (off) or >= 1", (double)s.prune);
  PetscCheck(s.rounds >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-rounds %" PetscInt_FMT " must be >= 1", s.rounds);
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
    if (algs.empty()) algs = valid;
  }

  PetscCall(GraphBLASInitialize());
  if (s.ptap) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spgemm_bench: C = P^T*A*P, P = PCGAMG's prolongator for A (finest level, made untimed with PETSc's own products); OpenMP threads "
                          "(omp_get_max_threads) %d (PETSc's own algorithms are sequential); best of %" PetscInt_FMT "\n"
                          "timed: %s\n"
                          "check: pattern identical to and values within %.1e of each entry's scale (its entry of |P|^T|A||P|; exact for integer operands) of PETSc's default (scalable), after one-shot, reuse, and reuse with A doubled.\n",
                          MaxThreads(), s.reps,
                          s.matmatmult ? "one-shot = MatPtAP(MAT_INITIAL_MATRIX) with -matptap_via ALG on a fresh C; reuse = MatPtAP(MAT_REUSE_MATRIX) after A is marked modified;"
                                       : "one-shot = MatProductCreate(A,P)/SetType(PtAP)/SetAlgorithm/SetFromOptions + Symbolic + first Numeric on a fresh C; symbolic = "
                                         "MatProductSymbolic; reuse = MatProductNumeric after A is marked modified;",
                          (double)s.tol));
  } else {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "spgemm_bench: %s; OpenMP threads (omp_get_max_threads) %d (PETSc's own algorithms are sequential); best of %" PetscInt_FMT "\n"
                          "timed: %s\n"
                          "       graphblas = GrB_Matrix_new + GrB_mxm(PLUS_TIMES_FP64) + GrB_wait + GxB_Matrix_unpack_CSR (sorted CSR), A's import untimed.\n"
                          "check: pattern identical to and values within %.1e of each entry's scale (its entry of |A||B|; exact for integer operands) of PETSc's default, after one-shot, reuse, and reuse with A doubled.\n",
                          s.tentative ? "C = A*P, P = PCGAMG's tentative prolongator for A (finest level, -pc_gamg_agg_nsmooths 0, made untimed)" : "C = A*A (A*A^T, A^T formed untimed, if A is not square)",
                          MaxThreads(), s.reps,
                          s.matmatmult ? "one-shot = MatMatMult(MAT_INITIAL_MATRIX) with -matmatmult_via ALG on a fresh C; reuse = MatMatMult(MAT_REUSE_MATRIX) after A is marked modified;"
                                       : "one-shot = MatProductCreate/SetType/SetAlgorithm/SetFromOptions + Symbolic + first Numeric on a fresh C; symbolic = MatProductSymbolic; reuse = MatProductNumeric after A is marked modified;",
                          (double)s.tol));
  }

  MachineFloor         machine;
  bool                 any_bad = false;
  std::vector<Summary> all;
  for (const Problem &p : problems) {
    Summary S;
    PetscCall(RunProblem(p, algs, s, &S));
    if (all.empty()) { /* once an input has loaded and run: a bad option or file costs no measure */
      machine = MeasureMachine();
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "machine: STREAM triad %.1f GB/s on 1 thread, %.1f GB/s on %d; first-touch page fault %.2f us per 4 KiB page\n", machine.triad_gbs_1t,
                            machine.triad_gbs_nt, machine.threads, machine.fault_us));
    }
    PrintTable(S, s);
    std::fflush(stdout);
    for (const Figures &f : S.figs) any_bad = any_bad || !f.ok();
    if (max_peak_ratio > 0) PetscCall(CheckPeaks(S, s, max_peak_ratio, &any_bad));
    all.push_back(std::move(S));
    if (json[0]) PetscCall(RewriteJson(json, [&](std::FILE *fp) { WriteJson(fp, all, s, machine); }));
  }
  if (all.size() > 1 || s.rounds > 1) PrintSummary(all, s, machine);
  if (json[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nJSON written to %s\n", json));
  if (any_bad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nspgemm_bench: at least one algorithm FAILED its check, raised an error or exceeded -max_peak_ratio (exit code 1)\n"));
  GraphBLASFinalize();
  PetscCall(PetscFinalize());
  return any_bad ? 1 : 0;
}
