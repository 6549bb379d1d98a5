# The plugin under valgrind's memcheck (label valgrind), in the normal build only (valgrind cannot
# run ASan-instrumented programs; the sanitizer build covers everything else). An invalid access, a
# use of uninitialised values or a definitely lost block fails the test (--error-exitcode); Open
# MPI's suppression file and tests/sanitizers/valgrind.supp hide third-party reports. Stock programs
# with our algorithms: every SeqAIJ product type (ex62, ex94), in-product reordering, MPIAIJ on 2
# ranks (each rank under valgrind), PCGAMG set-up with reuse (KSP ex56), and hypre's BoomerAMG with
# -pc_hypre_boomeramg_rap_via (KSP ex45, 1 and 2 ranks).
# Labels: petsc, valgrind (on 2 ranks: mpi).
find_program(PCLUSTER_VALGRIND valgrind)
if(PCLUSTER_VALGRIND AND NOT PCLUSTER_SANITIZE AND _have_stock)
  set(_vg ${PCLUSTER_VALGRIND} -q --error-exitcode=99 --leak-check=full --show-leak-kinds=definite
      --errors-for-leak-kinds=definite --keep-debuginfo=yes --num-callers=40
      --suppressions=${PROJECT_SOURCE_DIR}/tests/sanitizers/valgrind.supp)
  if(EXISTS /usr/share/openmpi/openmpi-valgrind.supp)
    list(APPEND _vg --suppressions=/usr/share/openmpi/openmpi-valgrind.supp)
  endif()
  _pcluster_via(_v cluster AB AtB ABt PtAP RARt)
  _pcluster_prefixed(_p cluster AB AtB PtAP RARt)
  pcluster_petsc_run(NAME valgrind.ex62.spd.all_types.cluster EXE stock_ex62 EXPECTED ${_out}/ex62_1.out LABEL valgrind
    WRAP ${_vg} ARGS ${_load} -fA ${_spd} -fB ${_spd} ${_p} ${_v})
  _pcluster_via(_v cluster_hierarchical ${_types})
  pcluster_petsc_run(NAME valgrind.ex94.spd.cluster_hierarchical EXE stock_ex94 EXPECTED ${_out}/ex94_1.out LABEL valgrind
    WRAP ${_vg} ARGS ${_load} -f0 ${_spd} -f1 ${_spd} -viewer_binary_skip_info ${_v})
  _pcluster_via(_v rowwise AB AtB ABt PtAP RARt)
  pcluster_petsc_run(NAME valgrind.ex62.ns.rowwise.reorder_rcm EXE stock_ex62 EXPECTED ${_out}/ex62_1.out LABEL valgrind
    WRAP ${_vg} ARGS ${_load} -fA ${_ns} -fB ${_ns} ${_v} -mat_cluster_reorder rcm)
  _pcluster_via(_v cluster AB AtB PtAP RARt) # no A*B^T on mpiaij in ex62 (products.cmake)
  pcluster_petsc_run(NAME valgrind.mpi.ex62.spd.all_types.cluster.np2 EXE stock_ex62 EXPECTED ${_out}/ex62_1.out
    NP 2 ENV OMP_NUM_THREADS=1 LABEL valgrind WRAP ${_vg} ARGS ${_load} -fA ${_spd} -fB ${_spd} ${_p} ${_v})
  _pcluster_via(_v cluster PtAP AB)
  pcluster_petsc_run(NAME valgrind.ksp_ex56_nns.cluster EXE stock_ksp_ex56 LABEL valgrind
    WRAP ${_vg} ARGS ${_load} ${_v} ${_ex56_nns} REF_ARGS ${_ex56_nns})
  set(_vg_tests petsc.valgrind.ex62.spd.all_types.cluster petsc.valgrind.ex94.spd.cluster_hierarchical
    petsc.valgrind.ex62.ns.rowwise.reorder_rcm petsc.valgrind.mpi.ex62.spd.all_types.cluster.np2
    petsc.valgrind.ksp_ex56_nns.cluster)
  if(PCLUSTER_HYPRE_INCLUDE_DIRS) # one BoomerAMG solve with its coarse operators ours (hypre_rap.cxx), on 1 and 2 ranks
    set(_hypre_vg -pc_type hypre -pc_hypre_type boomeramg -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -ksp_monitor_short)
    pcluster_petsc_run(NAME valgrind.hypre.ksp_ex45.rowwise EXE stock_ksp_ex45 LABEL valgrind
      WRAP ${_vg} ARGS ${_load} -pc_hypre_boomeramg_rap_via rowwise ${_hypre_vg} REF_ARGS ${_hypre_vg})
    pcluster_petsc_run(NAME valgrind.mpi.hypre.ksp_ex45.cluster.np2 EXE stock_ksp_ex45 NP 2 ENV OMP_NUM_THREADS=1 LABEL valgrind
      WRAP ${_vg} ARGS ${_load} -pc_hypre_boomeramg_rap_via cluster -pc_type hypre -da_grid_x 9 -da_grid_y 9 -da_grid_z 9 -ksp_converged_reason)
    list(APPEND _vg_tests petsc.valgrind.hypre.ksp_ex45.rowwise petsc.valgrind.mpi.hypre.ksp_ex45.cluster.np2)
  endif()
  set_tests_properties(${_vg_tests} PROPERTIES TIMEOUT 900)
endif()
