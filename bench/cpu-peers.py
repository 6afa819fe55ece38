#!/usr/bin/env python3
"""cpu-peers.py: the peer side of `solve-bench --device cpu --peers`: one system solved with PETSc (petsc4py) and SciPy on the CPU, rows in solve-bench's columns.

solve-bench runs this once per matrix with its own parameters, so the peers solve the same
system beside spsolve in the same run: the same file (negated with --negate), x* = ones or the
seeded random vector of solve-bench --rhs random (core/splitmix64.h, reproduced below),
b = A x*, x0 = 0, the same rtol (atol 0), GMRES restart, iteration limit and preconditioner
(none, or Jacobi), the same number of repeated solves (median), and the thread count of
solve-bench (--threads: OMP_NUM_THREADS and the BLAS thread variables are set to it before
NumPy is loaded, for SciPy's vector operations; PETSc's sequential AIJ matrix and vectors run
on one thread whatever the count, and its rows say so in the status column).

  PETSc: KSPCG, KSPGMRES (restart m, its default classical Gram-Schmidt without refinement) or
         KSPBCGS, PCNONE or PCJACOBI, on a sequential AIJ matrix; iterations from
         KSPGetIterationNumber, the default norm (||b - Ax|| with PCNONE).
  SciPy: scipy.sparse.linalg cg, gmres (restart m; maxiter counts cycles, the 'pr_norm'
         callback counts inner iterations) or bicgstab; M = diag(A)^-1 for Jacobi.

Each solve is timed with the wall clock around the call after one warm-up solve; setup_ms is
the matrix construction (and KSPSetUp). Lines starting with '#' name the versions; the other
lines are TSV rows of solve-bench's columns with bytes_per_iter, bound_us_per_iter and
time_over_bound left as '-' (solve-bench fills them from the iteration count). A peer that
cannot be imported gives a row whose status says why. Debian's petsc4py needs PETSC_DIR; when
it is not set, the first PETSc under /usr/lib/petscdir with a real-number petsc4py is used.

Usage (normally run by solve-bench):
  cpu-peers.py --peers petsc,scipy --solver cg|gmres|bicgstab [--precond none|jacobi]
               [--rtol R] [--restart M] [--maxit N] [--repeat K] [--rhs ones|random]
               [--seed S] [--negate] [--threads T] [--header] FILE.mtx[.gz]
"""

import argparse
import glob
import os
import statistics
import sys
import time

COLUMNS = ["matrix", "impl", "solver", "precond", "restart", "rtol", "rows", "nnz",
           "iterations", "reason", "relres", "error", "setup_ms", "solve_ms", "us_per_iter",
           "bytes_per_iter", "bound_us_per_iter", "time_over_bound", "status"]


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", help="Matrix Market file (.mtx or .mtx.gz)")
    ap.add_argument("--peers", default="petsc,scipy", help="comma-separated: petsc, scipy")
    ap.add_argument("--solver", choices=["cg", "gmres", "bicgstab"], default="cg")
    ap.add_argument("--precond", choices=["none", "jacobi"], default="none")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--restart", type=int, default=30)
    ap.add_argument("--maxit", type=int, default=10000, help="iterations (GMRES: inner ones)")
    ap.add_argument("--repeat", type=int, default=1, help="timed solves, the median is kept")
    ap.add_argument("--rhs", choices=["ones", "random"], default="ones")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--negate", action="store_true", help="solve with -A")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--header", action="store_true", help="print the column names first")
    return ap.parse_args(argv)


def set_threads(t):
    """Thread counts for NumPy's BLAS and OpenMP, before NumPy is loaded."""
    for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
              "BLIS_NUM_THREADS"):
        os.environ[v] = str(t)


def find_petsc4py():
    """Debian installs petsc4py under PETSC_DIR/lib/python3/dist-packages (a .pth reads PETSC_DIR)."""
    if os.environ.get("PETSC_DIR"):
        dirs = [os.environ["PETSC_DIR"]]
    else:
        dirs = sorted(glob.glob("/usr/lib/petscdir/petsc*/*-real"), reverse=True)
    for d in dirs:
        p = os.path.join(d, "lib", "python3", "dist-packages")
        if os.path.isdir(os.path.join(p, "petsc4py")):
            os.environ.setdefault("PETSC_DIR", d)
            if p not in sys.path:
                sys.path.append(p)
            return


def matrix_name(path):
    b = os.path.basename(path)
    for suf in (".gz", ".mtx"):
        if b.endswith(suf):
            b = b[: -len(suf)]
    return b


def splitmix64_sym(np, n, seed):
    """The first n draws of sps_splitmix64_sym (core/splitmix64.h) with state `seed`: uniform in [-1, 1)."""
    golden = np.uint64(0x9E3779B97F4A7C15)
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * golden
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return 2.0 * ((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53) - 1.0


def timed(fn, repeat):
    """fn() once as a warm-up, then repeat times; the median time and the last result."""
    fn()
    times, out = [], None
    for _ in range(max(1, repeat)):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def run_petsc(a, A, b):
    find_petsc4py()
    import petsc4py
    from petsc4py import PETSc
    t0 = time.perf_counter()
    M = PETSc.Mat().createAIJ(size=A.shape, csr=(A.indptr.astype(PETSc.IntType),
                                                  A.indices.astype(PETSc.IntType), A.data))
    M.assemble()
    ksp = PETSc.KSP().create()
    ksp.setOperators(M)
    ksp.setType({"cg": "cg", "gmres": "gmres", "bicgstab": "bcgs"}[a.solver])
    if a.solver == "gmres":
        ksp.setGMRESRestart(a.restart)
    ksp.getPC().setType("jacobi" if a.precond == "jacobi" else "none")
    ksp.setTolerances(rtol=a.rtol, atol=0.0, max_it=a.maxit)
    ksp.setUp()
    bv = M.createVecLeft()
    bv.setArray(b)
    xv = M.createVecRight()
    setup = time.perf_counter() - t0

    def solve():
        xv.set(0.0)
        ksp.solve(bv, xv)
        return ksp.getIterationNumber()

    t, its = timed(solve, a.repeat)
    reason = ksp.getConvergedReason()
    names = {v: k for k, v in vars(PETSc.KSP.ConvergedReason).items() if isinstance(v, int)}
    return ("petsc-" + petsc4py.__version__, setup, t, its, names.get(reason, str(reason)),
            xv.getArray().copy(), "ok (sequential AIJ: 1 thread)")


def run_scipy(a, A, b):
    import inspect

    import numpy as np
    import scipy
    import scipy.sparse.linalg as sla
    t0 = time.perf_counter()
    M = None
    if a.precond == "jacobi":
        M = sla.aslinearoperator(scipy.sparse.diags(1.0 / A.diagonal()).tocsr())
    setup = time.perf_counter() - t0
    fn = {"cg": sla.cg, "gmres": sla.gmres, "bicgstab": sla.bicgstab}[a.solver]
    kw = {"rtol" if "rtol" in inspect.signature(fn).parameters else "tol": a.rtol,
          "atol": 0.0, "M": M}
    count = [0]

    def cb(_):
        count[0] += 1

    def solve():
        count[0] = 0
        if a.solver == "gmres":
            x, info = fn(A, b, restart=a.restart, maxiter=max(1, -(-a.maxit // a.restart)),
                         callback=cb, callback_type="pr_norm", **kw)
        else:
            x, info = fn(A, b, maxiter=a.maxit, callback=cb, **kw)
        return count[0], x, info

    t, (its, x, info) = timed(solve, a.repeat)
    reason = "converged" if info == 0 else "max_iterations" if info > 0 else "breakdown"
    return ("scipy-" + scipy.__version__, setup, t, its, reason, np.asarray(x), "ok")


def main(argv=None):
    a = parse_args(argv)
    set_threads(a.threads)
    import numpy as np
    import scipy.io
    import scipy.sparse as sp

    A = sp.csr_matrix(scipy.io.mmread(a.file), dtype=np.float64)
    A.sort_indices()
    if a.negate:
        A = -A
    n = A.shape[0]
    xs = splitmix64_sym(np, n, a.seed) if a.rhs == "random" else np.ones(n)
    b = A @ xs
    bnorm = np.linalg.norm(b)
    name = matrix_name(a.file) + ("(-A)" if a.negate else "")
    print("# cpu-peers.py: NumPy %s, threads %d" % (np.__version__, a.threads))
    if a.header:
        print("\t".join(COLUMNS))
    runners = {"petsc": run_petsc, "scipy": run_scipy}
    for peer in [p for p in a.peers.split(",") if p]:
        row = dict.fromkeys(COLUMNS, "-")
        row.update(matrix=name, impl=peer, solver=a.solver, precond=a.precond,
                   restart=str(a.restart) if a.solver == "gmres" else "-",
                   rtol="%.1e" % a.rtol, rows=str(n), nnz=str(A.nnz))
        try:
            if peer not in runners:
                raise ValueError("unknown peer %r" % peer)
            impl, setup, t, its, reason, x, status = runners[peer](a, A, b)
            relres = np.linalg.norm(b - A @ x) / bnorm if bnorm > 0 else np.linalg.norm(A @ x)
            error = np.linalg.norm(x - xs) / np.linalg.norm(xs)
            row.update(impl=impl, iterations=str(its), reason=reason, relres="%.3e" % relres,
                       error="%.3e" % error, setup_ms="%.3f" % (1e3 * setup),
                       solve_ms="%.3f" % (1e3 * t),
                       us_per_iter="%.2f" % (1e6 * t / its) if its else "-", status=status)
        except Exception as e:  # an unavailable peer is a row that says why, not a failure
            row["status"] = "skipped: %s: %s" % (type(e).__name__, str(e).replace("\t", " "))
        print("\t".join(row[c] for c in COLUMNS), flush=True)


if __name__ == "__main__":
    main()
