/*
   The local result R of a MATMPIAIJ product put together as C (product_mpiaij.cxx computes R).

   The rows of R this rank owns go straight into C's diagonal and off-diagonal arrays; the other rows
   of R (A^T*B, P^T*A*P: the boundary) go to their owners through an auxiliary MPIAIJ assembled by
   PETSc's COO interface (MatSetPreallocationCOO / MatSetValuesCOO, which sums entries meeting on one
   place), whose rows each owner merges into its rows of C. C is built on our arrays without a copy
   (MatCreateMPIAIJWithSplitArrays), and the symbolic phase records where every value of R and of
   the remote rows goes, so a numeric phase is a scatter of values.
*/
#include "mpiaij.h"

#include <algorithm>

namespace
{
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
  std::vector<PetscInt> di, oi;
  Buffer<PetscInt>      dj, oj;
  Buffer<PetscScalar>   a; /* the diagonal block's values, then the off-diagonal block's: one position numbers both */
  PetscScalar          *da() { return a.data(); }
  PetscScalar          *oa() { return a.data() + di.back(); }
  void                  allocate_values() { a.allocate((size_t)pcluster::checked_index<PetscInt>((pcluster::Count)di.back() + oi.back(), "nnz of C on this rank")); }
};

/* C's blocks and values (diagonal block then off-diagonal block, one array, as SplitStorage made them) */
struct ResultArrays {
  MatClusterCsrView d, o;
  PetscScalar      *a = nullptr;
  PetscScalar      *oa() const { return a + d.nnz(); }
};

static PetscErrorCode MatClusterResultArrays(Mat C, ResultArrays *r)
{
  Mat          Cd, Co;
  PetscScalar *oa;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, NULL));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(Cd, "C", &r->d));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(Co, "C", &r->o));
  PetscCall(MatSeqAIJGetArrayWrite(Cd, &r->a));
  PetscCall(MatSeqAIJGetArrayWrite(Co, &oa));
  PetscCheck(oa == r->oa(), PETSC_COMM_SELF, PETSC_ERR_PLIB, "petsc-cluster: C's values are no longer where the product put them");
  PetscFunctionReturn(PETSC_SUCCESS);
}

static PetscErrorCode MatClusterResultArraysRestore(Mat C, ResultArrays *r)
{
  Mat          Cd, Co;
  PetscScalar *oa = r->oa();

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, &Co, NULL));
  PetscCall(MatSeqAIJRestoreArrayWrite(Cd, &r->a));
  PetscCall(MatSeqAIJRestoreArrayWrite(Co, &oa));
  PetscFunctionReturn(PETSC_SUCCESS);
}
} // namespace

/* C's values from R (its own rows) and, for A^T*B and P^T*A*P, from the rows other ranks sent */
static PetscErrorCode MatClusterResultValues(const MatClusterResultAssembly &out, const MatClusterCsr &R, Mat C)
{
  ResultArrays ra;

  PetscFunctionBegin;
  PetscCall(MatClusterResultArrays(C, &ra));
  const MatClusterCsrView &vd = ra.d, &vo = ra.o;
  PetscScalar *const       da = ra.a, *const oa = ra.oa();
  const PetscInt     count = (PetscInt)out.pos_own.size();
  const PetscInt    *pos   = out.pos_own.data();
  const PetscScalar *v     = out.own_in_place ? NULL : R.values.data() + (out.own_row0 < R.nrows ? R.rowptr[out.own_row0] : 0);
  const int          nt    = pcluster::threads_for_work(vd.nnz() + vo.nnz(), out.threads);
  if (out.assign) { /* row i of C is R's row own_row0 + i: off-diagonal entries left of the diagonal block, the block, the rest */
    const PetscInt m = vd.nrows, c0 = out.own_col0;
#pragma omp parallel for schedule(static) num_threads(nt)
    for (PetscInt i = 0; i < m; ++i) {
      const PetscInt *cols = R.colidx.data(), k0 = R.rowptr[out.own_row0 + i];
      const PetscInt  nd = vd.row_length(i), nleft = (PetscInt)(std::lower_bound(cols + k0, cols + R.rowptr[out.own_row0 + i + 1], c0) - (cols + k0));
      const PetscScalar *src = R.values.data() + k0;
      std::copy(src, src + nleft, oa + vo.rowptr[i]);
      std::copy(src + nleft, src + nleft + nd, da + vd.rowptr[i]);
      std::copy(src + nleft + nd, src + nleft + nd + (vo.row_length(i) - nleft), oa + vo.rowptr[i] + nleft);
    }
  } else {
    if (!out.own_in_place) { /* (else the kernel wrote the own rows in place) */
      std::fill(da, da + vd.nnz() + vo.nnz(), (PetscScalar)0);
#pragma omp parallel for schedule(static) num_threads(nt)
      for (PetscInt k = 0; k < count; ++k) da[pos[k]] += v[k]; /* positions are distinct; oa follows da */
    }
    if (out.remote) {
      MatClusterBlocks rb;
      PetscCall(MatClusterGetBlocks_Private(out.remote, &rb));
      const PetscInt  nd = (PetscInt)rb.d.nnz(), nr = (PetscInt)out.pos_remote.size();
      const PetscInt *pr = out.pos_remote.data();
      for (PetscInt k = 0; k < nr; ++k) da[pr[k]] += k < nd ? rb.d.values[k] : rb.o.values[k - nd];
    }
  }
  PetscCall(MatClusterResultArraysRestore(C, &ra));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void MatClusterRemoteValues_Private(const MatClusterCsr &R, PetscInt own_row0, PetscInt m, std::vector<PetscScalar> &values)
{
  const PetscInt lo = R.rowptr[own_row0], hi = R.rowptr[own_row0 + m], nnz = R.rowptr[R.nrows];
  values.resize((size_t)(lo + nnz - hi));
  std::copy(R.values.begin(), R.values.begin() + lo, values.begin());
  std::copy(R.values.begin() + hi, R.values.begin() + nnz, values.begin() + lo);
}

/*
   This rank's rows of C: R's own rows, the rows other ranks sent (rbp: the remote matrix's blocks,
   or NULL) and forced diagonal entries, merged in increasing global column order into split arrays
   (diagonal block columns local, the others global), and where every value goes (out->pos_*).
*/
static SplitStorage *MatClusterMergeRows(const MatClusterResultLayout &L, const MatClusterBlocks *rbp, MatClusterResultAssembly *out)
{
  static const MatClusterBlocks none;
  const MatClusterBlocks       &rb = rbp ? *rbp : none;
  const MatClusterCsr          &R  = *L.R;
  const std::vector<PetscInt>  &col_global = *L.col_global;
  const PetscInt                own_row0 = L.own_row0, own_col0 = L.own_col0, m = L.rmap->n, rstart = L.rmap->rstart, cstart = L.cmap->rstart, cend = L.cmap->rend, N = L.cmap->N;
  std::unique_ptr<SplitStorage> s(new SplitStorage);
  const PetscInt                first     = m ? R.rowptr[own_row0] : 0;
  const PetscInt                nd_remote = rbp ? (PetscInt)rbp->d.nnz() : 0;
  const int                     nt        = pcluster::threads_for_work(R.nnz() + (rbp ? rbp->d.nnz() + rbp->o.nnz() : 0), L.threads);
  s->di.assign((size_t)m + 1, 0);
  s->oi.assign((size_t)m + 1, 0);
  if (!rbp && !L.force_diagonal) { /* C's rows are R's own rows (A*B-like): each split at the diagonal block */
    const PetscInt *cols = R.colidx.data(), c0 = own_col0, c1 = own_col0 + (cend - cstart);
#pragma omp parallel for schedule(static) num_threads(nt)
    for (PetscInt i = 0; i < m; ++i) {
      const PetscInt *b = cols + R.rowptr[own_row0 + i], *e = cols + R.rowptr[own_row0 + i + 1];
      const PetscInt  nd = (PetscInt)(std::lower_bound(b, e, c1) - std::lower_bound(b, e, c0));
      s->di[i + 1]       = nd;
      s->oi[i + 1]       = (PetscInt)(e - b) - nd;
    }
    for (PetscInt i = 0; i < m; ++i) s->di[i + 1] += s->di[i], s->oi[i + 1] += s->oi[i];
    s->dj.allocate((size_t)s->di[m]);
    s->oj.allocate((size_t)s->oi[m]);
    s->allocate_values();
#pragma omp parallel for schedule(static) num_threads(nt)
    for (PetscInt i = 0; i < m; ++i) {
      PetscInt       k = R.rowptr[own_row0 + i], pd = s->di[i], po = s->oi[i];
      const PetscInt kend = R.rowptr[own_row0 + i + 1];
      for (; k < kend && cols[k] < c0; ++k) s->oj[po++] = col_global[cols[k]];
      for (; k < kend && cols[k] < c1; ++k) s->dj[pd++] = cols[k] - c0;
      for (; k < kend; ++k) s->oj[po++] = col_global[cols[k]];
    }
    out->assign = true;
    return s.release();
  }
  /* own_in_place: where the kernel writes R's own rows (pcluster::ResultScatter). A row of C that is
     R's row (the usual case) takes it in three runs (the off-diagonal entries left of the diagonal
     block, the block, the rest), so the kernel's updates need no position each; a row with more
     entries (from other ranks, a forced diagonal) keeps its positions, in pos_irregular. Otherwise
     every entry of R's own rows has its position (pos_own). */
  const bool in_place = L.own_in_place;
  if (in_place) out->runs_own.assign((size_t)m * 5, 0);
  else out->pos_own.resize((size_t)(m ? R.rowptr[own_row0 + m] - first : 0));
  out->pos_remote.resize((size_t)(rbp ? rbp->d.nnz() + rbp->o.nnz() : 0));
  /* Visits row i's union in increasing global column: f(g, k_own or -1, k_remote or -1) */
  auto merge = [&](PetscInt i, auto &&f) {
    PetscInt k = R.rowptr[own_row0 + i], kend = R.rowptr[own_row0 + i + 1];
    PetscInt q = 0, qend = 0, t = 0, tend = 0, q2 = 0; /* remote: o-left [q, q2), d [t, tend), o-right [q2, qend) */
    if (rbp) {
      q = rb.o.rowptr[i], qend = rb.o.rowptr[i + 1], t = rb.d.rowptr[i], tend = rb.d.rowptr[i + 1];
      for (q2 = q; q2 < qend && rb.o.colidx[q2] < rb.nlow; ++q2) { }
    }
    const PetscInt diag        = L.force_diagonal && rstart + i < N ? rstart + i : -1;
    bool           diag_done   = diag < 0;
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
#pragma omp parallel for schedule(static) num_threads(nt)
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt nd = 0, no = 0;
    merge(i, [&](PetscInt g, PetscInt, PetscInt) { (g >= cstart && g < cend ? nd : no)++; });
    s->di[i + 1] = nd;
    s->oi[i + 1] = no;
  }
  { /* own rows, rows from other ranks and the diagonal: each fits PetscInt, their union need not */
    pcluster::Count nd = 0, no = 0, irregular = 0;
    for (PetscInt i = 0; i < m; ++i) {
      const PetscInt own = R.rowptr[own_row0 + i + 1] - R.rowptr[own_row0 + i];
      if (in_place && s->di[i + 1] + s->oi[i + 1] != own) { /* a row with more entries than R's: its positions from here */
        out->runs_own[5 * (size_t)i]     = -1;
        out->runs_own[5 * (size_t)i + 2] = (PetscInt)irregular;
        irregular += own;
      }
      nd += s->di[i + 1], no += s->oi[i + 1];
      s->di[i + 1] = pcluster::checked_index<PetscInt>(nd, "nnz of C's diagonal block on this rank");
      s->oi[i + 1] = pcluster::checked_index<PetscInt>(no, "nnz of C's off-diagonal block on this rank");
    }
    if (in_place) out->pos_irregular.assign((size_t)irregular, 0);
  }
  s->dj.allocate((size_t)s->di[m]);
  s->oj.allocate((size_t)s->oi[m]);
  s->allocate_values();
  out->assign = !rbp && !in_place && (PetscInt)out->pos_own.size() == s->di[m] + s->oi[m]; /* then C's rows are R's own rows */
  if (out->assign) {
    out->pos_own.clear();
    out->pos_own.shrink_to_fit();
  }
  const PetscInt nnz_d = s->di[m];
#pragma omp parallel for schedule(static) num_threads(nt)
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt       pd = s->di[i], po = s->oi[i];
    const PetscInt k0 = R.rowptr[own_row0 + i];
    PetscInt      *runs = in_place ? out->runs_own.data() + 5 * (size_t)i : nullptr;
    PetscInt      *pos  = in_place ? (runs[0] < 0 ? out->pos_irregular.data() + runs[2] : nullptr) : out->assign ? nullptr : out->pos_own.data() + (k0 - first);
    if (runs && runs[0] >= 0) {
      const PetscInt nleft = (PetscInt)(std::lower_bound(R.colidx.data() + k0, R.colidx.data() + R.rowptr[own_row0 + i + 1], own_col0) - (R.colidx.data() + k0));
      runs[0] = nleft, runs[1] = nleft + (s->di[i + 1] - pd), runs[2] = nnz_d + po, runs[3] = pd, runs[4] = nnz_d + po + nleft;
    }
    merge(i, [&](PetscInt g, PetscInt ko, PetscInt kr) {
      PetscInt p;
      if (g >= cstart && g < cend) s->dj[pd] = g - cstart, p = pd++;
      else s->oj[po] = g, p = nnz_d + po++;
      if (ko >= 0 && pos) pos[ko - k0] = p;
      if (kr >= 0) out->pos_remote[kr] = p;
    });
  }
  return s.release();
}

PetscErrorCode MatClusterResultSymbolic_Private(MPI_Comm comm, const MatClusterResultLayout &L, MatClusterResultAssembly *out, Mat *T)
{
  const MatClusterCsr &R = *L.R;
  const PetscInt       m = L.rmap->n, M = L.rmap->N, n = L.cmap->n, N = L.cmap->N;
  MatClusterBlocks     rb;
  SplitStorage        *st = NULL;

  PetscFunctionBegin;
  out->own_row0 = L.own_row0;
  out->threads  = L.threads;

  if (L.has_remote) { /* R's rows owned by other ranks: PETSc's COO assembly sums them on their owners */
    std::vector<PetscInt> ci, cj;
    MatClusterCallCXXAllRanks(comm, "assembling C", {
      for (PetscInt i = 0; i < R.nrows; ++i) {
        if (i == L.own_row0) i += m;
        if (i >= R.nrows) break;
        for (PetscInt k = R.rowptr[i]; k < R.rowptr[i + 1]; ++k) {
          ci.push_back(L.row_global[i]);
          cj.push_back((*L.col_global)[R.colidx[k]]);
        }
      }
      if (L.own_in_place) out->remote_values.assign(ci.size(), 0); /* the numeric phase writes them */
      else MatClusterRemoteValues_Private(R, L.own_row0, m, out->remote_values);
    });
    PetscCall(MatCreate(comm, &out->remote));
    PetscCall(MatSetSizes(out->remote, m, n, M, N));
    PetscCall(MatSetType(out->remote, MATMPIAIJ));
    PetscCall(MatSetPreallocationCOO(out->remote, (PetscCount)ci.size(), ci.data(), cj.data()));
    PetscCall(MatSetValuesCOO(out->remote, out->remote_values.data(), INSERT_VALUES));
    PetscCall(MatClusterGetBlocks_Private(out->remote, &rb));
  }

  PetscCheck(!L.own_in_place || L.has_remote, comm, PETSC_ERR_PLIB, "petsc-cluster: values in place need the remote rows' assembly");
  MatClusterCallCXXAllRanks(comm, "assembling C", st = MatClusterMergeRows(L, L.has_remote ? &rb : nullptr, out));
  out->own_col0     = L.own_col0;
  out->own_in_place = L.own_in_place; /* pos_own made: has_remote, so C's rows are not R's (assign false) */
  PetscCall(MatClusterCreateOnStorage_Private(
    "MatClusterSplitStorage", st, [&](SplitStorage *s, Mat *t) -> PetscErrorCode { return MatCreateMPIAIJWithSplitArrays(comm, m, n, M, N, s->di.data(), s->dj.data(), s->da(), s->oi.data(), s->oj.data(), s->oa(), t); }, T));
  if (L.own_in_place) { /* zeros: the numeric phase writes the values (st: now T's) */
    MatClusterResultScatter s;
    PetscCall(MatClusterResultScatterBegin_Private(*out, *T, &s));
    PetscCall(MatClusterResultScatterEnd_Private(*T, &s));
  } else PetscCall(MatClusterResultValues(*out, R, *T));
  PetscCall(MatAssemblyBegin(*T, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(*T, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultNumeric_Private(MatClusterResultAssembly &out, const MatClusterCsr &R, Mat C)
{
  PetscFunctionBegin;
  if (out.remote) PetscCall(MatSetValuesCOO(out.remote, out.remote_values.data(), INSERT_VALUES));
  PetscCall(MatClusterResultValues(out, R, C));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultScatterBegin_Private(MatClusterResultAssembly &out, Mat C, MatClusterResultScatter *s)
{
  ResultArrays ra;

  PetscFunctionBegin;
  PetscCall(MatClusterResultArrays(C, &ra));
  /* entries the kernel does not reach (only other ranks', a forced diagonal) stay 0 */
  std::fill(ra.a, ra.a + ra.d.nnz() + ra.o.nnz(), (PetscScalar)0);
  std::fill(out.remote_values.begin(), out.remote_values.end(), (PetscScalar)0);
  s->row0   = out.own_row0;
  s->rows   = C->rmap->n;
  s->runs   = out.runs_own.data();
  s->pos    = out.pos_irregular.data();
  s->values = ra.a;
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultScatterEnd_Private(Mat C, MatClusterResultScatter *s)
{
  ResultArrays ra;
  Mat          Cd;

  PetscFunctionBegin;
  PetscCall(MatMPIAIJGetSeqAIJ(C, &Cd, NULL, NULL));
  PetscCall(MatClusterSeqAIJGetCsrView_Private(Cd, "C", &ra.d)); /* where the off-diagonal values start */
  ra.a = s->values;
  PetscCall(MatClusterResultArraysRestore(C, &ra));
  s->values = NULL;
  PetscFunctionReturn(PETSC_SUCCESS);
}
