/*
   Operands and checks for the PETSc-level test programs (mpi_products.cxx, determinism.cxx,
   products_in_flight.cxx, plugin_api.cxx, bad_input.cxx): new values on a fixed pattern, a
   smoothed-aggregation-like prolongator made by PETSc, a bit-for-bit comparison of two matrices on
   every rank, a check that a matrix still works, and their list options. A product is compared with
   PETSc's by examples/product_check.hpp.
*/
#pragma once

#include <petscmat.h>

#include "../../examples/petsc_versions.hpp"

#include <cstring>
#include <string>
#include <vector>

/* Scales rows and columns by pseudo-random factors in [0.5, 1.5]: new values, same pattern */
inline PetscErrorCode Perturb(Mat M, PetscInt seed)
{
  Vec      l, r;
  PetscInt lo, hi;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(M, &r, &l));
  for (Vec x : {l, r}) {
    PetscScalar *a;
    PetscCall(VecGetOwnershipRange(x, &lo, &hi));
    PetscCall(VecGetArray(x, &a));
    for (PetscInt i = lo; i < hi; ++i) a[i - lo] = 0.5 + (PetscReal)(((i + 1) * 2654435761u + (unsigned)seed * 40503u) % 1000u) / 1000.0;
    PetscCall(VecRestoreArray(x, &a));
    ++seed;
  }
  PetscCall(MatDiagonalScale(M, l, r));
  PetscCall(VecDestroy(&l));
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* P = (I - 0.5 D^-1 A) P0, P0 aggregating k consecutive rows of a rank into one coarse column owned
   by that rank: the shape of a smoothed-aggregation prolongator */
inline PetscErrorCode Prolongator(Mat A, PetscInt k, Mat *P)
{
  Mat      P0, AP;
  Vec      d;
  PetscInt rstart, rend, m, nc, cstart = 0;
  MatType  type;

  PetscFunctionBeginUser;
  PetscCall(MatGetOwnershipRange(A, &rstart, &rend));
  m  = rend - rstart;
  nc = (m + k - 1) / k;
  PetscCallMPI(MPI_Exscan(&nc, &cstart, 1, MPIU_INT, MPI_SUM, PetscObjectComm((PetscObject)A)));
  {
    PetscMPIInt rank;
    PetscCallMPI(MPI_Comm_rank(PetscObjectComm((PetscObject)A), &rank));
    if (rank == 0) cstart = 0;
  }
  PetscCall(MatCreate(PetscObjectComm((PetscObject)A), &P0));
  PetscCall(MatSetSizes(P0, m, nc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatGetType(A, &type));
  PetscCall(MatSetType(P0, type)); /* as A (MPIAIJ also on one rank, or SeqAIJ) */
  PetscCall(MatSeqAIJSetPreallocation(P0, 1, NULL));
  PetscCall(MatMPIAIJSetPreallocation(P0, 1, NULL, 0, NULL));
  for (PetscInt i = rstart; i < rend; ++i) PetscCall(MatSetValue(P0, i, cstart + (i - rstart) / k, 1.0, INSERT_VALUES));
  PetscCall(MatAssemblyBegin(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(P0, MAT_FINAL_ASSEMBLY));
  PetscCall(MatMatMult(A, P0, MAT_INITIAL_MATRIX, PETSC_DEFAULT, &AP)); /* PETSc's default (no -matmatmult_via set yet) */
  PetscCall(MatCreateVecs(A, NULL, &d));
  PetscCall(MatGetDiagonal(A, d));
  {
    PetscScalar *v;
    PetscInt     n;
    PetscCall(VecGetLocalSize(d, &n));
    PetscCall(VecGetArray(d, &v));
    for (PetscInt i = 0; i < n; ++i) v[i] = v[i] != 0.0 ? -0.5 / v[i] : 0.0; /* rows without a diagonal: no smoothing */
    PetscCall(VecRestoreArray(d, &v));
  }
  PetscCall(MatDiagonalScale(AP, d, NULL));
  PetscCall(MatAXPY(AP, 1.0, P0, DIFFERENT_NONZERO_PATTERN));
  *P = AP;
  PetscCall(MatDestroy(&P0));
  PetscCall(VecDestroy(&d));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* X and Y have the same rows on every rank, with the same columns and the same value bits (memcmp:
   +0 and -0 differ, NaNs of equal bits agree) */
inline PetscErrorCode SameBits(Mat X, Mat Y, PetscBool *same)
{
  PetscInt  lo, hi, lo2, hi2, m, n, m2, n2;
  PetscBool mine;

  PetscFunctionBeginUser;
  PetscCall(MatGetSize(X, &m, &n));
  PetscCall(MatGetSize(Y, &m2, &n2));
  PetscCall(MatGetOwnershipRange(X, &lo, &hi));
  PetscCall(MatGetOwnershipRange(Y, &lo2, &hi2));
  mine = (PetscBool)(m == m2 && n == n2 && lo == lo2 && hi == hi2);
  for (PetscInt i = lo; mine && i < hi; ++i) {
    PetscInt           nx, ny;
    const PetscInt    *cx, *cy;
    const PetscScalar *vx, *vy;
    PetscCall(MatGetRow(X, i, &nx, &cx, &vx));
    PetscCall(MatGetRow(Y, i, &ny, &cy, &vy));
    mine = (PetscBool)(nx == ny && (nx == 0 || (!std::memcmp(cx, cy, sizeof(PetscInt) * nx) && !std::memcmp(vx, vy, sizeof(PetscScalar) * nx)))); /* an empty row's arrays may be null */
    PetscCall(MatRestoreRow(Y, i, &ny, &cy, &vy));
    PetscCall(MatRestoreRow(X, i, &nx, &cx, &vx));
  }
  PetscCallMPI(MPI_Allreduce(&mine, same, 1, MPIU_BOOL, MPI_LAND, PetscObjectComm((PetscObject)X)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* M still works as an operator: y = M*ones (an error if its structure is broken) */
inline PetscErrorCode MultiplyByOnes(Mat M)
{
  Vec x, y;

  PetscFunctionBeginUser;
  PetscCall(MatCreateVecs(M, &x, &y));
  PetscCall(VecSet(x, 1.0));
  PetscCall(MatMult(M, x, y));
  PetscCall(VecDestroy(&x));
  PetscCall(VecDestroy(&y));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A list option (e.g. -types AB,PtAP), read inside PetscOptionsBegin/End: *list holds its values
   when *set, and is left as it was otherwise */
template <class OptionItems> /* petsc_versions.hpp */
inline PetscErrorCode OptionsStringList(OptionItems PetscOptionsObject, const char *name, const char *text, std::vector<std::string> *list, PetscBool *set)
{
  char    *values[32];
  PetscInt n = 32;

  PetscFunctionBeginUser;
  PetscCall(PetscOptionsStringArray(name, text, NULL, values, &n, set));
  if (*set) list->assign(values, values + n);
  for (PetscInt i = 0; *set && i < n; ++i) PetscCall(PetscFree(values[i]));
  PetscFunctionReturn(PETSC_SUCCESS);
}
