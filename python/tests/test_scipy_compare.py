"""test_scipy_compare.py: spsolve against SciPy's solvers on real matrices: the same answer as
scipy.sparse.linalg.spsolve within the condition number's bound, the iteration counts of
SciPy's cg and gmres for the same unpreconditioned or Jacobi-preconditioned method, and
spsolve's preconditioner (Solver.preconditioner()) inside SciPy's gmres."""

import inspect
import os

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spsolve
from conftest import bundled, load, rhs, shared_dir, true_relres

BUNDLED_SQUARE = ["nos3", "orsreg_1", "watt_2", "add20", "bcsstk14", "1138_bus"]


def _tol_kw():
    """SciPy renamed cg's and gmres's tol to rtol in 1.12."""
    return "rtol" if "rtol" in inspect.signature(sla.cg).parameters else "tol"


def _counter():
    calls = [0]

    def cb(*args):
        calls[0] += 1

    return calls, cb


def cond1(A):
    """kappa_1(A) = ||A||_1 ||A^-1||_1, ||A^-1||_1 estimated (Higham's onenormest) on SciPy's LU."""
    lu = sla.splu(sp.csc_matrix(A))
    inv = sla.LinearOperator(A.shape, matvec=lu.solve, rmatvec=lambda v: lu.solve(v, "T"),
                             dtype=np.float64)
    return sla.onenormest(sp.csc_matrix(A)) * sla.onenormest(inv)


def check_against_direct(A, x, b, what):
    """||x - x_ref||_1 / ||x_ref||_1 <= kappa_1 (||b - A x||_1 / ||b||_1 + eps-level), with
    x_ref SciPy's direct solution (SuperLU), whose own error is of order kappa_1 * eps."""
    x_ref = sla.spsolve(sp.csc_matrix(A), b)
    kappa = cond1(A)
    r1 = np.linalg.norm(b - A @ x, 1) / np.linalg.norm(b, 1)
    err = np.linalg.norm(x - x_ref, 1) / np.linalg.norm(x_ref, 1)
    bound = kappa * (2.0 * r1 + 1e-13)
    assert err <= bound, f"{what}: error {err:.2e} against SciPy's spsolve, bound {bound:.2e}"
    return err


@pytest.mark.parametrize("name", BUNDLED_SQUARE)
def test_defaults_match_scipy_direct(name):
    A = bundled(name)
    b, _ = rhs(A)
    x, info = spsolve.solve(A, b, device="cpu")
    assert info.converged, str(info)
    rel = true_relres(A, x, b)
    assert rel <= 1.01e-8, f"true relative residual {rel:.2e} above rtol"
    # The library's own residual is the one computed here, to rounding.
    assert abs(info.residual_rel - rel) <= 1e-3 * rel + 1e-15
    check_against_direct(A, x, b, name)


@pytest.mark.parametrize("name,precond", [("nos3", "none"), ("nos3", "jacobi"),
                                          ("1138_bus", "none"), ("1138_bus", "jacobi"),
                                          ("bcsstk14", "jacobi")])
def test_cg_iterations_match_scipy_cg(name, precond):
    """The same method (CG, Jacobi-preconditioned or not) from x0 = 0 with the same stopping
    test takes the same iterations as SciPy's cg, up to rounding (3%)."""
    A = bundled(name)
    b, _ = rhs(A)
    calls, cb = _counter()
    M = None
    if precond == "jacobi":
        d = 1.0 / A.diagonal()
        M = sla.LinearOperator(A.shape, matvec=lambda r: d * r, dtype=np.float64)
    x_sp, flag = sla.cg(A, b, atol=0.0, maxiter=20000, M=M, callback=cb, **{_tol_kw(): 1e-8})
    assert flag == 0
    x, info = spsolve.solve(A, b, method="cg", precond=precond, device="cpu", maxit=20000)
    assert info.converged and info.method == "cg" and info.precond == precond
    assert abs(info.iterations - calls[0]) <= 0.03 * calls[0], (info.iterations, calls[0])
    assert true_relres(A, x, b) <= 1.01e-8


@pytest.mark.parametrize("name", ["orsreg_1", "watt_2", "add20"])
def test_gmres_iterations_match_scipy_gmres(name):
    """Unpreconditioned GMRES(30) from 0: SciPy's inner iterations, to rounding (5%)."""
    A = bundled(name)
    b, _ = rhs(A)
    calls, cb = _counter()
    x_sp, flag = sla.gmres(A, b, atol=0.0, restart=30, maxiter=2000, callback=cb,
                           callback_type="pr_norm", **{_tol_kw(): 1e-8})
    assert flag == 0
    x, info = spsolve.solve(A, b, method="gmres", precond="none", restart=30, device="cpu",
                            maxit=20000)
    assert info.converged and info.method == "gmres"
    assert abs(info.iterations - calls[0]) <= 0.05 * calls[0] + 1, (info.iterations, calls[0])
    assert true_relres(A, x, b) <= 1.01e-8


@pytest.mark.parametrize("name", ["orsreg_1", "add20"])
def test_preconditioner_inside_scipy_gmres(name):
    """spsolve's ILU(0) as SciPy's M: SciPy's gmres converges in under half the iterations
    it needs without it, to the right answer."""
    A = bundled(name)
    b, _ = rhs(A)
    s = spsolve.Solver(A, method="gmres", precond="ilu0", device="cpu")
    kw = {_tol_kw(): 1e-8, "atol": 0.0, "restart": 30, "maxiter": 2000,
          "callback_type": "pr_norm"}
    plain, cb0 = _counter()
    sla.gmres(A, b, callback=cb0, **kw)
    pre, cb1 = _counter()
    x, flag = sla.gmres(A, b, M=s.preconditioner(), callback=cb1, **kw)
    assert flag == 0
    assert pre[0] < plain[0] / 2, (pre[0], plain[0])
    assert true_relres(A, x, b) <= 1e-7


def _shared_square(max_nnz=200000):
    d = shared_dir()
    if d is None:
        return []
    out = []
    with open(os.path.join(d, "MANIFEST.tsv")) as f:
        next(f)
        for line in f:
            cols = line.rstrip("\n").split("\t")
            name, rows, ncols, nnz = cols[0], int(cols[1]), int(cols[2]), int(cols[3])
            if rows == ncols and nnz <= max_nnz:
                out.append(name)
    return out


@pytest.mark.skipif(shared_dir() is None, reason="SPS_MATRICES (the shared matrices) not set")
@pytest.mark.parametrize("name", _shared_square() or ["none"])
def test_shared_matrix_matches_scipy_direct(name):
    """Every square shared matrix (up to 200,000 stored entries) with the defaults: converged,
    and the answer of SciPy's spsolve within the condition number's bound."""
    A = load(os.path.join(shared_dir(), name))
    b, _ = rhs(A)
    x, info = spsolve.solve(A, b, device="cpu")
    assert info.converged, f"{name}: {info}"
    assert true_relres(A, x, b) <= 1.01e-8
    check_against_direct(A, x, b, name)
