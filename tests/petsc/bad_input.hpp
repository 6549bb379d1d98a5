/*
   The case table of the bad-input program (one executable, petsc_bad_input, in four files):
     bad_input.cxx         the runner (Run), the operands every part uses, main (which sections run)
     bad_input_seqaij.cxx  SeqAIJ: unknown names, parameter ranges, sizes, unassembled and malformed
                           operands, operand types the plugin does not take, pattern changes
     bad_input_limits.cxx  nnz(C) beyond PetscInt (any number of ranks), allocation failure (SeqAIJ)
     bad_input_mpiaij.cxx  MATMPIAIJ, on more than one rank

   Each case is a row of a table: what is bad, the entry point (the MatProduct API with the
   algorithm set in code or by -mat_product_algorithm, or the user API MatMatMult & co. with the
   -mat*_via option), the expected error code and words of the message, and the call. The runner
   copies the operands (and a reused C) first, runs the call under PetscReturnErrorHandler, reads
   the message with PetscErrorMessage and compares the copies afterwards (MatEqual).
*/
#pragma once

#include <petsccluster.h>
#include <petscmat.h>

#include "../../examples/petsc_versions.hpp"
#include "user_products.hpp"

#include <functional>
#include <string>
#include <utility>
#include <vector>

namespace bad_input {

inline const char *const     kOurs[]  = {MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED, MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, MATPRODUCTALGORITHMROWWISE};
inline const MatProductType kTypes[] = {MATPRODUCT_AB, MATPRODUCT_AtB, MATPRODUCT_ABt, MATPRODUCT_PtAP, MATPRODUCT_RARt, MATPRODUCT_ABC};

inline PetscBool   g_verbose = PETSC_FALSE;
inline PetscMPIInt g_rank = 0, g_size = 1;

/* The names of the product's operands in messages: A, B (P for PtAP, R for RARt), C */
inline const char *OperandName(MatProductType type, int k)
{
  if (k == 0) return "A";
  if (k == 2) return "C";
  return type == MATPRODUCT_PtAP ? "P" : type == MATPRODUCT_RARt ? "R" : "B";
}

/* How a product is formed */
enum Entry { kInCode, kOption, kUser };
inline const char *EntryName(Entry e)
{
  return e == kInCode ? "MatProductSetAlgorithm" : e == kOption ? "-mat_product_algorithm" : "user API + -mat*_via";
}

/* The option entry point e reads for the algorithm ("" for kInCode) */
inline std::string AlgorithmOption(Entry e, MatProductType type)
{
  return e == kInCode ? "" : e == kOption ? "-mat_product_algorithm" : ViaOption(type);
}

using Options = std::vector<std::pair<std::string, std::string>>;

/* The options selecting alg through e, plus extra */
inline Options AlgOptions(Entry e, MatProductType type, const char *alg, Options extra = {})
{
  if (e != kInCode) extra.insert(extra.begin(), {AlgorithmOption(e, type), alg});
  return extra;
}

struct Case {
  std::string              section, what;
  int                      code = 0;          /* the PetscErrorCode expected */
  int                      code_too = -1;     /* >= 0: also accepted (a PETSc quirk, see its case) */
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

/* The runner (bad_input.cxx) */
PetscErrorCode Run(const Case &c);                   /* runs one case; records whether it held */
Tally         &TallyOf(const std::string &section); /* for sections that judge their cases themselves */
long           StatusKiB(const char *key);          /* a field of /proc/self/status, -1 if unreadable */

/* C = the product of `type` on o, with algorithm alg through entry point e; the options of e are
   set by the case (AlgorithmOption) */
PetscErrorCode FormProduct(Entry e, MatProductType type, const Operands &o, const char *alg, Mat *C);

/* Operands and checks every part uses (bad_input.cxx) */
PetscErrorCode   RandomAIJ(MPI_Comm comm, PetscInt m, PetscInt n, PetscInt per_row, unsigned seed, Mat *A);
PetscErrorCode   WithExtraNonzero(Mat M, Mat *M2); /* one entry more, on the last rank only */
PetscErrorCode   Unassembled(Mat M, Mat *U);       /* a copy made unassembled again */
PetscErrorCode   SameMatrix(Mat X, Mat Y, PetscBool *same);
PetscErrorCode   StillUsable(MatProductType type, const Operands &o);
std::vector<Mat> List(const Operands &o);

/* The SeqAIJ operands: 40 x 40, 40 x 13, 13 x 40 */
struct Fixture {
  Mat A = NULL, P = NULL, R = NULL;
};

/* Sections (bad_input_seqaij.cxx) */
PetscErrorCode UnknownNames(const Fixture &f);
PetscErrorCode Ranges(const Fixture &f);
PetscErrorCode Sizes(void);
PetscErrorCode UnassembledOperands(const Fixture &f);
PetscErrorCode MalformedOperands(const Fixture &f);
PetscErrorCode OtherTypes(const Fixture &f);
PetscErrorCode PatternChanges(const Fixture &f);
void           FreeSpoiledArrays(void); /* the arrays under the malformed copies, once those are destroyed */

/* Sections (bad_input_limits.cxx) */
PetscErrorCode Overflow(MPI_Comm comm); /* on PETSC_COMM_SELF, or every rank of comm */
PetscErrorCode Memory(void);
PetscErrorCode PetscAllocations(const Fixture &f);

/* Section (bad_input_mpiaij.cxx) */
PetscErrorCode MPIAIJCases(void);

} // namespace bad_input
