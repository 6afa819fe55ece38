"""test_plot.py: spsolve-plot over real `spsolve --json --history` runs: a PNG with one curve
per file, the relative residuals it derives from the JSON, and its refusal of files without a
history. Skips without matplotlib or without the spsolve tool."""

import json
import os
import subprocess
import sys

import pytest

from conftest import data_dir

pytest.importorskip("matplotlib")

from spsolve import plot  # noqa: E402


@pytest.fixture(scope="module")
def runs(spsolve_cli, tmp_path_factory):
    """Two CLI runs on orsreg_1 (ILU(0) and Jacobi), with their residual histories."""
    d = tmp_path_factory.mktemp("runs")
    matrix = os.path.join(data_dir(), "orsreg_1.mtx.gz")
    paths = []
    for precond in ("ilu0", "jacobi"):
        out = d / f"{precond}.json"
        r = subprocess.run([spsolve_cli, "--device", "cpu", "--json", "--history", "--precond",
                            precond, matrix], capture_output=True, text=True, timeout=300)
        assert r.returncode == 0, r.stderr
        out.write_text(r.stdout)
        paths.append(str(out))
    return paths


def test_relative_residuals_from_the_json(runs):
    for path in runs:
        d = json.load(open(path))
        run = plot.load_run(path)
        # x0 = 0, so r_0 = b: the first relative residual is 1.
        assert run["rel"][0] == pytest.approx(1.0, rel=1e-12)
        assert len(run["rel"]) == d["iterations"] + 1
        # The last recurrence residual meets the tolerance the run stopped on.
        assert run["rel"][-1] <= d["rtol"] * 1.01
        assert run["times"][0] == d["time_setup"]
        assert run["times"][-1] == pytest.approx(d["time_setup"] + d["time_solve"])
    labels = plot._labels([plot.load_run(p) for p in runs], "run")
    assert labels == ["gmres+ilu0", "gmres+jacobi"]


def test_picture_is_written(runs, tmp_path):
    out = tmp_path / "conv.png"
    r = subprocess.run([sys.executable, "-m", "spsolve.plot", "-o", str(out)] + runs,
                       capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "2 runs" in r.stdout
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 10000


def test_file_without_history_is_refused(spsolve_cli, tmp_path):
    matrix = os.path.join(data_dir(), "nos3.mtx.gz")
    r = subprocess.run([spsolve_cli, "--device", "cpu", "--json", matrix], capture_output=True,
                       text=True, timeout=300)
    path = tmp_path / "plain.json"
    path.write_text(r.stdout)
    with pytest.raises(SystemExit, match="--history"):
        plot.load_run(str(path))
    bad = tmp_path / "bad.json"
    bad.write_text("matrix 1138_bus\n")
    with pytest.raises(SystemExit, match="not the JSON"):
        plot.load_run(str(bad))
