/*
   What changed in PETSc's API between the releases the plugin supports (3.18 to 3.25), in one place:
   the glue is written against the newest spelling and this header supplies it to the older ones.
   Each entry names the release that changed it (PETSc's history: include/petsc/private/matimpl.h,
   src/mat/interface/matproduct.c, include/petscoptions.h, include/petsclog.h). Nothing else in
   plugins/petsc tests PETSC_VERSION_*.

   Contract changes that need no code here, because the plugin already follows the newer contract:
   - 3.21 Mat_Product::setfromoptionscalled: set by MatProductSetFromOptions(), which always runs
     before our symbolic phase (our hook is its ops->productsetfromoptions).
   - 3.22 Mat_Product::fill is a parameter (fill, default_fill; MatProductSetFill takes
     PETSC_DETERMINE): the plugin only reports it (C->info.fill_ratio_given), never sizes with it.
   - 3.23 MatProductSymbolic() sets C's block sizes after the implementation's symbolic phase and
     requires ops->productnumeric: our symbolic phases set both.
*/
#pragma once

#include <petscversion.h>
#include <petsc/private/matimpl.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

/* 3.19: PETSC_SUCCESS, the value of a PetscErrorCode (an enum under strict PetscErrorCode) */
#if PETSC_VERSION_LT(3, 19, 0)
  #define PETSC_SUCCESS 0
#endif

/* Where only a parameter's type changed, it is read off PETSc's own declaration:
   MatClusterParam<Fn, K> is the type of parameter K of function type Fn. */
template <class Fn>
struct MatClusterParams;
template <class R, class... Args>
struct MatClusterParams<R(Args...)> {
  using type = std::tuple<Args...>;
};
template <class Fn, std::size_t K>
using MatClusterParam = std::tuple_element_t<K, typename MatClusterParams<Fn>::type>;

/* After 3.22 (const in 3.25): PetscErrorMessage's message is a const char *; before, a char *. */
typedef std::remove_pointer_t<MatClusterParam<decltype(PetscErrorMessage), 2>> MatClusterErrorText;

/* 3.23: option blocks pass PetscOptionItems by value (a pointer type); before, a pointer to the struct */
#if PETSC_VERSION_LT(3, 23, 0)
typedef PetscOptionItems *MatClusterOptionItems;
#else
typedef PetscOptionItems MatClusterOptionItems;
#endif

/* Destroy functions. Ours take the pointer to free (void *). Since 3.23 PETSc's PetscCtxDestroyFn
   is called with the address of that pointer, which it must also clear (its argument is typed void **
   at first, PetscCtxRt = void * in 3.25: read off the typedef). It replaces a container's user
   destroy in 3.23 and Mat_Product::destroy in 3.25 (an old-style destroy there would free the
   address of the pointer). */
template <class T>
static inline PetscErrorCode MatClusterDelete(void *object)
{
  delete static_cast<T *>(object);
  return PETSC_SUCCESS;
}
#if PETSC_VERSION_GE(3, 23, 0)
template <PetscErrorCode (*Destroy)(void *)>
static inline PetscErrorCode MatClusterCtxDestroy(MatClusterParam<PetscCtxDestroyFn, 0> address)
{
  void **ctx = (void **)address;

  PetscFunctionBegin;
  PetscCall(Destroy(*ctx));
  *ctx = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
#endif

/* What Mat_Product::destroy is set to, for a destroy of the data pointer */
template <PetscErrorCode (*Destroy)(void *)>
static inline auto MatClusterProductDestroyFn()
{
#if PETSC_VERSION_LT(3, 25, 0)
  return Destroy;
#else
  return MatClusterCtxDestroy<Destroy>;
#endif
}

/* The container deletes the T it holds when it is destroyed */
template <class T>
static inline PetscErrorCode MatClusterContainerSetDelete(PetscContainer container)
{
#if PETSC_VERSION_LT(3, 23, 0)
  return PetscContainerSetUserDestroy(container, MatClusterDelete<T>);
#else
  return PetscContainerSetCtxDestroy(container, MatClusterCtxDestroy<MatClusterDelete<T>>);
#endif
}

/* 3.20: logging behind PetscLogHandler/PetscLogState (PetscStageLog and PetscLogPLB are gone).
   The performance record of an event in the current stage, or NULL when nothing is logging it. */
static inline PetscErrorCode MatClusterEventPerfInfo(PetscLogEvent event, PetscEventPerfInfo **info)
{
  PetscFunctionBegin;
  *info = NULL;
#if defined(PETSC_USE_LOG)
  #if PETSC_VERSION_LT(3, 20, 0)
  PetscBool         active;
  PetscStageLog     stage_log;
  PetscEventPerfLog event_log;
  int               stage;

  PetscCall(PetscLogIsActive(&active));
  if (!active || !PetscLogPLB) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogGetStageLog(&stage_log));
  PetscCall(PetscStageLogGetCurrent(stage_log, &stage));
  if (stage < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStageLogGetEventPerfLog(stage_log, stage, &event_log));
  if (event < 0 || event >= event_log->numEvents || !event_log->eventInfo[event].active) PetscFunctionReturn(PETSC_SUCCESS);
  *info = &event_log->eventInfo[event];
  #else
  PetscLogHandler handler;
  PetscLogState   state;
  PetscLogStage   stage;
  PetscBool       active;

  PetscCall(PetscLogGetDefaultHandler(&handler)); /* the one behind -log_view */
  PetscCall(PetscLogGetState(&state));
  if (!handler || !state) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogStateGetCurrentStage(state, &stage));
  if (stage < 0 || event < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogStateEventGetActive(state, stage, event, &active));
  if (!active) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscLogHandlerGetEventPerfInfo(handler, stage, event, info));
  #endif
#else
  (void)event;
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
