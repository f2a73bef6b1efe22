"""A deallocated tensor used by each op, as ttnn answers it (tests/golden/ttnn_<version>_freed.json for
0.81.1, 0.67.0 and 0.66.0, recorded in mock mode by tools/golden/record_freed.py; docs/semantics.md
section 6, and section 23 for the rule ``freed_transfer`` that tells the versions apart), each version
under its built-in profile.

meshspec said "(the real library crashes here)" at every use after free; ttnn crashes at some
(``cpu``, a copy into it, unary ops, ``all_gather``), refuses others with its own words (``squeeze``:
``Tensor is not allocated``; ``add``: ``Input Tensor A is not allocated``) and checks nothing at a few
(``get_device_tensors``, ``to_device``). Every use is a ``use_after_free`` finding; the step's outcome
and words follow the golden.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import run_steps

from meshspec.sim.profiles import profile_for_version

VERSIONS = ("0.81.1", "0.67.0", "0.66.0")
GOLDENS = {v: json.loads((Path(__file__).parent / "golden" / f"ttnn_{v.replace('.', '_')}_freed.json").read_text())["ops"]
           for v in VERSIONS}
GOLDEN = GOLDENS["0.81.1"]

# the golden's tensor: (1, 8, 32, 32), [R, S(1)] on a 2x4 T3K, each device (1, 2, 32, 32); d is freed, e is live
SETUP = [
    {"from_torch": {"as": "h", "shape": [1, 8, 32, 32], "mesh_mapper": {"create_mesh_mapper": {"placements": ["replicate", {"shard": 1}]}}}},
    {"to_device": {"src": "h", "as": "d"}},
    {"to_device": {"src": "h", "as": "e"}},
    {"deallocate": {"tensor": "d"}},
]

# golden case -> the meshspec step that makes the same call on d
STEPS = {
    "cpu": {"cpu": {"tensor": "d", "as": "back"}},
    "to_torch": {"to_torch": {"tensor": "d", "as": "out", "mesh_composer": {"concat": [0, 1], "mesh_shape": [2, 4]}}},
    "copy_host_to_device_tensor": {"copy_host_to_device_tensor": {"src": "h", "dst": "d"}},
    "deallocate": {"deallocate": {"tensor": "d"}},
    "get_device_tensors": {"get_device_tensors": {"tensor": "d", "as": "parts"}},
    "update_tensor_topology": {"update_tensor_topology": {"tensor": "d", "topology": {
        "distribution_shape": [2, 4], "placements": ["replicate", {"shard": 1}],
        "coords": [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2], [1, 3]]}}},
    "to_device": {"to_device": {"src": "d", "as": "again"}},
    "to": {"to": {"tensor": "d", "as": "again"}},
    "squeeze": {"squeeze": {"tensor": "d", "dim": 0, "as": "out"}},
    "unsqueeze": {"unsqueeze": {"tensor": "d", "dim": 0, "as": "out"}},
    "reshape": {"reshape": {"tensor": "d", "shape": [2, 32, 32], "as": "out"}},
    "view": {"view": {"tensor": "d", "shape": [2, 32, 32], "as": "out"}},
    "permute": {"permute": {"tensor": "d", "dims": [1, 0, 2, 3], "as": "out"}},
    "slice": {"slice": {"tensor": "d", "starts": [0, 0, 0, 0], "ends": [1, 1, 32, 32], "as": "out"}},
    "concat": {"concat": {"tensors": ["d", "d"], "dim": 1, "as": "out"}},
    "pad": {"pad": {"tensor": "d", "padding": [[0, 0], [0, 0], [0, 0], [0, 32]], "as": "out"}},
    "all_gather": {"all_gather": {"tensor": "d", "dim": 3, "cluster_axis": 1, "as": "out"}},
    "reduce_scatter": {"reduce_scatter": {"tensor": "d", "dim": 3, "cluster_axis": 1, "as": "out"}},
    "neg": {"neg": {"tensor": "d", "as": "out"}},
    "exp": {"exp": {"tensor": "d", "as": "out"}},
    "relu": {"relu": {"tensor": "d", "as": "out"}},
    "gelu": {"gelu": {"tensor": "d", "as": "out"}},
    "add": {"add": {"a": "d", "b": "d", "as": "out"}},
    "add (b freed)": {"add": {"a": "e", "b": "d", "as": "out"}},
    "sub": {"sub": {"a": "d", "b": "d", "as": "out"}},
    "mul": {"mul": {"a": "d", "b": "d", "as": "out"}},
    "matmul": {"matmul": {"a": "d", "b": "d", "as": "out"}},
    "linear": {"linear": {"a": "d", "b": "d", "as": "out"}},
    "sum": {"sum": {"tensor": "d", "dim": 3, "as": "out"}},
    "max": {"max": {"tensor": "d", "dim": 3, "as": "out"}},
    "transpose": {"transpose": {"tensor": "d", "dim0": 2, "dim1": 3, "as": "out"}},
    "typecast": {"typecast": {"tensor": "d", "dtype": "float32", "as": "out"}},
    "to_layout": {"to_layout": {"tensor": "d", "layout": "row_major", "as": "out"}},
    "untilize": {"untilize": {"tensor": "d", "as": "out"}},
    "clone": {"clone": {"tensor": "d", "as": "out"}},
    "reallocate": {"reallocate": {"tensor": "d", "as": "out"}},
    "to_memory_config": {"to_memory_config": {"tensor": "d", "memory_config": "L1_MEMORY_CONFIG", "as": "out"}},
}
#: Golden cases whose call meshspec writes another way (or not at all), with why.
ELSEWHERE = {
    "copy_device_to_host_tensor": "needs a host tensor of d's spec, made by allocate_tensor_on_host; tested below",
    "combine_device_tensors": "its parts are get_device_tensors of d; tested below",
    "dump_tensor": "writes a file; meshspec's dump_tensor of a freed tensor is tests/sim/test_runtime.py's",
    "empty_like": "meshspec's *_like take the tensor's spec only (no use of its buffer)",
    "zeros_like": "meshspec's *_like take the tensor's spec only (no use of its buffer)",
    "all_reduce": "ttnn's words name the missing mesh device of a freed tensor; meshspec's all_reduce is sum over the mesh",
}


def test_every_golden_case_is_a_step_here_or_said_where():
    for golden in GOLDENS.values():
        assert set(golden) == set(STEPS) | set(ELSEWHERE)


def test_the_older_versions_answer_alike():
    assert {k: v["verdict"] for k, v in GOLDENS["0.67.0"].items()} == {k: v["verdict"] for k, v in GOLDENS["0.66.0"].items()}


def _uses(report) -> list[str]:
    return [f.message for f in report.findings if f.kind.value == "use_after_free" and f.tensor == "d"]


#: the views 0.66.0 and 0.67.0 make on a freed buffer, unchecked (their golden: "runs", the call returns)
VIEWS = ("squeeze", "unsqueeze", "reshape", "view")


@pytest.mark.parametrize("version, case", [(v, c) for v in VERSIONS for c in sorted(STEPS)])
def test_a_freed_tensor_is_answered_as_ttnn_answers_it(version, case):
    golden = GOLDENS[version][case]
    if golden["verdict"] == "runs" and golden["freed"].get("error", "").startswith("AttributeError"):
        assert case == "update_tensor_topology" and version != "0.81.1"  # no such method there: rule topology_update
        return
    report = run_steps([*SETUP, STEPS[case]], profile_for_version(version))
    uses = _uses(report)
    assert uses, "every use of a freed tensor is a use_after_free finding"
    if golden["verdict"] == "crash":
        assert report.error is not None and report.error.crash
        assert report.error.message.endswith("(ttnn 0.81.1 crashes here: SIGSEGV, observed in mock mode)")
    elif golden["verdict"] == "raise":
        assert report.error is not None and not report.error.crash
        assert report.error.message.startswith(golden["freed"]["error"] + "; d was deallocated by step 3")
    else:
        assert golden["verdict"] == "runs"
        assert "crashes" not in uses[0]
        if case == "deallocate":  # the judge's double free: no step error
            assert report.error is None
        elif case in ("get_device_tensors", "to_device", "to") or (version != "0.81.1" and case in VIEWS):
            assert report.error is None and "not check it and run" in uses[0] and "on the freed buffer" in uses[0]
        else:  # a device op meshspec cannot run on freed memory: it stops, claiming nothing of ttnn
            assert report.error is not None and not report.error.crash and "crashes" not in report.error.message


@pytest.mark.parametrize("version", VERSIONS)
def test_a_freed_tensor_given_to_copy_device_to_host(version):
    """0.81.1 dies (SIGSEGV); 0.66.0 and 0.67.0 refuse it, ``Buffer must be allocated on device.``"""
    golden = GOLDENS[version]["copy_device_to_host_tensor"]
    report = run_steps([*SETUP[:2], {"allocate_tensor_on_host": {"as": "hb", "shape": [1, 2, 32, 32]}}, SETUP[3],
                        {"copy_device_to_host_tensor": {"device_tensor": "d", "host_tensor": "hb"}}], profile_for_version(version))
    assert _uses(report)
    if golden["verdict"] == "crash":
        assert report.error.crash
    else:
        assert golden["verdict"] == "raise" and not report.error.crash
        assert report.error.message.startswith(golden["freed"]["error"] + "; d was deallocated by step 3")


@pytest.mark.parametrize("version", VERSIONS)
def test_the_parts_of_a_freed_tensor_are_refused_in_ttnn_words(version):
    """0.66/0.67 make a tensor of parts freed after they were taken (tests/golden api "deallocate_part",
    section 23 ``combine_check``), but refuse the parts of a tensor freed before: those have no mesh buffer."""
    golden = GOLDENS[version]["combine_device_tensors"]
    assert golden["verdict"] == "raise"
    report = run_steps([*SETUP, {"get_device_tensors": {"tensor": "d", "as": "parts"}},
                        {"combine_device_tensors": {"tensors": "parts", "as": "whole"}}], profile_for_version(version))
    assert report.error.message.startswith(golden["freed"]["error"]) and not report.error.crash


def test_an_unobserved_use_claims_nothing_of_ttnn():
    """all_gather_async was not probed: meshspec stops there and says it does not know."""
    assert "all_gather_async" not in GOLDEN
    report = run_steps([*SETUP, {"all_gather_async": {"tensor": "d", "dim": 3, "as": "out"}}])
    assert not report.error.crash
    assert "was not observed" in report.error.message and "crashes" not in report.error.message
