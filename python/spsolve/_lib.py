"""_lib.py: finds and loads the installed libspsolve through ctypes and declares the C prototypes.

The library is looked for, in this order:

1. ``SPSOLVE_LIB``: the path of the shared library itself (``.../libspsolve.so``);
2. ``SPSOLVE_PREFIX``: an installation prefix (``PREFIX/lib``, ``PREFIX/lib64``, and
   ``PREFIX/lib/<multiarch>``);
3. ``pkg-config --variable=libdir spsolve`` (``PKG_CONFIG_PATH`` applies);
4. the dynamic loader's own search (``LD_LIBRARY_PATH``, the ldconfig cache, the system folders).

When one of the two variables is set, it alone is used: a library named on purpose is never
replaced by another one found elsewhere. When nothing loads, :class:`LibraryNotFoundError` lists
every place tried and why each failed.
"""

import ctypes
import ctypes.util
import os
import subprocess
import sys

# Functions this package calls; a library without them is too old.
REQUIRED = (
    "sps_version",
    "sps_status_name",
    "sps_context_create",
    "sps_vector_wrap",
    "sps_matrix_wrap_csr",
    "sps_solver_apply_precond",
    "sps_solver_get_spmv_choice",
    "sps_solver_solve_many",
)


class LibraryNotFoundError(ImportError):
    """libspsolve could not be loaded; the message lists what was tried."""


def _names():
    if sys.platform == "darwin":
        return ("libspsolve.dylib", "libspsolve.0.dylib")
    if sys.platform.startswith("win"):
        return ("spsolve.dll", "libspsolve-0.dll")
    return ("libspsolve.so", "libspsolve.so.0")


def _libdirs(prefix):
    dirs = [os.path.join(prefix, "lib"), os.path.join(prefix, "lib64")]
    multiarch = getattr(sys.implementation, "_multiarch", None)
    if multiarch:
        dirs.append(os.path.join(prefix, "lib", multiarch))
    return dirs


def _pkg_config_libdir():
    """The libdir pkg-config knows for spsolve, or (None, why)."""
    try:
        r = subprocess.run(
            ["pkg-config", "--variable=libdir", "spsolve"],
            capture_output=True,
            text=True,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as e:
        return None, f"pkg-config could not run ({e})"
    if r.returncode != 0 or not r.stdout.strip():
        why = r.stderr.strip().splitlines()
        return None, "pkg-config does not know spsolve" + (f" ({why[0]})" if why else "")
    return r.stdout.strip(), None


def _try(path, tried):
    try:
        lib = ctypes.CDLL(path)
    except OSError as e:
        tried.append(f"{path}: {e}")
        return None
    missing = [f for f in REQUIRED if not hasattr(lib, f)]
    if missing:
        tried.append(f"{path}: loads, but lacks {', '.join(missing)} (an older libspsolve)")
        return None
    return lib


def _files_in(dirs):
    return [os.path.join(d, n) for d in dirs for n in _names()]


def find_and_load():
    """Load libspsolve; returns (ctypes.CDLL, path). Raises LibraryNotFoundError."""
    tried = []
    env_lib = os.environ.get("SPSOLVE_LIB")
    env_prefix = os.environ.get("SPSOLVE_PREFIX")
    if env_lib:
        lib = _try(env_lib, tried)
        if lib:
            return lib, env_lib
        _fail(tried, "SPSOLVE_LIB is set, so nothing else was tried")
    if env_prefix:
        for path in _files_in(_libdirs(env_prefix)):
            if os.path.exists(path):
                lib = _try(path, tried)
                if lib:
                    return lib, path
            else:
                tried.append(f"{path}: no such file")
        _fail(tried, "SPSOLVE_PREFIX is set, so nothing else was tried")
    libdir, why = _pkg_config_libdir()
    if libdir:
        for path in _files_in([libdir]):
            if os.path.exists(path):
                lib = _try(path, tried)
                if lib:
                    return lib, path
            else:
                tried.append(f"{path} (pkg-config's libdir): no such file")
    else:
        tried.append(why)
    names = list(_names())
    found = ctypes.util.find_library("spsolve")
    if found and found not in names:
        names.append(found)
    for name in names:
        lib = _try(name, tried)
        if lib:
            return lib, name
    _fail(tried, None)


def _fail(tried, note):
    lines = "\n  ".join(tried)
    msg = (
        "libspsolve was not found. Tried:\n  "
        + lines
        + ("\n" + note if note else "")
        + "\nInstall spsolve (make install), or set SPSOLVE_LIB to the library file or "
        "SPSOLVE_PREFIX to its installation prefix."
    )
    raise LibraryNotFoundError(msg)


class sps_solver_attempt(ctypes.Structure):
    _fields_ = [
        ("method", ctypes.c_int),
        ("precond", ctypes.c_int),
        ("iterations", ctypes.c_int),
        ("residual_rel", ctypes.c_double),
        ("accepted", ctypes.c_int),
        ("note", ctypes.c_char * 240),
    ]


# attempts is declared as a plain address (const sps_solver_attempt *): reading it gives an int,
# from which the package copies the array with a ctypes view (no pointer object per solve).
class sps_solve_report(ctypes.Structure):
    _fields_ = [
        ("reason", ctypes.c_int),
        ("iterations", ctypes.c_int),
        ("residual_abs", ctypes.c_double),
        ("residual_rel", ctypes.c_double),
        ("setup_seconds", ctypes.c_double),
        ("solve_seconds", ctypes.c_double),
        ("method", ctypes.c_int),
        ("precond", ctypes.c_int),
        ("spmv", ctypes.c_int),
        ("threads_per_row", ctypes.c_int),
        ("attempts", ctypes.c_void_p),
        ("attempt_count", ctypes.c_int),
        ("history", ctypes.POINTER(ctypes.c_double)),
        ("history_count", ctypes.c_int),
    ]


SPS_AMG_MAX_LEVELS = 25  # include/spsolve.h
SPS_AMG_SETUP_PHASES = 8  # include/spsolve.h
AMG_SETUP_PHASE_NAMES = ("smoother", "strength", "splitting", "interpolation", "transpose",
                         "galerkin", "matrices", "coarsest")  # sps_amg_setup_phase_name()


class sps_precond_info(ctypes.Structure):
    _fields_ = [
        ("type", ctypes.c_int),
        ("matched", ctypes.c_int),
        ("scaled", ctypes.c_int),
        ("negated", ctypes.c_int),
        ("permuted_rows", ctypes.c_int64),
        ("unmatched_rows", ctypes.c_int64),
        ("replaced_pivots", ctypes.c_int64),
        ("pivot_swaps", ctypes.c_int64),
        ("shift", ctypes.c_double),
        ("shift_tries", ctypes.c_int),
        ("nnz_factors", ctypes.c_int64),
        ("levels_lower", ctypes.c_int),
        ("levels_upper", ctypes.c_int),
        ("ordering", ctypes.c_int),
        ("colors", ctypes.c_int),
        ("growth", ctypes.c_double),
        ("block_size", ctypes.c_int),
        ("degree", ctypes.c_int),
        ("eig_min", ctypes.c_double),
        ("eig_max", ctypes.c_double),
        ("amg_levels", ctypes.c_int),
        ("amg_rows", ctypes.c_int64 * SPS_AMG_MAX_LEVELS),
        ("amg_nnz", ctypes.c_int64 * SPS_AMG_MAX_LEVELS),
        ("amg_grid_complexity", ctypes.c_double),
        ("amg_operator_complexity", ctypes.c_double),
        ("amg_coarse_nnz", ctypes.c_int64),
        ("amg_coarsening", ctypes.c_int),
        ("amg_smoother", ctypes.c_int),
        ("amg_setup_seconds", ctypes.c_double * SPS_AMG_SETUP_PHASES),
        ("amg_level_seconds", ctypes.c_double * SPS_AMG_MAX_LEVELS),
    ]


SPS_SPMV_MAX_CANDIDATES = 16  # include/spsolve.h


class sps_spmv_candidate(ctypes.Structure):
    _fields_ = [
        ("kind", ctypes.c_int),
        ("threads_per_row", ctypes.c_int),
        ("seconds", ctypes.c_double),
        ("status", ctypes.c_int),
        ("note", ctypes.c_char * 200),
    ]


class sps_spmv_choice_info(ctypes.Structure):
    _fields_ = [
        ("requested", ctypes.c_int),
        ("kind", ctypes.c_int),
        ("threads_per_row", ctypes.c_int),
        ("source", ctypes.c_int),
        ("why", ctypes.c_char * 512),
        ("tune_seconds", ctypes.c_double),
        ("tune_spmv_equivalents", ctypes.c_double),
        ("timed", ctypes.c_int),
        ("candidate_count", ctypes.c_int),
        ("candidates", sps_spmv_candidate * SPS_SPMV_MAX_CANDIDATES),
        ("cache_file", ctypes.c_char * 1024),
        ("cache_note", ctypes.c_char * 256),
    ]


class sps_column_report(ctypes.Structure):
    _fields_ = [
        ("reason", ctypes.c_int),
        ("iterations", ctypes.c_int),
        ("residual_abs", ctypes.c_double),
        ("residual_rel", ctypes.c_double),
        ("history", ctypes.POINTER(ctypes.c_double)),
        ("history_count", ctypes.c_int),
        ("resolved", ctypes.c_int),
    ]


class sps_many_report(ctypes.Structure):
    _fields_ = [
        ("columns", ctypes.c_int64),
        ("converged", ctypes.c_int64),
        ("mode", ctypes.c_int),
        ("block_width", ctypes.c_int),
        ("max_iterations", ctypes.c_int),
        ("total_iterations", ctypes.c_int64),
        ("max_residual_rel", ctypes.c_double),
        ("solve_seconds", ctypes.c_double),
        ("note", ctypes.c_char * 200),
    ]


def _declare(lib):
    """Prototypes of the functions used: every status is an int, handles are void pointers."""
    P = ctypes.c_void_p
    PP = ctypes.POINTER(ctypes.c_void_p)
    I = ctypes.c_int
    I64 = ctypes.c_int64
    D = ctypes.c_double
    S = ctypes.c_char_p
    pI = ctypes.POINTER(I)
    pI64 = ctypes.POINTER(I64)
    pD = ctypes.POINTER(D)
    protos = {
        "sps_status_name": (S, [I]),
        "sps_status_string": (S, [I]),
        "sps_reason_name": (S, [I]),
        "sps_reason_string": (S, [I]),
        "sps_version": (S, []),
        "sps_have_cuda": (I, []),
        "sps_cuda_device_query": (I, [pI, ctypes.c_char_p, ctypes.c_size_t]),
        "sps_context_create": (I, [PP, I, I]),
        "sps_context_create_error": (S, []),
        "sps_context_destroy": (I, [PP]),
        "sps_context_last_error": (S, [P]),
        "sps_context_get_device": (I, [P, pI, pI]),
        "sps_context_get_device_name": (I, [P, ctypes.c_char_p, ctypes.c_size_t]),
        "sps_matrix_create_csr": (I, [P, PP, I64, I64, P, P, P]),
        "sps_matrix_wrap_csr": (I, [P, PP, I64, I64, P, P, P, P]),
        "sps_matrix_read_mm": (I, [P, PP, S, ctypes.c_uint]),
        "sps_matrix_get_size": (I, [P, pI64, pI64, pI64]),
        "sps_matrix_get_csr": (I, [P, PP, PP, PP]),
        "sps_matrix_get_device_csr": (I, [P, PP, PP, PP, PP]),
        "sps_matrix_get_symmetry": (I, [P, pI]),
        "sps_matrix_destroy": (I, [PP]),
        "sps_vector_create": (I, [P, PP, I64]),
        "sps_vector_wrap": (I, [P, PP, I64, P]),
        "sps_vector_get_data": (I, [P, PP]),
        "sps_vector_upload": (I, [P, P, I64]),
        "sps_vector_download": (I, [P, P, I64]),
        "sps_vector_fill": (I, [P, D]),
        "sps_vector_destroy": (I, [PP]),
        "sps_solver_type_from_name": (I, [S, pI]),
        "sps_solver_type_name": (S, [I]),
        "sps_precond_type_from_name": (I, [S, pI]),
        "sps_precond_type_name": (S, [I]),
        "sps_spmv_kind_from_name": (I, [S, pI]),
        "sps_spmv_kind_name": (S, [I]),
        "sps_solver_create": (I, [P, PP, I]),
        "sps_solver_set_tolerances": (I, [P, D, D]),
        "sps_solver_set_max_iterations": (I, [P, I]),
        "sps_solver_set_restart": (I, [P, I]),
        "sps_solver_set_flexible": (I, [P, I]),
        "sps_solver_set_precond": (I, [P, I]),
        "sps_solver_set_precond_param": (I, [P, S, D]),
        "sps_precond_param_value": (I, [S, S, ctypes.POINTER(ctypes.c_double)]),
        "sps_solver_set_spmv": (I, [P, I, I]),
        "sps_solver_set_history": (I, [P, I]),
        "sps_solver_set_zero_guess": (I, [P, I]),
        "sps_solver_setup": (I, [P, P]),
        "sps_solver_solve": (I, [P, P, P]),
        "sps_solver_apply_precond": (I, [P, P, P]),
        "sps_solver_get_reason": (I, [P, pI]),
        "sps_solver_get_iterations": (I, [P, pI]),
        "sps_solver_get_residual": (I, [P, pD, pD]),
        "sps_solver_get_history": (I, [P, ctypes.POINTER(pD), pI]),
        "sps_solver_get_spmv": (I, [P, pI, pI]),
        "sps_solver_get_spmv_choice": (I, [P, ctypes.POINTER(sps_spmv_choice_info)]),
        "sps_spmv_source_name": (S, [I]),
        "sps_solver_get_method": (I, [P, pI, pI]),
        "sps_solver_get_precond_info": (I, [P, ctypes.POINTER(sps_precond_info)]),
        "sps_solver_get_attempts": (
            I,
            [P, ctypes.POINTER(ctypes.POINTER(sps_solver_attempt)), pI],
        ),
        "sps_solver_get_times": (I, [P, pD, pD]),
        "sps_solver_get_report": (I, [P, ctypes.POINTER(sps_solve_report)]),
        "sps_multivector_create": (I, [P, PP, I64, I64]),
        "sps_multivector_wrap": (I, [P, PP, I64, I64, P, I64]),
        "sps_multivector_upload": (I, [P, P, I64, I64]),
        "sps_multivector_download": (I, [P, P, I64, I64]),
        "sps_multivector_get_data": (I, [P, PP, pI64]),
        "sps_multivector_destroy": (I, [PP]),
        "sps_solver_set_columns": (I, [P, I]),
        "sps_solver_set_block": (I, [P, I]),
        "sps_solver_solve_many": (I, [P, P, P]),
        "sps_solver_get_many_report": (I, [P, ctypes.POINTER(sps_many_report)]),
        "sps_solver_get_column_report": (I, [P, I64, ctypes.POINTER(sps_column_report)]),
        "sps_solver_destroy": (I, [PP]),
    }
    for name, (res, args) in protos.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


_lib = None
_path = None


def lib():
    """The loaded library (loaded and declared on first use)."""
    global _lib, _path
    if _lib is None:
        handle, path = find_and_load()
        _declare(handle)
        _lib, _path = handle, path
    return _lib


def path():
    """Where the library was loaded from (loads it if needed)."""
    lib()
    return _path
