#!/usr/bin/env python3
"""peers.py: the peer side of solve-bench: the same systems solved with CuPy's cg/gmres (or SciPy's, --dry-run), same columns.

For each Matrix Market file: A (negated with --negate), x* = ones (or the same seeded random
vector as solve-bench --rhs random), b = A x*, x0 = 0, stop at ||r|| <= rtol*||b||. The solve is
timed with the wall clock around the call, the device synchronised before and after, after one
warm-up solve of a tiny system. Iterations are counted with the solver's callback.

Semantics (see bench/README.md):
  CuPy cg: maxiter counts iterations; the callback runs once per iteration.
  CuPy gmres: maxiter counts inner iterations, but convergence is only checked when a restart
    cycle ends, so the count is a multiple of restart; the 'pr_norm' callback runs once per
    cycle: iterations = cycles * restart.
  SciPy gmres (--dry-run): maxiter counts restart cycles; the 'pr_norm' callback runs once per
    inner iteration.
"""

import argparse
import datetime
import inspect
import math
import os
import sys
import time

import numpy as np

from traffic import mean_iteration_bytes, spmv_bytes

COLUMNS = ["matrix", "impl", "solver", "precond", "restart", "rtol", "rows", "nnz",
           "iterations", "reason", "relres", "error", "setup_ms", "solve_ms", "us_per_iter",
           "bytes_per_iter", "bound_us_per_iter", "time_over_bound", "status"]

GOLDEN = np.uint64(0x9E3779B97F4A7C15)


def splitmix64_sym(n, seed):
    """The first n draws of sps_splitmix64_sym (core/splitmix64.h) with state `seed`: uniform in [-1, 1)."""
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, n + 1, dtype=np.uint64) * GOLDEN
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
        z = z ^ (z >> np.uint64(31))
    return 2.0 * ((z >> np.uint64(11)).astype(np.float64) * 2.0 ** -53) - 1.0


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else format(x, spec)


def matrix_name(path):
    b = os.path.basename(path)
    for suf in (".gz", ".mtx"):
        if b.endswith(suf):
            b = b[: -len(suf)]
    return b


class Backend:
    """CuPy on the GPU, or SciPy on the CPU for --dry-run."""

    def __init__(self, dry_run):
        self.dry = dry_run
        if dry_run:
            import scipy
            import scipy.sparse.linalg as sla
            self.la = sla
            self.impl = "scipy-" + scipy.__version__
            self.device = "CPU (SciPy %s, dry run)" % scipy.__version__
        else:
            import cupy
            import cupyx.scipy.sparse as csp
            import cupyx.scipy.sparse.linalg as cla
            self.cp, self.csp, self.la = cupy, csp, cla
            self.impl = "cupy-" + cupy.__version__
            props = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
            name = props["name"]
            self.device = name.decode() if isinstance(name, bytes) else str(name)

    def sync(self):
        if not self.dry:
            self.cp.cuda.Device().synchronize()

    def upload(self, A, b):
        if self.dry:
            return A, b.copy()
        return self.csp.csr_matrix(A), self.cp.asarray(b)

    def download(self, x):
        return x if self.dry else self.cp.asnumpy(x)

    def copy_bandwidth(self, nbytes, repeat=5):
        """Bytes read + written per second of a device-to-device copy (host memcpy in a dry run)."""
        times = []
        if self.dry:
            a = np.ones(nbytes // 8)
            b = np.zeros_like(a)
            for r in range(repeat + 1):
                t0 = time.perf_counter()
                np.copyto(b, a)
                t = time.perf_counter() - t0
                if r:
                    times.append(t)
        else:
            cp = self.cp
            a = cp.ones(nbytes // 8)
            b = cp.zeros_like(a)
            s = cp.cuda.get_current_stream()
            e0, e1 = cp.cuda.Event(), cp.cuda.Event()
            for r in range(repeat + 1):
                e0.record(s)
                cp.cuda.runtime.memcpyAsync(b.data.ptr, a.data.ptr, a.nbytes,
                                            cp.cuda.runtime.memcpyDeviceToDevice, s.ptr)
                e1.record(s)
                e1.synchronize()
                if r:
                    times.append(1e-3 * cp.cuda.get_elapsed_time(e0, e1))
        return 2.0 * (nbytes // 8) * 8 / float(np.median(times))

    def solve(self, solver, A, b, rtol, restart, maxit):
        """Solve from x0 = 0; returns (x, iterations, info)."""
        fn = self.la.cg if solver == "cg" else self.la.gmres
        params = inspect.signature(fn).parameters
        kw = {"rtol" if "rtol" in params else "tol": rtol, "atol": 0.0}
        count = [0]

        def cb(_):
            count[0] += 1

        if solver == "cg":
            kw["maxiter"] = maxit
            x, info = fn(A, b, callback=cb, **kw)
            return x, count[0], info
        kw["restart"] = restart
        kw["callback_type"] = "pr_norm"
        if self.dry:
            kw["maxiter"] = max(1, -(-maxit // restart))  # SciPy: restart cycles
            x, info = fn(A, b, callback=cb, **kw)
            return x, count[0], info
        kw["maxiter"] = maxit  # CuPy: inner iterations, checked at the end of each cycle
        x, info = fn(A, b, callback=cb, **kw)
        return x, count[0] * restart, info


def generated(spec):
    """poisson2d:N or poisson3d:N as bench/gen.c builds it: the 5- or 7-point Laplacian on an
    N^d grid (2d on the diagonal, -1 to each neighbour), unknowns in lexicographic order with x
    fastest: the same matrix, entry for entry."""
    import scipy.sparse as sp

    kind, _, count = spec.partition(":")
    N = int(count)
    if kind not in ("poisson2d", "poisson3d") or N < 1:
        raise ValueError("unknown generator %r (poisson2d:N, poisson3d:N)" % spec)
    T = sp.diags([np.full(N, 2.0), np.full(N - 1, -1.0), np.full(N - 1, -1.0)], [0, -1, 1],
                 format="csr")
    I = sp.identity(N, format="csr")
    if kind == "poisson2d":
        A = sp.kron(I, T) + sp.kron(T, I)
    else:
        A = sp.kron(I, sp.kron(I, T)) + sp.kron(I, sp.kron(T, I)) + sp.kron(T, sp.kron(I, I))
    return sp.csr_matrix(A, dtype=np.float64)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="*", help="Matrix Market files (.mtx or .mtx.gz)")
    ap.add_argument("--gen", action="append", default=[],
                    help="a generated matrix, as bench/gen.c makes it: poisson2d:N or poisson3d:N "
                         "(repeatable)")
    ap.add_argument("--solver", choices=["cg", "gmres"], default="cg")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--restart", type=int, default=30)
    ap.add_argument("--maxit", type=int, default=10000, help="iterations (GMRES: inner ones)")
    ap.add_argument("--negate", action="store_true", help="solve with -A")
    ap.add_argument("--rhs", choices=["ones", "random"], default="ones")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="solves per matrix, median time")
    ap.add_argument("--copy-mb", type=int, default=None)
    ap.add_argument("--tsv", help="write the results as TSV")
    ap.add_argument("--dry-run", action="store_true", help="use SciPy on the CPU instead of CuPy")
    a = ap.parse_args(argv)

    import scipy.io
    import scipy.sparse as sp

    be = Backend(a.dry_run)
    copy_mb = a.copy_mb or (256 if a.dry_run else 2048)
    bw = be.copy_bandwidth(copy_mb << 20)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = [
        "# peers.py (%s)" % be.impl,
        "# device: %s" % be.device,
        "# date: %s" % date,
        "# command: %s" % " ".join(sys.argv[1:] if argv is None else argv),
        "# copy_bandwidth_GBs: %.1f (%s copy of %d MiB, bytes read + written, median of 5)"
        % (1e-9 * bw, "host" if a.dry_run else "device-to-device cudaMemcpyAsync", copy_mb),
        "# x0 = 0, b = A*x* with x* = %s%s; relres = ||b - A x||/||b|| on the host; "
        "error = ||x - x*||/||x*||" % ("uniform random in [-1,1)" if a.rhs == "random" else "ones",
                                        " (A negated)" if a.negate else ""),
        "# setup_ms: upload of the CSR matrix and b; solve_ms: wall clock around the call, "
        "device synchronised, median of %d solves after a warm-up on a tiny system" % a.repeat,
        "# bytes_per_iter: solve-bench's count for the same solver (GMRES: CGS2), "
        "so time_over_bound compares the two directly",
    ]
    print("peers.py: %s, copy bandwidth %.1f GB/s" % (be.device, 1e-9 * bw), file=sys.stderr)

    # Warm-up: the first call compiles kernels and creates handles.
    tiny = sp.diags([np.full(8, 4.0), np.full(7, -1.0), np.full(7, -1.0)], [0, -1, 1]).tocsr()
    At, bt = be.upload(tiny, np.ones(8))
    be.solve(a.solver, At, bt, 1e-8, 4, 50)
    be.sync()

    rows = []
    failed = False
    inputs = list(a.files) + ["gen:" + g for g in a.gen]
    if not inputs:
        ap.error("no matrix: give files or --gen")
    for i, path in enumerate(inputs):
        name = (path[4:] if path.startswith("gen:") else matrix_name(path)) + \
            ("(-A)" if a.negate else "")
        row = dict.fromkeys(COLUMNS, "-")
        row.update(matrix=name, impl=be.impl, solver=a.solver, precond="none",
                   restart=str(a.restart) if a.solver == "gmres" else "-",
                   rtol="%.1e" % a.rtol, status="ok")
        try:
            if path.startswith("gen:"):
                A = generated(path[4:])
            else:
                A = sp.csr_matrix(scipy.io.mmread(path), dtype=np.float64)
            if a.negate:
                A = -A
            m, n = A.shape
            nnz = A.nnz
            row.update(rows=str(m), nnz=str(nnz))
            xs = splitmix64_sym(n, a.seed) if a.rhs == "random" else np.ones(n)
            b = A @ xs
            be.sync()
            t0 = time.perf_counter()
            Ad, bd = be.upload(A, b)
            be.sync()
            setup = time.perf_counter() - t0
            times = []
            for _ in range(a.repeat):
                be.sync()
                t0 = time.perf_counter()
                xd, its, info = be.solve(a.solver, Ad, bd, a.rtol, a.restart, a.maxit)
                be.sync()
                times.append(time.perf_counter() - t0)
            solve = float(np.median(times))
            x = be.download(xd)
            nb = np.linalg.norm(b)
            relres = np.linalg.norm(b - A @ x) / (nb if nb > 0 else 1.0)
            err = np.linalg.norm(x - xs) / np.linalg.norm(xs)
            S = spmv_bytes(m, n, nnz)
            per = mean_iteration_bytes(a.solver, n, S, its, a.restart)
            bound = per / bw
            tpi = solve / its if its else float("nan")
            reason = "converged" if info == 0 else ("max_iterations" if info > 0 else "breakdown")
            row.update(iterations=str(its), reason=reason, relres=fmt(relres, ".3e"),
                       error=fmt(err, ".3e"), setup_ms=fmt(1e3 * setup, ".3f"),
                       solve_ms=fmt(1e3 * solve, ".3f"), us_per_iter=fmt(1e6 * tpi, ".2f"),
                       bytes_per_iter=fmt(per, ".0f"), bound_us_per_iter=fmt(1e6 * bound, ".2f"),
                       time_over_bound=fmt(tpi / bound if its else float("nan"), ".2f"))
            if info == 0 and not relres <= 10 * a.rtol:
                row["status"] = "WRONG: info 0 but true relres %.3e > 10*rtol" % relres
                failed = True
        except Exception as e:  # report the failure in the table and go on
            row["status"] = ("error: %s: %s" % (type(e).__name__, e)).replace("\t", " ")
            failed = True
        rows.append(row)
        print("peers.py: [%d/%d] %s: %s iterations, %s, %s ms, %s us/iteration, %s"
              % (i + 1, len(inputs), name, row["iterations"], row["reason"], row["solve_ms"],
                 row["us_per_iter"], row["status"]), file=sys.stderr)
        if a.tsv:
            write_tsv(a.tsv, header, rows)

    widths = [max(len(c), *(len(r[c]) for r in rows)) for c in COLUMNS]
    print("\n".join(header[1:3]))
    print("  ".join(c.ljust(w) for c, w in zip(COLUMNS, widths)))
    for r in rows:
        print("  ".join(r[c].ljust(w) for c, w in zip(COLUMNS, widths)))
    if a.tsv:
        write_tsv(a.tsv, header, rows)
    return 1 if failed else 0


def write_tsv(path, header, rows):
    with open(path, "w") as f:
        f.write("\n".join(header) + "\n")
        f.write("\t".join(COLUMNS) + "\n")
        for r in rows:
            f.write("\t".join(r[c] for c in COLUMNS) + "\n")


if __name__ == "__main__":
    sys.exit(main())
