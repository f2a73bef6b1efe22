"""What ``meshspec hunt --real`` found that was meshspec's own bug, each fixed and held here
(docs/semantics.md, "Real record bugs found by hunting", says what it found in the real library).
Each was shrunk from a random program by the hunt against ttnn 0.81.1, 0.67.0 and 0.66.0 in mock
mode; the real reports kept in tests/hunt/data were written by the exported scripts there."""

import json
from pathlib import Path

import pytest

from meshspec.bridge.export import export
from meshspec.judge.diff import diff_reports
from meshspec.render.diff import render_diff
from meshspec.runner import run
from meshspec.scenario.loader import load, parse

DATA = Path(__file__).parent / "data"


def _scenario(steps: str, mesh="t3k"):
    return parse(f"meshspec: 1\nname: found\nmesh: {mesh}\nsteps:\n{steps}", Path("found.yaml"))


def test_a_one_dim_mesh_shape_override_is_exported_as_a_list():
    """Every version's binding refuses ``ttnn.MeshShape(7)`` and ``ttnn.MeshCoordinate(1)`` with
    ``__init__(): incompatible function arguments`` (0.81.1, 0.67.0, 0.66.0 in the mock); the list
    form is the 1-D shape. 17 of the first 30 real-hunt programs stopped at it."""
    scenario = _scenario(
        "  - {from_torch: {as: h, shape: [1, 7, 32, 32], mesh_mapper: {create_mesh_mapper: {placements: [{shard: 1}], "
        "mesh_shape_override: [7]}}}}\n"
        "  - {to_device: {src: h, as: d}}\n"
        "  - {to_torch: {tensor: d, as: o, mesh_composer: {create_mesh_composer: {dims: [1], mesh_shape_override: [7]}}}}\n")
    script = export(scenario)
    assert "ttnn.MeshMapperConfig([ttnn.PlacementShard(1)], ttnn.MeshShape([7]))" in script
    assert "ttnn.MeshComposerConfig([1], ttnn.MeshShape([7]))" in script
    assert "MeshShape(7)" not in script
    two = export(_scenario("  - {from_torch: {as: h, shape: [1, 8, 32, 32], mesh_mapper: {create_mesh_mapper: "
                           "{placements: [replicate, {shard: 1}], mesh_shape_override: [2, 4]}}}}\n"))
    assert "ttnn.MeshShape(2, 4)" in two  # two dims: as before (the binding takes them)


def test_pad_to_tile_keeps_its_pad_value_and_exports():
    """The loader's check of pad_value returned None for every finite value (a Check keeps what its
    function returns), so the step lost its value and ``meshspec export`` failed with a TypeError:
    11 of 150 real-hunt programs that drew pad_to_tile."""
    scenario = _scenario("  - {from_torch: {as: h, shape: [1, 1, 32, 32]}}\n  - {pad_to_tile: {tensor: h, pad_value: 0.5, as: p}}\n")
    assert scenario.steps[1].args.pad_value == 0.5
    assert "h.pad_to_tile(0.5)" in export(scenario)
    from meshspec.errors import ScenarioError

    with pytest.raises(ScenarioError, match="pad_value: a finite number"):
        _scenario("  - {from_torch: {as: h, shape: [1, 1, 32, 32]}}\n  - {pad_to_tile: {tensor: h, pad_value: .nan, as: p}}\n")


@pytest.mark.parametrize("version", ["0.81.1"])
def test_a_copy_into_a_part_records_the_devices_it_wrote(version):
    """Two shards copied into the get_device_tensors part at (0,0) of a 1x4 tensor: the runtime
    records the part at (0,0) and (0,1), the devices the copy wrote (the real report of 0.81.1's
    mock, kept beside the scenario); meshspec kept the part on (0,0) alone."""
    scenario = load(DATA / "copy-into-a-part.yaml")
    real = json.loads((DATA / f"copy-into-a-part.real-{version}.json").read_text())
    simulated = run(scenario, "current").to_json()
    part = next(t for t in simulated["tensors"] if t["name"] == "d4[0]")
    assert [d["coord"] for d in part["devices"] if d["recorded"]] == [[0, 0], [0, 1]]
    d = diff_reports(simulated, real, "simulated", "real")
    assert d.equal, render_diff(d, width=140)


@pytest.mark.parametrize("version", ["0.67.0", "0.66.0"])
def test_on_the_older_versions_the_part_is_recorded_as_on_0_81_1(version):
    """The same copy on 0.67.0 and 0.66.0: the part records (0,0) and (0,1) there too (the other
    parts are unreadable there: no device_coords(), docs/semantics.md section 10); the parent keeps
    the topology it was allocated with, which 0.81.1 shares with the part (see docs/semantics.md,
    "Real record bugs found by hunting")."""
    real = json.loads((DATA / f"copy-into-a-part.real-{version}.json").read_text())
    tensors = {t["name"]: t for t in real["tensors"]}
    assert [d["coord"] for d in tensors["d4[0]"]["devices"] if d["recorded"]] == [[0, 0], [0, 1]]
    assert tensors["d2"]["topology"]["placements"] == ["R", "R"]
    simulated = run(load(DATA / "copy-into-a-part.yaml"), "current").to_json()
    assert next(t for t in simulated["tensors"] if t["name"] == "d2")["topology"]["placements"] == [{"shard": 1}]


# -- records of the real library kept as known bugs (docs/semantics.md, "Real record bugs found by hunting")


REAL_BUGS = DATA / "real-bugs"


def _real(name, version):
    report = json.loads((REAL_BUGS / f"{name}.real-{version}.json").read_text())
    assert report["profile"] == f"ttnn {version} (the real runtime)" and report["error"] is None
    return {t["name"]: t for t in report["tensors"]}


@pytest.mark.parametrize("version", ["0.81.1", "0.67.0", "0.66.0"])
def test_a_view_keeps_its_topology_after_a_copy_into_its_storage(version):
    """All three versions: the squeeze view and the allocation it views share one buffer (one
    address), the copy puts (4) [S(3)] shards there, and the view still says (1, 4) [R, R]."""
    t = _real("view-keeps-its-topology", version)
    assert t["d3"]["address"] == t["d2"]["address"]
    assert (t["d2"]["topology"]["distribution_shape"], t["d2"]["topology"]["placements"]) == ([4], [{"shard": 3}])
    assert (t["d3"]["topology"]["distribution_shape"], t["d3"]["topology"]["placements"]) == ([1, 4], ["R", "R"])


def test_under_current_meshspec_records_the_view_as_0_81_1_does():
    scenario = load(REAL_BUGS / "view-keeps-its-topology.yaml")
    real = json.loads((REAL_BUGS / "view-keeps-its-topology.real-0.81.1.json").read_text())
    d = diff_reports(run(scenario, "current").to_json(), real, "simulated", "real")
    assert d.equal, render_diff(d, width=140)


@pytest.mark.parametrize("version, padded", [("0.81.1", [1, 1, 32, 32]), ("0.67.0", [1, 1, 32, 64]), ("0.66.0", [1, 1, 32, 64])])
def test_a_host_shard_keeps_the_whole_tensors_padding_before_0_81_1(version, padded):
    """A 1x1x1x48 tensor tilized whole on the host (1x1x32x64), then distributed over 6 devices:
    each 1x1x1x8 shard is one tile, 1x1x32x32; 0.67.0 and 0.66.0 record the whole tensor's
    1x1x32x64 on every shard, and the copy into an allocation of one shard (one tile) puts that on
    the device tensor (docs/semantics.md section 24)."""
    t = _real("shard-keeps-whole-padding", version)
    for name in ("h1", "d2"):
        specs = [d["spec"] for d in t[name]["devices"] if d["recorded"]]
        assert len(specs) == 6 and all(s["shape"] == [1, 1, 1, 8] and s["padded_shape"] == padded for s in specs), name
    simulated = run(load(REAL_BUGS / "shard-keeps-whole-padding.yaml"), "current").to_json()
    d2 = next(x for x in simulated["tensors"] if x["name"] == "d2")
    assert {d["spec"]["num_pages"] for d in d2["devices"] if d["recorded"]} == {1}  # the allocation: one tile a device


def test_on_0_81_1_a_view_outlives_the_storage_its_base_freed():
    """0.81.1: after deallocate of the allocation, its squeeze view still records a live buffer at
    the freed address, which the next allocation is handed: two live tensors on one address. 0.67.0
    and 0.66.0 record the view freed, as meshspec does (the simulation agrees with them here, and
    with 0.81.1 in everything but the view's storage)."""
    real = _real("view-outlives-its-storage", "0.81.1")
    assert real["d3"]["storage"] == real["d4"]["storage"] == "device" and real["d3"]["address"] == real["d4"]["address"]
    simulated = run(load(REAL_BUGS / "view-outlives-its-storage.yaml"), "current").to_json()
    d = diff_reports(simulated, json.loads((REAL_BUGS / "view-outlives-its-storage.real-0.81.1.json").read_text()))
    assert {x.tensor for x in d.differences} == {"d3"} and ("d3", "storage") in [(x.tensor, x.field) for x in d.differences]
    for version in ("0.67.0", "0.66.0"):
        assert _real("view-outlives-its-storage", version)["d3"]["storage"] == "deallocated"


@pytest.mark.parametrize("version", ["0.67.0", "0.66.0"])
@pytest.mark.parametrize("name", ["copy-into-a-part", "real-bugs/view-keeps-its-topology"])
def test_the_version_profile_keeps_each_handles_topology_as_the_version_does(version, name):
    """Under ttnn-0.67.0 / ttnn-0.66.0 (rule handles: copied) a copy changes the topology and
    recorded devices of the handle copied into alone: every tensor the real report can read has the
    same topology and recorded devices in the simulation."""
    real = json.loads((DATA / f"{name}.real-{version}.json").read_text())
    simulated = {t["name"]: t for t in run(load(DATA / f"{name}.yaml"), f"ttnn-{version}").to_json()["tensors"]}
    compared = 0
    for t in real["tensors"]:
        if t.get("unreadable") or t["storage"] != "device":
            continue
        mine = simulated[t["name"]]
        assert mine["topology"] == t["topology"], t["name"]
        assert [d["coord"] for d in mine["devices"] if d["recorded"]] == [d["coord"] for d in t["devices"] if d["recorded"]], t["name"]
        compared += 1
    assert compared >= 2


@pytest.mark.parametrize("version, profile", [("0.81.1", "current"), ("0.67.0", "ttnn-0.67.0"), ("0.66.0", "ttnn-0.66.0")])
def test_a_tensor_dumped_into_the_file_it_was_loaded_from(version, profile):
    """0.66.0 and 0.67.0 truncate the file, then read the loaded tensor's bytes through its map of
    it: the process dies at that dump (SIGBUS); 0.81.1 renames a new file into place and goes on to
    the end (docs/semantics.md section 23, dump_overwrite). The real reports were written by the
    exported script on each version; the simulation under the version's profile says the same."""
    real = json.loads((DATA / f"dump-into-its-own-file.real-{version}.json").read_text())
    simulated = run(load(DATA / "dump-into-its-own-file.yaml"), profile).to_json()
    if version == "0.81.1":
        assert real["error"] is None and real["steps_run"] == 5
    else:
        assert real["error"]["crash"] and real["error"]["step"] == 3
        assert simulated["error"]["crash"] and "SIGBUS" in simulated["error"]["message"]
    d = diff_reports(simulated, real, "simulated", "real")
    assert d.equal, render_diff(d, width=140)


@pytest.mark.parametrize("version, profile", [("0.81.1", "current"), ("0.67.0", "ttnn-0.67.0"), ("0.66.0", "ttnn-0.66.0")])
def test_to_dtype_refuses_a_shard_not_whole_tiles_in_the_versions_words(version, profile):
    """Every version refuses to_dtype of a ROW_MAJOR 1x1 shard to bfloat8_b; 0.66.0 and 0.67.0 in the
    host tilize's words (docs/semantics.md section 23, row_major_tilize). The real reports were
    written by the exported script on each version; the simulation under its profile says the same."""
    real = json.loads((DATA / f"to-dtype-tilize-words.real-{version}.json").read_text())
    simulated = run(load(DATA / "to-dtype-tilize-words.yaml"), profile).to_json()
    assert real["error"]["step"] == simulated["error"]["step"] == 1
    d = diff_reports(simulated, real, "simulated", "real")
    assert d.equal, render_diff(d, width=140)
