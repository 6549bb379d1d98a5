static const char help[] =
  "bfs: batched multi-source breadth-first search, the square x tall-skinny SpGEMM workload of\n"
  "betweenness centrality (Islam, Xu, Dai & Buluc, arXiv:2507.21253, section 4.4).\n"
  "\n"
  "A batch of s sources is the columns of a sparse n x s frontier F (F(source_j, j) = 1). Every level\n"
  "computes P = A*F with MatMatMult and keeps the entries of P whose (vertex, source) is not yet\n"
  "visited: F <- P .* not(visited). F's values count shortest paths, as in the forward phase of\n"
  "Brandes' algorithm. Every algorithm runs the whole search on the same A and sources; every\n"
  "level's product is checked against the first algorithm's (PETSc's; product_check.hpp: pattern\n"
  "identical, values exact, as every value of A and F is an integer, while |A||F| stays below 2^53,\n"
  "else to -check_tol of the entry's |A||F|).\n"
  "\n"
  "The graph (default: -gen rmat -n 16):\n"
  "  -f <file> | -gen <p7|s27|e27|rmat|rgg> -n <N> [-gen_seed s] [-shuffle seed]   as spgemm_bench;\n"
  "                         A is the pattern of the matrix without its diagonal, values 1\n"
  "  -sources <s>           batch size (default 64), distinct vertices with neighbours, drawn with\n"
  "  -source_seed <seed>    (default 1)\n"
  "  -max_levels <L>        stop after L levels (default: until every frontier is empty)\n"
  "What is run:\n"
  "  -algs <a,b,...>        PETSc's sorted,scalable,scalable_fast,heap,btheap,llcondensed,rowmerge,hypre\n"
  "                         and ours rowwise,cluster,cluster_fixed,cluster_variable,cluster_hierarchical\n"
  "                         (default: all of PETSc's, rowwise, cluster_variable, cluster_hierarchical)\n"
  "  -orderings <a,b,...>   each of our algorithms once per ordering, -mat_cluster_reorder (default\n"
  "                         natural,rcm; natural = no reordering)\n"
  "  -reps <N>              best of N searches per algorithm (default 3)\n"
  "  -check_tol <tol>       |P - P_ref| per entry relative to its entry of |A||F|, where the path counts\n"
  "                         outgrow exact integers (default 1e-12)\n"
  "Exit code: nonzero if any product fails its check or any algorithm raises an error.\n";

/*
  What is timed, per level: MatMatMult(A, F, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &P) with
  -matmatmult_via set to the algorithm: everything a user pays for the product (F's pattern changes
  every level, so every level is a new symbolic + numeric product). For our algorithms the first
  level also pays for A's ordering and clusters; the later levels take them from A
  (-mat_cluster_reuse_analysis, on by default), which is what "computed once and reused for every
  level" means here. Each search starts from a fresh copy of A (MatDuplicate, untimed), so nothing is
  kept from an earlier search or algorithm. The mask (building the next F and updating visited) is
  this program's own code, the same for every algorithm, timed apart and not in the comparison.
*/
#include <petscmat.h>
#include <petsctime.h>
#include <petsccluster.h>

#include "pcluster/ordering.hpp"
#include "problem.hpp"
#include "product_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>
#include <string>
#include <vector>


namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

bool IsOurs(const std::string &alg) { return std::find(kOurAlgs.begin(), kOurAlgs.end(), alg) != kOurAlgs.end(); }

/* One run of the comparison: an algorithm, and for ours an ordering */
struct Variant {
  std::string alg, ordering; /* ordering empty for PETSc's algorithms */
  std::string label() const { return ordering.empty() ? alg : alg + "+" + ordering; }
};

/* A level as the first variant computed it: the reference for the others (P and the scale |A||F|) */
struct Level {
  PetscInt64   nnz_f = 0, flops = 0, nnz_p = 0;
  Mat          P = NULL;
  ProductScale scale;
};

struct Search {
  std::vector<double> level_seconds; /* best over repetitions, per level */
  double              total = kInf;  /* best over repetitions of the sum over levels */
  double              mask  = 0;     /* the program's own masking, last repetition */
  bool                ok    = true;
};

/* A: the pattern of M without its diagonal, values 1 (an unweighted graph) */
Csr Adjacency(const Csr &M)
{
  Csr A;
  A.nrows = M.nrows;
  A.ncols = M.ncols;
  A.rowptr.assign(1, 0);
  for (PetscInt i = 0; i < M.nrows; ++i) {
    for (PetscInt p = M.rowptr[i]; p < M.rowptr[i + 1]; ++p)
      if (M.colidx[p] != i) A.colidx.push_back(M.colidx[p]);
    A.rowptr.push_back(static_cast<PetscInt>(A.colidx.size()));
  }
  A.values.assign(A.colidx.size(), 1.0);
  return A;
}

/* s distinct vertices with at least one neighbour, drawn with std::mt19937_64(seed) */
PetscErrorCode DrawSources(const Csr &A, PetscInt s, PetscInt seed, std::vector<PetscInt> *sources)
{
  std::vector<PetscInt> candidates;

  PetscFunctionBegin;
  for (PetscInt i = 0; i < A.nrows; ++i)
    if (A.rowptr[i + 1] > A.rowptr[i]) candidates.push_back(i);
  PetscCheck(s >= 1 && s <= (PetscInt)candidates.size(), PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "-sources %" PetscInt_FMT " is out of range: the graph has %zu vertices with neighbours", s, candidates.size());
  std::mt19937_64 rng(static_cast<std::uint64_t>(seed));
  std::shuffle(candidates.begin(), candidates.end(), rng);
  sources->assign(candidates.begin(), candidates.begin() + s);
  std::sort(sources->begin(), sources->end());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* F <- P .* not(visited) and visited |= pattern(F), on CSR arrays; returns nnz(F) */
PetscErrorCode Mask(Mat P, PetscInt s, std::vector<unsigned char> &visited, Mat *F, PetscInt64 *nnz)
{
  PetscInt           n, m;
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscBool          done;
  std::vector<PetscInt>    fi(1, 0), fj;
  std::vector<PetscScalar> fv;

  PetscFunctionBegin;
  PetscCall(MatGetSize(P, &n, &m));
  PetscCall(MatGetRowIJ(P, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(P, &va));
  for (PetscInt i = 0; i < n; ++i) {
    for (PetscInt p = ia[i]; p < ia[i + 1]; ++p) {
      unsigned char &seen = visited[static_cast<std::size_t>(i) * s + ja[p]];
      if (!seen && va[p] != 0) {
        seen = 1;
        fj.push_back(ja[p]);
        fv.push_back(va[p]);
      }
    }
    fi.push_back(static_cast<PetscInt>(fj.size()));
  }
  PetscCall(MatSeqAIJRestoreArrayRead(P, &va));
  PetscCall(MatRestoreRowIJ(P, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done)); /* it may reset its size argument */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, n, s, 0, NULL, F));
  PetscCall(MatSeqAIJSetPreallocationCSR(*F, fi.data(), fj.data(), fv.data()));
  *nnz = static_cast<PetscInt64>(fj.size());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compares P with the reference level (product_check.hpp); *why gets the first difference */
PetscErrorCode CheckLevel(Mat P, const Level &ref, double tol, bool *ok, std::string *why)
{
  ProductCheckOptions opt;
  ProductCheck        r;

  PetscFunctionBegin;
  opt.rtol = tol;
  PetscCall(CompareProduct(P, ref.P, &ref.scale, opt, &r));
  *ok  = r.ok;
  *why = r.message;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt64 FlopsOf(const Csr &A, Mat F)
{
  PetscInt        n;
  const PetscInt *ia, *ja;
  PetscBool       done;
  PetscInt64      f = 0;
  if (MatGetRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done)) return -1;
  for (PetscInt k : A.colidx) f += ia[k + 1] - ia[k];
  if (MatRestoreRowIJ(F, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done)) return -1;
  return f;
}

/* One whole search with one variant on a fresh copy of A. With levels empty, records the reference
   levels; otherwise checks every level against them. */
PetscErrorCode RunSearch(Mat A0, const Csr &A, const std::vector<PetscInt> &sources, const Variant &v, PetscInt max_levels, double tol,
                         std::vector<Level> &levels, bool record, std::vector<double> *seconds, double *mask_seconds, bool *ok)
{
  const PetscInt             s = static_cast<PetscInt>(sources.size());
  Mat                        Aw, F, P;
  std::vector<unsigned char> visited(static_cast<std::size_t>(A.nrows) * s, 0);
  std::vector<PetscInt>      fi(A.nrows + 1, 0), fj;
  std::vector<PetscScalar>   fv(s, 1.0);

  PetscFunctionBegin;
  *ok = true;
  seconds->clear();
  *mask_seconds = 0;
  PetscCall(PetscOptionsSetValue(NULL, "-matmatmult_via", v.alg.c_str()));
  if (!v.ordering.empty()) PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reorder", v.ordering.c_str()));
  PetscCall(MatDuplicate(A0, MAT_COPY_VALUES, &Aw));
  /* F_0: F(source_j, j) = 1 */
  for (PetscInt j = 0; j < s; ++j) {
    fi[sources[j] + 1]++;
    visited[static_cast<std::size_t>(sources[j]) * s + j] = 1;
  }
  for (PetscInt i = 0; i < A.nrows; ++i) fi[i + 1] += fi[i];
  fj.resize(s);
  for (PetscInt j = 0; j < s; ++j) fj[j] = j; /* sources are sorted and distinct: one entry per row */
  PetscCall(MatCreateSeqAIJ(PETSC_COMM_SELF, A.nrows, s, 0, NULL, &F));
  PetscCall(MatSeqAIJSetPreallocationCSR(F, fi.data(), fj.data(), fv.data()));
  PetscInt64 nnz_f = s;
  for (PetscInt level = 0; nnz_f > 0 && (max_levels <= 0 || level < max_levels); ++level) {
    PetscLogDouble t0, t1, t2;
    PetscCall(PetscTime(&t0));
    PetscCall(MatMatMult(Aw, F, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &P));
    PetscCall(PetscTime(&t1));
    seconds->push_back(t1 - t0);
    if (record) {
      Level   L;
      MatInfo info;
      L.nnz_f = nnz_f;
      L.flops = FlopsOf(A, F);
      PetscCall(MatDuplicate(P, MAT_COPY_VALUES, &L.P));
      PetscCall(CreateProductScale(MATPRODUCT_AB, Aw, F, NULL, &L.scale));
      PetscCall(MatGetInfo(P, MAT_LOCAL, &info));
      L.nnz_p = static_cast<PetscInt64>(info.nz_used);
      levels.push_back(L);
    } else {
      bool        same = (std::size_t)level < levels.size();
      std::string why  = "more levels than the reference";
      if (same) PetscCall(CheckLevel(P, levels[level], tol, &same, &why));
      if (!same) {
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "CHECK FAILED: %s, level %" PetscInt_FMT ": %s\n", v.label().c_str(), level, why.c_str()));
        *ok = false;
      }
    }
    PetscCall(MatDestroy(&F));
    PetscCall(Mask(P, s, visited, &F, &nnz_f));
    PetscCall(MatDestroy(&P));
    PetscCall(PetscTime(&t2));
    *mask_seconds += t2 - t1;
  }
  if (!record && seconds->size() != levels.size()) {
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "CHECK FAILED: %s ran %zu levels, the reference %zu\n", v.label().c_str(), seconds->size(), levels.size()));
    *ok = false;
  }
  PetscCall(MatDestroy(&F));
  PetscCall(MatDestroy(&Aw));
  PetscCall(PetscOptionsClearValue(NULL, "-matmatmult_via"));
  PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_reorder"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  Problem   p;
  PetscInt  nsources = 64, source_seed = 1, max_levels = 0, reps = 3;
  PetscReal tol      = 1e-12;
  char      buf[PETSC_MAX_PATH_LEN], *alglist[64], *ordlist[64];
  PetscInt  nalgs = 64, nords = 64;
  PetscBool set;

  PetscFunctionBeginUser;
  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage());
  p.gen = "rmat";
  p.n   = 16;
  std::vector<std::string> algs = kPetscAlgs, orderings = {"natural", "rcm"}; /* the defaults */
  algs.insert(algs.end(), {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL});
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "bfs options", "");
  PetscCall(PetscOptionsString("-f", "Matrix file (PETSc binary or .mtx)", "", "", buf, sizeof(buf), &set));
  if (set) p.file = buf;
  PetscCall(PetscOptionsString("-gen", "Generated graph: p7, s27, e27, rmat, rgg", "", p.gen.c_str(), buf, sizeof(buf), &set));
  if (set) p.gen = buf;
  PetscCall(PetscOptionsInt("-n", "Size parameter of the generated graph", "", p.n, &p.n, NULL));
  PetscCall(PetscOptionsInt("-gen_seed", "Seed of the generated graph", "", p.gen_seed, &p.gen_seed, NULL));
  PetscCall(PetscOptionsInt("-shuffle", "Seed of a random symmetric permutation (-1: none)", "", p.shuffle, &p.shuffle, NULL));
  PetscCall(PetscOptionsInt("-sources", "Sources per batch (columns of F)", "", nsources, &nsources, NULL));
  PetscCall(PetscOptionsInt("-source_seed", "Seed of the sources", "", source_seed, &source_seed, NULL));
  PetscCall(PetscOptionsInt("-max_levels", "Stop after this many levels (0: none)", "", max_levels, &max_levels, NULL));
  PetscCall(PetscOptionsStringArray("-algs", "Algorithms", "", alglist, &nalgs, &set));
  if (set) algs.assign(alglist, alglist + nalgs);
  for (PetscInt i = 0; set && i < nalgs; ++i) PetscCall(PetscFree(alglist[i]));
  PetscCall(PetscOptionsStringArray("-orderings", "Orderings of our algorithms (-mat_cluster_reorder)", "", ordlist, &nords, &set));
  if (set) orderings.assign(ordlist, ordlist + nords);
  for (PetscInt i = 0; set && i < nords; ++i) PetscCall(PetscFree(ordlist[i]));
  PetscCall(PetscOptionsInt("-reps", "Best of this many searches", "", reps, &reps, NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Relative tolerance of the check", "", tol, &tol, NULL));
  PetscOptionsEnd();
  PetscCheck(reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", reps);
  if (!p.file.empty()) p.gen.clear();
  p.name = ProblemName(p);

  std::vector<Variant> variants;
  for (const std::string &a : algs) {
    const bool petsc = std::find(kPetscAlgs.begin(), kPetscAlgs.end(), a) != kPetscAlgs.end();
    PetscCheck(petsc || IsOurs(a), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-algs: unknown algorithm %s; valid: sorted scalable scalable_fast heap btheap llcondensed rowmerge hypre rowwise cluster cluster_fixed cluster_variable cluster_hierarchical", a.c_str());
    if (petsc) variants.push_back({a, ""});
    else
      for (const std::string &o : orderings) {
        PetscCallCXX(pcluster::ordering_from_string(o)); /* an unknown name is an error listing the valid ones */
        variants.push_back({a, o});
      }
  }
  PetscCheck(!variants.empty() && variants[0].ordering.empty(), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-algs must start with one of PETSc's algorithms (the reference)");

  Csr M, A;
  Mat A0, Mtmp;
  PetscCall(BuildProblem(p, 1, &Mtmp, &M));
  PetscCall(MatDestroy(&Mtmp));
  PetscCheck(M.nrows == M.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "bfs: the graph's matrix must be square, %s is %" PetscInt_FMT " x %" PetscInt_FMT, p.name.c_str(), M.nrows, M.ncols);
  A = Adjacency(M);
  PetscCall(MatFromCsr(A, 1, &A0));
  std::vector<PetscInt> sources;
  PetscCall(DrawSources(A, nsources, source_seed, &sources));

  const int threads = MaxThreads();
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Graph %s: %" PetscInt_FMT " vertices, %zu edges (stored both ways), %" PetscInt_FMT " sources, OpenMP threads %d, best of %" PetscInt_FMT "\n", p.name.c_str(), A.nrows, A.colidx.size(), nsources, threads, reps));

  std::vector<Level>  levels;
  std::vector<Search> results(variants.size());
  bool                all_ok = true;
  for (std::size_t k = 0; k < variants.size(); ++k) {
    Search &r = results[k];
    for (PetscInt rep = 0; rep < reps; ++rep) {
      std::vector<double> sec;
      bool                ok;
      PetscCall(RunSearch(A0, A, sources, variants[k], max_levels, tol, levels, k == 0 && rep == 0, &sec, &r.mask, &ok));
      r.ok = r.ok && ok;
      if (r.level_seconds.empty()) r.level_seconds = sec;
      for (std::size_t l = 0; l < sec.size() && l < r.level_seconds.size(); ++l) r.level_seconds[l] = std::min(r.level_seconds[l], sec[l]);
      double total = 0;
      for (double t : sec) total += t;
      r.total = std::min(r.total, total);
    }
    all_ok = all_ok && r.ok;
  }

  /* PETSc's fastest, per level and in total */
  std::vector<double> best_level(levels.size(), kInf);
  std::vector<int>    best_level_alg(levels.size(), -1);
  double              best_total = kInf;
  int                 best_total_alg = -1;
  for (std::size_t k = 0; k < variants.size(); ++k) {
    if (!variants[k].ordering.empty()) continue;
    for (std::size_t l = 0; l < levels.size() && l < results[k].level_seconds.size(); ++l)
      if (results[k].level_seconds[l] < best_level[l]) best_level[l] = results[k].level_seconds[l], best_level_alg[l] = (int)k;
    if (results[k].total < best_total) best_total = results[k].total, best_total_alg = (int)k;
  }

  /* Per level (the paper's Table 3): PETSc's fastest, then each of ours as time and speedup */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nPer level: time [s] of P = A*F (MatMatMult, symbolic + numeric); x = PETSc's fastest at that level / this\n"));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%5s %10s %12s %10s %13s %-13s", "level", "nnz(F)", "flops", "nnz(P)", "PETSc best", ""));
  for (const Variant &v : variants)
    if (!v.ordering.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %28s", v.label().c_str()));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  for (std::size_t l = 0; l < levels.size(); ++l) {
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%5zu %10lld %12lld %10lld %13.4e %-13s", l + 1, (long long)levels[l].nnz_f, (long long)levels[l].flops, (long long)levels[l].nnz_p, best_level[l],
                          best_level_alg[l] >= 0 ? variants[best_level_alg[l]].alg.c_str() : "-"));
    for (std::size_t k = 0; k < variants.size(); ++k) {
      if (variants[k].ordering.empty()) continue;
      const double t = l < results[k].level_seconds.size() ? results[k].level_seconds[l] : kInf;
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, " %18.4e (%5.2fx)", t, best_level[l] / t));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  }

  /* Totals (the paper's Table 4) */
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nWhole search: sum over the %zu levels of the product time (best of %" PetscInt_FMT " searches); ours include A's ordering and clusters, made at level 1\n", levels.size(), reps));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-34s %12s %12s %14s %10s  %s\n", "algorithm", "total [s]", "level 1 [s]", "x PETSc best", "mask [s]", "check"));
  for (std::size_t k = 0; k < variants.size(); ++k) {
    const Search &r = results[k];
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-34s %12.4e %12.4e %14.2f %10.3e  %s\n", (variants[k].label() + (k == 0 ? " (reference)" : "")).c_str(), r.total,
                          r.level_seconds.empty() ? 0.0 : r.level_seconds[0], best_total / r.total, r.mask, r.ok ? "ok" : "FAILED"));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "PETSc's fastest in total: %s. x PETSc best > 1 is faster.\n", best_total_alg >= 0 ? variants[best_total_alg].alg.c_str() : "-"));
  for (Level &L : levels) {
    PetscCall(MatDestroy(&L.P));
    PetscCall(DestroyProductScale(&L.scale));
  }
  PetscCall(MatDestroy(&A0));
  PetscCall(PetscFinalize());
  return all_ok ? 0 : 1;
}
