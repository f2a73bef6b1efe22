"""``update_tensor_topology`` given a topology its data does not have (issue 35, list item 4).

ttnn 0.81.1 records whatever it is given (observed in mock mode, tests/golden ``api``, and again for
this case: the coordinates reversed are the topology's, ``device_coords()`` stay in their order, and a
composer given explicitly composes by buffer position, so only a reader of the topology is misled).
A (1, 8, 32, 32) tensor sharded on dim 1 over (8) writes slice 0 to (0,0); with the coordinates
reversed the topology lists (1,3) first. meshspec said nothing; the lie is about where the data is, so
it is ``topology_stale`` (kinds.py: the topology says another distribution than the data has), at the
update step (docs/semantics.md section 9).
"""

import pytest
from conftest import run_steps

T3K = [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]
MAKE = [{"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}}}, {"to_device": {"src": "h", "as": "d"}}]


def _update(placements, coords, shape=(8,)):
    return {"update_tensor_topology": {"tensor": "d", "topology": {"distribution_shape": list(shape), "placements": placements,
                                                                   "coords": coords}}}


@pytest.mark.parametrize("profile", ["current", "reference"])
def test_coordinates_reversed_are_a_stale_topology_at_the_update(profile):
    report = run_steps([*MAKE, _update([{"shard": 1}], T3K[::-1])], profile)
    assert report.error is None
    [finding] = [f for f in report.findings if f.tensor == "d"]
    assert (finding.kind.value, finding.step, finding.op) == ("topology_stale", 2, "update_tensor_topology")
    assert "position 0 of its distribution MeshShape([8]) is on (0,0), the topology says (1,3)" in finding.message


def test_another_dim_on_the_same_devices_is_a_stale_topology():
    report = run_steps([*MAKE, _update([{"shard": 2}], T3K)])
    [finding] = [f for f in report.findings if f.tensor == "d"]
    assert finding.kind.value == "topology_stale" and "laid out as [PlacementShard(1)]" in finding.message


def test_the_topology_the_data_has_is_no_finding():
    """Setting the topology the data has (the documented fix for a device op's stale label) is clean,
    and a replicated tensor's coordinates in any order are the same claim."""
    assert run_steps([*MAKE, _update([{"shard": 1}], T3K)]).findings == ()
    replicated = [{"from_torch": {"as": "h", "shape": [1, 1, 32, 32], "mesh_mapper": "replicate"}}, {"to_device": {"src": "h", "as": "d"}}]
    assert run_steps([*replicated, _update(["replicate"], T3K[::-1])]).findings == ()


def test_a_squeeze_label_fixed_by_hand_is_clean():
    """squeeze(t, 0) of a tensor sharded on dim 3 keeps Shard(3) under 0.81.1 (topology_stale); setting
    Shard(2) by hand afterwards is what kinds.py tells the user to do, and the finding goes."""
    steps = [{"from_torch": {"as": "h", "shape": [1, 1, 32, 256], "mesh_mapper": {"shard": 3}}}, {"to_device": {"src": "h", "as": "x"}},
             {"squeeze": {"tensor": "x", "dim": 0, "as": "d"}}]
    assert [f.kind.value for f in run_steps(steps).findings if f.tensor == "d"] == ["topology_stale"]
    fixed = run_steps([*steps, _update([{"shard": 2}], T3K)])
    assert [f for f in fixed.findings if f.tensor == "d"] == []


def test_meshspec_records_what_ttnn_records():
    """tests/golden/ttnn_0_81_1_topology_by_hand.json: the topology takes the reversed coordinates,
    device_coords() keep theirs, and an explicit composer still puts slice i first-valued i*1024 at i
    (it walks the buffer, not the topology)."""
    import json
    from pathlib import Path

    golden = json.loads((Path(__file__).parents[1] / "golden" / "ttnn_0_81_1_topology_by_hand.json").read_text())
    assert golden["device"]["coords_after"] == golden["coords_before"][::-1] == T3K[::-1]
    assert golden["device"]["device_coords"] == T3K
    assert golden["host"]["composed_slice_first_values"] == [1024.0 * i for i in range(8)]
    report = run_steps([*MAKE, _update([{"shard": 1}], T3K[::-1]),
                        {"to_torch": {"tensor": "d", "as": "out", "mesh_composer": {"concat": 1}}}], "current", data=True)
    d = next(t for t in report.tensors if t.name == "d")
    assert [list(c) for c in d.topology.coords] == golden["device"]["coords_after"]
    assert [list(v.coord) for v in d.devices if v.recorded] == golden["device"]["device_coords"]
    assert not any(f.kind.value == "data_mismatch" for f in report.findings)  # the composer is not misled
