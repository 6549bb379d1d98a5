/*
   The plugin's algorithm names and the parameters of its kernels: the one table of algorithm names
   (used by the dispatch hook to recognise ours), and the -mat_cluster_* options, read under C's
   options prefix when a product selects one of our algorithms (so -help lists them then) and mapped
   to pcluster::SpgemmOptions. Defaults, names of enumerated choices and valid ranges are the core's
   (include/pcluster/spgemm.hpp, clustering.hpp, ordering.hpp): the core checks every range
   (pcluster::InvalidOption) and PetscClusterCallCXXOptions words its error under the option's name
   (MatClusterOptionOfField_Private, from the table of options below).
*/
#include "petscclusterimpl.h"

#include "pcluster/clustering.hpp"
#include "pcluster/ordering.hpp"

#include <cerrno>
#include <cmath>
#include <climits>
#include <cstdlib>
#include <stdexcept>
#include <string>

/* Every algorithm name of the plugin: kernel, and clustering scheme for the cluster kernel
   (Auto is resolved by the core, src/cluster_choice.cpp) */
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

const char *MatClusterAlgorithmList_Private(void)
{
  static const std::string list = [] {
    std::string l;
    for (const auto &a : MatClusterAlgorithms) l += std::string(l.empty() ? "" : " ") + a.name;
    return l;
  }();
  return list.c_str();
}

PetscErrorCode MatClusterAlgorithmIsOurs_Private(const char name[], PetscBool *ours, const char **canonical)
{
  PetscFunctionBegin;
  *ours = PETSC_FALSE;
  if (canonical) *canonical = NULL;
  if (!name) PetscFunctionReturn(PETSC_SUCCESS);
  for (const auto &a : MatClusterAlgorithms) {
    PetscCall(PetscStrcasecmp(name, a.name, ours));
    if (*ours) {
      if (canonical) *canonical = a.name;
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/*
   Every -mat_cluster_* option with a value PETSc parses (numbers, booleans), and the field of the
   core's option structs it sets (named by pcluster::InvalidOption). The text of each is checked
   before PetscOptionsInt/Real/Bool read it (and before the options block opens: an error inside
   PetscOptionsBegin/End leaks the block's strings), so that every bad value is an error naming the
   option: PETSc 3.18 reads an integer beyond PetscInt by truncating it (-mat_cluster_size
   4294967298 would silently be 2) and reports text it cannot read without naming the option
   ("Input string abc has no numeric value", "Unknown logical value: maybe"). The codes are PETSc's
   for these.
*/
enum MatClusterOptionKind { kOptionInteger, kOptionReal, kOptionBool };
static const struct {
  const char          *name;
  MatClusterOptionKind kind;
  PetscBool            product; /* read by the products only (else also by MatGetOrdering) */
  const char          *field;   /* of SpgemmOptions, ClusteringOptions or OrderingOptions */
} MatClusterValueOptions[] = {
  {"-mat_cluster_size",                        kOptionInteger, PETSC_TRUE,  "cluster_size"       },
  {"-mat_cluster_jaccard_threshold",           kOptionReal,    PETSC_TRUE,  "jaccard_threshold"  },
  {"-mat_cluster_topk",                        kOptionInteger, PETSC_TRUE,  "hierarchical_topk"  },
  {"-mat_cluster_threads",                     kOptionInteger, PETSC_TRUE,  "num_threads"        },
  {"-mat_cluster_reuse_analysis",              kOptionBool,    PETSC_TRUE,  NULL                 },
  {"-mat_cluster_reorder_seed",                kOptionInteger, PETSC_FALSE, "seed"               },
  {"-mat_cluster_reorder_parts",               kOptionInteger, PETSC_FALSE, "parts"              },
  {"-mat_cluster_reorder_hub_fraction",        kOptionReal,    PETSC_FALSE, "hub_fraction"       },
  {"-mat_cluster_reorder_gray_bits",           kOptionInteger, PETSC_FALSE, "gray_bits"          },
  {"-mat_cluster_reorder_gray_dense_fraction", kOptionReal,    PETSC_FALSE, "gray_dense_fraction"},
};

const char *MatClusterOptionOfField_Private(const std::string &field)
{
  for (const auto &o : MatClusterValueOptions)
    if (o.field && field == o.field) return o.name;
  return NULL;
}

/* The core's range check of one real field (every real option has one), on the defaults otherwise */
static void MatClusterValidateRealField(const std::string &field, double value)
{
  pcluster::ClusteringOptions clustering;
  pcluster::OrderingOptions   ordering;
  if (field == "jaccard_threshold") clustering.jaccard_threshold = value;
  else if (field == "hub_fraction") ordering.hub_fraction = value;
  else if (field == "gray_dense_fraction") ordering.gray_dense_fraction = value;
  else throw std::logic_error("no range check for the real option field " + field);
  pcluster::validate(clustering);
  pcluster::validate(ordering);
}

PetscErrorCode MatClusterOptionsCheckValues_Private(PetscObject obj, PetscBool product)
{
  static const char *const bools[] = {"", "1", "0", "true", "false", "yes", "no", "on", "off"}; /* PetscOptionsStringToBool's */
  const MPI_Comm           comm    = obj ? PetscObjectComm(obj) : PETSC_COMM_WORLD;
  const char              *prefix  = obj && obj->prefix ? obj->prefix : "";

  PetscFunctionBegin;
  for (const auto &o : MatClusterValueOptions) {
    const char *opt = o.name;
    char        text[256];
    char       *end = NULL;
    PetscBool   set, ok = PETSC_FALSE;
    if (o.product && !product) continue;
    PetscCall(PetscOptionsGetString(obj ? obj->options : NULL, obj ? obj->prefix : NULL, opt, text, sizeof(text), &set));
    if (!set) continue;
    errno = 0;
    switch (o.kind) {
    case kOptionInteger: {
      const long long v = std::strtoll(text, &end, 10);
      PetscCheck(end != text && *end == '\0', comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s%s %s is not an integer", prefix, opt + 1, text);
      PetscCheck(errno != ERANGE && v >= PETSC_MIN_INT && v <= PETSC_MAX_INT, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s%s %s is out of range: beyond the PetscInt range [%" PetscInt_FMT ", %" PetscInt_FMT "]", prefix, opt + 1, text, PETSC_MIN_INT, PETSC_MAX_INT);
    } break;
    case kOptionReal: {
      const double v = std::strtod(text, &end);
      PetscCheck(end != text && *end == '\0', comm, PETSC_ERR_ARG_OUTOFRANGE, "-%s%s %s is not a number", prefix, opt + 1, text);
      /* nan, inf, 1e400: PETSc 3.22 and later refuse them in the options block, naming neither the
         option nor its range; the core's check of the field names both */
      if (!std::isfinite(v)) PetscClusterCallCXXOptions(comm, prefix, "options", MatClusterValidateRealField(o.field, v));
    } break;
    case kOptionBool:
      for (const char *b : bools) {
        PetscBool same;
        PetscCall(PetscStrcasecmp(text, b, &same));
        ok = (PetscBool)(ok || same);
      }
      PetscCheck(ok, comm, PETSC_ERR_ARG_WRONG, "-%s%s %s is not a logical value (true, false, yes, no, on, off, 1, 0)", prefix, opt + 1, text);
      break;
    }
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

/* An integer option for an int field of the core: saturated, so that a PetscInt beyond int (64-bit
   indices) stays out of range for the core's check instead of wrapping into it */
static int MatClusterToInt(PetscInt v)
{
  return v > INT_MAX ? INT_MAX : v < INT_MIN ? INT_MIN : (int)v;
}

MatClusterOrderingValues MatClusterOrderingValuesDefault_Private(void)
{
  const pcluster::OrderingOptions o;
  return {(PetscInt)o.seed, o.parts, o.hub_fraction, o.gray_bits, o.gray_dense_fraction};
}

PetscErrorCode MatClusterOrderingOptionsRead_Private(MatClusterOptionItems PetscOptionsObject, const char manual[], MatClusterOrderingValues *v)
{
  char parts[128], hub[128], bits[128], dense[128];

  PetscFunctionBegin;
  PetscCall(PetscSNPrintf(parts, sizeof parts, "Parts of gp and hp (0: one per %d rows)", pcluster::kPartRows));
  PetscCall(PetscSNPrintf(hub, sizeof hub, "Hubs removed per round by slashburn, as a fraction of the rows, (0,1]"));
  PetscCall(PetscSNPrintf(bits, sizeof bits, "Bits of a row's column pattern used by gray, 1..%d", pcluster::kMaxGrayBits));
  PetscCall(PetscSNPrintf(dense, sizeof dense, "gray: rows with more than this fraction of the columns are ordered first, by length, [0,1]"));
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_seed", "Seed of random, and of the randomised steps of nd, gp and hp", manual, v->seed, &v->seed, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_parts", parts, manual, v->parts, &v->parts, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_reorder_hub_fraction", hub, manual, v->hub_fraction, &v->hub_fraction, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_reorder_gray_bits", bits, manual, v->gray_bits, &v->gray_bits, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_reorder_gray_dense_fraction", dense, manual, v->gray_dense, &v->gray_dense, NULL));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterOrderingOptionsCheck_Private(MPI_Comm comm, const char prefix[], const MatClusterOrderingValues &v, pcluster::OrderingOptions *o)
{
  PetscFunctionBegin;
  if (!prefix) prefix = "";
  /* not a range of the core's: its seed is unsigned, a negative PetscInt has no such value */
  PetscCheck(v.seed >= 0, comm, PETSC_ERR_ARG_OUTOFRANGE, "-%smat_cluster_reorder_seed %" PetscInt_FMT " is out of range: must be >= 0", prefix, v.seed);
  o->seed                = (std::uint64_t)v.seed;
  o->parts               = MatClusterToInt(v.parts);
  o->hub_fraction        = (double)v.hub_fraction;
  o->gray_bits           = MatClusterToInt(v.gray_bits);
  o->gray_dense_fraction = (double)v.gray_dense;
  PetscClusterCallCXXOptions(comm, prefix, "options", pcluster::validate(*o));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterGetOptions_Private(PetscObject obj, const char alg[], PetscInt row_block_size, MatClusterProductOptions *opts)
{
  MPI_Comm                 comm    = obj ? PetscObjectComm(obj) : PETSC_COMM_WORLD;
  const char              *prefix  = obj && obj->prefix ? obj->prefix : "";
  pcluster::SpgemmOptions  o; /* the core's defaults */
  PetscInt                 size = o.clustering.cluster_size, topk = o.clustering.hierarchical_topk, threads = o.num_threads;
  PetscReal                threshold = o.clustering.jaccard_threshold;
  PetscBool                accset = PETSC_FALSE, reorderset = PETSC_FALSE, tripleset = PETSC_FALSE, reuse = PETSC_TRUE, found = PETSC_FALSE;
  char                     accname[64], reordername[64], triplename[64], sizehelp[160], topkhelp[160], acchelp[160], threadshelp[160], reorderhelp[256], triplehelp[256];
  MatClusterOrderingValues ordering = MatClusterOrderingValuesDefault_Private();

  PetscFunctionBegin;
  for (const auto &a : MatClusterAlgorithms) {
    PetscCall(PetscStrcmp(alg, a.name, &found));
    if (found) {
      o.kernel = a.kernel;
      o.scheme = a.scheme;
      break;
    }
  }
  PetscCheck(found, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "petsc-cluster: unknown algorithm %s; valid: %s", alg, MatClusterAlgorithmList_Private());
  PetscCall(PetscStrncpy(accname, pcluster::to_string(o.accumulator), sizeof accname));
  PetscCall(PetscStrncpy(reordername, pcluster::to_string(o.reorder), sizeof reordername));
  PetscCall(PetscStrncpy(triplename, pcluster::to_string(o.triple), sizeof triplename));
  PetscCall(PetscSNPrintf(sizehelp, sizeof sizehelp, "Rows per cluster (cluster_fixed) or maximum cluster size (cluster_variable, cluster_hierarchical, cluster), 1..%d", pcluster::kMaxClusterSize));
  PetscCall(PetscSNPrintf(topkhelp, sizeof topkhelp, "Candidate pairs kept per row by cluster_hierarchical, 0..%d (0: cluster size - 1)", pcluster::kMaxHierarchicalTopk));
  PetscCall(PetscSNPrintf(acchelp, sizeof acchelp, "Accumulator for a row's partial products: %s", pcluster::names_of(pcluster::kAccumulatorNames).c_str()));
  PetscCall(PetscSNPrintf(threadshelp, sizeof threadshelp, "OpenMP threads for the product, 0..%d (0: the OpenMP default)", pcluster::kMaxThreads));
  PetscCall(PetscSNPrintf(reorderhelp, sizeof reorderhelp, "Ordering of A by which the product runs on permuted copies of A and B (C keeps the caller's order): %s", pcluster::names_of(pcluster::kOrderingNames).c_str()));

  PetscCall(PetscSNPrintf(triplehelp, sizeof triplehelp, "PtAP and RARt with rowwise or cluster (automatic scheme): %s (fused: A*P never stored, the numeric phase by rows of C or of A, chosen per product or named; stored: A*P and P^T kept, numeric phases without pattern work)", pcluster::names_of(pcluster::kTripleFormNames).c_str()));

  PetscCall(MatClusterOptionsCheckValues_Private(obj, PETSC_TRUE));
  PetscOptionsBegin(comm, obj ? obj->prefix : NULL, "petsc-cluster SpGEMM options (C = A*B)", "Mat");
  PetscCall(PetscOptionsInt("-mat_cluster_size", sizehelp, "PetscClusterInitializePackage", size, &size, NULL));
  PetscCall(PetscOptionsReal("-mat_cluster_jaccard_threshold", "Minimum Jaccard similarity for a row to join a cluster, [0,1]", "PetscClusterInitializePackage", threshold, &threshold, NULL));
  PetscCall(PetscOptionsInt("-mat_cluster_topk", topkhelp, "PetscClusterInitializePackage", topk, &topk, NULL));
  /* Read as a string and matched here: PETSc 3.18.5's PetscOptionsEList overruns its message buffer
     by one byte when reporting an unknown value for this list (seen under valgrind). */
  PetscCall(PetscOptionsString("-mat_cluster_accumulator", acchelp, "PetscClusterInitializePackage", accname, accname, sizeof(accname), &accset));
  PetscCall(PetscOptionsInt("-mat_cluster_threads", threadshelp, "PetscClusterInitializePackage", threads, &threads, NULL));
  PetscCall(PetscOptionsString("-mat_cluster_reorder", reorderhelp, "PetscClusterInitializePackage", reordername, reordername, sizeof(reordername), &reorderset));
  PetscCall(MatClusterOrderingOptionsRead_Private(PetscOptionsObject, "PetscClusterInitializePackage", &ordering));
  PetscCall(PetscOptionsString("-mat_cluster_triple_product", triplehelp, "PetscClusterInitializePackage", triplename, triplename, sizeof(triplename), &tripleset));
  PetscCall(PetscOptionsBool("-mat_cluster_reuse_analysis", "Keep A's ordering and clusters on A for later products with the same A pattern (e.g. A*F for many F)", "PetscClusterInitializePackage", reuse, &reuse, NULL));
  PetscOptionsEnd();

  /* in the order the options are listed; the clustering options are checked whichever kernel runs:
     a bad value is an error wherever given */
  o.clustering.cluster_size      = MatClusterToInt(size);
  o.clustering.jaccard_threshold = (double)threshold;
  o.clustering.hierarchical_topk = MatClusterToInt(topk);
  PetscClusterCallCXXOptions(comm, prefix, "options", pcluster::validate(o.clustering));
  if (accset) {
    const auto acc = pcluster::value_of(pcluster::kAccumulatorNames, accname, true);
    PetscCheck(acc, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%smat_cluster_accumulator %s is unknown: valid choices are %s", prefix, accname, pcluster::names_of(pcluster::kAccumulatorNames).c_str());
    o.accumulator = *acc;
  }
  o.num_threads = MatClusterToInt(threads);
  PetscClusterCallCXXOptions(comm, prefix, "options", pcluster::validate(o));
  if (reorderset) {
    try {
      o.reorder = pcluster::ordering_from_string(reordername);
    } catch (const std::invalid_argument &e) {
      SETERRQ(comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%smat_cluster_reorder: %s", prefix, e.what());
    }
  }
  PetscCall(MatClusterOrderingOptionsCheck_Private(comm, prefix, ordering, &o.ordering));
  if (tripleset) {
    const auto form = pcluster::value_of(pcluster::kTripleFormNames, triplename, true);
    PetscCheck(form, comm, PETSC_ERR_ARG_UNKNOWN_TYPE, "-%smat_cluster_triple_product %s is unknown: valid choices are %s", prefix, triplename, pcluster::names_of(pcluster::kTripleFormNames).c_str());
    o.triple = *form;
  }
  o.row_block_size = MatClusterToInt(row_block_size);

  PetscCall(PetscInfo(obj, "petsc-cluster %s: kernel %s, scheme %s, cluster size %d, Jaccard threshold %g, top-k %d, accumulator %s, threads %d, row block size %d, reorder %s, triple product %s (prefix \"%s\")\n", alg, pcluster::to_string(o.kernel),
                      o.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(o.scheme) : "-", o.clustering.cluster_size, o.clustering.jaccard_threshold, o.clustering.hierarchical_topk, pcluster::to_string(o.accumulator), o.num_threads, o.row_block_size,
                      pcluster::to_string(o.reorder), pcluster::to_string(o.triple), prefix));
  opts->spgemm         = o;
  opts->reuse_analysis = reuse;
  PetscFunctionReturn(PETSC_SUCCESS);
}
