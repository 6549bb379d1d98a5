#!/usr/bin/env python3
"""Summarises spgemm_bench JSON: per matrix, PETSc's fastest built-in one-shot and reuse, and each of
our algorithms' ratio to it (> 1 is faster), with geometric means over the matrices.
A PtAP run (spgemm_bench -product ptap) gets four tables, one-shot and reuse of each of ours against
PETSc's fastest built-in (scalable, rap, hypre; reuse: the fastest reuse of any of them) and against
PETSc's default `scalable`.
With --memory: instead, each algorithm's peak memory (spgemm_bench's peak MB: the resident memory an
extra, untimed one-shot adds at its peak) per matrix, and each of ours as a ratio to PETSc's default
and to PETSc's leanest built-in (< 1: ours takes less), with geometric means.
Usage: scripts/summarize_bench.py [--memory] run.json [more.json ...]"""
import json
import math
import sys

OURS = ["rowwise", "cluster", "cluster_fixed", "cluster_variable", "cluster_hierarchical"]


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def summarize_ab(run, ours):
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


def summarize_ptap(run, ours):
    # Anchors per matrix: PETSc's fastest one-shot and reuse (any built-in, hypre included) and its default.
    anchors = []
    print(f"{'matrix':<26}{'P rows x cols, nnz':>30}{'best 1-shot':>21}{'scalable':>11}{'best reuse':>21}{'scalable':>11}  [s]")
    for m in run["matrices"]:
        petsc = [x for x in m["algorithms"] if x["kind"] == "petsc" and x["status"] == "ok"]
        dflt = next((x for x in petsc if x["name"] == m.get("default", "scalable")), None)
        best = min(petsc, key=lambda x: x["oneshot_s"]) if petsc else None
        best_reuse = min(petsc, key=lambda x: x["reuse_s"]) if petsc else None
        anchors.append((m, best, best_reuse, dflt))
        p = m.get("prolongator", {})
        ps = f"{p.get('rows', '?')} x {p.get('cols', '?')}, {p.get('nnz', '?')}"
        fmt = lambda x, key: f"{x[key]:>11.4g} {x['name']:<9}" if x else f"{'-':>11} {'':<9}"
        print(f"{m['name']:<26}{ps:>30}{fmt(best, 'oneshot_s')}{dflt['oneshot_s'] if dflt else float('nan'):>11.4g}"
              f"{fmt(best_reuse, 'reuse_s')}{dflt['reuse_s'] if dflt else float('nan'):>11.4g}")
    tables = [("one-shot vs PETSc's fastest built-in", "oneshot_s", 1), ("one-shot vs PETSc's default (scalable)", "oneshot_s", 3),
              ("reuse vs PETSc's fastest built-in reuse", "reuse_s", 2), ("reuse vs PETSc's default (scalable)", "reuse_s", 3)]
    for title, key, anchor in tables:
        print(f"\n{title} (> 1: ours faster)")
        print(f"{'matrix':<26}" + "".join(f"{a:>22}" for a in ours))
        ratios = {a: [] for a in ours}
        for entry in anchors:
            m, ref = entry[0], entry[anchor]
            algs = {x["name"]: x for x in m["algorithms"]}
            row = f"{m['name']:<26}"
            for a in ours:
                x = algs.get(a)
                if not ref or not x or x["status"] != "ok":
                    row += f"{'-' if not x else x['status']:>22}"
                    continue
                r = ref[key] / x[key]
                ratios[a].append(r)
                row += f"{r:>21.2f}x"
            print(row)
        print(f"{'geomean':<26}" + "".join(f"{geomean(ratios[a]):>21.2f}x" if ratios[a] else f"{'-':>22}" for a in ours))


def summarize_memory(run, ours):
    names = []  # every algorithm in the run, in its order
    for m in run["matrices"]:
        names += [x["name"] for x in m["algorithms"] if x["name"] not in names]
    others = [a for a in names if a not in ours]
    print("peak MB (C: its CSR arrays alone, 12 bytes a nonzero and 4 a row: 32-bit indices, doubles):")
    print(f"{'matrix':<28}{'C':>8}" + "".join(f"{a[:12]:>13}" for a in names))
    ratios = {a: ([], []) for a in ours}
    lines = []
    for m in run["matrices"]:
        algs = {x["name"]: x for x in m["algorithms"]}
        peak = lambda a: algs[a].get("peak_mb") if a in algs and algs[a]["status"] == "ok" else None
        rows_c = m["prolongator"]["cols"] if "prolongator" in m else m["rows"]
        c_mb = (12 * m["nnz_c"] + 4 * (rows_c + 1)) / 2**20
        print(f"{m['name']:<28}{c_mb:>8.1f}" + "".join(f"{peak(a):>13.1f}" if peak(a) is not None else f"{'-':>13}" for a in names))
        builtin = [(peak(x["name"]), x["name"]) for x in m["algorithms"] if x["kind"] == "petsc" and peak(x["name"]) is not None]
        dflt = peak(m.get("default", "sorted"))
        lean = min(builtin) if builtin else (None, "-")
        row = f"{m['name']:<28}{dflt if dflt is not None else float('nan'):>10.1f}{lean[0] if lean[0] is not None else float('nan'):>10.1f} {lean[1]:<14}"
        for a in ours:
            if peak(a) is None or not dflt or not lean[0]:
                row += f"{'-':>24}"
                continue
            r1, r2 = peak(a) / dflt, peak(a) / lean[0]
            ratios[a][0].append(r1)
            ratios[a][1].append(r2)
            row += f"{r1:>13.2f} /{r2:>6.2f}  "
        lines.append(row)
    print(f"\nours / PETSc's default, ours / PETSc's leanest built-in (peak MB; < 1: ours takes less)")
    print(f"{'matrix':<28}{'default':>10}{'leanest':>10} {'':<14}" + "".join(f"{a:>24}" for a in ours))
    print("\n".join(lines))
    print(f"{'geomean':<63}" + "".join(f"{geomean(ratios[a][0]):>13.2f} /{geomean(ratios[a][1]):>6.2f}  " for a in ours))


memory = "--memory" in sys.argv[1:]
for path in [a for a in sys.argv[1:] if a != "--memory"]:
    run = json.load(open(path))
    if run.get("study") == "orderings":
        sys.exit(f"{path}: an ordering study (ordering_study) prints its own summary; chart it with scripts/plot_orderings.py")
    ptap = run.get("product_type") == "ptap"
    what = ", C = P^T A P (PCGAMG's prolongator)" if ptap else ""
    print(f"# {path}{what}: threads {run.get('threads')}, best of {run.get('reps')}, api {run.get('api')}")
    ours = [a for a in OURS if any(x["name"] == a for m in run["matrices"] for x in m["algorithms"])]
    if memory:
        summarize_memory(run, ours)
    elif ptap:
        summarize_ptap(run, ours)
    else:
        summarize_ab(run, ours)
    print()
