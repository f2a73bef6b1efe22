"""ttnn 0.81.1's host ops on a mapped host tensor, replayed (tests/golden/ttnn_0_81_1_host_ops.json,
recorded in the mock with no device by tools/golden/record_host_ops.py; docs/semantics.md section
18): to_layout, typecast, to_dtype, reshape, unpad, pad_to_tile and pad change each shard on its own
and keep the topology, coords and every other shard's place; each shard's spec and values are the
library's; each refusal starts with the library's own words."""

import json
from pathlib import Path

import numpy as np
import pytest
import yaml

from meshspec.runner import execute
from meshspec.scenario.loader import parse
from meshspec.sim.placement import Shard
from meshspec.sim.profiles import get_profile
from meshspec.sim.runtime import Runtime
from meshspec.errors import MeshspecError

DATA = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1_host_ops.json").read_text())
GOLDEN, INPUTS = DATA["host_ops"], DATA["inputs"]


def _run(case, profile="current"):
    """The case as a scenario, run step by step: the runtime (its tensors), and the error if any."""
    shape, dtype, layout, mesh, placements = INPUTS[case["input"]]
    args = {"tensor": "x"} | case["args"] | {"as": "out"}
    made = {"as": "x", "shape": shape, "dtype": dtype, "layout": layout, "mesh_mapper": {"placements": placements}}
    text = (f"meshspec: 1\nname: h\nmesh: {{system: t3k, shape: {mesh}}}\nsteps:\n"
            f"  - from_torch: {yaml.safe_dump(made, default_flow_style=True, width=1000).strip()}\n"
            f"  - {case['op']}: {yaml.safe_dump(args, default_flow_style=True, width=1000).strip()}\n")
    scenario = parse(text, Path("h.yaml"))
    rt = Runtime(scenario.mesh_shape, get_profile(profile), scenario.folder)
    try:
        for step in scenario.steps:
            execute(rt, step)
    except MeshspecError as err:
        return rt, err
    return rt, None


@pytest.mark.parametrize("case", [c for c in GOLDEN if c["error"] is None], ids=lambda c: c["name"])
def test_host_ops_keep_the_topology_and_change_each_shard_as_the_real_library_does(case):
    rt, err = _run(case)
    assert err is None, err
    out, want = rt.tensors["out"], case["output"]
    topo = out.topology
    assert list(topo.distribution_shape) == want["distribution_shape"]
    assert [{"shard": p.dim} if isinstance(p, Shard) else "R" for p in topo.placements] == want["placements"]
    assert [list(c) for c in topo.coords] == want["coords"]
    assert len(out.shards) == len(want["shards"]) == case["input_shards"]
    for (c, shard), w in zip(sorted(out.shards.items()), want["shards"]):
        spec = shard.spec
        assert (list(spec.shape), list(spec.padded_shape), spec.layout.value, spec.dtype.value) == (
            w["shape"], w["padded_shape"], w["layout"], w["dtype"]), c
        got = np.asarray(shard.values, dtype=np.float64).ravel()
        assert got.tolist() == w["values"], c


@pytest.mark.parametrize("case", [c for c in GOLDEN if c["error"] is not None], ids=lambda c: c["name"])
def test_host_op_refusals_start_with_the_real_librarys_words(case):
    _, err = _run(case)
    assert err is not None and str(err).startswith(case["error"]), err


def test_the_golden_covers_every_host_op():
    assert {c["op"] for c in GOLDEN} == {"to_layout", "typecast", "to_dtype", "reshape", "unpad", "pad_to_tile", "pad"}


BLOCK_FLOAT = DATA["block_float"]


def _mapped(case, profile):
    made = {"as": "x", "shape": case["shape"], "dtype": "bfloat8_b", "layout": "tile", "mesh_mapper": {"placements": case["placements"]}}
    text = (f"meshspec: 1\nname: b\nmesh: {{system: t3k, shape: {case['mesh']}}}\nprofile: {profile}\nsteps:\n"
            f"  - from_torch: {yaml.safe_dump(made, default_flow_style=True, width=1000).strip()}\n")
    scenario = parse(text, Path("b.yaml"))
    rt = Runtime(scenario.mesh_shape, scenario.profiles["custom"] if scenario.profiles else get_profile(profile), scenario.folder)
    for step in scenario.steps:
        execute(rt, step)
    return rt.tensors["x"]


@pytest.mark.parametrize("case", BLOCK_FLOAT, ids=lambda c: c["name"])
def test_from_torch_maps_a_block_float_tensor_by_its_logical_shape_as_the_real_library_does(case):
    x = _mapped(case, "current")
    assert [{"shape": list(s.spec.shape), "padded_shape": list(s.spec.padded_shape)} for _, s in sorted(x.shards.items())] == case["shards"]
