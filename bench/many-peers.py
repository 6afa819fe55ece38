#!/usr/bin/env python3
"""many-peers.py: the peer side of solve-many-bench: the same k columns solved one by one with CuPy's cg/gmres (or SciPy's, --dry-run), same columns.

For each Matrix Market file: A (negated with --negate), b_j = A x*_j with x*_j the seeded random
vector solve-many-bench makes (splitmix64 with seed S + j, uniform in [-1, 1)), x0 = 0, stop at
||r_j|| <= rtol*||b_j||. CuPy (and SciPy) solve one right-hand side per call, so the k columns
are solved one after another: each solve is timed with the wall clock around the call, the
device synchronised before and after, the median of --repeat runs, after a warm-up solve of a
tiny system; single_ms for k is the sum of the first k columns' times, one_ms its mean. The
TSV has solve-many-bench's columns where they apply (together_* are empty: there is no
together), so bench/plot-many.py puts the two side by side. Iterations are counted as
peers.py counts them (CuPy GMRES: cycles times restart).
"""

import argparse
import datetime
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from peers import Backend, matrix_name, splitmix64_sym  # noqa: E402

COLUMNS = ["matrix", "impl", "solver", "precond", "rows", "nnz", "k", "single_ms", "one_ms",
           "single_its_max", "single_its_total", "converged", "max_relres", "status"]


def fmt(x, spec):
    return "-" if x is None or (isinstance(x, float) and not np.isfinite(x)) else format(x, spec)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("files", nargs="+", help="Matrix Market files (.mtx or .mtx.gz)")
    ap.add_argument("--k", default="1,2,4,8,16,32,64", help="column counts (default 1,...,64)")
    ap.add_argument("--solver", choices=["cg", "gmres"], default="cg")
    ap.add_argument("--rtol", type=float, default=1e-8)
    ap.add_argument("--restart", type=int, default=30)
    ap.add_argument("--maxit", type=int, default=10000, help="iterations (GMRES: inner ones)")
    ap.add_argument("--negate", action="store_true", help="solve with -A")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--repeat", type=int, default=3, help="solves per column, median time")
    ap.add_argument("--tsv", help="write the results as TSV")
    ap.add_argument("--dry-run", action="store_true", help="use SciPy on the CPU instead of CuPy")
    a = ap.parse_args(argv)
    ks = sorted({int(v) for v in a.k.split(",")})
    kmax = ks[-1]

    import scipy.io
    import scipy.sparse as sp

    be = Backend(a.dry_run)
    date = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    header = [
        "# many-peers.py (%s)" % be.impl,
        "# device: %s" % be.device,
        "# date: %s" % date,
        "# command: %s" % " ".join(sys.argv[1:] if argv is None else argv),
        "# x0 = 0, b_j = A*x*_j, x*_j uniform random in [-1,1) with seed %d + j%s; one column per "
        "call; wall clock around the call, device synchronised, median of %d solves per column"
        % (a.seed, " (A negated)" if a.negate else "", a.repeat),
    ]
    print("many-peers.py: %s" % be.device, file=sys.stderr)
    tiny = sp.diags([np.full(8, 4.0), np.full(7, -1.0), np.full(7, -1.0)], [0, -1, 1]).tocsr()
    At, bt = be.upload(tiny, np.ones(8))
    be.solve(a.solver, At, bt, 1e-8, 4, 50)
    be.sync()

    rows = []
    failed = False
    for i, path in enumerate(a.files):
        name = matrix_name(path) + ("(-A)" if a.negate else "")
        try:
            A = sp.csr_matrix(scipy.io.mmread(path), dtype=np.float64)
            if a.negate:
                A = -A
            m, n = A.shape
            times, its, relres, conv = [], [], [], []
            Ad = None
            for j in range(kmax):
                xs = splitmix64_sym(n, a.seed + j)
                b = A @ xs
                if Ad is None:
                    Ad, bd = be.upload(A, b)
                else:
                    bd = b.copy() if be.dry else be.cp.asarray(b)
                t = []
                for _ in range(a.repeat):
                    be.sync()
                    t0 = time.perf_counter()
                    xd, it, info = be.solve(a.solver, Ad, bd, a.rtol, a.restart, a.maxit)
                    be.sync()
                    t.append(time.perf_counter() - t0)
                times.append(float(np.median(t)))
                its.append(it)
                x = be.download(xd)
                nb = np.linalg.norm(b)
                relres.append(np.linalg.norm(b - A @ x) / (nb if nb > 0 else 1.0))
                conv.append(info == 0)
            for k in ks:
                single = sum(times[:k])
                row = dict(matrix=name, impl=be.impl, solver=a.solver, precond="none",
                           rows=str(m), nnz=str(A.nnz), k=str(k), single_ms=fmt(1e3 * single, ".3f"),
                           one_ms=fmt(1e3 * single / k, ".4f"), single_its_max=str(max(its[:k])),
                           single_its_total=str(sum(its[:k])), converged=str(sum(conv[:k])),
                           max_relres=fmt(max(relres[:k]), ".3e"), status="ok")
                bad = [j for j in range(k) if conv[j] and not relres[j] <= 10 * a.rtol]
                if bad:
                    row["status"] = "WRONG: column %d converged but relres %.3e > 10*rtol" % (
                        bad[0], relres[bad[0]])
                    failed = True
                rows.append(row)
            print("many-peers.py: [%d/%d] %s: %d columns, %.3f ms each on average"
                  % (i + 1, len(a.files), name, kmax, 1e3 * sum(times) / kmax), file=sys.stderr)
        except Exception as e:  # report the failure in the table and go on
            rows.append(dict.fromkeys(COLUMNS, "-") | dict(
                matrix=name, impl=be.impl, solver=a.solver,
                status=("error: %s: %s" % (type(e).__name__, e)).replace("\t", " ")))
            failed = True
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
