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


def _graph_with(tmp_path, source: str, counter: int, storage_type, sidecar: bool = True) -> Path:
    """A copy of a graph capture (and its sidecar) with one tensor node's storage_type changed."""
    import json
    import shutil

    data = json.loads((DATA / f"{source}.json").read_text())
    node = next(n for n in data["graph"] if n["counter"] == counter)
    assert node["node_type"] == "tensor"
    node["params"]["storage_type"] = storage_type
    capture = tmp_path / f"{source}.json"
    capture.write_text(json.dumps(data))
    if sidecar:
        shutil.copy(DATA / f"{source}.python_io.json", tmp_path / f"{source}.python_io.json")
    return capture


def test_a_malformed_storage_type_is_one_line_and_nothing_is_written(tmp_path):
    """Issue 34, section 4: a capture's tensor node with storage_type 'Bogus' was taken as a host
    tensor, and import exited 0 with a scenario that did not load. Now the node and the value are
    named, with ttnn's choices, and nothing is written."""
    out = tmp_path / "out.yaml"
    for bad, shown in (("Bogus", "'Bogus'"), (7, "'7'"), (["DEVICE"], """'["DEVICE"]'""")):
        capture = _graph_with(tmp_path, "graph-example", 6, bad, sidecar=False)
        r = invoke(["import", str(capture), "-o", str(out)])
        assert r.exit_code == 2 and r.stdout == "" and not out.exists()
        assert r.stderr.splitlines() == [
            f"meshspec: {capture}: node 6: storage_type {shown} is not one of ttnn's StorageType names (HOST, DEVICE)"]


def test_a_tracer_file_with_a_malformed_storage_type_is_one_line(tmp_path):
    import json
    import shutil

    trace = tmp_path / "trace"
    shutil.copytree(DATA / "tracer-example", trace)
    first = sorted(trace.iterdir())[0]
    data = json.loads(first.read_text())
    tensor = data["return_value"]
    tensor["storage_type"] = "StorageType.SOMEWHERE"
    first.write_text(json.dumps(data))
    r = invoke(["import", str(trace)])
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        f"meshspec: {first.name}: return_value: storage_type 'StorageType.SOMEWHERE' is not one of ttnn's StorageType names (HOST, DEVICE)"]


def test_what_import_would_write_is_loaded_first_and_refused_if_it_does_not_load(tmp_path):
    """A well-formed but contradictory capture (a host tensor's node says DEVICE) made a scenario
    whose copy reads a device tensor as its host source: import exited 0 and run refused the file.
    Whatever import writes loads; otherwise it says why in one line (the loader's own error, with
    the line and column in the file it would have written) and exits 2, writing nothing."""
    capture = _graph_with(tmp_path, "graph-more", 119, "DEVICE")
    out = tmp_path / "out.yaml"
    for target in ([], ["-o", str(out)]):
        r = invoke(["import", str(capture), *target])
        assert r.exit_code == 2 and r.stdout == "" and not out.exists()
        (line,) = r.stderr.splitlines()
        where = str(out) if target else "imported.yaml"
        assert line.startswith(f"meshspec: import {capture}: the scenario it made does not load ({where}:")
        assert "copy_host_to_device_tensor needs a host tensor), so nothing was written" in line


def test_a_fifo_or_a_link_to_a_device_named_like_an_op_file_is_named_and_never_opened(tmp_path):
    """Issue 34, section 4: such entries were skipped without a word. They are told from their
    stat, never opened (a FIFO would wait for a writer, /dev/zero never ends), and named as any
    call not imported is: on stderr and in the scenario's header, which still loads and runs."""
    import os
    import shutil

    trace = tmp_path / "trace"
    shutil.copytree(DATA / "tracer-example", trace)
    os.mkfifo(trace / "99_ttnn_add_20261201_084717_999999.json")
    (trace / "98_ttnn_neg_20261201_084717_999998.json").symlink_to("/dev/zero")
    out = tmp_path / "out.yaml"
    r = invoke(["import", str(trace), "-o", str(out)])
    assert r.exit_code == 0, r.output
    assert r.stderr.splitlines() == [
        "meshspec: not imported: 98_ttnn_neg_20261201_084717_999998.json: a character device, not a regular file; not read",
        "meshspec: not imported: 99_ttnn_add_20261201_084717_999999.json: a FIFO, not a regular file; not read",
    ]
    header = [line for line in out.read_text().splitlines() if line.startswith("# Skipped")]
    assert header == ["# Skipped 2 entries named like op files (never opened): 98_ttnn_neg_20261201_084717_999998.json: a character "
                      "device, not a regular file; not read; 99_ttnn_add_20261201_084717_999999.json: a FIFO, not a regular file; not read"]
    assert run(load(out), "current").error is None


def test_a_folder_whose_op_files_are_all_fifos_says_so(tmp_path):
    import os

    os.mkfifo(tmp_path / "1_ttnn_from_torch_1.json")
    r = invoke(["import", str(tmp_path)])
    assert r.exit_code == 2 and r.stderr.splitlines() == [
        f"meshspec: {tmp_path}: no op file here is a regular file (1 named like one: 1_ttnn_from_torch_1.json: a FIFO, not a regular "
        "file; not read)"]


def test_a_sidecar_that_is_a_fifo_is_not_opened_and_the_header_says_so(tmp_path):
    import os
    import shutil

    capture = tmp_path / "graph-example.json"
    shutil.copy(DATA / "graph-example.json", capture)
    os.mkfifo(tmp_path / "graph-example.python_io.json")
    r = invoke(["import", str(capture)])
    assert r.exit_code == 0, r.output
    assert "# Sidecar: graph-example.python_io.json is a FIFO, not a regular file: not read (never opened)" in r.stdout


def test_a_line_break_of_any_kind_in_a_traced_name_stays_inside_its_comment(tmp_path):
    """YAML ends a comment at \\r, U+0085, U+2028 and U+2029 too: an op name holding one, written
    into a 'not imported' comment, made the rest of it a live line. Every comment is one line."""
    import json
    import shutil

    trace = tmp_path / "trace"
    shutil.copytree(DATA / "tracer-unmapped", trace)
    add = next(trace.glob("2_*"))
    data = json.loads(add.read_text())
    data["operation_name"] = "ttnn.add\u2028  - neg: {tensor: host0}\r\x85\u2029"
    add.write_text(json.dumps(data))
    out = tmp_path / "out.yaml"
    r = invoke(["import", str(trace), "-o", str(out)])
    assert r.exit_code == 0, r.output
    text = out.read_text()
    assert not set("\r\x85\u2028\u2029") & set(text)
    assert "ttnn.add\\u2028  - neg: {tensor: host0}\\r\\x85\\u2029" in text
    assert "neg" not in [next(iter(s)) for s in yaml.safe_load(text)["steps"]]


def test_a_folder_named_with_a_line_break_is_one_line_and_the_same_name(tmp_path):
    """The scenario's name is the folder's, escaped as every line meshspec writes is (the loader
    takes no control characters): one line of YAML whatever the name holds (import wrote a U+2028
    as a real line break, and the scenario did not load)."""
    import shutil

    for brk in ("\u2028", "\x85", "\n", "\u2029"):
        trace = tmp_path / f"tr{brk}ace"
        shutil.copytree(DATA / "tracer-example", trace)
        out = tmp_path / "out.yaml"
        r = invoke(["import", str(trace), "-o", str(out)])
        assert r.exit_code == 0, r.output
        text = out.read_text()
        assert not set("\r\x85\u2028\u2029") & set(text)
        escaped = "tr" + brk.encode("unicode_escape").decode() + "ace"  # text.one_line: shown as the terminal shows it
        assert yaml.safe_load(text)["name"] == escaped == load(out).name
        assert text.count("\n") == len(text.splitlines())
        out.unlink()
