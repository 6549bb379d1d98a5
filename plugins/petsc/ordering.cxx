/*
   The core's row orderings as PETSc orderings: MatOrderingRegister() makes each available to any
   PETSc program as -mat_ordering_type pcluster_<name> (ILU/LU factorisations, MatGetOrdering()),
   and one log event per ordering times it there and inside our products (-mat_cluster_reorder).

   PETSc's own names (natural, nd, 1wd, rcm, qmd, rowlength, wbm, spectral, amd, metisnd) stay
   PETSc's: ours carry the prefix, so "rcm" is PETSc's SPARSEPACK RCM and "pcluster_rcm" ours.
   The permutation is the same for rows and columns (a symmetric reordering; for a non-symmetric
   pattern the core orders the graph of A + A^T, see include/pcluster/ordering.hpp).
*/
#include "petscclusterimpl.h"

#include "pcluster/ordering.hpp"

#include <string>
#include <vector>

static PetscLogEvent MAT_ClusterOrdering[PETSC_STATIC_ARRAY_LENGTH(pcluster::kOrderingNames)]; /* by OrderingType */
static const char    MatClusterOrderingPrefix[] = "pcluster_";

PetscLogEvent MatClusterOrderingEvent_Private(pcluster::OrderingType type)
{
  return MAT_ClusterOrdering[static_cast<int>(type)];
}

/* The row graph of a matrix's local rows (any type PETSc can give the IJ structure of) */
static PetscErrorCode MatGetOrdering_Cluster(Mat mat, MatOrderingType type, IS *row, IS *col)
{
  MPI_Comm                          comm = PetscObjectComm((PetscObject)mat);
  const PetscInt                   *ia = NULL, *ja = NULL;
  PetscInt                          n, N;
  PetscBool                         done;
  pcluster::OrderingType            ord  = pcluster::OrderingType::Natural;
  pcluster::OrderingOptions         opts;
  std::vector<PetscInt>             perm;
  MatClusterOrderingValues          values = MatClusterOrderingValuesDefault_Private();

  PetscFunctionBegin;
  PetscClusterCallCXX(comm, "ordering name", ord = pcluster::ordering_from_string(std::string(type + sizeof(MatClusterOrderingPrefix) - 1)));
  PetscCall(MatClusterOptionsCheckValues_Private((PetscObject)mat, PETSC_FALSE));
  PetscOptionsBegin(comm, ((PetscObject)mat)->prefix, "petsc-cluster ordering options", "Mat");
  PetscCall(MatClusterOrderingOptionsRead_Private(PetscOptionsObject, "MatGetOrdering", &values));
  PetscOptionsEnd();
  PetscCall(MatClusterOrderingOptionsCheck_Private(comm, ((PetscObject)mat)->prefix, values, &opts));

  PetscCall(MatGetSize(mat, NULL, &N));
  PetscCall(MatGetRowIJ(mat, 0, PETSC_FALSE, PETSC_FALSE, &n, &ia, &ja, &done));
  PetscCheck(done, comm, PETSC_ERR_SUP, "petsc-cluster ordering %s: cannot get the rows of a %s matrix", type, ((PetscObject)mat)->type_name);
  const pcluster::CsrView<PetscInt, PetscScalar> A{n, N, ia, ja, nullptr};
  PetscCall(PetscLogEventBegin(MatClusterOrderingEvent_Private(ord), mat, 0, 0, 0));
  PetscErrorCode ierr = PetscClusterCallCXX_Private(comm, __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, "ordering", [&]() { perm = pcluster::compute_ordering(ord, A, opts); });
  PetscCall(MatRestoreRowIJ(mat, 0, PETSC_FALSE, PETSC_FALSE, NULL, &ia, &ja, &done));
  PetscCall(ierr);
  PetscCall(PetscLogEventEnd(MatClusterOrderingEvent_Private(ord), mat, 0, 0, 0));
  /* new to old, as PETSc's own orderings (MatGetOrdering_RCM) */
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm.data(), PETSC_COPY_VALUES, row));
  PetscCall(ISCreateGeneral(PETSC_COMM_SELF, n, perm.data(), PETSC_COPY_VALUES, col));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterOrderingRegister_Private(void)
{
  PetscFunctionBegin;
  for (pcluster::OrderingType t : pcluster::all_orderings()) {
    const std::string name = std::string(MatClusterOrderingPrefix) + pcluster::to_string(t);
    PetscCall(PetscLogEventRegister(("MatClusterOrd_" + std::string(pcluster::to_string(t))).c_str(), MAT_CLASSID, &MAT_ClusterOrdering[static_cast<int>(t)]));
    if (t != pcluster::OrderingType::Natural) PetscCall(MatOrderingRegister(name.c_str(), MatGetOrdering_Cluster));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
