"""Storage kinds as ttnn 0.66.0, 0.67.0 and 0.81.1 give them (tests/golden/ttnn_storage.json,
recorded in mock mode by tools/golden/record_storage.py; docs/semantics.md section 19).

Every version that runs here has two storage types, HOST and DEVICE: a tensor on a 1x1 mesh is the
same DEVICE storage as on a T3K and a mapped host tensor copies into it (issue #15833's
single-device storage is an older era, profile rule ``unit_mesh``). A host tensor made from a
ROW_MAJOR float32 array borrows the array's memory in 0.66.0 and 0.67.0 (it sees a change made
after), and so do all the replicas a replicate mapper makes of it, while a shard mapper's chunks
are copies; 0.81.1 copies every time (rule ``host_borrow``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import make_scenario

from meshspec.runner import run
from meshspec.sim.profiles import PROFILES, profile_for_version

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_storage.json").read_text())
VERSIONS = sorted(GOLDEN)
MESHES = {"mesh_1x1": ([1, 1], 1), "mesh_2x4": ("t3k", 8)}

# the recorder's calls: allocate (1,1,32,32) float32 ROW_MAJOR, copy a (1,n,32,32) tensor sharded on
# dim 1 over (n), replicate a plain (1,1,32,32) one, and the same from a numpy array (borrowed or not)
def _steps(n: int) -> list:
    return [
        {"allocate_tensor_on_device": {"as": "dev", "shape": [1, 1, 32, 32], "dtype": "float32", "layout": "row_major"}},
        {"from_torch": {"as": "mapped", "shape": [1, n, 32, 32], "dtype": "float32", "layout": "row_major",
                        "mesh_mapper": {"create_mesh_mapper": {"placements": [{"shard": 1}], "mesh_shape_override": [n]}}}},
        {"copy_host_to_device_tensor": {"src": "mapped", "dst": "dev"}},
        {"cpu": {"tensor": "dev", "as": "back"}},
        {"from_torch": {"as": "a", "shape": [1, 1, 32, 32], "dtype": "float32", "layout": "row_major"}},
        {"distribute_tensor": {"tensor": "a", "mesh_mapper": {"replicate_tensor_to_mesh_mapper": {}}, "as": "replicas"}},
        {"from_torch": {"as": "b", "shape": [1, n, 32, 32], "dtype": "float32", "layout": "row_major"}},
        {"distribute_tensor": {"tensor": "b", "mesh_mapper": {"create_mesh_mapper": {"placements": [{"shard": 1}],
                                                                                      "mesh_shape_override": [n]}}, "as": "chunks"}},
    ]


def _profile_of(version: str) -> dict:
    """The profile a version answers to: 0.81.1 is ``current``; 0.66.0 and 0.67.0 borrow."""
    borrows = GOLDEN[version]["numpy_tensor"]["first_after_change"] == 99.0  # the recorder changes [0] to 99
    return {"base": "current", "host_borrow": "borrowed" if borrows else "owned"}


def _kinds(report) -> dict:
    return {t.name: t.storage_kind for t in report.tensors}


@pytest.mark.parametrize("version", VERSIONS)
@pytest.mark.parametrize("mesh", sorted(MESHES))
def test_storage_kinds_and_the_copy_are_the_versions(version, mesh):
    want = GOLDEN[version][mesh]
    shape, n = MESHES[mesh]
    report = run(make_scenario(_steps(n), shape), profile_for_version(version))  # the version's built-in profile
    assert report.error is None  # the copy into a 1x1 mesh tensor goes through: copy_error is None
    assert want["copy_error"] is None
    assert GOLDEN[version]["storage_types"] == ["DEVICE", "HOST"]
    # one device storage on 1x1 as on 2x4: mesh storage, never single-device
    assert want["device_storage"] == GOLDEN[version]["mesh_2x4"]["device_storage"] == "StorageType.DEVICE"
    kinds = _kinds(report)
    assert kinds["dev"] == "mesh"
    dev = next(t for t in report.tensors if t.name == "dev")
    after = want["after_copy"]
    assert [list(c) for c in dev.topology.coords] == after["coords"]
    assert list(dev.topology.distribution_shape) == after["distribution_shape"]
    assert [v.coord for v in dev.devices if v.recorded] == [tuple(c) for c in after["coords"]]
    assert len(next(t for t in report.tensors if t.name == "back").devices) == want["cpu"]["shards"]
    # borrowed or owned: the array changed after shows through every replica, through no chunk
    seen = want["numpy_mapped"]
    replicas_borrow = all(v == 99.0 for v in seen["replicas_first_after_change"])
    chunks_borrow = seen["shards_first_after_change"][0] == 77.0
    assert kinds["a"] == kinds["replicas"] == ("borrowed" if replicas_borrow else "owned")
    assert kinds["b"] == kinds["replicas"]
    assert kinds["chunks"] == ("borrowed" if chunks_borrow else "owned") == "owned"
    assert len(next(t for t in report.tensors if t.name == "replicas").devices) == len(seen["replicas_first_after_change"])


@pytest.mark.parametrize("version", VERSIONS)
def test_the_versions_profile_borrows_as_its_numpy_tensor_did(version):
    assert PROFILES[profile_for_version(version)].host_borrow.value == _profile_of(version)["host_borrow"]


def test_current_and_reference_are_0_81_1s_storage():
    """0.81.1 owns and copies into 1x1 meshes: the default of both new rules, and the reference's."""
    assert _profile_of("0.81.1")["host_borrow"] == "owned"
    for name in ("current", "reference"):
        assert PROFILES[name].host_borrow.value == "owned"
        assert PROFILES[name].unit_mesh.value == "mesh"
