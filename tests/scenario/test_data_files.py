"""Issue 34, attack round 1: a data file named ``.npy`` that is a zip of arrays (np.savez's, renamed)
is refused at load in one line, and left closed.

``data: {file: d.npy}`` naming such a file crashed ``run`` and ``export`` with "AttributeError:
'NpzFile' object has no attribute 'dtype'" (exit 3), the file left open: ``np.load`` returns an
NpzFile holding it for a zip, whatever the name. (``    data: {file: d.npy}`` on line 4: the name
starts at column 61 in the step below, counted by hand.)
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import load

SCENARIO = "meshspec: 1\nmesh: [1, 2]\nsteps:\n  - from_torch: {as: a, shape: [1, 1, 32, 32], data: {file: d.npy}}\n"


def _zip_named_npy(folder: Path) -> Path:
    np.savez(folder / "d.npz", a=np.zeros((1, 1, 32, 32), np.float32))
    (folder / "d.npz").rename(folder / "d.npy")
    (folder / "s.yaml").write_text(SCENARIO)
    return folder / "s.yaml"


def _open_files() -> list[str]:
    fds = Path("/proc/self/fd")
    out = []
    for fd in os.listdir(fds):
        try:
            out.append(os.readlink(fds / fd))
        except OSError:
            pass
    return out


def test_a_zip_named_npy_is_refused_in_one_line(tmp_path):
    path = _zip_named_npy(tmp_path)
    with pytest.raises(ScenarioError) as info:
        load(path)
    message = str(info.value)
    assert "\n" not in message
    assert message == (f"{path}:4:61: data file 'd.npy' is a zip of arrays (np.savez's .npz), not one array; "
                       "save the one array the step reads with np.save"), message


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="needs /proc to list open files")
def test_the_zip_is_left_closed(tmp_path):
    path = _zip_named_npy(tmp_path)
    with pytest.raises(ScenarioError):
        load(path)
    assert str((tmp_path / "d.npy").resolve()) not in _open_files()


@pytest.mark.parametrize("command", [["run"], ["export", "-o", "x.py"]])
def test_run_and_export_refuse_it_with_exit_2(tmp_path, command):
    path = _zip_named_npy(tmp_path)
    args = [command[0], path, *[str(tmp_path / a) if a.endswith(".py") else a for a in command[1:]]]
    res = invoke(args)
    assert res.exit_code == 2 and res.exception is None, (res.exit_code, res.stderr, res.exception)
    assert "is a zip of arrays" in res.stderr


def test_one_array_still_loads(tmp_path):
    np.save(tmp_path / "d.npy", np.zeros((1, 1, 32, 32), np.float32))
    (tmp_path / "s.yaml").write_text(SCENARIO)
    assert load(tmp_path / "s.yaml").files == {"d.npy": (tmp_path / "d.npy").resolve()}
