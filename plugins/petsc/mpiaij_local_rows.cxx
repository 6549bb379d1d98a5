/*
   The local pieces of MATMPIAIJ operands that the core's kernels run on (product_mpiaij.cxx says
   which product uses which).

   A LocalRows holds rows of an operand as one CSR whose columns are renumbered 0..k-1 in increasing
   global order (the order of MatMPIAIJGetLocalMatCondensed: ghost columns left of the owned block,
   the owned block, ghost columns right of it), so rows stay sorted and the core's per-thread
   workspace scales with the columns this rank touches, not with the global size. The operand's
   own rows are copied from its diagonal and off-diagonal blocks (MatMPIAIJGetSeqAIJ), or, for the
   fused PtAP, read in place through a pcluster::PiecedView (MatClusterLocalRowsPieced_Private);
   other ranks' rows are fetched with MatCreateSubMatrices, whose MAT_REUSE_MATRIX keeps their
   structure and communication pattern for the numeric phases.
*/
#include "mpiaij.h"

#include <algorithm>

PetscErrorCode MatClusterLocalRowsDestroy_Private(MatClusterLocalRows *r)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&r->fetched));
  PetscCall(ISDestroy(&r->fetched_rows));
  PetscCall(ISDestroy(&r->all_cols));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterGetBlocks_Private(Mat M, MatClusterBlocks *b)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, &b->garray));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(Ad, "diagonal block", &b->d));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(Ao, "off-diagonal block", &b->o));
  b->nlow = (PetscInt)(std::lower_bound(b->garray, b->garray + b->o.ncols, M->cmap->rstart) - b->garray);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The operand's own rows into csr rows [own_row0, own_row0 + own_rows) of r, in increasing global
   column order: off-diagonal entries left of the owned block, the diagonal block, the rest. With
   pattern, the column numbers too (r.csr.rowptr must be set). */
static void MatClusterCopyOwnRows(const MatClusterBlocks &b, MatClusterLocalRows &r, bool pattern)
{
  const PetscInt *dptr = b.d.rowptr, *optr = b.o.rowptr;
#pragma omp parallel for schedule(static) num_threads(pcluster::threads_for_work(b.d.nnz() + b.o.nnz(), r.threads))
  for (PetscInt i = 0; i < r.own_rows; ++i) {
    PetscInt k = r.csr.rowptr[r.own_row0 + i], q = optr[i];
    for (; q < optr[i + 1] && b.o.colidx[q] < b.nlow; ++q, ++k) {
      if (pattern) r.csr.colidx[k] = r.ghost_col[b.o.colidx[q]];
      r.csr.values[k] = b.o.values[q];
    }
    for (PetscInt t = dptr[i]; t < dptr[i + 1]; ++t, ++k) {
      if (pattern) r.csr.colidx[k] = r.own_col0 + b.d.colidx[t];
      r.csr.values[k] = b.d.values[t];
    }
    for (; q < optr[i + 1]; ++q, ++k) {
      if (pattern) r.csr.colidx[k] = r.ghost_col[b.o.colidx[q]];
      r.csr.values[k] = b.o.values[q];
    }
  }
}

/* The renumbered columns of a LocalRows: sorted ghost columns (outside [c0, c0 + nown)) split around
   the owned block; returns how many ghosts are left of it (the owned block's first number) */
static PetscInt MatClusterColumnLayout(const PetscInt *ghosts, PetscInt nghosts, PetscInt c0, PetscInt nown, std::vector<PetscInt> &global)
{
  const PetscInt nlow = (PetscInt)(std::lower_bound(ghosts, ghosts + nghosts, c0) - ghosts);
  global.resize((size_t)(nghosts + nown));
  std::copy(ghosts, ghosts + nlow, global.begin());
  for (PetscInt c = 0; c < nown; ++c) global[nlow + c] = c0 + c;
  std::copy(ghosts + nlow, ghosts + nghosts, global.begin() + nlow + nown);
  return nlow;
}

/* M's own rows, on the columns they use (what MatMPIAIJGetLocalMatCondensed gives, without its copy
   through MatCreateSubMatrices) */
PetscErrorCode MatClusterLocalRowsOwn_Private(Mat M, int threads, bool copy, MatClusterLocalRows *r)
{
  MatClusterBlocks b;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks_Private(M, &b));
  const PetscInt nown = M->cmap->n, no = b.o.ncols, m = M->rmap->n;
  r->threads = threads;
  PetscClusterCallCXX(PetscObjectComm((PetscObject)M), "local rows", {
    r->own_col0 = MatClusterColumnLayout(b.garray, no, M->cmap->rstart, nown, r->global); /* = b.nlow */
    r->own_row0 = 0;
    r->own_rows = m;
    r->ghost_col.resize((size_t)no);
    for (PetscInt c = 0; c < no; ++c) r->ghost_col[c] = c < b.nlow ? c : c + nown;
    r->own_copied = copy;
    r->csr.ncols  = no + nown;
    if (!copy) return;
    r->csr.nrows = m;
    r->csr.rowptr.resize((size_t)m + 1);
    r->csr.rowptr[0] = 0;
    for (PetscInt i = 0; i < m; ++i) r->csr.rowptr[i + 1] = r->csr.rowptr[i] + b.d.row_length(i) + b.o.row_length(i);
    r->csr.colidx.resize((size_t)r->csr.rowptr[m]);
    r->csr.values.resize((size_t)r->csr.rowptr[m]);
    MatClusterCopyOwnRows(b, *r, true);
  });
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Position of global column c among the sorted renumbered columns */
static inline PetscInt MatClusterRenumber(const std::vector<PetscInt> &global, PetscInt c)
{
  return (PetscInt)(std::lower_bound(global.begin(), global.end(), c) - global.begin());
}

/*
   The rows of B for the columns of A's own rows (in the order of a.global): B's own rows (A's owned
   column block) from its blocks, the others fetched with MatCreateSubMatrices (all columns, kept for
   MAT_REUSE_MATRIX). Columns renumbered over B's ghost columns and the fetched rows' columns.
*/
PetscErrorCode MatClusterLocalRowsFetch_Private(Mat A, const MatClusterLocalRows &a, Mat B, bool copy, MatClusterLocalRows *r)
{
  MatClusterBlocks b;
  Mat     *sub = NULL;
  MatClusterCsrView f;
  PetscInt nfetch;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks_Private(B, &b));
  nfetch = (PetscInt)a.ghost_col.size(); /* A's ghost columns: the rows of B to fetch, in increasing order */
  {
    const PetscInt *garray;
    PetscCall(MatMPIAIJGetSeqAIJ(A, NULL, NULL, &garray));
    PetscCall(ISCreateGeneral(PETSC_COMM_SELF, nfetch, garray, PETSC_COPY_VALUES, &r->fetched_rows));
  }
  PetscCall(ISCreateStride(PETSC_COMM_SELF, B->cmap->N, 0, 1, &r->all_cols));
  PetscCall(MatCreateSubMatrices(B, 1, &r->fetched_rows, &r->all_cols, MAT_INITIAL_MATRIX, &sub));
  r->fetched = sub[0];
  PetscCall(PetscFree(sub));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(r->fetched, "fetched rows", &f));

  const PetscInt c0 = B->cmap->rstart, c1 = B->cmap->rend, nown = c1 - c0, m = B->rmap->n;
  r->threads = a.threads;
  PetscClusterCallCXX(PetscObjectComm((PetscObject)B), "fetched rows", {
    /* the renumbered columns: B's ghost columns, the fetched rows' columns outside the owned block */
    std::vector<PetscInt> ghosts(b.garray, b.garray + b.o.ncols);
    for (pcluster::Count k = 0; k < f.nnz(); ++k)
      if (f.colidx[k] < c0 || f.colidx[k] >= c1) ghosts.push_back(f.colidx[k]);
    std::sort(ghosts.begin(), ghosts.end());
    ghosts.erase(std::unique(ghosts.begin(), ghosts.end()), ghosts.end());
    const PetscInt nlow = MatClusterColumnLayout(ghosts.data(), (PetscInt)ghosts.size(), c0, nown, r->global);
    r->own_row0 = a.own_col0; /* fetched rows left of B's own rows: A's ghost columns left of its owned block */
    r->own_rows = m;
    r->own_col0 = nlow;
    r->ghost_col.resize((size_t)b.o.ncols);
    for (PetscInt c = 0; c < b.o.ncols; ++c) r->ghost_col[c] = MatClusterRenumber(r->global, b.garray[c]);

    MatClusterCsr &R = r->csr;
    const PetscInt copied = copy ? m : 0; /* own rows in R, between the fetched rows */
    r->own_copied         = copy;
    R.nrows               = nfetch + copied;
    R.ncols               = (PetscInt)r->global.size();
    R.rowptr.resize((size_t)R.nrows + 1);
    R.rowptr[0] = 0;
    pcluster::Count nnz = 0; /* own rows and fetched rows: each fits PetscInt, their sum need not */
    for (PetscInt i = 0; i < R.nrows; ++i) {
      const PetscInt fi = i < r->own_row0 ? i : i - copied; /* fetched row, for rows outside the own block */
      nnz += i >= r->own_row0 && i < r->own_row0 + copied ? b.d.row_length(i - r->own_row0) + b.o.row_length(i - r->own_row0) : f.row_length(fi);
      R.rowptr[i + 1] = pcluster::checked_index<PetscInt>(nnz, "nnz of B's rows for A's columns");
    }
    R.colidx.resize((size_t)R.rowptr[R.nrows]);
    R.values.resize((size_t)R.rowptr[R.nrows]);
    if (copy) MatClusterCopyOwnRows(b, *r, true);
    for (PetscInt fi = 0; fi < nfetch; ++fi) {
      const PetscInt i = fi < r->own_row0 ? fi : fi + copied;
      for (PetscInt q = f.rowptr[fi], k = R.rowptr[i]; q < f.rowptr[fi + 1]; ++q, ++k) {
        const PetscInt c = f.colidx[q];
        R.colidx[k]      = c >= c0 && c < c1 ? nlow + (c - c0) : MatClusterRenumber(r->global, c);
        R.values[k]      = f.values[q];
      }
    }
  });
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* New values of the rows: M's own rows (M is the operand they were taken from: A, P, or B for
   fetched rows), fetched rows again with MAT_REUSE_MATRIX */
PetscErrorCode MatClusterLocalRowsRefresh_Private(Mat M, MatClusterLocalRows *r)
{
  MatClusterBlocks b;

  PetscFunctionBegin;
  if (r->own_copied) {
    PetscCall(MatClusterGetBlocks_Private(M, &b));
    MatClusterCopyOwnRows(b, *r, false);
  }
  if (r->fetched_rows) {
    Mat     *sub;
    MatClusterCsrView f;
    MatClusterCsr &R = r->csr;
    PetscCall(PetscMalloc1(1, &sub));
    sub[0] = r->fetched;
    PetscCall(MatCreateSubMatrices(M, 1, &r->fetched_rows, &r->all_cols, MAT_REUSE_MATRIX, &sub));
    PetscCall(PetscFree(sub));
    PetscCall(MatClusterSeqAIJGetCsrView_Private(r->fetched, "fetched rows", &f));
    const PetscInt low = f.rowptr[r->own_row0]; /* values of the fetched rows left of the own rows */
    /* std::copy, not memcpy: f.values is null when no fetched row has an entry */
    std::copy(f.values, f.values + low, R.values.begin());
    std::copy(f.values + low, f.values + f.nnz(), R.values.begin() + R.rowptr[r->own_row0 + (r->own_copied ? r->own_rows : 0)]);
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterLocalRowsPieced_Private(Mat M, const MatClusterLocalRows &r, PetscInt row0, PetscInt nrows, MatClusterPiecedView *v)
{
  MatClusterBlocks b;

  PetscFunctionBegin;
  PetscCheck(!r.own_copied, PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-cluster: these local rows were copied, not pieced");
  PetscCall(MatClusterGetBlocks_Private(M, &b));
  *v                = MatClusterPiecedView{};
  v->nrows          = nrows;
  v->ncols          = (PetscInt)r.global.size();
  v->own_row0       = row0;
  v->own_rows       = r.own_rows;
  v->diag           = b.d;
  v->diag_col0      = r.own_col0;
  if (b.o.nnz() > 0) {
    v->offdiag        = b.o;
    v->offdiag_colmap = r.ghost_col.data();
  }
  if (r.csr.nrows > 0) v->other = r.csr.view(); /* the fetched rows */
  PetscFunctionReturn(PETSC_SUCCESS);
}

