/*
   What the example programs (spgemm_bench, bfs) compare: the names of the SeqAIJ C = A*B algorithms,
   PETSc's and ours, and the input matrices: generated (design/benchmarks.md's suite), read from a
   file (PETSc binary or Matrix Market), optionally shuffled by a random symmetric permutation; as a
   MATSEQAIJ and as the core's CSR.
*/
#pragma once

#include <petscmat.h>
#include <petsccluster.h>

#include "pcluster/generators.hpp"
#include "petsc_versions.hpp"
#include "pcluster/matrix_market.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(_OPENMP)
  #include <omp.h>
#endif

using Csr = pcluster::CsrMatrix<PetscInt, PetscScalar>;

/* The OpenMP threads our products use by default (OMP_NUM_THREADS) */
inline int MaxThreads()
{
#if defined(_OPENMP)
  return omp_get_max_threads();
#else
  return 1;
#endif
}

/* PETSc 3.18's SeqAIJ algorithms for C = A*B, and ours */
inline const std::vector<std::string> kPetscAlgs = {"sorted", "scalable", "scalable_fast", "heap", "btheap", "llcondensed", "rowmerge", "hypre"};
inline const std::vector<std::string> kOurAlgs   = {MATPRODUCTALGORITHMROWWISE, MATPRODUCTALGORITHMCLUSTER, MATPRODUCTALGORITHMCLUSTERFIXED,
                                                    MATPRODUCTALGORITHMCLUSTERVARIABLE, MATPRODUCTALGORITHMCLUSTERHIERARCHICAL};

struct Problem {
  std::string name;
  std::string gen;  /* p7, s27, e27, rmat, rgg; empty for a file */
  std::string file;
  PetscInt    n = 0;
  PetscInt    shuffle = -1; /* seed, or -1 for none */
  PetscInt    shuffle_bs = 1;
  PetscInt    gen_seed = 1;
};

/* Coordinates of the rows' grid nodes (x, y, z per node, in A's numbering, shuffle included) for
   e27, whose near-null space (rigid body modes) needs them; empty for every other input. */
inline std::vector<PetscScalar> NodeCoordinates(const Problem &p)
{
  std::vector<PetscScalar> xyz;
  if (p.gen != "e27" || !p.file.empty()) return xyz;
  const PetscInt nodes = p.n * p.n * p.n;
  std::vector<PetscInt> perm; /* perm[old node] = new node, as permute_symmetric draws it */
  if (p.shuffle >= 0) perm = pcluster::random_permutation<PetscInt>(nodes, static_cast<std::uint64_t>(p.shuffle));
  xyz.resize(3 * static_cast<std::size_t>(nodes));
  for (PetscInt node = 0; node < nodes; ++node) { /* the generator's numbering: x fastest */
    const std::size_t k = 3 * static_cast<std::size_t>(perm.empty() ? node : perm[node]);
    xyz[k]              = node % p.n;
    xyz[k + 1]          = (node / p.n) % p.n;
    xyz[k + 2]          = node / (p.n * p.n);
  }
  return xyz;
}

inline Csr Generate(const Problem &p)
{
  const std::uint64_t seed = static_cast<std::uint64_t>(p.gen_seed);
  if (p.gen == "p7") return pcluster::poisson3d_7pt<PetscInt, PetscScalar>(p.n, seed);
  if (p.gen == "s27") return pcluster::stencil3d_27pt<PetscInt, PetscScalar>(p.n, seed);
  if (p.gen == "e27") return pcluster::elasticity3d_27pt<PetscInt, PetscScalar>(p.n, seed);
  if (p.gen == "rmat") return pcluster::rmat<PetscInt, PetscScalar>(static_cast<int>(p.n), 16, true, seed);
  if (p.gen == "rgg") return pcluster::random_geometric_2d<PetscInt, PetscScalar>(p.n, 5.0, false, seed);
  throw std::invalid_argument("unknown generator '" + p.gen + "' (valid: p7 s27 e27 rmat rgg)");
}

inline PetscErrorCode MatFromCsr(const Csr &M, PetscInt bs, Mat *A)
{
  PetscFunctionBegin;
  PetscCall(MatCreate(PETSC_COMM_SELF, A));
  PetscCall(MatSetSizes(*A, M.nrows, M.ncols, M.nrows, M.ncols));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATSEQAIJ));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, M.rowptr.data(), M.colidx.data(), M.values.data()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline PetscErrorCode CsrFromMat(Mat A, Csr *M)
{
  PetscInt           n, m;
  const PetscInt    *ia, *ja;
  const PetscScalar *va;
  PetscBool          done;

  PetscFunctionBegin;
  PetscCall(MatGetSize(A, &m, &n));
  PetscCall(MatGetRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscCheck(done, PETSC_COMM_SELF, PETSC_ERR_SUP, "MatGetRowIJ is not supported by this matrix type");
  PetscCall(MatSeqAIJGetArrayRead(A, &va));
  M->nrows = m;
  M->ncols = n;
  M->rowptr.assign(ia, ia + m + 1);
  M->colidx.assign(ja, ja + ia[m]);
  M->values.assign(va, va + ia[m]);
  PetscCall(MatSeqAIJRestoreArrayRead(A, &va));
  PetscCall(MatRestoreRowIJ(A, 0, PETSC_FALSE, PETSC_FALSE, &m, &ia, &ja, &done));
  PetscFunctionReturn(PETSC_SUCCESS);
}

inline bool EndsWith(const std::string &s, const std::string &suffix)
{
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/* Reads a Matrix Market file; its errors ("<file>:<line>: what is wrong") become PETSc errors:
   PETSC_ERR_FILE_OPEN when it cannot be opened, PETSC_ERR_FILE_UNEXPECTED for its contents,
   PETSC_ERR_FILE_READ when reading it failed otherwise */
inline PetscErrorCode ReadMatrixMarket(const std::string &path, Csr *M)
{
  PetscBool readable;

  PetscFunctionBegin;
  PetscCall(PetscTestFile(path.c_str(), 'r', &readable));
  PetscCheck(readable, PETSC_COMM_SELF, PETSC_ERR_FILE_OPEN, "%s: cannot open the file for reading", path.c_str());
  try {
    *M = pcluster::read_matrix_market<PetscInt, PetscScalar>(path);
  } catch (const pcluster::MatrixMarketError &e) {
    SETERRQ(PETSC_COMM_SELF, e.line > 0 ? PETSC_ERR_FILE_UNEXPECTED : PETSC_ERR_FILE_READ, "%s", e.what());
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Builds A (MATSEQAIJ, row block size bs) and its CSR copy (used for flops and the GraphBLAS import). */
inline PetscErrorCode BuildProblem(const Problem &p, PetscInt bs, Mat *A, Csr *M)
{
  PetscFunctionBegin;
  if (!p.file.empty() && !EndsWith(p.file, ".mtx")) {
    PetscViewer viewer;
    Mat         L;
    PetscCall(PetscViewerBinaryOpen(PETSC_COMM_SELF, p.file.c_str(), FILE_MODE_READ, &viewer));
    PetscCall(MatCreate(PETSC_COMM_SELF, &L));
    PetscCall(MatSetType(L, MATSEQAIJ));
    PetscCall(MatLoad(L, viewer));
    PetscCall(PetscViewerDestroy(&viewer));
    PetscCall(CsrFromMat(L, M));
    PetscCall(MatDestroy(&L));
  } else if (!p.file.empty()) PetscCall(ReadMatrixMarket(p.file, M));
  else {
    try {
      *M = Generate(p);
    } catch (const std::invalid_argument &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE, "%s", e.what());
    } catch (const std::bad_alloc &) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_MEM, "generating %s: out of memory", p.gen.c_str());
    } catch (const std::exception &e) {
      SETERRQ(PETSC_COMM_SELF, PETSC_ERR_LIB, "%s", e.what());
    }
  }
  if (p.shuffle >= 0) {
    PetscCheck(M->nrows == M->ncols, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "-shuffle: %s is %" PetscInt_FMT " x %" PetscInt_FMT ", not square", p.name.c_str(),
               M->nrows, M->ncols);
    PetscCheck(p.shuffle_bs >= 1 && M->nrows % p.shuffle_bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_OUTOFRANGE,
               "-shuffle_block_size %" PetscInt_FMT " does not divide the size %" PetscInt_FMT, p.shuffle_bs, M->nrows);
    PetscCallCXX(*M = pcluster::permute_symmetric(M->view(), static_cast<std::uint64_t>(p.shuffle), static_cast<int>(p.shuffle_bs)));
  }
  PetscCheck(M->nrows % bs == 0, PETSC_COMM_SELF, PETSC_ERR_ARG_SIZ, "%s: block size %" PetscInt_FMT " does not divide the %" PetscInt_FMT " rows", p.name.c_str(), bs, M->nrows);
  PetscCall(MatFromCsr(*M, bs, A));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* The standard generated suite of design/benchmarks.md; scale multiplies the number of rows. */
inline std::vector<Problem> StandardSuite(double scale)
{
  const double lin3 = std::cbrt(scale);
  auto grid = [&](PetscInt n) { return std::max<PetscInt>(2, static_cast<PetscInt>(std::lround(n * lin3))); };
  const PetscInt rmat_scale = std::max<PetscInt>(4, 14 + static_cast<PetscInt>(std::lround(std::log2(scale))));
  const PetscInt rgg_points = std::max<PetscInt>(100, static_cast<PetscInt>(std::lround(2000000 * scale)));
  const PetscInt seed       = 2024; /* the permutation of every shuffled suite matrix */
  std::vector<Problem> s;
  auto add = [&](const std::string &gen, PetscInt n, PetscInt shuffle, PetscInt bs) {
    Problem p;
    p.gen        = gen;
    p.n          = n;
    p.shuffle    = shuffle;
    p.shuffle_bs = bs;
    s.push_back(p);
  };
  add("p7", grid(100), -1, 1);
  add("p7", grid(100), seed, 1);
  add("s27", grid(64), -1, 1);
  add("s27", grid(64), seed, 1);
  add("e27", grid(32), -1, 3);
  add("e27", grid(32), seed, 3);
  add("rmat", rmat_scale, -1, 1);
  add("rgg", rgg_points, seed, 1);
  add("rgg", rgg_points, -1, 1);
  return s;
}

/* The sweep (spgemm_bench -sweep): each generator at several sizes, in its natural numbering and
   shuffled, for every seed given (the seed of the values, of the random graphs and of the shuffle):
   a suite that cannot be tuned to by accident. scale multiplies the row counts, as -suite_scale. */
inline std::vector<Problem> SweepSuite(double scale, const std::vector<PetscInt> &seeds)
{
  const double lin3 = std::cbrt(scale);
  auto grid = [&](PetscInt n) { return std::max<PetscInt>(2, static_cast<PetscInt>(std::lround(n * lin3))); };
  const PetscInt dscale = static_cast<PetscInt>(std::lround(std::log2(scale)));
  std::vector<Problem> s;
  for (PetscInt seed : seeds) {
    auto add = [&](const std::string &gen, PetscInt n, PetscInt bs) {
      for (const Problem &q : s) /* sizes clamped by a small scale can coincide: run each once */
        if (q.gen == gen && q.n == n && q.gen_seed == seed) return;
      for (bool shuffled : {false, true}) {
        Problem p;
        p.gen        = gen;
        p.n          = n;
        p.gen_seed   = seed;
        p.shuffle    = shuffled ? seed : -1;
        p.shuffle_bs = bs;
        s.push_back(p);
      }
    };
    for (PetscInt n : {40, 55, 70, 85, 100}) add("p7", grid(n), 1);
    for (PetscInt n : {32, 48, 64}) add("s27", grid(n), 1);
    for (PetscInt n : {16, 24, 32}) add("e27", grid(n), 3);
    for (PetscInt k = 12; k <= 16; ++k) add("rmat", std::max<PetscInt>(4, k + dscale), 1);
    for (PetscInt n : {300000, 1000000, 3000000}) add("rgg", std::max<PetscInt>(100, static_cast<PetscInt>(std::lround(n * scale))), 1);
  }
  return s;
}

inline std::string ProblemName(const Problem &p)
{
  std::string name;
  if (!p.file.empty()) {
    const std::size_t slash = p.file.find_last_of('/');
    name = slash == std::string::npos ? p.file : p.file.substr(slash + 1);
  } else {
    const char *what = p.gen == "rmat" ? "_s" : "_n";
    name = p.gen + what + std::to_string(static_cast<long long>(p.n));
    if (p.gen_seed != 1) name += "_seed" + std::to_string(static_cast<long long>(p.gen_seed));
  }
  if (p.shuffle >= 0) name += "_shuffled" + std::to_string(static_cast<long long>(p.shuffle));
  return name;
}

/* multiply-adds of A*B: sum over stored A(i,k) of nnz(B(k,:)) */
inline PetscInt64 Flops(const Csr &MA, const Csr &MB)
{
  PetscInt64 f = 0;
  for (std::size_t k = 0; k < MA.colidx.size(); ++k) f += MB.rowptr[MA.colidx[k] + 1] - MB.rowptr[MA.colidx[k]];
  return f;
}


/* How the rows of a distributed matrix are split over the ranks */
enum class RowLayout { Even, Uneven, EmptyFirst };
inline const char *const kRowLayoutNames[] = {"even", "uneven", "empty_first", "RowLayout", "ROW_LAYOUT_", nullptr};

/* This rank's number of rows of n, in whole blocks of bs: Even as PETSC_DECIDE does; Uneven gives rank
   r a share proportional to r+1; EmptyFirst gives rank 0 nothing (on more than one rank) and splits
   the rest evenly. */
inline PetscInt LocalRows(RowLayout layout, PetscInt n, PetscInt bs, PetscMPIInt rank, PetscMPIInt size)
{
  const PetscInt blocks = n / bs;
  auto           share  = [&](PetscInt r) { /* blocks before rank r */
    switch (layout) {
    case RowLayout::Uneven:
      return (PetscInt)((PetscInt64)blocks * (r * (r + 1) / 2) / ((PetscInt64)size * (size + 1) / 2));
    case RowLayout::EmptyFirst:
      if (size == 1) return r ? blocks : 0;
      return r == 0 ? 0 : (PetscInt)((PetscInt64)blocks * (r - 1) / (size - 1));
    default:
      return (PetscInt)((PetscInt64)blocks * r / size);
    }
  };
  return (share(rank + 1) - share(rank)) * bs;
}

/* A MATMPIAIJ (or `type`: MATAIJ is SeqAIJ on one rank) on comm from the full CSR M (every rank holds
   M; each takes its rows), rows and columns split by layout when square; a rectangular M's columns are
   split evenly */
inline PetscErrorCode MatFromCsrDistributed(MPI_Comm comm, const Csr &M, PetscInt bs, RowLayout layout, Mat *A, MatType type = MATMPIAIJ)
{
  PetscMPIInt rank, size;
  PetscInt    m, n, rstart = 0;

  PetscFunctionBegin;
  PetscCallMPI(MPI_Comm_rank(comm, &rank));
  PetscCallMPI(MPI_Comm_size(comm, &size));
  m = LocalRows(layout, M.nrows, bs, rank, size);
  n = M.nrows == M.ncols ? m : LocalRows(RowLayout::Even, M.ncols, 1, rank, size);
  PetscCallMPI(MPI_Exscan(&m, &rstart, 1, MPIU_INT, MPI_SUM, comm));
  if (rank == 0) rstart = 0;
  std::vector<PetscInt> rowptr(m + 1);
  for (PetscInt i = 0; i <= m; ++i) rowptr[i] = M.rowptr[rstart + i] - M.rowptr[rstart];
  const PetscInt off = M.rowptr[rstart];
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, m, n, M.nrows, M.ncols));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, type));
  PetscCall(MatSeqAIJSetPreallocationCSR(*A, rowptr.data(), M.colidx.data() + off, M.values.data() + off)); /* the one of A's type acts */
  PetscCall(MatMPIAIJSetPreallocationCSR(*A, rowptr.data(), M.colidx.data() + off, M.values.data() + off));
  PetscFunctionReturn(PETSC_SUCCESS);
}
