"""Issue 38 item 5, output a person reads: --profile all leads with the comparison, a list's parts
print a row each, diff keeps changed values through a pipe, part labels show their global slice,
a host tensor is "host" in the comparison as in its table, and --device marks the map.

Expected texts here were read line by line against the scenarios (not copied from a run unread)."""

import json
import os
import subprocess
import sys
from pathlib import Path

from cli_runner import invoke
from conftest import run_steps

from meshspec.render import Format, Options, View, render
from meshspec.render.diff import render_diff
from meshspec.render.map import map_renderable
from meshspec.render.options import console_text, make_console

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
NO_COLOR = {"NO_COLOR": "1"}


def _text(renderable, width=120) -> str:
    console = make_console(False, width)
    console.print(renderable)
    return console_text(console, False)


# -- 1. --profile all: the comparison first ------------------------------------------------------------------
def test_profile_all_leads_with_the_comparison_and_the_full_reports_follow_in_the_map_view():
    out = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "all", "--view", "map"], env=NO_COLOR).stdout
    assert out.startswith("meshspec seed-uneven-copy  mesh 2x4  profiles side by side\n")
    side = out.index("profiles side by side")
    reports = [out.index(f"profile {p}:") for p in ("current", "uniform-by-value", "reference")]
    assert side < min(reports)  # each profile's whole report after the comparison
    assert out.count("profiles side by side") == 1


def test_profile_all_in_the_table_view_is_the_comparison_and_says_how_to_see_more():
    out = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "all"], env=NO_COLOR).stdout
    assert "profile current:" not in out  # no whole report: a terminal shows the comparison
    assert out.rstrip().endswith("a profile in full: --profile NAME; every profile in full: --view map or --trace; "
                                 "all the data: --format json")


def test_profile_all_as_json_keeps_every_report():
    doc = json.loads(invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "all", "--format", "json"]).stdout)
    assert isinstance(doc, list) and len(doc) >= 4 and all(r["tensors"] for r in doc)


# -- 2. a list's parts, a row each -------------------------------------------------------------------------
PARTS_TABLE = """\
parts[0:7]  device  1x1x32x32 bfloat16 tile dram  topology (7) [S(1)] on 7 devices; 1 recorded each  (created at step 3)
part      device  recorded  shape      padded     dtype     layout  pages  B recorded  B written  slice           status
────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────
parts[0]  (0,0)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 0:1, :, :]  ok
parts[1]  (0,1)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 1:2, :, :]  ok
parts[2]  (0,2)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 2:3, :, :]  ok
parts[3]  (0,3)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 3:4, :, :]  ok
parts[4]  (1,0)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 4:5, :, :]  ok
parts[5]  (1,1)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 5:6, :, :]  ok
parts[6]  (1,2)   yes       1x1x32x32  1x1x32x32  bfloat16  tile        1        2048       2048  [:, 6:7, :, :]  ok
"""


def test_parts_print_a_row_each_under_one_title():
    out = invoke(["run", SCENARIOS / "per-device-reads.yaml"], env=NO_COLOR).stdout
    assert PARTS_TABLE in out  # part i holds src[:, i:i+1] on the i-th written device (the scenario's description)
    assert out.count("\n") < 100  # about 180 lines with a table and a map each


def test_parts_share_one_map_each_cell_naming_its_part():
    out = invoke(["run", SCENARIOS / "per-device-reads.yaml", "--view", "map"], env=NO_COLOR).stdout
    grid = out[out.index("parts[0:7]  device") :].splitlines()[1:13]
    assert grid[1:6] == [
        "│ (0,0) id 4     │ (0,1) id 0     │ (0,2) id 2     │ (0,3) id 6     │",
        "│ parts[0]       │ parts[1]       │ parts[2]       │ parts[3]       │",
        "│ [:, 0:1, :, :] │ [:, 1:2, :, :] │ [:, 2:3, :, :] │ [:, 3:4, :, :] │",
        "│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │",
        "│ ok             │ ok             │ ok             │ ok             │",
    ]
    assert grid[7:12] == [  # (1,3) holds no part: every line of its cell says so
        "│ (1,0) id 5     │ (1,1) id 1     │ (1,2) id 3     │ (1,3) id 7     │",
        "│ parts[4]       │ parts[5]       │ parts[6]       │ -              │",
        "│ [:, 4:5, :, :] │ [:, 5:6, :, :] │ [:, 6:7, :, :] │ -              │",
        "│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ -              │",
        "│ ok             │ ok             │ ok             │ empty          │",
    ]
    assert out.count("parts[0:7]  device") == 1 and "parts[3]  device" not in out


def test_the_data_view_reads_the_parts_back_in_one_table():
    out = invoke(["run", SCENARIOS / "per-device-reads.yaml", "--view", "data", "--profile", "uniform-by-value"], env=NO_COLOR)
    lines = out.stdout.splitlines()
    at = lines.index("parts[0:8]  device  1x1x32x32 bfloat16 tile dram  topology (2x4) [R, R] on 8 devices; 1 recorded each")
    assert lines[at + 1] == "  (created at step 3)"
    assert lines[at + 2].split() == ["part", "device", "first", "last", "min", "max", "crc32", "differ", "unwritten", "note"]
    # parts[i] reads back src[:, i] (1024 values from 1024 i), and the eighth part is (1,3)'s never-written memory
    assert lines[at + 5].split()[:4] == ["parts[1]", "(0,1)", "1024", "2048"]
    assert lines[at + 11].split()[:2] == ["parts[7]", "(1,3)"] and "never written since allocation" in lines[at + 11]
    assert sum(line.startswith("parts[") and "  device  " in line for line in lines) == 1


def test_the_json_report_still_lists_every_part_as_a_tensor():
    doc = json.loads(invoke(["run", SCENARIOS / "per-device-reads.yaml", "--format", "json"]).stdout)
    assert [t["name"] for t in doc["tensors"] if t["name"].startswith("parts[")] == [f"parts[{i}]" for i in range(7)]


def test_grouping_keeps_other_tensors_in_place_and_a_list_of_one_as_a_tensor():
    from meshspec.render.parts import PartGroup, grouped

    report = run_steps([
        {"from_torch": {"as": "x", "shape": [1, 1, 32, 32], "device": "mesh_device"}},
        {"get_device_tensors": {"tensor": "x", "as": "g"}},
        {"from_torch": {"as": "y", "shape": [1, 1, 32, 32], "device": "mesh_device"}},
    ], mesh="n150")  # one device: a list of one part
    assert [getattr(s, "name", None) for s in grouped(report.tensors)] == ["x", "g[0]", "y"]
    report = run_steps([{"from_torch": {"as": "x", "shape": [1, 1, 32, 32], "device": "mesh_device"}},
                        {"get_device_tensors": {"tensor": "x", "as": "g"}}])
    shown = grouped(report.tensors)
    assert isinstance(shown[1], PartGroup) and shown[1].label == "g[0:8]" and len(shown) == 2


# -- 3. diff through a pipe keeps the changed values -----------------------------------------------------------
def _two_reports(tmp_path):
    paths = []
    for profile in ("reference", "current"):
        out = invoke(["run", SCENARIOS / "phantom-core-grid.yaml", "--profile", profile, "--format", "json"]).stdout
        paths.append(tmp_path / f"{profile}.json")
        paths[-1].write_text(out)
    return paths


CHANGED = "l1 height_sharded 32x64 on (0,0)-(7,0) -> l1 height_sharded 32x64 on (0,0)-(7,7)"
"""act_l1's memory config: reference keeps the requested 8x1 shard grid, current reports 8x8
(the scenario's description); before, both sides read ``l1 height_sharded 32x64 1r``."""


def test_diff_into_a_pipe_keeps_every_changed_value_whole(tmp_path):
    expected, actual = _two_reports(tmp_path)
    env = {**os.environ, "COLUMNS": "60", "NO_COLOR": "1"}
    piped = subprocess.run([sys.executable, "-m", "meshspec", "diff", expected, actual], capture_output=True, text=True, env=env)
    assert piped.returncode == 1, piped.stderr
    assert CHANGED in piped.stdout and "…" not in piped.stdout
    # prose is still wrapped at COLUMNS, between words: the line breaks, nothing is left out
    assert "  topology: (2x4) [R, R] on 8 devices -> (8) [R] on 8\n    devices\n" in piped.stdout
    out = tmp_path / "diff.txt"
    assert invoke(["diff", expected, actual, "--output", out], env={"COLUMNS": "60"}).exit_code == 1
    assert CHANGED in out.read_text()


def test_diff_on_a_narrow_terminal_wraps_a_changed_value_and_leaves_out_columns_that_agree(tmp_path):
    from meshspec.judge.diff import diff_reports
    from meshspec.runner import run
    from meshspec.scenario.loader import load

    scenario = load(SCENARIOS / "phantom-core-grid.yaml")
    diff = diff_reports(run(scenario, "reference").to_json(), run(scenario, "current").to_json(), "reference", "current")
    text = render_diff(diff, width=70)
    assert "…" not in text and max(map(len, text.splitlines())) <= 70
    assert "(0,0)   l1 height_sharded 32x64 on (0,0)-(7,0) -> l1 height_sharded\n        32x64 on (0,0)-(7,7)\n" in text  # wrapped, whole
    assert "  (narrow terminal: padded, layout, dtype, pages, offset, shape,\n    bytes, recorded not shown; they agree)" in text


def test_a_topology_on_one_device_is_one_device(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text("meshspec: 1\nname: parts\nmesh: t3k\nsteps:\n  - from_torch: {as: src, shape: [1, 1, 32, 32]}\n"
                    "  - to_device: {src: src, as: dst}\n  - get_device_tensors: {tensor: dst, as: parts}\n")
    out = invoke(["diff", path, "--expected", "reference"]).stdout
    assert "  topology: (1) [R] on 1 device -> " in out and "1 devices" not in out


# -- 4. a part's label is its global slice ---------------------------------------------------------------------
def _per_device_shard():
    """tt-metal's test_multi_device_check_per_device_shard on device: a (1,1,32,512) tensor sharded on dim 3
    over a 1x8 T3K, its per-device tensors; part i holds [..., 64i:64i+64]."""
    return run_steps([
        {"from_torch": {"as": "t", "shape": [1, 1, 32, 512], "mesh_mapper": {"ShardTensorToMesh": {"dim": 3}}}},
        {"to_device": {"src": "t", "as": "dev"}},
        {"get_device_tensors": {"tensor": "dev", "as": "ts"}},
    ], mesh={"system": "t3k", "shape": [1, 8]})


def test_each_part_alone_shows_its_global_slice_ts0_included():
    report = _per_device_shard()
    parts = {t.name: t for t in report.tensors}
    first = _text(map_renderable(parts["ts[0]"], report.mesh, width=200)).splitlines()
    second = _text(map_renderable(parts["ts[1]"], report.mesh, width=200)).splitlines()
    assert first[2].split("│")[1].strip() == "[:, :, :, 0:64]"  # was [:, :, :, :]: offset 0 read as the whole dim
    assert second[2].split("│")[2].strip() == "[:, :, :, 64:128]"


def test_the_parts_show_the_same_slices_in_the_table_and_the_map():
    report = _per_device_shard()
    table = render([report], Format.TABLE, Options(width=200))
    maps = render([report], Format.TABLE, Options(width=200, view=View.MAP))
    for i in range(8):
        label = f"[:, :, :, {64 * i}:{64 * (i + 1)}]"
        row = next(line for line in table.splitlines() if line.startswith(f"ts[{i}] "))
        assert row.split()[-5:-1] == label.split() and label in maps


# -- 5. a host tensor is named alike in its table and the comparison --------------------------------------------
def test_a_single_host_tensor_is_host_in_the_comparison_as_in_its_table():
    out = invoke(["run", SCENARIOS / "combine-round-trip.yaml", "--profile", "all"], env=NO_COLOR).stdout
    row = next(line for line in out.splitlines() if line.startswith("host_parts"))
    assert row.split()[:2] == ["host_parts[0:7]", "host"]  # was host_parts[i]  1: (0,0), one row each
    table = invoke(["run", SCENARIOS / "combine-round-trip.yaml"], env=NO_COLOR).stdout
    assert any(line.startswith("host_parts[0]  host ") for line in table.splitlines())


# -- 6. --device marks the device in the map -----------------------------------------------------------------
def test_device_is_bracketed_in_the_map_and_the_legend_says_so():
    res = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--view", "map", "--device", "1,3", "--profile", "uniform-by-value"],
                 env=NO_COLOR)
    assert res.stderr == ""
    lines = res.stdout.splitlines()
    assert "│ (1,0) id 5     │ (1,1) id 1     │ (1,2) id 3     │ [(1,3) id 7]   │" in lines  # dst, on the scenario's mesh
    assert "│ (1,0)          │ (1,1)          │ (1,2)          │ [(1,3)]        │" in lines  # src, a host tensor
    assert "[(1,3)]: the device --device names" in lines
    assert sum(line.count("[(") for line in lines if line.startswith("│")) == 2  # that device only, once a map


def test_device_is_reversed_in_colour():
    report = run_steps([{"allocate_tensor_on_device": {"as": "dst", "shape": [1, 1, 32, 32]}}])
    out = render([report], Format.TABLE, Options(view=View.MAP, color=True, device=(0, 1)))
    assert "\x1b[7m" in out or ";7m" in out  # SGR 7, reverse video
    assert "\x1b[7m" not in render([report], Format.TABLE, Options(view=View.MAP, color=True)) and ";7m" not in render(
        [report], Format.TABLE, Options(view=View.MAP, color=True))


# -- read as a newcomer: lines that said too little or too much ----------------------------------------------
def test_a_finding_on_every_device_says_so_and_its_line_is_not_cut_mid_phrase():
    out = invoke(["run", SCENARIOS / "traced-decode-seed.yaml"], env=NO_COLOR).stdout.splitlines()
    # the gather replayed by the trace handed (1,3)'s never-written bytes to all 8 devices (the scenario)
    assert "  stale_input gathered on all 8 devices  origin: step 6 all_gather replayed by execute_trace" in out


def test_a_readback_names_its_devices_without_brackets_and_counts_in_words():
    seed = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "current"], env=NO_COLOR).stdout
    assert "step 3 to_torch(dst): read 7 devices: (0,0) (0,1) (0,2) (0,3) (1,0) (1,1) (1,2) -> 1x7x32x32" in seed
    lost = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "uniform-by-value"], env=NO_COLOR).stdout
    assert "step 3 to_torch(dst): read all 8 devices -> 1x8x32x32" in lost


def test_pass_beside_findings_says_the_findings_are_the_expected_ones():
    out = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml"], env=NO_COLOR)
    assert out.exit_code == 1
    assert ("expect (uniform-by-value): PASS: the findings above are the ones the scenario expects (they still exit 1)"
            in out.stdout.splitlines())
    clean = invoke(["run", SCENARIOS / "seed-uneven-copy.yaml", "--profile", "current"], env=NO_COLOR)
    assert clean.exit_code == 0 and "expect (current): PASS" in clean.stdout.splitlines()
