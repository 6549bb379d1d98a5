/*
   Every MatProduct type (AB, AtB, ABt, PtAP, RARt, ABC) for MATSEQAIJ operands with the core's
   kernels (row-wise or cluster-wise), as the chains of pcluster::ProductPlan (include/pcluster/
   product.hpp says which chain each type is and why).

   Symbolic: ProductPlan::symbolic() on zero-copy CsrViews of the operands gives C's pattern; C is
   built in place as a MATSEQAIJ that owns its arrays, assembled with zeros (a symbolic-only C must be
   usable), and the plan (clusters, transposes, intermediate products, ...) is kept in
   C->product->data for the numeric phase. Numeric: plan.numeric() into C's value array.
   MAT_REUSE_MATRIX runs only numeric. The operands' checks before a numeric phase (same patterns
   as the symbolic phase saw) are operands.cxx's.

   A's ordering and clusters (pcluster::LeftAnalysis) depend only on its pattern: they are kept on
   A, keyed by its nonzero state, and a later product with the same A and options takes them
   instead of recomputing them (-mat_cluster_reuse_analysis, default true): A*F for a new F at every
   level of a BFS, a PCGAMG re-setup with a new P. Only made when there is something to keep (an
   ordering or clusters).
*/
#include "petscclusterimpl.h"

#include <array>
#include <cstdlib>
#include <memory>
#include <vector>

namespace
{
/* C->product->data */
struct MatProductCluster_SeqAIJ {
  MatClusterProductBase base;
  MatClusterPlan        plan;
  pcluster::Count       nnz_c       = 0;
  PetscLogDouble        seconds_csr = 0;     /* building C's structure from the plan's CSR */
  bool                  numeric_ran = false; /* a numeric phase has run (not only values formed by symbolic) */
};

/*
   C's CSR arrays (owned by C through a composed container). The values must be zero after symbolic:
   calloc. It was an anonymous mmap (zero pages supplied on first touch, no memset), which forced
   fresh pages on every product; calloc takes the heap blocks the symbolic phase (or an earlier
   product) just freed, and zeroing resident memory costs 0.4 us per 4 KiB page here against 1.4 us
   for a first-touch fault (and glibc skips the memset where the block is fresh from the kernel).
   Measured with spgemm_bench, 1 thread, one-shot: 7-point n = 50 0.040 -> 0.033 s, 27-point n = 37
   0.107 -> 0.095 s, R-MAT scale 14 0.77 -> 0.69 s, peak of the 7-point product 50 -> 40 MB.
*/
struct CsrStorage {
  std::vector<PetscInt>    i, j;
  std::vector<PetscScalar> formed;    /* values the symbolic phase formed, adopted; else empty */
  PetscScalar             *a = nullptr; /* C's values: formed's, else zeroed by calloc */

  void allocate_values(size_t n)
  {
    a = static_cast<PetscScalar *>(std::calloc(n ? n : 1, sizeof(PetscScalar)));
    if (!a) throw std::bad_alloc();
  }
  void adopt_values(std::vector<PetscScalar> &&values)
  {
    formed = std::move(values);
    if (formed.empty()) formed.push_back(0); /* non-NULL array for an empty C */
    a = formed.data();
  }
  ~CsrStorage()
  {
    if (formed.empty()) std::free(a);
  }
};
} // namespace

/*
   Builds C in place as a MATSEQAIJ on the CSR arrays of storage (taken: C frees them) without
   copying them, assembled, new nonzero locations an error.

   Why not MatSeqAIJSetPreallocationCSR: measured on A*A for a 3D 27-point stencil (262144 rows,
   nnz(C) = 31M, 1 thread) it took 0.5-5.6 s against 0.8-4.5 s for our whole symbolic phase, and
   preallocation + MatSeqAIJSetColumnIndices still took ~40% of it (copy and zeroing touch 370 MB).
   Here C wraps the vectors symbolic filled and zeroed values (see CsrStorage): 0.08 s, nearly all of
   it MatCreateSeqAIJWithArrays' assembly (inode check).
*/
static PetscErrorCode MatSeqAIJSetStructure_Cluster(Mat C, PetscInt m, PetscInt n, PetscInt rbs, PetscInt cbs, std::unique_ptr<CsrStorage> &storage)
{
  Mat T = NULL;

  PetscFunctionBegin;
  PetscCall(MatClusterCreateOnStorage_Private(
    "MatClusterCsrStorage", storage.release(),
    [&](CsrStorage *s, Mat *t) -> PetscErrorCode {
      PetscCall(MatCreateSeqAIJWithArrays(PetscObjectComm((PetscObject)C), m, n, s->i.data(), s->j.data(), s->a, t));
      PetscCall(MatSetBlockSizes(*t, rbs, cbs));
      PetscCall(MatSetOption(*t, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
      return PETSC_SUCCESS;
    },
    &T));
  PetscCall(MatClusterAdoptStructure_Private(C, &T));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductDestroy_Cluster_SeqAIJ(void *data)
{
  PetscFunctionBegin;
  delete static_cast<MatProductCluster_SeqAIJ *>(data);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operands' zero-copy views */
static PetscErrorCode MatClusterOperandViews(const MatClusterOperands &ops, std::vector<MatClusterCsrView> *views)
{
  PetscFunctionBegin;
  views->resize((size_t)ops.n);
  for (int k = 0; k < ops.n; ++k) PetscCall(MatClusterSeqAIJGetCsrView_Private(ops.mats[k], ops.names[k], &(*views)[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductView_Cluster_SeqAIJ(Mat C, PetscViewer viewer)
{
  auto     *data = static_cast<MatProductCluster_SeqAIJ *>(C->product->data);
  PetscBool iascii;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !data) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-cluster MatProduct %s: algorithm %s\n", MatProductTypes[C->product->type], C->product->alg));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(MatClusterViewOptions_Private(viewer, data->plan.options()));
  PetscCall(MatClusterViewPlan_Private(viewer, "", data->plan));
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds: symbolic %g (all steps), building C %g; numeric runs %" PetscInt_FMT "\n", data->plan.seconds_symbolic(), data->seconds_csr, data->base.numeric_count));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The core's numeric phase into values (C's pattern: Cv), logged as MatClusterNum with its flops */
static PetscErrorCode MatClusterRunNumeric(Mat C, MatClusterPlan &plan, const MatClusterOperands &ops, const std::vector<MatClusterCsrView> &views, const MatClusterCsrView &Cv, PetscScalar *values)
{
  PetscFunctionBegin;
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, ops.mats[0], ops.mats[1], C, 0));
  PetscClusterCallCXX(PetscObjectComm((PetscObject)C), "numeric phase", plan.numeric(views, Cv, values));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)plan.flops()));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, ops.mats[0], ops.mats[1], C, 0));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_SeqAIJ_Cluster(Mat C)
{
  Mat_Product                   *product = C->product;
  MPI_Comm                       comm    = PetscObjectComm((PetscObject)C);
  MatClusterOperands             ops;
  std::vector<MatClusterCsrView> views;
  MatClusterCsrView              Cv;
  PetscScalar                   *ca = NULL;
  PetscBool                      current;

  PetscFunctionBegin;
  PetscCheck(product && product->data, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: the symbolic phase of this product is missing (was MatProductClear() called?)");
  auto *data = static_cast<MatProductCluster_SeqAIJ *>(product->data);
  PetscCall(MatClusterNumericBegin_Private(C, MATSEQAIJ, &data->base, &ops, &current));
  if (current) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatClusterOperandViews(ops, &views));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(C, "C", &Cv));
  PetscCheck(Cv.nnz() == data->nnz_c, comm, PETSC_ERR_ARG_INCOMP, "petsc-cluster: C (%" PetscInt_FMT "x%" PetscInt_FMT ", %" PetscInt64_FMT " nonzeros) no longer has the structure built by the symbolic phase (%" PetscInt64_FMT " nonzeros)", Cv.nrows, Cv.ncols, (PetscInt64)Cv.nnz(),
             (PetscInt64)data->nnz_c);
  Cv.values = NULL;

  PetscCall(MatSeqAIJGetArrayWrite(C, &ca));
  PetscCall(MatClusterRunNumeric(C, data->plan, ops, views, Cv, ca));
  PetscCall(MatSeqAIJRestoreArrayWrite(C, &ca));
  if (!data->numeric_ran) { /* the first numeric phase that ran: its workspace too */
    char what[128];
    data->numeric_ran = true;
    PetscCall(PetscSNPrintf(what, sizeof what, "%s %s", MatProductTypes[product->type], product->alg));
    PetscCall(MatClusterInfoNumeric_Private(C, what, data->plan));
  }
  data->base.numeric_count++;
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSymbolic_SeqAIJ_Cluster(Mat C)
{
  Mat_Product                      *product = C->product;
  MPI_Comm                          comm    = PetscObjectComm((PetscObject)C);
  MatClusterOperands                ops;
  std::vector<MatClusterCsrView>    views;
  MatClusterProductOptions          opts;
  std::array<PetscInt, 2>           dims;
  std::vector<pcluster::BlockSizes> bs;
  std::vector<PetscInt>             ci, cj;
  PetscInt                          rbs, cbs;
  PetscLogDouble                    t0, t1;
  char                              what[128];
  /* MatMatMult(), MatPtAP() & co. (api_user) run numeric right after symbolic with the same values,
     so the symbolic phase forms the values too (MatProductSymbolic() alone must leave zeros in C,
     and C is viewed at its assembly with what it holds): the core's symbolic phase forms the
     pattern, then its numeric phase writes C's values in place, before C is assembled. The core
     could form both in one pass, but it stages the values beside C's columns until C's row
     offsets are known, so C's values and their staging were both resident: measured with 1 thread,
     MatMatMult peaked at 1.5-2x C against 1.3x this way (e27 n=18 A*A: 122.7 MB against 79.5,
     PETSc's sorted 81.8; PCGAMG's elasticity A*P0: 8.5 MB against 5.7, sorted 4.3), in the same time
     or less (0.131 s against 0.130, 0.0142 against 0.0148).
     The fused PtAP is the exception: where its numeric phase goes by rows of C on one thread, its
     symbolic pass appends each row's values to a vector as it goes, which C adopts, so that A and P
     are walked once (else the core runs its numeric phase after the pass, into that vector). */
  const bool fuse = product->api_user;
  std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> a_analysis;

  PetscFunctionBegin;
  PetscCheck(!product->data, comm, PETSC_ERR_PLIB, "petsc-cluster: product data already set");
  PetscCall(MatClusterGetOperands_Private(C, MATSEQAIJ, &ops));
  const MatClusterProductTypeInfo *info = MatClusterProductTypeInfo_Private(product->type);
  PetscCall(MatClusterOperandViews(ops, &views));
  try {
    dims = pcluster::product_dimensions(info->core, views);
  } catch (const std::invalid_argument &e) {
    SETERRQ(comm, PETSC_ERR_ARG_SIZ, "petsc-cluster: %s", e.what());
  }
  for (int k = 0; k < ops.n; ++k) bs.push_back({(int)PetscAbs(ops.mats[k]->rmap->bs), (int)PetscAbs(ops.mats[k]->cmap->bs)});
  PetscCall(MatGetBlockSizes(product->A, &rbs, &cbs));
  PetscCall(MatClusterGetOptions_Private((PetscObject)C, product->alg, rbs, &opts));
  pcluster::SpgemmOptions &o = opts.spgemm;
  o.include_diagonal         = C->force_diagonals ? true : false; /* MAT_FORCE_DIAGONAL_ENTRIES, as PETSc's symbolic phases honour it */
  o.row_block_size           = bs[0].rows; /* A's block size: the row block size of the steps with A on the left (ProductPlan::symbolic) */
  if (opts.reuse_analysis) PetscCall(MatClusterAnalysisGet_Private(ops.mats[0], views[0], o, &a_analysis));

  std::unique_ptr<MatProductCluster_SeqAIJ> data;
  PetscClusterCallCXX(comm, "symbolic phase", data.reset(new MatProductCluster_SeqAIJ));
  /* Each operand checked (and checksummed for the numeric phases' stamps) once per pattern, here
     rather than by the core on every product */
  PetscCall(MatClusterStampOperands_Private(ops, o.num_threads, &data->base));
  o.check_operands = false;

  PetscCall(PetscLogEventBegin(MAT_ClusterSym, ops.mats[0], ops.mats[1], 0, 0));
  const bool               values_in_symbolic = fuse && info->core == pcluster::ProductType::PtAP && pcluster::fused_triple(info->core, o);
  std::vector<PetscScalar> cv;
  PetscClusterCallCXX(comm, "symbolic phase", data->plan = MatClusterPlan::symbolic(info->core, views, o, ci, cj, values_in_symbolic ? &cv : nullptr, bs, a_analysis));
  if (values_in_symbolic) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)data->plan.flops()));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, ops.mats[0], ops.mats[1], 0, 0));
  if (data->plan.seconds_clustering() > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, data->plan.seconds_clustering()));
  for (const pcluster::ProductStep &st : data->plan.steps())
    if (st.spgemm.seconds_ordering > 0) PetscCall(PetscClusterLogEventAddTime_Private(MatClusterOrderingEvent_Private(o.reorder), st.spgemm.seconds_ordering));
  if (opts.reuse_analysis && !a_analysis && (o.reorder != pcluster::OrderingType::Natural || o.kernel == pcluster::Kernel::Cluster)) {
    if (auto made = data->plan.a_analysis()) PetscCall(MatClusterAnalysisKeep_Private(ops.mats[0], std::move(made)));
  }
  if (a_analysis)
    PetscCall(PetscInfo(C, "petsc-cluster %s %s: A's ordering and clusters taken from an earlier product with the same A (where they cost %g s ordering, %g s clustering)\n", MatProductTypes[product->type], product->alg, a_analysis->seconds_ordering, a_analysis->seconds_clustering));
  data->nnz_c                     = (pcluster::Count)cj.size();

  /* C's arrays (values zero, from calloc: see CsrStorage), its values from a numeric phase when fused */
  std::unique_ptr<CsrStorage> storage;
  PetscClusterCallCXX(comm, "building C", {
    storage.reset(new CsrStorage);
    if (values_in_symbolic) storage->adopt_values(std::move(cv));
    else storage->allocate_values(cj.size());
    storage->i.swap(ci);
    storage->j.swap(cj);
    if (storage->j.empty()) storage->j.push_back(0); /* non-NULL array for an empty C */
  });
  if (fuse && !values_in_symbolic) {
    PetscCall(MatClusterRunNumeric(C, data->plan, ops, views, MatClusterCsrView{dims[0], dims[1], storage->i.data(), storage->j.data(), nullptr}, storage->a));
    data->numeric_ran = true;
  }
  data->base.values_from_symbolic = fuse;

  /* C in place: sizes, then type and structure (MatHeaderReplace replaces C->ops) */
  PetscCall(PetscTime(&t0));
  MatClusterResultBlockSizes_Private(info, ops.mats, &rbs, &cbs);
  PetscCall(MatSetSizes(C, dims[0], dims[1], dims[0], dims[1]));
  PetscCall(MatSeqAIJSetStructure_Cluster(C, dims[0], dims[1], rbs, cbs, storage));
  PetscCall(PetscTime(&t1));
  data->seconds_csr = t1 - t0;

  pcluster::Count nnz_in = 0;
  for (int k = 0; k < ops.n; ++k) nnz_in += views[k].nnz();
  C->info.fill_ratio_given  = product->fill;
  C->info.fill_ratio_needed = nnz_in ? (PetscReal)data->nnz_c / (PetscReal)nnz_in : 0;
  C->ops->productnumeric    = MatProductNumeric_SeqAIJ_Cluster; /* after MatHeaderReplace, which replaced C->ops */
  product->view             = MatProductView_Cluster_SeqAIJ;
  product->destroy          = MatClusterProductDestroyFn<MatProductDestroy_Cluster_SeqAIJ>();
  const auto *d             = data.get();
  product->data             = data.release();
  PetscCall(PetscSNPrintf(what, sizeof what, "%s %s", MatProductTypes[product->type], product->alg));
  PetscCall(MatClusterInfoPlan_Private(C, what, d->plan));
  if (d->numeric_ran) PetscCall(MatClusterInfoNumeric_Private(C, what, d->plan));
  PetscCall(PetscInfo(C, "petsc-cluster %s: symbolic %g s in all, building C %g s\n", what, d->plan.seconds_symbolic(), t1 - t0));
  PetscFunctionReturn(PETSC_SUCCESS);
}
