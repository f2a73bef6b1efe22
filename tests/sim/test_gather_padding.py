"""What ttnn.all_gather does with a TILE tensor's padding, era by era (rule gather_padding;
docs/semantics.md section 22): ``logical`` (ttnn 0.81.1: PR #16347's unpad), ``padded`` (2024: the
output shape was the padded legacy shape times the ring, issue #11013) and ``window`` (2025's
cluster_axis overload: a logical output over the shards' tiles back to back, issue #21964)."""

from pathlib import Path

import numpy as np
import pytest

from meshspec.runner import execute
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import define
from meshspec.sim.runtime import Runtime
from meshspec.sim.spec import DataType
from meshspec.sim.values import arange


def _gathered(mesh: str, shape: list, shard: int, dim: int, cluster_axis, choice: str):
    """The gathered tensor's shape, device (0, 0)'s values and the reason its padding is data (judged
    as padding_gathered; None: none is), under current with gather_padding ``choice``."""
    axis = "" if cluster_axis is None else f", cluster_axis: {cluster_axis}"
    text = (f"meshspec: 1\nname: g\nmesh: {mesh}\nsteps:\n"
            f"  - from_torch: {{as: x, shape: {shape}, layout: TILE, mesh_mapper: {{shard: {shard}}}, device: mesh_device}}\n"
            f"  - all_gather: {{tensor: x, dim: {dim}, as: g{axis}}}\n")
    scenario = parse(text, Path("g.yaml"))
    profile = define("era", "current", {"gather_padding": choice})
    rt = Runtime(scenario.mesh_shape, profile, scenario.folder)
    for step in scenario.steps:
        execute(rt, step)
    g = rt.tensors["g"]
    values = g.buffer.read((0, 0), g.record.specs[(0, 0)])
    return tuple(g.record.spec.shape), np.asarray(values, dtype=np.float64), g.provenance.gathered_padding


def _whole(shape):
    return arange(int(np.prod(shape)), DataType.BFLOAT16).astype(np.float64).reshape(shape)


def test_padded_gathers_each_shards_padding_rows_as_data():
    # issue #11013: users split 8 a device along dim 2 of a 1x4 row, each [1, 1, 8[32], 64]
    shape, got, why = _gathered("{system: t3k, shape: [1, 4]}", [1, 1, 32, 64], 2, 2, 1, "padded")
    whole = _whole((1, 1, 32, 64))
    want = np.concatenate([np.pad(whole[:, :, 8 * i : 8 * i + 8], ((0, 0), (0, 0), (0, 24), (0, 0))) for i in range(4)], axis=2)
    assert shape == (1, 1, 128, 64) and np.array_equal(got, want)
    assert "[1, 1, 128, 64], but the tensor gathered is [1, 1, 32, 64]" in why and "issue #11013" in why


def test_window_is_the_logical_extent_of_the_shards_tiles_back_to_back():
    # issue #21964: 8 columns a device on a 1x2 mesh, gathered on dim 3 with a cluster axis
    shape, got, why = _gathered("{system: n300, shape: [1, 2]}", [1, 1, 1, 16], 3, 3, 1, "window")
    assert shape == (1, 1, 1, 16)
    assert got.reshape(-1).tolist() == list(range(8)) + [0.0] * 8  # device 0's shard, then its padding; device 1's lost
    assert "only the first 1 of the 2 shards start inside it" in why and "issue #21964" in why


def test_window_without_a_cluster_axis_is_the_unpadding_overload():
    shape, got, why = _gathered("{system: n300, shape: [1, 2]}", [1, 1, 1, 16], 3, 3, None, "window")
    assert shape == (1, 1, 1, 16) and got.reshape(-1).tolist() == list(range(16)) and why is None


def test_window_over_whole_tiles_along_the_gather_dim_is_the_logical_gather():
    # each device (1, 1, 32, 16): dim 2 (the gather dim) is whole tiles, only dim 3 is padded
    shape, got, why = _gathered("{system: n300, shape: [1, 2]}", [1, 1, 64, 16], 2, 2, 1, "window")
    assert shape == (1, 1, 64, 16) and np.array_equal(got, _whole((1, 1, 64, 16))) and why is None


@pytest.mark.parametrize("choice", ["logical", "padded", "window"])
def test_a_tensor_of_whole_tiles_gathers_the_same_in_every_era(choice):
    shape, got, why = _gathered("{system: n300, shape: [1, 2]}", [1, 1, 32, 64], 3, 3, 1, choice)
    assert shape == (1, 1, 32, 64) and np.array_equal(got, _whole((1, 1, 32, 64))) and why is None
