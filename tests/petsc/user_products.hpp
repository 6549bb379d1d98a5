/*
   The user API of each MatProduct type (MatMatMult, MatTransposeMatMult, MatMatTransposeMult,
   MatPtAP, MatRARt, MatMatMatMult) and the option it reads for the algorithm, for the PETSc-level
   test programs (plugin_api.cxx, mpi_products.cxx, bad_input.cxx, ...), and the operands each type
   is tested with.
*/
#pragma once

#include <petscmat.h>

#include "../../examples/petsc_versions.hpp"

/* A product's operands: C = X*Y, or X*Y*Z for ABC */
struct Operands {
  Mat X = NULL, Y = NULL, Z = NULL;
};

/* The operands of each type from a square A (n x n), P (n x k) and R = P^T:
   AB: A*P  AtB: P^T*A  ABt: A*R^T  PtAP: P^T*A*P  RARt: R*A*R^T  ABC: R*A*P */
inline Operands OperandsFor(MatProductType type, Mat A, Mat P, Mat R)
{
  switch (type) {
  case MATPRODUCT_AtB:
    return {P, A, NULL};
  case MATPRODUCT_ABt:
  case MATPRODUCT_RARt:
    return {A, R, NULL};
  case MATPRODUCT_ABC:
    return {R, A, P};
  default: /* AB, PtAP */
    return {A, P, NULL};
  }
}

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
  PetscFunctionReturn(PETSC_SUCCESS);
}
