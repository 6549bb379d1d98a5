#!/usr/bin/env python3
"""Writes the seed inputs of fuzz_spgemm into fuzz/corpus/fuzz_spgemm/ (seed-*; other files there,
such as regress-*, are inputs that once found a bug and are kept by hand).

Each seed is one case in the byte layout documented at the top of fuzz/fuzz_spgemm.cpp, chosen to
start the fuzzer at the adversarial shapes: empty operands and zero dimensions, a single column,
all rows equal, full (huge) rows, empty rows and columns, a hub column, clusterable groups, every
product type, each clustering scheme and accumulator, reordering, aliased operands, patterns,
Inf/NaN values, options out of range and malformed operands.

Usage: fuzz/make_spgemm_seeds.py   (rewrites the seed-* files; run it after changing the layout)
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "corpus", "fuzz_spgemm")

TYPES = {"AB": 0, "AtB": 1, "ABt": 2, "PtAP": 3, "RARt": 4, "ABC": 5}
SCHEMES = {"auto": 0, "fixed": 1, "variable": 2, "hierarchical": 3}
ACCUMULATORS = {"auto": 0, "hash": 1, "dense": 2}
ORDERINGS = ["natural", "random", "rcm", "amd", "nd", "gp", "gray", "rabbit", "degree", "slashburn"]
BLOCK_SIZES = [1, 1, 2, 3, 4, 5, 8, 65]
VALUES = {"uniform": 0, "integers": 1, "nonfinite": 2, "wide": 3}
MALFORMED = {None: 0, "unsorted": 1, "duplicate": 2, "column>=ncols": 3, "column<0": 4, "rowptr decreasing": 5,
             "rowptr[0]!=0": 6, "dimension mismatch": 7}
RECIPES = {"empty": 0, "random": 1, "equal rows": 2, "full rows": 3, "explicit": 4, "hub column": 5, "groups": 6, "band": 7}


def recipe(kind, param=0, seed=0, empty_rows=False, empty_odd_cols=False, entries=()):
    """Three bytes (kind with modifiers, parameter, seed); 'explicit' takes (row, col) pairs."""
    k = RECIPES[kind] | (8 if empty_rows else 0) | (16 if empty_odd_cols else 0)
    if kind == "explicit":
        param = len(entries)
    out = bytes([k, param, seed])
    for i, j in entries:
        out += bytes([i, j])
    return out


def case(ptype, dims, operands, kernel="rowwise", scheme="auto", accumulator="auto", include_diagonal=False, wide=False,
         alias=False, cluster_size=8, threshold=0.3, topk=0, reorder="natural", ordering=0, threads=1, block_size=1,
         patterns=0, values="uniform", value_seed=0, malformed=None, malformed_operand=0, where=0,
         cluster_size_byte=None, threshold_byte=None, topk_byte=None):
    k = (1 if kernel == "cluster" else 0) | SCHEMES[scheme] << 1 | ACCUMULATORS[accumulator] << 3
    k |= (32 if include_diagonal else 0) | (64 if wide else 0) | (128 if alias else 0)
    cs = cluster_size - 1 if cluster_size_byte is None else cluster_size_byte
    jt = round(threshold * 200) if threshold_byte is None else threshold_byte
    tk = topk if topk_byte is None else topk_byte
    t = (threads - 1) | BLOCK_SIZES.index(block_size) << 2 | patterns << 5
    v = VALUES[values] | value_seed << 2
    m = MALFORMED[malformed] | malformed_operand << 3 | where << 5
    header = bytes([TYPES[ptype], k, cs, jt, tk, ORDERINGS.index(reorder), ordering, t, v, m])
    return header + bytes(list(dims) + [0] * (4 - len(dims))) + b"".join(operands)


# dims: m k n p (see the operand shapes per type in fuzz_spgemm.cpp).
SEEDS = {
    "zero-rows": case("AB", [0, 5, 7], [recipe("random", 128), recipe("random", 128)]),
    "zero-inner": case("AB", [6, 0, 7], [recipe("random", 128), recipe("random", 128)], kernel="cluster", scheme="variable"),
    "zero-cols": case("PtAP", [0, 6, 0], [recipe("random", 100), recipe("random", 100)], kernel="cluster", scheme="fixed"),
    "all-empty": case("RARt", [0, 30, 10], [recipe("empty"), recipe("empty")], kernel="cluster", scheme="hierarchical",
                      include_diagonal=True),
    "single-column": case("AB", [50, 1, 40], [recipe("random", 255), recipe("random", 60)], kernel="cluster", scheme="variable",
                          threshold=1.0),
    "single-column-result": case("ABt", [40, 30, 1], [recipe("random", 40), recipe("random", 255)], accumulator="dense"),
    "equal-rows": case("AB", [60, 60, 60], [recipe("equal rows", 25, 1), recipe("random", 20, 2)], kernel="cluster",
                       scheme="variable", cluster_size=64),
    "full-rows": case("AB", [150, 150, 150], [recipe("full rows", 2, 3), recipe("full rows", 1, 4)], kernel="cluster",
                      scheme="hierarchical", accumulator="hash", cluster_size=16, topk=5),
    "empty-rows-cols": case("AtB", [45, 50, 55], [recipe("random", 50, 5, empty_rows=True, empty_odd_cols=True),
                                                  recipe("random", 50, 6, empty_rows=True)], kernel="cluster", scheme="fixed",
                            cluster_size=3),
    "hub-column": case("AB", [120, 80, 90], [recipe("hub column", 7), recipe("band", 2)], kernel="cluster", scheme="variable",
                       accumulator="dense", threshold=0.0),
    "parallel-threads": case("AB", [200, 150, 200], [recipe("random", 25, 7), recipe("equal rows", 17, 8)], kernel="cluster",
                             scheme="auto", threads=4),
    "groups-shuffled-hierarchical": case("AB", [130, 100, 90], [recipe("groups", 5 + 8 * 7, 9), recipe("random", 12, 10)],
                                         kernel="cluster", scheme="hierarchical", threshold=0.2, cluster_size=8),
    "ptap-amg": case("PtAP", [0, 120, 15], [recipe("band", 1), recipe("groups", 7, 2)], kernel="cluster", scheme="auto",
                     block_size=3, reorder="rcm"),
    "rart-nd": case("RARt", [0, 90, 12], [recipe("random", 10, 11), recipe("band", 3)], kernel="cluster", scheme="fixed",
                    cluster_size=4, reorder="nd", ordering=0x10),
    "abc-alias-gray": case("ABC", [0, 40, 0, 0], [recipe("random", 20, 12)], alias=True, kernel="cluster", scheme="variable",
                           reorder="gray", ordering=5),
    "ab-alias-rabbit": case("AB", [0, 70, 0], [recipe("groups", 3 + 8 * 4, 13)], alias=True, reorder="rabbit"),
    "ab-slashburn-degree": case("AB", [100, 100, 50], [recipe("full rows", 0, 14), recipe("random", 20, 15)], reorder="slashburn",
                                ordering=2),
    "atb-amd-blocks": case("AtB", [60, 60, 40], [recipe("band", 1), recipe("random", 30, 16)], reorder="amd", block_size=2),
    "ab-gp-random": case("AB", [80, 80, 30], [recipe("random", 15, 17), recipe("random", 30, 18)], reorder="gp", ordering=0x20),
    "ab-random-order-64bit": case("AB", [33, 47, 29], [recipe("random", 40, 19), recipe("random", 40, 20)], reorder="random",
                                  wide=True, include_diagonal=True, patterns=2),
    "nonfinite-cluster": case("AB", [40, 40, 40], [recipe("equal rows", 40, 21), recipe("random", 60, 22)], kernel="cluster",
                              scheme="fixed", cluster_size=4, values="nonfinite", value_seed=3),
    "integers-cancel": case("ABt", [30, 20, 30], [recipe("random", 100, 23), recipe("random", 100, 24)], values="integers"),
    "wide-range": case("ABC", [20, 25, 30, 15], [recipe("random", 60, 25), recipe("random", 60, 26), recipe("random", 60, 27)],
                       values="wide", kernel="cluster", scheme="hierarchical"),
    "explicit-entries": case("AB", [4, 3, 5], [recipe("explicit", entries=[(0, 0), (0, 2), (3, 1)]),
                                               recipe("explicit", entries=[(0, 4), (1, 0), (2, 2), (2, 3)])], kernel="cluster",
                             scheme="fixed", cluster_size=2),
    # Long enough that libFuzzer's length limit starts above the header (it grows from the longest seed).
    "explicit-many": case("RARt", [0, 16, 12], [recipe("explicit", entries=[(t % 16, (t * t // 3 + t // 16) % 16) for t in range(70)]),
                                                recipe("explicit", entries=[(t % 12, (t * t // 5 + 2 * t) % 16) for t in range(50)])],
                          kernel="cluster", scheme="hierarchical", cluster_size=3, threshold=0.1, topk=2),
    "bad-cluster-size": case("AB", [10, 10, 10], [recipe("random", 50), recipe("random", 50)], kernel="cluster",
                             scheme="fixed", cluster_size_byte=0xF0),
    "bad-threshold": case("PtAP", [0, 10, 4], [recipe("random", 50), recipe("random", 50)], kernel="cluster", scheme="variable",
                          threshold_byte=203),
    "bad-ordering-option": case("AB", [10, 10, 10], [recipe("random", 50), recipe("random", 50)], reorder="gray", ordering=0x40),
    "malformed-unsorted": case("AB", [10, 10, 10], [recipe("random", 80), recipe("random", 80)], malformed="unsorted"),
    "malformed-rowptr": case("RARt", [0, 10, 6], [recipe("random", 80), recipe("random", 80)], malformed="rowptr decreasing",
                             malformed_operand=1, where=3),
    "dimension-mismatch": case("ABC", [5, 6, 7, 8], [recipe("random", 80), recipe("random", 80), recipe("random", 80)],
                               malformed="dimension mismatch", malformed_operand=2),
}


def main():
    os.makedirs(OUT, exist_ok=True)
    for name in os.listdir(OUT):
        if name.startswith("seed-"):
            os.remove(os.path.join(OUT, name))
    for name, data in SEEDS.items():
        with open(os.path.join(OUT, "seed-" + name), "wb") as f:
            f.write(data)
    print(f"wrote {len(SEEDS)} seeds to {OUT}")


if __name__ == "__main__":
    main()
