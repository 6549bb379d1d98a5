static const char help[] =
  "mpi_bench: times C = A*A (MatMatMult) and C = P^T A P (MatPtAP) on MATMPIAIJ with PETSc's own MPI\n"
  "algorithms and petsc-cluster's, in one run, on the same distributed operands, and checks every result\n"
  "against the first PETSc algorithm's.\n"
  "\n"
  "The matrix A (every rank builds or reads the whole matrix and keeps its rows; default: -gen p7 -n 40):\n"
  "  -f <file>              PETSc binary (MatLoad) or Matrix Market (.mtx)\n"
  "  -gen <p7|s27|e27|rmat|rgg> -n <N>\n"
  "                         as spgemm_bench (default N: p7, s27 40; e27 16; rmat 14; rgg 200000)\n"
  "  -gen_seed <s>          seed of the generated values and graphs (default 1)\n"
  "  -shuffle <seed>        random symmetric permutation P A P^T (default -1: none) that keeps nodes of\n"
  "  -shuffle_block_size <b> rows together (default: the block size)\n"
  "  -bs <b>                A's block size (default 3 for e27, else 1): ranks own whole blocks, P\n"
  "                         aggregates whole nodes, and our cluster algorithms see the blocks\n"
  "  -layout <even|uneven|empty_first>  rows per rank (default even, as PETSC_DECIDE)\n"
  "The prolongator P of -product ptap, made by PETSc (untimed), a smoothed-aggregation shape:\n"
  "  P0 aggregates -agg consecutive nodes (block rows) of a rank into one coarse node owned by that rank\n"
  "  (a rank's last aggregate may be smaller); coarse node j has bs columns, P0(bs*i + c, bs*j + c) =\n"
  "  1/sqrt(nodes in aggregate j); then P = (I - omega D^-1 A) P0 with PETSc's default MatMatMult,\n"
  "  D = diag(A) (zero diagonal entries: left unscaled).\n"
  "  -agg <k>               nodes per aggregate (default 8)\n"
  "  -omega <w>             smoothing weight (default 0.666667)\n"
  "What is run:\n"
  "  -product <aa,ptap>     products, one table each (default aa,ptap)\n"
  "  -petsc_algs <a,b,...>  PETSc's MPI algorithms (default: all it accepts for MPIAIJ; each product runs\n"
  "                         those it accepts): A*A scalable,nonscalable,seqmpi,backend,hypre;\n"
  "                         PtAP scalable,nonscalable,allatonce,allatonce_merged,backend,hypre.\n"
  "                         On one rank the default leaves seqmpi out (PETSc 3.18's crashes there).\n"
  "                         The first one a product runs is its reference.\n"
  "  -algs <a,b,...>        ours (default rowwise,cluster): rowwise,cluster,cluster_fixed,\n"
  "                         cluster_variable,cluster_hierarchical\n"
  "  -reps <R>              repetitions (default 3); the algorithm loop runs inside the repetition\n"
  "                         loop, so that drift affects every algorithm alike\n"
  "  -check_tol <tol>       max |C - C_ref| / max |C_ref| allowed (default 1e-10)\n"
  "  -memory <bool>         measure each algorithm's peak memory, below (default true; false skips the\n"
  "                         extra one-shots)\n"
  "  -max_peak_ratio <r>    exit nonzero if the peak memory of one of ours exceeds r times that of PETSc's\n"
  "                         -peak_reference algorithm (default: the first of -petsc_algs) in the same run\n"
  "                         (0, the default: no limit; needs -memory)\n"
  "What is measured, per algorithm (-matmatmult_via / -matptap_via set to it):\n"
  "  one-shot  MatMatMult/MatPtAP(MAT_INITIAL_MATRIX): symbolic + numeric, what a user pays for a new\n"
  "            product; C is destroyed after each one.\n"
  "  reuse     MatMatMult/MatPtAP(MAT_REUSE_MATRIX): numeric only, after A's values changed (scaled by\n"
  "            2 and back, untimed, so that no implementation can skip the work).\n"
  "  Each timed call starts after an MPI_Barrier; its time is the slowest rank's (MPI_Allreduce MAX);\n"
  "  the table shows the minimum over the repetitions. x = PETSc's fastest time / this time (> 1: faster\n"
  "  than every PETSc algorithm). Ours use each rank's OpenMP threads; PETSc's algorithms use one.\n"
  "  peak MB   the resident memory a one-shot product adds at its peak, on the rank where it is largest,\n"
  "            measured on an extra, untimed one-shot in the first repetition: before it malloc_trim(0),\n"
  "            \"5\" written to /proc/self/clear_refs (resets VmHWM) and VmRSS read; after it VmHWM -\n"
  "            VmRSS(before). It includes C and whatever the algorithm keeps for reuse. Caveat: memory\n"
  "            freed earlier but kept by the allocator (not returned to the OS) can be reused without\n"
  "            raising VmHWM and hide growth; malloc_trim(0) returns most of it first. Untouched\n"
  "            allocations do not count. The timed calls are not trimmed (a trim makes the next product\n"
  "            fault all its memory in afresh, which adds 30-40% to every one-shot here).\n"
  "  check     C after the first one-shot and after the first reuse, and after a reuse with A's values\n"
  "            doubled (4 C_ref for A*A, 2 C_ref for PtAP), against the reference: every rank owns the\n"
  "            same rows, the same columns in every row (MatGetRow), values within -check_tol.\n"
  "An algorithm that raises an error stops the run (leave it out of the lists).\n"
  "Exit code: nonzero if any result fails its check.\n";

/*
  Every rank builds A's full CSR through problem.hpp (BuildProblem) and keeps its rows
  (MatFromCsrDistributed), so the operands are identical for every algorithm and every run.
  Our algorithms and PETSc's are selected exactly as a user selects them, through the options
  database (-matmatmult_via, -matptap_via), and called through MatMatMult and MatPtAP. The program
  sets -mat_cluster_reuse_analysis false, so that no one-shot product of ours takes A's analysis from
  an earlier one.
*/
#include <petscmat.h>
#include <petsctime.h>
#include <petsccluster.h>

#include "peak_memory.hpp"
#include "problem.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>


namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/* The algorithms PETSc 3.18 accepts for MPIAIJ x MPIAIJ (mpimatmatmult.c, with hypre) */
const std::vector<std::string> kPetscMPIAlgsAB   = {"scalable", "nonscalable", "seqmpi", "backend", "hypre"};
const std::vector<std::string> kPetscMPIAlgsPtAP = {"scalable", "nonscalable", "allatonce", "allatonce_merged", "backend", "hypre"};

bool Contains(const std::vector<std::string> &v, const std::string &s) { return std::find(v.begin(), v.end(), s) != v.end(); }

/* ------------------------------------------------------------------------------------------ */
/* The check                                                                                   */

/* This rank's rows of the reference result, with global column numbers */
struct Rows {
  PetscInt                 rstart = 0, rend = 0;
  std::vector<PetscInt>    rowptr{0}, colidx;
  std::vector<PetscScalar> values;
  PetscReal                max_abs = 0; /* over every rank */
};

PetscErrorCode KeepRows(Mat C, Rows *R)
{
  PetscReal local = 0;

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(C, &R->rstart, &R->rend));
  for (PetscInt i = R->rstart; i < R->rend; ++i) {
    PetscInt           n;
    const PetscInt    *cols;
    const PetscScalar *vals;
    PetscCall(MatGetRow(C, i, &n, &cols, &vals));
    R->colidx.insert(R->colidx.end(), cols, cols + n);
    R->values.insert(R->values.end(), vals, vals + n);
    R->rowptr.push_back(static_cast<PetscInt>(R->colidx.size()));
    for (PetscInt k = 0; k < n; ++k) local = std::max(local, PetscAbsScalar(vals[k]));
    PetscCall(MatRestoreRow(C, i, &n, &cols, &vals));
  }
  PetscCallMPI(MPI_Allreduce(&local, &R->max_abs, 1, MPIU_REAL, MPIU_MAX, PetscObjectComm((PetscObject)C)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: compares C with scale * ref; *why is left alone if they agree, else set (if empty) to
   the first disagreement found, prefixed by when */
PetscErrorCode CheckRows(Mat C, const Rows &ref, PetscReal scale, PetscReal tol, const char *when, std::string *why)
{
  MPI_Comm  comm = PetscObjectComm((PetscObject)C);
  PetscInt  rstart, rend, bad_row = PETSC_MAX_INT, first_bad;
  PetscInt  layout_differs, any_layout;
  PetscReal diff = 0, max_diff;
  char      buf[256] = "";

  PetscFunctionBegin;
  PetscCall(MatGetOwnershipRange(C, &rstart, &rend));
  layout_differs = rstart != ref.rstart || rend != ref.rend;
  for (PetscInt i = rstart; !layout_differs && i < rend; ++i) {
    PetscInt           n;
    const PetscInt    *cols;
    const PetscScalar *vals;
    const PetscInt     r0 = ref.rowptr[i - rstart], nref = ref.rowptr[i - rstart + 1] - r0;
    PetscCall(MatGetRow(C, i, &n, &cols, &vals));
    if (n != nref || !std::equal(cols, cols + n, ref.colidx.begin() + r0)) bad_row = i;
    else
      for (PetscInt k = 0; k < n; ++k) diff = std::max(diff, PetscAbsScalar(vals[k] - scale * ref.values[r0 + k]));
    PetscCall(MatRestoreRow(C, i, &n, &cols, &vals));
    if (bad_row != PETSC_MAX_INT) break;
  }
  PetscCallMPI(MPI_Allreduce(&layout_differs, &any_layout, 1, MPIU_INT, MPI_MAX, comm));
  PetscCallMPI(MPI_Allreduce(&bad_row, &first_bad, 1, MPIU_INT, MPI_MIN, comm));
  PetscCallMPI(MPI_Allreduce(&diff, &max_diff, 1, MPIU_REAL, MPIU_MAX, comm));
  const PetscReal rel = ref.max_abs > 0 ? max_diff / (scale * ref.max_abs) : max_diff;
  if (any_layout) PetscCall(PetscSNPrintf(buf, sizeof buf, "%s: the rows of C are split over the ranks differently", when));
  else if (first_bad != PETSC_MAX_INT) PetscCall(PetscSNPrintf(buf, sizeof buf, "%s: the pattern of row %" PetscInt_FMT " differs", when, first_bad));
  else if (!(rel <= tol)) PetscCall(PetscSNPrintf(buf, sizeof buf, "%s: values differ, relative error %.2e > %.1e", when, (double)rel, (double)tol));
  if (buf[0] && why->empty()) *why = buf;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* The operands                                                                                */

/* The smoothed-aggregation-shaped prolongator of the help text, distributed as A's rows */
PetscErrorCode Prolongator(Mat A, PetscInt agg, PetscReal omega, Mat *P)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)A);
  PetscInt bs, rstart, rend, cstart = 0;
  Mat      P0;
  Vec      d;

  PetscFunctionBegin;
  PetscCall(MatGetBlockSize(A, &bs));
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  const PetscInt nodes = (rend - rstart) / bs, naggs = (nodes + agg - 1) / agg, ncols = naggs * bs;
  PetscCallMPI(MPI_Exscan(&ncols, &cstart, 1, MPIU_INT, MPI_SUM, comm)); /* undefined on rank 0 */
  if (rstart == 0) cstart = 0;
  PetscCall(MatCreate(comm, &P0));
  PetscCall(MatSetSizes(P0, rend - rstart, ncols, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSizes(P0, bs, bs));
  PetscCall(MatSetType(P0, MATMPIAIJ)); /* also on one rank: the products under test are MPIAIJ's */
  PetscCall(MatMPIAIJSetPreallocation(P0, 1, NULL, 0, NULL));
  for (PetscInt node = 0; node < nodes; ++node) {
    const PetscInt    j    = node / agg, size = std::min(agg, nodes - j * agg);
    const PetscScalar v    = 1.0 / std::sqrt(static_cast<PetscReal>(size));
    for (PetscInt c = 0; c < bs; ++c) PetscCall(MatSetValue(P0, rstart + node * bs + c, cstart + j * bs + c, v, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P0, MAT_FINAL_ASSEMBLY));
  /* P = P0 - omega D^-1 (A P0); A P0's pattern contains P0's only if A has every diagonal entry (rgg has none) */
  PetscCall(MatMatMult(A, P0, MAT_INITIAL_MATRIX, PETSC_DEFAULT, P)); /* PETSc's default: no -matmatmult_via is set */
  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(MatGetDiagonal(A, d));
  PetscCall(VecReciprocal(d)); /* leaves zeros alone */
  PetscCall(MatDiagonalScale(*P, d, NULL));
  PetscCall(MatScale(*P, -omega));
  PetscCall(MatAXPY(*P, 1.0, P0, DIFFERENT_NONZERO_PATTERN));
  PetscCall(VecDestroy(&d));
  PetscCall(MatDestroy(&P0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscInt64 GlobalNonzeros(Mat M)
{
  MatInfo info;
  if (MatGetInfo(M, MAT_GLOBAL_SUM, &info)) return -1;
  return static_cast<PetscInt64>(info.nz_used);
}

/* ------------------------------------------------------------------------------------------ */
/* The comparison                                                                              */

struct Settings {
  PetscInt    reps   = 3;
  PetscReal   tol    = 1e-10;
  PetscBool   memory = PETSC_TRUE; /* an extra one-shot per algorithm for its peak memory */
  PetscReal   max_peak_ratio = 0;  /* > 0: ours may peak at most this times peak_reference's */
  std::string peak_reference;      /* empty: the first PETSc algorithm */
};

struct Product {
  bool                     ptap = false;
  Mat                      A = NULL, P = NULL; /* P only for ptap */
  std::vector<std::string> petsc, ours;        /* petsc[0] is the reference */
  PetscInt64               flops = -1;         /* multiply-adds, when known */
  const char              *via() const { return ptap ? "-matptap_via" : "-matmatmult_via"; }
  const char              *title() const { return ptap ? "C = P^T A P (MatPtAP)" : "C = A*A (MatMatMult)"; }
};

struct Figures {
  std::string alg;
  bool        ours    = false;
  double      oneshot = kInf, reuse = kInf, peak_mb = std::nan("");
  std::string check; /* empty: passed */
};

/* The product as a user calls it; the algorithm comes from the options database */
PetscErrorCode Multiply(const Product &pr, MatReuse reuse, Mat *C)
{
  PetscFunctionBegin;
  if (pr.ptap) PetscCall(MatPtAP(pr.A, pr.P, reuse, PETSC_DEFAULT, C));
  else PetscCall(MatMatMult(pr.A, pr.A, reuse, PETSC_DEFAULT, C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values in A (the same ones: scaled by 2 and back, exactly), as before a user's reuse */
PetscErrorCode TouchValues(Mat A)
{
  PetscFunctionBegin;
  PetscCall(MatScale(A, 2.0));
  PetscCall(MatScale(A, 0.5));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The product and its time on the slowest rank, all ranks starting together */
PetscErrorCode TimedMultiply(const Product &pr, MatReuse reuse, Mat *C, double *seconds)
{
  PetscLogDouble t0, t1;
  double         t;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Barrier(PetscObjectComm((PetscObject)pr.A)));
  PetscCall(PetscTime(&t0));
  PetscCall(Multiply(pr, reuse, C));
  PetscCall(PetscTime(&t1));
  t = t1 - t0;
  PetscCallMPI(MPI_Allreduce(&t, seconds, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)pr.A)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An extra, untimed one-shot product: the resident memory it adds at its peak (MB), on the rank where
   that is largest, or NaN if it cannot be measured on some rank. The product is destroyed. */
PetscErrorCode PeakMemory(const Product &pr, double *peak_mb)
{
  Mat    C = NULL;
  double local, global;

  PetscFunctionBegin;
  const double rss0 = ResetPeak();
  PetscCall(Multiply(pr, MAT_INITIAL_MATRIX, &C));
  local = StatusMB("VmHWM") - rss0;
  if (std::isnan(local)) local = kInf; /* MAX keeps it: "not measured" on any rank */
  PetscCallMPI(MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)pr.A)));
  *peak_mb = std::isinf(global) ? std::nan("") : global;
  PetscCall(MatDestroy(&C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Every algorithm of pr, -reps times, interleaved; checks in the first repetition */
PetscErrorCode RunProduct(const Product &pr, const Settings &s, std::vector<Figures> *figs, PetscInt64 *nnz_c)
{
  Rows ref;

  PetscFunctionBegin;
  figs->clear();
  for (const std::string &a : pr.petsc) figs->push_back({a, false});
  for (const std::string &a : pr.ours) figs->push_back({a, true});
  for (PetscInt rep = 0; rep < s.reps; ++rep) {
    for (std::size_t k = 0; k < figs->size(); ++k) {
      Figures &f = (*figs)[k];
      Mat      C = NULL;
      double   t;

      PetscCall(PetscOptionsSetValue(NULL, pr.via(), f.alg.c_str()));
      if (rep == 0) {
        f.peak_mb = std::nan("");
        if (s.memory) PetscCall(PeakMemory(pr, &f.peak_mb));
      }
      PetscCall(TimedMultiply(pr, MAT_INITIAL_MATRIX, &C, &t));
      PetscCall(PetscOptionsClearValue(NULL, pr.via()));
      f.oneshot = std::min(f.oneshot, t);
      if (rep == 0 && k == 0) {
        PetscCall(KeepRows(C, &ref));
        *nnz_c = GlobalNonzeros(C);
      }
      if (rep == 0) PetscCall(CheckRows(C, ref, 1.0, s.tol, "one-shot", &f.check));
      PetscCall(TouchValues(pr.A));
      PetscCall(TimedMultiply(pr, MAT_REUSE_MATRIX, &C, &t));
      f.reuse = std::min(f.reuse, t);
      if (rep == 0) {
        PetscCall(CheckRows(C, ref, 1.0, s.tol, "reuse", &f.check));
        PetscCall(MatScale(pr.A, 2.0)); /* P^T (2A) P = 2 C; (2A)(2A) = 4 C */
        PetscCall(Multiply(pr, MAT_REUSE_MATRIX, &C));
        PetscCall(MatScale(pr.A, 0.5));
        PetscCall(CheckRows(C, ref, pr.ptap ? 2.0 : 4.0, s.tol, "reuse with A doubled", &f.check));
      }
      PetscCall(MatDestroy(&C));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode PrintTable(const Product &pr, const std::vector<Figures> &figs, PetscInt64 nnz_c, const Settings &s)
{
  double      best_oneshot = kInf, best_reuse = kInf;
  std::string fastest_oneshot = "-", fastest_reuse = "-";

  PetscFunctionBegin;
  for (const Figures &f : figs) {
    if (f.ours) continue;
    if (f.oneshot < best_oneshot) best_oneshot = f.oneshot, fastest_oneshot = f.alg;
    if (f.reuse < best_reuse) best_reuse = f.reuse, fastest_reuse = f.alg;
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s: nnz(C) %" PetscInt64_FMT, pr.title(), nnz_c));
  if (pr.flops >= 0) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ", multiply-adds %" PetscInt64_FMT, pr.flops));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "; reference: PETSc's %s\nseconds: slowest rank, best of %" PetscInt_FMT "; x = PETSc's fastest (one-shot: %s, reuse: %s) / this\n", figs[0].alg.c_str(), s.reps,
                        fastest_oneshot.c_str(), fastest_reuse.c_str()));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %-5s %12s %12s %10s %10s %10s  %s\n", "algorithm", "kind", "one-shot [s]", "reuse [s]", "x one-shot", "x reuse", "peak [MB]", "check"));
  for (const Figures &f : figs) {
    char mem[32];
    if (std::isnan(f.peak_mb)) std::snprintf(mem, sizeof mem, "-");
    else std::snprintf(mem, sizeof mem, "%.1f", f.peak_mb);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%-18s %-5s %12.4e %12.4e %10.2f %10.2f %10s  %s\n", f.alg.c_str(), f.ours ? "ours" : "PETSc", f.oneshot, f.reuse, best_oneshot / f.oneshot, best_reuse / f.reuse, mem,
                          f.check.empty() ? "ok" : ("FAILED " + f.check).c_str()));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* -max_peak_ratio: each of ours against PETSc's reference algorithm's peak, in the same run */
PetscErrorCode CheckPeaks(const Product &pr, const std::vector<Figures> &figs, const Settings &s, bool *any_bad)
{
  const std::string ref_name = s.peak_reference.empty() ? pr.petsc.front() : s.peak_reference;
  const Figures    *ref      = nullptr;

  PetscFunctionBegin;
  for (const Figures &f : figs)
    if (!f.ours && f.alg == ref_name) ref = &f;
  PetscCheck(ref && std::isfinite(ref->peak_mb), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-max_peak_ratio: %s needs PETSc's %s in -petsc_algs, measured", pr.title(), ref_name.c_str());
  for (const Figures &f : figs) {
    if (!f.ours) continue;
    const double ratio = f.peak_mb / ref->peak_mb;
    const bool   over  = !(ratio <= s.max_peak_ratio); /* NaN (not measured) fails too */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "peak memory %s: %.1f MB = %.2f x %s's %.1f MB (limit %.2f)%s\n", f.alg.c_str(), f.peak_mb, ratio, ref->alg.c_str(), ref->peak_mb, (double)s.max_peak_ratio,
                          over ? ": OVER THE LIMIT" : ""));
    *any_bad = *any_bad || over;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The names in `requested` that `accepted` holds, in the order requested */
std::vector<std::string> Accepted(const std::vector<std::string> &requested, const std::vector<std::string> &accepted)
{
  std::vector<std::string> v;
  for (const std::string &a : requested)
    if (Contains(accepted, a)) v.push_back(a);
  return v;
}

/* A comma-separated list option into v (left alone if the option is not given; given: *given, if
   not NULL); called between PetscOptionsBegin and PetscOptionsEnd */
template <class OptionItems> /* petsc_versions.hpp */
PetscErrorCode ListOption(OptionItems PetscOptionsObject, const char *name, const char *text, std::vector<std::string> *v, PetscBool *given)
{
  char     *items[64];
  PetscInt  n = 64;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsStringArray(name, text, "", items, &n, &set));
  if (given) *given = set;
  if (set) v->assign(items, items + n);
  for (PetscInt i = 0; set && i < n; ++i) PetscCall(PetscFree(items[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  Problem                  p;
  PetscInt                 bs = -1, agg = 8;
  PetscReal                omega = 2.0 / 3.0;
  RowLayout                layout = RowLayout::Even;
  Settings                 s;
  char                     buf[PETSC_MAX_PATH_LEN] = "";
  PetscBool                set, petsc_algs_set = PETSC_FALSE;
  PetscMPIInt              size;
  std::vector<std::string> products = {"aa", "ptap"}, ours = {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTER};
  std::vector<std::string> petsc_algs = {"scalable", "nonscalable", "seqmpi", "allatonce", "allatonce_merged", "backend", "hypre"}; /* all either product accepts */

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  PetscCall(PetscClusterInitializePackage()); /* before any Mat exists: the plugin hooks SeqAIJ and MPIAIJ creation */
  /* Repetitions reuse one A: every one-shot of ours must pay for A's analysis */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reuse_analysis", "false"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  p.gen        = "p7";
  p.n          = -1; /* defaults, set below: by generator */
  p.shuffle_bs = -1; /* by block size */
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "mpi_bench options", "Mat");
  PetscCall(PetscOptionsString("-f", "Matrix file: PETSc binary, or Matrix Market if it ends in .mtx", "MatLoad", buf, buf, sizeof buf, &set));
  if (set) p.file = buf;
  PetscCall(PetscOptionsString("-gen", "Generated matrix: p7, s27, e27, rmat, rgg", "", p.gen.c_str(), buf, sizeof buf, &set));
  if (set) p.gen = buf;
  PetscCall(PetscOptionsInt("-n", "Grid size (p7, s27, e27), scale (rmat) or points (rgg)", "", p.n, &p.n, NULL));
  PetscCall(PetscOptionsInt("-gen_seed", "Seed of generated values and graphs", "", p.gen_seed, &p.gen_seed, NULL));
  PetscCall(PetscOptionsInt("-shuffle", "Seed of a random symmetric permutation P A P^T (-1: none)", "", p.shuffle, &p.shuffle, NULL));
  PetscCall(PetscOptionsInt("-shuffle_block_size", "Rows kept together by -shuffle (-1: the block size)", "", p.shuffle_bs, &p.shuffle_bs, NULL));
  PetscCall(PetscOptionsInt("-bs", "Block size of A (default 3 for e27, else 1)", "MatSetBlockSize", bs, &bs, NULL));
  PetscCall(PetscOptionsEnum("-layout", "Rows per rank", "", kRowLayoutNames, (PetscEnum)layout, (PetscEnum *)&layout, NULL));
  PetscCall(PetscOptionsInt("-agg", "Nodes per aggregate of P", "", agg, &agg, NULL));
  PetscCall(PetscOptionsReal("-omega", "Smoothing weight of P", "", omega, &omega, NULL));
  PetscCall(ListOption(PetscOptionsObject, "-product", "Products: aa, ptap", &products, NULL));
  PetscCall(ListOption(PetscOptionsObject, "-petsc_algs", "PETSc's MPI algorithms", &petsc_algs, &petsc_algs_set));
  PetscCall(ListOption(PetscOptionsObject, "-algs", "Our algorithms", &ours, NULL));
  PetscCall(PetscOptionsInt("-reps", "Repetitions (best of)", "", s.reps, &s.reps, NULL));
  PetscCall(PetscOptionsReal("-check_tol", "Max relative error vs the reference", "", s.tol, &s.tol, NULL));
  PetscCall(PetscOptionsBool("-memory", "Measure each algorithm's peak memory in an extra one-shot", "", s.memory, &s.memory, NULL));
  PetscCall(PetscOptionsReal("-max_peak_ratio", "Exit nonzero if one of ours peaks above this multiple of -peak_reference's peak (0: no limit)", "", s.max_peak_ratio, &s.max_peak_ratio, NULL));
  PetscCall(PetscOptionsString("-peak_reference", "PETSc's algorithm for -max_peak_ratio (default: the first of -petsc_algs)", "", "", buf, sizeof buf, &set));
  if (set) s.peak_reference = buf;
  PetscOptionsEnd();

  PetscCheck(s.max_peak_ratio >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-max_peak_ratio %g must be >= 0", (double)s.max_peak_ratio);
  PetscCheck(s.max_peak_ratio == 0 || s.memory, PETSC_COMM_WORLD, PETSC_ERR_ARG_INCOMP, "-max_peak_ratio needs -memory true");

  PetscCheck(s.reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", s.reps);
  PetscCheck(agg >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-agg %" PetscInt_FMT " must be >= 1", agg);
  for (const std::string &pr : products) PetscCheck(pr == "aa" || pr == "ptap", PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-product: unknown product '%s' (valid: aa, ptap)", pr.c_str());
  for (const std::string &a : petsc_algs)
    PetscCheck(Contains(kPetscMPIAlgsAB, a) || Contains(kPetscMPIAlgsPtAP, a), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE,
               "-petsc_algs: '%s' is not one of PETSc's MPIAIJ algorithms (A*A: scalable nonscalable seqmpi backend hypre; PtAP: scalable nonscalable allatonce allatonce_merged backend hypre)", a.c_str());
  /* PETSc 3.18's seqmpi A*B crashes (SEGV) on an MPIAIJ on one rank, with or without the plugin */
  if (size == 1 && Contains(petsc_algs, "seqmpi")) {
    PetscCheck(!petsc_algs_set, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-petsc_algs: PETSc 3.18's seqmpi crashes on one MPI rank; leave it out");
    petsc_algs.erase(std::find(petsc_algs.begin(), petsc_algs.end(), "seqmpi"));
  }
  for (const std::string &a : ours)
    PetscCheck(Contains(kOurAlgs, a), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-algs: unknown algorithm '%s' (valid: rowwise cluster cluster_fixed cluster_variable cluster_hierarchical)", a.c_str());
  if (!p.file.empty()) p.gen.clear();
  if (p.n < 0) p.n = p.gen == "rmat" ? 14 : p.gen == "rgg" ? 200000 : p.gen == "e27" ? 16 : 40;
  if (bs < 1) bs = p.gen == "e27" ? 3 : 1;
  if (p.shuffle_bs < 1) p.shuffle_bs = bs;
  p.name = ProblemName(p);
  /* the program sets these for each call; the set-up (P) runs with PETSc's defaults */
  for (const char *via : {"-matmatmult_via", "-matptap_via", "-mat_product_algorithm"}) PetscCall(PetscOptionsClearValue(NULL, via));

  /* A: every rank builds the whole CSR and keeps its rows */
  Mat            A, Aseq;
  Csr            M;
  PetscInt64     flops_aa = -1;
  PetscInt       rows, prows, pcols;
  PetscLogDouble t0, t1;
  PetscCall(PetscTime(&t0));
  PetscCall(BuildProblem(p, bs, &Aseq, &M));
  PetscCall(MatDestroy(&Aseq));
  PetscCheck(M.nrows == M.ncols, PETSC_COMM_WORLD, PETSC_ERR_ARG_SIZ, "mpi_bench: A must be square, %s is %" PetscInt_FMT " x %" PetscInt_FMT, p.name.c_str(), M.nrows, M.ncols);
  PetscCall(MatFromCsrDistributed(PETSC_COMM_WORLD, M, bs, layout, &A));
  flops_aa = Flops(M, M);
  rows     = M.nrows;
  M = Csr(); /* not needed any more: every rank held all of it */
  PetscCall(PetscTime(&t1));

  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "mpi_bench: %d MPI ranks x %d OpenMP threads per rank (omp_get_max_threads; PETSc's algorithms use one thread per rank)\n", (int)size, MaxThreads()));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "matrix %s: %" PetscInt_FMT " rows, nnz(A) %" PetscInt64_FMT ", block size %" PetscInt_FMT ", layout %s; built in %.2f s\n", p.name.c_str(), rows, GlobalNonzeros(A), bs,
                        kRowLayoutNames[(int)layout], t1 - t0));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "timed: one-shot = MatMatMult/MatPtAP(MAT_INITIAL_MATRIX), reuse = (MAT_REUSE_MATRIX) after A's values change; -matmatmult_via/-matptap_via ALG\n"
                                          "peak: VmHWM - VmRSS before an extra untimed one-shot (clear_refs reset, malloc_trim first), largest rank; check: vs the first PETSc algorithm, tol %.1e\n",
                        (double)s.tol));

  bool any_bad = false;
  for (const std::string &name : products) {
    Product pr;
    pr.ptap  = name == "ptap";
    pr.A     = A;
    pr.petsc = Accepted(petsc_algs, pr.ptap ? kPetscMPIAlgsPtAP : kPetscMPIAlgsAB);
    pr.ours  = ours;
    PetscCheck(!pr.petsc.empty(), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "-petsc_algs: none of them is accepted for %s (the first is the reference)", pr.title());
    if (pr.ptap) {
      PetscCall(PetscTime(&t0));
      PetscCall(Prolongator(A, agg, omega, &pr.P));
      PetscCall(PetscTime(&t1));
      PetscCall(MatGetSize(pr.P, &prows, &pcols));
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nP: %" PetscInt_FMT " x %" PetscInt_FMT ", nnz(P) %" PetscInt64_FMT " (aggregates of %" PetscInt_FMT " nodes, omega %g; made in %.2f s)", prows, pcols,
                            GlobalNonzeros(pr.P), agg, (double)omega, t1 - t0));
    } else pr.flops = flops_aa;
    std::vector<Figures> figs;
    PetscInt64           nnz_c = -1;
    PetscCall(RunProduct(pr, s, &figs, &nnz_c));
    PetscCall(PrintTable(pr, figs, nnz_c, s));
    for (const Figures &f : figs) any_bad = any_bad || !f.check.empty();
    if (s.max_peak_ratio > 0) PetscCall(CheckPeaks(pr, figs, s, &any_bad));
    PetscCall(MatDestroy(&pr.P));
  }
  if (any_bad) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\nmpi_bench: at least one result FAILED its check or exceeded -max_peak_ratio (exit code 1)\n"));
  PetscCall(MatDestroy(&A));
  PetscCall(PetscFinalize());
  return any_bad ? 1 : 0;
}
