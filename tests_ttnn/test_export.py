"""Issue 15 section 4: every bundled scenario, exported (meshspec/bridge/export.py) and run on the
real ttnn in mock mode, reports the same records as the simulation under ``current``.

A difference is either fixed or listed in KNOWN with its cause; a listed scenario that agrees
fails too, so the list stays true. Device values are not compared: the mock reads zeros
(observe.py reports values on hardware only)."""

import json
import shutil
from pathlib import Path

import pytest

from conftest import ROOT, run_mock
from meshspec.bridge.export import export
from meshspec.judge.diff import diff_reports
from meshspec.render.diff import render_diff
from meshspec.runner import run
from meshspec.scenario.loader import load

BUNDLED = sorted((ROOT / "scenarios").glob("*.yaml")) + sorted((ROOT / "real-tests").glob("*.yaml"))

#: scenario name -> why its exported script's report differs from the simulation.
KNOWN: dict[str, str] = {
    "all-gather-async-label": "ttnn.experimental.all_gather_async binds as exported (global semaphores, a topology) but needs a "
    "fabric (ttnn.set_fabric_config before the mesh opens), which the mock has not: the real run stops at the first collective",
    "all-gather-async-padding": "ttnn.experimental.all_gather_async needs a fabric, which the mock has not: the real run stops at "
    "the gather",
    "linear-2d-mesh-label": "ttnn.linear runs a device kernel, which the mock cannot compile: the real run stops there",
    "galaxy-eltwise-mul-2d-fracture": "ttnn.mul runs a device kernel (eltwise_binary_sfpu_no_bcast), which the mock cannot compile: "
    "the real run stops there",
    "traced-decode-seed": "its trace captures an all_gather, which the mock cannot run (device kernels over the fabric)",
    # the mock runs one host (docs/semantics.md section 15): a multi-host scenario's errors are not the mock's
    # collectives need a fabric (ttnn.set_fabric_config before the mesh opens), which exported scripts do not set up yet:
    # the real run stops at the first one with "Trying to get un-initialized fabric context"
    **dict.fromkeys(
        ("all-gather-padding-2024", "all-gather-padding-window", "ring-all-gather-row-major", "submesh-ring-all-gather",
         "reshape-line-order"),
        "ttnn.all_gather needs a fabric, which the exported script does not set up: the real run stops at the gather"),
    # device kernels the mock cannot compile (Failed to generate binaries ...): the real run stops at the op
    "sharded-output-grid": "ttnn.slice runs a device kernel (writer_unary_interleaved_start_id), which the mock cannot compile",
    "dump-after-reshape-first-shard": "ttnn.reshape of a TILE tensor that moves tiles runs a device kernel (writer_reshape_tiled), "
    "which the mock cannot compile",
    "permute-composed-by-label": "ttnn.permute runs a device kernel (transpose_wh), which the mock cannot compile",
    "multihost-graph-capture": "graph capture in ttnn 0.81.1 traces to_device with torch, which the mock's Python 3.10 environment "
    "lacks (No module named 'torch')",
    "multihost-write-pinning": "the mock runs one host: its 32 MiB write owns every device and pins no remote one, where the "
    "simulation's host 1 of two fails as issue #48477 says",
}


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.stem)
def test_export_runs_on_the_real_library_and_agrees(path, tmp_path):
    scenario = load(path)
    script = tmp_path / "repro.py"
    script.write_text(export(scenario))
    for data in scenario.files.values():
        shutil.copy(data, tmp_path / data.name)
    result = run_mock(["python", str(script), str(tmp_path / "real.json")], scenario.mesh_name, tmp_path)
    assert (tmp_path / "real.json").exists(), f"no report (exit {result.returncode}):\n{result.stderr[-2000:]}"
    real = json.loads((tmp_path / "real.json").read_text())
    simulated = run(scenario, "current").to_json()
    d = diff_reports(simulated, real, "simulated", "real")
    if path.stem in KNOWN:
        assert not d.equal, f"{path.stem} now agrees with the real library: remove it from KNOWN"
        pytest.xfail(KNOWN[path.stem])
    assert d.equal, render_diff(d, width=140)
    # the run went as far in both: a crash (use-after-deallocate) leaves the pending report
    assert real["steps_run"] == simulated["steps_run"]
    if simulated["error"] and simulated["error"].get("crash"):
        assert result.returncode < 0 or result.returncode > 128, "the simulation says the process dies here"


def test_the_script_replaces_only_a_report_it_wrote_as_it_is(tmp_path, monkeypatch):
    """python repro.py real.json keeps meshspec run -o's rule (README, Exit codes): it replaces its
    own report, again and again, but not one annotated since, a file of yours, nor itself."""
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "state"))
    seed = ROOT / "scenarios" / "seed-uneven-copy.yaml"
    shutil.copy(seed, tmp_path / "seed.yaml")
    (tmp_path / "repro.py").write_text(export(load(tmp_path / "seed.yaml")))
    for _ in range(2):
        assert run_mock(["python", "repro.py", "real.json"], "t3k", tmp_path).returncode == 0
    assert json.loads((tmp_path / "real.json").read_text())["format"] == "meshspec.report/1"
    with open(tmp_path / "real.json", "a") as f:
        f.write("\n")  # an annotation
    for target in ("real.json", "seed.yaml", "repro.py"):
        before = (tmp_path / target).read_bytes()
        result = run_mock(["python", "repro.py", target], "t3k", tmp_path)
        assert result.returncode == 1 and (tmp_path / target).read_bytes() == before, target
        assert "refusing to overwrite it" in result.stderr or "is this script" in result.stderr, result.stderr[-500:]
