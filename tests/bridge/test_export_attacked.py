"""Issue 34, attacked again after the fix: what an attacker who had read the issue still found in
export (meshspec/bridge/export.py) and in the opaque-code rule (meshspec/scenario/code.py)."""

import os
import subprocess
import sys
from pathlib import Path

import pytest

from meshspec.bridge.export import export
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse
from script_whitelist import problems

HEAD = "meshspec: 1\nname: t\nmesh: t3k\nsteps:\n"
ALLOCATE = "  - allocate_tensor_on_device: {{as: {name}, shape: [1, 1, 32, 32]}}\n"
ALL_8 = "{distribution_shape: [2, 4], placements: [R, R], coords: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}"


def _repro(text: str) -> str:
    """repro()'s body: the lines the steps became."""
    return text.split("def repro(mesh_device, files):", 1)[1].split("\n\n\n", 1)[0]


def test_a_tensor_named_underscore_is_not_the_scripts_throwaway():
    """A cpu() with no ``as`` binds the script's ``_``: a tensor named ``_`` was that same variable,
    so a later step on it ran on the other tensor's host copy."""
    text = export(parse(HEAD + ALLOCATE.format(name="_") + ALLOCATE.format(name="b")
                        + "  - cpu: {tensor: b}\n  - neg: {tensor: _, as: c}\n", Path("t.yaml")))
    body = _repro(text)
    assert "    _ = b.cpu()\n" in body and "c = ttnn.neg(t__)" in body and "t__ = ttnn.allocate_tensor_on_device(" in body
    assert problems(text) == []


def test_a_trace_named_like_a_tensor_keeps_its_own_variable():
    """A scenario names traces apart from tensors: ``trace: a`` and ``as: a`` are two things, and
    ``a = ttnn.begin_trace_capture(...)`` made the later neg run on the trace's id."""
    text = export(parse(HEAD + ALLOCATE.format(name="a") + "  - begin_trace_capture: {trace: a}\n"
                        "  - neg: {tensor: a, as: b}\n  - end_trace_capture: {trace: a}\n", Path("t.yaml")))
    body = _repro(text)
    assert "trace_a = ttnn.begin_trace_capture(mesh_device, cq_id=0)" in body
    assert "b = ttnn.neg(a" in body and "ttnn.end_trace_capture(mesh_device, trace_a, cq_id=0)" in body


@pytest.mark.parametrize("code", [
    "out = ttnn.add(a, a, dtype=ttnn.bfloat16, dtype=ttnn.float32)",
    "out = ttnn.add(a, a, memory_config=ttnn.MemoryConfig(buffer_type=ttnn.BufferType.L1, buffer_type=ttnn.BufferType.DRAM))",
])
def test_a_keyword_given_twice_is_refused_where_it_stands(code):
    """Python parses a repeated keyword and only compile() refuses it: the scenario loaded, ran,
    and its export stopped with a SyntaxError (exit 3)."""
    text = HEAD + ALLOCATE.format(name="a") + f"  - opaque: {{as: out, call: ttnn.add, uses: [a], shape: [1, 1, 32, 32], code: {code!r}, topology: {ALL_8}}}\n"
    with pytest.raises(ScenarioError, match="given twice") as err:
        parse(text, Path("t.yaml"))
    assert err.value.line == 6 and "\n" not in str(err.value)


@pytest.mark.parametrize("call", ["ttnn.test_hang_device_operation", "ttnn.experimental.send_async", "ttnn.experimental.recv_async",
                                  "ttnn.experimental.test_dram_prefetcher_consumer"])
def test_an_op_that_hangs_or_waits_on_a_peer_is_no_line_a_script_runs(call):
    """ttnn registers test ops (``test_hang_device_operation`` hangs the device on purpose) and ops
    that wait on another host: a repro script on hardware would hang there
    (tools/golden/record_ttnn_api.py:NOT_RUN keeps them off the list)."""
    text = HEAD + ALLOCATE.format(name="a") + f"  - opaque: {{as: out, call: {call}, uses: [a], shape: [1, 1, 32, 32], code: 'out = {call}(a)', topology: {ALL_8}}}\n"
    with pytest.raises(ScenarioError, match="is not a ttnn function an exported script runs"):
        parse(text, Path("t.yaml"))


def test_a_scenario_file_name_that_is_not_utf8_exports_to_a_script_that_compiles(tmp_path):
    """With no ``name:``, the scenario's name is its file's stem, which may hold bytes that are not
    UTF-8 (a lone surrogate in Python): the docstring took it raw and export stopped (exit 3)."""
    path = Path(os.fsdecode(os.fsencode(tmp_path) + b"/s\xff.yaml"))
    path.write_text("meshspec: 1\nmesh: t3k\nsteps:\n" + ALLOCATE.format(name="a"), encoding="utf-8")
    text = export(parse(path.read_text(encoding="utf-8"), path))
    text.encode("utf-8")
    compile(text, "repro.py", "exec")
    assert '"""s\\\\udcff: a meshspec scenario' in text


def test_the_script_imports_nothing_from_its_own_folder(tmp_path):
    """``python repro.py`` puts the script's folder first on sys.path: a ``shutil.py`` left beside
    it (a recording's folder is passed around whole) ran when the script imported shutil."""
    script = tmp_path / "repro.py"
    script.write_text(export(parse(HEAD + ALLOCATE.format(name="a"), Path("t.yaml"))), encoding="utf-8")
    planted = "import pathlib\npathlib.Path(__file__).with_name('RAN').write_text('planted module ran')\n"
    for module in ("shutil", "tempfile", "json", "hashlib", "stat", "numpy", "ttnn"):
        (tmp_path / f"{module}.py").write_text(planted, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert not (tmp_path / "RAN").exists(), result.stderr
    assert "this script runs on ttnn" in result.stderr or result.returncode == 0, result.stderr
