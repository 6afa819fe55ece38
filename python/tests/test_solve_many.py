"""test_solve_many.py: b of shape (n, k): x of shape (n, k), one ColumnInfo per column, each column
as the solve of that column alone (the same iterations and reason, x to the bit), block CG,
the Solver kept for blocks and vectors, and the bad shapes."""

import numpy as np
import pytest
import scipy.sparse as sp

import spsolve
from conftest import bundled, true_relres


def poisson2d(k):
    """The 2-D five-point Laplacian on a k x k grid (SPD)."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(k, k))
    eye = sp.identity(k)
    return (sp.kron(eye, t) + sp.kron(t, eye)).tocsr()


def columns(A, k, seed):
    """k right-hand sides: random ones, with a zero column and a tiny one among them."""
    rng = np.random.default_rng(seed)
    B = rng.uniform(-1.0, 1.0, (A.shape[0], k))
    if k > 2:
        B[:, 1] = 0.0
        B[:, 2] *= 1e-200
    return B


@pytest.mark.parametrize(
    "matrix, method, precond",
    [("poisson", "cg", "jacobi"), ("orsreg_1", "gmres", "ilu0"), ("orsreg_1", "bicgstab", "none")],
)
def test_columns_as_single_solves(matrix, method, precond):
    A = poisson2d(17) if matrix == "poisson" else bundled(matrix)
    B = columns(A, 6, 3)
    s = spsolve.Solver(A, method=method, precond=precond, device="cpu", history=True, rtol=1e-10)
    X, info = s.solve(B)
    assert X.shape == B.shape and isinstance(info, spsolve.ManySolveInfo)
    assert info.mode == "batched" and len(info.columns) == 6
    for j in range(6):
        x, one = s.solve(B[:, j].copy())
        c = info.columns[j]
        assert (c.reason, c.iterations) == (one.reason, one.iterations)
        assert np.array_equal(X[:, j], x) and c.residual_abs == one.residual_abs
        assert np.array_equal(c.history, one.history)
    assert info.columns[1].reason == "SPS_CONVERGED_ZERO_RHS" and not X[:, 1].any()
    assert info.converged and info.iterations == max(c.iterations for c in info.columns)
    assert info.total_iterations == sum(c.iterations for c in info.columns)


def test_solve_function_and_x0():
    A = poisson2d(15)
    B = columns(A, 4, 5)
    X, info = spsolve.solve(A, B, method="cg", precond="none", device="cpu")
    assert info.converged and X.shape == (A.shape[0], 4)
    for j in range(4):
        if B[:, j].any():
            f = 1.0 / np.abs(B[:, j]).max()
            assert true_relres(A, f * X[:, j], f * B[:, j]) <= 1.01e-8
    # From the solutions themselves every column takes 0 iterations; x0 is left unchanged.
    X0 = X.copy()
    X2, info2 = spsolve.solve(A, B, method="cg", precond="none", device="cpu", x0=X0)
    assert all(c.iterations == 0 for c in info2.columns) and np.array_equal(X0, X)
    # A Fortran-ordered b is accepted (copied to the library's row-major layout).
    X3, info3 = spsolve.solve(A, np.asfortranarray(B), method="cg", precond="none", device="cpu")
    assert np.array_equal(X3, X)


def test_block_cg_rank_deficient():
    A = poisson2d(19)
    B = columns(A, 5, 7)
    B[:, 3] = B[:, 0]  # two equal columns, and a zero one (column 1)
    X, info = spsolve.solve(A, B, method="block-cg", precond="jacobi", device="cpu")
    assert info.mode == "block-cg" and info.converged
    for j in (0, 2, 3, 4):
        # column 2 is of order 1e-200: scaled here, since NumPy's norm would underflow
        f = 1.0 / np.abs(B[:, j]).max()
        assert true_relres(A, f * X[:, j], f * B[:, j]) <= 1.01e-8
    assert np.array_equal(X[:, 0], X[:, 3]) or np.allclose(X[:, 0], X[:, 3], rtol=1e-7)


def test_solver_keeps_setup_for_blocks_and_vectors():
    A = bundled("nos3")
    s = spsolve.Solver(A, method="cg", precond="ic0", device="cpu", columns=2)
    B = columns(A, 2, 9)
    X, info = s.solve(B)
    assert info.converged and info.block_width == 2
    # A wider block makes the work space again; a vector still solves as before.
    X3, info3 = s.solve(columns(A, 3, 9))
    assert info3.converged and len(info3.columns) == 3
    x, one = s.solve(B[:, 0].copy())
    assert one.converged and np.array_equal(x, X[:, 0])


def test_bad_shapes():
    A = poisson2d(5)
    s = spsolve.Solver(A, device="cpu")
    with pytest.raises(ValueError):
        s.solve(np.ones((A.shape[0] + 1, 2)))
    with pytest.raises(ValueError):
        s.solve(np.ones((A.shape[0], 0)))
    with pytest.raises(ValueError):
        s.solve(np.ones((A.shape[0], 2)), x0=np.ones((A.shape[0], 3)))


def test_cupy_block():
    cp = pytest.importorskip("cupy")
    if spsolve.cuda_device_count() == 0:
        pytest.skip("no CUDA device")
    import cupyx.scipy.sparse as csp

    A = poisson2d(21)
    B = columns(A, 8, 11)
    Xc, info = spsolve.solve(csp.csr_matrix(A), cp.asarray(B), method="cg", precond="jacobi")
    assert isinstance(Xc, cp.ndarray) and info.converged and info.mode == "batched"
    X = Xc.get()
    s = spsolve.Solver(csp.csr_matrix(A), method="cg", precond="jacobi")
    for j in range(8):
        x, one = s.solve(cp.asarray(B[:, j]))
        assert one.iterations == info.columns[j].iterations
        assert np.array_equal(x.get(), X[:, j])
