# Multigrid tutorials with our product algorithms: PCGAMG (KSP ex56, 3D elasticity; ex45, 3D
# Poisson; ex4, 2D Poisson), PCMG with Galerkin coarse operators (KSP ex45, SNES ex5) and PCHMG
# with hypre inside (KSP ex4), selected with -matptap_via/-matmatmult_via. Each run with our names
# is compared with the same program run stock (REF_ARGS: no plugin, no flags), so the iteration
# counts and the residual histories of -ksp_monitor_short / -snes_monitor_short must agree to the
# printed digits; also on 2 and 4 ranks (MATMPIAIJ), and with in-product reordering.
# PCLUSTER_TEST_AMG_ALGORITHMS names the algorithms run on every tutorial; the other names run once.
# Labels: petsc, amg (engaged.*: engaged; under mpiexec: mpi).
if(NOT _have_stock)
  return()
endif()

set(_gamg_algs ${PCLUSTER_TEST_AMG_ALGORITHMS})
set(_other_algs ${PCLUSTER_TEST_ALGORITHMS})
list(REMOVE_ITEM _other_algs ${PCLUSTER_TEST_AMG_ALGORITHMS})
set(_ex45_gamg -da_grid_x 21 -da_grid_y 21 -da_grid_z 21 -pc_type gamg -ksp_monitor_short -ksp_converged_reason)
set(_ex45_mg -da_grid_x 17 -da_grid_y 17 -da_grid_z 17 -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin pmat
    -ksp_monitor_short -ksp_converged_reason)
set(_snes_ex5_mg -da_refine 2 -pc_type mg -pc_mg_levels 3 -pc_mg_galerkin pmat -snes_monitor_short
    -ksp_monitor_short -snes_converged_reason)
set(_ex4_gamg -m 40 -n 40 -ksp_monitor_short -pc_type gamg -ksp_rtol 1e-8)
set(_ex4_hmg -m 20 -n 20 -ksp_monitor_short -pc_type hmg -ksp_rtol 1e-6 -hmg_inner_pc_type hypre)
foreach(alg IN LISTS PCLUSTER_TEST_ALGORITHMS)
  _pcluster_via(_ptap ${alg} PtAP)
  _pcluster_via(_ptap_ab ${alg} PtAP AB)
  list(FIND _gamg_algs ${alg} _i)
  if(_i LESS 0)
    # The other names once: GAMG on elasticity (bs 3) with reuse, every Galerkin product ours.
    pcluster_petsc_run(NAME amg.ksp_ex56_nns.${alg} EXE stock_ksp_ex56 LABEL amg
      ARGS ${_load} ${_ptap_ab} ${_ex56_nns} REF_ARGS ${_ex56_nns})
    continue()
  endif()
  # PCGAMG, 3D elasticity: coarse operators (MatPtAP), prolongator smoothing and MIS-k
  # aggressive coarsening (MatMatMult, MatPtAP); -two_solves with -pc_gamg_reuse_interpolation
  # re-runs the Galerkin products with MAT_REUSE_MATRIX (numeric only).
  pcluster_petsc_run(NAME amg.ksp_ex56_nns.${alg} EXE stock_ksp_ex56 LABEL amg
    ARGS ${_load} ${_ptap_ab} ${_ex56_nns} REF_ARGS ${_ex56_nns})
  # The negative controls of the multigrid tutorials (tests/negative), for one algorithm: a wrong
  # pattern can also stop the set-up at PETSc's own structure checks (a coarse operator then takes
  # an entry that is not in it). SNES ex5's history does not see an explicit zero (no `zero` there).
  set(_neg "")
  set(_neg_snes "")
  if(alg STREQUAL "cluster")
    set(_neg NEGATIVE hist NEGATIVE_ALSO "caused a malloc|Inserting a new nonzero")
    set(_neg_snes NEGATIVE hist NEGATIVE_FAULTS perturb drop nan swap stale NEGATIVE_ALSO "caused a malloc|Inserting a new nonzero")
  endif()
  pcluster_petsc_run(NAME amg.ksp_ex56_2.${alg} EXE stock_ksp_ex56 LABEL amg ${_neg}
    ARGS ${_load} ${_ptap_ab} ${_ex56_2} REF_ARGS ${_ex56_2})
  pcluster_petsc_run(NAME amg.ksp_ex56_nns.aggressive2.${alg} EXE stock_ksp_ex56 LABEL amg
    ARGS ${_load} ${_ptap_ab} ${_ex56_nns} -pc_gamg_aggressive_coarsening 2
    REF_ARGS ${_ex56_nns} -pc_gamg_aggressive_coarsening 2)
  # PCGAMG on a 3D Poisson problem (DMDA).
  pcluster_petsc_run(NAME amg.ksp_ex45_gamg.${alg} EXE stock_ksp_ex45 LABEL amg
    ARGS ${_load} ${_ptap_ab} ${_ex45_gamg} REF_ARGS ${_ex45_gamg})
  # PCGAMG on a 2D Poisson problem (5-point Laplacian).
  pcluster_petsc_run(NAME amg.ksp_ex4_gamg.${alg} EXE stock_ksp_ex4 LABEL amg
    ARGS ${_load} ${_ptap_ab} ${_ex4_gamg} REF_ARGS ${_ex4_gamg})
  # PCMG with Galerkin coarse operators on DMDA interpolation (MatGalerkin -> MatPtAP).
  pcluster_petsc_run(NAME amg.ksp_ex45_mg.${alg} EXE stock_ksp_ex45 LABEL amg
    ARGS ${_load} ${_ptap} ${_ex45_mg} REF_ARGS ${_ex45_mg})
  # SNES: PCMG Galerkin operators recomputed every Newton step with MAT_REUSE_MATRIX.
  pcluster_petsc_run(NAME amg.snes_ex5_mg.${alg} EXE stock_snes_ex5 LABEL amg ${_neg_snes}
    ARGS ${_load} ${_ptap} ${_snes_ex5_mg} REF_ARGS ${_snes_ex5_mg})
  # ... and the reuse is numeric only: symbolic ran fewer times than numeric (PETSc's events, and
  # ours unless in the harness check).
  set(_less "MatPtAPSymbolic<MatPtAPNumeric")
  if(NOT PCLUSTER_TEST_PETSC_NAMES)
    set(_less "${_less},MatClusterSym<MatClusterNum")
  endif()
  pcluster_petsc_run(NAME amg.snes_ex5_mg.reuse_numeric_only.${alg} EXE stock_snes_ex5 LABEL amg
    LOG_LESS "${_less}" ARGS ${_load} ${_ptap} ${_snes_ex5_mg} -log_view)
  # PCHMG with hypre inside: Galerkin coarse operators forced on (-pc_mg_galerkin pmat); with
  # reused interpolation over four solves (same values, then a changed nonzero pattern, which
  # HMG answers with a fresh MAT_INITIAL_MATRIX setup); with subspace coarsening (bs 4), where P
  # is MAIJ (PETSc's seqaij x seqmaij kernel, ours not involved; from 3.22 it does not read
  # -matptap_via, hence -options_left no) or, with -pc_hmg_use_matmaij 0, AIJ (ours).
  foreach(v "galerkin|-pc_mg_galerkin|pmat"
            "reuse|-pc_hmg_reuse_interpolation|1|-test_reuse_interpolation|1"
            "reuse_galerkin|-pc_hmg_reuse_interpolation|1|-test_reuse_interpolation|1|-pc_mg_galerkin|pmat"
            "bs4_maij|-bs|4|-pc_hmg_use_subspace_coarsening|1|-options_left|no"
            "bs4_aij|-bs|4|-pc_hmg_use_subspace_coarsening|1|-pc_hmg_use_matmaij|0")
    string(REPLACE "|" ";" v "${v}")
    list(POP_FRONT v vname)
    pcluster_petsc_run(NAME amg.ksp_ex4_hmg_${vname}.${alg} EXE stock_ksp_ex4 LABEL amg
      ARGS ${_load} ${_ptap} ${_ex4_hmg} ${v} REF_ARGS ${_ex4_hmg} ${v})
  endforeach()
  # Our code ran inside each preconditioner.
  _pcluster_engaged(NAME gamg.PtAP.${alg} EXE stock_ksp_ex56 TYPE PtAP ALG ${alg}
    ARGS ${_load} ${_ptap_ab} ${_ex56_nns})
  _pcluster_engaged(NAME gamg.AB.${alg} EXE stock_ksp_ex56 TYPE AB ALG ${alg}
    ARGS ${_load} ${_ptap_ab} ${_ex56_nns})
  _pcluster_engaged(NAME mg.PtAP.${alg} EXE stock_ksp_ex45 TYPE PtAP ALG ${alg}
    ARGS ${_load} ${_ptap} ${_ex45_mg})
  _pcluster_engaged(NAME hmg.PtAP.${alg} EXE stock_ksp_ex4 TYPE PtAP ALG ${alg}
    ARGS ${_load} ${_ptap} ${_ex4_hmg} -pc_hmg_reuse_interpolation 1 -test_reuse_interpolation 1)
endforeach()
# The same on 2 and 4 ranks (MPIAIJ; KSP ex56 needs a cube number of ranks and is left out), each
# compared with the stock run on as many ranks: PCGAMG (3D and 2D Poisson), PCMG Galerkin (KSP
# ex45, SNES ex5 with numeric-only reuse every Newton step), PCHMG with hypre on 2 ranks.
foreach(alg IN LISTS PCLUSTER_TEST_AMG_ALGORITHMS)
  _pcluster_via(_ptap ${alg} PtAP)
  _pcluster_via(_ptap_ab ${alg} PtAP AB)
  foreach(np 2 4)
    set(_mpi NP ${np} ENV OMP_NUM_THREADS=1 LABEL amg)
    pcluster_petsc_run(NAME amg.mpi.ksp_ex45_gamg.${alg}.np${np} EXE stock_ksp_ex45 ${_mpi}
      ARGS ${_load} ${_ptap_ab} ${_ex45_gamg} REF_ARGS ${_ex45_gamg})
    pcluster_petsc_run(NAME amg.mpi.ksp_ex4_gamg.${alg}.np${np} EXE stock_ksp_ex4 ${_mpi}
      ARGS ${_load} ${_ptap_ab} ${_ex4_gamg} REF_ARGS ${_ex4_gamg})
    pcluster_petsc_run(NAME amg.mpi.ksp_ex45_mg.${alg}.np${np} EXE stock_ksp_ex45 ${_mpi}
      ARGS ${_load} ${_ptap} ${_ex45_mg} REF_ARGS ${_ex45_mg})
    pcluster_petsc_run(NAME amg.mpi.snes_ex5_mg.${alg}.np${np} EXE stock_snes_ex5 ${_mpi}
      ARGS ${_load} ${_ptap} ${_snes_ex5_mg} REF_ARGS ${_snes_ex5_mg})
  endforeach()
  set(_less "MatPtAPSymbolic<MatPtAPNumeric")
  if(NOT PCLUSTER_TEST_PETSC_NAMES)
    set(_less "${_less},MatClusterSym<MatClusterNum")
  endif()
  pcluster_petsc_run(NAME amg.mpi.snes_ex5_mg.reuse_numeric_only.${alg}.np2 EXE stock_snes_ex5 NP 2 ENV OMP_NUM_THREADS=1
    LABEL amg LOG_LESS "${_less}" ARGS ${_load} ${_ptap} ${_snes_ex5_mg} -log_view)
  foreach(v "galerkin|-pc_mg_galerkin|pmat"
            "reuse_galerkin|-pc_hmg_reuse_interpolation|1|-test_reuse_interpolation|1|-pc_mg_galerkin|pmat"
            "bs4_aij|-bs|4|-pc_hmg_use_subspace_coarsening|1|-pc_hmg_use_matmaij|0")
    string(REPLACE "|" ";" v "${v}")
    list(POP_FRONT v vname)
    pcluster_petsc_run(NAME amg.mpi.ksp_ex4_hmg_${vname}.${alg}.np2 EXE stock_ksp_ex4 NP 2 ENV OMP_NUM_THREADS=1 LABEL amg
      ARGS ${_load} ${_ptap} ${_ex4_hmg} ${v} REF_ARGS ${_ex4_hmg} ${v})
  endforeach()
  _pcluster_engaged(NAME mpi.gamg.PtAP.${alg} EXE stock_ksp_ex45 TYPE PtAP ALG ${alg} NP 2 ARGS ${_load} ${_ptap_ab} ${_ex45_gamg})
  _pcluster_engaged(NAME mpi.gamg.AB.${alg} EXE stock_ksp_ex45 TYPE AB ALG ${alg} NP 2 ARGS ${_load} ${_ptap_ab} ${_ex45_gamg})
  _pcluster_engaged(NAME mpi.mg.PtAP.${alg} EXE stock_snes_ex5 TYPE PtAP ALG ${alg} NP 4 ARGS ${_load} ${_ptap} ${_snes_ex5_mg})
  _pcluster_engaged(NAME mpi.hmg.PtAP.${alg} EXE stock_ksp_ex4 TYPE PtAP ALG ${alg} NP 2 ARGS ${_load} ${_ptap} ${_ex4_hmg} -pc_mg_galerkin pmat)
endforeach()
# In-product reordering inside AMG set-up (every PtAP and AB step on permuted copies, A's ordering
# kept on A for the reused-interpolation re-setup): the same iterations and residuals as stock.
foreach(ord rcm gp)
  _pcluster_via(_ptap_ab cluster PtAP AB)
  pcluster_petsc_run(NAME amg.ksp_ex56_2.reorder_${ord} EXE stock_ksp_ex56 LABEL amg
    ARGS ${_load} ${_ptap_ab} -mat_cluster_reorder ${ord} ${_ex56_2} REF_ARGS ${_ex56_2})
  _pcluster_via(_ptap rowwise PtAP)
  pcluster_petsc_run(NAME amg.ksp_ex45_mg.reorder_${ord} EXE stock_ksp_ex45 LABEL amg
    ARGS ${_load} ${_ptap} -mat_cluster_reorder ${ord} ${_ex45_mg} REF_ARGS ${_ex45_mg})
endforeach()
