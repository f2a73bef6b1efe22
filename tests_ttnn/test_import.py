"""meshspec import, then export, on the real library: a scenario imported from a tracer folder or
a graph capture (tests/bridge/data/) runs in meshspec, and its exported script, run in the mock,
reports what the simulation does (an opaque step without the program's line is exported as a
tensor with the declared records)."""

import json
from pathlib import Path

import pytest

from conftest import ROOT, VERSION, absent_names, run_mock, version_view
from meshspec.bridge.export import export
from meshspec.bridge.importer import import_path
from meshspec.judge.diff import diff_reports
from meshspec.render.diff import render_diff
from meshspec.runner import run
from meshspec.scenario.loader import parse

DATA = ROOT / "tests" / "bridge" / "data"


@pytest.mark.parametrize("source", ["tracer-example", "tracer-unmapped", "graph-example.json"])
def test_an_imported_scenario_exports_and_agrees_with_the_real_library(source, tmp_path):
    imported = import_path(DATA / source)
    (tmp_path / "s.yaml").write_text(imported.text)
    scenario = parse(imported.text, tmp_path / "s.yaml")
    (tmp_path / "repro.py").write_text(export(scenario))
    result = run_mock(["python", "repro.py", "real.json"], "t3k", tmp_path)
    absent = absent_names((tmp_path / "repro.py").read_text())
    if absent:  # an opaque step exported with update_tensor_topology, which 0.66/0.67 lack: said first
        assert result.returncode == 1 and f"which ttnn {VERSION} has not" in result.stderr, result.stderr[-2000:]
        pytest.xfail(f"ttnn {VERSION} has no {', '.join(absent)}: the script says so before any step")
    assert result.returncode == 0, result.stderr[-2000:]
    real = json.loads((tmp_path / "real.json").read_text())
    d = diff_reports(*version_view(run(scenario, "current").to_json(), real), "simulated", "real")
    assert d.equal, render_diff(d, width=140)
