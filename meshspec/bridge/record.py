"""``meshspec record``: a real ttnn program, watched, written down as a scenario and a report.

Runs inside the program's own process, with ttnn's Python entry points wrapped as ttnn's
operation tracer wraps its ops (research: ttnn/decorators.py ``FastOperation.__call__``; module
attributes for the nanobind free functions such as ``ttnn.distribute_tensor``; the class attribute
``ttnn.Tensor.cpu``). A wrapper calls the real function, unchanged, and only at the outermost
level (``ttnn.to_torch`` calling ``ttnn.from_device`` is one step):

- a call meshspec models becomes that step; mappers and composers are remembered when made
  (``ttnn.shard_tensor_to_mesh_mapper(md, 1)`` -> ``{shard_tensor_to_mesh_mapper: {dim: 1}}``);
- any other registered op becomes an ``opaque`` step declaring the records its output got;
- a tensor the program made without a recorded call (``ttnn.Tensor(array, ...)``) is introduced
  where first used: a one-shard host tensor as ``from_torch`` of its values saved as ``.npy``,
  anything else as ``opaque`` with its records.

Names come from the program's variables (the assignment on the calling line, or the local that
holds the tensor), made unique. After every step the runtime's records (meshspec/bridge/observe.py)
go into ``report.json``'s ``steps``, and the scenario and report are rewritten, so a step that
kills the process still leaves both. A call that raised and that the program caught stays in the
scenario only as a comment (meshspec stops at a step error); one that ended the program is the
scenario's last step and the report's error.
"""

from __future__ import annotations

import ast
import functools
import linecache
import re
import sys
from pathlib import Path
from typing import Any, Callable, Optional

from . import observe

SCENARIO = "scenario.yaml"
REPORT = "report.json"

#: System names by (architecture, number of devices), for the scenario's ``mesh:`` (meshspec systems).
SYSTEMS = {
    ("wormhole_b0", 1): "n150", ("wormhole_b0", 2): "n300", ("wormhole_b0", 8): "t3k", ("wormhole_b0", 32): "galaxy",
    ("blackhole", 1): "p150", ("blackhole", 2): "p300", ("blackhole", 4): "p150x4", ("blackhole", 8): "p150x8",
    ("blackhole", 32): "bh-galaxy",
}


def _ident(text: str) -> str:
    ident = re.sub(r"\W", "_", text).strip("_") or "t"
    return f"t_{ident}" if ident[0].isdigit() else ident


class Recorder:
    """The recording of one program (or one test): its steps, names and per-step states."""

    def __init__(self, out: Path, name: str) -> None:
        self.out = Path(out)
        self.name = name
        self.steps: list[dict] = []  # {"op", "fields", "where", "source", "error"}
        self.states: list[dict] = []
        self.objects: dict[str, Any] = {}  # name -> the tensor, list of tensors, or mesh device
        self.ids: dict[int, str] = {}  # id(object) -> name (the objects are held, so ids stay theirs)
        self.mappers: dict[int, Any] = {}  # id(mapper or composer) -> its YAML form
        self.keep: list[Any] = []
        self.mesh: Optional[Any] = None
        self.depth = 0
        self.error: Optional[dict] = None
        self.caught: list[str] = []
        self.npy = 0
        self._undo: list[Callable[[], None]] = []

    # -- installing ---------------------------------------------------------------------------
    def install(self) -> None:
        import ttnn
        from ttnn import decorators

        for attr, translate in TRANSLATORS.items():
            if hasattr(ttnn, attr):
                self._patch(ttnn, attr, self._modeled(getattr(ttnn, attr), attr, translate))
        for attr, form in FACTORIES.items():
            if hasattr(ttnn, attr):
                self._patch(ttnn, attr, self._factory(getattr(ttnn, attr), form))
        self._patch(ttnn, "open_mesh_device", self._opener(ttnn.open_mesh_device))
        self._patch(ttnn.Tensor, "cpu", self._modeled(ttnn.Tensor.cpu, "Tensor.cpu", _cpu))
        for cls in (decorators.FastOperation, decorators.Operation):
            self._patch(cls, "__call__", self._any_op(cls.__call__))

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    def _patch(self, owner: Any, attr: str, new: Any) -> None:
        old = owner.__dict__[attr] if isinstance(owner, type) and attr in owner.__dict__ else getattr(owner, attr)
        setattr(owner, attr, new)
        self._undo.append(lambda: setattr(owner, attr, old))

    # -- wrappers -----------------------------------------------------------------------------
    def _modeled(self, real: Callable, qualname: str, translate: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            if rec.depth:
                return real(*args, **kwargs)
            frame = sys._getframe(1)
            rec.depth += 1
            try:
                rec._settle_failure()
                try:
                    op, fields, binds = translate(rec, frame, *args, **kwargs)
                except _NotModeled:  # an argument no step field can express: recorded as what it made
                    op, fields, binds = "opaque", {"call": f"ttnn.{qualname}", "uses": [rec.name_of(t, frame) for t in _tensors_in(args, kwargs)]}, "opaque"
                return rec._run(real, args, kwargs, op, fields, binds, frame, qualname)
            finally:
                rec.depth -= 1

        return wrapper

    def _any_op(self, real_call: Callable) -> Callable:
        rec = self

        def __call__(op_self, *args, **kwargs):
            if rec.depth:
                return real_call(op_self, *args, **kwargs)
            frame = sys._getframe(1)
            qualname = getattr(op_self, "python_fully_qualified_name", "ttnn.<op>")
            rec.depth += 1
            try:
                rec._settle_failure()
                uses = [rec.name_of(a, frame) for a in _tensors_in(args, kwargs)]
                return rec._run(real_call, (op_self, *args), kwargs, "opaque", {"call": qualname, "uses": uses}, "opaque", frame, qualname)
            finally:
                rec.depth -= 1

        return __call__

    def _factory(self, real: Callable, form: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            made = real(*args, **kwargs)
            try:
                rec.mappers[id(made)] = form(rec, *args, **kwargs)
                rec.keep.append(made)
            except Exception:  # a form meshspec cannot write: a step using it becomes opaque
                pass
            return made

        return wrapper

    def _opener(self, real: Callable) -> Callable:
        rec = self

        @functools.wraps(real)
        def wrapper(*args, **kwargs):
            md = real(*args, **kwargs)
            if rec.mesh is None:
                rec.mesh = md
                rec.ids[id(md)] = "mesh_device"
                rec.objects["mesh_device"] = md
            return md

        return wrapper

    # -- one step -----------------------------------------------------------------------------
    def _run(self, real, args, kwargs, op, fields, binds, frame, qualname):
        where = f"{frame.f_code.co_filename}:{frame.f_lineno}"
        source = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
        step = {"op": op, "fields": fields, "where": where, "source": source, "qualname": qualname}
        self.steps.append(step)
        self._save(pending=True)
        try:
            result = real(*args, **kwargs)
        except Exception as exc:
            step["error"] = observe.error_json(len(self.steps) - 1, op, exc)
            self._snapshot(step)
            self._save()
            raise
        if binds:
            if op == "opaque":
                self._opaque_outputs(step, result, frame)
            else:
                fields["as"] = self.bind(result, frame, binds)
        self._snapshot(step)
        self._save()
        return result

    def _opaque_outputs(self, step: dict, result: Any, frame) -> None:
        """An unmodeled call's tensor outputs: the first is the step's, the others steps of their own."""
        outputs = [result] if _is_tensor(result) else [r for r in (result if isinstance(result, (list, tuple)) else []) if _is_tensor(r)]
        if not outputs:
            self.steps.remove(step)  # no tensor made (a query, a no-op): nothing to declare
            return
        base = self.bind(outputs[0] if len(outputs) == 1 else list(outputs), frame, step["qualname"].split(".")[-1])
        for i, out in enumerate(outputs):
            fields = dict(step["fields"]) if i == 0 else {"call": step["fields"]["call"], "uses": step["fields"]["uses"]}
            fields.update(_declared(out))
            fields["as"] = base if len(outputs) == 1 else f"{base}[{i}]"
            if i == 0:
                step["fields"] = fields
                if step["source"]:
                    fields["code"] = step["source"]
            else:
                self.steps.append(dict(step, fields=fields))

    def _settle_failure(self) -> None:
        """A call that raised and was followed by another: the program caught it. meshspec stops at
        a step's error, so the step becomes a comment."""
        if self.steps and self.steps[-1].get("error"):
            failed = self.steps.pop()
            self.states.pop()
            self.caught.append(f"{failed['where']}: {failed['qualname']} raised, and the program went on: "
                               f"{failed['error']['message']}")

    # -- names ----------------------------------------------------------------------------------
    def name_of(self, obj: Any, frame) -> str:
        """The scenario name of a tensor (or mesh) the program passes; one not yet seen is introduced."""
        known = self.ids.get(id(obj))
        if known is not None:
            return known
        if _is_mesh(obj):
            if self.mesh is None:
                self.mesh = obj
                self.ids[id(obj)] = "mesh_device"
                self.objects["mesh_device"] = obj
                return "mesh_device"
            raise _NotModeled("a second mesh device")
        return self._introduce(obj, frame)

    def mesh_field(self, obj: Any, frame) -> Optional[str]:
        """``mesh_device: NAME`` for a step on a mesh other than the scenario's, else None."""
        if obj is None:
            return None
        name = self.name_of(obj, frame)
        return None if name == "mesh_device" else name

    def bind(self, result: Any, frame, default: str) -> str:
        name = self._fresh(_assigned_name(frame) or _ident(default))
        self.objects[name] = result
        self.ids[id(result)] = name
        if isinstance(result, list):
            for i, item in enumerate(result):
                self.ids[id(item)] = f"{name}[{i}]"
        return name

    def _fresh(self, wanted: str) -> str:
        name, n = wanted, 1
        while name in self.objects or name == "mesh_device":
            n += 1
            name = f"{wanted}_{n}"
        return name

    def _introduce(self, t: Any, frame) -> str:
        """A tensor made without a recorded call: a step that makes it, before the current one."""
        import numpy as np

        import ttnn

        local = next((k for k, v in frame.f_locals.items() if v is t and not k.startswith("_")), None)
        name = self._fresh(_ident(local or "tensor"))
        current = self.steps  # the step being recorded is appended after this one
        record = observe.tensor_json(name, t)
        if record["storage"] == "host" and len(record["devices"]) == 1:
            spec = record["devices"][0]["spec"]
            self.npy += 1
            data_file = f"{name}.npy"
            self.out.mkdir(parents=True, exist_ok=True)
            np.save(self.out / data_file, observe.host_array(ttnn.get_device_tensors(t)[0]))
            fields = {"as": name, **_spec_fields(spec), "data": {"file": data_file}}
            current.append({"op": "from_torch", "fields": fields, "where": "(made before it was used)", "source": "",
                            "qualname": "ttnn.Tensor", "introduced": True})
        else:
            fields = {"call": "ttnn.Tensor", "uses": [], **_declared(t), "as": name}
            current.append({"op": "opaque", "fields": fields, "where": "(made before it was used)", "source": "",
                            "qualname": "ttnn.Tensor", "introduced": True})
        self.objects[name] = t
        self.ids[id(t)] = name
        self._snapshot(current[-1])
        return name

    def finish(self) -> None:
        """The last save (after the program: nothing more is recorded). Without a mesh device the
        program made no recorded call, and nothing is written."""
        self._save()

    # -- writing ------------------------------------------------------------------------------
    def _tensors(self) -> dict:
        out = {}
        for name, value in self.objects.items():
            if isinstance(value, list):
                out |= {f"{name}[{i}]": item for i, item in enumerate(value) if _is_tensor(item)}
            elif _is_tensor(value):
                out[name] = value
        return out

    def _report(self, error) -> dict:
        shape = list(self.mesh.shape) if self.mesh is not None else []
        done = len(self.steps) if error is None else error["step"]
        return observe.report_json(self.name, shape, self._tensors(), error, done, len(self.steps))

    def _snapshot(self, step: dict) -> None:
        index = self.steps.index(step) if step in self.steps else len(self.steps) - 1
        report = self._report(step.get("error"))
        self.states.append({"step": index, "op": step["op"], "where": step["where"], "error": step.get("error"),
                            "tensors": report["tensors"]})

    def _save(self, pending: bool = False) -> None:
        """The scenario and the report as they stand. ``pending``: the last step is about to run; if
        it kills the process, this report (its error a crash at that step) is what remains."""
        if self.mesh is None:
            return
        self.out.mkdir(parents=True, exist_ok=True)
        text, lines = self.scenario_text()
        error = self.steps[-1].get("error") if self.steps else None
        if pending:
            last = len(self.steps) - 1
            error = {"step": last, "op": self.steps[last]["op"], "source": "ttnn", "crash": True,
                     "message": "the process died during this step (killed by a signal: no error was raised)"}
        report = self._report(error)
        states = self.states[:]
        for s in states:
            s["line"] = lines.get(s["step"])
        report["path"] = str(self.out / SCENARIO)
        report["steps"] = states
        _write(self.out / SCENARIO, text)
        import json

        _write(self.out / REPORT, json.dumps(report, indent=1) + "\n")

    def scenario_text(self) -> tuple[str, dict[int, int]]:
        """The scenario YAML, and each step's line in it."""
        import yaml

        def flow(value) -> str:
            text = yaml.safe_dump(value, default_flow_style=True, sort_keys=False, width=10**9).strip()
            return text[: -len("...")].strip() if text.endswith("\n...") else text  # a scalar ends its document

        shape = list(self.mesh.shape)
        arch = observe._name(self.mesh.arch())
        system = SYSTEMS.get((arch, len(list(self.mesh.get_device_ids()))))
        mesh = flow({"system": system, "shape": shape}) if system else flow(shape)
        out = [
            "meshspec: 1",
            f"name: {flow(self.name)}",
            "description: >",
            f"  Recorded by meshspec record from a run of the real ttnn {observe.ttnn_version()}.",
            "  Host tensors the program made itself are read back from the runtime and saved beside",
            "  this file; opaque steps are calls meshspec does not model, with the records they produced.",
            f"mesh: {mesh}",
        ]
        out += [f"# {c}" for c in self.caught]
        out.append("steps:")
        lines: dict[int, int] = {}
        for i, step in enumerate(self.steps):
            where = step["where"] + (f": {step['source']}" if step["source"] else "")
            out.append(f"  # {where}"[:200])
            lines[i] = len(out) + 1
            out.append(f"  - {step['op']}: {flow(step['fields'])}")
        return "\n".join(out) + "\n", lines


class _NotModeled(Exception):
    """An argument the step cannot express; the call is recorded as opaque."""


def _write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


# -- what the runtime's objects are -----------------------------------------------------------------
def _is_tensor(x: Any) -> bool:
    return hasattr(x, "storage_type") and hasattr(x, "tensor_topology")


def _is_mesh(x: Any) -> bool:
    return hasattr(x, "get_device_ids") and hasattr(x, "create_submesh")


def _tensors_in(args, kwargs) -> list:
    found = []
    for a in list(args) + list(kwargs.values()):
        if _is_tensor(a):
            found.append(a)
        elif isinstance(a, (list, tuple)):
            found += [x for x in a if _is_tensor(x)]
    return found


def _spec_fields(spec: dict) -> dict:
    out = {"shape": spec["shape"], "dtype": spec["dtype"], "layout": spec["layout"]}
    if spec.get("tile") not in (None, [32, 32]):
        out["tile"] = spec["tile"]
    if spec.get("memory") not in (None, "dram"):
        out["memory"] = spec["memory"]
    return out


def _declared(t) -> dict:
    """An opaque step's records: the output's spec, storage, topology and recorded coordinates."""
    record = observe.tensor_json("_", t)
    devices = [d for d in record["devices"] if d.get("recorded")]
    spec = devices[0]["spec"] if devices else observe.spec_json(t, pages=False)
    return {**_spec_fields(spec), "storage": "host" if record["storage"] == "host" else "device",
            "topology": record["topology"], "recorded": [d["coord"] for d in devices]}


def _assigned_name(frame) -> Optional[str]:
    """``x`` for a calling line ``x = ttnn.f(...)`` (``self.x`` -> ``x``), else None."""
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    if "=" not in line:
        return None
    try:
        node = ast.parse(line).body[0]
    except SyntaxError:  # the first line of a call that goes on
        m = re.match(r"^([A-Za-z_][\w.]*)\s*=[^=]", line)
        return _ident(m.group(1).split(".")[-1]) if m else None
    if isinstance(node, (ast.Assign, ast.AnnAssign)):
        target = node.targets[0] if isinstance(node, ast.Assign) else node.target
        if isinstance(target, ast.Name):
            return _ident(target.id)
        if isinstance(target, ast.Attribute):
            return _ident(target.attr)
    return None


# -- the calls meshspec models: (recorder, frame, *args, **kwargs) -> (op, fields, what it binds) --
def _spec_of(spec) -> dict:
    return _spec_fields({"shape": list(spec.shape), "dtype": observe._name(spec.dtype), "layout": observe._name(spec.layout),
                         "tile": list(spec.tile.tile_shape), "memory": observe._name(spec.memory_config.buffer_type)})


def _arg(args, kwargs, i, name, default=None):
    return args[i] if len(args) > i else kwargs.get(name, default)


def _with_mesh(rec, frame, fields, device, key="mesh_device"):
    name = rec.mesh_field(device, frame)
    return fields | ({key: name} if name else {})


def _allocate(op):
    def translate(rec, frame, *args, **kwargs):
        spec, device = _arg(args, kwargs, 0, "spec"), _arg(args, kwargs, 1, "device")
        if not hasattr(spec, "shape") or not hasattr(spec, "memory_config"):
            raise_opaque()
        rec.name_of(device, frame)
        return op, _with_mesh(rec, frame, _spec_of(spec), device), "tensor"

    return translate


def raise_opaque():
    raise _NotModeled("a form of the call meshspec does not write")


def _copy_to_device(rec, frame, *args, **kwargs):
    src, dst = _arg(args, kwargs, 0, "host_tensor"), _arg(args, kwargs, 1, "device_tensor")
    return "copy_host_to_device_tensor", {"src": rec.name_of(src, frame), "dst": rec.name_of(dst, frame)}, None


def _copy_to_host(rec, frame, *args, **kwargs):
    dev, host = _arg(args, kwargs, 0, "device_tensor"), _arg(args, kwargs, 1, "host_tensor")
    return "copy_device_to_host_tensor", {"device_tensor": rec.name_of(dev, frame), "host_tensor": rec.name_of(host, frame)}, None


def _to_device(rec, frame, *args, **kwargs):
    t, device, memory = _arg(args, kwargs, 0, "tensor"), _arg(args, kwargs, 1, "device"), _arg(args, kwargs, 2, "memory_config")
    fields = {"src": rec.name_of(t, frame)}
    if memory is not None:
        fields["memory"] = observe._name(memory.buffer_type)
    return "to_device", _with_mesh(rec, frame, fields, device, "device"), "tensor"


def _cpu(rec, frame, *args, **kwargs):
    return "cpu", {"tensor": rec.name_of(args[0], frame)}, "tensor"


def _deallocate(rec, frame, *args, **kwargs):
    return "deallocate", {"tensor": rec.name_of(args[0], frame)}, None


def _mapper_form(rec, m) -> Any:
    form = rec.mappers.get(id(m))
    if form is None and hasattr(m, "unwrap"):
        form = rec.mappers.get(id(m.unwrap()))
    if form is None:
        raise _NotModeled("a mapper made before recording")
    return form


def _distribute(rec, frame, *args, **kwargs):
    t, mapper, device = _arg(args, kwargs, 0, "tensor"), _arg(args, kwargs, 1, "mapper"), _arg(args, kwargs, 2, "mesh_device")
    fields = {"tensor": rec.name_of(t, frame), "mesh_mapper": _mapper_form(rec, mapper)}
    if device is not None:
        name = rec.name_of(device, frame)
        fields["mesh_device"] = name
    return "distribute_tensor", fields, "tensor"


def _aggregate(rec, frame, *args, **kwargs):
    t, composer = _arg(args, kwargs, 0, "tensor"), _arg(args, kwargs, 1, "composer")
    return "aggregate_tensor", {"tensor": rec.name_of(t, frame), "mesh_composer": _mapper_form(rec, composer)}, "tensor"


def _get_device_tensors(rec, frame, *args, **kwargs):
    return "get_device_tensors", {"tensor": rec.name_of(_arg(args, kwargs, 0, "tensor"), frame)}, "tensors"


def _combine(rec, frame, *args, **kwargs):
    tensors = _arg(args, kwargs, 0, "tensors")
    return "combine_device_tensors", {"tensors": [rec.name_of(t, frame) for t in tensors]}, "tensor"


def _to_torch(rec, frame, *args, **kwargs):
    t, composer = _arg(args, kwargs, 0, "tensor"), kwargs.get("mesh_composer", args[2] if len(args) > 2 else None)
    fields = {"tensor": rec.name_of(t, frame)}
    if composer is not None:
        fields["mesh_composer"] = _mapper_form(rec, composer)
    return "to_torch", fields, "tensor"


def _from_torch(rec, frame, *args, **kwargs):
    import numpy as np

    import ttnn

    source = args[0] if args else kwargs["tensor"]
    array = source.float().numpy() if hasattr(source, "float") else np.asarray(source, dtype=np.float32)
    name = _ident(_assigned_name(frame) or "host")
    rec.out.mkdir(parents=True, exist_ok=True)
    data_file = f"{name}_{len(rec.steps)}.npy"
    np.save(rec.out / data_file, array)
    dtype = kwargs.get("dtype") or ttnn.bfloat16
    layout = kwargs.get("layout") or ttnn.ROW_MAJOR_LAYOUT
    fields = {"shape": list(array.shape), "dtype": observe._name(dtype), "layout": observe._name(layout), "data": {"file": data_file}}
    if kwargs.get("mesh_mapper") is not None:
        fields["mesh_mapper"] = _mapper_form(rec, kwargs["mesh_mapper"])
    if kwargs.get("device") is not None:
        fields["device"] = rec.name_of(kwargs["device"], frame)
    return "from_torch", fields, "tensor"


TRANSLATORS: dict[str, Callable] = {
    "allocate_tensor_on_device": _allocate("allocate_tensor_on_device"),
    "allocate_tensor_on_host": _allocate("allocate_tensor_on_host"),
    "copy_host_to_device_tensor": _copy_to_device,
    "copy_device_to_host_tensor": _copy_to_host,
    "to_device": _to_device,
    "from_device": _cpu,
    "deallocate": _deallocate,
    "distribute_tensor": _distribute,
    "aggregate_tensor": _aggregate,
    "get_device_tensors": _get_device_tensors,
    "combine_device_tensors": _combine,
    "to_torch": _to_torch,
    "from_torch": _from_torch,
}
"""ttnn attribute -> its translator; a call whose arguments one cannot write is recorded as opaque."""


def _config_repr(config) -> str:
    return repr(config)


def _placements(text: str) -> list:
    return ["replicate" if p.startswith("PlacementReplicate") else {"shard": int(re.search(r"\d+", p).group())}
            for p in re.findall(r"Placement(?:Replicate\(\)|Shard\(-?\d+\))", text)]


def _override(text: str, key: str) -> Optional[list]:
    m = re.search(key + r"=Mesh(?:Shape|Coordinate)\(\[([\d, ]+)\]\)", text)
    return [int(x) for x in m.group(1).split(",")] if m else None


def _mesh_key(rec, device) -> dict:
    name = rec.ids.get(id(device))
    return {"mesh_device": name} if name and name != "mesh_device" else {}


def _mapper_config(rec, device, config, *rest, **kw) -> dict:
    text = repr(config)
    out: dict = {"placements": _placements(text)}
    for key in ("mesh_shape_override", "mesh_offset_override"):
        if _override(text, key) is not None:
            out[key] = _override(text, key)
    return {"create_mesh_mapper": out | _mesh_key(rec, device)}


def _composer_config(rec, device, config, *rest, **kw) -> dict:
    text = repr(config)
    m = re.search(r"dims: \[([-\d, ]+)\]", text)
    if not m:
        raise _NotModeled(text)
    out: dict = {"dims": [int(x) for x in m.group(1).split(",")]}
    for key in ("mesh_shape_override", "mesh_offset_override"):
        if _override(text, key) is not None:
            out[key] = _override(text, key)
    return {"create_mesh_composer": out | _mesh_key(rec, device)}


FACTORIES: dict[str, Callable] = {
    "shard_tensor_to_mesh_mapper": lambda rec, md, dim, *a, **k: {"shard_tensor_to_mesh_mapper": {"dim": dim, **_mesh_key(rec, md)}},
    "replicate_tensor_to_mesh_mapper": lambda rec, md, *a, **k: (
        {"replicate_tensor_to_mesh_mapper": _mesh_key(rec, md)} if _mesh_key(rec, md) else "replicate_tensor_to_mesh_mapper"),
    "create_mesh_mapper": _mapper_config,
    "concat_mesh_to_tensor_composer": lambda rec, md, dim, *a, **k: {"concat_mesh_to_tensor_composer": {"dim": dim, **_mesh_key(rec, md)}},
    "create_mesh_composer": _composer_config,
}
"""ttnn mapper and composer factories -> the YAML form of what they made (README's mapper table)."""


# -- running a program --------------------------------------------------------------------------
def run_program(out: Path, argv: list[str]) -> int:
    """Run ``python ARGV...`` (``prog.py ARGS``, ``-m module ARGS`` or ``-c code ARGS``) in this
    process with the recorder installed; its exit code, unchanged."""
    import runpy

    if not argv:
        raise SystemExit("meshspec record: no program to run")
    if argv[0] == "-m":
        target, name, rest = argv[1], argv[1].split(".")[-1], argv[2:]
    elif argv[0] == "-c":
        target, name, rest = argv[1], "program", argv[2:]
    else:
        target, name, rest = argv[0], Path(argv[0]).stem, argv[1:]
    rec = Recorder(out, _ident(name))
    rec.install()
    code = 0
    try:
        if argv[0] == "-m":
            sys.argv = [target, *rest]
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        elif argv[0] == "-c":
            sys.argv = ["-c", *rest]
            exec(compile(target, "<string>", "exec"), {"__name__": "__main__"})
        else:
            sys.argv = [target, *rest]
            sys.path.insert(0, str(Path(target).resolve().parent))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        if exc.code is not None and not isinstance(exc.code, int):
            print(exc.code, file=sys.stderr)
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        rec.uninstall()
        rec.finish()
    return code


def main() -> None:
    """``python -m meshspec.bridge.record DIR -- PROGRAM ARGS...`` (what ``meshspec record`` runs)."""
    args = sys.argv[1:]
    if len(args) < 2 or args[1] != "--":
        raise SystemExit("usage: python -m meshspec.bridge.record DIR -- prog.py ARGS...")
    sys.exit(run_program(Path(args[0]), args[2:]))


if __name__ == "__main__":
    main()
