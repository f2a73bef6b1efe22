"""ttnn 0.81.1's metadata-only device ops, replayed (tests/golden/ttnn_0_81_1_views.json, recorded in
the mock by tools/golden/record_views.py; docs/semantics.md section 12): squeeze, unsqueeze and
reshape are views at the input's address with its label verbatim; reallocate of a tensor already
lowest frees the input and comes back at the same address labelled as a fresh allocation."""

import json
from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_views.json").read_text())["views"]


@pytest.mark.parametrize("case", GOLDEN, ids=lambda c: c["name"])
def test_metadata_only_ops_match_the_real_library(case):
    field = {"squeeze": "dim", "unsqueeze": "dim", "reshape": "shape"}.get(case["op"])
    args = {"tensor": "x", "as": "out"} | ({field: case["arg"]} if field else {})
    text = ("meshspec: 1\nname: v\nmesh: t3k\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}\n"
            f"  - {case['op']}: {yaml.safe_dump(args, default_flow_style=True).strip()}\n")
    t = {t["name"]: t for t in run(parse(text, Path("v.yaml")), "current").to_json()["tensors"]}
    out = t["out"]
    assert out["address"] == case["address"] and t["x"]["address"] in (case["input_address"], None)
    assert out["devices"][0]["spec"]["shape"] == case["shape"]
    assert out["topology"]["placements"] == case["placements"]
    assert out["topology"]["distribution_shape"] == case["distribution_shape"]
    assert (t["x"]["storage"] == "device") == case["input_allocated"]
    assert [d["coord"] for d in out["devices"] if d["recorded"]] == case["device_coords"]
