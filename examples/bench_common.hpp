/*
   What the SeqAIJ C = A*B programs spgemm_bench and ordering_study share: the figures of one
   algorithm on one matrix and their check against PETSc's default, the timing of one product, the
   matrices they read (the options -f, -gen, ..., -files), and their output helpers (JSON).

   What is timed (the rules of design/benchmarks.md):
   - one-shot  = MatProductCreate + SetType(AB) + SetAlgorithm + SetFromOptions + Symbolic + first
                 Numeric, on a fresh C each repetition (best of -reps): what
                 MatMatMult(A,A,MAT_INITIAL_MATRIX,...) costs, including whatever an algorithm does
                 in its symbolic phase (clustering, conversion, output assembly);
   - symbolic  = MatProductSymbolic alone (best of -reps);
   - reuse     = MatProductNumeric on the existing C (best of -reps), after A has been marked
                 modified (MatSeqAIJGetArray/RestoreArray, untimed): MAT_REUSE_MATRIX after new values;
   - with -api matmatmult: one-shot = MatMatMult(MAT_INITIAL_MATRIX) with -matmatmult_via set to the
                 algorithm (PETSc's api_user path, which implementations may treat differently, e.g.
                 fuse symbolic and numeric), reuse = MatMatMult(MAT_REUSE_MATRIX); no symbolic figure;
   - C = P^T A P (Settings::ptap): the same with MatProductCreate(A,P,...) + SetType(PtAP) (or
                 MatPtAP() with -matptap_via), P fixed; reuse follows a change of A's values only.
   Every PETSc and petsc-cluster algorithm goes through the same routine, TimeMatProduct(); every
   result (after the first numeric, after reuse, and after a reuse with A's values doubled) is
   compared with PETSc's "default" result (sorted for AB, scalable for PtAP) by product_check.hpp:
   the same pattern, values within -check_tol of each entry's own scale (its entry of |A||B|, or of
   |P|^T|A||P| for PtAP; exact where every operand value is an integer).
*/
#pragma once

#include <petscmat.h>
#include <petsc/private/matimpl.h> /* Mat ops: which numeric function a product runs (-prune) */
#include <petsctime.h>
#include <petsccluster.h>

#include "problem.hpp"
#include "petsc_versions.hpp"
#include "product_check.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <cstdio>
#include <limits>
#include <map>
#include <string>
#include <vector>

constexpr double kInf = std::numeric_limits<double>::infinity();

inline const char *const kPetscDefault = "sorted"; /* what "default" resolves to for SeqAIJ C=A*B in PETSc 3.18 */

/* The help text of the options MatrixOptionsRead() reads, for the programs' help[] */
#define BENCH_HELP_MATRICES \
  "The matrix (one of; default: -gen p7 -n 60):\n" \
  "  -f <file>              PETSc binary (MatLoad) or Matrix Market (.mtx, petsc-cluster's reader)\n" \
  "  -gen <p7|s27|e27|rmat|rgg> -n <N>\n" \
  "                         p7: 3D 7-point Laplacian, N^3 rows; s27: 3D 27-point stencil, N^3 rows;\n" \
  "                         e27: 3D elasticity-like 27-point stencil of 3x3 blocks, 3 N^3 rows;\n" \
  "                         rmat: R-MAT power-law graph (Graph500), scale N (2^N rows, with diagonal);\n" \
  "                         rgg: 2D random geometric graph, N points, degree ~5, cell-sorted numbering\n" \
  "                         (default N: p7, s27 60; e27 24; rmat 14; rgg 1000000)\n" \
  "  -gen_seed <s>          seed of the generated values and graphs (default 1)\n" \
  "  -shuffle <seed>        apply a random symmetric permutation P A P^T (by node: blocks of 3 for e27,\n" \
  "                         else -shuffle_block_size, default 1)\n" \
  "  -suite                 the generated suite of design/benchmarks.md (9 matrices)\n" \
  "  -suite_scale <s>       multiply the suite's (and the sweep's) row counts by s (e.g. 0.05 for CI; default 1)\n" \
  "  -sweep                 the sweep: p7 at n = 40..100 (5 sizes), s27 and e27 at 3 sizes each, R-MAT scales\n" \
  "                         12..16, 2D geometric graphs of 0.3M, 1M, 3M points, each natural and shuffled\n" \
  "  -sweep_seeds <s1,...>  the sweep once per seed (values, random graphs and shuffle; default 1)\n" \
  "  -shared_matrices <dir> every .mtx file of the folder (e.g. ../shared/matrices), after the suite or sweep\n" \
  "  -files <f1,f2,...>     matrix files (as -f), run after the suite with -suite, else instead of -f/-gen\n"
/* ... and of what BenchSetUp() sets */
#define BENCH_HELP_REUSE_ANALYSIS \
  "The program sets -mat_cluster_reuse_analysis false, so that every one-shot repetition pays for\n" \
  "A's ordering and clusters as the first product with a new A does (the plugin would otherwise keep them on A).\n"

/* ------------------------------------------------------------------------------------------ */
/* Results and the check against the reference                                                */

/* What every result is compared with: PETSc's default result and the scale of its entries */
struct Reference {
  Mat          C = NULL;
  ProductScale scale;
};

inline PetscErrorCode ReferenceDestroy(Reference *ref)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&ref->C));
  PetscCall(DestroyProductScale(&ref->scale));
  PetscFunctionReturn(PETSC_SUCCESS);
}

struct Figures {
  std::string name;
  std::string kind; /* "petsc", "graphblas", "petsc-cluster" */
  bool        ran = false;
  std::string error; /* the algorithm raised an error */
  std::string check; /* empty: passed; else why it failed */
  double      oneshot = kInf, symbolic = kInf, reuse = kInf;
  double      peak_mb = std::nan(""); /* -memory: resident memory an extra one-shot adds at its peak */
  PetscInt64  nnz_c   = -1;
  double      rel_err = 0; /* max |C - C_ref| relative to each entry's scale, over every compared result */
  PetscInt64  extra_zeros = 0; /* explicit zeros outside the reference pattern (third-party only) */
  std::string chosen;          /* ours: the kernel (and scheme) the product ran, from its view */
  void      (*numeric_fn)() = nullptr; /* the numeric phase's function (PETSc's Mat ops): built-ins sharing it time the same code in reuse */
  bool        pruned = false; /* -prune: run in round 1 only; not a median, so never PETSc's fastest (its numeric function, if fast, runs on in another) */
  /* -rounds: each round's best-of-reps figures; oneshot, symbolic and reuse are then their medians */
  std::vector<double> oneshot_rounds, symbolic_rounds, reuse_rounds;
  bool        ok() const { return ran && error.empty() && check.empty(); }

  /* One more round of the same algorithm: its figures, and the first error or failed check */
  void add_round(const Figures &r)
  {
    ran = ran || r.ran;
    if (error.empty()) error = r.error;
    if (check.empty()) check = r.check;
    rel_err     = std::max(rel_err, r.rel_err);
    extra_zeros = std::max(extra_zeros, r.extra_zeros);
    nnz_c       = r.nnz_c;
    if (chosen.empty()) chosen = r.chosen;
    if (!numeric_fn) numeric_fn = r.numeric_fn;
    oneshot_rounds.push_back(r.oneshot);
    symbolic_rounds.push_back(r.symbolic);
    reuse_rounds.push_back(r.reuse);
    oneshot  = Median(oneshot_rounds);
    symbolic = Median(symbolic_rounds);
    reuse    = Median(reuse_rounds);
  }
  static double Median(std::vector<double> v)
  {
    if (v.empty()) return kInf;
    std::sort(v.begin(), v.end());
    return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
  }
  static double Lowest(const std::vector<double> &v) { return v.empty() ? kInf : *std::min_element(v.begin(), v.end()); }
  static double Highest(const std::vector<double> &v) { return v.empty() ? kInf : *std::max_element(v.begin(), v.end()); }
};

/* The kernel (and clustering scheme) of our product C ran, read from its view (MatProductView):
   "rowwise", "cluster/fixed", ... of its last multiply step; empty for PETSc's own algorithms */
inline PetscErrorCode ChosenKernel(Mat C, std::string *chosen)
{
  char       *text = nullptr;
  size_t      len  = 0;
  PetscViewer v;

  PetscFunctionBegin;
  chosen->clear();
  std::FILE *fp = open_memstream(&text, &len);
  PetscCheck(fp, PETSC_COMM_SELF, PETSC_ERR_SYS, "open_memstream failed");
  PetscCall(PetscViewerASCIIOpenWithFILE(PETSC_COMM_SELF, fp, &v));
  PetscCall(MatProductView(C, v));
  PetscCall(PetscViewerDestroy(&v));
  std::fclose(fp);
  const std::string view(text ? text : "");
  std::free(text);
  for (std::size_t at = view.find(": kernel "); at != std::string::npos; at = view.find(": kernel ", at + 1)) { /* the last step's */
    const std::size_t k = at + 9, end = view.find_first_of(",\n", k);
    *chosen = view.substr(k, end - k);
    const std::size_t sch = view.find(", scheme ", end), eol = view.find('\n', end);
    if (sch != std::string::npos && sch < eol) *chosen += "/" + view.substr(sch + 9, view.find_first_of(" ,\n", sch + 9) - (sch + 9));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Compares C with factor * the reference (product_check.hpp, tolerance tol of each entry's scale);
   records the first difference in f->check (prefixed by when) and the largest error relative to the
   entries' scales in f->rel_err. The pattern must be identical, except that a third-party result
   (allow_zeros: PETSc's hypre adds explicit zero diagonal entries to rows whose true product has
   none) may store extra entries whose value is exactly zero: they are counted in f->extra_zeros and
   shown, not failed. */
inline PetscErrorCode CompareMat(Mat C, const Reference &ref, double factor, double tol, bool allow_zeros, const char *when, Figures *f)
{
  ProductCheckOptions opt;
  ProductCheck        r;

  PetscFunctionBegin;
  opt.rtol              = tol;
  opt.ref_factor        = factor;
  opt.allow_extra_zeros = allow_zeros ? PETSC_TRUE : PETSC_FALSE;
  PetscCall(CompareProduct(C, ref.C, &ref.scale, opt, &r));
  f->nnz_c       = r.nnz;
  f->extra_zeros = std::max(f->extra_zeros, r.extra_zeros);
  f->rel_err     = std::max(f->rel_err, static_cast<double>(r.max_err));
  if (!r.ok && f->check.empty()) f->check = std::string(when) + ": " + r.message;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A result of PETSc's or ours: third-party (PETSc's) results may hold extra explicit zeros */
inline PetscErrorCode CompareMat(Mat C, const Reference &ref, double factor, double tol, const char *when, Figures *f)
{
  PetscFunctionBegin;
  PetscCall(CompareMat(C, ref, factor, tol, f->kind != "petsc-cluster", when, f));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Timing                                                                                      */

struct Settings {
  bool             matmatmult = false; /* -api matmatmult: time MatMatMult() (MatPtAP() for ptap) instead of MatProductCreate & co. */
  bool             ptap       = false; /* -product ptap: C = P^T*A*P, B is P */
  bool             tentative  = false; /* -product ap: C = A*P, B is PCGAMG's tentative prolongator of A */
  PetscInt         reps = 3;
  PetscInt         rounds = 1; /* -rounds: interleaved rounds of all algorithms; figures = medians */
  PetscReal        prune  = 0; /* -prune: PETSc's built-ins this many times slower than its fastest, in one-shot and reuse, run one round only (0: off) */
  PetscReal        tol  = 1e-12;
  bool             memory = true; /* -memory: each algorithm's peak memory, on an extra one-shot */
  std::vector<int> graphblas_threads;
};

/* The option that selects the algorithm of MatMatMult() / MatPtAP() */
inline const char *ViaOption(const Settings &s)
{
  return s.ptap ? "-matptap_via" : "-matmatmult_via";
}

/* One product C = A*B (C = B^T*A*B for ptap) with algorithm `alg`, exactly as a user writes it. */
inline PetscErrorCode CreateProduct(Mat A, Mat B, const char *alg, const Settings &s, Mat *C)
{
  PetscFunctionBegin;
  PetscCall(MatProductCreate(A, B, NULL, C));
  PetscCall(MatProductSetType(*C, s.ptap ? MATPRODUCT_PtAP : MATPRODUCT_AB));
  PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* MatMatMult(A,B) or MatPtAP(A,B), as PETSc's one-call API */
inline PetscErrorCode OneCallProduct(Mat A, Mat B, MatReuse reuse, const Settings &s, Mat *C)
{
  PetscFunctionBegin;
  if (s.ptap) PetscCall(MatPtAP(A, B, reuse, PETSC_DEFAULT, C));
  else PetscCall(MatMatMult(A, B, reuse, PETSC_DEFAULT, C));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times one PETSc or petsc-cluster algorithm. *C is owned by the caller (destroyed by it, also
   after an error); ref may be NULL (no check: the reference run itself). */
inline PetscErrorCode TimeMatProduct(Mat A, Mat B, const char *alg, const Settings &s, const Reference *ref, Figures *f, Mat *C)
{
  PetscLogDouble t0, t1, t2, t3;

  PetscFunctionBegin;
  if (s.matmatmult) { /* MatMatMult() and MatPtAP() read their algorithm from the options database */
    if (std::string(alg) == "default") PetscCall(PetscOptionsClearValue(NULL, ViaOption(s)));
    else PetscCall(PetscOptionsSetValue(NULL, ViaOption(s), alg));
  }
  for (PetscInt r = 0; r < s.reps; ++r) {
    PetscCall(MatDestroy(C));
    if (s.matmatmult) {
      PetscCall(PetscTime(&t0));
      PetscCall(OneCallProduct(A, B, MAT_INITIAL_MATRIX, s, C));
      PetscCall(PetscTime(&t3));
      f->oneshot = std::min(f->oneshot, t3 - t0); /* no separate symbolic figure */
      continue;
    }
    PetscCall(PetscTime(&t0));
    PetscCall(CreateProduct(A, B, alg, s, C));
    PetscCall(PetscTime(&t1));
    PetscCall(MatProductSymbolic(*C));
    PetscCall(PetscTime(&t2));
    PetscCall(MatProductNumeric(*C));
    PetscCall(PetscTime(&t3));
    f->oneshot  = std::min(f->oneshot, t3 - t0);
    f->symbolic = std::min(f->symbolic, t2 - t1);
  }
  if (ref) PetscCall(CompareMat(*C, *ref, 1.0, s.tol, "one-shot", f));
  if (f->kind == "petsc-cluster") PetscCall(ChosenKernel(*C, &f->chosen));
  f->numeric_fn = s.ptap ? reinterpret_cast<void (*)()>((*C)->ops->ptapnumeric) : reinterpret_cast<void (*)()>((*C)->ops->matmultnumeric);
  for (PetscInt r = 0; r < s.reps; ++r) {
    PetscScalar *a;
    /* A reuse follows a change of A's values: mark A modified (untimed), so that no implementation
       can skip the work because its operands look unchanged. */
    PetscCall(MatSeqAIJGetArray(A, &a));
    PetscCall(MatSeqAIJRestoreArray(A, &a));
    PetscCall(PetscTime(&t0));
    if (s.matmatmult) PetscCall(OneCallProduct(A, B, MAT_REUSE_MATRIX, s, C));
    else PetscCall(MatProductNumeric(*C));
    PetscCall(PetscTime(&t1));
    f->reuse = std::min(f->reuse, t1 - t0);
  }
  if (ref) {
    PetscCall(CompareMat(*C, *ref, 1.0, s.tol, "reuse", f));
    /* Reuse after A's values change (doubled: C becomes exactly 4 C_ref if B is A, else 2 C_ref;
       P^T (2A) P = 2 C_ref), then restore A. */
    PetscCall(MatScale(A, 2.0));
    PetscErrorCode ierr = MatProductNumeric(*C);
    PetscCall(MatScale(A, 0.5)); /* restored even if the numeric phase failed */
    PetscCall(ierr);
    PetscCall(CompareMat(*C, *ref, A == B ? 4.0 : 2.0, s.tol, "reuse with new values", f));
  }
  if (s.matmatmult) PetscCall(PetscOptionsClearValue(NULL, ViaOption(s)));
  f->ran = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* One matrix                                                                                  */

/* How P was made (-product ptap) */
struct Prolongator {
  PetscInt       levels = 0, rows = 0, cols = 0, rbs = 1, cbs = 1, nsmooths = 1;
  PetscInt64     nnz          = 0;
  PetscLogDouble setup_s      = 0;
  std::string    near_null;
};

/* One matrix: its figures (spgemm_bench: every algorithm; ordering_study: PETSc's built-ins) */
struct Summary {
  std::string          name;
  std::string          product = "A*A"; /* "A*A^T" for a rectangular A, "P^T*A*P" for ptap */
  std::string          default_name = kPetscDefault;
  PetscInt             rows = 0;
  PetscInt64           nnz = 0, flops = -1, nnz_c = 0; /* flops: -1 for ptap (not reported) */
  PetscInt             rows_b = 0;                      /* B's rows and nnz (A*A: A's; A*A^T: A^T's) */
  PetscInt64           nnz_b  = 0;
  Prolongator          P;
  std::vector<Figures> figs;
  double               best_builtin = kInf, best_builtin_reuse = kInf, dflt = kInf, dflt_reuse = kInf;
  std::string          best_builtin_name;
};

/* PETSc's fastest built-in and its default, the references of every ratio */
inline void Summarise(Summary *S)
{
  for (const Figures &f : S->figs) {
    if (f.kind != "petsc" || !f.ok()) continue;
    if (f.oneshot < S->best_builtin && !f.pruned) {
      S->best_builtin      = f.oneshot;
      S->best_builtin_name = f.name;
    }
    if (!f.pruned) S->best_builtin_reuse = std::min(S->best_builtin_reuse, f.reuse);
    if (f.name == S->default_name) {
      S->dflt       = f.oneshot;
      S->dflt_reuse = f.reuse;
    }
  }
}

inline PetscLogStage StageFor(const std::string &name)
{
  static std::map<std::string, PetscLogStage> stages;
  auto                                        it = stages.find(name);
  if (it != stages.end()) return it->second;
  PetscLogStage stage = -1;
  if (PetscLogStageRegister(name.c_str(), &stage)) return -1;
  return stages[name] = stage;
}

/* The message of the error just raised (PETSc keeps the first line of the last error). */
inline std::string ErrorText(PetscErrorCode ierr)
{
  const char *text = NULL, *specific = NULL;
  if (ErrorMessage(ierr, &text, &specific)) return "PETSc error " + std::to_string(ierr);
  return std::string("PETSc error ") + std::to_string(ierr) + ": " + (specific && specific[0] ? specific : text ? text : "");
}

/* Builds A (and its CSR copy) with row block size bs, recording its name and size in S */
inline PetscErrorCode BuildAndDescribe(const Problem &p, PetscInt bs, Mat *A, Csr *M, Summary *S)
{
  PetscLogDouble t0, t1;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCall(BuildProblem(p, bs, A, M));
  PetscCall(PetscTime(&t1));
  S->name = p.name;
  S->rows = M->nrows;
  S->nnz  = static_cast<PetscInt64>(M->colidx.size());
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "\n[%s] built in %.2f s\n", p.name.c_str(), t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The second factor of the A*A runs: A itself, or A^T (formed untimed, its CSR copy into MB) for a
   rectangular A; sets S's product name and flops */
inline PetscErrorCode SecondFactorAB(Mat A, const Csr &M, Mat *B, Csr *MB, Summary *S)
{
  PetscFunctionBegin;
  if (M.nrows == M.ncols) *B = A;
  else {
    PetscCall(MatTranspose(A, MAT_INITIAL_MATRIX, B));
    PetscCall(CsrFromMat(*B, MB));
    S->product = "A*A^T";
  }
  S->flops = Flops(M, *B == A ? M : *MB);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* PETSc's default product once (untimed, also the warm-up) and its scale: the reference every result
   is checked against (ReferenceDestroy frees it) */
inline PetscErrorCode ComputeReference(const Problem &p, Mat A, Mat B, const Settings &s, Reference *ref, Summary *S)
{
  Figures  warm;
  Settings once = s;
  Mat      C    = NULL;

  PetscFunctionBegin;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%s] computing the reference with PETSc's default (%s; untimed, also the warm-up)\n", p.name.c_str(), S->default_name.c_str()));
  once.reps = 1;
  PetscCall(TimeMatProduct(A, B, "default", once, NULL, &warm, &C));
  PetscCall(MatProductClear(C)); /* C keeps its values; what PETSc kept for a numeric phase goes */
  ref->C = C;
  PetscCall(CreateProductScale(s.ptap ? MATPRODUCT_PtAP : MATPRODUCT_AB, A, B, NULL, &ref->scale));
  {
    MatInfo info;
    PetscCall(MatGetInfo(C, MAT_LOCAL, &info));
    S->nnz_c = static_cast<PetscInt64>(info.nz_used);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Output                                                                                      */

/* a / b, or inf ("-", null) when either figure is missing */
inline double Ratio(double a, double b)
{
  return std::isfinite(a) && std::isfinite(b) && b > 0 ? a / b : kInf;
}

inline std::string Fmt(const char *fmt, double v)
{
  if (!std::isfinite(v)) return "-";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

inline std::string JsonNumber(double v)
{
  if (!std::isfinite(v)) return "null";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

inline std::string JsonString(const std::string &s)
{
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
    } else out += c;
  }
  return out + "\"";
}

/* Writes the -json file anew; called after every matrix, so a long suite leaves its figures so far */
template <class Write>
PetscErrorCode RewriteJson(const char json[], Write &&write)
{
  PetscFunctionBeginUser;
  std::FILE *fp = std::fopen(json, "w");
  PetscCheck(fp, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "Cannot open -json file %s for writing", json);
  write(fp);
  PetscCheck(std::fclose(fp) == 0, PETSC_COMM_WORLD, PETSC_ERR_FILE_WRITE, "Error writing -json file %s", json);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Set-up                                                                                      */

/* After PetscInitialize: registers the plugin (before any Mat exists: it hooks SeqAIJ creation) and
   sets what BENCH_HELP_REUSE_ANALYSIS says; the programs are sequential (SeqAIJ) */
inline PetscErrorCode BenchSetUp(const char program[])
{
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscClusterInitializePackage());
  /* Repetitions reuse one A: keeping its ordering and clusters on it would leave them out of every
     one-shot after the first (see the help text) */
  PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_reuse_analysis", "false"));
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
  PetscCheck(size == 1, PETSC_COMM_WORLD, PETSC_ERR_SUP, "%s is sequential (SeqAIJ): run it on one MPI rank", program);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The matrices to run, as BENCH_HELP_MATRICES describes them */
struct MatrixOptions {
  Problem                  one; /* -f, or -gen -n */
  std::string              gen         = "p7";
  PetscInt                 n           = -1, gen_seed = 1, shuffle = -1, shuffle_bs = 1;
  PetscBool                suite       = PETSC_FALSE, sweep = PETSC_FALSE;
  PetscReal                suite_scale = 1.0;
  std::vector<PetscInt>    sweep_seeds = {1};
  std::vector<std::string> files;
  std::string              shared_dir;
};

/* Reads the matrix options; called between PetscOptionsBegin() and PetscOptionsEnd() */
template <class OptionItems> /* petsc_versions.hpp */
inline PetscErrorCode MatrixOptionsRead(OptionItems PetscOptionsObject, MatrixOptions *o)
{
  char      buf[PETSC_MAX_PATH_LEN] = "";
  char     *filelist[64];
  PetscInt  nfiles = 64;
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsString("-f", "Matrix file: PETSc binary, or Matrix Market if it ends in .mtx", "MatLoad", buf, buf, sizeof buf, &set));
  if (set) o->one.file = buf;
  PetscCall(PetscOptionsString("-gen", "Generated matrix: p7, s27, e27, rmat, rgg", "", o->gen.c_str(), buf, sizeof buf, &set));
  if (set) o->gen = buf;
  PetscCall(PetscOptionsInt("-n", "Grid size (p7, s27, e27), scale (rmat) or points (rgg)", "", o->n, &o->n, NULL));
  PetscCall(PetscOptionsInt("-gen_seed", "Seed of generated values and graphs", "", o->gen_seed, &o->gen_seed, NULL));
  PetscCall(PetscOptionsInt("-shuffle", "Seed of a random symmetric permutation P A P^T (-1: none)", "", o->shuffle, &o->shuffle, NULL));
  PetscCall(PetscOptionsInt("-shuffle_block_size", "Rows per node kept together by -shuffle (e27: 3)", "", o->shuffle_bs, &o->shuffle_bs, NULL));
  PetscCall(PetscOptionsBool("-suite", "Run the generated suite of design/benchmarks.md", "", o->suite, &o->suite, NULL));
  PetscCall(PetscOptionsReal("-suite_scale", "Multiply the suite's (and the sweep's) row counts by this", "", o->suite_scale, &o->suite_scale, NULL));
  PetscCall(PetscOptionsBool("-sweep", "Run the sweep: every generator at several sizes, natural and shuffled", "", o->sweep, &o->sweep, NULL));
  {
    PetscInt seeds[32], nseeds = 32;
    PetscCall(PetscOptionsIntArray("-sweep_seeds", "Seeds of the sweep (one sweep each)", "", seeds, &nseeds, &set));
    if (set) o->sweep_seeds.assign(seeds, seeds + nseeds);
  }
  PetscCall(PetscOptionsString("-shared_matrices", "Folder whose every .mtx file is run (after the suite or sweep)", "", "", buf, sizeof buf, &set));
  if (set) o->shared_dir = buf;
  PetscCall(PetscOptionsStringArray("-files", "Comma-separated matrix files, run after the suite (with -suite) or instead of -f/-gen", "", filelist, &nfiles, &set));
  if (!set) nfiles = 0;
  o->files.clear();
  for (PetscInt i = 0; i < nfiles; ++i) {
    o->files.push_back(filelist[i]);
    PetscCall(PetscFree(filelist[i]));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The problems the options name: the suite, then -files; or else the one of -f or -gen */
inline PetscErrorCode MatrixOptionsProblems(const MatrixOptions &o, std::vector<Problem> *problems)
{
  PetscFunctionBegin;
  PetscCheck(o.suite_scale > 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-suite_scale must be > 0");
  PetscCheck(!o.sweep || !o.sweep_seeds.empty(), PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-sweep_seeds: give at least one seed");
  problems->clear();
  if (o.suite) *problems = StandardSuite(o.suite_scale);
  for (Problem &p : *problems) p.gen_seed = o.gen_seed;
  if (o.sweep) {
    const std::vector<Problem> sweep = SweepSuite(o.suite_scale, o.sweep_seeds); /* their own seeds */
    problems->insert(problems->end(), sweep.begin(), sweep.end());
  }
  std::vector<std::string> files = o.files;
  if (!o.shared_dir.empty()) {
    std::vector<std::string> mtx;
    std::error_code          ec;
    for (const auto &e : std::filesystem::directory_iterator(o.shared_dir, ec))
      if (e.path().extension() == ".mtx") mtx.push_back(e.path().string());
    PetscCheck(!ec, PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "-shared_matrices %s: cannot list the folder: %s", o.shared_dir.c_str(), ec.message().c_str());
    PetscCheck(!mtx.empty(), PETSC_COMM_WORLD, PETSC_ERR_FILE_OPEN, "-shared_matrices %s: no .mtx file in the folder", o.shared_dir.c_str());
    std::sort(mtx.begin(), mtx.end());
    files.insert(files.end(), mtx.begin(), mtx.end());
  }
  for (const std::string &file : files) {
    Problem f;
    f.file = file;
    problems->push_back(f);
  }
  if (!o.suite && !o.sweep && files.empty()) {
    Problem one = o.one;
    if (one.file.empty()) {
      one.gen = o.gen;
      one.n   = o.n >= 0 ? o.n : (o.gen == "rmat" ? 14 : o.gen == "rgg" ? 1000000 : o.gen == "e27" ? 24 : 60);
    }
    one.shuffle    = o.shuffle;
    one.shuffle_bs = (one.gen == "e27" && o.shuffle_bs == 1) ? 3 : o.shuffle_bs;
    one.gen_seed   = o.gen_seed;
    problems->push_back(one);
  }
  for (Problem &p : *problems) p.name = ProblemName(p);
  PetscFunctionReturn(PETSC_SUCCESS);
}
