"""meshspec against the real ttnn 0.81.1: golden data recorded in mock mode on this CPU.

tests/golden/ttnn_0_81_1.json was written by tools/golden/record_ttnn.py (see its docstring to
re-record). Each case there is what the real library said; meshspec's `current` profile must say
the same (docs/semantics.md sections 3-6).
"""

import itertools
import json
from pathlib import Path

import pytest
import yaml

from meshspec.errors import TTFatal
from meshspec.sim.mapping import distribute
from meshspec.sim.placement import Replicate, Shard
from meshspec.sim.profiles import get_profile
from meshspec.runner import execute
from meshspec.sim.runtime import Runtime, UseAfterFree
from meshspec.scenario.loader import parse
from meshspec.sim.mesh import SYSTEMS, open_shape
from meshspec.sim.spec import Arch, BufferType, DataType, Layout, make_spec
from meshspec.sim.tensor import DeviceTensor, HostTensor

def placement_from_json(value):
    """A placement as the golden JSON writes it: "R" or {"shard": d}."""
    return Replicate() if value == "R" else Shard(value["shard"])


GOLDEN = json.loads((Path(__file__).parent / "golden" / "ttnn_0_81_1.json").read_text())


def _strip(err: str) -> str:
    """The real TT_FATAL message, which a meshspec step error starts with word for word (meshspec's
    explanation follows it)."""
    return err.removeprefix("TT_FATAL: ")


# -- section 3: specs ----------------------------------------------------------------------------
@pytest.mark.parametrize("case", GOLDEN["specs"], ids=lambda c: f"{c['shape']}-{c['dtype']}-{c['layout']}-{c['tile']}-{c['memory']}")
def test_spec_matches_ttnn(case):
    args = (tuple(case["shape"]), DataType(case["dtype"]), Layout(case["layout"]), tuple(case["tile"]), BufferType(case["memory"]))
    if case["error"]:
        with pytest.raises(TTFatal) as err:
            make_spec(*args)
        assert str(err.value).startswith(_strip(case["error"]))
        return
    spec = make_spec(*args)
    assert list(spec.padded_shape) == case["padded_shape"]
    assert spec.page_size == case["page_size"]
    assert spec.aligned_page_size == case["aligned_page_size"]
    assert spec.num_pages == case["num_pages"]


# -- section 2: systems and the mesh shapes they open; section 3: alignment per architecture ----
@pytest.mark.parametrize("case", GOLDEN["systems"], ids=lambda c: f"{c['system']}-{c['shape']}")
def test_system_opens_the_mesh_ttnn_opens(case):
    requested = tuple(case["shape"]) if case["shape"] is not None else None
    if case["error"]:
        with pytest.raises(TTFatal) as err:
            open_shape(case["system"], requested)
        assert str(err.value) == _strip(case["error"])
        return
    assert list(open_shape(case["system"], requested)) == case["opened"]
    assert SYSTEMS[case["system"]].arch == case["arch"]


ARCH_SPECS = [(row["system"], spec) for row in GOLDEN["systems"] for spec in row.get("specs", [])]


@pytest.mark.parametrize("system, case", ARCH_SPECS, ids=lambda c: c if isinstance(c, str) else f"{c['shape']}-{c['dtype']}-{c['memory']}")
def test_spec_alignment_per_architecture(system, case):
    spec = make_spec(
        tuple(case["shape"]), DataType(case["dtype"]), Layout(case["layout"]), tuple(case["tile"]),
        BufferType(case["memory"]), Arch(SYSTEMS[system].arch),
    )
    assert (spec.page_size, spec.aligned_page_size, spec.num_pages) == (case["page_size"], case["aligned_page_size"], case["num_pages"])


# -- section 4: mappers --------------------------------------------------------------------------
@pytest.mark.parametrize(
    "case", GOLDEN["mappers"], ids=lambda c: f"{c['mesh']}-{c['shape']}-{c['placements']}-{c['mesh_shape_override']}"
)
def test_mapper_matches_ttnn(case):
    placements = tuple(placement_from_json(p) for p in case["placements"])
    override = tuple(case["mesh_shape_override"]) if case["mesh_shape_override"] else None
    args = (tuple(case["shape"]), tuple(case["mesh"]), placements, override)
    if case["error"]:
        with pytest.raises(TTFatal) as err:
            distribute(*args)
        assert str(err.value).startswith(_strip(case["error"])), (str(err.value), case["error"])
        return
    d = distribute(*args)
    assert list(d.topology.distribution_shape) == case["distribution_shape"]
    assert [p.to_json() for p in d.topology.placements] == case["topology_placements"]
    assert [list(c) for c in d.topology.coords] == case["coords"]
    got = [{"coord": list(s.coord), "shape": list(s.shape), "offset": list(s.offset)} for s in d.slots]
    assert got == case["shards"]


# -- section 6: the runtime, event by event ------------------------------------------------------
def _from_torch(name, src):
    step = {"as": name, "shape": src["shape"], "dtype": src["dtype"], "layout": src["layout"]}
    for key in ("tile", "memory"):
        if key in src:
            step[key] = src[key]
    mapper = src.get("mapper")
    if mapper == "replicate_tensor_to_mesh_mapper":
        step["mesh_mapper"] = "replicate"
    elif mapper == "shard_tensor_to_mesh_mapper":
        step["mesh_mapper"] = {"shard": src["dim"]}
    elif "placements" in src:
        placements = ["replicate" if p == "R" else p for p in src["placements"]]
        step["mesh_mapper"] = {"placements": placements}
        if src["mesh_shape_override"] is not None:
            step["mesh_mapper"]["mesh_shape"] = src["mesh_shape_override"]
    return {"from_torch": step}


def _composer(c):
    if c["function"] == "concat_mesh_to_tensor_composer":
        return {"concat": c["dim"]}
    out = {"concat": c["dims"]}
    if c.get("mesh_shape_override"):
        out["mesh_shape"] = c["mesh_shape_override"]
    return out


def _translate(event, n):
    """Steps reproducing one golden event, and the name of the tensor it observes."""
    op, a = event["op"], event["args"]
    if op == "allocate_tensor_on_device":
        fields = {k: a[k] for k in ("shape", "dtype", "layout", "tile", "memory")}
        return [{"allocate_tensor_on_device": {"as": a["out"], **fields}}], a["out"]
    if op == "copy_host_to_device_tensor":
        return [_from_torch(f"h{n}", a["src"]), {"copy_host_to_device_tensor": {"src": f"h{n}", "dst": a["dst"]}}], a["dst"]
    if op in ("to_device", "Tensor.to"):
        steps = [] if "src_tensor" in a else [_from_torch(f"h{n}", a["src"])]
        src = a.get("src_tensor", f"h{n}")
        step = {"to_device": {"src": src, "as": a["out"]}} if op == "to_device" else {"to": {"tensor": src, "as": a["out"]}}
        return steps + [step], a["out"]
    if op == "to_numpy":  # Tensor.to_numpy() without a composer: to_torch with none
        return [_from_torch(f"h{n}", a["src"]), {"to_torch": {"tensor": f"h{n}"}}], f"h{n}"
    if op == "cpu" and "out" in a:
        return [{"cpu": {"tensor": a["tensor"], "as": a["out"]}}], a["out"]
    if op == "cpu":
        return [{"cpu": {"tensor": a["tensor"]}}], None
    if op == "deallocate":
        return [{"deallocate": {"tensor": a["tensor"]}}], None
    if op == "aggregate_tensor":
        steps = []
        src = a.get("tensor")
        if src is None:
            steps.append(_from_torch(f"h{n}", a["src"]))
            src = f"h{n}"
        steps.append({"to_torch": {"tensor": src, "mesh_composer": _composer(a["composer"]), "as": f"out{n}"}})
        return steps, f"out{n}"
    return None, None  # ttnn-only probes (aliases, accessors, distribute_tensor): nothing to replay


RUNTIME_CASES = [r for r in GOLDEN["runtime"] if r["name"] != "helper_mappers"]


@pytest.mark.parametrize("case", RUNTIME_CASES, ids=lambda r: r["name"])
def test_runtime_matches_ttnn(case):
    rt = Runtime((2, 4), get_profile("current"))
    checked = 0
    for n, event in enumerate(case["events"]):
        steps, subject = _translate(event, n)
        if steps is None:
            continue
        if "SIGSEGV" in (event["error"] or ""):
            # ttnn crashes on a deallocated tensor; meshspec reports use after free instead.
            with pytest.raises(UseAfterFree):
                _run(rt, steps)
            continue
        if event["error"]:
            with pytest.raises(TTFatal) as err:
                _run(rt, steps)
            assert str(err.value).startswith(_strip(event["error"])), (event["error"], str(err.value))
        else:
            _run(rt, steps)
        if subject is None or event["topology"] is None:
            continue
        t = rt.tensors[subject]
        if isinstance(t, DeviceTensor):
            rec = t.record
            assert rec.topology.to_json() == event["topology"], event
            assert [list(c) for c in rec.recorded] == event["device_coords"], event
            assert list(rec.spec.shape) == event["shape"]
            assert len([c for c in rec.recorded if c in rec.specs]) == event["cpu_shards"]
            if event["buffer_type"] is not None:
                assert rec.spec.memory.value == event["buffer_type"], event
        else:
            assert isinstance(t, HostTensor)
            assert t.topology.to_json() == event["topology"], event
            assert len(t.shards) == event["cpu_shards"], event
            assert [list(c) for c in t.shards] == event["cpu_coords"], event
            values = next(iter(t.shards.values())).values
            assert list(values.shape) == event["shape"], event
            if event["values_sample"]:
                # arange data: each value names the source element that landed at a block's origin
                assert _sample(values, event["args"]["block"]) == event["values_sample"], event
        checked += 1
    assert checked >= 1


def _sample(values, block):
    grid = [range(0, n, b) for n, b in zip(values.shape, block)]
    return [float(values[index]) for index in itertools.product(*grid)]


def _run(rt, steps):
    names = sorted(k for k, v in rt.tensors.items())
    # Declare the tensors that exist so the loader's name check passes, then replay the new steps.
    prelude = []
    for name in names:
        t = rt.tensors[name]
        prelude.append({"from_torch": {"as": name, "shape": [1]}} if isinstance(t, HostTensor) else {"allocate_tensor_on_device": {"as": name, "shape": [1]}})
    doc = {"meshspec": 1, "mesh": [2, 4], "steps": prelude + steps}
    scenario = parse(yaml.safe_dump(doc, sort_keys=False))
    base = len(rt.ops) + 1000
    for step in scenario.steps[len(prelude):]:
        execute(rt, type(step)(base + step.index, step.op, step.args, step.line))
