/*
   Every MatProduct type (AB, AtB, ABt, PtAP, RARt, ABC) for MATSEQAIJ operands with the core's
   kernels (row-wise or cluster-wise), as the chains of pcluster::ProductPlan (include/pcluster/
   product.hpp says which chain each type is and why).

   Symbolic: ProductPlan::symbolic() on zero-copy CsrViews of the operands gives C's pattern; C is
   built in place as a MATSEQAIJ that owns its arrays, assembled with zeros (a symbolic-only C must be
   usable), and the plan (clusters, transposes, intermediate products, ...) is kept in
   C->product->data for the numeric phase. Numeric: plan.numeric() into C's value array.
   MAT_REUSE_MATRIX runs only numeric.

   Before each numeric phase the operands are checked against what symbolic saw: same object and
   nonzero state (cheap), otherwise the same dimensions, nnz and a hash of the pattern (O(nnz)). A
   changed pattern is an error, never an out-of-bounds write. The operands are only read, so a failed
   product leaves them as they were.

   Each operand's pattern is validated (sorted, in range) and hashed once per nonzero state, and the
   result kept on the Mat (a pattern record), not on every product.

   A's ordering and clusters (pcluster::LeftAnalysis) depend only on its pattern: they are composed
   on A, keyed by its nonzero state, and a later product with the same A and options takes them
   instead of recomputing them (-mat_cluster_reuse_analysis, default true): A*F for a new F at every
   level of a BFS, a PCGAMG re-setup with a new P. Only made when there is something to keep (an
   ordering or clusters).
*/
#include "petscclusterimpl.h"

#include <array>
#include <cstdint>
#include <cstdlib>
#include <sys/mman.h>
#include <memory>
#include <vector>

namespace
{
using Plan    = pcluster::ProductPlan<PetscInt, PetscScalar>;
using CsrView = pcluster::CsrView<PetscInt, PetscScalar>;

/* What symbolic saw of an operand, to validate a numeric phase */
struct OperandStamp {
  Mat              mat     = nullptr; /* identity only, not referenced */
  PetscObjectState nzstate = 0;
  PetscInt         nrows = 0, ncols = 0;
  pcluster::Count  nnz  = 0;
  std::uint64_t    hash = 0;
};

constexpr int kMaxOperands = 3;

/* C->product->data */
struct MatProductCluster_SeqAIJ {
  Plan            plan;
  int             nops = 0;
  OperandStamp    stamp[kMaxOperands];
  pcluster::Count nnz_c         = 0;
  PetscLogDouble  seconds_csr   = 0; /* building C's structure from the plan's CSR */
  PetscInt        numeric_count = 0;
  PetscBool       numeric_ran   = PETSC_FALSE; /* a numeric phase has run (not only values formed by symbolic) */
  /* Fused symbolic+numeric (MatMatMult() and friends, api_user): C's values were formed by the
     symbolic phase; the first numeric phase skips the kernel if no operand changed since. */
  PetscBool        values_from_symbolic = PETSC_FALSE;
  PetscObjectState state[kMaxOperands] = {0, 0, 0};
};

} // namespace

/* A position-weighted checksum of the pattern: detects a different pattern with equal nnz behind a
   new Mat object (a changed index changes the sum unless another change cancels it exactly). Unlike
   a chained hash (FNV), the terms are independent, so it vectorises and runs at memory speed: it is
   computed on every symbolic phase and must not show in its cost. */
std::uint64_t MatClusterPatternHashOf_Private(const pcluster::CsrView<PetscInt, PetscScalar> &M)
{
  const pcluster::Count nnz = M.nnz();
  std::uint64_t         h   = 0x9E3779B97F4A7C15ull * (std::uint64_t)M.nrows + (std::uint64_t)M.ncols;
  for (PetscInt i = 0; i <= M.nrows; ++i) h += (std::uint64_t)(i + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)M.rowptr[i];
  std::uint64_t hc = 0;
  #pragma omp parallel for reduction(+ : hc) schedule(static) if (nnz > 65536)
  for (pcluster::Count k = 0; k < nnz; ++k) hc += (std::uint64_t)(k + 1) * ((std::uint64_t)M.colidx[k] * 0x165667B19E3779F9ull + 1);
  return h ^ hc;
}
/* Zero-copy view of an assembled host MATSEQAIJ */
PetscErrorCode MatSeqAIJGetCsrView_Cluster(Mat M, const char name[], pcluster::CsrView<PetscInt, PetscScalar> *v)
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

static void MatClusterStamp(Mat M, const CsrView &v, std::uint64_t hash, OperandStamp *s)
{
  s->mat     = M;
  s->nzstate = M->nonzerostate;
  s->nrows   = v.nrows;
  s->ncols   = v.ncols;
  s->nnz     = v.nnz();
  s->hash    = hash;
}

static PetscErrorCode MatClusterCheckStamp(Mat M, const char name[], const CsrView &v, const OperandStamp &s)
{
  PetscFunctionBegin;
  if (M == s.mat && M->nonzerostate == s.nzstate) PetscFunctionReturn(0);
  std::uint64_t hash = 0;
  if (v.nrows == s.nrows && v.ncols == s.ncols && v.nnz() == s.nnz) PetscCall(MatClusterPatternHash_Private(M, name, v, &hash));
  PetscCheck(v.nrows == s.nrows && v.ncols == s.ncols && v.nnz() == s.nnz && hash == s.hash, PetscObjectComm((PetscObject)M), PETSC_ERR_ARG_INCOMP,
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
      if (p != MAP_FAILED) { /* no MADV_HUGEPAGE: see src/memory.hpp */
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

/* Records kept on an operand Mat (PetscObjectCompose of a PetscContainer), each valid for the
   nonzero state it was made at: what the plugin learnt of the operand's pattern, so that a matrix used
   in many products (A at every BFS level, A and P across AMG re-setups) does not pay for it again. */
template <class T>
static PetscErrorCode MatClusterRecordDestroy(void *ctx)
{
  PetscFunctionBegin;
  delete static_cast<T *>(ctx);
  PetscFunctionReturn(0);
}

template <class T>
static PetscErrorCode MatClusterRecordSet(Mat M, const char key[], std::unique_ptr<T> record)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(M, &record->nonzerostate));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)M), &container));
  PetscCall(PetscContainerSetPointer(container, record.release()));
  PetscCall(PetscContainerSetUserDestroy(container, MatClusterRecordDestroy<T>));
  PetscCall(PetscObjectCompose((PetscObject)M, key, (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(0);
}

/* The record under key if it was made at M's current nonzero state, else NULL */
template <class T>
static PetscErrorCode MatClusterRecordGet(Mat M, const char key[], const T **record)
{
  PetscContainer   container = NULL;
  PetscObjectState state;
  void            *ptr;

  PetscFunctionBegin;
  *record = NULL;
  PetscCall(PetscObjectQuery((PetscObject)M, key, (PetscObject *)&container));
  if (!container) PetscFunctionReturn(0);
  PetscCall(PetscContainerGetPointer(container, &ptr));
  PetscCall(MatGetNonzeroState(M, &state));
  if (static_cast<const T *>(ptr)->nonzerostate == state) *record = static_cast<const T *>(ptr);
  PetscFunctionReturn(0);
}

/* The operand's pattern was validated (sorted, unique, in range) and hashed (PatternHash) */
struct MatClusterPatternRecord {
  PetscObjectState nonzerostate;
  std::uint64_t    hash;
};
static const char MatClusterPatternKey[] = "petsc_cluster_pattern";

/* Validates M's pattern and returns its PatternHash, once per nonzero state of M */
PetscErrorCode MatClusterPatternHash_Private(Mat M, const char name[], const pcluster::CsrView<PetscInt, PetscScalar> &v, std::uint64_t *hash)
{
  const MatClusterPatternRecord *known;

  PetscFunctionBegin;
  PetscCall(MatClusterRecordGet(M, MatClusterPatternKey, &known));
  if (known) {
    *hash = known->hash;
    PetscFunctionReturn(0);
  }
  PetscClusterCallCXX(PetscObjectComm((PetscObject)M), "operand check", pcluster::validate(v, name));
  auto record  = std::make_unique<MatClusterPatternRecord>();
  record->hash = *hash = MatClusterPatternHashOf_Private(v);
  PetscCall(MatClusterRecordSet(M, MatClusterPatternKey, std::move(record)));
  PetscFunctionReturn(0);
}

/* A's LeftAnalysis (ordering, working-copy pattern, clusters) */
struct MatClusterAnalysisRecord {
  PetscObjectState                                          nonzerostate;
  std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> analysis;
};
static const char MatClusterAnalysisKey[] = "petsc_cluster_a_analysis";

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

   MatCreateSeqAIJWithArrays gives a new Mat T; MatClusterAdoptStructure_Private moves it into C
   (MatHeaderReplace swaps the whole header, so C's product, options prefix, name and options
   database are carried over by hand; objects composed on C before the product was computed are
   dropped, as with any MatHeaderReplace).
*/
static PetscErrorCode MatSeqAIJSetStructure_Cluster(Mat C, PetscInt m, PetscInt n, PetscInt rbs, PetscInt cbs, std::vector<PetscInt> &ci, std::vector<PetscInt> &cj, std::vector<PetscScalar> &cv)
{
  MatClusterCsrStorage *storage = NULL;
  PetscContainer        container;
  Mat                   T;
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
  ierr = MatCreateSeqAIJWithArrays(PetscObjectComm((PetscObject)C), m, n, storage->i.data(), storage->j.data(), storage->a, &T);
  if (ierr) delete storage;
  PetscCall(ierr);
  ierr = PetscContainerCreate(PetscObjectComm((PetscObject)C), &container);
  if (ierr) delete storage;
  PetscCall(ierr);
  PetscCall(PetscContainerSetPointer(container, storage));
  PetscCall(PetscContainerSetUserDestroy(container, MatClusterCsrStorageDestroy));
  PetscCall(PetscObjectCompose((PetscObject)T, "MatClusterCsrStorage", (PetscObject)container)); /* T (then C) owns the arrays */
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(MatSetBlockSizes(T, rbs, cbs));
  PetscCall(MatSetOption(T, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(MatClusterAdoptStructure_Private(C, &T));
  PetscFunctionReturn(0);
}

/* C takes T's structure and values (MatHeaderReplace), keeping its own product, options prefix, name,
   options database and MAT_FORCE_DIAGONAL_ENTRIES */
PetscErrorCode MatClusterAdoptStructure_Private(Mat C, Mat *T)
{
  Mat_Product    *product = C->product;
  PetscOptions    options = ((PetscObject)C)->options;
  char           *prefix = NULL, *name = NULL;
  const PetscBool force_diagonals = C->force_diagonals;
  PetscErrorCode  ierr;

  PetscFunctionBegin;
  if (((PetscObject)C)->prefix) PetscCall(PetscStrallocpy(((PetscObject)C)->prefix, &prefix));
  if (((PetscObject)C)->name) PetscCall(PetscStrallocpy(((PetscObject)C)->name, &name));
  C->product = NULL; /* not destroyed with C's old header */
  ierr       = MatHeaderReplace(C, T);
  C->product = product;
  PetscCall(ierr);
  ((PetscObject)C)->options = options;
  C->force_diagonals        = force_diagonals; /* MatSetOption(C, MAT_FORCE_DIAGONAL_ENTRIES) made before the product */
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

/* The core's name for a MatProduct type; false for types without a chain */
bool MatClusterProductType_Private(MatProductType type, pcluster::ProductType *t)
{
  switch (type) {
  case MATPRODUCT_AB:
    *t = pcluster::ProductType::AB;
    return true;
  case MATPRODUCT_AtB:
    *t = pcluster::ProductType::AtB;
    return true;
  case MATPRODUCT_ABt:
    *t = pcluster::ProductType::ABt;
    return true;
  case MATPRODUCT_PtAP:
    *t = pcluster::ProductType::PtAP;
    return true;
  case MATPRODUCT_RARt:
    *t = pcluster::ProductType::RARt;
    return true;
  case MATPRODUCT_ABC:
    *t = pcluster::ProductType::ABC;
    return true;
  default:
    return false;
  }
}

PetscBool MatClusterProductTypeSupported_Private(MatProductType type)
{
  pcluster::ProductType t;
  return MatClusterProductType_Private(type, &t) ? PETSC_TRUE : PETSC_FALSE;
}

/* The product's operands in the order the core takes them (A, B[, C]; PtAP's B is P, RARt's B is R) */
static PetscErrorCode MatClusterGetOperands(Mat C, int *nops, Mat mats[kMaxOperands], const char *names[kMaxOperands], CsrView views[kMaxOperands])
{
  Mat_Product *product = C->product;
  const bool   three   = product->type == MATPRODUCT_ABC;

  PetscFunctionBegin;
  *nops    = three ? 3 : 2;
  mats[0]  = product->A; /* re-read on every call: MatProductReplaceMats() may have swapped them */
  mats[1]  = product->B;
  mats[2]  = three ? product->C : NULL;
  names[0] = "A";
  names[1] = product->type == MATPRODUCT_PtAP ? "P" : product->type == MATPRODUCT_RARt ? "R" : "B";
  names[2] = "C";
  for (int k = 0; k < *nops; ++k) {
    PetscBool seq;
    PetscCheck(mats[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_NULL, "petsc-cluster: operand %s of the product is missing", names[k]);
    PetscCall(PetscObjectTypeCompare((PetscObject)mats[k], MATSEQAIJ, &seq));
    PetscCheck(seq, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONG, "petsc-cluster: operand %s must be %s (got %s)", names[k], MATSEQAIJ, ((PetscObject)mats[k])->type_name);
    PetscCall(MatSeqAIJGetCsrView_Cluster(mats[k], names[k], &views[k]));
  }
  PetscFunctionReturn(0);
}

/* C's block sizes, as PETSc's own SeqAIJ algorithms set them */
void MatClusterResultBlockSizes_Private(Mat C, PetscInt *rbs, PetscInt *cbs)
{
  Mat_Product *product = C->product;
  Mat          A = product->A, B = product->B;

  switch (product->type) {
  case MATPRODUCT_AtB: /* At*B with At = A^T */
    *rbs = A->cmap->bs, *cbs = B->cmap->bs;
    break;
  case MATPRODUCT_ABt:
    *rbs = A->rmap->bs, *cbs = B->rmap->bs;
    break;
  case MATPRODUCT_PtAP: /* matptap.c */
    *rbs = *cbs = B->cmap->bs;
    break;
  case MATPRODUCT_RARt: /* matrart.c */
    *rbs = *cbs = B->rmap->bs;
    break;
  case MATPRODUCT_ABC:
    *rbs = A->rmap->bs, *cbs = product->C->cmap->bs;
    break;
  default:
    *rbs = A->rmap->bs, *cbs = B->cmap->bs;
  }
  *rbs = PetscAbs(*rbs);
  *cbs = PetscAbs(*cbs);
}

static PetscErrorCode MatProductView_Cluster_SeqAIJ(Mat C, PetscViewer viewer)
{
  auto     *data = static_cast<MatProductCluster_SeqAIJ *>(C->product->data);
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !data) PetscFunctionReturn(0);
  const pcluster::SpgemmOptions &o           = data->plan.options();
  const bool                     auto_choice = o.kernel == pcluster::Kernel::Cluster && o.scheme == pcluster::ClusterScheme::Auto; /* algorithm "cluster" */
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-cluster MatProduct %s: algorithm %s\n", MatProductTypes[C->product->type], C->product->alg));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  if (o.kernel == pcluster::Kernel::Cluster)
    PetscCall(PetscViewerASCIIPrintf(viewer, "cluster size %d, Jaccard threshold %g, top-k %d%s\n", o.clustering.cluster_size, o.clustering.jaccard_threshold, o.clustering.hierarchical_topk, o.clustering.hierarchical_topk ? "" : " (cluster size - 1)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "accumulator %s, threads %d%s, rows reordered by %s\n", pcluster::to_string(o.accumulator), o.num_threads, o.num_threads ? "" : " (OpenMP default)", pcluster::to_string(o.reorder)));
  for (const pcluster::ProductStep &st : data->plan.steps()) {
    if (st.is_transpose) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s: explicit transpose, nnz %" PetscInt64_FMT "\n", st.what.c_str(), (PetscInt64)st.nnz));
      continue;
    }
    const pcluster::SpgemmStats &s  = st.spgemm;
    const bool                   cl = s.kernel == pcluster::Kernel::Cluster;
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s: kernel %s%s%s%s, flops %" PetscInt64_FMT " multiply-adds, nnz %" PetscInt64_FMT "\n", st.what.c_str(), pcluster::to_string(s.kernel), cl ? ", scheme " : "", cl ? pcluster::to_string(s.scheme) : "", auto_choice ? " (chosen automatically)" : "",
                                     (PetscInt64)s.flops, (PetscInt64)st.nnz));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (cl) PetscCall(PetscViewerASCIIPrintf(viewer, "clusters %" PetscInt64_FMT ", padding %" PetscInt64_FMT " explicit zeros, cluster flops %" PetscInt64_FMT "\n", (PetscInt64)s.num_clusters, (PetscInt64)s.cluster_padding, (PetscInt64)s.cluster_flops));
    PetscCall(PetscViewerASCIIPrintf(viewer, "rows on the dense accumulator %" PetscInt64_FMT "%s; workspace %" PetscInt64_FMT " KiB per thread (peak), %" PetscInt64_FMT " KiB all threads; seconds: ordering %g, clustering %g, symbolic %g (incl. ordering and clustering)\n", (PetscInt64)s.rows_dense,
                                     s.dense_limited ? " (dense asked for, C too wide)" : "", MatClusterKiB(s.workspace_thread_bytes), MatClusterKiB(s.workspace_bytes), s.seconds_ordering, s.seconds_clustering, s.seconds_symbolic));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds: symbolic %g (all steps), building C %g; numeric runs %" PetscInt_FMT "\n", data->plan.seconds_symbolic(), data->seconds_csr, data->numeric_count));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_SeqAIJ_Cluster(Mat C)
{
  Mat_Product *product = C->product;
  MPI_Comm     comm    = PetscObjectComm((PetscObject)C);
  Mat          mats[kMaxOperands];
  const char  *names[kMaxOperands];
  CsrView      views[kMaxOperands], Cv;
  PetscScalar *ca = NULL;
  int          nops;

  PetscFunctionBegin;
  PetscCheck(product && product->data, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: the symbolic phase of this product is missing (was MatProductClear() called?)");
  auto *data = static_cast<MatProductCluster_SeqAIJ *>(product->data);
  PetscCall(MatClusterGetOperands(C, &nops, mats, names, views));
  PetscCheck(nops == data->nops, comm, PETSC_ERR_PLIB, "petsc-cluster: operand count changed");
  for (int k = 0; k < nops; ++k) PetscCall(MatClusterCheckStamp(mats[k], names[k], views[k], data->stamp[k]));
  PetscCall(MatSeqAIJGetCsrView_Cluster(C, "C", &Cv));
  PetscCheck(Cv.nnz() == data->nnz_c, comm, PETSC_ERR_ARG_INCOMP, "petsc-cluster: C (%" PetscInt_FMT "x%" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros) no longer has the structure built by the symbolic phase (%" PetscInt64_FMT " nonzeros)", Cv.nrows, Cv.ncols, (PetscInt64)Cv.nnz(),
             (PetscInt64)data->nnz_c);
  Cv.values = NULL;

  if (data->values_from_symbolic) { /* first numeric after a fused symbolic phase */
    PetscBool unchanged = PETSC_TRUE;
    data->values_from_symbolic = PETSC_FALSE;
    for (int k = 0; k < nops; ++k) {
      PetscObjectState s;
      PetscCall(PetscObjectStateGet((PetscObject)mats[k], &s));
      if (mats[k] != data->stamp[k].mat || s != data->state[k]) unchanged = PETSC_FALSE;
    }
    if (unchanged) {
      PetscCall(PetscInfo(C, "petsc-cluster: values already formed by the symbolic phase, operands unchanged since\n"));
      data->numeric_count++;
      PetscFunctionReturn(0);
    }
  }
  const std::vector<CsrView> operands(views, views + nops);
  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, mats[0], mats[1], C, 0));
  PetscClusterCallCXX(comm, "numeric phase", data->plan.numeric(operands, Cv, ca));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)data->plan.flops()));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, mats[0], mats[1], C, 0));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  if (!data->numeric_ran) { /* the first numeric phase that ran: its workspace too */
    data->numeric_ran = PETSC_TRUE;
    for (const pcluster::ProductStep &st : data->plan.steps()) {
      char what[128];
      if (st.is_transpose) continue;
      PetscCall(PetscSNPrintf(what, sizeof what, "%s %s: %s", MatProductTypes[product->type], product->alg, st.what.c_str()));
      PetscCall(MatClusterInfoWorkspace_Private(C, what, PETSC_TRUE, st.spgemm));
    }
  }
  data->numeric_count++;
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

PetscErrorCode MatProductSymbolic_SeqAIJ_Cluster(Mat C)
{
  Mat_Product                       *product = C->product;
  MPI_Comm                           comm    = PetscObjectComm((PetscObject)C);
  Mat                                mats[kMaxOperands];
  const char                        *names[kMaxOperands];
  CsrView                            views[kMaxOperands];
  int                                nops;
  pcluster::ProductType              type;
  pcluster::SpgemmOptions            opts;
  std::array<PetscInt, 2>            dims;
  std::vector<pcluster::BlockSizes>  bs;
  std::vector<PetscInt>              ci, cj;
  std::vector<PetscScalar>           cv;
  PetscInt                           rbs, cbs;
  PetscLogDouble                     t0, t1;
  /* MatMatMult(), MatPtAP() & co. (api_user) run numeric right after symbolic with the same values,
     so the symbolic phase forms the values too. MatProductSymbolic() alone must leave zeros in C. */
  const PetscBool fuse = product->api_user;
  PetscBool       reuse_analysis;
  std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> a_analysis;

  PetscFunctionBegin;
  PetscCheck(!product->data, comm, PETSC_ERR_PLIB, "petsc-cluster: product data already set");
  PetscCheck(MatClusterProductType_Private(product->type, &type), comm, PETSC_ERR_SUP, "petsc-cluster: MatProduct type %s is not supported", MatProductTypes[product->type]);
  PetscCall(MatClusterGetOperands(C, &nops, mats, names, views));
  const std::vector<CsrView> operands(views, views + nops);
  try {
    dims = pcluster::product_dimensions(type, operands);
  } catch (const std::invalid_argument &e) {
    SETERRQ(comm, PETSC_ERR_ARG_SIZ, "petsc-cluster: %s", e.what());
  }
  for (int k = 0; k < nops; ++k) bs.push_back({(int)PetscAbs(mats[k]->rmap->bs), (int)PetscAbs(mats[k]->cmap->bs)});
  PetscCall(MatClusterGetOptions_Private(C, product->alg, &opts, &reuse_analysis));
  opts.include_diagonal = C->force_diagonals ? true : false; /* MAT_FORCE_DIAGONAL_ENTRIES, as PETSc's symbolic phases honour it */
  /* A's block size is the row block size of the steps with A on the left (see ProductPlan::symbolic) */
  opts.row_block_size = bs[0].rows;
  if (reuse_analysis) {
    const MatClusterAnalysisRecord *known;
    PetscCall(MatClusterRecordGet(mats[0], MatClusterAnalysisKey, &known));
    if (known && known->analysis->fits(views[0].nrows, views[0].ncols, views[0].nnz(), opts)) a_analysis = known->analysis;
  }
  /* Each operand checked (and hashed for the numeric phases' stamps) once per pattern, here rather
     than by the core on every product */
  std::uint64_t hash[kMaxOperands];
  for (int k = 0; k < nops; ++k) PetscCall(MatClusterPatternHash_Private(mats[k], names[k], views[k], &hash[k]));
  opts.check_operands = false;

  std::unique_ptr<MatProductCluster_SeqAIJ> data;
  PetscCall(PetscLogEventBegin(MAT_ClusterSym, mats[0], mats[1], 0, 0));
  PetscClusterCallCXX(comm, "symbolic phase", data.reset(new MatProductCluster_SeqAIJ); data->plan = Plan::symbolic(type, operands, opts, ci, cj, fuse ? &cv : nullptr, bs, a_analysis));
  if (fuse) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)data->plan.flops()));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, mats[0], mats[1], 0, 0));
  if (data->plan.seconds_clustering() > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, data->plan.seconds_clustering()));
  for (const pcluster::ProductStep &st : data->plan.steps())
    if (st.spgemm.seconds_ordering > 0) PetscCall(PetscClusterLogEventAddTime_Private(MatClusterOrderingEvent_Private(opts.reorder), st.spgemm.seconds_ordering));
  if (reuse_analysis && !a_analysis && (opts.reorder != pcluster::OrderingType::Natural || opts.kernel == pcluster::Kernel::Cluster)) {
    if (auto made = data->plan.a_analysis()) {
      auto record      = std::make_unique<MatClusterAnalysisRecord>();
      record->analysis = std::move(made);
      PetscCall(MatClusterRecordSet(mats[0], MatClusterAnalysisKey, std::move(record)));
    }
  }
  if (a_analysis) PetscCall(PetscInfo(C, "petsc-cluster %s %s: A's ordering and clusters taken from an earlier product with the same A\n", MatProductTypes[product->type], product->alg));
  data->nops = nops;
  for (int k = 0; k < nops; ++k) {
    MatClusterStamp(mats[k], views[k], hash[k], &data->stamp[k]);
    PetscCall(PetscObjectStateGet((PetscObject)mats[k], &data->state[k]));
  }
  data->values_from_symbolic = fuse;
  data->nnz_c                = (pcluster::Count)cj.size();

  /* C in place: sizes, then type and structure (MatHeaderReplace replaces C->ops) */
  PetscCall(PetscTime(&t0));
  MatClusterResultBlockSizes_Private(C, &rbs, &cbs);
  PetscCall(MatSetSizes(C, dims[0], dims[1], dims[0], dims[1]));
  PetscCall(MatSeqAIJSetStructure_Cluster(C, dims[0], dims[1], rbs, cbs, ci, cj, cv));
  PetscCall(PetscTime(&t1));
  data->seconds_csr = t1 - t0;

  pcluster::Count nnz_in = 0;
  for (int k = 0; k < nops; ++k) nnz_in += views[k].nnz();
  C->info.fill_ratio_given  = product->fill;
  C->info.fill_ratio_needed = nnz_in ? (PetscReal)data->nnz_c / (PetscReal)nnz_in : 0;
  C->ops->productnumeric    = MatProductNumeric_SeqAIJ_Cluster; /* after MatHeaderReplace, which replaced C->ops */
  product->view             = MatProductView_Cluster_SeqAIJ;
  product->destroy          = MatProductDestroy_Cluster_SeqAIJ;
  product->data             = data.release();
  {
    const auto *d = static_cast<MatProductCluster_SeqAIJ *>(product->data);
    for (const pcluster::ProductStep &st : d->plan.steps()) {
      if (st.is_transpose) PetscCall(PetscInfo(C, "petsc-cluster %s %s: %s, nnz %" PetscInt64_FMT "\n", MatProductTypes[product->type], product->alg, st.what.c_str(), (PetscInt64)st.nnz));
      else {
        char what[128];
        PetscCall(PetscInfo(C, "petsc-cluster %s %s: %s: kernel %s, scheme %s, clusters %" PetscInt64_FMT ", flops %" PetscInt64_FMT ", nnz %" PetscInt64_FMT "; clustering %g s, symbolic %g s\n", MatProductTypes[product->type], product->alg, st.what.c_str(), pcluster::to_string(st.spgemm.kernel),
                            st.spgemm.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(st.spgemm.scheme) : "-", (PetscInt64)st.spgemm.num_clusters, (PetscInt64)st.spgemm.flops, (PetscInt64)st.nnz, st.spgemm.seconds_clustering, st.spgemm.seconds_symbolic));
        PetscCall(PetscSNPrintf(what, sizeof what, "%s %s: %s", MatProductTypes[product->type], product->alg, st.what.c_str()));
        PetscCall(MatClusterInfoWorkspace_Private(C, what, PETSC_FALSE, st.spgemm));
      }
    }
    PetscCall(PetscInfo(C, "petsc-cluster %s %s: symbolic %g s in all, building C %g s\n", MatProductTypes[product->type], product->alg, d->plan.seconds_symbolic(), t1 - t0));
  }
  PetscFunctionReturn(0);
}
