/*
  ordering_study: the seed paper's row-ordering study (its Table 2) on our matrices. For each matrix
  (bench_common.hpp's MatrixOptions), each ordering of -orderings and each of our algorithms, C = A*A
  one-shot and reuse with -mat_cluster_reorder ORDERING, timed and checked as spgemm_bench does
  (TimeMatProduct); the ordering alone through MatGetOrdering(A, "pcluster_<name>"); PETSc's
  built-ins as the reference; then, over the matrices, the Table-2-shaped summary.
*/
#include <petscmat.h>
#include <petsctime.h>
#include <petsccluster.h>

#include "bench_common.hpp"
#include "pcluster/ordering.hpp"
#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

static const char help[] =
  "ordering_study: the row-ordering study (the seed paper's Table 2) on C = A*A (A*A^T if A is not square), with\n"
  "MatProductCreate: for each matrix, each ordering and each of our algorithms, one-shot and reuse with\n"
  "-mat_cluster_reorder ORDERING set in the options database, each result checked against PETSc's default (pattern\n"
  "identical, values within -check_tol of each entry's scale, after one-shot, reuse, and reuse with A doubled);\n"
  "speedup over the same algorithm at natural order; the ordering's cost in SpGEMMs = MatGetOrdering(A,\n"
  "\"pcluster_<name>\") time / rowwise natural one-shot time; PETSc's built-ins as the reference; then geometric\n"
  "means over the matrices.\n"
  "\n"
  BENCH_HELP_MATRICES
  "What is run and how:\n"
  "  -orderings <a,b,...>   orderings of the study (default all: natural,random,rcm,amd,nd,gp,hp,gray,rabbit,degree,\n"
  "                         slashburn; natural is always run, as the baseline)\n"
  "  -algs <a,b,...>        ours (default rowwise,cluster_fixed,cluster_variable, plus cluster_hierarchical at natural\n"
  "                         order only; rowwise always runs, the unit of the ordering cost) and PETSc's built-ins\n"
  "                         sorted,scalable,scalable_fast,heap,btheap,llcondensed,rowmerge,hypre (default all) as\n"
  "                         the reference\n"
  "  -reps <N>              best of N for one-shot, reuse and each ordering (default 3)\n"
  "  -check_tol <tol>       |C - C_ref| allowed per entry, relative to its entry of |A||B|; exact where every\n"
  "                         operand value is an integer (default 1e-12)\n"
  "  -json <file>           also write the figures as JSON (scripts/plot_orderings.py charts them)\n"
  "Do not pass -mat_product_algorithm or -mat_cluster_reorder: the program sets them.\n"
  BENCH_HELP_REUSE_ANALYSIS
  "Exit code: nonzero if any result fails its check or any algorithm raises an error.\n";

namespace {

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
  PetscFunctionReturn(PETSC_SUCCESS);
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
  PetscCall(ReferenceDestroy(&ref));
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
  PetscFunctionReturn(PETSC_SUCCESS);
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
  std::fprintf(fp, "{\n  \"program\": \"ordering_study\",\n  \"study\": \"orderings\",\n  \"product_type\": \"ab\",\n  \"api\": \"matproduct\",\n");
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
  char                    *alglist[64], *ordlist[64];
  PetscInt                 nalgs = 64, nords = 64;
  Settings                 s; /* C = A*A through MatProductCreate: no ptap, no -api matmatmult */
  std::vector<std::string> builtins, ours, orderings;
  std::vector<Problem>     problems;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(BenchSetUp("ordering_study"));

  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "ordering_study options", "Mat");
  PetscCall(MatrixOptionsRead(PetscOptionsObject, &mo));
  PetscCall(PetscOptionsStringArray("-orderings", "Comma-separated orderings (default: all)", "", ordlist, &nords, &set));
  if (!set) nords = 0;
  PetscCall(PetscOptionsStringArray("-algs", "Comma-separated algorithms: ours, and PETSc's as the reference (default: see -help)", "", alglist, &nalgs, &set));
  if (!set) nalgs = 0;
  PetscCall(PetscOptionsInt("-reps", "Best of this many runs", "", s.reps, &s.reps, NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Max error vs PETSc's default, relative to each entry's scale", "", s.tol, &s.tol, NULL));
  PetscCall(PetscOptionsString("-json", "Write the figures to this JSON file", "", json, json, sizeof json, NULL));
  PetscOptionsEnd();

  PetscCheck(s.reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", s.reps);
  PetscCall(MatrixOptionsProblems(mo, &problems));
  {
    std::vector<std::string> valid = kPetscAlgs;
    std::string              valid_list;
    valid.insert(valid.end(), kOurAlgs.begin(), kOurAlgs.end());
    for (const std::string &v : valid) valid_list += " " + v;
    for (PetscInt i = 0; i < nalgs; ++i) {
      const std::string a = alglist[i];
      PetscCall(PetscFree(alglist[i]));
      PetscCheck(std::find(valid.begin(), valid.end(), a) != valid.end(), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-algs: unknown algorithm '%s'; valid:%s", a.c_str(),
                 valid_list.c_str());
      if (std::find(kPetscAlgs.begin(), kPetscAlgs.end(), a) != kPetscAlgs.end()) builtins.push_back(a);
      else ours.push_back(a);
    }
    if (builtins.empty()) builtins = kPetscAlgs;
    if (ours.empty()) ours = {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL};
    /* rowwise at natural order is the unit of the ordering cost ("SpGEMMs"): always run */
    if (std::find(ours.begin(), ours.end(), MATPRODUCTALGORITHMROWWISE) == ours.end()) ours.insert(ours.begin(), MATPRODUCTALGORITHMROWWISE);
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
    if (orderings.empty())
      for (pcluster::OrderingType t : pcluster::all_orderings()) orderings.push_back(pcluster::to_string(t));
    /* natural is the baseline of every speedup: always run, first */
    orderings.erase(std::remove(orderings.begin(), orderings.end(), std::string("natural")), orderings.end());
    orderings.insert(orderings.begin(), "natural");
  }

  {
    std::string ords, algs, refs;
    for (const std::string &o : orderings) ords += " " + o;
    for (const std::string &a : ours) algs += " " + a;
    for (const std::string &a : builtins) refs += " " + a;
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "ordering_study: C = A*A (A*A^T, A^T formed untimed, if A is not square); OpenMP threads (omp_get_max_threads) %d (PETSc's own algorithms are sequential); best of %" PetscInt_FMT "\n"
                          "timed: one-shot = MatProductCreate/SetType/SetAlgorithm/SetFromOptions + Symbolic + first Numeric on a fresh C; symbolic = MatProductSymbolic; reuse = MatProductNumeric after A is marked modified;\n"
                          "check: pattern identical to and values within %.1e of each entry's scale (its entry of |A||B|; exact for integer operands) of PETSc's default, after one-shot, reuse, and reuse with A doubled.\n"
                          "study: orderings:%s\n       ours:%s (cluster_hierarchical at natural order only), each with -mat_cluster_reorder ORDERING; PETSc's (reference):%s\n"
                          "       ordering cost: MatGetOrdering(A, \"pcluster_<name>\") timed on its own (the plugin registers these PETSc orderings; they compute the\n"
                          "       permutation the product uses), best of %" PetscInt_FMT ", in units of one rowwise natural-order one-shot A*A\n",
                          MaxThreads(), s.reps, (double)s.tol, ords.c_str(), algs.c_str(), refs.c_str(), s.reps));
  }
  bool                     any_bad = false;
  std::vector<StudyMatrix> study;
  for (const Problem &p : problems) {
    StudyMatrix M;
    PetscCall(RunOrderingStudy(p, builtins, ours, orderings, s, &M));
    PrintStudyMatrix(M, s);
    std::fflush(stdout);
    for (const Figures &f : M.S.figs) any_bad = any_bad || !f.ok();
    for (const StudyRun &r : M.runs) any_bad = any_bad || !r.f.ok();
    study.push_back(std::move(M));
    if (json[0]) PetscCall(RewriteJson(json, [&](std::FILE *fp) { WriteStudyJson(fp, study, SummariseStudy(study, orderings, ours), s); }));
  }
  PrintStudySummary(SummariseStudy(study, orderings, ours), study.size());
  if (json[0]) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nJSON written to %s\n", json));
  if (any_bad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nordering_study: at least one algorithm FAILED its check or raised an error (exit code 1)\n"));
  PetscCall(PetscFinalize());
  return any_bad ? 1 : 0;
}
