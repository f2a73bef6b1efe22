"""slice, concat, pad, view, tilize/untilize (meshspec/sim/ops/slicing.py, views.py, elementwise.py;
docs/semantics.md section 12): each device's own tensor cut, joined or padded with numpy; the
no-op forms are their input itself (tests/golden/ttnn_0_81_1_views.json)."""

from pathlib import Path

import numpy as np

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.spec import DataType
from meshspec.sim.values import arange

HEAD = ("meshspec: 1\nname: s\nmesh: [1, 4]\nsteps:\n"
        "  - from_torch: {as: x, shape: [1, 1, 32, 128], layout: row_major, mesh_mapper: {shard: 3}, device: mesh_device}\n")
X = arange(32 * 128, DataType.BFLOAT16).astype(np.float64).reshape(32, 128)


def _run(steps: str, profile: str = "current"):
    report = run(parse(HEAD + steps, Path("s.yaml")), profile).to_json()
    return report, {t["name"]: t for t in report["tensors"]}


def test_slice_cuts_every_devices_own_shard():
    report, t = _run("  - slice: {tensor: x, starts: [0, 0, 1, 8], ends: [1, 1, 32, -8], steps: [1, 1, 2, 1], as: s}\n"
                     "  - get_device_tensors: {tensor: s, as: p}\n")
    assert report["error"] is None and report["findings"] == []
    assert t["s"]["devices"][0]["spec"]["shape"] == [1, 1, 16, 16]
    want = X[1::2, 32 * 2 + 8 : 32 * 2 + 24]  # device (0,2)'s shard, rows 1, 3, ..., columns 8..23
    assert t["p[2]"]["values"]["first"][:4] == [float(v) for v in want.reshape(-1)[:4]]
    assert t["s"]["topology"]["placements"] == [{"shard": 3}]


def test_concat_joins_each_devices_tensors_and_takes_the_union_of_labels():
    report, t = _run("  - from_torch: {as: r, shape: [1, 1, 32, 32], layout: row_major, mesh_mapper: replicate, device: mesh_device}\n"
                     "  - concat: {tensors: [x, r], dim: 3, as: c}\n  - get_device_tensors: {tensor: c, as: p}\n")
    assert t["c"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 64]
    assert t["c"]["topology"]["placements"] == [{"shard": 3}]  # the union: sharded, as x is
    row = t["p[1]"]["values"]["first"]
    assert row[:2] == [32.0, 33.0]  # x's shard on (0,1) first
    # a shard beside a replica: no layout describes the whole, and meshspec claims nothing about it
    assert report["findings"] == []


def test_pad_pads_the_last_dims_of_every_device_with_the_value():
    report, t = _run("  - pad: {tensor: x, padding: [[0, 0], [2, 1]], value: -1, as: q}\n  - get_device_tensors: {tensor: q, as: p}\n")
    assert t["q"]["devices"][0]["spec"]["shape"] == [1, 1, 32, 35]
    assert t["p[3]"]["values"]["first"][:4] == [-1.0, -1.0, 96.0, 97.0]


def test_the_no_op_forms_are_the_input_itself():
    report, t = _run("  - slice: {tensor: x, starts: [0, 0, 0, 0], ends: [1, 1, 32, 32], as: s}\n"
                     "  - pad: {tensor: x, padding: [[0, 0]], as: q}\n  - concat: {tensors: [x], dim: 0, as: c}\n"
                     "  - to_layout: {tensor: x, layout: row_major, as: l}\n  - deallocate: {tensor: s}\n")
    assert {t[n]["storage"] for n in "xsqcl"} == {"deallocated"}  # one tensor under five names


def test_a_row_major_view_regroups_rows_without_a_shape_mismatch():
    steps = ("  - view: {tensor: x, shape: [2, 16, 32], as: v}\n  - tilize: {tensor: v, as: tv}\n"
             "  - untilize: {tensor: tv, as: back}\n  - untilize: {tensor: back, as: again}\n")
    assert _run(steps, "reference")[0]["findings"] == []
    report, t = _run(steps)
    # no shape_mismatch: only the label, Shard(3) kept on a rank-3 tensor, and the copies made from it
    assert {(f["kind"], f["tensor"]) for f in report["findings"]} == {("topology_stale", n) for n in ("v", "tv", "back")}
    assert t["v"]["address"] == t["x"]["address"]
    assert report["error"]["op"] == "untilize" and report["error"]["message"] == "Can only untilize tile major data"
    assert t["tv"]["devices"][0]["spec"]["layout"] == "tile"


def test_reading_a_view_back_is_no_data_mismatch():
    # helper-12 defect 1: the readback compared shapes, not pages (docs/semantics.md section 12, view)
    head = ("meshspec: 1\nname: v\nmesh: t3k\nsteps:\n"
            "  - from_torch: {as: y, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n")
    steps = ("  - squeeze: {tensor: y, dim: 0, as: v}\n  - to_torch: {tensor: v, mesh_composer: {concat: 2}, as: h}\n"
             "  - view: {tensor: y, shape: [1, 32, 32], as: w}\n  - cpu: {tensor: w, as: hw}\n")
    for data in (True, False):
        report = run(parse(head + steps, Path("v.yaml")), "reference", with_data=data).to_json()
        assert report["findings"] == [] and report["error"] is None


def test_a_view_merging_leading_dims_keeps_the_shard_on_the_moved_last_dim():
    # helper-12 defect 5: (1, 2, 40, 32) viewed as (80, 32): the shard of the last dim is dim 1 now
    text = ("meshspec: 1\nname: v\nmesh: t3k\nsteps:\n"
            "  - from_torch: {as: y, shape: [1, 2, 40, 256], layout: row_major, mesh_mapper: {shard: 3}, device: mesh_device}\n"
            "  - view: {tensor: y, shape: [80, 32], as: v2}\n  - view: {tensor: y, shape: [1, 80, 32], as: v3}\n")
    ref = {t["name"]: t["topology"]["placements"] for t in run(parse(text, Path("v.yaml")), "reference").to_json()["tensors"]}
    assert ref["v2"] == [{"shard": 1}] and ref["v3"] == [{"shard": 2}]
    stale = {f["tensor"] for f in run(parse(text, Path("v.yaml")), "current").to_json()["findings"]}
    assert stale == {"v2", "v3"}  # 0.81.1 keeps PlacementShard(3) (the mock: ttnn.view(y, [64, 32]))


def _padded(dtype: str, value: str):
    text = (
        "meshspec: 1\nmesh: t3k\nsteps:\n"
        f"  - from_torch: {{as: s, shape: [1, 8, 32, 32], dtype: {dtype}, mesh_mapper: {{shard: 1}}}}\n"
        "  - to_device: {src: s, as: d}\n"
        f"  - pad: {{tensor: d, padding: [[0, 32]], value: {value}, as: o}}\n"
        "  - to_torch: {tensor: o, mesh_composer: {concat: 1}, as: out}\n"
    )
    return run(parse(text, "pad.yaml"))


def test_a_pad_value_the_dtype_cannot_hold_stops_meshspec_not_a_crash():
    # docs/semantics.md section 12: the binding takes a C++ float; what the kernel writes for a value
    # the tensor's dtype cannot hold is not known, so the run stops there as meshspec's own limit
    for dtype, value in (("int32", "2147483648"), ("uint32", "-1"), ("float32", str(2**128))):
        report = _padded(dtype, value)
        assert report.error is not None and report.error.source == "meshspec" and report.error.step == 2, dtype
        assert report.error.message.startswith(f"pad value {value} is outside what {dtype} holds")


def test_a_large_integer_pad_value_pads_a_float_tensor_as_a_float():
    # an integer past 2**64 was no number numpy fills a bfloat16 array with (TypeError, exit 3)
    report = _padded("bfloat16", "99999999999999999999999999")
    assert report.error is None
    import hashlib

    import ml_dtypes

    out = next(t for t in report.tensors if t.name == "out")
    want = np.pad(arange(8 * 32 * 32, DataType.BFLOAT16).reshape(1, 8, 32, 32), [(0, 0)] * 3 + [(0, 32)],
                  constant_values=np.array(1e26, dtype=np.float32).astype(ml_dtypes.bfloat16))  # each row, then the padding
    assert out.values["sha256"] == hashlib.sha256(want.tobytes()).hexdigest()
    report = _padded("int32", "2147483647")  # the largest int32 fits
    assert report.error is None
