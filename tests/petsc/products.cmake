# All SeqAIJ product types (AB, AtB, ABt, PtAP, RARt, ABC) in PETSc's stock programs (mat/tests
# ex62, ex81, ex93, ex94, ex101, ex111, ex161, ex163, ex198, ex209, ex258), each selected by the flag
# PETSc reads for it: -matmatmult_via, -mattransposematmult_via, -matmattransmult_via, -matptap_via,
# -matrart_via, -matmatmatmult_via (MatMatMult, MatPtAP, ... callers) and
# -<prefix>mat_product_algorithm (MatProductCreate callers). The programs check their products
# themselves (MatPtAPMultEqual, MatEqual, norms of differences) and their output must equal the
# installed expected output. Most of those outputs are empty and the checks are matrix-vector based
# or compare two of our products: *.view.* print the products (-mat_view and the programs' own view
# options) and compare them, every entry's column and value, with the same program run without the
# plugin (PETSc's algorithms); *_vs_petsc.* take one type from us and the rest from PETSc, so that
# the program's own check compares ours with PETSc's. engaged.*: -info shows our code took each
# type on each path. Then ex62, ex93 and ex111 on 2 and 3 ranks (MATMPIAIJ).
# Labels: petsc, products (engaged.*: engaged; on 2 and 3 ranks: mpi).
#
# PCLUSTER_TEST_PETSC_NAMES=ON runs the same tests with one of PETSc's own non-default algorithms per
# type in place of ours (and leaves out the checks that our code ran): a check of the harness.
if(NOT _have_stock)
  return()
endif()

foreach(alg IN LISTS PCLUSTER_TEST_ALGORITHMS)
  pcluster_view_negatives(${alg} _vneg)
  # ex62 on the three shipped data files: A*B, P^T*B, B*R^T, P^T*A*P, R*A*R^T (P rectangular,
  # random) through both APIs with reuse after MatScale, MatProductClear and MatDuplicate.
  _pcluster_via(_v ${alg} AB AtB ABt PtAP RARt)
  _pcluster_prefixed(_p ${alg} AB AtB PtAP RARt)
  foreach(f tiny spd ns)
    pcluster_petsc_run(NAME ex62.${f}.all_types.${alg} EXE stock_ex62 EXPECTED ${_out}/ex62_1.out LABEL products
      ARGS ${_load} -fA ${_${f}} -fB ${_${f}} ${_p} ${_v})
  endforeach()
  # The expected outputs of ex62, ex94, ex101, ex163, ex198 and ex258 are empty, and the programs'
  # own checks multiply by vectors (blind to a missing or extra explicit entry), compare two of our
  # products, or are absent (ex62's developer-API R*A*R^T, ex163's A^T*A, ex81's A*A). The .view
  # entries print the products and compare them with the same program's run without the plugin
  # (PETSc's own algorithms): every entry's column and value in PETSc's ASCII format (6
  # significant digits, which leaves room for the last bits of a different summation order).
  # REQUIRE_COUNT: the views of the products are there.
  # ex62.ns.view: the products with an options prefix, viewed at each assembly after it is set:
  # the developer API's A*B (numeric, numeric after MatScale), P^T*B, P^T*A*P and R*A*R^T (numeric
  # twice each), and B*R^T (MatMatTransposeMult's reuse).
  set(_ex62_views -AB_mat_view -AtB_mat_view -ABt_mat_view -PtAP_mat_view -RARt_mat_view)
  pcluster_petsc_run(NAME ex62.ns.view.${alg} EXE stock_ex62 ${_vneg} NEGATIVE_ALSO "Error (in|:) [^\n]*(A\\*B|Mat[A-Za-z_]+)" LABEL products
    REQUIRE_COUNT "2:Mat Object: \\(AB_\\)" "2:Mat Object: \\(AtB_\\)" "1:Mat Object: \\(ABt_\\)"
                  "2:Mat Object: \\(PtAP_\\)" "2:Mat Object: \\(RARt_\\)"
    ARGS ${_load} -fA ${_ns} -fB ${_ns} ${_p} ${_v} ${_ex62_views}
    REF_ARGS -fA ${_ns} -fB ${_ns} ${_ex62_views})
  # One type at a time, so that a failure names its type (ABt has no developer-API test in ex62).
  foreach(type AtB ABt PtAP RARt)
    _pcluster_via(_v ${alg} ${type})
    set(_p "")
    if(NOT type STREQUAL "ABt")
      _pcluster_prefixed(_p ${alg} ${type})
    endif()
    pcluster_petsc_run(NAME ex62.ns.${type}.${alg} EXE stock_ex62 EXPECTED ${_out}/ex62_1.out LABEL products
      ARGS ${_load} -fA ${_ns} -fB ${_ns} ${_p} ${_v})
  endforeach()
  # ex93: A*B, P^T*A*P on 4x4 and on a rectangular P, A*A^T; initial and reuse.
  _pcluster_via(_v ${alg} AB PtAP ABt)
  pcluster_petsc_run(NAME ex93.all_types.${alg} EXE stock_ex93 EXPECTED ${_out}/ex93_1.out LABEL products
    ARGS ${_load} ${_v})
  # ex94 (PETSc's broadest product test) on two data files: every type, reuse, MatProductClear,
  # MatDuplicate, products with dense operands next to ours.
  _pcluster_via(_v ${alg} ${_types})
  foreach(f spd ns)
    pcluster_petsc_run(NAME ex94.${f}.${alg} EXE stock_ex94 EXPECTED ${_out}/ex94_1.out LABEL products
      ARGS ${_load} -f0 ${_${f}} -f1 ${_${f}} -viewer_binary_skip_info ${_v})
  endforeach()
  # ex94.ns.view: the products with a prefix: A*B (the two reuses after MatScale) and B*R^T (reuse).
  set(_ex94_views -matmatmult_mat_view -matmatmulttr_mat_view)
  pcluster_petsc_run(NAME ex94.ns.view.${alg} EXE stock_ex94 ${_vneg} NEGATIVE_ALSO "Error(:| in) Mat[A-Za-z]+\\(\\)" LABEL products
    REQUIRE_COUNT "2:Mat Object: \\(matmatmult_\\)" "1:Mat Object: \\(matmatmulttr_\\)"
    ARGS ${_load} -f0 ${_ns} -f1 ${_ns} -viewer_binary_skip_info ${_v} ${_ex94_views}
    REF_ARGS -f0 ${_ns} -f1 ${_ns} -viewer_binary_skip_info ${_ex94_views})
  # ex81: A*A and A^T*A (MatProductCreate with prefixes AB_, AtB_) with MAT_FORCE_DIAGONAL_ENTRIES
  # set on C before the symbolic phase: C must have every diagonal entry allocated (the program
  # then inserts one with MAT_NEW_NONZERO_LOCATION_ERR), printed. (PETSc's heap and btheap AB
  # ignore the option, so the harness check takes scalable for AB here.)
  _pcluster_prefixed(_p ${alg} AB AtB)
  _pcluster_prefixed(_p_atb ${alg} AtB)
  if(PCLUSTER_TEST_PETSC_NAMES)
    list(TRANSFORM _p REPLACE "^heap$" "scalable")
  endif()
  pcluster_petsc_run(NAME ex81.${alg} EXE stock_ex81 EXPECTED ${_out}/ex81_1.out LABEL products ARGS ${_load} ${_p})
  pcluster_petsc_run(NAME ex81.AtB.${alg} EXE stock_ex81 EXPECTED ${_out}/ex81_1.out LABEL products ARGS ${_load} ${_p_atb})
  # ex81.view: A*A too (prefix AB_), viewed at the numeric phase's assembly (with the forced
  # diagonal entry of the empty row 0); then the program's view of A^T*A.
  pcluster_petsc_run(NAME ex81.view.${alg} EXE stock_ex81 ${_vneg} NEGATIVE_ALSO "Inserting a new nonzero" NEGATIVE_FAULTS perturb drop zero nan swap LABEL products REQUIRE_COUNT "1:Mat Object: \\(AB_\\)"
    ARGS ${_load} ${_p} -AB_mat_view REF_ARGS -AB_mat_view)
  # ex101: P^T*A*P with an AIJ P (ours) equal (MatEqual) to the same with a MAIJ P (PETSc's kernel,
  # whatever the algorithm name): mixed operands are handed over. (In 3.22 PETSc's MAIJ
  # product no longer reads -mat_product_algorithm: -options_left no keeps its warning about the
  # unused option out of the output.)
  _pcluster_alg(_a PtAP ${alg})
  pcluster_petsc_run(NAME ex101.${alg} EXE stock_ex101 EXPECTED ${_out}/ex101.out LABEL products
    ARGS ${_load} -matptap_via ${_a} -mat_product_algorithm ${_a} -options_left no)
  # ex101.view: -mat_view prints every matrix at its assembly, 8 views: the 4th is our P^T*A*P with
  # the AIJ P (the others are the inputs and PETSc's products with the MAIJ P). (PETSc's rap
  # PtAP views its inner products too: the harness check takes scalable in the -mat_view runs.)
  if(PCLUSTER_TEST_PETSC_NAMES)
    set(_a scalable)
  endif()
  pcluster_petsc_run(NAME ex101.view.${alg} EXE stock_ex101 ${_vneg} NEGATIVE_ALSO "MatProduct C != mC" NEGATIVE_FAULTS perturb drop zero nan swap LABEL products REQUIRE_COUNT "8:Mat Object"
    ARGS ${_load} -matptap_via ${_a} -mat_product_algorithm ${_a} -mat_view -options_left no REF_ARGS -mat_view)
  # ex111: R*A*P on DMDA interpolation (developer API without prefix, and MatMatMatMult with
  # reuse), MatEqual to MatPtAP.
  _pcluster_alg(_a ABC ${alg})
  _pcluster_via(_v ${alg} ABC PtAP)
  pcluster_petsc_run(NAME ex111.${alg} EXE stock_ex111 EXPECTED ${_out}/ex111_1.out LABEL products
    ARGS ${_load} -mat_product_algorithm ${_a} ${_v})
  # ex161: A*R^T, P^T*A*P and R*A*R^T (reuse) on small integer matrices, printed; RARt MatEqual PtAP.
  _pcluster_via(_v ${alg} ABt PtAP RARt)
  pcluster_petsc_run(NAME ex161.${alg} EXE stock_ex161 EXPECTED ${_out}/ex161.out LABEL products ARGS ${_load} ${_v})
  # ex163: A^T*A on a loaded matrix.
  _pcluster_via(_v ${alg} AtB)
  pcluster_petsc_run(NAME ex163.${alg} EXE stock_ex163 EXPECTED ${_out}/ex163.out LABEL products
    ARGS ${_load} -f ${_spd} ${_v})
  # ex163.view: -view_mats prints 5 views: A, our A^T*A, then B and PETSc's products with a dense B.
  pcluster_petsc_run(NAME ex163.view.${alg} EXE stock_ex163 ${_vneg} NEGATIVE_FAULTS perturb drop zero nan swap LABEL products REQUIRE_COUNT "5:Mat Object"
    ARGS ${_load} -f ${_spd} ${_v} -view_mats REF_ARGS -f ${_spd} -view_mats)
  # ex198: A*(B*C) by two MatMatMult equal (MatEqual) to MatMatMatMult(A,B,C) with reuse.
  _pcluster_via(_v ${alg} AB ABC)
  pcluster_petsc_run(NAME ex198.${alg} EXE stock_ex198 EXPECTED ${_out}/ex198.out LABEL products
    ARGS ${_load} -fA ${_ns} -fB ${_spd} -fC ${_ns} ${_v})
  # The entry above compares two of our products. ex198.ABC_vs_petsc: ours A*B*C only, so the
  # program's MatEqual compares it with PETSc's A*(B*C): the same row pointers, column indices
  # and values bit for bit (the data files hold small integers: every sum is exact).
  _pcluster_via(_v ${alg} ABC)
  pcluster_petsc_run(NAME ex198.ABC_vs_petsc.${alg} EXE stock_ex198 EXPECTED ${_out}/ex198.out LABEL products
    ARGS ${_load} -fA ${_ns} -fB ${_spd} -fC ${_ns} ${_v})
  # ex198.view: ours A*B only (B*C, then A*(B*C)), -mat_view: 9 views, the 4th and 5th ours (the
  # rest: the inputs and PETSc's MatMatMatMult, which views its inner B*C too); the program's
  # MatEqual then compares our A*(B*C) with PETSc's MatMatMatMult.
  _pcluster_via(_v ${alg} AB)
  pcluster_petsc_run(NAME ex198.view.${alg} EXE stock_ex198 ${_vneg} NEGATIVE_ALSO "ABC != D" NEGATIVE_FAULTS perturb drop zero nan swap LABEL products REQUIRE_COUNT "9:Mat Object"
    ARGS ${_load} -fA ${_ns} -fB ${_spd} -fC ${_ns} ${_v} -mat_view
    REF_ARGS -fA ${_ns} -fB ${_spd} -fC ${_ns} -mat_view)
  # ex209: A^T*B*A via MatPtAP and A^T*A via MatTransposeMatMult, with reuse.
  _pcluster_via(_v ${alg} PtAP AtB)
  pcluster_petsc_run(NAME ex209.${alg} EXE stock_ex209 EXPECTED ${_out}/ex209_1.out LABEL products
    ARGS ${_load} -f ${_ns} ${_v})
  # The entry above compares two of our products. ex209.PtAP_vs_petsc.view: ours P^T*A*P only, so
  # the program's MatMultEqual compares it with PETSc's A^T*A; and -mat_view prints 7 views, the
  # 3rd and 4th ours (initial, reuse; the rest: A, the identity, and PETSc's A^T*A, which views
  # its inner A^T too), compared with the run without the plugin.
  _pcluster_via(_v ${alg} PtAP)
  if(PCLUSTER_TEST_PETSC_NAMES)
    set(_v -matptap_via scalable)
  endif()
  pcluster_petsc_run(NAME ex209.PtAP_vs_petsc.view.${alg} EXE stock_ex209 ${_vneg} NEGATIVE_ALSO "A\\^T\\*A != At\\*A" NEGATIVE_FAULTS perturb drop zero nan swap LABEL products REQUIRE_COUNT "7:Mat Object"
    ARGS ${_load} -f ${_ns} ${_v} -mat_view REF_ARGS -f ${_ns} -mat_view)
  # ex258: symbolic, then MatProductReplaceMats of A by a copy, then numeric (no prefix).
  foreach(t atb:AtB ptap:PtAP abt:ABt)
    string(REPLACE ":" ";" t "${t}")
    list(GET t 0 opt)
    list(GET t 1 type)
    _pcluster_alg(_a ${type} ${alg})
    pcluster_petsc_run(NAME ex258.${opt}.${alg} EXE stock_ex258 EXPECTED ${_out}/ex258_1.out LABEL products
      ARGS ${_load} -conjugate false -${opt} -mat_product_algorithm ${_a})
    # ex258.<type>.view: -product_view prints the product as a dense one (PETSc's) and an AIJ one
    # (ours); as ex258.view (stock.cmake), for the cluster and the rowwise kernel only.
    if(alg STREQUAL "cluster" OR alg STREQUAL "rowwise")
      pcluster_petsc_run(NAME ex258.${opt}.view.${alg} EXE stock_ex258 LABEL products REQUIRE_COUNT "1:type: seqaij"
        ARGS ${_load} -conjugate false -${opt} -mat_product_algorithm ${_a} -product_view
        REF_ARGS -conjugate false -${opt} -product_view)
    endif()
  endforeach()

  # Our code ran for every type: through its user-API flag (ex94 has all six on seqaij), through
  # the prefixed developer-API option (ex62) and without prefix (ex111: ABC, ex258: PtAP).
  foreach(type IN LISTS _types)
    _pcluster_engaged(NAME via.${type}.${alg} EXE stock_ex94 TYPE ${type} ALG ${alg}
      ARGS ${_load} -f0 ${_spd} -f1 ${_spd} -viewer_binary_skip_info ${_via_${type}} ${alg})
  endforeach()
  foreach(type AtB PtAP RARt)
    _pcluster_engaged(NAME prefixed.${type}.${alg} EXE stock_ex62 TYPE ${type} ALG ${alg}
      ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -${type}_mat_product_algorithm ${alg})
  endforeach()
  _pcluster_engaged(NAME mat_product_algorithm.ABC.${alg} EXE stock_ex111 TYPE ABC ALG ${alg}
    ARGS ${_load} -mat_product_algorithm ${alg})
  _pcluster_engaged(NAME mat_product_algorithm.PtAP.${alg} EXE stock_ex258 TYPE PtAP ALG ${alg}
    ARGS ${_load} -conjugate false -ptap -mat_product_algorithm ${alg})
endforeach()

# The same stock programs on 2 and 3 ranks (MPIAIJ), as PETSc's harness runs ex93 and ex111 with
# nsize 2 (expected outputs ex93_1.out, ex111_2.out); ex62 on the three data files, all types but
# A*B^T, which ex62 computes on seqaij only (PETSc 3.22 reports its option as unused).
foreach(alg IN LISTS PCLUSTER_TEST_ALGORITHMS)
  _pcluster_via(_v ${alg} AB AtB PtAP RARt)
  _pcluster_prefixed(_p ${alg} AB AtB PtAP RARt)
  foreach(np 2 3)
    set(_mpi NP ${np} ENV OMP_NUM_THREADS=1 LABEL products)
    foreach(f tiny spd ns)
      pcluster_petsc_run(NAME mpi.ex62.${f}.all_types.${alg}.np${np} EXE stock_ex62 EXPECTED ${_out}/ex62_1.out ${_mpi}
        ARGS ${_load} -fA ${_${f}} -fB ${_${f}} ${_p} ${_v})
    endforeach()
    _pcluster_via(_v93 ${alg} AB PtAP)
    pcluster_petsc_run(NAME mpi.ex93.${alg}.np${np} EXE stock_ex93 EXPECTED ${_out}/ex93_1.out ${_mpi} ARGS ${_load} ${_v93})
    _pcluster_alg(_a ABC ${alg})
    _pcluster_via(_v111 ${alg} ABC PtAP)
    pcluster_petsc_run(NAME mpi.ex111.${alg}.np${np} EXE stock_ex111 EXPECTED ${_out}/ex111_2.out ${_mpi}
      ARGS ${_load} -mat_product_algorithm ${_a} ${_v111})
  endforeach()
  foreach(type AB AtB PtAP RARt)
    _pcluster_engaged(NAME mpi.prefixed.${type}.${alg} EXE stock_ex62 TYPE ${type} ALG ${alg} NP 2
      ARGS ${_load} -fA ${_tiny} -fB ${_tiny} -${type}_mat_product_algorithm ${alg})
  endforeach()
  # (No stock program runs A*B^T on MPIAIJ: ex62 and ex94 do it on seqaij only; mpi.products.* do.)
  _pcluster_engaged(NAME mpi.ABC.${alg} EXE stock_ex111 TYPE ABC ALG ${alg} NP 3 ARGS ${_load} -mat_product_algorithm ${alg})
endforeach()
