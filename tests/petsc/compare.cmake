# examples/compare_products on the shared real matrices: every algorithm of ours against PETSc's
# default, pattern and values, and again after the values change (numeric reuse). The folder is
# ../shared/matrices next to the repository; the tests are skipped (exit code 77) without it. They
# run through run_compare.cmake (pcluster_petsc_run): a PETSc error in main also exits with 77
# (PETSC_ERR_PLIB), which ctest's SKIP_RETURN_CODE alone would report as a skip; the script counts 77
# as a skip only without a PETSc error, and requires the program's PASSED line otherwise.
# Labels: petsc, compare.
if(TARGET compare_products)
  set(_passed "PASSED: all [0-9]+ algorithms equal PETSc's default")
  # A spread of structures, each 1-5 s for all five names (about 40 s in all; as-caida, whose
  # hubs make A*A 27M nonzeros, would take 40 s alone and is left out):
  # FEM / mesh, circuit, economics (dense-ish rows), power-law graphs, a pattern-only file,
  # a symmetric file (one triangle stored), and the rectangular Franz6 as A^T*A and A*A^T.
  set(_cases
    "bcsstk13|"            # structural FEM, real symmetric
    "fe_4elt2|"            # 2D FEM mesh graph, pattern symmetric
    "adder_dcop_05|"       # circuit, real general
    "rajat01|"             # circuit, pattern general
    "mbeacxc|"             # economics, dense rows, trailing empty rows/cols
    "zenios|"              # optimisation, real symmetric
    "cryg2500|"            # crystal growth, real general
    "ca-GrQc|"             # collaboration graph, power-law
    "bio-dmela|"           # protein network, power-law
    "hep-th|"              # weighted collaboration graph
    "dnn-n1024-l1|"        # DNN layer
    "luxembourg_osm|"      # road network, very sparse, 114k rows
    "delaunay_n16|"        # 2D Delaunay mesh, 65k rows
    "bayer10|"             # chemical process, real general
    "memplus|"             # circuit, dense rows and columns
    "wiki-Vote|"           # directed power-law graph, many empty rows
    "web-spam|"            # web graph, hubs
    "PGPgiantcompo|"       # trust network
    "Franz6_id1959_aug|ata"
    "Franz6_id1959_aug|aat"
    "dnn-sparse-images-1024_subset|ata"  # rectangular 1200x1024
  )
  foreach(c IN LISTS _cases)
    string(REPLACE "|" ";" c "${c}")
    list(GET c 0 name)
    list(LENGTH c n)
    set(pairing "")
    if(n GREATER 1)
      list(GET c 1 pairing)
    endif()
    set(_args -f "${_shared}/${name}.mtx" -skip_if_missing)
    set(_tn compare.${name})
    if(pairing)
      list(APPEND _args -pairing ${pairing})
      set(_tn compare.${name}.${pairing})
    endif()
    set(_neg "")
    if(_tn STREQUAL "compare.cryg2500")
      set(_neg NEGATIVE mat) # the negative controls of this layer (tests/negative)
    endif()
    pcluster_petsc_run(NAME ${_tn} EXE compare_products LABEL compare SKIP_RETURN_CODE 77 REQUIRE_REGEX "${_passed}" ${_neg} ARGS ${_args})
    set_tests_properties(petsc.${_tn} PROPERTIES TIMEOUT 600)
  endforeach()
  # Parameter edges on real matrices (the options apply to our product, which has no prefix).
  foreach(c IN ITEMS "bcsstk13|-mat_cluster_size|1" "bcsstk13|-mat_cluster_size|64"
                     "ca-GrQc|-mat_cluster_jaccard_threshold|0" "ca-GrQc|-mat_cluster_jaccard_threshold|1"
                     "rajat01|-mat_cluster_topk|1" "memplus|-mat_cluster_accumulator|hash"
                     "memplus|-mat_cluster_accumulator|dense" "bio-dmela|-mat_cluster_threads|1")
    string(REPLACE "|" ";" c "${c}")
    list(GET c 0 name)
    list(GET c 1 opt)
    list(GET c 2 val)
    string(REGEX REPLACE "^-mat_cluster_" "" short "${opt}")
    pcluster_petsc_run(NAME compare.${name}.${short}_${val} EXE compare_products LABEL compare SKIP_RETURN_CODE 77
      REQUIRE_REGEX "${_passed}" ARGS -f "${_shared}/${name}.mtx" -skip_if_missing ${opt} ${val})
    set_tests_properties(petsc.compare.${name}.${short}_${val} PROPERTIES TIMEOUT 600)
  endforeach()
  # Every ordering inside the products: the same pattern and values as PETSc's default, square and
  # rectangular (the rectangular matrix's rows are ordered by the graph of rows sharing a column).
  foreach(ord random rcm amd nd gp hp gray rabbit degree slashburn)
    foreach(c IN ITEMS "bcsstk13|aa" "Franz6_id1959_aug|aat")
      string(REPLACE "|" ";" c "${c}")
      list(GET c 0 name)
      list(GET c 1 pairing)
      pcluster_petsc_run(NAME compare.reorder_${ord}.${name} EXE compare_products LABEL compare SKIP_RETURN_CODE 77
        REQUIRE_REGEX "${_passed}" ARGS -f "${_shared}/${name}.mtx" -pairing ${pairing} -skip_if_missing -mat_cluster_reorder ${ord})
      set_tests_properties(petsc.compare.reorder_${ord}.${name} PROPERTIES TIMEOUT 600)
    endforeach()
  endforeach()
endif()
