"""Collectives (meshspec/sim/ops/collectives.py; docs/semantics.md section 12): values from each
group's buffers, labels by the CCL helpers of 0.81.1 (ccl_topology_utils.cpp @ 0b4d561a)."""

from pathlib import Path

import numpy as np

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.spec import DataType
from meshspec.sim.values import arange, to_dtype

T3K = "meshspec: 1\nname: c\nmesh: t3k\nsteps:\n"


def _run(steps: str, profile: str = "current"):
    report = run(parse(T3K + steps, Path("c.yaml")), profile).to_json()
    return report, {t["name"]: t for t in report["tensors"]}


def test_reduce_scatter_gives_each_device_its_piece_of_the_groups_sum():
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 128], mesh_mapper: replicate, device: mesh_device}\n"
             "  - reduce_scatter: {tensor: x, dim: 3, cluster_axis: 1, as: rs}\n"
             "  - get_device_tensors: {tensor: rs, as: p}\n")
    report, t = _run(steps)
    assert report["error"] is None and report["findings"] == []
    assert t["rs"]["topology"]["placements"] == ["R", {"shard": 3}]  # the scattered axis takes Shard(3)
    x = arange(32 * 128, DataType.BFLOAT16).astype(np.float64).reshape(32, 128)
    # device (1, 2) is the third of its row: columns 64..95 of four copies summed
    want = to_dtype(4 * x[:, 64:96], DataType.BFLOAT16)
    assert t["p[6]"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 32]
    assert t["p[6]"]["values"]["first"][:3] == [float(v) for v in want.reshape(-1)[:3]]


def test_reduce_scatter_of_matmul_partial_sums_is_an_honest_shard():
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {ShardTensor2dMesh: {dims: [null, 3], mesh_shape: [2, 4]}},"
             " device: mesh_device}\n"
             "  - from_torch: {as: w, shape: [1, 1, 256, 128], mesh_mapper: {ShardTensor2dMesh: {dims: [null, 2], mesh_shape: [2, 4]}},"
             " device: mesh_device}\n"
             "  - matmul: {a: x, b: w, as: y}\n"
             "  - reduce_scatter: {tensor: y, dim: 3, cluster_axis: 1, as: rs}\n")
    for profile in ("current", "reference"):
        report, t = _run(steps, profile)
        assert [f["tensor"] for f in report["findings"]] == (["y"] if profile == "current" else [])
        assert t["rs"]["topology"]["placements"] == ["R", {"shard": 3}]


def test_a_whole_mesh_gather_of_a_1d_label_stays_1d():
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
             "  - all_gather: {tensor: x, dim: 3, as: g}\n")
    report, t = _run(steps)
    assert report["findings"] == []
    assert t["g"]["topology"]["distribution_shape"] == [8] and t["g"]["topology"]["placements"] == ["R"]


def test_gathering_the_outer_axis_of_a_1d_shard_interleaves_and_the_kept_label_is_judged():
    # device (r, c) holds piece 4r + c; gathering along axis 0 gives (c, 4 + c): not the whole,
    # not a shard of it. 0.81.1 warns and keeps the legacy label (8) [R].
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
             "  - all_gather: {tensor: x, dim: 3, cluster_axis: 0, as: g}\n"
             "  - get_device_tensors: {tensor: g, as: p}\n")
    report, t = _run(steps)
    stale = [f for f in report["findings"] if f["kind"] == "topology_stale"]
    assert [f["tensor"] for f in stale] == ["g"] and "would interleave" in stale[0]["message"]
    assert t["g"]["topology"]["placements"] == ["R"]
    assert t["p[1]"]["values"]["first"][:1] == [32.0] and t["p[1]"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 64]


def test_all_gather_async_of_tile_padded_shards_gathers_the_padding_in_its_padded_era():
    # docs/semantics.md section 12 (padding): each device holds 12 of dim 3, padded to 32 in TILE
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 96], mesh_mapper: {shard: 3}, device: mesh_device}\n"
             "  - all_gather_async: {tensor: x, dim: 3, as: g}\n  - get_device_tensors: {tensor: g, as: p}\n")
    report, t = _run(steps, "ccl-padded")
    assert [(f["kind"], f["tensor"]) for f in report["findings"]] == [("padding_gathered", "g")]
    assert "[1, 1, 32, 256], but the tensor gathered is [1, 1, 32, 96]" in report["findings"][0]["message"]
    first = t["p[3]"]["values"]["first"]
    assert first[:12] == [float(v) for v in range(12)] and first[12:16] == [0.0] * 4  # shard 0, then its padding
    for profile in ("current", "reference"):  # unpadded: no finding, and no false one from the padding
        report, t = _run(steps, profile)
        assert report["findings"] == [] and t["g"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 96]


def test_a_gather_of_uneven_shards_reads_every_device_as_the_tensors_spec():
    # the legacy mapper (uniform-by-value) splits 100 as 13 x 7 + 9; the gather's output spec is the
    # tensor's spec (the first shard's, 13 wide) with the gather dim times the ring, and every device
    # is read as that spec (all_gather_device_operation.cpp @ 00555207; docs/semantics.md section 12):
    # 104 wide, the last device's 4 columns past its 9 the tile padding it holds
    steps = ("  - from_torch: {as: x, shape: [1, 1, 32, 100], mesh_mapper: {shard: 3}, device: mesh_device}\n"
             "  - all_gather: {tensor: x, dim: 3, as: g}\n")
    report, t = _run(steps, "uniform-by-value")
    assert report["error"] is None and t["g"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 104]
    report, t = _run(steps + "  - all_reduce: {tensor: x, as: r}\n", "uniform-by-value")
    assert report["error"] is None and t["r"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 13]


def test_a_scatter_along_the_outer_axis_of_an_inner_shard_is_no_row_major_label(tmp_path):
    # helper-12 defect 4: the pieces run in column-major device order; the helpers' collapsed label
    # reads row-major: topology_stale under current, no claim under reference
    steps = ("  - from_torch: {as: a, shape: [1, 1, 32, 64], mesh_mapper: {ShardTensor2dMesh: {mesh_shape: [2, 4], dims: [3, null]}},"
             " device: mesh_device}\n"
             "  - from_torch: {as: b, shape: [1, 1, 64, 256], mesh_mapper: {ShardTensor2dMesh: {mesh_shape: [2, 4], dims: [2, 3]}},"
             " device: mesh_device}\n"
             "  - matmul: {a: a, b: b, as: m}\n  - reduce_scatter: {tensor: m, dim: 3, cluster_axis: 0, as: rs}\n")
    report, _ = _run(steps)
    rs = [f for f in report["findings"] if f["tensor"] == "rs"]
    assert len(rs) == 1 and "column-major" in rs[0]["message"]
    report, _ = _run(steps, "reference")
    assert report["findings"] == []


def test_a_whole_mesh_collective_works_out_its_group_once_and_its_members_share_it():
    # Over the whole mesh a group is every device: its spec, result and sources are the group's,
    # shared by its members (per member, 16x16 was 65,536 source entries and 23 s at 64x64).
    # Columns 1..15 of `tokens` are never written (uniform-by-value records all 256): every output
    # device read them, and its stale_input names the first of its group's lying sources, (0,1).
    steps = ("  - allocate_tensor_on_device: {as: tokens, shape: [1, 1, 32, 32]}\n"
             "  - from_torch: {as: b, shape: [1, 16, 32, 32], mesh_mapper: {placements: [{shard: 1}, replicate], mesh_shape: [16, 1]}}\n"
             "  - copy_host_to_device_tensor: {src: b, dst: tokens}\n"
             "  - all_gather: {tensor: tokens, dim: 1, as: gat}\n")
    text = "meshspec: 1\nname: c\nmesh: [16, 16]\ndata: none\nsteps:\n" + steps
    from meshspec.runner import execute
    from meshspec.sim.profiles import get_profile
    from meshspec.sim.runtime import Runtime

    scenario = parse(text, Path("c.yaml"))
    rt = Runtime(scenario.mesh_shape, get_profile("uniform-by-value"), scenario.folder)
    for step in scenario.steps:
        execute(rt, step)
    rec, reads = rt.tensors["gat"].record, rt.tensors["gat"].provenance.reads
    assert len({id(s) for s in reads.values()}) == 1 and len(next(iter(reads.values()))) == 256
    assert len({id(s) for s in rec.specs.values()}) == 1 and rec.spec.shape == (1, 16 * 16, 32, 32)
    report = run(scenario, "uniform-by-value")
    inputs = [f for f in report.findings if f.kind.value == "stale_input"]
    assert len(inputs) == 256 and {f.device for f in inputs} == {(r, c) for r in range(16) for c in range(16)}
    assert all("read tokens (0,1), which had never been written since allocation" in f.message for f in inputs)
