"""Per-core sharded placement in three releases of the real ttnn (tests/golden/ttnn_placement_eras.json,
recorded by tools/golden/record_placement_eras.py in mock mode under ttnn 0.81.1, 0.67.0 and 0.66.0),
replayed through meshspec under the built-in profile each version verifies: 0.81.1 is ``current``;
``ttnn-0.67.0`` and ``ttnn-0.66.0`` have the era rules of docs/semantics.md section 16
(uneven_row_major_shards: refused, dram_grid_rows: aliased, bank_check: unchecked). Each case must stop with the library's own words
where the release stopped, or record the padded shape (transfers) or the shard grid (grids) it
recorded."""

import json
from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES, profile_for_version

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_placement_eras.json").read_text())
CASES = GOLDEN["about"]["cases"]
MESH = {"1x1": [1, 1], "2x4": "t3k"}
ERA_RULES = {"uneven_row_major_shards": "refused", "dram_grid_rows": "aliased", "bank_check": "unchecked"}


def _profile(version: str) -> str:
    return profile_for_version(version)


def _memory_config(mc: dict) -> dict:
    grid = [mc["grid"]]
    if mc.get("nd"):
        return {"buffer_type": mc["buffer_type"], "nd_shard_spec": {"shard_shape": mc["shard"], "grid": grid}}
    return {"memory_layout": mc["layout"], "buffer_type": mc["buffer_type"], "shard_spec": {"grid": grid, "shape": mc["shard"]}}


def _host_steps(case: dict, mesh: str) -> list:
    shape = list(case["host_shape"])
    n = 1 if mesh == "1x1" else 8
    if case["host"] == "mapped":
        return [{"from_torch": {"as": "h", "shape": shape[:-1] + [shape[-1] * n], "layout": "row_major", "mesh_mapper": {"shard": 3}}}]
    mapper = {"mesh_mapper": "replicate"} if case["host"] == "replicated" else {}
    return [{"from_torch": {"as": "h", "shape": shape, "layout": "row_major", **mapper}}]


def _transfer_steps(case: dict, mesh: str) -> list:
    mc = _memory_config(case["memory_config"])
    steps = _host_steps(case, mesh)
    if case["call"] == "to_device":
        steps.append({"to_device": {"src": "h", "as": "d", "memory_config": mc}})
    elif case["call"] == "to":
        steps.append({"to": {"tensor": "h", "as": "d", "memory_config": mc}})
    else:
        steps += [{"allocate_tensor_on_device": {"as": "d", "shape": list(case["host_shape"]), "layout": "row_major", "memory_config": mc}},
                  {"copy_host_to_device_tensor": {"src": "h", "dst": "d"}}]
    return steps


def _run(version: str, mesh: str, steps: list):
    text = yaml.safe_dump({"meshspec": 1, "name": "golden", "mesh": MESH[mesh], "steps": steps}, sort_keys=False)
    report = run(parse(text, Path("golden.yaml")), _profile(version))
    spec = next((t.to_json()["devices"][0]["spec"] for t in report.tensors if t.name == "d"), None)
    return report, spec


def _rows(section: str):
    for version, meshes in GOLDEN["versions"].items():
        for mesh, sections in meshes.items():
            for name, row in sections[section].items():
                yield pytest.param(version, mesh, name, row, id=f"{version}-{mesh}-{name}")


def _check(report, row):
    if row["error"] is not None:
        assert report.error is not None and report.error.message.startswith(row["error"].rstrip("!").split(" (")[0]), report.error
    else:
        assert report.error is None, report.error.message


@pytest.mark.parametrize("version, mesh, name, row", list(_rows("transfers")))
def test_row_major_transfers_into_shards_stop_or_pad_as_each_release_does(version, mesh, name, row):
    report, spec = _run(version, mesh, _transfer_steps(CASES["transfers"][name], mesh))
    _check(report, row)
    if row["error"] is None and CASES["transfers"][name]["call"] != "copy":  # (0.66/0.67 re-record a copy's dst as the host's: not modelled)
        assert spec["padded_shape"] == row["padded_shape"]


@pytest.mark.parametrize("version, mesh, name, row", list(_rows("grids")))
def test_grids_the_later_releases_refuse_are_taken_by_the_earlier_ones(version, mesh, name, row):
    mc = CASES["grids"]["memory_configs"][name]
    steps = [{"from_torch": {"as": "h", "shape": CASES["grids"]["host_shape"]}},
             {"to_device": {"src": "h", "as": "d", "memory_config": _memory_config(mc)}}]
    report, spec = _run(version, mesh, steps)
    _check(report, row)
    if row["error"] is None:
        shard = spec["memory_config"].get("shard_spec") or spec["memory_config"]["nd_shard_spec"]
        assert shard["grid"] == row["grid"]


def test_the_version_profiles_have_the_era_rules():
    for version in ("0.67.0", "0.66.0"):
        assert {rule: PROFILES[_profile(version)].rules()[rule] for rule in ERA_RULES} == ERA_RULES
