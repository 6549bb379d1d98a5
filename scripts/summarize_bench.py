#!/usr/bin/env python3
"""Summarises spgemm_bench JSON: per matrix, PETSc's fastest built-in one-shot and reuse, and each of
our algorithms' ratio to it (> 1 is faster), with geometric means over the matrices.
Usage: scripts/summarize_bench.py run.json [more.json ...]"""
import json
import math
import sys

OURS = ["rowwise", "cluster", "cluster_fixed", "cluster_variable", "cluster_hierarchical"]


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


for path in sys.argv[1:]:
    run = json.load(open(path))
    print(f"# {path}: threads {run.get('threads')}, best of {run.get('reps')}, api {run.get('api')}")
    ours = [a for a in OURS if any(x["name"] == a for m in run["matrices"] for x in m["algorithms"])]
    head = f"{'matrix':<26}{'PETSc best 1-shot':>22}{'best reuse':>18}" + "".join(f"{a:>22}" for a in ours)
    print(head)
    ratios = {a: ([], []) for a in ours}
    for m in run["matrices"]:
        algs = {x["name"]: x for x in m["algorithms"]}
        petsc = [x for x in m["algorithms"] if x["kind"] == "petsc" and x["status"] == "ok"]
        best = min(petsc, key=lambda x: x["oneshot_s"])
        best_reuse = min((x for x in petsc if x["name"] != "hypre"), key=lambda x: x["reuse_s"])
        row = f"{m['name']:<26}{best['oneshot_s']:>12.3f} {best['name']:<9}{best_reuse['reuse_s']:>9.3f} {best_reuse['name']:<8}"
        for a in ours:
            x = algs.get(a)
            if not x or x["status"] != "ok":
                row += f"{'-':>22}"
                continue
            r1, rr = best["oneshot_s"] / x["oneshot_s"], best_reuse["reuse_s"] / x["reuse_s"]
            ratios[a][0].append(r1)
            ratios[a][1].append(rr)
            row += f"{r1:>11.2f}x /{rr:>6.2f}x  "
        print(row)
    print(f"{'geomean (1-shot / reuse)':<66}" + "".join(f"{geomean(ratios[a][0]):>11.2f}x /{geomean(ratios[a][1]):>6.2f}x  " for a in ours))
    print()
