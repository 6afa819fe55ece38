#!/usr/bin/env python3
"""python-overhead.py: the time the Python package adds to a solve, beyond the C solve.

For each matrix a spsolve.Solver is set up once; then every repetition times
Solver.solve(b, out=x) with time.perf_counter() around it and subtracts the library's own time
of that solve (sps_solver_get_times, read from info.solve_time: the wall clock inside
sps_solver_solve with the device synchronised). The difference is what Python costs per solve:
argument checks, the addresses of b and x (wrapped by sps_vector_wrap, no copy, and kept while
they repeat), the ctypes calls, and keeping the library's report for the info object (decoded
when read, outside the timed call). The target of issue 12 is under 50 us.

    python3 bench/python-overhead.py [--device cpu|cuda] [--repeat N] [--numpy]
                                     [--method M] [--precond P] [--breakdown] [--control]
                                     [--sleep MS] [MATRIX.mtx[.gz] ...]

--device cuda solves CuPy data on the GPU (zero copy; needs CuPy); add --numpy to time NumPy
vectors on the GPU instead (then each solve also uploads b and x0 and downloads x, which is
counted as overhead). Without matrices: the bundled nos3, orsreg_1 and a tridiagonal matrix
of order 100 solved by Jacobi-CG (a solve of a few microseconds, where the overhead shows).
Python run right after a long solve is slower than the same code run warm (issue 12's GPU
figures; --control measures it): a long solve (a larger matrix such as bcsstk14 of the shared
set), or --sleep MS (the thread idles that long before each timed solve, outside the timed
call), shows that on the CPU too.
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


class _Timed:
    """Calls fn and records perf_counter right before and right after it (stamps)."""

    def __init__(self, fn, stamps):
        self.fn, self.stamps = fn, stamps

    def __call__(self, *args):
        pc = time.perf_counter
        st = self.stamps
        st.append(pc())
        r = self.fn(*args)
        st.append(pc())
        return r


class _TimedStream:
    """CuPy's get_current_stream(), giving a stream whose synchronize() is timed into stamps."""

    def __init__(self, get, stamps):
        self.get, self.stamps = get, stamps

    def __call__(self):
        self.synchronize = _Timed(self.get().synchronize, self.stamps)
        return self


def _idle(sleep):
    if sleep:
        time.sleep(sleep)


def breakdown(s, b, out, repeat, cp, sleep):
    """Solver.solve(b, out=out) itself, taken apart by timing the C solve (and on the GPU the
    stream synchronisation) from inside: the Solver's bound sps_solver_solve (and CuPy's
    get_current_stream) replaced by timed wrappers for these repetitions. pre = the Python
    before the C call (argument checks, addresses, the wrapped vectors kept, and stream_sync
    on the GPU), c_call = sps_solver_solve seen from Python, c_outside = the part of it
    outside the library's own clock, post = from the C call's return to solve's return (the
    status, the report kept, the info object). The medians go to stderr in microseconds;
    each wrapper adds about two perf_counter calls to pre and post."""
    stamps, sync = [], []
    real_solve, real_stream = s._c_solve, s._current_stream
    s._c_solve = _Timed(real_solve, stamps)
    if cp is not None:
        s._current_stream = _TimedStream(real_stream, sync)
    steps = {k: [] for k in ("pre", "stream_sync", "c_call", "c_outside", "post", "total")}
    pc = time.perf_counter
    try:
        for _ in range(repeat):
            _idle(sleep)
            del stamps[:], sync[:]
            t0 = pc()
            x, info = s.solve(b, out=out)
            t1 = pc()
            c0, c1 = stamps
            steps["pre"].append((c0 - t0) * 1e6)
            steps["stream_sync"].append((sync[1] - sync[0]) * 1e6 if sync else 0.0)
            steps["c_call"].append((c1 - c0) * 1e6)
            steps["c_outside"].append((c1 - c0 - info.solve_time) * 1e6)
            steps["post"].append((t1 - c1) * 1e6)
            steps["total"].append((t1 - t0 - info.solve_time) * 1e6)
    finally:
        s._c_solve, s._current_stream = real_solve, real_stream
    print("# breakdown (median us): " + ", ".join(
        f"{k} {statistics.median(v):.1f}" for k, v in steps.items()), file=sys.stderr)


def control(s, wait, repeat):
    """What solve does after the C call returns (s._take_info: the report kept, the info
    object), timed after a busy wait of `wait` seconds on the host with no library call, and
    again right after: the host's own cost after a wait of that length whatever the package
    does, to compare with the post step of the breakdown."""
    h = s._handle
    pc = time.perf_counter
    after_wait, after_nothing = [], []
    for _ in range(repeat):
        t = pc()
        while pc() - t < wait:
            pass
        t0 = pc()
        s._take_info(h)
        t1 = pc()
        s._take_info(h)
        t2 = pc()
        after_wait.append((t1 - t0) * 1e6)
        after_nothing.append((t2 - t1) * 1e6)
    print(f"# control: post after a {wait * 1e3:.2f} ms busy wait "
          f"{statistics.median(after_wait):.1f} us, right after that "
          f"{statistics.median(after_nothing):.1f} us (medians)", file=sys.stderr)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("matrices", nargs="*")
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    ap.add_argument("--repeat", type=int, default=2000)
    ap.add_argument("--numpy", action="store_true", help="NumPy vectors even on the GPU")
    ap.add_argument("--method", default=None)
    ap.add_argument("--precond", default=None)
    ap.add_argument("--breakdown", action="store_true",
                    help="also time Solver.solve before, in and after the C call (stderr)")
    ap.add_argument("--sleep", type=float, default=0.0, metavar="MS",
                    help="sleep MS milliseconds before each timed solve (not timed): Python "
                         "after an idle wait, as after a long solve")
    ap.add_argument("--sched", choices=("auto", "spin", "yield", "blocking"), default=None,
                    help="set the CUDA device's host-wait policy before the context is made "
                         "(cudaSetDeviceFlags through CuPy): how the thread waits for the GPU")
    ap.add_argument("--control", action="store_true",
                    help="also time solve's step after the C call (the info object) after a "
                         "busy wait of the host thread as long as the median C solve, without the "
                         "library (stderr): what the host costs after a wait of that length "
                         "whatever the package does")
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
          "(info.solve_time); microseconds" + (f"; {args.sleep} ms asleep before each solve"
                                               if args.sleep else ""))
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
        sleep = args.sleep * 1e-3
        for _ in range(args.repeat):
            _idle(sleep)
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
            breakdown(s, bd, out, args.repeat, cp, sleep)
        if args.control:
            control(s, statistics.median(cs), args.repeat)
        s.close()


if __name__ == "__main__":
    main()
