"""Provenance (meshspec/sim/ops/output.py, meshspec/sim/tensor.py Read and Provenance;
docs/semantics.md section 12, "What an op read"): every value a device op reads knows whether it
was written since allocation, and an output computed from never-written memory is a stale_input
naming the output device, the input device, the op and the step, in data and metadata mode."""

from pathlib import Path

import pytest

from conftest import PARTIAL_CORE_STEPS

from meshspec.runner import execute, run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import get_profile
from meshspec.sim.runtime import Runtime
from meshspec.sim.tensor import Record

HEAD = "meshspec: 1\nname: p\nmesh: t3k\n"
ROW0 = [(0, c) for c in range(4)]
ROW1 = [(1, c) for c in range(4)]

# Issue 35 item 1: x is put on row 0 only of a T3K (mesh_shape_override [1, 4]); the gather along
# axis 1 runs on row 1 too, because ttnn's CCLs take their devices from the mesh, not from the
# tensor (tt-metal issue #31845), and reads row 1's never-written memory.
ROW_ZERO_GATHER = """steps:
  - from_torch:
      as: x
      shape: [1, 1, 32, 128]
      device: mesh_device
      mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}], mesh_shape_override: [1, 4]}}
  - all_gather: {tensor: x, dim: 3, cluster_axis: 1, as: y}
"""


def _report(steps: str, profile: str = "current", data: str = ""):
    return run(parse(HEAD + data + steps, Path("p.yaml")), profile)


def _inputs(report):
    return {f.device: f for f in report.findings if f.kind.value == "stale_input"}


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_gather_over_a_row_the_tensor_was_never_put_on_reads_never_written_memory(data):
    report = _report(ROW_ZERO_GATHER, data=data)
    found = _inputs(report)
    assert sorted(found) == ROW1  # row 0 gathered what was written there: no finding
    for (r, c), f in found.items():
        assert (f.tensor, f.step, f.op) == ("y", 1, "all_gather")
        # the output device, the input device it read (its group's first never-written one), the op and the step
        assert f.message.startswith(f"y ({r},{c}): all_gather at step 1 read x (1,0), which had never been written since allocation")
        assert "neither its topology nor its record lists that device" in f.message


def test_the_reference_gathers_over_the_tensors_own_devices_and_reads_nothing_unwritten():
    report = _report(ROW_ZERO_GATHER, "reference")
    assert report.error is None and not report.findings
    y = next(t for t in report.tensors if t.name == "y")
    assert [d.coord for d in y.devices if d.recorded] == ROW0


@pytest.mark.parametrize("profile", ["current", "reference"])
def test_an_op_on_an_allocation_nothing_was_copied_into_is_the_programs_uninitialized_read(profile):
    # the devices its own topology lists, never written and no record lie to explain it: a user
    # error (kinds.py uninitialized_read), which the reference reports too
    steps = ("steps:\n  - allocate_tensor_on_device: {as: t, shape: [1, 1, 32, 32]}\n"
             "  - neg: {tensor: t, as: n}\n"
             "  - neg: {tensor: n, as: m}\n"
             "  - all_gather: {tensor: t, dim: 3, as: g}\n")
    report = _report(steps, profile)
    found = {(f.tensor, f.device): f for f in report.findings if f.kind.value == "uninitialized_read"}
    if profile == "current":  # the reference records no device of a bare allocation: neg has nothing to run on
        assert {d for n, d in found if n == "n"} == set(ROW0 + ROW1)
    assert {d for n, d in found if n == "g"} == set(ROW0 + ROW1)
    assert all("which had never been written since allocation" in f.message for f in found.values())
    assert _inputs(report) == {}  # not the runtime's: no stale_input
    # not transitive: m read n, whose every page neg wrote
    assert not [f for f in report.findings if f.tensor == "m"]


def test_a_read_of_pages_a_partial_write_never_reached_counts_them():
    steps = """steps:
""" + PARTIAL_CORE_STEPS + """  - neg: {tensor: kv, as: n}
"""
    found = _inputs(_report(steps))
    assert sorted(found) == ROW0 + ROW1
    # core (0,0) holds pages 0-3 of the six: the other two were never written
    assert all("2 of whose 6 pages read had never been written since allocation" in f.message for f in found.values())


def test_a_captured_program_reads_when_the_trace_is_replayed_not_when_it_is_captured():
    steps = ("steps:\n  - allocate_tensor_on_device: {as: t, shape: [1, 1, 32, 32]}\n"
             "  - begin_trace_capture: {trace: tr}\n"
             "  - neg: {tensor: t, as: n}\n"
             "  - end_trace_capture: {trace: tr}\n"
             "  - from_torch: {as: h, shape: [1, 1, 32, 32]}\n"
             "  - copy_host_to_device_tensor: {src: h, dst: t}\n"
             "  - execute_trace: {trace: tr}\n")
    assert _inputs(_report(steps)) == {}  # captured at step 2 over a never-written t, replayed at step 6 over a written one


def test_provenance_is_a_fact_of_the_simulator_the_judge_never_writes():
    scenario = parse(HEAD + ROW_ZERO_GATHER, Path("p.yaml"))
    rt = Runtime(scenario.mesh_shape, get_profile("current"), scenario.folder)
    for step in scenario.steps:
        execute(rt, step)
    y = rt.tensors["y"]
    made = y.provenance
    assert (made.step, made.op, made.claims) == (1, "all_gather", True)
    read = made.reads[(1, 2)][0]
    assert (read.tensor, read.device, read.pages, read.unwritten, read.recorded) == ("x", (1, 0), 1, 1, False)  # one tile a device
    with pytest.raises(AttributeError):
        read.unwritten = 0
    with pytest.raises(AttributeError):
        made.step = 3
    assert not {"truth", "sources", "tainted", "dishonest", "gathered_padding"} & set(Record.__slots__)


def test_the_data_view_says_which_devices_hold_values_computed_from_never_written_memory():
    # issue 35 item 1: --view data showed row 1 as NaN with no word of why; the device is written
    # (by the gather), so its note names the op, the step and the input device read
    report = run(parse(HEAD + ROW_ZERO_GATHER, Path("p.yaml")), "current", data=True)
    y = next(t for t in report.tensors if t.name == "y")
    notes = {c: d.note for c, d in y.data.items()}
    assert all(notes[c] == "computed by all_gather at step 1 from never-written memory of x (1,0)" for c in ROW1)
    assert all(notes[c] == "" for c in ROW0)
