"""test_solver.py: the Solver object and solve(): setup kept between solves, x0 and out, the
info object, every SciPy input format, arrays used in place on the CPU (the library's
pointers are the NumPy arrays'), the LinearOperator interfaces, and read_matrix."""

import copy
import os

import numpy as np
import pytest
import scipy.sparse as sp
import scipy.sparse.linalg as sla

import spsolve
from conftest import bundled, data_dir, rhs, true_relres


def addr(a):
    return a.__array_interface__["data"][0]


@pytest.fixture(scope="module")
def orsreg():
    return bundled("orsreg_1")


@pytest.fixture(scope="module")
def nos3():
    return bundled("nos3")


def test_setup_once_solve_many(orsreg):
    s = spsolve.Solver(orsreg, device="cpu")
    setup_times = set()
    for seed in range(1, 5):
        b, xs = rhs(orsreg, seed)
        x, info = s.solve(b)
        assert info.converged and true_relres(orsreg, x, b) <= 1.01e-8
        setup_times.add(info.setup_time)
    # One setup: every solve reports the same setup time, taken before the first.
    assert len(setup_times) == 1
    assert info.method == "gmres" and info.precond == "ilu0"


def test_info_fields(orsreg):
    b, _ = rhs(orsreg)
    x, info = spsolve.solve(orsreg, b, device="cpu", history=True)
    assert info.reason == "SPS_CONVERGED_RTOL" and info.converged
    assert info.reason_text.startswith("converged")
    assert info.residual == (info.residual_abs, info.residual_rel)
    assert info.residual_abs == pytest.approx(info.residual_rel * np.linalg.norm(b), rel=1e-12)
    assert len(info.history) == info.iterations + 1
    # x0 = 0: the initial residual is b.
    assert info.history[0] == pytest.approx(np.linalg.norm(b), rel=1e-14)
    assert info.history[-1] <= 1e-8 * np.linalg.norm(b) * 1.01
    assert info.spmv and info.device.startswith("CPU")
    assert [a.used for a in info.attempts] == [True] and info.attempts[0].precond == "ilu0"
    assert info.attempts[0].iterations == info.iterations
    assert info.precond_info["type"] == "ilu0" and info.precond_info["nnz_factors"] > 0
    assert info.solve_time > 0 and info.setup_time > 0
    assert "gmres+ilu0" in str(info)


def test_no_history_unless_asked(orsreg):
    b, _ = rhs(orsreg)
    _, info = spsolve.solve(orsreg, b, device="cpu")
    assert info.history is None


def test_x0_exact_takes_no_iteration(nos3):
    b, xs = rhs(nos3)
    x_exact = sla.spsolve(sp.csc_matrix(nos3), b)
    x0 = x_exact.copy()
    x, info = spsolve.solve(nos3, b, x0=x0, device="cpu")
    assert info.iterations == 0 and info.converged
    assert np.array_equal(x0, x_exact), "x0 is left unchanged"


def test_out_is_written_in_place(nos3):
    b, _ = rhs(nos3)
    s = spsolve.Solver(nos3, device="cpu")
    s._trace_pointers = True
    out = np.full(nos3.shape[0], 123.0)
    x, info = s.solve(b, out=out)
    assert x is out and info.converged
    assert true_relres(nos3, out, b) <= 1.01e-8
    # The library solved in b's and out's own memory: no copy on the CPU.
    assert s.last_vector_data == (addr(b), addr(out))
    # out without x0 starts from 0 (123 everywhere would change the iterations).
    _, info0 = s.solve(b)
    assert info.iterations == info0.iterations


def test_out_with_x0(nos3):
    b, _ = rhs(nos3)
    s = spsolve.Solver(nos3, device="cpu")
    x_exact = sla.spsolve(sp.csc_matrix(nos3), b)
    out = np.zeros(nos3.shape[0])
    _, info = s.solve(b, x0=x_exact, out=out)
    assert info.iterations == 0
    out2 = x_exact.copy()
    _, info = s.solve(b, x0=out2, out=out2)
    assert info.iterations == 0


def test_out_sharing_b_is_refused(nos3):
    b, _ = rhs(nos3)
    s = spsolve.Solver(nos3, device="cpu")
    with pytest.raises(ValueError, match="share memory"):
        s.solve(b, out=b)
    with pytest.raises(ValueError, match="float64"):
        s.solve(b, out=np.zeros(nos3.shape[0], dtype=np.float32))


def test_matrix_used_in_place_on_the_cpu(nos3):
    """A canonical CSR float64 matrix with int32 indices: the library's arrays are SciPy's."""
    A = nos3.copy()
    assert A.indices.dtype == np.int32 and A.has_canonical_format
    s = spsolve.Solver(A, device="cpu")
    rp, rp32, ci, va = s.matrix_device_arrays()
    assert ci == addr(A.indices) and va == addr(A.data)
    assert rp32 is None  # int32 offsets: the library keeps an int64 copy on the CPU
    A64 = A.copy()
    A64.indptr = A64.indptr.astype(np.int64)
    s64 = spsolve.Solver(A64, device="cpu")
    rp, _, ci, va = s64.matrix_device_arrays()
    assert rp == addr(A64.indptr) and ci == addr(A64.indices) and va == addr(A64.data)


def test_formats_and_dtypes_give_the_same_answer(orsreg):
    """COO, CSC, DIA-free LIL, csr_array, float32, int64 indices, unsorted rows and duplicate
    entries are converted; the answer is the bits of the canonical CSR's."""
    b, _ = rhs(orsreg)
    s = spsolve.Solver(orsreg, device="cpu")
    x_ref, info_ref = s.solve(b)
    coo = orsreg.tocoo()
    # Split every entry in two halves: duplicates that sum to the same matrix.
    dup = sp.coo_matrix((np.concatenate([coo.data / 2, coo.data / 2]),
                         (np.concatenate([coo.row, coo.row]), np.concatenate([coo.col, coo.col]))),
                        shape=coo.shape)
    unsorted = orsreg.copy()
    for i in range(unsorted.shape[0]):
        lo, hi = unsorted.indptr[i], unsorted.indptr[i + 1]
        unsorted.indices[lo:hi] = unsorted.indices[lo:hi][::-1].copy()
        unsorted.data[lo:hi] = unsorted.data[lo:hi][::-1].copy()
    unsorted.has_sorted_indices = False
    i64 = orsreg.copy()
    i64.indices = i64.indices.astype(np.int64)
    i64.indptr = i64.indptr.astype(np.int64)
    variants = {
        "coo": coo,
        "csc": orsreg.tocsc(),
        "lil": orsreg.tolil(),
        "csr_array": sp.csr_array(orsreg) if hasattr(sp, "csr_array") else orsreg,
        "int64 indices": i64,
        "unsorted rows": unsorted,
    }
    for what, A in variants.items():
        x, info = spsolve.solve(A, b, device="cpu")
        assert info.iterations == info_ref.iterations, what
        assert np.array_equal(x, x_ref), what
    # Duplicates summed: the halves add up exactly (halving is exact in binary).
    x, info = spsolve.solve(dup, b, device="cpu")
    assert np.array_equal(x, x_ref)
    # float32 values: a different matrix (rounded), still solved to rtol.
    A32 = orsreg.astype(np.float32)
    x, info = spsolve.solve(A32, b, device="cpu")
    assert info.converged and true_relres(A32.astype(np.float64), x, b) <= 1.01e-8


def test_b_of_other_dtypes(nos3):
    b, _ = rhs(nos3)
    x_ref, _ = spsolve.solve(nos3, b, device="cpu")
    x, _ = spsolve.solve(nos3, list(b), device="cpu")
    assert np.array_equal(x, x_ref)
    bs = np.zeros(2 * len(b))
    bs[::2] = b  # a strided view is made contiguous
    x, _ = spsolve.solve(nos3, bs[::2], device="cpu")
    assert np.array_equal(x, x_ref)


def common_case_only(s):
    """Make the Solver's later solves fail unless they take solve's common case (not
    Solver._solve_general)."""
    def general(*args):
        raise AssertionError("the solve did not take the common case")

    s._solve_general = general


def _info_fields(info):
    """Every field of a SolveInfo, decoded (the times, the history and the dicts included)."""
    keys = ("reason", "reason_text", "converged", "iterations", "residual_abs", "residual_rel",
            "residual", "method", "precond", "spmv", "spmv_threads_per_row", "spmv_choice",
            "spmv_source", "spmv_why", "setup_time", "solve_time", "device", "attempts",
            "precond_info")
    d = {k: getattr(info, k) for k in keys}
    d["history"] = None if info.history is None else info.history.tolist()
    d["precond_info"] = {k: v for k, v in d["precond_info"].items()}
    return d


@pytest.mark.parametrize("method, precond", [("auto", "auto"), ("gmres", "ilu0")])
def test_repeated_solves_keep_each_info(orsreg, method, precond):
    # Solves after the first take solve's common case (out given, no x0, vectors in place):
    # each info keeps what its own solve gave, read in full after later solves.
    n = orsreg.shape[0]
    s = spsolve.Solver(orsreg, method=method, precond=precond, history=True, device="cpu")
    out = np.empty(n)
    infos, seen = [], []
    for seed in (1, 2, 3, 4):
        b, _ = rhs(orsreg, seed)
        if seed == 2:
            common_case_only(s)
        x, info = s.solve(b, out=out) if seed % 2 else s.solve(b)
        assert info.converged and true_relres(orsreg, x, b) <= 1.01e-8
        assert (x is out) == bool(seed % 2)
        infos.append(info)
        seen.append(_info_fields(info))
        assert type(info.iterations) is int and type(info.converged) is bool
        assert type(info.solve_time) is float and info.history.dtype == np.float64
        assert len(info.history) == info.iterations + 1
    for info, fields in zip(infos, seen):
        assert _info_fields(info) == fields
    assert len({f["solve_time"] for f in seen}) > 1
    assert [a.used for a in infos[-1].attempts] == [True]
    with pytest.raises(AttributeError, match="'SolveInfo' object has no attribute 'nothing'"):
        infos[-1].nothing
    # copies, taken before and after the fields are read
    _, fresh = s.solve(rhs(orsreg, 5)[0], out=out)
    fields = _info_fields(copy.deepcopy(fresh))
    assert fields == _info_fields(fresh) == _info_fields(copy.copy(fresh))
    assert _info_fields(copy.deepcopy(fresh)) == fields


def test_repeated_solves_follow_the_arrays(nos3):
    # The vectors wrapped for one solve are kept while b and x stay where they are, and
    # replaced when they move.
    n = nos3.shape[0]
    s = spsolve.Solver(nos3, device="cpu")
    s._trace_pointers = True
    outs = [np.empty(n), np.empty(n)]
    for k in range(6):
        b, _ = rhs(nos3, 1 + k % 3)
        out = outs[k % 2]
        if k == 1:
            common_case_only(s)
        x, info = s.solve(b, out=out)
        assert x is out and info.converged and true_relres(nos3, x, b) <= 1.01e-8
        assert s.last_vector_data == (addr(b), addr(out))
    # a read-only b is read in place as well
    b.flags.writeable = False
    x, info = s.solve(b, out=outs[0])
    assert info.converged and s.last_vector_data == (addr(b), addr(outs[0]))


def test_repeated_solves_refuse_as_the_first(nos3):
    # After solves that took the common case, bad arguments are refused as on a first solve.
    n = nos3.shape[0]
    s = spsolve.Solver(nos3, device="cpu")
    b, _ = rhs(nos3)
    out = np.empty(n)
    s.solve(b, out=out)
    s.solve(b, out=out)
    with pytest.raises(ValueError, match="share memory"):
        s.solve(b, out=b)
    big = np.empty(2 * n)
    big[:n] = b
    with pytest.raises(ValueError, match="share memory"):
        s.solve(big[:n], out=big[n // 2: n // 2 + n])
    ro = np.empty(n)
    ro.flags.writeable = False
    for bad in (np.empty(n, dtype=np.float32), np.empty(n + 1), ro, np.empty(2 * n)[::2]):
        with pytest.raises(ValueError, match="writeable contiguous float64"):
            s.solve(b, out=bad)
    with pytest.raises(ValueError, match=r"b has shape \(961,\)"):
        s.solve(np.ones(n + 1), out=out)
    with pytest.raises(TypeError, match="complex"):
        s.solve(np.ones(n, dtype=complex), out=out)
    x, info = s.solve(b.astype(np.float32), out=out)
    assert info.converged and true_relres(nos3, x, b) <= 1e-6


def _convection_diffusion(m, peclet):
    """The 5-point convection-diffusion operator on an m x m grid (central differences): at a
    high cell Peclet number GMRES with ILU(0) stagnates and the automatic choice moves on."""
    e = np.ones(m)
    t = sp.diags([-(1 + peclet / 2) * e[:-1], 2 * e, -(1 - peclet / 2) * e[:-1]], [-1, 0, 1])
    i = sp.identity(m)
    return sp.csr_matrix(sp.kron(i, t) + sp.kron(t, i))


def test_automatic_choice_moving_during_a_solve():
    # A solve that moves to another preconditioner (ILU(0) -> ILUT) changes the facts the
    # info reports; the solves after it, which do not move, report the same ones. Each
    # info's preconditioner facts are compared with the library's at that moment.
    from spsolve import _lib

    def matches_library(info, s):
        p = _lib.sps_precond_info()
        _lib.lib().sps_solver_get_precond_info(s._handle, p)
        d = info.precond_info
        scalars = [k for k, t in p._fields_ if k != "type" and not hasattr(t, "_length_")]
        return d["type"] == info.precond and all(d[k] == getattr(p, k) for k in scalars)

    easy, hard = _convection_diffusion(30, 5.0), _convection_diffusion(30, 50.0)
    s = spsolve.Solver(easy, device="cpu")
    out = np.empty(easy.shape[0])
    _, first = s.solve(easy @ np.ones(easy.shape[0]), out=out)
    assert first.precond == "ilu0" and len(first.attempts) == 1 and matches_library(first, s)
    s.setup(hard)  # the same library solver: the next solve takes the common case
    common_case_only(s)
    b = hard @ np.ones(hard.shape[0])
    _, moved = s.solve(b, out=out)
    assert moved.converged and moved.precond == "ilut" and matches_library(moved, s)
    assert [(a.precond, a.used) for a in moved.attempts] == [("ilu0", False), ("ilut", True)]
    _, again = s.solve(b, out=out)
    assert again.precond == "ilut" and [a.precond for a in again.attempts] == ["ilut"]
    assert matches_library(again, s) and again.precond_info == moved.precond_info
    assert first.precond_info["type"] == "ilu0"
    assert first.precond_info["nnz_factors"] != moved.precond_info["nnz_factors"]
    assert [a.precond for a in moved.attempts] == ["ilu0", "ilut"]


def test_tolerances_between_solves(nos3):
    b, _ = rhs(nos3)
    s = spsolve.Solver(nos3, device="cpu", rtol=1e-4)
    _, loose = s.solve(b)
    s.rtol = 1e-10
    x, tight = s.solve(b)
    assert loose.iterations < tight.iterations and tight.converged
    assert true_relres(nos3, x, b) <= 1.01e-10


def test_not_converged_returns_then_raises_with_check(nos3):
    b, _ = rhs(nos3)
    x, info = spsolve.solve(nos3, b, method="cg", precond="none", maxit=3, device="cpu")
    assert not info.converged and info.reason == "SPS_DIVERGED_MAX_ITERATIONS"
    assert info.iterations == 3
    with pytest.raises(spsolve.ConvergenceError) as e:
        spsolve.solve(nos3, b, method="cg", precond="none", maxit=3, device="cpu", check=True)
    assert e.value.info.reason == "SPS_DIVERGED_MAX_ITERATIONS"
    assert "not converged" in str(e.value)
    s = spsolve.Solver(nos3, method="cg", precond="none", maxit=3, device="cpu", check=True)
    _, info = s.solve(b, check=False)
    assert not info.converged


def test_named_method_and_precond_params(orsreg):
    b, _ = rhs(orsreg)
    x, info = spsolve.solve(orsreg, b, method="bicgstab", precond="ilut",
                            precond_params={"ilut.fill": 5, "ilut.drop": 1e-3}, device="cpu")
    assert info.converged and info.method == "bicgstab" and info.precond == "ilut"
    assert true_relres(orsreg, x, b) <= 1.01e-8
    names = [p[0] for p in spsolve.precond_params()]
    assert "ilut.fill" in names and "matching" in names


def test_amg_reports_its_hierarchy(nos3):
    b, _ = rhs(nos3)
    x, info = spsolve.solve(nos3, b, method="cg", precond="amg",
                            precond_params={"amg.coarse_size": 40}, device="cpu")
    assert info.converged and info.precond == "amg"
    assert true_relres(nos3, x, b) <= 1.01e-8
    p = info.precond_info
    levels = p["amg_levels"]
    assert levels >= 2 and len(p["amg_rows"]) == levels and p["amg_rows"][0] == nos3.shape[0]
    assert p["amg_nnz"][0] == nos3.nnz and p["amg_operator_complexity"] > 1.0
    assert p["amg_coarsening"] == 1 and p["amg_smoother"] == 0  # the defaults: classical, cheby


def test_amg_parameters_by_value_name(nos3):
    # "amg.coarsening" and "amg.smoother" take their value names as well as numbers.
    b, _ = rhs(nos3)
    x, info = spsolve.solve(nos3, b, method="cg", precond="amg", device="cpu",
                            precond_params={"amg.coarsening": "aggregation",
                                            "amg.smoother": "mcgs"})
    assert info.converged and true_relres(nos3, x, b) <= 1.01e-8
    p = info.precond_info
    assert p["amg_coarsening"] == 0 and p["amg_smoother"] == 2 and p["colors"] > 0
    with pytest.raises(ValueError):
        spsolve.Solver(nos3, precond="amg", precond_params={"amg.coarsening": "rs"}, device="cpu")


def test_zero_and_nan_right_hand_sides(nos3):
    n = nos3.shape[0]
    x, info = spsolve.solve(nos3, np.zeros(n), device="cpu")
    assert info.reason == "SPS_CONVERGED_ZERO_RHS" and not x.any()
    b = np.ones(n)
    b[5] = np.nan
    x, info = spsolve.solve(nos3, b, device="cpu")
    assert info.reason == "SPS_DIVERGED_NAN" and not info.converged


def test_aslinearoperator_applies_the_inverse(orsreg):
    s = spsolve.Solver(orsreg, device="cpu", rtol=1e-12)
    Ainv = s.aslinearoperator()
    assert isinstance(Ainv, sla.LinearOperator) and Ainv.shape == orsreg.shape
    b, _ = rhs(orsreg)
    x = Ainv @ b
    assert true_relres(orsreg, x, b) <= 1.01e-12
    B = np.column_stack([rhs(orsreg, k)[0] for k in (1, 2, 3)])
    X = Ainv.matmat(B)
    for k in range(3):
        assert true_relres(orsreg, X[:, k], B[:, k]) <= 1.01e-12
    # In SciPy's algebra: A (A^-1 v) = v.
    v = np.random.default_rng(3).standard_normal(orsreg.shape[0])
    w = (sla.aslinearoperator(orsreg) @ Ainv) @ v
    assert np.linalg.norm(w - v) <= 1e-10 * np.linalg.norm(v)


def test_aslinearoperator_warns_when_not_converged(nos3):
    s = spsolve.Solver(nos3, method="cg", precond="none", maxit=2, device="cpu")
    with pytest.warns(RuntimeWarning, match="maximum iterations"):
        s.aslinearoperator() @ np.ones(nos3.shape[0])


def test_preconditioner_operator():
    n = 400
    d = 2.5 + 0.01 * (np.arange(n) % 7)
    T = sp.diags([-np.ones(n - 1), d, -np.ones(n - 1)], [-1, 0, 1], format="csr")
    r = np.random.default_rng(5).uniform(-1, 1, n)
    # Jacobi: M^-1 r = diag(A)^-1 r.
    M = spsolve.Solver(T, method="cg", precond="jacobi", device="cpu").preconditioner()
    assert np.array_equal(M @ r, (1.0 / d) * r)
    # ILU(0) of a tridiagonal matrix is its LU: M^-1 = A^-1.
    M = spsolve.Solver(T, method="gmres", precond="ilu0", device="cpu").preconditioner()
    z = M @ r
    assert np.max(np.abs(T @ z - r)) <= 1e-13 * np.max(np.abs(r))
    # A negative definite: the automatic choice runs CG on -A; M^-1 still approximates A^-1.
    s = spsolve.Solver(-T, device="cpu")
    z = s.apply_precond(r)
    assert s.solve(r)[1].precond_info["negated"]
    assert np.max(np.abs(-T @ z - r)) <= 1e-13 * np.max(np.abs(r))


def test_read_matrix_matches_scipy_reader():
    path = os.path.join(data_dir(), "nos3.mtx.gz")
    A = spsolve.read_matrix(path)
    B = bundled("nos3")
    assert isinstance(A, sp.csr_matrix) and A.shape == B.shape
    assert (A != B).nnz == 0


def test_context_reuse_and_close(nos3):
    c1 = spsolve.get_context("cpu")
    assert c1 is spsolve.get_context("cpu") and c1.kind == "cpu"
    with spsolve.Solver(nos3, device="cpu") as s:
        assert s.ctx is c1
    with pytest.raises(spsolve.SpsolveError, match="setup"):
        s.solve(np.ones(nos3.shape[0]))


def test_spmv_tune_and_cache(orsreg, tmp_path, monkeypatch):
    monkeypatch.setenv("SPSOLVE_CACHE_DIR", str(tmp_path))
    b, _ = rhs(orsreg)
    x, info = spsolve.solve(orsreg, b, device="cpu", spmv="tune")
    c = info.spmv_choice
    assert info.converged and true_relres(orsreg, x, b) <= 1.01e-8
    assert c["requested"] == "tune" and info.spmv_source == "tune" and c["timed"] >= 3
    used = [e for e in c["candidates"] if e["used"]]
    assert len(used) == 1 and used[0]["spmv"] == info.spmv
    assert used[0]["seconds"] == min(e["seconds"] for e in c["candidates"] if e["seconds"])
    assert c["tune_seconds"] > 0 and "fastest" in info.spmv_why
    assert c["cache_note"] == "stored" and os.path.dirname(c["cache_file"]) == str(tmp_path)
    # A second Solver reads the entry: the same kernel, nothing timed.
    s = spsolve.Solver(orsreg, device="cpu", spmv="tune")
    x2, info2 = s.solve(b)
    assert info2.spmv_source == "cache" and info2.spmv_choice["timed"] == 0
    assert (info2.spmv, info2.spmv_threads_per_row) == (info.spmv, info.spmv_threads_per_row)
    assert info2.spmv_choice["cache_file"] == c["cache_file"]


def test_spmv_choice_of_auto_and_named(orsreg):
    b, _ = rhs(orsreg)
    _, info = spsolve.solve(orsreg, b, device="cpu")
    assert info.spmv_source in ("rule", "model") and info.spmv_why and info.spmv_choice["candidates"] == []
    _, info = spsolve.solve(orsreg, b, device="cpu", spmv="merge")
    assert info.spmv == "merge" and info.spmv_source == "user"
