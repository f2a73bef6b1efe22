"""Sharded memory (meshspec/sim/sharding.py; docs/semantics.md section 11): core order, page
placement on cores, the shapes and page sizes a sharded spec gets, and a report's memory_config
pasted back into a scenario. The full comparison with ttnn 0.81.1 is tests/test_golden_sharded.py."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.sharding import MemoryLayout, Orientation, ShardSpec, core_pages, grid_cores
from meshspec.sim.spec import BufferType, DataType, Layout, make_spec

H, W, B = MemoryLayout.HEIGHT_SHARDED, MemoryLayout.WIDTH_SHARDED, MemoryLayout.BLOCK_SHARDED
ROW, COL = Orientation.ROW_MAJOR, Orientation.COL_MAJOR


def test_cores_are_taken_range_by_range_row_or_column_first():
    grid = (((4, 4), (5, 4)), ((0, 0), (1, 1)))
    assert grid_cores(grid, ROW) == ((4, 4), (5, 4), (0, 0), (1, 0), (0, 1), (1, 1))  # the ranges' own order
    assert grid_cores(grid, COL) == ((4, 4), (5, 4), (0, 0), (0, 1), (1, 0), (1, 1))


def test_a_width_sharded_core_holds_pages_that_are_not_adjacent():
    # (1,1,64,256) TILE in 64x64 shards: a page row is 8 tiles, each core two columns of two rows
    pages = dict(core_pages(ShardSpec(W, (((0, 0), (3, 0)),), (64, 64)), (64, 256), (32, 32)))
    assert pages[(0, 0)] == (0, 1, 8, 9) and pages[(3, 0)] == (6, 7, 14, 15)


def test_block_sharding_col_major_swaps_the_grid_axes():
    s = ShardSpec(B, (((0, 0), (1, 1)),), (64, 64), COL)
    pages = dict(core_pages(s, (96, 96), (32, 32)))  # a ragged 3x3 tile grid
    assert pages == {(0, 0): (0, 1, 3, 4), (0, 1): (2, 5), (1, 0): (6, 7), (1, 1): (8,)}


def test_row_major_width_sharding_pads_the_width_and_pages_by_shard_row():
    s = ShardSpec(W, (((0, 0), (3, 0)),), (64, 64))
    spec = make_spec((1, 1, 64, 200), DataType.BFLOAT16, Layout.ROW_MAJOR, memory=BufferType.L1, shard=s)
    assert spec.padded_shape == (1, 1, 64, 256) and (spec.page_size, spec.num_pages) == (128, 256)
    assert spec.bank_bytes == 64 * 128  # every core reserves a whole shard


@pytest.mark.parametrize("config", [
    {"memory_layout": "height_sharded", "buffer_type": "l1", "shard_spec": {"grid": [[[0, 0], [3, 0]]], "shape": [64, 64], "orientation": "row_major"}},
    {"memory_layout": "height_sharded", "buffer_type": "dram", "shard_spec": {"grid": [[[0, 0], [1, 0]]], "shape": [64, 64], "orientation": "col_major"}},
])
def test_a_reports_memory_config_pastes_back_into_a_scenario(config):
    import yaml

    def device_spec(memory_config):
        text = ("meshspec: 1\nname: rt\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device: "
                + yaml.safe_dump({"as": "t", "shape": [1, 1, 96, 64], "memory_config": memory_config}, default_flow_style=True).strip() + "\n")
        return run(parse(text, Path("rt.yaml")), "current").to_json()["tensors"][0]["devices"][0]["spec"]

    printed = device_spec(config)["memory_config"]
    assert printed == config
    assert device_spec(printed) == device_spec(config)


def test_a_sharded_config_without_a_shard_spec_is_ttnns_error_then_what_it_means():
    # ttnn 0.81.1's words (tests/golden/ttnn_0_81_1_sharded.json: "bad optional access"), then meshspec's
    from conftest import run_steps

    report = run_steps([{"allocate_tensor_on_device": {"as": "d", "shape": [1, 1, 32, 32], "memory_config": "L1_HEIGHT_SHARDED_MEMORY_CONFIG"}}])
    assert report.error.message.startswith("bad optional access (L1_HEIGHT_SHARDED_MEMORY_CONFIG is sharded but names no shard spec")


def test_an_nd_spec_on_a_large_grid_is_converted_in_time_linear_in_its_cores(monkeypatch):
    """nd_as_2d compares the ND placement with the 2-D one: the 2-D pages are worked out once, not
    once per core of the ND grid, and a grid's cores once per grid, not once per shard (a 4x1001
    grid took 9.7 s; found by bench/fuzz.py, seed 8)."""
    from meshspec.sim import sharding

    calls = []
    core_pages = sharding.core_pages
    monkeypatch.setattr(sharding, "core_pages", lambda *a: calls.append(a) or core_pages(*a))
    sharding.grid_cores.cache_clear()
    nd = sharding.ShardSpec(sharding.MemoryLayout.ND_SHARDED, (((0, 0), (3, 1000)),), (1, 1, 32, 64),
                            sharding.Orientation.ROW_MAJOR, sharding.Distribution.ROUND_ROBIN_1D)
    sharding.nd_as_2d(nd, (1, 1, 128, 64), (128, 64), (32, 32))
    assert len(calls) == 1  # the comparison was reached, and made the 2-D placement once
    assert sharding.grid_cores.cache_info().misses <= 2


def test_a_grid_past_meshspecs_limit_is_refused_where_it_is_written():
    """meshspec takes core grids of up to 65,536 cores (sim/ops/fields.py MAX_GRID_CORES; a chip
    has 8x8 to 12x10 worker cores): [[0, 0], [4095, 4095]] took 58 s and 5 GB as an ND spec."""
    from meshspec.errors import ScenarioError
    from meshspec.scenario.loader import parse

    text = ("meshspec: 1\nmesh: t3k\nsteps:\n  - allocate_tensor_on_device:\n      as: a\n      shape: [1, 1, 32, 32]\n"
            "      memory_config: {buffer_type: l1, nd_shard_spec: {shard_shape: [32, 32], grid: [[[0, 0], [4095, 4095]]]}}\n")
    with pytest.raises(ScenarioError, match=r"a grid of 16,777,216 cores; meshspec takes up to 65,536") as err:
        parse(text, "g.yaml")
    assert err.value.line == 7


def test_a_grid_beyond_the_workers_names_its_first_core_with_no_bank():
    """The first core with no L1 bank, in the order grid_cores lists them (x fastest): (8, 0) on a
    Wormhole's 8x8 worker grid, found without listing the grid's other cores."""
    from meshspec.sim.sharding import MemoryLayout, ShardSpec, grid_error

    shard = ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (255, 255)),), (32, 32))
    assert grid_error(shard, False, (8, 8), 12).startswith("Invalid shard grid: shard core (8, 0) has no L1 bank on this device, which has 64")


@pytest.mark.parametrize("layout", ["height_sharded", "width_sharded", "block_sharded"])
def test_a_row_major_shard_of_width_0_is_refused_in_ttnns_words(layout, tmp_path):
    """A shard width of 0 on a ROW_MAJOR tensor reached padded_width's division (ZeroDivisionError,
    exit 3) before the spec check that refuses it as ttnn does (tensor_layout.cpp in ttnn 0.81.1)."""
    from meshspec.runner import run
    from meshspec.scenario.loader import parse

    text = (
        "meshspec: 1\nmesh: t3k\nsteps:\n"
        "  - from_torch: {as: x, shape: [1, 1, 64, 30], layout: row_major}\n"
        f"  - to_device: {{src: x, as: y, memory_config: {{memory_layout: {layout}, buffer_type: l1,\n"
        "      shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [32, 0], orientation: row_major}}}\n"
    )
    report = run(parse(text, tmp_path / "s.yaml"), "current")
    assert report.error is not None and report.error.message == "Shard shape must be greater than 0 in each sharded dim, got [32, 0]"
