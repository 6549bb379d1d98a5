static char help[] = "Bad input to the petsc-cluster plugin, case by case (issue 6): for each case the PETSc error code\n\
and message of the call, and that the caller's matrices are unchanged and still usable afterwards.\n\
Sections: unknown names, parameter ranges, sizes, unassembled operands, malformed operands, operand\n\
types the plugin does not take, pattern changes before a numeric phase, nnz(C) beyond PetscInt,\n\
allocation failure (RLIMIT_AS). On more than one MPI rank: the MATMPIAIJ cases.\n\
Prints one line per failed case and a summary per section; exits nonzero if any case failed.\n\
  -section <name>: run only that section\n\
  -verbose: print every case\n\n";

/*
   Each case is a row of a table: what is bad, the entry point (the MatProduct API with the
   algorithm set in code or by -mat_product_algorithm, or the user API MatMatMult & co. with the
   -mat*_via option), the expected error code and words of the message, and the call. The runner
   copies the operands (and a reused C) first, runs the call under PetscReturnErrorHandler, reads
   the message with PetscErrorMessage and compares the copies afterwards (MatEqual).
*/
#include <petsccluster.h>
#include <petscmat.h>

#include "test_matrices.hpp"
#include "user_products.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <sys/resource.h>
#include <execinfo.h>
#if defined(__GLIBC__)
  #include <malloc.h>
#endif
#include <vector>

#if defined(__SANITIZE_ADDRESS__)
  #define BAD_INPUT_ASAN 1
#elif defined(__has_feature)
  #if __has_feature(address_sanitizer)
    #define BAD_INPUT_ASAN 1
  #endif
#endif

namespace {

const char *const kOurs[] = {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, MATPRODUCTALGORITHMROWWISE};
const MatProductType kTypes[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt, MATPRODUCT_ABC};

PetscBool   g_verbose = PETSC_FALSE;
PetscMPIInt g_rank = 0, g_size = 1;

/* The names of the product's operands in messages: A, B (P for PtAP, R for RARt), C */
const char *OperandName(MatProductType type, int k)
{
  if (k == 0) return "A";
  if (k == 2) return "C";
  return type == MATPRODUCT_PtAP ? "P" : type == MATPRODUCT_RARt ? "R" : "B";
}

/* How a product is formed */
enum Entry { kInCode, kOption, kUser };
const char *EntryName(Entry e)
{
  return e == kInCode ? "MatProductSetAlgorithm" : e == kOption ? "-mat_product_algorithm" : "user API + -mat*_via";
}

/* C = the product of `type` on o, with algorithm alg through entry point e; the options of e are
   set by the case (AlgorithmOption) */
PetscErrorCode FormProduct(Entry e, MatProductType type, const Operands &o, const char *alg, Mat *C)
{
  PetscFunctionBeginUser;
  if (e == kUser) {
    PetscCall(UserProduct(type, o.X, o.Y, o.Z, MAT_INITIAL_MATRIX, C));
    PetscFunctionReturn(0);
  }
  PetscCall(MatProductCreate(o.X, o.Y, type == MATPRODUCT_ABC ? o.Z : NULL, C));
  PetscCall(MatProductSetType(*C, type));
  if (e == kInCode) PetscCall(MatProductSetAlgorithm(*C, alg));
  PetscCall(MatProductSetFromOptions(*C));
  PetscCall(MatProductSymbolic(*C));
  PetscCall(MatProductNumeric(*C));
  PetscFunctionReturn(0);
}

/* The option entry point e reads for the algorithm ("" for kInCode) */
std::string AlgorithmOption(Entry e, MatProductType type)
{
  return e == kInCode ? "" : e == kOption ? "-mat_product_algorithm" : ViaOption(type);
}

using Options = std::vector<std::pair<std::string, std::string>>;

/* The options selecting alg through e, plus extra */
Options AlgOptions(Entry e, MatProductType type, const char *alg, Options extra = {})
{
  if (e != kInCode) extra.insert(extra.begin(), {AlgorithmOption(e, type), alg});
  return extra;
}

struct Case {
  std::string              section, what;
  PetscErrorCode           code = 0;          /* expected */
  PetscErrorCode           code_too = -1;     /* >= 0: also accepted (a PETSc quirk, see its case) */
  std::vector<std::string> words;             /* in the message (this rank's) */
  std::vector<std::string> words_other_ranks; /* MPI: on the ranks that did not fail themselves (if not empty) */
  Options                  options;           /* set for the call only */
  std::vector<Mat>         unchanged;         /* the call must leave these as they were */
  std::function<PetscErrorCode(Mat *C)> call;  /* *C: a result to destroy afterwards (or NULL) */
  std::function<PetscErrorCode()>        after; /* further checks (operands still usable, ...) */
  long                     max_peak_growth_mib = -1; /* >= 0: the peak RSS may grow at most this much */
  /* With -malloc_debug: PETSc memory the call leaves allocated is a failure, unless the leak is
     PETSc's own on that error path (said where it is set) */
  bool petsc_leaks = false;
};

struct Tally {
  int cases = 0, failed = 0;
};
std::vector<std::pair<std::string, Tally>> g_tally;

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

PetscErrorCode SetOptions(const Options &o)
{
  PetscFunctionBeginUser;
  for (const auto &kv : o) PetscCall(PetscOptionsSetValue(NULL, kv.first.c_str(), kv.second.empty() ? NULL : kv.second.c_str()));
  PetscFunctionReturn(0);
}

PetscErrorCode ClearOptions(const Options &o)
{
  PetscFunctionBeginUser;
  for (const auto &kv : o) PetscCall(PetscOptionsClearValue(NULL, kv.first.c_str()));
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

/* Runs one case; records whether it held */
PetscErrorCode Run(const Case &c)
{
  std::vector<Mat> copies;
  Mat              C = NULL;
  PetscErrorCode   ierr;
  char            *message = NULL;
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
  PetscCall(PetscErrorMessage(ierr, NULL, &message));
  const std::string msg = ierr && message ? message : "";

  if (ierr != c.code && ierr != c.code_too) problem += "error code " + std::to_string((int)ierr) + ", expected " + std::to_string((int)c.code) + "; ";
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
  PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &all_ok, 1, MPIU_BOOL, MPI_LAND, PETSC_COMM_WORLD));
  if (all_ok && !c.petsc_leaks) {
    /* A leak shows as memory still in use after a second and a third run (the first run of a kind
       of call may register types, functions and classes once) */
    PetscLogDouble second, third;
    PetscCall(LeftAllocated(c, &second));
    PetscCall(MPIU_Allreduce(MPI_IN_PLACE, &second, 1, MPIU_PETSCLOGDOUBLE, MPI_MAX, PETSC_COMM_WORLD));
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
      PetscCall(PetscErrorMessage(ierr, NULL, &message));
      problem += std::string("afterwards: ") + (message ? message : "") + "; ";
    }
  }
  Tally &t = TallyOf(c.section);
  t.cases++;
  if (!problem.empty()) t.failed++;
  if (!problem.empty() || g_verbose)
    PetscCall(PetscPrintf(PETSC_COMM_SELF, "[%d] %s %s: %s: %s\n      message: %s\n", (int)g_rank, problem.empty() ? "ok    " : "FAILED", c.section.c_str(), c.what.c_str(), problem.c_str(), msg.c_str()));
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* Operands */

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
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

/* A SeqAIJ on arrays copied from M's, with one defect made by `spoil` (arrays kept alive in g_arrays) */
struct Arrays {
  std::vector<PetscInt>    i, j;
  std::vector<PetscScalar> a;
};
std::vector<std::unique_ptr<Arrays>> g_arrays;

PetscErrorCode SpoiledCopy(Mat M, const std::function<void(Arrays &)> &spoil, Mat *S)
{
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscInt           m, n;
  PetscBool          done;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(M, &m, &n));
  PetscCall(MatGetRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCall(MatSeqAIJGetArrayRead(M, &va));
  auto arr = std::make_unique<Arrays>();
  arr->i.assign(ia, ia + m + 1);
  arr->j.assign(ja, ja + ia[m]);
  arr->a.assign(va, va + ia[m]);
  PetscCall(MatSeqAIJRestoreArrayRead(M, &va));
  {
    PetscInt mm; /* MatRestoreRowIJ zeroes it */
    PetscCall(MatRestoreRowIJ(M, 0, PETSC_FALSE, PETSC_FALSE, &mm, &ia, &ja, &done));
  }
  spoil(*arr);
  /* PETSc's release build checks neither order nor range here (only with --with-debugging) */
  PetscCall(MatCreateSeqAIJWithArrays(PETSC_COMM_SELF, m, n, arr->i.data(), arr->j.data(), arr->a.data(), S));
  g_arrays.push_back(std::move(arr));
  PetscFunctionReturn(0);
}

/* The first row with at least two entries (for the defects that need two) */
PetscInt RowWithTwo(const Arrays &a)
{
  for (size_t r = 0; r + 1 < a.i.size(); ++r)
    if (a.i[r + 1] - a.i[r] >= 2) return (PetscInt)r;
  return -1;
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
  if (m1 != m2 || n1 != n2) PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

std::vector<Mat> List(const Operands &o)
{
  std::vector<Mat> v{o.X, o.Y};
  if (o.Z) v.push_back(o.Z);
  return v;
}

/* ------------------------------------------------------------------------------------------ */
/* Sections (SeqAIJ) */

struct Fixture {
  Mat A = NULL, P = NULL, R = NULL; /* 40 x 40, 40 x 13, 13 x 40 */
};

PetscErrorCode UnknownNames(const Fixture &f)
{
  const std::vector<std::string> orderings = {"natural", "random", "rcm", "amd", "nd", "gp", "hp", "gray", "rabbit", "degree", "slashburn"};

  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (Entry e : {kOption, kUser}) {
      Case c;
      c.section = "unknown names";
      c.what    = std::string(tn) + ", " + AlgorithmOption(e, type) + " bogus";
      c.code    = PETSC_ERR_USER; /* PETSc's code for an unknown value of its option */
      c.words   = {"bogus", AlgorithmOption(e, type), "Available options", "petsc-cluster adds for seqaij operands"};
      for (const char *a : kOurs) c.words.push_back(a);
      c.options   = AlgOptions(e, type, "bogus");
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, NULL, C); };
      c.after     = [=]() { return StillUsable(type, o); };
      c.petsc_leaks = true; /* PetscOptionsGetEList (options.c:2400, 2407) keeps its list of names on this error */
      PetscCall(Run(c));
    }
    for (Entry e : {kInCode, kUser}) {
      const char *alg = e == kInCode ? MATPRODUCTALGORITHMCLUSTER : MATPRODUCTALGORITHMROWWISE;
      struct Bad {
        const char              *option, *value;
        PetscErrorCode           code;
        std::vector<std::string> words;
      };
      std::vector<std::string> ord_words = {"-mat_cluster_reorder", "bogus"};
      ord_words.insert(ord_words.end(), orderings.begin(), orderings.end());
      const Bad bads[] = {
        {"-mat_cluster_accumulator",    "foo",   PETSC_ERR_ARG_UNKNOWN_TYPE, {"-mat_cluster_accumulator", "foo", "auto", "hash", "dense"}},
        {"-mat_cluster_reorder",        "bogus", PETSC_ERR_ARG_UNKNOWN_TYPE, ord_words                                                },
        {"-mat_cluster_reuse_analysis", "maybe", PETSC_ERR_ARG_WRONG,        {"-mat_cluster_reuse_analysis", "maybe", "logical"}     },
      };
      for (const Bad &b : bads) {
        Case c;
        c.section   = "unknown names";
        c.what      = std::string(tn) + ", " + EntryName(e) + " " + alg + ", " + b.option + " " + b.value;
        c.code      = b.code;
        c.words     = b.words;
        c.options   = AlgOptions(e, type, alg, {{b.option, b.value}});
        c.unchanged = List(o);
        c.call      = [=](Mat *C) { return FormProduct(e, type, o, alg, C); };
        c.after     = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Ranges(const Fixture &f)
{
  struct Bad {
    const char              *alg, *option, *value;
    Options                  extra;
    PetscErrorCode           code;
    std::vector<std::string> words;
  };
  const PetscErrorCode R = PETSC_ERR_ARG_OUTOFRANGE;
  const Options        random = {{"-mat_cluster_reorder", "random"}}, gp = {{"-mat_cluster_reorder", "gp"}}, sb = {{"-mat_cluster_reorder", "slashburn"}}, gray = {{"-mat_cluster_reorder", "gray"}};
  const Bad            bads[] = {
    {MATPRODUCTALGORITHMCLUSTERFIXED,        "-mat_cluster_size",                       "0",           {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTERFIXED,        "-mat_cluster_size",                       "-1",          {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_size",                       "65",          {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       "2147483647",  {},     R, {"[1, 64]"}                    },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       "4294967298",  {},     R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_size",                       "abc",         {},     R, {"not an integer"}             },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "-0.5",        {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_jaccard_threshold",          "1.5",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "nan",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "inf",         {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "1e400",       {},     R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMCLUSTERVARIABLE,     "-mat_cluster_jaccard_threshold",          "abc",         {},     R, {"not a number"}               },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "-1",          {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "64",          {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, "-mat_cluster_topk",                       "2147483647",  {},     R, {"[0, 63]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_threads",                    "-1",          {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_threads",                    "1025",        {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_threads",                    "2147483647",  {},     R, {"[0, 1024]"}                  },
    {MATPRODUCTALGORITHMCLUSTER,             "-mat_cluster_threads",                    "-2147483649", {},     R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_seed",               "-1",          random, R, {">= 0"}                       },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_seed",               "4294967298",  random, R, {"PetscInt range"}             },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_parts",              "-1",          gp,     R, {">= 0"}                       },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "0",           sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "1.5",         sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_hub_fraction",       "nan",         sb,     R, {"(0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_bits",          "0",           gray,   R, {"[1, 62]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_bits",          "63",          gray,   R, {"[1, 62]"}                    },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_dense_fraction", "-0.1",       gray,   R, {"[0, 1]"}                     },
    {MATPRODUCTALGORITHMROWWISE,             "-mat_cluster_reorder_gray_dense_fraction", "1.1",        gray,   R, {"[0, 1]"}                     },
  };

  PetscFunctionBeginUser;
  for (const Bad &b : bads) {
    /* The MatProduct API on A*P, and MatPtAP with -matptap_via */
    for (Entry e : {kInCode, kUser}) {
      const MatProductType type = e == kInCode ? MATPRODUCT_AB : MATPRODUCT_PtAP;
      const Operands       o    = OperandsFor(type, f.A, f.P, f.R);
      Case                 c;
      c.section = "ranges";
      c.what    = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " " + b.alg + ", " + b.option + " " + b.value;
      c.code    = b.code;
      c.words   = b.words;
      c.words.insert(c.words.begin(), std::string(b.option) + " " + b.value);
      if (std::string(b.value) == "nan" || std::string(b.value) == "inf" || std::string(b.value) == "1e400") c.words[0] = b.option; /* printed as PETSc's %g */
      Options extra = b.extra;
      extra.push_back({b.option, b.value});
      c.options   = AlgOptions(e, type, b.alg, extra);
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, b.alg, C); };
      c.after     = [=]() { return StillUsable(type, o); };
      PetscCall(Run(c));
    }
  }
  { /* under the product's options prefix */
    const Operands o = OperandsFor(MATPRODUCT_AB, f.A, f.P, f.R);
    Case           c;
    c.section   = "ranges";
    c.what      = "AB, MatProductSetAlgorithm cluster, prefix bad_, -bad_mat_cluster_size 0";
    c.code      = PETSC_ERR_ARG_OUTOFRANGE;
    c.words     = {"-bad_mat_cluster_size 0", "[1, 64]"};
    c.options   = {{"-bad_mat_cluster_size", "0"}};
    c.unchanged = List(o);
    c.call      = [=](Mat *C) -> PetscErrorCode {
      PetscCall(MatProductCreate(o.X, o.Y, NULL, C));
      PetscCall(MatSetOptionsPrefix(*C, "bad_"));
      PetscCall(MatProductSetType(*C, MATPRODUCT_AB));
      PetscCall(MatProductSetAlgorithm(*C, MATPRODUCTALGORITHMCLUSTER));
      PetscCall(MatProductSetFromOptions(*C));
      PetscCall(MatProductSymbolic(*C));
      return 0;
    };
    PetscCall(Run(c));
  }
  { /* the same tunables when our ordering is a PETSc ordering */
    Case c;
    c.section   = "ranges";
    c.what      = "MatGetOrdering pcluster_gray, -mat_cluster_reorder_gray_bits 0";
    c.code      = PETSC_ERR_ARG_OUTOFRANGE;
    c.words     = {"-mat_cluster_reorder_gray_bits 0", "[1, 62]"};
    c.options   = {{"-mat_cluster_reorder_gray_bits", "0"}};
    c.unchanged = {f.A};
    c.call      = [=](Mat *) -> PetscErrorCode {
      IS rows, cols;
      PetscCall(MatGetOrdering(f.A, "pcluster_gray", &rows, &cols));
      PetscCall(ISDestroy(&rows));
      PetscCall(ISDestroy(&cols));
      return 0;
    };
    PetscCall(Run(c));
  }
  PetscFunctionReturn(0);
}

PetscErrorCode Sizes(void)
{
  struct Bad {
    MatProductType           type;
    PetscInt                 dims[3][2]; /* X, Y, Z sizes */
    std::vector<std::string> words;
  };
  /* PETSc's MatProductSetFromOptions checks the inner dimensions before any algorithm is chosen;
     what it lets through (PtAP, RARt of a non-square A) the plugin refuses */
  const Bad bads[] = {
    {MATPRODUCT_AB,   {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_AtB,  {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_ABt,  {{6, 5}, {4, 3}, {0, 0}}, {"incompatible", "A 6x5", "B 4x3"}                   },
    {MATPRODUCT_PtAP, {{6, 6}, {5, 3}, {0, 0}}, {"incompatible", "A 6x6", "P 5x3"}                   },
    {MATPRODUCT_PtAP, {{6, 5}, {5, 3}, {0, 0}}, {"A must be square", "A is 6 x 5", "P is 5 x 3"}     },
    {MATPRODUCT_RARt, {{6, 6}, {3, 5}, {0, 0}}, {"incompatible", "A 6x6", "R 3x5"}                   },
    {MATPRODUCT_RARt, {{5, 6}, {3, 6}, {0, 0}}, {"A must be square", "A is 5 x 6", "R is 3 x 6"}     },
    {MATPRODUCT_ABC,  {{6, 5}, {4, 4}, {4, 2}}, {"incompatible", "A 6x5", "B 4x4"}                   },
    {MATPRODUCT_ABC,  {{6, 5}, {5, 4}, {3, 2}}, {"incompatible", "B 5x4", "C 3x2"}                   },
  };

  PetscFunctionBeginUser;
  for (const Bad &b : bads) {
    Operands o;
    Mat     *slots[3] = {&o.X, &o.Y, &o.Z};
    for (int k = 0; k < (b.type == MATPRODUCT_ABC ? 3 : 2); ++k) PetscCall(RandomAIJ(PETSC_COMM_SELF, b.dims[k][0], b.dims[k][1], 2, 90 + k, slots[k]));
    for (Entry e : {kInCode, kUser}) {
      Case c;
      c.section   = "sizes";
      c.what      = std::string(MatProductTypes[b.type]) + ", " + EntryName(e) + " cluster, " + b.words[1] + " and " + b.words[2];
      c.code      = PETSC_ERR_ARG_SIZ;
      c.words     = b.words;
      c.options   = AlgOptions(e, b.type, MATPRODUCTALGORITHMCLUSTER);
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, b.type, o, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    PetscCall(MatDestroy(&o.X));
    PetscCall(MatDestroy(&o.Y));
    PetscCall(MatDestroy(&o.Z));
  }
  PetscFunctionReturn(0);
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
  PetscFunctionReturn(0);
}

PetscErrorCode UnassembledOperands(const Fixture &f)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      Operands bad = o;
      Mat     *slot = k == 0 ? &bad.X : k == 1 ? &bad.Y : &bad.Z;
      Mat      U;
      PetscCall(Unassembled(*slot, &U));
      *slot = U;
      std::vector<Mat> good;
      for (Mat M : List(bad))
        if (M != U) good.push_back(M);
      /* PETSc refuses it when the product is created (both APIs) */
      for (Entry e : {kInCode, kUser}) {
        Case c;
        c.section   = "unassembled";
        c.what      = std::string(tn) + ", " + EntryName(e) + " cluster, operand " + OperandName(type, k) + " unassembled";
        c.code      = PETSC_ERR_ARG_WRONGSTATE;
        c.words     = {"assembled"}; /* PETSc's "Not for unassembled matrix" or, where PETSc does not check, ours */
        c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
        c.unchanged = good;
        c.call      = [=](Mat *C) { return FormProduct(e, type, bad, MATPRODUCTALGORITHMCLUSTER, C); };
        PetscCall(Run(c));
      }
      /* MatProductReplaceMats does not check it: the plugin's numeric phase does */
      {
        Case c;
        c.section   = "unassembled";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, operand " + OperandName(type, k) + " unassembled";
        c.code      = PETSC_ERR_ARG_WRONGSTATE;
        c.words     = {std::string("matrix ") + OperandName(type, k) + " must be assembled"};
        c.unchanged = good;
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(bad.X, bad.Y, bad.Z, *C));
          PetscCall(MatProductNumeric(*C));
          return 0;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      PetscCall(MatAssemblyBegin(U, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(U, MAT_FINAL_ASSEMBLY));
      PetscCall(MatDestroy(&U));
    }
  }
  PetscFunctionReturn(0);
}

PetscErrorCode MalformedOperands(const Fixture &f)
{
  struct Defect {
    const char *what;
    std::function<std::string(Arrays &, PetscInt ncols)> spoil; /* returns the words of the message */
  };
  const Defect defects[] = {
    {"unsorted columns",
     [](Arrays &a, PetscInt) {
       const PetscInt r = RowWithTwo(a);
       std::swap(a.j[a.i[r]], a.j[a.i[r] + 1]);
       return "column indices not sorted and unique in row " + std::to_string(r);
     }},
    {"a repeated column",
     [](Arrays &a, PetscInt) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r] + 1] = a.j[a.i[r]];
       return "column indices not sorted and unique in row " + std::to_string(r);
     }},
    {"a column index = ncols",
     [](Arrays &a, PetscInt n) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r + 1] - 1] = n;
       return "column index " + std::to_string(n) + " out of range [0," + std::to_string(n) + ") in row " + std::to_string(r);
     }},
    {"a column index -1",
     [](Arrays &a, PetscInt n) {
       const PetscInt r = RowWithTwo(a);
       a.j[a.i[r]] = -1;
       return "column index -1 out of range [0," + std::to_string(n) + ") in row " + std::to_string(r);
     }},
  };

  PetscFunctionBeginUser;
  for (const Defect &d : defects)
    for (MatProductType type : kTypes) {
      const Operands o = OperandsFor(type, f.A, f.P, f.R);
      const char    *tn = MatProductTypes[type];
      Operands       bad = o;
      std::string    words;
      PetscInt       n;
      PetscCall(MatGetSize(o.X, NULL, &n));
      PetscCall(SpoiledCopy(o.X, [&](Arrays &a) { words = d.spoil(a, n); }, &bad.X));
      const std::vector<Mat> good = o.Z ? std::vector<Mat>{o.Y, o.Z} : std::vector<Mat>{o.Y};
      for (Entry e : {kInCode, kUser}) {
        Case c;
        c.section   = "malformed";
        c.what      = std::string(tn) + ", " + EntryName(e) + " cluster, A with " + d.what;
        c.code      = PETSC_ERR_ARG_OUTOFRANGE;
        c.words     = {"A: " + words};
        c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
        c.unchanged = List(bad);
        c.call      = [=](Mat *C) { return FormProduct(e, type, bad, MATPRODUCTALGORITHMCLUSTER, C); };
        c.after     = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      { /* given to an existing product: same sizes and nnz, so the numeric phase validates it */
        Case c;
        c.section   = "malformed";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, A with " + d.what;
        c.code      = PETSC_ERR_ARG_OUTOFRANGE;
        c.words     = {"A: " + words};
        c.unchanged = List(bad);
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(bad.X, NULL, NULL, *C));
          PetscCall(MatProductNumeric(*C));
          return 0;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
      PetscCall(MatDestroy(&bad.X));
    }
  PetscFunctionReturn(0);
}

/* A MATSHELL that multiplies by M */
PetscErrorCode ShellMult(Mat S, Vec x, Vec y)
{
  Mat M;
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &M));
  PetscCall(MatMult(M, x, y));
  PetscFunctionReturn(0);
}
PetscErrorCode ShellMultTranspose(Mat S, Vec x, Vec y)
{
  Mat M;
  PetscFunctionBeginUser;
  PetscCall(MatShellGetContext(S, &M));
  PetscCall(MatMultTranspose(M, x, y));
  PetscFunctionReturn(0);
}

PetscErrorCode AsType(Mat M, const char *type, Mat *T)
{
  PetscInt m, n;
  PetscFunctionBeginUser;
  if (!std::strcmp(type, MATSHELL)) {
    PetscCall(MatGetSize(M, &m, &n));
    PetscCall(MatCreateShell(PETSC_COMM_SELF, m, n, m, n, M, T));
    PetscCall(MatShellSetOperation(*T, MATOP_MULT, (void (*)(void))ShellMult));
    PetscCall(MatShellSetOperation(*T, MATOP_MULT_TRANSPOSE, (void (*)(void))ShellMultTranspose));
  } else PetscCall(MatConvert(M, type, MAT_INITIAL_MATRIX, T));
  PetscFunctionReturn(0);
}

/*
   Operand types the plugin does not take. The policy: our names are selected like PETSc's own
   AIJ algorithm names and behave like them. Products of other matrix families (dense, BAIJ,
   SBAIJ, shell, and AIJ mixed with them) never reach the plugin's hook: they run exactly as
   without the plugin, so with our name the outcome must be PETSc's default outcome (the same
   product, or the same error). AIJ subtypes (seqaijperm) reach the hook and are refused with
   PETSC_ERR_SUP naming the types.
*/
PetscErrorCode OtherTypes(const Fixture &f)
{
  Mat S; /* 12 x 12 symmetric (SBAIJ needs it) */

  PetscFunctionBeginUser;
  {
    Mat T, Sa;
    PetscCall(RandomAIJ(PETSC_COMM_SELF, 12, 12, 3, 77, &Sa));
    PetscCall(MatTranspose(Sa, MAT_INITIAL_MATRIX, &T));
    PetscCall(MatAXPY(Sa, 1.0, T, DIFFERENT_NONZERO_PATTERN));
    PetscCall(MatDestroy(&T));
    PetscCall(MatSetOption(Sa, MAT_SYMMETRIC, PETSC_TRUE));
    S = Sa;
  }
  for (const char *xt : {MATSEQDENSE, MATSEQBAIJ, MATSEQSBAIJ, MATSHELL}) {
    Mat X;
    PetscCall(AsType(S, xt, &X));
    for (MatProductType type : kTypes) {
      /* all of type xt; xt with AIJ on either side (third operand AIJ). PETSc 3.18.5 itself crashes
         (SEGV) in the second ABC with a BAIJ, SBAIJ or shell first operand and AIJ others, the
         first having failed (with its default algorithm and without the plugin too) */
      std::vector<Operands> sets = {{X, X, X}, {S, X, S}};
      if (type != MATPRODUCT_ABC || !std::strcmp(xt, MATSEQDENSE)) sets.push_back({X, S, S});
      for (const Operands &o : sets)
        for (Entry e : {kInCode, kUser}) {
          MatType tx, ty, tz;
          PetscCall(MatGetType(o.X, &tx));
          PetscCall(MatGetType(o.Y, &ty));
          PetscCall(MatGetType(o.Z, &tz));
          const std::string kinds = std::string(tx) + " x " + ty + (type == MATPRODUCT_ABC ? std::string(" x ") + tz : "");
          /* PETSc's outcome without our name */
          Mat            Cref = NULL;
          PetscErrorCode ref;
          char          *refmsg = NULL;
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
          ref = FormProduct(e, type, o, MATPRODUCTALGORITHMDEFAULT, &Cref);
          PetscCall(PetscPopErrorHandler());
          PetscCall(PetscErrorMessage(ref, NULL, &refmsg));
          const std::string refwords = ref && refmsg ? refmsg : "";
          Case c;
          c.section   = "other types";
          c.what      = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " cluster, " + kinds + " (PETSc's outcome: " + (ref ? "error " + std::to_string((int)ref) : std::string("a product")) + ")";
          c.code      = ref;
          if (ref) c.words = {refwords.substr(0, 40)};
          c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
          c.petsc_leaks = ref != 0; /* PETSc's own error paths for these types leave objects behind */
          c.unchanged = {S};
          if (std::strcmp(xt, MATSHELL)) c.unchanged.push_back(X);
          c.call = [=](Mat *C) -> PetscErrorCode {
            PetscCall(FormProduct(e, type, o, MATPRODUCTALGORITHMCLUSTER, C));
            if (Cref) {
              PetscBool same;
              PetscCall(SameMatrix(Cref, *C, &same));
              PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "differs from PETSc's product");
            }
            return 0;
          };
          PetscCall(Run(c));
          PetscCall(MatDestroy(&Cref));
        }
    }
    PetscCall(MatDestroy(&X));
  }
  { /* an AIJ subtype reaches the hook: refused, naming the types */
    Mat Ap, Pp, Rp;
    PetscCall(MatConvert(f.A, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Ap));
    PetscCall(MatConvert(f.P, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Pp));
    PetscCall(MatConvert(f.R, MATSEQAIJPERM, MAT_INITIAL_MATRIX, &Rp));
    for (MatProductType type : kTypes) {
      const Operands o = OperandsFor(type, Ap, f.P, f.R), oall = OperandsFor(type, Ap, Pp, Rp);
      for (Entry e : {kInCode, kUser})
        for (const Operands &x : {o, oall}) {
          Case c;
          c.section   = "other types";
          c.what      = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " cluster, " + (x.Y == o.Y ? "a seqaijperm operand" : "all seqaijperm");
          c.code      = PETSC_ERR_SUP;
          c.words     = {"seqaijperm", "all of type seqaij", "Use one of PETSc's algorithms"};
          c.options   = AlgOptions(e, type, MATPRODUCTALGORITHMCLUSTER);
          c.unchanged = List(x);
          c.call      = [=](Mat *C) { return FormProduct(e, type, x, MATPRODUCTALGORITHMCLUSTER, C); };
          PetscCall(Run(c));
        }
    }
    PetscCall(MatDestroy(&Ap));
    PetscCall(MatDestroy(&Pp));
    PetscCall(MatDestroy(&Rp));
  }
  PetscCall(MatDestroy(&S));
  PetscFunctionReturn(0);
}

/* Moves one entry of M to a free column of its row: same nnz, another pattern */
PetscErrorCode WithMovedNonzero(Mat M, Mat *M2)
{
  PetscFunctionBeginUser;
  PetscInt n;
  PetscCall(MatGetSize(M, NULL, &n));
  PetscCall(SpoiledCopy(M, [n](Arrays &a) {
    for (size_t r = 0; r + 1 < a.i.size(); ++r) { /* the last entry of a row moves right to a free column */
      const PetscInt last = a.i[r + 1] - 1;
      if (last >= a.i[r] && a.j[last] + 1 < n) {
        a.j[last] += 1;
        return;
      }
    }
  }, M2));
  PetscFunctionReturn(0);
}

PetscErrorCode PatternChanges(const Fixture &f)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes) {
    const Operands o  = OperandsFor(type, f.A, f.P, f.R);
    const char    *tn = MatProductTypes[type];
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      const char *name = OperandName(type, k);
      for (int how = 0; how < 2; ++how) { /* one more entry; an entry moved (same nnz) */
        Operands changed = o;
        Mat     *slot    = k == 0 ? &changed.X : k == 1 ? &changed.Y : &changed.Z;
        if (how == 0) PetscCall(WithExtraNonzero(*slot, slot));
        else PetscCall(WithMovedNonzero(*slot, slot));
        Case c;
        c.section   = "pattern changed";
        c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + name + (how == 0 ? " with one more entry" : " with an entry moved");
        c.code      = PETSC_ERR_ARG_INCOMP;
        c.words     = {std::string("nonzero pattern of ") + name + " changed since the symbolic phase", "MAT_INITIAL_MATRIX"};
        c.unchanged = List(changed);
        c.call      = [=](Mat *C) -> PetscErrorCode {
          PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
          PetscCall(MatProductReplaceMats(changed.X, changed.Y, changed.Z, *C));
          PetscCall(MatProductNumeric(*C));
          return 0;
        };
        c.after = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
        PetscCall(MatDestroy(slot));
      }
      /* MAT_REUSE_MATRIX through the user API after the operand's pattern changed in place: the
         caller's C must be left as it was */
      {
        Operands w;
        PetscCall(MatDuplicate(o.X, MAT_COPY_VALUES, &w.X));
        PetscCall(MatDuplicate(o.Y, MAT_COPY_VALUES, &w.Y));
        if (o.Z) PetscCall(MatDuplicate(o.Z, MAT_COPY_VALUES, &w.Z));
        Mat C;
        PetscCall(PetscOptionsSetValue(NULL, ViaOption(type), MATPRODUCTALGORITHMCLUSTER));
        PetscCall(UserProduct(type, w.X, w.Y, w.Z, MAT_INITIAL_MATRIX, &C));
        PetscCall(PetscOptionsClearValue(NULL, ViaOption(type)));
        Mat  target = k == 0 ? w.X : k == 1 ? w.Y : w.Z, grown;
        PetscCall(WithExtraNonzero(target, &grown)); /* in place: copy grown's entries into target */
        PetscCall(MatSetOption(target, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
        PetscCall(MatCopy(grown, target, DIFFERENT_NONZERO_PATTERN));
        PetscCall(MatDestroy(&grown));
        Case c;
        c.section   = "pattern changed";
        c.what      = std::string(tn) + ", user API MAT_REUSE_MATRIX after " + name + " got one more entry in place";
        c.code      = PETSC_ERR_ARG_INCOMP;
        c.words     = {std::string("nonzero pattern of ") + name + " changed since the symbolic phase"};
        c.unchanged = List(w);
        c.unchanged.push_back(C);
        c.call = [=](Mat *) mutable { return UserProduct(type, w.X, w.Y, w.Z, MAT_REUSE_MATRIX, &C); };
        c.after = [=]() { return MultiplyByOnes(C); }; /* C is still a valid matrix */
        PetscCall(Run(c));
        PetscCall(MatDestroy(&C));
        PetscCall(MatDestroy(&w.X));
        PetscCall(MatDestroy(&w.Y));
        PetscCall(MatDestroy(&w.Z));
      }
    }
    { /* C's own structure changed between the phases */
      Case c;
      c.section   = "pattern changed";
      c.what      = std::string(tn) + ", MatProductNumeric after an entry was added to C";
      c.code      = PETSC_ERR_ARG_INCOMP;
      c.words     = {"no longer has the structure built by the symbolic phase"};
      c.unchanged = List(o);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        Mat grown;
        PetscCall(WithExtraNonzero(*C, &grown));
        PetscCall(MatSetOption(*C, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_FALSE));
        PetscCall(MatSetOption(*C, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_FALSE));
        PetscCall(MatCopy(grown, *C, DIFFERENT_NONZERO_PATTERN));
        PetscCall(MatDestroy(&grown));
        PetscCall(MatProductNumeric(*C));
        return 0;
      };
      PetscCall(Run(c));
    }
    { /* an operand replaced by one of another type: PETSc's MatProductReplaceMats forms the product
         again from scratch (MatProductSetFromOptions, symbolic), so PETSc's kernel for the new
         types takes it, as without the plugin */
      Case c;
      c.section   = "pattern changed";
      c.what      = std::string(tn) + ", MatProductReplaceMats with a seqdense " + OperandName(type, 1) + " + MatProductNumeric: PETSc's product of the new types";
      c.code      = 0;
      c.unchanged = List(o);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        Mat       D, Cref;
        PetscBool same;
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatConvert(o.Y, MATSEQDENSE, MAT_INITIAL_MATRIX, &D));
        PetscCall(MatProductReplaceMats(NULL, D, NULL, *C));
        PetscCall(MatProductNumeric(*C));
        PetscCall(FormProduct(kInCode, type, {o.X, D, o.Z}, MATPRODUCTALGORITHMDEFAULT, &Cref));
        PetscCall(SameMatrix(Cref, *C, &same));
        PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "differs from PETSc's product with the seqdense operand");
        PetscCall(MatDestroy(&Cref));
        PetscCall(MatDestroy(&D));
        return 0;
      };
      PetscCall(Run(c));
    }
  }
  PetscFunctionReturn(0);
}

/* n x n ones as outer products: n*n > 2^31-1 */
constexpr PetscInt kN = 46341;

/* m x n all ones, rows distributed as `local` rows on this rank (PETSC_DECIDE: PETSc's) */
PetscErrorCode Ones(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt local, Mat *M)
{
  PetscInt lo, hi;
  PetscFunctionBeginUser;
  PetscCall(MatCreate(comm, M));
  PetscCall(MatSetSizes(*M, local, PETSC_DECIDE, m, n));
  PetscCall(MatSetType(*M, MATAIJ));
  PetscCall(MatSeqAIJSetPreallocation(*M, n, NULL));
  PetscCall(MatMPIAIJSetPreallocation(*M, n, NULL, n, NULL));
  PetscCall(MatGetOwnershipRange(*M, &lo, &hi));
  std::vector<PetscInt>    cols(n);
  std::vector<PetscScalar> ones(n, 1.0);
  for (PetscInt j = 0; j < n; ++j) cols[j] = j;
  for (PetscInt i = lo; i < hi; ++i) PetscCall(MatSetValues(*M, 1, &i, n, cols.data(), ones.data(), INSERT_VALUES));
  PetscCall(MatAssemblyBegin(*M, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*M, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

/*
   nnz(C) = kN^2 > 2^31-1: PETSC_ERR_INT_OVERFLOW from the plugin before C is allocated (the peak
   RSS grows by far less than C's 26 GB), for every type, algorithm and entry point.
     AB: (n x 1)(1 x n)  AtB: (1 x n)^T (1 x n)  ABt: (n x 1)(n x 1)^T
     PtAP: (1 x n)^T (1 x 1)(1 x n)  RARt: (n x 1)(1 x 1)(n x 1)^T  ABC: (n x 1)(1 x 1)(1 x n)
   On MPI, rank 0 owns every row of the tall operands: only its local product overflows, and the
   others must fail with it (not wait for it).
*/
PetscErrorCode Overflow(MPI_Comm comm)
{
  Mat col, row, one;

  PetscFunctionBeginUser;
  PetscCall(Ones(comm, kN, 1, g_rank == 0 ? kN : 0, &col));
  PetscCall(Ones(comm, 1, kN, g_rank == 0 ? 1 : 0, &row));
  PetscCall(Ones(comm, 1, 1, g_rank == 0 ? 1 : 0, &one));
  for (MatProductType type : kTypes) {
    Operands o;
    switch (type) {
    case MATPRODUCT_AB:
      o = {col, row, NULL};
      break;
    case MATPRODUCT_AtB:
      o = {row, row, NULL};
      break;
    case MATPRODUCT_ABt:
      o = {col, col, NULL};
      break;
    case MATPRODUCT_PtAP:
      o = {one, row, NULL};
      break;
    case MATPRODUCT_RARt:
      o = {one, col, NULL};
      break;
    default:
      o = {col, one, row};
    }
    for (const char *alg : kOurs)
      for (Entry e : {kInCode, kOption, kUser}) {
        Case c;
        c.section   = g_size > 1 ? "overflow (MPI)" : "overflow";
        c.what      = std::string(MatProductTypes[type]) + ", " + EntryName(e) + " " + alg + ", nnz(C) = 46341^2";
        c.code      = PETSC_ERR_INT_OVERFLOW;
        c.words     = {"nnz(C)", "does not fit the index type (max 2147483647)", "--with-64-bit-indices"};
        if (g_size > 1) c.words_other_ranks = {"failed on rank 0"};
        c.options             = AlgOptions(e, type, alg);
        c.unchanged           = List(o);
        c.max_peak_growth_mib = 256;
        c.call                = [=](Mat *C) { return FormProduct(e, type, o, alg, C); };
        PetscCall(Run(c));
      }
  }
  PetscCall(MatDestroy(&col));
  PetscCall(MatDestroy(&row));
  PetscCall(MatDestroy(&one));
  PetscFunctionReturn(0);
}

/*
   Allocation failure: the address space (RLIMIT_AS) is limited to what the process maps now plus
   a margin, swept from 0 upwards until the product fits. Each run must end in the product or in
   PETSC_ERR_MEM with the operands unchanged; then, the limit lifted, the same call must succeed.
   A MAT_REUSE_MATRIX numeric phase under the limit must leave the caller's C usable (its values
   are unspecified after a failed numeric phase, its structure is kept), and redo it right after.
   RLIMIT_AS cannot work under AddressSanitizer (its shadow memory is terabytes of address space).
*/
PetscErrorCode Memory(void)
{
#if defined(BAD_INPUT_ASAN)
  PetscFunctionBeginUser;
  PetscCall(PetscPrintf(PETSC_COMM_SELF, "memory: skipped (AddressSanitizer: RLIMIT_AS cannot limit it)\n"));
  PetscFunctionReturn(0);
#else
  Mat           A, P, W;
  struct rlimit saved;

  PetscFunctionBeginUser;
  PetscCheck(!getrlimit(RLIMIT_AS, &saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "getrlimit failed");
  #if defined(__GLIBC__)
  /* Freed memory must leave the address space, or the next product runs in what an earlier one
     left behind and never meets the limit: a fixed mmap threshold (glibc raises it up to 32 MB
     after each large free, keeping such blocks in the heap) and a small trim threshold. */
  mallopt(M_MMAP_THRESHOLD, 128 * 1024);
  mallopt(M_TRIM_THRESHOLD, 128 * 1024);
  #endif
  /* An operator of 120000 rows, 7 random entries and the diagonal per row, and an aggregation-like P */
  PetscCall(RandomAIJ(PETSC_COMM_SELF, 120000, 120000, 7, 5, &A));
  PetscCall(RandomAIJ(PETSC_COMM_SELF, 120000, 10000, 2, 6, &P));
  PetscCall(RandomAIJ(PETSC_COMM_SELF, 3000, 3000, 8, 7, &W));
  {
    Mat C; /* OpenMP starts its threads here: thread creation under the limit is libgomp's fatal error */
    for (const char *alg : kOurs) {
      PetscCall(FormProduct(kInCode, MATPRODUCT_PtAP, {W, W, NULL}, alg, &C));
      PetscCall(MatDestroy(&C));
    }
  }
  for (MatProductType type : {MATPRODUCT_AB, MATPRODUCT_PtAP})
    for (const char *alg : {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMROWWISE}) {
      const Operands o = {A, P, NULL};
      Mat            Cref;
      int            ours = 0, petscs = 0, fits = 0;
      PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMDEFAULT, &Cref));
      for (long margin_mib = 0; margin_mib <= 2048 && !fits; margin_mib += 4) {
        Case c;
        c.section   = "allocation failure";
        c.what      = std::string(MatProductTypes[type]) + ", MatProductSetAlgorithm " + alg + ", address space limited to the mapped + " + std::to_string(margin_mib) + " MiB";
        c.unchanged = List(o);
        c.call      = [&, margin_mib](Mat *C) -> PetscErrorCode {
          struct rlimit lim = saved;
          lim.rlim_cur      = (rlim_t)(StatusKiB("VmSize:") * 1024 + margin_mib * 1024 * 1024);
          PetscCheck(!setrlimit(RLIMIT_AS, &lim), PETSC_COMM_SELF, PETSC_ERR_SYS, "setrlimit failed");
          const PetscErrorCode ierr = FormProduct(kInCode, type, o, alg, C);
          PetscCheck(!setrlimit(RLIMIT_AS, &saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "setrlimit failed");
          if (!ierr) {
            PetscBool same;
            fits = 1;
            PetscCall(SameMatrix(Cref, *C, &same));
            PetscCheck(same, PETSC_COMM_SELF, PETSC_ERR_PLIB, "the product under the limit is wrong");
          }
          return ierr;
        };
        /* the outcome is known only afterwards: run, then judge by the code */
        Mat            C = NULL;
        std::vector<Mat> copies;
        for (Mat M : c.unchanged) {
          Mat D;
          PetscCall(MatDuplicate(M, MAT_COPY_VALUES, &D));
          copies.push_back(D);
        }
        PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
        const PetscErrorCode ierr = c.call(&C);
        PetscCall(PetscPopErrorHandler());
        char *message = NULL;
        PetscCall(PetscErrorMessage(ierr, NULL, &message));
        const std::string msg = ierr && message ? message : "";
        std::string       problem;
        if (ierr && ierr != PETSC_ERR_MEM) problem += "error code " + std::to_string((int)ierr) + ", expected " + std::to_string((int)PETSC_ERR_MEM) + " or success; ";
        if (ierr == PETSC_ERR_MEM) {
          if (msg.find("petsc-cluster") != std::string::npos && msg.find("out of memory") != std::string::npos) ++ours;
          else if (msg.find("Out of memory") != std::string::npos) ++petscs;
          else problem += "message names no allocation failure; ";
        }
        for (size_t k = 0; k < copies.size(); ++k) {
          PetscBool eq;
          PetscCall(MatEqual(c.unchanged[k], copies[k], &eq));
          if (!eq) problem += "operand changed; ";
          PetscCall(MatDestroy(&copies[k]));
        }
        PetscCall(MatDestroy(&C));
        if (ierr == PETSC_ERR_MEM && problem.empty()) { /* the limit lifted, the same call succeeds */
          PetscErrorCode again;
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
          again = FormProduct(kInCode, type, o, alg, &C);
          PetscCall(PetscPopErrorHandler());
          if (again) problem += "fails without the limit too; ";
          else {
            PetscBool same;
            PetscCall(SameMatrix(Cref, C, &same));
            if (!same) problem += "wrong product without the limit; ";
          }
          PetscCall(MatDestroy(&C));
        }
        Tally &t = TallyOf(c.section);
        t.cases++;
        if (!problem.empty()) t.failed++;
        if (!problem.empty() || g_verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s: %s\n      message: %s\n", problem.empty() ? "ok    " : "FAILED", c.what.c_str(), problem.c_str(), msg.c_str()));
      }
      PetscCall(PetscPrintf(PETSC_COMM_SELF, "memory: %s %s: %d runs failed in the plugin, %d in PETSc's allocations (PETSC_ERR_MEM), then the product fit\n", MatProductTypes[type], alg, ours, petscs));
      {
        Tally &t = TallyOf("allocation failure");
        t.cases++;
        if (!fits || !ours) {
          t.failed++;
          PetscCall(PetscPrintf(PETSC_COMM_SELF, "FAILED allocation failure: %s %s: %s\n", MatProductTypes[type], alg, !fits ? "never fit" : "no allocation failure in the plugin was seen"));
        }
      }
      /* MAT_REUSE_MATRIX under the limit: C usable afterwards, the numeric phase redone right */
      {
        Mat C;
        int failed = 0;
        PetscCall(PetscOptionsSetValue(NULL, ViaOption(type), alg));
        PetscCall(UserProduct(type, A, P, NULL, MAT_INITIAL_MATRIX, &C));
        for (long margin_mib = 0; margin_mib <= 64; margin_mib += 2) {
          struct rlimit lim = saved;
          PetscErrorCode ierr;
          PetscCall(MatScale(A, 2.0)); /* new values: the numeric phase has work to do */
          lim.rlim_cur = (rlim_t)(StatusKiB("VmSize:") * 1024 + margin_mib * 1024 * 1024);
          PetscCheck(!setrlimit(RLIMIT_AS, &lim), PETSC_COMM_SELF, PETSC_ERR_SYS, "setrlimit failed");
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
          ierr = UserProduct(type, A, P, NULL, MAT_REUSE_MATRIX, &C);
          PetscCall(PetscPopErrorHandler());
          PetscCheck(!setrlimit(RLIMIT_AS, &saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "setrlimit failed");
          std::string problem;
          if (ierr && ierr != PETSC_ERR_MEM) problem += "error code " + std::to_string((int)ierr) + "; ";
          if (ierr) ++failed;
          PetscCall(UserProduct(type, A, P, NULL, MAT_REUSE_MATRIX, &C)); /* without the limit */
          {
            Mat       Cnew;
            PetscBool same;
            PetscCall(FormProduct(kInCode, type, {A, P, NULL}, MATPRODUCTALGORITHMDEFAULT, &Cnew));
            PetscCall(SameMatrix(Cnew, C, &same));
            if (!same) problem += "C wrong after the numeric phase was redone; ";
            PetscCall(MatDestroy(&Cnew));
          }
          Tally &t = TallyOf("allocation failure");
          t.cases++;
          if (!problem.empty()) t.failed++;
          if (!problem.empty() || g_verbose) PetscCall(PetscPrintf(PETSC_COMM_SELF, "%s %s %s MAT_REUSE_MATRIX, margin %ld MiB: %s\n", problem.empty() ? "ok    " : "FAILED", MatProductTypes[type], alg, margin_mib, problem.c_str()));
          if (!ierr) break;
        }
        PetscCall(PetscOptionsClearValue(NULL, ViaOption(type)));
        PetscCall(PetscPrintf(PETSC_COMM_SELF, "memory: %s %s MAT_REUSE_MATRIX: %d numeric phases failed with PETSC_ERR_MEM before one fit\n", MatProductTypes[type], alg, failed));
        PetscCall(MatDestroy(&C));
      }
      PetscCall(MatDestroy(&Cref));
    }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&W));
  PetscFunctionReturn(0);
#endif
}

/*
   Allocation failure inside PETSc's own allocations during our phases (MatCreateSeqAIJWithArrays,
   containers, MatHeaderReplace, ...): PetscMalloc is made to fail at its k-th call within
   MatProductSymbolic + MatProductNumeric, for every k. Each must end in PETSC_ERR_MEM, the operands
   unchanged, C destroyable, and the next product fine. (The hook replaces PETSc's PetscTrMalloc
   pointer for the duration, as PetscMallocSet does, keeping PETSc's allocator underneath.)
*/
PetscErrorCode (*g_petsc_malloc)(size_t, PetscBool, int, const char[], const char[], void **) = NULL;
long        g_petsc_malloc_countdown = -1, g_petsc_malloc_calls = 0;
std::string g_injected_at;          /* where the last injected failure was */
std::string g_in_leaky;    /* and the PETSc function on the stack that leaks then ("" if none) */

PetscErrorCode FailingPetscMalloc(size_t mem, PetscBool clear, int line, const char func[], const char file[], void **result)
{
  ++g_petsc_malloc_calls;
  if (g_petsc_malloc_countdown >= 0 && g_petsc_malloc_countdown-- == 0) {
    *result = NULL;
    g_injected_at = std::string(func) + "() at " + file + ":" + std::to_string(line);
    { /* inside a PETSc function that leaks what it allocated before when a later allocation fails? */
      void  *frames[64];
      int    n     = backtrace(frames, 64);
      char **names = backtrace_symbols(frames, n);
      g_in_leaky.clear();
      for (int k = 0; names && k < n && g_in_leaky.empty(); ++k)
        for (const char *f : {"(MatCreate+", "(PetscOptionsBegin_Private+"})
          if (std::strstr(names[k], f)) g_in_leaky = std::string(f + 1, std::strlen(f) - 2);
      std::free(names);
    }
    return PetscError(PETSC_COMM_SELF, line, func, file, PETSC_ERR_MEM, PETSC_ERROR_INITIAL, "Out of memory (test: PetscMalloc failure injected, %.0f bytes)", (double)mem);
  }
  return (*g_petsc_malloc)(mem, clear, line, func, file, result);
}

PetscErrorCode PetscAllocations(const Fixture &f)
{
  PetscFunctionBeginUser;
  for (MatProductType type : kTypes)
    for (const char *alg : {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMROWWISE}) {
      const Operands o = OperandsFor(type, f.A, f.P, f.R);
      auto           phases = [&](long fail_at, Mat *C) -> PetscErrorCode {
        PetscErrorCode ierr;
        PetscCall(MatProductCreate(o.X, o.Y, o.Z, C));
        PetscCall(MatSetOptionsPrefix(*C, "pm_")); /* C's prefix and name are carried over by the plugin */
        PetscCall(PetscObjectSetName((PetscObject)*C, "C"));
        PetscCall(MatProductSetType(*C, type));
        PetscCall(MatProductSetAlgorithm(*C, alg));
        PetscCall(MatProductSetFromOptions(*C));
        g_petsc_malloc           = PetscTrMalloc;
        PetscTrMalloc            = FailingPetscMalloc;
        g_petsc_malloc_countdown = fail_at;
        g_petsc_malloc_calls     = 0;
        ierr                     = MatProductSymbolic(*C);
        if (!ierr) ierr = MatProductNumeric(*C);
        PetscTrMalloc            = g_petsc_malloc;
        g_petsc_malloc_countdown = -1;
        return ierr;
      };
      Mat C = NULL;
      for (int warm = 0; warm < 2; ++warm) { /* the second run counts (the first one also composes records on the operands) */
        PetscCall(phases(-1, &C));
        PetscCall(MatDestroy(&C));
      }
      const long calls = g_petsc_malloc_calls;
      for (long k = 0; k < calls; ++k) {
        Case c;
        c.section   = "allocation failure";
        c.what      = std::string(MatProductTypes[type]) + ", MatProductSetAlgorithm " + alg + ", PetscMalloc " + std::to_string(k + 1) + " of " + std::to_string(calls) + " in symbolic + numeric fails";
        c.code      = PETSC_ERR_MEM;
        c.code_too  = 1; /* PETSc 3.18's PetscHeaderCreate() chains its calls with ||: any error in it is 1 */
        c.words     = {"PetscMalloc failure injected"};
        c.unchanged = List(o);
        c.call      = [=](Mat *C) { return phases(k, C); };
        { /* a dry run: where the failure lands */
          Mat C = NULL;
          PetscCall(PetscPushErrorHandler(PetscReturnErrorHandler, NULL));
          (void)phases(k, &C);
          PetscCall(PetscPopErrorHandler());
          PetscCall(MatDestroy(&C));
          c.what += " (" + g_injected_at + (g_in_leaky.empty() ? "" : ", in " + g_in_leaky) + ")";
          /* PETSc 3.18's MatCreate() keeps its half-made Mat, PetscOptionsBegin() the strings it
             copied, when an allocation after them fails: PETSc's leaks, not the plugin's */
          c.petsc_leaks = !g_in_leaky.empty();
        }
        c.after     = [=]() { return StillUsable(type, o); };
        PetscCall(Run(c));
      }
    }
  PetscFunctionReturn(0);
}

/* ------------------------------------------------------------------------------------------ */
/* MATMPIAIJ */

PetscErrorCode Mpi(void)
{
  MPI_Comm comm = PETSC_COMM_WORLD;
  Mat      A, P, R;

  PetscFunctionBeginUser;
  PetscCall(RandomAIJ(comm, 60, 60, 5, 11, &A));
  PetscCall(RandomAIJ(comm, 60, 17, 2, 12, &P));
  PetscCall(MatTranspose(P, MAT_INITIAL_MATRIX, &R));
  for (MatProductType type : kTypes) {
    const Operands o  = OperandsFor(type, A, P, R);
    const char    *tn = MatProductTypes[type];
    for (Entry e : {kOption, kUser}) {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", " + AlgorithmOption(e, type) + " bogus";
      c.code      = PETSC_ERR_USER;
      c.words     = {"bogus", "Available options", "petsc-cluster adds for mpiaij operands", "cluster_hierarchical"};
      c.petsc_leaks = true; /* PetscOptionsGetEList keeps its list of names on this error */
      if ((type == MATPRODUCT_ABt && e == kUser) || type == MATPRODUCT_RARt) {
        /* PETSc's MPIAIJ selectors read no option for R*A*R^T, and -matmatmult_via for A*B^T (not
           the SeqAIJ -matmattransmult_via, which the plugin reads on both): a name that is not ours
           is ignored, as without the plugin */
        c.code        = 0;
        c.words       = {};
        c.petsc_leaks = false;
      }
      c.options   = AlgOptions(e, type, "bogus");
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(e, type, o, NULL, C); };
      PetscCall(Run(c));
    }
    {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", MatProductSetAlgorithm cluster, -mat_cluster_size 65";
      c.code      = PETSC_ERR_ARG_OUTOFRANGE;
      c.words     = {"-mat_cluster_size 65", "[1, 64]"};
      c.options   = {{"-mat_cluster_size", "65"}};
      c.unchanged = List(o);
      c.call      = [=](Mat *C) { return FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    for (int k = 0; k < (o.Z ? 3 : 2); ++k) {
      Operands changed = o, bad = o;
      Mat     *slot = k == 0 ? &changed.X : k == 1 ? &changed.Y : &changed.Z;
      Mat     *bslot = k == 0 ? &bad.X : k == 1 ? &bad.Y : &bad.Z;
      PetscCall(WithExtraNonzero(*slot, slot)); /* on the last rank only */
      Case c;
      c.section   = "MPI";
      c.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + OperandName(type, k) + " with one more entry on the last rank";
      c.code      = PETSC_ERR_ARG_INCOMP;
      c.words     = {std::string("nonzero pattern of ") + OperandName(type, k) + " changed since the symbolic phase"};
      c.unchanged = List(changed);
      c.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatProductReplaceMats(changed.X, changed.Y, changed.Z, *C));
        PetscCall(MatProductNumeric(*C));
        return 0;
      };
      PetscCall(Run(c));
      PetscCall(MatDestroy(slot));
      PetscCall(Unassembled(*bslot, bslot));
      Case u;
      u.section   = "MPI";
      u.what      = std::string(tn) + ", MatProductReplaceMats + MatProductNumeric, " + OperandName(type, k) + " unassembled";
      u.code      = PETSC_ERR_ARG_WRONGSTATE;
      u.words     = {"assembled"}; /* ours, or PETSc's "Not for unassembled matrix" where PETSc looks first (MatTranspose, ...) */
      u.unchanged = List(o);
      u.call      = [=](Mat *C) -> PetscErrorCode {
        PetscCall(FormProduct(kInCode, type, o, MATPRODUCTALGORITHMCLUSTER, C));
        PetscCall(MatProductReplaceMats(bad.X, bad.Y, bad.Z, *C));
        PetscCall(MatProductNumeric(*C));
        return 0;
      };
      PetscCall(Run(u));
      PetscCall(MatAssemblyBegin(*bslot, MAT_FINAL_ASSEMBLY));
      PetscCall(MatAssemblyEnd(*bslot, MAT_FINAL_ASSEMBLY));
      PetscCall(MatDestroy(bslot));
    }
  }
  { /* the same global sizes, another row layout: the local pieces would not fit together */
    Mat      B;
    PetscInt local = g_rank == 0 ? 10 : (60 - 10) / (g_size - 1) + (g_rank <= (60 - 10) % (g_size - 1) ? 1 : 0);
    PetscCall(MatCreate(comm, &B));
    PetscCall(MatSetSizes(B, local, PETSC_DECIDE, 60, 17));
    PetscCall(MatSetType(B, MATAIJ));
    PetscCall(MatSetUp(B));
    PetscCall(MatAssemblyBegin(B, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(B, MAT_FINAL_ASSEMBLY));
    for (MatProductType type : {MATPRODUCT_AB, MATPRODUCT_PtAP}) {
      Case c;
      c.section   = "MPI";
      c.what      = std::string(MatProductTypes[type]) + ", MatProductSetAlgorithm cluster, " + OperandName(type, 1) + " with another row layout";
      c.code      = PETSC_ERR_ARG_SIZ;
      c.words     = {"must have the same size and parallel layout"};
      c.unchanged = {A, B};
      c.call      = [=](Mat *C) { return FormProduct(kInCode, type, {A, B, NULL}, MATPRODUCTALGORITHMCLUSTER, C); };
      PetscCall(Run(c));
    }
    PetscCall(MatDestroy(&B));
  }
  PetscCall(MatDestroy(&A));
  PetscCall(MatDestroy(&P));
  PetscCall(MatDestroy(&R));
  PetscCall(Overflow(comm));
  PetscFunctionReturn(0);
}

} // namespace

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

  if (g_size > 1) PetscCall(Mpi());
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
  g_arrays.clear();
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
