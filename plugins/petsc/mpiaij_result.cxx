/*
   The local result R of a MATMPIAIJ product put together as C (product_mpiaij.cxx computes R).

   The rows of R this rank owns go straight into C's diagonal and off-diagonal arrays; the other rows
   of R (A^T*B, P^T*A*P: the boundary) go to their owners, which merge them into their rows of C. C
   is built on our arrays without a copy (MatCreateMPIAIJWithSplitArrays), and the symbolic phase
   records where every value of R and every value received goes, so a numeric phase is a scatter of
   values. The boundary travels point to point: the symbolic phase sends each entry's global row and
   column once (the ranks that send to a rank found by PetscCommBuildTwoSided), a numeric phase the
   values alone, in the same order. PETSc's COO assembly (MatSetPreallocationCOO), used before, kept
   an auxiliary MPIAIJ of the received rows and its maps: on an R-MAT graph on 2 ranks its symbolic
   phase was 2/3 of the product's peak.
*/
#include "mpiaij.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

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

/* The boundary's exchange, in the ranks and counts the symbolic phase found: send_counts[q] entries
   of `sent` to send_ranks[q], in that order, and recv_counts[q] entries from recv_ranks[q] into
   `received`, in that order; width values of `type` an entry */
template <class T>
static PetscErrorCode MatClusterExchange(const MatClusterResultAssembly &out, MPI_Datatype type, PetscMPIInt width, const T *sent, T *received)
{
  std::vector<MPI_Request> requests;

  PetscFunctionBegin;
  MatClusterCallCXXAllRanks(out.comm, "sending the boundary", requests.resize(out.recv_ranks.size() + out.send_ranks.size()));
  size_t at = 0, r = 0;
  for (size_t q = 0; q < out.recv_ranks.size(); at += (size_t)width * out.recv_counts[q], ++q) PetscCallMPI(MPI_Irecv(received + at, width * out.recv_counts[q], type, out.recv_ranks[q], out.tag, out.comm, &requests[r++]));
  at = 0;
  for (size_t q = 0; q < out.send_ranks.size(); at += (size_t)width * out.send_counts[q], ++q) PetscCallMPI(MPI_Isend(sent + at, width * out.send_counts[q], type, out.send_ranks[q], out.tag, out.comm, &requests[r++]));
  PetscCallMPI(MPI_Waitall((PetscMPIInt)r, requests.data(), MPI_STATUSES_IGNORE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The values of R's other rows to their owners, and those of this rank's rows of C from the ranks
   that have some (received: in the order of pos_recv) */
static PetscErrorCode MatClusterExchangeValues(const MatClusterResultAssembly &out, std::vector<PetscScalar> &received)
{
  PetscFunctionBegin;
  MatClusterCallCXXAllRanks(out.comm, "sending the boundary", received.resize(out.pos_recv.size()));
  PetscCall(MatClusterExchange(out, MPIU_SCALAR, 1, out.remote_values.data(), received.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* C's values from R (its own rows) and, for A^T*B and P^T*A*P, from the rows other ranks sent */
static PetscErrorCode MatClusterResultValues(const MatClusterResultAssembly &out, const MatClusterCsr &R, const std::vector<PetscScalar> &received, Mat C)
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
    const PetscInt *pr = out.pos_recv.data();
    for (size_t k = 0; k < received.size(); ++k) da[pr[k]] += received[k]; /* in order: ranks' entries may meet */
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

/* The entries of this rank's rows of C that other ranks sent (global row and column), by row, each
   row's by column (ties: in the order received), with the index of each in that order */
struct ReceivedEntries {
  std::vector<PetscInt>                      rowptr;  /* this rank's rows of C */
  std::vector<std::pair<PetscInt, PetscInt>> entries; /* (global column, index received) */
};

/*
   This rank's rows of C: R's own rows, the entries other ranks sent (rcv: or NULL) and forced
   diagonal entries, merged in increasing global column order into split arrays (diagonal block
   columns local, the others global), and where every value goes (out->pos_*).
*/
static SplitStorage *MatClusterMergeRows(const MatClusterResultLayout &L, const ReceivedEntries *rcv, MatClusterResultAssembly *out)
{
  const MatClusterCsr          &R  = *L.R;
  const std::vector<PetscInt>  &col_global = *L.col_global;
  const PetscInt                own_row0 = L.own_row0, own_col0 = L.own_col0, m = L.rmap->n, rstart = L.rmap->rstart, cstart = L.cmap->rstart, cend = L.cmap->rend, N = L.cmap->N;
  std::unique_ptr<SplitStorage> s(new SplitStorage);
  const PetscInt                first     = m ? R.rowptr[own_row0] : 0;
  const PetscInt                nreceived = rcv ? (PetscInt)rcv->entries.size() : 0;
  const int                     nt        = pcluster::threads_for_work(R.nnz() + nreceived, L.threads);
  s->di.assign((size_t)m + 1, 0);
  s->oi.assign((size_t)m + 1, 0);
  if (!rcv && !L.force_diagonal) { /* C's rows are R's own rows (A*B-like): each split at the diagonal block */
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
  out->pos_recv.resize((size_t)nreceived);
  /* Visits row i's union in increasing global column: f(g, k_own or -1, [t0, t1): the entries received there) */
  auto merge = [&](PetscInt i, auto &&f) {
    PetscInt       k = R.rowptr[own_row0 + i], kend = R.rowptr[own_row0 + i + 1];
    PetscInt       t = rcv ? rcv->rowptr[i] : 0;
    const PetscInt tend = rcv ? rcv->rowptr[i + 1] : 0;
    const PetscInt diag      = L.force_diagonal && rstart + i < N ? rstart + i : -1;
    bool           diag_done = diag < 0;
    for (;;) {
      const PetscInt go = k < kend ? col_global[R.colidx[k]] : PETSC_MAX_INT;
      const PetscInt gr = t < tend ? rcv->entries[t].first : PETSC_MAX_INT;
      PetscInt       g  = std::min(go, gr);
      if (!diag_done && diag <= g) g = diag;
      if (g == PETSC_MAX_INT) break;
      const PetscInt ko = go == g ? k++ : -1;
      const PetscInt t0 = t;
      while (t < tend && rcv->entries[t].first == g) ++t;
      if (!diag_done && diag == g) diag_done = true;
      f(g, ko, t0, t);
    }
  };
#pragma omp parallel for schedule(static) num_threads(nt)
  for (PetscInt i = 0; i < m; ++i) {
    PetscInt nd = 0, no = 0;
    merge(i, [&](PetscInt g, PetscInt, PetscInt, PetscInt) { (g >= cstart && g < cend ? nd : no)++; });
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
  out->assign = !rcv && !in_place && (PetscInt)out->pos_own.size() == s->di[m] + s->oi[m]; /* then C's rows are R's own rows */
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
    merge(i, [&](PetscInt g, PetscInt ko, PetscInt t0, PetscInt t1) {
      PetscInt p;
      if (g >= cstart && g < cend) s->dj[pd] = g - cstart, p = pd++;
      else s->oj[po] = g, p = nnz_d + po++;
      if (ko >= 0 && pos) pos[ko - k0] = p;
      for (PetscInt t = t0; t < t1; ++t) out->pos_recv[(size_t)rcv->entries[t].second] = p;
    });
  }
  return s.release();
}

/* R's other rows to their owners, each entry as its global row and column (out: the ranks, the
   counts and the communicator the values take later; the values' vector sized); rcv: what this
   rank received, by row and column */
static PetscErrorCode MatClusterExchangePattern(MPI_Comm comm, const MatClusterResultLayout &L, MatClusterResultAssembly *out, ReceivedEntries *rcv)
{
  const MatClusterCsr  &R = *L.R;
  const PetscInt        m = L.rmap->n, rstart = L.rmap->rstart;
  std::vector<PetscInt> sent, arrived; /* (global row, global column) of each entry */
  PetscMPIInt           nfrom = 0, *from_ranks = NULL, *from_counts = NULL;

  PetscFunctionBegin;
  if (out->comm != MPI_COMM_NULL) PetscCall(PetscCommDestroy(&out->comm));
  PetscCall(PetscCommDuplicate(comm, &out->comm, &out->tag));
  MatClusterCallCXXAllRanks(comm, "sending the boundary", {
    const std::vector<PetscInt> &col_global = *L.col_global;
    const PetscInt              *range      = L.rmap->range;
    const pcluster::Count        nsent      = R.nnz() - (m ? R.rowptr[L.own_row0 + m] - R.rowptr[L.own_row0] : 0); /* R's other rows' entries */
    pcluster::Count              to_owner   = 0;
    PetscMPIInt                  owner      = 0;
    out->send_ranks.clear();
    out->send_counts.clear();
    sent.reserve(2 * (size_t)nsent);
    for (PetscInt i = 0; i < R.nrows; ++i) {
      if (i == L.own_row0) i += m;
      if (i >= R.nrows) break;
      if (R.rowptr[i + 1] == R.rowptr[i]) continue;
      const PetscInt g = L.row_global[i];
      while (g >= range[owner + 1]) ++owner; /* R's rows increase, so do their owners */
      if (out->send_ranks.empty() || out->send_ranks.back() != owner) {
        out->send_ranks.push_back(owner);
        out->send_counts.push_back(0);
        to_owner = 0;
      }
      to_owner += R.rowptr[i + 1] - R.rowptr[i];
      out->send_counts.back() = pcluster::checked_index<PetscMPIInt>(2 * to_owner, "entries of C sent to one rank (twice)") / 2;
      for (PetscInt k = R.rowptr[i]; k < R.rowptr[i + 1]; ++k) {
        sent.push_back(g);
        sent.push_back(col_global[R.colidx[k]]);
      }
    }
    out->remote_values.assign((size_t)nsent, 0);
  });
  PetscCall(PetscCommBuildTwoSided(comm, 1, MPI_INT, (PetscMPIInt)out->send_ranks.size(), out->send_ranks.data(), out->send_counts.data(), &nfrom, &from_ranks, &from_counts));
  size_t nreceived = 0;
  MatClusterCallCXXAllRanks(comm, "sending the boundary", {
    std::vector<std::pair<PetscMPIInt, PetscMPIInt>> from((size_t)nfrom);
    for (PetscMPIInt q = 0; q < nfrom; ++q) from[(size_t)q] = {from_ranks[q], from_counts[q]};
    std::sort(from.begin(), from.end()); /* the order every numeric phase adds them in */
    out->recv_ranks.resize(from.size());
    out->recv_counts.resize(from.size());
    for (size_t q = 0; q < from.size(); ++q) {
      out->recv_ranks[q]  = from[q].first;
      out->recv_counts[q] = from[q].second;
      nreceived += (size_t)from[q].second;
    }
    pcluster::checked_index<PetscInt>((pcluster::Count)nreceived, "entries of C received from other ranks"); /* numbered by PetscInt below */
    arrived.resize(2 * nreceived);
  });
  PetscCall(PetscFree(from_ranks));
  PetscCall(PetscFree(from_counts));
  PetscCall(MatClusterExchange(*out, MPIU_INT, 2, sent.data(), arrived.data()));
  MatClusterCallCXXAllRanks(comm, "sending the boundary", {
    std::vector<PetscInt>().swap(sent);
    rcv->rowptr.assign((size_t)m + 1, 0);
    for (size_t e = 0; e < nreceived; ++e) {
      const PetscInt i = arrived[2 * e] - rstart;
      if (i < 0 || i >= m) throw std::logic_error("an entry of C sent to a rank that does not own its row");
      ++rcv->rowptr[(size_t)i + 1];
    }
    for (PetscInt i = 0; i < m; ++i) rcv->rowptr[(size_t)i + 1] += rcv->rowptr[(size_t)i];
    std::vector<PetscInt> next(rcv->rowptr.begin(), rcv->rowptr.end() - 1);
    rcv->entries.resize(nreceived);
    for (size_t e = 0; e < nreceived; ++e) rcv->entries[(size_t)next[(size_t)(arrived[2 * e] - rstart)]++] = {arrived[2 * e + 1], (PetscInt)e};
    std::vector<PetscInt>().swap(arrived);
    for (PetscInt i = 0; i < m; ++i) std::sort(rcv->entries.begin() + rcv->rowptr[(size_t)i], rcv->entries.begin() + rcv->rowptr[(size_t)i + 1]);
  });
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultSymbolic_Private(MPI_Comm comm, const MatClusterResultLayout &L, MatClusterResultAssembly *out, Mat *T)
{
  const MatClusterCsr &R = *L.R;
  const PetscInt       m = L.rmap->n, M = L.rmap->N, n = L.cmap->n, N = L.cmap->N;
  ReceivedEntries      rcv;
  SplitStorage        *st = NULL;

  PetscFunctionBegin;
  out->own_row0   = L.own_row0;
  out->threads    = L.threads;
  out->has_remote = L.has_remote;
  if (L.has_remote) PetscCall(MatClusterExchangePattern(comm, L, out, &rcv));
  PetscCheck(!L.own_in_place || L.has_remote, comm, PETSC_ERR_PLIB, "petsc-cluster: values in place need the remote rows' exchange");
  MatClusterCallCXXAllRanks(comm, "assembling C", {
    st  = MatClusterMergeRows(L, L.has_remote ? &rcv : nullptr, out);
    rcv = ReceivedEntries();
  });
  out->own_col0     = L.own_col0;
  out->own_in_place = L.own_in_place; /* pos_own made: has_remote, so C's rows are not R's (assign false) */
  PetscCall(MatClusterCreateOnStorage_Private(
    "MatClusterSplitStorage", st, [&](SplitStorage *s, Mat *t) -> PetscErrorCode { return MatCreateMPIAIJWithSplitArrays(comm, m, n, M, N, s->di.data(), s->dj.data(), s->da(), s->oi.data(), s->oj.data(), s->oa(), t); }, T));
  if (L.own_in_place) { /* zeros: the numeric phase writes the values (st: now T's) */
    MatClusterResultScatter s;
    PetscCall(MatClusterResultScatterBegin_Private(*out, *T, &s));
    PetscCall(MatClusterResultScatterEnd_Private(*T, &s));
    PetscCall(MatAssemblyBegin(*T, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*T, MAT_FINAL_ASSEMBLY));
  } else {
    if (L.has_remote) MatClusterCallCXXAllRanks(comm, "assembling C", MatClusterRemoteValues_Private(R, L.own_row0, m, out->remote_values));
    PetscCall(MatClusterResultNumeric_Private(*out, R, *T));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultNumeric_Private(MatClusterResultAssembly &out, const MatClusterCsr &R, Mat C)
{
  std::vector<PetscScalar> received;

  PetscFunctionBegin;
  if (out.has_remote) PetscCall(MatClusterExchangeValues(out, received));
  PetscCall(MatClusterResultValues(out, R, received, C));
  PetscCall(MatAssemblyBegin(C, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(C, MAT_FINAL_ASSEMBLY));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterResultAssemblyDestroy_Private(MatClusterResultAssembly *out)
{
  PetscFunctionBegin;
  if (out->comm != MPI_COMM_NULL) PetscCall(PetscCommDestroy(&out->comm));
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
