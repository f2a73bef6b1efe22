"""Wrong verdicts and crashes found by the second attack round on issue 35, held as strict xfails.

Each case is a program whose right verdict follows from meshspec's own stated rules
(docs/semantics.md sections 7, 12 and 14; issue 35 item 5: ``reference`` reports no record finding)
or from arithmetic checked by hand (the reshape case). A fix must flip the mark.
"""

from pathlib import Path

import pytest

from conftest import PARTIAL_CORE_STEPS

from meshspec.runner import run
from meshspec.scenario.loader import parse

HEAD = "meshspec: 1\nname: p\n"


def _report(text: str, profile: str = "current", data: str = ""):
    return run(parse(HEAD + data + text, Path("p.yaml")), profile)


def _kinds(report, tensor: str) -> set[str]:
    return {f.kind.value for f in report.findings if f.tensor == tensor}


# The seed (7 shards into an 8-device allocation) under uniform-by-value: the first replay of the
# captured all_gather reads (1,3), stale and never written, and its output is read back into r1;
# then a full copy and a second replay. What the first replay did stays done (section 7: findings
# of a tensor are kept as they stood; without a trace the rebound output keeps its finding).
REPLAY_TWICE = """mesh: t3k
steps:
  - allocate_tensor_on_device: {as: tokens, shape: [1, 1, 32, 32]}
  - from_torch: {as: seven, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
  - copy_host_to_device_tensor: {src: seven, dst: tokens}
  - begin_trace_capture: {trace: d}
  - all_gather: {tensor: tokens, dim: 1, as: g}
  - end_trace_capture: {trace: d}
  - execute_trace: {trace: d}
  - get_device_tensors: {tensor: g, as: p}
  - to_torch: {tensor: "p[0]", as: r1}
  - from_torch: {as: full, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}}
  - copy_host_to_device_tensor: {src: full, dst: tokens}
  - execute_trace: {trace: d}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_later_replay_keeps_the_stale_input_of_an_earlier_one(data):
    report = _report(REPLAY_TWICE, "uniform-by-value", data)
    assert any(f.kind.value == "stale_input" and f.tensor == "g" and f.step == 6 for f in report.findings)


# (1,3,32,32) sharded on dim 1 over a 1x2 mesh with the legacy mapper (torch.chunk): shards of 2 and
# 1 rows. A device op on it must run or stop with one line, never an internal error.
UNEVEN = """mesh: [1, 2]
steps:
  - from_torch: {as: h, shape: [1, 3, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}
  - from_torch: {as: k, shape: [1, 1, 32, 32], mesh_mapper: replicate, device: mesh_device}
"""


@pytest.mark.parametrize("op", [
    "concat: {tensors: [h, h], dim: 3, as: o}",
    "matmul: {a: h, b: k, as: o}",
    "pad: {tensor: h, padding: [[0, 0], [0, 1], [0, 0], [0, 0]], as: o}",
    "reshape: {tensor: h, shape: [1, 1, 64, 32], as: o}",
], ids=["concat", "matmul", "pad", "reshape"])
def test_an_op_on_uneven_legacy_shards_is_no_internal_error(op):
    _report(UNEVEN + f"  - {op}\n", "uniform-by-value")


# x height-sharded 32x64 on 4 cores, exactly its 4 shards (the user's grid fits). A slice of rows
# 0-63 and a sum over dim -2 have fewer shards than the grid: ttnn 0.81.1 keeps the input's grid on
# the output (phantom_cores under current); the reference records the grid cut to the cores that
# hold a page, as PR #55112 does (rule shard_grid, docs/semantics.md section 16).
SHARDED = """mesh: t3k
steps:
  - from_torch: {as: h, shape: [1, 1, 128, 64], mesh_mapper: replicate}
  - to_device:
      src: h
      as: x
      memory_config: {memory_layout: height_sharded, buffer_type: l1, shard_spec: {grid: [[[0, 0], [3, 0]]], shape: [32, 64]}}
  - slice: {tensor: x, starts: [0, 0, 0, 0], ends: [1, 1, 64, 64], as: sl}
  - sum: {tensor: x, dim: -2, as: su}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_the_reference_reports_no_phantom_cores_on_an_op_output(data):
    report = _report(SHARDED, "reference", data)
    assert _kinds(report, "sl") | _kinds(report, "su") == set()
    current = _report(SHARDED, "current", data)
    assert _kinds(current, "sl") == _kinds(current, "su") == {"phantom_cores"}


# Each device holds (1,1,64,64), rows 64i..64i+63 of a (1,1,128,64) tensor (Shard(2)). Reshaped to
# (1,1,32,128) per device, device i holds rows 32i..32i+31 of the whole tensor reshaped to
# (1,1,64,128) (checked with numpy): Shard(2) still describes the data, so no topology_stale.
RESHAPE_INNER = """mesh: [1, 2]
steps:
  - from_torch: {as: h, shape: [1, 1, 128, 64], mesh_mapper: {shard: 2}, device: mesh_device}
  - reshape: {tensor: h, shape: [1, 1, 32, 128], as: r}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_reshape_merging_the_sharded_dim_with_inner_dims_keeps_its_shard(data):
    assert "topology_stale" not in _kinds(_report(RESHAPE_INNER, "current", data), "r")


# A partial core write into a fresh allocation: the reference records exactly what is written
# (section 6, copy rule exact), so none of its records can say a written device holds nothing.
PARTIAL_FRESH = """mesh: t3k
steps:
""" + PARTIAL_CORE_STEPS


@pytest.mark.xfail(strict=True, reason="copy_host_to_device_tensor_partial keeps the records as they are in every profile, so reference's unrecorded allocation stays unrecorded: lost")
@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_the_reference_records_a_partial_core_write(data):
    assert "lost" not in _kinds(_report(PARTIAL_FRESH, "reference", data), "kv")


# x on row 0 of a T3K only ((1x4) [R, S(3)]), y replicated ((2x4) [R, R]): matmul(y, x) runs on
# x's 4 devices (the input recording the fewest). round 1 fixed add's reference label; matmul and
# linear still get the (2x4) label on 8 coords under reference (issue 35 item 5).
ROW0 = """mesh: t3k
steps:
  - from_torch: {as: x, shape: [1, 1, 32, 128], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}], mesh_shape_override: [1, 4]}}}
  - from_torch: {as: y, shape: [1, 1, 32, 32], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, replicate]}}}
  - matmul: {a: y, b: x, as: m}
  - linear: {a: y, b: x, bias: y, as: l}
  - add: {a: y, b: x, as: ad}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_the_reference_labels_a_matmul_with_the_devices_it_records(data):
    report = _report(ROW0, "reference", data)
    assert _kinds(report, "m") | _kinds(report, "l") == set()


def test_a_topology_stale_never_says_the_same_placements_on_both_sides():
    for f in _report(ROW0, "current").findings:
        if f.kind.value == "topology_stale":
            said, _, laid = f.message.partition(" but its data is laid out as ")
            assert said.split("its topology says ")[-1].rstrip(", ") != laid, f.message


# A trace captures neg(x) while x is a bare allocation; the name x is then rebound to a new tensor
# put on the device. A captured program runs against the captured buffers (section 12, "Traces":
# tt-metal's BeginTraceCapture), so the replay reads the allocation, never written: an
# uninitialized_read (the user's error), not neg of the new tensor.
REPLAY_REBOUND = """mesh: t3k
steps:
  - allocate_tensor_on_device: {as: x, shape: [1, 1, 32, 32]}
  - begin_trace_capture: {trace: t}
  - neg: {tensor: x, as: o}
  - end_trace_capture: {trace: t}
  - from_torch: {as: h, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}}
  - to_device: {src: h, as: x}
  - execute_trace: {trace: t}
"""


@pytest.mark.xfail(strict=True, reason="trace.execute runs the captured step's args again, so its inputs are looked up by name, not the captured buffers")
@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_replay_reads_the_captured_buffer_not_a_rebound_name(data):
    assert "uninitialized_read" in _kinds(_report(REPLAY_REBOUND, "current", data), "o")


# a on row 0 of a T3K, b on row 1 (mesh_offset_override [1, 0]), 4 devices each: a device op runs
# on the first input's devices (equal counts: extract_tensor_coordinates, section 14), so it reads
# b on row 0, memory b never wrote there. concat says so (stale_input on its 4 devices); add, mul
# and matmul skip every device where b has no spec and record none, with no finding at all.
DISJOINT = """mesh: t3k
steps:
  - from_torch: {as: a, shape: [1, 1, 32, 128], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}], mesh_shape_override: [1, 4]}}}
  - from_torch: {as: b, shape: [1, 1, 32, 128], device: mesh_device, mesh_mapper: {create_mesh_mapper: {placements: [replicate, {shard: 3}], mesh_shape_override: [1, 4], mesh_offset_override: [1, 0]}}}
  - add: {a: a, b: b, as: s}
  - concat: {tensors: [a, b], dim: 2, as: c}
"""


@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_add_reads_the_second_inputs_unwritten_devices_as_concat_does(data):
    report = _report(DISJOINT, "current", data)
    assert "stale_input" in _kinds(report, "c")  # holds today: the comparison
    assert "stale_input" in _kinds(report, "s")


# h is written on all 8 devices of a T3K, then the mesh is reshaped to 1x8: the same 8 devices in
# another shape (docs/semantics.md section 9, MeshDevice.reshape). A gather over the 1x8 mesh reads
# each device's buffer, and every one of them was written at step 0: none was "never written since
# allocation", whatever the tensor's coordinates now say.
MESH_RESHAPED = """mesh: t3k
steps:
  - from_torch: {as: h, shape: [1, 8, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}
  - MeshDevice.reshape: {shape: [1, 8]}
  - all_gather: {tensor: h, dim: 1, cluster_axis: 1, as: g}
"""


@pytest.mark.xfail(strict=True, reason="written-ness is kept per mesh coordinate, not per device: after a mesh reshape (0,4) is a device h never wrote")
@pytest.mark.parametrize("data", ["", "data: none\n"], ids=["data", "metadata"])
def test_a_gather_after_a_mesh_reshape_reads_no_never_written_memory(data):
    report = _report(MESH_RESHAPED, "current", data)
    assert [f.message for f in report.findings if f.tensor == "g" and "never been written" in f.message] == []


# neg of a tensor sharded on dim 1 over 1x4 keeps its data's layout (4) [S(1)] (section 12): device
# (0,i) holds [:, i:i+1]. The report gives every device of the output offset (0,0,0,0) and draws
# [:, :, :, :] on each in the mesh map, as if each held the whole tensor (replicas).
NEG_SHARDED = """mesh: [1, 4]
steps:
  - from_torch: {as: h, shape: [1, 4, 32, 32], mesh_mapper: {shard: 1}, device: mesh_device}
  - neg: {tensor: h, as: n}
"""


@pytest.mark.xfail(strict=True, reason="the report's per-device offset of an op output ignores the layout the op keeps")
def test_an_op_output_reports_where_each_device_s_slice_lies():
    tensors = {t.name: t for t in _report(NEG_SHARDED).tensors}
    assert [d.offset for d in tensors["n"].devices] == [d.offset for d in tensors["h"].devices]


@pytest.mark.xfail(strict=True, reason="under ccl_devices: tensor a replay regroups by the input's devices now (8), past the output buffer the capture sized for 7")
def test_the_reference_replays_a_trace_whose_input_grew_to_the_end():
    # REPLAY_TWICE under reference: the captured gather was sized for tokens' 7 written devices; the
    # second replay, after a full copy, must not stop the run at "meshspec's own limit" (exit 4),
    # which section 7 keeps for --max-memory, --max-work and the machine's memory.
    report = _report(REPLAY_TWICE, "reference")
    assert report.error is None, report.error
