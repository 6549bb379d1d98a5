/*
   The plugin's algorithm names and the parameters of its kernels: the one table of names (used by
   the dispatch hook to recognise ours), and the -mat_cluster_* options, read under C's options
   prefix when a product selects one of our algorithms (so -help lists them then) and mapped to
   pcluster::SpgemmOptions. Defaults are the core's (include/pcluster/spgemm.hpp, clustering.hpp);
   ranges are checked here so the message names the option.
*/
#include "petscclusterimpl.h"

/* Every algorithm name of the plugin: kernel, and clustering scheme for the cluster kernel
   (Auto is resolved by the core, see src/spgemm.cpp) */
static const struct {
  const char             *name;
  pcluster::Kernel        kernel;
  pcluster::ClusterScheme scheme;
} MatClusterAlgorithms[] = {
  {MATPRODUCTALGORITHMCLUSTER,             pcluster::Kernel::Cluster, pcluster::ClusterScheme::Auto        },
  {MATPRODUCTALGORITHMCLUSTERFIXED,        pcluster::Kernel::Cluster, pcluster::ClusterScheme::Fixed       },
  {MATPRODUCTALGORITHMCLUSTERVARIABLE,     pcluster::Kernel::Cluster, pcluster::ClusterScheme::Variable    },
  {MATPRODUCTALGORITHMCLUSTERHIERARCHICAL, pcluster::Kernel::Cluster, pcluster::ClusterScheme::Hierarchical},
  {MATPRODUCTALGORITHMROWWISE,             pcluster::Kernel::Rowwise, pcluster::ClusterScheme::Auto        },
};
static const char *const MatClusterAlgorithmList = MATPRODUCTALGORITHMCLUSTER " " MATPRODUCTALGORITHMCLUSTERFIXED " " MATPRODUCTALGORITHMCLUSTERVARIABLE " " MATPRODUCTALGORITHMCLUSTERHIERARCHICAL " " MATPRODUCTALGORITHMROWWISE;

const char *MatClusterAlgorithmList_Private(void)
{
  return MatClusterAlgorithmList;
}

/* Case-insensitive, as PETSc's PetscOptionsEList; canonical (if not NULL) gets our spelling */
PetscErrorCode MatClusterAlgorithmIsOurs_Private(const char name[], PetscBool *ours, const char **canonical)
{
  PetscFunctionBegin;
  *ours = PETSC_FALSE;
  if (canonical) *canonical = NULL;
  if (!name) PetscFunctionReturn(0);
  for (const auto &a : MatClusterAlgorithms) {
    PetscCall(PetscStrcasecmp(name, a.name, ours));
    if (*ours) {
      if (canonical) *canonical = a.name;
      break;
    }
  }
  PetscFunctionReturn(0);
}

static const char *const MatClusterAccumulators[] = {"auto", "hash", "dense"};

/*
   The tunables of the orderings (-mat_cluster_reorder_*), read inside the caller's options block
   (the product's, or MatGetOrdering's for pcluster_<name>) and checked after it closes.
*/
PetscErrorCode MatClusterOrderingOptionsRead_Private(PetscOptionItems *PetscOptionsObject, const char manual[], MatClusterOrderingValues *v)
{
  PetscFunctionBegin;
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_seed", "Seed of random, and of the randomised steps of nd, gp and hp", manual, v->seed, &v->seed, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_parts", "Parts of gp and hp (0: one per 256 rows)", manual, v->parts, &v->parts, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_reorder_hub_fraction", "Hubs removed per round by slashburn, as a fraction of the rows, (0,1]", manual, v->hub_fraction, &v->hub_fraction, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_gray_bits", "Bits of a row's column pattern used by gray, 1..62", manual, v->gray_bits, &v->gray_bits, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_reorder_gray_dense_fraction", "gray: rows with more than this fraction of the columns are ordered first, by length, [0,1]", manual, v->gray_dense, &v->gray_dense, NULL));
  PetscFunctionReturn(0);
}

MatClusterOrderingValues MatClusterOrderingValuesDefault_Private(const pcluster::OrderingOptions &o)
{
  return {(PetscInt)o.seed, o.parts, o.hub_fraction, o.gray_bits, o.gray_dense_fraction};
}

PetscErrorCode MatClusterOrderingOptionsCheck_Private(MPI_Comm comm, const char prefix[], const MatClusterOrderingValues &v, pcluster::OrderingOptions *o)
{
  PetscFunctionBegin;
  if (!prefix) prefix = "";
  PetscCheck(v.seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_seed %" PetscInt_FMT " is out of range: must be >= 0", prefix, v.seed);
  PetscCheck(v.parts >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_parts %" PetscInt_FMT " is out of range: must be >= 0 (0 means one part per %d rows)", prefix, v.parts, pcluster::kPartRows);
  PetscCheck(v.hub_fraction > 0 && v.hub_fraction <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_hub_fraction %g is out of range: must be in (0, 1]", prefix, (double)v.hub_fraction);
  PetscCheck(v.gray_bits >= 1 && v.gray_bits <= 62, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_gray_bits %" PetscInt_FMT " is out of range: must be in [1, 62]", prefix, v.gray_bits);
  PetscCheck(v.gray_dense >= 0 && v.gray_dense <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_gray_dense_fraction %g is out of range: must be in [0, 1]", prefix, (double)v.gray_dense);
  o->seed                = (std::uint64_t)v.seed;
  o->parts               = (int)v.parts;
  o->hub_fraction        = (double)v.hub_fraction;
  o->gray_bits           = (int)v.gray_bits;
  o->gray_dense_fraction = (double)v.gray_dense;
  PetscFunctionReturn(0);
}

PetscErrorCode MatClusterGetOptions_Private(Mat C, const char alg[], pcluster::SpgemmOptions *opts, PetscBool *reuse_analysis)
{
  Mat_Product             *product = C->product;
  MPI_Comm                 comm    = PetscObjectComm((PetscObject)C);
  const char              *prefix  = ((PetscObject)C)->prefix ? ((PetscObject)C)->prefix : "";
  pcluster::SpgemmOptions  o; /* the core's defaults */
  PetscInt                 size, topk, threads, acc = 0, rbs = 1, cbs = 1;
  PetscReal                threshold;
  PetscBool                accset = PETSC_FALSE, reorderset = PETSC_FALSE, reuse = PETSC_TRUE;
  char                     accname[64] = "auto", reordername[64] = "natural";

  PetscFunctionBegin;
  {
    PetscBool found = PETSC_FALSE;
    for (const auto &a : MatClusterAlgorithms) {
      PetscCall(PetscStrcmp(alg, a.name, &found));
      if (found) {
        o.kernel = a.kernel;
        o.scheme = a.scheme;
        break;
      }
    }
    PetscCheck(found, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "petsc-cluster: unknown algorithm %s; valid: %s", alg, MatClusterAlgorithmList);
  }

  size      = o.clustering.cluster_size;
  threshold = o.clustering.jaccard_threshold;
  topk      = o.clustering.hierarchical_topk;
  threads   = o.num_threads;
  MatClusterOrderingValues ordering = MatClusterOrderingValuesDefault_Private(o.ordering);
  PetscOptionsBegin(comm, ((PetscObject)C)->prefix, "petsc-cluster SpGEMM options (C = A*B)", "Mat");
  PetscCall(PetscOptionsInt("-mat_cluster_size", "Rows per cluster (cluster_fixed) or maximum cluster size (cluster_variable, cluster_hierarchical, cluster), 1..64", "PetscClusterInitializePackage", size, &size, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_jaccard_threshold", "Minimum Jaccard similarity for a row to join a cluster, [0,1]", "PetscClusterInitializePackage", threshold, &threshold, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_topk", "Candidate pairs kept per row by cluster_hierarchical (0: cluster size - 1)", "PetscClusterInitializePackage", topk, &topk, NULL));
  /* Read as a string and matched here: PETSc 3.18.5's PetscOptionsEList overruns its message buffer
     by one byte when reporting an unknown value for this list (seen under valgrind). */
  PetscCall(PetscOptionsString("-mat_cluster_accumulator", "Accumulator for a row's partial products: auto, hash, dense", "PetscClusterInitializePackage", MatClusterAccumulators[0], accname, sizeof(accname), &accset));
  PetscCall(PetscOptionsInt("-mat_cluster_threads", "OpenMP threads for the product (0: the OpenMP default)", "PetscClusterInitializePackage", threads, &threads, NULL));
  PetscCall(PetscOptionsString("-mat_cluster_reorder", "Ordering of A by which the product runs on permuted copies of A and B (C keeps the caller's order): natural, random, rcm, amd, nd, gp, hp, gray, rabbit, degree, slashburn", "PetscClusterInitializePackage", reordername, reordername, sizeof(reordername), &reorderset));
  PetscCall(MatClusterOrderingOptionsRead_Private(PetscOptionsObject, "PetscClusterInitializePackage", &ordering));
  PetscCall(PetscOptionsBool("-mat_cluster_reuse_analysis", "Keep A's ordering and clusters on A for later products with the same A pattern (e.g. A*F for many F)", "PetscClusterInitializePackage", reuse, &reuse, NULL));
  PetscOptionsEnd();

  PetscCheck(size >= 1 && size <= pcluster::kMaxClusterSize, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_size %" PetscInt_FMT " is out of range: must be in [1, %d]", prefix, size, pcluster::kMaxClusterSize);
  PetscCheck(threshold >= 0 && threshold <= 1, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_jaccard_threshold %g is out of range: must be in [0, 1]", prefix, (double)threshold);
  PetscCheck(topk >= 0 && topk < pcluster::kMaxClusterSize, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_topk %" PetscInt_FMT " is out of range: must be in [0, %d] (0 means cluster size - 1)", prefix, topk, pcluster::kMaxClusterSize - 1);
  if (accset) {
    PetscBool found = PETSC_FALSE;
    for (PetscInt k = 0; k < (PetscInt)PETSC_STATIC_ARRAY_LENGTH(MatClusterAccumulators) && !found; ++k) {
      PetscCall(PetscStrcasecmp(accname, MatClusterAccumulators[k], &found));
      if (found) acc = k;
    }
    PetscCheck(found, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%smat_cluster_accumulator %s is unknown: valid choices are auto, hash, dense", prefix, accname);
  }
  PetscCheck(threads >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_threads %" PetscInt_FMT " is out of range: must be >= 0 (0 means the OpenMP default)", prefix, threads);
  if (reorderset) {
    try {
      o.reorder = pcluster::ordering_from_string(reordername);
    } catch (const std::invalid_argument &e) {
      SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%smat_cluster_reorder: %s", prefix, e.what());
    }
  }
  PetscCall(MatClusterOrderingOptionsCheck_Private(comm, prefix, ordering, &o.ordering));

  o.clustering.cluster_size      = (int)size;
  o.clustering.jaccard_threshold = (double)threshold;
  o.clustering.hierarchical_topk = (int)topk;
  o.accumulator                  = acc == 1 ? pcluster::Accumulator::Hash : acc == 2 ? pcluster::Accumulator::Dense : pcluster::Accumulator::Auto;
  o.num_threads                  = (int)threads;
  if (product && product->A) PetscCall(MatGetBlockSizes(product->A, &rbs, &cbs));
  o.row_block_size = (int)rbs;

  PetscCall(PetscInfo(C, "petsc-cluster %s: kernel %s, scheme %s, cluster size %d, Jaccard threshold %g, top-k %d, accumulator %s, threads %d, row block size %d, reorder %s (prefix \"%s\")\n", alg, pcluster::to_string(o.kernel),
                      o.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(o.scheme) : "-", o.clustering.cluster_size, o.clustering.jaccard_threshold, o.clustering.hierarchical_topk, pcluster::to_string(o.accumulator), o.num_threads, o.row_block_size,
                      pcluster::to_string(o.reorder), prefix));
  *opts           = o;
  *reuse_analysis = reuse;
  PetscFunctionReturn(0);
}

PetscErrorCode MatClusterInfoWorkspace_Private(Mat C, const char what[], PetscBool after_numeric, const pcluster::SpgemmStats &s)
{
  const char *prefix = ((PetscObject)C)->prefix ? ((PetscObject)C)->prefix : "";

  PetscFunctionBegin;
  PetscCall(PetscInfo(C, "petsc-cluster %s: workspace (%s) %" PetscInt64_FMT " KiB per thread (peak), %" PetscInt64_FMT " KiB all threads\n", what, after_numeric ? "largest phase so far, numeric included" : "symbolic phase", MatClusterKiB(s.workspace_thread_bytes), MatClusterKiB(s.workspace_bytes)));
  if (s.dense_limited && !after_numeric)
    PetscCall(PetscInfo(C, "petsc-cluster %s: -%smat_cluster_accumulator dense not applied: C has more than %" PetscInt64_FMT " columns, the limit of ncols-wide arrays per thread; the hash accumulator ran\n", what, prefix, (PetscInt64)pcluster::kDenseMaxColumns));
  PetscFunctionReturn(0);
}
