/*
   BoomerAMG's coarse operators on our kernels: -pc_hypre_boomeramg_rap_via <algorithm>.

   hypre's own set-up (PCHYPRE, -pc_type hypre -pc_hypre_type boomeramg) never reaches PETSc's
   MatProduct: hypre_BoomerAMGSetup forms each coarse operator A_H = P^T A P itself. On the CPU, with
   the options PETSc sets (RAP2 and the modular products off; keeptranspose as the user asks), it
   calls hypre_BoomerAMGBuildCoarseOperatorKT(P, A, P, keepTranspose, &A_H) for every level, whose
   local products are inline loops (no call to hypre_CSRMatrixMultiply that could be replaced alone).
   hypre has no CPU hook for a user SpGEMM, so the plugin redirects that call (plt_redirect.h: the
   slots of libHYPRE's procedure linkage table that name it are pointed at HypreRapBuildCoarseOperator
   when the plugin registers, and put back at PetscFinalize), and also hypre_BoomerAMGSetup, to know
   that a call comes from BoomerAMG's set-up (other callers, e.g. AMS or PETSc's MatPtAP of MATHYPRE
   matrices, get hypre's own product) and which level it forms. The slots are rewritten when the
   option is given at registration; its value is read again when each set-up starts: `hypre` keeps
   hypre's own products (still timed, by the log event MatHypreRAP, as ours are), a name of ours
   selects it, with the -mat_cluster_* options as they stand then.

   What runs. One rank: the core's fused P^T A P by rows of C on hypre's own arrays (no copy), its rows
   of C kept in the order first reached (SpgemmOptions::sorted_result): (P^T A)(i,:) is summed over A's
   rows in ascending order and its columns reached in A's stored order, then (P^T A)(i,:) P in that
   order, exactly as hypre_BoomerAMGBuildCoarseOperatorKT does, so A_H is hypre's bit for bit, its
   columns in hypre's order too (diagonal first, then first reached). Both matter: BoomerAMG's
   coarsening of the next level breaks ties by the order of a row's columns, and values equal only to
   rounding flip ties of a structured grid's strength of connection (KSP ex45: 733 coarse points
   instead of 732 on level 2, another residual history). On one thread A_H's pattern and values
   are formed in one pass over A and P (hypre's product makes two: one counts, one computes; the
   numeric phase after our pattern pass had made our products 0.8-1.0x hypre's, one pass 1.2-1.3x),
   written into arrays from hypre's allocator (pcluster::CallerArray), which A_H then owns: A_H is
   written once and no second copy of it is held (elasticity, 1 thread: a copy of the values had cost a
   fifth of our product's time and the set-up's peak 1.5x hypre's; one of the pattern, 1-9 MB of peak
   over hypre's). Named cluster schemes and reorderings run on sorted copies: values to rounding.
   Several ranks: the fused form by rows of C on pieced views, as the MPIAIJ glue runs it
   (product_mpiaij.cxx), on hypre's blocks as they are (that form takes rows in any order; sorted
   copies of them had cost 8-10% of the product's time), pattern and values in one pass, the rows'
   columns left as first reached (sorting them bought nothing: Assemble lays them out in hypre's
   order; with both, 2 ranks: our products 0.71-0.86x hypre's -> 0.81-0.98x), with the rows of P
   that A's off-process columns need fetched by hypre_ParCSRMatrixExtractBExt and the rows of other
   ranks' coarse points sent to them by hypre_ExchangeExternalRowsInit/Wait, as hypre's own product
   does; rows received are added first, as hypre adds them, but hypre adds our local terms one by one onto
   them and takes (P^T A)'s off-process columns first: values equal to rounding, not bit for bit.
   A_H keeps hypre's layout: the diagonal first in every row (an explicit zero where the product has
   none), explicit zeros kept, off-process columns compacted to those used, arrays from hypre's
   allocator, which frees them, written once at their exact size while the pages of our local rows
   are handed back as they are read (Assemble). With keeptranspose, P^T is kept on P as hypre keeps it
   (hypre_CSRMatrixTranspose), for its restriction in the solve.

   Limits, each an error when the set-up starts (PCSetUp fails naming it), never a silent no-op:
   - on several ranks, the fused triple product only (rowwise, cluster; no reordering);
   - the paths that do not call hypre_BoomerAMGBuildCoarseOperatorKT: block interpolation (block mode),
     AIR restriction, non-Galerkin operators, RAP2 or the modular products (set from code only);
   - a hypre whose calls cannot be redirected (plt_redirect.h) fails at registration;
   - the hypre headers the plugin is compiled with must be those of the library PETSc runs (checked:
     major and minor version). Tested with hypre 2.26, 2.32 and 3.1 (PETSc 3.18, 3.22, 3.25), whose
     hypre_BoomerAMGBuildCoarseOperatorKT and hypre_BoomerAMGSetup keep the signatures used here.
   After a set-up that formed coarse operators, if none went through the redirection (something bound
   the call another way), the set-up fails too.
*/
#include "mpiaij.h" /* MatClusterAllRanks_Private */
#include "plt_redirect.h"

#if defined(PCLUSTER_HAVE_HYPRE)
  #include <HYPRE_config.h>
#endif
#if defined(PCLUSTER_HAVE_HYPRE) && !defined(HYPRE_BIGINT) /* HYPRE_Int is int: the core's index type */
  #include <_hypre_parcsr_ls.h>

  #include "pcluster/pages.hpp"

  #include <dlfcn.h>

  #include <algorithm>
  #include <iterator>
  #include <stdexcept>
  #include <utility>
  #include <vector>

namespace {

using HypreCsr  = pcluster::CsrMatrix<HYPRE_Int, HYPRE_Real>;
using HyprePlan = pcluster::ProductPlan<HYPRE_Int, HYPRE_Real>;

struct HypreRap {
  bool                     installed = false;
  const char              *alg       = nullptr; /* our spelling */
  MatClusterProductOptions opts;
  PltRedirection           build_slots, setup_slots;
  HYPRE_Int (*build_original)(hypre_ParCSRMatrix *, hypre_ParCSRMatrix *, hypre_ParCSRMatrix *, HYPRE_Int, hypre_ParCSRMatrix **) = nullptr;
  HYPRE_Int (*setup_original)(void *, hypre_ParCSRMatrix *, hypre_ParVector *, hypre_ParVector *)                              = nullptr;
  /* the set-up in progress (hypre_BoomerAMGSetup can nest: a coarse solve on one rank sets up its own) */
  int            depth = 0;
  bool           active = false;    /* ours in this set-up (else hypre's own, timed) */
  int            level = 0;        /* coarse operators formed so far */
  int            ours = 0, theirs = 0;
  PetscErrorCode error = PETSC_SUCCESS; /* the first of ours in this set-up */
};
HypreRap      g_rap;
PetscLogEvent g_rap_event = 0; /* MatHypreRAP: each coarse operator of a BoomerAMG set-up, ours or hypre's */

/* S's rows with their columns ascending (what the core's products other than the fused one by rows of C
   require), values along */
void SortRows(HypreCsr &S)
{
  std::vector<std::pair<HYPRE_Int, HYPRE_Real>> row;
  for (HYPRE_Int i = 0; i < S.nrows; ++i) {
    const HYPRE_Int b = S.rowptr[i], e = S.rowptr[i + 1];
    if (std::is_sorted(S.colidx.begin() + b, S.colidx.begin() + e)) continue;
    row.clear();
    for (HYPRE_Int t = b; t < e; ++t) row.emplace_back(S.colidx[t], S.values[t]);
    std::sort(row.begin(), row.end(), [](const auto &x, const auto &y) { return x.first < y.first; });
    for (HYPRE_Int t = b; t < e; ++t) {
      S.colidx[t] = row[t - b].first;
      S.values[t] = row[t - b].second;
    }
  }
}

/* M as a CSR with sorted rows */
HypreCsr SortedCopy(hypre_CSRMatrix *M, HYPRE_Int ncols)
{
  const HYPRE_Int   m = hypre_CSRMatrixNumRows(M), *mi = hypre_CSRMatrixI(M), *mj = hypre_CSRMatrixJ(M);
  const HYPRE_Real *mv = hypre_CSRMatrixData(M);
  HypreCsr          S;
  S.nrows = m;
  S.ncols = ncols;
  if (!mi || !mi[m]) { /* hypre leaves the arrays of an empty block unallocated */
    S.rowptr.assign(m + 1, 0);
    return S;
  }
  S.rowptr.assign(mi, mi + m + 1);
  S.colidx.assign(mj, mj + mi[m]);
  S.values.assign(mv, mv + mi[m]);
  SortRows(S);
  return S;
}

/* M's rows as hypre stores them, unsorted (the fused form by rows of C takes them so: no copy); an
   empty block, whose arrays hypre may leave unallocated, as rows of nothing (with a values pointer, so
   that the operand counts as one with values) */
pcluster::CsrView<HYPRE_Int, HYPRE_Real> BlockView(hypre_CSRMatrix *M, HYPRE_Int ncols, std::vector<HYPRE_Int> &empty_rowptr)
{
  static const HYPRE_Real none = 0;
  const HYPRE_Int         m = hypre_CSRMatrixNumRows(M), *mi = hypre_CSRMatrixI(M);
  if (!mi || !mi[m]) {
    empty_rowptr.assign(m + 1, 0);
    return {m, ncols, empty_rowptr.data(), nullptr, &none};
  }
  return {m, ncols, mi, hypre_CSRMatrixJ(M), hypre_CSRMatrixData(M)};
}

/*
   The coarse columns a rank's product reaches, numbered like the fine ones in the MPIAIJ glue
   (mpiaij.h): the other ranks' columns left of the owned block, the owned block, the others right of
   it, each part ascending, so that a number's order is the global order.
*/
struct CoarseColumns {
  HYPRE_BigInt              first = 0; /* global number of the first owned column */
  HYPRE_Int                 owned = 0, before = 0;
  std::vector<HYPRE_BigInt> ghost; /* the others' global numbers, ascending */

  HYPRE_Int    size() const { return owned + static_cast<HYPRE_Int>(ghost.size()); }
  HYPRE_BigInt global(HYPRE_Int c) const { return c < before ? ghost[c] : c < before + owned ? first + (c - before) : ghost[c - owned]; }
  HYPRE_Int    local(HYPRE_BigInt g) const
  {
    if (g >= first && g < first + owned) return before + static_cast<HYPRE_Int>(g - first);
    const HYPRE_Int k = static_cast<HYPRE_Int>(std::lower_bound(ghost.begin(), ghost.end(), g) - ghost.begin());
    return k < before ? k : k + owned;
  }
};

/* The local P^T A P of hypre_BoomerAMGBuildCoarseOperatorKT(P, A, P): rows and columns numbered by cols
   (rows: the coarse columns of this rank's rows of P; the other ranks' rows of it are theirs to add) */
struct LocalProduct {
  CoarseColumns           cols;
  std::vector<HYPRE_Int>  ci, cj;
  std::vector<HYPRE_Real> cv;
  hypre_ParCSRMatrix     *RAP = nullptr; /* one rank: A_H made in hypre's arrays already (OneRankInPlace) */
};

/* A_H of one rank from its diagonal block's arrays, hypre's allocations (hypre frees them) */
hypre_ParCSRMatrix *CreateOneRank(hypre_ParCSRMatrix *P, HYPRE_Int nnz, HYPRE_Int *di, HYPRE_Int *dj, HYPRE_Real *dv, HYPRE_MemoryLocation loc)
{
  const HYPRE_Int     nc  = hypre_CSRMatrixNumCols(hypre_ParCSRMatrixDiag(P));
  hypre_ParCSRMatrix *RAP = hypre_ParCSRMatrixCreate(hypre_ParCSRMatrixComm(P), hypre_ParCSRMatrixGlobalNumCols(P), hypre_ParCSRMatrixGlobalNumCols(P), hypre_ParCSRMatrixColStarts(P), hypre_ParCSRMatrixColStarts(P), 0, nnz, 0);
  hypre_CSRMatrixI(hypre_ParCSRMatrixDiag(RAP)) = di;
  if (nnz) {
    hypre_CSRMatrixJ(hypre_ParCSRMatrixDiag(RAP))    = dj;
    hypre_CSRMatrixData(hypre_ParCSRMatrixDiag(RAP)) = dv;
  }
  hypre_CSRMatrixI(hypre_ParCSRMatrixOffd(RAP)) = hypre_CTAlloc(HYPRE_Int, nc + 1, loc);
  return RAP;
}

/* hypre's allocator, for arrays that A_H takes over (hypre frees them with it); context: the
   HYPRE_MemoryLocation */
pcluster::CallerAllocator HypreAllocator(HYPRE_MemoryLocation *loc)
{
  pcluster::CallerAllocator a;
  a.reallocate = [](void *where, void *old, std::size_t bytes) -> void * {
    const HYPRE_MemoryLocation l = *static_cast<HYPRE_MemoryLocation *>(where);
    return old ? hypre_ReAlloc(old, bytes, l) : hypre_MAlloc(bytes, l);
  };
  a.release = [](void *where, void *p) { hypre_Free(p, *static_cast<HYPRE_MemoryLocation *>(where)); };
  a.context = loc;
  return a;
}

/* One rank, hypre's order, every row of A_H holding its diagonal (as BoomerAMG's do): the pattern and
   values the plan's symbolic phase wrote into arrays of hypre's (cj, cv) become A_H's, each row's
   diagonal moved first (the others keep their order), so A_H is written once, in one pass over A and
   P (on one thread; on several, values in a numeric phase after it), and no array of its size is held
   beside it (values or pattern formed in vectors of ours and copied had cost a fifth of our
   product's time, and up to 1.5x hypre's peak). False where a row lacks its diagonal: hypre stores
   an explicit zero there, an entry the plan did not make (rows before it have their diagonal first
   already, as Assemble's layout puts it). */
bool OneRankInPlace(hypre_ParCSRMatrix *P, LocalProduct *L, pcluster::CallerArray<HYPRE_Int> &cj, pcluster::CallerArray<HYPRE_Real> &cv, HYPRE_MemoryLocation loc)
{
  const HYPRE_Int nc = static_cast<HYPRE_Int>(L->ci.size()) - 1, nnz = L->ci[nc];
  HYPRE_Int *const  j = cj.data();
  HYPRE_Real *const v = cv.data();
  for (HYPRE_Int i = 0; i < nc; ++i) {
    const HYPRE_Int b = L->ci[i], e = L->ci[i + 1], d = static_cast<HYPRE_Int>(std::find(j + b, j + e, i) - j);
    if (d == e) return false;
    std::rotate(j + b, j + d, j + d + 1);
    std::rotate(v + b, v + d, v + d + 1);
  }
  cj.shrink_to_fit();
  cv.shrink_to_fit();
  HYPRE_Int *di = hypre_TAlloc(HYPRE_Int, nc + 1, loc);
  std::copy(L->ci.begin(), L->ci.end(), di);
  std::vector<HYPRE_Int>().swap(L->ci);
  L->RAP = CreateOneRank(P, nnz, di, nnz ? cj.release() : nullptr, nnz ? cv.release() : nullptr, loc);
  return true;
}

/* One rank: the core's product. With the fused form (rowwise, cluster) it runs by rows of C on A's and
   P's rows as hypre stores them, unsorted (the kernel needs no sorted rows there), and keeps C's columns
   in the order first reached: (P^T A)(i,:)'s columns are then reached in hypre's order, and C comes
   out as hypre's product writes it, values bit for bit and columns in the same order (BoomerAMG's
   coarsening of the next level depends on both). The other algorithms run on sorted copies (values to
   rounding, columns sorted). A_H is then made in place where it can be (OneRankInPlace). */
void LocalProductOneRank(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, LocalProduct *L, HYPRE_MemoryLocation loc)
{
  using View                  = pcluster::CsrView<HYPRE_Int, HYPRE_Real>;
  hypre_CSRMatrix        *Ad = hypre_ParCSRMatrixDiag(A), *Pd = hypre_ParCSRMatrixDiag(P);
  pcluster::SpgemmOptions o  = g_rap.opts.spgemm;
  const bool              hypre_order = pcluster::fused_triple(pcluster::ProductType::PtAP, o) && hypre_CSRMatrixNumNonzeros(Ad) > 0 && hypre_CSRMatrixNumNonzeros(Pd) > 0;
  L->cols.first = hypre_ParCSRMatrixFirstColDiag(P);
  L->cols.owned = hypre_CSRMatrixNumCols(Pd);
  if (hypre_order) {
    o.triple         = pcluster::TripleForm::FusedRowsOfC;
    o.sorted_result  = false;
    o.check_operands = false; /* hypre's rows: columns in range and unique, not sorted */
    const std::vector<View> ops{{hypre_CSRMatrixNumRows(Ad), hypre_CSRMatrixNumCols(Ad), hypre_CSRMatrixI(Ad), hypre_CSRMatrixJ(Ad), hypre_CSRMatrixData(Ad)},
                                {hypre_CSRMatrixNumRows(Pd), hypre_CSRMatrixNumCols(Pd), hypre_CSRMatrixI(Pd), hypre_CSRMatrixJ(Pd), hypre_CSRMatrixData(Pd)}};
    HYPRE_MemoryLocation              where = loc;
    pcluster::CallerArray<HYPRE_Int>  cj(HypreAllocator(&where)); /* A_H's own arrays, if OneRankInPlace */
    pcluster::CallerArray<HYPRE_Real> cv(HypreAllocator(&where));
    HyprePlan::symbolic(pcluster::ProductType::PtAP, ops, o, L->ci, cj, &cv);
    if (OneRankInPlace(P, L, cj, cv, loc)) return;
    L->cj.assign(cj.begin(), cj.end()); /* a row without its diagonal: laid out by Assemble */
    L->cv.assign(cv.begin(), cv.end());
    return;
  }
  const HypreCsr As = SortedCopy(Ad, hypre_CSRMatrixNumCols(Ad)), Ps = SortedCopy(Pd, L->cols.owned);
  HyprePlan::symbolic(pcluster::ProductType::PtAP, {As.view(), Ps.view()}, o, L->ci, L->cj, &L->cv);
}

/* Several ranks: P's rows for A's off-process columns fetched by hypre (hypre_ParCSRMatrixExtractBExt,
   as hypre's product does), then the core's fused product by rows of C on pieced views (the MPIAIJ
   glue's formulation, product_mpiaij.cxx: P_rows^T A_sq P_rows) of hypre's blocks, unsorted */
void LocalProductRanks(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, hypre_CSRMatrix *Pext, LocalProduct *L)
{
  using View = pcluster::PiecedView<HYPRE_Int, HYPRE_Real>;
  hypre_CSRMatrix     *Ad = hypre_ParCSRMatrixDiag(A), *Ao = hypre_ParCSRMatrixOffd(A), *Pd = hypre_ParCSRMatrixDiag(P), *Po = hypre_ParCSRMatrixOffd(P);
  const HYPRE_Int      n = hypre_CSRMatrixNumRows(Ad), nAo = hypre_CSRMatrixNumCols(Ao), nPo = hypre_CSRMatrixNumCols(Po);
  const HYPRE_BigInt  *cmapA = hypre_ParCSRMatrixColMapOffd(A), *cmapP = hypre_ParCSRMatrixColMapOffd(P);
  const HYPRE_BigInt   a0 = hypre_ParCSRMatrixFirstColDiag(A);
  CoarseColumns       &cols = L->cols;
  const HYPRE_Int      next = Pext ? hypre_CSRMatrixNumRows(Pext) : 0;
  const HYPRE_Int     *ei   = Pext ? hypre_CSRMatrixI(Pext) : nullptr;
  const HYPRE_BigInt  *ej   = Pext ? hypre_CSRMatrixBigJ(Pext) : nullptr;
  const HYPRE_Real    *ev   = Pext ? hypre_CSRMatrixData(Pext) : nullptr;

  /* fine columns: A's off-process ones left of its block, the block (n), the rest */
  const HYPRE_Int fine_before = static_cast<HYPRE_Int>(std::lower_bound(cmapA, cmapA + nAo, a0) - cmapA);
  std::vector<HYPRE_Int> a_colmap(nAo);
  for (HYPRE_Int c = 0; c < nAo; ++c) a_colmap[c] = c < fine_before ? c : c + n;
  /* coarse columns: P's own block, and the others its rows (own and fetched) reach */
  cols.first = hypre_ParCSRMatrixFirstColDiag(P);
  cols.owned = hypre_CSRMatrixNumCols(Pd);
  cols.ghost.assign(cmapP, cmapP + nPo);
  for (HYPRE_Int t = 0; t < (next ? ei[next] : 0); ++t)
    if (ej[t] < cols.first || ej[t] >= cols.first + cols.owned) cols.ghost.push_back(ej[t]);
  std::sort(cols.ghost.begin(), cols.ghost.end());
  cols.ghost.erase(std::unique(cols.ghost.begin(), cols.ghost.end()), cols.ghost.end());
  cols.before = static_cast<HYPRE_Int>(std::lower_bound(cols.ghost.begin(), cols.ghost.end(), cols.first) - cols.ghost.begin());
  std::vector<HYPRE_Int> p_colmap(nPo);
  for (HYPRE_Int c = 0; c < nPo; ++c) p_colmap[c] = cols.local(cmapP[c]);

  HypreCsr Pes; /* the fetched rows, columns renumbered */
  Pes.nrows = next;
  Pes.ncols = cols.size();
  if (next) Pes.rowptr.assign(ei, ei + next + 1);
  Pes.colidx.resize(Pes.rowptr.back());
  Pes.values.assign(ev, ev + Pes.rowptr.back());
  for (HYPRE_Int t = 0; t < Pes.rowptr.back(); ++t) Pes.colidx[t] = cols.local(ej[t]);
  std::vector<HYPRE_Int> empty[4];

  View Av, Pv;
  Av.nrows = Av.ncols = n + nAo;
  Av.own_row0 = Av.diag_col0 = fine_before;
  Av.own_rows                = n;
  Av.diag                    = BlockView(Ad, n, empty[0]);
  if (nAo) {
    Av.offdiag        = BlockView(Ao, nAo, empty[1]);
    Av.offdiag_colmap = a_colmap.data();
  }
  Pv.nrows     = n + nAo;
  Pv.ncols     = cols.size();
  Pv.own_row0  = fine_before;
  Pv.own_rows  = n;
  Pv.diag      = BlockView(Pd, cols.owned, empty[2]);
  Pv.diag_col0 = cols.before;
  if (nPo) {
    Pv.offdiag        = BlockView(Po, nPo, empty[3]);
    Pv.offdiag_colmap = p_colmap.data();
  }
  if (next) Pv.other = Pes.view();
  pcluster::SpgemmOptions o = g_rap.opts.spgemm;
  o.triple                  = pcluster::TripleForm::FusedRowsOfC; /* the form that takes rows in any order */
  o.check_operands          = false;                              /* hypre's rows: columns in range and unique, not sorted */
  o.sorted_result           = false; /* Assemble lays A_H's rows out in hypre's order (columns as first reached) anyway */
  HyprePlan::symbolic(pcluster::ProductType::PtAP, std::vector<View>{Av, Pv}, o, L->ci, L->cj, &L->cv);
}

/* A_H in hypre's layout from our rows of it and the rows other ranks sent (RAP_ext, by hypre's send map
   of P's columns; none on one rank, where OneRankInPlace could not make it), written once into arrays of hypre's of their exact size, which A_H takes over: each
   row the diagonal first (an explicit zero where the product has none), the other columns as first
   reached; off-process columns those its rows use, ascending (hypre compacts its map to these). A row
   something was received for is summed in a dense row, the rows received first, then ours (hypre's
   order of addition); the others, most rows, are copied as they are (the dense row for every row, into
   vectors then copied into hypre's arrays, took 0.03 s of a 0.1 s product on level 1 of a 2-rank
   elasticity set-up). L's pages are handed back to the system as its rows are copied (pcluster::release_pages), so
   that L and A_H are not both resident whole (that set-up's peak had been 13-19% above hypre's). L is
   freed. */
hypre_ParCSRMatrix *Assemble(hypre_ParCSRMatrix *P, LocalProduct &L, hypre_CSRMatrix *RAP_ext, HYPRE_MemoryLocation loc)
{
  const CoarseColumns &cols = L.cols;
  const HYPRE_Int      nc = cols.owned, own0 = cols.before, own1 = cols.before + nc; /* L's numbers of the owned columns */
  const HYPRE_Int      nrecv = RAP_ext ? hypre_CSRMatrixNumRows(RAP_ext) : 0;
  const HYPRE_Int     *xi = RAP_ext ? hypre_CSRMatrixI(RAP_ext) : nullptr;
  const HYPRE_BigInt  *xj = RAP_ext ? hypre_CSRMatrixBigJ(RAP_ext) : nullptr;
  const HYPRE_Real    *xv = RAP_ext ? hypre_CSRMatrixData(RAP_ext) : nullptr;
  const HYPRE_Int      nx = nrecv ? xi[nrecv] : 0;
  const auto           ghost = [own0, own1](HYPRE_Int c) { return c < own0 || c >= own1; };
  std::vector<HYPRE_Int> by_row(nc + 1, 0), received(nrecv);
  if (nrecv) {
    const HYPRE_Int *elmts = hypre_ParCSRCommPkgSendMapElmts(hypre_ParCSRMatrixCommPkg(P));
    for (HYPRE_Int k = 0; k < nrecv; ++k) ++by_row[elmts[k] + 1];
    for (HYPRE_Int i = 0; i < nc; ++i) by_row[i + 1] += by_row[i];
    std::vector<HYPRE_Int> next(by_row.begin(), by_row.end() - 1);
    for (HYPRE_Int k = 0; k < nrecv; ++k) received[next[elmts[k]]++] = k;
  }

  /* off-process columns of A_H: those its rows use, ascending. Ours are marked in L's numbering (whose
     ghosts ascend), counting each row's entries in the two blocks on the way; a received column is
     looked up among L's ghosts (x_col: its number in L), and the few L does not know are sorted apart;
     the two sets merged, each used column of L knows its place (offd_of), an unknown received one finds
     it by a search. */
  HYPRE_MemoryLocation              where = loc;
  const pcluster::CallerAllocator   alloc = HypreAllocator(&where);
  pcluster::CallerArray<HYPRE_Int>  di(alloc), oi(alloc), dj(alloc), oj(alloc);
  pcluster::CallerArray<HYPRE_Real> dv(alloc), ov(alloc);
  di.resize(nc + 1);
  oi.resize(nc + 1);
  const HYPRE_Int   ncols = cols.size();
  std::vector<char> used(ncols, 0);
  for (HYPRE_Int i = 0; i < nc; ++i) {
    const HYPRE_Int c = own0 + i;
    HYPRE_Int       nd = 1, no = 0; /* the diagonal is always stored */
    for (HYPRE_Int q = L.ci[c]; q < L.ci[c + 1]; ++q) {
      const HYPRE_Int j = L.cj[q];
      if (ghost(j)) used[j] = 1, ++no;
      else nd += j != c;
    }
    di[i + 1] = nd;
    oi[i + 1] = no;
  }
  std::vector<HYPRE_Int>    x_col(nx);
  std::vector<HYPRE_BigInt> ours, theirs, offd_map;
  for (HYPRE_Int t = 0; t < nx; ++t) {
    const HYPRE_BigInt g = xj[t];
    if (g >= cols.first && g < cols.first + nc) {
      x_col[t] = own0 + static_cast<HYPRE_Int>(g - cols.first);
      continue;
    }
    const HYPRE_Int c = cols.local(g);
    if (c < ncols && cols.global(c) == g) used[c] = 1, x_col[t] = c;
    else x_col[t] = -1, theirs.push_back(g);
  }
  for (HYPRE_Int c = 0; c < ncols; ++c)
    if (used[c]) ours.push_back(cols.global(c));
  std::sort(theirs.begin(), theirs.end());
  theirs.erase(std::unique(theirs.begin(), theirs.end()), theirs.end());
  std::set_union(ours.begin(), ours.end(), theirs.begin(), theirs.end(), std::back_inserter(offd_map));
  std::vector<HYPRE_BigInt>().swap(theirs);
  std::vector<HYPRE_Int> offd_of(ncols, -1);
  for (HYPRE_Int c = 0, k = 0; c < ncols; ++c)
    if (used[c]) {
      while (offd_map[k] != cols.global(c)) ++k;
      offd_of[c] = k;
    }
  const HYPRE_Int noffd = static_cast<HYPRE_Int>(offd_map.size());

  /* A row something was received for: its entries as (place, value), the rows received first, then
     L's; place j >= 0: column j of the diagonal block, -1 - k: column k of the off-diagonal one */
  const auto own_place = [&](HYPRE_Int j) { return ghost(j) ? -1 - offd_of[j] : j - own0; };
  const auto merge     = [&](HYPRE_Int i, auto &&add) {
    for (HYPRE_Int k = by_row[i]; k < by_row[i + 1]; ++k)
      for (HYPRE_Int t = xi[received[k]]; t < xi[received[k] + 1]; ++t) {
        const HYPRE_Int x = x_col[t];
        add(x >= 0 ? own_place(x) : -1 - static_cast<HYPRE_Int>(std::lower_bound(offd_map.begin(), offd_map.end(), xj[t]) - offd_map.begin()), xv[t]);
      }
    const HYPRE_Int c = own0 + i;
    for (HYPRE_Int q = L.ci[c]; q < L.ci[c + 1]; ++q) add(own_place(L.cj[q]), L.cv[q]);
  };
  std::vector<HYPRE_Real> dval(nc, 0), oval(noffd, 0);
  std::vector<char>       dmark(nc, 0), omark(noffd, 0);
  std::vector<HYPRE_Int>  dcols, ocols; /* the row's columns but its diagonal (marked beforehand), first reached first */
  const auto              sum = [&](HYPRE_Int p) -> HYPRE_Real & { /* place p's sum, p listed on first use */
    if (p >= 0) {
      if (!dmark[p]) dmark[p] = 1, dcols.push_back(p);
      return dval[p];
    }
    if (!omark[-1 - p]) omark[-1 - p] = 1, ocols.push_back(-1 - p);
    return oval[-1 - p];
  };
  const auto clear_row = [&](HYPRE_Int i) {
    for (HYPRE_Int j : dcols) dval[j] = 0, dmark[j] = 0;
    for (HYPRE_Int j : ocols) oval[j] = 0, omark[j] = 0;
    dval[i] = 0, dmark[i] = 0;
    dcols.clear();
    ocols.clear();
  };
  for (HYPRE_Int i = 0; i < nc; ++i) /* the merged rows' lengths */
    if (by_row[i] < by_row[i + 1]) {
      dmark[i] = 1;
      merge(i, [&](HYPRE_Int p, HYPRE_Real) { sum(p); });
      di[i + 1] = 1 + static_cast<HYPRE_Int>(dcols.size());
      oi[i + 1] = static_cast<HYPRE_Int>(ocols.size());
      clear_row(i);
    }
  for (HYPRE_Int i = 0; i < nc; ++i) di[i + 1] += di[i], oi[i + 1] += oi[i];
  dj.reserve(di[nc]);
  dv.reserve(di[nc]);
  oj.reserve(oi[nc]);
  ov.reserve(oi[nc]);

  /* L's rows that are not A_H's were sent (RAP_int): their pages go now, A_H's as they are copied (in
     batches of kDropBatch entries: a system call each) */
  constexpr HYPRE_Int kDropBatch = 1 << 15;
  const auto          drop      = [&L](HYPRE_Int from, HYPRE_Int to) {
    pcluster::release_pages(L.cj.data() + from, L.cj.data() + to);
    pcluster::release_pages(L.cv.data() + from, L.cv.data() + to);
  };
  drop(0, L.ci[own0]);
  drop(L.ci[own1], L.ci.back());
  HYPRE_Int dropped = L.ci[own0];
  for (HYPRE_Int i = 0; i < nc; ++i) {
    const HYPRE_Int c = own0 + i;
    if (by_row[i] == by_row[i + 1]) { /* nothing received: L's row as it is, its diagonal first */
      const std::size_t head = dj.size();
      dj.push_back(i);
      dv.push_back(0);
      for (HYPRE_Int q = L.ci[c]; q < L.ci[c + 1]; ++q) {
        const HYPRE_Int j = L.cj[q];
        if (ghost(j)) oj.push_back(offd_of[j]), ov.push_back(L.cv[q]);
        else if (j == c) dv[head] = L.cv[q];
        else dj.push_back(j - own0), dv.push_back(L.cv[q]);
      }
    } else {
      dmark[i] = 1;
      merge(i, [&](HYPRE_Int p, HYPRE_Real v) { sum(p) += v; });
      dj.push_back(i);
      dv.push_back(dval[i]);
      for (HYPRE_Int j : dcols) dj.push_back(j), dv.push_back(dval[j]);
      for (HYPRE_Int j : ocols) oj.push_back(j), ov.push_back(oval[j]);
      clear_row(i);
    }
    if (L.ci[c + 1] - dropped >= kDropBatch) drop(dropped, L.ci[c + 1]), dropped = L.ci[c + 1];
  }
  if (dj.size() != static_cast<std::size_t>(di[nc]) || oj.size() != static_cast<std::size_t>(oi[nc])) throw std::logic_error("BoomerAMG coarse operator: A_H's rows came out longer or shorter than counted");
  L = LocalProduct();

  /* the arrays handed to A_H, which frees them */
  const HYPRE_Int     nnz_d = di[nc], nnz_o = oi[nc];
  hypre_ParCSRMatrix *RAP   = hypre_ParCSRMatrixCreate(hypre_ParCSRMatrixComm(P), hypre_ParCSRMatrixGlobalNumCols(P), hypre_ParCSRMatrixGlobalNumCols(P), hypre_ParCSRMatrixColStarts(P), hypre_ParCSRMatrixColStarts(P), noffd, nnz_d, nnz_o);
  hypre_CSRMatrix    *Rd = hypre_ParCSRMatrixDiag(RAP), *Ro = hypre_ParCSRMatrixOffd(RAP);
  hypre_CSRMatrixI(Rd) = di.release();
  hypre_CSRMatrixI(Ro) = oi.release();
  if (nnz_d) {
    hypre_CSRMatrixJ(Rd)    = dj.release();
    hypre_CSRMatrixData(Rd) = dv.release();
  }
  if (nnz_o) {
    hypre_CSRMatrixJ(Ro)    = oj.release();
    hypre_CSRMatrixData(Ro) = ov.release();
  }
  if (noffd) {
    HYPRE_BigInt *map = hypre_CTAlloc(HYPRE_BigInt, noffd, HYPRE_MEMORY_HOST);
    std::copy(offd_map.begin(), offd_map.end(), map);
    hypre_ParCSRMatrixColMapOffd(RAP) = map;
  }
  return RAP;
}

/* A_H = P^T A P as hypre_BoomerAMGBuildCoarseOperatorKT(P, A, P, keepTranspose) makes it: the rows of
   other ranks' coarse points go to their owners through hypre's own exchange, the rows received are
   added to ours, and A_H is written in hypre's layout (diagonal first, off-process columns compacted) */
PetscErrorCode BuildCoarseOperator(hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, HYPRE_Int keepTranspose, hypre_ParCSRMatrix **RAP_ptr)
{
  MPI_Comm                   comm = hypre_ParCSRMatrixComm(A);
  hypre_CSRMatrix           *Pd = hypre_ParCSRMatrixDiag(P), *Po = hypre_ParCSRMatrixOffd(P), *Pext = nullptr, *RAP_ext = nullptr;
  const HYPRE_MemoryLocation loc = hypre_ParCSRMatrixMemoryLocation(A);
  const HYPRE_Int            nc = hypre_CSRMatrixNumCols(Pd), nPo = hypre_CSRMatrixNumCols(Po);
  const HYPRE_BigInt        *cmapP = hypre_ParCSRMatrixColMapOffd(P);
  LocalProduct               L;
  PetscLogDouble             t0, t1;
  PetscMPIInt                size;
  PetscErrorCode             ierr;

  PetscFunctionBegin;
  PetscCall(PetscTime(&t0));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  if (size > 1) { /* collective, as in hypre's product: every rank, rows or not */
    if (!hypre_ParCSRMatrixCommPkg(P)) hypre_MatvecCommPkgCreate(P);
    if (!hypre_ParCSRMatrixCommPkg(A)) hypre_MatvecCommPkgCreate(A);
    Pext = hypre_ParCSRMatrixExtractBExt(P, A, 1);
  }
  ierr = PetscClusterCallCXX_Private(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, "BoomerAMG coarse operator", [&]() {
    if (size > 1) LocalProductRanks(A, P, Pext, &L);
    else LocalProductOneRank(A, P, &L, loc);
  });
  if (ierr && L.RAP) { /* made before a failure (none follows OneRankInPlace today): not leaked */
    hypre_ParCSRMatrixDestroy(L.RAP);
    L.RAP = nullptr;
  }
  if (Pext) hypre_CSRMatrixDestroy(Pext);
  /* A failure on one rank must not leave the others in the exchange: every rank learns of it */
  if (size > 1) PetscCall(MatClusterAllRanks_Private(comm, ierr, "BoomerAMG coarse operator"));
  PetscCall(ierr);
  const CoarseColumns &cols = L.cols;

  /* the rows of other ranks' coarse points (P's off-process columns), global columns, to their owners */
  if (size > 1) {
    hypre_ParCSRCommPkg *pkg      = hypre_ParCSRMatrixCommPkg(P);
    hypre_CSRMatrix     *RAP_int  = nullptr;
    if (nPo) {
      HYPRE_Int total = 0;
      for (HYPRE_Int r = 0; r < nPo; ++r) {
        const HYPRE_Int c = cols.local(cmapP[r]);
        total += L.ci[c + 1] - L.ci[c];
      }
      RAP_int                                = hypre_CSRMatrixCreate(nPo, hypre_CSRMatrixNumRows(Pd), total);
      hypre_CSRMatrixMemoryLocation(RAP_int) = HYPRE_MEMORY_HOST;
      HYPRE_Int    *ii = hypre_CTAlloc(HYPRE_Int, nPo + 1, HYPRE_MEMORY_HOST);
      HYPRE_BigInt *ij = hypre_CTAlloc(HYPRE_BigInt, total, HYPRE_MEMORY_HOST);
      HYPRE_Real   *iv = hypre_CTAlloc(HYPRE_Real, total, HYPRE_MEMORY_HOST);
      for (HYPRE_Int r = 0, t = 0; r < nPo; ++r) {
        const HYPRE_Int c = cols.local(cmapP[r]);
        for (HYPRE_Int q = L.ci[c]; q < L.ci[c + 1]; ++q, ++t) {
          ij[t] = cols.global(L.cj[q]);
          iv[t] = L.cv[q];
        }
        ii[r + 1] = t;
      }
      hypre_CSRMatrixI(RAP_int)    = ii;
      hypre_CSRMatrixBigJ(RAP_int) = ij;
      hypre_CSRMatrixData(RAP_int) = iv;
    }
    if (hypre_ParCSRCommPkgNumSends(pkg) || hypre_ParCSRCommPkgNumRecvs(pkg)) {
      void *request;
      hypre_ExchangeExternalRowsInit(RAP_int, pkg, &request);
      RAP_ext = hypre_ExchangeExternalRowsWait(request);
    }
    if (RAP_int) hypre_CSRMatrixDestroy(RAP_int);
  }

  /* the rows received added to ours, in hypre's layout: local work whose failure every rank must learn
     of before the collective calls below (hypre's communication package of A_H) */
  hypre_ParCSRMatrix *RAP = nullptr;
  ierr = PetscClusterCallCXX_Private(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, "BoomerAMG coarse operator", [&]() { RAP = L.RAP ? L.RAP : Assemble(P, L, RAP_ext, loc); });
  if (RAP_ext) hypre_CSRMatrixDestroy(RAP_ext);
  if (size > 1) PetscCall(MatClusterAllRanks_Private(comm, ierr, "BoomerAMG coarse operator"));
  PetscCall(ierr);
  if (size > 1) hypre_MatvecCommPkgCreate(RAP);
  if (keepTranspose) { /* hypre's restriction in the solve uses the P^T kept on P (MatvecT) */
    hypre_CSRMatrix *T = nullptr;
    hypre_CSRMatrixTranspose(Pd, &T, 1);
    if (hypre_ParCSRMatrixDiagT(P)) hypre_CSRMatrixDestroy(hypre_ParCSRMatrixDiagT(P));
    hypre_ParCSRMatrixDiagT(P) = T;
    if (nPo) {
      hypre_CSRMatrixTranspose(Po, &T, 1);
      if (hypre_ParCSRMatrixOffdT(P)) hypre_CSRMatrixDestroy(hypre_ParCSRMatrixOffdT(P));
      hypre_ParCSRMatrixOffdT(P) = T;
    }
  }
  *RAP_ptr = RAP;
  PetscCall(PetscTime(&t1));
  PetscCall(PetscInfo(NULL, "BoomerAMG level %d: coarse operator with %d local rows, %d + %d entries, by petsc-cluster %s in %g s (threads %d)\n", g_rap.level, (int)nc, (int)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixDiag(RAP)),
                      (int)hypre_CSRMatrixNumNonzeros(hypre_ParCSRMatrixOffd(RAP)), g_rap.alg, (double)(t1 - t0), g_rap.opts.spgemm.num_threads));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What replaces hypre_BoomerAMGBuildCoarseOperatorKT in libHYPRE's calls */
HYPRE_Int HypreRapBuildCoarseOperator(hypre_ParCSRMatrix *RT, hypre_ParCSRMatrix *A, hypre_ParCSRMatrix *P, HYPRE_Int keepTranspose, hypre_ParCSRMatrix **RAP_ptr)
{
  if (g_rap.depth == 0) return g_rap.build_original(RT, A, P, keepTranspose, RAP_ptr); /* not BoomerAMG's set-up */
  HYPRE_Int herr = 0;
  (void)PetscLogEventBegin(g_rap_event, 0, 0, 0, 0);
  ++g_rap.level;
  if (g_rap.active && RT == P && !g_rap.error) {
    const PetscErrorCode ierr = BuildCoarseOperator(A, P, keepTranspose, RAP_ptr);
    if (!ierr) ++g_rap.ours;
    else g_rap.error = ierr; /* hypre's product for the rest of this set-up, which then fails (HypreRapSetup) */
  }
  if (!g_rap.active || RT != P || g_rap.error) {
    ++g_rap.theirs;
    herr = g_rap.build_original(RT, A, P, keepTranspose, RAP_ptr);
  }
  (void)PetscLogEventEnd(g_rap_event, 0, 0, 0, 0);
  return herr;
}

/* Why this BoomerAMG set-up cannot form its coarse operators with ours, or nullptr */
const char *HypreRapUnsupported(hypre_ParAMGData *amg, hypre_ParCSRMatrix *A)
{
  int size = 1;
  MPI_Comm_size(hypre_ParCSRMatrixComm(A), &size);
  if (size > 1 && !pcluster::fused_triple(pcluster::ProductType::PtAP, g_rap.opts.spgemm)) return "on more than one rank, where petsc-cluster forms them with the fused triple product only (rowwise or cluster, no reordering)";
  if (hypre_ParAMGDataBlockMode(amg)) return "block interpolation (hypre_ParCSRBlockMatrixRAP), which petsc-cluster does not redirect";
  if (hypre_ParAMGDataRestriction(amg)) return "AIR restriction (R is not P^T), which petsc-cluster does not redirect";
  bool nongalerkin = hypre_ParAMGDataNonGalerkinTol(amg) > 0; /* one tolerance for all levels, or one a level */
  for (HYPRE_Int l = 0; l < hypre_ParAMGDataNonGalerkNumTol(amg) && hypre_ParAMGDataNonGalerkTol(amg); ++l) nongalerkin = nongalerkin || hypre_ParAMGDataNonGalerkTol(amg)[l] > 0;
  if (nongalerkin) return "non-Galerkin coarse operators, which petsc-cluster does not redirect";
  if (hypre_ParAMGDataRAP2(amg) || hypre_ParAMGDataModularizedMatMat(amg)) return "RAP2 or modular products (HYPRE_BoomerAMGSetRAP2, SetModuleRAP2), which petsc-cluster does not redirect";
  return nullptr;
}

/* The option as it stands when a set-up starts (it may change between set-ups): our algorithm and its
   -mat_cluster_* options into g_rap, or *ours false for "hypre" */
PetscErrorCode HypreRapBegin(hypre_ParAMGData *amg, hypre_ParCSRMatrix *A, bool *ours)
{
  char      name[64] = "hypre";
  PetscBool hypre, found;

  PetscFunctionBegin;
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_hypre_boomeramg_rap_via", name, sizeof name, NULL));
  PetscCall(PetscStrcasecmp(name, "hypre", &hypre));
  *ours = !hypre;
  if (hypre) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(MatClusterAlgorithmIsOurs_Private(name, &found, &g_rap.alg));
  PetscCheck(found, PETSC_COMM_SELF, PETSC_ERR_ARG_UNKNOWN_TYPE, "-pc_hypre_boomeramg_rap_via %s is unknown: valid choices are hypre (hypre's own) %s", name, MatClusterAlgorithmList_Private());
  PetscCall(MatClusterGetOptions_Private(NULL, g_rap.alg, 1, &g_rap.opts));
  const char *why = HypreRapUnsupported(amg, A);
  PetscCheck(!why, PETSC_COMM_SELF, PETSC_ERR_SUP, "-pc_hypre_boomeramg_rap_via %s: BoomerAMG's coarse operators here are %s", g_rap.alg, why);
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* What replaces hypre_BoomerAMGSetup in libHYPRE's calls (HYPRE_BoomerAMGSetup, nested set-ups) */
HYPRE_Int HypreRapSetup(void *amg_vdata, hypre_ParCSRMatrix *A, hypre_ParVector *f, hypre_ParVector *u)
{
  hypre_ParAMGData *amg = static_cast<hypre_ParAMGData *>(amg_vdata);
  if (g_rap.depth == 0) {
    bool ours = false;
    if (HypreRapBegin(amg, A, &ours)) return HYPRE_ERROR_GENERIC; /* PETSc's error is printed; PCSetUp fails on the code */
    g_rap.active = ours;
    g_rap.level = g_rap.ours = g_rap.theirs = 0;
    g_rap.error                             = PETSC_SUCCESS;
  }
  ++g_rap.depth;
  const HYPRE_Int herr = g_rap.setup_original(amg_vdata, A, f, u);
  --g_rap.depth;
  if (g_rap.depth > 0 || herr || !g_rap.active) return herr;
  const int levels = hypre_ParAMGDataNumLevels(amg);
  if (g_rap.error) {
    (void)PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, g_rap.error, PETSC_ERROR_REPEAT, "-pc_hypre_boomeramg_rap_via %s: a coarse operator failed (above); hypre formed the rest", g_rap.alg);
    return HYPRE_ERROR_GENERIC;
  }
  if (levels > 1 && g_rap.ours + g_rap.theirs == 0) { /* e.g. block mode, which the set-up itself decides */
    const char *why = HypreRapUnsupported(amg, A);
    (void)PetscError(PETSC_COMM_SELF, __LINE__, PETSC_FUNCTION_NAME, __FILE__, why ? PETSC_ERR_SUP : PETSC_ERR_LIB, PETSC_ERROR_INITIAL, "-pc_hypre_boomeramg_rap_via %s: BoomerAMG formed %d coarse operators without petsc-cluster: %s", g_rap.alg, levels - 1,
                     why ? why : "they did not go through the redirected calls of hypre_BoomerAMGBuildCoarseOperatorKT");
    return HYPRE_ERROR_GENERIC;
  }
  (void)PetscInfo(NULL, "BoomerAMG set-up: %d levels, %d coarse operators by petsc-cluster %s, %d by hypre\n", levels, g_rap.ours, g_rap.alg, g_rap.theirs);
  return herr;
}

} // namespace

PetscErrorCode PetscClusterHypreRapRegister_Private(void)
{
  char      name[64];
  PetscBool set, ours, hypre;
  HYPRE_Int major = 0, minor = 0, patch = 0, single = 0;

  PetscFunctionBegin;
  PetscCall(PetscLogEventRegister("MatHypreRAP", MAT_CLASSID, &g_rap_event));
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pc_hypre_boomeramg_rap_via", name, sizeof name, &set));
  if (!set || g_rap.installed) PetscFunctionReturn(PETSC_SUCCESS);
  PetscCall(PetscStrcasecmp(name, "hypre", &hypre));
  PetscCall(MatClusterAlgorithmIsOurs_Private(name, &ours, NULL));
  PetscCheck(ours || hypre, PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE, "-pc_hypre_boomeramg_rap_via %s is unknown: valid choices are hypre (hypre's own) %s", name, MatClusterAlgorithmList_Private());
  HYPRE_VersionNumber(&major, &minor, &patch, &single);
  PetscCheck(100 * major + minor == HYPRE_RELEASE_NUMBER / 100, PETSC_COMM_WORLD, PETSC_ERR_LIB, "-pc_hypre_boomeramg_rap_via: petsc-cluster was built with the headers of hypre %s, but this program runs hypre %d.%d.%d: rebuild the plugin against the hypre of this PETSc",
             HYPRE_RELEASE_VERSION, (int)major, (int)minor, (int)patch);
  /* the originals as the program binds them (the plugin's own link could name another copy of hypre) */
  g_rap.build_original = reinterpret_cast<decltype(g_rap.build_original)>(dlsym(RTLD_DEFAULT, "hypre_BoomerAMGBuildCoarseOperatorKT"));
  g_rap.setup_original = reinterpret_cast<decltype(g_rap.setup_original)>(dlsym(RTLD_DEFAULT, "hypre_BoomerAMGSetup"));
  PetscCheck(g_rap.build_original && g_rap.setup_original, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-pc_hypre_boomeramg_rap_via %s: hypre's functions are not visible to the dynamic linker (a static hypre?): its calls cannot be redirected", name);
  std::string why;
  bool        ok = true;
  PetscClusterCallCXX(PETSC_COMM_WORLD, "-pc_hypre_boomeramg_rap_via", {
    try {
      ok = PltRedirect("hypre_BoomerAMGBuildCoarseOperatorKT", reinterpret_cast<void *>(&HypreRapBuildCoarseOperator), &g_rap.build_slots, &why) > 0 &&
           PltRedirect("hypre_BoomerAMGSetup", reinterpret_cast<void *>(&HypreRapSetup), &g_rap.setup_slots, &why) > 0;
      /* the calls that matter are libHYPRE's own: one slot of each in the object that defines them */
      for (auto *r : {&g_rap.build_slots, &g_rap.setup_slots}) {
        Dl_info lib, slot;
        bool    inside = false;
        if (!ok || !dladdr(reinterpret_cast<void *>(r == &g_rap.build_slots ? reinterpret_cast<void *>(g_rap.build_original) : reinterpret_cast<void *>(g_rap.setup_original)), &lib)) break;
        for (void **s : r->slots) inside = inside || (dladdr(s, &slot) && slot.dli_fbase == lib.dli_fbase);
        if (!inside) {
          ok  = false;
          why = std::string("no call slot in ") + (lib.dli_fname ? lib.dli_fname : "hypre's library") + " itself (its internal calls are bound directly)";
        }
      }
    } catch (...) {
      PltRestore(&g_rap.setup_slots);
      PltRestore(&g_rap.build_slots);
      throw;
    }
  });
  if (!ok) {
    PltRestore(&g_rap.setup_slots);
    PltRestore(&g_rap.build_slots);
    SETERRQ(PETSC_COMM_WORLD, PETSC_ERR_SUP, "-pc_hypre_boomeramg_rap_via %s: hypre's calls cannot be redirected here: %s", name, why.c_str());
  }
  g_rap.installed = true;
  PetscCall(PetscInfo(NULL, "-pc_hypre_boomeramg_rap_via %s: %zu + %zu call slots of hypre %s redirected (the option is read again when each set-up starts)\n", name, g_rap.build_slots.slots.size(), g_rap.setup_slots.slots.size(), HYPRE_RELEASE_VERSION));
  PetscFunctionReturn(PETSC_SUCCESS);
}

void PetscClusterHypreRapReset_Private(void)
{
  if (!g_rap.installed) return;
  PltRestore(&g_rap.setup_slots);
  PltRestore(&g_rap.build_slots);
  g_rap = HypreRap();
}

#else /* a PETSc without hypre, hypre's headers not found at configure time, or a hypre with 64-bit HYPRE_Int */

PetscErrorCode PetscClusterHypreRapRegister_Private(void)
{
  PetscBool set;

  PetscFunctionBegin;
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_hypre_boomeramg_rap_via", &set));
  PetscCheck(!set, PETSC_COMM_WORLD, PETSC_ERR_SUP, "-pc_hypre_boomeramg_rap_via: this petsc-cluster was built without hypre support (its PETSc has no hypre, hypre's headers were not found, or hypre was configured --enable-bigint, which it does not support)");
  PetscFunctionReturn(PETSC_SUCCESS);
}

void PetscClusterHypreRapReset_Private(void) { }

#endif
