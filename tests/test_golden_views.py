"""ttnn 0.81.1's metadata-only device ops, replayed (tests/golden/ttnn_0_81_1_views.json, recorded in
the mock by tools/golden/record_views.py; docs/semantics.md section 12): squeeze, unsqueeze,
reshape and view are views at the input's address with its label verbatim; slice, concat, pad and
to_layout with nothing to do return their input as it is; reallocate of a tensor already lowest
frees the input and comes back at the same address labelled as a fresh allocation; and each
refusal starts with the library's own words."""

import json
from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_views.json").read_text())["views"]


#: The recorder's further tensors (tools/golden/record_views.py EXTRA), by name: their global shapes.
EXTRA = {"z": [1, 1, 64, 512], "w": [1, 2, 32, 256], "v": [1, 3, 32, 256], "p": [2, 2, 32, 256], "q": [3, 3, 32, 256]}


def _scenario(case) -> str:
    args = {"tensor": "x"} | case["args"] | {"as": "out"}
    if case["op"] in ("concat", "add", "sub", "mul"):
        del args["tensor"]
    extra = "".join(f"  - from_torch: {{as: {n}, shape: {s}, mesh_mapper: {{shard: 3}}, device: mesh_device}}\n"
                    for n, s in EXTRA.items() if n in case["args"].values())
    return ("meshspec: 1\nname: v\nmesh: t3k\nsteps:\n"
            f"  - from_torch: {{as: x, shape: [1, 1, 32, 256], layout: {case['layout']}, mesh_mapper: {{shard: 3}}, device: mesh_device}}\n"
            "  - from_torch: {as: y, shape: [1, 1, 32, 256], dtype: float32, mesh_mapper: {shard: 3}, device: mesh_device}\n"
            + extra + f"  - {case['op']}: {yaml.safe_dump(args, default_flow_style=True, width=1000).strip()}\n")


@pytest.mark.parametrize("case", [c for c in GOLDEN if c["error"] is None], ids=lambda c: c["name"])
def test_metadata_only_ops_match_the_real_library(case):
    report = run(parse(_scenario(case), Path("v.yaml")), "current").to_json()
    assert report["error"] is None
    t = {t["name"]: t for t in report["tensors"]}
    out = t["out"]
    assert out["address"] == case["address"] and t["x"]["address"] in (case["input_address"], None)
    assert out["devices"][0]["spec"]["shape"] == case["shape"]
    assert out["devices"][0]["spec"]["layout"] == case["layout_out"]
    assert out["topology"]["placements"] == case["placements"]
    assert out["topology"]["distribution_shape"] == case["distribution_shape"]
    assert (t["x"]["storage"] == "device") == case["input_allocated"]
    assert [d["coord"] for d in out["devices"] if d["recorded"]] == case["device_coords"]


@pytest.mark.parametrize("case", [c for c in GOLDEN if c["error"] is not None], ids=lambda c: c["name"])
def test_refusals_start_with_the_real_librarys_words(case):
    report = run(parse(_scenario(case), Path("v.yaml")), "current").to_json()
    assert report["error"] is not None and report["error"]["op"] == case["op"]
    assert report["error"]["message"].startswith(case["error"]), report["error"]["message"]


FREES = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_views.json").read_text())["deallocate"]


@pytest.mark.parametrize("case", FREES, ids=lambda c: c["name"])
def test_deallocate_without_force_leaves_a_shared_buffer_as_the_real_library_does(case):
    steps = ("meshspec: 1\nname: d\nmesh: t3k\nsteps:\n"
             "  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
             + ("  - reshape: {tensor: x, shape: [1, 32, 32], as: v}\n" if case["of_view"] else "")
             + f"  - deallocate: {{tensor: {'v' if case['of_view'] else 'x'}, force: {str(case['force']).lower()}}}\n")
    t = {t["name"]: t for t in run(parse(steps, Path("d.yaml")), "current").to_json()["tensors"]}
    assert (t["x"]["storage"] == "device") == case["input_allocated"]
    if case["of_view"]:
        assert (t["v"]["storage"] == "device") == case["view_allocated"]


def test_from_torch_onto_the_device_keeps_a_sharded_memory_config():
    # helper-12 defect 9: the shard spec was dropped (only the buffer type passed on)
    text = ("meshspec: 1\nname: s\nmesh: t3k\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 256, 256], mesh_mapper: {shard: 3}, device: mesh_device, memory_config: "
            "{memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [3, 0]]], shape: [64, 32], orientation: row_major}}}\n")
    spec = run(parse(text, Path("s.yaml")), "current").to_json()["tensors"][0]["devices"][0]["spec"]
    assert spec["memory_config"]["memory_layout"] == "height_sharded" and spec["memory_config"]["shard_spec"]["shape"] == [64, 32]
