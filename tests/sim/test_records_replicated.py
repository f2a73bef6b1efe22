"""The distribution shape a replicated tensor is recorded with (rules ``replicated_distribution`` and
``plain_to_device``; docs/semantics.md section 22; tt-metal issue #28755, PR #29158).

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
    "plain_host_tensor": None,  # no mapper: one host buffer, written to every device
}
PLACEMENTS = {"PlacementReplicate()": "R", "PlacementShard(3)": "S(3)"}


def topology(mesh: str, mapper, profile: str, device: bool = True, own: str = "", clean: bool = True):
    rows, cols = mesh.split("x")
    text = (
        f"meshspec: 1\nmesh: {{system: t3k, shape: [{rows}, {cols}]}}\n{own}steps:\n"
        f"  - from_torch: {{as: x, shape: [1, 1, 32, 32]{'' if mapper is None else ', mesh_mapper: ' + mapper}"
        f"{', device: mesh_device' if device else ''}}}\n"
    )
    report = run(parse(text), profile)
    assert report.error is None and bool(report.findings) is not clean
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
    # a plain host tensor written to every device is a replicated tensor too (create_fully_replicated_tensor_topology)
    assert topology(mesh, None, "reference") == (shape, ("R", "R"), 8)
    assert topology(mesh, None, "reference", device=False) == ((1,), ("R",), 1)  # on the host: one buffer, the default
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


def test_before_pr_29158_a_plain_tensor_put_on_the_mesh_kept_the_hosts_default_topology():
    own = "profiles:\n  mid-2025: {base: current, plain_to_device: default}\n"
    assert topology("2x4", None, "mid-2025", own=own, clean=False) == ((1,), ("R",), 1)
    text = ("meshspec: 1\nmesh: t3k\nprofile: {base: current, plain_to_device: default}\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 32, 32], device: mesh_device}\n"
            "  - from_torch: {as: y, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}\n")
    report = run(parse(text))
    # the plain tensor's record lists (0, 0) of the 8 devices written; a mapped tensor is not on that path
    assert [(f.kind.value, f.tensor) for f in report.findings] == [("topology_mismatch", "x")]
    assert "(0,1) (0,2) (0,3) (1,0) (1,1) (1,2) (1,3) that its topology (1) [R]" in report.findings[0].message
