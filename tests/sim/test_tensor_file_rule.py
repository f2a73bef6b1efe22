"""The tensor_file rule (docs/semantics.md section 20): what each era's file keeps per shard, what a
load puts on each device, and what the judge reports of it. A device or host shard loaded with the
slice dumped from another device is a data_mismatch; a copy of the slice dumped from it (a replica)
or the one shard of a one-shard file is not."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.ops.cache import _group_firsts
from meshspec.sim.placement import Replicate, Shard, Topology

RULES = ("collapse_replicated", "every_shard", "replicate_on_load", "replicated_config", "first_shard")


def _run(steps: str, rule: str, mesh: str = "t3k") -> tuple[dict, list]:
    text = (f"meshspec: 1\nname: f\nmesh: {mesh}\nprofiles:\n  era: {{base: current, tensor_file: {rule}}}\nsteps:\n" + steps)
    report = run(parse(text, Path("f.yaml")), "era").to_json()
    assert report["error"] is None, report["error"]
    return {t["name"]: t for t in report["tensors"]}, report["findings"]


def _mismatches(findings) -> list:
    return sorted((f["tensor"], tuple(f["device"])) for f in findings if f["kind"] == "data_mismatch")


def _firsts(tensors, prefix):
    parts = sorted((n for n in tensors if n.startswith(prefix + "[")), key=lambda n: int(n[len(prefix) + 1 : -1]))
    return [tensors[n]["values"]["first"][0] for n in parts]


SHARDED = ("  - from_torch: {as: x, shape: [1, 8, 32, 32], dtype: float32, mesh_mapper: {shard: 1}}\n"
           "  - dump_tensor: {file_name: x.tensorbin, tensor: x}\n")
LOAD_HOST = "  - load_tensor: {file_name: x.tensorbin, as: y}\n  - get_device_tensors: {tensor: y, as: ys}\n"
LOAD_DEVICE = "  - load_tensor: {file_name: x.tensorbin, device: mesh_device, as: y}\n  - get_device_tensors: {tensor: y, as: ys}\n"
SLICES = [1024.0 * i for i in range(8)]


@pytest.mark.parametrize("rule", RULES)
def test_a_mappers_sharded_tensor_loads_back_on_host_in_every_era_but_the_serialiser_that_keeps_one_shard(rule):
    tensors, findings = _run(SHARDED + LOAD_HOST, rule)
    if rule == "first_shard":  # tt-xla #5177: the file is one shard; on host that is all there is
        assert _firsts(tensors, "ys") == [0.0] and _mismatches(findings) == []
    else:
        assert _firsts(tensors, "ys") == SLICES and findings == []


@pytest.mark.parametrize("rule", RULES)
def test_a_mappers_sharded_tensor_loaded_onto_the_mesh(rule):
    tensors, findings = _run(SHARDED + LOAD_DEVICE, rule)
    lost = rule in ("replicate_on_load", "first_shard")  # #8228 on load; tt-xla #5177 in the file
    assert _firsts(tensors, "ys") == ([0.0] * 8 if lost else SLICES)
    assert _mismatches(findings) == ([("y", (r, c)) for r in range(2) for c in range(4) if (r, c) != (0, 0)] if lost else [])
    assert tensors["y"]["topology"]["distribution_shape"] == [8]


@pytest.mark.parametrize("rule", RULES)
def test_an_honest_replicated_tensor_loses_nothing_whatever_the_file_keeps(rule):
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 32], dtype: float32, mesh_mapper: {placements: [replicate, replicate]}}\n"
             "  - dump_tensor: {file_name: x.tensorbin, tensor: x}\n" + LOAD_DEVICE)
    tensors, findings = _run(steps, rule)
    assert findings == [] and _firsts(tensors, "ys") == [0.0] * 8


def test_the_legacy_format_keeps_one_shard_of_a_device_ops_output_only():
    """A device op's output had the default config, ReplicateTensor (issue #26637); the same data
    put there by a mapper kept its sharded config and every shard."""
    mapped = ("  - from_torch: {as: t, shape: [1, 8, 32, 32], dtype: float32, mesh_mapper: {shard: 1}, device: mesh_device}\n"
              "  - dump_tensor: {file_name: x.tensorbin, tensor: t}\n" + LOAD_DEVICE)
    assert _run(mapped, "replicated_config")[1] == []
    op = mapped.replace("  - dump_tensor: {file_name: x.tensorbin, tensor: t}\n",
                        "  - neg: {tensor: t, as: n}\n  - dump_tensor: {file_name: x.tensorbin, tensor: n}\n")
    tensors, findings = _run(op, "replicated_config")
    assert _mismatches(findings) == [("y", (r, c)) for r in range(2) for c in range(4) if (r, c) != (0, 0)]
    assert _run(op, "collapse_replicated")[1] == [] and _run(op, "every_shard")[1] == []


def test_the_finding_names_the_file_the_slice_held_and_the_slice_dumped_there():
    _, findings = _run(SHARDED + LOAD_DEVICE, "first_shard")
    f = next(f for f in findings if f["device"] == [1, 3])
    assert f["step"] == 2 and f["op"] == "load_tensor"
    assert f["message"].startswith("y (1,3): loaded from x.tensorbin, it holds x[0:1, 0:1, 0:32, 0:32], the shard dumped from "
                                   "(0,0), where x was dumped with x[0:1, 7:8, 0:32, 0:32] on (1,3)")


def test_the_first_device_of_a_group_of_copies():
    coords = tuple((r, c) for r in range(2) for c in range(4))
    shards = dict.fromkeys(coords)
    rows = Topology((2, 4), (Replicate(), Shard(3)), coords)
    assert list(_group_firsts(rows, shards).values()) == [(0, c) for c in range(4)] * 2
    cols = Topology((2, 4), (Shard(2), Replicate()), coords)
    assert list(_group_firsts(cols, shards).values()) == [(0, 0)] * 4 + [(1, 0)] * 4
    flat = Topology((8,), (Replicate(),), coords)
    assert set(_group_firsts(flat, shards).values()) == {(0, 0)}
    sharded = Topology((2, 4), (Shard(2), Shard(3)), coords)
    assert list(_group_firsts(sharded, shards).values()) == list(coords)
    # a label that does not describe its devices takes nothing for a copy
    short = Topology((4,), (Replicate(),), coords)
    assert list(_group_firsts(short, shards).values()) == list(coords)
    # a group whose first device holds no shard keeps each shard where it is
    assert _group_firsts(flat, {(0, 1): None, (0, 2): None}) == {(0, 1): (0, 1), (0, 2): (0, 2)}
