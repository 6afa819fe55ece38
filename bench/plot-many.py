#!/usr/bin/env python3
"""plot-many.py: tables (markdown, for doc/performance.md) and PNG plots of many right-hand sides: time per column against k from solve-many-bench and many-peers.py, and SpMM time per column against k from spmm-bench.

  plot-many.py solve OURS.tsv [PEERS.tsv ...] [--out DIR]
      per matrix, milliseconds per column against k: spsolve together (solve_many), spsolve
      one at a time, and each peer one by one (CuPy's cg/gmres); the table adds
      together_over_one (the issue's targets: at most 4 at k = 16 for G3_circuit, 3 at k = 64
      for a small matrix) and whether every column took its single solve's iterations
  plot-many.py spmm SPMM.tsv [--out DIR]
      per matrix, microseconds per column against k: the library's pick (auto), the fastest own
      variant, and the fastest cusparseSpMM algorithm; the table the geometric mean over the
      matrices of cuSPARSE's time over the pick's per k

Writes DIR/<stem>.md and DIR/<stem>.png (stem: the first TSV's name). Without matplotlib only
the markdown is written.
"""

import argparse
import math
import os
import sys
from collections import defaultdict


def read_tsv(path):
    """The '#' comment lines (as a dict of 'key: value' pairs) and the rows as dicts."""
    meta, rows, header = {}, [], None
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if line.startswith("#"):
                key, _, val = line[1:].strip().partition(":")
                meta[key.strip()] = val.strip()
            elif header is None:
                header = line.split("\t")
            elif line:
                rows.append(dict(zip(header, line.split("\t"))))
    return meta, rows


def num(s):
    try:
        v = float(s)
        return v if math.isfinite(v) and v > 0 else None
    except (TypeError, ValueError):
        return None


def geomean(v):
    return math.exp(sum(math.log(x) for x in v) / len(v)) if v else None


def pyplot():
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        print("plot-many.py: no matplotlib: the markdown only", file=sys.stderr)
        return None


def grid(plt, count):
    cols = min(3, count)
    rows = (count + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 3.6 * rows), squeeze=False)
    for ax in axes.flat[count:]:
        ax.set_visible(False)
    return fig, list(axes.flat)


def solve(args):
    meta, ours = read_tsv(args.tsv[0])
    peers = []
    for p in args.tsv[1:]:
        pm, pr = read_tsv(p)
        peers.append((pr[0]["impl"] if pr else os.path.basename(p), pr))
    mats = list(dict.fromkeys(r["matrix"] for r in ours))
    lines = ["Time per column against the number of right-hand sides k (%s; %s)\n"
             % (meta.get("device", "?"), meta.get("date", "?")),
             "| matrix | solver | k | together ms/col | one at a time ms/col | "
             + " | ".join("%s ms/col" % name for name, _ in peers)
             + " | together / one solve | speedup | same iterations |",
             "|---|---|---|---|---|" + "---|" * len(peers) + "---|---|---|"]
    for mat in mats:
        for r in (r for r in ours if r["matrix"] == mat):
            peer_cells = []
            for _, pr in peers:
                pv = next((p for p in pr if p["matrix"] == mat and p["k"] == r["k"]), None)
                peer_cells.append(pv["one_ms"] if pv else "-")
            lines.append("| %s | %s+%s | %s | %s | %s | %s | %s | %s | %s of %s |"
                         % (mat, r["solver"], r["precond"], r["k"], r["together_ms_per_col"],
                            r["one_ms"], " | ".join(peer_cells) if peer_cells else "",
                            r["together_over_one"], r["speedup"], r["same_its"], r["k"]))
    stem = os.path.splitext(os.path.basename(args.tsv[0]))[0]
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plt = pyplot()
    if not plt:
        return 0
    fig, axes = grid(plt, len(mats))
    for ax, mat in zip(axes, mats):
        rs = [r for r in ours if r["matrix"] == mat]
        ks = [int(r["k"]) for r in rs]
        ax.plot(ks, [num(r["together_ms_per_col"]) for r in rs], "o-", label="spsolve together")
        ax.plot(ks, [num(r["one_ms"]) for r in rs], "s--", label="spsolve one at a time")
        for name, pr in peers:
            pp = [p for p in pr if p["matrix"] == mat and num(p["one_ms"])]
            if pp:
                ax.plot([int(p["k"]) for p in pp], [num(p["one_ms"]) for p in pp], "^:",
                        label="%s one by one" % name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title("%s (%s)" % (mat, rs[0]["solver"] if rs else ""))
        ax.set_xlabel("right-hand sides k")
        ax.set_ylabel("ms per column")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("Time per column: %s, %s" % (meta.get("device", "?"), meta.get("date", "?")),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, stem + ".png"), dpi=120)
    return 0


def spmm(args):
    meta, rows = read_tsv(args.tsv[0])
    by = defaultdict(dict)  # (matrix, k) -> variant -> us
    for r in rows:
        t = num(r.get("time_us"))
        if t is None:
            continue
        v = "auto" if r["variant"].startswith("auto(") else r["variant"]
        by[(r["matrix"], int(r["k"]))][v] = t
    mats = list(dict.fromkeys(m for m, _ in by))
    ks = sorted({k for _, k in by})

    def series(mat):
        out = {"auto": [], "best own": [], "cuSPARSE (fastest)": []}
        for k in ks:
            d = by.get((mat, k), {})
            own = [t for v, t in d.items() if not v.startswith("cusparse") and v != "auto"]
            cus = [t for v, t in d.items() if v.startswith("cusparse")]
            out["auto"].append(d["auto"] / k if "auto" in d else None)
            out["best own"].append(min(own) / k if own else None)
            out["cuSPARSE (fastest)"].append(min(cus) / k if cus else None)
        return out

    lines = ["SpMM time per column against k (%s; %s): geometric mean over the matrices of the "
             "fastest cusparseSpMM's time over the library's pick (auto)\n"
             % (meta.get("device", "?"), meta.get("date", "?")),
             "| k | " + " | ".join(str(k) for k in ks) + " |", "|---|" + "---|" * len(ks)]
    cells = []
    for k in ks:
        s = []
        for mat in mats:
            d = by.get((mat, k), {})
            cus = [t for v, t in d.items() if v.startswith("cusparse")]
            if "auto" in d and cus:
                s.append(min(cus) / d["auto"])
        g = geomean(s)
        cells.append("%.3f (%d)" % (g, len(s)) if g else "-")
    lines.append("| cuSPARSE / auto | " + " | ".join(cells) + " |")
    stem = os.path.splitext(os.path.basename(args.tsv[0]))[0] + "-per-column"
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, stem + ".md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))
    plt = pyplot()
    if not plt:
        return 0
    fig, axes = grid(plt, len(mats))
    for ax, mat in zip(axes, mats):
        for (name, ys), style in zip(series(mat).items(), ("o-", "s--", "^:")):
            pts = [(k, y) for k, y in zip(ks, ys) if y]
            if pts:
                ax.plot([k for k, _ in pts], [y for _, y in pts], style, label=name)
        ax.set_xscale("log", base=2)
        ax.set_yscale("log")
        ax.set_title(mat)
        ax.set_xlabel("columns k")
        ax.set_ylabel("us per column")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("SpMM time per column: %s, %s" % (meta.get("device", "?"), meta.get("date", "?")),
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(os.path.join(args.out, stem + ".png"), dpi=120)
    return 0


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("what", choices=["solve", "spmm"])
    ap.add_argument("tsv", nargs="+")
    ap.add_argument("--out", default=".")
    a = ap.parse_args(argv)
    return solve(a) if a.what == "solve" else spmm(a)


if __name__ == "__main__":
    sys.exit(main())
