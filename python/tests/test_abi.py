"""test_abi.py: the package's ctypes copies of the header's sizes agree with include/spsolve.h."""

import ctypes
import os
import re

import pytest

from spsolve import _lib

HEADER = os.path.join(os.path.dirname(__file__), "..", "..", "include", "spsolve.h")


def header_define(name):
    with open(HEADER) as f:
        m = re.search(r"^#define\s+%s\s+(\d+)" % name, f.read(), re.M)
    assert m, f"{name} not in {HEADER}"
    return int(m.group(1))


@pytest.mark.skipif(not os.path.exists(HEADER), reason="not run from the source tree")
def test_max_candidates_matches_header():
    # sps_spmv_choice_info holds this many candidates: a different count shifts every field
    # after the table.
    assert _lib.SPS_SPMV_MAX_CANDIDATES == header_define("SPS_SPMV_MAX_CANDIDATES")


@pytest.mark.skipif(not os.path.exists(HEADER), reason="not run from the source tree")
def test_amg_max_levels_matches_header():
    # sps_precond_info holds this many levels of the multigrid hierarchy.
    assert _lib.SPS_AMG_MAX_LEVELS == header_define("SPS_AMG_MAX_LEVELS")


@pytest.mark.skipif(not os.path.exists(HEADER), reason="not run from the source tree")
def test_amg_setup_phases_match_header():
    # sps_precond_info times this many phases of the multigrid setup, named in this order.
    assert _lib.SPS_AMG_SETUP_PHASES == header_define("SPS_AMG_SETUP_PHASES")
    assert len(_lib.AMG_SETUP_PHASE_NAMES) == _lib.SPS_AMG_SETUP_PHASES
    lib = _lib.lib()
    lib.sps_amg_setup_phase_name.restype = ctypes.c_char_p
    lib.sps_amg_setup_phase_name.argtypes = [ctypes.c_int]
    names = tuple(lib.sps_amg_setup_phase_name(k).decode() for k in range(_lib.SPS_AMG_SETUP_PHASES))
    assert names == _lib.AMG_SETUP_PHASE_NAMES
    assert lib.sps_amg_setup_phase_name(_lib.SPS_AMG_SETUP_PHASES) is None
