"""test_errors.py: bad input raises an exception that carries the library's status name and
message (or a Python TypeError/ValueError for what never reaches the library), and the library
loader's order (SPSOLVE_LIB, SPSOLVE_PREFIX, pkg-config) and its message when nothing loads."""

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp

import spsolve
from conftest import bundled


@pytest.fixture(scope="module")
def nos3():
    return bundled("nos3")


def test_not_square_is_the_library_size_error():
    A = sp.random(5, 4, density=0.5, format="csr", random_state=1)
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.solve(A, np.ones(5), device="cpu")
    assert e.value.status_name == "SPS_ERR_SIZE" and e.value.status == -2
    assert "not square" in e.value.message
    assert str(e.value).startswith("SPS_ERR_SIZE: sps_solver_setup")


def test_bad_precond_parameter_names_it(nos3):
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.Solver(nos3, precond_params={"ilut.fil": 3}, device="cpu")
    assert e.value.status_name == "SPS_ERR_ARGUMENT" and "ilut.fil" in e.value.message
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.Solver(nos3, precond_params={"cheby.degree": 1000}, device="cpu")
    assert "cheby.degree" in e.value.message


def test_bad_tolerances_are_the_library_argument_error(nos3):
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.Solver(nos3, rtol=-1.0, device="cpu")
    assert e.value.status_name == "SPS_ERR_ARGUMENT"
    with pytest.raises(spsolve.SpsolveError):
        spsolve.Solver(nos3, maxit=0, device="cpu")


def test_failing_preconditioner_setup():
    """Jacobi named for a matrix with zero diagonal entries fails at setup with the library's
    message."""
    A = sp.csr_matrix(np.array([[0.0, 1.0], [1.0, 0.0]]))
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.solve(A, np.ones(2), method="gmres", precond="jacobi", device="cpu")
    assert e.value.status_name == "SPS_ERR_UNSUPPORTED" and "diagonal" in e.value.message


def test_python_side_errors(nos3):
    n = nos3.shape[0]
    with pytest.raises(ValueError, match="shape"):
        spsolve.solve(nos3, np.ones(n + 1), device="cpu")
    with pytest.raises(ValueError, match="unknown solver"):
        spsolve.Solver(nos3, method="minres")
    with pytest.raises(ValueError, match="unknown precond"):
        spsolve.Solver(nos3, precond="multigrid")
    with pytest.raises(ValueError, match="device"):
        spsolve.Solver(nos3, device="tpu")
    with pytest.raises(TypeError, match="scipy.sparse"):
        spsolve.solve(nos3.toarray(), np.ones(n), device="cpu")
    with pytest.raises(TypeError, match="complex"):
        spsolve.solve(nos3.astype(np.complex128), np.ones(n), device="cpu")
    with pytest.raises(TypeError, match="complex"):
        spsolve.solve(nos3, np.ones(n, dtype=np.complex128), device="cpu")
    with pytest.raises(spsolve.SpsolveError, match="setup"):
        spsolve.Solver(device="cpu").solve(np.ones(3))


@pytest.mark.skipif(spsolve.cuda_device_count() > 0, reason="a GPU is present")
def test_cuda_without_a_gpu():
    with pytest.raises(spsolve.SpsolveError) as e:
        spsolve.get_context("cuda")
    assert e.value.status_name in ("SPS_ERR_NO_DEVICE", "SPS_ERR_UNSUPPORTED")
    assert e.value.message


def _python(code, env):
    """Run code in a fresh interpreter (the library is loaded once per process)."""
    base = {k: v for k, v in os.environ.items()
            if k not in ("SPSOLVE_LIB", "SPSOLVE_PREFIX", "PKG_CONFIG_PATH")}
    base.update(env)
    base["PYTHONPATH"] = os.pathsep.join(p for p in sys.path if p)
    return subprocess.run([sys.executable, "-c", code], env=base, capture_output=True, text=True,
                          timeout=120)


def test_loader_spsolve_lib_missing_names_the_file():
    r = _python("import spsolve; spsolve.library_version()",
                {"SPSOLVE_LIB": "/nonexistent/libspsolve.so"})
    assert r.returncode != 0
    assert "LibraryNotFoundError" in r.stderr and "/nonexistent/libspsolve.so" in r.stderr
    assert "SPSOLVE_LIB is set" in r.stderr


def test_loader_prefix_lists_its_folders(tmp_path):
    r = _python("import spsolve; spsolve.library_version()", {"SPSOLVE_PREFIX": str(tmp_path)})
    assert r.returncode != 0
    assert os.path.join(str(tmp_path), "lib", "libspsolve.so") in r.stderr
    assert os.path.join(str(tmp_path), "lib64", "libspsolve.so") in r.stderr


def test_loader_prefix_and_pkg_config_find_the_library(tmp_path):
    lib = spsolve.library_path()
    if not os.path.isabs(lib):
        pytest.skip("the library was loaded by name, not from a file")
    libdir = tmp_path / "lib"
    libdir.mkdir()
    os.symlink(lib, libdir / "libspsolve.so")
    code = "import spsolve; print(spsolve.library_path()); print(spsolve.library_version())"
    r = _python(code, {"SPSOLVE_PREFIX": str(tmp_path)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == str(libdir / "libspsolve.so")
    if shutil.which("pkg-config") is None:
        pytest.skip("no pkg-config")
    pc = tmp_path / "pc"
    pc.mkdir()
    (pc / "spsolve.pc").write_text(
        f"libdir={libdir}\nName: spsolve\nDescription: test\nVersion: 0\nLibs: -L${{libdir}}\n")
    r = _python(code, {"PKG_CONFIG_PATH": str(pc)})
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == str(libdir / "libspsolve.so")


def test_loader_says_what_it_tried_when_nothing_loads(tmp_path):
    # An empty pkg-config path and a loader path without the library.
    r = _python("import spsolve; spsolve.library_version()",
                {"PKG_CONFIG_PATH": str(tmp_path), "PKG_CONFIG_LIBDIR": str(tmp_path),
                 "LD_LIBRARY_PATH": str(tmp_path)})
    if r.returncode == 0:
        pytest.skip("libspsolve is installed system-wide")
    assert "pkg-config" in r.stderr and "libspsolve.so" in r.stderr
    assert "SPSOLVE_LIB" in r.stderr and "SPSOLVE_PREFIX" in r.stderr
