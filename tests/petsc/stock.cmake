# PETSc's stock test programs that exercise C = A*B for SeqAIJ (mat/tests ex62, ex93, ex96, ex226,
# ex250, ex258, and KSP tutorial ex56 with GAMG; compiled by CMakeLists.txt), run with the plugin
# loaded by -dll_append (also PETSC_OPTIONS and ./.petscrc) and each of our algorithm names selected
# by PETSc's own flags (-matmatmult_via, -AB_mat_product_algorithm, -mat_product_algorithm), and
# checked like PETSc's harness does: exit code 0 (the programs verify their products themselves)
# and standard output equal to the expected output file installed next to them (or, for ex56, to
# PETSc's own run here). *.view.* print the products (-mat_view, -product_view) and compare them,
# every entry's column and value, with the same program run without the plugin, since the expected
# outputs of ex93, ex96 and ex258 are empty. engaged.* show with -info that the plugin really ran;
# observe.* check -mat_view ::ascii_info, -log_view (and that reuse is numeric only) and -help;
# reorder.* and ordering.* run every ordering inside the products and as a PETSc ordering.
# Label: petsc.
if(NOT _have_stock)
  return()
endif()

foreach(alg IN LISTS PCLUSTER_TEST_ALGORITHMS)
  pcluster_view_negatives(${alg} _vneg)
  # ex93: MatMatMult (initial + reuse) of 3x3 matrices, checked by MatMatMultEqual.
  pcluster_petsc_run(NAME ex93.${alg} EXE stock_ex93 EXPECTED ${_out}/ex93_1.out
    ARGS ${_load} -matmatmult_via ${alg})
  # ex62: developer API (prefix AB_) and MatMatMult with reuse after MatScale; AtB/ABt/PtAP/RARt
  # stay on PETSc's algorithms, and their internal A*B checks use ours through -matmatmult_via.
  foreach(f tiny spd ns)
    pcluster_petsc_run(NAME ex62.${f}.${alg} EXE stock_ex62 EXPECTED ${_out}/ex62_1.out
      ARGS ${_load} -fA ${_${f}} -fB ${_${f}} -AB_mat_product_algorithm ${alg} -matmatmult_via ${alg})
  endforeach()
  # ex96: DMDA operator times interpolation (rectangular A*P), initial and reuse.
  pcluster_petsc_run(NAME ex96.${alg} EXE stock_ex96 EXPECTED ${_out}/ex96_1.out
    ARGS ${_load} -Mx 10 -My 5 -Mz 10 -matmatmult_via ${alg})
  # ex226: 2d5point and 3d27point stencils, A*B and (PtAP)^2; prints both products.
  pcluster_petsc_run(NAME ex226_1.${alg} EXE stock_ex226 EXPECTED ${_out}/ex226_1.out
    ARGS ${_load} -m 8 -n 8 -stencil 2d5point -matmatmult_via ${alg})
  pcluster_petsc_run(NAME ex226_2.${alg} EXE stock_ex226 EXPECTED ${_out}/ex226_2.out
    ARGS ${_load} -m 5 -n 5 -o 5 -stencil 3d27point -matmatmult_via ${alg})
  # ex250: 18x18 A*B printed, then B*A into the same C (MAT_REUSE_MATRIX with swapped operands).
  pcluster_petsc_run(NAME ex250.${alg} EXE stock_ex250 EXPECTED ${_out}/ex250_1.out
    FILTER_OUT "type|Mat Object" ARGS ${_load} -mat_type aij -matmatmult_via ${alg})
  # ex258: MatProductCreate without prefix (-mat_product_algorithm), MatProductReplaceMats.
  pcluster_petsc_run(NAME ex258.${alg} EXE stock_ex258 EXPECTED ${_out}/ex258_1.out
    ARGS ${_load} -conjugate false -mat_product_algorithm ${alg})
  # The expected outputs of ex93, ex96 and ex258 are empty, and their own checks multiply by
  # vectors (blind to a missing or extra explicit entry). The .view entries print the products
  # and compare them with the same program's run without the plugin (PETSc's own algorithms):
  # every entry's column and value in PETSc's ASCII format (6 significant digits, which leaves
  # room for the last bits of a different summation order). REQUIRE_COUNT: the views are there.
  # ex93.view: -mat_view prints every matrix at its assembly: 15 views, of which ours are
  # C = A^T*A and D = C*A (initial and reuse each), P^T*A*P (initial, reuse), the rectangular
  # P^T*A*P (twice: the program assembles it again) and D = A*A^T (initial, reuse after MatScale).
  # PETSc's A*B^T cannot be viewed at all: its symbolic phase assembles B^T without values, and
  # that view crashes; so the reference takes A*A^T with our rowwise kernel, the rest with PETSc's.
  # (After 3.22 the program assembles the rectangular P^T*A*P once only: 14 views.)
  set(_ex93_views 15)
  if(PCLUSTER_PETSC_VERSION VERSION_GREATER_EQUAL 3.23)
    set(_ex93_views 14)
  endif()
  pcluster_petsc_run(NAME ex93.view.${alg} EXE stock_ex93 ${_vneg} NEGATIVE_ALSO "(MatMatMult|MatMatTranspose|MatPtAP)[^\n]* != " REQUIRE_COUNT "${_ex93_views}:Mat Object"
    ARGS ${_load} -matmatmult_via ${alg} -matptap_via ${alg} -matmattransmult_via ${alg} -mat_view
    REF_ARGS ${_load} -matmattransmult_via rowwise -mat_view)
  # ex96.view: a smaller grid (125 x 27 interpolation), -mat_view: the DMDA operators, P, then
  # A*P (initial, 2 reuses) and P^T*A*P (initial, reuse), both ours; 9 views.
  pcluster_petsc_run(NAME ex96.view.${alg} EXE stock_ex96 ${_vneg} NEGATIVE_ALSO "Error: (MatMatMult|MatPtAP)\\(\\)" REQUIRE_COUNT "9:Mat Object"
    ARGS ${_load} -Mx 3 -My 3 -Mz 3 -matmatmult_via ${alg} -matptap_via ${alg} -mat_view
    REF_ARGS -Mx 3 -My 3 -Mz 3 -mat_view)
  # ex258.view: -product_view prints A*A as a dense product (PETSc's) and as an AIJ one (ours).
  # Its 2x2 products have a full pattern, which the program's MatMultEqual against the dense
  # product already checks, and two rows that every clustering treats alike: the cluster and the
  # rowwise kernel only.
  if(alg STREQUAL "cluster" OR alg STREQUAL "rowwise")
    pcluster_petsc_run(NAME ex258.view.${alg} EXE stock_ex258 ${_vneg} NEGATIVE_ALSO "Bdense != B" NEGATIVE_FAULTS perturb drop nan swap REQUIRE_COUNT "1:type: seqaij"
      ARGS ${_load} -conjugate false -mat_product_algorithm ${alg} -product_view
      REF_ARGS -conjugate false -product_view)
  endif()
  # KSP ex56 "nns" and "2" (3D elasticity, GAMG: the prolongator smoothing A*P and the MIS-k
  # products go through -matmatmult_via; -two_solves re-runs the setup with reuse). The
  # installed ex56 outputs differ in the last digits even for PETSc's own run on this
  # platform, so the expected output is that of the same run without -matmatmult_via.
  pcluster_petsc_run(NAME ksp_ex56_nns.${alg} EXE stock_ksp_ex56
    ARGS ${_load} -matmatmult_via ${alg} ${_ex56_nns} REF_ARGS ${_ex56_nns})
  pcluster_petsc_run(NAME ksp_ex56_2.${alg} EXE stock_ksp_ex56
    ARGS ${_load} -matmatmult_via ${alg} ${_ex56_2} REF_ARGS ${_ex56_2})
  # The runs above pass just as well if PETSc ran the product; these show with -info that the
  # plugin took it (symbolic reports "petsc-cluster <name>: kernel ...") on each selection path.
  pcluster_petsc_run(NAME engaged.matmatmult_via.${alg} EXE stock_ex93
    REQUIRE_REGEX "petsc-cluster ${alg}: kernel" ARGS ${_load} -matmatmult_via ${alg} -info :mat)
  pcluster_petsc_run(NAME engaged.AB_mat_product_algorithm.${alg} EXE stock_ex62
    REQUIRE_REGEX "petsc-cluster ${alg}: kernel"
    ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm ${alg} -info :mat)
  pcluster_petsc_run(NAME engaged.mat_product_algorithm.${alg} EXE stock_ex258
    REQUIRE_REGEX "petsc-cluster ${alg}: kernel" ARGS ${_load} -conjugate false -mat_product_algorithm ${alg} -info :mat)
endforeach()

# Parameter edges through the options database (no prefix for MatMatMult, AB_ for ex62's C).
set(_e2 -m 5 -n 5 -o 5 -stencil 3d27point)
foreach(v IN ITEMS "cluster_fixed|-mat_cluster_size|1" "cluster_fixed|-mat_cluster_size|64"
                   "cluster_fixed|-mat_cluster_size|3" "cluster_variable|-mat_cluster_jaccard_threshold|0"
                   "cluster_variable|-mat_cluster_jaccard_threshold|1" "cluster_hierarchical|-mat_cluster_topk|1"
                   "cluster_hierarchical|-mat_cluster_jaccard_threshold|1" "cluster|-mat_cluster_accumulator|hash"
                   "cluster|-mat_cluster_accumulator|dense" "rowwise|-mat_cluster_accumulator|hash"
                   "rowwise|-mat_cluster_accumulator|dense" "cluster|-mat_cluster_threads|1")
  string(REPLACE "|" ";" v "${v}")
  list(GET v 0 alg)
  list(GET v 1 opt)
  list(GET v 2 val)
  string(REGEX REPLACE "^-mat_cluster_" "" short "${opt}")
  pcluster_petsc_run(NAME ex226_2.${alg}.${short}_${val} EXE stock_ex226 EXPECTED ${_out}/ex226_2.out
    ARGS ${_load} ${_e2} -matmatmult_via ${alg} ${opt} ${val})
endforeach()
# The fused PtAP's numeric phase in each order (the default chooses one per product): every entry of
# ex96's P^T*A*P printed against PETSc's own run.
foreach(order fused_rows_of_c fused_rows_of_a)
  pcluster_petsc_run(NAME ex96.view.rowwise.${order} EXE stock_ex96 REQUIRE_COUNT "9:Mat Object"
    REQUIRE_REGEX "triple product ${order}"
    ARGS ${_load} -Mx 3 -My 3 -Mz 3 -matmatmult_via rowwise -matptap_via rowwise -mat_cluster_triple_product ${order} -mat_view -info :mat
    FILTER_OUT "^\\[[0-9]\\] "
    REF_ARGS -Mx 3 -My 3 -Mz 3 -mat_view)
endforeach()
pcluster_petsc_run(NAME ex62.tiny.cluster.prefixed_params EXE stock_ex62 EXPECTED ${_out}/ex62_1.out
  ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm cluster_hierarchical
       -AB_mat_cluster_size 2 -AB_mat_cluster_jaccard_threshold 0 -AB_mat_cluster_accumulator dense)

# Observability: the product's view under -mat_view ::ascii_info, the log events in -log_view,
# the options in -help.
pcluster_petsc_run(NAME observe.ascii_info EXE stock_ex93
  REQUIRE_REGEX "petsc-cluster MatProduct AB: algorithm cluster_variable[^\n]*\n[^\n]*cluster size 4"
  ARGS ${_load} -matmatmult_via cluster_variable -mat_cluster_size 4 -mat_view ::ascii_info)
pcluster_petsc_run(NAME observe.log_view EXE stock_ex93
  REQUIRE_REGEX "MatClusterSym[^\n]*\n[^\n]*MatClusterNum"
  ARGS ${_load} -matmatmult_via cluster_hierarchical -log_view)
# MAT_REUSE_MATRIX runs the numeric phase only: ex93 does two products, each initial + reuse,
# so clustering and symbolic run twice and numeric four times.
# ex93 runs MatMatMult twice with MAT_INITIAL_MATRIX then MAT_REUSE_MATRIX each time. MatMatMult's
# symbolic phase also forms the values (our symbolic kernel, then our numeric kernel inside it), and
# the reuses run the numeric kernel alone: 2 symbolic, 2 + 2 numeric, and no clustering on reuse.
pcluster_petsc_run(NAME observe.reuse_is_numeric_only EXE stock_ex93
  REQUIRE_REGEX "MatClusterCluster +2 [^\n]*\nMatClusterSym +2 [^\n]*\nMatClusterNum +4 "
  ARGS ${_load} -matmatmult_via cluster_variable -log_view)
pcluster_petsc_run(NAME observe.help EXE stock_ex93
  REQUIRE_REGEX "-mat_cluster_size[^\n]*\n[^\n]*-mat_cluster_jaccard_threshold[^\n]*\n[^\n]*-mat_cluster_topk[^\n]*\n[^\n]*-mat_cluster_accumulator[^\n]*auto, hash, dense"
  ARGS ${_load} -matmatmult_via cluster -help)

# Other names still reach PETSc's own algorithms with the plugin loaded.
pcluster_petsc_run(NAME ex93.passthrough_heap EXE stock_ex93 EXPECTED ${_out}/ex93_1.out
  ARGS ${_load} -matmatmult_via heap)
pcluster_petsc_run(NAME ex62.tiny.passthrough_scalable EXE stock_ex62 EXPECTED ${_out}/ex62_1.out
  ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm scalable -matmatmult_via scalable)
pcluster_petsc_run(NAME ex250.passthrough_default EXE stock_ex250 EXPECTED ${_out}/ex250_1.out
  FILTER_OUT "type|Mat Object" ARGS ${_load} -mat_type aij)
# Loading through PETSC_OPTIONS instead of the command line.
pcluster_petsc_run(NAME ex93.cluster.petsc_options EXE stock_ex93 EXPECTED ${_out}/ex93_1.out
  ENV "PETSC_OPTIONS=-dll_append ${_plugin} -matmatmult_via cluster" ARGS -matmatmult_via cluster)

# Loading through a ./.petscrc file in the working directory.
file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/petscrc_dir/.petscrc" CONTENT "-dll_append ${_plugin}\n")
pcluster_petsc_run(NAME ex93.rowwise.petscrc EXE stock_ex93 EXPECTED ${_out}/ex93_1.out
  WORKDIR "${CMAKE_CURRENT_BINARY_DIR}/petscrc_dir" ARGS -matmatmult_via rowwise)

# Every ordering inside the products (-mat_cluster_reorder): the stock programs still verify
# their products and print the stock output; -info shows the ordering in use.
foreach(ord random rcm amd nd gp hp gray rabbit degree slashburn)
  set(_reorder_args -fA ${_tiny} -fB ${_tiny} -AB_mat_product_algorithm cluster -PtAP_mat_product_algorithm rowwise
      -RARt_mat_product_algorithm cluster_variable -AtB_mat_product_algorithm cluster -matmatmult_via cluster
      -matptap_via rowwise -mat_cluster_reorder ${ord})
  pcluster_petsc_run(NAME reorder.ex62.${ord} EXE stock_ex62 EXPECTED ${_out}/ex62_1.out
    ARGS ${_load} ${_reorder_args})
  pcluster_petsc_run(NAME reorder.ex62_engaged.${ord} EXE stock_ex62
    REQUIRE_REGEX "takes MatProduct PtAP.*reorder ${ord}"
    ARGS ${_load} ${_reorder_args} -info :mat)
  # As PETSc orderings: LU with our ordering (a direct solve: one iteration) from a stock tutorial.
  pcluster_petsc_run(NAME ordering.ksp_ex4_lu.${ord} EXE stock_ksp_ex4
    REQUIRE_REGEX "MatClusterOrd_${ord} +1 "
    ARGS ${_load} -m 12 -n 12 -pc_type lu -pc_factor_mat_ordering_type pcluster_${ord} -ksp_converged_reason -log_view)
endforeach()
