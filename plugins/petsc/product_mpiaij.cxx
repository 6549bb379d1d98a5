/*
   Every MatProduct type for MATMPIAIJ operands. Each rank runs the core's kernels (row-wise or
   cluster-wise, with its OpenMP threads) on local pieces made by PETSc's public MPI building blocks,
   and PETSc's COO assembly puts the result together. No message passing of our own:

     A*B      C_loc  = A_cond * B_rows: A_cond is A's local rows on their nonzero columns
              (MatMPIAIJGetLocalMatCondensed), B_rows the rows of B for those columns, local or
              remote (MatGetBrowsOfAcols). C_loc's rows are this rank's rows of C.
     A^T*B    C_part = A_cond^T * B_loc (B's local rows, MatMPIAIJGetLocalMat); C_part's rows are
              A's columns, owned by any rank.
     P^T*A*P  C_part = P_cond^T * (A_cond * P_rows).
     A*B^T    A*B with B^T from MatTranspose, as PETSc's own MPI algorithm does.
     R*A*R^T  P^T*A*P with P = R^T from MatTranspose (PETSc forms R*(A*R^T); same pattern).
     A*B*C    A*(BC), BC an MPIAIJ made by the A*B path (data->inner).

   Fetched rows carry global column numbers; they are renumbered 0..k-1 in increasing order before
   the core sees them (rows stay sorted), so its per-thread workspace scales with the columns this
   rank touches, not with the global size.

   C's structure is MatSetPreallocationCOO with the global (row, column) of every local result entry:
   PETSc sums the entries that land on one place, from this rank or another (P^T A P, A^T B). A
   numeric phase refreshes the pieces' values with MAT_REUSE_MATRIX of the same PETSc calls (the
   fetched-row structure and its communication pattern are kept), reruns the core's numeric phases
   (plans, clusters and orderings are kept) and hands the values to MatSetValuesCOO, which is the
   value exchange.

   As on SeqAIJ: MatMatMult() & co. form the values in the symbolic phase (fused); every operand is
   stamped (object, nonzero state, local pattern hash) so that a numeric phase on a changed pattern
   is an error on every rank, never an out-of-bounds write.
*/
#include "petscclusterimpl.h"

#include <algorithm>
#include <memory>
#include <vector>

namespace
{
using Plan    = pcluster::ProductPlan<PetscInt, PetscScalar>;
using CsrView = pcluster::CsrView<PetscInt, PetscScalar>;

/* A local result of the core (renumbered columns) */
struct LocalCsr {
  PetscInt                 nrows = 0, ncols = 0;
  std::vector<PetscInt>    rowptr{0}, colidx;
  std::vector<PetscScalar> values;
  CsrView                  view() const
  {
    CsrView v;
    v.nrows  = nrows;
    v.ncols  = ncols;
    v.rowptr = rowptr.data();
    v.colidx = colidx.data();
    v.values = values.data();
    return v;
  }
};

/* Rows of an MPIAIJ as a SeqAIJ with global column numbers (made by PETSc), and those columns
   renumbered 0..k-1 in increasing global order */
struct GlobalRows {
  Mat                   seq  = nullptr;
  IS                    rows = nullptr, cols = nullptr; /* MatGetBrowsOfAcols' index sets, for MAT_REUSE_MATRIX */
  std::vector<PetscInt> colidx;                         /* renumbered */
  std::vector<PetscInt> global;                         /* renumbered -> global column */
};

struct OperandStamp {
  Mat              mat     = nullptr; /* identity only, not referenced */
  PetscObjectState nzstate = 0, state = 0;
  PetscInt         m = 0, n = 0;
  PetscInt64       nnz  = 0;
  std::uint64_t    hash = 0;
};
} // namespace

/* C->product->data; also the inner product B*C of A*B*C */
struct MatProductCluster_MPIAIJ {
  MatProductType type = MATPRODUCT_UNSPECIFIED;
  Mat            aux  = nullptr;                   /* ABt: B^T, RARt: R^T (MatTranspose); ABC: B*C */
  std::unique_ptr<MatProductCluster_MPIAIJ> inner; /* ABC: the product that forms aux */
  Mat            a_cond = nullptr;                 /* A's local rows on their nonzero columns */
  Mat            p_cond = nullptr;                 /* PtAP, RARt: P's local rows likewise (the left factor of P^T (AP)) */
  GlobalRows     right;                            /* rows of B (P) for a_cond's columns; AtB: B's local rows */
  bool           has_ab = false, has_at = false;   /* which local products run */
  Plan           ab_plan, at_plan;                 /* a_cond * right; X^T * Y (AtB: a_cond^T right, PtAP: p_cond^T ab) */
  LocalCsr       ab, at;
  std::vector<PetscScalar> coo_values;             /* the result's values, then zeros for forced diagonal entries */
  OperandStamp   stamp[3];
  int            nops = 0;
  bool           values_from_symbolic = false;
  PetscInt       numeric_count        = 0;
  PetscLogDouble seconds_fetch = 0, seconds_local = 0, seconds_assembly = 0; /* symbolic phase, this rank */

  const LocalCsr &result() const { return has_at ? at : ab; }
};

static PetscErrorCode MatProductClusterMPIDestroy(MatProductCluster_MPIAIJ *d)
{
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  if (d->inner) PetscCall(MatProductClusterMPIDestroy(d->inner.release()));
  PetscCall(MatDestroy(&d->aux));
  PetscCall(MatDestroy(&d->a_cond));
  PetscCall(MatDestroy(&d->p_cond));
  PetscCall(MatDestroy(&d->right.seq));
  PetscCall(ISDestroy(&d->right.rows));
  PetscCall(ISDestroy(&d->right.cols));
  delete d;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductDestroy_Cluster_MPIAIJ(void *data)
{
  PetscFunctionBegin;
  PetscCall(MatProductClusterMPIDestroy(static_cast<MatProductCluster_MPIAIJ *>(data)));
  PetscFunctionReturn(0);
}

/*
   Renumbers the global columns of M: the columns this rank owns in the column layout ([cstart, cend))
   keep one contiguous block (most columns map by an offset), the others are sorted and placed before
   or after it, so increasing global order is kept.
*/
static void MatClusterRenumberColumns(const CsrView &M, PetscInt cstart, PetscInt cend, std::vector<PetscInt> &colidx, std::vector<PetscInt> &global)
{
  const pcluster::Count nnz = M.nnz();
  std::vector<PetscInt> ghosts;
  for (pcluster::Count k = 0; k < nnz; ++k)
    if (M.colidx[k] < cstart || M.colidx[k] >= cend) ghosts.push_back(M.colidx[k]);
  std::sort(ghosts.begin(), ghosts.end());
  ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
  const auto     high  = std::lower_bound(ghosts.begin(), ghosts.end(), cstart);
  const PetscInt nlow  = (PetscInt)(high - ghosts.begin());
  const PetscInt nown  = cend - cstart;
  global.resize(ghosts.size() + (size_t)nown);
  std::copy(ghosts.begin(), high, global.begin());
  for (PetscInt c = 0; c < nown; ++c) global[nlow + c] = cstart + c;
  std::copy(high, ghosts.end(), global.begin() + nlow + nown);
  colidx.resize((size_t)nnz);
  const PetscInt *g = ghosts.data();
  const PetscInt  ng = (PetscInt)ghosts.size();
#pragma omp parallel for schedule(static) if (nnz > 65536)
  for (pcluster::Count k = 0; k < nnz; ++k) {
    const PetscInt c = M.colidx[k];
    if (c >= cstart && c < cend) colidx[k] = nlow + (c - cstart);
    else if (c < cstart) colidx[k] = (PetscInt)(std::lower_bound(g, g + nlow, c) - g);
    else colidx[k] = nown + (PetscInt)(std::lower_bound(g + nlow, g + ng, c) - g);
  }
}

/* The renumbered rows as the core's operand: PETSc's values, our column numbers */
static PetscErrorCode MatClusterGlobalRowsView(const GlobalRows &r, const char name[], CsrView *v)
{
  PetscFunctionBegin;
  PetscCall(MatSeqAIJGetCsrView_Cluster(r.seq, name, v));
  v->ncols  = (PetscInt)r.global.size();
  v->colidx = r.colidx.data();
  PetscFunctionReturn(0);
}

/* Local-pattern stamp of an MPIAIJ operand (diagonal and off-diagonal blocks, ghost columns) */
static PetscErrorCode MatClusterStampMPIAIJ(Mat M, OperandStamp *s)
{
  Mat             Ad, Ao;
  const PetscInt *garray;
  CsrView         vd, vo;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, &garray));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Ad, "diagonal block", &vd));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Ao, "off-diagonal block", &vo));
  std::uint64_t h = MatClusterPatternHashOf_Private(vd) * 0x9E3779B97F4A7C15ull + MatClusterPatternHashOf_Private(vo);
  for (PetscInt c = 0; c < vo.ncols; ++c) h += (std::uint64_t)(c + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)garray[c];
  s->mat = M;
  PetscCall(MatGetNonzeroState(M, &s->nzstate));
  PetscCall(PetscObjectStateGet((PetscObject)M, &s->state));
  s->m    = M->rmap->n;
  s->n    = M->cmap->n;
  s->nnz  = vd.nnz() + vo.nnz();
  s->hash = h;
  PetscFunctionReturn(0);
}

/* Collective: errors on every rank if any operand's pattern differs from the symbolic phase's */
static PetscErrorCode MatClusterCheckStampsMPIAIJ(MPI_Comm comm, int nops, const Mat mats[], const char *const names[], const OperandStamp stamps[])
{
  PetscBool moved = PETSC_FALSE;

  PetscFunctionBegin;
  for (int k = 0; k < nops; ++k) {
    PetscObjectState nz;
    PetscCall(MatGetNonzeroState(mats[k], &nz)); /* agreed on by all ranks at assembly */
    if (mats[k] != stamps[k].mat || nz != stamps[k].nzstate) moved = PETSC_TRUE;
  }
  if (!moved) PetscFunctionReturn(0);
  PetscMPIInt changed = -1, any;
  for (int k = 0; k < nops && changed < 0; ++k) {
    OperandStamp now;
    PetscCall(MatClusterStampMPIAIJ(mats[k], &now));
    if (now.m != stamps[k].m || now.n != stamps[k].n || now.nnz != stamps[k].nnz || now.hash != stamps[k].hash) changed = k;
  }
  PetscCall(MPIU_Allreduce(&changed, &any, 1, MPI_INT, MPI_MAX, comm));
  PetscCheck(any < 0, comm, PETSC_ERR_ARG_INCOMP, "petsc-cluster: the nonzero pattern of %s changed since the symbolic phase; MAT_REUSE_MATRIX needs the same pattern, use MAT_INITIAL_MATRIX", names[any]);
  PetscFunctionReturn(0);
}

/* Collective check that two layouts agree (global size and this rank's range, on every rank) */
static PetscErrorCode MatClusterCheckLayouts(MPI_Comm comm, PetscLayout a, const char aname[], PetscLayout b, const char bname[], MatProductType type)
{
  PetscBool ok = (PetscBool)(a->N == b->N && a->rstart == b->rstart && a->rend == b->rend), all;

  PetscFunctionBegin;
  PetscCall(MPIU_Allreduce(&ok, &all, 1, MPIU_BOOL, MPI_LAND, comm));
  PetscCheck(all, comm, PETSC_ERR_ARG_SIZ, "petsc-cluster %s: the %s (global %" PetscInt_FMT ") and the %s (global %" PetscInt_FMT ") must have the same size and parallel layout (this rank: [%" PetscInt_FMT ", %" PetscInt_FMT ") and [%" PetscInt_FMT ", %" PetscInt_FMT "))",
             MatProductTypes[type], aname, a->N, bname, b->N, a->rstart, a->rend, b->rstart, b->rend);
  PetscFunctionReturn(0);
}

/* Rows of `right` for the nonzero columns of A's local rows (MatGetBrowsOfAcols), renumbered */
static PetscErrorCode MatClusterFetchRows(Mat A, Mat right, MatReuse reuse, GlobalRows *r)
{
  CsrView v;

  PetscFunctionBegin;
  PetscCall(MatGetBrowsOfAcols(A, right, reuse, &r->rows, &r->cols, &r->seq));
  if (reuse == MAT_INITIAL_MATRIX) {
    PetscCall(MatSeqAIJGetCsrView_Cluster(r->seq, "fetched rows", &v));
    PetscClusterCallCXX(PetscObjectComm((PetscObject)A), "renumbering columns", MatClusterRenumberColumns(v, right->cmap->rstart, right->cmap->rend, r->colidx, r->global));
  }
  PetscFunctionReturn(0);
}

/* B's local rows (MatMPIAIJGetLocalMat), renumbered */
static PetscErrorCode MatClusterLocalRows(Mat B, MatReuse reuse, GlobalRows *r)
{
  CsrView v;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetLocalMat(B, reuse, &r->seq));
  if (reuse == MAT_INITIAL_MATRIX) {
    PetscCall(MatSeqAIJGetCsrView_Cluster(r->seq, "local rows", &v));
    PetscClusterCallCXX(PetscObjectComm((PetscObject)B), "renumbering columns", MatClusterRenumberColumns(v, B->cmap->rstart, B->cmap->rend, r->colidx, r->global));
  }
  PetscFunctionReturn(0);
}

/* Global ids of the condensed columns of a MatMPIAIJGetLocalMatCondensed() result */
static PetscErrorCode MatClusterCondensedColumns(Mat cond, const PetscInt **ids)
{
  IS is = NULL;

  PetscFunctionBegin;
  PetscCall(PetscObjectQuery((PetscObject)cond, "_petsc_GetLocalMatCondensed_iscol", (PetscObject *)&is));
  PetscCheck(is, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-cluster: no column index set on the condensed local matrix");
  PetscCall(ISGetIndices(is, ids)); /* ISGeneral: a pointer to its array, no copy to restore */
  PetscCall(ISRestoreIndices(is, ids));
  PetscFunctionReturn(0);
}

/* The global (row, column) of every entry of a local result */
static void MatClusterCooIndices(const LocalCsr &r, const PetscInt *row_ids, PetscInt rbase, const std::vector<PetscInt> &col_ids, std::vector<PetscInt> &ci, std::vector<PetscInt> &cj)
{
  ci.resize(r.colidx.size());
  cj.resize(r.colidx.size());
#pragma omp parallel for schedule(static) if (r.nrows > 1024)
  for (PetscInt i = 0; i < r.nrows; ++i) {
    const PetscInt gi = row_ids ? row_ids[i] : rbase + i;
    for (PetscInt k = r.rowptr[i]; k < r.rowptr[i + 1]; ++k) {
      ci[k] = gi;
      cj[k] = col_ids[r.colidx[k]];
    }
  }
}

/* The operand whose rows the A*B step fetches (B, B^T, R^T or B*C), made or refreshed */
static PetscErrorCode MatClusterRightOperand(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions *opts, bool fuse, bool initial, Mat *right);
static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, MatProductType type, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, Mat out);
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, Mat out);

static PetscErrorCode MatClusterRightOperand(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions *opts, bool fuse, bool initial, Mat *right)
{
  PetscFunctionBegin;
  (void)A;
  switch (d->type) {
  case MATPRODUCT_ABt:
  case MATPRODUCT_RARt:
    /* MatTranspose(MAT_REUSE_MATRIX) only refreshes the transpose of the very same matrix */
    if (!initial && d->aux && d->stamp[1].mat == B) PetscCall(MatTranspose(B, MAT_REUSE_MATRIX, &d->aux));
    else {
      PetscCall(MatDestroy(&d->aux));
      PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &d->aux));
    }
    *right = d->aux;
    break;
  case MATPRODUCT_ABC:
    if (initial) {
      PetscCall(MatCreate(PetscObjectComm((PetscObject)B), &d->aux));
      PetscClusterCallCXX(PetscObjectComm((PetscObject)B), "symbolic phase", d->inner.reset(new MatProductCluster_MPIAIJ));
      PetscCall(MatClusterMPIProductSymbolic(d->inner.get(), MATPRODUCT_AB, B, C3, NULL, *opts, fuse, false, d->aux));
    } else PetscCall(MatClusterMPIProductNumeric(d->inner.get(), B, C3, NULL, d->aux));
    *right = d->aux;
    break;
  default:
    *right = B; /* AB, PtAP (B is P); AtB uses B's local rows */
  }
  PetscFunctionReturn(0);
}

/*
   Builds `out` (sizes, type MATMPIAIJ, COO structure; values too when fuse, zeros otherwise) as the
   product `type` of A, B (and C3 for ABC), and the plans to refresh it.
*/
static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, MatProductType type, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, Mat out)
{
  MPI_Comm                          comm = PetscObjectComm((PetscObject)A);
  Mat                               right = NULL, P = NULL;
  CsrView                           va, vr, vp;
  const PetscInt                   *row_ids = NULL; /* result row -> global row; NULL: this rank's rows of A */
  PetscInt                          m, n, M, N;
  PetscLogDouble                    t0, t1, t2, t3;
  std::vector<pcluster::BlockSizes> bs(2);
  const auto                        bsof = [](Mat X) { return pcluster::BlockSizes{(int)PetscAbs(X->rmap->bs), (int)PetscAbs(X->cmap->bs)}; };

  PetscFunctionBegin;
  d->type = type;
  d->nops = type == MATPRODUCT_ABC ? 3 : 2;
  {
    Mat ops[3] = {A, B, C3};
    for (int k = 0; k < d->nops; ++k) PetscCall(MatClusterStampMPIAIJ(ops[k], &d->stamp[k]));
  }
  PetscCall(PetscTime(&t0));
  PetscCall(MatClusterRightOperand(d, A, B, C3, &opts, fuse, true, &right));
  d->has_ab = type != MATPRODUCT_AtB;
  d->has_at = type == MATPRODUCT_AtB || type == MATPRODUCT_PtAP || type == MATPRODUCT_RARt;
  if (type == MATPRODUCT_PtAP || type == MATPRODUCT_RARt) P = right;

  /* The local pieces */
  PetscCall(MatMPIAIJGetLocalMatCondensed(A, MAT_INITIAL_MATRIX, NULL, NULL, &d->a_cond));
  PetscCall(MatSeqAIJGetCsrView_Cluster(d->a_cond, "A", &va));
  if (d->has_ab) PetscCall(MatClusterFetchRows(A, right, MAT_INITIAL_MATRIX, &d->right));
  else PetscCall(MatClusterLocalRows(B, MAT_INITIAL_MATRIX, &d->right));
  PetscCall(MatClusterGlobalRowsView(d->right, "B", &vr));
  if (P) {
    PetscCall(MatMPIAIJGetLocalMatCondensed(P, MAT_INITIAL_MATRIX, NULL, NULL, &d->p_cond));
    PetscCall(MatSeqAIJGetCsrView_Cluster(d->p_cond, "P", &vp));
  }
  PetscCall(PetscTime(&t1));

  /* The local products (the operands are PETSc's assembled pieces: sorted, in range) */
  pcluster::SpgemmOptions o = opts;
  o.check_operands          = false;
  o.include_diagonal        = false; /* a global diagonal: added below as COO entries */
  PetscCall(PetscLogEventBegin(MAT_ClusterSym, A, B, 0, 0));
  if (d->has_ab) {
    bs[0] = bsof(A);
    bs[1] = bsof(right);
    PetscClusterCallCXX(comm, "symbolic phase", {
      d->ab_plan  = Plan::symbolic(pcluster::ProductType::AB, {va, vr}, o, d->ab.rowptr, d->ab.colidx, fuse ? &d->ab.values : nullptr, bs);
      d->ab.nrows = va.nrows;
      d->ab.ncols = vr.ncols;
      if (!fuse) d->ab.values.assign(d->ab.colidx.size(), 0);
    });
  }
  if (d->has_at) {
    const CsrView x = P ? vp : va, y = P ? d->ab.view() : vr;
    bs[0]           = bsof(P ? P : A);
    bs[1]           = P ? bsof(right) : bsof(B);
    PetscClusterCallCXX(comm, "symbolic phase", {
      d->at_plan  = Plan::symbolic(pcluster::ProductType::AtB, {x, y}, o, d->at.rowptr, d->at.colidx, fuse ? &d->at.values : nullptr, bs);
      d->at.nrows = x.ncols;
      d->at.ncols = y.ncols;
      if (!fuse) d->at.values.assign(d->at.colidx.size(), 0);
    });
    PetscCall(MatClusterCondensedColumns(P ? d->p_cond : d->a_cond, &row_ids));
  }
  if (fuse) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab ? d->ab_plan.flops() : 0) + (d->has_at ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, A, B, 0, 0));
  {
    PetscLogDouble tc = (d->has_ab ? d->ab_plan.seconds_clustering() : 0) + (d->has_at ? d->at_plan.seconds_clustering() : 0);
    if (tc > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, tc));
  }
  PetscCall(PetscTime(&t2));

  /* The result's sizes, as PETSc's algorithms make them */
  switch (type) {
  case MATPRODUCT_AtB:
    m = A->cmap->n, M = A->cmap->N, n = B->cmap->n, N = B->cmap->N;
    break;
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    m = n = P->cmap->n, M = N = P->cmap->N;
    break;
  default: /* AB, ABt, ABC: A's rows, the right operand's columns */
    m = A->rmap->n, M = A->rmap->N, n = right->cmap->n, N = right->cmap->N;
  }

  /* COO: every local entry with its global row and column; forced diagonal entries appended (zero) */
  const LocalCsr &r     = d->result();
  const PetscInt  rbase = A->rmap->rstart;
  PetscCount      ncoo  = (PetscCount)r.colidx.size();
  std::vector<PetscInt> ci, cj;
  PetscClusterCallCXX(comm, "assembling C", MatClusterCooIndices(r, row_ids, rbase, d->right.global, ci, cj); d->coo_values = r.values);
  PetscCall(MatSetSizes(out, m, n, M, N));
  {
    Mat_Product *keep = out->product;
    PetscInt     rbs, cbs;
    if (keep) MatClusterResultBlockSizes_Private(out, &rbs, &cbs);
    else rbs = PetscAbs(A->rmap->bs), cbs = PetscAbs(right->cmap->bs); /* ABC's inner B*C */
    PetscCall(MatSetBlockSizes(out, rbs, cbs));
  }
  PetscCall(MatSetType(out, MATMPIAIJ));
  PetscCall(PetscLayoutSetUp(out->rmap));
  if (force_diagonal) { /* MAT_FORCE_DIAGONAL_ENTRIES, honoured by PETSc's MPI A*B on its rows of C */
    const PetscInt rstart = out->rmap->rstart, rend = out->rmap->rend;
    PetscClusterCallCXX(comm, "assembling C", {
      for (PetscInt g = rstart; g < rend && g < N; ++g) {
        ci.push_back(g);
        cj.push_back(g);
        d->coo_values.push_back(0);
      }
    });
    ncoo = (PetscCount)ci.size();
  }
  PetscCall(MatSetPreallocationCOO(out, ncoo, ci.data(), cj.data()));
  PetscCall(MatSetValuesCOO(out, d->coo_values.data(), INSERT_VALUES));
  PetscCall(MatSetOption(out, MAT_NEW_NONZERO_LOCATION_ERR, PETSC_TRUE));
  PetscCall(PetscTime(&t3));
  d->seconds_fetch        = t1 - t0;
  d->seconds_local        = t2 - t1;
  d->seconds_assembly     = t3 - t2;
  d->values_from_symbolic = fuse;
  PetscFunctionReturn(0);
}

/* Refreshes `out`'s values from A, B (C3): the pieces, the local products, the COO exchange */
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, Mat out)
{
  MPI_Comm comm  = PetscObjectComm((PetscObject)A);
  Mat      right = NULL, P = NULL;
  CsrView  va, vr, vp;

  PetscFunctionBegin;
  PetscCall(MatClusterRightOperand(d, A, B, C3, NULL, false, false, &right));
  if (d->type == MATPRODUCT_PtAP || d->type == MATPRODUCT_RARt) P = right;
  PetscCall(MatMPIAIJGetLocalMatCondensed(A, MAT_REUSE_MATRIX, NULL, NULL, &d->a_cond));
  PetscCall(MatSeqAIJGetCsrView_Cluster(d->a_cond, "A", &va));
  if (d->has_ab) PetscCall(MatClusterFetchRows(A, right, MAT_REUSE_MATRIX, &d->right));
  else PetscCall(MatClusterLocalRows(B, MAT_REUSE_MATRIX, &d->right));
  PetscCall(MatClusterGlobalRowsView(d->right, "B", &vr));
  if (P) {
    PetscCall(MatMPIAIJGetLocalMatCondensed(P, MAT_REUSE_MATRIX, NULL, NULL, &d->p_cond));
    PetscCall(MatSeqAIJGetCsrView_Cluster(d->p_cond, "P", &vp));
  }
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, A, B, out, 0));
  if (d->has_ab) PetscClusterCallCXX(comm, "numeric phase", d->ab_plan.numeric({va, vr}, d->ab.view(), d->ab.values.data()));
  if (d->has_at) PetscClusterCallCXX(comm, "numeric phase", d->at_plan.numeric({P ? vp : va, P ? d->ab.view() : vr}, d->at.view(), d->at.values.data()));
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab ? d->ab_plan.flops() : 0) + (d->has_at ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, A, B, out, 0));
  const LocalCsr &r = d->result();
  std::copy(r.values.begin(), r.values.end(), d->coo_values.begin()); /* forced diagonal entries stay zero */
  PetscCall(MatSetValuesCOO(out, d->coo_values.data(), INSERT_VALUES));
  d->numeric_count++;
  PetscFunctionReturn(0);
}

/* The product's operands (A, B[, C]); PtAP's B is P, RARt's B is R */
static void MatClusterMPIOperands(Mat C, Mat mats[3], const char *names[3])
{
  Mat_Product *product = C->product;
  mats[0]              = product->A; /* re-read on every call: MatProductReplaceMats() may have swapped them */
  mats[1]              = product->B;
  mats[2]              = product->type == MATPRODUCT_ABC ? product->C : NULL;
  names[0]             = "A";
  names[1]             = product->type == MATPRODUCT_PtAP ? "P" : product->type == MATPRODUCT_RARt ? "R" : "B";
  names[2]             = "C";
}

static PetscErrorCode MatProductView_Cluster_MPIAIJ(Mat C, PetscViewer viewer)
{
  auto       *d = static_cast<MatProductCluster_MPIAIJ *>(C->product->data);
  PetscBool   iascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !d) PetscFunctionReturn(0);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-cluster MatProduct %s on %d MPI ranks: algorithm %s; local products on rank 0:\n", MatProductTypes[C->product->type], (int)size, C->product->alg));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  for (const MatProductCluster_MPIAIJ *e = d; e; e = e->inner.get()) {
    const Plan *plans[2] = {e->has_ab ? &e->ab_plan : nullptr, e->has_at ? &e->at_plan : nullptr};
    const char *what[2]  = {e->type == MATPRODUCT_ABC ? "A_local * (BC)_rows" : "A_local * B_rows", e->type == MATPRODUCT_AtB ? "A_local^T * B_local" : "P_local^T * (AP)_local"};
    for (int k = 0; k < 2; ++k) {
      if (!plans[k]) continue;
      for (const pcluster::ProductStep &st : plans[k]->steps()) {
        if (st.is_transpose) continue;
        const pcluster::SpgemmStats &s = st.spgemm;
        PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s: kernel %s%s%s, flops %" PetscInt64_FMT ", nnz %" PetscInt64_FMT ", clusters %" PetscInt64_FMT "\n", e != d ? "B*C: " : "", what[k], pcluster::to_string(s.kernel), s.kernel == pcluster::Kernel::Cluster ? ", scheme " : "",
                                         s.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(s.scheme) : "", (PetscInt64)s.flops, (PetscInt64)st.nnz, (PetscInt64)s.num_clusters));
      }
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds on rank 0: fetching rows %g, local products %g, COO assembly %g; numeric runs %" PetscInt_FMT "\n", d->seconds_fetch, d->seconds_local, d->seconds_assembly, d->numeric_count));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductNumeric_MPIAIJ_Cluster(Mat C)
{
  Mat_Product *product = C->product;
  MPI_Comm     comm    = PetscObjectComm((PetscObject)C);
  Mat          mats[3];
  const char  *names[3];

  PetscFunctionBegin;
  PetscCheck(product && product->data, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: the symbolic phase of this product is missing (was MatProductClear() called?)");
  auto *d = static_cast<MatProductCluster_MPIAIJ *>(product->data);
  MatClusterMPIOperands(C, mats, names);
  PetscCall(MatClusterCheckStampsMPIAIJ(comm, d->nops, mats, names, d->stamp));
  if (d->values_from_symbolic) { /* first numeric after a fused symbolic phase */
    PetscBool unchanged = PETSC_TRUE, all;
    d->values_from_symbolic = false;
    for (int k = 0; k < d->nops; ++k) {
      PetscObjectState s;
      PetscCall(PetscObjectStateGet((PetscObject)mats[k], &s));
      if (mats[k] != d->stamp[k].mat || s != d->stamp[k].state) unchanged = PETSC_FALSE;
    }
    PetscCall(MPIU_Allreduce(&unchanged, &all, 1, MPIU_BOOL, MPI_LAND, comm));
    if (all) {
      PetscCall(PetscInfo(C, "petsc-cluster: values already formed by the symbolic phase, operands unchanged since\n"));
      d->numeric_count++;
      PetscFunctionReturn(0);
    }
  }
  PetscCall(MatClusterMPIProductNumeric(d, mats[0], mats[1], mats[2], C));
  for (int k = 0; k < d->nops; ++k) d->stamp[k].mat = mats[k]; /* same pattern (checked): the new objects are the reference now */
  PetscFunctionReturn(0);
}

PetscErrorCode MatProductSymbolic_MPIAIJ_Cluster(Mat C)
{
  Mat_Product            *product = C->product;
  MPI_Comm                comm    = PetscObjectComm((PetscObject)C);
  Mat                     mats[3];
  const char             *names[3];
  pcluster::SpgemmOptions opts;
  PetscBool               reuse_analysis;
  const MatProductType    type = product->type;

  PetscFunctionBegin;
  PetscCheck(!product->data, comm, PETSC_ERR_PLIB, "petsc-cluster: product data already set");
  PetscCheck(MatClusterProductTypeSupported_Private(type), comm, PETSC_ERR_SUP, "petsc-cluster: MatProduct type %s is not supported", MatProductTypes[type]);
  MatClusterMPIOperands(C, mats, names);
  for (int k = 0; k < (type == MATPRODUCT_ABC ? 3 : 2); ++k) {
    PetscBool mpi;
    PetscCheck(mats[k], comm, PETSC_ERR_ARG_NULL, "petsc-cluster: operand %s of the product is missing", names[k]);
    PetscCall(PetscObjectTypeCompare((PetscObject)mats[k], MATMPIAIJ, &mpi));
    PetscCheck(mpi, comm, PETSC_ERR_ARG_WRONG, "petsc-cluster: operand %s must be %s (got %s)", names[k], MATMPIAIJ, ((PetscObject)mats[k])->type_name);
    PetscCheck(mats[k]->assembled, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: matrix %s must be assembled (MatAssemblyBegin/End)", names[k]);
  }
  Mat A = mats[0], B = mats[1];
  switch (type) { /* the layouts the local pieces rely on, as PETSc's MPI algorithms require them */
  case MATPRODUCT_AB:
    PetscCall(MatClusterCheckLayouts(comm, A->cmap, "columns of A", B->rmap, "rows of B", type));
    break;
  case MATPRODUCT_AtB:
    PetscCall(MatClusterCheckLayouts(comm, A->rmap, "rows of A", B->rmap, "rows of B", type));
    break;
  case MATPRODUCT_ABt:
    PetscCall(MatClusterCheckLayouts(comm, A->cmap, "columns of A", B->cmap, "columns of B", type));
    break;
  case MATPRODUCT_PtAP:
    PetscCall(MatClusterCheckLayouts(comm, A->cmap, "columns of A", B->rmap, "rows of P", type));
    PetscCall(MatClusterCheckLayouts(comm, A->rmap, "rows of A", B->rmap, "rows of P", type));
    break;
  case MATPRODUCT_RARt:
    PetscCall(MatClusterCheckLayouts(comm, A->cmap, "columns of A", B->cmap, "columns of R", type));
    PetscCall(MatClusterCheckLayouts(comm, A->rmap, "rows of A", B->cmap, "columns of R", type));
    break;
  case MATPRODUCT_ABC:
    PetscCall(MatClusterCheckLayouts(comm, A->cmap, "columns of A", B->rmap, "rows of B", type));
    PetscCall(MatClusterCheckLayouts(comm, B->cmap, "columns of B", mats[2]->rmap, "rows of C", type));
    break;
  default:
    break;
  }
  PetscCall(MatClusterGetOptions_Private(C, product->alg, &opts, &reuse_analysis));

  std::unique_ptr<MatProductCluster_MPIAIJ> d;
  PetscClusterCallCXX(comm, "symbolic phase", d.reset(new MatProductCluster_MPIAIJ));
  /* MatMatMult(), MatPtAP() & co. (api_user) run numeric right after symbolic with the same values,
     so the symbolic phase forms the values too. MatProductSymbolic() alone must leave zeros in C. */
  PetscErrorCode ierr = MatClusterMPIProductSymbolic(d.get(), type, A, B, mats[2], opts, product->api_user, C->force_diagonals, C);
  if (ierr) {
    (void)MatProductClusterMPIDestroy(d.release());
    PetscCall(ierr);
  }
  C->ops->productnumeric = MatProductNumeric_MPIAIJ_Cluster; /* after MatSetType, which reset C->ops */
  product->view          = MatProductView_Cluster_MPIAIJ;
  product->destroy       = MatProductDestroy_Cluster_MPIAIJ;
  product->data          = d.release();
  {
    const auto *e = static_cast<MatProductCluster_MPIAIJ *>(product->data);
    PetscCall(PetscInfo(C, "petsc-cluster %s %s: local rows %" PetscInt_FMT ", fetched rows %" PetscInt_FMT ", local result nnz %" PetscInt64_FMT "; seconds: fetching %g, local products %g, COO assembly %g\n", MatProductTypes[type], product->alg, A->rmap->n,
                        e->right.seq ? e->right.seq->rmap->n : 0, (PetscInt64)e->result().colidx.size(), e->seconds_fetch, e->seconds_local, e->seconds_assembly));
  }
  PetscFunctionReturn(0);
}
