/*
   Private declarations of the PETSc glue (plugins/petsc). Not installed.

   register.cxx        package registration, log events, finalize hook
   dispatch.cxx        SeqAIJ constructor wrapper + productsetfromoptions hook (petsc.md §2 (a))
   options.cxx         algorithm names; -mat_cluster_* options -> pcluster::SpgemmOptions
   ordering.cxx        MatOrderingRegister for the core's orderings
   product_seqaij.cxx  AB, AtB, ABt, PtAP, RARt, ABC for MATSEQAIJ: symbolic, numeric, view, destroy
   product_mpiaij.cxx  the same for MATMPIAIJ: local pieces, the core on them, C on split arrays
*/
#pragma once

#include <petsccluster.h>
#include <petsc/private/matimpl.h>

#include "pcluster/csr.hpp"
#include "pcluster/ordering.hpp"
#include "pcluster/product.hpp"
#include "pcluster/spgemm.hpp"

#include <cstdint>
#include <exception>
#include <new>
#include <stdexcept>

/* Log events (register.cxx): clustering is nested in symbolic, both nested in PETSc's MatMatMultSym */
PETSC_INTERN PetscLogEvent MAT_ClusterCluster, MAT_ClusterSym, MAT_ClusterNum;

/* Adds an already measured interval to an event (clustering runs inside the core's symbolic) */
PETSC_INTERN PetscErrorCode PetscClusterLogEventAddTime_Private(PetscLogEvent, PetscLogDouble);

/* dispatch.cxx */
PETSC_INTERN PetscErrorCode MatClusterDispatchRegister_Private(void);
PETSC_INTERN PetscErrorCode MatClusterDispatchReset_Private(void);

/* options.cxx: the table of our algorithm names; the -mat_cluster_* options under C's prefix */
PETSC_INTERN PetscErrorCode MatClusterAlgorithmIsOurs_Private(const char[], PetscBool *, const char **);
PETSC_INTERN const char    *MatClusterAlgorithmList_Private(void); /* "cluster cluster_fixed ..." */
PETSC_INTERN PetscErrorCode MatClusterGetOptions_Private(Mat C, const char alg[], pcluster::SpgemmOptions *opts, PetscBool *reuse_analysis);
/* -info: a step's workspace (what its threads allocated), after the symbolic phase or after a numeric one;
   after the symbolic phase also the note when -mat_cluster_accumulator dense could not be honoured (C
   wider than pcluster::kDenseMaxColumns) */
PETSC_INTERN PetscErrorCode MatClusterInfoWorkspace_Private(Mat C, const char what[], PetscBool after_numeric, const pcluster::SpgemmStats &s);
static inline PetscInt64    MatClusterKiB(pcluster::Count bytes)
{
  return (PetscInt64)((bytes + 1023) / 1024);
}
/* The -mat_cluster_reorder_* tunables, shared by the products and the pcluster_<name> orderings:
   read inside an open options block, then checked (errors name the option) into OrderingOptions */
struct MatClusterOrderingValues {
  PetscInt  seed, parts;
  PetscReal hub_fraction;
  PetscInt  gray_bits;
  PetscReal gray_dense;
};
PETSC_INTERN MatClusterOrderingValues MatClusterOrderingValuesDefault_Private(const pcluster::OrderingOptions &);
PETSC_INTERN PetscErrorCode           MatClusterOrderingOptionsRead_Private(PetscOptionItems *, const char manual[], MatClusterOrderingValues *);
PETSC_INTERN PetscErrorCode           MatClusterOrderingOptionsCheck_Private(MPI_Comm, const char prefix[], const MatClusterOrderingValues &, pcluster::OrderingOptions *);

/* ordering.cxx: our orderings as PETSc orderings (pcluster_<name>), one log event each */
PETSC_INTERN PetscErrorCode MatClusterOrderingRegister_Private(void);
PETSC_INTERN PetscLogEvent  MatClusterOrderingEvent_Private(pcluster::OrderingType);

/* product_seqaij.cxx: every product type of pcluster::ProductPlan on MATSEQAIJ operands, and the
   pieces product_mpiaij.cxx shares */
PETSC_INTERN PetscErrorCode MatProductSymbolic_SeqAIJ_Cluster(Mat C);
PETSC_INTERN PetscBool      MatClusterProductTypeSupported_Private(MatProductType);
PETSC_INTERN bool           MatClusterProductType_Private(MatProductType, pcluster::ProductType *);
PETSC_INTERN void           MatClusterResultBlockSizes_Private(Mat C, PetscInt *rbs, PetscInt *cbs); /* as PETSc's algorithms set them */
PETSC_INTERN PetscErrorCode MatSeqAIJGetCsrView_Cluster(Mat M, const char name[], pcluster::CsrView<PetscInt, PetscScalar> *v); /* zero-copy */
PETSC_INTERN std::uint64_t  MatClusterPatternHashOf_Private(const pcluster::CsrView<PetscInt, PetscScalar> &M);
/* M's pattern validated and hashed once per nonzero state (a record kept on M) */
PETSC_INTERN PetscErrorCode MatClusterPatternHash_Private(Mat M, const char name[], const pcluster::CsrView<PetscInt, PetscScalar> &v, std::uint64_t *hash);
PETSC_INTERN PetscErrorCode MatClusterAdoptStructure_Private(Mat C, Mat *T); /* C takes T's structure, keeps its product, prefix, name */

/* product_mpiaij.cxx: every product type on MATMPIAIJ operands */
PETSC_INTERN PetscErrorCode MatProductSymbolic_MPIAIJ_Cluster(Mat C);

/*
   PetscClusterCallCXX(comm, what, statements) - runs core (C++) code and turns its exceptions into
   PETSc errors; the one place where that mapping is made:
     std::bad_alloc            -> PETSC_ERR_MEM
     pcluster::IndexOverflow   -> PETSC_ERR_INT_OVERFLOW (e.g. nnz(C) > 2^31-1 with 32-bit PetscInt)
     std::invalid_argument     -> PETSC_ERR_ARG_OUTOFRANGE (a parameter or input the core rejects)
     anything else             -> PETSC_ERR_LIB
   The operands are only read by the core, so an error leaves them as they were.
*/
template <class F>
static inline PetscErrorCode PetscClusterCallCXX_Private(MPI_Comm comm, int line, const char func[], const char file[], const char what[], F &&f) noexcept
{
  try {
    f();
    return 0;
  } catch (const std::bad_alloc &) {
    return PetscError(comm, line, func, file, PETSC_ERR_MEM, PETSC_ERROR_INITIAL, "petsc-cluster %s: out of memory", what);
  } catch (const pcluster::IndexOverflow &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_INT_OVERFLOW, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s (configure PETSc --with-64-bit-indices)", what, e.what());
  } catch (const std::invalid_argument &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_ARG_OUTOFRANGE, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s", what, e.what());
  } catch (const std::exception &e) {
    return PetscError(comm, line, func, file, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "petsc-cluster %s: %s", what, e.what());
  } catch (...) {
    return PetscError(comm, line, func, file, PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "petsc-cluster %s: unknown exception", what);
  }
}
#define PetscClusterCallCXX(comm, what, ...) PetscCall(PetscClusterCallCXX_Private((comm), __LINE__, PETSC_FUNCTION_NAME, __FILE__, (what), [&]() { __VA_ARGS__; }))
