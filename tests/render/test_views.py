"""Issue 4 views other than the map: the step trace (as data), profiles side by side, the data
view, exports, and the systems / explain / init commands."""

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from cli_runner import invoke as run_cli

from meshspec.sim.profiles import PROFILES
from meshspec.runner import run
from meshspec.scenario.loader import load
from meshspec.text import WRITTEN_MARK

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def invoke(*args):
    return run_cli(args)


# -- trace (docs/semantics.md section 6, the current library's gap) ----------------------------------
def test_trace_shows_when_the_gap_opens():
    steps = run(load(SCENARIOS / "partial-then-full.yaml"), "current").to_json()["steps"]
    assert [s["op"] for s in steps] == [
        "allocate_tensor_on_device",
        "from_torch",
        "copy_host_to_device_tensor",
        "from_torch",
        "copy_host_to_device_tensor",
        "to_torch",
    ]
    alloc, _, partial, _, full, read = steps
    assert alloc["record_changes"] == [{"tensor": "dst", "devices": None, "change": "allocated", "detail": "8 devices recorded"}]
    # the partial copy writes 7 devices (row 0, and row 1 but (1,3)) and unrecords (1,3);
    # devices come as MeshCoordinateRange-like boxes, both ends inclusive
    seven = [{"start": [0, 0], "end": [0, 3]}, {"start": [1, 0], "end": [1, 2]}]
    assert partial["written"] == [{"tensor": "dst", "devices": seven, "count": 7, "bytes": 2048}]
    assert partial["record_changes"] == [
        {"tensor": "dst", "devices": [{"start": [1, 3], "end": [1, 3]}], "change": "unrecorded", "detail": ""}
    ]
    assert partial["new_findings"] == []
    # the full copy writes all 8, changes no record: (1,3) is lost from this step on
    assert full["written"] == [{"tensor": "dst", "devices": [{"start": [0, 0], "end": [1, 3]}], "count": 8, "bytes": 2048}]
    assert full["record_changes"] == []
    # (1,3) is lost, and the topology (8) [S(1)] now lists a device the record does not have
    assert full["new_findings"] == [
        {"kind": "lost", "tensor": "dst", "device": [1, 3]},
        {"kind": "topology_mismatch", "tensor": "dst", "device": None},
    ]
    assert read["read"] == [{"tensor": "dst", "devices": seven, "count": 7}]
    assert read["new_findings"] == [{"kind": "data_mismatch", "tensor": "dst", "device": [1, 3]}]


# docs/semantics.md section 1: under uniform-by-value the seed's lie is visible once the copy has run.
def test_trace_of_the_seed():
    steps = run(load(SCENARIOS / "seed-uneven-copy.yaml"), "uniform-by-value").to_json()["steps"]
    assert steps[2]["record_changes"] == []  # the copy's update is lost: no record changes
    assert steps[2]["new_findings"] == [{"kind": "stale", "tensor": "dst", "device": [1, 3]}]
    assert steps[0]["new_findings"] == []  # a fresh allocation is uninitialized, not a lie


def test_trace_records_the_error_step():
    steps = run(load(SCENARIOS / "mapper-error-nine-over-eight.yaml"), "current").to_json()["steps"]
    assert len(steps) == 2 and steps[1]["error"].startswith("Shard shape mismatch")


def test_trace_table_lists_every_step():
    res = invoke("run", SCENARIOS / "partial-then-full.yaml", "--trace", "--view", "data")
    text = res.stdout
    assert "trace" in text and "record changes" in text
    assert "dst unrecorded: (1,3)" in text and "lost dst (1,3)" in text


# -- profiles side by side ------------------------------------------------------------------------
def test_profile_all_table():
    res = run_cli(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "all"], env={"COLUMNS": "80"})
    assert res.exit_code == 1
    lines = res.stdout.splitlines()
    header = next(line for line in lines if line.startswith("tensor"))
    # (1,3): empty under current, reference, auto-compose, ccl-union and ccl-padded (current with
    # another default composer, other collective rules) and ttnn-0.67.0/0.66.0 (a copy exact: one
    # full copy here), stale under uniform-by-value, empty (no spec) under unpopulated; the other
    # seven devices ok but under unpopulated (missing_spec): three distinct columns, the seven
    # profiles that agree share one, named by the first and spelled out under the table
    assert header.split() == ["tensor", "device", "current", "+6", "uniform-by-value", "unpopulated"]
    assert max(len(line) for line in lines) <= 80
    rows = {tuple(line.split()[:2]): line.split()[2:] for line in lines if line.startswith("dst ")}
    assert rows[("dst", "(1,3)")] == ["empty", "stale", "empty"]
    assert rows[("dst", "(0,0)")] == ["ok", "ok", "missing_spec"]
    assert len(rows) == 8
    shared = " ".join(lines[lines.index(next(line for line in lines if line.startswith("current +6:"))):][:2])
    assert shared.split(":", 1)[1].split("under", 1)[1].replace(" ", "").split(",") == [
        p for p in PROFILES if p not in ("uniform-by-value", "unpopulated")]
    verdicts = {line.split()[0]: line for line in lines if line.split() and line.split()[0] in PROFILES and "finding" in line}
    assert set(verdicts) == set(PROFILES)
    assert "no findings" in verdicts["current"] and "no findings" in verdicts["reference"]
    assert "stale" in verdicts["uniform-by-value"]
    after = lines[lines.index(verdicts["uniform-by-value"]) + 1]
    assert after.split() == ["first:", "stale", "dst", "(1,3),", "origin", "step", "0"]
    # a verdict longer than the line keeps its indent when it wraps
    wrapped = lines[lines.index(verdicts["unpopulated"]) + 1]
    assert wrapped.startswith(" " * 18 + "at step 3")


def test_profile_columns_group_profiles_that_agree():
    from meshspec.render.compare import column_name, profile_columns

    rows = [("ok", "ok", "missing", "ok"), ("empty", "stale", "empty", "empty")]
    assert profile_columns(rows, ["a", "b", "c", "d"]) == [("a", "d"), ("b",), ("c",)]
    assert column_name(("a", "d")) == "a +1" and column_name(("b",)) == "b"


def test_profile_all_json_is_an_array_of_reports():
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "all", "--format", "json")
    data = json.loads(res.stdout)
    assert [r["profile"] for r in data] == list(PROFILES)
    assert all(r["scenario"] == "seed-uneven-copy" for r in data)


# -- data view --------------------------------------------------------------------------------------
def test_data_view_marks_poison_and_differences():
    report = run(load(SCENARIOS / "seed-uneven-copy.yaml"), "uniform-by-value", data=True, show_values=3)
    dst = next(t for t in report.tensors if t.name == "dst")
    stale = dst.data[(1, 3)]
    assert stale.poison == 1024 and stale.values == ("POISON",) * 3 and stale.differ is None
    assert stale.min is None  # every element is poison
    good = dst.data[(0, 1)]
    assert good.poison == 0 and good.differ == 0 and good.first == 1024.0  # arange, offset 1024
    assert good.crc32 != stale.crc32
    # mapper-error under uniform-by-value: (1,0) holds one written row of the two recorded
    report = run(load(SCENARIOS / "mapper-error-nine-over-eight.yaml"), "uniform-by-value", data=True)
    partial = next(t for t in report.tensors if t.name == "dst").data[(1, 0)]
    assert partial.poison == 1024 and partial.count == 2048 and partial.differ == 2048


def test_data_in_json_and_table():
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--view", "data", "--format", "json", "--show-values", "2")
    dev = next(d for d in json.loads(res.stdout)["tensors"][0]["devices"] if d["coord"] == [1, 3])
    assert dev["data"]["poison"] == 1024 and dev["data"]["values"] == ["POISON", "POISON"]
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--show-values", "2")
    row = next(line for line in res.stdout.splitlines() if line.startswith("(1,3)"))
    assert " 1024 " in row and "POISON POISON" in row and "never written since allocation" in row


def test_show_values_counts_for_the_host_tensors_too():
    """--show-values N prints N values in the host table as in the device table (4 without it; the
    report keeps 16). The seed's source is arange: its first values are 0, 1, 2, ..."""
    for n, shown in ((None, 4), (3, 3), (8, 8), (40, 16)):
        res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--view", "data", *(["--show-values", str(n)] if n else []))
        row = next(line for line in res.stdout.splitlines() if line.startswith("src "))
        assert row.split()[4:] == [str(i) for i in range(shown)], (n, row)
        assert f"first {shown} values" in res.stdout


# -- exports ------------------------------------------------------------------------------------------
def test_svg_and_html_exports(tmp_path):
    svg, html = tmp_path / "seed.svg", tmp_path / "seed.html"
    res = invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--svg", svg, "--html", html)
    assert res.exit_code == 1
    # meshspec's mark first (a reader sees what made the file), then the picture
    assert svg.read_text().startswith(f"{WRITTEN_MARK}\n<svg") and "stale" in svg.read_text()
    page = html.read_text()
    assert page.startswith(f"<!DOCTYPE html>\n{WRITTEN_MARK}\n<html")  # after the doctype: no quirks mode
    assert "<html" in page and "stale" in page and "seed-uneven-copy" in page
    assert not list(tmp_path.glob(".*.tmp"))  # written atomically, no leftovers


def test_export_refuses_to_overwrite_an_input(tmp_path):
    scenario = tmp_path / "s.yaml"
    scenario.write_text((SCENARIOS / "even-copy.yaml").read_text())
    before = scenario.read_text()
    res = invoke("run", scenario, "--html", scenario)
    assert res.exit_code == 2 and scenario.read_text() == before


CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


@pytest.mark.skipif(CHROMIUM is None, reason="no Chromium installed (apt-get install chromium) to render the HTML export")
def test_html_export_renders_in_a_real_browser(tmp_path):
    html = tmp_path / "seed.html"
    invoke("run", SCENARIOS / "seed-uneven-copy.yaml", "--view", "map", "--html", html)
    shot = tmp_path / "shot.png"
    cmd = [
        CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
        "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={tmp_path / 'profile'}",
        f"--screenshot={shot}", "--window-size=1200,900", html.as_uri(),
    ]
    subprocess.run(cmd, check=True, capture_output=True, timeout=60)
    assert shot.stat().st_size > 5000  # a real rendering, not a blank page
    dump = subprocess.run(
        [c for c in cmd if not c.startswith("--screenshot") and not c.startswith("--window")][:-1] + ["--dump-dom", html.as_uri()],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout
    assert "stale" in dump and "(1,3)" in dump


# -- systems, explain, init ---------------------------------------------------------------------------
def test_systems_lists_the_reference_table():
    # docs/semantics.md section 2: n150 1x1, n300 2x1, t3k 2x4, galaxy 8x4, p150 1x1, p300 1x2, p150x4 2x2,
    # p150x8 2x4, bh-galaxy 8x4 (tests/golden systems, p300 from the mesh graph descriptors)
    res = invoke("systems")
    shapes = {line.split()[0]: line.split()[1] for line in res.stdout.splitlines()}
    assert shapes == {
        "n150": "1x1", "n300": "2x1", "t3k": "2x4", "galaxy": "8x4", "p150": "1x1", "p300": "1x2", "p150x4": "2x2",
        "p150x8": "2x4", "bh-galaxy": "8x4",
    }


@pytest.mark.parametrize("kind", ["stale", "partial", "shape_mismatch", "lost", "missing_spec", "data_mismatch", "use_after_free"])
def test_explain_every_kind(kind):
    res = invoke("explain", kind)
    assert res.exit_code == 0
    assert "What it means" in res.stdout and "How it arises" in res.stdout and "What a fix looks like" in res.stdout


def test_explain_stale_tells_the_seed_and_unknown_kinds_get_a_hint():
    assert "by value" in invoke("explain", "stale").stdout and "(1,3)" in invoke("explain", "stale").stdout
    res = invoke("explain", "stail")
    assert res.exit_code == 2 and "did you mean 'stale'" in res.stderr


def test_explain_a_step_says_each_field_as_a_scenario_writes_it():
    """A field holding a mapping lists that mapping's own fields, and defaults are written as a
    scenario writes them (bfloat16, [32, 32]), not as Python shows them (DataType.BFLOAT16)."""
    fields = invoke("explain", "update_tensor_topology").stdout.split("fields\n")[1].split("\n\n")[0].splitlines()
    assert fields == [
        "  tensor: required; a name",
        "  topology: required; a mapping",
        "    distribution_shape: required; a list of integers",
        "    placements: required; a list, each replicate (or R) or {shard: DIM} (or S(DIM))",
        "    mesh_coords: optional; a list of lists of integers",  # ttnn.TensorTopology's name, or
        "    coords: optional; a list of lists of integers",  # the report's: one of the two (docs/semantics.md section 21)
    ]
    text = invoke("explain", "from_torch").stdout
    assert "  dtype: default bfloat16; bfloat16 or float32" in text and "  tile: default [32, 32]" in text
    assert "  mesh_mapper: optional; replicate, {shard: DIM}" in text and "DataType." not in text


@pytest.mark.parametrize("system", ["n150", "t3k", "galaxy", "p150x4"])
def test_init_writes_a_scenario_that_runs_clean(tmp_path, system):
    path = tmp_path / f"{system}.yaml"
    res = invoke("init", path, "--system", system)
    assert res.exit_code == 0 and path.exists()
    report = run(load(path))
    assert report.error is None and report.findings == () and report.expect.passed


def test_init_never_overwrites(tmp_path):
    path = tmp_path / "mine.yaml"
    path.write_text("my work\n")
    res = invoke("init", path)
    assert res.exit_code == 2 and path.read_text() == "my work\n"
    assert invoke("init", tmp_path / "x.yaml", "--system", "t4k").exit_code == 2
    # another name of a system is taken: the T3000 is the T3K (meshspec/sim/mesh.py: SYSTEM_ALIASES)
    assert invoke("init", tmp_path / "y.yaml", "--system", "t3000").exit_code == 0


def test_init_into_a_missing_folder_says_which_and_how_to_make_it(tmp_path):
    path = tmp_path / "no" / "such" / "x.yaml"
    res = invoke("init", path)
    assert res.exit_code == 2 and not path.exists()
    assert f"folder {path.parent} does not exist (create it first: mkdir -p {path.parent})" in res.output


def test_progress_bar_only_on_a_terminal_for_large_runs(monkeypatch, tmp_path):
    import io

    from meshspec import progress

    small = [SCENARIOS / "seed-uneven-copy.yaml"]
    with progress.run_progress(small) as on_step:
        assert on_step is None  # piped (pytest captures stderr): nothing extra

    class Tty(io.StringIO):
        def isatty(self):
            return True

    fake = Tty()
    monkeypatch.setattr(progress.sys, "stderr", fake)
    with progress.run_progress(small) as on_step:
        assert on_step is None  # a terminal, but a small run
    monkeypatch.setattr(progress, "LARGE_RUN_ELEMENTS", 1)
    with progress.run_progress(small) as on_step:
        assert callable(on_step)
        on_step(0, 4, "allocate_tensor_on_device")
