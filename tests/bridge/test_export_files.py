"""Issue 34, section 4: the files an exported script touches. Two scenario file names are two
files in the script, as in the simulation; the script's temporary folder (and the tensors dumped
there) goes when it ends; its report is never written through a link planted at the report's name.

The scripts are run here against a stand-in ttnn (tests/bridge/data/fake_ttnn/ttnn.py: every call
answers, dump_tensor and load_tensor use real files), in a subprocess with its own TMPDIR."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from meshspec.bridge.export import export
from meshspec.sim.ops.exporting import in_files as _in_files
from meshspec.runner import run
from meshspec.scenario.loader import parse

FAKE_TTNN = Path(__file__).resolve().parent / "data" / "fake_ttnn"
HEAD = "meshspec: 1\nname: files\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"


def _run_script(tmp_path: Path, scenario_text: str, *args: str) -> subprocess.CompletedProcess:
    script = tmp_path / "repro.py"
    script.write_text(export(parse(scenario_text, Path("s.yaml"))))
    (tmp_path / "tmp").mkdir(exist_ok=True)
    env = dict(os.environ, TMPDIR=str(tmp_path / "tmp"), PYTHONPATH=str(FAKE_TTNN), MESHSPEC_STATE_DIR=str(tmp_path / "state"))
    return subprocess.run([sys.executable, str(script), *args], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)


def test_two_file_names_are_two_files_as_in_the_simulation(tmp_path):
    """x/y.tensorbin and x_y.tensorbin were one file in the script: a load the simulation refuses
    succeeded there. Now the script fails at the same step, with ttnn's own words."""
    text = HEAD + ("  - dump_tensor: {tensor: a, file_name: x/y.tensorbin}\n"
                   "  - load_tensor: {file_name: x_y.tensorbin, as: b}\n")
    scenario = parse(text, Path("s.yaml"))
    result = run(scenario, "current")
    assert result.error is not None and result.error.step == 2 and "does not exist" in result.error.message
    r = _run_script(tmp_path, text, "real.json")
    assert r.returncode == 0, r.stderr
    error = json.loads((tmp_path / "real.json").read_text())["error"]
    assert error["step"] == 2 and "Unable to load the tensor" in error["message"]


def test_a_dump_and_a_load_of_one_name_meet(tmp_path):
    text = HEAD + ("  - dump_tensor: {tensor: a, file_name: ../x/y.tensorbin}\n"
                   "  - load_tensor: {file_name: ../x/y.tensorbin, as: b}\n")
    r = _run_script(tmp_path, text, "real.json")
    assert r.returncode == 0, r.stderr
    assert json.loads((tmp_path / "real.json").read_text())["error"] is None
    assert not (tmp_path / "x").exists()


@pytest.mark.parametrize("names", [
    ("x/y.tensorbin", "x_y.tensorbin", "x%2Fy.tensorbin", "x-y.tensorbin", "x.y.tensorbin"),
    (".a", "%2Ea", "_a", "a"),
    ("é", "%C3%A9", "\udce9", "\ud800"),
    ("p" * 300, "p" * 301, "%%" + "0" * 64),
])
def test_the_file_mapping_is_one_to_one_and_stays_in_the_folder(names):
    mapped = [_in_files(n) for n in names]
    assert len(set(mapped)) == len(names), mapped
    for m in mapped:
        assert "/" not in m and not m.startswith(".") and len(m.encode()) <= 200


def test_as_tensors_cache_file_is_the_mapping_of_the_name_with_its_suffix():
    """as_tensor's file is {cache_file_name}_dtype_..._layout_....tensorbin in the simulation and
    in the script (which adds the suffix to the mapped name): a load of that full name finds it."""
    suffix = "_dtype_BFLOAT16_layout_TILE.tensorbin"
    for name in ("cache/w", "w", "a b/../c"):
        assert _in_files(name) + suffix == _in_files(name + suffix)


def test_the_scripts_temporary_folder_goes_when_it_ends(tmp_path):
    text = HEAD + "  - dump_tensor: {tensor: a, file_name: w.tensorbin}\n"
    for args in (("real.json",), ()):
        r = _run_script(tmp_path, text, *args)
        assert r.returncode == 0, r.stderr
        assert list((tmp_path / "tmp").iterdir()) == []
    failing = HEAD + ("  - dump_tensor: {tensor: a, file_name: w.tensorbin}\n"
                      "  - load_tensor: {file_name: missing.tensorbin, as: b}\n")
    r = _run_script(tmp_path, failing, "real.json")
    assert r.returncode == 0 and json.loads((tmp_path / "real.json").read_text())["error"]["step"] == 2
    assert list((tmp_path / "tmp").iterdir()) == []


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="symbolic links")
def test_the_report_replaces_a_link_at_its_name_and_never_writes_through_it(tmp_path):
    """An empty file may be replaced (the rule of meshspec run -o); a link to one planted under the
    report's name made the script write into the file it points at."""
    victim = tmp_path / "victim"
    victim.write_text("")
    (tmp_path / "real.json").symlink_to(victim)
    r = _run_script(tmp_path, HEAD, "real.json")
    assert r.returncode == 0, r.stderr
    assert victim.read_text() == ""
    report = tmp_path / "real.json"
    assert not report.is_symlink() and json.loads(report.read_text())["format"] == "meshspec.report/1"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["real.json", "repro.py", "state", "tmp", "victim"]  # no temporary left


def test_the_observe_writer_keeps_a_replaced_reports_mode_and_writes_a_fifo_through(tmp_path):
    from meshspec.bridge import observe

    out = tmp_path / "r.json"
    out.write_text("old")
    out.chmod(0o600)
    assert observe.write({"format": "x"}, str(out)) == b'{\n "format": "x"\n}\n'
    assert out.read_text() == '{\n "format": "x"\n}\n' and (out.stat().st_mode & 0o777) == 0o600
    assert observe.cannot_write(str(tmp_path)) == "it is a folder"
    assert observe.cannot_write(str(tmp_path / "no" / "r.json")).startswith("folder ")
    assert observe.write({"format": "x"}, "/dev/null") is not None
