"""The eras of per-core sharded placement (docs/semantics.md section 16): the rules shard_grid,
uneven_row_major_shards, dram_grid_rows and bank_check, and the pure functions under them."""

import itertools
from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES, RULES
from meshspec.sim.sharding import MemoryLayout, Orientation, ShardSpec, clamped, core_pages, grid_error, misplaced_cores

H, W, B = MemoryLayout.HEIGHT_SHARDED, MemoryLayout.WIDTH_SHARDED, MemoryLayout.BLOCK_SHARDED
ROW, COL = Orientation.ROW_MAJOR, Orientation.COL_MAJOR
TILE = (32, 32)


# --- clamped: the grid cut to the cores that hold a page (PR #55112) ------------------------------

def test_eight_height_shards_on_the_64_core_grid_keep_row_0():
    shard = ShardSpec(H, (((0, 0), (7, 7)),), (32, 64))
    assert clamped(shard, (256, 64), TILE).grid == (((0, 0), (7, 0)),)


def test_col_major_keeps_whole_columns_then_part_of_one():
    # 5 shards on a 3x3 grid walked column by column: (0,0) (0,1) (0,2) (1,0) (1,1)
    shard = ShardSpec(H, (((0, 0), (2, 2)),), (32, 32), COL)
    assert clamped(shard, (160, 32), TILE).grid == (((0, 0), (0, 2)), ((1, 0), (1, 1)))


def test_a_second_range_is_dropped_when_the_first_holds_every_shard():
    shard = ShardSpec(W, (((0, 0), (1, 0)), ((4, 4), (5, 5))), (32, 32))
    assert clamped(shard, (32, 64), TILE).grid == (((0, 0), (1, 0)),)


def test_block_shards_keep_the_rectangle_at_the_grid_start():
    # (64, 96) in 32x32 blocks: 2 down, 3 across; row_major: 3 columns by 2 rows, col_major: 2 by 3
    assert clamped(ShardSpec(B, (((1, 1), (4, 4)),), (32, 32)), (64, 96), TILE).grid == (((1, 1), (3, 2)),)
    assert clamped(ShardSpec(B, (((1, 1), (4, 4)),), (32, 32), COL), (64, 96), TILE).grid == (((1, 1), (2, 3)),)


def test_a_grid_the_shards_fill_is_the_same_object():
    shard = ShardSpec(H, (((0, 0), (3, 0)),), (32, 64))
    assert clamped(shard, (128, 64), TILE) is shard


def _fits(layout, orientation, size, n) -> bool:
    """n shards fit a w x h grid: as many cores (height, width), or n block rows (one column) down it."""
    w, h = size
    return n <= (w * h if layout is not B else (h if orientation is ROW else w))


CASES = [(layout, orientation, size, n)
         for layout, orientation in itertools.product((H, W, B), (ROW, COL))
         for size in ((1, 1), (3, 1), (1, 4), (3, 3), (4, 2)) for n in (1, 2, 3, 5, 7) if _fits(layout, orientation, size, n)]


@pytest.mark.parametrize("layout, orientation, size, n", CASES)
def test_clamping_moves_no_page_and_keeps_no_idle_core(layout, orientation, size, n):
    w, h = size
    grid = (((2, 1), (2 + w - 1, 1 + h - 1)),)
    if layout is B:  # n block rows, one block across
        shard, physical = ShardSpec(B, grid, (32, 32), orientation), (32 * n, 32)
    else:
        shard = ShardSpec(layout, grid, (32, 64) if layout is H else (64, 32), orientation)
        physical = (32 * n, 64) if layout is H else (64, 32 * n)
    before = {c: p for c, p in core_pages(shard, physical, TILE) if p}
    cut = clamped(shard, physical, TILE)
    after = dict(core_pages(cut, physical, TILE))
    assert after == before  # every page on the core it was on, and every core of the cut grid holds one


# --- grid checks and the cores an era cannot place --------------------------------------------------

DRAM_2X2 = ShardSpec(H, (((0, 0), (1, 1)),), (32, 64))


def test_each_grid_check_can_be_off_alone():
    assert grid_error(DRAM_2X2, True, (8, 8), 12).startswith("Invalid DRAM shard grid: shard core (0, 1) is not on row 0.")
    assert grid_error(DRAM_2X2, True, (8, 8), 12, rows=False) is None
    past = ShardSpec(W, (((10, 0), (12, 0)),), (32, 32))
    assert grid_error(past, True, (8, 8), 12, rows=False).startswith("Invalid shard grid: shard core (12, 0) has no DRAM bank")
    assert grid_error(past, True, (8, 8), 12, banks=False) is None


def test_of_each_dram_column_the_last_core_keeps_its_shard():
    order = ((0, 0), (1, 0), (0, 1), (1, 1), (0, 2))
    assert misplaced_cores(order, True, (8, 8), 12, rows=False) == {(0, 0), (1, 0), (0, 1)}
    assert misplaced_cores(order, True, (8, 8), 12) == frozenset()


def test_cores_without_a_bank_keep_nothing():
    assert misplaced_cores(((7, 7), (8, 7), (7, 8)), False, (8, 8), 12, banks=False) == {(8, 7), (7, 8)}
    assert misplaced_cores(((11, 0), (12, 0)), True, (8, 8), 12, banks=False) == {(12, 0)}


# --- the rules ----------------------------------------------------------------------------------------

NEW = {"shard_grid": "as_given", "uneven_row_major_shards": "padded", "dram_grid_rows": "row_zero", "bank_check": "checked"}


def test_current_is_ttnn_0_81_1_and_the_reference_clamps_only():
    assert {k: PROFILES["current"].rules()[k] for k in NEW} == NEW
    assert {k: PROFILES["reference"].rules()[k] for k in NEW} == {**NEW, "shard_grid": "clamped"}
    for early in ("uniform-by-value", "unpopulated"):
        assert {k: PROFILES[early].rules()[k] for k in NEW} == {
            "shard_grid": "as_given", "uneven_row_major_shards": "refused", "dram_grid_rows": "aliased", "bank_check": "unchecked"}
    for name in NEW:
        assert set(RULES[name].meanings) == {c.value for c in RULES[name].choices}


ERA = """meshspec: 1
name: p
mesh: {mesh}
profiles:
  era: {{base: current, uneven_row_major_shards: refused, dram_grid_rows: aliased, bank_check: unchecked}}
steps:
"""


def _run(mesh: str, steps: str, profile: str = "era"):
    return run(parse(ERA.format(mesh=mesh) + steps, Path("p.yaml")), profile)


def _put(shape, layout, memory_config, call="to_device"):
    put = (f"  - to_device: {{src: h, as: d, memory_config: {memory_config}}}\n" if call == "to_device"
           else f"  - to: {{tensor: h, as: d, memory_config: {memory_config}}}\n")
    return f"  - from_torch: {{as: h, shape: {shape}, layout: {layout}}}\n" + put


WIDTH = "{memory_layout: width_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [1, 64]}}"


@pytest.mark.parametrize("call", ["to_device", "to"])
def test_the_era_refuses_rows_the_width_shards_do_not_divide_in_the_librarys_words(call):
    report = _run("n150", _put([1, 1, 1, 96], "row_major", WIDTH, call))
    assert report.error.message.startswith("Physical width 96 must be multiple of page width 64 (")
    assert _run("n150", _put([1, 1, 1, 96], "row_major", WIDTH, call), "current").error is None


def test_the_era_takes_rows_the_shards_divide_tiles_and_height_shards():
    assert _run("n150", _put([1, 1, 1, 128], "row_major", WIDTH)).error is None
    tile_width = "{memory_layout: width_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [32, 64]}}"
    assert _run("n150", _put([1, 1, 32, 96], "tile", tile_width)).error is None
    height = "{memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [64, 1]}}"
    assert _run("n150", _put([1, 1, 96, 1], "row_major", height)).error is None


def _device(report, name="d"):
    return next(t for t in report.tensors if t.name == name).to_json()["devices"][0]


def test_an_aliased_dram_grid_leaves_the_earlier_core_of_each_column_unwritten():
    dram = "{memory_layout: height_sharded, buffer_type: dram, shard_spec: {grid: [[[0, 0], [1, 1]]], shape: [32, 64]}}"
    report = _run("n150", _put([1, 1, 128, 64], "tile", dram))
    d = _device(report)
    assert (d["status"], d["written_bytes"]) == ("partial", 4 * 2048)  # cores (0,1) and (1,1): tiles 4-7
    assert "reached only cores (0,1), (1,1)" in next(f.message for f in report.findings if f.kind.value == "partial")


def test_a_core_past_the_worker_grid_keeps_nothing_in_l1():
    l1 = "{memory_layout: width_sharded, buffer_type: l1, shard_spec: {grid: [[[6, 0], [8, 0]]], shape: [32, 32]}}"
    d = _device(_run("n150", _put([1, 1, 32, 96], "tile", l1)))
    assert (d["status"], d["written_bytes"]) == ("partial", 2 * 2048)  # (8, 0) has no L1 bank on an 8x8 grid


def test_the_reference_records_the_clamped_grid_for_a_put_and_an_allocation():
    wide = "{memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [7, 7]]], shape: [32, 64]}}"
    steps = (_put([1, 1, 256, 64], "tile", wide)
             + f"  - allocate_tensor_on_device: {{as: a, shape: [1, 1, 256, 64], memory_config: {wide}}}\n")
    report = _run("t3k", steps, "reference")
    for name in ("d", "a"):
        assert _device(report, name)["spec"]["memory_config"]["shard_spec"]["grid"] == [[[0, 0], [7, 0]]]
    assert {f.kind.value for f in report.findings} == set()
    assert {f.kind.value for f in _run("t3k", steps, "current").findings} == {"phantom_cores"}
