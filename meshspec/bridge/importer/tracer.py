"""ttnn's operation tracer as calls: a folder with one JSON file per registered ttnn op call.

The format is ttnn/ttnn/operation_tracer.py's (ttnn 0.81.1; on with ``pytest --trace-params``
through tt-metal's model_tracer plugin, or ``ttnn.operation_tracer.enable_tracing(True)``; only
slow-runtime ``Operation`` calls are traced). Each file is ``{N}_{op name with _}_{timestamp}.json``
holding ``operation_id`` (N), ``operation_name``, ``args`` (``[{"position", "value"}]``),
``kwargs`` and, when the op returned something, ``return_value``. A tensor is written as
``{"type": "ttnn.Tensor", "shape", "dtype", "layout", "storage_type", "memory_config",
"mesh_device": {"placements", "distribution_shape"[, "shape", "device_ids"]}}`` with the shard's
shape; a torch tensor as ``{"type": "torch.Tensor", "shape", "dtype"}``; mappers, composers and
specs as opaque ``{"type", "value"}``.

What the format does not hold, and how the import makes up for it:

- No tensor ids: a tensor an op takes is matched to the latest earlier tensor with the same spec
  and topology (:class:`_Identity`). Arguments are written after the call returns, so the
  destination of a copy shows its topology after the copy: it is matched on its spec alone.
- No nesting: a nested op's file comes just before its caller's. ``to_torch`` of a device tensor
  calls ``from_device(t, queue_id=...)`` and ``as_tensor`` calls ``from_torch(..., mesh_mapper,
  memory_config, device)``; such a file is folded into its caller (:data:`NESTED`).
- No mapper or composer config: they are read back from the result (common.mapper, common.composer).
- No data: host tensors get meshspec's generated data.
"""

from __future__ import annotations

import bisect
import json
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Hashable, Iterator, Optional

from ...errors import ScenarioError
from .common import Call, Distribution, Memory, Traced, enum_name, int_list, ints, load_json, not_regular, placement, storage
from ...text import printable

FILE = re.compile(r"(\d+)_.+\.json")
"""An op file's name; tt-metal's plugin also writes ``_status.json`` and ``_device_params.json``."""

NESTED: dict[str, tuple[str, frozenset[str]]] = {
    "ttnn.from_device": ("ttnn.to_torch", frozenset({"queue_id"})),
    "ttnn.from_torch": ("ttnn.as_tensor", frozenset({"mesh_mapper", "memory_config", "device"})),
}
"""Inner op -> (the op that calls it, the keyword arguments the caller always passes it)
(ttnn/operations/core.py: to_torch, as_tensor)."""

MUTATES = {"ttnn.copy_host_to_device_tensor": "device", "ttnn.copy_device_to_host_tensor": "host"}
"""Op -> the storage of the argument whose topology the op changes (it is written after the call)."""


@dataclass(frozen=True)
class _Op:
    source: str
    id: int
    name: str
    args: tuple[tuple[str, Any], ...]
    """Every argument as (where, value): positional ones as ``args[i]``, then keywords by name."""
    kwargs: dict
    ret: Any
    """The return value, or :data:`_NOTHING`."""


_NOTHING = object()


@dataclass(frozen=True)
class TracerRun:
    calls: list[Call]
    files: int
    mesh: tuple[int, ...]
    mesh_note: Optional[str]
    values: bool
    """Tensor values were recorded (``enable_tensor_value_serialization``)."""
    skipped: tuple[str, ...] = ()
    """One line per entry named like an op file that is not a regular file (a FIFO, a link to a
    device): ``<name>: a FIFO, not a regular file; not read``. Never opened."""


def read_folder(folder: Path) -> TracerRun:
    """The calls a tracer folder holds, in the order they were made, with their tensors matched."""
    files, skipped = op_files(folder)
    ops = sorted((read_op(p) for p in files), key=lambda o: o.id)
    _check_ids(ops, folder)
    folded = _folded(ops)
    ids = _Identity()
    calls = [_call(op, ids, folded.get(i)) for i, op in enumerate(ops)]
    mesh, note = _mesh(ops)
    values = any("values" in v for op in ops for _, v in _tensor_values(op))
    return TracerRun(calls, len(ops), mesh, note, values, skipped)


def op_files(folder: Path) -> tuple[list[Path], tuple[str, ...]]:
    """The op files of a folder, and a line for each entry named like one that is not a regular
    file (told from its stat, never opened: a FIFO would wait for a writer, a link to /dev/zero
    never ends); a folder of per-test folders, or of no op files, is an error saying so."""
    files, skipped = [], []
    try:
        for p in sorted(folder.iterdir()):
            if not FILE.fullmatch(p.name):
                continue
            try:
                kind = not_regular(p)
            except OSError as err:  # a link to nothing, no permission
                kind = "a link to nothing" if p.is_symlink() and not p.exists() else f"unreadable ({err.strerror or err})"
            if kind is None:
                files.append(p)
            elif kind != "a folder":
                skipped.append(f"{printable(p.name)}: {kind}, not a regular file; not read")
        runs = [] if files else sorted(p.name for p in folder.iterdir() if p.is_dir() and any(FILE.fullmatch(q.name) for q in p.iterdir()))
    except OSError as err:
        raise ScenarioError(f"cannot read the folder: {err.strerror}", str(folder)) from None
    if files:
        return files, tuple(skipped)
    if skipped:
        raise ScenarioError(f"no op file here is a regular file ({len(skipped)} named like one: {skipped[0]})", str(folder))
    if runs:
        shown = ", ".join(runs[:5]) + (", ..." if len(runs) > 5 else "")
        raise ScenarioError(f"holds one trace folder per test ({len(runs)}); import one of them: {shown}", str(folder))
    raise ScenarioError(
        "no operation-tracer files (N_ttnn_<op>_<time>.json) in this folder; "
        "trace with pytest --trace-params and TTNN_CONFIG_OVERRIDES='{\"enable_fast_runtime_mode\": false}'",
        str(folder),
    )


def read_op(path: Path) -> _Op:
    data = load_json(path)
    file = str(path)
    if not isinstance(data, dict):
        raise ScenarioError(f"an operation-tracer file holds a JSON object, got {type(data).__name__}", file)
    op_id = _need(data, "operation_id", int, file)
    name = _need(data, "operation_name", str, file)
    args = _need(data, "args", list, file)
    kwargs = _need(data, "kwargs", dict, file)
    where_args = []
    for i, a in enumerate(args):
        if not isinstance(a, dict) or "value" not in a:
            raise ScenarioError(f"args[{i}]: each argument is {{\"position\": N, \"value\": ...}}, got {_short(a)}", file)
        where_args.append((f"args[{a.get('position', i)}]", a["value"]))
    where_args += [(f"kwargs.{k}", v) for k, v in kwargs.items()]
    return _Op(path.name, op_id, name, tuple(where_args), kwargs, data.get("return_value", _NOTHING))


def _need(data: dict, key: str, kind: type, file: str) -> Any:
    if key not in data:
        raise ScenarioError(f"missing key {key!r} (an operation-tracer file has operation_id, operation_name, args, kwargs)", file)
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ScenarioError(f"{key}: expected {_kind(kind)}, got {_short(value)}", file)
    return value


def _kind(kind: type) -> str:
    return {int: "an integer", str: "a string", list: "a list", dict: "an object"}[kind]


def _short(value: Any) -> str:
    text = json.dumps(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_ids(ops: list[_Op], folder: Path) -> None:
    for a, b in zip(ops, ops[1:]):
        if a.id == b.id:
            raise ScenarioError(
                f"operation_id {a.id} is in both {a.source} and {b.source}: the folder mixes traced runs; import one run's files",
                str(folder),
            )


def _folded(ops: list[_Op]) -> dict[int, str]:
    """Index of a nested op -> its caller's source (:data:`NESTED`)."""
    out = {}
    for i, (inner, outer) in enumerate(zip(ops, ops[1:])):
        rule = NESTED.get(inner.name)
        if rule and outer.name == rule[0] and rule[1] <= set(inner.kwargs) and _first(inner) == _first(outer):
            out[i] = f"{outer.source} ({outer.name})"
    return out


def _first(op: _Op) -> Any:
    return op.args[0][1] if op.args else None


# -- tensors ---------------------------------------------------------------------------------
def _tensors(value: Any, where: str) -> Iterator[tuple[str, dict]]:
    """Every serialized ttnn.Tensor in a value (lists searched), with where it is."""
    if isinstance(value, dict) and value.get("type") == "ttnn.Tensor":
        yield where, value
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from _tensors(item, f"{where}[{i}]")


def _tensor_values(op: _Op) -> Iterator[tuple[str, dict]]:
    for where, v in op.args:
        yield from _tensors(v, where)
    if op.ret is not _NOTHING:
        yield from _tensors(op.ret, "return_value")


def tensor(v: dict, where: str, file: str, key: Hashable = None) -> Traced:
    """A serialized ttnn.Tensor (``_serialize_ttnn_tensor``) as a traced tensor."""

    def field(*names: str) -> Any:
        for n in names:
            if n in v and v[n] is not None:
                return v[n]
        raise ScenarioError(f"{where}: a ttnn.Tensor without {names[0]!r} (the tracer writes shape, dtype, layout, storage_type)", file)

    shape = _ints(field("shape", "original_shape"), f"{where}.shape", file)
    md = v.get("mesh_device") if isinstance(v.get("mesh_device"), dict) else {}
    return Traced(
        key=key,
        storage=storage(field("storage_type"), where, file),
        shape=shape,
        dtype=enum_name(field("dtype", "original_dtype")),
        layout=enum_name(field("layout")),
        memory=_memory(v.get("memory_config")),
        distribution=_distribution(md, f"{where}.mesh_device", file),
        mesh=_ints(md["shape"], f"{where}.mesh_device.shape", file) if "shape" in md else None,
    )


def _ints(value: Any, where: str, file: str) -> tuple[int, ...]:
    shape = ints(value)
    if shape is None:
        raise ScenarioError(f"{where}: expected a list of integers, got {_short(value)}", file)
    return shape


def _memory(m: Any) -> Memory:
    """``memory_config_to_dict`` (ttnn/config_serialization.py): ``buffer_type``, ``memory_layout`` ..."""
    if not isinstance(m, dict):
        return Memory()
    return Memory(enum_name(m.get("buffer_type", "dram")), enum_name(m.get("memory_layout", "interleaved")))


def _distribution(md: dict, where: str, file: str) -> Optional[Distribution]:
    if "distribution_shape" not in md or "placements" not in md:
        return None
    shape, placements = _ints(md["distribution_shape"], f"{where}.distribution_shape", file), md["placements"]
    if not isinstance(placements, list):
        raise ScenarioError(f"{where}.placements: expected a list, got {_short(placements)}", file)
    ps = tuple(placement(p, f"{where}.placements[{i}]", file) for i, p in enumerate(placements))
    if len(ps) != len(shape) or not shape or min(shape) < 1:
        raise ScenarioError(f"{where}: distribution_shape {list(shape)} with {len(ps)} placements (one per axis of 1 device or more)", file)
    return Distribution(shape, ps)


class _Identity:
    """Which earlier tensor an argument is: the latest live one with the same spec and topology
    (the tracer records no tensor ids). The tensors are indexed by signature, so a look-up costs
    the same however many came before (a scan of them all made a trace of 11,200 calls 16 s)."""

    def __init__(self) -> None:
        self.known: list[list] = []  # [key, tensor, alive], in the order they appeared
        self._by_sig: dict[tuple, tuple[list[int], list[int]]] = {}
        """A signature (strict or loose: they differ in length) -> (its keys, its live keys), in order."""

    def add(self, t: Traced) -> Traced:
        t = replace(t, key=len(self.known))
        self.known.append([t.key, t, True])
        self._index(t.key, t, True, add=True)
        return t

    def find(self, t: Traced, loose: bool) -> tuple[Traced, Optional[str]]:
        every, live = self._by_sig.get(_sig(t, loose), ([], []))
        if not every:
            return self.add(t), None
        live = live or every
        note = f"{len(live)} earlier tensors have its spec{'' if loose else ' and topology'}: taken to be the latest" if len(live) > 1 else None
        return replace(t, key=live[-1]), note

    def update(self, t: Traced, alive: bool = True) -> None:
        entry = self.known[t.key]
        self._index(t.key, entry[1], entry[2], add=False)
        entry[1:] = [t, alive]
        self._index(t.key, t, alive, add=True)

    def _index(self, key: int, t: Traced, alive: bool, add: bool) -> None:
        for loose in (False, True):
            lists = self._by_sig.setdefault(_sig(t, loose), ([], []))
            for keys in lists if alive else lists[:1]:
                at = bisect.bisect_left(keys, key)
                if add:
                    keys.insert(at, key)
                else:
                    del keys[at]


def _sig(t: Traced, loose: bool) -> tuple:
    return (t.storage, t.shape, t.dtype, t.layout, t.memory) + (() if loose else (t.distribution,))


# -- calls -----------------------------------------------------------------------------------
def _call(op: _Op, ids: _Identity, folded_into: Optional[str]) -> Call:
    if folded_into is not None:
        return Call(op.source, op.name, folded_into=folded_into)
    inputs, notes = [], []
    for where, v in (tw for w, value in op.args for tw in _tensors(value, w)):
        t = tensor(v, where, op.source)
        loose = MUTATES.get(op.name) == t.storage
        t, note = ids.find(t, loose)
        if note:
            notes.append(f"{where}: {note}")
        if loose or op.name == "ttnn.deallocate":
            ids.update(t, alive=op.name != "ttnn.deallocate")
        inputs.append(t)
    ret = () if op.ret is _NOTHING else tuple(_tensors(op.ret, "return_value"))
    outputs = tuple(ids.add(tensor(v, where, op.source)) for where, v in ret)
    return Call(
        op.source,
        op.name,
        tuple(inputs),
        outputs,
        global_shape=_torch_input(op),
        result_shape=_torch_shape(op.ret),
        mapper=_mapper(op.kwargs.get("mesh_mapper")),
        composer=op.kwargs.get("mesh_composer") is not None,
        memory_config=_memory_arg(op),
        shape=_shape_arg(op),
        fill_value=_fill_value(op),
        file_name=_file_name(op),
        tile=_tile(op.kwargs.get("tile")),
        notes=tuple(notes),
    )


def _torch_shape(v: Any) -> Optional[tuple[int, ...]]:
    return ints(v.get("shape")) if isinstance(v, dict) and v.get("type") == "torch.Tensor" else None


def _torch_input(op: _Op) -> Optional[tuple[int, ...]]:
    """The shape of the first torch tensor the op takes (from_torch's, as_tensor's)."""
    shapes = (_torch_shape(v) for _, v in op.args)
    return next((s for s in shapes if s is not None), None)


def _mapper(v: Any) -> Optional[str]:
    if v is None:
        return None
    return str(v.get("type", "mapper")) if isinstance(v, dict) else "mapper"


def _memory_arg(op: _Op) -> Optional[Memory]:
    v = op.kwargs.get("memory_config")
    if v is None:
        v = next((value for w, value in op.args if w.startswith("args[") and isinstance(value, dict) and "buffer_type" in value), None)
    return _memory(v) if isinstance(v, dict) else None


def _shape_arg(op: _Op) -> Optional[tuple[int, ...]]:
    return ints(op.kwargs.get("shape", op.args[0][1] if op.args and op.args[0][0] == "args[0]" else None)) or None


def _fill_value(op: _Op) -> Optional[float]:
    v = op.kwargs.get("fill_value")
    if v is None:
        v = next((value for w, value in op.args if w == "args[1]"), None)
    return v if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _file_name(op: _Op) -> Optional[str]:
    v = op.kwargs.get("file_name", op.kwargs.get("cache_file_name"))
    if v is None and op.args and op.args[0][0] == "args[0]":
        v = op.args[0][1]
    return v if isinstance(v, str) else None


def _tile(v: Any) -> Optional[tuple[int, int]]:
    """``{"type": "Tile", "repr": "Tile with shape: [16, 32]"}`` -> (16, 32)."""
    if not isinstance(v, dict):
        return None
    try:
        shape = int_list(str(v.get("repr") or v.get("value")))
    except ValueError:
        return None
    return (shape[0], shape[1]) if len(shape) == 2 else None


def _mesh(ops: list[_Op]) -> tuple[tuple[int, ...], Optional[str]]:
    """The mesh device's shape: the largest MeshDevice (or device tensor's mesh) the trace shows;
    without one, a 1xN mesh for the widest distribution."""
    meshes = [tuple(v["shape"]) for op in ops for v in _mesh_values(op)]
    if meshes:
        return max(meshes, key=lambda s: (_volume(s), len(s))), None
    traced = [tensor(v, w, op.source) for op in ops for w, v in _tensor_values(op)]
    n = max((_volume(t.distribution.shape) for t in traced if t.distribution is not None), default=1)
    return (1, n), f"the trace shows no mesh device: a 1x{n} mesh, enough for its widest distribution"


def _mesh_values(op: _Op) -> Iterator[dict]:
    values = [v for _, v in op.args] + ([op.ret] if op.ret is not _NOTHING else [])
    for v in values:
        if isinstance(v, dict) and v.get("type") == "MeshDevice" and ints(v.get("shape")):
            yield v
        elif isinstance(v, dict) and isinstance(v.get("mesh_device"), dict) and ints(v["mesh_device"].get("shape")):
            yield v["mesh_device"]


def _volume(shape: tuple[int, ...]) -> int:
    n = 1
    for x in shape:
        n *= x
    return n
