/*
   C built on the plugin's own arrays, for both matrix types: PETSc's MatCreate*WithArrays does not
   copy the arrays (and does not free them), so a PetscContainer composed on the new matrix owns
   them and frees them with it (MatClusterCreateOnStorage_Private in petscclusterimpl.h). The new
   matrix T then becomes C: MatHeaderReplace moves T's structure into the caller's C, which keeps
   its product, prefix and name (MatClusterAdoptStructure_Private).
*/
#include "petscclusterimpl.h"

PetscErrorCode MatClusterAdoptStructure_Private(Mat C, Mat *T)
{
  Mat_Product    *product = C->product;
  PetscOptions    options = ((PetscObject)C)->options;
  char           *prefix = NULL, *name = NULL;
  const PetscBool force_diagonals = C->force_diagonals;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  ierr = [&]() -> PetscErrorCode {
    if (((PetscObject)C)->prefix) PetscCall(PetscStrallocpy(((PetscObject)C)->prefix, &prefix));
    if (((PetscObject)C)->name) PetscCall(PetscStrallocpy(((PetscObject)C)->name, &name));
    C->product = NULL; /* not destroyed with C's old header */
    const PetscErrorCode replaced = MatHeaderReplace(C, T);
    C->product = product;
    PetscCall(replaced);
    ((PetscObject)C)->options = options;
    C->force_diagonals        = force_diagonals; /* MatSetOption(C, MAT_FORCE_DIAGONAL_ENTRIES) made before the product */
    PetscCall(PetscObjectSetOptionsPrefix((PetscObject)C, prefix));
    if (name) PetscCall(PetscObjectSetName((PetscObject)C, name));
    return PETSC_SUCCESS;
  }();
  (void)PetscFree(prefix);
  (void)PetscFree(name);
  if (ierr) (void)MatDestroy(T); /* not taken by C (MatHeaderReplace empties *T when it does) */
  PetscCall(ierr);
  PetscFunctionReturn(PETSC_SUCCESS);
}
