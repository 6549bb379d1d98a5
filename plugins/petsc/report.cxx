/*
   What a product of ours shows, for both matrix types: its -info lines (what the symbolic phase
   chose and measured, step by step, and each step's workspace) and its part of a matrix view
   (-mat_view ::ascii_info: the options, then every step of every plan). A plan is printed the same
   way whether it is a SeqAIJ product or one rank's local product of an MPIAIJ one.
*/
#include "petscclusterimpl.h"

PetscErrorCode MatClusterInfoWorkspace_Private(Mat C, const char what[], PetscBool after_numeric, const pcluster::SpgemmStats &s)
{
  const char *prefix = ((PetscObject)C)->prefix ? ((PetscObject)C)->prefix : "";

  PetscFunctionBegin;
  PetscCall(PetscInfo(C, "petsc-cluster %s: workspace (%s) %" PetscInt64_FMT " KiB per thread (peak), %" PetscInt64_FMT " KiB all threads\n", what, after_numeric ? "largest phase so far, numeric included" : "symbolic phase", MatClusterKiB(s.workspace_thread_bytes), MatClusterKiB(s.workspace_bytes)));
  if (s.dense_limited && !after_numeric)
    PetscCall(PetscInfo(C, "petsc-cluster %s: -%smat_cluster_accumulator dense not applied: C has more than %" PetscInt64_FMT " columns, the limit of ncols-wide arrays per thread; the hash accumulator ran\n", what, prefix, (PetscInt64)pcluster::kDenseMaxColumns));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterInfoPlan_Private(Mat C, const char what[], const MatClusterPlan &plan)
{
  PetscFunctionBegin;
  for (const pcluster::ProductStep &st : plan.steps()) {
    const pcluster::SpgemmStats &s = st.spgemm;
    char                         step[256];
    if (st.is_transpose) {
      PetscCall(PetscInfo(C, "petsc-cluster %s: %s, nnz %" PetscInt64_FMT "\n", what, st.what.c_str(), (PetscInt64)st.nnz));
      continue;
    }
    PetscCall(PetscInfo(C, "petsc-cluster %s: %s: kernel %s, scheme %s, clusters %" PetscInt64_FMT ", flops %" PetscInt64_FMT ", nnz %" PetscInt64_FMT "; ordering %g s, clustering %g s, symbolic %g s\n", what, st.what.c_str(), pcluster::to_string(s.kernel),
                        s.kernel == pcluster::Kernel::Cluster ? pcluster::to_string(s.scheme) : "-", (PetscInt64)s.num_clusters, (PetscInt64)s.flops, (PetscInt64)st.nnz, s.seconds_ordering, s.seconds_clustering, s.seconds_symbolic));
    if (st.fused_triple) PetscCall(PetscInfo(C, "petsc-cluster %s: %s: numeric phase by rows of %s\n", what, st.what.c_str(), st.by_rows_of_c ? "C, as (P^T*A)*P" : "A"));
    if (s.repeated_rows || s.shifted_rows || s.same_rows)
      PetscCall(PetscInfo(C, "petsc-cluster %s: %s: rows of the right operand repeating the row before (runs) %" PetscInt64_FMT "; rows of C copied from the row before: shifted by one column (a stencil numbered naturally) %" PetscInt64_FMT ", as they are %" PetscInt64_FMT "\n", what, st.what.c_str(), (PetscInt64)s.repeated_rows, (PetscInt64)s.shifted_rows, (PetscInt64)s.same_rows));
    PetscCall(PetscSNPrintf(step, sizeof step, "%s: %s", what, st.what.c_str()));
    PetscCall(MatClusterInfoWorkspace_Private(C, step, PETSC_FALSE, s));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterInfoNumeric_Private(Mat C, const char what[], const MatClusterPlan &plan)
{
  PetscFunctionBegin;
  for (const pcluster::ProductStep &st : plan.steps()) {
    char step[256];
    if (st.is_transpose) continue;
    PetscCall(PetscSNPrintf(step, sizeof step, "%s: %s", what, st.what.c_str()));
    PetscCall(MatClusterInfoWorkspace_Private(C, step, PETSC_TRUE, st.spgemm));
    if (st.spgemm.following_rows) PetscCall(PetscInfo(C, "petsc-cluster %s: numeric phase: rows of C through the positions of the row before %" PetscInt64_FMT "\n", step, (PetscInt64)st.spgemm.following_rows));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterViewOptions_Private(PetscViewer viewer, const pcluster::SpgemmOptions &o)
{
  PetscFunctionBegin;
  if (o.kernel == pcluster::Kernel::Cluster)
    PetscCall(PetscViewerASCIIPrintf(viewer, "cluster size %d, Jaccard threshold %g, top-k %d%s\n", o.clustering.cluster_size, o.clustering.jaccard_threshold, o.clustering.hierarchical_topk, o.clustering.hierarchical_topk ? "" : " (cluster size - 1)"));
  PetscCall(PetscViewerASCIIPrintf(viewer, "accumulator %s, threads %d%s, rows reordered by %s\n", pcluster::to_string(o.accumulator), o.num_threads, o.num_threads ? "" : " (OpenMP default)", pcluster::to_string(o.reorder)));
  PetscFunctionReturn(PETSC_SUCCESS);
}

PetscErrorCode MatClusterViewPlan_Private(PetscViewer viewer, const char label[], const MatClusterPlan &plan)
{
  const pcluster::SpgemmOptions &o           = plan.options();
  const bool                     auto_choice = o.kernel == pcluster::Kernel::Cluster && o.scheme == pcluster::ClusterScheme::Auto; /* algorithm "cluster" */

  PetscFunctionBegin;
  for (const pcluster::ProductStep &st : plan.steps()) {
    if (st.is_transpose) {
      PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s: explicit transpose, nnz %" PetscInt64_FMT "\n", label, st.what.c_str(), (PetscInt64)st.nnz));
      continue;
    }
    const pcluster::SpgemmStats &s  = st.spgemm;
    const bool                   cl = s.kernel == pcluster::Kernel::Cluster;
    PetscCall(PetscViewerASCIIPrintf(viewer, "%s%s: kernel %s%s%s%s, flops %" PetscInt64_FMT " multiply-adds, nnz %" PetscInt64_FMT "\n", label, st.what.c_str(), pcluster::to_string(s.kernel), cl ? ", scheme " : "", cl ? pcluster::to_string(s.scheme) : "", auto_choice ? " (chosen automatically)" : "",
                                     (PetscInt64)s.flops, (PetscInt64)st.nnz));
    PetscCall(PetscViewerASCIIPushTab(viewer));
    if (st.fused_triple) PetscCall(PetscViewerASCIIPrintf(viewer, "fused: A*P never stored, numeric phase by rows of %s (-mat_cluster_triple_product)\n", st.by_rows_of_c ? "C, as (P^T*A)*P" : "A, each row of A*P added to the rows of C it reaches"));
    if (s.repeated_rows) PetscCall(PetscViewerASCIIPrintf(viewer, "rows of the right operand repeating the row before (node blocks, taken as runs): %" PetscInt64_FMT "\n", (PetscInt64)s.repeated_rows));
    if (s.shifted_rows) PetscCall(PetscViewerASCIIPrintf(viewer, "rows of the product whose pattern is the row before shifted by one column (a stencil numbered naturally), copied: %" PetscInt64_FMT "\n", (PetscInt64)s.shifted_rows));
    if (s.same_rows) PetscCall(PetscViewerASCIIPrintf(viewer, "rows of the product whose pattern is the row before's (the row of the left operand repeating it), copied: %" PetscInt64_FMT "\n", (PetscInt64)s.same_rows));
    if (s.following_rows) PetscCall(PetscViewerASCIIPrintf(viewer, "rows of the product the last numeric phase formed through the positions of the row before: %" PetscInt64_FMT "\n", (PetscInt64)s.following_rows));
    if (cl) PetscCall(PetscViewerASCIIPrintf(viewer, "clusters %" PetscInt64_FMT ", padding %" PetscInt64_FMT " explicit zeros, cluster flops %" PetscInt64_FMT "\n", (PetscInt64)s.num_clusters, (PetscInt64)s.cluster_padding, (PetscInt64)s.cluster_flops));
    PetscCall(PetscViewerASCIIPrintf(viewer, "rows on the dense accumulator %" PetscInt64_FMT "%s; workspace %" PetscInt64_FMT " KiB per thread (peak), %" PetscInt64_FMT " KiB all threads; seconds: ordering %g, clustering %g, symbolic %g (incl. ordering and clustering)%s\n", (PetscInt64)s.rows_dense,
                                     s.dense_limited ? " (dense asked for, C too wide)" : "", MatClusterKiB(s.workspace_thread_bytes), MatClusterKiB(s.workspace_bytes), s.seconds_ordering, s.seconds_clustering, s.seconds_symbolic, s.left_reused ? "; ordering and clusters taken from an earlier product" : ""));
    PetscCall(PetscViewerASCIIPopTab(viewer));
  }
  PetscFunctionReturn(PETSC_SUCCESS);
}
