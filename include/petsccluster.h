/*
   petsc-cluster: cluster-wise and row-wise SpGEMM for PETSc's MatProduct framework.

   Loaded into any PETSc program with -dll_append /path/to/libpetsccluster.so (or PETSC_OPTIONS,
   or .petscrc), or linked and registered with PetscClusterInitializePackage(). Once loaded, the
   algorithm names below are accepted wherever PETSc accepts a product algorithm:
   -matmatmult_via NAME, -[prefix]mat_product_algorithm NAME, MatProductSetAlgorithm(C, NAME).
   Every other name still reaches PETSc's own algorithms.
*/
#pragma once

#include <petscmat.h>

#define MATPRODUCTALGORITHMCLUSTER             "cluster"
#define MATPRODUCTALGORITHMCLUSTERFIXED        "cluster_fixed"
#define MATPRODUCTALGORITHMCLUSTERVARIABLE     "cluster_variable"
#define MATPRODUCTALGORITHMCLUSTERHIERARCHICAL "cluster_hierarchical"
#define MATPRODUCTALGORITHMROWWISE             "rowwise"

/* Registers the plugin: takes over SeqAIJ and MPIAIJ product dispatch for the names above and
   registers the pcluster_<name> orderings, log events and options. Idempotent; safe to call after
   -dll_append has loaded the plugin. */
PETSC_EXTERN PetscErrorCode PetscClusterInitializePackage(void);

/* Called by PETSc's dynamic loader for -dll_append .../libpetsccluster.so. */
PETSC_EXTERN PetscErrorCode PetscDLLibraryRegister_petsccluster(void);
