/*
   Private declarations shared by the MATMPIAIJ product files (product_mpiaij.cxx explains the
   formulations):
     mpiaij_local_rows.cxx  the local pieces of the operands the core's kernels run on
     mpiaij_result.cxx      the local result put together as C (split arrays; other ranks' rows sent to them)
     product_mpiaij.cxx     the driver: the table's formulation for each product type, both phases
*/
#pragma once

#include "petscclusterimpl.h"

#include <memory>
#include <vector>

using MatClusterCsr = pcluster::CsrMatrix<PetscInt, PetscScalar>;

/* The diagonal and off-diagonal blocks of an assembled MPIAIJ */
struct MatClusterBlocks {
  MatClusterCsrView d, o;
  const PetscInt   *garray = nullptr;
  PetscInt          nlow   = 0; /* ghost columns left of the owned block: garray[0, nlow) */
};
PETSC_INTERN PetscErrorCode MatClusterGetBlocks_Private(Mat M, MatClusterBlocks *b);

/* Rows of an MPIAIJ operand as one CSR, columns renumbered 0..k-1 in increasing global order; or,
   with own_copied false, the same rows as a pieced view (MatClusterLocalRowsPieced_Private): the
   operand's own rows read in place from its blocks, csr holding the fetched rows only */
struct MatClusterLocalRows {
  MatClusterCsr         csr;
  bool                  own_copied = true;
  std::vector<PetscInt> global;                     /* renumbered column -> global column */
  PetscInt              own_row0 = 0, own_rows = 0; /* the operand's own rows are csr rows [own_row0, own_row0 + own_rows) */
  PetscInt              own_col0 = 0;               /* its diagonal-block column c is renumbered own_col0 + c */
  std::vector<PetscInt> ghost_col;                  /* its off-diagonal-block column c is renumbered ghost_col[c] */
  Mat                   fetched = nullptr;          /* rows of other ranks (MatCreateSubMatrices): csr rows before and after the own rows */
  IS                    fetched_rows = nullptr, all_cols = nullptr;
  int                   threads      = 0; /* -mat_cluster_threads, for the copies */
};
/* M's own rows, on the columns they use (copy: into r->csr; else their numbering only) */
PETSC_INTERN PetscErrorCode MatClusterLocalRowsOwn_Private(Mat M, int threads, bool copy, MatClusterLocalRows *r);
/* The rows of B for the columns of A's own rows a (B's own rows and the others, fetched; copy: B's
   own rows copied into r->csr too) */
PETSC_INTERN PetscErrorCode MatClusterLocalRowsFetch_Private(Mat A, const MatClusterLocalRows &a, Mat B, bool copy, MatClusterLocalRows *r);
/* The rows r holds of M (the operand they were taken from) as a view with nrows rows, M's own rows
   at row0 (r's fetched rows before and after them), without copying M's own rows */
using MatClusterPiecedView = pcluster::PiecedView<PetscInt, PetscScalar>;
PETSC_INTERN PetscErrorCode MatClusterLocalRowsPieced_Private(Mat M, const MatClusterLocalRows &r, PetscInt row0, PetscInt nrows, MatClusterPiecedView *v);
/* New values of the rows (M: the operand they were taken from), fetched rows again with MAT_REUSE_MATRIX */
PETSC_INTERN PetscErrorCode MatClusterLocalRowsRefresh_Private(Mat M, MatClusterLocalRows *r);
PETSC_INTERN PetscErrorCode MatClusterLocalRowsDestroy_Private(MatClusterLocalRows *r);

/* Where the local result R sits in C (rmap x cmap): R's rows [own_row0, own_row0 + rmap->n) are this
   rank's rows of C; with remote rows (A^T*B, P^T*A*P) R's other rows, global numbers row_global, go
   to their owners. R's columns are col_global, of which [own_col0, own_col0 + cmap->n) are C's own
   columns (its diagonal block). */
struct MatClusterResultLayout {
  const MatClusterCsr         *R          = nullptr;
  PetscInt                     own_row0   = 0;
  const PetscInt              *row_global = nullptr; /* with remote rows only */
  const std::vector<PetscInt> *col_global = nullptr;
  PetscInt                     own_col0   = 0;
  bool                         has_remote = false;
  bool                         force_diagonal = false; /* MAT_FORCE_DIAGONAL_ENTRIES */
  bool                         own_in_place   = false; /* R has a pattern only: the kernel writes C's own rows in place (MatClusterResultScatterBegin_Private) */
  PetscLayout                  rmap = nullptr, cmap = nullptr;
  int                          threads = 0;
};
/* What the numeric phase needs to put the local result R into C */
struct MatClusterResultAssembly {
  PetscInt                 own_row0 = 0;     /* R's rows [own_row0, own_row0 + m) are C's rows on this rank */
  bool                     assign = false;   /* C's rows are R's own rows (no remote rows, no forced diagonal): copied row by row */
  PetscInt                 own_col0 = 0;     /* R's columns [own_col0, own_col0 + n) are C's diagonal block */
  std::vector<PetscInt>    pos_own;          /* otherwise, C position of each entry of R's own rows (diagonal block's values, then off-diagonal's: one array) */
  bool                     own_in_place = false; /* R's own rows have no values: the kernel writes them into C (ResultScatter: */
  std::vector<PetscInt>    runs_own, pos_irregular;  /* 5 a row, and the places of the rows of C with more entries; no pos_own) */
  /* With remote rows: R's other rows go to their owners, and other ranks' rows of C come here,
     point to point (the ranks found once, by PetscCommBuildTwoSided); each owner adds what it
     receives in the order of the ranks that sent it */
  bool                     has_remote = false;
  MPI_Comm                 comm       = MPI_COMM_NULL;   /* PETSc's inner communicator (PetscCommDuplicate), with its tag */
  PetscMPIInt              tag        = 0;
  std::vector<PetscMPIInt> send_ranks, send_counts;      /* owners of R's other rows (increasing), and their entries in R's order */
  std::vector<PetscMPIInt> recv_ranks, recv_counts;      /* ranks whose entries of C come here (increasing), and how many */
  std::vector<PetscScalar> remote_values;                /* values of R's other rows, in R's order (sent) */
  std::vector<PetscInt>    pos_recv;                     /* C position of every entry received, in the order received */
  int                      threads = 0;
};
PETSC_INTERN PetscErrorCode MatClusterResultAssemblyDestroy_Private(MatClusterResultAssembly *out);
using MatClusterResultScatter = pcluster::ResultScatter<PetscInt, PetscScalar>;
/* Builds T, the MPIAIJ on our arrays holding R (its values; zeros with own_in_place), and `out` to refresh it */
PETSC_INTERN PetscErrorCode MatClusterResultSymbolic_Private(MPI_Comm comm, const MatClusterResultLayout &, MatClusterResultAssembly *out, Mat *T);
/* C's values from R after a numeric phase: the boundary rows sent, every value put in place
   (own_in_place: the own rows are, by the kernel: the rows other ranks sent are added) */
PETSC_INTERN PetscErrorCode MatClusterResultNumeric_Private(MatClusterResultAssembly &out, const MatClusterCsr &R, Mat C);
/* own_in_place: C's values zeroed and where the kernel's numeric phase puts R's own rows (s: rows, pos
   and C's arrays, until End) and its other rows (out.remote_values, the values sent) */
PETSC_INTERN PetscErrorCode MatClusterResultScatterBegin_Private(MatClusterResultAssembly &out, Mat C, MatClusterResultScatter *s);
PETSC_INTERN PetscErrorCode MatClusterResultScatterEnd_Private(Mat C, MatClusterResultScatter *s);
/* R's rows outside [own_row0, own_row0 + m): their values, in R's order (sent to their owners) */
PETSC_INTERN void MatClusterRemoteValues_Private(const MatClusterCsr &R, PetscInt own_row0, PetscInt m, std::vector<PetscScalar> &values);

/*
   An error raised on some ranks only (a local product whose nnz overflows PetscInt or runs out of
   memory) must reach every rank before the next collective call, or the others wait in it forever.
   Every rank passes the error code of the local work it just did (0: none); then all ranks fail
   together: those with an error with their own, the others naming the rank that failed.
*/
PETSC_INTERN PetscErrorCode MatClusterAllRanks_Private(MPI_Comm comm, PetscErrorCode ierr, const char what[]);
/* PetscClusterCallCXX for local work whose error (an exception of the core) must reach every rank */
#define MatClusterCallCXXAllRanks(comm, what, ...) \
  PetscCall(MatClusterAllRanks_Private((comm), PetscClusterCallCXX_Private((comm), __LINE__, PETSC_FUNCTION_NAME, __FILE__, NULL, (what), [&]() { __VA_ARGS__; }), (what)))
