"""Each built-in version profile against its version's golden data (issue 37: "a built-in profile
matches each version on every golden case").

ttnn 0.81.1, 0.67.0 and 0.66.0 open a mock mesh; each verifies one built-in profile
(:func:`profile_for_version`: ``current``, ``ttnn-0.67.0``, ``ttnn-0.66.0``). Every golden file a
version was recorded in is replayed under that profile, by name, never a profile made for the test:
ttnn_<v>.json by tests/test_golden.py (specs, systems, mappers, runtime); placement eras and storage
by tests/test_golden_placement_eras.py and tests/test_golden_storage.py; the device ids, the
replicated distribution, the tensor files and ttnn_<v>.json's mapper offsets here. What each
profile says of its rules (verified by which file, or source reading only) is checked against what
is replayed, and ``meshspec profiles`` shows it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import invoke

from meshspec.errors import TTFatal
from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.mesh import device_ids, open_shape
from meshspec.sim.profiles import PROFILES, RULES, VERIFIED_RULES, ChipMap, get_profile, profile_for_version, source_only

GOLDEN = Path(__file__).parent / "golden"
VERSIONS = ("0.81.1", "0.67.0", "0.66.0")


def load(name: str) -> dict:
    return json.loads((GOLDEN / name).read_text())


def per_version(pattern: str) -> dict:
    return {v: load(pattern.format(v=v.replace(".", "_"))) for v in VERSIONS}


def profile(version: str):
    return get_profile(profile_for_version(version))


# -- the lookup -----------------------------------------------------------------------------------
def test_each_version_that_opens_a_mock_mesh_has_one_builtin_profile():
    assert [profile_for_version(v) for v in VERSIONS] == ["current", "ttnn-0.67.0", "ttnn-0.66.0"]
    assert profile_for_version("0.67.4") is None  # opens no mock mesh: nothing verifies a profile of it
    assert {p.verified_by for p in PROFILES.values()} == {None, *VERSIONS}


def test_a_profile_a_user_changes_is_verified_by_no_version(tmp_path):
    text = "meshspec: 1\nmesh: t3k\nprofiles:\n  mine: {base: ttnn-0.67.0, copy: current}\nsteps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n"
    mine = parse(text).profiles["mine"]
    assert mine.verified_by is None and source_only(mine) == list(RULES)


# -- ttnn_<v>.json: the mapper offset (its api section) -------------------------------------------
@pytest.mark.parametrize("version", VERSIONS)
def test_the_mapper_offset_is_the_versions(version):
    case = next(c for c in per_version("ttnn_{v}.json")[version]["api"] if c["name"] == "mapper_offsets")
    compared = 0
    for event in case["events"]:
        src = event["args"].get("src", {})
        if event["op"] != "distribute_tensor" or src.get("mesh_offset_override") is None or "placements" not in src:
            continue  # the offsets given with placements (the row_dim/col_dim form: tests/test_golden_api.py, 0.81.1)
        placements = ", ".join("replicate" if p == "R" else f"{{shard: {p['shard']}}}" for p in src["placements"])
        override = "" if src.get("mesh_shape_override") is None else f"mesh_shape_override: {src['mesh_shape_override']}, "
        text = (f"meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {{as: x, shape: {src['shape']}, dtype: {src['dtype']}, "
                f"layout: {src['layout']}, mesh_mapper: {{create_mesh_mapper: {{placements: [{placements}], "
                f"{override}mesh_offset_override: {src['mesh_offset_override']}}}}}}}\n")
        report = run(parse(text), profile_for_version(version))
        if event["error"] is None:  # 0.81.1 takes the offset: the shards start there
            assert report.error is None, report.error
            x = next(t for t in report.tensors if t.name == "x")
            assert [list(c) for c in x.topology.coords] == event["topology"]["coords"]
        elif version == "0.81.1":  # an offset off the mesh: refused in 0.81.1's words
            assert report.error is not None and report.error.message.startswith(event["error"].removeprefix("TT_FATAL: "))
        else:  # 0.66.0 / 0.67.0: MeshMapperConfig takes no offset (the binding refuses the call, in its words)
            assert event["error"].startswith("TypeError: __init__(): incompatible function arguments.")
            assert report.error is not None and report.error.message.startswith(event["error"].removeprefix("TypeError: "))
        compared += 1
    assert compared >= 2


# -- device ids ---------------------------------------------------------------------------------------
DEVICE_ROWS = [(v, s["system"], row) for v, golden in per_version("ttnn_{v}_device_ids.json").items()
               for s in golden["systems"] for row in s["shapes"]]


@pytest.mark.parametrize("version, system, row", DEVICE_ROWS, ids=[f"{v}-{s}-{r['shape']}" for v, s, r in DEVICE_ROWS])
def test_device_ids_are_the_versions_under_its_profile(version, system, row):
    early = profile(version).chip_map is ChipMap.EARLY_2026
    if "device_ids" in row:
        assert device_ids(system, tuple(row["opened"]), early_2026=early) == tuple(row["device_ids"])
        return
    if system == "bh-galaxy" and version != "0.81.1":  # the mock's descriptor (tests/test_golden.py MOCK_CANNOT_OPEN)
        assert "could not fit in the discovered physical topology" in row["error"]
        return
    with pytest.raises(TTFatal):
        open_shape(system, tuple(row["shape"]) if row["shape"] is not None else None)


# -- the replicated distribution --------------------------------------------------------------------
REPLICATED_MAPPERS = {"replicate_tensor_to_mesh_mapper": "replicate", "create_mesh_mapper_replicate_per_axis": "{placements: [R, R]}",
                      "shard_tensor_to_mesh_mapper_dim3": "{shard: 3}", "plain_host_tensor": None}
PLACEMENT_WORDS = {"PlacementReplicate()": "R", "PlacementShard(3)": "S(3)"}


@pytest.mark.parametrize("version", VERSIONS)
def test_the_replicated_distribution_is_the_versions_under_its_profile(version):
    golden = per_version("ttnn_{v}_replicated_distribution.json")[version]
    assert golden["ttnn"] == version
    compared = 0
    for mesh, cases in golden["meshes"].items():
        rows, cols = mesh.split("x")
        for case, mapper in REPLICATED_MAPPERS.items():
            for where in ("host", "device"):
                text = (f"meshspec: 1\nmesh: {{system: t3k, shape: [{rows}, {cols}]}}\nsteps:\n  - from_torch: {{as: x, shape: [1, 1, 32, 32]"
                        f"{'' if mapper is None else ', mesh_mapper: ' + mapper}{', device: mesh_device' if where == 'device' else ''}}}\n")
                t = next(t for t in run(parse(text), profile_for_version(version)).tensors if t.name == "x")
                want = cases[case][where]
                got = (list(t.topology.distribution_shape), [str(p) for p in t.topology.placements], len(t.topology.coords))
                assert got == (want["distribution_shape"], [PLACEMENT_WORDS[p] for p in want["placements"]], want["coords"]), (mesh, case, where)
                compared += 1
    assert compared == 16


# -- tensor files -----------------------------------------------------------------------------------
TENSOR_FILES = load("ttnn_tensor_files.json")
T3K = [[r, c] for r in range(2) for c in range(4)]
FILE_CASES = {  # the recorder's cases (tools/golden/record_tensor_files.py) whose label is honest: every version has them
    "sharded_8": ("[1, 8, 32, 32]", "{placements: [{shard: 1}], mesh_shape: [8]}"),
    "sharded_2d": ("[1, 1, 64, 128]", "{placements: [{shard: 2}, {shard: 3}]}"),
    "replicated": ("[1, 1, 32, 32]", "{placements: [replicate, replicate]}"),
    "plain": ("[1, 1, 32, 32]", None),
}


def _file_round_trip(case: str, device: bool, version: str) -> dict:
    shape, mapper = FILE_CASES[case]
    steps = [f"from_torch: {{as: x, shape: {shape}, dtype: float32, layout: ROW_MAJOR_LAYOUT{'' if mapper is None else ', mesh_mapper: ' + mapper}}}",
             "dump_tensor: {file_name: x.tensorbin, tensor: x}",
             f"load_tensor: {{file_name: x.tensorbin, as: y{', device: mesh_device' if device else ''}}}"]
    if not device:
        steps.append("get_device_tensors: {tensor: y, as: ys}")
    text = "meshspec: 1\nname: f\nmesh: t3k\nsteps:\n" + "".join(f"  - {s}\n" for s in steps)
    report = run(parse(text, Path("f.yaml")), profile_for_version(version)).to_json()
    assert report["error"] is None
    return {t["name"]: t for t in report["tensors"]}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_a_tensor_file_loads_as_the_version_loads_it_under_its_profile(version, case):
    seen = TENSOR_FILES[version][case]
    host = _file_round_trip(case, False, version)
    parts = sorted((n for n in host if n.startswith("ys[")), key=lambda n: int(n[3:-1]))
    assert [host[n]["values"]["first"][0] for n in parts] == seen["host_load"]["first_values"]
    assert host["y"]["topology"]["distribution_shape"] == seen["host_load"]["topology"]["distribution_shape"]
    y = _file_round_trip(case, True, version)["y"]
    assert y["topology"]["distribution_shape"] == seen["device_load"]["topology"]["distribution_shape"]
    if seen["device_load"]["device_coords"] is not None:  # 0.66.0 / 0.67.0 cannot name them
        assert [d["coord"] for d in y["devices"] if d["recorded"]] == seen["device_load"]["device_coords"]


# -- what each profile says of its rules --------------------------------------------------------------
#: the golden files this suite replays under each version's profile (above and in the tests named in
#: the docstring): every rule a profile calls verified must name one of them
REPLAYED = {"ttnn_<v>.json", "ttnn_<v>_device_ids.json", "ttnn_<v>_replicated_distribution.json", "ttnn_storage.json",
            "ttnn_placement_eras.json", "ttnn_tensor_files.json", "ttnn_0_81_1.json", "ttnn_0_81_1_device_ids.json",
            "ttnn_0_81_1_imputation.json", "ttnn_0_81_1_host_ops.json", "ttnn_0_81_1_sharded.json",
            "ttnn_<v>_freed.json"}  # tests/test_golden_freed.py
#: real reports the exported script wrote on each version, replayed under its profile by
#: tests/hunt/test_hunt_real_found.py (what the real hunt found, shrunk)
REPLAYED_REAL = {"tests/hunt/data/dump-into-its-own-file.real-<v>.json", "tests/hunt/data/to-dtype-tilize-words.real-<v>.json"}


@pytest.mark.parametrize("name", sorted(VERIFIED_RULES))
def test_every_verified_rule_names_a_golden_file_replayed_under_its_version(name):
    p = PROFILES[name]
    assert p.verified_by is not None
    for rule, evidence in VERIFIED_RULES[name].items():
        assert rule in RULES, rule
        golden = evidence.split()[0]
        if golden in REPLAYED_REAL:
            assert (GOLDEN.parents[1] / golden.replace("<v>", p.verified_by)).exists(), golden
            continue
        assert golden in REPLAYED, (rule, evidence)
        on_disk = golden.replace("<v>", p.verified_by.replace(".", "_"))
        assert (GOLDEN / on_disk).exists(), on_disk
    assert set(source_only(p)) == set(RULES) - set(VERIFIED_RULES[name])


def test_the_march_2025_eras_and_every_unverified_profile_rest_on_source_reading_only():
    for p in PROFILES.values():
        if p.verified_by is None:
            assert source_only(p) == list(RULES), p.name
    assert "ccl_topology" in source_only(PROFILES["current"])  # the mock runs no collective
    assert "copy" not in source_only(PROFILES["ttnn-0.67.0"])  # partial_then_full on 0.67.0


def test_profiles_command_shows_the_verifying_version_and_the_source_only_rules():
    text = invoke(["profiles"], env={"COLUMNS": "600"}).stdout.splitlines()  # one table, prose unwrapped
    assert text[1].split(maxsplit=2)[:2] == ["verified", "by"]
    cells = text[1].split("  ")
    shown = [c.strip() for c in cells if c.strip()][1:]
    assert shown == [f"ttnn {p.verified_by}" if p.verified_by else "source only" for p in PROFILES.values()]
    copy_row = next(line for line in text if line.startswith("ccl_topology "))
    # a verified profile marks a source-only rule with *; an unverified one says so once, above
    assert copy_row.split() == ["ccl_topology", *(p.ccl_topology.value + ("*" if p.verified_by else "") for p in PROFILES.values())]
    assert ("  ttnn-0.67.0: ttnn 0.67.0 (March 2026), observed in mock mode (changes current); verified by ttnn 0.67.0; "
            "source reading only: " + ", ".join(source_only(PROFILES["ttnn-0.67.0"]))) in text
    data = json.loads(invoke(["profiles", "--format", "json"]).stdout)
    assert {p["name"]: (p["verified_by"], p["source_only"]) for p in data["profiles"]} == {
        p.name: (p.verified_by, source_only(p)) for p in PROFILES.values()}
