/*
   A product's operands, for both matrix types: which they are (re-read from C's product on every
   call), their zero-copy views, what the plugin has learnt of each pattern (records kept on the Mat,
   valid for one nonzero state), and the stamps that let a numeric phase prove it sees the patterns
   the symbolic phase saw.

   Before each numeric phase the operands are checked against their stamps: same object and nonzero
   state (cheap), otherwise the same local dimensions, nnz and pattern checksum (O(nnz), once per
   pattern). A changed pattern is an error on every rank, never an out-of-bounds write.
*/
#include "petscclusterimpl.h"

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <memory>

PetscErrorCode MatClusterGetOperands_Private(Mat C, MatType type, MatClusterOperands *ops)
{
  Mat_Product *product = C->product;
  const auto   info    = MatClusterProductTypeInfo_Private(product->type);

  PetscFunctionBegin;
  PetscCheck(info, PetscObjectComm((PetscObject)C), PETSC_ERR_SUP, "petsc-cluster: MatProduct type %s is not supported", MatProductTypes[product->type]);
  ops->n       = pcluster::operand_count(info->core);
  ops->mats[0] = product->A;
  ops->mats[1] = product->B;
  ops->mats[2] = ops->n == 3 ? product->C : NULL;
  for (int k = 0; k < ops->n; ++k) {
    PetscBool same;
    ops->names[k] = pcluster::operand_name(info->core, k);
    PetscCheck(ops->mats[k], PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_NULL, "petsc-cluster: operand %s of the product is missing", ops->names[k]);
    PetscCall(PetscObjectTypeCompare((PetscObject)ops->mats[k], type, &same));
    PetscCheck(same, PetscObjectComm((PetscObject)C), PETSC_ERR_ARG_WRONG, "petsc-cluster: operand %s must be %s (got %s)", ops->names[k], type, ((PetscObject)ops->mats[k])->type_name);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterCheckAssembled_Private(MPI_Comm comm, const MatClusterOperands &ops)
{
  int mine = ops.n, first;

  PetscFunctionBegin;
  for (int k = ops.n - 1; k >= 0; --k)
    if (!ops.mats[k]->assembled) mine = k;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(first == ops.n, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: matrix %s must be assembled (MatAssemblyBegin/End)", ops.names[first]);
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterSeqAIJGetCsrView_Private(Mat M, const char name[], MatClusterCsrView *v)
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
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position-weighted: detects a different pattern with equal nnz behind a new Mat object (a changed
   index changes the sum unless another change cancels it exactly). Unlike a chained hash (FNV), the
   terms are independent, so it vectorises and runs at memory speed: it is computed on every new
   pattern and must not show in a symbolic phase's cost. */
std::uint64_t MatClusterPatternChecksum_Private(const MatClusterCsrView &M, int threads)
{
  const pcluster::Count nnz = M.nnz();
  std::uint64_t         h   = 0x9E3779B97F4A7C15ull * (std::uint64_t)M.nrows + (std::uint64_t)M.ncols;
  for (PetscInt i = 0; i <= M.nrows; ++i) h += (std::uint64_t)(i + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)M.rowptr[i];
  std::uint64_t hc = 0;
#pragma omp parallel for reduction(+ : hc) schedule(static) num_threads(pcluster::threads_for_work(nnz, threads))
  for (pcluster::Count k = 0; k < nnz; ++k) hc += (std::uint64_t)(k + 1) * ((std::uint64_t)M.colidx[k] * 0x165667B19E3779F9ull + 1);
  return h ^ hc;
}

/* What says, without reading it, that a matrix's local pattern is the one seen before: PETSc's
   nonzero state, and the local entry count. The state alone is not enough: PETSc 3.22's MatCopy
   with DIFFERENT_NONZERO_PATTERN into a SeqAIJ adds entries without changing it. */
PetscErrorCode MatClusterPatternIdGet_Private(Mat M, MatClusterPatternId *id)
{
  MatInfo info;

  PetscFunctionBegin;
  PetscCall(MatGetNonzeroState(M, &id->nonzerostate));
  PetscCall(MatGetInfo(M, MAT_LOCAL, &info)); /* O(1) for SeqAIJ and MPIAIJ */
  id->nnz = (PetscInt64)info.nz_used;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- records kept on an operand Mat (PetscObjectCompose of a PetscContainer), each valid for the
   pattern it was made at: a matrix used in many products (A at every BFS level, A and P across
   AMG re-setups) does not pay for them again */
template <class T>
static PetscErrorCode MatClusterRecordSet(Mat M, const char key[], std::unique_ptr<T> record)
{
  PetscContainer container;

  PetscFunctionBegin;
  PetscCall(MatClusterPatternIdGet_Private(M, &record->pattern));
  PetscCall(PetscContainerCreate(PetscObjectComm((PetscObject)M), &container));
  PetscCall(PetscContainerSetPointer(container, record.release()));
  PetscCall(MatClusterContainerSetDelete<T>(container));
  PetscCall(PetscObjectCompose((PetscObject)M, key, (PetscObject)container));
  PetscCall(PetscContainerDestroy(&container));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The record under key if it was made at M's current pattern, else NULL */
template <class T>
static PetscErrorCode MatClusterRecordGet(Mat M, const char key[], const T **record)
{
  PetscContainer      container = NULL;
  MatClusterPatternId now;
  void               *ptr;

  PetscFunctionBegin;
  *record = NULL;
  PetscCall(PetscObjectQuery((PetscObject)M, key, (PetscObject *)&container));
  if (!container) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscContainerGetPointer(container, &ptr));
  PetscCall(MatClusterPatternIdGet_Private(M, &now));
  if (static_cast<const T *>(ptr)->pattern == now) *record = static_cast<const T *>(ptr);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operand's pattern was validated (sorted, unique, in range) and checksummed */
struct MatClusterPatternRecord {
  MatClusterPatternId pattern;
  std::uint64_t       checksum;
};
static const char MatClusterPatternKey[] = "petsc_cluster_pattern";

PetscErrorCode MatClusterValidatedChecksum_Private(Mat M, const char name[], const MatClusterCsrView &v, int threads, std::uint64_t *checksum)
{
  const MatClusterPatternRecord *known;

  PetscFunctionBegin;
  PetscCall(MatClusterRecordGet(M, MatClusterPatternKey, &known));
  if (known) {
    *checksum = known->checksum;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscClusterCallCXX(PetscObjectComm((PetscObject)M), "operand check", pcluster::validate(v, name));
  auto record      = std::make_unique<MatClusterPatternRecord>();
  record->checksum = *checksum = MatClusterPatternChecksum_Private(v, threads);
  PetscCall(MatClusterRecordSet(M, MatClusterPatternKey, std::move(record)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* A's LeftAnalysis (ordering, working-copy pattern, clusters) */
struct MatClusterAnalysisRecord {
  MatClusterPatternId                                     pattern;
  std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> analysis;
};
static const char MatClusterAnalysisKey[] = "petsc_cluster_a_analysis";

PetscErrorCode MatClusterAnalysisGet_Private(Mat A, const MatClusterCsrView &v, const pcluster::SpgemmOptions &opts, std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> *analysis)
{
  const MatClusterAnalysisRecord *known;

  PetscFunctionBegin;
  analysis->reset();
  PetscCall(MatClusterRecordGet(A, MatClusterAnalysisKey, &known));
  if (known && known->analysis->fits(v.nrows, v.ncols, v.nnz(), opts)) *analysis = known->analysis;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterAnalysisKeep_Private(Mat A, std::shared_ptr<const pcluster::LeftAnalysis<PetscInt>> analysis)
{
  PetscFunctionBegin;
  auto record      = std::make_unique<MatClusterAnalysisRecord>();
  record->analysis = std::move(analysis);
  PetscCall(MatClusterRecordSet(A, MatClusterAnalysisKey, std::move(record)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ---- stamps */
PetscErrorCode MatClusterStamp_Private(Mat M, const char name[], int threads, MatClusterOperandStamp *s)
{
  PetscBool mpi;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)M, MATMPIAIJ, &mpi));
  s->mat = M;
  PetscCall(MatClusterPatternIdGet_Private(M, &s->pattern));
  PetscCall(PetscObjectStateGet((PetscObject)M, &s->state));
  s->nrows = M->rmap->n;
  s->ncols = M->cmap->n;
  if (!mpi) {
    MatClusterCsrView v;
    PetscCall(MatClusterSeqAIJGetCsrView_Private(M, name, &v));
    PetscCall(MatClusterValidatedChecksum_Private(M, name, v, threads, &s->checksum));
  } else { /* the diagonal and off-diagonal blocks, each checksummed once per pattern, and the ghost columns */
    Mat               Ad, Ao;
    const PetscInt   *garray;
    MatClusterCsrView d, o;
    std::uint64_t     hd, ho;
    PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, &garray));
    PetscCall(MatClusterSeqAIJGetCsrView_Private(Ad, "diagonal block", &d));
    PetscCall(MatClusterSeqAIJGetCsrView_Private(Ao, "off-diagonal block", &o));
    PetscCall(MatClusterValidatedChecksum_Private(Ad, "diagonal block", d, threads, &hd));
    PetscCall(MatClusterValidatedChecksum_Private(Ao, "off-diagonal block", o, threads, &ho));
    std::uint64_t h = hd * 0x9E3779B97F4A7C15ull + ho;
    for (PetscInt c = 0; c < o.ncols; ++c) h += (std::uint64_t)(c + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)garray[c];
    s->checksum = h;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterStampOperands_Private(const MatClusterOperands &ops, int threads, MatClusterProductBase *base)
{
  PetscFunctionBegin;
  base->nops    = ops.n;
  base->threads = threads;
  for (int k = 0; k < ops.n; ++k) PetscCall(MatClusterStamp_Private(ops.mats[k], ops.names[k], threads, &base->stamp[k]));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective: an error on every rank if any operand's pattern differs from its stamp on any rank */
static PetscErrorCode MatClusterCheckStamps(MPI_Comm comm, const MatClusterOperands &ops, const MatClusterProductBase &base)
{
  PetscMPIInt            changed = -1, any, size;
  MatClusterOperandStamp now;

  PetscFunctionBegin;
  for (int k = 0; k < ops.n && changed < 0; ++k) {
    const MatClusterOperandStamp &s = base.stamp[k];
    MatClusterPatternId           id;
    PetscCall(MatClusterPatternIdGet_Private(ops.mats[k], &id));
    if (ops.mats[k] == s.mat && id == s.pattern) continue;
    PetscCall(MatClusterStamp_Private(ops.mats[k], ops.names[k], base.threads, &now));
    if (now.nrows != s.nrows || now.ncols != s.ncols || now.pattern.nnz != s.pattern.nnz || now.checksum != s.checksum) changed = k;
  }
  PetscCallMPI(MPI_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, comm));
  if (any < 0) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (changed == any)
    SETERRQ(comm, PETSC_ERR_ARG_INCOMP,
            "petsc-cluster: the nonzero pattern of %s changed since the symbolic phase (%s%" PetscInt_FMT "x%" PetscInt_FMT " with %" PetscInt64_FMT " nonzeros then, %" PetscInt_FMT "x%" PetscInt_FMT " with %" PetscInt64_FMT " now); MAT_REUSE_MATRIX needs the same pattern, use MAT_INITIAL_MATRIX",
            ops.names[any], size > 1 ? "local rows and columns on this rank: " : "", base.stamp[any].nrows, base.stamp[any].ncols, base.stamp[any].pattern.nnz, now.nrows, now.ncols, now.pattern.nnz);
  SETERRQ(comm, PETSC_ERR_ARG_INCOMP, "petsc-cluster: the nonzero pattern of %s changed since the symbolic phase; MAT_REUSE_MATRIX needs the same pattern, use MAT_INITIAL_MATRIX", ops.names[any]);
}

PetscErrorCode MatClusterNumericBegin_Private(Mat C, MatType type, MatClusterProductBase *base, MatClusterOperands *ops, PetscBool *current)
{
  MPI_Comm comm = PetscObjectComm((PetscObject)C);

  PetscFunctionBegin;
  *current = PETSC_FALSE;
  PetscCall(MatClusterGetOperands_Private(C, type, ops));
  PetscCheck(ops->n == base->nops, comm, PETSC_ERR_PLIB, "petsc-cluster: operand count changed");
  PetscCall(MatClusterCheckAssembled_Private(comm, *ops));
  PetscCall(MatClusterCheckStamps(comm, *ops, *base));
  if (base->values_from_symbolic) { /* first numeric after a fused symbolic phase */
    PetscBool unchanged = PETSC_TRUE;
    base->values_from_symbolic = false;
    for (int k = 0; k < ops->n; ++k) {
      PetscObjectState s;
      PetscCall(PetscObjectStateGet((PetscObject)ops->mats[k], &s));
      if (ops->mats[k] != base->stamp[k].mat || s != base->stamp[k].state) unchanged = PETSC_FALSE;
    }
    PetscCallMPI(MPI_Allreduce(&unchanged, current, 1, MPIU_BOOL, MPI_LAND, comm));
    if (*current) {
      PetscCall(PetscInfo(C, "petsc-cluster: values already formed by the symbolic phase, operands unchanged since\n"));
      base->numeric_count++;
    }
  }
#if defined(PCLUSTER_FAULT_INJECTION)
  { /* negative control (src/fault_injection.hpp): the plugin's own reuse skips the kernels after a first numeric phase */
    const char *fault = std::getenv("PCLUSTER_FAULT");
    if (!*current && base->numeric_count > 0 && fault && !std::strcmp(fault, "stale")) {
      PetscCall(PetscInfo(C, "petsc-cluster: PCLUSTER_FAULT=stale: numeric phase skipped\n"));
      base->numeric_count++;
      PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY)); /* as a numeric phase ends, only the values are old */
      PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
      *current = PETSC_TRUE;
    }
  }
#endif
  PetscFunctionReturn(PETSC_SUCCESS);
}
