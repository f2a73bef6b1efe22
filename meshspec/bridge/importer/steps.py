"""The one mapping of traced calls to scenario steps.

:func:`build` maps each :class:`~.common.Call` to the step that models it (:data:`HANDLERS`, one
function per ttnn call) and names the tensors (``host0``, ``dev0`` ...; a tensor no traced call
made is recreated from its spec). A call it cannot map gets a line in ``unmapped``; what it
returned becomes an ``opaque`` step declaring the records the trace shows (spec, storage,
topology), so the calls that use it still map. When the trace does not show enough of it (no
topology, a sharded memory config), the calls that use it are not imported either, each with its
own line.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from typing import Any, Callable, Hashable, Optional

from ...errors import TTFatal
from ...sim.dims import normal_dim
from ...sim.mapping import distribute
from ...sim.ops import OPS
from ...sim.ops.opaque import CALL_NAME
from ...sim.mesh import coords as mesh_coords
from ...sim.mesh import volume
from ...sim.placement import Replicate, Shard
from ...sim.spec import DataType, Layout
from .common import UNKNOWN, Call, Distribution, Memory, Traced, global_shape

# -- mapping calls to steps ------------------------------------------------------------------
class Unmappable(Exception):
    """A call meshspec cannot model as it was made: the reason, for the unmapped line."""


class _Dependent(Exception):
    """A call uses a tensor that an unmapped call made."""


@dataclass(frozen=True)
class Item:
    """One entry of the steps list: a step with the comment lines above it, or comment lines alone."""

    comment: tuple[str, ...]
    step: Optional[dict] = None


@dataclass(frozen=True)
class Built:
    items: tuple[Item, ...]
    unmapped: tuple[str, ...]
    """One line per call not mapped: ``<source>: <op> (why)``."""
    opaque: int = 0
    """How many of those have their results declared as ``opaque`` steps."""

    @property
    def steps(self) -> list[dict]:
        return [i.step for i in self.items if i.step is not None]


class Builder:
    """Names tensors and collects steps; what a handler binds is undone if it gives up."""

    def __init__(self, mesh: tuple[int, ...]) -> None:
        self.mesh = mesh
        self.items: list[Item] = []
        self.unmapped: list[str] = []
        self.names: dict[Hashable, str] = {}
        self.lost: dict[Hashable, str] = {}
        """Tensors an unmapped call made -> that call, for the lines of the calls that need them."""
        self.counts = {"host": 0, "device": 0}
        self.dumped: set[str] = set()
        self.opaque = 0
        """Calls not mapped whose results are opaque steps (the trace showed enough of them)."""
        self._pending: list[Item] = []
        self._notes: list[str] = []

    def note(self, text: str) -> None:
        """A remark for the comment above the step being made."""
        self._notes.append(text)

    # names
    def bind(self, t: Traced) -> str:
        prefix = "host" if t.storage == "host" else "dev"
        name = f"{prefix}{self.counts[t.storage]}"
        self.counts[t.storage] += 1
        self.names[t.key] = name
        return name

    def use(self, t: Traced, call: Call) -> str:
        """The name of a tensor the call uses; one no traced call made is recreated from its spec."""
        if t.key in self.names:
            return self.names[t.key]
        if t.key in self.lost:
            raise _Dependent(self.lost[t.key])
        step = recreate(t, self.mesh)
        name = self.bind(t)
        next(iter(step.values()))["as"] = name
        why = "made before the trace began, or by a call the trace does not show"
        comment = [f"{name}: {t.describe()}, used by {call.source}; no traced call made it ({why}): recreated from its spec"]
        if t.distribution is None:
            plain = "one plain host tensor" + (", put on the mesh" if t.storage == "device" else "")
            comment.append(f"{name}: its topology is not recorded: taken as {plain}")
        self._pending.append(Item(tuple(comment), in_order(step)))
        return name

    # the run over the calls
    def add(self, call: Call) -> None:
        if call.folded_into is not None:
            self.items.append(Item((f"{call.source}: {call.op}, called by {call.folded_into}: part of its step",)))
            return
        handler = HANDLERS.get(call.op)
        saved = (dict(self.names), dict(self.counts), set(self.dumped))
        self._notes = []
        try:
            if call.error is not None:
                raise Unmappable(call.error)
            if handler is None:
                raise Unmappable(unmapped_op(call.op))
            check_meshes(call, self.mesh)
            step = handler(call, self)
        except (Unmappable, _Dependent) as err:
            self.names, self.counts, self.dumped = saved
            self._pending = []
            self._lose(call, err)
            return
        self.items += self._pending
        self._pending = []
        self.items.append(Item((f"{call.source}: {call.op}", *call.notes, *self._notes), in_order(step)))

    def _lose(self, call: Call, err: Exception) -> None:
        """A call not imported: its line, and what it returned declared as an ``opaque`` step when
        the trace records enough of it; else what it returned is lost to the calls that use it."""
        reason = f"its input comes from {err.args[0]}, which was not imported" if isinstance(err, _Dependent) else str(err)
        steps = self._declare(call)
        kept = "; its result is an opaque step, as the trace recorded it" if steps else ""
        line = f"{call.source}: {call.op} ({reason}{kept})"
        self.unmapped.append(line)
        comment = (f"not imported: {line}",)
        if steps:
            self.opaque += 1
        else:
            self.items.append(Item(comment))
        for step in steps:
            self.items.append(Item(comment, in_order(step)))
            comment = (f"{call.source}: {call.op}: another result",)
        if not steps:
            for out in call.outputs:
                self.lost[out.key] = f"{call.source} ({call.op})"
                self.names.pop(out.key, None)

    def _declare(self, call: Call) -> list[dict]:
        """``opaque`` steps for what the call returned, or none if one of its results cannot be declared."""
        uses = list(dict.fromkeys(self.names[t.key] for t in call.inputs if t.key in self.names))
        try:
            steps = [opaque(call, t, uses, self.mesh) for t in call.outputs]
        except Unmappable:
            return []
        for step, out in zip(steps, call.outputs):
            step["opaque"]["as"] = self.bind(out)
        return steps


def opaque(call: Call, t: Traced, uses: list[str], mesh: tuple[int, ...]) -> dict:
    """An ``opaque`` step declaring ``t`` as the trace recorded it: spec, storage and topology."""
    if not re.fullmatch(CALL_NAME, call.op):  # as an opaque step's call must be
        raise Unmappable("the trace's name for the call is no dotted name")
    dist = t.distribution
    if dist is None or volume(dist.shape) > volume(mesh) or (t.mesh is not None and tuple(t.mesh) != tuple(mesh)):
        raise Unmappable("its topology is not recorded, or not on the scenario's mesh")
    coords = dist.coords or distribution_coords(dist.shape, mesh)
    topology = {
        "distribution_shape": list(dist.shape),
        "placements": ["replicate" if p is None else {"shard": p} for p in dist.placements],
        "coords": [list(c) for c in coords],
    }
    args = {"call": call.op, "as": None, **tensor_fields(t), "storage": t.storage, "topology": topology}
    if uses:
        args["uses"] = uses
    return {"opaque": args}


def distribution_coords(shape: tuple[int, ...], mesh: tuple[int, ...]) -> list[tuple[int, ...]]:
    """The device coordinates a distribution of ``shape`` lies on: the same coordinates when it fits
    the mesh axis by axis, else the mesh's first devices in row-major order (as
    meshspec.sim.mapping.distribute lays a mapper's shards).

    >>> distribution_coords((2, 3), (2, 4))
    [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)]
    >>> distribution_coords((3,), (2, 4))
    [(0, 0), (0, 1), (0, 2)]
    """
    if len(shape) == len(mesh) and all(n <= m for n, m in zip(shape, mesh)):
        return list(mesh_coords(shape))
    return list(itertools.islice(mesh_coords(mesh), volume(shape)))


ORDER = (
    "call", "uses", "file_name", "tensor", "src", "dst", "device_tensor", "host_tensor", "as", "shape", "dtype", "layout", "tile",
    "memory_config", "fill_value", "mesh_mapper", "mesh_composer", "device", "cache_file_name", "storage", "topology",
)
"""Step fields in the order docs/ttnn-spelling.md's examples write them: what it takes, what it binds, the spec, the rest."""


def in_order(step: dict) -> dict:
    """``step`` with its fields in :data:`ORDER`."""
    (op, args), = step.items()
    rank = {k: i for i, k in enumerate(ORDER)}
    return {op: dict(sorted(args.items(), key=lambda kv: rank.get(kv[0], len(ORDER))))}


def build(calls: list[Call], mesh: tuple[int, ...]) -> Built:
    """The steps that model ``calls`` on a mesh of ``mesh``, and a line per call not mapped."""
    b = Builder(mesh)
    for call in calls:
        b.add(call)
    return Built(tuple(b.items), tuple(b.unmapped), b.opaque)


def unmapped_op(op: str) -> str:
    """Why a call with no handler is not mapped: a step meshspec runs that import does not map
    yet (``ttnn.add``), or no step at all (``ttnn.synchronize_device``)."""
    step = op.split(".")[-1]
    if step in OPS and step != "opaque":
        return f"meshspec runs {step} steps, but import does not map its calls yet: write the step by hand (meshspec explain {step})"
    return "no meshspec step models this call"


def check_meshes(call: Call, mesh: tuple[int, ...]) -> None:
    """A call on a tensor of another mesh device (a submesh) is unmappable."""
    for t in call.inputs + call.outputs:
        if t.storage == "device" and t.mesh is not None and tuple(t.mesh) != tuple(mesh):
            raise Unmappable(
                f"a tensor on a mesh device of shape {list(t.mesh)}, not the scenario's {list(mesh)}: "
                "meshspec import models one mesh device"
            )


# -- field values ----------------------------------------------------------------------------
MEMORY_CONFIGS = {"dram": "DRAM_MEMORY_CONFIG", "l1": "L1_MEMORY_CONFIG"}


def tensor_fields(t: Traced, shape: Optional[tuple[int, ...]] = None) -> dict:
    """``shape``, ``dtype``, ``layout`` (and ``memory_config`` when not DRAM), checked against
    what meshspec simulates."""
    shape = tuple(shape or t.shape)
    if not 1 <= len(shape) <= 8 or any(not 1 <= n <= 2**40 for n in shape):
        raise Unmappable(f"shape {list(shape)}: meshspec shapes have 1 to 8 dims of 1 to 2**40")
    dtypes = [d.value for d in DataType]
    if t.dtype not in dtypes:
        raise Unmappable(f"dtype {t.dtype}: meshspec simulates {', '.join(dtypes)}")
    layouts = [v.value for v in Layout]
    if t.layout not in layouts:
        raise Unmappable(f"layout {t.layout}: meshspec simulates {', '.join(layouts)}")
    out = {"shape": list(shape), "dtype": t.dtype, "layout": t.layout}
    config = memory_config(t.memory)  # refuses what meshspec does not model
    if config != MEMORY_CONFIGS["dram"]:
        out["memory_config"] = config
    return out


def memory_config(m: Memory) -> str:
    """``DRAM_MEMORY_CONFIG`` or ``L1_MEMORY_CONFIG``; a sharded config or another buffer type is unmappable."""
    if m.layout != "interleaved":
        raise Unmappable(
            f"memory_config {m.layout.upper()}: import reads no shard spec (grid, shard shape, orientation) from a trace, "
            "and a sharded step needs one: write its memory_config by hand (meshspec explain allocate_tensor_on_device)"
        )
    if m.buffer not in MEMORY_CONFIGS:
        raise Unmappable(f"buffer type {m.buffer.upper()}: meshspec models DRAM and L1")
    return MEMORY_CONFIGS[m.buffer]


def with_memory(fields: dict, call: Call, t: Traced, default: str) -> dict:
    """``fields`` with the memory_config the call passed, or ``t``'s when it is not ``default``."""
    m = call.memory_config if call.memory_config is not None else t.memory
    if call.memory_config is not None or m.buffer != default:
        fields["memory_config"] = memory_config(m)
    else:
        fields.pop("memory_config", None)
    return fields


# -- mesh mappers and composers --------------------------------------------------------------
def _reproduces(shape: tuple, mesh: tuple, placements: tuple, override: Optional[tuple], t: Traced) -> bool:
    """Whether meshspec's distribution of ``shape`` gives the traced distribution and shard shape."""
    ps = tuple(Replicate() if p is None else Shard(p) for p in placements)
    try:
        d = distribute(shape, mesh, ps, override)
    except (TTFatal, ValueError):
        return False
    return tuple(d.topology.distribution_shape) == tuple(t.distribution.shape) and tuple(d.slots[0].shape) == tuple(t.shape)


def mapper(kind: Optional[str], shape: tuple[int, ...], t: Traced, mesh: tuple[int, ...]) -> Any:
    """The ``mesh_mapper`` that distributes a tensor of ``shape`` as ``t`` is distributed
    (None: no mapper). The tracer and the capture record no mapper config, only its result, so
    the mapper is read back from the result: the short spelling when meshspec reproduces the
    traced distribution with it, else ``{placements, mesh_shape}``."""
    if kind is None or (kind == UNKNOWN and t.distribution in (None, Distribution((1,), (None,)))):
        return None
    if kind == "ReplicateTensorToMeshWrapper":
        return "ReplicateTensorToMesh"
    dist = t.distribution
    if dist is None:
        raise Unmappable("its mesh mapper cannot be told from the trace: the result's placements are not recorded")
    if volume(dist.shape) > volume(mesh):
        raise Unmappable(f"its distribution {dist} needs more devices than the mesh's {volume(mesh)}")
    items = ["replicate" if p is None else {"shard": p} for p in dist.placements]
    n = volume(mesh)
    if len(dist.shape) == 1 and _reproduces(shape, mesh, dist.placements, (n,), t):
        return items[0]  # replicate or {shard: d}: over every device of the mesh, as shard_tensor_to_mesh_mapper
    if tuple(dist.shape) == tuple(mesh) and _reproduces(shape, mesh, dist.placements, None, t):
        return {"placements": items}
    return {"placements": items, "mesh_shape": list(dist.shape)}


def composer(t: Traced, result: tuple[int, ...], mesh: tuple[int, ...]) -> Any:
    """The ``mesh_composer`` that gives ``result`` from ``t``'s shards: per distribution axis
    the dim it concatenates, read from how much larger ``result`` is than one shard.

    >>> composer(Traced(0, "device", (1, 1, 32, 64), "bfloat16", "tile", distribution=Distribution((2, 4), (0, 3))), (2, 1, 32, 256), (2, 4))
    {'concat': [0, 3]}
    """
    dist = t.distribution
    if dist is None:
        raise Unmappable("its mesh composer cannot be told from the trace: the input's placements are not recorded")
    unclear = Unmappable(f"its mesh composer cannot be told from the shapes: shard {list(t.shape)}, {dist}, result {list(result)}")
    if not result or len(result) != len(t.shape) or min(t.shape) < 1 or any(r % s for r, s in zip(result, t.shape)):
        raise unclear
    left = [r // s for r, s in zip(result, t.shape)]  # how many shards the result holds along each dim
    dims: list[Optional[int]] = [None] * len(dist.shape)
    for axis in sorted(range(len(dist.shape)), key=lambda a: dist.placements[a] is None):  # Shard axes first
        dim = _concat_dim(left, dist.shape[axis], dist.placements[axis], dims)
        if dim is None:
            raise unclear
        dims[axis] = dim
        left[dim] //= dist.shape[axis]
    if any(x != 1 for x in left):
        raise unclear
    if len(dims) == 1:
        return {"concat": dims[0]}
    out: dict = {"concat": dims}
    if tuple(dist.shape) != tuple(mesh):
        out["mesh_shape"] = list(dist.shape)
    return out


def _concat_dim(left: list[int], n: int, own: Optional[int], taken: list) -> Optional[int]:
    """The dim a distribution axis of ``n`` devices concatenates on: its own Shard dim when the
    result holds ``n`` times as much there, else the first dim that does (a Replicate axis)."""
    rank = len(left)
    mine = normal_dim(own, rank) if own is not None else None
    candidates = ([mine] if mine is not None else []) + list(range(rank))
    return next((d for d in candidates if d not in taken and left[d] % n == 0 and (left[d] > 1 or n == 1)), None)


def recreate(t: Traced, mesh: tuple[int, ...]) -> dict:
    """A from_torch step that makes a tensor like ``t`` (on the mesh device, if ``t`` is on device)."""
    shape = global_shape(t)
    args = {"as": None, **tensor_fields(t, shape)}
    m = mapper(UNKNOWN, shape, t, mesh)
    if m is not None:
        args["mesh_mapper"] = m
    if t.storage == "device":
        args["device"] = "mesh_device"
    return {"from_torch": args}


# -- the handlers: one per ttnn call ---------------------------------------------------------
def _output(call: Call) -> Traced:
    if not call.outputs:
        raise Unmappable("the trace records no tensor it returned")
    return call.outputs[0]


def _input(call: Call, storage: Optional[str] = None, index: int = 0) -> Traced:
    found = [t for t in call.inputs if storage is None or t.storage == storage]
    if len(found) <= index:
        what = f"{storage} tensor" if storage else "tensor"
        raise Unmappable(f"the trace records no {what} argument")
    return found[index]


def from_torch(call: Call, b: Builder) -> dict:
    out = _output(call)
    if call.mapper == UNKNOWN and out.distribution is None:
        if out.storage == "device" and out.devices not in (None, volume(b.mesh)):
            raise Unmappable(f"its mesh mapper is not recorded, and {out.devices} of the {volume(b.mesh)} devices hold a shard")
        b.note("its torch tensor and mesh mapper are not recorded: taken as one plain tensor of the shard's shape")
    shape = call.global_shape or global_shape(out)
    args: dict = {"as": None, **tensor_fields(out, shape)}
    if call.tile is not None:
        args["tile"] = list(call.tile)
    m = mapper(call.mapper, shape, out, b.mesh)
    if m is not None:
        args["mesh_mapper"] = m
    if out.storage == "device":
        with_memory(args, call, out, "dram")
        args["device"] = "mesh_device"
    if call.op == "ttnn.as_tensor" and call.file_name is not None:
        args["cache_file_name"] = call.file_name
    args["as"] = b.bind(out)
    return {call.op.split(".")[-1]: args}


def allocate(call: Call, b: Builder) -> dict:
    out = _output(call)
    args = {"as": None, **tensor_fields(out)}
    args["as"] = b.bind(out)
    return {call.op.split(".")[-1]: args}


def copy_host_to_device(call: Call, b: Builder) -> dict:
    src, dst = b.use(_input(call, "host"), call), b.use(_input(call, "device"), call)
    return {"copy_host_to_device_tensor": {"src": src, "dst": dst}}


def copy_device_to_host(call: Call, b: Builder) -> dict:
    dev, host = b.use(_input(call, "device"), call), b.use(_input(call, "host"), call)
    return {"copy_device_to_host_tensor": {"device_tensor": dev, "host_tensor": host}}


def to_device(call: Call, b: Builder) -> dict:
    src = _input(call)
    name = b.use(src, call)
    out = _output(call)
    key = "src" if call.op == "ttnn.to_device" else "tensor"
    args = {key: name, "as": None}
    with_memory(args, call, out, "dram" if call.op == "ttnn.to_device" else src.memory.buffer)
    args["as"] = b.bind(out)
    return {"to_device" if call.op == "ttnn.to_device" else "to": args}


def cpu(call: Call, b: Builder) -> dict:
    name = b.use(_input(call, "device"), call)
    args = {"tensor": name}
    if call.outputs:
        args["as"] = b.bind(call.outputs[0])
    return {"cpu": args}


def to_torch(call: Call, b: Builder) -> dict:
    t = _input(call)
    name = b.use(t, call)
    args: dict = {"tensor": name}
    if call.composer or (call.composer is None and call.result_shape not in (None, t.shape)):
        if call.result_shape is None:
            raise Unmappable("its mesh composer cannot be told from the trace: the result's shape is not recorded")
        args["mesh_composer"] = composer(t, call.result_shape, b.mesh)
    return {"to_torch": args}


def deallocate(call: Call, b: Builder) -> dict:
    return {"deallocate": {"tensor": b.use(_input(call, "device"), call)}}


def creation(call: Call, b: Builder) -> dict:
    out = _output(call)
    op = call.op.split(".")[-1]
    args = {"as": None, **tensor_fields(out, call.shape)}
    if op == "full":
        if call.fill_value is None:
            raise Unmappable("the trace records no fill_value")
        args["fill_value"] = call.fill_value
    if out.storage == "device":
        with_memory(args, call, out, "dram")
        args["device"] = "mesh_device"
    elif op == "empty":
        raise Unmappable("ttnn.empty without a device: meshspec's empty allocates on a mesh device")
    args["as"] = b.bind(out)
    return {op: args}


def creation_like(call: Call, b: Builder) -> dict:
    src, out = _input(call), _output(call)
    op = call.op.split(".")[-1]
    args: dict = {"tensor": b.use(src, call), "as": None}
    fields = tensor_fields(out)
    for key in ("dtype", "layout"):
        if fields[key] != getattr(src, key):
            args[key] = fields[key]
    if out.storage == "device" and src.storage == "host":
        args["device"] = "mesh_device"
    if out.memory != src.memory:
        args["memory_config"] = memory_config(out.memory)
    if op == "full_like":
        if call.fill_value is None:
            raise Unmappable("the trace records no fill_value")
        args["fill_value"] = call.fill_value
    args["as"] = b.bind(out)
    return {op: args}


def dump_tensor(call: Call, b: Builder) -> dict:
    if not call.file_name:
        raise Unmappable("the trace records no file_name")
    name = b.use(_input(call), call)
    b.dumped.add(call.file_name)
    return {"dump_tensor": {"file_name": call.file_name, "tensor": name}}


def load_tensor(call: Call, b: Builder) -> dict:
    if not call.file_name:
        raise Unmappable("the trace records no file_name")
    if call.file_name not in b.dumped:
        raise Unmappable(f"it loads {call.file_name}, which no traced dump_tensor wrote; in meshspec, files live in the run")
    out = _output(call)
    args = {"file_name": call.file_name, "as": None}
    if out.storage == "device":
        args["device"] = "mesh_device"
    args["as"] = b.bind(out)
    return {"load_tensor": args}


Handler = Callable[[Call, Builder], dict]

#: ttnn call -> the function that maps it to a step; every other call is unmapped.
HANDLERS: dict[str, Handler] = {
    "ttnn.from_torch": from_torch,
    "ttnn.as_tensor": from_torch,
    "ttnn.allocate_tensor_on_device": allocate,
    "ttnn.allocate_tensor_on_host": allocate,
    "ttnn.copy_host_to_device_tensor": copy_host_to_device,
    "ttnn.copy_device_to_host_tensor": copy_device_to_host,
    "ttnn.to_device": to_device,
    "Tensor.to": to_device,
    "ttnn.from_device": cpu,
    "Tensor.cpu": cpu,
    "ttnn.to_torch": to_torch,
    "ttnn.deallocate": deallocate,
    "Tensor.deallocate": deallocate,
    "ttnn.dump_tensor": dump_tensor,
    "ttnn.load_tensor": load_tensor,
    **{f"ttnn.{op}": creation for op in ("zeros", "ones", "full", "empty")},
    **{f"ttnn.{op}_like": creation_like for op in ("zeros", "ones", "full", "empty")},
}
