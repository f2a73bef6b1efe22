"""Reports and maps show the physical device id beside each coordinate (docs/semantics.md
section 17): the ids are ttnn 0.81.1's for the system (tests/golden ttnn_0_81_1_device_ids.json)."""

import yaml

from conftest import make_scenario, run_steps
from meshspec.runner import run
from meshspec.render import render
from meshspec.render.options import Format, Options, View

SHARDED = [{"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}},
           {"to_device": {"src": "h", "as": "d"}}]


def text(report, view=View.MAP):
    return render([report], Format.TABLE, Options(view=view, color=False, width=120))


def test_a_t3k_map_shows_each_devices_id_beside_its_coordinate():
    out = text(run_steps(SHARDED))
    grid = out.split("d  device", 1)[1]
    # [[4, 0, 2, 6], [5, 1, 3, 7]]: row-major over the mesh, not 0..7
    for coord, device_id in [("(0,0)", 4), ("(0,1)", 0), ("(0,3)", 6), ("(1,0)", 5), ("(1,3)", 7)]:
        assert f"│ {coord} id {device_id} " in grid
    assert "device_ids: {mesh_device: [4, 0, 2, 6, 5, 1, 3, 7]}" in out


def test_the_table_view_names_the_ids_once_in_the_header():
    out = text(run_steps(SHARDED), View.TABLE)
    assert out.splitlines()[1] == "device_ids: {mesh_device: [4, 0, 2, 6, 5, 1, 3, 7]}  # get_device_ids() of each mesh device"


def test_the_header_line_pastes_into_an_expect_block():
    """The header's line is an ``expect`` entry: pasted under a profile it passes, and a wrong id is
    named (meshspec/judge/expect.py)."""
    from meshspec.judge.expect import check_report

    steps = [{"create_submeshes": {"shape": [2, 2], "as": "quad"}}, *SHARDED]
    report = run_steps(steps)
    lines = text(report, View.TABLE).splitlines()
    at = next(i for i, l in enumerate(lines) if l.startswith("device_ids: "))
    line = lines[at]
    assert line == 'device_ids: {mesh_device: [4, 0, 2, 6, 5, 1, 3, 7], "quad[0]": [4, 0, 5, 1], "quad[1]": [2, 6, 3, 7]}'
    assert lines[at - 1] == "# get_device_ids() of each mesh device"  # too wide to stand beside it at 120 columns
    pasted = make_scenario(steps, "t3k", expect=yaml.safe_load("profiles:\n  default:\n    " + line))
    assert check_report(report, pasted.expect).mismatches == ()
    wrong = make_scenario(steps, "t3k", expect={"profiles": {"default": {"device_ids": {"quad[1]": [2, 3, 6, 7]}}}})
    assert check_report(report, wrong.expect).mismatches == ("device_ids: quad[1] is on devices [2, 6, 3, 7], expected [2, 3, 6, 7]",)
    bare = run_steps(SHARDED, mesh=[2, 4])
    unknown = make_scenario(SHARDED, [2, 4], expect={"profiles": {"default": {"device_ids": {"mesh_device": [0]}}}})
    assert "ids are not known" in check_report(bare, unknown.expect).mismatches[0]


def test_a_bare_mesh_shape_shows_no_ids():
    out = text(run_steps(SHARDED, mesh=[2, 4]))
    assert " id " not in out and "device ids" not in out


def test_a_1x8_line_is_the_ring_order_in_json():
    report = run_steps(SHARDED, mesh={"system": "t3k", "shape": [1, 8]})
    assert report.to_json()["meshes"][0]["device_ids"] == [4, 0, 2, 6, 7, 3, 1, 5]
    assert "device_ids: {mesh_device: [4, 0, 2, 6, 7, 3, 1, 5]}" in text(report)


def test_the_chip_map_rule_picks_the_eras_ids():
    # ttnn 0.66.0/0.67.0 put a P150x4 mesh on other chips (tests/golden ttnn_0_67_0_device_ids.json)
    steps = [{"from_torch": {"as": "h", "shape": [1, 4, 32, 32], "mesh_mapper": {"shard": 1}}}]
    now = run_steps(steps, mesh="p150x4")
    early = run(make_scenario(steps, "p150x4", profiles={"early": {"base": "current", "chip_map": "early_2026"}}), "early")
    assert now.to_json()["meshes"][0]["device_ids"] == [0, 2, 3, 1]
    assert early.to_json()["meshes"][0]["device_ids"] == [2, 1, 0, 3]


def test_a_tensor_made_before_a_reshape_shows_no_ids():
    # its coordinates are on the 2x4 its buffer was made on; the ids known are the 1x8's
    report = run_steps([*SHARDED, {"MeshDevice.reshape": {"shape": [1, 8]}}])
    grid = text(report).split("d  device", 1)[1]
    assert "│ (1,3) " in grid and " id " not in grid.split("legend")[0]
