/*
   C = A*B for MATSEQAIJ A and B with the core's kernels (row-wise or cluster-wise).

   Symbolic: pcluster::SpgemmPlan::symbolic() on zero-copy CsrViews of A and B gives C's pattern; C is
   built in place as a MATSEQAIJ that owns its arrays, assembled with zeros (a symbolic-only C must be
   usable), and the plan (clusters, accumulator choices, ...) is kept in C->product->data for the
   numeric phase. Numeric: plan.numeric() into C's value array. MAT_REUSE_MATRIX runs only numeric.

   Before each numeric phase the operands are checked against what symbolic saw: same object and
   nonzero state (cheap), otherwise the same dimensions, nnz and a hash of the pattern (O(nnz)). A
   changed pattern is an error, never an out-of-bounds write. The operands are only read, so a failed
   product leaves them as they were.
*/
#include "petscclusterimpl.h"

#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>
#include <memory>
#include <vector>

namespace
{
using Plan    = pcluster::SpgemmPlan<PetscInt, PetscScalar>;
using CsrView = pcluster::CsrView<PetscInt, PetscScalar>;

/* What symbolic saw of an operand, to validate a numeric phase */
struct OperandStamp {
  Mat              mat     = nullptr; /* identity only, not referenced */
  PetscObjectState nzstate = 0;
  PetscInt         nrows = 0, ncols = 0;
  pcluster::Count  nnz  = 0;
  std::uint64_t    hash = 0;
};

/* C->product->data */
struct MatProductCluster_SeqAIJ {
  Plan            plan;
  OperandStamp    A, B;
  pcluster::Count nnz_c       = 0;
  PetscLogDouble  seconds_csr = 0; /* building C's structure from the plan's CSR */
  PetscInt        numeric_count = 0;
  /* Fused symbolic+numeric (MatMatMult() and friends, api_user): C's values were formed by the
     symbolic phase; the first numeric phase skips the kernel if A and B are unchanged since. */
  PetscBool        values_from_symbolic = PETSC_FALSE;
  PetscObjectState stateA = 0, stateB = 0;
};

/* A position-weighted checksum of the pattern: detects a different pattern with equal nnz behind a
   new Mat object (a changed index changes the sum unless another change cancels it exactly). Unlike
   a chained hash (FNV), the terms are independent, so it vectorises and runs at memory speed: it is
   computed on every symbolic phase and must not show in its cost. */
std::uint64_t PatternHash(const CsrView &M)
{
  const pcluster::Count nnz = M.nnz();
  std::uint64_t         h   = 0x9E3779B97F4A7C15ull * (std::uint64_t)M.nrows + (std::uint64_t)M.ncols;
  for (PetscInt i = 0; i <= M.nrows; ++i) h += (std::uint64_t)(i + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)M.rowptr[i];
  std::uint64_t hc = 0;
  #pragma omp parallel for reduction(+ : hc) schedule(static) if (nnz > 65536)
  for (pcluster::Count k = 0; k < nnz; ++k) hc += (std::uint64_t)(k + 1) * ((std::uint64_t)M.colidx[k] * 0x165667B19E3779F9ull + 1);
  return h ^ hc;
}
} // namespace

/* Zero-copy view of an assembled host MATSEQAIJ */
static PetscErrorCode MatSeqAIJGetCsrView_Cluster(Mat M, const char name[], CsrView *v)
{
  const PetscInt *i = NULL, *j = NULL;
  PetscScalar    *a = NULL;
  PetscMemType    mtype;

  PetscFunctionBegin;
  PetscCheck(M->assembled, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: matrix %s must be assembled (MatAssemblyBegin/End)", name);
  PetscCall(MatSeqAIJGetCSRAndMemType(M, &i, &j, &a, &mtype));
  PetscCheck(PetscMemTypeHost(mtype), PetscObjectComm((PetscObject)M), PETSC_ERR_SUP, "petsc-cluster: matrix %s must be in host memory", name);
  v->nrows  = M->rmap->n;
  v->ncols  = M->cmap->n;
  v->rowptr = i;
  v->colidx = j;
  v->values = a;
  PetscFunctionReturn(0);
}

static void MatClusterStamp(Mat M, const CsrView &v, OperandStamp *s)
{
  s->mat     = M;
  s->nzstate = M->nonzerostate;
  s->nrows   = v.nrows;
  s->ncols   = v.ncols;
  s->nnz     = v.nnz();
  s->hash    = PatternHash(v);
}

static PetscErrorCode MatClusterCheckStamp(Mat M, const char name[], const CsrView &v, const OperandStamp &s)
{
  PetscFunctionBegin;
  if (M == s.mat && M->nonzerostate == s.nzstate) PetscFunctionReturn(0);
  PetscCheck(v.nrows == s.nrows && v.ncols == s.ncols && v.nnz() == s.nnz && PatternHash(v) == s.hash, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_INCOMP,
             "petsc-cluster: the nonzero pattern of %s changed since the symbolic phase (%" PetscInt_FMT "x%" PetscInt_FMT " with %" PetscInt64_FMT " nonzeros then, %" PetscInt_FMT "x%" PetscInt_FMT " with %" PetscInt64_FMT " now); MAT_REUSE_MATRIX needs the same pattern, use MAT_INITIAL_MATRIX",
             name, s.nrows, s.ncols, (PetscInt64)s.nnz, v.nrows, v.ncols, (PetscInt64)v.nnz());
  PetscFunctionReturn(0);
}

/*
   C's CSR arrays, owned by C through a composed PetscContainer (PETSc does not free them). The values
   must be zero after symbolic; large arrays are mapped anonymously, so the kernel supplies zero pages
   on first touch (in the numeric phase) instead of a memset here: calloc reuses heap the core just
   freed and zeroes it, measured at 0.25 s for nnz(C) = 31M against 1.1 s for the symbolic phase.
*/
#define MATCLUSTER_MMAP_MIN_BYTES ((size_t)1 << 20) /* below this, calloc is cheap */
struct MatClusterCsrStorage {
  std::vector<PetscInt>    i, j;
  std::vector<PetscScalar> values; /* fused symbolic+numeric: the product's values */
  PetscScalar             *a       = nullptr;
  size_t                   a_bytes = 0;
  bool                     mapped  = false;

  void allocate_values(size_t n)
  {
    a_bytes = (n ? n : 1) * sizeof(PetscScalar);
    if (a_bytes >= MATCLUSTER_MMAP_MIN_BYTES) {
      void *p = mmap(nullptr, a_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p != MAP_FAILED) {
  #if defined(MADV_HUGEPAGE)
        (void)madvise(p, a_bytes, MADV_HUGEPAGE); /* fewer first-touch page faults; a hint only */
  #endif
        a      = static_cast<PetscScalar *>(p);
        mapped = true;
        return;
      }
    }
    a = static_cast<PetscScalar *>(std::calloc(a_bytes / sizeof(PetscScalar), sizeof(PetscScalar)));
    if (!a) throw std::bad_alloc();
  }
  ~MatClusterCsrStorage()
  {
    if (mapped) munmap(a, a_bytes);
    else if (values.empty()) std::free(a);
  }
};

static PetscErrorCode MatClusterCsrStorageDestroy(void *ctx)
{
  PetscFunctionBegin;
  delete static_cast<MatClusterCsrStorage *>(ctx);
  PetscFunctionReturn(0);
}

/*
   Builds C in place as a MATSEQAIJ on the plan's CSR arrays without copying them, values zero,
   assembled, new nonzero locations an error.

   Why not MatSeqAIJSetPreallocationCSR: measured on A*A for a 3D 27-point stencil (262144 rows,
   nnz(C) = 31M, 1 thread) it took 0.5-5.6 s against 0.8-4.5 s for our whole symbolic phase, and
   preallocation + MatSeqAIJSetColumnIndices still took ~40% of it (copy and zeroing touch 370 MB).
   Here C wraps the vectors symbolic filled and zero values (see MatClusterCsrStorage): 0.08 s,
   nearly all of it MatCreateSeqAIJWithArrays' assembly (inode check).

   MatCreateSeqAIJWithArrays gives a new Mat T; MatHeaderReplace(C, &T) moves it into C but swaps
   the whole header, so C's product, options prefix, name and options database are carried over by
   hand (objects composed on C before the product was computed are dropped, as with any
   MatHeaderReplace).
*/
static PetscErrorCode MatSeqAIJSetStructure_Cluster(Mat C, Mat A, Mat B, std::vector<PetscInt> &ci, std::vector<PetscInt> &cj, std::vector<PetscScalar> &cv)
{
  MatClusterCsrStorage *storage = NULL;
  PetscContainer        container;
  Mat                   T;
  Mat_Product          *product = C->product;
  PetscOptions          options = ((PetscObject)C)->options;
  char                 *prefix = NULL, *name = NULL;
  PetscErrorCode        ierr;

  PetscFunctionBegin;
  PetscClusterCallCXX(PetscObjectComm((PetscObject)C), "building C", {
    std::unique_ptr<MatClusterCsrStorage> st(new MatClusterCsrStorage);
    if (!cv.empty()) { /* values formed by a fused symbolic phase */
      st->values.swap(cv);
      st->a = st->values.data();
    } else st->allocate_values(cj.size());
    st->i.swap(ci);
    st->j.swap(cj);
    if (st->j.empty()) st->j.push_back(0); /* non-NULL array for an empty C */
    storage = st.release();
  });
  ierr = MatCreateSeqAIJWithArrays(PetscObjectComm((PetscObject)C), A->rmap->n, B->cmap->n, storage->i.data(), storage->j.data(), storage->a, &T);
  if (ierr) delete storage;
  PetscCall(ierr);
  ierr = PetscContainerCreate(PetscObjectComm((PetscObject)C), &container);
  if (ierr) delete storage;
  PetscCall(ierr);
  PetscCall(PetscContainerSetPointer(container, storage));
  PetscCall(PetscContainerSetUserDestroy(container, MatClusterCsrStorageDestroy));
  PetscCall(PetscObjectCompose((PetscObject)T, "MatClusterCsrStorage", (PetscObject)container)); /* T (then C) owns the arrays */
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(MatSetBlockSizesFromMats(T, A, B));
  PetscCall(MatSetOption(T, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));

  if (((PetscObject)C)->prefix) PetscCall(PetscStrallocpy(((PetscObject)C)->prefix, &prefix));
  if (((PetscObject)C)->name) PetscCall(PetscStrallocpy(((PetscObject)C)->name, &name));
  C->product = NULL; /* not destroyed with C's old header */
  ierr       = MatHeaderReplace(C, &T);
  C->product = product;
  PetscCall(ierr);
  ((PetscObject)C)->options = options;
  PetscCall(PetscObjectSetOptionsPrefix((PetscObject)C, prefix));
  if (name) PetscCall(PetscObjectSetName((PetscObject)C, name));
  PetscCall(PetscFree(prefix));
  PetscCall(PetscFree(name));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductDestroy_Cluster_SeqAIJ(void *data)
{
  PetscFunctionBegin;
  delete static_cast<MatProductCluster_SeqAIJ *>(data);
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductView_Cluster_SeqAIJ(Mat C, PetscViewer viewer)
{
  auto     *data = static_cast<MatProductCluster_SeqAIJ *>(C->product->data);
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !data) PetscFunctionReturn(0);
  const pcluster::SpgemmOptions &o = data->plan.options();
  const pcluster::SpgemmStats   &s = data->plan.stats();
  const bool                     cl = s.kernel == pcluster::Kernel::Cluster;
  const bool auto_choice = o.kernel == pcluster::Kernel::Cluster && o.scheme == pcluster::ClusterScheme::Auto; /* algorithm "cluster" */
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-cluster MatProduct %s: algorithm %s, kernel %s%s%s%s\n", MatProductTypes[C->product->type], C->product->alg, pcluster::to_string(s.kernel), cl ? ", scheme " : "", cl ? pcluster::to_string(s.scheme) : "",
                                   auto_choice ? " (chosen automatically)" : ""));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (cl) {
    PetscCall(PetscViewerASCIIPrintf(viewer, "cluster size %d, Jaccard threshold %g, top-k %d%s, row block size %d\n", o.clustering.cluster_size, o.clustering.jaccard_threshold, o.clustering.hierarchical_topk, o.clustering.hierarchical_topk ? "" : " (cluster size - 1)", o.row_block_size));
    PetscCall(PetscViewerASCIIPrintf(viewer, "clusters %" PetscInt64_FMT ", padding %" PetscInt64_FMT " explicit zeros, cluster flops %" PetscInt64_FMT "\n", (PetscInt64)s.num_clusters, (PetscInt64)s.cluster_padding, (PetscInt64)s.cluster_flops));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "accumulator %s (rows on the dense accumulator %" PetscInt64_FMT "), threads %d%s\n", pcluster::to_string(o.accumulator), (PetscInt64)s.rows_dense, o.num_threads, o.num_threads ? "" : " (OpenMP default)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "flops %" PetscInt64_FMT " multiply-adds, nnz(C) %" PetscInt64_FMT "\n", (PetscInt64)s.flops, (PetscInt64)s.nnz_c));
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds: clustering %g, symbolic %g (incl. clustering), building C %g; numeric runs %" PetscInt_FMT "\n", s.seconds_clustering, s.seconds_symbolic, data->seconds_csr, data->numeric_count));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_AB_SeqAIJ_SeqAIJ_Cluster(Mat C)
{
  Mat_Product *product = C->product;
  MPI_Comm     comm    = PetscObjectComm((PetscObject)C);
  Mat          A, B;
  CsrView      Av, Bv, Cv;
  PetscScalar *ca = NULL;
  PetscBool    seqA, seqB;

  PetscFunctionBegin;
  PetscCheck(product && product->data, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: the symbolic phase of this product is missing (was MatProductClear() called?)");
  auto *data = static_cast<MatProductCluster_SeqAIJ *>(product->data);
  A          = product->A; /* re-read: MatProductReplaceMats() may have swapped them */
  B          = product->B;
  PetscCall(PetscObjectTypeCompare((PetscObject)A, MATSEQAIJ, &seqA));
  PetscCall(PetscObjectTypeCompare((PetscObject)B, MATSEQAIJ, &seqB));
  PetscCheck(seqA && seqB, comm, PETSC_ERR_ARG_WRONG, "petsc-cluster: A and B must be %s (got %s and %s)", MATSEQAIJ, ((PetscObject)A)->type_name, ((PetscObject)B)->type_name);
  PetscCall(MatSeqAIJGetCsrView_Cluster(A, "A", &Av));
  PetscCall(MatSeqAIJGetCsrView_Cluster(B, "B", &Bv));
  PetscCall(MatClusterCheckStamp(A, "A", Av, data->A));
  PetscCall(MatClusterCheckStamp(B, "B", Bv, data->B));
  PetscCall(MatSeqAIJGetCsrView_Cluster(C, "C", &Cv));
  PetscCheck(Cv.nrows == Av.nrows && Cv.ncols == Bv.ncols && Cv.nnz() == data->nnz_c, comm, PETSC_ERR_ARG_INCOMP, "petsc-cluster: C (%" PetscInt_FMT "x%" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros) no longer has the structure built by the symbolic phase (%" PetscInt64_FMT " nonzeros)", Cv.nrows, Cv.ncols,
             (PetscInt64)Cv.nnz(), (PetscInt64)data->nnz_c);
  Cv.values = NULL;

  if (data->values_from_symbolic) { /* first numeric after a fused symbolic phase */
    PetscObjectState sA, sB;
    data->values_from_symbolic = PETSC_FALSE;
    PetscCall(PetscObjectStateGet((PetscObject)A, &sA));
    PetscCall(PetscObjectStateGet((PetscObject)B, &sB));
    if (A == data->A.mat && B == data->B.mat && sA == data->stateA && sB == data->stateB) {
      PetscCall(PetscInfo(C, "petsc-cluster: values already formed by the symbolic phase, A and B unchanged since\n"));
      data->numeric_count++;
      PetscFunctionReturn(0);
    }
  }
  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, A, B, C, 0));
  PetscClusterCallCXX(comm, "numeric phase of C = A*B", data->plan.numeric(Av, Bv, Cv, ca));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)data->plan.stats().flops));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, A, B, C, 0));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  data->numeric_count++;
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode MatProductSymbolic_AB_SeqAIJ_SeqAIJ_Cluster(Mat C)
{
  Mat_Product            *product = C->product;
  MPI_Comm                comm    = PetscObjectComm((PetscObject)C);
  Mat                     A = product->A, B = product->B;
  CsrView                 Av, Bv;
  pcluster::SpgemmOptions opts;
  std::vector<PetscInt>   ci, cj;
  std::vector<PetscScalar> cv;
  PetscLogDouble          t0, t1;
  /* MatMatMult() & co. (api_user) run numeric right after symbolic with the same values, so the
     symbolic phase forms the values too. MatProductSymbolic() alone must leave zeros in C. */
  const PetscBool         fuse = product->api_user;

  PetscFunctionBegin;
  PetscCheck(!product->data, comm, PETSC_ERR_PLIB, "petsc-cluster: product data already set");
  PetscCheck(A->cmap->n == B->rmap->n, comm, PETSC_ERR_ARG_SIZ, "petsc-cluster: C = A*B with A %" PetscInt_FMT "x%" PetscInt_FMT " and B %" PetscInt_FMT "x%" PetscInt_FMT ": the columns of A must match the rows of B", A->rmap->n, A->cmap->n, B->rmap->n, B->cmap->n);
  PetscCall(MatClusterGetOptions_Private(C, product->alg, &opts));
  PetscCall(MatSeqAIJGetCsrView_Cluster(A, "A", &Av));
  PetscCall(MatSeqAIJGetCsrView_Cluster(B, "B", &Bv));

  std::unique_ptr<MatProductCluster_SeqAIJ> data;
  PetscCall(PetscLogEventBegin(MAT_ClusterSym, A, B, 0, 0));
  PetscClusterCallCXX(comm, "symbolic phase of C = A*B", data.reset(new MatProductCluster_SeqAIJ); data->plan = Plan::symbolic(Av, Bv, opts, ci, cj, fuse ? &cv : nullptr));
  if (fuse) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)data->plan.stats().flops));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, A, B, 0, 0));
  const pcluster::SpgemmStats &s = data->plan.stats();
  if (s.seconds_clustering > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, s.seconds_clustering));
  MatClusterStamp(A, Av, &data->A);
  MatClusterStamp(B, Bv, &data->B);
  data->values_from_symbolic = fuse;
  PetscCall(PetscObjectStateGet((PetscObject)A, &data->stateA));
  PetscCall(PetscObjectStateGet((PetscObject)B, &data->stateB));
  data->nnz_c = (pcluster::Count)cj.size();

  /* C in place: sizes, then type and structure with zeros (MatHeaderReplace replaces C->ops) */
  PetscCall(PetscTime(&t0));
  PetscCall(MatSetSizes(C, A->rmap->n, B->cmap->n, A->rmap->N, B->cmap->N));
  PetscCall(MatSeqAIJSetStructure_Cluster(C, A, B, ci, cj, cv)); /* sets C's type (and so C->ops) */
  PetscCall(PetscTime(&t1));
  data->seconds_csr = t1 - t0;

  C->info.fill_ratio_given  = product->fill;
  C->info.fill_ratio_needed = (Av.nnz() + Bv.nnz()) ? (PetscReal)data->nnz_c / (PetscReal)(Av.nnz() + Bv.nnz()) : 0;
  C->ops->productnumeric    = MatProductNumeric_AB_SeqAIJ_SeqAIJ_Cluster; /* after MatHeaderReplace, which replaced C->ops */
  product->view             = MatProductView_Cluster_SeqAIJ;
  product->destroy          = MatProductDestroy_Cluster_SeqAIJ;
  product->data             = data.release();
  PetscCall(PetscInfo(C, "petsc-cluster %s: kernel %s, scheme %s, clusters %" PetscInt64_FMT ", flops %" PetscInt64_FMT ", nnz(C) %" PetscInt64_FMT "; clustering %g s, symbolic %g s, building C %g s\n", product->alg, pcluster::to_string(s.kernel),
                      s.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(s.scheme) : "-", (PetscInt64)s.num_clusters, (PetscInt64)s.flops, (PetscInt64)s.nnz_c, s.seconds_clustering, s.seconds_symbolic, t1 - t0));
  PetscFunctionReturn(0);
}
