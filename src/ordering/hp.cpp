// hp: hypergraph partitioning ordering with Zoltan's parallel hypergraph partitioner PHG, cut-net
// objective (K. D. Devine, E. G. Boman, R. T. Heaphy, R. H. Bisseling and U. V. Catalyurek,
// "Parallel hypergraph partitioning for scientific computing", IPDPS 2006,
// doi:10.1109/IPDPS.2006.1639359; the row-net model of U. V. Catalyurek and C. Aykanat,
// "Hypergraph-partitioning-based decomposition for parallel sparse-matrix vector multiplication",
// IEEE TPDS 10(7), 673-693, 1999, doi:10.1109/71.780863). Rows are laid out part by part, so few
// columns (rows of B) are touched by more than one block of rows.
//
// Input. The column-net hypergraph of A's pattern: rows are vertices, columns are nets, the pins of
// net j are the rows with an entry in column j (row j of A^T). It needs no symmetry and no square
// shape, so non-symmetric and rectangular A are partitioned as they are. We hand it to Zoltan in
// ZOLTAN_COMPRESSED_VERTEX form (for each row, its nets = its columns: A's CSR as it is, no
// transpose); Zoltan builds the nets itself. Vertices are unweighted: parts balance row counts.
//
// Output. Rows ordered by part (part 0 first), in their original order inside a part
// (order_by_part, partition.hpp).
//
// Tunables. OrderingOptions::parts (0 = max(2, nrows / kPartRows), capped at nrows) ->
// NUM_GLOBAL_PARTS; OrderingOptions::seed -> Zoltan's random number generator (below). Imbalance:
// IMBALANCE_TOL = kHpImbalance (partition.hpp, Zoltan's default). PHG_CUT_OBJECTIVE = HYPEREDGES
// (cut-net; Zoltan's default would be CONNECTIVITY, i.e. lambda - 1). PHG_EDGE_SIZE_THRESHOLD =
// kHpEdgeSizeThreshold (partition.hpp, Zoltan's default 0.25): nets with more pins than a quarter of
// the rows (dense columns) are ignored, as every partition cuts them anyway. Everything else
// Zoltan's defaults.
//
// Seed. Zoltan 3.x (Trilinos 13.2, Debian bookworm) has no SEED parameter (later versions do): PHG
// draws from one process-wide generator that Zoltan_LB_Partition re-seeds from its current state,
// so two calls in one process would differ. We set that state with Zoltan_Srand(seed) right before
// every partition; Zoltan_Srand is exported by libtrilinos_zoltan but declared only in its private
// zz_rand.h, hence the declaration below. The global generator, and Zoltan's lack of any thread
// safety guarantee, are why every call runs under one mutex.
//
// MPI. Zoltan needs MPI even on MPI_COMM_SELF. If the program has not initialised MPI (a program
// using the core without PETSc), the first hp ordering calls MPI_Init_thread (MPI_THREAD_SERIALIZED:
// our calls are serialised by the mutex but may come from any thread, e.g. an OpenMP worker) and
// registers an atexit handler that calls MPI_Finalize unless the program finalised MPI itself.
// Leaving finalisation to the program instead would make every such program end with an MPI
// process that never finalised, which mpirun reports as an abnormal termination; a program that
// initialised MPI itself (PETSc does) is left alone. Consequence: a program must not call MPI_Init
// after its first hp ordering (it would be the second initialisation); it may query
// MPI_Initialized first, as PETSc does. Zoltan_Initialize is called once per process.
//
// One part, one row, or no net that Zoltan would keep with two or more pins: the natural order split
// into equal blocks, without calling Zoltan (no partition cuts a kept net there).
#include "orderings.hpp"
#include "partition.hpp"

#include <mpi.h>
#include <zoltan.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

extern "C" void Zoltan_Srand(unsigned int seed, unsigned int *state); // libtrilinos_zoltan, zz_rand.h

namespace pcluster::detail {

namespace {

std::mutex zoltan_mutex;

void finalize_mpi_at_exit()
{
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

// Called with zoltan_mutex held.
void ensure_zoltan_ready()
{
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (finalized) throw std::runtime_error("hp ordering: MPI has already been finalised, and Zoltan needs MPI");
  static bool zoltan_initialized = false;
  if (zoltan_initialized) return;
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    const int rc = MPI_Init_thread(nullptr, nullptr, MPI_THREAD_SERIALIZED, &provided);
    if (rc != MPI_SUCCESS)
      throw std::runtime_error("hp ordering: MPI_Init_thread (needed by Zoltan) failed with code " + std::to_string(rc));
    std::atexit(finalize_mpi_at_exit);
  }
  float version = 0;
  const int rc = Zoltan_Initialize(0, nullptr, &version);
  if (rc != ZOLTAN_OK) throw std::runtime_error("hp ordering: Zoltan_Initialize failed with code " + std::to_string(rc));
  zoltan_initialized = true;
}

const char *zoltan_code_name(int rc)
{
  switch (rc) {
  case ZOLTAN_WARN: return "ZOLTAN_WARN";
  case ZOLTAN_FATAL: return "ZOLTAN_FATAL";
  case ZOLTAN_MEMERR: return "ZOLTAN_MEMERR";
  default: return "unknown code";
  }
}

void check_zoltan(int rc, const std::string &call)
{
  if (rc != ZOLTAN_OK)
    throw std::runtime_error("hp ordering: " + call + " failed with code " + std::to_string(rc) + " (" + zoltan_code_name(rc) + ")");
}

// The hypergraph as Zoltan's query functions see it: row i is vertex (global and local ID) i, its
// pins are its column indices (the IDs of its nets).
template <class I, class V>
struct Hypergraph {
  const CsrView<I, V> *A;
  int nrows;
  int npins;

  static int num_obj(void *data, int *ierr)
  {
    *ierr = ZOLTAN_OK;
    return static_cast<Hypergraph *>(data)->nrows;
  }
  static void obj_list(void *data, int, int, ZOLTAN_ID_PTR gids, ZOLTAN_ID_PTR lids, int, float *, int *ierr)
  {
    const auto *h = static_cast<Hypergraph *>(data);
    for (int i = 0; i < h->nrows; ++i) gids[i] = lids[i] = static_cast<ZOLTAN_ID_TYPE>(i);
    *ierr = ZOLTAN_OK;
  }
  static void size_cs(void *data, int *num_lists, int *num_pins, int *format, int *ierr)
  {
    const auto *h = static_cast<Hypergraph *>(data);
    *num_lists = h->nrows;
    *num_pins = h->npins;
    *format = ZOLTAN_COMPRESSED_VERTEX;
    *ierr = ZOLTAN_OK;
  }
  static void cs(void *data, int, int nvtx, int npins, int format, ZOLTAN_ID_PTR vtx_gid, int *vtx_ptr,
                 ZOLTAN_ID_PTR pin_gid, int *ierr)
  {
    const auto *h = static_cast<Hypergraph *>(data);
    if (format != ZOLTAN_COMPRESSED_VERTEX || nvtx != h->nrows || npins != h->npins) {
      *ierr = ZOLTAN_FATAL;
      return;
    }
    const CsrView<I, V> &M = *h->A;
    for (int i = 0; i < nvtx; ++i) {
      vtx_gid[i] = static_cast<ZOLTAN_ID_TYPE>(i);
      vtx_ptr[i] = static_cast<int>(M.rowptr[i]);
    }
    for (int p = 0; p < npins; ++p) pin_gid[p] = static_cast<ZOLTAN_ID_TYPE>(M.colidx[p]);
    *ierr = ZOLTAN_OK;
  }
};

// True when some net can be cut: a column with entries in two or more rows that Zoltan keeps (at
// most kHpEdgeSizeThreshold * nrows pins). Without one, Zoltan has nothing to partition (and says
// so on stdout).
template <class I, class V>
bool has_cuttable_net(const CsrView<I, V> &A)
{
  std::vector<Count> pins(static_cast<std::size_t>(A.ncols), 0);
  for (Count p = 0; p < A.nnz(); ++p) ++pins[static_cast<std::size_t>(A.colidx[p])];
  const double max_pins = kHpEdgeSizeThreshold * static_cast<double>(A.nrows);
  for (const Count n : pins)
    if (n >= 2 && static_cast<double>(n) <= max_pins) return true;
  return false;
}

struct ZoltanDeleter {
  void operator()(Zoltan_Struct *zz) const { Zoltan_Destroy(&zz); }
};

// The export lists of Zoltan_LB_Partition, freed on every path.
struct PartLists {
  ZOLTAN_ID_PTR gids = nullptr, lids = nullptr;
  int *procs = nullptr, *to_part = nullptr;
  ~PartLists() { Zoltan_LB_Free_Part(&gids, &lids, &procs, &to_part); }
};

} // namespace

template <class I, class V>
RowPartition partition_rows_hp(const CsrView<I, V> &A, const OrderingOptions &o)
{
  const int nparts = resolve_parts(o.parts, A.nrows);
  if (nparts <= 1 || A.nrows <= 1 || !has_cuttable_net(A)) return block_partition(A.nrows, nparts);
  // Zoltan counts local objects and pins in int, and IDs in ZOLTAN_ID_TYPE (unsigned int here).
  constexpr Count kMax = std::min<Count>(std::numeric_limits<int>::max(),
                                         static_cast<Count>(std::numeric_limits<ZOLTAN_ID_TYPE>::max()));
  if (static_cast<Count>(A.nrows) > kMax || static_cast<Count>(A.ncols) > kMax || A.nnz() > kMax)
    throw IndexOverflow("hp ordering: A (" + std::to_string(A.nrows) + " x " + std::to_string(A.ncols) + ", " +
                        std::to_string(A.nnz()) + " entries) does not fit Zoltan's int counts and IDs");
  Hypergraph<I, V> hg{&A, static_cast<int>(A.nrows), static_cast<int>(A.nnz())};

  std::lock_guard<std::mutex> lock(zoltan_mutex);
  ensure_zoltan_ready();
  std::unique_ptr<Zoltan_Struct, ZoltanDeleter> zz(Zoltan_Create(MPI_COMM_SELF));
  if (!zz) throw std::runtime_error("hp ordering: Zoltan_Create(MPI_COMM_SELF) failed");
  const std::string params[][2] = {
    {"DEBUG_LEVEL", "0"},
    {"LB_METHOD", "HYPERGRAPH"},
    {"HYPERGRAPH_PACKAGE", "PHG"},
    {"LB_APPROACH", "PARTITION"},
    {"PHG_CUT_OBJECTIVE", "HYPEREDGES"},
    {"NUM_GID_ENTRIES", "1"},
    {"NUM_LID_ENTRIES", "1"},
    {"OBJ_WEIGHT_DIM", "0"},
    {"EDGE_WEIGHT_DIM", "0"},
    {"RETURN_LISTS", "PARTS"}, // every object's part, not only the moved ones
    {"NUM_GLOBAL_PARTS", std::to_string(nparts)},
    {"IMBALANCE_TOL", std::to_string(kHpImbalance)},
    {"PHG_EDGE_SIZE_THRESHOLD", std::to_string(kHpEdgeSizeThreshold)},
  };
  for (const auto &p : params) check_zoltan(Zoltan_Set_Param(zz.get(), p[0].c_str(), p[1].c_str()), "Zoltan_Set_Param(" + p[0] + ")");
  using H = Hypergraph<I, V>;
  check_zoltan(Zoltan_Set_Num_Obj_Fn(zz.get(), &H::num_obj, &hg), "Zoltan_Set_Num_Obj_Fn");
  check_zoltan(Zoltan_Set_Obj_List_Fn(zz.get(), &H::obj_list, &hg), "Zoltan_Set_Obj_List_Fn");
  check_zoltan(Zoltan_Set_HG_Size_CS_Fn(zz.get(), &H::size_cs, &hg), "Zoltan_Set_HG_Size_CS_Fn");
  check_zoltan(Zoltan_Set_HG_CS_Fn(zz.get(), &H::cs, &hg), "Zoltan_Set_HG_CS_Fn");

  Zoltan_Srand(static_cast<unsigned int>(o.seed ^ (o.seed >> 32)), nullptr);
  int changes = 0, num_gid = 0, num_lid = 0, num_import = 0, num_export = 0;
  PartLists imports, exports;
  check_zoltan(Zoltan_LB_Partition(zz.get(), &changes, &num_gid, &num_lid, &num_import, &imports.gids, &imports.lids,
                                   &imports.procs, &imports.to_part, &num_export, &exports.gids, &exports.lids,
                                   &exports.procs, &exports.to_part),
               "Zoltan_LB_Partition");
  if (num_export != hg.nrows)
    throw std::runtime_error("hp ordering: Zoltan_LB_Partition returned parts for " + std::to_string(num_export) + " of " +
                             std::to_string(hg.nrows) + " rows");
  RowPartition P;
  P.nparts = nparts;
  P.part.assign(static_cast<std::size_t>(hg.nrows), -1);
  for (int k = 0; k < num_export; ++k) {
    const auto row = static_cast<std::size_t>(exports.lids[k]);
    const int part = exports.to_part[k];
    if (row >= P.part.size() || part < 0 || part >= nparts || P.part[row] != -1)
      throw std::runtime_error("hp ordering: Zoltan_LB_Partition returned an invalid part list");
    P.part[row] = part;
  }
  return P;
}

template <class I, class V>
std::vector<I> order_hp(const CsrView<I, V> &A, const OrderingOptions &o)
{
  return order_by_part<I>(partition_rows_hp(A, o));
}

#define PCLUSTER_INSTANTIATE_HP(I, V)                                                                     \
  template RowPartition partition_rows_hp<I, V>(const CsrView<I, V> &, const OrderingOptions &); \
  template std::vector<I> order_hp<I, V>(const CsrView<I, V> &, const OrderingOptions &);
PCLUSTER_INSTANTIATE_HP(std::int32_t, double)
PCLUSTER_INSTANTIATE_HP(std::int64_t, double)
PCLUSTER_INSTANTIATE_HP(std::int32_t, float)
PCLUSTER_INSTANTIATE_HP(std::int64_t, float)
#undef PCLUSTER_INSTANTIATE_HP

} // namespace pcluster::detail
