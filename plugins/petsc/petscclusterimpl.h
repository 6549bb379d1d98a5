/*
   Private declarations of the PETSc glue (plugins/petsc). Not installed.

   register.cxx           package registration, log events, finalize hook
   dispatch.cxx           SeqAIJ/MPIAIJ constructor wrappers + productsetfromoptions hook (petsc.md §2 (a))
   options.cxx            algorithm names; -mat_cluster_* options -> pcluster::SpgemmOptions
   ordering.cxx           MatOrderingRegister for the core's orderings
   product_types.cxx      the one table of MatProduct types: how each is computed on SeqAIJ and MPIAIJ
   operands.cxx           a product's operands: views, type checks, pattern records, stamps
   result_storage.cxx     C built on our own arrays (containers), and put in place of C's header
   report.cxx             views (-mat_view ::ascii_info) and -info lines of a product's plans
   product_seqaij.cxx     every product type for MATSEQAIJ: symbolic, numeric, view, destroy
   product_mpiaij.cxx     every product type for MATMPIAIJ, driven by the table (with mpiaij_*.cxx)
   hypre_rap.cxx          -pc_hypre_boomeramg_rap_via: BoomerAMG's coarse operators on our kernels (plt_redirect.h)

   The recipe for a new MatProduct type: a chain in the core (src/product.cpp, chain_of), one row of
   the table in product_types.cxx (its legacy option, result layout, operand layouts that must agree,
   and its MPIAIJ formulation), and, only if no existing formulation fits, a new
   MatClusterMPIFormulation in mpiaij.h with its local products in product_mpiaij.cxx.
*/
#pragma once

#include <petsccluster.h>
#include <petsc/private/matimpl.h>

#include "compat.h" /* the differences between PETSc releases */

#include "pcluster/csr.hpp"
#include "pcluster/ordering.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include <cstdint>
#include <exception>
#include <memory>
#include <new>
#include <stdexcept>
#include <string>

using MatClusterPlan    = pcluster::ProductPlan<PetscInt, PetscScalar>;
using MatClusterCsrView = pcluster::CsrView<PetscInt, PetscScalar>;

/* Log events (register.cxx): clustering is nested in symbolic, both nested in PETSc's MatMatMultSym */
PETSC_INTERN PetscLogEvent MAT_ClusterCluster, MAT_ClusterSym, MAT_ClusterNum;

/* Adds an already measured interval to an event (clustering runs inside the core's symbolic) */
PETSC_INTERN PetscErrorCode PetscClusterLogEventAddTime_Private(PetscLogEvent, PetscLogDouble);

/* hypre_rap.cxx: -pc_hypre_boomeramg_rap_via (redirects libHYPRE's calls while the plugin is registered) */
PETSC_INTERN PetscErrorCode PetscClusterHypreRapRegister_Private(void);
PETSC_INTERN void           PetscClusterHypreRapReset_Private(void);
/* dispatch.cxx */
PETSC_INTERN PetscErrorCode MatClusterDispatchRegister_Private(void);
PETSC_INTERN PetscErrorCode MatClusterDispatchReset_Private(void);

/* ---- options.cxx ------------------------------------------------------------------------- */
/* The table of our algorithm names (case-insensitive, as PETSc matches them); canonical gets our spelling */
PETSC_INTERN PetscErrorCode MatClusterAlgorithmIsOurs_Private(const char[], PetscBool *, const char **canonical);
PETSC_INTERN const char    *MatClusterAlgorithmList_Private(void); /* "cluster cluster_fixed ..." */
/* What a product of ours reads under C's prefix (-mat_cluster_*), checked by the core */
struct MatClusterProductOptions {
  pcluster::SpgemmOptions spgemm;
  PetscBool               reuse_analysis; /* keep A's ordering and clusters on A (-mat_cluster_reuse_analysis) */
};
/* Under obj's prefix and options database (obj NULL: the global ones, no prefix); row_block_size: the left factor's */
PETSC_INTERN PetscErrorCode MatClusterGetOptions_Private(PetscObject obj, const char alg[], PetscInt row_block_size, MatClusterProductOptions *);
/* The text of our numeric and boolean options under obj's prefix (the products' too if product):
   a value PETSc would truncate or could not read is an error naming the option */
PETSC_INTERN PetscErrorCode MatClusterOptionsCheckValues_Private(PetscObject obj, PetscBool product);
/* The -mat_cluster_reorder_* tunables, shared by the products and the pcluster_<name> orderings:
   read inside an open options block (from the core's defaults), then checked by the core after it
   closes (an error inside a block leaks its strings) into OrderingOptions */
struct MatClusterOrderingValues {
  PetscInt  seed, parts;
  PetscReal hub_fraction;
  PetscInt  gray_bits;
  PetscReal gray_dense;
};
PETSC_INTERN MatClusterOrderingValues MatClusterOrderingValuesDefault_Private(void);
PETSC_INTERN PetscErrorCode           MatClusterOrderingOptionsRead_Private(MatClusterOptionItems, const char manual[], MatClusterOrderingValues *);
PETSC_INTERN PetscErrorCode           MatClusterOrderingOptionsCheck_Private(MPI_Comm, const char prefix[], const MatClusterOrderingValues &, pcluster::OrderingOptions *);
/* The option under which the plugin exposes a core field that InvalidOption names ("cluster_size" -> "-mat_cluster_size") */
PETSC_INTERN const char *MatClusterOptionOfField_Private(const std::string &field);

/* ---- ordering.cxx ------------------------------------------------------------------------ */
PETSC_INTERN PetscErrorCode MatClusterOrderingRegister_Private(void);
PETSC_INTERN PetscLogEvent  MatClusterOrderingEvent_Private(pcluster::OrderingType);

/* ---- product_types.cxx: how each MatProduct type is computed ------------------------------ */
/* A dimension of an operand: its rows or columns (operand 0..2 in the core's order: A, B|P|R, C) */
struct MatClusterSide {
  int  operand;
  bool cols;
};
/* MPIAIJ: the operand whose rows the A*X local product fetches (X), and the local products */
enum MatClusterMPIRight { kRightB, kRightTransposeB, kRightProductBC };
enum MatClusterMPIFormulation {
  kLocalAB,  /* R = A_own * X_rows: R's rows are A's own rows (AB, ABt, ABC) */
  kLocalAtB, /* R = A_own^T * B_own: R's rows are the columns of A's own rows, owned by any rank */
  kLocalPtAP /* R = X_own^T * (A_own * X_rows) with X = P: R's rows are the columns of P's own rows */
};
struct MatClusterProductTypeInfo {
  MatProductType           type;
  pcluster::ProductType    core;
  const char              *legacy_option;            /* what MatMatMult()-style callers read: -matptap_via ... */
  MatClusterSide           result_rows, result_cols; /* C's layouts and block sizes, as PETSc's algorithms make them */
  int                      nagree;                   /* dimensions that must agree, with the same parallel layout */
  MatClusterSide           agree[2][2];
  MatClusterMPIRight       mpi_right;
  MatClusterMPIFormulation mpi_formulation;
};
/* The row of the table for type, NULL if not ours */
PETSC_INTERN const MatClusterProductTypeInfo *MatClusterProductTypeInfo_Private(MatProductType type);
PETSC_INTERN const char                      *MatClusterProductTypeList_Private(void); /* "AB, AtB, ..." */
/* The layout and block size of a side of the product's operands */
PETSC_INTERN PetscLayout MatClusterSideLayout_Private(const Mat ops[], MatClusterSide s);
/* C's block sizes, as PETSc's own algorithms set them */
PETSC_INTERN void MatClusterResultBlockSizes_Private(const MatClusterProductTypeInfo *, const Mat ops[], PetscInt *rbs, PetscInt *cbs);

/* ---- operands.cxx: a product's operands ---------------------------------------------------- */
constexpr int kMatClusterMaxOperands = 3;
/* The operands of C's product in the core's order (A, B[, C]; PtAP's B is P, RARt's B is R), re-read
   on every call (MatProductReplaceMats may have swapped them), each present and exactly of type */
struct MatClusterOperands {
  int         n = 0;
  Mat         mats[kMatClusterMaxOperands] = {nullptr, nullptr, nullptr};
  const char *names[kMatClusterMaxOperands] = {nullptr, nullptr, nullptr};
};
PETSC_INTERN PetscErrorCode MatClusterGetOperands_Private(Mat C, MatType type, MatClusterOperands *ops);
/* Every operand assembled, on every rank (collective: a rank that stopped alone would leave the others waiting) */
PETSC_INTERN PetscErrorCode MatClusterCheckAssembled_Private(MPI_Comm, const MatClusterOperands &);
/* Zero-copy view of an assembled host MATSEQAIJ */
PETSC_INTERN PetscErrorCode MatClusterSeqAIJGetCsrView_Private(Mat M, const char name[], MatClusterCsrView *v);
/* The checksum of a pattern (position-weighted: a changed index changes it) */
PETSC_INTERN std::uint64_t MatClusterPatternChecksum_Private(const MatClusterCsrView &M, int threads);
/* M's pattern validated (sorted, unique, in range) and checksummed, once per nonzero state of M
   (the result kept on M, so a matrix used in many products pays once) */
PETSC_INTERN PetscErrorCode MatClusterValidatedChecksum_Private(Mat M, const char name[], const MatClusterCsrView &v, int threads, std::uint64_t *checksum);
/* Identifies a matrix's local pattern without reading it (nonzero state and entry count) */
struct MatClusterPatternId {
  PetscObjectState nonzerostate = 0;
  PetscInt64       nnz          = -1;
  bool             operator==(const MatClusterPatternId &o) const { return nonzerostate == o.nonzerostate && nnz == o.nnz; }
};
PETSC_INTERN PetscErrorCode MatClusterPatternIdGet_Private(Mat M, MatClusterPatternId *id);
/* What the symbolic phase saw of an operand, to validate a numeric phase: the local pattern of a
   SeqAIJ, or of an MPIAIJ's diagonal and off-diagonal blocks with its ghost columns */
struct MatClusterOperandStamp {
  Mat                 mat = nullptr; /* identity only, not referenced */
  MatClusterPatternId pattern;
  PetscObjectState    state = 0;
  PetscInt            nrows = 0, ncols = 0; /* local; the entry count is pattern.nnz */
  std::uint64_t       checksum = 0;
};
PETSC_INTERN PetscErrorCode MatClusterStamp_Private(Mat M, const char name[], int threads, MatClusterOperandStamp *s);
/* What every product of ours keeps of its operands (the first member of its C->product->data) */
struct MatClusterProductBase {
  int                    nops = 0;
  MatClusterOperandStamp stamp[kMatClusterMaxOperands];
  int                    threads = 0; /* -mat_cluster_threads, for the glue's own loops */
  /* Fused symbolic+numeric (MatMatMult() and friends, api_user): C's values were formed by the
     symbolic phase; the first numeric phase skips the kernels if no operand changed since. */
  bool     values_from_symbolic = false;
  PetscInt numeric_count        = 0;
};
PETSC_INTERN PetscErrorCode MatClusterStampOperands_Private(const MatClusterOperands &, int threads, MatClusterProductBase *);
/* Start of every numeric phase (collective on C): the operands, assembled, with the symbolic phase's
   patterns (an error on every rank otherwise); *current when C's values are already those of the
   operands (the first numeric phase after a fused symbolic one, no operand changed since). The
   stamps keep the symbolic phase's objects: a driver that wants the new ones as the reference
   sets them after its numeric phase */
PETSC_INTERN PetscErrorCode MatClusterNumericBegin_Private(Mat C, MatType type, MatClusterProductBase *, MatClusterOperands *, PetscBool *current);
/* A's ordering and clusters (pcluster::LeftAnalysis), kept on A for its nonzero state */
PETSC_INTERN PetscErrorCode MatClusterAnalysisGet_Private(Mat A, const MatClusterCsrView &, const pcluster::SpgemmOptions &, std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> *);
PETSC_INTERN PetscErrorCode MatClusterAnalysisKeep_Private(Mat A, std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>>);

/* ---- result_storage.cxx: C on our arrays ---------------------------------------------------- */
/* C takes T's structure (MatHeaderReplace), keeping its product, options prefix, name, options
   database and MAT_FORCE_DIAGONAL_ENTRIES; *T is destroyed on error */
PETSC_INTERN PetscErrorCode MatClusterAdoptStructure_Private(Mat C, Mat *T);

/* ---- report.cxx: what a product shows ------------------------------------------------------- */
static inline PetscInt64 MatClusterKiB(pcluster::Count bytes)
{
  return (PetscInt64)((bytes + 1023) / 1024);
}
/* -info: a step's workspace (what its threads allocated), after the symbolic phase or after a numeric one;
   after the symbolic phase also the note when -mat_cluster_accumulator dense could not be honoured (C
   wider than pcluster::kDenseMaxColumns) */
PETSC_INTERN PetscErrorCode MatClusterInfoWorkspace_Private(Mat C, const char what[], PetscBool after_numeric, const pcluster::SpgemmStats &s);
/* -info after a symbolic phase: every step of plan (what: "PtAP cluster", or with ", local: ..." on MPIAIJ) */
PETSC_INTERN PetscErrorCode MatClusterInfoPlan_Private(Mat C, const char what[], const MatClusterPlan &plan);
/* -info after the first numeric phase that ran: every multiply step's workspace */
PETSC_INTERN PetscErrorCode MatClusterInfoNumeric_Private(Mat C, const char what[], const MatClusterPlan &plan);
/* -mat_view ::ascii_info: the options, then every step of plan (label: "" or which local product) */
PETSC_INTERN PetscErrorCode MatClusterViewOptions_Private(PetscViewer, const pcluster::SpgemmOptions &);
PETSC_INTERN PetscErrorCode MatClusterViewPlan_Private(PetscViewer, const char label[], const MatClusterPlan &plan);

/* ---- the two product implementations ------------------------------------------------------- */
PETSC_INTERN PetscErrorCode MatProductSymbolic_SeqAIJ_Cluster(Mat C);
PETSC_INTERN PetscErrorCode MatProductSymbolic_MPIAIJ_Cluster(Mat C);

/*
   PetscClusterCallCXX(comm, what, statements) - runs core (C++) code and turns its exceptions into
   PETSc errors; the one place where that mapping is made:
     std::bad_alloc            -> PETSC_ERR_MEM
     pcluster::IndexOverflow   -> PETSC_ERR_INT_OVERFLOW (e.g. nnz(C) > 2^31-1 with 32-bit PetscInt)
     pcluster::InvalidOption   -> PETSC_ERR_ARG_OUTOFRANGE, worded with the option that sets the field
                                  (-[prefix]mat_cluster_size 0 is out of range: must be in [1, 64])
     std::invalid_argument     -> PETSC_ERR_ARG_OUTOFRANGE (a parameter or input the core rejects)
     anything else             -> PETSC_ERR_LIB
   The operands are only read by the core, so an error leaves them as they were.
   PetscClusterCallCXXOptions(comm, prefix, what, statements) - the same for code that checks
   options read under `prefix`.
*/
template <class F>
static inline PetscErrorCode PetscClusterCallCXX_Private(MPI_Comm comm, int line, const char func[], const char file[], const char prefix[], const char what[], F &&f) noexcept
{
  try {
    f();
    return PETSC_SUCCESS;
  } catch (const std::bad_alloc &) {
    return PetscError(comm, line, func, file, PETSC_ERR_MEM, PETSC_ERROR_INITIAL, "petsc-cluster %s: out of memory", what);
  } catch (const pcluster::IndexOverflow &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_INT_OVERFLOW, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s (configure PETSc --with-64-bit-indices)", what, e.what());
  } catch (const pcluster::InvalidOption &e) {
    const char *option = MatClusterOptionOfField_Private(e.field);
    if (option) return PetscError(comm, line, func, file, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERROR_INITIAL, "-%s%s %s is out of range: must be %s", prefix ? prefix : "", option + 1, e.value.c_str(), e.valid.c_str());
    return PetscError(comm, line, func, file, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s", what, e.what());
  } catch (const std::invalid_argument &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s", what, e.what());
  } catch (const std::exception &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s", what, e.what());
  } catch (...) {
    return PetscError(comm, line, func, file, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "petsc-cluster %s: unknown exception", what);
  }
}
#define PetscClusterCallCXX(comm, what, ...)                 PetscCall(PetscClusterCallCXX_Private((comm), __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, (what), [&]() { __VA_ARGS__; }))
#define PetscClusterCallCXXOptions(comm, prefix, what, ...) PetscCall(PetscClusterCallCXX_Private((comm), __LINE__, PETSC_FUNCTION_NAME, __FILE__, (prefix), (what), [&]() { __VA_ARGS__; }))

/* Makes T on the arrays of *storage with create(storage), then T owns *storage through a composed
   container (freed with T). On every error path T, the container and the storage are freed (T first:
   it does not own the arrays). */
template <class Storage, class Create>
static inline PetscErrorCode MatClusterCreateOnStorage_Private(const char key[], Storage *storage, Create &&create, Mat *T)
{
  PetscErrorCode ierr = create(storage, T);
  if (ierr) {
    (void)MatDestroy(T);
    delete storage;
    return ierr;
  }
  PetscContainer container = NULL;
  ierr                     = [&]() -> PetscErrorCode {
    PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)*T), &container));
    PetscCall(MatClusterContainerSetDelete<Storage>(container));
    PetscCall(PetscContainerSetPointer(container, storage));
    storage = NULL; /* the container's now */
    PetscCall(PetscObjectCompose((PetscObject)*T, key, (PetscObject)container));
    return PETSC_SUCCESS;
  }();
  if (ierr) {
    (void)MatDestroy(T);                     /* T first: it does not own the arrays */
    (void)PetscContainerDestroy(&container); /* frees the storage if it holds it */
    delete storage;
    return ierr;
  }
  return PetscContainerDestroy(&container); /* T holds it */
}
