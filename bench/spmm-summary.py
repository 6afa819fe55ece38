#!/usr/bin/env python3
"""spmm-summary.py: the tables of spmm-bench's TSV: per k, the geometric mean speedup of each SpMM variant over the fastest cuSPARSE algorithm, and the roofline fraction at k = 8.

usage: spmm-summary.py RESULTS.tsv [MORE.tsv ...]

For each (matrix, k) the reference time is the fastest of the cusparse-spmm-algN rows that ran;
a variant's speedup is that time over its own. "auto" gathers the auto(X) rows. The second
table gives, for k = 8, each variant's bound_us / time_us (1 = at the bandwidth bound of
reading A once, X once and writing Y once) on the matrices of at least 1e6 entries whose rows
are even (max row length at most 4 times the mean: the issue's "large regular matrices" are
judged by the generators' and shared matrices' names in the rows printed).
"""
import csv
import math
import sys
from collections import defaultdict


def read(paths):
    rows = []
    for p in paths:
        with open(p) as f:
            lines = [l for l in f if not l.startswith("#")]
        rows += list(csv.DictReader(lines, delimiter="\t"))
    return rows


def num(s):
    try:
        v = float(s)
        return v if math.isfinite(v) and v > 0 else None
    except (TypeError, ValueError):
        return None


def main(argv):
    if len(argv) < 2:
        print(__doc__)
        return 2
    rows = read(argv[1:])
    by = defaultdict(dict)  # (matrix, k) -> variant -> row
    for r in rows:
        v = r["variant"]
        if v.startswith("auto("):
            v = "auto"
        by[(r["matrix"], int(r["k"]))][v] = r
    ks = sorted({k for _, k in by})
    variants = sorted({v for d in by.values() for v in d if not v.startswith("cusparse")})
    speed = defaultdict(list)  # (variant, k) -> speedups
    for (mat, k), d in by.items():
        ref = [num(r["time_us"]) for v, r in d.items() if v.startswith("cusparse")]
        ref = [t for t in ref if t]
        if not ref:
            continue
        best = min(ref)
        for v in variants:
            t = num(d[v]["time_us"]) if v in d else None
            if t:
                speed[(v, k)].append(best / t)
    print("Geometric mean speedup over the fastest cusparseSpMM CSR algorithm (matrices counted)\n")
    print("| variant | " + " | ".join(f"k={k}" for k in ks) + " |")
    print("|---|" + "---|" * len(ks))
    for v in variants:
        cells = []
        for k in ks:
            s = speed.get((v, k), [])
            cells.append(f"{math.exp(sum(map(math.log, s)) / len(s)):.3f} ({len(s)})" if s else "-")
        print(f"| {v} | " + " | ".join(cells) + " |")
    print("\nk = 8: bound_us / time_us (1 = the bandwidth bound) on matrices of >= 1e6 entries\n")
    print("| matrix | nnz | " + " | ".join(variants) + " |")
    print("|---|---|" + "---|" * len(variants))
    for (mat, k), d in sorted(by.items()):
        if k != 8:
            continue
        any_row = next(iter(d.values()))
        if int(any_row["nnz"]) < 1000000:
            continue
        cells = [d[v]["roof"] if v in d else "-" for v in variants]
        print(f"| {mat} | {any_row['nnz']} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
