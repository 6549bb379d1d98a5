#!/usr/bin/env bash
# Builds the libFuzzer targets (fuzz/; clang, ASan + UBSan, the core without PETSc, in build-fuzz/)
# and runs each for a bounded time on a copy of its committed corpus (fuzz/corpus/<target>/).
# Usage: scripts/fuzz.sh [seconds-per-target]   (default 60, as CI runs it; scripts/fuzz.sh 3600 for an hour each)
# New inputs that reach new code go to build-fuzz/work/<target>/corpus/, a failing input to
# build-fuzz/work/<target>/crash-* (fuzz/README.md: reproducing, adding inputs to the corpus).
# Exits non-zero if any target fails.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
scripts/setup.sh --packages

echo "== configuring and building the fuzzers (build-fuzz/)"
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPCLUSTER_BUILD_FUZZERS=ON
cmake --build build-fuzz -j"$(nproc)"

# Threads that spin while idle would take the cores from the fuzzer (fuzz_spgemm runs up to 4).
export OMP_WAIT_POLICY=passive
passed=0 failed=0
for target in fuzz_spgemm fuzz_matrix_market; do
  work=build-fuzz/work/$target
  rm -rf "$work"
  mkdir -p "$work/corpus"
  cp fuzz/corpus/$target/* "$work/corpus/"
  dict=()
  [ -f fuzz/$target.dict ] && dict=(-dict=fuzz/$target.dict)
  echo "== $target: ${seconds} s on $(ls "$work/corpus" | wc -l) corpus inputs"
  rc=0
  build-fuzz/fuzz/$target "$work/corpus" "${dict[@]}" -max_total_time="$seconds" -timeout=60 \
    -artifact_prefix="$work/" -print_final_stats=1 > "$work/log" 2>&1 || rc=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
  if [ "$rc" -eq 0 ]; then
    passed=$((passed + 1))
    echo "$target: ${runs:-?} executions, no failure; corpus now $(ls "$work/corpus" | wc -l) inputs"
  else
    failed=$((failed + 1))
    tail -n 60 "$work/log"
    echo "$target: FAILED (exit $rc) after ${runs:-?} executions; input: $(ls "$work"/crash-* "$work"/timeout-* "$work"/oom-* "$work"/leak-* 2>/dev/null | tr '\n' ' ')"
  fi
done
echo "fuzz: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
