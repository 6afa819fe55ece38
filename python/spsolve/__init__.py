"""spsolve: Krylov solvers for sparse A x = b on NVIDIA GPUs and CPUs, from SciPy and CuPy.

A thin layer over the installed C library libspsolve (through ctypes; no compiled extension).

    >>> import spsolve, scipy.sparse as sp, numpy as np
    >>> A = sp.diags([-1, 2.5, -1], [-1, 0, 1], shape=(100, 100), format="csr")
    >>> x, info = spsolve.solve(A, np.ones(100))
    >>> info.converged, info.method, info.precond
    (True, 'cg', 'ic0')

solve(A, b, ...)       one solve; returns (x, info); b of shape (n, k): k right-hand sides
                       solved together (batched, or block CG), x (n, k), a ManySolveInfo
Solver(A, ...)         set up once, then solve(b) for many b; aslinearoperator() (A^-1) and
                       preconditioner() (M^-1) for SciPy code
read_matrix(path)      a Matrix Market file as a scipy.sparse.csr_matrix, by the library's reader

A may be a scipy.sparse matrix or array in any format, or a cupyx.scipy.sparse matrix, whose
device arrays the library uses in place on the same GPU. b may be a NumPy or a CuPy array.
Errors raise SpsolveError (status name and the library's message); a solve that does not
converge returns normally with the reason in info, or raises ConvergenceError with check=True.

The library is found through SPSOLVE_LIB (the file), SPSOLVE_PREFIX (an installation
prefix), pkg-config, or the loader's search path, in that order.
"""

from ._core import (
    Attempt,
    ColumnInfo,
    ConvergenceError,
    Context,
    ManySolveInfo,
    SolveInfo,
    Solver,
    SpsolveError,
    cuda_device_count,
    get_context,
    have_cuda,
    library_path,
    library_version,
    precond_params,
    read_matrix,
    solve,
)
from ._lib import LibraryNotFoundError

__version__ = "0.1.0"

__all__ = [
    "Attempt",
    "ColumnInfo",
    "ConvergenceError",
    "Context",
    "LibraryNotFoundError",
    "ManySolveInfo",
    "SolveInfo",
    "Solver",
    "SpsolveError",
    "cuda_device_count",
    "get_context",
    "have_cuda",
    "library_path",
    "library_version",
    "precond_params",
    "read_matrix",
    "solve",
]
