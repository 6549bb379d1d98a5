/*
   The benchmark's non-PETSc anchor, SuiteSparse:GraphBLAS (package libgraphblas-dev, found by CMake):
   C = A*B with GrB_mxm(PLUS_TIMES_FP64) timed as spgemm_bench times PETSc's and our algorithms
   (bench_common.hpp), and checked against the same reference.
     GraphBLAS = GrB_Matrix_new + GrB_mxm(PLUS_TIMES_FP64) + GrB_Matrix_wait + GxB_Matrix_unpack_CSR
                 (sorted CSR arrays in the caller's hands); importing A is not timed. GraphBLAS has
                 no symbolic/numeric split, so it has no symbolic or reuse figure.
   Without PCLUSTER_HAVE_GRAPHBLAS only GraphBLASInitialize/GraphBLASFinalize exist, and do nothing.
*/
#pragma once

#include "bench_common.hpp"

#if defined(PCLUSTER_HAVE_GRAPHBLAS)
  #include "peak_memory.hpp"

  #include <cstdlib>
  #include <memory>
  #include <vector>

  #include <complex> /* GraphBLAS.h uses std::complex in C++: include it outside the extern "C" block */
extern "C" {
  #include <GraphBLAS.h>
}

  #define PetscCallGrB(call) \
    do { \
      GrB_Info info_ = (call); \
      PetscCheck(info_ == GrB_SUCCESS, PETSC_COMM_SELF, PETSC_ERR_LIB, "GraphBLAS %s returned %d", #call, (int)info_); \
    } while (0)

struct GrBMatrix {
  GrB_Matrix m = nullptr;
  ~GrBMatrix()
  {
    if (m) GrB_Matrix_free(&m);
  }
};
struct GrBFree {
  void operator()(void *p) const { std::free(p); } /* GrB_init's default allocator is malloc/free */
};

inline PetscErrorCode ImportGraphBLAS(const Csr &M, GrBMatrix *A)
{
  const GrB_Index        m = static_cast<GrB_Index>(M.nrows), n = static_cast<GrB_Index>(M.ncols), nnz = static_cast<GrB_Index>(M.colidx.size());
  std::vector<GrB_Index> ap(M.rowptr.begin(), M.rowptr.end()), aj(M.colidx.begin(), M.colidx.end());

  PetscFunctionBegin;
  PetscCallGrB(GrB_Matrix_import_FP64(&A->m, GrB_FP64, m, n, ap.data(), aj.data(), M.values.data(), m + 1, nnz, nnz, GrB_CSR_FORMAT));
  PetscCallGrB(GrB_Matrix_wait(A->m, GrB_MATERIALIZE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C's CSR arrays, unpacked from GraphBLAS (its allocator's memory) */
struct GrBResult {
  GrB_Index                     *cp = nullptr, *cj = nullptr;
  void                          *cx = nullptr;
  bool                           iso = false;
  std::unique_ptr<void, GrBFree> hold_p, hold_j, hold_x;
};

/* C = A*B (B NULL: A*A), m x n, as the caller gets it: sorted CSR arrays */
inline PetscErrorCode GraphBLASMultiply(const GrBMatrix &A, const GrBMatrix *B, GrB_Index m, GrB_Index n, GrBResult *R)
{
  GrBMatrix C;
  GrB_Index cp_size, cj_size, cx_size;

  PetscFunctionBegin;
  PetscCallGrB(GrB_Matrix_new(&C.m, GrB_FP64, m, n));
  PetscCallGrB(GrB_mxm(C.m, NULL, NULL, GrB_PLUS_TIMES_SEMIRING_FP64, A.m, B ? B->m : A.m, NULL));
  PetscCallGrB(GrB_Matrix_wait(C.m, GrB_MATERIALIZE));
  /* jumbled = NULL asks for sorted columns */
  PetscCallGrB(GxB_Matrix_unpack_CSR(C.m, &R->cp, &R->cj, &R->cx, &cp_size, &cj_size, &cx_size, &R->iso, NULL, NULL));
  R->hold_p.reset(R->cp);
  R->hold_j.reset(R->cj);
  R->hold_x.reset(R->cx);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The result as a SeqAIJ (a copy), for the check against the reference (CompareMat) */
inline PetscErrorCode MatFromGraphBLAS(GrB_Index m, GrB_Index n, const GrBResult &R, Mat *C)
{
  const GrB_Index          nnz = R.cp[m];
  const double            *x   = static_cast<const double *>(R.cx);
  std::vector<PetscInt>    ia(R.cp, R.cp + m + 1), ja(R.cj, R.cj + nnz);
  std::vector<PetscScalar> va(nnz);

  PetscFunctionBegin;
  for (GrB_Index k = 0; k < nnz; ++k) va[k] = x[R.iso ? 0 : k];
  PetscCall(MatCreate(PETSC_COMM_SELF, C));
  PetscCall(MatSetSizes(*C, (PetscInt)m, (PetscInt)n, (PetscInt)m, (PetscInt)n));
  PetscCall(MatSetType(*C, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*C, ia.data(), ja.data(), va.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Times C = A*B with GrB_mxm(PLUS_TIMES_FP64) on nthreads threads (B = NULL: B is A); the import
   of the operands is not timed. */
inline PetscErrorCode TimeGraphBLAS(const Csr &MA, const Csr *MB, int nthreads, const Settings &s, const Reference &ref, Figures *f)
{
  const GrB_Index m = static_cast<GrB_Index>(MA.nrows), n = static_cast<GrB_Index>(MB ? MB->ncols : MA.ncols);
  GrBMatrix       A, B;
  PetscLogDouble  t0, t1;

  PetscFunctionBegin;
  PetscCall(ImportGraphBLAS(MA, &A));
  if (MB) PetscCall(ImportGraphBLAS(*MB, &B));
  PetscCallGrB(GxB_Global_Option_set(GxB_GLOBAL_NTHREADS, nthreads));
  for (PetscInt r = 0; r < s.reps; ++r) {
    GrBResult R;
    PetscCall(PetscTime(&t0));
    PetscCall(GraphBLASMultiply(A, MB ? &B : NULL, m, n, &R));
    PetscCall(PetscTime(&t1));
    f->oneshot = std::min(f->oneshot, t1 - t0);
    if (r == s.reps - 1) {
      Mat C;
      PetscCall(MatFromGraphBLAS(m, n, R, &C));
      PetscCall(CompareMat(C, ref, 1.0, s.tol, true, "one-shot", f));
      PetscCall(MatDestroy(&C));
    }
  }
  if (s.memory) { /* as PeakMemory() for PETSc's and ours */
    const double rss0 = ResetPeak();
    {
      GrBResult R;
      PetscCall(GraphBLASMultiply(A, MB ? &B : NULL, m, n, &R));
      f->peak_mb = StatusMB("VmHWM") - rss0;
    }
  }
  f->ran = true;
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode GraphBLASInitialize(void)
{
  GrB_Info info;

  PetscFunctionBegin;
  info = GrB_init(GrB_NONBLOCKING);
  PetscCheck(info == GrB_SUCCESS, PETSC_COMM_WORLD, PETSC_ERR_LIB, "GrB_init failed: %d", (int)info);
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline void GraphBLASFinalize(void)
{
  GrB_finalize();
}
#else
inline PetscErrorCode GraphBLASInitialize(void)
{
  return PETSC_SUCCESS;
}

inline void GraphBLASFinalize(void) { }
#endif
