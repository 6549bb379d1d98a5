static const char help[] =
  "amg_setup: algebraic multigrid set-up (PCGAMG, PCHMG) of generated 3D problems, with PETSc's default sparse\n"
  "matrix products, with PETSc's fastest alternative, and with each petsc-cluster algorithm, with a table of set-up\n"
  "times, their peak resident memory, product times, iterations, residuals and operator complexities.\n"
  "\n"
  "Problems:\n"
  "  -problem <poisson|elasticity|all>  (default all)\n"
  "      poisson:    7-point finite differences on an n^3 grid, u = 0 one grid step outside the face x = 0,\n"
  "                  zero flux on the other faces, unit source\n"
  "      elasticity: Q1 hexahedra, 3 dofs per node (block size 3), n^3 free nodes, clamped face x = 0,\n"
  "                  E = 1, nu = 0.3, unit body force in -z; near-null space = the 6 rigid-body modes\n"
  "  -n <N>           grid points per side of every problem (default: poisson 50, elasticity 18)\n"
  "Preconditioners and products:\n"
  "  -pcs <gamg,hmg,hypre>  (default gamg,hmg) gamg: PCGAMG; hmg: PCHMG with hypre BoomerAMG coarsening and\n"
  "                   Galerkin coarse operators (-hmg_inner_pc_type hypre -pc_mg_galerkin pmat; elasticity\n"
  "                   coarsens one displacement component: -pc_hmg_use_subspace_coarsening); hypre: hypre's\n"
  "                   own BoomerAMG (-pc_type hypre), its coarse operators by hypre ('default' row) or by ours\n"
  "                   (-pc_hypre_boomeramg_rap_via <alg>), timed by the plugin's event MatHypreRAP (column PtAP)\n"
  "  -algs <a,b,...>  petsc-cluster algorithms, one row each (default cluster): each sets -matptap_via,\n"
  "                   -matmatmult_via, -matmatmatmult_via and -mattransposematmult_via to its name. They run\n"
  "                   with one OpenMP thread per process, as PETSc's products, and again with every thread\n"
  "                   (OMP_NUM_THREADS) when there are more, in rows labelled 'N threads'; -mat_cluster_threads\n"
  "                   given by the user applies to every row instead.\n"
  "                   PETSc's rows always run: 'default' (no flag), its fastest alternative (-matptap_via rap on\n"
  "                   one process; allatonce and nonscalable on several) and 'hypre' (-matptap_via hypre);\n"
  "                   'hypre' is set up but not solved, and only with PCGAMG: on one process PETSc 3.18.5's\n"
  "                   SeqAIJ hypre PtAP result makes the coarse LU read out of bounds (valgrind), so solves\n"
  "                   diverge or crash, and PCHMG factors its coarse operator during set-up.\n"
  "  -ksp_rtol <r>    CG relative tolerance on the unpreconditioned residual, the same for every row (1e-8)\n"
  "  -resetup <bool>  after the first solve, scale A by 0.9 (new values, same pattern) and solve\n"
  "                   again reusing the interpolation (-pc_gamg_reuse_interpolation, -pc_hmg_reuse_interpolation):\n"
  "                   the numeric-only PtAP, timed as 're-setup' (default true)\n"
  "  -reps <N>        run every row N times, report the best time of each column (default 1)\n"
  "  -check           exit nonzero if a row's iterations or residuals differ from the 'default' row or a\n"
  "                   solve does not converge\n"
  "  -check_rtol <t>  residuals match if they differ by at most t relative (default 1e-6), or by at most\n"
  "                   1e-13 (the residuals are relative to ||b||: rounding in converged solves)\n"
  "  -json <file>     also write the figures as JSON\n"
  "The program sets the product flags (-matptap_via ...) and -pc_type itself: do not pass them. Other PETSc\n"
  "options (-pc_gamg_*, -mg_levels_*, -mat_cluster_*, -log_view) apply to every row.\n";

/*
  How the figures are measured. Every (problem, preconditioner, product configuration) gets its own log stage, and
  so does its re-setup; each run of a row (-reps) builds a fresh copy of A and a fresh KSP, pushes the stage around
  KSPSetUp + KSPSolve, and reads PETSc's own events in that stage with PetscLogEventGetPerfInfo before and after:
    PCSetUp   event "PCSetUp" (everything the preconditioner set-up costs, products included)
    PtAP      "MatPtAPSymbolic" + "MatPtAPNumeric" + "MatMatMatMultSym" + "MatMatMatMultNum"
    AB        "MatMatMultSym" + "MatMatMultNum" + "MatTrnMatMultSym" + "MatTrnMatMultNum"
  so -log_view shows the same stages and events (summed over -reps). The product flags are global options (PCGAMG,
  PCMG and PCHMG create their products without an options prefix), so they are set and cleared in the options
  database between rows.
*/
#include <petscksp.h>
#include <petsccluster.h>

#include "peak_memory.hpp"
#include "petsc_versions.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#if defined(_OPENMP)
  #include <omp.h>
#endif

namespace {

/* Material and discretisation constants of the elasticity problem. */
constexpr PetscReal kYoung   = 1.0;
constexpr PetscReal kPoisson = 0.3;
/* Re-setup: A scaled by this factor. Every value changes and the pattern does not, and the spectrum
   shrinks, so the Chebyshev eigenvalue bounds that PCGAMG keeps with a reused interpolation stay
   valid. (A positive diagonal shift, tried first, lifts the top of the spectrum above them: from
   n = 60 CG then stops with DIVERGED_INDEFINITE_PC, with PETSc's products as with ours.) */
constexpr PetscReal kResetupScale = 0.9;

const char *const kProductFlags[] = {"-matptap_via", "-matmatmult_via", "-matmatmatmult_via", "-mattransposematmult_via"};

enum Event { EV_PCSETUP, EV_KSPSOLVE, EV_PTAP_SYM, EV_PTAP_NUM, EV_ABC_SYM, EV_ABC_NUM, EV_AB_SYM, EV_AB_NUM, EV_ATB_SYM, EV_ATB_NUM, EV_HYPRE_RAP, EV_COUNT };
const char *const kEventNames[EV_COUNT] = {"PCSetUp",          "KSPSolve",         "MatPtAPSymbolic",  "MatPtAPNumeric",   "MatMatMatMultSym",
                                           "MatMatMatMultNum", "MatMatMultSym",    "MatMatMultNum",    "MatTrnMatMultSym", "MatTrnMatMultNum",
                                           "MatHypreRAP" /* the plugin's, where it has hypre: BoomerAMG's coarse operators */};
PetscLogEvent     events[EV_COUNT];

struct Problem {
  std::string name, description;
  PetscInt    n = 0, bs = 1;
  Mat         A = nullptr; /* the operator; each run works on a copy */
  Vec         b = nullptr;
};

/* Event times and counts of one stage, accumulated so far. */
struct Snapshot {
  PetscLogDouble time[EV_COUNT];
  int            count[EV_COUNT];
  PetscLogDouble local_setup = 0; /* this rank's PCSetUp (time[] holds the slowest rank's) */
  double         peak_mb     = 0; /* resident memory KSPSetUp added at its peak, the largest rank's (MB) */
};

/* What one row reports: times are the best over -reps, the rest must be equal across reps. */
struct Figures {
  PetscLogDouble setup = PETSC_MAX_REAL, ptap = PETSC_MAX_REAL, ab = PETSC_MAX_REAL, solve = PETSC_MAX_REAL;
  PetscLogDouble resetup = PETSC_MAX_REAL, resetup_prod = PETSC_MAX_REAL;
  double         peak_mb = HUGE_VAL; /* peak resident growth of KSPSetUp, the largest rank's, smallest over -reps */
  int            nptap = 0, nab = 0, nptap_re = 0;
  PetscInt       its = -1, its_re = -1;
  PetscReal      res = 0, res_re = 0, opcx = 0;
  PetscBool      converged = PETSC_TRUE;
  std::vector<PetscLogDouble> setup_ranks; /* PCSetUp of each rank (best over -reps), on rank 0 */
  std::vector<PetscInt>  level_rows;
  std::vector<PetscReal> level_nnz;
  bool                   reps_agree = true; /* every repetition converged the same way */
  std::string            match, why;        /* match: "ref", "yes" or "NO"; why: what differs */
};

struct Config {
  std::string name, ptap, others; /* flag values; empty: PETSc's default */
  bool        ours;               /* -check counts mismatches of our rows only */
  bool        solve = true;       /* false: KSPSetUp only (see the 'hypre' row in main) */
  bool        petsc_choice = false; /* one of PETSc's own choices whose best set-up is the 'x best' reference */
  int         threads      = 0;     /* -mat_cluster_threads for this row; 0: left as the user set it */
};

struct Settings {
  PetscInt  reps = 1;
  PetscBool resetup = PETSC_TRUE, user_galerkin = PETSC_FALSE, user_threads = PETSC_FALSE;
  PetscReal rtol = 1e-8, check_rtol = 1e-6;
  PetscInt  max_it = 200;
};

/* ------------------------------------------------------------------------------------------ */
/* Problems on an n x n x n grid of unknown nodes, node g = ix + n (iy + n iz), numbered so that a rank's rows are a
   slab of consecutive nodes (PETSc's ownership ranges): the same code assembles SeqAIJ on one rank and MPIAIJ on
   several. */

void NodeCoords(PetscInt n, PetscInt g, PetscInt *ix, PetscInt *iy, PetscInt *iz)
{
  *ix = g % n;
  *iy = (g / n) % n;
  *iz = g / (n * n);
}

/* Preallocation from the stencil: every node couples with its neighbours at offsets in {-1,0,1}^3 (full = 27-point
   for Q1) or along the axes only (7-point). */
PetscErrorCode CreateMatrix(MPI_Comm comm, PetscInt n, PetscInt bs, PetscBool full, Mat *A)
{
  PetscInt              nnodes = n * n * n, nloc = PETSC_DECIDE, ne;
  std::vector<PetscInt> dnz, onz;

  PetscFunctionBeginUser;
  PetscCall(PetscSplitOwnership(comm, &nloc, &nnodes));
  PetscCall(MatCreate(comm, A));
  PetscCall(MatSetSizes(*A, bs * nloc, bs * nloc, PETSC_DETERMINE, PETSC_DETERMINE));
  PetscCall(MatSetBlockSize(*A, bs));
  PetscCall(MatSetType(*A, MATAIJ));
  PetscCallMPI(MPI_Scan(&nloc, &ne, 1, MPIU_INT, MPI_SUM, comm)); /* this rank's nodes: [ns, ne) */
  const PetscInt ns = ne - nloc;
  PetscCallCXX(dnz.assign(ne - ns, 0));
  PetscCallCXX(onz.assign(ne - ns, 0));
  for (PetscInt g = ns; g < ne; ++g) {
    PetscInt ix, iy, iz;
    NodeCoords(n, g, &ix, &iy, &iz);
    for (PetscInt dz = -1; dz <= 1; ++dz)
      for (PetscInt dy = -1; dy <= 1; ++dy)
        for (PetscInt dx = -1; dx <= 1; ++dx) {
          const PetscInt jx = ix + dx, jy = iy + dy, jz = iz + dz;
          if (!full && std::abs(dx) + std::abs(dy) + std::abs(dz) > 1) continue;
          if (jx < 0 || jx >= n || jy < 0 || jy >= n || jz < 0 || jz >= n) continue;
          const PetscInt h = jx + n * (jy + n * jz);
          if (h >= ns && h < ne) ++dnz[g - ns];
          else ++onz[g - ns];
        }
  }
  PetscCall(MatXAIJSetPreallocation(*A, bs, dnz.data(), onz.data(), NULL, NULL));
  PetscCall(MatSetOption(*A, MAT_NEW_NONZERO_ALLOCATION_ERR, PETSC_TRUE));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode AssemblePoisson(MPI_Comm comm, Problem *p)
{
  const PetscInt  n = p->n;
  const PetscReal h = 1.0 / n;
  PetscInt        rstart, rend;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(comm, n, 1, PETSC_FALSE, &p->A));
  PetscCall(MatGetOwnershipRange(p->A, &rstart, &rend));
  for (PetscInt g = rstart; g < rend; ++g) {
    PetscInt    ix, iy, iz, cols[7], nc = 0;
    PetscScalar vals[7];
    NodeCoords(n, g, &ix, &iy, &iz);
    const PetscInt nb[6][3] = {
      {ix - 1, iy, iz},
      {ix + 1, iy, iz},
      {ix, iy - 1, iz},
      {ix, iy + 1, iz},
      {ix, iy, iz - 1},
      {ix, iy, iz + 1}
    };
    PetscScalar diag = ix == 0 ? 1.0 : 0.0; /* the Dirichlet neighbour at x = 0, eliminated */
    for (const auto &c : nb) {
      if (c[0] < 0 || c[0] >= n || c[1] < 0 || c[1] >= n || c[2] < 0 || c[2] >= n) continue;
      cols[nc]   = c[0] + n * (c[1] + n * c[2]);
      vals[nc++] = -1.0;
      diag += 1.0;
    }
    cols[nc]   = g;
    vals[nc++] = diag;
    PetscCall(MatSetValues(p->A, 1, &g, nc, cols, vals, INSERT_VALUES));
  }
  PetscCall(MatAssemblyBegin(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatCreateVecs(p->A, NULL, &p->b));
  PetscCall(VecSet(p->b, h * h));
  p->description = "3D Poisson, 7-point finite differences";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Stiffness of one Q1 cube of side h, 2x2x2 Gauss points, dofs ordered (node, component), local node
   a = ax + 2 ay + 4 az:  K[3a+i][3b+j] = sum_q w detJ (lambda dNa/dxi dNb/dxj + mu dNa/dxj dNb/dxi
   + mu delta_ij grad Na . grad Nb). All elements of the uniform mesh share it. */
void ElementStiffnessQ1(PetscReal h, PetscScalar K[24][24])
{
  const PetscReal lambda = kYoung * kPoisson / ((1 + kPoisson) * (1 - 2 * kPoisson)), mu = kYoung / (2 * (1 + kPoisson));
  const PetscReal gp = 1.0 / std::sqrt(3.0), detJ = h * h * h / 8; /* unit weights */

  for (int i = 0; i < 24; ++i)
    for (int j = 0; j < 24; ++j) K[i][j] = 0;
  for (int q = 0; q < 8; ++q) {
    const PetscReal xi[3] = {q & 1 ? gp : -gp, q & 2 ? gp : -gp, q & 4 ? gp : -gp};
    PetscReal       dN[8][3]; /* d N_a / d x_d = (2/h) d N_a / d xi_d */
    for (int a = 0; a < 8; ++a) {
      const PetscReal s[3] = {a & 1 ? 1.0 : -1.0, a & 2 ? 1.0 : -1.0, a & 4 ? 1.0 : -1.0};
      for (int d = 0; d < 3; ++d) {
        PetscReal v = s[d] / 2;
        for (int e = 0; e < 3; ++e)
          if (e != d) v *= (1 + s[e] * xi[e]) / 2;
        dN[a][d] = v * 2 / h;
      }
    }
    for (int a = 0; a < 8; ++a)
      for (int b = 0; b < 8; ++b) {
        const PetscReal gg = dN[a][0] * dN[b][0] + dN[a][1] * dN[b][1] + dN[a][2] * dN[b][2];
        for (int i = 0; i < 3; ++i)
          for (int j = 0; j < 3; ++j) K[3 * a + i][3 * b + j] += detJ * (lambda * dN[a][i] * dN[b][j] + mu * dN[a][j] * dN[b][i] + (i == j ? mu * gg : 0));
      }
  }
}

/* Free nodes ix = 0..n-1 sit at x = (ix+1) h; the node plane x = 0 is clamped, so the elements next to it have their
   clamped nodes' dofs dropped (negative indices, which MatSetValuesBlocked ignores). Element (ex, ey, ez),
   ex = -1..n-2, is assembled by the rank that owns its node (ex+1, ey, ez); contributions to rows of other ranks are
   sent by MatAssembly. */
PetscErrorCode AssembleElasticity(MPI_Comm comm, Problem *p)
{
  const PetscInt  n = p->n;
  const PetscReal h = 1.0 / n;
  PetscScalar     K[24][24], F[24];
  PetscInt        rstart, rend;
  Vec             coords;
  MatNullSpace    nsp;
  PetscScalar    *xyz;

  PetscFunctionBeginUser;
  PetscCall(CreateMatrix(comm, n, 3, PETSC_TRUE, &p->A));
  PetscCall(MatCreateVecs(p->A, &coords, &p->b));
  PetscCall(VecSetBlockSize(coords, 3));
  PetscCall(MatGetOwnershipRange(p->A, &rstart, &rend));
  ElementStiffnessQ1(h, K);
  for (int a = 0; a < 8; ++a) F[3 * a] = F[3 * a + 1] = 0, F[3 * a + 2] = -h * h * h / 8; /* integral of N_a * (0,0,-1) */
  PetscCall(VecGetArray(coords, &xyz));
  for (PetscInt g = rstart / 3; g < rend / 3; ++g) {
    PetscInt ix, iy, iz;
    NodeCoords(n, g, &ix, &iy, &iz);
    xyz[3 * (g - rstart / 3) + 0] = (ix + 1) * h;
    xyz[3 * (g - rstart / 3) + 1] = iy * h;
    xyz[3 * (g - rstart / 3) + 2] = iz * h;
    if (iy == n - 1 || iz == n - 1) continue; /* no element has this node as its anchor */
    PetscInt idx[8];
    for (int a = 0; a < 8; ++a) {
      const PetscInt jx = ix - 1 + (a & 1), jy = iy + (a & 2 ? 1 : 0), jz = iz + (a & 4 ? 1 : 0);
      idx[a]            = jx < 0 ? -1 : jx + n * (jy + n * jz);
    }
    PetscCall(MatSetValuesBlocked(p->A, 8, idx, 8, idx, &K[0][0], ADD_VALUES));
    PetscCall(VecSetValuesBlocked(p->b, 8, idx, F, ADD_VALUES));
  }
  PetscCall(VecRestoreArray(coords, &xyz));
  PetscCall(MatAssemblyBegin(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(MatAssemblyEnd(p->A, MAT_FINAL_ASSEMBLY));
  PetscCall(VecAssemblyBegin(p->b));
  PetscCall(VecAssemblyEnd(p->b));
  PetscCall(MatNullSpaceCreateRigidBody(coords, &nsp));
  PetscCall(MatSetNearNullSpace(p->A, nsp));
  PetscCall(MatNullSpaceDestroy(&nsp));
  PetscCall(VecDestroy(&coords));
  p->description = "3D linear elasticity, Q1 hexahedra, block size 3, rigid-body near-null space";
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* One row of the table. */

PetscErrorCode TakeSnapshot(PetscLogStage stage, Snapshot *s)
{
  PetscFunctionBeginUser;
  for (int e = 0; e < EV_COUNT; ++e) {
    PetscEventPerfInfo info = {};
    if (events[e] >= 0) PetscCall(PetscLogEventGetPerfInfo(stage, events[e], &info));
    s->time[e]  = info.time;
    s->count[e] = info.count;
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode SetProductFlags(const Config &c, const Settings &s)
{
  PetscFunctionBeginUser;
  for (const char *f : kProductFlags) PetscCall(PetscOptionsClearValue(NULL, f));
  if (!s.user_threads) {
    PetscCall(PetscOptionsClearValue(NULL, "-mat_cluster_threads"));
    if (c.threads > 0) PetscCall(PetscOptionsSetValue(NULL, "-mat_cluster_threads", std::to_string(c.threads).c_str()));
  }
  if (!c.ptap.empty()) PetscCall(PetscOptionsSetValue(NULL, "-matptap_via", c.ptap.c_str()));
  if (!c.others.empty())
    for (int i = 1; i < 4; ++i) PetscCall(PetscOptionsSetValue(NULL, kProductFlags[i], c.others.c_str()));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* Levels of the multigrid hierarchy, finest last, and operator complexity = sum nnz / nnz(finest). */
PetscErrorCode LevelInfo(PC pc, Figures *f)
{
  PetscInt nlevels;

  PetscFunctionBeginUser;
  PetscCall(PCMGGetLevels(pc, &nlevels));
  f->level_rows.clear();
  f->level_nnz.clear();
  PetscReal total = 0;
  for (PetscInt l = 0; l < nlevels; ++l) {
    KSP      smoother;
    Mat      Pmat;
    MatInfo  info;
    PetscInt rows;
    PetscCall(PCMGGetSmoother(pc, l, &smoother));
    PetscCall(KSPGetOperators(smoother, NULL, &Pmat));
    PetscCall(MatGetInfo(Pmat, MAT_GLOBAL_SUM, &info));
    PetscCall(MatGetSize(Pmat, &rows, NULL));
    PetscCallCXX(f->level_rows.push_back(rows));
    PetscCallCXX(f->level_nnz.push_back(info.nz_used));
    total += info.nz_used;
  }
  f->opcx = total / f->level_nnz.back();
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode RelativeResidual(Mat A, Vec b, Vec x, PetscReal *rel)
{
  Vec       r;
  PetscReal nr, nb;

  PetscFunctionBeginUser;
  PetscCall(VecDuplicate(b, &r));
  PetscCall(MatMult(A, x, r));
  PetscCall(VecAYPX(r, -1.0, b));
  PetscCall(VecNorm(r, NORM_2, &nr));
  PetscCall(VecNorm(b, NORM_2, &nb));
  *rel = nr / nb;
  PetscCall(VecDestroy(&r));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode Solve(KSP ksp, PetscLogStage stage, bool solve, Vec b, Vec x, Snapshot *d, PetscInt *its, PetscReal *res, PetscBool *converged)
{
  Snapshot           s0;
  Mat                A;
  KSPConvergedReason reason;

  PetscFunctionBeginUser;
  PetscCall(TakeSnapshot(stage, &s0));
  const double rss0 = ResetPeak(); /* outside the stage: malloc_trim is not set-up work */
  PetscCall(PetscLogStagePush(stage));
  PetscCall(KSPSetUp(ksp));
  PetscCall(PetscLogStagePop());
  d->peak_mb = StatusMB("VmHWM") - rss0; /* NaN where /proc cannot tell */
  PetscCall(PetscLogStagePush(stage));
  if (solve) PetscCall(KSPSolve(ksp, b, x));
  PetscCall(PetscLogStagePop());
  PetscCall(TakeSnapshot(stage, d));
  for (int e = 0; e < EV_COUNT; ++e) d->time[e] -= s0.time[e], d->count[e] -= s0.count[e];
  /* the slowest rank, like the Max column of -log_view */
  d->local_setup = d->time[EV_PCSETUP];
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, d->time, EV_COUNT, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)ksp)));
  PetscCallMPI(MPI_Allreduce(MPI_IN_PLACE, &d->peak_mb, 1, MPI_DOUBLE, MPI_MAX, PetscObjectComm((PetscObject)ksp)));
  if (!solve) {
    *its = -1, *res = 0;
    PetscFunctionReturn(PETSC_SUCCESS);
  }
  PetscCall(KSPGetIterationNumber(ksp, its));
  PetscCall(KSPGetConvergedReason(ksp, &reason));
  if (reason <= 0) *converged = PETSC_FALSE;
  PetscCall(KSPGetOperators(ksp, &A, NULL));
  PetscCall(RelativeResidual(A, b, x, res));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscLogDouble PtAPTime(const Snapshot &d)
{
  return d.time[EV_PTAP_SYM] + d.time[EV_PTAP_NUM] + d.time[EV_ABC_SYM] + d.time[EV_ABC_NUM] + d.time[EV_HYPRE_RAP];
}
PetscLogDouble ABTime(const Snapshot &d)
{
  return d.time[EV_AB_SYM] + d.time[EV_AB_NUM] + d.time[EV_ATB_SYM] + d.time[EV_ATB_NUM];
}

PetscErrorCode RunRow(const Problem &p, const std::string &pctype, const Config &c, const Settings &s, Figures *f)
{
  const std::string stagename = p.name + " " + pctype + " " + c.name;
  PetscLogStage     stage, stage_re = -1;

  PetscFunctionBeginUser;
  PetscCall(PetscLogStageRegister(stagename.c_str(), &stage)); /* RunRow runs once per (problem, pc, config) */
  if (s.resetup) PetscCall(PetscLogStageRegister((stagename + " re-setup").c_str(), &stage_re));
  PetscCall(SetProductFlags(c, s));
  if (pctype == "hmg" && !s.user_galerkin) PetscCall(PetscOptionsSetValue(NULL, "-pc_mg_galerkin", "pmat"));
  if (pctype == "hypre") PetscCall(PetscOptionsSetValue(NULL, "-pc_hypre_boomeramg_rap_via", c.ptap.empty() ? "hypre" : c.ptap.c_str()));
  for (PetscInt rep = 0; rep < s.reps; ++rep) {
    Mat          A;
    Vec          x;
    KSP          ksp;
    PC           pc;
    MatNullSpace nsp;
    Snapshot     d;
    PetscInt     its;
    PetscReal    res;

    PetscCall(MatDuplicate(p.A, MAT_COPY_VALUES, &A));
    PetscCall(MatGetNearNullSpace(p.A, &nsp));
    if (nsp) PetscCall(MatSetNearNullSpace(A, nsp));
    PetscCall(MatSetOption(A, MAT_SPD, PETSC_TRUE));
    PetscCall(MatSetOption(A, MAT_SPD_ETERNAL, PETSC_TRUE)); /* the re-setup's scaling keeps A SPD */
    PetscCall(VecDuplicate(p.b, &x));
    PetscCall(KSPCreate(PetscObjectComm((PetscObject)A), &ksp));
    PetscCall(KSPSetOperators(ksp, A, A));
    PetscCall(KSPSetType(ksp, KSPCG));
    PetscCall(KSPSetNormType(ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetTolerances(ksp, s.rtol, PETSC_DEFAULT, PETSC_DEFAULT, s.max_it));
    PetscCall(KSPGetPC(ksp, &pc));
    if (pctype == "gamg") {
      PetscCall(PCSetType(pc, PCGAMG));
      PetscCall(PCGAMGSetReuseInterpolation(pc, s.resetup));
    } else if (pctype == "hypre") {
      PetscCall(PCSetType(pc, PCHYPRE));
      PetscCall(PCHYPRESetType(pc, "boomeramg"));
    } else {
      PetscCall(PCSetType(pc, PCHMG));
      PetscCall(PCHMGSetInnerPCType(pc, PCHYPRE));
      PetscCall(PCHMGSetReuseInterpolation(pc, s.resetup));
      /* elasticity: BoomerAMG coarsens one displacement component, its interpolation is applied to all three */
      PetscCall(PCHMGSetUseSubspaceCoarsening(pc, p.bs > 1 ? PETSC_TRUE : PETSC_FALSE));
      /* an AIJ interpolation, not MAIJ: PETSc has a dedicated AIJ x MAIJ PtAP that no -matptap_via selects */
      PetscCall(PCHMGUseMatMAIJ(pc, PETSC_FALSE));
    }
    PetscCall(KSPSetFromOptions(ksp));

    PetscCall(Solve(ksp, stage, c.solve, p.b, x, &d, &its, &res, &f->converged));
    f->setup   = std::min(f->setup, d.time[EV_PCSETUP]);
    f->peak_mb = std::min(f->peak_mb, d.peak_mb); /* the first repetition also pays one-time allocations */
    {
      PetscMPIInt size, rank;
      PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));
      PetscCallMPI(MPI_Comm_rank(PETSC_COMM_WORLD, &rank));
      std::vector<PetscLogDouble> ranks(rank == 0 ? size : 0);
      PetscCallMPI(MPI_Gather(&d.local_setup, 1, MPI_DOUBLE, ranks.data(), 1, MPI_DOUBLE, 0, PETSC_COMM_WORLD));
      if (f->setup_ranks.empty()) f->setup_ranks = ranks;
      for (size_t r = 0; r < ranks.size(); ++r) f->setup_ranks[r] = std::min(f->setup_ranks[r], ranks[r]);
    }
    f->solve = std::min(f->solve, d.time[EV_KSPSOLVE]);
    f->ptap  = std::min(f->ptap, PtAPTime(d));
    f->ab    = std::min(f->ab, ABTime(d));
    f->nptap = d.count[EV_PTAP_SYM] + d.count[EV_ABC_SYM] + d.count[EV_HYPRE_RAP];
    f->nab   = d.count[EV_AB_SYM] + d.count[EV_ATB_SYM];
    if (rep > 0 && (its != f->its || res != f->res)) f->reps_agree = false;
    f->its = its;
    f->res = res;
    if (pctype != "hypre") PetscCall(LevelInfo(pc, f)); /* PCHYPRE has no PCMG levels */

    if (s.resetup) {
      PetscCall(MatScale(A, kResetupScale));
      PetscCall(KSPSetOperators(ksp, A, A));
      PetscCall(Solve(ksp, stage_re, c.solve, p.b, x, &d, &its, &res, &f->converged));
      f->resetup      = std::min(f->resetup, d.time[EV_PCSETUP]);
      f->resetup_prod = std::min(f->resetup_prod, PtAPTime(d) + ABTime(d));
      f->nptap_re     = d.count[EV_PTAP_NUM] + d.count[EV_ABC_NUM] + d.count[EV_HYPRE_RAP];
      if (rep > 0 && (its != f->its_re || res != f->res_re)) f->reps_agree = false;
      f->its_re       = its;
      f->res_re       = res;
    }
    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&x));
    PetscCall(MatDestroy(&A));
  }
  if (pctype == "hmg" && !s.user_galerkin) PetscCall(PetscOptionsClearValue(NULL, "-pc_mg_galerkin"));
  if (pctype == "hypre") PetscCall(PetscOptionsSetValue(NULL, "-pc_hypre_boomeramg_rap_via", "hypre"));
  PetscCall(SetProductFlags(Config{}, s));
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* ------------------------------------------------------------------------------------------ */
/* Checking and printing. */

bool Close(PetscReal a, PetscReal b, PetscReal rtol)
{
  return std::abs(a - b) <= rtol * std::max(std::abs(a), std::abs(b));
}
/* Residuals (relative to ||b||) of two converged solves whose operators differ in their last bits
   differ by rounding: about 1e-15 here (2.152800e-09 and 2.152802e-09 with the coarse operators
   summed in another order). So they also match within kResidualFloor, far below any real
   difference (a solve's residual is ~1e-9 at -ksp_rtol 1e-8, ~1e-11 at 1e-10). */
constexpr PetscReal kResidualFloor = 1e-13;
bool CloseResidual(PetscReal a, PetscReal b, PetscReal rtol)
{
  return Close(a, b, rtol) || std::abs(a - b) <= kResidualFloor;
}

/* Empty if f agrees with the reference row, else what differs. */
std::string Compare(const Figures &f, const Figures &ref, const Settings &s)
{
  std::string why;
  if (!f.converged) why += " not converged;";
  if (!f.reps_agree) why += " repetitions differ;";
  if (f.its != ref.its) why += " iterations " + std::to_string(f.its) + " vs " + std::to_string(ref.its) + ";";
  if (!CloseResidual(f.res, ref.res, s.check_rtol)) why += " residual;";
  if (f.its_re != ref.its_re) why += " re-setup iterations " + std::to_string(f.its_re) + " vs " + std::to_string(ref.its_re) + ";";
  if (s.resetup && !CloseResidual(f.res_re, ref.res_re, s.check_rtol)) why += " re-setup residual;";
  if (f.level_rows != ref.level_rows) why += " levels;";
  if (!Close(f.opcx, ref.opcx, s.check_rtol)) why += " operator complexity;";
  return why;
}

double Ratio(PetscLogDouble ref, PetscLogDouble t)
{
  return t > 0 ? ref / t : 0;
}

/* The PETSc row with the fastest set-up ('default' or one of PETSc's -matptap_via choices that solved): the reference
   of the 'x best' columns. */
size_t FastestPETScRow(const std::vector<Config> &configs, const std::vector<Figures> &figs, PetscLogDouble Figures::*time)
{
  size_t best = 0;
  for (size_t i = 1; i < configs.size(); ++i)
    if (configs[i].petsc_choice && figs[i].setup != PETSC_MAX_REAL && figs[i].*time < figs[best].*time) best = i;
  return best;
}

PetscErrorCode PrintTable(const Problem &p, const std::string &pctype, const std::vector<Config> &configs, const std::vector<Figures> &figs, const Settings &s)
{
  const Figures &ref = figs[0];
  const size_t   best = FastestPETScRow(configs, figs, &Figures::setup), best_re = FastestPETScRow(configs, figs, &Figures::resetup);
  std::string    levels;

  PetscFunctionBeginUser;
  for (auto it = ref.level_rows.rbegin(); it != ref.level_rows.rend(); ++it) levels += (levels.empty() ? "" : " ") + std::to_string(*it);
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%s, %s: %zu levels, rows %s; PtAP calls %d, AB calls %d%s\n", p.name.c_str(),
                        pctype == "gamg" ? "PCGAMG" : pctype == "hypre" ? "PCHYPRE BoomerAMG (coarse operators: hypre's, or ours by -pc_hypre_boomeramg_rap_via)" : "PCHMG (BoomerAMG coarsening, Galerkin PtAP)", ref.level_rows.size(), levels.c_str(), ref.nptap, ref.nab,
                        s.resetup ? (", re-setup PtAP calls " + std::to_string(ref.nptap_re)).c_str() : ""));
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s %8s %6s %6s %8s %8s %8s %6s %9s %6s %6s %5s %9s %6s  %s\n", "products", "PCSetUp", "x def", "x best", "peak MB", "PtAP", "AB",
                        "x def", "re-setup", "x def", "x best", "its", "|b-Ax|/|b|", "op.cx", "match default"));
  for (size_t i = 0; i < configs.size(); ++i) {
    const Figures &f = figs[i];
    char           re[32] = "-", rex[32] = "-", rexb[32] = "-", peak[32] = "-";
    if (f.setup == PETSC_MAX_REAL) { /* not run */
      PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s %s\n", configs[i].name.c_str(), f.match.c_str()));
      continue;
    }
    if (s.resetup) {
      PetscCall(PetscSNPrintf(re, sizeof re, "%9.4f", f.resetup));
      PetscCall(PetscSNPrintf(rex, sizeof rex, "%6.2f", Ratio(ref.resetup, f.resetup)));
      PetscCall(PetscSNPrintf(rexb, sizeof rexb, "%6.2f", Ratio(figs[best_re].resetup, f.resetup)));
    }
    if (std::isfinite(f.peak_mb)) PetscCall(PetscSNPrintf(peak, sizeof peak, "%8.1f", f.peak_mb));
    char its[32] = "-", res[32] = "-";
    if (configs[i].solve) {
      PetscCall(PetscSNPrintf(its, sizeof its, "%" PetscInt_FMT, f.its));
      PetscCall(PetscSNPrintf(res, sizeof res, "%9.2e", (double)f.res));
    }
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-24s %8.4f %6.2f %6.2f %8s %8.4f %8.4f %6.2f %9s %6s %6s %5s %9s %6.3f  %s\n", configs[i].name.c_str(), f.setup, Ratio(ref.setup, f.setup),
                          Ratio(figs[best].setup, f.setup), peak, f.ptap, f.ab, Ratio(ref.ptap + ref.ab, f.ptap + f.ab), re, rex, rexb, its, res, (double)f.opcx, f.match.c_str()));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  fastest PETSc set-up: %s%s%s\n", configs[best].name.c_str(), s.resetup ? "; fastest PETSc re-setup: " : "",
                        s.resetup ? configs[best_re].name.c_str() : ""));
  if (ref.setup_ranks.size() > 1) { /* on rank 0 */
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  PCSetUp per rank [s] (the table shows the slowest):\n"));
    for (size_t i = 0; i < configs.size(); ++i) {
      std::string line;
      char        t[32];
      for (PetscLogDouble v : figs[i].setup_ranks) {
        PetscCall(PetscSNPrintf(t, sizeof t, " %8.4f", v));
        line += t;
      }
      if (!line.empty()) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "  %-21s%s\n", configs[i].name.c_str(), line.c_str()));
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode WriteJSON(const char *file, const std::vector<Problem> &problems, const std::vector<std::string> &pcs, const std::vector<Config> &configs,
                         const std::vector<std::vector<std::vector<Figures>>> &figs, const Settings &s)
{
  FILE *fp;

  PetscFunctionBeginUser;
  PetscCall(PetscFOpen(PETSC_COMM_WORLD, file, "w", &fp));
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "{\n  \"program\": \"amg_setup\",\n  \"reps\": %" PetscInt_FMT ",\n  \"ksp_rtol\": %g,\n  \"resetup\": %s,\n  \"runs\": [",
                         s.reps, (double)s.rtol, s.resetup ? "true" : "false"));
  bool first = true;
  for (size_t ip = 0; ip < problems.size(); ++ip) {
    PetscInt rows;
    MatInfo  info;
    PetscCall(MatGetSize(problems[ip].A, &rows, NULL));
    PetscCall(MatGetInfo(problems[ip].A, MAT_GLOBAL_SUM, &info));
    for (size_t ipc = 0; ipc < pcs.size(); ++ipc)
      for (size_t ic = 0; ic < configs.size(); ++ic) {
        const Figures &f = figs[ip][ipc][ic];
        std::string    lr, ln;
        if (f.setup == PETSC_MAX_REAL) continue; /* not run (see main) */
        char peak[32] = "null";
        if (std::isfinite(f.peak_mb)) PetscCall(PetscSNPrintf(peak, sizeof peak, "%.3f", f.peak_mb));
        for (size_t l = 0; l < f.level_rows.size(); ++l) {
          lr += (l ? ", " : "") + std::to_string(f.level_rows[l]);
          ln += (l ? ", " : "") + std::to_string(static_cast<long long>(f.level_nnz[l]));
        }
        PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp,
                               "%s\n    {\"problem\": \"%s\", \"n\": %" PetscInt_FMT ", \"rows\": %" PetscInt_FMT ", \"nnz\": %.0f, \"pc\": \"%s\", \"products\": \"%s\",\n"
                               "     \"matptap_via\": \"%s\", \"matmatmult_via\": \"%s\",\n"
                               "     \"threads\": %d, \"peak_mb\": %s,\n"
                               "     \"pcsetup_s\": %.6e, \"ptap_s\": %.6e, \"ab_s\": %.6e, \"solve_s\": %.6e, \"ptap_calls\": %d, \"ab_calls\": %d,\n"
                               "     \"resetup_s\": %.6e, \"resetup_products_s\": %.6e, \"resetup_ptap_calls\": %d,\n"
                               "     \"iterations\": %" PetscInt_FMT ", \"residual\": %.6e, \"resetup_iterations\": %" PetscInt_FMT ", \"resetup_residual\": %.6e,\n"
                               "     \"converged\": %s, \"operator_complexity\": %.6f, \"level_rows\": [%s], \"level_nnz\": [%s], \"match\": \"%s\", \"differences\": \"%s\"}",
                               first ? "" : ",", problems[ip].name.c_str(), problems[ip].n, rows, info.nz_used, pcs[ipc].c_str(), configs[ic].name.c_str(),
                               configs[ic].ptap.empty() ? "default" : configs[ic].ptap.c_str(), configs[ic].others.empty() ? "default" : configs[ic].others.c_str(),
                               configs[ic].threads, peak, f.setup, f.ptap, f.ab, f.solve, f.nptap, f.nab, s.resetup ? f.resetup : 0.0, s.resetup ? f.resetup_prod : 0.0, f.nptap_re, f.its,
                               (double)f.res, f.its_re, (double)f.res_re, f.converged ? "true" : "false", (double)f.opcx, lr.c_str(), ln.c_str(), f.match.c_str(), f.why.c_str()));
        first = false;
      }
  }
  PetscCall(PetscFPrintf(PETSC_COMM_WORLD, fp, "\n  ]\n}\n"));
  PetscCall(PetscFClose(PETSC_COMM_WORLD, fp));
  PetscFunctionReturn(PETSC_SUCCESS);
}

} // namespace

int main(int argc, char **argv)
{
  Settings                 s;
  PetscBool                check = PETSC_FALSE, logging, set;
  PetscInt                 n = -1, problem = 2, nalgs = 32, npcs = 2;
  char                    *alglist[32], *pclist[3], json[PETSC_MAX_PATH_LEN] = "", pcsgiven[64] = "";
  const char *const        problems_names[] = {"poisson", "elasticity", "all"};
  std::vector<std::string> pcs;
  std::vector<Config>      configs;
  std::vector<Problem>     problems;
  PetscMPIInt              size;
  int                      mismatches = 0;

  PetscCall(PetscInitialize(&argc, &argv, NULL, help));
  /* -pcs hypre: the plugin redirects BoomerAMG's coarse products when it registers with the option given
     (hypre: hypre's own), and reads it again at each set-up, which RunRow sets per row */
  PetscCall(PetscOptionsGetString(NULL, NULL, "-pcs", pcsgiven, sizeof pcsgiven, NULL));
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_hypre_boomeramg_rap_via", &set));
  PetscCheck(!set, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Do not pass -pc_hypre_boomeramg_rap_via: amg_setup sets it for each row of -pcs hypre (see -algs)");
  if (std::strstr(pcsgiven, "hypre")) PetscCall(PetscOptionsSetValue(NULL, "-pc_hypre_boomeramg_rap_via", "hypre"));
  PetscCall(PetscClusterInitializePackage()); /* before any Mat exists: the plugin hooks AIJ creation */
  PetscCallMPI(MPI_Comm_size(PETSC_COMM_WORLD, &size));

  for (const char *f : kProductFlags) {
    PetscCall(PetscOptionsHasName(NULL, NULL, f, &set));
    PetscCheck(!set, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Do not pass %s: amg_setup sets the product flags for each row (see -algs)", f);
  }
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_type", &set));
  PetscCheck(!set, PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG, "Do not pass -pc_type: choose the preconditioners with -pcs gamg,hmg");
  PetscCall(PetscOptionsHasName(NULL, NULL, "-pc_mg_galerkin", &s.user_galerkin));

  int max_threads = 1; /* set before the options block: its braces scope what is declared in it */
#if defined(_OPENMP)
  max_threads = omp_get_max_threads();
#endif
  PetscOptionsBegin(PETSC_COMM_WORLD, NULL, "amg_setup options", "KSP");
  PetscCall(PetscOptionsEList("-problem", "Generated problem", "", problems_names, 3, problems_names[problem], &problem, NULL));
  PetscCall(PetscOptionsInt("-n", "Grid points per side (default: poisson 50, elasticity 18)", "", n, &n, NULL));
  npcs = 3;
  PetscCall(PetscOptionsStringArray("-pcs", "Preconditioners: gamg, hmg, hypre", "", pclist, &npcs, &set));
  if (set) {
    for (PetscInt i = 0; i < npcs; ++i) {
      PetscCheck(!std::strcmp(pclist[i], "gamg") || !std::strcmp(pclist[i], "hmg") || !std::strcmp(pclist[i], "hypre"), PETSC_COMM_WORLD, PETSC_ERR_ARG_UNKNOWN_TYPE,
                 "-pcs: unknown preconditioner '%s'; valid: gamg, hmg, hypre", pclist[i]);
      pcs.push_back(pclist[i]);
      PetscCall(PetscFree(pclist[i]));
    }
  } else pcs = {"gamg", "hmg"};
  PetscCall(PetscOptionsStringArray("-algs", "petsc-cluster algorithms, one row each", "", alglist, &nalgs, &set));
  std::vector<std::string> algs;
  if (set) {
    for (PetscInt i = 0; i < nalgs; ++i) {
      PetscCheck(std::strcmp(alglist[i], "default") && std::strcmp(alglist[i], "hypre") && std::strcmp(alglist[i], "rap"), PETSC_COMM_WORLD, PETSC_ERR_ARG_WRONG,
                 "-algs: '%s' is one of PETSc's rows, which always run; list petsc-cluster algorithms only", alglist[i]);
      algs.push_back(alglist[i]);
      PetscCall(PetscFree(alglist[i]));
    }
  } else algs = {MATPRODUCTALGORITHMCLUSTER};
  /* PETSc's rows: its default, and the -matptap_via choices that are fastest where they apply (rap keeps R = P^T and
     A*P: the fastest SeqAIJ PtAP; allatonce and nonscalable the fastest MPIAIJ ones). */
  configs.push_back({"default", "", "", false, true, true});
  if (size == 1) configs.push_back({"rap (-matptap_via)", "rap", "", false, true, true});
  else {
    configs.push_back({"allatonce (-matptap_via)", "allatonce", "", false, true, true});
    configs.push_back({"nonscalable (-matptap_via)", "nonscalable", "", false, true, true});
  }
  /* Ours at PETSc's resources (one thread per process, as PETSc's products), then with every thread of the process
     when it has more than one, labelled; a user's -mat_cluster_threads applies to every row instead. */
  PetscCall(PetscOptionsHasName(NULL, NULL, "-mat_cluster_threads", &s.user_threads));
  for (const std::string &a : algs) configs.push_back({a, a, a, true, true, false, s.user_threads ? 0 : 1});
  if (!s.user_threads && max_threads > 1)
    for (const std::string &a : algs) configs.push_back({a + ", " + std::to_string(max_threads) + " threads", a, a, true, true, false, max_threads});
  /* PETSc's -matptap_via hypre, set-up only and PCGAMG only: on one process PETSc 3.18.5 turns
     hypre's product into a SeqAIJ on which the coarse LU factorisation reads out of bounds (valgrind:
     invalid reads in MatLUFactorNumeric of memory hypre allocated), so solves with it diverge or
     crash. PCGAMG factors its coarse operator in the first solve, PCHMG already in its set-up. */
  configs.push_back({"hypre (PtAP only)", "hypre", "", false, false});
  PetscCall(PetscOptionsReal("-ksp_rtol", "CG relative tolerance (unpreconditioned residual), every row", "KSPSetTolerances", s.rtol, &s.rtol, NULL));
  PetscCall(PetscOptionsInt("-ksp_max_it", "CG iteration limit, every row", "KSPSetTolerances", s.max_it, &s.max_it, NULL));
  PetscCall(PetscOptionsBool("-resetup", "Time a re-setup with reused interpolation after A is scaled by 0.9", "", s.resetup, &s.resetup, NULL));
  PetscCall(PetscOptionsInt("-reps", "Run every row this many times; report the best times", "", s.reps, &s.reps, NULL));
  PetscCall(PetscOptionsBool("-check", "Exit nonzero if a row differs from the default row", "", check, &check, NULL));
  PetscCall(PetscOptionsReal("-check_rtol", "Relative tolerance for matching residuals", "", s.check_rtol, &s.check_rtol, NULL));
  PetscCall(PetscOptionsString("-json", "Write the figures to this JSON file", "", json, json, sizeof json, NULL));
  PetscOptionsEnd();
  PetscCheck(s.reps >= 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-reps %" PetscInt_FMT " must be >= 1", s.reps);
  PetscCheck(n == -1 || n >= 2, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-n %" PetscInt_FMT " must be >= 2", n);
  PetscCheck(s.rtol > 0 && s.rtol < 1, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-ksp_rtol %g must be in (0, 1)", (double)s.rtol);
  PetscCheck(s.check_rtol >= 0, PETSC_COMM_WORLD, PETSC_ERR_ARG_OUTOFRANGE, "-check_rtol %g must be >= 0", (double)s.check_rtol);

  /* The table reads PETSc's log: start the default logger unless -log_view (or similar) already did. */
  PetscCall(PetscLogIsActive(&logging));
  if (!logging) PetscCall(PetscLogDefaultBegin());
  PetscCall(MatInitializePackage()); /* register the events read below */
  PetscCall(PCInitializePackage());
  PetscCall(KSPInitializePackage());
  for (int e = 0; e < EV_COUNT; ++e) {
    PetscCall(PetscLogEventGetId(kEventNames[e], &events[e]));
    PetscCheck(events[e] >= 0 || (e == EV_HYPRE_RAP && std::find(pcs.begin(), pcs.end(), "hypre") == pcs.end()), PETSC_COMM_WORLD, PETSC_ERR_SUP,
               e == EV_HYPRE_RAP ? "-pcs hypre: this petsc-cluster has no hypre support (log event %s not registered)" : "PETSc log event %s is not registered", kEventNames[e]);
  }

  if (problem != 1) {
    Problem p;
    p.name = "poisson";
    p.n    = n > 0 ? n : 50;
    PetscCall(AssemblePoisson(PETSC_COMM_WORLD, &p));
    problems.push_back(p);
  }
  if (problem != 0) {
    Problem p;
    p.name = "elasticity";
    p.n    = n > 0 ? n : 18;
    p.bs   = 3;
    PetscCall(AssembleElasticity(PETSC_COMM_WORLD, &p));
    problems.push_back(p);
  }

  {
    std::string threads = "one OpenMP thread per process, as PETSc's products";
    if (s.user_threads) {
      PetscInt t = 0;
      PetscCall(PetscOptionsGetInt(NULL, NULL, "-mat_cluster_threads", &t, NULL));
      threads = "-mat_cluster_threads " + std::to_string(t) + " (0: OMP_NUM_THREADS) per process";
    } else if (max_threads > 1) threads += ", and in the rows labelled 'N threads' " + std::to_string(max_threads);
    PetscCall(PetscPrintf(PETSC_COMM_WORLD,
                          "amg_setup: algebraic multigrid set-up with PETSc's sparse products vs petsc-cluster's\n"
                          "%d MPI process(es); PETSc's products use one thread per process; ours %s\n"
                          "KSP cg, rtol %g on the unpreconditioned residual; best of %" PetscInt_FMT " run(s) per row, each on a fresh copy of A and a fresh KSP\n",
                          size, threads.c_str(), (double)s.rtol, s.reps));
  }
  PetscCall(PetscPrintf(PETSC_COMM_WORLD, "Times [s] are PETSc log events in one log stage per row (see -log_view): PCSetUp = event PCSetUp;\n"
                                          "  PtAP = MatPtAPSymbolic+MatPtAPNumeric+MatMatMatMultSym+MatMatMatMultNum; AB = MatMatMultSym+MatMatMultNum+MatTrnMatMultSym+MatTrnMatMultNum;\n"
                                          "  x def = speed-up over PETSc's 'default' row (PCSetUp; PtAP+AB; re-setup); x best = speed-up over the fastest of PETSc's rows\n"
                                          "  (default and the -matptap_via rows, named under each table) in PCSetUp, resp. re-setup;\n"
                                          "  peak MB = resident memory KSPSetUp added at its peak (VmHWM after, minus VmRSS before, free heap returned first),\n"
                                          "  the largest rank's, smallest over the repetitions; it includes the hierarchy's operators and what the products keep"));
  if (size > 1) PetscCall(PetscPrintf(PETSC_COMM_WORLD, ";\n  times are the slowest rank's; PETSc's MPIAIJ PtAP also logs its inner products as MatMatMult, so AB includes them"));
  if (s.resetup)
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, ";\n  re-setup = PCSetUp after A *= %g with reused interpolation (numeric-only PtAP)\n", (double)kResetupScale));
  else PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n"));
  for (const Problem &p : problems) {
    PetscInt rows;
    MatInfo  info;
    PetscCall(MatGetSize(p.A, &rows, NULL));
    PetscCall(MatGetInfo(p.A, MAT_GLOBAL_SUM, &info));
    PetscCall(PetscPrintf(PETSC_COMM_WORLD, "%s: %s, n = %" PetscInt_FMT ": %" PetscInt_FMT " rows, %.0f nonzeros\n", p.name.c_str(), p.description.c_str(), p.n, rows,
                          info.nz_used));
  }

  std::vector<std::vector<std::vector<Figures>>> figs(problems.size(), std::vector<std::vector<Figures>>(pcs.size(), std::vector<Figures>(configs.size())));
  for (size_t ip = 0; ip < problems.size(); ++ip)
    for (size_t ipc = 0; ipc < pcs.size(); ++ipc) {
      std::vector<Figures> &row = figs[ip][ipc];
      for (size_t ic = 0; ic < configs.size(); ++ic) {
        if (!configs[ic].solve && pcs[ipc] == "hmg") {
          row[ic].match = "skipped (PCHMG factors hypre's coarse operator in its set-up)";
          continue;
        }
        if (pcs[ipc] == "hypre" && ic > 0 && !configs[ic].ours) { /* BoomerAMG forms its coarse operators itself */
          row[ic].match = "skipped (-matptap_via does not reach BoomerAMG)";
          continue;
        }
        PetscCall(RunRow(problems[ip], pcs[ipc], configs[ic], s, &row[ic]));
        if (!configs[ic].solve) {
          row[ic].match = "set-up only";
          continue;
        }
        row[ic].why   = ic ? Compare(row[ic], row[0], s) : (row[0].converged && row[0].reps_agree ? "" : " not converged or repetitions differ;");
        row[ic].match = !row[ic].why.empty() ? "NO" : ic ? "yes" : "ref";
      }
      PetscCall(PrintTable(problems[ip], pcs[ipc], configs, row, s));
      for (size_t ic = 0; ic < configs.size(); ++ic) {
        if (row[ic].why.empty()) continue;
        /* the default row must converge; of the other rows only ours are under test */
        const bool counted = ic == 0 || configs[ic].ours;
        if (counted) ++mismatches;
        PetscCall(PetscPrintf(PETSC_COMM_WORLD, "WARNING: %s %s %s differs:%s (iterations %" PetscInt_FMT " vs default %" PetscInt_FMT ", residual %.6e vs %.6e)%s\n",
                              problems[ip].name.c_str(), pcs[ipc].c_str(), configs[ic].name.c_str(), row[ic].why.c_str(), row[ic].its, row[0].its, (double)row[ic].res,
                              (double)row[0].res, counted ? "" : "; PETSc's own algorithm, not counted by -check"));
      }
    }
  if (json[0]) PetscCall(WriteJSON(json, problems, pcs, configs, figs, s));
  if (mismatches) PetscCall(PetscPrintf(PETSC_COMM_WORLD, "\n%d row(s) of ours differ from the default row, or the default did not converge%s\n", mismatches, check ? " (-check: exit code 1)" : ""));

  for (Problem &p : problems) {
    PetscCall(MatDestroy(&p.A));
    PetscCall(VecDestroy(&p.b));
  }
  PetscCall(PetscFinalize());
  return check && mismatches ? 1 : 0;
}
