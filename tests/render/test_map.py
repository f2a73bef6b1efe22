"""The mesh map (issue 4, section 1): rendered text compared exactly, colour off, width 120.

Every expected picture below was written from the rules in ``meshspec/render/map.py`` and the
scenario, not pasted from a run: a device ``i`` (row-major) of a copy sharded on dim 1 holds
``[:, i:i+1, :, :]``; the devices past the last shard hold nothing (``-``), and under
uniform-by-value they are still recorded, so they are ``stale``.
"""

from __future__ import annotations

import doctest
import io
from pathlib import Path

import pytest
from rich.console import Console

import meshspec.render.map as map_module
from conftest import run_steps
from meshspec.kinds import STATUSES, Kind
from meshspec.report import DeviceView
from meshspec.render.map import (
    GLYPHS,
    REPLICA_TONES,
    Cell,
    bands,
    cells_of,
    compressed_lines,
    finding_rows,
    fits_full,
    legend,
    map_renderable,
    merge_rows,
    planes,
    replica_tones,
    row_label,
    ruler,
    slice_text,
    whole_dims,
)
from meshspec.runner import run
from meshspec.scenario.loader import load
from meshspec.sim.spec import TensorSpec

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def render(*renderables, width: int = 120, color: bool = False) -> str:
    buf = io.StringIO()
    console = Console(
        file=buf,
        width=width,
        color_system="256" if color else None,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        emoji=False,
    )
    for r in renderables:
        console.print(r)
    return "\n".join(line.rstrip() for line in buf.getvalue().split("\n"))


def tensor(report, name):
    return next(t for t in report.tensors if t.name == name)


def copy_steps(src_shape, dst_shape, **extra):
    """The seed's pattern: a uniform allocation, a host tensor sharded on dim 1, a copy."""
    return [
        {"allocate_tensor_on_device": {"as": "dst", "shape": dst_shape, **extra}},
        {"from_torch": {"as": "src", "shape": src_shape, "mesh_mapper": {"shard": 1}, **extra}},
        {"copy_host_to_device_tensor": {"src": "src", "dst": "dst"}},
    ]


@pytest.fixture(scope="module")
def seed():
    return run(load(SCENARIOS / "seed-uneven-copy.yaml"), "uniform-by-value")


@pytest.fixture(scope="module")
def mesh_32x32(tmp_path_factory):
    """1023 shards of a (1,1023,1,32) float32 row-major tensor copied into a uniform (1,1,1,32)
    allocation on a 32x32 mesh: under uniform-by-value device (31,31) is recorded but never written."""
    path = tmp_path_factory.mktemp("map") / "mesh-32x32.yaml"
    path.write_text(
        "meshspec: 1\n"
        "name: mesh-32x32\n"
        "mesh: [32, 32]\n"
        "steps:\n"
        "  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 1, 32], dtype: float32, layout: row_major}\n"
        "  - from_torch: {as: src, shape: [1, 1023, 1, 32], dtype: float32, layout: row_major, mesh_mapper: {shard: 1}}\n"
        "  - copy_host_to_device_tensor: {src: src, dst: dst}\n"
    )
    return run(load(path), "uniform-by-value")


# --------------------------------------------------------------------------- whole pictures

SEED_DST = """\
┌────────────────┬────────────────┬────────────────┬────────────────┐
│ (0,0)          │ (0,1)          │ (0,2)          │ (0,3)          │
│ [:, 0:1, :, :] │ [:, 1:2, :, :] │ [:, 2:3, :, :] │ [:, 3:4, :, :] │
│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │ ok             │ ok             │
├────────────────┼────────────────┼────────────────┼────────────────┤
│ (1,0)          │ (1,1)          │ (1,2)          │ (1,3)          │
│ [:, 4:5, :, :] │ [:, 5:6, :, :] │ [:, 6:7, :, :] │ -              │
│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │ ok             │ stale          │
└────────────────┴────────────────┴────────────────┴────────────────┘
"""


def test_seed_2x4_shows_the_stale_device(seed):
    assert render(map_renderable(tensor(seed, "dst"), seed.mesh, width=120)) == SEED_DST


def test_seed_host_tensor_leaves_the_device_without_a_shard_empty(seed):
    # the host tensor has 7 shards; (1,3) is not in its devices at all
    assert render(map_renderable(tensor(seed, "src"), seed.mesh, width=120)) == """\
┌────────────────┬────────────────┬────────────────┬────────────────┐
│ (0,0)          │ (0,1)          │ (0,2)          │ (0,3)          │
│ [:, 0:1, :, :] │ [:, 1:2, :, :] │ [:, 2:3, :, :] │ [:, 3:4, :, :] │
│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │ ok             │ ok             │
├────────────────┼────────────────┼────────────────┼────────────────┤
│ (1,0)          │ (1,1)          │ (1,2)          │ (1,3)          │
│ [:, 4:5, :, :] │ [:, 5:6, :, :] │ [:, 6:7, :, :] │ -              │
│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ -              │
│ ok             │ ok             │ ok             │ empty          │
└────────────────┴────────────────┴────────────────┴────────────────┘
"""


def test_seed_narrower_than_the_grid_is_compressed(seed):
    # the full grid is 4 * (14 + 3) + 1 = 69 columns wide
    assert render(map_renderable(tensor(seed, "dst"), seed.mesh, width=69), width=69) == SEED_DST
    assert render(map_renderable(tensor(seed, "dst"), seed.mesh, width=68), width=68) == """\
8 devices: 7 ok, 1 stale
      0123
row 0 ....
row 1 ...S
findings on 1 device:
  device  status  slice  recorded
  (1,3)   stale   -      1x1x32x32
"""


def test_n150_1x1():
    report = run_steps(copy_steps([1, 1, 32, 32], [1, 1, 32, 32]), "current", mesh="n150")
    # one device holds everything: no dim is split
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
┌──────────────┐
│ (0,0)        │
│ [:, :, :, :] │
│ 1x1x32x32    │
│ ok           │
└──────────────┘
"""


def test_galaxy_8x4_shows_the_stale_last_device():
    report = run(load(SCENARIOS / "galaxy-31-of-32.yaml"), "uniform-by-value")
    assert report.mesh == (8, 4)
    assert render(map_renderable(tensor(report, "weights"), report.mesh, width=120)) == """\
┌──────────────────┬──────────────────┬──────────────────┬──────────────────┐
│ (0,0)            │ (0,1)            │ (0,2)            │ (0,3)            │
│ [:, 0:1, :, :]   │ [:, 1:2, :, :]   │ [:, 2:3, :, :]   │ [:, 3:4, :, :]   │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (1,0)            │ (1,1)            │ (1,2)            │ (1,3)            │
│ [:, 4:5, :, :]   │ [:, 5:6, :, :]   │ [:, 6:7, :, :]   │ [:, 7:8, :, :]   │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (2,0)            │ (2,1)            │ (2,2)            │ (2,3)            │
│ [:, 8:9, :, :]   │ [:, 9:10, :, :]  │ [:, 10:11, :, :] │ [:, 11:12, :, :] │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (3,0)            │ (3,1)            │ (3,2)            │ (3,3)            │
│ [:, 12:13, :, :] │ [:, 13:14, :, :] │ [:, 14:15, :, :] │ [:, 15:16, :, :] │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (4,0)            │ (4,1)            │ (4,2)            │ (4,3)            │
│ [:, 16:17, :, :] │ [:, 17:18, :, :] │ [:, 18:19, :, :] │ [:, 19:20, :, :] │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (5,0)            │ (5,1)            │ (5,2)            │ (5,3)            │
│ [:, 20:21, :, :] │ [:, 21:22, :, :] │ [:, 22:23, :, :] │ [:, 23:24, :, :] │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (6,0)            │ (6,1)            │ (6,2)            │ (6,3)            │
│ [:, 24:25, :, :] │ [:, 25:26, :, :] │ [:, 26:27, :, :] │ [:, 27:28, :, :] │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ ok               │
├──────────────────┼──────────────────┼──────────────────┼──────────────────┤
│ (7,0)            │ (7,1)            │ (7,2)            │ (7,3)            │
│ [:, 28:29, :, :] │ [:, 29:30, :, :] │ [:, 30:31, :, :] │ -                │
│ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │ 1x1x64x64        │
│ ok               │ ok               │ ok               │ stale            │
└──────────────────┴──────────────────┴──────────────────┴──────────────────┘
"""


def test_32x32_is_compressed_with_merged_rows_and_the_stale_device_listed(mesh_32x32):
    text = render(map_renderable(tensor(mesh_32x32, "dst"), mesh_32x32.mesh, width=120))
    assert text == """\
1024 devices: 1023 ok, 1 stale
          0         10        20        30
          01234567890123456789012345678901
rows 0-30 ................................
row 31    ...............................S
findings on 1 device:
  device   status  slice  recorded
  (31,31)  stale   -      1x1x1x32
"""
    assert max(len(line) for line in text.splitlines()) <= 120


def test_32x32_host_tensor_without_a_shard_on_the_last_device(mesh_32x32):
    # empty is not a finding: no list under the grid
    assert render(map_renderable(tensor(mesh_32x32, "src"), mesh_32x32.mesh, width=120)) == """\
1024 devices: 1023 ok, 1 empty
          0         10        20        30
          01234567890123456789012345678901
rows 0-30 ................................
row 31    ..............................._
"""


def test_32x32_on_a_narrow_console_is_cut_into_column_bands(mesh_32x32):
    # room for the grid: 30 - len("rows 31-31 ") = 19 columns, so bands of 10
    text = render(map_renderable(tensor(mesh_32x32, "src"), mesh_32x32.mesh, width=30), width=30)
    assert text == """\
1024 devices: 1023 ok, 1 empty
cols 0-9
          0123456789
rows 0-31 ..........
cols 10-19
          0123456789
rows 0-31 ..........
cols 20-29
          0123456789
rows 0-31 ..........
cols 30-31
          01
rows 0-30 ..
row 31    ._
"""


def test_1d_mesh_is_one_row():
    report = run_steps(copy_steps([1, 3, 32, 32], [1, 1, 32, 32]), "uniform-by-value", mesh=[4])
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
┌────────────────┬────────────────┬────────────────┬────────────────┐
│ (0)            │ (1)            │ (2)            │ (3)            │
│ [:, 0:1, :, :] │ [:, 1:2, :, :] │ [:, 2:3, :, :] │ -              │
│ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │ ok             │ stale          │
└────────────────┴────────────────┴────────────────┴────────────────┘
"""


def test_1d_mesh_too_wide_is_one_compressed_row_without_labels():
    # 8 * (14 + 3) + 1 = 137 > 120
    report = run_steps(copy_steps([1, 7, 32, 32], [1, 1, 32, 32]), "uniform-by-value", mesh=[8])
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
8 devices: 7 ok, 1 stale
01234567
.......S
findings on 1 device:
  device  status  slice  recorded
  (7)     stale   -      1x1x32x32
"""


def test_3d_mesh_is_a_series_of_titled_planes():
    report = run_steps(copy_steps([1, 7, 32, 32], [1, 1, 32, 32]), "uniform-by-value", mesh=[2, 2, 2])
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
[0, :, :]
┌────────────────┬────────────────┐
│ (0,0,0)        │ (0,0,1)        │
│ [:, 0:1, :, :] │ [:, 1:2, :, :] │
│ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │
├────────────────┼────────────────┤
│ (0,1,0)        │ (0,1,1)        │
│ [:, 2:3, :, :] │ [:, 3:4, :, :] │
│ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │
└────────────────┴────────────────┘
[1, :, :]
┌────────────────┬────────────────┐
│ (1,0,0)        │ (1,0,1)        │
│ [:, 4:5, :, :] │ [:, 5:6, :, :] │
│ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ ok             │
├────────────────┼────────────────┤
│ (1,1,0)        │ (1,1,1)        │
│ [:, 6:7, :, :] │ -              │
│ 1x1x32x32      │ 1x1x32x32      │
│ ok             │ stale          │
└────────────────┴────────────────┘
"""


def test_3d_mesh_of_more_than_64_devices_is_compressed_plane_by_plane():
    report = run_steps(copy_steps([1, 71, 32, 32], [1, 1, 32, 32]), "uniform-by-value", mesh=[2, 6, 6])
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
72 devices: 71 ok, 1 stale
[0, :, :]
         012345
rows 0-5 ......
[1, :, :]
         012345
rows 0-4 ......
row 5    .....S
findings on 1 device:
  device   status  slice  recorded
  (1,5,5)  stale   -      1x1x32x32
"""


def test_every_status_word_is_spelled_out():
    # uniform-by-value: 9 shards of 2 over 8 devices fail at the mapper, after 5 were written
    report = run(load(SCENARIOS / "mapper-error-nine-over-eight.yaml"), "uniform-by-value")
    text = render(map_renderable(tensor(report, "dst"), report.mesh, width=120))
    assert text.splitlines()[-5:] == [
        "│ (1,0)          │ (1,1)          │ (1,2)          │ (1,3)          │",
        "│ [:, 8:9, :, :] │ -              │ -              │ -              │",
        "│ 1x2x32x32      │ 1x2x32x32      │ 1x2x32x32      │ 1x2x32x32      │",
        "│ partial        │ stale          │ stale          │ stale          │",
        "└────────────────┴────────────────┴────────────────┴────────────────┘",
    ]
    # unpopulated: the written devices keep no spec, so nothing is recorded
    report = run(load(SCENARIOS / "mapper-error-nine-over-eight.yaml"), "unpopulated")
    text = render(map_renderable(tensor(report, "dst"), report.mesh, width=120))
    assert text.splitlines()[-5:] == [
        "│ (1,0)          │ (1,1)          │ (1,2)          │ (1,3)          │",
        "│ [:, 8:9, :, :] │ -              │ -              │ -              │",
        "│ -              │ -              │ -              │ -              │",
        "│ missing_spec   │ empty          │ empty          │ empty          │",
        "└────────────────┴────────────────┴────────────────┴────────────────┘",
    ]


def test_shape_mismatch_shows_the_written_slice_not_the_recorded_one():
    report = run(load(SCENARIOS / "legacy-uneven-tail.yaml"), "uniform-by-value")
    # the host tensor was split on dim 2 into 32 + 31 rows; both shards start at 0 on dim 3
    assert render(map_renderable(tensor(report, "dst"), report.mesh, width=120)) == """\
┌──────────────────┬──────────────────┐
│ (0,0)            │ (0,1)            │
│ [:, :, 0:32, :]  │ [:, :, 32:63, :] │
│ 1x1x32x32        │ 1x1x32x32        │
│ ok               │ shape_mismatch   │
└──────────────────┴──────────────────┘
"""


def test_deallocated_tensor():
    report = run(load(SCENARIOS / "use-after-deallocate.yaml"), "current")
    assert render(map_renderable(tensor(report, "dev"), report.mesh, width=120)) == "deallocated: no device holds it\n"


def test_legend_lists_every_status_with_its_glyph():
    assert render(legend()) == (
        "legend:  . ok  S stale  P partial  L lost  M missing_spec  X shape_mismatch  _ empty  u uninitialized\n"
        "same background: same slice on several devices (replicas)\n"
    )


def test_colour_gives_replicas_one_background_and_is_only_a_help():
    report = run(load(SCENARIOS / "replicate-shard-2d.yaml"), "current")
    dev = tensor(report, "dev")
    coloured = render(map_renderable(dev, report.mesh, width=120), color=True)
    assert "\x1b[" in coloured
    assert "48;5;237m" in coloured  # grey23 behind the replicas of [:, 0:2, :, :]
    plain = render(map_renderable(dev, report.mesh, width=120))
    assert plain.splitlines()[2] == "│ [:, 0:2, :, :] │ [:, 2:4, :, :] │ [:, 4:6, :, :] │ [:, 6:8, :, :] │"
    assert plain.splitlines()[7] == plain.splitlines()[2]  # row 1 holds the same slices


# --------------------------------------------------------------------------- pure functions


def held(coord, offset, shape, status=Kind.OK) -> DeviceView:
    spec = TensorSpec(shape)
    return DeviceView(coord, True, spec, spec.buffer_bytes, spec, offset, status, 0, 1)


def not_held(coord, status=Kind.STALE) -> DeviceView:
    return DeviceView(coord, True, TensorSpec((1, 1, 32, 32)), 0, None, None, status, 0, None)


def test_whole_dims_split_dims_are_the_ones_that_differ():
    views = [held((0, i), (0, i, 0, 0), (1, 1, 32, 32)) for i in range(3)] + [not_held((0, 3))]
    assert whole_dims(views) == (True, False, True, True)


def test_whole_dims_replicated_tensor_has_no_split_dim():
    views = [held((0, i), (0, 0, 0, 0), (1, 2, 32, 32)) for i in range(4)]
    assert whole_dims(views) == (True, True, True, True)
    assert slice_text((0, 0, 0, 0), (1, 2, 32, 32), whole_dims(views)) == "[:, :, :, :]"


def test_whole_dims_equal_offsets_but_uneven_sizes_are_split():
    views = [held((0, 0), (0, 0), (2, 32)), held((0, 1), (0, 0), (1, 32))]
    assert whole_dims(views) == (False, True)
    assert [slice_text(v.offset, v.written_spec.shape, whole_dims(views)) for v in views] == ["[0:2, :]", "[0:1, :]"]


def test_whole_dims_nothing_held():
    assert whole_dims([not_held((0, 0))]) is None
    assert whole_dims([]) is None


def test_slice_text():
    whole = (True, False, True, True)
    assert slice_text((0, 3, 0, 0), (1, 1, 32, 32), whole) == "[:, 3:4, :, :]"
    assert slice_text((0, 30, 0, 0), (1, 1, 64, 64), whole) == "[:, 30:31, :, :]"
    assert slice_text((0, 0, 32, 0), (1, 1, 31, 32), (True, True, False, True)) == "[:, :, 32:63, :]"
    assert slice_text(None, None, whole) == "-"
    assert slice_text((0, 2), (1, 2), None) == "[0:1, 2:4]"  # no rule known: every dim spelled out


def test_cells_of_fills_devices_missing_from_a_host_tensor(seed):
    cells = cells_of(tensor(seed, "src"), seed.mesh)
    assert len(cells) == 8
    assert cells[(1, 3)] == Cell((1, 3), "-", "-", Kind.EMPTY)
    assert cells[(0, 3)] == Cell((0, 3), "[:, 3:4, :, :]", "1x1x32x32", Kind.OK)
    assert cells_of(tensor(seed, "dst"), seed.mesh)[(1, 3)] == Cell((1, 3), "-", "1x1x32x32", Kind.STALE)


def test_replica_tones_go_to_slices_held_more_than_once_in_first_seen_order():
    report = run(load(SCENARIOS / "replicate-shard-2d.yaml"), "current")
    cells = cells_of(tensor(report, "dev"), report.mesh)
    assert replica_tones(cells.values()) == {
        "[:, 0:2, :, :]": "grey23",
        "[:, 2:4, :, :]": "navy_blue",
        "[:, 4:6, :, :]": "turquoise4",
        "[:, 6:8, :, :]": "dodger_blue3",
    }
    unique = [Cell((i,), f"[{i}:{i + 1}]", "-", Kind.OK) for i in range(3)] + [Cell((3,), "-", "-", Kind.STALE)]
    assert replica_tones(unique) == {}  # sharded, nothing replicated; "-" is no slice
    many = [Cell((i,), f"[{i % 5}:{i % 5 + 1}]", "-", Kind.OK) for i in range(10)]
    tones = replica_tones(many, ("a", "b"))
    assert list(tones.values()) == ["a", "b", "a", "b", "a"]  # tones cycle


def test_glyphs_one_per_status_and_distinct():
    assert set(GLYPHS) == set(STATUSES)
    assert GLYPHS == {
        Kind.OK: ".",
        Kind.STALE: "S",
        Kind.PARTIAL: "P",
        Kind.LOST: "L",
        Kind.MISSING_SPEC: "M",
        Kind.SHAPE_MISMATCH: "X",
        Kind.EMPTY: "_",
        Kind.UNINITIALIZED: "u",
    }
    assert len(set(GLYPHS.values())) == len(GLYPHS)
    assert len(REPLICA_TONES) == len(set(REPLICA_TONES))


def test_merge_rows_merges_only_consecutive_identical_rows():
    assert merge_rows([]) == []
    assert merge_rows(["."]) == [(0, 0, ".")]
    assert merge_rows(["..", "..", "..", ".S", "..", ".."]) == [(0, 2, ".."), (3, 3, ".S"), (4, 5, "..")]
    assert merge_rows(["a", "b", "a"]) == [(0, 0, "a"), (1, 1, "b"), (2, 2, "a")]


def test_row_label():
    assert row_label(31, 31) == "row 31"
    assert row_label(0, 30) == "rows 0-30"


def test_ruler():
    assert ruler(0, 8) == ["01234567"]
    assert ruler(0, 10) == ["0123456789"]
    assert ruler(0, 11) == ["0         10", "01234567890"]
    assert ruler(90, 105) == ["90        100", "012345678901234"]


def test_bands():
    assert bands(32, 109) == [(0, 32)]
    assert bands(32, 19) == [(0, 10), (10, 20), (20, 30), (30, 32)]
    assert bands(1024, 120) == [(s, min(s + 110, 1024)) for s in range(0, 1024, 110)]
    assert bands(12, 12) == [(0, 12)]  # the ruler "0         10" is 12 wide
    assert bands(12, 11) == [(0, 10), (10, 12)]


def test_planes():
    assert planes((3,)) == [map_module.Plane("", (((0,), (1,), (2,)),))]
    assert planes((1, 2)) == [map_module.Plane("", (((0, 0), (0, 1)),))]
    assert [p.title for p in planes((2, 1, 1, 2))] == ["[0, 0, :, :]", "[1, 0, :, :]"]
    assert planes((2, 2, 2))[1].rows == (((1, 0, 0), (1, 0, 1)), ((1, 1, 0), (1, 1, 1)))


def test_fits_full_threshold():
    cells = [Cell((0, i), "[:, 0:1, :, :]", "1x1x32x32", Kind.OK) for i in range(4)]
    assert fits_full((2, 4), cells, 69)
    assert not fits_full((2, 4), cells, 68)
    assert fits_full((8, 8), cells, 200)
    assert not fits_full((8, 9), cells, 1000)  # more than 64 devices


def test_finding_list_is_truncated_with_a_count():
    cells = {(i,): Cell((i,), "-", "1x1x32x32", Kind.STALE) for i in range(12)}
    found, more = finding_rows(cells.values())
    assert [c.coord for c in found] == [(i,) for i in range(10)] and more == 2
    lines = [line.text for line in compressed_lines(cells, (12,), 120)]
    assert lines[:3] == ["12 devices: 12 stale", "0         10", "012345678901"]
    assert lines[3] == "SSSSSSSSSSSS"
    assert lines[4:7] == ["findings on 12 devices:", "  device  status  slice  recorded", "  (0)     stale   -      1x1x32x32"]
    assert lines[-2:] == ["  (9)     stale   -      1x1x32x32", "  ... and 2 more"]
    assert len(lines) == 4 + 2 + 10 + 1


def test_doctests():
    assert doctest.testmod(map_module).failed == 0


# -- a tensor's own grid: submeshes and reshapes (docs/semantics.md section 9) --------------------
def _map_text(report) -> str:
    from meshspec.render import render as render_report
    from meshspec.render.options import Format, Options, View

    return render_report([report], Format.TABLE, Options(view=View.MAP, color=False, width=120))


def test_a_submesh_tensor_is_drawn_on_its_submesh_and_says_where_that_lies():
    # inner is parent devices (1,2) (1,3): d's two devices are the submesh's (0,0) (0,1)
    report = run_steps([
        {"create_submeshes": {"shape": [1, 4], "as": "subs"}},
        {"create_submesh": {"mesh_device": "subs[1]", "shape": [1, 2], "offset": [0, 2], "as": "inner"}},
        {"from_torch": {"as": "s", "shape": [1, 2, 32, 32], "mesh_mapper": {"ShardTensorToMesh": {"dim": 1, "mesh_device": "inner"}}}},
        {"to_device": {"src": "s", "as": "d", "device": "inner"}},
    ])
    text = _map_text(report)
    title = next(line for line in text.splitlines() if line.startswith("d  device"))
    assert "on inner: 1x2 at (1,2) of mesh_device" in title
    d = tensor(report, "d")
    assert d.grid == (1, 2)
    assert "empty" not in text.split(title, 1)[1].split("legend")[0]  # no cell of the parent's 2x4 grid
    meshes = {m["name"]: m for m in report.to_json()["meshes"]}
    assert meshes["inner"] == {"name": "inner", "shape": [1, 2], "parent": "subs[1]", "offset": [0, 2], "at": [1, 2],
                              "device_ids": [3, 7]}  # the T3K row [5, 1, 3, 7], its last two (section 17)


def test_after_a_reshape_a_tensor_is_drawn_on_the_shape_its_buffer_was_made_on():
    report = run_steps([
        {"MeshDevice.reshape": {"shape": [8]}},
        {"from_torch": {"as": "src", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}},
        {"to_device": {"src": "src", "as": "d"}},
        {"MeshDevice.reshape": {"shape": [4, 2]}},
    ])
    text = _map_text(report)
    assert "mesh t3k (2x4, reshaped to 4x2)" in text.splitlines()[0]
    assert tensor(report, "d").grid == (8,)
    assert report.to_json()["meshes"][0] == {"name": "mesh_device", "shape": [4, 2], "parent": None, "offset": None, "at": None,
                                             "device_ids": [4, 5, 0, 1, 2, 3, 6, 7]}  # a T3K opened 4x2 (section 17)
    assert "8 devices: 8 ok" in text


def test_a_mesh_too_big_for_the_full_grid_never_measures_its_cells(mesh_32x32, monkeypatch):
    """The full grid is for at most MAX_FULL_DEVICES devices: a larger mesh's map does not measure
    the text of every cell (a map per part of a 32x32 get_device_tensors measured a million, 5.5 s;
    found by bench/fuzz.py), and each map starts from the mesh's empty cells, made once."""
    map_module._empty_cells.cache_clear()
    monkeypatch.setattr(map_module, "cell_width", lambda cells: pytest.fail("measured the cells of a 1,024-device map"))
    first = render(map_renderable(tensor(mesh_32x32, "dst"), mesh_32x32.mesh, width=120))
    render(map_renderable(tensor(mesh_32x32, "src"), mesh_32x32.mesh, width=120))
    assert "1 stale" in first
    info = map_module._empty_cells.cache_info()
    assert (info.misses, info.hits) == (1, 1)
    assert map_module.fits_full(mesh_32x32.mesh, [], 10_000) is False
