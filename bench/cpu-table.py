#!/usr/bin/env python3
"""cpu-table.py: the before/after table of the CPU note from cpu-time.sh's TSVs (LABEL.MATRIX.SOLVER.tT.runR.tsv): µs per iteration of each run, side by side."""
import collections
import csv
import glob
import os
import sys

raw = sys.argv[1] if len(sys.argv) > 1 else "."
labels = sys.argv[2:] or ["before", "after"]
cells = collections.defaultdict(dict)
iters = {}
for path in sorted(glob.glob(os.path.join(raw, "*.tsv"))):
    label, matrix, solver, t, run = os.path.basename(path)[:-4].split(".")
    rows = [l for l in open(path) if not l.startswith("#")]
    rec = next(csv.DictReader(rows, delimiter="\t"))
    cells[(matrix, solver, t[1:])][(label, run[3:])] = float(rec["us_per_iter"])
    iters[(matrix, solver, t[1:], label)] = rec["iterations"]
cols = [(l, r) for l in labels for r in ("1", "2")]
print("\t".join(["matrix", "solver", "threads", "iterations"] +
                [f"{l}_run{r}_us" for l, r in cols] + ["speedup_best"]))
for key in sorted(cells):
    c = cells[key]
    vals = [c.get(k) for k in cols]
    best = [min(v for (l, r), v in c.items() if l == lab) for lab in labels if
            any(l == lab for l, _ in c)]
    sp = f"{best[0] / best[-1]:.2f}" if len(best) == 2 else "-"
    its = "/".join(sorted({iters.get(key + (l,), "-") for l in labels}))
    print("\t".join(list(key) + [its] + ["-" if v is None else f"{v:.2f}" for v in vals] + [sp]))
