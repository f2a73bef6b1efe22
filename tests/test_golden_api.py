"""The calls around the copy, replayed against what ttnn 0.81.1 said in mock mode (tests/golden
``api``, recorded by tools/golden/record_ttnn.py; docs/semantics.md section 9).

Each golden scenario is a list of ttnn calls with what ttnn reported after each: the subject's
storage, topology, device coordinates, readback coordinates, shape and buffer type, or the error.
Every call is translated into meshspec steps (below) and run on one runtime, in order; meshspec
must report the same. Calls that only the mock can make or that say nothing meshspec models (a
second Python handle, counting submeshes, kernel builds the mock cannot do) are skipped, and say so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_golden import words

from meshspec.errors import StepInputError, TTFatal
from meshspec.runner import execute
from meshspec.scenario.loader import LoadedStep
from meshspec.sim.ops import OPS
from meshspec.sim.profiles import get_profile, profile_for_version
from meshspec.sim.runtime import Runtime
from meshspec.sim.tensor import DeviceTensor, HostTensor
from meshspec.typed import validate

VERSIONS = ("0.81.1", "0.67.0", "0.66.0")
GOLDEN = {v: json.loads((Path(__file__).parent / "golden" / f"ttnn_{v.replace('.', '_')}.json").read_text()) for v in VERSIONS}
CASES = [(v, c) for v in VERSIONS for c in GOLDEN[v]["api"]]
MESH = "mesh_device"


def name(n: str) -> str:
    """The recorder's ``parts.0`` is meshspec's ``parts[0]``."""
    if "." in n and n.rsplit(".", 1)[1].isdigit():
        base, i = n.rsplit(".", 1)
        return f"{base}[{i}]"
    return n


def mapper(src: dict):
    if "placements" in src:
        out = {"placements": src["placements"]}
        if src.get("mesh_shape_override") is not None:
            out["mesh_shape_override"] = src["mesh_shape_override"]
        if src.get("mesh_offset_override") is not None:
            out["mesh_offset_override"] = src["mesh_offset_override"]
        return {"create_mesh_mapper": out}
    kind = src.get("mapper")
    if kind is None:
        return None
    if kind in ("replicate_tensor_to_mesh_mapper", "ReplicateTensorToMesh"):
        return kind
    if kind in ("shard_tensor_to_mesh_mapper", "ShardTensorToMesh"):
        return {kind: {"dim": src["dim"]}}
    if kind == "ShardTensor2dMesh":
        return {"ShardTensor2dMesh": {"dims": src["dims"], "mesh_shape": src["mesh_shape"]}}
    if kind == "MeshMapperConfig(row_dim, col_dim)":
        out = {"row_dim": src["row_dim"], "col_dim": src["col_dim"]}
        for key in ("mesh_shape_override", "mesh_offset_override"):
            if src.get(key) is not None:
                out[key] = src[key]
        return {"create_mesh_mapper": out}
    raise AssertionError(f"untranslated mapper {src}")


def composer(c: dict):
    f = c["function"]
    if f in ("concat_mesh_to_tensor_composer", "ConcatMeshToTensor"):
        return {f: {"dim": c["dim"]}}
    if f == "ConcatMesh2dToTensor":
        return {f: {"dims": c["dims"], "mesh_shape": c["mesh_shape"]}}
    if f == "MeshComposerConfig(row_dim, col_dim)":
        return {"create_mesh_composer": {"row_dim": c["row_dim"], "col_dim": c["col_dim"]}}
    out = {"dims": c["dims"]}
    for key in ("mesh_shape_override", "mesh_offset_override"):
        if c.get(key) is not None:
            out[key] = c[key]
    return {"create_mesh_composer": out}


def host_steps(out: str, src: dict) -> list[dict]:
    """Steps making the recorder's host tensor; one mapped over a MeshShape other than the mesh's
    (``mesh``) is mapped for a submesh of that shape, which is how a scenario names such a mesh."""
    if src.get("mesh") is None:
        return [from_torch(out, src)]
    sub = f"{out}_mesh"
    step = from_torch(out, src)
    m = step["from_torch"]["mesh_mapper"]
    (key, inner), = m.items()
    inner["mesh_device"] = sub
    return [{"create_submesh": {"shape": src["mesh"], "as": sub}}, step]


def from_torch(out: str, src: dict) -> dict:
    """A host tensor as the recorder built it: arange data from ``start`` (a shift of the values)."""
    step = {"as": out, "shape": src["shape"], "dtype": src["dtype"], "layout": src["layout"]}
    for key in ("tile", "memory"):
        if key in src:
            step[key] = src[key]
    if src.get("start"):
        step["data"] = {"fill": src["start"]}  # only the values differ; every spec and record is the same
    m = mapper(src)
    if m is not None:
        step["mesh_mapper"] = m
    return {"from_torch": step}


def tensor_fields(a: dict, keys=("shape", "dtype", "layout", "tile", "memory")) -> dict:
    return {k: a[k] for k in keys if a.get(k) is not None}


def translate(op: str, a: dict, n: int, aliases: dict) -> tuple[list[dict] | None, list[str]]:
    """meshspec steps for one recorded call, and the names whose state the recording observed."""
    t = lambda key: aliases.get(name(a[key]), name(a[key]))  # noqa: E731
    if op == "allocate_tensor_on_device":
        step = {"as": a["out"], **tensor_fields(a)}
        if a.get("mesh"):
            step["mesh_device"] = a["mesh"]
        return [{"allocate_tensor_on_device": step}], [a["out"]]
    if op == "host":
        return host_steps(a["out"], a["src"]), [a["out"]]
    if op == "copy_host_to_device_tensor":
        steps, src = ([], t("src_tensor")) if "src_tensor" in a else (host_steps(f"h{n}", a["src"]), f"h{n}")
        return steps + [{"copy_host_to_device_tensor": {"src": src, "dst": t("dst")}}], [t("dst")]
    if op in ("to_device", "Tensor.to"):
        steps, src = ([], t("src_tensor")) if "src_tensor" in a else (host_steps(f"h{n}", a["src"]), f"h{n}")
        step = {"src" if op == "to_device" else "tensor": src, "as": a["out"]}
        if a.get("mesh"):
            step["device"] = a["mesh"]
        if a.get("memory"):
            step["memory"] = a["memory"]
        return steps + [{"to_device" if op == "to_device" else "to": step}], [a["out"]]
    if op == "cpu":
        out = a.get("out", f"cpu{n}")
        return [{"cpu": {"tensor": t("tensor"), "as": out}}], [out]
    if op == "deallocate":
        return [{"deallocate": {"tensor": t("tensor")}}], [t("tensor")]
    if op == "Tensor":  # a second Python handle on the same storage: the same tensor to meshspec
        aliases[a["out"]] = t("tensor")
        return [], [t("tensor")]
    if op in ("inspect",):
        return [], [t("tensor")]
    if op == "inspect_all":
        return [], [aliases.get(name(x), name(x)) for x in a["tensors"]]
    if op == "get_device_tensors":
        return [{"get_device_tensors": {"tensor": t("tensor"), "as": a["out"]}}], [t("tensor")]
    if op == "combine_device_tensors":
        if a.get("positional"):
            return None, []  # a TypeError of the Python binding (keyword-only): nothing to model
        out = a.get("out", f"c{n}")
        return [{"combine_device_tensors": {"tensors": [aliases.get(name(x), name(x)) for x in a["tensors"]], "as": out}}], [out]
    if op == "from_host_shards":
        steps = [from_torch(f"s{n}_{i}", s) for i, s in enumerate(a["shards"])]
        out = a.get("out", f"fhs{n}")
        return steps + [{"from_host_shards": {"tensors": [f"s{n}_{i}" for i in range(len(a["shards"]))], "mesh_shape": a["mesh_shape"], "as": out}}], [out]
    if op == "distribute_tensor":
        if "src" in a:
            src = dict(a["src"])
            m = mapper(src)
            if m == "ReplicateTensorToMesh" and src.get("unwrap", True):
                m = "replicate_tensor_to_mesh_mapper"  # the recorder passed wrapper.unwrap(); as is, a TypeError
            data = {k: v for k, v in src.items() if k in ("shape", "dtype", "layout", "tile", "memory", "start")}
            steps, tensor = [from_torch(f"p{n}", data)], f"p{n}"
        else:
            m, steps, tensor = mapper(a["mapper"]), [], t("tensor")
        step = {"tensor": tensor, "mesh_mapper": m, "as": a["out"]}
        if a.get("device"):
            step["mesh_device"] = a.get("mesh") or MESH  # the mapper is the mesh device's, whatever mesh it goes on
        return steps + [{"distribute_tensor": step}], [a["out"]]
    if op == "aggregate_tensor":
        steps, src = ([], t("tensor")) if "tensor" in a else ([from_torch(f"h{n}", a["src"])], f"h{n}")
        return steps + [{"aggregate_tensor": {"tensor": src, "mesh_composer": composer(a["composer"]), "as": f"agg{n}"}}], [f"agg{n}"]
    if op == "allocate_tensor_on_host":
        return [{"allocate_tensor_on_host": {"as": a["out"], **tensor_fields(a)}}], [a["out"]]
    if op == "copy_device_to_host_tensor":
        return [{"copy_device_to_host_tensor": {"device_tensor": t("src"), "host_tensor": t("dst")}}], [t("dst")]
    if op == "update_tensor_topology":
        topo = a["topology"]
        return [{"update_tensor_topology": {"tensor": t("tensor"), "topology": topo}}], [t("tensor")]
    if op in ("empty", "zeros", "ones", "full"):
        step = {"as": a["out"], **tensor_fields(a, ("shape", "dtype", "layout"))}
        if a.get("fill_value") is not None:
            step["fill_value"] = a["fill_value"]
        if a.get("device") or op == "empty":
            step["device"] = MESH
        return [{op: step}], [a["out"]]
    if op in ("empty_like", "zeros_like", "ones_like", "full_like"):
        step = {"tensor": t("tensor"), "as": a["out"]}
        if a.get("fill_value") is not None:
            step["fill_value"] = a["fill_value"]
        if a.get("device"):
            step["device"] = MESH
        return [{op: step}], [a["out"]]
    if op == "create_submesh":
        step = {"shape": a["shape"], "as": a["out"]}
        if a.get("offset") is not None:
            step["offset"] = a["offset"]
        return [{"create_submesh": step}], []
    if op == "create_submeshes":
        return [{"create_submeshes": {"shape": a["shape"], "as": a["out"]}}], []
    if op == "reshape":
        return [{"MeshDevice.reshape": {"shape": a["shape"]}}], []
    if op == "dump_tensor":
        return [{"dump_tensor": {"file_name": a["file"], "tensor": t("tensor")}}], []
    if op == "load_tensor":
        step = {"file_name": a["file"], "as": a["out"]}
        if a.get("device"):
            step["device"] = MESH
        return [{"load_tensor": step}], [a["out"]]
    if op in ("Tensor.to_numpy", "Tensor.to_torch"):
        return [{"to_torch": {"tensor": t("tensor")}}], []
    if op == "Tensor(array)":  # the numpy constructor itself (the recorder's host tensors use the flat-list one on 0.6x)
        step = from_torch(a.get("out", f"arr{n}"), a["src"])
        step["from_torch"]["numpy"] = True
        if a.get("device"):
            step["from_torch"]["device"] = MESH
        return [step], [step["from_torch"]["as"]]
    if op == "get_submeshes":
        return None, []  # a count of Python objects
    raise AssertionError(f"untranslated op {op}")


def run_steps(rt: Runtime, steps: list[dict], base: int) -> None:
    for i, step in enumerate(steps):
        (op, args), = step.items()
        execute(rt, LoadedStep(base + i, op, validate(OPS[op].args, args), 0))


#: device ops among the calls of the api scenarios (zeros_like & co. of a device tensor fill on device)
DEVICE_OPS = ("zeros_like", "ones_like", "full_like")


def mock_only(error: str, version: str = "0.81.1", op: str = "", on_device: bool = False) -> bool:
    """Errors of the mock, not of ttnn: device kernels cannot be built, and torch is not installed.
    Where 0.81.1's mock raises at a device op's kernel (WorkUnitSpec ...), 0.67.0's kills the process
    at every device op, and 0.66.0's at one on a tensor not on every device (observed: ttnn.abs and
    ttnn.neg of the seed's 7-device tensor die alike; docs/semantics.md section 23, ``fill_like``)."""
    killed_at_device_op = version != "0.81.1" and op in DEVICE_OPS and on_device and error.startswith("process killed by SIGSEGV")
    return "compiler stand-in" in error or "No module named 'torch'" in error or "WorkUnitSpec" in error or killed_at_device_op


def observe_device(t: DeviceTensor, e: dict, where: str) -> None:
    # deallocating any handle frees the storage they all share (docs/semantics.md section 9)
    assert (t.freed_step is None) == e["is_allocated"], where
    if not e["is_allocated"]:
        return
    rec = t.record
    assert rec.topology.to_json() == e["topology"], where
    if e["device_coords"] is not None:  # null where the version cannot say (0.66.0, 0.67.0)
        assert [list(c) for c in rec.recorded] == e["device_coords"], where
    assert list(rec.spec.shape) == e["shape"], where
    if e["buffer_type"] is not None:
        assert rec.spec.memory.value == e["buffer_type"], where


def observe_host(t: HostTensor, e: dict, where: str) -> None:
    assert t.topology.to_json() == e["topology"], where
    if e["cpu_coords"] is not None:
        assert [list(c) for c in t.shards] == e["cpu_coords"], where
    if e["host_buffer_shape"] is not None and t.buffer_shape is not None:
        assert list(t.buffer_shape) == e["host_buffer_shape"], where
    # a readback may hold no shard: 0.6x's after a MeshDevice.reshape that changed the mesh's rank
    shape = next(iter(t.shards.values())).values.shape if t.shards else t.spec.shape
    assert list(shape) == e["shape"], where


def observe(rt: Runtime, subject: str, e: dict, where: str) -> None:
    t = rt.tensors[subject]
    assert (e["storage"] == "device") == isinstance(t, DeviceTensor), where
    if isinstance(t, DeviceTensor):
        observe_device(t, e, where)
    else:
        observe_host(t, e, where)


#: Scenarios in which 0.66.0 and 0.67.0 said otherwise than meshspec under their profile, with the
#: first event that differs; no rule models these yet (docs/semantics.md "Version boundaries", where
#: each is described with what is known of its cause). Strict: one that starts agreeing fails here.
EARLY_2026_UNEXPLAINED = {
}


def _marked(version, case):
    reason = EARLY_2026_UNEXPLAINED.get(case["name"]) if version != "0.81.1" else None
    return pytest.param(version, case, marks=pytest.mark.xfail(strict=True, reason=f"{version}: {reason}")) if reason else (version, case)


@pytest.mark.parametrize("version, case", [_marked(v, c) for v, c in CASES], ids=[f"{v}-{c['name']}" for v, c in CASES])
def test_api_matches_ttnn(version, case):
    rt = Runtime((2, 4), get_profile(profile_for_version(version)))
    aliases: dict[str, str] = {}
    checked = 0
    for n, e in enumerate(case["events"]):
        where = f"{case['name']} event {n}: {e['op']} {e['args']} (ttnn: {e['error'] or e.get('topology')})"
        steps, subjects = translate(e["op"], e["args"], n, aliases)
        if steps is None:
            continue
        error = e["error"] or ""
        subject = name(e["args"]["tensor"]) if isinstance(e["args"].get("tensor"), str) else None
        on_device = subject is not None and isinstance(rt.tensors.get(aliases.get(subject, subject)), DeviceTensor)
        if error and mock_only(error, version, e["op"], on_device) or error.startswith("not run: "):
            continue  # not run: the recorder skipped a call whose input an earlier event failed to make
        if error.startswith("process killed"):
            # ttnn dies (SIGABRT/SIGSEGV); meshspec refuses the step instead, naming the crash
            with pytest.raises((TTFatal, StepInputError)) as err:
                run_steps(rt, steps, 1000 + 10 * n)
            assert "crash" in str(err.value) or "abort" in str(err.value), where
            checked += 1
            continue
        if error:
            with pytest.raises((TTFatal, StepInputError)) as err:
                run_steps(rt, steps, 1000 + 10 * n)
            said = error.split(": ", 1)[1] if error.startswith(("TT_FATAL: ", "RuntimeError: ", "TypeError: ", "AttributeError: ")) else error
            assert str(err.value).startswith(words(version, said)), (where, str(err.value))
            checked += 1
            continue
        run_steps(rt, steps, 1000 + 10 * n)
        if e["op"] == "get_device_tensors":
            parts = rt.lists[e["args"]["out"]]
            assert len(parts) == len(e["parts"]), where
            for part, pe in zip(parts, e["parts"]):
                observe(rt, part, pe, where)
        elif e["op"] == "inspect_all":
            for subject, pe in zip(subjects, e["parts"]):
                observe(rt, subject, pe, where)
        elif e["op"] in ("create_submesh", "create_submeshes", "reshape"):
            made = [rt.meshes[e["args"]["out"]]] if e["op"] == "create_submesh" else (
                [rt.meshes[f"{e['args']['out']}[{i}]"] for i in range(len(e["meshes"]))] if e["op"] == "create_submeshes" else [rt.root]
            )
            assert [list(m.shape) for m in made] == [m["shape"] for m in e["meshes"]], where
        elif subjects and e["topology"] is not None:
            observe(rt, subjects[0], e, where)
        checked += 1
    assert checked >= 1
