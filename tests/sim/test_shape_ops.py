"""Shape ops on device tensors (meshspec/sim/ops/views.py; docs/semantics.md section 12): how the data's
placements move, what 0.81.1's default imputation records instead, and that squeeze is a view."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.ops.views import renumber_permute, renumber_squeeze, renumber_unsqueeze
from meshspec.sim.placement import Replicate, Shard


@pytest.mark.parametrize("placements, rank, dim, want", [
    ((Shard(3),), 4, 0, (Shard(2),)),
    ((Shard(-1),), 4, 0, (Shard(2),)),  # a negative dim counts from the end of the old rank
    ((Shard(0), Shard(3)), 4, 1, (Shard(0), Shard(2))),
    ((Replicate(), Shard(1)), 4, 2, (Replicate(), Shard(1))),
])
def test_squeeze_renumbers_the_dims_after_it(placements, rank, dim, want):
    assert renumber_squeeze(placements, rank, dim) == want


def test_unsqueeze_and_permute_move_the_shard_dim_with_the_data():
    assert renumber_unsqueeze((Shard(3),), 4, 0) == (Shard(4),)
    assert renumber_unsqueeze((Shard(3),), 4, 4) == (Shard(3),)
    assert renumber_permute((Shard(3),), (0, 1, 3, 2)) == (Shard(2),)
    assert renumber_permute((Shard(0), Replicate()), (3, 2, 1, 0)) == (Shard(3), Replicate())


def _run(steps: str, profile: str):
    text = f"meshspec: 1\nname: v\nmesh: t3k\nsteps:\n  - from_torch: {{as: x, shape: [1, 1, 32, 256], mesh_mapper: {{shard: 3}}, device: mesh_device}}\n{steps}"
    return run(parse(text, Path("v.yaml")), profile).to_json()


def test_squeeze_is_a_view_and_keeps_the_label_under_current():
    # ttnn 0.81.1 (observed in the mock): the same buffer address, PlacementShard(3) on a rank-3 tensor
    report = _run("  - squeeze: {tensor: x, dim: 0, as: x3}\n", "current")
    t = {t["name"]: t for t in report["tensors"]}
    assert t["x3"]["address"] == t["x"]["address"]
    assert t["x3"]["topology"]["placements"] == [{"shard": 3}]
    assert [f["kind"] for f in report["findings"]] == ["topology_stale"]
    ref = {t["name"]: t for t in _run("  - squeeze: {tensor: x, dim: 0, as: x3}\n", "reference")["tensors"]}
    assert ref["x3"]["topology"]["placements"] == [{"shard": 2}]


def test_permute_moves_every_devices_data():
    report = _run("  - permute: {tensor: x, dims: [0, 1, 3, 2], as: p}\n  - get_device_tensors: {tensor: p, as: parts}\n", "reference")
    part = next(t for t in report["tensors"] if t["name"] == "parts[1]")
    # device (0,1) held columns 32..63 of the arange; transposed, its first row is the first column
    assert part["values"]["shape"] == [1, 1, 32, 32]
    assert part["values"]["first"][:3] == [32.0, 288.0, 544.0]
    assert report["findings"] == []
