"""meshspec record's parts that run without ttnn (meshspec/bridge/record.py, launch.py): the
command it runs, the output directory it refuses, the names it takes from the calling line, and
the mapper forms it reads from ttnn's reprs. Recording real programs is in the ttnn tier
(tests_ttnn/test_record.py)."""

import sys
import types
from pathlib import Path

import pytest
from typer.testing import CliRunner

from meshspec.bridge import record
from meshspec.bridge.launch import check_output_dir, recorder_command
from meshspec.cli import app
from meshspec.errors import UsageError


def test_the_program_runs_in_its_own_python_with_the_recorder(tmp_path):
    prog = tmp_path / "prog.py"
    prog.write_text("print(1)\n")
    assert recorder_command(tmp_path / "out", ["--", str(prog), "a"]) == [
        sys.executable, "-m", "meshspec.bridge.record", str(tmp_path / "out"), "--", str(prog), "a"]
    cmd = recorder_command(tmp_path / "out", ["python", "-m", "pkg.mod", "x"])
    assert cmd[1:] == ["-m", "meshspec.bridge.record", str(tmp_path / "out"), "--", "-m", "pkg.mod", "x"]


@pytest.mark.parametrize("argv, words", [
    ([], "no program given"),
    (["ls", "-l"], "'ls' is not a Python interpreter or a .py file"),
    (["python"], "python with no program"),
    (["python", "missing.py"], "missing.py: no such file"),
])
def test_a_command_it_cannot_record_is_refused_before_anything_runs(tmp_path, argv, words):
    with pytest.raises(UsageError, match=words):
        recorder_command(tmp_path / "out", argv)


def test_a_recording_never_writes_over_files(tmp_path):
    check_output_dir(tmp_path / "new")  # a new directory
    check_output_dir(tmp_path)  # an empty one
    (tmp_path / "scenario.yaml").write_text("mine\n")
    with pytest.raises(UsageError, match="already holds scenario.yaml; give a new directory"):
        check_output_dir(tmp_path)
    with pytest.raises(UsageError, match="a file, not a directory"):
        check_output_dir(tmp_path / "scenario.yaml")
    r = CliRunner().invoke(app, ["record", "-o", str(tmp_path), "--", "python", "x.py"])
    assert r.exit_code == 2 and "already holds scenario.yaml" in r.output
    assert (tmp_path / "scenario.yaml").read_text() == "mine\n"


def _frame(line: str):
    """A frame-like object whose calling line is ``line``."""
    import linecache

    name = f"<record-test-{abs(hash(line))}>"
    linecache.cache[name] = (len(line), None, [line + "\n"], name)
    return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=name), f_lineno=1)


@pytest.mark.parametrize("line, name", [
    ("dst = ttnn.allocate_tensor_on_device(spec, md)", "dst"),
    ("self.kv_cache = ttnn.to_device(t, md)", "kv_cache"),
    ("out: ttnn.Tensor = ttnn.from_device(t)", "out"),
    ("sharded = ttnn.distribute_tensor(", "sharded"),  # the first line of a call that goes on
    ("ttnn.copy_host_to_device_tensor(a, b)", None),
    ("a, b = ttnn.get_device_tensors(t)", None),
])
def test_names_come_from_the_assignment_on_the_calling_line(line, name):
    assert record._assigned_name(_frame(line)) == name


def test_mapper_and_composer_configs_are_read_from_ttnn_reprs():
    # the reprs are ttnn 0.81.1's (observed in the mock)
    mapper = "MeshMapperConfig(placements: [PlacementReplicate(), PlacementShard(1)], mesh_shape_override=MeshShape([2, 3]))"
    assert record._placements(mapper) == ["replicate", {"shard": 1}]
    assert record._override(mapper, "mesh_shape_override") == [2, 3]
    assert record._override(mapper, "mesh_offset_override") is None
    rec = record.Recorder(Path("."), "t")
    assert record._composer_config(rec, object(), "MeshComposerConfig(dims: [0, 1])") == {"create_mesh_composer": {"dims": [0, 1]}}
