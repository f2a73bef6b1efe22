"""ttnn.all_gather under the ``window`` era (rule gather_padding, issue #21964; docs/semantics.md
section 12) with the groups the ``ccl_devices`` rule forms: a group cut to the tensor's devices
gathers as many shards as it holds (one shard: the logical gather), and the padding a window
gathers is the tile padding of the gather dim only, the output being cut to the logical extent in
every other dim. A tester's report: a window gather over a group cut to one device was an internal
error (``cannot reshape array of size 900 into shape (1,1,30,16)``), and the message named
"dim 2: 1 of every 32" padding the output does not hold."""

from pathlib import Path

import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse

ROW_MAJOR_SHARDS = {"memory_layout": "height_sharded", "buffer_type": "l1", "shard_spec": {"grid": [[[0, 0], [1, 1]]], "shape": [16, 30]}}


def _run(steps, mesh=None, **rules):
    text = yaml.safe_dump({"meshspec": 1, "name": "gather-window", "mesh": mesh or {"system": "n300", "shape": [1, 2]},
                           "profiles": {"era": {"base": "current", "gather_padding": "window", **rules}}, "steps": steps}, sort_keys=False)
    return run(parse(text, Path("gather-window.yaml")), "era")


def _tensor(report, name):
    return next(t.to_json() for t in report.tensors if t.name == name)


def test_a_window_over_a_group_cut_to_one_device_is_the_logical_gather():
    """The tester's scenario (ROW_MAJOR height shards 30 wide on a 16-wide tensor, one shard on two
    devices, ccl_devices: tensor), and the same tensor in TILE: each group holds one shard."""
    for layout, memory in (("row_major", ROW_MAJOR_SHARDS), ("tile", None)):
        steps = [{"from_torch": {"as": "h", "shape": [1, 1, 30, 16], "layout": layout, "mesh_mapper": {"shard": 1}}},
                 {"to_device": {"src": "h", "as": "x", **({"memory_config": memory} if memory else {})}},
                 {"all_gather": {"tensor": "x", "dim": -1, "cluster_axis": 1, "as": "g0"}},
                 {"get_device_tensors": {"tensor": "g0", "as": "parts"}}]
        report = _run(steps, ccl_devices="tensor")
        assert report.error is None, report.error
        assert _tensor(report, "g0")["devices"][0]["spec"]["shape"] == [1, 1, 30, 16]
        assert "padding_gathered" not in {f.kind.value for f in report.findings}


def test_row_major_shard_width_padding_is_not_tile_padding():
    """Over both devices (ccl_devices: mesh) the ROW_MAJOR rows padded to their 30-wide shards are
    gathered as their logical 16 columns each (the window rule is about tiles; meshspec's choice)."""
    two_cores = {**ROW_MAJOR_SHARDS, "shard_spec": {"grid": [[[0, 0], [1, 0]]], "shape": [16, 30]}}
    steps = [{"from_torch": {"as": "h", "shape": [1, 1, 30, 32], "layout": "row_major", "mesh_mapper": {"shard": 3}}},
             {"to_device": {"src": "h", "as": "x", "memory_config": two_cores}},
             {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "g0"}},
             {"get_device_tensors": {"tensor": "g0", "as": "parts"}},
             {"from_torch": {"as": "whole", "shape": [1, 1, 30, 32], "layout": "row_major"}}]
    report = _run(steps)
    assert report.error is None, report.error
    assert not report.findings, [f.message for f in report.findings]
    assert _tensor(report, "g0")["devices"][0]["spec"]["shape"] == [1, 1, 30, 32]


def test_groups_of_two_sizes_gather_their_own_shards():
    """Three shards on a 2x2 mesh, groups along axis 1 cut to them: {(0,0), (0,1)} gathers two
    shards through the window (padding_gathered), {(1,0)} its one shard whole."""
    steps = [{"from_torch": {"as": "x", "shape": [1, 3, 32, 16], "mesh_mapper": {"shard": 1}, "device": "mesh_device"}},
             {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "g"}},
             {"get_device_tensors": {"tensor": "g", "as": "parts"}}]
    report = _run(steps, mesh={"system": "t3k", "shape": [2, 2]}, ccl_devices="tensor")
    assert report.error is None, report.error
    shapes = {tuple(d["coord"]): d["spec"]["shape"] for d in _tensor(report, "g")["devices"] if d["spec"]}
    assert shapes[(0, 0)] == shapes[(0, 1)] == [1, 1, 32, 32] and shapes[(1, 0)] == [1, 1, 32, 16]
    message = next(f.message for f in report.findings if f.kind.value == "padding_gathered")
    assert "which hold 1, 2 shards" in message and "only the first 1 of the 2 shards" in message


def test_the_window_message_names_only_the_gather_dim_padding():
    """(1, 1, 1, 16) sharded on dim 3 over 1x2 (the bundled all-gather-padding-window): each shard
    is 1 of 32 rows and 8 of 32 columns; the output is cut to 1 row, so only dim 3's padding is in it."""
    steps = [{"from_torch": {"as": "x", "shape": [1, 1, 1, 16], "mesh_mapper": {"shard": 3}, "device": "mesh_device"}},
             {"all_gather": {"tensor": "x", "dim": 3, "cluster_axis": 1, "as": "g"}}]
    report = _run(steps)
    message = next(f.message for f in report.findings if f.kind.value == "padding_gathered")
    assert "8 of every 32 is the shard" in message
    assert "dim 2" not in message and "1 of every 32" not in message
