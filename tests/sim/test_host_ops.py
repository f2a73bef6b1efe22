"""Host ops on a mapped host tensor (docs/semantics.md section 18): shard by shard, the topology
kept; which of them an era refused on a multi-shard tensor (rule ``host_shard_ops``: issue #6889
before PR #6976, issue #16870 before PR #21628); a lie read from a device survives a host op."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.errors import ScenarioError

MAPPED = "  - from_torch: {as: h, shape: [1, 1, 32, 48], layout: %s, mesh_mapper: {placements: [replicate, {shard: 3}]}}\n"
PLAIN = "  - from_torch: {as: h, shape: [1, 1, 32, 48], layout: %s}\n"


def _run(steps: str, profile: str):
    text = "meshspec: 1\nname: h\nmesh: {system: t3k, shape: [1, 8]}\nsteps:\n" + steps
    return run(parse(text, Path("h.yaml")), profile)


def _profile(choice: str) -> str:
    return f"{{base: current, host_shard_ops: {choice}}}"


# (steps after the input, input layout) -> the words each era refuses it with (None: it runs)
CASES = [
    ("  - to_layout: {tensor: h, layout: row_major, as: o}\n", "tile",
     {"per_shard": None, "no_unpad": "Device storage isn't supported", "none": "Tensor must be on host for unpadding"}),
    ("  - to_layout: {tensor: h, layout: tile, as: o}\n", "row_major",
     {"per_shard": None, "no_unpad": None, "none": "Tensor must be on host for padding"}),
    ("  - unpad: {tensor: h, output_tensor_start: [0, 0, 0, 0], output_tensor_end: [1, 1, 16, 4], as: o}\n", "row_major",
     {"per_shard": None, "no_unpad": "Device storage isn't supported", "none": "Tensor must be on host for unpadding"}),
    ("  - pad_to_tile: {tensor: h, as: o}\n", "tile",
     {"per_shard": None, "no_unpad": None, "none": "Tensor must be on host for padding"}),
    ("  - pad: {tensor: h, padding: [[0, 0], [0, 26]], as: o}\n", "tile",
     {"per_shard": None, "no_unpad": None, "none": "Tensor must be on host for padding"}),
    ("  - typecast: {tensor: h, dtype: float32, as: o}\n", "tile", {"per_shard": None, "no_unpad": None, "none": None}),
    ("  - reshape: {tensor: h, shape: [1, 32, 6], as: o}\n", "tile", {"per_shard": None, "no_unpad": None, "none": None}),
]


@pytest.mark.parametrize("choice", ["per_shard", "no_unpad", "none"])
@pytest.mark.parametrize("steps, layout, refusal", CASES, ids=lambda v: v.split(":")[0].strip(" -") if isinstance(v, str) and ":" in v else None)
def test_each_era_refuses_the_host_ops_it_could_not_run_on_a_mapped_tensor(steps, layout, refusal, choice):
    text = "meshspec: 1\nname: h\nmesh: {system: t3k, shape: [1, 8]}\nprofile: " + _profile(choice) + "\nsteps:\n" + MAPPED % layout + steps
    report = run(parse(text, Path("h.yaml")), "custom")
    want = refusal[choice]
    if want is None:
        assert report.error is None, report.error
        topo = report.to_json()["tensors"][-1]["topology"]
        assert topo["distribution_shape"] == [1, 8] and len(topo["coords"]) == 8
    else:
        assert report.error is not None and report.error.message.startswith(want), report.error
        assert "a multi-device host tensor of 8 shards" in report.error.message


@pytest.mark.parametrize("choice", ["no_unpad", "none"])
def test_a_plain_host_tensor_of_one_buffer_was_never_refused(choice):
    text = ("meshspec: 1\nname: h\nmesh: {system: t3k, shape: [1, 8]}\nprofile: " + _profile(choice) + "\nsteps:\n" + PLAIN % "tile"
            + "  - to_layout: {tensor: h, layout: row_major, as: o}\n")
    assert run(parse(text, Path("h.yaml")), "custom").error is None


def test_a_host_op_binds_a_host_tensor_and_a_device_op_a_device_tensor():
    # the output's kind follows the input's: a host op's output cannot be copied from as a device tensor
    with pytest.raises(ScenarioError, match="needs a device tensor"):
        parse("meshspec: 1\nname: h\nmesh: t3k\nsteps:\n" + MAPPED % "tile"
              + "  - to_layout: {tensor: h, layout: row_major, as: o}\n  - cpu: {tensor: o, as: back}\n", Path("h.yaml"))
    parse("meshspec: 1\nname: h\nmesh: t3k\nsteps:\n" + MAPPED % "tile" + "  - to_device: {src: h, device: mesh_device, as: d}\n"
          "  - to_layout: {tensor: d, layout: row_major, as: o}\n  - cpu: {tensor: o, as: back}\n", Path("h.yaml"))


def test_host_only_calls_refuse_a_device_tensor_where_the_scenario_names_it():
    with pytest.raises(ScenarioError, match="unpad needs a host tensor"):
        parse("meshspec: 1\nname: h\nmesh: t3k\nsteps:\n  - from_torch: {as: d, shape: [1, 1, 32, 32], device: mesh_device}\n"
              "  - unpad: {tensor: d, output_tensor_start: [0, 0, 0, 0], output_tensor_end: [1, 1, 16, 16], as: o}\n", Path("h.yaml"))


SEED = ("  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}\n"
        "  - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}\n"
        "  - copy_host_to_device_tensor: {src: src, dst: dst}\n"
        "  - cpu: {tensor: dst, as: back}\n"
        "  - to_layout: {tensor: back, layout: row_major, as: back_rm}\n"
        "  - typecast: {tensor: back_rm, dtype: float32, as: back_f32}\n"
        "  - to_torch: {tensor: back_f32, mesh_composer: {concat: 1}}\n")


def test_a_stale_read_stays_stale_through_host_ops_and_is_judged_where_it_was_read():
    text = "meshspec: 1\nname: s\nmesh: t3k\nsteps:\n" + SEED
    report = run(parse(text, Path("s.yaml")), "uniform-by-value")
    got = {(f.kind.value, f.tensor, f.device) for f in report.findings}
    assert ("stale", "back_f32", (1, 3)) in got and ("stale", "back_rm", (1, 3)) in got
    assert ("data_mismatch", "dst", (1, 3)) in got
    # every other device read what was written: a layout or dtype change is no lie of its own
    assert not [f for f in report.findings if f.tensor in ("back_rm", "back_f32") and f.device != (1, 3)]
    assert not run(parse(text, Path("s.yaml")), "reference").findings


def test_issue_8967s_from_torch_maps_the_tile_padded_tensor_and_keeps_its_padding_as_data():
    # ttnn/ttnn/operations/core.py of 2024: tilized, reshaped to with_tile_padding(), mapped, never reshaped back
    import numpy as np

    from meshspec.runner import execute
    from meshspec.sim.runtime import Runtime

    text = ("meshspec: 1\nname: b\nmesh: {system: t3k, shape: [1, 2]}\nprofile: {base: current, block_float_mapper: padded}\nsteps:\n"
            "  - from_torch: {as: x, shape: [1, 1, 16, 48], dtype: bfloat8_b, data: {fill: 1}, "
            "mesh_mapper: {placements: [replicate, {shard: 3}]}}\n")
    scenario = parse(text, Path("b.yaml"))
    rt = Runtime(scenario.mesh_shape, scenario.profiles["custom"], scenario.folder)
    for step in scenario.steps:
        execute(rt, step)
    x = rt.tensors["x"]
    assert x.shape == (1, 1, 32, 64)
    first, second = x.shards[(0, 0)], x.shards[(0, 1)]
    assert first.spec.shape == second.spec.shape == (1, 1, 32, 32)
    assert np.all(first.values[:, :, :16, :] == 1) and np.all(first.values[:, :, 16:, :] == 0)  # padding rows as data
    assert np.all(second.values[:, :, :16, :16] == 1) and np.all(second.values[:, :, :, 16:] == 0)  # padding columns too


def test_a_host_op_during_a_trace_capture_runs_once_on_the_host_and_is_not_replayed():
    # BeginTraceCapture captures device programs; a host op is none (section 18). Replayed, the
    # unpad would run again on what `o` names now, a TILE tensor it refuses.
    text = ("meshspec: 1\nname: t\nmesh: t3k\nsteps:\n" + MAPPED % "tile"
            + "  - begin_trace_capture: {trace: tid}\n"
            "  - to_layout: {tensor: h, layout: row_major, as: o}\n"
            "  - unpad: {tensor: o, output_tensor_start: [0, 0, 0, 0], output_tensor_end: [1, 1, 16, 6], as: u}\n"
            "  - end_trace_capture: {trace: tid}\n"
            "  - to_layout: {tensor: h, layout: tile, as: o}\n"
            "  - execute_trace: {trace: tid}\n")
    report = run(parse(text, Path("t.yaml")), "current")
    assert report.error is None, report.error


def test_an_unpad_past_a_shard_stops_in_meshspecs_words_naming_the_shard():
    # ttnn 0.81.1 accepts it (observed: a (16, 7) region of a (32, 6) shard); what it reads is unknown
    text = ("meshspec: 1\nname: u\nmesh: {system: t3k, shape: [1, 8]}\nsteps:\n" + MAPPED % "row_major"
            + "  - unpad: {tensor: h, output_tensor_start: [0, 0, 0, 0], output_tensor_end: [1, 1, 16, 7], as: u}\n")
    report = run(parse(text, Path("u.yaml")), "current")
    assert report.error is not None and report.exit_code == 4
    assert "from [0, 0, 0, 0] to [1, 1, 16, 7] is not a region of its shard at [0, 0], [1, 1, 32, 6]" in report.error.message
