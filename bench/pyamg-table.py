#!/usr/bin/env python3
"""pyamg-table.py: PyAMG's smoothed aggregation and Ruge-Stueben solvers as CG preconditioners on the shared SPD matrices, the side-by-side numbers for spsolve's multigrid (doc/performance.md).

Usage: pyamg-table.py MATRIX_DIR OUT.tsv [matrix ...]
For each matrix (default: the six SPD shared matrices; laplacian7pt_100 solved as -A, stored
negative definite): b = A*ones, x0 = 0, CG (pyamg.krylov.cg through solve(accel='cg')) to a
relative residual of 1e-8, at most 2000 iterations, with
  pyamg-sa  smoothed_aggregation_solver(A) with PyAMG's defaults (symmetric strength 0, standard
            aggregation, one Jacobi smoothing of P, Gauss-Seidel symmetric pre/post smoothing),
  pyamg-rs  ruge_stuben_solver(A) with PyAMG's defaults (classical strength 0.25, RS splitting
            with a second pass, direct interpolation, Gauss-Seidel),
  pyamg-rs-pmis  the same with CF='PMIS' and classical interpolation (PMIS is what spsolve's
            classical coarsening uses).
Columns: the hierarchy's levels and complexities, the iterations (callback count), the true
relative residual recomputed after the solve, setup and solve wall seconds on this CPU.
"""

import datetime
import os
import platform
import sys
import time

import numpy as np
import pyamg
import scipy
import scipy.io
import scipy.sparse as sp

SPD = ["1138_bus", "G3_circuit", "bcsstk13", "bcsstk14", "laplacian7pt_100", "nos3"]
NEGATED = {"laplacian7pt_100"}


def solvers(A):
    yield "pyamg-sa", lambda: pyamg.smoothed_aggregation_solver(A)
    yield "pyamg-rs", lambda: pyamg.ruge_stuben_solver(A)
    yield "pyamg-rs-pmis", lambda: pyamg.ruge_stuben_solver(A, CF="PMIS",
                                                            interpolation="classical")


def main(argv):
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    mdir, out = argv[1], argv[2]
    names = argv[3:] or SPD
    cols = ["matrix", "solver", "rows", "nnz", "levels", "grid_complexity",
            "operator_complexity", "iterations", "relres", "setup_s", "solve_s", "status"]
    rows = []
    for name in names:
        A = sp.csr_matrix(scipy.io.mmread(os.path.join(mdir, name + ".mtx.gz")), dtype=np.float64)
        if name in NEGATED:
            A = -A
        A.sort_indices()
        b = A @ np.ones(A.shape[0])
        nb = np.linalg.norm(b)
        for label, make in solvers(A):
            row = dict.fromkeys(cols, "-")
            row.update(matrix=name + ("(-A)" if name in NEGATED else ""), solver=label,
                       rows=str(A.shape[0]), nnz=str(A.nnz), status="ok")
            try:
                t0 = time.perf_counter()
                ml = make()
                t1 = time.perf_counter()
                count = [0]

                def cb(_x, c=count):
                    c[0] += 1

                x = ml.solve(b, x0=np.zeros_like(b), tol=1e-8, maxiter=2000, accel="cg",
                             callback=cb)
                t2 = time.perf_counter()
                rel = np.linalg.norm(b - A @ x) / nb
                row.update(levels=str(len(ml.levels)),
                           grid_complexity="%.3f" % ml.grid_complexity(),
                           operator_complexity="%.3f" % ml.operator_complexity(),
                           iterations=str(count[0]), relres="%.3e" % rel,
                           setup_s="%.3f" % (t1 - t0), solve_s="%.3f" % (t2 - t1))
                if not rel <= 1e-8 * (1 + 1e-6):
                    row["status"] = "not converged to 1e-8"
            except Exception as e:  # report and go on
                row["status"] = ("error: %s: %s" % (type(e).__name__, e)).replace("\t", " ")
            rows.append(row)
            print("\t".join(row[c] for c in cols), file=sys.stderr)
            with open(out, "w") as f:
                f.write("# pyamg-table.py: PyAMG %s, NumPy %s, SciPy %s, Python %s on %s, %s\n"
                        % (pyamg.__version__, np.__version__, scipy.__version__,
                           platform.python_version(), platform.machine(),
                           datetime.datetime.now(datetime.timezone.utc)
                           .strftime("%Y-%m-%dT%H:%M:%SZ")))
                f.write("# command: %s\n" % " ".join(argv))
                f.write("# b = A*ones, x0 = 0, CG to ||b - Ax|| <= 1e-8 ||b|| (pyamg.krylov.cg), "
                        "relres recomputed; iterations: the callback's count\n")
                f.write("\t".join(cols) + "\n")
                for r in rows:
                    f.write("\t".join(r[c] for c in cols) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
