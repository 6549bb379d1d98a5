/*
   The user API of each MatProduct type (MatMatMult, MatTransposeMatMult, MatMatTransposeMult,
   MatPtAP, MatRARt, MatMatMatMult) and the option it reads for the algorithm, for the PETSc-level
   test programs (plugin_api.cxx, mpi_products.cxx).
*/
#pragma once

#include <petscmat.h>

/* The option MatMatMult() & co. read for the type (api_user products) */
inline const char *ViaOption(MatProductType type)
{
  switch (type) {
  case MATPRODUCT_AtB:
    return "-mattransposematmult_via";
  case MATPRODUCT_ABt:
    return "-matmattransmult_via";
  case MATPRODUCT_PtAP:
    return "-matptap_via";
  case MATPRODUCT_RARt:
    return "-matrart_via";
  case MATPRODUCT_ABC:
    return "-matmatmatmult_via";
  default:
    return "-matmatmult_via";
  }
}

/* C = X*Y (or X*Y*Z for ABC) of the type through its user-API call */
inline PetscErrorCode UserProduct(MatProductType type, Mat X, Mat Y, Mat Z, MatReuse reuse, Mat *C)
{
  PetscFunctionBeginUser;
  switch (type) {
  case MATPRODUCT_AB:
    PetscCall(MatMatMult(X, Y, reuse, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatTransposeMatMult(X, Y, reuse, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatMatTransposeMult(X, Y, reuse, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatPtAP(X, Y, reuse, PETSC_DEFAULT, C));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatRARt(X, Y, reuse, PETSC_DEFAULT, C));
    break;
  default:
    PetscCall(MatMatMatMult(X, Y, Z, reuse, PETSC_DEFAULT, C));
  }
  PetscFunctionReturn(0);
}
