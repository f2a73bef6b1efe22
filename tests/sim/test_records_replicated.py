"""The distribution shape a replicated tensor is recorded with (rule ``replicated_distribution``;
docs/semantics.md section 22; tt-metal issue #28755).

Every ttnn the mock runs (0.66.0, 0.67.0, 0.81.1) records ``replicate_tensor_to_mesh_mapper`` as a
1-D distribution of every device, ``(8) [R]`` on a 1x8 as on a 2x4 T3K, while ``create_mesh_mapper``
with a Replicate per axis records the mesh's shape: tests/golden/ttnn_*_replicated_distribution.json,
recorded by tools/golden/record_replicated_distribution.py. meshspec's eras record what those record;
the reference records the replicate mapper as the mesh's shape, as #28755 asks.
"""

import json
from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse

GOLDEN = sorted((Path(__file__).resolve().parents[1] / "golden").glob("ttnn_*_replicated_distribution.json"))
MAPPERS = {  # the golden's case -> the scenario's spelling of the same mapper
    "replicate_tensor_to_mesh_mapper": "replicate",
    "create_mesh_mapper_replicate_per_axis": "{placements: [R, R]}",
    "shard_tensor_to_mesh_mapper_dim3": "{shard: 3}",
}
PLACEMENTS = {"PlacementReplicate()": "R", "PlacementShard(3)": "S(3)"}


def topology(mesh: str, mapper: str, profile: str, device: bool = True):
    rows, cols = mesh.split("x")
    text = (
        f"meshspec: 1\nmesh: {{system: t3k, shape: [{rows}, {cols}]}}\nsteps:\n"
        f"  - from_torch: {{as: x, shape: [1, 1, 32, 32], mesh_mapper: {mapper}{', device: mesh_device' if device else ''}}}\n"
    )
    report = run(parse(text), profile)
    assert report.error is None and not report.findings
    t = next(t for t in report.tensors if t.name == "x")
    return tuple(t.topology.distribution_shape), tuple(str(p) for p in t.topology.placements), len(t.topology.coords)


def test_the_three_versions_were_recorded():
    assert [json.loads(p.read_text())["ttnn"] for p in GOLDEN] == ["0.66.0", "0.67.0", "0.81.1"]


@pytest.mark.parametrize("path", GOLDEN, ids=lambda p: p.name.split("_replicated")[0])
def test_current_records_what_every_ttnn_version_records(path):
    golden = json.loads(path.read_text())
    for mesh, cases in golden["meshes"].items():
        for case, mapper in MAPPERS.items():
            for where in ("host", "device"):
                want = cases[case][where]
                got = topology(mesh, mapper, "current", device=where == "device")
                assert got == (tuple(want["distribution_shape"]), tuple(PLACEMENTS[p] for p in want["placements"]), want["coords"]), (
                    mesh, case, where)


@pytest.mark.parametrize("mesh, shape", [("1x8", (1, 8)), ("2x4", (2, 4))])
def test_the_reference_records_the_replicate_mapper_as_the_mesh(mesh, shape):
    for mapper in ("replicate", "ReplicateTensorToMesh", "{ReplicateTensorToMesh: {mesh_device: mesh_device}}"):
        assert topology(mesh, mapper, "reference") == (shape, ("R", "R"), 8)
        assert topology(mesh, mapper, "reference", device=False) == (shape, ("R", "R"), 8)
    # the 1-D mappers the user asks for stay 1-D: the sharding one, and an explicit (8) override
    assert topology(mesh, "{shard: 3}", "reference") == ((8,), ("S(3)",), 8)
    assert topology(mesh, "{placements: [R], mesh_shape: [8]}", "reference") == ((8,), ("R",), 8)


def test_a_user_profile_can_take_the_reference_record_alone():
    text = (
        "meshspec: 1\nmesh: {system: t3k, shape: [1, 8]}\nprofile: {base: current, replicated_distribution: mesh}\nsteps:\n"
        "  - from_torch: {as: x, shape: [1, 1, 32, 32], mesh_mapper: ReplicateTensorToMesh, device: mesh_device}\n"
    )
    t = run(parse(text)).tensors[0]
    assert tuple(t.topology.distribution_shape) == (1, 8)
