/*
   Registration of petsc-cluster with PETSc.

   PETSc's -dll_append /path/libpetsccluster.so dlopens the plugin during PetscInitialize() and calls
   PetscDLLibraryRegister_petsccluster() (the name comes from the file name). Programs that link the
   plugin call PetscClusterInitializePackage() themselves. Both may happen in one run: the second
   call does nothing. PetscFinalize() runs PetscClusterFinalizePackage() (before it dlcloses the
   plugin), so a later PetscInitialize() registers everything again.
*/
#include "petscclusterimpl.h"

PetscLogEvent MAT_ClusterCluster = 0, MAT_ClusterSym = 0, MAT_ClusterNum = 0;

static PetscBool PetscClusterPackageInitialized = PETSC_FALSE;

static PetscErrorCode PetscClusterFinalizePackage(void)
{
  PetscFunctionBegin;
  PetscCall(MatClusterDispatchReset_Private());
  PetscClusterHypreRapReset_Private(); /* before PETSc dlcloses the plugin: libHYPRE's calls must not point into it */
  PetscClusterPackageInitialized = PETSC_FALSE;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   A plugin compiled for another PETSc would misread every Mat it touches (_MatOps and Mat_Product
   change between releases, PetscInt between flavours), so registration refuses one. The calls below
   resolve to the PETSc of the program that loaded us (it comes first in the dynamic linker's search
   order), also when the plugin was linked to another flavour's library. The index width is checked
   first: PetscGetVersionNumber writes PetscInts.
*/
static PetscErrorCode PetscClusterCheckBuiltForThisPETSc(void)
{
  size_t   int_size;
  char     running[256];
  PetscInt major, minor, subminor, release;

  PetscFunctionBegin;
  PetscCall(PetscGetVersion(running, sizeof running));
  PetscCall(PetscDataTypeGetSize(PETSC_INT, &int_size));
  PetscCheck(int_size == sizeof(PetscInt), PETSC_COMM_SELF, PETSC_ERR_LIB,
             "petsc-cluster was built for a PETSc with %d-bit PetscInt, but this program runs %s with %d-bit PetscInt: rebuild the plugin for it (cmake -DPCLUSTER_PETSC_PKG=%s)",
             (int)(8 * sizeof(PetscInt)), running, (int)(8 * int_size), int_size == 8 ? "PETSc64" : "PETSc");
  PetscCall(PetscGetVersionNumber(&major, &minor, &subminor, &release));
  PetscCheck(major == PETSC_VERSION_MAJOR && minor == PETSC_VERSION_MINOR, PETSC_COMM_SELF, PETSC_ERR_LIB,
             "petsc-cluster was built for PETSc %d.%d, but this program runs %s: rebuild the plugin against that PETSc", PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, running);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   PetscClusterInitializePackage - Registers the petsc-cluster SpGEMM algorithms with PETSc's MatProduct
   framework: afterwards the names cluster, cluster_fixed, cluster_variable, cluster_hierarchical and
   rowwise select the plugin's kernels for every `MatProductType` (AB, AtB, ABt, PtAP, RARt, ABC) with
   operands all `MATSEQAIJ` or all `MATMPIAIJ`, through -matmatmult_via, -matptap_via,
   -mattransposematmult_via, -matmattransmult_via, -matrart_via, -matmatmatmult_via,
   -[prefix]mat_product_algorithm or `MatProductSetAlgorithm()`; and the core's row orderings as
   `MatOrderingType` pcluster_<name> (-mat_ordering_type pcluster_rcm, ...).

   Not Collective

   Options Database Keys (read under C's prefix when a product selects one of the names):
+  -mat_cluster_size <8> - rows per cluster (cluster_fixed) or maximum cluster size, 1..64
.  -mat_cluster_jaccard_threshold <0.3> - minimum Jaccard similarity to join a cluster, [0,1]
.  -mat_cluster_topk <0> - candidate pairs per row for cluster_hierarchical, 0..63 (0: cluster size - 1)
.  -mat_cluster_accumulator <auto> - auto, hash or dense
.  -mat_cluster_threads <0> - OpenMP threads, 0..1024 (0: the OpenMP default)
.  -mat_cluster_reorder <natural> - run the product on copies of A and B permuted by this ordering of A (natural, random, rcm, amd, nd, gp, hp, gray, rabbit, degree, slashburn); C keeps the caller's order
.  -mat_cluster_reorder_seed <1> - seed of random and of the randomised steps of nd, gp, hp (also read by the pcluster_<name> orderings, as are the next four)
.  -mat_cluster_reorder_parts <0> - parts of gp and hp (0: one per 256 rows)
.  -mat_cluster_reorder_hub_fraction <0.005> - hubs removed per round by slashburn, (0,1]
.  -mat_cluster_reorder_gray_bits <16> - bits of a row's pattern used by gray, 1..62
.  -mat_cluster_reorder_gray_dense_fraction <0.1> - gray: rows above this fraction of the columns go first, [0,1]
.  -mat_cluster_triple_product <fused> - PtAP and RARt with rowwise or cluster (automatic scheme): fused (A*P never stored; numeric phase by rows of C or of A, chosen per product), fused_rows_of_c, fused_rows_of_a (that order named), or stored (A*P and P^T kept: numeric phases without pattern work, more memory)
-  -mat_cluster_reuse_analysis <true> - keep A's ordering and clusters on A for later products with the same A pattern

   Level: beginner

   Notes:
   Idempotent. Called automatically by PetscDLLibraryRegister_petsccluster() when the plugin is
   loaded with -dll_append. Must be called after PetscInitialize() and before the matrices that should
   use the plugin are created. Defaults and ranges are the core's (include/pcluster/spgemm.hpp,
   clustering.hpp, ordering.hpp).

.seealso: `MatProductSetAlgorithm()`, `MatMatMult()`, `MatPtAP()`, `MatGetOrdering()`, `PetscDLLibraryRegister_petsccluster()`
@*/
PetscErrorCode PetscClusterInitializePackage(void)
{
  PetscBool help = PETSC_FALSE;

  PetscFunctionBegin;
  if (PetscClusterPackageInitialized) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscClusterCheckBuiltForThisPETSc());
  PetscClusterPackageInitialized = PETSC_TRUE;
  PetscCall(MatInitializePackage());
  PetscCall(PetscLogEventRegister("MatClusterCluster", MAT_CLASSID, &MAT_ClusterCluster));
  PetscCall(PetscLogEventRegister("MatClusterSym", MAT_CLASSID, &MAT_ClusterSym));
  PetscCall(PetscLogEventRegister("MatClusterNum", MAT_CLASSID, &MAT_ClusterNum));
  PetscCall(MatClusterDispatchRegister_Private());
  PetscCall(MatClusterOrderingRegister_Private());
  PetscCall(PetscRegisterFinalize(PetscClusterFinalizePackage));
  PetscCall(PetscClusterHypreRapRegister_Private());
  PetscCall(PetscOptionsHasHelp(NULL, &help));
  if (help) {
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "petsc-cluster SpGEMM plugin:\n"));
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "  -matmatmult_via, -matptap_via, -mattransposematmult_via, -matmattransmult_via, -matrart_via, -matmatmatmult_via,\n"));
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "  -[prefix]mat_product_algorithm and MatProductSetAlgorithm() also accept: %s (operands all seqaij or all mpiaij; product types %s)\n", MatClusterAlgorithmList_Private(), MatClusterProductTypeList_Private()));
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "  their parameters -[prefix]mat_cluster_{size,jaccard_threshold,topk,accumulator,threads,reorder,reorder_*,reuse_analysis} are listed when a product uses them\n"));
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "  -mat_ordering_type also accepts pcluster_<name> for the orderings %s (but natural)\n", pcluster::names_of(pcluster::kOrderingNames).c_str()));
    PetscCall((*PetscHelpPrintf)(PETSC_COMM_WORLD, "  -pc_hypre_boomeramg_rap_via <%s>: BoomerAMG's coarse operators (P^T A P, -pc_type hypre) by petsc-cluster (default: hypre's own; one rank; -mat_cluster_* options apply)\n", MatClusterAlgorithmList_Private()));
  }
  PetscCall(PetscInfo(NULL, "petsc-cluster registered: -mat*_via / -mat_product_algorithm accept %s\n", MatClusterAlgorithmList_Private()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*@C
   PetscDLLibraryRegister_petsccluster - Entry point called by PETSc's dynamic loader for
   -dll_append /path/to/libpetsccluster.so (also via PETSC_OPTIONS or .petscrc).

   Level: developer

.seealso: `PetscClusterInitializePackage()`
@*/
PetscErrorCode PetscDLLibraryRegister_petsccluster(void)
{
  PetscFunctionBegin;
  PetscCall(PetscClusterInitializePackage());
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Clustering runs inside the core's symbolic phase, which reports its duration afterwards; this
   credits that interval to an event of the current stage so -log_view shows it (nested, like
   PETSc's own events, inside MatClusterSym). Only when logging is active (-log_view).
*/
PetscErrorCode PetscClusterLogEventAddTime_Private(PetscLogEvent event, PetscLogDouble seconds)
{
  PetscEventPerfInfo *info;

  PetscFunctionBegin;
  PetscCall(MatClusterEventPerfInfo(event, &info));
  if (!info) PetscFunctionReturn(PETSC_SUCCESS);
  info->count += 1;
  info->time += seconds;
  info->time2 += seconds * seconds;
  PetscFunctionReturn(PETSC_SUCCESS);
}
