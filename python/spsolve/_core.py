"""_core.py: contexts, matrices, the Solver and solve() over libspsolve, for SciPy and CuPy data.

Where the data lives decides what is copied:

- SciPy matrix, NumPy vectors, CPU context: the library reads the CSR arrays and writes x in
  place (sps_matrix_wrap_csr, sps_vector_wrap); a copy is made only to convert (another
  format than CSR, another dtype than float64, 64-bit column indices, unsorted rows).
- CuPy matrix, CuPy vectors, CUDA context on the arrays' GPU: the same, with device pointers:
  no vector or matrix array moves between host and device, except the host copy of the
  matrix that the library downloads once at setup for its analysis.
- Otherwise (SciPy data on a GPU context, CuPy data on the CPU) the data is copied to the
  context's side, and x back to the side of b.
"""

import ctypes
import sys
import warnings
import weakref
from dataclasses import dataclass

import numpy as np

from . import _lib

_DEVICE_AUTO, _DEVICE_CPU, _DEVICE_CUDA = 0, 1, 2
_DEVICE_KIND_NAME = {_DEVICE_CPU: "cpu", _DEVICE_CUDA: "cuda"}

# Used by Solver.solve's common case, bound once: the dtype a vector is used in place with (the
# canonical float64 descriptor, compared by identity before equality), the strides of a
# contiguous float64 vector (a tuple of one stride is also one dimension), the ctypes calls of
# the addresses, the report structure, and the size of one try of the automatic choice.
_F64 = np.dtype(np.float64)
_STRIDES_1D = (8,)
_addressof = ctypes.addressof
_from_buffer = ctypes.c_char.from_buffer
_Report = _lib.sps_solve_report
_ATTEMPT_SIZE = ctypes.sizeof(_lib.sps_solver_attempt)


class SpsolveError(RuntimeError):
    """A libspsolve call failed. ``status`` is the status code, ``status_name`` its name
    ("SPS_ERR_ARGUMENT"), and the message is the library's (sps_context_last_error)."""

    def __init__(self, status, message, call=None):
        lib = _lib.lib()
        self.status = int(status)
        self.status_name = lib.sps_status_name(self.status).decode()
        self.message = message
        self.call = call
        text = f"{self.status_name}: {message}" if message else self.status_name
        super().__init__(text)


class ConvergenceError(SpsolveError):
    """A solve stopped without converging and ``check=True`` was asked; ``info`` says why."""

    def __init__(self, info):
        self.info = info
        RuntimeError.__init__(
            self,
            f"not converged: {info.reason_text} ({info.reason}) after {info.iterations} "
            f"iterations, relative residual {info.residual_rel:.3e}",
        )
        self.status = 0
        self.status_name = "SPS_SUCCESS"
        self.message = str(self)
        self.call = "sps_solver_solve"


@dataclass
class Attempt:
    """One try of the automatic choice (sps_solver_get_attempts)."""

    method: str
    precond: str
    iterations: int
    residual_rel: float
    used: bool
    note: str


class SolveInfo:
    """What a solve did.

    reason, reason_text  why it stopped ("SPS_CONVERGED_RTOL", "converged: ||b - Ax|| <= ...")
    converged            reason > 0
    iterations           iterations of the solve (GMRES: inner iterations)
    residual_abs         the true ||b - Ax|| of the returned x, recomputed by the library
    residual_rel         residual_abs / ||b|| (0 when b = 0); residual is the pair
    history              the recurrence residual norms, entry 0 the initial one (history=True),
                         else None
    method, precond      what ran in the end (the automatic choice resolved)
    spmv                 the SpMV kernel chosen at setup; spmv_threads_per_row
    spmv_source          who chose it: "rule" (spmv="auto"), "tune" (timed at this setup),
                         "cache" (a tuning result read from the disk cache), "user" (named)
    spmv_why             the reasoning: the rule's test, or the outcome of the tuning
    spmv_choice          everything sps_solver_get_spmv_choice reports, as a dict: requested,
                         source, why, tune_seconds, tune_spmv_equivalents, timed (candidates
                         timed at this setup), candidates (a list of dicts: spmv,
                         threads_per_row, seconds, status, note, used), cache_file (None when
                         the cache is off), cache_note
    attempts             the tries of the automatic choice, in order (a list of Attempt)
    precond_info         what the preconditioner found and did at setup (a dict of
                         sps_precond_info's fields)
    setup_time           seconds of the solver's setup (analysis, factorisation)
    solve_time           seconds of this solve inside the library (device synchronised)
    device               the device the solve ran on
    """

    __slots__ = ("reason", "reason_text", "converged", "iterations", "residual_abs",
                 "residual_rel", "method", "precond", "spmv", "spmv_threads_per_row",
                 "spmv_choice", "setup_time", "solve_time", "device", "history", "_attempts_raw",
                 "_attempts", "_pinfo_raw", "_pinfo", "_raw", "_facts")

    def __init__(self, reason, iterations, residual_abs, residual_rel, method, precond, spmv,
                 spmv_threads_per_row, setup_time, solve_time, device, history, attempts_raw,
                 pinfo_raw, spmv_choice=None):
        self.reason = _reason_name(reason)
        self.reason_text = _reason_text(reason)
        self.converged = reason > 0
        self.iterations = iterations
        self.residual_abs = residual_abs
        self.residual_rel = residual_rel
        self.method = method
        self.precond = precond
        self.spmv = spmv
        self.spmv_threads_per_row = spmv_threads_per_row
        self.spmv_choice = spmv_choice or {}
        self.setup_time = setup_time
        self.solve_time = solve_time
        self.device = device
        self.history = history
        # Copies of the library's structures, decoded when first read.
        self._attempts_raw = attempts_raw
        self._attempts = None
        self._pinfo_raw = pinfo_raw
        self._pinfo = None

    # A Solver's solve leaves the fields above unset: it keeps the library's report as it came
    # (_raw, an sps_solve_report whose pointers are not read again) and the facts that do not
    # change per solve (_facts: device, SpMV choice, tries, preconditioner facts), so that as
    # little Python as possible runs after the C solve returns. Reading any of the fields, which
    # Python does through __getattr__ for a slot not set, decodes them all at once.

    def __getattr__(self, name):
        if name not in _SOLVE_INFO_LAZY:
            e = AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
            e.name, e.obj = name, self
            raise e
        self._decode()
        return object.__getattribute__(self, name)

    def _decode(self):
        r = self._raw
        self.device, choice, self._attempts_raw, self._pinfo_raw = self._facts
        reason = r.reason
        self.reason = _reason_name(reason)
        self.reason_text = _reason_text(reason)
        self.converged = reason > 0
        self.iterations = r.iterations
        self.residual_abs = r.residual_abs
        self.residual_rel = r.residual_rel
        self.method = _solver_name(r.method)
        self.precond = _precond_name(r.precond)
        self.spmv = _spmv_name(r.spmv)
        self.spmv_threads_per_row = r.threads_per_row
        self.spmv_choice = choice or {}
        self.setup_time = r.setup_seconds
        self.solve_time = r.solve_seconds
        self._attempts = None
        self._pinfo = None

    def __getstate__(self):
        # copy, deepcopy and pickle: the fields decoded, without the report (it holds pointers)
        if getattr(self, "_raw", None) is not None:
            self._decode_once()
        state = {}
        for k in SolveInfo.__slots__:
            if k not in ("_raw", "_facts"):
                try:
                    state[k] = object.__getattribute__(self, k)
                except AttributeError:
                    pass
        return None, state

    def _decode_once(self):
        try:
            object.__getattribute__(self, "reason")
        except AttributeError:
            self._decode()

    @property
    def spmv_source(self):
        return self.spmv_choice.get("source")

    @property
    def spmv_why(self):
        return self.spmv_choice.get("why")

    @property
    def residual(self):
        """(residual_abs, residual_rel)."""
        return (self.residual_abs, self.residual_rel)

    @property
    def attempts(self):
        if self._attempts is None:
            raw = self._attempts_raw
            if isinstance(raw, bytes):
                # the library's array of tries as the solve left it, copied byte for byte
                raw = [_lib.sps_solver_attempt.from_buffer_copy(raw, k)
                       for k in range(0, len(raw), _ATTEMPT_SIZE)]
            self._attempts = [
                Attempt(_solver_name(a.method), _precond_name(a.precond), a.iterations,
                        a.residual_rel, bool(a.accepted), a.note.decode(errors="replace"))
                for a in raw
            ]
        return self._attempts

    @property
    def precond_info(self):
        if self._pinfo is None:
            p = self._pinfo_raw
            d = {name: getattr(p, name) for name, _ in p._fields_}
            d["type"] = _precond_name(p.type)
            # the multigrid levels as lists of the levels built (finest first)
            d["amg_rows"] = list(p.amg_rows)[:p.amg_levels]
            d["amg_nnz"] = list(p.amg_nnz)[:p.amg_levels]
            d["amg_level_seconds"] = list(p.amg_level_seconds)[:p.amg_levels]
            d["amg_setup_seconds"] = dict(zip(_lib.AMG_SETUP_PHASE_NAMES, p.amg_setup_seconds))
            self._pinfo = d
        return self._pinfo

    def __str__(self):
        return (
            f"{self.method}+{self.precond} on {self.device}: {self.reason_text} after "
            f"{self.iterations} iterations, ||b - Ax||/||b|| = {self.residual_rel:.3e}, "
            f"setup {self.setup_time:.3g} s, solve {self.solve_time:.3g} s"
        )

    def __repr__(self):
        return (f"SolveInfo(reason={self.reason!r}, iterations={self.iterations}, "
                f"residual_rel={self.residual_rel:.3e}, method={self.method!r}, "
                f"precond={self.precond!r}, spmv={self.spmv!r}, device={self.device!r}, "
                f"setup_time={self.setup_time:.3g}, solve_time={self.solve_time:.3g})")


# The slots of SolveInfo that _decode sets (history is set by the solve itself).
_SOLVE_INFO_LAZY = frozenset((
    "reason", "reason_text", "converged", "iterations", "residual_abs", "residual_rel", "method",
    "precond", "spmv", "spmv_threads_per_row", "spmv_choice", "setup_time", "solve_time",
    "device", "_attempts_raw", "_attempts", "_pinfo_raw", "_pinfo"))


class ColumnInfo:
    """What the solve of one column of b (n, k) gave.

    reason, reason_text, converged, iterations, residual_abs, residual_rel as SolveInfo
    history       the column's residual norms (history=True), else None
    resolved      True when the column did not converge in the batch and was solved again
                  alone by the automatic choice (its fields are that solve's)
    """

    __slots__ = ("reason", "reason_text", "converged", "iterations", "residual_abs",
                 "residual_rel", "history", "resolved")

    def __init__(self, r, history):
        self.reason = _reason_name(r.reason)
        self.reason_text = _reason_text(r.reason)
        self.converged = r.reason > 0
        self.iterations = r.iterations
        self.residual_abs = r.residual_abs
        self.residual_rel = r.residual_rel
        self.history = history
        self.resolved = bool(r.resolved)

    def __repr__(self):
        return (f"ColumnInfo(reason={self.reason!r}, iterations={self.iterations}, "
                f"residual_rel={self.residual_rel:.3e})")


class ManySolveInfo:
    """What a solve of several right-hand sides (b of shape (n, k)) gave.

    columns            one ColumnInfo per column
    converged          every column converged
    reason, iterations, residual_abs, residual_rel
                       the worst column's: the first that did not converge, else the one with
                       the most iterations (iterations: the most of any column)
    total_iterations   the sum over the columns; max_residual_rel the largest
    mode               "batched" (each column its own recurrence, one SpMM per iteration),
                       "block-cg", or "one-by-one" (settings the batch cannot match bit for
                       bit: note says which)
    note, block_width  how the columns ran; the most columns iterated together
    method, precond, spmv, setup_time, solve_time, device   as SolveInfo
    """

    __slots__ = ("columns", "converged", "reason", "reason_text", "iterations", "residual_abs",
                 "residual_rel", "total_iterations", "max_residual_rel", "mode", "note",
                 "block_width", "method", "precond", "spmv", "setup_time", "solve_time", "device")

    _MODES = {0: "none", 1: "batched", 2: "block-cg", 3: "one-by-one"}

    def __init__(self, columns, rep, report, device):
        self.columns = columns
        self.converged = rep.converged == rep.columns
        self.reason = _reason_name(report.reason)
        self.reason_text = _reason_text(report.reason)
        self.iterations = rep.max_iterations
        self.residual_abs = report.residual_abs
        self.residual_rel = report.residual_rel
        self.total_iterations = rep.total_iterations
        self.max_residual_rel = rep.max_residual_rel
        self.mode = self._MODES.get(rep.mode, str(rep.mode))
        self.note = rep.note.decode(errors="replace")
        self.block_width = rep.block_width
        self.method = _solver_name(report.method)
        self.precond = _precond_name(report.precond)
        self.spmv = _spmv_name(report.spmv)
        self.setup_time = report.setup_seconds
        self.solve_time = rep.solve_seconds
        self.device = device

    def __len__(self):
        return len(self.columns)

    def __str__(self):
        n = len(self.columns)
        ok = sum(c.converged for c in self.columns)
        return (f"{self.method}+{self.precond} on {self.device}, {n} columns ({self.note}): "
                f"{ok} of {n} converged, at most {self.iterations} iterations, largest "
                f"||b_j - Ax_j||/||b_j|| = {self.max_residual_rel:.3e}, solve {self.solve_time:.3g} s")

    def __repr__(self):
        return (f"ManySolveInfo(columns={len(self.columns)}, converged={self.converged}, "
                f"mode={self.mode!r}, iterations={self.iterations}, "
                f"max_residual_rel={self.max_residual_rel:.3e})")


def _cupy():
    return sys.modules.get("cupy")


def _is_cupy_array(x):
    cp = _cupy()
    return cp is not None and isinstance(x, cp.ndarray)


def _is_cupy_sparse(A):
    mod = type(A).__module__
    if not mod.startswith("cupyx"):
        return False
    import cupyx.scipy.sparse as csp

    return csp.issparse(A)


def _check(st, ctx, call):
    if st != 0:
        msg = _lib.lib().sps_context_last_error(ctx).decode(errors="replace") if ctx else ""
        raise SpsolveError(st, msg, call)


class Context:
    """A libspsolve context: the device (the CPU, or one CUDA GPU) that solves run on.

    Contexts are cached: one per device, shared by every Solver on it.
    """

    def __init__(self, kind, index):
        lib = _lib.lib()
        h = ctypes.c_void_p()
        st = lib.sps_context_create(ctypes.byref(h), kind, index)
        if st != 0:
            raise SpsolveError(st, lib.sps_context_create_error().decode(errors="replace"),
                               "sps_context_create")
        self.handle = h
        k, i = ctypes.c_int(), ctypes.c_int()
        lib.sps_context_get_device(h, ctypes.byref(k), ctypes.byref(i))
        self.kind = _DEVICE_KIND_NAME[k.value]
        self.index = i.value if self.kind == "cuda" else 0
        buf = ctypes.create_string_buffer(512)
        lib.sps_context_get_device_name(h, buf, len(buf))
        self.name = buf.value.decode(errors="replace")
        self._finalizer = weakref.finalize(self, lib.sps_context_destroy, ctypes.byref(h))

    @property
    def is_cuda(self):
        return self.kind == "cuda"

    def __repr__(self):
        return f"<spsolve.Context {self.kind}:{self.index} {self.name!r}>"


_contexts = {}


def _parse_device(device):
    """(kind, index) for "auto", "cpu", "cuda", "cuda:N"."""
    if device is None or device == "auto":
        return _DEVICE_AUTO, 0
    if device == "cpu":
        return _DEVICE_CPU, 0
    if isinstance(device, str) and device.startswith("cuda"):
        rest = device[4:]
        if rest == "":
            return _DEVICE_CUDA, 0
        if rest.startswith(":") and rest[1:].isdigit():
            return _DEVICE_CUDA, int(rest[1:])
    raise ValueError(f"device must be 'auto', 'cpu', 'cuda' or 'cuda:N', not {device!r}")


def get_context(device="auto"):
    """The (cached) context for a device name: "auto" (a GPU if usable, else the CPU), "cpu",
    "cuda", "cuda:N"."""
    key = _parse_device(device)
    ctx = _contexts.get(key)
    if ctx is None:
        ctx = Context(*key)
        _contexts[key] = ctx
        if key[0] == _DEVICE_AUTO:
            resolved = (_DEVICE_CUDA if ctx.is_cuda else _DEVICE_CPU, ctx.index)
            _contexts.setdefault(resolved, ctx)
    return ctx


def _context_for(device, A=None, b=None):
    """The context a solve of A (and b) runs on: device="auto" follows CuPy data to its GPU."""
    if device in (None, "auto"):
        for obj in (A, b):
            if obj is None:
                continue
            dev = None
            if _is_cupy_sparse(obj):
                dev = obj.data.device.id
            elif _is_cupy_array(obj):
                dev = obj.device.id
            if dev is not None:
                return get_context(f"cuda:{dev}")
    return get_context(device)


def _name_to_enum(kind, name):
    lib = _lib.lib()
    fn = {
        "solver": lib.sps_solver_type_from_name,
        "precond": lib.sps_precond_type_from_name,
        "spmv": lib.sps_spmv_kind_from_name,
    }[kind]
    v = ctypes.c_int()
    if not isinstance(name, str) or fn(name.encode(), ctypes.byref(v)) != 0:
        raise ValueError(f"unknown {kind} {name!r}")
    return v.value


_new_solve_info = object.__new__


def _destroy_vectors(destroy, vecs):
    """Destroy the vector handles a Solver keeps over its last b and x (Solver._vecs)."""
    for k in (1, 3):
        v = vecs[k]
        if v is not None:
            vecs[k - 1] = vecs[k] = None
            destroy(ctypes.byref(v))


def _addr(a):
    """The data address of a NumPy or CuPy array."""
    if isinstance(a, np.ndarray):
        return a.ctypes.data
    return a.data.ptr


class _Matrix:
    """An sps_matrix on a context, with the arrays it borrows kept alive."""

    def __init__(self, ctx, A):
        self.ctx = ctx
        self.handle = ctypes.c_void_p()
        self.keep = ()
        self.borrowed = False
        lib = _lib.lib()
        if _is_cupy_sparse(A) and ctx.is_cuda and A.data.device.id == ctx.index:
            self._from_cupy(A)
        else:
            self._from_scipy(A.get() if _is_cupy_sparse(A) else A)
        self.finalizer = weakref.finalize(self, lib.sps_matrix_destroy,
                                          ctypes.byref(self.handle))
        self.finalizer.atexit = False

    @staticmethod
    def _csr_float64(A):
        """A as canonical CSR with float64 values and int32 column indices, copied only where
        a conversion needs it."""
        if A.ndim != 2:
            raise ValueError(f"A must be two-dimensional, not {A.ndim}-dimensional")
        if A.dtype.kind == "c":
            raise TypeError("complex matrices are not supported: libspsolve solves real systems")
        if A.format != "csr":
            A = A.tocsr()
        if A.dtype != np.float64:
            A = A.astype(np.float64)
        if not A.has_canonical_format:
            A = A.copy()
            A.sum_duplicates()
        return A

    def _from_scipy(self, A):
        import scipy.sparse as sp

        if not sp.issparse(A):
            raise TypeError(
                f"A must be a scipy.sparse or cupyx.scipy.sparse matrix, not {type(A).__name__}"
                " (convert a dense array with scipy.sparse.csr_matrix(A))"
            )
        A = self._csr_float64(A)
        m, n = self.shape = A.shape
        indices = A.indices
        if indices.dtype != np.int32:
            if A.nnz and (indices.max() > np.iinfo(np.int32).max):
                raise ValueError("column indices exceed int32: libspsolve stores int32 columns")
            indices = indices.astype(np.int32)
        indptr = np.ascontiguousarray(A.indptr)
        indices = np.ascontiguousarray(indices)
        data = np.ascontiguousarray(A.data)
        lib = _lib.lib()
        h = self.handle
        if not self.ctx.is_cuda:
            # The CPU reads the arrays where they are.
            if indptr.dtype == np.int64:
                st = lib.sps_matrix_wrap_csr(self.ctx.handle, ctypes.byref(h), m, n,
                                             _addr(indptr), None, _addr(indices), _addr(data))
            else:
                indptr = indptr.astype(np.int32, copy=False)
                st = lib.sps_matrix_wrap_csr(self.ctx.handle, ctypes.byref(h), m, n, None,
                                             _addr(indptr), _addr(indices), _addr(data))
            _check(st, self.ctx.handle, "sps_matrix_wrap_csr")
            self.keep = (A, indptr, indices, data)
            self.borrowed = True
        else:
            # Host arrays on a GPU context: the library copies and uploads them.
            indptr = indptr.astype(np.int64, copy=False)
            st = lib.sps_matrix_create_csr(self.ctx.handle, ctypes.byref(h), m, n,
                                           _addr(indptr), _addr(indices), _addr(data))
            _check(st, self.ctx.handle, "sps_matrix_create_csr")

    def _from_cupy(self, A):
        import cupy as cp

        A = self._csr_float64(A)
        m, n = A.shape
        indices = A.indices
        if indices.dtype != cp.int32:
            indices = indices.astype(cp.int32)
        indptr = A.indptr
        lib = _lib.lib()
        # The library reads on its own stream: the arrays must be written first.
        cp.cuda.get_current_stream().synchronize()
        if indptr.dtype == cp.int64:
            rp, rp32 = indptr.data.ptr, None
        else:
            indptr = indptr.astype(cp.int32, copy=False)
            rp, rp32 = None, indptr.data.ptr
        st = lib.sps_matrix_wrap_csr(self.ctx.handle, ctypes.byref(self.handle), m, n, rp, rp32,
                                     indices.data.ptr, A.data.data.ptr)
        _check(st, self.ctx.handle, "sps_matrix_wrap_csr")
        self.keep = (A, indptr, indices)
        self.borrowed = True
        self.shape = A.shape

    def device_arrays(self):
        """Addresses of the arrays the kernels read: (rowptr, rowptr32, colind, values)."""
        lib = _lib.lib()
        ptrs = [ctypes.c_void_p() for _ in range(4)]
        _check(lib.sps_matrix_get_device_csr(self.handle, *[ctypes.byref(p) for p in ptrs]),
               self.ctx.handle, "sps_matrix_get_device_csr")
        return tuple(p.value for p in ptrs)


class Solver:
    """A Krylov solver set up once for a matrix and used for many right-hand sides.

    Solver(A=None, method="auto", precond="auto", rtol=1e-8, atol=0.0, maxit=None,
           restart=None, device="auto", history=False, precond_params=None, spmv="auto",
           flexible=False, check=False, columns=None)

    A               scipy.sparse matrix or array (any format), or cupyx.scipy.sparse matrix;
                    when given, setup(A) runs at once
    method          "auto", "cg", "gmres", "bicgstab", or "block-cg" (CG; with a b of several
                    columns, block CG over all of them at once)
    precond         "auto", "none", "jacobi", "ilu0", "ic0", "ilut", "bjacobi", "cheby", "amg"
    rtol, atol      stop when ||b - Ax|| <= max(rtol*||b||, atol)
    maxit, restart  iteration limit (default 10000), GMRES restart (default 30)
    device          "auto" (CuPy data: its GPU; else a GPU when usable, else the CPU),
                    "cpu", "cuda", "cuda:N"
    history         keep the residual norm of every iteration (info.history)
    precond_params  {name: value} of preconditioner parameters ("ilut.fill", "matching", ...;
                    spsolve.precond_params() lists them)
    spmv            "auto" (chosen from statistics of the matrix), "tune" (the fastest of a
                    short list of kernels timed on the matrix at setup, the result kept in the
                    disk cache: $SPSOLVE_CACHE_DIR, else $XDG_CACHE_HOME/spsolve, else
                    ~/.cache/spsolve; SPSOLVE_CACHE_DIR set empty turns it off), or a kernel
                    ("csr-scalar", "csr-vector", "merge", ...; `spsolve --list-spmv`);
                    info.spmv_choice says what was chosen and why
    check           raise ConvergenceError when a solve does not converge (else the reason is
                    in info and the solve returns normally)
    columns         the most columns of a b of shape (n, k) the setup prepares for (the block
                    work space is made for them); a wider b later makes it again (default
                    None: the first such b sets it)

    The matrix is borrowed: do not change its arrays while the Solver uses it (call setup
    again after a change). A Solver is not safe to use from several threads at once.
    """

    def __init__(self, A=None, method="auto", precond="auto", rtol=1e-8, atol=0.0, maxit=None,
                 restart=None, device="auto", history=False, precond_params=None, spmv="auto",
                 flexible=False, check=False, columns=None):
        self._block = method == "block-cg"
        self._method = _name_to_enum("solver", "cg" if self._block else method)
        self._columns = 0 if columns is None else int(columns)
        if self._columns < 0:
            raise ValueError(f"columns must be >= 0, not {columns}")
        self._precond = _name_to_enum("precond", precond)
        self._spmv = _name_to_enum("spmv", spmv)
        self._rtol, self._atol = float(rtol), float(atol)
        self._maxit = None if maxit is None else int(maxit)
        self._restart = None if restart is None else int(restart)
        self._device = device
        self._history = bool(history)
        self._params = dict(precond_params or {})
        self._flexible = bool(flexible)
        self.check = bool(check)
        # Tests set this to record sps_vector_get_data of the wrapped b and x of each solve.
        self._trace_pointers = False
        self.last_vector_data = None
        self.ctx = None
        self._handle = None
        self._matrix = None
        self._staging = None
        self._spmv_choice = {}
        lib = _lib.lib()
        # The report of a solve of several columns (sps_solver_get_report), reused.
        self._report = _lib.sps_solve_report()
        self._report_ref = ctypes.byref(self._report)
        # The calls of every solve, bound once.
        self._c_solve = lib.sps_solver_solve
        self._c_report = lib.sps_solver_get_report
        self._c_precond_info = lib.sps_solver_get_precond_info
        # With the automatic choice a solve may change the method, the preconditioner and the
        # tries (sps_solver_auto_solve); with both named only setup does.
        self._auto = (self._method == _name_to_enum("solver", "auto")
                      or self._precond == _name_to_enum("precond", "auto"))
        # Set by setup (see _ready): the array type that solve uses in place on this Solver's
        # device (np.ndarray on the CPU, cupy.ndarray on a GPU; None before setup), whether
        # that is a GPU and which, CuPy's get_current_stream, the allocator of a new x, and
        # the facts that are the same for every solve (SolveInfo._facts; None with the
        # automatic choice, where each solve reads them).
        self._fast_type = None
        self._gpu = False
        self._gpu_index = -1
        self._current_stream = None
        self._empty = None
        self._facts = None
        self._device_name = None
        # With the automatic choice: the tries recorded at setup, and the preconditioner facts
        # last read (None: to be read), which only a solve that moves to another try changes.
        self._setup_tries = 0
        self._pinfo_now = None
        # Views of the library's array of tries, by count, at the address the last report
        # gave (a solver keeps its tries in one place): copied with .raw, a buffer copy.
        self._tries_at = None
        self._tries_views = {}
        # Vector handles over the last b and x: [b's address, its handle, x's address, its
        # handle], kept while the next solve passes arrays at the same addresses (the handle
        # holds only the address and the length n, fixed by setup): no wrap and destroy per
        # solve. One finalizer destroys what the list holds when the Solver goes.
        self._vecs = [None, None, None, None]
        weakref.finalize(self, _destroy_vectors, lib.sps_vector_destroy, self._vecs)
        # Whether the library is set to start from x_0 = 0 by itself (sps_solver_set_zero_guess).
        self._zero_guess = False
        if A is not None:
            self.setup(A)

    # Setup.

    def _create(self, ctx):
        lib = _lib.lib()
        self._destroy()
        h = ctypes.c_void_p()
        _check(lib.sps_solver_create(ctx.handle, ctypes.byref(h), self._method), ctx.handle,
               "sps_solver_create")
        self._handle = h
        self._finalizer = weakref.finalize(self, lib.sps_solver_destroy, ctypes.byref(h))
        self.ctx = ctx
        c = ctx.handle
        _check(lib.sps_solver_set_precond(h, self._precond), c, "sps_solver_set_precond")
        for name, value in self._params.items():
            if isinstance(value, str):
                # a value name ("amg.coarsening": "classical") or a number written out
                v = ctypes.c_double()
                if lib.sps_precond_param_value(str(name).encode(), value.encode(),
                                               ctypes.byref(v)) != 0:
                    raise ValueError(f"preconditioner parameter {name!r}: unknown value {value!r}")
                value = v.value
            _check(lib.sps_solver_set_precond_param(h, str(name).encode(), float(value)), c,
                   "sps_solver_set_precond_param")
        self._apply_tolerances()
        if self._maxit is not None:
            _check(lib.sps_solver_set_max_iterations(h, self._maxit), c,
                   "sps_solver_set_max_iterations")
        if self._restart is not None:
            _check(lib.sps_solver_set_restart(h, self._restart), c, "sps_solver_set_restart")
        if self._flexible:
            _check(lib.sps_solver_set_flexible(h, 1), c, "sps_solver_set_flexible")
        _check(lib.sps_solver_set_spmv(h, self._spmv, 0), c, "sps_solver_set_spmv")
        _check(lib.sps_solver_set_history(h, int(self._history)), c, "sps_solver_set_history")
        if self._block:
            _check(lib.sps_solver_set_block(h, 1), c, "sps_solver_set_block")
        if self._columns:
            _check(lib.sps_solver_set_columns(h, self._columns), c, "sps_solver_set_columns")
        self._zero_guess = False

    def _apply_tolerances(self):
        if self._handle is not None:
            _check(_lib.lib().sps_solver_set_tolerances(self._handle, self._rtol, self._atol),
                   self.ctx.handle, "sps_solver_set_tolerances")

    def _drop_wraps(self):
        _destroy_vectors(_lib.lib().sps_vector_destroy, self._vecs)

    def _destroy(self):
        self._fast_type = None
        self._facts = None
        self._pinfo_now = None
        self._drop_wraps()
        if self._handle is not None:
            self._finalizer()
            self._handle = None
        if self._staging is not None:
            for f in self._staging[2:]:
                f()
            self._staging = None

    def setup(self, A):
        """Analyse A (a scipy.sparse or cupyx.scipy.sparse square matrix): the SpMV kernel, the
        method and preconditioner of the automatic choice, the factorisation. Returns self."""
        ctx = _context_for(self._device, A)
        if self.ctx is not ctx or self._handle is None:
            self._create(ctx)
        self._matrix = None
        self._fast_type = None
        self._facts = None
        self._drop_wraps()
        matrix = _Matrix(ctx, A)
        lib = _lib.lib()
        _check(lib.sps_solver_setup(self._handle, matrix.handle), ctx.handle, "sps_solver_setup")
        self._spmv_choice = _spmv_choice(lib, self._handle)
        self._matrix = matrix
        self.shape = matrix.shape
        self.n = matrix.shape[0]
        if self._staging is not None:
            for f in self._staging[2:]:
                f()
            self._staging = None
        if ctx.is_cuda:
            # Device vectors for NumPy right-hand sides, made once here: solve allocates nothing.
            vb, vx = ctypes.c_void_p(), ctypes.c_void_p()
            _check(lib.sps_vector_create(ctx.handle, ctypes.byref(vb), self.n), ctx.handle,
                   "sps_vector_create")
            fb = weakref.finalize(self, lib.sps_vector_destroy, ctypes.byref(vb))
            _check(lib.sps_vector_create(ctx.handle, ctypes.byref(vx), self.n), ctx.handle,
                   "sps_vector_create")
            fx = weakref.finalize(self, lib.sps_vector_destroy, ctypes.byref(vx))
            self._staging = (vb, vx, fb, fx)
        self._ready()
        return self

    def _ready(self):
        """Prepare what solve's common case reads, after a setup."""
        facts = self._setup_facts()
        self._facts = None if self._auto else facts
        self._fast_kind()

    def _fast_kind(self):
        """The array type of solve's common case and how to use it (after a setup, or once
        CuPy is imported)."""
        ctx = self.ctx
        self._gpu = ctx.is_cuda
        self._gpu_index = ctx.index
        if not ctx.is_cuda:
            self._fast_type, self._empty = np.ndarray, np.empty
        else:
            cp = _cupy()
            if cp is not None:
                self._fast_type, self._empty = cp.ndarray, cp.empty
                self._current_stream = cp.cuda.get_current_stream
        if self.n == 0:
            self._fast_type = None

    def _setup_facts(self):
        """(device, SpMV choice, tries, preconditioner facts) as setup left them: with a named
        method and preconditioner no solve changes them, so every SolveInfo shares them."""
        lib = _lib.lib()
        r = _lib.sps_solve_report()
        _check(lib.sps_solver_get_report(self._handle, ctypes.byref(r)), self.ctx.handle,
               "sps_solver_get_report")
        self._device_name = self.ctx.name
        self._setup_tries = r.attempt_count
        self._pinfo_now = None
        return self._read_facts(self._handle, r)

    def _read_facts(self, h, r):
        """(device, SpMV choice, tries, preconditioner facts) after the call that gave the
        report r: the tries copied as bytes (the report's pointer is the solver's own array,
        rewritten by the next solve) through a ctypes view of that many at that address, kept
        while the address repeats, and the preconditioner facts as a structure of their own.
        The automatic choice records every try and moves to another preconditioner only
        between two tries of a solve (sps_solver_create), so after a setup that recorded no
        try a solve that recorded at most one has not moved: the facts last read still hold
        (any failed solve, solve of several columns or setup forgets them: _pinfo_now None)."""
        k = r.attempt_count
        p = self._pinfo_now
        if p is None or k > 1 or self._setup_tries:
            p = _lib.sps_precond_info()
            self._c_precond_info(h, p)
            self._pinfo_now = p
        a = r.attempts
        if a != self._tries_at:
            self._tries_at, self._tries_views = a, {}
        v = self._tries_views.get(k)
        if v is None:
            if not k:
                return (self._device_name, self._spmv_choice, b"", p)
            v = self._tries_views[k] = (ctypes.c_char * (k * _ATTEMPT_SIZE)).from_address(a)
        return (self._device_name, self._spmv_choice, v.raw, p)

    def _require_setup(self):
        if self._matrix is None:
            raise SpsolveError(-10, "the Solver has no matrix: call setup(A) first", "setup")

    # Tolerances may change between solves without a new setup.

    @property
    def rtol(self):
        return self._rtol

    @rtol.setter
    def rtol(self, value):
        self._rtol = float(value)
        self._apply_tolerances()

    @property
    def atol(self):
        return self._atol

    @atol.setter
    def atol(self, value):
        self._atol = float(value)
        self._apply_tolerances()

    # Solve.

    def _vector_in(self, v, name, n):
        """v as a contiguous float64 array of length n on its own side (NumPy or CuPy)."""
        if (type(v) is np.ndarray or _is_cupy_array(v)) and v.dtype == np.float64 and \
                v.flags.c_contiguous and v.shape == (n,):
            return v
        if _is_cupy_array(v):
            import cupy as cp

            if v.dtype.kind == "c":
                raise TypeError(f"{name}: complex vectors are not supported")
            v = cp.ascontiguousarray(v, dtype=cp.float64)
        else:
            if getattr(v, "dtype", None) is not None and v.dtype.kind == "c":
                raise TypeError(f"{name}: complex vectors are not supported")
            v = np.ascontiguousarray(v, dtype=np.float64)
        if v.shape != (n,):
            raise ValueError(f"{name} has shape {v.shape}, the matrix needs ({n},)")
        return v

    def _output(self, b, x0, out, n):
        """The array x is written to, of b's kind, holding the initial guess; without x0 its
        contents are left as they are and the solve starts from 0 by itself (zero guess)."""
        cupy_side = _is_cupy_array(b)
        if out is not None:
            if _is_cupy_array(out) != cupy_side:
                raise TypeError("out must be a CuPy array for a CuPy b and a NumPy array for a "
                                "NumPy b")
            if (out.dtype != np.float64 or out.shape != (n,) or not out.flags.c_contiguous
                    or (not cupy_side and not out.flags.writeable)):
                raise ValueError(f"out must be a writeable contiguous float64 array of shape "
                                 f"({n},)")
            if (np.may_share_memory(out, b) if not cupy_side else
                    (_addr(out) < _addr(b) + 8 * n and _addr(b) < _addr(out) + 8 * n)):
                raise ValueError("out must not share memory with b")
            if x0 is None:
                pass
            elif x0 is not out:
                out[...] = self._same_side(self._vector_in(x0, "x0", n), cupy_side)
            return out
        if x0 is None:
            return _cupy().empty(n, dtype=np.float64) if cupy_side else np.empty(n)
        x0 = self._same_side(self._vector_in(x0, "x0", n), cupy_side)
        return x0.copy()

    @staticmethod
    def _same_side(v, cupy_side):
        """v moved to the host (NumPy) or the current GPU (CuPy) when it is not there."""
        if _is_cupy_array(v) == cupy_side:
            return v
        return _cupy().asarray(v) if cupy_side else v.get()

    def solve(self, b, x0=None, out=None, check=None):
        """Solve A x = b; returns (x, info).

        b    NumPy or CuPy vector; x comes back of the same kind. A two-dimensional b of shape
             (n, k) is k right-hand sides solved together (sps_solver_solve_many: batched, or
             block CG with method="block-cg"); x is then (n, k) and info a ManySolveInfo with
             one ColumnInfo per column
        x0   initial guess (default 0), left unchanged; of b's shape
        out  an array to write x into (and return), of b's kind; without x0 it starts at 0
        check  raise ConvergenceError when not converged (default: the Solver's check)
        """
        # The common case in as few Python steps as it takes (issue 12: the time Python adds to
        # the C solve): b and out (if given) contiguous float64 vectors of the kind this
        # Solver uses in place (NumPy on the CPU, CuPy on the context's GPU), no x0, and the
        # library already set to start from 0. Anything else, and any argument that would
        # raise, takes _solve_general, which checks and converts as it always did.
        if (type(b) is self._fast_type and x0 is None and self._zero_guess
                and (b.dtype is _F64 or b.dtype == _F64) and b.strides == _STRIDES_1D
                and b.size == self.n):
            n = self.n
            x = None
            if self._gpu:
                # CuPy vectors: device pointers, b on the context's GPU (out is not asked
                # where it lies, as in _solve_general).
                m = b.data
                if m.device_id == self._gpu_index:
                    bb = m.ptr
                    if out is None:
                        x = self._empty(n)
                        xx = x.data.ptr
                    elif (type(out) is self._fast_type and (out.dtype is _F64 or out.dtype == _F64)
                          and out.strides == _STRIDES_1D and out.size == n):
                        xx = out.data.ptr
                        if xx >= bb + 8 * n or bb >= xx + 8 * n:
                            x = out
                    if x is not None:
                        # The library reads on its own stream: b must be written first.
                        self._current_stream().synchronize()
            else:
                # NumPy vectors: the address through the buffer protocol (writable arrays;
                # a tenth of the time of a.ctypes.data, which a read-only b still takes).
                bb = _addressof(_from_buffer(b)) if b.flags.writeable else b.ctypes.data
                if out is None:
                    x = np.empty(n)
                    xx = _addressof(_from_buffer(x))
                elif (type(out) is np.ndarray and (out.dtype is _F64 or out.dtype == _F64)
                      and out.strides == _STRIDES_1D and out.size == n and out.flags.writeable):
                    xx = _addressof(_from_buffer(out))
                    if xx >= bb + 8 * n or bb >= xx + 8 * n:
                        x = out
            if x is not None:
                h = self._handle
                vecs = self._vecs
                vb = vecs[1] if vecs[0] == bb else self._rewrap(0, bb)
                vx = vecs[3] if vecs[2] == xx else self._rewrap(2, xx)
                if self._trace_pointers:
                    self.last_vector_data = self._vector_data(_lib.lib(), vb, vx)
                st = self._c_solve(h, vb, vx)
                # After the C solve: the status, the report kept undecoded (see SolveInfo),
                # and the check, as _take_info and _solve_general do.
                if st:
                    self._pinfo_now = None
                    _check(st, self.ctx.handle, "sps_solver_solve")
                r = _Report()
                self._c_report(h, r)
                info = _new_solve_info(SolveInfo)
                info._raw = r
                f = self._facts
                if f is None:
                    # The automatic choice, as _read_facts reads it, inlined for a solve that
                    # made one try at the address of the last: the tries copied, the
                    # preconditioner facts last read.
                    k = r.attempt_count
                    v = self._tries_views.get(k)
                    p = self._pinfo_now
                    if (k == 1 and v is not None and p is not None and not self._setup_tries
                            and r.attempts == self._tries_at):
                        f = (self._device_name, self._spmv_choice, v.raw, p)
                    else:
                        f = self._read_facts(h, r)
                info._facts = f
                info.history = self._history_of(r) if self._history else None
                if (self.check if check is None else check) and r.reason <= 0:
                    raise ConvergenceError(info)
                return x, info
        return self._solve_general(b, x0, out, check)

    def _solve_general(self, b, x0, out, check):
        if getattr(b, "ndim", 1) == 2:
            return self._solve_many(b, x0, out, check)
        self._require_setup()
        self._pinfo_now = None
        lib = _lib.lib()
        ctx = self.ctx
        n = self.n
        b = self._vector_in(b, "b", n)
        x = self._output(b, x0, out, n)
        on_gpu = _is_cupy_array(b)
        h = self._handle
        c = ctx.handle
        if self._zero_guess != (x0 is None):
            _check(lib.sps_solver_set_zero_guess(h, int(x0 is None)), c,
                   "sps_solver_set_zero_guess")
            self._zero_guess = x0 is None
        if ctx.is_cuda and on_gpu and b.device.id == ctx.index:
            # CuPy data on the context's GPU: the library works in b's and x's memory.
            import cupy as cp

            cp.cuda.get_current_stream().synchronize()
            self._solve_wrapped(lib, c, h, b, x, n)
        elif ctx.is_cuda:
            vb, vx = self._staging[0], self._staging[1]
            bh = b.get() if on_gpu else b
            xh = x.get() if on_gpu else x
            _check(lib.sps_vector_upload(vb, _addr(bh), n), c, "sps_vector_upload")
            if x0 is not None:
                _check(lib.sps_vector_upload(vx, _addr(xh), n), c, "sps_vector_upload")
            _check(self._c_solve(h, vb, vx), c, "sps_solver_solve")
            _check(lib.sps_vector_download(vx, _addr(xh), n), c, "sps_vector_download")
            if on_gpu:
                x[...] = _cupy().asarray(xh)
        elif on_gpu:
            bh, xh = b.get(), x.get()
            self._solve_wrapped(lib, c, h, bh, xh, n)
            x[...] = _cupy().asarray(xh)
        else:
            self._solve_wrapped(lib, c, h, b, x, n)
        info = self._take_info(h)
        if self._fast_type is None and self._gpu and self.n and _cupy() is not None:
            # CuPy was imported after setup: the common case can take CuPy vectors from now.
            self._fast_kind()
        if not info.converged and (self.check if check is None else check):
            raise ConvergenceError(info)
        return x, info

    def _block_in(self, v, name, n, k=None):
        """v as a C-contiguous float64 (n, k) array on its own side (NumPy or CuPy): row-major,
        which is the library's multivector layout with leading dimension k."""
        if _is_cupy_array(v):
            import cupy as cp

            if v.dtype.kind == "c":
                raise TypeError(f"{name}: complex values are not supported")
            v = cp.ascontiguousarray(v, dtype=cp.float64)
        else:
            if getattr(v, "dtype", None) is not None and v.dtype.kind == "c":
                raise TypeError(f"{name}: complex values are not supported")
            v = np.ascontiguousarray(v, dtype=np.float64)
        if v.ndim != 2 or v.shape[0] != n or v.shape[1] < 1 or (k is not None and v.shape[1] != k):
            want = f"({n}, k)" if k is None else f"({n}, {k})"
            raise ValueError(f"{name} has shape {v.shape}, the matrix needs {want} with k >= 1")
        return v

    def _solve_many(self, b, x0, out, check):
        self._require_setup()
        self._pinfo_now = None
        lib = _lib.lib()
        ctx, n, h = self.ctx, self.n, self._handle
        c = ctx.handle
        B = self._block_in(b, "b", n)
        k = B.shape[1]
        cupy_side = _is_cupy_array(B)
        xp = _cupy() if cupy_side else np
        if out is not None:
            if _is_cupy_array(out) != cupy_side or out.dtype != np.float64 or out.shape != (n, k) \
                    or not out.flags.c_contiguous:
                raise ValueError(f"out must be a C-contiguous float64 array of shape ({n}, {k}) "
                                 "of b's kind")
            X = out
            if x0 is not None:
                X[...] = self._same_side(self._block_in(x0, "x0", n, k), cupy_side)
        elif x0 is not None:
            X = self._same_side(self._block_in(x0, "x0", n, k), cupy_side).copy()
        else:
            X = xp.empty((n, k), dtype=np.float64)
        if k > self._columns:
            # more columns than the work space was made for: made again, once
            _check(lib.sps_solver_set_columns(h, k), c, "sps_solver_set_columns")
            self._columns = k
            if self._facts is not None:
                # a rebuild after setup: the facts the solves share are read again
                self._facts = self._setup_facts()
        if self._zero_guess != (x0 is None):
            _check(lib.sps_solver_set_zero_guess(h, int(x0 is None)), c,
                   "sps_solver_set_zero_guess")
            self._zero_guess = x0 is None
        if ctx.is_cuda and not (cupy_side and B.device.id == ctx.index):
            # host data on a GPU context (or CuPy data of another GPU): through device blocks
            Bh = B.get() if cupy_side else B
            Xh = X.get() if cupy_side else X
            mb, mx = ctypes.c_void_p(), ctypes.c_void_p()
            _check(lib.sps_multivector_create(c, ctypes.byref(mb), n, k), c,
                   "sps_multivector_create")
            try:
                _check(lib.sps_multivector_create(c, ctypes.byref(mx), n, k), c,
                       "sps_multivector_create")
                try:
                    # the upload and download take column-major host arrays
                    bf = np.asfortranarray(Bh)
                    _check(lib.sps_multivector_upload(mb, _addr(bf), n, k), c,
                           "sps_multivector_upload")
                    if x0 is not None:
                        xf = np.asfortranarray(Xh)
                        _check(lib.sps_multivector_upload(mx, _addr(xf), n, k), c,
                               "sps_multivector_upload")
                    _check(lib.sps_solver_solve_many(h, mb, mx), c, "sps_solver_solve_many")
                    xf = np.empty((n, k), order="F")
                    _check(lib.sps_multivector_download(mx, _addr(xf), n, k), c,
                           "sps_multivector_download")
                    X[...] = xp.asarray(xf)
                finally:
                    lib.sps_multivector_destroy(ctypes.byref(mx))
            finally:
                lib.sps_multivector_destroy(ctypes.byref(mb))
        else:
            if cupy_side and not ctx.is_cuda:
                Bw, Xw = B.get(), X.get()
            else:
                if cupy_side:
                    _cupy().cuda.get_current_stream().synchronize()
                Bw, Xw = B, X
            mb, mx = ctypes.c_void_p(), ctypes.c_void_p()
            _check(lib.sps_multivector_wrap(c, ctypes.byref(mb), n, k, _addr(Bw), k), c,
                   "sps_multivector_wrap")
            try:
                _check(lib.sps_multivector_wrap(c, ctypes.byref(mx), n, k, _addr(Xw), k), c,
                       "sps_multivector_wrap")
                try:
                    _check(lib.sps_solver_solve_many(h, mb, mx), c, "sps_solver_solve_many")
                finally:
                    lib.sps_multivector_destroy(ctypes.byref(mx))
            finally:
                lib.sps_multivector_destroy(ctypes.byref(mb))
            if Xw is not X:
                X[...] = _cupy().asarray(Xw)
        info = self._many_info(lib, h, k)
        if not info.converged and (self.check if check is None else check):
            raise ConvergenceError(info)
        return X, info

    def _many_info(self, lib, h, k):
        rep = _lib.sps_many_report()
        lib.sps_solver_get_many_report(h, ctypes.byref(rep))
        lib.sps_solver_get_report(h, self._report_ref)
        cols = []
        r = _lib.sps_column_report()
        for j in range(k):
            lib.sps_solver_get_column_report(h, j, ctypes.byref(r))
            history = None
            if self._history:
                history = (np.ctypeslib.as_array(r.history, shape=(r.history_count,)).copy()
                           if r.history_count else np.zeros(0))
            cols.append(ColumnInfo(r, history))
        return ManySolveInfo(cols, rep, self._report, self.ctx.name)

    def _rewrap(self, slot, addr):
        """A vector handle over the n doubles at addr (no copy) for slot 0 (b) or 2 (x) of
        _vecs, replacing the slot's last one."""
        lib = _lib.lib()
        vecs = self._vecs
        old = vecs[slot + 1]
        if old is not None:
            vecs[slot] = vecs[slot + 1] = None
            lib.sps_vector_destroy(ctypes.byref(old))
        v = ctypes.c_void_p()
        c = self.ctx.handle
        _check(lib.sps_vector_wrap(c, ctypes.byref(v), self.n, addr), c, "sps_vector_wrap")
        vecs[slot], vecs[slot + 1] = addr, v
        return v

    def _solve_wrapped(self, lib, c, h, b, x, n):
        vecs = self._vecs
        ab, ax = _addr(b), _addr(x)
        vb = vecs[1] if vecs[0] == ab else self._rewrap(0, ab)
        vx = vecs[3] if vecs[2] == ax else self._rewrap(2, ax)
        if self._trace_pointers:
            self.last_vector_data = self._vector_data(lib, vb, vx)
        _check(self._c_solve(h, vb, vx), c, "sps_solver_solve")

    def _vector_data(self, lib, vb, vx):
        """The storage addresses of the two vectors handed to the solve (for the zero-copy
        test): sps_vector_get_data of b and x."""
        pb, px = ctypes.c_void_p(), ctypes.c_void_p()
        lib.sps_vector_get_data(vb, ctypes.byref(pb))
        lib.sps_vector_get_data(vx, ctypes.byref(px))
        return pb.value, px.value

    def _take_info(self, h):
        """The SolveInfo of the solve just made (solve's common case does the same inline):
        the report as the library gave it, decoded when read, with the facts that are the
        same for every solve (or, with the automatic choice, this solve's), and the history
        copied (history=True: the library rewrites it at the next solve)."""
        r = _Report()
        self._c_report(h, r)
        info = _new_solve_info(SolveInfo)
        info._raw = r
        f = self._facts
        info._facts = f if f is not None else self._read_facts(h, r)
        info.history = self._history_of(r) if self._history else None
        return info

    @staticmethod
    def _history_of(r):
        count = r.history_count
        return np.ctypeslib.as_array(r.history, shape=(count,)).copy() if count else np.zeros(0)

    # The preconditioner and the inverse as operators.

    def apply_precond(self, r, out=None):
        """z = M^-1 r with the preconditioner in use (M approximates A); z of r's kind."""
        self._require_setup()
        lib = _lib.lib()
        ctx, n, c, h = self.ctx, self.n, self.ctx.handle, self._handle
        r = self._vector_in(r, "r", n)
        z = self._output(r, None, out, n)
        on_gpu = _is_cupy_array(r)
        if ctx.is_cuda and on_gpu and r.device.id == ctx.index:
            _cupy().cuda.get_current_stream().synchronize()
            rr, zz = r, z
        elif ctx.is_cuda:
            vb, vx = self._staging[0], self._staging[1]
            rh = r.get() if on_gpu else r
            _check(lib.sps_vector_upload(vb, _addr(rh), n), c, "sps_vector_upload")
            _check(lib.sps_solver_apply_precond(h, vb, vx), c, "sps_solver_apply_precond")
            zh = np.empty(n) if on_gpu else z
            _check(lib.sps_vector_download(vx, _addr(zh), n), c, "sps_vector_download")
            if on_gpu:
                z[...] = _cupy().asarray(zh)
            return z
        elif on_gpu:
            rr, zz = r.get(), np.empty(n)
        else:
            rr, zz = r, z
        vr, vz = ctypes.c_void_p(), ctypes.c_void_p()
        _check(lib.sps_vector_wrap(c, ctypes.byref(vr), n, _addr(rr)), c, "sps_vector_wrap")
        try:
            _check(lib.sps_vector_wrap(c, ctypes.byref(vz), n, _addr(zz)), c, "sps_vector_wrap")
            try:
                _check(lib.sps_solver_apply_precond(h, vr, vz), c, "sps_solver_apply_precond")
            finally:
                lib.sps_vector_destroy(ctypes.byref(vz))
        finally:
            lib.sps_vector_destroy(ctypes.byref(vr))
        if zz is not z:
            z[...] = _cupy().asarray(zz)
        return z

    def _operator_class(self):
        if self._matrix is not None and self._matrix.borrowed and self.ctx.is_cuda:
            import cupyx.scipy.sparse.linalg as cla

            return cla.LinearOperator
        import scipy.sparse.linalg as sla

        return sla.LinearOperator

    def aslinearoperator(self, warn=True):
        """A LinearOperator applying A^-1 (each matvec a solve with this Solver's setup), for
        SciPy code (or cupyx.scipy.sparse.linalg for a Solver set up with a CuPy matrix). A
        solve that does not converge gives a RuntimeWarning (warn=False: silent)."""
        self._require_setup()

        def matvec(b):
            shape = b.shape
            x, info = self.solve(b.reshape(-1))
            if warn and not info.converged:
                warnings.warn(f"spsolve: {info}", RuntimeWarning, stacklevel=3)
            return x.reshape(shape)

        return self._operator_class()(self.shape, matvec=matvec, dtype=np.float64)

    def preconditioner(self):
        """A LinearOperator applying M^-1, the preconditioner set up for A (SciPy's M=)."""
        self._require_setup()

        def matvec(r):
            shape = r.shape
            return self.apply_precond(r.reshape(-1)).reshape(shape)

        return self._operator_class()(self.shape, matvec=matvec, dtype=np.float64)

    # Queries and lifetime.

    def matrix_device_arrays(self):
        """Addresses (rowptr, rowptr32, colind, values) of the matrix arrays the kernels read."""
        self._require_setup()
        return self._matrix.device_arrays()

    @property
    def device(self):
        return self.ctx.name if self.ctx else None

    def close(self):
        """Free the library objects now (they are freed with the Solver otherwise)."""
        self._destroy()
        self._matrix = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


_names = {}


def _name(fn_name, v):
    """A name from one of the library's fixed tables, asked once per value."""
    key = (fn_name, v)
    s = _names.get(key)
    if s is None:
        raw = getattr(_lib.lib(), fn_name)(v)
        s = raw.decode() if raw else str(v)
        _names[key] = s
    return s


def _solver_name(v):
    return _name("sps_solver_type_name", v)


def _precond_name(v):
    return _name("sps_precond_type_name", v)


def _spmv_name(v):
    return _name("sps_spmv_kind_name", v)


def _spmv_choice(lib, handle):
    """sps_solver_get_spmv_choice as a dict (read once per setup: it changes only there)."""
    c = _lib.sps_spmv_choice_info()
    lib.sps_solver_get_spmv_choice(handle, ctypes.byref(c))
    cands = []
    for k in range(c.candidate_count):
        e = c.candidates[k]
        ok = e.status == 0
        cands.append({
            "spmv": _spmv_name(e.kind),
            "threads_per_row": e.threads_per_row,
            "seconds": e.seconds if ok else None,
            "status": _name("sps_status_name", e.status),
            "note": e.note.decode(errors="replace"),
            "used": ok and e.kind == c.kind and e.threads_per_row == c.threads_per_row,
        })
    return {
        "requested": _spmv_name(c.requested),
        "source": _name("sps_spmv_source_name", c.source),
        "why": c.why.decode(errors="replace"),
        "tune_seconds": c.tune_seconds,
        "tune_spmv_equivalents": c.tune_spmv_equivalents,
        "timed": c.timed,
        "candidates": cands,
        "cache_file": c.cache_file.decode(errors="replace") or None,
        "cache_note": c.cache_note.decode(errors="replace"),
    }


def _reason_name(v):
    return _name("sps_reason_name", v)


def _reason_text(v):
    return _name("sps_reason_string", v)


def solve(A, b, method="auto", precond="auto", rtol=1e-8, atol=0.0, maxit=None, restart=None,
          x0=None, device="auto", history=False, precond_params=None, spmv="auto",
          flexible=False, check=False, out=None):
    """Solve A x = b once; returns (x, info). See Solver for the arguments; use a Solver to
    keep the setup for several right-hand sides. A b of shape (n, k) is k right-hand sides
    solved together: x is (n, k) and info a ManySolveInfo (see Solver.solve)."""
    s = Solver(None, method=method, precond=precond, rtol=rtol, atol=atol, maxit=maxit,
               restart=restart, device=_device_for_solve(device, A, b), history=history,
               precond_params=precond_params, spmv=spmv, flexible=flexible, check=check,
               columns=b.shape[1] if getattr(b, "ndim", 1) == 2 else None)
    try:
        s.setup(A)
        return s.solve(b, x0=x0, out=out)
    finally:
        s.close()


def _device_for_solve(device, A, b):
    if device in (None, "auto") and not _is_cupy_sparse(A) and _is_cupy_array(b):
        return f"cuda:{b.device.id}"
    return device


def read_matrix(path):
    """Read a Matrix Market file (.mtx or .mtx.gz) with libspsolve's reader; returns a
    scipy.sparse.csr_matrix (symmetric files expanded, duplicates summed, rows sorted)."""
    import scipy.sparse as sp

    lib = _lib.lib()
    ctx = get_context("cpu")
    h = ctypes.c_void_p()
    _check(lib.sps_matrix_read_mm(ctx.handle, ctypes.byref(h), str(path).encode(), 0),
           ctx.handle, "sps_matrix_read_mm")
    try:
        m, n, nnz = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int64()
        lib.sps_matrix_get_size(h, ctypes.byref(m), ctypes.byref(n), ctypes.byref(nnz))
        rp, ci, va = ctypes.c_void_p(), ctypes.c_void_p(), ctypes.c_void_p()
        lib.sps_matrix_get_csr(h, ctypes.byref(rp), ctypes.byref(ci), ctypes.byref(va))

        def arr(p, ctype, dtype, count):
            if count == 0:
                return np.zeros(0, dtype=dtype)
            return np.ctypeslib.as_array(ctypes.cast(p, ctypes.POINTER(ctype)),
                                         shape=(count,)).copy()

        indptr = arr(rp.value, ctypes.c_int64, np.int64, m.value + 1)
        indices = arr(ci.value, ctypes.c_int32, np.int32, nnz.value)
        data = arr(va.value, ctypes.c_double, np.float64, nnz.value)
    finally:
        lib.sps_matrix_destroy(ctypes.byref(h))
    return sp.csr_matrix((data, indices, indptr), shape=(m.value, n.value))


def precond_params():
    """The preconditioner parameters: a list of (name, description, default)."""
    lib = _lib.lib()
    f = lib.sps_precond_param_info
    f.restype = ctypes.c_int
    f.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p), ctypes.POINTER(ctypes.c_char_p),
                  ctypes.POINTER(ctypes.c_double)]
    out, k = [], 0
    name, desc, dflt = ctypes.c_char_p(), ctypes.c_char_p(), ctypes.c_double()
    while f(k, ctypes.byref(name), ctypes.byref(desc), ctypes.byref(dflt)) == 0:
        out.append((name.value.decode(), desc.value.decode(), dflt.value))
        k += 1
    return out


def library_version():
    """The version of the loaded libspsolve."""
    return _lib.lib().sps_version().decode()


def library_path():
    """Where libspsolve was loaded from."""
    return _lib.path()


def have_cuda():
    """True when the loaded libspsolve was built with CUDA."""
    return bool(_lib.lib().sps_have_cuda())


def cuda_device_count():
    """Usable CUDA devices (0 without CUDA or without a GPU)."""
    n = ctypes.c_int()
    _lib.lib().sps_cuda_device_query(ctypes.byref(n), None, 0)
    return n.value
