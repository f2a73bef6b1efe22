"""meshspec record's parts that run without ttnn (meshspec/bridge/record.py, launch.py): the
command it runs, the output directory it refuses, the names it takes from the calling line, and
the mapper forms it reads from ttnn's reprs. Recording real programs is in the ttnn tier
(tests_ttnn/test_record.py)."""

import importlib.util
import os
import sys
import types
from pathlib import Path

import pytest

from meshspec.bridge import calls, record
from meshspec.bridge.launch import check_output_dir, recorder_command
from cli_runner import invoke
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
    check_output_dir(tmp_path / "new")  # a new directory (made, and probed)
    (tmp_path / "empty").mkdir()
    check_output_dir(tmp_path / "empty")  # an empty one
    tmp_path = tmp_path / "empty"
    (tmp_path / "scenario.yaml").write_text("mine\n")
    with pytest.raises(UsageError, match="already holds scenario.yaml; give a new directory"):
        check_output_dir(tmp_path)
    with pytest.raises(UsageError, match="a file, not a directory"):
        check_output_dir(tmp_path / "scenario.yaml")
    r = invoke(["record", "-o", str(tmp_path), "--", "python", "x.py"])
    assert r.exit_code == 2 and "already holds scenario.yaml" in r.output
    assert (tmp_path / "scenario.yaml").read_text() == "mine\n"


def _frame(source: str, line: int = 1):
    """A frame-like object whose calling line is line ``line`` of ``source``."""
    import linecache

    name = f"<record-test-{abs(hash(source))}>"
    lines = [text + "\n" for text in source.splitlines()]
    linecache.cache[name] = (len(source), None, lines, name)
    return types.SimpleNamespace(f_code=types.SimpleNamespace(co_filename=name), f_lineno=line)


@pytest.mark.parametrize("source, func, name", [
    ("dst = ttnn.allocate_tensor_on_device(spec, md)", "allocate_tensor_on_device", "dst"),
    ("self.kv_cache = ttnn.to_device(t, md)", "to_device", "kv_cache"),
    ("out: ttnn.Tensor = ttnn.from_device(t)", "from_device", "out"),
    ("sharded = ttnn.distribute_tensor(\n    host,\n    mapper,\n)", "distribute_tensor", "sharded"),  # a call over lines
    ("ttnn.copy_host_to_device_tensor(a, b)", "copy_host_to_device_tensor", None),
    ("a, b = ttnn.get_device_tensors(t)", "get_device_tensors", None),
    # the inner call of a nested one does not take the outer's name
    ("back = ttnn.aggregate_tensor(ttnn.from_device(d), c)", "from_device", None),
    ("back = ttnn.aggregate_tensor(ttnn.from_device(d), c)", "aggregate_tensor", "back"),
    ("h = dist(host, m)", "distribute_tensor", "h"),  # an alias: the line's only call
])
def test_names_come_from_the_assignment_of_the_calls_own_statement(source, func, name):
    assert record._assigned_name(_frame(source), func) == name


def test_a_statement_over_several_lines_is_read_whole():
    source = "x = 1\ntiled = ttnn.to_layout(\n    a,\n    ttnn.TILE_LAYOUT,\n)\n"
    assert record._statement(_frame(source, 3)) == "tiled = ttnn.to_layout( a, ttnn.TILE_LAYOUT, )"


def test_an_opaque_call_is_exported_as_the_programs_line_only_when_it_names_nothing_else():
    assert record._portable("c = ttnn.add(a, b)", "ttnn.add", ["a", "b"]) == "c = ttnn.add(a, b)"
    assert record._portable("c = ttnn.add(a, bias)", "ttnn.add", ["a"]) is None  # bias: a program variable
    assert record._portable("c = my_add(a, b)", "my_add", ["a", "b"]) is None
    assert record._portable("c = ttnn.add(", "ttnn.add", ["a"]) is None


def test_mapper_and_composer_configs_are_read_from_ttnn_reprs():
    # the reprs are ttnn 0.81.1's (observed in the mock)
    mapper = "MeshMapperConfig(placements: [PlacementReplicate(), PlacementShard(-3)], mesh_shape_override=MeshShape([2, 3]))"
    assert calls.placements(mapper) == ["replicate", {"shard": -3}]  # the sign kept
    assert calls.override(mapper, "mesh_shape_override") == [2, 3]
    assert calls.override(mapper, "mesh_offset_override") is None
    rec = record.Recorder(Path("."), "t")
    assert calls._composer_config(rec, object(), "MeshComposerConfig(dims: [0, 1])") == {"create_mesh_composer": {"dims": [0, 1]}}
    assert calls._shard_mapper(rec, mesh_device=object(), dim=1) == {"shard_tensor_to_mesh_mapper": {"dim": 1}}  # keywords


def test_arguments_are_read_positionally_or_by_keyword():
    assert calls.arg((), {"tensor": 5}, 0, "tensor") == 5
    assert calls.arg((7,), {"tensor": 5}, 0, "tensor") == 7
    assert calls.arg((), {"tensor_spec": 1}, 0, "tensor_spec", "spec") == 1


def test_interpreter_options_are_passed_on_and_others_refused(tmp_path):
    prog = tmp_path / "p.py"
    prog.write_text("")
    cmd = recorder_command(tmp_path / "o", ["python", "-u", "-W", "error", str(prog)])
    assert cmd[1:4] == ["-u", "-W", "error"] and cmd[4:6] == ["-m", "meshspec.bridge.record"]
    with pytest.raises(UsageError, match="an interpreter option record does not pass on"):
        recorder_command(tmp_path / "o", ["python", "--weird", str(prog)])


def test_python_s_own_end_of_options_is_taken(tmp_path):
    """``python -- prog.py`` runs prog.py (python's -- ends its options): record runs it so, and
    the recorder is given the script, not the --."""
    prog = tmp_path / "p.py"
    prog.write_text("")
    cmd = recorder_command(tmp_path / "o", ["python", "-u", "--", str(prog), "x"])
    assert cmd[1:] == ["-u", "-m", "meshspec.bridge.record", str(tmp_path / "o"), "--", str(prog), "x"]
    with pytest.raises(UsageError, match="python -- missing.py: no such file|missing.py: no such file"):
        recorder_command(tmp_path / "o", ["python", "--", "missing.py"])
    with pytest.raises(UsageError, match="a script named like an option"):
        recorder_command(tmp_path / "o", ["python", "--", "-m", "pkg"])


def test_an_unwritable_output_is_refused_before_the_program_runs(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(UsageError, match="cannot write there"):
        check_output_dir(blocker / "sub")


@pytest.mark.skipif(importlib.util.find_spec("ttnn") is not None, reason="this Python has ttnn")
def test_a_python_without_ttnn_is_refused_before_the_program_runs_or_a_folder_is_made(tmp_path):
    """The recorder patches ttnn inside the program's process: with no ttnn there, record says so
    in one line (exit 2), runs nothing and leaves no folder behind."""
    prog = tmp_path / "prog.py"
    prog.write_text(f"open({str(tmp_path / 'ran')!r}, 'w')\n")
    r = invoke(["record", "-o", str(tmp_path / "rec"), "--", str(prog)])
    assert r.exit_code == 2 and "has no 'ttnn'" in r.output and len(r.output.strip().splitlines()) == 1
    assert not (tmp_path / "rec").exists() and not (tmp_path / "ran").exists()


def test_an_output_that_is_a_dangling_link_or_a_device_is_named_as_such(tmp_path):
    (tmp_path / "link").symlink_to(tmp_path / "nowhere" / "x")
    with pytest.raises(UsageError, match=r"a symbolic link to nothing \(.*nowhere/x\); give a new directory"):
        check_output_dir(tmp_path / "link")
    with pytest.raises(UsageError, match="/dev/null: not a directory; give a new directory"):
        check_output_dir(Path("/dev/null"))


def test_the_recording_never_writes_over_a_file_the_program_wrote_in_its_folder(tmp_path):
    """The empty-folder check runs before the program; a program that then writes scenario.yaml
    or report.json into that folder itself keeps its file: the recording stops instead."""
    rec = record.Recorder(tmp_path / "rec", "prog")
    (tmp_path / "rec").mkdir()
    ours = tmp_path / "rec" / record.SCENARIO
    rec._write(ours, "steps: 1\n")
    rec._write(ours, "steps: 2\n")  # its own file, as it wrote it: replaced
    assert ours.read_text() == "steps: 2\n"
    theirs = tmp_path / "rec" / record.REPORT
    theirs.write_text("the program's own report\n")
    with pytest.raises(FileExistsError, match="written by the program itself"):
        rec._write(theirs, "{}\n")
    assert theirs.read_text() == "the program's own report\n"
    ours.write_text("steps: 2\n# changed by the program\n")  # its own file, changed since
    with pytest.raises(FileExistsError):
        rec._write(ours, "steps: 3\n")
    assert ours.read_text().endswith("# changed by the program\n")


def test_the_recordings_steps_file_is_appended_to_and_removed_only_while_it_is_its_own(tmp_path):
    rec = record.Recorder(tmp_path / "rec", "prog")
    (tmp_path / "rec").mkdir()
    steps = tmp_path / "rec" / record.STEPS
    rec._check_steps_file()  # none yet, none expected
    steps.write_text("the program's own\n")
    with pytest.raises(FileExistsError, match="written by the program itself"):
        rec._check_steps_file()  # the program made it first
    steps.unlink()
    with open(steps, "a") as f:  # the recording's first state, as _snapshot appends it
        f.write("{}\n")
    info = os.stat(steps)
    rec._steps_at = (info.st_ino, info.st_size)
    rec._check_steps_file()
    replaced = tmp_path / "rec" / "other"
    replaced.write_text("{}\n")  # the same size, a new file renamed over it
    os.replace(replaced, steps)
    with pytest.raises(FileExistsError):
        rec._check_steps_file()


# -- what record writes is one line per comment, names by the one rule, and loads (issue 34) ------------------
ALLOCATE = {"shape": [1, 1, 32, 32], "dtype": "bfloat16", "layout": "tile"}


def _recorder(tmp_path) -> record.Recorder:
    """A recorder on a 1x2 mesh, as after the program opened it (no ttnn here: the mesh is a stand-in)."""
    rec = record.Recorder(tmp_path / "rec", "prog")
    rec.mesh, rec.mesh_shape = object(), [1, 2]
    rec._system = lambda: None
    return rec


def _allocate(rec, source: str, where: str = "prog.py:1") -> str:
    """The step ``source`` (an allocate_tensor_on_device) records, bound as the program names its result."""
    step = {"op": "allocate_tensor_on_device", "fields": dict(ALLOCATE), "where": where, "source": source,
            "qualname": "ttnn.allocate_tensor_on_device"}
    rec.steps.append(step)
    step["fields"]["as"] = rec.bind(object(), _frame(source), "tensor", step)
    return step["fields"]["as"]


def _steps(text: str) -> list:
    import yaml

    return [next(iter(s)) for s in yaml.safe_load(text)["steps"]]


@pytest.mark.parametrize("brk", ["\u2028", "\u2029", "\r", "\x85", "\n"])
def test_a_line_break_in_a_recorded_path_or_source_stays_inside_its_comment(tmp_path, brk):
    """Issue 34, section 2: the comment above a step replaced only \\n, so a program path holding
    U+2028 (or \\r, U+0085) made the rest of it a live step. Every comment is one line."""
    from meshspec.scenario.loader import parse

    rec = _recorder(tmp_path)
    live = f"{brk}  - deallocate: {{tensor: dst}}{brk}#"
    _allocate(rec, f"dst = ttnn.allocate_tensor_on_device(spec, md)  # {live}", where=f"/tmp/p{live}.py:1")
    text, lines = rec.scenario_text()
    assert not set("\r\x85\u2028\u2029") & set(text)
    assert _steps(text) == ["allocate_tensor_on_device"]
    assert [s.op for s in parse(text, tmp_path / "s.yaml").steps] == ["allocate_tensor_on_device"]
    comment = text.splitlines()[lines[0] - 2]
    assert comment.startswith("  # /tmp/p" + brk.encode("unicode_escape").decode() + "  - deallocate: {tensor: dst}")


def test_a_stopped_recordings_reason_is_one_comment_and_one_line_on_stderr(tmp_path, capsys):
    """The ``# recording stopped: why`` comment was written as the exception said it, newlines and all."""
    rec = _recorder(tmp_path)
    _allocate(rec, "dst = ttnn.allocate_tensor_on_device(spec, md)")
    rec._stop("ValueError: bad\n  - deallocate: {tensor: dst}\u2028x")
    text = (tmp_path / "rec" / record.SCENARIO).read_text()
    assert _steps(text) == ["allocate_tensor_on_device"]
    assert "# recording stopped: ValueError: bad\\n  - deallocate: {tensor: dst}\\u2028x" in text.splitlines()
    assert capsys.readouterr().err.splitlines() == [
        "meshspec record: stopped recording (ValueError: bad\\n  - deallocate: {tensor: dst}\\u2028x); the program goes on"]


def test_a_program_variable_that_is_no_name_becomes_one_by_the_one_rule(tmp_path):
    """Issue 34, section 4: ``dst_é = ...`` was written ``as: dst_é``, which the loader refuses.
    Every name record writes is names.as_name of the program's (the same always), its uses follow
    it, and the comment above the step keeps the program's own name."""
    from meshspec.names import as_name
    from meshspec.scenario.loader import parse

    rec = _recorder(tmp_path)
    name = _allocate(rec, "dst_é = ttnn.allocate_tensor_on_device(spec, md)")
    assert name == as_name("dst_é") == "dst___67ced1"
    again = _allocate(rec, "dst_é = ttnn.allocate_tensor_on_device(spec, md)")  # a second binding: made unique
    assert again == "dst___67ced1_2"
    long = _allocate(rec, "ä" * 200 + " = ttnn.allocate_tensor_on_device(spec, md)")
    assert len(long) <= 128
    rec.steps.append({"op": "deallocate", "fields": {"tensor": rec.ids[id(rec.objects[name])]}, "where": "prog.py:2",
                      "source": "ttnn.deallocate(dst_é)", "qualname": "ttnn.deallocate"})
    text, lines = rec.scenario_text()
    loaded = parse(text, tmp_path / "s.yaml")
    assert [s.op for s in loaded.steps] == ["allocate_tensor_on_device"] * 3 + ["deallocate"]
    assert "  - deallocate: {tensor: dst___67ced1}" in text.splitlines()
    assert text.splitlines()[lines[0] - 2] == "  # dst_é in the program; prog.py:1: dst_é = ttnn.allocate_tensor_on_device(spec, md)"
    assert record.Recorder(tmp_path, "prög").name == as_name("prög")


def test_a_recording_whose_scenario_does_not_load_keeps_nothing_and_says_why(tmp_path, capsys):
    """Whatever record keeps loads: checked at the end (scenario/loads.py:check_loads); otherwise
    its own files go, one line says why, and record exits 2 (Recorder.refused)."""
    rec = _recorder(tmp_path)
    _allocate(rec, "dst = ttnn.allocate_tensor_on_device(spec, md)")
    rec.steps.append({"op": "deallocate", "fields": {"tensor": "nowhere"}, "where": "prog.py:2", "source": "", "qualname": "ttnn.deallocate"})
    rec._save()  # as between steps: the files are there
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == [record.REPORT, record.SCENARIO]
    rec.finish()
    assert list((tmp_path / "rec").iterdir()) == []
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith(f"meshspec: record {tmp_path / 'rec'}: the scenario it made does not load "
                           f"({tmp_path / 'rec' / record.SCENARIO}:")
    assert "'nowhere'" in line and rec.refused


def test_a_recording_that_loads_is_kept(tmp_path, capsys):
    from meshspec.scenario.loader import load

    rec = _recorder(tmp_path)
    _allocate(rec, "dst = ttnn.allocate_tensor_on_device(spec, md)")
    rec.finish()
    assert rec.refused is None and capsys.readouterr().err == ""
    assert [s.op for s in load(tmp_path / "rec" / record.SCENARIO).steps] == ["allocate_tensor_on_device"]


def test_record_exits_2_when_what_it_recorded_would_not_load(tmp_path, monkeypatch, capsys):
    """run_program (what ``meshspec record`` runs): the program runs and keeps its output; a
    recording that would not load leaves no files and makes the exit status 2."""
    def install(rec):  # as if the program had made these calls (no ttnn here)
        rec.mesh, rec.mesh_shape, rec._system = object(), [1, 2], (lambda: None)
        rec.steps.append({"op": "deallocate", "fields": {"tensor": "nowhere"}, "where": "prog.py:1", "source": "",
                          "qualname": "ttnn.deallocate"})

    monkeypatch.setattr(record.Recorder, "install", install)
    monkeypatch.setattr(record.Recorder, "uninstall", lambda rec: None)
    monkeypatch.setattr(sys, "argv", list(sys.argv))
    monkeypatch.setattr(sys, "path", list(sys.path))
    out = tmp_path / "rec"
    out.mkdir()
    assert record.run_program(out, ["-c", "print('the program ran')"]) == 2
    captured = capsys.readouterr()
    assert captured.out == "the program ran\n" and list(out.iterdir()) == []
    assert len(captured.err.splitlines()) == 1 and "the scenario it made does not load" in captured.err


def test_a_saved_array_never_goes_through_a_link_in_the_recording_folder(tmp_path):
    """Issue 34 attacked again: save_array asked exists(), which is False for a dangling link, and
    np.save then followed the link out of the recording's folder. Now the file is made new (O_EXCL,
    O_NOFOLLOW): a link, dangling or not, is passed over like any name that is taken."""
    import numpy as np

    rec = _recorder(tmp_path)
    rec.out.mkdir(parents=True)
    outside = tmp_path / "victim_outside"
    os.symlink(outside, rec.out / "h.npy")  # dangling: nothing is at the target yet
    os.symlink(tmp_path / "kept.txt", rec.out / "h_2.npy")
    (tmp_path / "kept.txt").write_text("the user's", encoding="utf-8")
    name = rec.save_array("h", np.arange(3, dtype=np.float32))
    assert name == "h_3.npy" and not outside.exists() and (tmp_path / "kept.txt").read_text(encoding="utf-8") == "the user's"
    assert np.load(rec.out / name).tolist() == [0.0, 1.0, 2.0]
