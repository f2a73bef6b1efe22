"""A deallocated tensor used by each op, as ttnn 0.81.1 answers it (tests/golden/ttnn_0_81_1_freed.json,
recorded in mock mode by tools/golden/record_freed.py; docs/semantics.md section 6).

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

GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_freed.json").read_text())["ops"]

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
    assert set(GOLDEN) == set(STEPS) | set(ELSEWHERE)


def _uses(report) -> list[str]:
    return [f.message for f in report.findings if f.kind.value == "use_after_free" and f.tensor == "d"]


@pytest.mark.parametrize("case", sorted(STEPS))
def test_a_freed_tensor_is_answered_as_ttnn_answers_it(case):
    golden = GOLDEN[case]
    report = run_steps([*SETUP, STEPS[case]])
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
        elif case in ("get_device_tensors", "to_device", "to"):
            assert report.error is None and "does not check it and runs on the freed buffer" in uses[0]
        else:  # a device op meshspec cannot run on freed memory: it stops, claiming nothing of ttnn
            assert report.error is not None and not report.error.crash and "crashes" not in report.error.message


def test_a_freed_tensor_given_to_copy_device_to_host_crashes():
    assert GOLDEN["copy_device_to_host_tensor"]["verdict"] == "crash"
    report = run_steps([*SETUP[:2], {"allocate_tensor_on_host": {"as": "hb", "shape": [1, 2, 32, 32]}}, SETUP[3],
                        {"copy_device_to_host_tensor": {"device_tensor": "d", "host_tensor": "hb"}}])
    assert report.error.crash and _uses(report)


def test_the_parts_of_a_freed_tensor_are_refused_in_ttnn_words():
    golden = GOLDEN["combine_device_tensors"]
    assert golden["verdict"] == "raise"
    report = run_steps([*SETUP, {"get_device_tensors": {"tensor": "d", "as": "parts"}},
                        {"combine_device_tensors": {"tensors": "parts", "as": "whole"}}])
    assert report.error.message.startswith(golden["freed"]["error"]) and not report.error.crash


def test_an_unobserved_use_claims_nothing_of_ttnn():
    """all_gather_async was not probed: meshspec stops there and says it does not know."""
    assert "all_gather_async" not in GOLDEN
    report = run_steps([*SETUP, {"all_gather_async": {"tensor": "d", "dim": 3, "as": "out"}}])
    assert not report.error.crash
    assert "was not observed" in report.error.message and "crashes" not in report.error.message
