"""conftest.py: fixtures of the Python package's tests: the bundled and shared matrices, read
with SciPy's own Matrix Market reader (so the comparisons do not trust spsolve's), and the
right-hand sides b = A x* for a seeded random x*."""

import gzip
import os

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

HERE = os.path.dirname(os.path.abspath(__file__))


def data_dir():
    """tests/data of the source tree (SPS_TEST_DATA under make check)."""
    return os.environ.get("SPS_TEST_DATA") or os.path.join(HERE, "..", "..", "tests", "data")


def shared_dir():
    """The shared real matrices (SPS_MATRICES), or None."""
    d = os.environ.get("SPS_MATRICES")
    if d and os.path.isfile(os.path.join(d, "MANIFEST.tsv")):
        return d
    return None


def load(path):
    """A Matrix Market file (.mtx or .mtx.gz) as a SciPy CSR matrix of float64."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        try:
            # SciPy 1.18 and later: ask for a sparse array (their default changes in 1.20)
            M = scipy.io.mmread(f, spmatrix=False)
        except TypeError:
            M = scipy.io.mmread(f)
        return sp.csr_matrix(M, dtype=np.float64)


def bundled(name):
    return load(os.path.join(data_dir(), name + ".mtx.gz"))


def rhs(A, seed=1):
    """(b, x*) with b = A x* for x* uniform in [-1, 1)."""
    xs = np.random.default_rng(seed).uniform(-1.0, 1.0, A.shape[1])
    return A @ xs, xs


def true_relres(A, x, b):
    """||b - A x||_2 / ||b||_2, computed here in NumPy."""
    return np.linalg.norm(b - A @ x) / np.linalg.norm(b)


@pytest.fixture(scope="session")
def spsolve_cli():
    """The spsolve tool of the build (SPS_BUILDDIR under make check), or skip."""
    b = os.environ.get("SPS_BUILDDIR")
    path = os.path.join(b, "spsolve") if b else None
    if not path or not os.access(path, os.X_OK):
        pytest.skip("no spsolve tool (SPS_BUILDDIR not set)")
    return path
