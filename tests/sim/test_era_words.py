"""ttnn's words as each era prints them (meshspec/sim/words.py; docs/semantics.md section 23, rules
``dim_list_words`` and ``row_major_tilize``): a step's error in the report starts with what that
version of ttnn said, replayed from its golden data through the runner."""

import json
from pathlib import Path

import pytest
from conftest import run_steps

from meshspec.sim.profiles import profile_for_version

GOLDEN = Path(__file__).parents[1] / "golden"
VERSIONS = ("0.81.1", "0.67.0", "0.66.0")


def _dims_cases():
    for v in VERSIONS:
        for case in json.loads((GOLDEN / f"ttnn_{v.replace('.', '_')}.json").read_text())["mappers"]:
            if case["error"] and "got dims:" in case["error"] and case["mesh"] == [2, 4]:
                yield pytest.param(v, case, id=f"{v}-{case['placements']}-{case['mesh_shape_override']}")


@pytest.mark.parametrize("version, case", list(_dims_cases()))
def test_a_mappers_dims_are_printed_as_the_version_prints_them(version, case):
    """0.81.1: ``got dims: {4}``; 0.66.0 and 0.67.0: ``got dims: SmallVector([4])`` (tests/golden mappers)."""
    mapper = {"placements": ["replicate" if p == "R" else p for p in case["placements"]]}
    if case["mesh_shape_override"] is not None:
        mapper["mesh_shape_override"] = case["mesh_shape_override"]
    report = run_steps([{"from_torch": {"as": "h", "shape": case["shape"], "mesh_mapper": {"create_mesh_mapper": mapper}}}],
                       profile_for_version(version))
    said = case["error"].split(": ", 1)[1]
    assert report.error is not None and report.error.message.startswith(said), (report.error and report.error.message, said)


def test_every_version_has_such_a_case():
    assert {p.values[0] for p in _dims_cases()} == set(VERSIONS)


@pytest.mark.parametrize("version", VERSIONS)
def test_a_composers_dims_are_printed_as_the_version_prints_them(version):
    """What the real hunt found on 0.67.0 and 0.66.0 (seed 1, docs/semantics.md section 24): a
    concat dim out of range of a rank-3 view, printed by each version as here."""
    report = run_steps([{"allocate_tensor_on_device": {"as": "d2", "shape": [1, 1, 1, 1]}},
                        {"squeeze": {"tensor": "d2", "dim": 0, "as": "d3"}},
                        {"to_torch": {"tensor": "d3", "as": "out4", "mesh_composer": {"concat": 3}}}], profile_for_version(version))
    dims = "{3}" if version == "0.81.1" else "SmallVector([3])"
    assert report.error.message.startswith(f"Invalid dimension index; got dims: {dims}, tensor dimension: 3")
