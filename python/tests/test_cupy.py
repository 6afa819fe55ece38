"""test_cupy.py: CuPy data on the GPU. A cupyx.scipy.sparse matrix and CuPy vectors are solved
where they lie: the library's matrix arrays and vectors are the CuPy arrays' own memory (the
addresses compared), the solve makes no device allocation in Python and no host copy, and x
comes back in the array passed in, on the first solve and on those after it (Solver.solve's
common case). Also: the answers against the CPU's, mixed NumPy and CuPy inputs, and the CuPy
LinearOperator. Skips without CuPy, a GPU or a CUDA build of libspsolve."""

import numpy as np
import pytest

import spsolve
from conftest import bundled, rhs

cp = pytest.importorskip("cupy")
cpx = pytest.importorskip("cupyx.scipy.sparse")

try:
    _gpus = cp.cuda.runtime.getDeviceCount()
except Exception:  # no driver, no device
    _gpus = 0
if _gpus == 0:
    pytest.skip("no GPU for CuPy", allow_module_level=True)
if not spsolve.have_cuda() or spsolve.cuda_device_count() == 0:
    pytest.skip("libspsolve has no CUDA backend or sees no GPU", allow_module_level=True)


class CountAllocations(cp.cuda.MemoryHook):
    """Counts the device allocations CuPy makes while it is active."""

    name = "CountAllocations"

    def __init__(self):
        self.count = 0

    def malloc_preprocess(self, **kwargs):
        self.count += 1


def gpu_matrix(name):
    A = cpx.csr_matrix(bundled(name))
    A.sum_duplicates()  # canonical, so the arrays are used as they are
    return A


def gpu_relres(A, x, b):
    return float(cp.linalg.norm(b - A @ x) / cp.linalg.norm(b))


@pytest.mark.parametrize("name", ["orsreg_1", "nos3"])
def test_zero_copy(name):
    A = gpu_matrix(name)
    n = A.shape[0]
    b = cp.asarray(rhs(bundled(name))[0])
    s = spsolve.Solver(A)
    assert s.ctx.is_cuda and s.ctx.index == A.data.device.id
    # The kernels read the CuPy matrix's own arrays (int32 offsets: CuPy's indptr).
    rp, rp32, ci, va = s.matrix_device_arrays()
    assert rp32 == A.indptr.data.ptr
    assert ci == A.indices.data.ptr
    assert va == A.data.data.ptr
    out = cp.empty(n)
    ptr = out.data.ptr
    s._trace_pointers = True
    hook = CountAllocations()
    with hook:
        x, info = s.solve(b, out=out)
    assert info.converged, str(info)
    # x is the array passed in, written in place by the library: the vectors the solve ran
    # on were b's and out's memory (sps_vector_get_data of the wrapped vectors).
    assert x is out and x.data.ptr == ptr
    assert s.last_vector_data == (b.data.ptr, ptr)
    assert hook.count == 0, f"{hook.count} device allocations during the solve"
    assert gpu_relres(A, x, b) <= 1.01e-8
    # The solves after the first take Solver.solve's common case (not _solve_general): the
    # same in place, for another b and for out again, then without out (x a new CuPy array).
    def general(*args):
        raise AssertionError("the solve did not take the common case")

    s._solve_general = general
    b2 = 2.0 * b
    hook = CountAllocations()
    with hook:
        x2, info2 = s.solve(b2, out=out)
    assert x2 is out and s.last_vector_data == (b2.data.ptr, ptr)
    assert hook.count == 0, f"{hook.count} device allocations during the solve"
    assert info2.converged and info2.method == info.method, str(info2)
    assert gpu_relres(A, x2, b2) <= 1.01e-8
    x3, info3 = s.solve(b)
    assert isinstance(x3, cp.ndarray) and x3.device.id == A.data.device.id and x3 is not out
    assert s.last_vector_data == (b.data.ptr, x3.data.ptr)
    assert info3.converged and gpu_relres(A, x3, b) <= 1.01e-8
    assert info3.method == info.method and info3.precond == info.precond


@pytest.mark.parametrize("name", ["orsreg_1", "nos3", "watt_2"])
def test_gpu_answers_match_the_cpu(name):
    Ah = bundled(name)
    b, _ = rhs(Ah)
    x_cpu, info_cpu = spsolve.solve(Ah, b, device="cpu")
    x_gpu, info_gpu = spsolve.solve(gpu_matrix(name), cp.asarray(b))
    assert isinstance(x_gpu, cp.ndarray)
    assert info_gpu.converged and info_gpu.method == info_cpu.method
    assert info_gpu.precond == info_cpu.precond
    # The backends round alike (doc/design.md): the same iterations, usually the same bits.
    assert abs(info_gpu.iterations - info_cpu.iterations) <= 0.05 * info_cpu.iterations
    x = cp.asnumpy(x_gpu)
    assert np.linalg.norm(b - Ah @ x) / np.linalg.norm(b) <= 1.01e-8


def test_mixed_numpy_and_cupy():
    Ah = bundled("orsreg_1")
    b, _ = rhs(Ah)
    # A CuPy matrix and a NumPy b: b is uploaded, x comes back as NumPy.
    x, info = spsolve.solve(gpu_matrix("orsreg_1"), b)
    assert isinstance(x, np.ndarray) and info.converged
    assert np.linalg.norm(b - Ah @ x) / np.linalg.norm(b) <= 1.01e-8
    # A SciPy matrix and a CuPy b: the matrix is copied to b's GPU, x is CuPy.
    x, info = spsolve.solve(Ah, cp.asarray(b))
    assert isinstance(x, cp.ndarray) and info.converged and "CUDA" in info.device
    # CuPy data on a CPU context: copied to the host, x back to CuPy.
    x, info = spsolve.solve(gpu_matrix("orsreg_1"), cp.asarray(b), device="cpu")
    assert isinstance(x, cp.ndarray) and info.converged and info.device.startswith("CPU")


def test_cupy_linear_operators():
    A = gpu_matrix("orsreg_1")
    b = cp.asarray(rhs(bundled("orsreg_1"))[0])
    s = spsolve.Solver(A, precond="jacobi")
    import cupyx.scipy.sparse.linalg as cla

    Ainv = s.aslinearoperator()
    assert isinstance(Ainv, cla.LinearOperator)
    x = Ainv.matvec(b)
    assert gpu_relres(A, x, b) <= 1.01e-8
    d = A.diagonal()
    z = s.preconditioner().matvec(b)
    assert bool(cp.all(z == (1.0 / d) * b))
