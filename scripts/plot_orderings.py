#!/usr/bin/env python3
"""Plots the row-ordering study of examples/ordering_study (-json run.json) as a PNG: for each
ordering, one bar per algorithm with the geometric-mean speedup over the same algorithm at natural
order (bars), and each matrix's speedup (dots); one panel for one-shot (ordering included), one for
reuse (numeric only). Under each ordering, its median cost in SpGEMMs. cluster_hierarchical runs at
natural order only, so its bar (last group) is its speedup over rowwise at natural order instead.
Usage: scripts/plot_orderings.py run.json out.png"""
import json
import math
import sys

try:
    import matplotlib

    matplotlib.use("Agg")  # no display needed
    import matplotlib.pyplot as plt
    import matplotlib.ticker
except ImportError:
    sys.exit("plot_orderings.py: matplotlib is not installed (Debian: apt-get install python3-matplotlib; scripts/setup.sh installs it)")

HIER = "cluster_hierarchical"


def geomean(xs):
    xs = [x for x in xs if x is not None and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else None


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    with open(sys.argv[1]) as f:
        run = json.load(f)
    if run.get("study") != "orderings":
        sys.exit(f"plot_orderings.py: {sys.argv[1]} is not an ordering_study JSON (no \"study\": \"orderings\")")
    runs = [r for m in run["matrices"] for r in m["runs"] if r["status"] == "ok"]
    orderings = [o for o in dict.fromkeys(c["ordering"] for c in run["summary"]) if o != "natural"]
    algs = [a for a in dict.fromkeys(c["algorithm"] for c in run["summary"]) if a != HIER]
    has_hier = any(r["algorithm"] == HIER for r in runs)
    costs = {}
    for o in orderings:
        cs = sorted(x["cost_spgemms"] for m in run["matrices"] for x in m["orderings"] if x["name"] == o and x["cost_spgemms"] is not None)
        costs[o] = cs[len(cs) // 2] if cs else None  # upper median: a figure that was measured
    nmat = len(run["matrices"])

    fig, axes = plt.subplots(2, 1, figsize=(max(8, 1.1 * (len(orderings) + 1) * max(1, len(algs)) / 2.5), 9), sharex=True)
    width = 0.8 / max(1, len(algs))
    colors = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for ax, phase in zip(axes, ["oneshot", "reuse"]):
        for k, a in enumerate(algs):
            xs, gms = [], []
            for i, o in enumerate(orderings):
                vals = [r[f"speedup_vs_natural_{phase}"] for r in runs if r["ordering"] == o and r["algorithm"] == a]
                vals = [v for v in vals if v is not None]
                x = i - 0.4 + width * (k + 0.5)
                gm = geomean(vals)
                if gm is not None:
                    xs.append(x)
                    gms.append(gm)
                ax.scatter([x] * len(vals), vals, s=9, color="black", zorder=3, linewidths=0)
            ax.bar(xs, gms, width, label=a, color=colors[k % len(colors)], zorder=2)
        if has_hier:  # its own order: compared with rowwise at natural order
            vals = [r[f"speedup_vs_rowwise_natural_{phase}"] for r in runs if r["algorithm"] == HIER]
            vals = [v for v in vals if v is not None]
            x = len(orderings)
            gm = geomean(vals)
            if gm is not None:
                ax.bar([x], [gm], 0.8 / 2, label=f"{HIER} (natural, x rowwise natural)", color="lightgray", hatch="//", edgecolor="gray", zorder=2)
            ax.scatter([x] * len(vals), vals, s=9, color="black", zorder=3, linewidths=0)
        ax.axhline(1.0, color="gray", linewidth=0.8, zorder=1)
        ax.set_yscale("log")
        ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%g"))
        ax.tick_params(axis="y", which="minor", labelsize=7)
        ax.set_ylabel("speedup over natural order")
        what = "one-shot (symbolic + numeric; the ordering computed inside)" if phase == "oneshot" else "reuse (numeric only)"
        ax.set_title(f"A*A {what}: geometric mean (bars) and per matrix (dots), {nmat} matrices")
        ax.grid(axis="y", which="both", alpha=0.3, zorder=0)
    labels = [f"{o}\n{costs[o]:.2g} SpGEMMs" if costs[o] is not None else f"{o}\ncost -" for o in orderings]
    if has_hier:
        labels.append("hierarchical\n(own grouping)")
    axes[1].set_xticks(range(len(labels)))
    axes[1].set_xticklabels(labels, fontsize=8)
    axes[1].set_xlabel("ordering (median cost: MatGetOrdering time / rowwise natural one-shot A*A)")
    axes[0].legend(fontsize=8, loc="lower center", bbox_to_anchor=(0.5, 1.08), ncol=len(algs) + 1)
    fig.suptitle(f"ordering_study ({run.get('threads')} thread(s), best of {run.get('reps')})")
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"plot_orderings.py: wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
