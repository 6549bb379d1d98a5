/*
   The limits sections of the bad-input program (see bad_input.hpp): nnz(C) beyond PetscInt (SeqAIJ,
   and every rank of an MPIAIJ product), and allocation failure (SeqAIJ): the address space limited
   by RLIMIT_AS, and PETSc's own PetscMalloc made to fail at each of its calls.
*/
#include "bad_input.hpp"

#include <cstdlib>
#include <cstring>
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

namespace bad_input {

namespace {

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
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

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
  if (sizeof(PetscInt) > 4) { /* kN^2 fits a 64-bit PetscInt: the product would be formed (26 GB) */
    PetscCall(PetscPrintf(comm, "overflow: not applicable with a 64-bit PetscInt (nnz(C) beyond 2^63 cannot be stored to try)\n"));
    PetscFunctionReturn(PETSC_SUCCESS);
  }
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Where the error a call returned was raised: PETSc 3.18's PetscMallocAlign raises its allocation
   failure with its PetscCheck's arguments shifted (the code is the caller's line number, the message
   the caller's name: "error code 1680 ... MatMarkDiagonal_SeqAIJ"; 3.22 says PETSC_ERR_MEM, "Memory
   requested N"), so PETSc's own allocation failures are known by the function that raised them.
   Otherwise PetscReturnErrorHandler.
*/
namespace {

std::string g_raised_in;

PetscErrorCode RecordingReturnHandler(MPI_Comm comm, int line, const char *fun, const char *file, PetscErrorCode n, PetscErrorType p, const char *mess, void *ctx)
{
  if (p == PETSC_ERROR_INITIAL) g_raised_in = fun ? fun : "";
  return PetscReturnErrorHandler(comm, line, fun, file, n, p, mess, ctx);
}

/* RecordingReturnHandler pushed, with nothing recorded yet */
PetscErrorCode PushRecordingHandler()
{
  g_raised_in.clear();
  return PetscPushErrorHandler(RecordingReturnHandler, NULL);
}

/* A failed allocation of PETSc's own (the last error raised in the call came from its allocator) */
bool RaisedByPetscAllocator(PetscErrorCode ierr)
{
  return ierr && g_raised_in == "PetscMallocAlign";
}

} // namespace

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
  PetscFunctionReturn(PETSC_SUCCESS);
#else
  Mat           A, P, W;
  struct rlimit saved;

  PetscFunctionBeginUser;
  PetscCheck(!getrlimit(RLIMIT_AS, &saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "getrlimit failed");
  #if defined(__GLIBC__)
  /* Freed memory must leave the address space, or the next product runs in what an earlier one
     left behind and never meets the limit: a fixed mmap threshold (glibc raises it up to 32 MB
     after each large free, keeping such blocks in the heap) and a small trim threshold. Linked to
     Debian's PETSc, SuperLU_DIST's constructor has set M_MMAP_MAX to 0, so no block is mmapped
     whatever the threshold: only the trim threshold acts, returning the heap's free top. */
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
        PetscCall(PushRecordingHandler());
        const PetscErrorCode ierr = c.call(&C);
        PetscCall(PetscPopErrorHandler());
        const char *message = NULL;
        PetscCall(ErrorMessage(ierr, NULL, &message));
        const std::string msg                = ierr && message ? message : "";
        const bool        in_petsc_allocator = RaisedByPetscAllocator(ierr);
        const bool        out_of_memory      = ierr == PETSC_ERR_MEM || in_petsc_allocator;
        std::string       problem;
        if (ierr && !out_of_memory) problem += "error code " + std::to_string((int)ierr) + ", expected " + std::to_string((int)PETSC_ERR_MEM) + " or success; ";
        if (in_petsc_allocator) ++petscs;
        else if (ierr == PETSC_ERR_MEM) {
          if (msg.find("petsc-cluster") != std::string::npos && msg.find("out of memory") != std::string::npos) ++ours;
          else if (msg.find("Out of memory") != std::string::npos) ++petscs; /* PETSc's other allocation failures */
          else problem += "message names no allocation failure; ";
        }
        for (size_t k = 0; k < copies.size(); ++k) {
          PetscBool eq;
          PetscCall(MatEqual(c.unchanged[k], copies[k], &eq));
          if (!eq) problem += "operand changed; ";
          PetscCall(MatDestroy(&copies[k]));
        }
        PetscCall(MatDestroy(&C));
        if (out_of_memory && problem.empty()) { /* the limit lifted, the same call succeeds */
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
          PetscCall(PushRecordingHandler());
          ierr = UserProduct(type, A, P, NULL, MAT_REUSE_MATRIX, &C);
          PetscCall(PetscPopErrorHandler());
          PetscCheck(!setrlimit(RLIMIT_AS, &saved), PETSC_COMM_SELF, PETSC_ERR_SYS, "setrlimit failed");
          std::string problem;
          if (ierr && ierr != PETSC_ERR_MEM && !RaisedByPetscAllocator(ierr)) problem += "error code " + std::to_string((int)ierr) + "; ";
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
  { /* the judging above knows PETSc's allocation failures by where they were raised: check that it does
     (last: glibc answers a failed request by opening an arena of 64 MiB address space, which the limits
     above would then not have met) */
    void *never = NULL;
    PetscCall(PushRecordingHandler());
    const PetscErrorCode ierr = PetscMalloc((size_t)1 << 62, &never);
    PetscCall(PetscPopErrorHandler());
    PetscCheck(RaisedByPetscAllocator(ierr), PETSC_COMM_SELF, PETSC_ERR_PLIB, "a failed PetscMalloc was not recognised (error %d raised in '%s')", (int)ierr, g_raised_in.c_str());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
#endif
}

/*
   Allocation failure inside PETSc's own allocations during our phases (MatCreateSeqAIJWithArrays,
   containers, MatHeaderReplace, ...): PetscMalloc is made to fail at its k-th call within
   MatProductSymbolic + MatProductNumeric, for every k. Each must end in PETSC_ERR_MEM, the operands
   unchanged, C destroyable, and the next product fine. (The hook replaces PETSc's PetscTrMalloc
   pointer for the duration, as PetscMallocSet does, keeping PETSc's allocator underneath.)
*/

namespace {

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

} // namespace

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
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace bad_input
