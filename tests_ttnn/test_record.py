"""Issue 15 section 2: meshspec record of real programs (tests_ttnn/programs/) in the mock. The
program's output and exit code are what they are without the recorder; the scenario it writes
runs in meshspec, and the simulation under ``current`` diffs equal to the recorded report."""

import json
import shutil
import sys
from pathlib import Path

import pytest
import yaml

from conftest import VERSION, run_mock, version_view
from meshspec.judge.diff import diff_reports
from meshspec.render.diff import render_diff
from meshspec.runner import run
from meshspec.scenario.loader import load

PROGRAMS = Path(__file__).parent / "programs"
MESHSPEC = [sys.executable, "-m", "meshspec"]


#: programs written against ttnn 0.81.1's API, and the words 0.67.0 and 0.66.0 stop them with when they
#: run by themselves (their numpy constructor refuses bfloat16; cpu() of a freed tensor raises there,
#: where 0.81.1 crashes): checked by :func:`_runs_here` before a test of them is marked
OLD_API = {
    "copy_and_read.py": ("TT_FATAL", "volume"),
    "loop_submesh_keywords.py": ("TT_FATAL", "volume"),
    "pytest_mesh.py": ("TT_FATAL", "volume"),
    "use_after_free.py": ("TT_FATAL", "tensor.is_allocated()"),
}


def _runs_here(program: str, tmp_path: Path, pytest_file: str = "") -> None:
    """On a version other than 0.81.1, a program of :data:`OLD_API` is shown to stop by itself with its
    words, and the test is marked as not applying (xfail, with why)."""
    if VERSION == "0.81.1" or program not in OLD_API:
        return
    shutil.copy(PROGRAMS / program, tmp_path / (pytest_file or program))
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", pytest_file] if pytest_file else ["python", program]
    plain = run_mock(args, "t3k", tmp_path)
    said = plain.stdout + plain.stderr
    assert plain.returncode != 0 and all(w in said for w in OLD_API[program]), said[-2000:]
    pytest.xfail(f"{program} is written against ttnn 0.81.1's API; on {VERSION} it stops by itself ({' '.join(OLD_API[program])})")


def _recorded(out: Path) -> tuple[dict, dict]:
    scenario = load(out / "scenario.yaml")
    real = json.loads((out / "report.json").read_text())
    simulated, real = version_view(run(scenario, "current").to_json(), real)
    d = diff_reports(simulated, real, "simulated", "recorded")
    assert d.equal, render_diff(d, width=140)
    return yaml.safe_load((out / "scenario.yaml").read_text()), real


@pytest.mark.parametrize("program, code, ops", [
    ("copy_and_read", 3, ["from_torch", "distribute_tensor", "allocate_tensor_on_device", "copy_host_to_device_tensor", "cpu",
                          "get_device_tensors"]),
    ("opaque_and_caught", 0, ["from_torch", "opaque", "distribute_tensor", "allocate_tensor_on_device", "cpu", "aggregate_tensor",
                              "deallocate"]),
])
def test_a_recorded_program_runs_as_before_and_its_scenario_agrees(program, code, ops, tmp_path):
    _runs_here(f"{program}.py", tmp_path)
    shutil.copy(PROGRAMS / f"{program}.py", tmp_path)
    plain = run_mock(["python", f"{program}.py"], "t3k", tmp_path)
    recorded = run_mock([*MESHSPEC, "record", "-o", "out", "--", "python", f"{program}.py"], "t3k", tmp_path)
    assert plain.returncode == recorded.returncode == code
    assert recorded.stdout.splitlines()[-2:] == plain.stdout.splitlines()[-2:]
    scenario, real = _recorded(tmp_path / "out")
    assert [next(iter(s)) for s in scenario["steps"]] == ops
    assert len(real["steps"]) == len(ops) and real["error"] is None


def test_names_and_forms_come_from_the_program(tmp_path):
    _runs_here("copy_and_read.py", tmp_path)
    shutil.copy(PROGRAMS / "copy_and_read.py", tmp_path)
    run_mock([*MESHSPEC, "record", "-o", "out", "--", "python", "copy_and_read.py"], "t3k", tmp_path)
    scenario, real = _recorded(tmp_path / "out")
    steps = scenario["steps"]
    assert scenario["mesh"] == {"system": "t3k", "shape": [2, 4]}
    assert steps[0]["from_torch"] == {"as": "host", "shape": [1, 7, 32, 32], "dtype": "bfloat16", "layout": "tile",
                                     "data": {"file": "host.npy"}}
    assert steps[1]["distribute_tensor"]["mesh_mapper"] == {"shard_tensor_to_mesh_mapper": {"dim": 1}}
    assert steps[3]["copy_host_to_device_tensor"] == {"src": "sharded", "dst": "dst"}
    dst = next(t for t in real["tensors"] if t["name"] == "dst")
    assert [d["coord"] for d in dst["devices"] if d["recorded"]] == [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]]


def test_a_caught_error_is_a_comment_not_a_step(tmp_path):
    shutil.copy(PROGRAMS / "opaque_and_caught.py", tmp_path)
    run_mock([*MESHSPEC, "record", "-o", "out", "--", "python", "opaque_and_caught.py"], "t3k", tmp_path)
    text = (tmp_path / "out" / "scenario.yaml").read_text()
    assert "copy_host_to_device_tensor raised, and the program went on: Host tensor has different shape" in text
    scenario, _ = _recorded(tmp_path / "out")
    opaque = scenario["steps"][1]["opaque"]
    assert opaque["call"] == "ttnn.to_layout" and opaque["uses"] == ["a"] and opaque["storage"] == "host"


def test_a_step_that_kills_the_process_leaves_a_report(tmp_path):
    _runs_here("use_after_free.py", tmp_path)
    shutil.copy(PROGRAMS / "use_after_free.py", tmp_path)
    recorded = run_mock([*MESHSPEC, "record", "-o", "out", "--", "python", "use_after_free.py"], "t3k", tmp_path)
    assert recorded.returncode != 0
    _, real = _recorded(tmp_path / "out")  # the simulation says cpu() after deallocate crashes
    assert real["error"]["crash"] and real["error"]["op"] == "cpu" and real["error"]["step"] == 3


def test_pytest_records_each_test_in_its_own_directory(tmp_path):
    _runs_here("pytest_mesh.py", tmp_path, "test_mesh.py")
    shutil.copy(PROGRAMS / "pytest_mesh.py", tmp_path / "test_mesh.py")
    result = run_mock([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--meshspec-record", "rec", "test_mesh.py"],
                      "t3k", tmp_path)
    assert result.returncode == 0, result.stdout[-2000:]
    recorded = sorted(p.name for p in (tmp_path / "rec").iterdir())
    assert recorded == ["test_mesh.py_test_replicate", "test_mesh.py_test_shard_copy"]
    for name in recorded:
        _recorded(tmp_path / "rec" / name)


@pytest.mark.parametrize("workers", ["0", "2"])
def test_pytest_records_tests_whose_ids_clean_to_one_name_each_in_its_own_folder(tmp_path, workers):
    # under xdist two workers took the same free name and wrote into one folder (attacker review):
    # a folder is claimed by making it, which only one process can
    shutil.copy(PROGRAMS / "pytest_same_names.py", tmp_path / "test_same.py")
    result = run_mock([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-n", workers, "--meshspec-record", "rec",
                       "test_same.py"], "t3k", tmp_path)
    assert result.returncode == 0, result.stdout[-2000:]
    folders = sorted((tmp_path / "rec").iterdir())
    assert len(folders) == 8
    widths = []
    for folder in folders:
        scenario = (folder / "scenario.yaml").read_text()
        report = json.loads((folder / "report.json").read_text())
        (width,) = {t["devices"][0]["spec"]["shape"][-1] for t in report["tensors"] if t["storage"] == "device"}
        assert f"shape: [1, 1, 32, {width}]" in scenario  # the scenario and the report of one test
        widths.append(width)
    assert sorted(widths) == [32 * (i + 1) for i in range(8)]


def test_the_readme_loop_record_run_all_export_diff(tmp_path):
    _runs_here("copy_and_read.py", tmp_path)
    # docs/real-code.md, "From real code to a scenario and back": record, --profile all, export, run, diff
    shutil.copy(PROGRAMS / "copy_and_read.py", tmp_path)
    run_mock([*MESHSPEC, "record", "-o", "rec", "--", "python", "copy_and_read.py"], "t3k", tmp_path)
    every = run_mock([*MESHSPEC, "run", "rec/scenario.yaml", "--profile", "all"], "t3k", tmp_path)
    assert every.returncode == 1 and "stale" in every.stdout  # the seed's lie, under uniform-by-value
    assert run_mock([*MESHSPEC, "export", "rec/scenario.yaml", "-o", "repro.py"], "t3k", tmp_path).returncode == 0
    repro = run_mock(["python", "repro.py", "real.json"], "t3k", tmp_path)
    assert repro.returncode == 0, repro.stderr[-2000:]
    run_mock([*MESHSPEC, "run", "rec/scenario.yaml", "--profile", "current", "-f", "json", "-o", "sim.json"], "t3k", tmp_path)
    diff = run_mock([*MESHSPEC, "diff", "sim.json", "real.json"], "t3k", tmp_path)
    assert diff.returncode == 0 and "equal: no differences" in diff.stdout, diff.stdout


def test_a_loop_a_submesh_and_keywords_record_and_export(tmp_path):
    _runs_here("loop_submesh_keywords.py", tmp_path)
    shutil.copy(PROGRAMS / "loop_submesh_keywords.py", tmp_path)
    plain = run_mock(["python", "loop_submesh_keywords.py"], "t3k", tmp_path)
    recorded = run_mock([*MESHSPEC, "record", "-o", "rec", "--", "python", "loop_submesh_keywords.py"], "t3k", tmp_path)
    assert plain.returncode == recorded.returncode == 0 and plain.stdout.splitlines()[-1] == recorded.stdout.splitlines()[-1]
    scenario, real = _recorded(tmp_path / "rec")
    ops = [next(iter(s)) for s in scenario["steps"]]
    # each rebinding frees the old buffer once the program drops it: ttnn's next address depends on it
    assert ops[:5] == ["allocate_tensor_on_device", "allocate_tensor_on_device", "deallocate", "allocate_tensor_on_device", "deallocate"]
    assert "create_submesh" in ops and scenario["steps"][ops.index("create_submesh")]["create_submesh"]["offset"] == [1, 0]
    dist = scenario["steps"][ops.index("distribute_tensor")]["distribute_tensor"]
    assert dist["mesh_mapper"] == {"shard_tensor_to_mesh_mapper": {"dim": 1, "mesh_device": "row1"}}
    opaque = scenario["steps"][ops.index("opaque")]["opaque"]
    assert opaque["call"] == "ttnn.to_layout" and "code" not in opaque  # it names `layout`, a program variable
    assert run_mock([*MESHSPEC, "export", "rec/scenario.yaml", "-o", "repro.py"], "t3k", tmp_path).returncode == 0
    repro = run_mock(["python", "repro.py", "real.json"], "t3k", tmp_path)
    assert repro.returncode == 0, repro.stderr[-2000:]
    d = diff_reports(run(load(tmp_path / "rec" / "scenario.yaml"), "current").to_json(), json.loads((tmp_path / "real.json").read_text()))
    assert d.equal, render_diff(d, width=140)
