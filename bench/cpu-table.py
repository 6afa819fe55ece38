#!/usr/bin/env python3
"""cpu-table.py: the CPU note's tables from cpu-time.sh's TSVs (LABEL.MATRIX.SOLVER.tT.runR.tsv, each with spsolve's row and the peers' rows).

Usage: cpu-table.py RAWDIR [BEFORE AFTER]   (labels; default before after)
Prints two TSV tables:
  1. before/after: per matrix, method and thread count, spsolve's iterations and the best
     (lowest) µs per iteration of each label over its runs, and best before / best after;
  2. peers: per matrix and method at 1 thread, the best µs per iteration of spsolve (AFTER),
     PETSc and SciPy over the runs of AFTER, their iteration counts, and spsolve / PETSc; and,
     where the 2-thread runs exist, spsolve's 1-thread / 2-thread ratio.
The best of the runs is reported because the machine was shared: a slower run measures the
other jobs too.
"""
import collections
import csv
import glob
import os
import sys


def rows_of(path):
    lines = [l for l in open(path) if not l.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t"))


def main():
    raw = sys.argv[1] if len(sys.argv) > 1 else "."
    before, after = (sys.argv[2], sys.argv[3]) if len(sys.argv) > 3 else ("before", "after")
    best = collections.defaultdict(dict)  # (matrix, solver, t, label, impl) -> best us
    runs = collections.Counter()
    its = {}
    for path in sorted(glob.glob(os.path.join(raw, "*.tsv"))):
        parts = os.path.basename(path)[:-4].split(".")
        if len(parts) != 5:
            continue
        label, matrix, solver, t, _run = parts
        for rec in rows_of(path):
            impl = rec["impl"].split("-")[0]
            try:
                us = float(rec["us_per_iter"])
            except ValueError:
                continue
            key = (matrix, solver, t[1:], label, impl)
            runs[key] += 1
            its[key] = rec["iterations"]
            cur = best[key[:3]].get(key[3:])
            if cur is None or us < cur:
                best[key[:3]][key[3:]] = us
    print("\t".join(["matrix", "solver", "threads", "iterations", f"{before}_best_us",
                     f"{after}_best_us", "runs", "before_over_after"]))
    for k in sorted(best):
        b = best[k].get((before, "spsolve"))
        a = best[k].get((after, "spsolve"))
        if b is None and a is None:
            continue
        it = its.get(k + (after, "spsolve"), its.get(k + (before, "spsolve"), "-"))
        n = f"{runs[k + (before, 'spsolve')]}/{runs[k + (after, 'spsolve')]}"
        print("\t".join([*k, it, f"{b:.2f}" if b else "-", f"{a:.2f}" if a else "-", n,
                         f"{b / a:.2f}" if a and b else "-"]))
    print()
    print("\t".join(["matrix", "solver", "spsolve_its", "spsolve_us", "petsc_its", "petsc_us",
                     "scipy_its", "scipy_us", "spsolve_over_petsc", "spsolve_t1_over_t2"]))
    for k in sorted(best):
        if k[2] != "1":
            continue
        c = best[k]
        s, p, q = c.get((after, "spsolve")), c.get((after, "petsc")), c.get((after, "scipy"))
        if s is None:
            continue
        two = best.get((k[0], k[1], "2"), {}).get((after, "spsolve"))
        f = lambda v: f"{v:.2f}" if v is not None else "-"
        print("\t".join([k[0], k[1], its.get(k + (after, "spsolve"), "-"), f(s),
                         its.get(k + (after, "petsc"), "-"), f(p),
                         its.get(k + (after, "scipy"), "-"), f(q),
                         f"{s / p:.2f}" if p else "-", f"{s / two:.2f}" if two else "-"]))


if __name__ == "__main__":
    main()
