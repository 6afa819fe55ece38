#!/usr/bin/env python3
"""amg-summary.py: the table of bench/amg-gpu.sh: per matrix and method, iterations, setup and solve times, the AMG time per iteration and setup in fine-level SpMVs, and the time to solution against CuPy's CG.

Usage: amg-summary.py OUT_DIR   (reads spmv-*.tsv, solve-*.tsv, peers-*.tsv there; writes
OUT_DIR/summary.tsv and prints it). The SpMV time is spmv-bench's graph time of the AUTO
variant (the plain time on the CPU, which has no graph). Targets (issue 13): AMG's time per
iteration within 6 fine-level SpMVs, its setup within 100, setup plus solve of CG+AMG at least
20 times faster than CuPy's CG.
"""

import glob
import os
import sys


def read_tsv(path):
    rows, cols = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.rstrip("\n").split("\t")
            if cols is None:
                cols = fields
            else:
                rows.append(dict(zip(cols, fields)))
    return rows


def num(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return float("nan")


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = argv[1]
    tags = sorted(os.path.basename(p)[len("spmv-"):-len(".tsv")]
                  for p in glob.glob(os.path.join(out, "spmv-*.tsv")))
    cols = ["matrix", "method", "rows", "nnz", "iterations", "setup_ms", "solve_ms", "total_ms",
            "us_per_iter", "spmv_us", "iter_over_spmv", "setup_over_spmv", "cupy_over_total",
            "status"]
    table = []
    for tag in tags:
        spmv = read_tsv(os.path.join(out, "spmv-%s.tsv" % tag))
        t = [r for r in spmv if r.get("variant", "").startswith("auto")]
        spmv_us = float("nan")
        if t:
            spmv_us = num(t[0].get("graph_us"))
            if spmv_us != spmv_us:
                spmv_us = num(t[0].get("plain_us"))
        peers = os.path.join(out, "peers-%s.tsv" % tag)
        cupy_ms = float("nan")
        methods = []
        if os.path.exists(peers):
            for r in read_tsv(peers):
                cupy_ms = num(r.get("solve_ms"))
                methods.append(("cupy-cg", r))
        for p in sorted(glob.glob(os.path.join(out, "solve-%s-*.tsv" % tag))):
            meth = os.path.basename(p)[len("solve-%s-" % tag):-len(".tsv")]
            for r in read_tsv(p):
                methods.append(("cg+" + meth, r))
        for meth, r in methods:
            setup, solve, its = num(r.get("setup_ms")), num(r.get("solve_ms")), num(r.get("iterations"))
            total = setup + solve if meth != "cupy-cg" else solve
            upi = num(r.get("us_per_iter"))
            row = {
                "matrix": r.get("matrix", tag), "method": meth, "rows": r.get("rows", "-"),
                "nnz": r.get("nnz", "-"), "iterations": r.get("iterations", "-"),
                "setup_ms": "%.3f" % setup, "solve_ms": "%.3f" % solve, "total_ms": "%.3f" % total,
                "us_per_iter": "%.2f" % upi, "spmv_us": "%.2f" % spmv_us,
                "iter_over_spmv": "%.2f" % (upi / spmv_us) if spmv_us > 0 else "-",
                "setup_over_spmv": "%.1f" % (1e3 * setup / spmv_us)
                if spmv_us > 0 and meth != "cupy-cg" else "-",
                "cupy_over_total": "%.2f" % (cupy_ms / total) if total > 0 else "-",
                "status": r.get("status", "-"),
            }
            table.append(row)
    path = os.path.join(out, "summary.tsv")
    with open(path, "w") as f:
        f.write("# amg-summary.py %s: iter_over_spmv = us_per_iter / spmv_us (AMG target <= 6), "
                "setup_over_spmv = setup / spmv_us (AMG target <= 100), cupy_over_total = CuPy CG's "
                "solve time / (setup + solve) (CG+AMG target >= 20)\n" % out)
        f.write("\t".join(cols) + "\n")
        for row in table:
            f.write("\t".join(row[c] for c in cols) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
