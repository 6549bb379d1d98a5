/*
   Every MatProduct type for MATMPIAIJ operands. Each rank runs the core's kernels (row-wise or
   cluster-wise, with its OpenMP threads) on local pieces of the operands and puts its part of C
   together; PETSc's public MPI routines do all the communication (petsc.md §5):

     A*B      R = A_loc * B_rows: A_loc is A's own rows on the columns they use, B_rows the rows of
              B for those columns: B's own rows, and the others fetched by MatCreateSubMatrices.
              R's rows are this rank's rows of C.
     A^T*B    R = A_loc^T * B_loc: R's rows are the columns A's own rows use, owned by any rank.
     P^T*A*P  R = P_loc^T * (A_loc * P_rows).
     A*B^T    A*B with B^T from MatTranspose, as PETSc's own MPI algorithm does.
     R*A*R^T  P^T*A*P with P = R^T from MatTranspose (PETSc forms R*(A*R^T); same pattern).
     A*B*C    A*(BC), BC an MPIAIJ made by the A*B path (data->inner).

   Local pieces (LocalRows): the rows are copied from the operand's diagonal and off-diagonal blocks
   (MatMPIAIJGetSeqAIJ) into one CSR whose columns are renumbered 0..k-1 in increasing global order
   (the order of MatMPIAIJGetLocalMatCondensed: ghost columns left of the owned block, the owned
   block, ghost columns right of it), so rows stay sorted and the core's per-thread workspace scales
   with the columns this rank touches, not with the global size.

   C (ResultAssembly): the rows of R this rank owns go straight into C's diagonal and off-diagonal
   arrays; the other rows of R (A^T*B, P^T*A*P: the boundary) go to their owners through an
   auxiliary MPIAIJ assembled by PETSc's COO interface (MatSetPreallocationCOO / MatSetValuesCOO),
   whose rows each owner merges into its rows of C. C is built on our arrays without a copy
   (MatCreateMPIAIJWithSplitArrays).

   MAT_REUSE_MATRIX: the pieces' values are refreshed (fetched rows by MatCreateSubMatrices with
   MAT_REUSE_MATRIX: PETSc keeps their structure and communication pattern), the core's numeric
   phases rerun (plans, clusters and orderings kept), MatSetValuesCOO sends the boundary values, and
   the saved positions put every value in place.

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
using Csr     = pcluster::CsrMatrix<PetscInt, PetscScalar>;

/* Rows of an MPIAIJ operand as one CSR, columns renumbered 0..k-1 in increasing global order */
struct LocalRows {
  Csr                   csr;
  std::vector<PetscInt> global;                 /* renumbered column -> global column */
  PetscInt              own_row0 = 0, own_rows = 0; /* the operand's own rows are csr rows [own_row0, own_row0 + own_rows) */
  PetscInt              own_col0 = 0;           /* its diagonal-block column c is renumbered own_col0 + c */
  std::vector<PetscInt> ghost_col;              /* its off-diagonal-block column c is renumbered ghost_col[c] */
  Mat                   fetched = nullptr;      /* rows of other ranks (MatCreateSubMatrices): csr rows before and after the own rows */
  IS                    fetched_rows = nullptr, all_cols = nullptr;
};

/* What the numeric phase needs to put the local result R into C */
struct ResultAssembly {
  PetscInt                 own_row0 = 0;     /* R's rows [own_row0, own_row0 + m) are C's rows on this rank */
  Mat                      remote = nullptr; /* A^T*B, P^T*A*P: R's other rows, summed onto their owners by PETSc's COO assembly */
  std::vector<PetscScalar> remote_values;    /* their values, in COO order */
  bool                     assign = false;   /* C's rows are R's own rows (no remote rows, no forced diagonal): copied row by row */
  PetscInt                 own_col0 = 0;     /* R's columns [own_col0, own_col0 + n) are C's diagonal block */
  std::vector<PetscInt>    pos_own;          /* otherwise, C position of each entry of R's own rows: >= 0 in the diagonal block, -1-k: k-th off-diagonal value */
  std::vector<PetscInt>    pos_remote;       /* likewise for the entries of remote's rows (its diagonal block, then off-diagonal block) */
};

/* An array left uninitialised: every element is written before it is read */
template <class T>
struct Buffer {
  std::unique_ptr<T[]> p;
  void                 allocate(size_t n) { p.reset(new T[n ? n : 1]); }
  T                   *data() { return p.get(); }
  T                   &operator[](size_t i) { return p[i]; }
};

/* C's arrays (MatCreateMPIAIJWithSplitArrays does not copy them), owned by C through a container */
struct SplitStorage {
  std::vector<PetscInt>                 di, oi;
  Buffer<PetscInt>                      dj, oj;
  Buffer<PetscScalar>                   da, oa;
};

struct OperandStamp {
  Mat              mat     = nullptr; /* identity only, not referenced */
  PetscObjectState nzstate = 0, state = 0;
  PetscInt         m = 0, n = 0;
  PetscInt64       nnz  = 0;
  std::uint64_t    hash = 0;
};

/* The diagonal and off-diagonal blocks of an assembled MPIAIJ */
struct Blocks {
  CsrView         d, o;
  const PetscInt *garray = nullptr;
  PetscInt        nlow   = 0; /* ghost columns left of the owned block: garray[0, nlow) */
};
} // namespace

/* C->product->data; also the inner product B*C of A*B*C */
struct MatProductCluster_MPIAIJ {
  MatProductType type = MATPRODUCT_UNSPECIFIED;
  Mat            aux  = nullptr;                   /* ABt: B^T, RARt: R^T (MatTranspose); ABC: B*C */
  std::unique_ptr<MatProductCluster_MPIAIJ> inner; /* ABC: the product that forms aux */
  LocalRows      a;                                /* A's own rows */
  LocalRows      p;                                /* PtAP, RARt: P's own rows (the left factor of P^T (AP)) */
  LocalRows      right;                            /* A*B-like and PtAP: the rows of B (P) for a's columns; AtB: B's own rows */
  bool           has_ab = false, has_at = false;   /* which local products run */
  Plan           ab_plan, at_plan;                 /* a * right; X^T * Y (AtB: a^T right, PtAP: p^T ab) */
  Csr            ab, at;
  ResultAssembly out;
  OperandStamp   stamp[3];
  int            nops = 0;
  bool           values_from_symbolic = false;
  PetscInt       numeric_count        = 0;
  PetscLogDouble seconds_fetch = 0, seconds_local = 0, seconds_assembly = 0; /* symbolic phase, this rank */

  const Csr       &result() const { return has_at ? at : ab; }
  const LocalRows &result_rows() const { return type == MATPRODUCT_AtB ? a : p; } /* AtB, PtAP: whose columns R's rows are */
};

static PetscErrorCode MatClusterLocalRowsDestroy(LocalRows *r)
{
  PetscFunctionBegin;
  PetscCall(MatDestroy(&r->fetched));
  PetscCall(ISDestroy(&r->fetched_rows));
  PetscCall(ISDestroy(&r->all_cols));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductClusterMPIDestroy(MatProductCluster_MPIAIJ *d)
{
  PetscFunctionBegin;
  if (!d) PetscFunctionReturn(0);
  if (d->inner) PetscCall(MatProductClusterMPIDestroy(d->inner.release()));
  PetscCall(MatDestroy(&d->aux));
  PetscCall(MatClusterLocalRowsDestroy(&d->a));
  PetscCall(MatClusterLocalRowsDestroy(&d->p));
  PetscCall(MatClusterLocalRowsDestroy(&d->right));
  PetscCall(MatDestroy(&d->out.remote));
  delete d;
  PetscFunctionReturn(0);
}

static PetscErrorCode MatProductDestroy_Cluster_MPIAIJ(void *data)
{
  PetscFunctionBegin;
  PetscCall(MatProductClusterMPIDestroy(static_cast<MatProductCluster_MPIAIJ *>(data)));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatClusterGetBlocks(Mat M, Blocks *b)
{
  Mat Ad, Ao;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, &b->garray));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Ad, "diagonal block", &b->d));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Ao, "off-diagonal block", &b->o));
  b->nlow = (PetscInt)(std::lower_bound(b->garray, b->garray + b->o.ncols, M->cmap->rstart) - b->garray);
  PetscFunctionReturn(0);
}

/* The operand's own rows into csr rows [own_row0, own_row0 + own_rows) of r, in increasing global
   column order: off-diagonal entries left of the owned block, the diagonal block, the rest. With
   pattern, the column numbers too (r.csr.rowptr must be set). */
static void MatClusterCopyOwnRows(const Blocks &b, LocalRows &r, bool pattern)
{
  const PetscInt *dptr = b.d.rowptr, *optr = b.o.rowptr;
#pragma omp parallel for schedule(static) if (b.d.nnz() + b.o.nnz() > 65536)
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
static PetscErrorCode MatClusterLocalRowsOwn(Mat M, LocalRows *r)
{
  Blocks b;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks(M, &b));
  const PetscInt nown = M->cmap->n, no = b.o.ncols, m = M->rmap->n;
  PetscClusterCallCXX(PetscObjectComm((PetscObject)M), "local rows", {
    r->own_col0 = MatClusterColumnLayout(b.garray, no, M->cmap->rstart, nown, r->global); /* = b.nlow */
    r->own_row0 = 0;
    r->own_rows = m;
    r->ghost_col.resize((size_t)no);
    for (PetscInt c = 0; c < no; ++c) r->ghost_col[c] = c < b.nlow ? c : c + nown;
    r->csr.nrows = m;
    r->csr.ncols = no + nown;
    r->csr.rowptr.resize((size_t)m + 1);
    r->csr.rowptr[0] = 0;
    for (PetscInt i = 0; i < m; ++i) r->csr.rowptr[i + 1] = r->csr.rowptr[i] + b.d.row_length(i) + b.o.row_length(i);
    r->csr.colidx.resize((size_t)r->csr.rowptr[m]);
    r->csr.values.resize((size_t)r->csr.rowptr[m]);
    MatClusterCopyOwnRows(b, *r, true);
  });
  PetscFunctionReturn(0);
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
static PetscErrorCode MatClusterLocalRowsFetch(Mat A, const LocalRows &a, Mat B, LocalRows *r)
{
  Blocks   b;
  Mat     *sub = NULL;
  CsrView  f;
  PetscInt nfetch;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks(B, &b));
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
  PetscCall(MatSeqAIJGetCsrView_Cluster(r->fetched, "fetched rows", &f));

  const PetscInt c0 = B->cmap->rstart, c1 = B->cmap->rend, nown = c1 - c0, m = B->rmap->n;
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

    Csr &R = r->csr;
    R.nrows = nfetch + m;
    R.ncols = (PetscInt)r->global.size();
    R.rowptr.resize((size_t)R.nrows + 1);
    R.rowptr[0] = 0;
    pcluster::Count nnz = 0; /* own rows and fetched rows: each fits PetscInt, their sum need not */
    for (PetscInt i = 0; i < R.nrows; ++i) {
      const PetscInt fi = i < r->own_row0 ? i : i - m; /* fetched row, for rows outside the own block */
      nnz += i >= r->own_row0 && i < r->own_row0 + m ? b.d.row_length(i - r->own_row0) + b.o.row_length(i - r->own_row0) : f.row_length(fi);
      R.rowptr[i + 1] = pcluster::checked_index<PetscInt>(nnz, "nnz of B's rows for A's columns");
    }
    R.colidx.resize((size_t)R.rowptr[R.nrows]);
    R.values.resize((size_t)R.rowptr[R.nrows]);
    MatClusterCopyOwnRows(b, *r, true);
    for (PetscInt fi = 0; fi < nfetch; ++fi) {
      const PetscInt i = fi < r->own_row0 ? fi : fi + m;
      for (PetscInt q = f.rowptr[fi], k = R.rowptr[i]; q < f.rowptr[fi + 1]; ++q, ++k) {
        const PetscInt c = f.colidx[q];
        R.colidx[k]      = c >= c0 && c < c1 ? nlow + (c - c0) : MatClusterRenumber(r->global, c);
        R.values[k]      = f.values[q];
      }
    }
  });
  PetscFunctionReturn(0);
}

/* New values of the rows: M's own rows (M is the operand they were taken from: A, P, or B for
   fetched rows), fetched rows again with MAT_REUSE_MATRIX */
static PetscErrorCode MatClusterLocalRowsRefresh(Mat M, LocalRows *r)
{
  Blocks b;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks(M, &b));
  MatClusterCopyOwnRows(b, *r, false);
  if (r->fetched_rows) {
    Mat     *sub;
    CsrView  f;
    Csr     &R = r->csr;
    PetscCall(PetscMalloc1(1, &sub));
    sub[0] = r->fetched;
    PetscCall(MatCreateSubMatrices(M, 1, &r->fetched_rows, &r->all_cols, MAT_REUSE_MATRIX, &sub));
    PetscCall(PetscFree(sub));
    PetscCall(MatSeqAIJGetCsrView_Cluster(r->fetched, "fetched rows", &f));
    const PetscInt low = f.rowptr[r->own_row0]; /* values of the fetched rows left of the own rows */
    /* std::copy, not memcpy: f.values is null when no fetched row has an entry */
    std::copy(f.values, f.values + low, R.values.begin());
    std::copy(f.values + low, f.values + f.nnz(), R.values.begin() + R.rowptr[r->own_row0 + r->own_rows]);
  }
  PetscFunctionReturn(0);
}

/* Local-pattern stamp of an MPIAIJ operand (diagonal and off-diagonal blocks, each hashed once per
   pattern as SeqAIJ operands are, and the ghost columns) */
static PetscErrorCode MatClusterStampMPIAIJ(Mat M, OperandStamp *s)
{
  Blocks        b;
  Mat           Ad, Ao;
  std::uint64_t hd, ho;

  PetscFunctionBegin;
  PetscCall(MatClusterGetBlocks(M, &b));
  PetscCall(MatMPIAIJGetSeqAIJ(M, &Ad, &Ao, NULL));
  PetscCall(MatClusterPatternHash_Private(Ad, "diagonal block", b.d, &hd));
  PetscCall(MatClusterPatternHash_Private(Ao, "off-diagonal block", b.o, &ho));
  std::uint64_t h = hd * 0x9E3779B97F4A7C15ull + ho;
  for (PetscInt c = 0; c < b.o.ncols; ++c) h += (std::uint64_t)(c + 1) * 0xC2B2AE3D27D4EB4Full * (std::uint64_t)b.garray[c];
  s->mat = M;
  PetscCall(MatGetNonzeroState(M, &s->nzstate));
  PetscCall(PetscObjectStateGet((PetscObject)M, &s->state));
  s->m    = M->rmap->n;
  s->n    = M->cmap->n;
  s->nnz  = b.d.nnz() + b.o.nnz();
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

/* Every operand assembled on every rank: MatSetValues() leaves a matrix unassembled on the ranks
   that called it only, and a rank that stopped alone would leave the others waiting */
static PetscErrorCode MatClusterCheckAssembledMPIAIJ(MPI_Comm comm, int nops, const Mat mats[], const char *const names[])
{
  int mine = nops, first;

  PetscFunctionBegin;
  for (int k = nops - 1; k >= 0; --k)
    if (!mats[k]->assembled) mine = k;
  PetscCallMPI(MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm));
  PetscCheck(first == nops, comm, PETSC_ERR_ARG_WRONGSTATE, "petsc-cluster: matrix %s must be assembled (MatAssemblyBegin/End)", names[first]);
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

/*
   An error raised on some ranks only (a local product whose nnz overflows PetscInt or runs out of
   memory) must reach every rank before the next collective call, or the others wait in it forever.
   Every rank passes the error code of the local work it just did (0: none); then all ranks fail
   together: those with an error with their own, the others naming the rank that failed.
*/
static PetscErrorCode MatClusterAllRanks(MPI_Comm comm, PetscErrorCode ierr, const char what[])
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
  if (!worst.code) PetscFunctionReturn(0);
  PetscCall(ierr); /* this rank's own error: its traceback goes on */
  PetscCall(PetscErrorMessage((PetscErrorCode)worst.code, &text, NULL));
  SETERRQ(comm, (PetscErrorCode)worst.code, "petsc-cluster %s failed on rank %d: %s (that rank's message says why)", what, worst.rank, text ? text : "");
}

/* PetscClusterCallCXX for local work whose error (an exception of the core) must reach every rank */
#define MatClusterCallCXXAllRanks(comm, what, ...) \
  PetscCall(MatClusterAllRanks((comm), PetscClusterCallCXX_Private((comm), __LINE__, PETSC_FUNCTION_NAME, __FILE__, (what), [&]() { __VA_ARGS__; }), (what)))

static PetscErrorCode MatClusterSplitStorageDestroy(void *ctx)
{
  PetscFunctionBegin;
  delete static_cast<SplitStorage *>(ctx);
  PetscFunctionReturn(0);
}

/* C's values from R (its own rows) and, for A^T*B and P^T*A*P, from the rows other ranks sent */
static PetscErrorCode MatClusterResultValues(const ResultAssembly &out, const Csr &R, Mat C)
{
  Mat          Cd, Co;
  CsrView      vd, vo;
  PetscScalar *da, *oa;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, NULL));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Cd, "C", &vd));
  PetscCall(MatSeqAIJGetCsrView_Cluster(Co, "C", &vo));
  PetscCall(MatSeqAIJGetArrayWrite(Cd, &da));
  PetscCall(MatSeqAIJGetArrayWrite(Co, &oa));
  const PetscInt     count = (PetscInt)out.pos_own.size();
  const PetscInt    *pos   = out.pos_own.data();
  const PetscScalar *v     = R.values.data() + (out.own_row0 < R.nrows ? R.rowptr[out.own_row0] : 0);
  if (out.assign) { /* row i of C is R's row own_row0 + i: off-diagonal entries left of the diagonal block, the block, the rest */
    const PetscInt m = vd.nrows, c0 = out.own_col0;
#pragma omp parallel for schedule(static) if (vd.nnz() > 65536)
    for (PetscInt i = 0; i < m; ++i) {
      const PetscInt *cols = R.colidx.data(), k0 = R.rowptr[out.own_row0 + i];
      const PetscInt  nd = vd.row_length(i), nleft = (PetscInt)(std::lower_bound(cols + k0, cols + R.rowptr[out.own_row0 + i + 1], c0) - (cols + k0));
      const PetscScalar *src = R.values.data() + k0;
      std::copy(src, src + nleft, oa + vo.rowptr[i]);
      std::copy(src + nleft, src + nleft + nd, da + vd.rowptr[i]);
      std::copy(src + nleft + nd, src + nleft + nd + (vo.row_length(i) - nleft), oa + vo.rowptr[i] + nleft);
    }
  } else {
    std::fill(da, da + vd.nnz(), (PetscScalar)0);
    std::fill(oa, oa + vo.nnz(), (PetscScalar)0);
#pragma omp parallel for schedule(static) if (count > 65536)
    for (PetscInt k = 0; k < count; ++k) (pos[k] >= 0 ? da[pos[k]] : oa[-1 - pos[k]]) += v[k]; /* positions are distinct */
    if (out.remote) {
      Blocks rb;
      PetscCall(MatClusterGetBlocks(out.remote, &rb));
      const PetscInt nd = (PetscInt)rb.d.nnz(), nr = (PetscInt)out.pos_remote.size();
      const PetscInt *pr = out.pos_remote.data();
      for (PetscInt k = 0; k < nr; ++k) (pr[k] >= 0 ? da[pr[k]] : oa[-1 - pr[k]]) += k < nd ? rb.d.values[k] : rb.o.values[k - nd];
    }
  }
  PetscCall(MatSeqAIJRestoreArrayWrite(Cd, &da));
  PetscCall(MatSeqAIJRestoreArrayWrite(Co, &oa));
  PetscFunctionReturn(0);
}

/* R's rows outside [own_row0, own_row0 + m) as COO values, in R's order */
static void MatClusterRemoteValues(const Csr &R, PetscInt own_row0, PetscInt m, std::vector<PetscScalar> &values)
{
  const PetscInt lo = R.rowptr[own_row0], hi = R.rowptr[own_row0 + m], nnz = R.rowptr[R.nrows];
  values.resize((size_t)(lo + nnz - hi));
  std::copy(R.values.begin(), R.values.begin() + lo, values.begin());
  std::copy(R.values.begin() + hi, R.values.begin() + nnz, values.begin() + lo);
}

/*
   This rank's rows of C: R's own rows, the rows other ranks sent (rb: the remote matrix's blocks, or
   NULL) and forced diagonal entries, merged in increasing global column order into split arrays
   (diagonal block columns local, the others global), and where every value goes (out->pos_*).
*/
static SplitStorage *MatClusterMergeRows(const Csr &R, PetscInt own_row0, const std::vector<PetscInt> &col_global, PetscInt own_col0, const Blocks *rbp, bool force_diagonal, PetscInt m, PetscInt rstart, PetscInt cstart, PetscInt cend, PetscInt N, ResultAssembly *out)
{
  static const Blocks none;
  const Blocks       &rb = rbp ? *rbp : none;
  std::unique_ptr<SplitStorage> s(new SplitStorage);
  const PetscInt first = m ? R.rowptr[own_row0] : 0;
  const PetscInt nd_remote = rbp ? (PetscInt)rbp->d.nnz() : 0;
  s->di.assign((size_t)m + 1, 0);
  s->oi.assign((size_t)m + 1, 0);
  if (!rbp && !force_diagonal) { /* C's rows are R's own rows (A*B-like): each split at the diagonal block */
    const PetscInt *cols = R.colidx.data(), c0 = own_col0, c1 = own_col0 + (cend - cstart);
#pragma omp parallel for schedule(static) if (m > 1024)
    for (PetscInt i = 0; i < m; ++i) {
      const PetscInt *b = cols + R.rowptr[own_row0 + i], *e = cols + R.rowptr[own_row0 + i + 1];
      const PetscInt  nd = (PetscInt)(std::lower_bound(b, e, c1) - std::lower_bound(b, e, c0));
      s->di[i + 1] = nd;
      s->oi[i + 1] = (PetscInt)(e - b) - nd;
    }
    for (PetscInt i = 0; i < m; ++i) s->di[i + 1] += s->di[i], s->oi[i + 1] += s->oi[i];
    s->dj.allocate((size_t)s->di[m]);
    s->oj.allocate((size_t)s->oi[m]);
    s->da.allocate((size_t)s->di[m]);
    s->oa.allocate((size_t)s->oi[m]);
#pragma omp parallel for schedule(static) if (m > 1024)
    for (PetscInt i = 0; i < m; ++i) {
      PetscInt k = R.rowptr[own_row0 + i], pd = s->di[i], po = s->oi[i];
      const PetscInt kend = R.rowptr[own_row0 + i + 1];
      for (; k < kend && cols[k] < c0; ++k) s->oj[po++] = col_global[cols[k]];
      for (; k < kend && cols[k] < c1; ++k) s->dj[pd++] = cols[k] - c0;
      for (; k < kend; ++k) s->oj[po++] = col_global[cols[k]];
    }
    out->assign = true;
    return s.release();
  }
  out->pos_own.resize((size_t)(m ? R.rowptr[own_row0 + m] - first : 0));
  out->pos_remote.resize((size_t)(rbp ? rbp->d.nnz() + rbp->o.nnz() : 0));
  /* Visits row i's union in increasing global column: f(g, k_own or -1, k_remote or -1) */
  auto merge = [&](PetscInt i, auto &&f) {
    PetscInt k = R.rowptr[own_row0 + i], kend = R.rowptr[own_row0 + i + 1];
    PetscInt q = 0, qend = 0, t = 0, tend = 0, q2 = 0; /* remote: o-left [q, q2), d [t, tend), o-right [q2, qend) */
    if (rbp) {
      q = rb.o.rowptr[i], qend = rb.o.rowptr[i + 1], t = rb.d.rowptr[i], tend = rb.d.rowptr[i + 1];
      for (q2 = q; q2 < qend && rb.o.colidx[q2] < rb.nlow; ++q2) {}
    }
    const PetscInt diag = force_diagonal && rstart + i < N ? rstart + i : -1;
    bool           diag_done = diag < 0;
    auto           next_remote = [&](PetscInt *g, PetscInt *pos) {
      if (q < q2) *g = rb.garray[rb.o.colidx[q]], *pos = nd_remote + q;
      else if (t < tend) *g = cstart + rb.d.colidx[t], *pos = t;
      else if (q < qend) *g = rb.garray[rb.o.colidx[q]], *pos = nd_remote + q;
      else return false;
      return true;
    };
    auto advance_remote = [&]() {
      if (q < q2) ++q;
      else if (t < tend) ++t;
      else ++q;
    };
    for (;;) {
      PetscInt   gr = PETSC_MAX_INT, pr = -1, go = PETSC_MAX_INT;
      const bool have_r = next_remote(&gr, &pr);
      if (k < kend) go = col_global[R.colidx[k]];
      PetscInt g = std::min(go, gr);
      if (!diag_done && diag <= g) g = diag;
      if (g == PETSC_MAX_INT) break;
      const PetscInt ko = go == g ? k++ : -1;
      const PetscInt kr = have_r && gr == g ? pr : -1;
      if (kr >= 0) advance_remote();
      if (!diag_done && diag == g) diag_done = true;
      f(g, ko, kr);
    }
  };
#pragma omp parallel for schedule(static) if (m > 1024)
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt nd = 0, no = 0;
    merge(i, [&](PetscInt g, PetscInt, PetscInt) { (g >= cstart && g < cend ? nd : no)++; });
    s->di[i + 1] = nd;
    s->oi[i + 1] = no;
  }
  { /* own rows, rows from other ranks and the diagonal: each fits PetscInt, their union need not */
    pcluster::Count nd = 0, no = 0;
    for (PetscInt i = 0; i < m; ++i) {
      nd += s->di[i + 1], no += s->oi[i + 1];
      s->di[i + 1] = pcluster::checked_index<PetscInt>(nd, "nnz of C's diagonal block on this rank");
      s->oi[i + 1] = pcluster::checked_index<PetscInt>(no, "nnz of C's off-diagonal block on this rank");
    }
  }
  s->dj.allocate((size_t)s->di[m]);
  s->oj.allocate((size_t)s->oi[m]);
  s->da.allocate((size_t)s->di[m]);
  s->oa.allocate((size_t)s->oi[m]);
  out->assign = !rbp && (PetscInt)out->pos_own.size() == s->di[m] + s->oi[m]; /* then C's rows are R's own rows */
  if (out->assign) {
    out->pos_own.clear();
    out->pos_own.shrink_to_fit();
  }
#pragma omp parallel for schedule(static) if (m > 1024)
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt pd = s->di[i], po = s->oi[i];
    merge(i, [&](PetscInt g, PetscInt ko, PetscInt kr) {
      PetscInt p;
      if (g >= cstart && g < cend) s->dj[pd] = g - cstart, p = pd++;
      else s->oj[po] = g, p = -1 - po++;
      if (ko >= 0 && !out->assign) out->pos_own[ko - first] = p;
      if (kr >= 0) out->pos_remote[kr] = p;
    });
  }
  return s.release();
}

/*
   Builds T, the MPIAIJ with the layouts rmap x cmap (set up: the operands' own) holding R: R's rows
   [own_row0, own_row0 + m) are
   this rank's rows of T; with has_remote, R's other rows (global numbers row_global) go to their
   owners through out->remote. Columns: col_global, of which [own_col0, own_col0 + n) are T's own
   columns (its diagonal block). T is built on our arrays, with R's values.
*/
static PetscErrorCode MatClusterResultSymbolic(MPI_Comm comm, const Csr &R, PetscInt own_row0, const PetscInt *row_global, const std::vector<PetscInt> &col_global, PetscInt own_col0, bool has_remote, bool force_diagonal, PetscLayout rmap, PetscLayout cmap, ResultAssembly *out, Mat *T)
{
  const PetscInt m = rmap->n, M = rmap->N, n = cmap->n, N = cmap->N, rstart = rmap->rstart, cstart = cmap->rstart, cend = cmap->rend;
  Blocks         rb;
  SplitStorage  *st = NULL;
  PetscContainer container = NULL;
  PetscErrorCode ierr;

  PetscFunctionBegin;
  out->own_row0 = own_row0;

  if (has_remote) { /* R's rows owned by other ranks: PETSc's COO assembly sums them on their owners */
    std::vector<PetscInt> ci, cj;
    MatClusterCallCXXAllRanks(comm, "assembling C", {
      for (PetscInt i = 0; i < R.nrows; ++i) {
        if (i == own_row0) i += m;
        if (i >= R.nrows) break;
        for (PetscInt k = R.rowptr[i]; k < R.rowptr[i + 1]; ++k) {
          ci.push_back(row_global[i]);
          cj.push_back(col_global[R.colidx[k]]);
        }
      }
      MatClusterRemoteValues(R, own_row0, m, out->remote_values);
    });
    PetscCall(MatCreate(comm, &out->remote));
    PetscCall(MatSetSizes(out->remote, m, n, M, N));
    PetscCall(MatSetType(out->remote, MATMPIAIJ));
    PetscCall(MatSetPreallocationCOO(out->remote, (PetscCount)ci.size(), ci.data(), cj.data()));
    PetscCall(MatSetValuesCOO(out->remote, out->remote_values.data(), INSERT_VALUES));
    PetscCall(MatClusterGetBlocks(out->remote, &rb));
  }

  MatClusterCallCXXAllRanks(comm, "assembling C", st = MatClusterMergeRows(R, own_row0, col_global, own_col0, has_remote ? &rb : nullptr, force_diagonal, m, rstart, cstart, cend, N, out));
  out->own_col0 = own_col0;
  /* T, the container and the arrays are freed on every error path (T does not own the arrays, so T goes first) */
  ierr = [&]() -> PetscErrorCode {
    PetscCall(MatCreateMPIAIJWithSplitArrays(comm, m, n, M, N, st->di.data(), st->dj.data(), st->da.data(), st->oi.data(), st->oj.data(), st->oa.data(), T));
    PetscCall(PetscContainerCreate(comm, &container));
    PetscCall(PetscContainerSetUserDestroy(container, MatClusterSplitStorageDestroy));
    PetscCall(PetscContainerSetPointer(container, st));
    st = NULL; /* the container's now */
    PetscCall(PetscObjectCompose((PetscObject)*T, "MatClusterSplitStorage", (PetscObject)container)); /* T owns the arrays */
    return 0;
  }();
  if (ierr) {
    (void)MatDestroy(T);
    (void)PetscContainerDestroy(&container);
    delete st;
    PetscCall(ierr);
  }
  PetscCall(PetscContainerDestroy(&container));
  PetscCall(MatClusterResultValues(*out, R, *T));
  PetscCall(MatAssemblyBegin(*T, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*T, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(0);
}

static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, MatProductType type, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, PetscInt rbs, PetscInt cbs, Mat *T);
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, Mat out);

/* The operand whose rows the A*B step takes (B, B^T, R^T or B*C), made (initial) or refreshed */
static PetscErrorCode MatClusterRightOperand(MatProductCluster_MPIAIJ *d, Mat B, Mat C3, const pcluster::SpgemmOptions *opts, bool fuse, bool initial, Mat *right)
{
  PetscFunctionBegin;
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
      PetscClusterCallCXX(PetscObjectComm((PetscObject)B), "symbolic phase", d->inner.reset(new MatProductCluster_MPIAIJ));
      PetscCall(MatClusterMPIProductSymbolic(d->inner.get(), MATPRODUCT_AB, B, C3, NULL, *opts, fuse, false, PetscAbs(B->rmap->bs), PetscAbs(C3->cmap->bs), &d->aux));
    } else PetscCall(MatClusterMPIProductNumeric(d->inner.get(), B, C3, NULL, d->aux));
    *right = d->aux;
    break;
  default:
    *right = B; /* AB, PtAP (B is P); AtB uses B's own rows */
  }
  PetscFunctionReturn(0);
}

/*
   Makes T, the product `type` of A, B (and C3 for ABC) as an MPIAIJ on our arrays (values too when
   fuse, zeros otherwise), and the plans to refresh it.
*/
static PetscErrorCode MatClusterMPIProductSymbolic(MatProductCluster_MPIAIJ *d, MatProductType type, Mat A, Mat B, Mat C3, const pcluster::SpgemmOptions &opts, bool fuse, bool force_diagonal, PetscInt rbs, PetscInt cbs, Mat *T)
{
  MPI_Comm                          comm = PetscObjectComm((PetscObject)A);
  Mat                               right = NULL, P = NULL;
  PetscLayout                       rmap, cmap;
  PetscLogDouble                    t0, t1 = 0, t2, t3;
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
  PetscCall(MatClusterRightOperand(d, B, C3, &opts, fuse, true, &right));
  d->has_ab = type != MATPRODUCT_AtB;
  d->has_at = type == MATPRODUCT_AtB || type == MATPRODUCT_PtAP || type == MATPRODUCT_RARt;
  if (type == MATPRODUCT_PtAP || type == MATPRODUCT_RARt) P = right;

  /* The local pieces and products. Only MatCreateSubMatrices in the fetch is collective: the work
     before and after it is local, and an error there reaches every rank (MatClusterAllRanks). */
  PetscCall(MatClusterAllRanks(comm, MatClusterLocalRowsOwn(A, &d->a), "symbolic phase"));
  PetscCall(MatClusterAllRanks(comm, [&]() -> PetscErrorCode {
    if (d->has_ab) PetscCall(MatClusterLocalRowsFetch(A, d->a, right, &d->right));
    else PetscCall(MatClusterLocalRowsOwn(B, &d->right));
    if (P) PetscCall(MatClusterLocalRowsOwn(P, &d->p));
    PetscCall(PetscTime(&t1));
    PetscCall(PetscLogEventBegin(MAT_ClusterSym, A, B, 0, 0));

    /* The local products (the operands come from PETSc's assembled blocks: sorted, in range) */
    pcluster::SpgemmOptions o = opts;
    o.check_operands          = false;
    o.include_diagonal        = false; /* C's global diagonal: added by the assembly */
    if (d->has_ab) {
      bs[0] = bsof(A);
      bs[1] = bsof(right);
      PetscClusterCallCXX(comm, "symbolic phase", {
        d->ab_plan  = Plan::symbolic(pcluster::ProductType::AB, {d->a.csr.view(), d->right.csr.view()}, o, d->ab.rowptr, d->ab.colidx, fuse ? &d->ab.values : nullptr, bs);
        d->ab.nrows = d->a.csr.nrows;
        d->ab.ncols = d->right.csr.ncols;
        if (!fuse) d->ab.values.assign(d->ab.colidx.size(), 0);
      });
    }
    if (d->has_at) {
      const Csr &x = P ? d->p.csr : d->a.csr, &y = P ? d->ab : d->right.csr;
      bs[0]        = bsof(P ? P : A);
      bs[1]        = P ? bsof(right) : bsof(B);
      PetscClusterCallCXX(comm, "symbolic phase", {
        d->at_plan  = Plan::symbolic(pcluster::ProductType::AtB, {x.view(), y.view()}, o, d->at.rowptr, d->at.colidx, fuse ? &d->at.values : nullptr, bs);
        d->at.nrows = x.ncols;
        d->at.ncols = y.ncols;
        if (!fuse) d->at.values.assign(d->at.colidx.size(), 0);
      });
    }
    return 0;
  }(), "symbolic phase"));
  if (fuse) PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab ? d->ab_plan.flops() : 0) + (d->has_at ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterSym, A, B, 0, 0));
  {
    PetscLogDouble tc = (d->has_ab ? d->ab_plan.seconds_clustering() : 0) + (d->has_at ? d->at_plan.seconds_clustering() : 0);
    if (tc > 0) PetscCall(PetscClusterLogEventAddTime_Private(MAT_ClusterCluster, tc));
  }
  PetscCall(PetscTime(&t2));

  /* C's layouts, as PETSc's algorithms make them; R's rows: A's own rows (A*B-like) or the columns
     of A's (AtB) or P's (PtAP) own rows, of which this rank owns the middle block */
  const bool       at_rows = d->has_at;
  const LocalRows &x       = d->result_rows();
  switch (type) {
  case MATPRODUCT_AtB:
    rmap = A->cmap, cmap = B->cmap;
    break;
  case MATPRODUCT_PtAP:
  case MATPRODUCT_RARt:
    rmap = cmap = P->cmap;
    break;
  default: /* AB, ABt, ABC: A's rows, the right operand's columns */
    rmap = A->rmap, cmap = right->cmap;
  }
  PetscCall(MatClusterResultSymbolic(comm, d->result(), at_rows ? x.own_col0 : 0, at_rows ? x.global.data() : NULL, d->right.global, d->right.own_col0, at_rows, force_diagonal, rmap, cmap, &d->out, T));
  PetscCall(MatSetBlockSizes(*T, rbs, cbs));
  PetscCall(PetscTime(&t3));
  d->seconds_fetch        = t1 - t0;
  d->seconds_local        = t2 - t1;
  d->seconds_assembly     = t3 - t2;
  d->values_from_symbolic = fuse;
  PetscFunctionReturn(0);
}

/* Refreshes `out`'s values from A, B (C3): the pieces, the local products, the boundary exchange */
static PetscErrorCode MatClusterMPIProductNumeric(MatProductCluster_MPIAIJ *d, Mat A, Mat B, Mat C3, Mat out)
{
  MPI_Comm comm  = PetscObjectComm((PetscObject)A);
  Mat      right = NULL, P = NULL;

  PetscFunctionBegin;
  PetscCall(MatClusterRightOperand(d, B, C3, NULL, false, false, &right));
  if (d->type == MATPRODUCT_PtAP || d->type == MATPRODUCT_RARt) P = right;
  PetscCall(MatClusterLocalRowsRefresh(A, &d->a));
  PetscCall(MatClusterLocalRowsRefresh(d->has_ab ? right : B, &d->right));
  if (P) PetscCall(MatClusterLocalRowsRefresh(P, &d->p));
  PetscCall(PetscLogEventBegin(MAT_ClusterNum, A, B, out, 0));
  const Csr &R = d->result();
  MatClusterCallCXXAllRanks(comm, "numeric phase", {
    if (d->has_ab) d->ab_plan.numeric({d->a.csr.view(), d->right.csr.view()}, d->ab.view(), d->ab.values.data());
    if (d->has_at) d->at_plan.numeric({P ? d->p.csr.view() : d->a.csr.view(), P ? d->ab.view() : d->right.csr.view()}, d->at.view(), d->at.values.data());
    if (d->out.remote) MatClusterRemoteValues(R, d->out.own_row0, out->rmap->n, d->out.remote_values);
  });
  PetscCall(PetscLogFlops(2.0 * (PetscLogDouble)((d->has_ab ? d->ab_plan.flops() : 0) + (d->has_at ? d->at_plan.flops() : 0))));
  PetscCall(PetscLogEventEnd(MAT_ClusterNum, A, B, out, 0));
  if (d->out.remote) PetscCall(MatSetValuesCOO(d->out.remote, d->out.remote_values.data(), INSERT_VALUES));
  PetscCall(MatClusterResultValues(d->out, R, out));
  PetscCall(MatAssemblyBegin(out, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(out, MAT_FINAL_ASSEMBLY));
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
        PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s: kernel %s%s%s, flops %" PetscInt64_FMT ", nnz %" PetscInt64_FMT ", clusters %" PetscInt64_FMT "; workspace %" PetscInt64_FMT " KiB per thread (peak), %" PetscInt64_FMT " KiB all threads\n", e != d ? "B*C: " : "", what[k], pcluster::to_string(s.kernel),
                                         s.kernel == pcluster::Kernel::Cluster ? ", scheme " : "", s.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(s.scheme) : "", (PetscInt64)s.flops, (PetscInt64)st.nnz, (PetscInt64)s.num_clusters, MatClusterKiB(s.workspace_thread_bytes),
                                         MatClusterKiB(s.workspace_bytes)));
      }
    }
  }
  PetscCall(PetscViewerASCIIPrintf(viewer, "seconds on rank 0: fetching rows %g, local products %g, building C %g; numeric runs %" PetscInt_FMT "\n", d->seconds_fetch, d->seconds_local, d->seconds_assembly, d->numeric_count));
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
  PetscCall(MatClusterCheckAssembledMPIAIJ(comm, d->nops, mats, names));
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
  }
  PetscCall(MatClusterCheckAssembledMPIAIJ(comm, type == MATPRODUCT_ABC ? 3 : 2, mats, names));
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
  PetscInt rbs, cbs;
  Mat      T = NULL;
  MatClusterResultBlockSizes_Private(C, &rbs, &cbs);
  PetscErrorCode ierr = MatClusterMPIProductSymbolic(d.get(), type, A, B, mats[2], opts, product->api_user, C->force_diagonals, rbs, cbs, &T);
  if (!ierr) ierr = MatClusterAdoptStructure_Private(C, &T); /* C in place: MatHeaderReplace */
  if (ierr) {
    (void)MatDestroy(&T);
    (void)MatProductClusterMPIDestroy(d.release());
    PetscCall(ierr);
  }
  C->ops->productnumeric = MatProductNumeric_MPIAIJ_Cluster; /* after MatHeaderReplace, which replaced C->ops */
  product->view          = MatProductView_Cluster_MPIAIJ;
  product->destroy       = MatProductDestroy_Cluster_MPIAIJ;
  product->data          = d.release();
  for (const MatProductCluster_MPIAIJ *e = static_cast<MatProductCluster_MPIAIJ *>(product->data); e; e = e->inner.get()) {
    for (const Plan *plan : {e->has_ab ? &e->ab_plan : nullptr, e->has_at ? &e->at_plan : nullptr}) {
      if (!plan) continue;
      for (const pcluster::ProductStep &st : plan->steps()) {
        const char *local = e != product->data ? "B*C" : (plan == &e->ab_plan ? "A_local*B_rows" : "X_local^T*Y_local");
        char        what[128];
        PetscCall(PetscInfo(C, "petsc-cluster %s %s, local: %s: %s, kernel %s, flops %" PetscInt64_FMT ", nnz %" PetscInt64_FMT ", symbolic %g s\n", MatProductTypes[type], product->alg, local, st.what.c_str(), st.is_transpose ? "transpose" : pcluster::to_string(st.spgemm.kernel),
                            (PetscInt64)st.spgemm.flops, (PetscInt64)st.nnz, st.spgemm.seconds_symbolic));
        if (st.is_transpose) continue;
        PetscCall(PetscSNPrintf(what, sizeof what, "%s %s, local: %s: %s", MatProductTypes[type], product->alg, local, st.what.c_str()));
        PetscCall(MatClusterInfoWorkspace_Private(C, what, PETSC_FALSE, st.spgemm));
      }
    }
  }
  {
    const auto *e = static_cast<MatProductCluster_MPIAIJ *>(product->data);
    PetscCall(PetscInfo(C, "petsc-cluster %s %s: local rows %" PetscInt_FMT ", rows fetched from other ranks %" PetscInt_FMT ", local result nnz %" PetscInt64_FMT "; seconds: fetching %g, local products %g, building C %g\n", MatProductTypes[type], product->alg, A->rmap->n,
                        e->right.csr.nrows - e->right.own_rows, (PetscInt64)e->result().colidx.size(), e->seconds_fetch, e->seconds_local, e->seconds_assembly));
  }
  PetscFunctionReturn(0);
}
