/*
   For the examples and the PETSc-level tests: PETSc's public API where it differs between the
   releases the project supports (3.18 to 3.25), written once. (The plugin's own differences, in
   PETSc's private API too, are in plugins/petsc/compat.h.)
   - PetscErrorMessage gives its texts as char * up to 3.22 and const char * later: ErrorMessage
     takes either, read off the declaration.
   - PETSC_SUCCESS, the value of PetscErrorCode for no error, exists from 3.19 (where PetscErrorCode
     can be a [[nodiscard]] enum, --with-strict-petscerrorcode, that a literal 0 does not convert to).
   - Options blocks pass PetscOptionsObject as a PetscOptionItems * up to 3.22 and a PetscOptionItems
     (itself a pointer) from 3.23: functions called inside a block take it as a template parameter.
*/
#pragma once

#include <petscsys.h>

#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS ((PetscErrorCode)0)
#endif

template <class Code, class Text, class Specific>
inline PetscErrorCode ErrorMessageThrough(PetscErrorCode (*message)(Code, Text **, Specific **), PetscErrorCode ierr, const char **text, const char **specific)
{
  Text     *t = NULL;
  Specific *s = NULL;
  const PetscErrorCode e = message((Code)ierr, text ? &t : NULL, specific ? &s : NULL);
  if (text) *text = t;
  if (specific) *specific = s;
  return e;
}

/* The generic text of error code ierr and the message of the error just raised (either may be NULL) */
inline PetscErrorCode ErrorMessage(PetscErrorCode ierr, const char **text, const char **specific)
{
  return ErrorMessageThrough(PetscErrorMessage, ierr, text, specific);
}
