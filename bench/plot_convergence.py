#!/usr/bin/env python3
"""plot_convergence.py: convergence plots from solve-bench --history files: the relative residual
against the iteration and against the time, one curve per preconditioner, for one matrix.

Usage: plot_convergence.py [--log-iterations] HISTORY.tsv MATRIX OUT.png [TITLE]
(--log-iterations: a logarithmic iteration axis, from iteration 1, for curves of 5 and 5000
iterations side by side.)
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
    args = [a for a in sys.argv[1:] if a != "--log-iterations"]
    logit = len(args) < len(sys.argv) - 1
    if len(args) < 3:
        sys.exit(__doc__)
    path, matrix, out = args[:3]
    title = args[3] if len(args) > 3 else matrix
    curves = read(path, matrix)
    if not curves:
        sys.exit(f"plot_convergence.py: no history for {matrix} in {path}")
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(12, 4.5))
    for key, (its, rel, sec) in curves.items():
        rel = [max(r, 1e-300) for r in rel]
        if logit:
            ax1.loglog([i + 1 for i in its], rel, label=key)
        else:
            ax1.semilogy(its, rel, label=key)
        ax2.semilogy([1e3 * s for s in sec], rel, label=key)
    for ax, xl in ((ax1, "iteration + 1" if logit else "iteration"),
                   (ax2, "time since the start of setup (ms)")):
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
