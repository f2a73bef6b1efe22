"""A mesh mapper is made for its own mesh device (the scenario's, unless the mapper names one),
whatever device the call then puts the tensor on (docs/semantics.md section 9; ttnn 0.81.1,
observed: tests/golden ``api`` "submesh_copies", distribute_tensor(host,
replicate_tensor_to_mesh_mapper(parent), submesh)). The parent's mapper on a 1x4 submesh at
(1,0) fails on the first coordinate the submesh does not have, in every profile: the rule
``replicated_distribution`` says what a replicated tensor *records*, never which mesh its mapper
was made for (a new user's report: under ``mesh``, the reference's choice, the call was taken); the
rule ``host_buffer_shape`` says in which words."""

from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES

WORDS = "Coordinate MeshCoordinate([1, 0]) not found in mesh MeshShape([1, 4])"
SAME_SHAPE_WORDS = "Distributed host buffer has different shape MeshShape([2, 4]) than the mesh device MeshShape([1, 4])"
"""Under ``host_buffer_shape: same_shape`` (0.66.0, 0.67.0) the refusal comes first, in these words
(tests/golden ``ttnn_0_6*_0.json`` api "submesh_copies" event 13; docs/semantics.md section 23)."""

CALLS = {
    "from_torch": {"from_torch": {"as": "a", "shape": [1, 1, 32, 32], "mesh_mapper": "replicate", "device": "row1"}},
    "from_torch_shard": {"from_torch": {"as": "a", "shape": [1, 8, 32, 32], "mesh_mapper": {"shard": 1}, "device": "row1"}},
    "as_tensor": {"as_tensor": {"as": "a", "shape": [1, 1, 32, 32], "mesh_mapper": "replicate_tensor_to_mesh_mapper", "device": "row1",
                                "memory_config": "DRAM_MEMORY_CONFIG"}},
    "distribute_tensor": [{"from_torch": {"as": "h", "shape": [1, 1, 32, 32]}},
                          {"distribute_tensor": {"tensor": "h", "mesh_mapper": "replicate_tensor_to_mesh_mapper", "as": "a",
                                                 "mesh_device": "row1"}}],
}


def _report(call, profile: str):
    steps = [{"create_submesh": {"shape": [1, 4], "offset": [1, 0], "as": "row1"}}]
    steps += call if isinstance(call, list) else [call]
    text = yaml.safe_dump({"meshspec": 1, "name": "parent-mapper-on-submesh", "mesh": "t3k", "steps": steps}, sort_keys=False)
    return run(parse(text, Path("parent-mapper-on-submesh.yaml")), profile)


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("call", sorted(CALLS))
def test_a_parent_mapper_on_a_submesh_is_refused_in_ttnn_words_by_every_profile(call, profile):
    report = _report(CALLS[call], profile)
    words = SAME_SHAPE_WORDS if PROFILES[profile].host_buffer_shape.value == "same_shape" else WORDS
    assert report.error is not None and report.error.message.startswith(words), report.error


def test_the_submesh_own_mapper_is_taken_and_records_by_the_rule():
    """The same call with the submesh's own mapper is taken: (4) [R] as ttnn 0.81.1 records it
    (observed in the mock, ttnn 0.81.1: (4) [R]; not in the golden data; the topology is the
    replicated_distribution rule's, docs/semantics.md section 22)."""
    call = {"from_torch": {"as": "a", "shape": [1, 1, 32, 32], "mesh_mapper": {"ReplicateTensorToMesh": {"mesh_device": "row1"}},
                           "device": "row1"}}
    for profile, shape in (("current", [4]), ("reference", [1, 4])):
        report = _report(call, profile)
        assert report.error is None, report.error
        a = next(t.to_json() for t in report.tensors if t.name == "a")
        assert a["topology"]["distribution_shape"] == shape
