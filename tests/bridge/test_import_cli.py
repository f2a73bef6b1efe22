"""meshspec import on the command line: the scenario to stdout or -o, a 'not imported' line per
call on stderr, a bad path one line, and never a write over what it read."""

from pathlib import Path

import yaml

from cli_runner import invoke
from meshspec.runner import run
from meshspec.scenario.loader import load

DATA = Path(__file__).parent / "data"


def test_import_writes_a_scenario_that_runs_and_names_what_it_left_out(tmp_path):
    out = tmp_path / "imported.yaml"
    r = invoke(["import", str(DATA / "tracer-unmapped"), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert "meshspec: not imported: 2_ttnn_add_20260101_000000_000002.json: ttnn.add (meshspec runs add steps, but import does not map its calls yet" in r.stderr
    assert r.stderr.count("not imported:") == 4
    report = run(load(out), "current")
    assert report.error is None and [s.op for s in load(out).steps][:2] == ["from_torch", "opaque"]


def test_import_of_a_graph_capture_to_stdout():
    r = invoke(["import", str(DATA / "graph-example.json")])
    assert r.exit_code == 0 and r.stderr == ""
    assert "- copy_host_to_device_tensor: {src: host0, dst: dev0}" in r.stdout


def test_import_never_writes_over_its_input(tmp_path):
    target = DATA / "graph-example.json"
    before = target.read_bytes()
    r = invoke(["import", str(target), "-o", str(target)])
    assert r.exit_code == 2 and target.read_bytes() == before


def test_import_replaces_its_own_scenario_and_never_a_hand_written_one(tmp_path):
    """files.py: an existing file is replaced only when meshspec wrote it as it is now; a
    hand-written scenario at -o is left as it was."""
    out = tmp_path / "imported.yaml"
    for _ in range(2):
        r = invoke(["import", str(DATA / "graph-example.json"), "-o", str(out)])
        assert r.exit_code == 0, r.output
        assert out.read_text().startswith("# Imported by meshspec import from a ttnn graph capture")
    mine = "meshspec: 1\nmesh: t3k\nsteps: []\n"
    out.write_text(mine)
    r = invoke(["import", str(DATA / "graph-example.json"), "-o", str(out)])
    assert r.exit_code == 2 and out.read_text() == mine
    assert "exists, and meshspec did not write it as it is now" in r.stderr and "refusing to overwrite it" in r.stderr


def test_a_path_that_is_neither_format_is_one_line(tmp_path):
    (tmp_path / "x.txt").write_text("hello")
    r = invoke(["import", str(tmp_path / "x.txt")])
    assert r.exit_code == 2 and len(r.stderr.strip().splitlines()) == 1 and "x.txt" in r.stderr


def test_a_hostile_op_name_in_a_trace_is_escaped_and_not_imported(tmp_path):
    """A trace is a file anyone can write: an op name with a terminal's title sequence and a
    newline is printed escaped on one line, and is no opaque step (a call is a dotted name)."""
    import json
    import shutil

    trace = tmp_path / "trace"
    shutil.copytree(DATA / "tracer-unmapped", trace)
    add = next(trace.glob("2_*"))
    data = json.loads(add.read_text())
    data["operation_name"] = "ttnn.add\x1b]0;OWNED\x07\nsteps: []"
    add.write_text(json.dumps(data))
    r = invoke(["import", str(trace), "-o", str(tmp_path / "out.yaml")])
    assert r.exit_code == 0, r.output
    line = next(x for x in r.stderr.splitlines() if "2_ttnn_add" in x)
    assert line.endswith("ttnn.add\\x1b]0;OWNED\\x07\\nsteps: [] (no meshspec step models this call)")  # and no opaque step kept
    assert "\x1b" not in r.stderr
    steps = yaml.safe_load((tmp_path / "out.yaml").read_text())["steps"]
    assert [s["opaque"]["call"] for s in steps if "opaque" in s] == ["ttnn.from_device"]  # its input lost: declared as traced
