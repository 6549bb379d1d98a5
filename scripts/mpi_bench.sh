#!/usr/bin/env bash
# Runs the MPIAIJ comparison (build/examples/mpi_bench: C = A*A and C = P^T A P with PETSc's MPI
# algorithms and ours, one-shot, reuse, peak memory, checked) on several ranks x threads
# configurations, then prints a summary of the one-shot and reuse times per configuration, from which
# strong scaling (1 -> 2 ranks) and 2 threads in one rank vs 2 ranks of one thread can be read off.
# Extra arguments go to mpi_bench (e.g. -gen s27 -n 50, -gen e27 -n 24, -product ptap, -reps 5,
# -algs rowwise,cluster_variable; build/examples/mpi_bench -help lists all).
# Environment:
#   CONFIGS  "RANKSxTHREADS ..." (default "2x1 1x1 1x2": the main comparison first)
#   OUT      directory for the logs (default: a new temporary directory)
#   BUILD    a configured build directory (default build, made by scripts/setup.sh if missing)
# Exit code: nonzero if any run failed (a check failure included); every configuration still runs.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${BUILD:-build}
if [ -f "$build/CMakeCache.txt" ]; then cmake --build "$build" --target mpi_bench
elif [ "$build" = build ]; then scripts/setup.sh
else echo "mpi_bench.sh: $build is not a configured build directory" >&2; exit 1; fi

# Open MPI refuses to run as root without these
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
configs=(${CONFIGS:-2x1 1x1 1x2})
out=${OUT:-$(mktemp -d)}
mkdir -p "$out"
status=0
for c in "${configs[@]}"; do
  ranks=${c%x*} threads=${c#*x}
  opts=(-n "$ranks" -x OMP_NUM_THREADS="$threads")
  # Open MPI binds each rank to a core by default: a rank's threads would share it
  [ "$threads" -gt 1 ] && opts+=(--bind-to none)
  [ "$ranks" -gt 2 ] && opts+=(--oversubscribe)
  echo "== $ranks rank(s) x $threads thread(s): mpiexec ${opts[*]} $build/examples/mpi_bench $*"
  OMP_NUM_THREADS=$threads mpiexec "${opts[@]}" "$build/examples/mpi_bench" "$@" 2>&1 | tee "$out/$c.log" || status=1
  echo
done

# One table per product: the times of each algorithm in each configuration, and the speed-up of each
# configuration over 1x1 (1 rank, 1 thread) when it was run.
echo "== summary (logs in $out): one-shot / reuse seconds (slowest rank, best of the repetitions)"
for c in "${configs[@]}"; do echo "$c $out/$c.log"; done | awk '
  { cfg[++ncfg] = $1; file[ncfg] = $2 }
  END {
    for (i = 1; i <= ncfg; ++i) {
      sec = ""
      while ((getline line < file[i]) > 0) {
        if (line ~ /^C = A\*A/) sec = "C = A*A"
        else if (line ~ /^C = P\^T A P/) sec = "C = P^T A P"
        split(line, f, " ")
        if (sec == "" || (f[2] != "PETSc" && f[2] != "ours")) continue
        if (!((sec, "seen") in have)) { have[sec, "seen"] = 1; secs[++nsec] = sec }
        if (!((sec, f[1]) in have)) { have[sec, f[1]] = 1; algs[sec, ++nalg[sec]] = f[1]; kind[sec, f[1]] = f[2] }
        t[sec, f[1], cfg[i]] = f[3]; r[sec, f[1], cfg[i]] = f[4]
      }
      close(file[i])
    }
    base = ""
    for (i = 1; i <= ncfg; ++i) if (cfg[i] == "1x1") base = "1x1"
    for (s = 1; s <= nsec; ++s) {
      sec = secs[s]
      printf "\n%s\n%-18s %-5s", sec, "algorithm", "kind"
      for (i = 1; i <= ncfg; ++i) printf " %21s", cfg[i] " one-shot/reuse"
      if (base != "") for (i = 1; i <= ncfg; ++i) if (cfg[i] != base) printf " %17s", "1x1/" cfg[i] " (o/r)"
      printf "\n"
      for (a = 1; a <= nalg[sec]; ++a) {
        alg = algs[sec, a]
        printf "%-18s %-5s", alg, kind[sec, alg]
        for (i = 1; i <= ncfg; ++i) {
          k = sec SUBSEP alg SUBSEP cfg[i]
          if (k in t) printf " %10.4f/%10.4f", t[k], r[k]; else printf " %21s", "-"
        }
        if (base != "") for (i = 1; i <= ncfg; ++i) {
          if (cfg[i] == base) continue
          k = sec SUBSEP alg SUBSEP cfg[i]; b = sec SUBSEP alg SUBSEP base
          if ((k in t) && (b in t) && t[k] > 0 && r[k] > 0) printf " %8.2f/%8.2f", t[b] / t[k], r[b] / r[k]; else printf " %17s", "-"
        }
        printf "\n"
      }
    }
  }'
exit $status
