"""The default imputation of a device op's output topology is ttnn 0.81.1's
(``compute_output_placements_and_shape``, ttnn/core/device_operation_detail.cpp @ 0815d3efc, whose
one-argument signature is the one ttnn 0.81.1's _ttnncpp.so exports; docs/semantics.md section 12).

Golden data: tests/golden/ttnn_0_81_1_imputation.json, what the real ttnn 0.81.1 labels the output
of add / subtract / multiply / where with (the mock runs a device op's host half in graph capture's
NO_DISPATCH mode; tools/golden/record_imputation.py). Each binary case also runs as a scenario
through meshspec.runner under the current profile, the one that uses the imputation.
"""

import json
from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.imputation import union
from meshspec.sim.placement import Replicate, Shard, Topology

GOLDEN = json.loads((Path(__file__).resolve().parents[1] / "golden" / "ttnn_0_81_1_imputation.json").read_text())
CASES = {c["name"]: c for c in GOLDEN["cases"]}
STEP = {"add": "add", "subtract": "sub", "multiply": "mul"}  # ttnn's name -> the scenario step's
BINARY = sorted(n for n, c in CASES.items() if c["op"] in STEP)


def _placements(rows) -> tuple:
    return tuple(Replicate() if p == "replicate" else Shard(p["shard"]) for p in rows)


def _label(row) -> Topology:
    return Topology(tuple(row["distribution_shape"]), _placements(row["placements"]), tuple(tuple(c) for c in row["coords"]))


def _scenario(case) -> str:
    """The case as a scenario: each input mapped as the recorder mapped it, then the op on them."""
    names = [f"t{i}" for i in range(len(case["inputs"]))]
    lines = ["meshspec: 1", f"name: {case['name'].replace('_', '-')}", "mesh: t3k", "steps:"]
    for name, i in zip(names, case["inputs"]):
        mapper = {"placements": i["placements"]}
        if i["mesh_shape_override"]:
            mapper["mesh_shape_override"] = i["mesh_shape_override"]
        lines.append(f"  - from_torch: {{as: {name}, shape: {i['shape']}, mesh_mapper: {{create_mesh_mapper: {json.dumps(mapper)}}}, "
                     "device: mesh_device}")
    lines.append(f"  - {STEP[case['op']]}: {{a: {names[0]}, b: {names[1]}, as: out}}")
    return "\n".join(lines) + "\n"


def _out(case_or_text, profile="current"):
    text = case_or_text if isinstance(case_or_text, str) else _scenario(case_or_text)
    report = run(parse(text, Path("imputation.yaml")), profile).to_json()
    assert report.get("error") is None, report["error"]
    return {t["name"]: t for t in report["tensors"]}, report["findings"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_union_of_the_inputs_labels_is_what_ttnn_0_81_1_labels_the_output(name):
    case = CASES[name]
    got = union([_label(i) for i in case["inputs"]])
    assert got.distribution_shape == tuple(case["output"]["distribution_shape"])
    assert got.placements == _placements(case["output"]["placements"])


@pytest.mark.parametrize("name", BINARY)
def test_a_binary_op_scenario_records_the_label_ttnn_0_81_1_records(name):
    case = CASES[name]
    tensors, _ = _out(case)
    topo, want = tensors["out"]["topology"], case["output"]
    assert topo["distribution_shape"] == want["distribution_shape"]
    assert topo["placements"] == [p if p != "replicate" else "R" for p in want["placements"]]
    assert topo["coords"] == want["coords"]
    assert sorted(d["coord"] for d in tensors["out"]["devices"] if d["recorded"]) == sorted(want["device_coords"])


def test_add_a_b_and_add_b_a_are_labelled_differently_when_both_shard_the_same_dim():
    """Issue 35 item 4 (PR #29899: the imputation depends on the input order). a shards dim 3 over
    the mesh columns, b over the rows: the first input claims dim 3 for its axis, so add(a, b) is
    [R, S(3)] and add(b, a) is [S(3), R] in ttnn 0.81.1 (golden add_col_row / add_row_col).
    meshspec used to give [S(3), R] to both: it went axis by axis, not input by input."""
    head = ("meshspec: 1\nname: order\nmesh: t3k\nsteps:\n"
            "  - from_torch: {as: a, shape: [1, 1, 32, 256], mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}]}}, device: mesh_device}\n"
            "  - from_torch: {as: b, shape: [1, 1, 32, 128], mesh_mapper: {create_mesh_mapper: {placements: [{shard: 3}, replicate]}}, device: mesh_device}\n")
    tensors, findings = _out(head + "  - add: {a: a, b: b, as: ab}\n  - add: {a: b, b: a, as: ba}\n")
    assert tensors["ab"]["topology"]["placements"] == ["R", {"shard": 3}]
    assert tensors["ba"]["topology"]["placements"] == [{"shard": 3}, "R"]
    assert CASES["add_col_row"]["output"]["placements"] == ["replicate", {"shard": 3}]
    assert CASES["add_row_col"]["output"]["placements"] == [{"shard": 3}, "replicate"]


def test_a_fully_replicated_input_of_a_higher_rank_does_not_set_the_rank():
    """Golden add_replicated_2d_sharded_1d: (2x4) [R, R] + (8) [S(3)] is (8) [S(3)], either order;
    meshspec took the largest rank of all inputs and labelled it (2x4) [R, R], losing the shard."""
    tensors, _ = _out(CASES["add_replicated_2d_sharded_1d"])
    assert tensors["out"]["topology"]["distribution_shape"] == [8]
    assert tensors["out"]["topology"]["placements"] == [{"shard": 3}]


def test_with_nothing_sharded_the_first_input_sets_the_rank():
    """Golden add_replicated_1d_replicated_2d / add_replicated_2d_replicated_1d."""
    assert _out(CASES["add_replicated_1d_replicated_2d"])[0]["out"]["topology"]["distribution_shape"] == [8]
    assert _out(CASES["add_replicated_2d_replicated_1d"])[0]["out"]["topology"]["distribution_shape"] == [2, 4]


def test_the_distribution_shape_is_the_per_axis_maximum_whatever_the_order():
    """Golden add_full_row0 / add_row0_full: a (2x4) and a row-0-only (1x4) label make (2x4) in both
    orders; meshspec took the first input's shape, so add(row0, full) was (1x4). The data is on row 0
    only and ttnn's label lists 8 coords: a topology_mismatch in both orders, as ttnn records it."""
    for name in ("add_full_row0", "add_row0_full"):
        tensors, findings = _out(CASES[name])
        assert tensors["out"]["topology"]["distribution_shape"] == [2, 4]
        assert [(f["kind"], f["tensor"]) for f in findings] == [("topology_mismatch", "out")]
        assert "(1,0) (1,1) (1,2) (1,3)" in findings[0]["message"]


def test_a_dim_first_seen_on_an_axis_another_dim_holds_is_claimed_there_all_the_same():
    """tt-metal device_operation_detail.cpp @ 0815d3efc: a Shard of a new dim on an axis an earlier
    Shard holds registers the dim (the earlier Shard stays), so a later Shard of that dim on another
    axis is Replicate. Observed with where (golden where_claimed_dim: [S(2), R]; reversed [S(2), S(3)]).
    concat takes the same default (no compute_output_topologies of its own in 0.81.1) but the mock
    builds its program before it returns, so it rests on the source; meshspec gave [S(2), S(3)]."""
    heads = ("  - from_torch: {as: c1, shape: [1, 1, 64, 64], mesh_mapper: {create_mesh_mapper: {placements: [{shard: 2}, replicate]}}, device: mesh_device}\n"
             "  - from_torch: {as: c2, shape: [1, 1, 32, 128], mesh_mapper: {create_mesh_mapper: {placements: [{shard: 3}, replicate]}}, device: mesh_device}\n"
             "  - from_torch: {as: c3, shape: [1, 1, 32, 256], mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}]}}, device: mesh_device}\n")
    tensors, _ = _out("meshspec: 1\nname: claimed\nmesh: t3k\nsteps:\n" + heads
                      + "  - concat: {tensors: [c1, c2, c3], dim: 1, as: ab}\n  - concat: {tensors: [c3, c2, c1], dim: 1, as: ba}\n")
    assert tensors["ab"]["topology"]["placements"] == [{"shard": 2}, "R"]
    assert tensors["ba"]["topology"]["placements"] == [{"shard": 2}, {"shard": 3}]
    assert CASES["where_claimed_dim"]["output"]["placements"] == [{"shard": 2}, "replicate"]
    assert CASES["where_claimed_dim_reversed"]["output"]["placements"] == [{"shard": 2}, {"shard": 3}]


def test_the_reference_normalises_dims_before_it_compares_them():
    """The reference's option (``rank``), as it was: -1 and 3 of a rank-4 tensor are one dim there,
    while ttnn compares them as written (golden add_negative_dim: [S(-1), S(3)])."""
    labels = [_label(i) for i in CASES["add_negative_dim"]["inputs"]]
    assert union(labels).placements == (Shard(-1), Shard(3))
    assert union(labels, 4).placements == (Shard(3), Replicate())
