"""Wrong verdicts found by the issue-35 attack (tester's report), held as strict xfails until fixed.

Each case is a program whose right verdict follows from meshspec's own stated rules
(docs/semantics.md sections 7, 12 and 14; issue 35 item 5: ``reference`` reports no record finding).
"""

from pathlib import Path

import pytest

from conftest import PARTIAL_CORE_STEPS

from meshspec.kinds import KINDS
from meshspec.runner import run
from meshspec.scenario.loader import parse

HEAD = "meshspec: 1\nname: p\n"


def _report(text: str, profile: str = "current", data: str = ""):
    return run(parse(HEAD + data + text, Path("p.yaml")), profile)


def _record_findings(report):
    return sorted((f.kind.value, f.tensor) for f in report.findings if not KINDS[f.kind].user_error)


# a (2 shards) and b (1 shard: dim 1 has one row) on a 1x2 mesh: a device op runs on the input
# with fewer coordinates (extract_tensor_coordinates; add and matmul do), so concat runs on (0,0).
CONCAT_FEWER = """mesh: [1, 2]
steps:
  - from_torch: {as: a, shape: [1, 2, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}
  - from_torch: {as: b, shape: [1, 1, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}
  - concat: {tensors: [a, b], dim: 3, as: c}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_concat_runs_on_the_inputs_fewest_devices_and_reads_nothing_unwritten(data):
    report = _report(CONCAT_FEWER, "reference", data)
    assert _record_findings(report) == []


# A 1-D shard over the 8 devices of a T3K, gathered along mesh axis 0: an ordinary program.
GATHER_AXIS0 = """mesh: t3k
steps:
  - from_torch: {as: x, shape: [1, 1, 32, 256], mesh_mapper: {shard: 3}, device: mesh_device}
  - all_gather: {tensor: x, dim: 3, cluster_axis: 0, as: g}
"""


def test_the_reference_reports_no_topology_stale_after_a_collective():
    assert _record_findings(_report(GATHER_AXIS0, "reference")) == []


# y replicated as (2x4) [R, R], x on row 0 only: add runs on x's 4 devices; the reference's exact
# topology must list the devices it records.
ADD_ROW0 = """mesh: t3k
steps:
  - from_torch: {as: x, shape: [1, 1, 32, 128], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}], mesh_shape_override: [1, 4]}}}
  - from_torch: {as: y, shape: [1, 1, 32, 32], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, replicate]}}}
  - add: {a: y, b: x, as: s}
"""


def test_the_reference_labels_an_op_output_with_the_devices_it_records():
    assert _record_findings(_report(ADD_ROW0, "reference")) == []


# A height-sharded tensor whose core (0,0) (pages 0-3) got the current write and (1,0) (pages 4-5)
# did not; the slice of rows 0-63 reads pages 0-3 only.
PARTIAL_SLICE = """mesh: t3k
steps:
""" + PARTIAL_CORE_STEPS + """  - slice: {tensor: kv, starts: [0, 0, 0, 0], ends: [1, 1, 64, 64], as: top}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_slice_of_written_pages_is_no_stale_input(data):
    report = _report(PARTIAL_SLICE, "current", data)
    # section 14: a stale_input where every byte read held the input's current content is unsupported
    assert [f for f in report.findings if f.kind.value == "stale_input" and f.tensor == "top"] == []


# The seed under uniform-by-value, then reallocate: dst is freed by the op.
SEED_REALLOCATE = """mesh: t3k
profile: uniform-by-value
steps:
  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
  - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
  - copy_host_to_device_tensor: {src: src, dst: dst}
  - reallocate: {tensor: dst, as: o}
"""


def test_reallocate_keeps_the_findings_of_the_tensor_it_frees():
    report = _report(SEED_REALLOCATE, "uniform-by-value")
    # section 7: the findings of a tensor that is deallocated are kept, as they stood
    assert ("stale", "dst") in _record_findings(report)


# A captured program runs when the trace is replayed (section 12); o is read before any replay.
CAPTURED_NOT_REPLAYED = """mesh: t3k
steps:
  - from_torch: {as: h, shape: [1, 1, 32, 32], mesh_mapper: replicate}
  - to_device: {src: h, as: t}
  - begin_trace_capture: {trace: tr}
  - neg: {tensor: t, as: o}
  - end_trace_capture: {trace: tr}
  - to_torch: {tensor: o, mesh_composer: {concat: 0}, as: r}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_an_output_read_before_its_trace_is_replayed_was_never_written(data):
    report = _report(CAPTURED_NOT_REPLAYED, "current", data)
    o = next(t for t in report.tensors if t.name == "o")
    assert all(d.written_bytes == 0 for d in o.devices)
