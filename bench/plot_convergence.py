#!/usr/bin/env python3
"""plot_convergence.py: convergence plots from solve-bench --history files: the relative residual
against the iteration and against the time, one curve per preconditioner, for one matrix.

Usage: plot_convergence.py HISTORY.tsv MATRIX OUT.png [TITLE]
HISTORY.tsv rows: matrix, solver, precond, iteration, relative residual, seconds (solve-bench
--history: the time axis is the setup time plus the iteration times the solve time over the
iterations, i.e. uniform within a solve). Curves are drawn in the order they appear.
"""
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path, matrix):
    curves = {}
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m, solver, precond, it, rel, sec = line.rstrip("\n").split("\t")
            if m != matrix:
                continue
            key = f"{solver}+{precond}"
            c = curves.setdefault(key, ([], [], []))
            c[0].append(int(it))
            c[1].append(float(rel))
            c[2].append(float(sec))
    return curves


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    path, matrix, out = sys.argv[1:4]
    title = sys.argv[4] if len(sys.argv) > 4 else matrix
    curves = read(path, matrix)
    if not curves:
        sys.exit(f"plot_convergence.py: no history for {matrix} in {path}")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, (its, rel, sec) in curves.items():
        rel = [max(r, 1e-300) for r in rel]
        ax1.semilogy(its, rel, label=key)
        ax2.semilogy([1e3 * s for s in sec], rel, label=key)
    for ax, xl in ((ax1, "iteration"), (ax2, "time since the start of setup (ms)")):
        ax.set_xlabel(xl)
        ax.set_ylabel("||r|| / ||b|| (recurrence)")
        ax.axhline(1e-8, color="gray", lw=0.8, ls=":")
        ax.grid(True, which="both", alpha=0.3)
    ax2.set_xscale("log")
    ax1.legend(fontsize=8)
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"plot_convergence.py: wrote {out}")


if __name__ == "__main__":
    main()
