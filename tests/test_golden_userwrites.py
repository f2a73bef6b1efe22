"""What model tests write, replayed against ttnn 0.81.1 (tests/golden/ttnn_0_81_1_userwrites.json,
recorded in the mock by tools/golden/record_userwrites.py; docs/semantics.md section 21): a rank-0
tensor (``shape: []``, tt-xla #3929) through a replicating mapper, to_device and per-device reads,
and the refusals of a sharding mapper and a concat composer on it; ``ttnn.reshape`` of a mesh
tensor, which takes each device's shape and refuses the global one; ``TensorTopology``'s own
argument names."""

import json
from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_userwrites.json").read_text())


def _run(steps: str) -> dict:
    return run(parse("meshspec: 1\nname: u\nmesh: t3k\nsteps:\n" + steps, Path("u.yaml")), "current").to_json()


@pytest.mark.parametrize("case", GOLDEN["rank0"], ids=lambda c: f"{c['layout']}-{c['dtype']}")
def test_a_rank_0_tensor_replicates_and_reads_back_as_the_real_library_does(case):
    report = _run(
        f"  - from_torch: {{as: h, shape: [], dtype: {case['dtype']}, layout: {case['layout']}, mesh_mapper: replicate}}\n"
        "  - to_device: {src: h, device: mesh_device, as: x}\n"
        "  - cpu: {tensor: x, as: back}\n"
        "  - get_device_tensors: {tensor: back, as: parts}\n"
    )
    assert report["error"] is None, report["error"]
    t = {t["name"]: t for t in report["tensors"]}
    host, dev = t["h"], t["x"]
    assert host["devices"][0]["spec"]["shape"] == case["host_shape"] == []
    assert host["devices"][0]["spec"]["padded_shape"] == case["host_padded_shape"]
    assert host["topology"]["distribution_shape"] == case["replicated"]["distribution_shape"]
    assert len([d for d in host["devices"] if d["recorded"]]) == case["replicated"]["shards"]
    spec = dev["devices"][0]["spec"]
    want = case["device"]
    assert (spec["shape"], spec["padded_shape"], spec["num_pages"], spec["page_size"], spec["aligned_page_size"]) == (
        want["shape"], want["padded_shape"], want["num_pages"], want["page_size"], want["aligned_page_size"])
    assert [d["coord"] for d in dev["devices"] if d["recorded"]] == want["device_coords"]
    parts = [n for n in t if n.startswith("parts[")]
    assert len(parts) == case["cpu"]["shards"] and all(t[p]["values"]["shape"] == [] for p in parts)


@pytest.mark.parametrize("case", GOLDEN["rank0"], ids=lambda c: f"{c['layout']}-{c['dtype']}")
@pytest.mark.parametrize("what", ["shard_0", "shard_-1", "concat_0"])
def test_a_rank_0_tensor_is_refused_a_dim_in_the_real_librarys_words(case, what):
    head = f"  - from_torch: {{as: h, shape: [], dtype: {case['dtype']}, layout: {case['layout']}, "
    if what == "concat_0":
        steps = head + "mesh_mapper: replicate, device: mesh_device}\n  - to_torch: {tensor: h, mesh_composer: {concat: 0}, as: y}\n"
    else:
        steps = head + f"mesh_mapper: {{shard: {what.split('_')[1]}}}}}\n"
    error = _run(steps)["error"]
    assert error is not None and error["message"].startswith(case[f"{what}_error"]), error


@pytest.mark.parametrize("case", GOLDEN["reshape"], ids=lambda c: "x".join(map(str, c["shape"])))
def test_reshape_takes_each_devices_shape_as_the_real_library_does(case):
    report = _run("  - from_torch: {as: x, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}\n"
                  f"  - reshape: {{tensor: x, shape: {case['shape']}, as: y}}\n")
    if case["error"] is None:
        assert report["error"] is None
        y = next(t for t in report["tensors"] if t["name"] == "y")
        assert y["devices"][0]["spec"]["shape"] == case["out_shape"]
        assert y["topology"]["distribution_shape"] == case["distribution_shape"]
    else:
        message = report["error"]["message"]
        assert message.startswith(case["error"]), message
        # the global shape (8 devices' worth) says what ttnn.reshape takes instead
        assert "takes the shape of each device's shard, [1, 1, 32, 32] here" in message


def test_update_tensor_topology_takes_ttnns_argument_names():
    assert GOLDEN["tensor_topology"]["arguments"] == ["distribution_shape", "placements", "mesh_coords"]
    steps = "  - from_torch: {as: x, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}\n"
    coords = GOLDEN["tensor_topology"]["by_keyword"]
    for key in ("mesh_coords", "coords"):  # ttnn's name, and the report's (pasteable)
        report = _run(steps + f"  - update_tensor_topology: {{tensor: x, topology: {{distribution_shape: [2], placements: [S(0)], {key}: {coords}}}}}\n")
        x = next(t for t in report["tensors"] if t["name"] == "x")
        assert x["topology"]["coords"] == coords, key


def test_a_rank_0_device_tensor_summarises_its_one_value_per_device():
    """The data view of a rank-0 device tensor: one value a device, none of it never-written
    (the short fuzz campaign found the summary indexing a 0-d array)."""
    scenario = parse(
        "meshspec: 1\nname: u\nmesh: [1, 2]\nsteps:\n"
        "  - from_torch: {as: h, shape: [], dtype: int32, layout: row_major, mesh_mapper: replicate, data: {fill: 7}}\n"
        "  - to_device: {src: h, device: mesh_device, as: x}\n",
        Path("u.yaml"),
    )
    x = {t.name: t for t in run(scenario, "current", data=True, show_values=3).tensors}["x"]
    assert [(s.count, s.first, s.poison, s.values) for s in x.data.values()] == [(1, 7, 0, (7,))] * 2
