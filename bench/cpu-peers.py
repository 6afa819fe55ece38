#!/usr/bin/env python3
"""cpu-peers.py: spsolve's CPU backend beside PETSc (petsc4py) and SciPy on the same CPU: same matrix, b = A*ones, x0 = 0, rtol, no preconditioner.

For each case (matrix and method, CG or GMRES(restart)) it runs `solve-bench --device cpu`
(OMP_NUM_THREADS as given; default 1), PETSc's KSPCG or KSPGMRES with PCNONE (sequential AIJ,
rtol, atol 0, the default norm, which with PCNONE is ||b - Ax|| for both), and SciPy's
cg or gmres (rtol relative to ||b||, atol 0). Each peer solve is timed with the wall clock
around the solve call, REPEAT times after one warm-up solve, and the median is kept; iterations
come from KSPGetIterationNumber and from SciPy's callback (gmres: callback_type 'pr_norm',
once per inner iteration). Writes a TSV: matrix, solver, impl, threads, rows, nnz,
iterations, relres (true ||b - Ax||/||b||), solve_ms, us_per_iter.

Usage: OMP_NUM_THREADS=1 bench/cpu-peers.py --solve-bench BUILD/bench/solve-bench \\
           --tsv out.tsv cg:nos3.mtx.gz gmres:orsreg_1.mtx.gz ...
"""

import argparse
import csv
import io
import os
import statistics
import subprocess
import sys
import time

import numpy as np
import scipy.io
import scipy.sparse
import scipy.sparse.linalg


def name_of(path):
    b = os.path.basename(path)
    for suf in (".gz", ".mtx"):
        if b.endswith(suf):
            b = b[: -len(suf)]
    return b


def timed(fn, repeat):
    fn()  # warm-up
    times, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def run_petsc(A, b, solver, rtol, restart, maxit, repeat):
    from petsc4py import PETSc
    M = PETSc.Mat().createAIJ(size=A.shape, csr=(A.indptr.astype(PETSc.IntType),
                                                  A.indices.astype(PETSc.IntType), A.data))
    M.assemble()
    ksp = PETSc.KSP().create()
    ksp.setOperators(M)
    ksp.setType("cg" if solver == "cg" else "gmres")
    if solver == "gmres":
        ksp.setGMRESRestart(restart)
    ksp.getPC().setType("none")
    ksp.setTolerances(rtol=rtol, atol=0.0, max_it=maxit)
    ksp.setUp()
    bv = M.createVecLeft()
    bv.setArray(b)
    xv = M.createVecRight()

    def solve():
        xv.set(0.0)
        ksp.solve(bv, xv)
        return ksp.getIterationNumber()

    t, its = timed(solve, repeat)
    return t, its, xv.getArray().copy()


def run_scipy(A, b, solver, rtol, restart, maxit, repeat):
    import inspect
    count = [0]

    def cb(_):
        count[0] += 1

    # SciPy 1.12 renamed tol to rtol.
    fn = scipy.sparse.linalg.cg if solver == "cg" else scipy.sparse.linalg.gmres
    tolname = "rtol" if "rtol" in inspect.signature(fn).parameters else "tol"

    def solve():
        count[0] = 0
        kw = {tolname: rtol, "atol": 0.0}
        if solver == "cg":
            x, _ = scipy.sparse.linalg.cg(A, b, maxiter=maxit, callback=cb, **kw)
        else:
            x, _ = scipy.sparse.linalg.gmres(A, b, restart=restart,
                                             maxiter=(maxit + restart - 1) // restart,
                                             callback=cb, callback_type="pr_norm", **kw)
        return count[0], x

    t, (its, x) = timed(solve, repeat)
    return t, its, x


def run_spsolve(exe, path, solver, rtol, restart, maxit, repeat):
    cmd = [exe, "--device", "cpu", "--solver", solver, "--rtol", repr(rtol), "--restart",
           str(restart), "--maxit", str(maxit), "--repeat", str(repeat), "--copy-mb", "1",
           "--tsv", "/dev/stdout", path]
    out = subprocess.run(cmd, check=False, capture_output=True, text=True).stdout
    rows = [l for l in out.splitlines() if l and not l.startswith("#")]
    rec = next(csv.DictReader(io.StringIO("\n".join(rows)), delimiter="\t"))
    its = int(rec["iterations"])
    return float(rec["solve_ms"]) * 1e-3, its, float(rec["relres"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("cases", nargs="+", help="SOLVER:FILE.mtx[.gz], SOLVER cg or gmres")
    ap.add_argument("--solve-bench", help="solve-bench executable (omit: peers only)")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--restart", type=int, default=30)
    ap.add_argument("--maxit", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--matrices", default="/work/shared/matrices")
    ap.add_argument("--tsv", help="write the table here as well as to stdout")
    a = ap.parse_args()
    threads = os.environ.get("OMP_NUM_THREADS", "")
    header = ["matrix", "solver", "impl", "threads", "rows", "nnz", "iterations", "relres",
              "solve_ms", "us_per_iter"]
    lines = ["\t".join(header)]
    for case in a.cases:
        solver, f = case.split(":", 1)
        path = f if os.path.exists(f) else os.path.join(a.matrices, f)
        A = scipy.sparse.csr_matrix(scipy.io.mmread(path), dtype=np.float64)
        A.sort_indices()
        b = A @ np.ones(A.shape[0])
        bnorm = np.linalg.norm(b)
        results = []
        if a.solve_bench:
            t, its, relres = run_spsolve(a.solve_bench, path, solver, a.rtol, a.restart,
                                         a.maxit, a.repeat)
            results.append(("spsolve-cpu", t, its, relres))
        for impl, fn in (("petsc", run_petsc), ("scipy", run_scipy)):
            try:
                t, its, x = fn(A, b, solver, a.rtol, a.restart, a.maxit, a.repeat)
            except ImportError as e:
                print(f"cpu-peers: {impl} skipped: {e}", file=sys.stderr)
                continue
            results.append((impl, t, its, np.linalg.norm(b - A @ x) / bnorm))
        for impl, t, its, relres in results:
            us = 1e6 * t / its if its else float("nan")
            row = [name_of(path), solver, impl, threads or "-", str(A.shape[0]), str(A.nnz),
                   str(its), f"{relres:.3e}", f"{1e3 * t:.3f}", f"{us:.2f}"]
            lines.append("\t".join(row))
            print(lines[-1], flush=True)
    if a.tsv:
        with open(a.tsv, "w") as out:
            out.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
