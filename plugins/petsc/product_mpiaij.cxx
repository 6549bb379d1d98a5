/*
   Every MatProduct type for MATMPIAIJ operands. Each rank runs the core's kernels (row-wise or
   cluster-wise, with its OpenMP threads) on local pieces of the operands and puts its part of C
   together; PETSc's public routines fetch the operands' rows (petsc.md §5), and the result's rows
   that other ranks own go to them point to point (mpiaij_result.cxx). The table in
   product_types.cxx gives each type's formulation: the operand X whose rows the A*X local product
   takes (B; B^T from MatTranspose, as PETSc's own MPI algorithms do; or B*C, an MPIAIJ made by the
   A*B path, kept in data->inner), and the local products:

     kLocalAB    R = A_own * X_rows                  A*B, A*B^T, A*(B*C): R's rows are this rank's rows of C
     kLocalAtB   R = A_own^T * B_own                 A^T*B: R's rows are the columns A's own rows use
     kLocalPtAP  R = X_rows^T * A_sq * X_rows        P^T*A*P (X = P), R*A*R^T (X = R^T; PETSc forms
                                                     R*(A*R^T), the same pattern)

   A_own is A's own rows on the columns they use, X_rows the rows of X for those columns (X's own
   rows, and the others fetched; mpiaij_local_rows.cxx). kLocalPtAP is one core PtAP, so that the
   fused triple product (src/triple_product.hpp) runs on each rank and neither A_own*X_rows nor a
   copy of X's own rows is kept: A_sq is A_own placed in the rows of a square matrix over A's local
   columns (X's own rows are X_rows' rows at A's owned column block, where A_sq's rows are A_own's;
   its other rows are empty), so X_rows^T A_sq X_rows = X_own^T (A_own X_rows), with R's rows and
   columns both X_rows' columns. In the fused form (the default) A_sq and X_rows are pieced views
   (pcluster::PiecedView): A's and X's own rows are read in place from their diagonal and
   off-diagonal blocks, and only the fetched rows of X are copied, so no local copy of A or P is
   kept; and R keeps its pattern only: the kernel writes the values of R's own rows straight into
   C's arrays (in runs: a row's entries left of the diagonal block, the block, the rest; positions
   for rows that other ranks add entries to) and those of its other rows into the values sent
   to their owners. Measured, p7 n=80 and e27 n=24 on 2 ranks: 95 -> 42 and 54 -> 25 MB a rank at
   the peak (allatonce 39 and 20), for 11-20% more time (the kernel reads two blocks a row). The
   stored form (named cluster schemes, reorderings) runs on copies. R's rows that other ranks own
   (kLocalAtB, kLocalPtAP) are sent to them point to point (mpiaij_result.cxx).

   MAT_REUSE_MATRIX: the pieces' values are refreshed (copies) or read again (pieced views), the
   core's numeric phases rerun (plans, clusters and orderings kept), and the saved positions or
   runs put every value in place. As on SeqAIJ,
   MatMatMult() & co. form the values in the symbolic phase (the core's symbolic phase for the
   pattern, then its numeric phase: see product_seqaij.cxx for why not one pass), and every operand is stamped
   (operands.cxx), so that a numeric phase on a changed pattern is an error on every rank.
*/
#include "mpiaij.h"

#include <algorithm>

/* C->product->data; also the inner product B*C of A*B*C */
struct MatProductCluster_MPIAIJ {
  MatClusterProductBase                     base;
  const MatClusterProductTypeInfo          *info = nullptr;
  Mat                                       aux  = nullptr; /* X when it is not B: B^T, R^T (MatTranspose), or B*C */
  std::unique_ptr<MatProductCluster_MPIAIJ> inner;          /* ABC: the product that forms aux */
  MatClusterLocalRows                       a;              /* A's own rows */
  MatClusterLocalRows                       right;          /* kLocalAB, kLocalPtAP: X_rows; kLocalAtB: B's own rows */
  bool                                      pieced = false; /* kLocalPtAP, fused: A's and X's own rows read in place (pieced views), not copied */
  std::vector<PetscInt>                     a_sq_rowptr;    /* kLocalPtAP copied: A_sq's rows (A_own's, placed at A's owned column block) */
  MatClusterPlan                            ab_plan, at_plan; /* kLocalAB: A_own * X_rows; kLocalAtB: A_own^T B_own; kLocalPtAP: X_rows^T A_sq X_rows */
  MatClusterCsr                             ab, at;
  MatClusterResultAssembly                  out;
  PetscLogDouble                            seconds_fetch = 0, seconds_local = 0, seconds_assembly = 0; /* symbolic phase, this rank */

  bool                       has_ab() const { return info->mpi_formulation == kLocalAB; }
  bool                       has_at() const { return info->mpi_formulation != kLocalAB; }
  bool                       fetches() const { return info->mpi_formulation != kLocalAtB; } /* right = X_rows (else B's own rows) */
  const MatClusterCsr       &result() const { return has_at() ? at : ab; }
  const MatClusterLocalRows &result_rows() const { return info->mpi_formulation == kLocalAtB ? a : right; } /* whose columns R's rows are (kLocalAB: none) */
  const char                *ab_label() const { return info->mpi_right == kRightProductBC ? "A_local * (BC)_rows" : "A_local * B_rows"; }
  const char                *at_label() const { return info->mpi_formulation == kLocalAtB ? "A_local^T * B_local" : "X_rows^T * A_local * X_rows"; }
  /* The operands of the local products, as symbolic and numeric phases pass them to the core */
  std::vector<MatClusterCsrView> ab_operands() const { return {a.csr.view(), right.csr.view()}; }
  std::vector<MatClusterCsrView> at_operands() const
  {
    if (info->mpi_formulation != kLocalPtAP) return {a.csr.view(), right.csr.view()};
    /* A's own rows in a square matrix over A's local columns */
    return {MatClusterCsrView{a.csr.ncols, a.csr.ncols, a_sq_rowptr.data(), a.csr.colidx.data(), a.csr.values.data()}, right.csr.view()};
  }
  /* kLocalPtAP pieced: {A_sq, X_rows} as views of A's and X's blocks and the fetched rows */
  PetscErrorCode pieced_operands(Mat A, Mat X, std::vector<MatClusterPiecedView> *v) const
  {
    PetscFunctionBegin;
    v->resize(2);
    PetscCall(MatClusterLocalRowsPieced_Private(A, a, a.own_col0, a.csr.ncols, &(*v)[0]));
    PetscCall(MatClusterLocalRowsPieced_Private(X, right, right.own_row0, right.csr.nrows + right.own_rows, &(*v)[1])); /* fetched rows, own rows */
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscInt fetched_rows() const { return right.csr.nrows - (right.own_copied ? right.own_rows : 0); }
};

PetscErrorCode MatClusterAllRanks_Private(MPI_Comm comm, PetscErrorCode ierr, const char what[])
{
  struct {
    int code, rank;
  } mine, worst;
  PetscMPIInt rank;
  const char *text = NULL;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  mine.code = (int)ierr;
  mine.rank = (int)rank;
  PetscCallMPI(MPI_Allreduce(&mine, &worst, 1, MPI_2INT, MPI_MAXLOC, comm));
  if (!worst.code) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(ierr); /* this rank's own error: its traceback goes on */
  PetscCall(PetscErrorMessage((PetscErrorCode)worst.code, &text, NULL));
  SETERRQ(comm, (PetscErrorCode)worst.code, "petsc-cluster %s failed on rank %d: %s (that rank's message says why)", what, worst.rank, text ? text : "");
}

static PetscErrorCode MatProductClusterMPIDestroy(MatProductCluster_MPIAIJ *d)
{
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(PETSC_SUCCESS);
  if (d->inner) PetscCall(MatProductClusterMPIDestroy(d->inner.release()));
  PetscCall(MatDestroy(&d->aux));
  PetscCall(MatClusterLocalRowsDestroy_Private(&d->a));
  PetscCall(MatClusterLocalRowsDestroy_Private(&d->right));
  PetscCall(MatClusterResultAssemblyDestroy_Private(&d->out));
  delete d;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductDestroy_Cluster_MPIAIJ(void *data)
{
  PetscFunctionBegin;
  PetscCall(MatProductClusterMPIDestroy(static_cast<MatProductCluster_MPIAIJ *>(data)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Collective check that two layouts agree (global size and this rank's range, on every rank) */
static PetscErrorCode MatClusterCheckLayouts(MPI_Comm comm, const MatClusterProductTypeInfo *info, const MatClusterOperands &ops)
{
  PetscFunctionBegin;
  for (int k = 0; k < info->nagree; ++k) {
    const MatClusterSide x = info->agree[k][0], y = info->agree[k][1];
    const PetscLayout    a = MatClusterSideLayout_Private(ops.mats, x), b = MatClusterSideLayout_Private(ops.mats, y);
    PetscBool            ok = (PetscBool)(a->N == b->N && a->rstart == b->rstart && a->rend == b->rend), all;
    PetscCallMPI(MPI_Allreduce(&ok, &all, 1, MPIU_BOOL, MPI_LAND, comm));
    PetscCheck(all, comm, PETSC_ERR_ARG_SIZ, "petsc-cluster %s: the %s of %s (global %" PetscInt_FMT ") and the %s of %s (global %" PetscInt_FMT ") must have the same size and parallel layout (this rank: [%" PetscInt_FMT ", %" PetscInt_FMT ") and [%" PetscInt_FMT ", %" PetscInt_FMT "))",
               MatProductTypes[info->type], x.cols ? "columns" : "rows", ops.names[x.operand], a->N, y.cols ? "columns" : "rows", ops.names[y.operand], b->N, a->rstart, a->rend, b->rstart, b->rend);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, const MatClusterOperands &ops, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, Mat *T);
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, const Mat ops[], Mat out);

/* The operands of B*C, the inner product of A*B*C */
static MatClusterOperands MatClusterInnerOperands(const Mat ops[])
{
  MatClusterOperands inner;
  inner.n        = 2;
  inner.mats[0]  = ops[1];
  inner.mats[1]  = ops[2];
  inner.names[0] = "B";
  inner.names[1] = "C";
  return inner;
}

/* X, the operand whose rows the A*X step takes (B, B^T, R^T or B*C), made (initial) or refreshed */
static PetscErrorCode MatClusterRightOperand(MatProductCluster_MPIAIJ *d, const Mat ops[], const pcluster::SpgemmOptions *opts, bool fuse, bool initial, Mat *right)
{
  Mat B = ops[1];

  PetscFunctionBegin;
  switch (d->info->mpi_right) {
  case kRightTransposeB:
    /* MatTranspose(MAT_REUSE_MATRIX) only refreshes the transpose of the very same matrix */
    if (!initial && d->aux && d->base.stamp[1].mat == B) PetscCall(MatTranspose(B, MAT_REUSE_MATRIX, &d->aux));
    else {
      PetscCall(MatDestroy(&d->aux));
      PetscCall(MatTranspose(B, MAT_INITIAL_MATRIX, &d->aux));
    }
    *right = d->aux;
    break;
  case kRightProductBC:
    if (initial) {
      PetscClusterCallCXX(PetscObjectComm((PetscObject)B), "symbolic phase", d->inner.reset(new MatProductCluster_MPIAIJ));
      d->inner->info = MatClusterProductTypeInfo_Private(MATPRODUCT_AB);
      PetscCall(MatClusterMPIProductSymbolic(d->inner.get(), MatClusterInnerOperands(ops), *opts, fuse, false, &d->aux));
    } else {
      const Mat inner[2] = {ops[1], ops[2]};
      PetscCall(MatClusterMPIProductNumeric(d->inner.get(), inner, d->aux));
    }
    *right = d->aux;
    break;
  case kRightB:
    *right = B; /* AB, PtAP (B is P); AtB uses B's own rows */
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Pieced PtAP: the local product's numeric phase, its own rows' values written straight into C's
   (out's) arrays, the others' into the values sent to their owners */
static PetscErrorCode MatClusterPiecedNumeric(MatProductCluster_MPIAIJ *d, Mat A, Mat X, Mat out)
{
  MPI_Comm                          comm = PetscObjectComm((PetscObject)A);
  std::vector<MatClusterPiecedView> pieces;
  MatClusterResultScatter           s;

  PetscFunctionBegin;
  /* local work only: an error on one rank reaches every rank (the next call is collective) */
  PetscCall(MatClusterAllRanks_Private(comm, [&]() -> PetscErrorCode {
    PetscCall(d->pieced_operands(A, X, &pieces));
    PetscCall(MatClusterResultScatterBegin_Private(d->out, out, &s));
    const PetscErrorCode ierr = PetscClusterCallCXX_Private(comm, __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, "numeric phase", [&]() { d->at_plan.numeric(pieces, d->at.view(), d->out.remote_values.data(), &s); });
    PetscCall(MatClusterResultScatterEnd_Private(out, &s)); /* C's arrays back to C, after an error too */
    return ierr;
  }(), "numeric phase"));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Makes T, d's product of ops as an MPIAIJ on our arrays (values too when fuse, zeros otherwise),
   and the plans to refresh it */
static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, const MatClusterOperands &ops, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, Mat *T)
{
  Mat                               A = ops.mats[0], B = ops.mats[1], right = NULL;
  MPI_Comm                          comm = PetscObjectComm((PetscObject)A);
  const MatClusterProductTypeInfo  *info = d->info;
  const MatClusterMPIFormulation    form = info->mpi_formulation;
  PetscLogDouble                    t0, t1 = 0, t2, t3, t4, t5;
  PetscInt                          rbs, cbs;
  std::vector<pcluster::BlockSizes> bs(2);
  const auto                        bsof = [](Mat X) { return pcluster::BlockSizes{(int)PetscAbs(X->rmap->bs), (int)PetscAbs(X->cmap->bs)}; };

  PetscFunctionBegin;
  PetscCall(MatClusterStampOperands_Private(ops, opts.num_threads, &d->base));
  PetscCall(PetscTime(&t0));
  PetscCall(MatClusterRightOperand(d, ops.mats, &opts, fuse, true, &right));

  /* The local pieces and products. Only MatCreateSubMatrices in the fetch is collective: the work
     before and after it is local, and an error there reaches every rank (MatClusterAllRanks_Private). */
  d->pieced = form == kLocalPtAP && pcluster::fused_triple(pcluster::ProductType::PtAP, opts);
  PetscCall(MatClusterAllRanks_Private(comm, MatClusterLocalRowsOwn_Private(A, opts.num_threads, !d->pieced, &d->a), "symbolic phase"));
  PetscCall(MatClusterAllRanks_Private(comm, [&]() -> PetscErrorCode {
    std::vector<MatClusterPiecedView> pieces;
    if (d->fetches()) PetscCall(MatClusterLocalRowsFetch_Private(A, d->a, right, !d->pieced, &d->right));
    else PetscCall(MatClusterLocalRowsOwn_Private(B, opts.num_threads, true, &d->right));
    if (d->pieced) PetscCall(d->pieced_operands(A, right, &pieces));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscLogEventBegin(MAT_ClusterSym, A, B, 0, 0));

    /* The local products (the operands come from PETSc's assembled blocks: sorted, in range) */
    pcluster::SpgemmOptions o = opts;
    o.check_operands          = false;
    o.include_diagonal        = false; /* C's global diagonal: added by the assembly */
    /* One local product: its pattern, then (fused) its values by the numeric phase, or zeros */
    const auto local = [&](pcluster::ProductType type, const std::vector<MatClusterCsrView> &operands, MatClusterPlan &plan, MatClusterCsr &R, PetscInt nrows, PetscInt ncols) {
      plan    = MatClusterPlan::symbolic(type, operands, o, R.rowptr, R.colidx, nullptr, bs);
      R.nrows = nrows;
      R.ncols = ncols;
      R.values.assign(R.colidx.size(), 0);
      if (fuse) plan.numeric(operands, R.view(), R.values.data());
    };
    bs[0] = bsof(A);
    bs[1] = bsof(form == kLocalAtB ? B : right);
    if (form == kLocalAB) PetscClusterCallCXX(comm, "symbolic phase", local(pcluster::ProductType::AB, d->ab_operands(), d->ab_plan, d->ab, d->a.csr.nrows, d->right.csr.ncols));
    if (form == kLocalAtB) PetscClusterCallCXX(comm, "symbolic phase", local(pcluster::ProductType::AtB, d->at_operands(), d->at_plan, d->at, d->a.csr.ncols, d->right.csr.ncols));
    if (d->pieced) { /* R's pattern: its own rows' values go straight into C (below) */
      PetscClusterCallCXX(comm, "symbolic phase", {
        MatClusterCsr &R = d->at;
        d->at_plan       = MatClusterPlan::symbolic(pcluster::ProductType::PtAP, pieces, o, R.rowptr, R.colidx);
        R.nrows = R.ncols = d->right.csr.ncols;
      });
    } else if (form == kLocalPtAP) {
      PetscClusterCallCXX(comm, "symbolic phase", {
        const PetscInt n = d->a.csr.ncols, r0 = d->right.own_row0, nown = d->a.csr.nrows;
        d->a_sq_rowptr.resize((size_t)n + 1);
        for (PetscInt i = 0; i <= n; ++i) d->a_sq_rowptr[i] = d->a.csr.rowptr[std::clamp<PetscInt>(i - r0, 0, nown)];
        local(pcluster::ProductType::PtAP, d->at_operands(), d->at_plan, d->at, d->right.csr.ncols, d->right.csr.ncols);
      });
    }
    return PETSC_SUCCESS;
  }(), "symbolic phase"));
  if (fuse) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab() ? d->ab_plan.flops() : 0) + (d->has_at() ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, A, B, 0, 0));
  {
    PetscLogDouble tc = (d->has_ab() ? d->ab_plan.seconds_clustering() : 0) + (d->has_at() ? d->at_plan.seconds_clustering() : 0);
    if (tc > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, tc));
  }
  PetscCall(PetscTime(&t2));

  /* C, with the layouts PETSc's algorithms give it; R's rows: A's own rows (kLocalAB) or the
     columns of A's (kLocalAtB) or X's (kLocalPtAP) own rows, of which this rank owns the middle block */
  MatClusterResultLayout L;
  const bool             remote = d->has_at();
  L.R                           = &d->result();
  L.own_row0                    = remote ? d->result_rows().own_col0 : 0;
  L.row_global                  = remote ? d->result_rows().global.data() : NULL;
  L.col_global                  = &d->right.global;
  L.own_col0                    = d->right.own_col0;
  L.has_remote                  = remote;
  L.force_diagonal              = force_diagonal;
  L.own_in_place                = d->pieced;
  L.rmap                        = MatClusterSideLayout_Private(ops.mats, info->result_rows);
  L.cmap                        = MatClusterSideLayout_Private(ops.mats, info->result_cols);
  L.threads                     = opts.num_threads;
  PetscCall(MatClusterResultSymbolic_Private(comm, L, &d->out, T));
  MatClusterResultBlockSizes_Private(info, ops.mats, &rbs, &cbs);
  PetscCall(MatSetBlockSizes(*T, rbs, cbs));
  PetscCall(PetscTime(&t3));
  t4 = t3;
  if (d->pieced && fuse) { /* the values, now that C has its place for them */
    PetscCall(PetscLogEventBegin(MAT_ClusterSym, A, B, 0, 0));
    PetscCall(MatClusterPiecedNumeric(d, A, right, *T));
    PetscCall(PetscLogEventEnd(MAT_ClusterSym, A, B, 0, 0));
    PetscCall(PetscTime(&t4));
    PetscCall(MatClusterResultNumeric_Private(d->out, d->result(), *T));
  }
  PetscCall(PetscTime(&t5));
  d->seconds_fetch             = t1 - t0;
  d->seconds_local             = (t2 - t1) + (t4 - t3);
  d->seconds_assembly          = (t3 - t2) + (t5 - t4);
  d->base.values_from_symbolic = fuse;
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Refreshes `out`'s values from the operands: the pieces, the local products, the boundary exchange */
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, const Mat ops[], Mat out)
{
  Mat      A = ops[0], B = ops[1], right = NULL;
  MPI_Comm comm = PetscObjectComm((PetscObject)A);

  PetscFunctionBegin;
  PetscCall(MatClusterRightOperand(d, ops, NULL, false, false, &right));
  PetscCall(MatClusterLocalRowsRefresh_Private(A, &d->a));
  PetscCall(MatClusterLocalRowsRefresh_Private(d->fetches() ? right : B, &d->right));
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, A, B, out, 0));
  if (d->pieced) PetscCall(MatClusterPiecedNumeric(d, A, right, out));
  const MatClusterCsr &R = d->result();
  MatClusterCallCXXAllRanks(comm, "numeric phase", {
    if (d->has_ab()) d->ab_plan.numeric(d->ab_operands(), d->ab.view(), d->ab.values.data());
    if (d->has_at() && !d->pieced) d->at_plan.numeric(d->at_operands(), d->at.view(), d->at.values.data());
    if (d->out.has_remote && !d->pieced) MatClusterRemoteValues_Private(R, d->out.own_row0, out->rmap->n, d->out.remote_values);
  });
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab() ? d->ab_plan.flops() : 0) + (d->has_at() ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, A, B, out, 0));
  PetscCall(MatClusterResultNumeric_Private(d->out, R, out));
  d->base.numeric_count++;
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductView_Cluster_MPIAIJ(Mat C, PetscViewer viewer)
{
  auto       *d = static_cast<MatProductCluster_MPIAIJ *>(C->product->data);
  PetscBool   iascii;
  PetscMPIInt size;

  PetscFunctionBegin;
  PetscCall(PetscObjectTypeCompare((PetscObject)viewer, PETSCVIEWERASCII, &iascii));
  if (!iascii || !d) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCallMPI(MPI_Comm_size(PetscObjectComm((PetscObject)C), &size));
  PetscCall(PetscViewerASCIIPrintf(viewer, "petsc-cluster MatProduct %s on %d MPI ranks: algorithm %s; local products on rank 0:\n", MatProductTypes[C->product->type], (int)size, C->product->alg));
  PetscCall(PetscViewerASCIIPushTab(viewer));
  PetscCall(MatClusterViewOptions_Private(viewer, d->has_ab() ? d->ab_plan.options() : d->at_plan.options()));
  for (const MatProductCluster_MPIAIJ *e = d; e; e = e->inner.get()) {
    char label[128];
    if (e->has_ab()) {
      PetscCall(PetscSNPrintf(label, sizeof label, "%s%s: ", e != d ? "B*C: " : "", e->ab_label()));
      PetscCall(MatClusterViewPlan_Private(viewer, label, e->ab_plan));
    }
    if (e->has_at()) {
      PetscCall(PetscSNPrintf(label, sizeof label, "%s%s: ", e != d ? "B*C: " : "", e->at_label()));
      PetscCall(MatClusterViewPlan_Private(viewer, label, e->at_plan));
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds on rank 0: fetching rows %g, local products %g, building C %g; numeric runs %" PetscInt_FMT "\n", d->seconds_fetch, d->seconds_local, d->seconds_assembly, d->base.numeric_count));
  PetscCall(PetscViewerASCIIPopTab(viewer));
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatProductNumeric_MPIAIJ_Cluster(Mat C)
{
  Mat_Product       *product = C->product;
  MPI_Comm           comm    = PetscObjectComm((PetscObject)C);
  MatClusterOperands ops;
  PetscBool          current;

  PetscFunctionBegin;
  PetscCheck(product && product->data, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: the symbolic phase of this product is missing (was MatProductClear() called?)");
  auto *d = static_cast<MatProductCluster_MPIAIJ *>(product->data);
  PetscCall(MatClusterNumericBegin_Private(C, MATMPIAIJ, &d->base, &ops, &current));
  if (current) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatClusterMPIProductNumeric(d, ops.mats, C));
  for (int k = 0; k < ops.n; ++k) d->base.stamp[k].mat = ops.mats[k]; /* same pattern (checked): the new objects are the reference now */
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatProductSymbolic_MPIAIJ_Cluster(Mat C)
{
  Mat_Product             *product = C->product;
  MPI_Comm                 comm    = PetscObjectComm((PetscObject)C);
  MatClusterOperands       ops;
  MatClusterProductOptions opts;
  char                     what[160];
  PetscInt                 rbs, cbs;

  PetscFunctionBegin;
  PetscCheck(!product->data, comm, PETSC_ERR_PLIB, "petsc-cluster: product data already set");
  PetscCall(MatClusterGetOperands_Private(C, MATMPIAIJ, &ops));
  const MatClusterProductTypeInfo *info = MatClusterProductTypeInfo_Private(product->type);
  PetscCall(MatClusterCheckAssembled_Private(comm, ops));
  PetscCall(MatClusterCheckLayouts(comm, info, ops)); /* the layouts the local pieces rely on, as PETSc's MPI algorithms require them */
  PetscCall(MatGetBlockSizes(product->A, &rbs, &cbs));
  PetscCall(MatClusterGetOptions_Private((PetscObject)C, product->alg, rbs, &opts));

  std::unique_ptr<MatProductCluster_MPIAIJ> d;
  PetscClusterCallCXX(comm, "symbolic phase", d.reset(new MatProductCluster_MPIAIJ));
  d->info = info;
  /* MatMatMult(), MatPtAP() & co. (api_user) run numeric right after symbolic with the same values,
     so the symbolic phase forms the values too. MatProductSymbolic() alone must leave zeros in C. */
  Mat            T    = NULL;
  PetscErrorCode ierr = MatClusterMPIProductSymbolic(d.get(), ops, opts.spgemm, product->api_user, C->force_diagonals, &T);
  if (!ierr) ierr = MatClusterAdoptStructure_Private(C, &T); /* C in place: MatHeaderReplace */
  if (ierr) {
    (void)MatDestroy(&T);
    (void)MatProductClusterMPIDestroy(d.release());
    PetscCall(ierr);
  }
  C->ops->productnumeric = MatProductNumeric_MPIAIJ_Cluster; /* after MatHeaderReplace, which replaced C->ops */
  product->view          = MatProductView_Cluster_MPIAIJ;
  product->destroy       = MatClusterProductDestroyFn<MatProductDestroy_Cluster_MPIAIJ>();
  product->data          = d.release();
  for (const MatProductCluster_MPIAIJ *e = static_cast<MatProductCluster_MPIAIJ *>(product->data); e; e = e->inner.get()) {
    const char *inner = e != product->data ? "B*C" : NULL;
    if (e->has_ab()) {
      PetscCall(PetscSNPrintf(what, sizeof what, "%s %s, local: %s", MatProductTypes[product->type], product->alg, inner ? inner : "A_local*B_rows"));
      PetscCall(MatClusterInfoPlan_Private(C, what, e->ab_plan));
    }
    if (e->has_at()) {
      PetscCall(PetscSNPrintf(what, sizeof what, "%s %s, local: %s", MatProductTypes[product->type], product->alg, inner ? inner : "X_local^T*Y_local"));
      PetscCall(MatClusterInfoPlan_Private(C, what, e->at_plan));
    }
  }
  {
    const auto *e = static_cast<MatProductCluster_MPIAIJ *>(product->data);
    PetscCall(PetscInfo(C, "petsc-cluster %s %s: local rows %" PetscInt_FMT ", rows fetched from other ranks %" PetscInt_FMT ", local result nnz %" PetscInt64_FMT "; seconds: fetching %g, local products %g, building C %g\n", MatProductTypes[product->type], product->alg, ops.mats[0]->rmap->n,
                        e->fetched_rows(), (PetscInt64)e->result().colidx.size(), e->seconds_fetch, e->seconds_local, e->seconds_assembly));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
