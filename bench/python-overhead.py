#!/usr/bin/env python3
"""python-overhead.py: the time the Python package adds to a solve, beyond the C solve.

For each matrix a spsolve.Solver is set up once; then every repetition times
Solver.solve(b, out=x) with time.perf_counter() around it and subtracts the library's own time
of that solve (sps_solver_get_times, read from info.solve_time: the wall clock inside
sps_solver_solve with the device synchronised). The difference is what Python costs per solve:
argument checks, wrapping b and x (sps_vector_wrap, no copy), the ctypes calls, and reading
back the info object (reason, iterations, residual, times, method, SpMV, tries,
preconditioner facts). The target of issue 12 is under 50 us.

    python3 bench/python-overhead.py [--device cpu|cuda] [--repeat N] [--numpy]
                                     [--method M] [--precond P] [MATRIX.mtx[.gz] ...]

--device cuda solves CuPy data on the GPU (zero copy; needs CuPy); add --numpy to time NumPy
vectors on the GPU instead (then each solve also uploads b and x0 and downloads x, which is
counted as overhead). Without matrices: the bundled nos3, orsreg_1 and a tridiagonal matrix
of order 100 solved by Jacobi-CG (a solve of a few microseconds, where the overhead shows).
Run from the source tree, with SPSOLVE_LIB naming the built library when it is not installed:

    SPSOLVE_LIB=BUILD/.libs/libspsolve.so PYTHONPATH=python python3 bench/python-overhead.py
"""

import argparse
import os
import statistics
import sys
import time

import numpy as np
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "python"))

import spsolve  # noqa: E402


def matrices(paths):
    if paths:
        return [(os.path.basename(p), spsolve.read_matrix(p), None, None) for p in paths]
    data = os.path.join(HERE, "..", "tests", "data")
    n = 100
    tri = sp.diags([-np.ones(n - 1), 4.0 * np.ones(n), -np.ones(n - 1)], [-1, 0, 1],
                   format="csr")
    return [
        ("tridiag100", tri, "cg", "jacobi"),
        ("nos3", spsolve.read_matrix(os.path.join(data, "nos3.mtx.gz")), None, None),
        ("orsreg_1", spsolve.read_matrix(os.path.join(data, "orsreg_1.mtx.gz")), None, None),
    ]


def pct(values, q):
    s = sorted(values)
    return s[min(len(s) - 1, int(q * len(s)))]


def breakdown(s, b, out, repeat, cp):
    """The steps of Solver.solve(b, out=out) one by one, as that method runs them on the path
    this matrix takes (NumPy or zero-copy CuPy vectors, kept wrapped between solves), each timed
    apart; the medians go to stderr in microseconds. The C solve is timed from Python around
    sps_solver_solve and compared with the library's own clock (c_outside = the part of the
    call outside it)."""
    from spsolve import _lib

    lib = _lib.lib()
    h, c, n = s._handle, s.ctx.handle, s.n
    steps = {k: [] for k in ("vector_in", "output", "stream_sync", "wrap2", "c_call",
                             "c_outside", "info")}
    pc = time.perf_counter
    for _ in range(repeat):
        t0 = pc()
        bb = s._vector_in(b, "b", n)
        t1 = pc()
        x = s._output(bb, None, out, n)
        t2 = pc()
        if cp is not None:
            cp.cuda.get_current_stream().synchronize()
        t3 = pc()
        vb = s._wrapped(lib, c, 0, bb, n)
        vx = s._wrapped(lib, c, 1, x, n)
        t4 = pc()
        lib.sps_solver_solve(h, vb, vx)
        t5 = pc()
        info = s._info(lib, h, c)
        t6 = pc()
        for k, v in zip(steps, (t1 - t0, t2 - t1, t3 - t2, t4 - t3, t5 - t4,
                                t5 - t4 - info.solve_time, t6 - t5)):
            steps[k].append(v * 1e6)
    print("# breakdown (median us): " + ", ".join(
        f"{k} {statistics.median(v):.1f}" for k, v in steps.items()), file=sys.stderr)


def control(s, wait, repeat):
    """Reading the info object (s._info, the package's last step) after a busy wait of `wait`
    seconds on the host, with no GPU work: the host's own cost after a wait, to compare with
    the info step of the breakdown."""
    from spsolve import _lib

    lib = _lib.lib()
    h, c = s._handle, s.ctx.handle
    pc = time.perf_counter
    after_wait, after_nothing = [], []
    for _ in range(repeat):
        t = pc()
        while pc() - t < wait:
            pass
        t0 = pc()
        s._info(lib, h, c)
        t1 = pc()
        s._info(lib, h, c)
        t2 = pc()
        after_wait.append((t1 - t0) * 1e6)
        after_nothing.append((t2 - t1) * 1e6)
    print(f"# control: info after a {wait * 1e3:.2f} ms busy wait {statistics.median(after_wait):.1f} us, "
          f"right after that {statistics.median(after_nothing):.1f} us (medians)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--numpy", action="store_true", help="NumPy vectors even on the GPU")
    ap.add_argument("--method", default=None)
    ap.add_argument("--precond", default=None)
    ap.add_argument("--breakdown", action="store_true",
                    help="also time each step of Solver.solve apart (stderr)")
    ap.add_argument("--sched", choices=("auto", "spin", "yield", "blocking"), default=None,
                    help="set the CUDA device's host-wait policy before the context is made "
                         "(cudaSetDeviceFlags through CuPy): how the thread waits for the GPU")
    ap.add_argument("--control", action="store_true",
                    help="also time reading the info object after a busy wait of the host thread "
                         "as long as the median C solve, without the library (stderr): what the "
                         "host costs after a wait of that length whatever the package does")
    args = ap.parse_args()

    cp = cpx = None
    if args.device == "cuda" and not args.numpy:
        import cupy as cp
        import cupyx.scipy.sparse as cpx
    if args.sched:
        import cupy

        flags = {"auto": 0, "spin": 1, "yield": 2, "blocking": 4}[args.sched]
        cupy.cuda.runtime.setDeviceFlags(flags)

    print(f"# spsolve {spsolve.library_version()} from {spsolve.library_path()}, "
          f"Python {sys.version.split()[0]}, numpy {np.__version__}"
          + (f", cupy {cp.__version__}" if cp else ""))
    print("# overhead = wall time of Solver.solve(b, out=x) - the library's solve time "
          "(info.solve_time); microseconds")
    cols = ["matrix", "n", "nnz", "device", "method", "its", "C_solve_med", "wall_med",
            "overhead_med", "overhead_p10", "overhead_p90"]
    print("\t".join(cols))
    for name, A, method, precond in matrices(args.matrices):
        method = args.method or method or "auto"
        precond = args.precond or precond or "auto"
        b = A @ np.ones(A.shape[0])
        if cp is not None:
            Ad = cpx.csr_matrix(A)
            Ad.sum_duplicates()
            bd = cp.asarray(b)
            out = cp.empty(A.shape[0])
            s = spsolve.Solver(Ad, method=method, precond=precond, device="cuda")
        else:
            bd = b
            out = np.empty(A.shape[0])
            s = spsolve.Solver(A, method=method, precond=precond, device=args.device)
        for _ in range(max(10, args.repeat // 20)):
            x, info = s.solve(bd, out=out)
        walls, cs = [], []
        for _ in range(args.repeat):
            t0 = time.perf_counter()
            x, info = s.solve(bd, out=out)
            t1 = time.perf_counter()
            walls.append(t1 - t0)
            cs.append(info.solve_time)
        over = [(w - c) * 1e6 for w, c in zip(walls, cs)]
        row = [name, str(A.shape[0]), str(A.nnz), info.device.split(" (")[0],
               f"{info.method}+{info.precond}", str(info.iterations),
               f"{statistics.median(cs) * 1e6:.1f}", f"{statistics.median(walls) * 1e6:.1f}",
               f"{statistics.median(over):.1f}", f"{pct(over, 0.1):.1f}",
               f"{pct(over, 0.9):.1f}"]
        print("\t".join(row))
        if args.breakdown:
            breakdown(s, bd, out, args.repeat, cp)
        if args.control:
            control(s, statistics.median(cs), args.repeat)
        s.close()


if __name__ == "__main__":
    main()
