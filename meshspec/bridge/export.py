"""``meshspec export SCENARIO --to ttnn``: the scenario as one standalone Python script on the real
ttnn API, readable enough to paste into a tt-metal issue.

The script performs the steps in order; after the last one (or the step that raised) it writes a
``meshspec.report/1`` of what the real runtime recorded (meshspec/bridge/observe.py, inlined), to
the path given or stdout, so ``meshspec diff simulated.json real.json`` compares the two. Host
tensors come from ``ttnn.from_torch`` when torch is importable, else from numpy through
``ttnn.Tensor(array, dtype, None, layout)`` and ``ttnn.distribute_tensor`` (the mock's Python has no
torch). Each step is emitted by the function :data:`EMITTERS` names for its op; every op has one.
"""

from __future__ import annotations

import functools
import keyword
import math
import re
from pathlib import Path
from typing import Any, Callable

from ..scenario.loader import LoadedScenario
from ..sim.ops import fields as f
from ..sim.ops.mappers import composer_choice, mapper_choice
from ..sim.sharding import MemoryLayout
from ..sim.spec import BufferType, DataType, Layout
from ..text import one_line, printable

DTYPES = {d: f"ttnn.{d.value}" for d in DataType}
LAYOUTS = {Layout.TILE: "ttnn.TILE_LAYOUT", Layout.ROW_MAJOR: "ttnn.ROW_MAJOR_LAYOUT"}
BUFFERS = {BufferType.DRAM: "ttnn.BufferType.DRAM", BufferType.L1: "ttnn.BufferType.L1"}
MEMORY_CONFIGS = {BufferType.DRAM: "ttnn.DRAM_MEMORY_CONFIG", BufferType.L1: "ttnn.L1_MEMORY_CONFIG"}


class Context:
    """What emitters share: Python names for the scenario's tensors and meshes."""

    def __init__(self, scenario: LoadedScenario, reserved: frozenset[str] = frozenset()) -> None:
        self.scenario = scenario
        self.reserved = reserved
        self.names: dict[str, str] = {"mesh_device": "mesh_device"}

    def var(self, name: str) -> str:
        """A Python expression for a scenario name: ``parts[3]`` stays ``parts[3]``; other names are
        made identifiers (``dst.cpu`` -> ``dst_cpu``)."""
        m = re.fullmatch(r"(.*)\[(\d+)\]", name)
        if m:
            return f"{self.var(m.group(1))}[{m.group(2)}]"
        if name not in self.names:
            ident = re.sub(r"[^A-Za-z0-9_]", "_", name)
            if not ident.strip("_") or ident[0].isdigit() or ident.startswith("__"):  # no dunder: _-dict-_ is not __dict__
                ident = f"t_{ident}"  # and no '_' alone: the script's throwaway (a cpu() with no 'as')
            if keyword.iskeyword(ident) or ident in self.reserved:  # a name the script uses (host_tensor, np)
                ident += "_"
            while ident in self.names.values():
                ident += "_"
            self.names[name] = ident
        return self.names[name]

    def mesh(self, name) -> str:
        return self.var(name) if name else "mesh_device"

    def trace(self, name: str) -> str:
        """A trace's variable: traces are named apart from tensors in a scenario (a trace and a
        tensor may both be ``a``), so their variables are too (``trace_a``)."""
        return self.var(f"trace {name}")

    @functools.cached_property
    def lists(self) -> frozenset[str]:
        """The names of the lists steps bind (get_device_tensors' parts), worked out once: an op
        taking tensors asks for each of its names, and a scan a call made export quadratic."""
        from ..sim.ops import OPS

        return frozenset(OPS[s.op].bound(s.args) for s in self.scenario.steps if OPS[s.op].binds is not None and OPS[s.op].binds.many)


Emitter = Callable[[Any, Context], list[str]]


def _spec(a, ctx: Context, shape=None) -> str:
    parts = [str(list(shape or a.shape)), DTYPES[DataType(a.dtype)], LAYOUTS[Layout(a.layout)]]
    config = getattr(a, "memory_config", None)
    if isinstance(config, f.CreateSharded):
        h = config.create_sharded_memory_config
        parts += [f"ttnn.TensorMemoryLayout.{h.strategy.upper()}_SHARDED", f"{_memory_config(config)}.shard_spec", BUFFERS[a.buffer_type]]
    elif isinstance(config, f.MemoryConfigFields) and config.nd_shard_spec is not None and config.shard_spec is None:
        # TensorSpec(shape, dtype, layout, nd_shard_spec, buffer_type): the ND overload
        parts += [_nd_shard_spec(config.nd_shard_spec), BUFFERS[a.buffer_type]]
    elif isinstance(config, f.MemoryConfigFields) and config.memory_layout is not MemoryLayout.INTERLEAVED:
        # TensorSpec(shape, dtype, layout, memory_layout, shard_spec, buffer_type): the 2-D sharded overload
        shard = _shard_spec(config.shard_spec) if config.shard_spec is not None else "None"
        parts += [f"ttnn.TensorMemoryLayout.{config.memory_layout.name}", shard, BUFFERS[a.buffer_type]]
    elif isinstance(config, str) and f.NAMED_CONFIGS[config][1] is not MemoryLayout.INTERLEAVED:
        parts += [f"ttnn.TensorMemoryLayout.{f.NAMED_CONFIGS[config][1].name}", "None", BUFFERS[a.buffer_type]]
    else:
        parts.append(BUFFERS[a.buffer_type])
    tile = "" if tuple(a.tile) == (32, 32) else f", tile=ttnn.Tile({list(a.tile)})"
    return f"ttnn.TensorSpec({', '.join(parts)}{tile})"


def _shard_spec(s) -> str:
    """``ttnn.ShardSpec(ttnn.CoreRangeSet([...]), [h, w], orientation)`` for a scenario's shard_spec."""
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({a[0]}, {a[1]}), ttnn.CoreCoord({b[0]}, {b[1]}))" for a, b in s.grid)
    return f"ttnn.ShardSpec(ttnn.CoreRangeSet([{ranges}]), {list(s.shape)}, ttnn.ShardOrientation.{s.orientation.name})"


def _nd_shard_spec(nd) -> str:
    """``ttnn.NdShardSpec(ttnn.Shape([...]), ttnn.CoreRangeSet([...]), orientation, distribution)``."""
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({a[0]}, {a[1]}), ttnn.CoreCoord({b[0]}, {b[1]}))" for a, b in nd.grid)
    return (f"ttnn.NdShardSpec(ttnn.Shape({list(nd.shard_shape)}), ttnn.CoreRangeSet([{ranges}]), "
            f"ttnn.ShardOrientation.{nd.orientation.name}, ttnn.ShardDistributionStrategy.{nd.distribution.name})")


def _memory_config(config) -> str:
    """A scenario's memory_config as ttnn code: its constant, or ``ttnn.MemoryConfig(...)``."""
    if isinstance(config, str):
        return f"ttnn.{config}" if config.endswith("MEMORY_CONFIG") else MEMORY_CONFIGS[f.buffer_type(config)]
    if isinstance(config, f.CreateSharded):
        h = config.create_sharded_memory_config
        if h.core_range_set is not None:
            ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({a[0]}, {a[1]}), ttnn.CoreCoord({b[0]}, {b[1]}))" for a, b in h.core_range_set)
            grid = f"ttnn.CoreRangeSet([{ranges}])"
        else:
            grid = f"ttnn.CoreGrid(y={h.core_grid.y}, x={h.core_grid.x})"
        orientation = f"ttnn.ShardOrientation.{h.orientation.name}" if h.orientation is not None else "None"
        return (f"ttnn.create_sharded_memory_config({list(h.shape)}, {grid}, ttnn.ShardStrategy.{h.strategy.upper()}, {orientation}, "
                f"use_height_and_width_as_shard_shape={h.use_height_and_width_as_shard_shape})")
    if config.nd_shard_spec is not None and config.shard_spec is None:
        return f"ttnn.MemoryConfig({BUFFERS[config.buffer_type]}, {_nd_shard_spec(config.nd_shard_spec)})"
    if config.memory_layout is MemoryLayout.INTERLEAVED:
        return MEMORY_CONFIGS[config.buffer_type]
    shard = f", {_shard_spec(config.shard_spec)}" if config.shard_spec is not None else ""
    return f"ttnn.MemoryConfig(ttnn.TensorMemoryLayout.{config.memory_layout.name}, {BUFFERS[config.buffer_type]}{shard})"


def _number(v) -> str:
    """A number as Python source: ``float('nan')``, ``float('inf')`` and ``-float('inf')`` for what
    repr writes as bare names (``nan``: a NameError, or a tensor of that name, in the script).

    >>> _number(float("nan")), _number(float("-inf")), _number(2**31 + 1), _number(0.5)
    ("float('nan')", "-float('inf')", '2147483649', '0.5')
    """
    if isinstance(v, float) and not math.isfinite(v):
        return "float('nan')" if math.isnan(v) else ("float('inf')" if v > 0 else "-float('inf')")
    return repr(v)


def _data(a, ctx: Context) -> str:
    """numpy code for a step's host data (the values meshspec makes: docs/semantics.md section 8)."""
    shape = tuple(a.shape)
    data = a.data
    if data == "arange":
        return f"arange({shape})"
    if data in ("zeros", "ones"):
        return f"np.{data}({shape}, dtype=np.float32)"
    if isinstance(data, f.FillData):
        return f"np.full({shape}, {_number(data.fill)}, dtype=np.float64)"
    if isinstance(data, f.RandomData):
        return f"random({shape}, {data.random})"
    return f"np.load(here / {data.file!r})"


def _mapper(m, ctx: Context) -> str:
    if m is None:
        return "None"
    choice = mapper_choice(m, lambda _: 0)
    return choice.text.replace("(mesh_device", f"({ctx.mesh(choice.mesh)}")


def _composer(c, ctx: Context) -> str:
    choice = composer_choice(c)
    return choice.text.replace("(mesh_device", f"({ctx.mesh(choice.mesh)}")


def _memory(a) -> str:
    config = getattr(a, "memory_config", None)
    if config is not None:
        return _memory_config(config)
    memory = getattr(a, "memory", None)
    return MEMORY_CONFIGS[memory] if memory is not None else "None"


def allocate(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.allocate_tensor_on_device({_spec(a, ctx)}, {ctx.mesh(a.mesh_device)})"]


def from_torch(a, ctx):
    device = ctx.mesh(a.device) if a.device else "None"
    memory = _memory(a) if a.memory_config is not None else "None"
    return [
        f"{ctx.var(a.as_)} = host_tensor({_data(a, ctx)}, {DTYPES[DataType(a.dtype)]}, {LAYOUTS[Layout(a.layout)]}, "
        f"mapper={_mapper(a.mesh_mapper, ctx)}, device={device}, memory_config={memory}, tile={list(a.tile)})"
    ]


def to_device(a, ctx):
    memory = _memory(a)
    tail = f", memory_config={memory}" if memory != "None" else ""
    return [f"{ctx.var(a.as_)} = ttnn.to_device({ctx.var(a.src)}, {ctx.mesh(a.device)}{tail})"]


def to(a, ctx):
    memory = _memory(a)
    tail = f", {memory}" if memory != "None" else ""
    return [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.to({ctx.mesh(a.device)}{tail})"]


def copy(a, ctx):
    return [f"ttnn.copy_host_to_device_tensor({ctx.var(a.src)}, {ctx.var(a.dst)})"]


def cpu(a, ctx):
    return [f"{ctx.var(a.as_) if a.as_ else '_'} = {ctx.var(a.tensor)}.cpu()"]


def to_torch(a, ctx):
    composer = _composer(a.mesh_composer, ctx) if a.mesh_composer is not None else "None"
    return [f"{ctx.var(a.as_) if a.as_ else '_'} = to_torch({ctx.var(a.tensor)}, mesh_composer={composer})"]


def deallocate(a, ctx):
    return [f"ttnn.deallocate({ctx.var(a.tensor)}{'' if a.force else ', force=False'})"]


def get_device_tensors(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.get_device_tensors({ctx.var(a.tensor)})"]


_TOPOLOGY = {"ring": "Ring", "linear": "Linear"}
"""A collective's ``topology:`` -> its ``ttnn.Topology`` member."""


def _ccl_topology(a) -> str:
    """``, topology=ttnn.Topology.Ring`` for a collective given one; nothing (ttnn's default) otherwise."""
    return f", topology=ttnn.Topology.{_TOPOLOGY[a.topology]}" if a.topology else ""


def _tensors(names, ctx) -> str:
    """A list of tensors: a list name is the list itself (``parts``)."""
    items = [ctx.var(n) for n in names]
    if len(items) == 1 and names[0] in ctx.lists:
        return items[0]
    return "[" + ", ".join(f"*{i}" if n in ctx.lists else i for n, i in zip(names, items)) + "]"


def combine(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.combine_device_tensors(tensors={_tensors(a.tensors, ctx)})"]


def from_host_shards(a, ctx):
    shape = ", ".join(map(str, a.mesh_shape))
    return [f"{ctx.var(a.as_)} = ttnn.from_host_shards({_tensors(a.tensors, ctx)}, ttnn.MeshShape({shape}))"]


def distribute_tensor(a, ctx):
    device = ctx.mesh(a.mesh_device) if a.mesh_device else "None"
    return [f"{ctx.var(a.as_)} = ttnn.distribute_tensor({ctx.var(a.tensor)}, {_mapper(a.mesh_mapper, ctx)}, {device})"]


def aggregate_tensor(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.aggregate_tensor({ctx.var(a.tensor)}, {_composer(a.mesh_composer, ctx)})"]


def allocate_on_host(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.allocate_tensor_on_host({_spec(a, ctx)}, {ctx.mesh(a.mesh_device)})"]


def copy_partial(a, ctx):
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({r[0][0]}, {r[0][1]}), ttnn.CoreCoord({r[1][0]}, {r[1][1]}))" for r in a.core_filter)
    return [f"ttnn.copy_host_to_device_tensor_partial({ctx.var(a.src)}, {ctx.var(a.dst)}, ttnn.CoreRangeSet([{ranges}]))"]


def copy_to_host(a, ctx):
    return [f"ttnn.copy_device_to_host_tensor({ctx.var(a.device_tensor)}, {ctx.var(a.host_tensor)}, blocking=True)"]


def _topology(t) -> str:
    """``ttnn.TensorTopology(...)`` for a topology's fields."""
    placements = ", ".join("ttnn.PlacementReplicate()" if p in ("replicate", "R") else f"ttnn.PlacementShard({p.shard})" for p in t.placements)
    coords = ", ".join(f"ttnn.MeshCoordinate({', '.join(map(str, c))})" for c in t.coordinates)
    shape = list(t.distribution_shape)  # MeshShape(7) is refused; MeshShape([7]) is the 1-D shape
    # by ttnn's own argument names (its pybind signature, tests/golden userwrites), as the step may spell them
    return f"ttnn.TensorTopology(distribution_shape=ttnn.MeshShape({shape}), placements=[{placements}], mesh_coords=[{coords}])"


def update_topology(a, ctx):
    return [f"{ctx.var(a.tensor)}.update_tensor_topology(", f"    {_topology(a.topology)}", ")"]


def opaque(a, ctx):
    """The step's call, generated from its code as :func:`.code.parse` took it (one known ttnn
    function on the step's tensors, literals and ttnn's constants; the scenario's text is never
    copied); else a call that makes the same records."""
    from ..scenario.code import Call, parse

    parsed = parse(a.code, a.call, list(a.uses)) if a.code else None
    if isinstance(parsed, Call):
        return [f"# not modeled by meshspec ({a.call}): the program's own call", f"{ctx.var(a.as_)} = {parsed.expression(ctx.var)}"]
    out = ctx.var(a.as_)
    head = [
        one_line(f"# {a.call}({', '.join(ctx.var(u) for u in a.uses)}) is not modeled by meshspec: put the call here. Below, a"),
        "# tensor with the records the real runtime gave its output (its values are not the call's).",
    ]
    if parsed is not None:  # why, in one line; never the text itself
        head.insert(0, one_line(f"# the scenario's code for this step is not run here: {parsed}"))
    recorded = a.recorded if a.recorded is not None else a.topology.coordinates
    if a.storage == "host" and len(recorded) == 1:  # one host buffer: a plain host tensor of zeros
        zeros = f"np.zeros({tuple(a.shape)}, dtype=np.float32)"
        return head + [f"{out} = host_tensor({zeros}, {DTYPES[DataType(a.dtype)]}, {LAYOUTS[Layout(a.layout)]}, tile={list(a.tile)})"]
    return head + [
        f"{out} = ttnn.allocate_tensor_on_{'host' if a.storage == 'host' else 'device'}({_spec(a, ctx)}, mesh_device)",
        f"{out}.update_tensor_topology({_topology(a.topology)})",
    ]


def _creation(name: str, fill: bool = False):
    def emit(a, ctx):
        device = ctx.mesh(a.device) if getattr(a, "device", None) else "None"
        value = f", fill_value={_number(a.fill_value)}" if fill else ""
        # memory_config=None is refused ("incompatible function arguments"): left out, ttnn's default
        memory = f", memory_config={_memory(a)}" if a.memory_config is not None else ""
        return [
            f"{ctx.var(a.as_)} = ttnn.{name}({list(a.shape)}{value}, dtype={DTYPES[DataType(a.dtype)]}, "
            f"layout={LAYOUTS[Layout(a.layout)]}, device={device}{memory})"
        ]

    return emit


def _like(name: str, fill: bool = False):
    def emit(a, ctx):
        args = [ctx.var(a.tensor)] + ([f"fill_value={_number(a.fill_value)}"] if fill else [])
        if a.dtype is not None:
            args.append(f"dtype={DTYPES[DataType(a.dtype)]}")
        if a.layout is not None:
            args.append(f"layout={LAYOUTS[Layout(a.layout)]}")
        if a.device:
            args.append(f"device={ctx.mesh(a.device)}")
        if a.memory_config is not None:
            args.append(f"memory_config={_memory(a)}")
        return [f"{ctx.var(a.as_)} = ttnn.{name}({', '.join(args)})"]

    return emit


def create_submesh(a, ctx):
    shape = ", ".join(map(str, a.shape))
    offset = f", ttnn.MeshCoordinate({', '.join(map(str, a.offset))})" if a.offset is not None else ""
    return [f"{ctx.var(a.as_)} = {ctx.mesh(a.mesh_device)}.create_submesh(ttnn.MeshShape({shape}){offset})"]


def create_submeshes(a, ctx):
    return [f"{ctx.var(a.as_)} = {ctx.mesh(a.mesh_device)}.create_submeshes(ttnn.MeshShape({', '.join(map(str, a.shape))}))"]


def reshape(a, ctx):
    return [f"{ctx.mesh(a.mesh_device)}.reshape(ttnn.MeshShape({', '.join(map(str, a.shape))}))"]


def _in_files(name: str) -> str:
    """A scenario's file name as one plain name inside the script's own temporary folder: in a
    scenario, files live in the run, and a script must not write where the name points
    (``/home/me/.bashrc``, ``../x``). Two names are two files, as in the simulation (a load of a
    name never dumped must fail there too): every character but ``A-Z a-z 0-9 _ . -`` (and a
    leading ``.``) becomes ``%XX`` of its UTF-8 bytes, ``%`` included, so the mapping is one to
    one; and a name's mapping followed by ``as_tensor``'s suffix is the mapping of the name with
    the suffix, as the simulation's file is. A name whose mapping would be longer than
    :data:`LONG_FILE` characters is its SHA-256 instead (``%%`` + 64 digits: in a mapping
    spelt out, ``%`` is always followed by two digits).

    >>> _in_files("/home/me/.bashrc"), _in_files("x/y.tensorbin"), _in_files("x_y.tensorbin"), _in_files("..")
    ('%2Fhome%2Fme%2F.bashrc', 'x%2Fy.tensorbin', 'x_y.tensorbin', '%2E.')
    """
    import hashlib

    raw = name.encode("utf-8", "surrogatepass")
    out = "".join(chr(b) if (chr(b).isascii() and (chr(b).isalnum() or chr(b) in "_.-")) and not (i == 0 and b == 0x2E)
                  else f"%{b:02X}" for i, b in enumerate(raw))
    if len(out) > LONG_FILE:
        return "%%" + hashlib.sha256(raw).hexdigest()
    return out


LONG_FILE = 160
"""The longest file name a script uses as the scenario's name spelt out (as_tensor adds about 40
characters; most file systems take 255 bytes)."""


def dump(a, ctx):
    return [f"ttnn.dump_tensor(files / {_in_files(a.file_name)!r}, {ctx.var(a.tensor)})"]


def load(a, ctx):
    device = f", device={ctx.mesh(a.device)}" if a.device else ""
    return [f"{ctx.var(a.as_)} = ttnn.load_tensor(files / {_in_files(a.file_name)!r}{device})"]


def as_tensor(a, ctx):
    device = ctx.mesh(a.device) if a.device else "None"
    memory = _memory(a) if a.memory_config is not None else "None"
    cache = f"files / {_in_files(a.cache_file_name)!r}" if a.cache_file_name is not None else "None"
    return [
        f"{ctx.var(a.as_)} = as_tensor({_data(a, ctx)}, {DTYPES[DataType(a.dtype)]}, {LAYOUTS[Layout(a.layout)]}, "
        f"mapper={_mapper(a.mesh_mapper, ctx)}, device={device}, memory_config={memory}, cache_file_name={cache})"
    ]


#: op name -> the emitter of its Python (tests/bridge/test_export.py: every op has one).
EMITTERS: dict[str, Emitter] = {
    "allocate_tensor_on_device": allocate,
    "from_torch": from_torch,
    "to_device": to_device,
    "to": to,
    "copy_host_to_device_tensor": copy,
    "cpu": cpu,
    "to_torch": to_torch,
    "deallocate": deallocate,
    "get_device_tensors": get_device_tensors,
    "combine_device_tensors": combine,
    "from_host_shards": from_host_shards,
    "distribute_tensor": distribute_tensor,
    "aggregate_tensor": aggregate_tensor,
    "allocate_tensor_on_host": allocate_on_host,
    "copy_device_to_host_tensor": copy_to_host,
    "update_tensor_topology": update_topology,
    "all_gather": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.all_gather({ctx.var(a.tensor)}, {a.dim}, cluster_axis={a.cluster_axis}{_ccl_topology(a)})"],
    # the experimental CCLs as 0.81.1 binds them: global semaphores, a topology (they need a fabric to run)
    "all_gather_async": lambda a, ctx: [
        f"{ctx.var(a.as_)} = ttnn.experimental.all_gather_async({ctx.var(a.tensor)}, dim={a.dim}, "
        f"multi_device_global_semaphore=ccl_semaphores(mesh_device, 2), topology=ttnn.Topology.{_TOPOLOGY[a.topology or 'linear']}, cluster_axis={a.cluster_axis})"],
    "all_reduce": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.all_reduce({ctx.var(a.tensor)}, cluster_axis={a.cluster_axis}{_ccl_topology(a)})"],
    "all_reduce_async": lambda a, ctx: [
        f"{ctx.var(a.as_)} = ttnn.experimental.all_reduce_async({ctx.var(a.tensor)}, cluster_axis={a.cluster_axis}, mesh_device=mesh_device, "
        f"math_op=ttnn.ReduceType.Sum, topology=ttnn.Topology.{_TOPOLOGY[a.topology or 'linear']})"],
    "reduce_scatter": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.reduce_scatter({ctx.var(a.tensor)}, {a.dim}, cluster_axis={a.cluster_axis}{_ccl_topology(a)})"],
    "reduce_scatter_minimal_async": lambda a, ctx: [
        f"{ctx.var(a.as_)} = ttnn.experimental.reduce_scatter_minimal_async({ctx.var(a.tensor)}, dim={a.dim}, "
        f"multi_device_global_semaphore=ccl_semaphores(mesh_device, 3), topology=ttnn.Topology.{_TOPOLOGY[a.topology or 'linear']}, cluster_axis={a.cluster_axis})"],
    "reshape": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.reshape({ctx.var(a.tensor)}, {list(a.shape)})"],
    "view": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.view({ctx.var(a.tensor)}, {list(a.shape)})"],
    "slice": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.slice({ctx.var(a.tensor)}, {list(a.starts)}, {list(a.ends)}"
                             + (f", {list(a.steps)})" if a.steps else ")")],
    "concat": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.concat({_tensors(a.tensors, ctx)}, {a.dim})"],
    "pad": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.pad({ctx.var(a.tensor)}, {[tuple(p) for p in a.padding]}, {_number(float(a.value))})"],
    "begin_trace_capture": lambda a, ctx: [f"{ctx.trace(a.trace)} = ttnn.begin_trace_capture(mesh_device, cq_id=0)"],
    "end_trace_capture": lambda a, ctx: [f"ttnn.end_trace_capture(mesh_device, {ctx.trace(a.trace)}, cq_id=0)"],
    "execute_trace": lambda a, ctx: [f"ttnn.execute_trace(mesh_device, {ctx.trace(a.trace)}, cq_id=0, blocking=True)"],
    "release_trace": lambda a, ctx: [f"ttnn.release_trace(mesh_device, {ctx.trace(a.trace)})"],
    **{name: (lambda n: lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{n}({ctx.var(a.tensor)})"])(name)
       for name in ("neg", "exp", "relu", "gelu", "clone", "reallocate", "tilize", "untilize")},
    **{name: (lambda n: lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{n}({ctx.var(a.a)}, {ctx.var(a.b)})"])(name) for name in ("add", "sub", "mul")},
    "matmul": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.matmul({ctx.var(a.a)}, {ctx.var(a.b)})"],
    "linear": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.linear({ctx.var(a.a)}, {ctx.var(a.b)}"
                              + (f", bias={ctx.var(a.bias)})" if a.bias else ")")],
    "sum": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.sum({ctx.var(a.tensor)}, {a.dim}, keepdim={a.keepdim})"],
    "max": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.max({ctx.var(a.tensor)}, {a.dim}, keepdim={a.keepdim})"],
    "transpose": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.transpose({ctx.var(a.tensor)}, {a.dim0}, {a.dim1})"],
    "typecast": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.typecast({ctx.var(a.tensor)}, {DTYPES[DataType(a.dtype)]})"],
    "to_layout": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.to_layout({ctx.var(a.tensor)}, {LAYOUTS[Layout(a.layout)]})"],
    "to_dtype": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.to_dtype({ctx.var(a.tensor)}, {DTYPES[DataType(a.dtype)]})"],
    "unpad": lambda a, ctx: [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.unpad({list(a.output_tensor_start)}, {list(a.output_tensor_end)})"],
    "pad_to_tile": lambda a, ctx: [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.pad_to_tile({_number(float(a.pad_value))})"],
    "to_memory_config": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.to_memory_config({ctx.var(a.tensor)}, {_memory_config(a.memory_config)})"],
    "squeeze": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.squeeze({ctx.var(a.tensor)}, {a.dim})"],
    "unsqueeze": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.unsqueeze({ctx.var(a.tensor)}, {a.dim})"],
    "permute": lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.permute({ctx.var(a.tensor)}, {tuple(a.dims)})"],
    "copy_host_to_device_tensor_partial": copy_partial,
    "opaque": opaque,
    "empty": _creation("empty"),
    "zeros": _creation("zeros"),
    "ones": _creation("ones"),
    "full": _creation("full", fill=True),
    "empty_like": _like("empty_like"),
    "zeros_like": _like("zeros_like"),
    "ones_like": _like("ones_like"),
    "full_like": _like("full_like", fill=True),
    "create_submesh": create_submesh,
    "create_submeshes": create_submeshes,
    "MeshDevice.reshape": reshape,
    "dump_tensor": dump,
    "load_tensor": load,
    "as_tensor": as_tensor,
    "to_string": lambda a, ctx: [f"show({ctx.var(a.tensor)})"],
    "visualize_tensor": lambda a, ctx: [f"ttnn.visualize_tensor({ctx.var(a.tensor)})"],
    "begin_graph_capture": lambda a, ctx: ["graph_capture(True)"],
    "end_graph_capture": lambda a, ctx: ["graph_capture(False)"],
}

HELPERS = '''
def show(t):
    """print(t): Tensor.__repr__, which is ttnn::to_string."""
    print(t)


def graph_capture(begin):
    """ttnn.graph.begin_graph_capture(RunMode.NORMAL), or end_graph_capture() (its graph unused)."""
    if begin:
        ttnn.graph.begin_graph_capture(ttnn.graph.RunMode.NORMAL)
    else:
        ttnn.graph.end_graph_capture()


def ccl_semaphores(mesh_device, n):
    """n global semaphores on every worker core, as the experimental CCLs take them."""
    grid = mesh_device.compute_with_storage_grid_size()
    cores = ttnn.CoreRangeSet({ttnn.CoreRange(ttnn.CoreCoord(0, 0), ttnn.CoreCoord(grid.x - 1, grid.y - 1))})
    return [ttnn.create_global_semaphore(mesh_device, cores, 0) for _ in range(n)]

def arange(shape):
    """0, 1, 2, ... in row-major order (float32: exact to 2**24, as torch.arange(n).float())."""
    return np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def random(shape, seed):
    return np.random.default_rng(seed).standard_normal(int(np.prod(shape)), dtype=np.float32).reshape(shape)


def host_tensor(array, dtype, layout, mapper=None, device=None, memory_config=None, tile=(32, 32)):
    """ttnn.from_torch(...) when torch is importable; else the same through numpy: ttnn.Tensor on
    host, then ttnn.distribute_tensor (which puts it on the device when given)."""
    tile = ttnn.Tile(list(tile)) if list(tile) != [32, 32] else None
    if isinstance(mapper, ttnn.ReplicateTensorToMeshWrapper) and torch is None:
        mapper = mapper.unwrap()  # from_torch unwraps it; distribute_tensor takes the mapper inside
    if torch is not None:
        return ttnn.from_torch(torch.from_numpy(np.ascontiguousarray(array)), dtype=dtype, layout=layout, tile=tile,
                               mesh_mapper=mapper, device=device, memory_config=memory_config)
    extra = {} if tile is None else {"tile": tile}
    if mapper is None:
        t = host_array_tensor(array, dtype, layout, None, extra)
        return t if device is None else ttnn.to_device(t, device, memory_config=memory_config)
    t = host_array_tensor(array, dtype, layout, memory_config, extra)
    return ttnn.distribute_tensor(t, mapper, device)


def host_array_tensor(array, dtype, layout, memory_config, extra):
    """ttnn.Tensor(array, dtype, None, layout) on host; where that constructor misreads a bfloat16
    array (ttnn 0.66.0 and 0.67.0 refuse it: "Number of elements from python tensor 0 must match
    ...", "Current buffer size is 0 ..."), the flat-list constructor ttnn.Tensor(values, shape,
    dtype, layout), which reads it in every version (docs/semantics.md section 10)."""
    if dtype == ttnn.bfloat16 and not numpy_reads_bfloat16():
        config = {} if memory_config is None else {"device": None, "memory_config": memory_config}
        return ttnn.Tensor(array.astype(np.float32).reshape(-1).tolist(), list(array.shape), dtype, layout, **config, **extra)
    return ttnn.Tensor(array.astype(np.float32), dtype, None, layout, mem_config=memory_config, **extra)


def numpy_reads_bfloat16():
    """Whether this ttnn's numpy constructor takes a float32 array as bfloat16 (asked once)."""
    if not NUMPY_BFLOAT16:
        try:
            ttnn.Tensor(np.zeros((1, 2), dtype=np.float32), ttnn.bfloat16, None, ttnn.ROW_MAJOR_LAYOUT)
            NUMPY_BFLOAT16.append(True)
        except RuntimeError:
            NUMPY_BFLOAT16.append(False)
    return NUMPY_BFLOAT16[0]


NUMPY_BFLOAT16 = []


def to_torch(t, mesh_composer=None):
    """ttnn.to_torch(t, mesh_composer), kept as a ttnn host tensor so the report can describe it:
    the composition of ttnn.aggregate_tensor, or, without a composer, the one shard (as to_torch, a
    tensor of several raises)."""
    host = t.cpu() if t.storage_type() == ttnn.StorageType.DEVICE else t
    if mesh_composer is None:
        host.to_numpy()  # raises as to_torch does for a tensor of several shards
    if host.memory_config().is_sharded():
        # aggregate_tensor and the one shard keep the sharded memory config and the padded shape
        # (aggregate_tensor refuses a composed shape it does not fit); to_torch makes a plain
        # buffer of the logical values, as to_numpy does
        values = ttnn.to_dtype(host, ttnn.float32)
        values = values.to_numpy(mesh_composer) if mesh_composer is not None else values.to_numpy()
        return host_array_tensor(values, host.dtype, host.layout, None, {})
    if mesh_composer is not None:
        return ttnn.aggregate_tensor(host, mesh_composer)
    return ttnn.get_device_tensors(host)[0]


def as_tensor(array, dtype, layout, mapper=None, device=None, memory_config=None, cache_file_name=None):
    """ttnn.as_tensor(...) when torch is importable; else what it does (ttnn/operations/core.py), in
    ttnn's own calls: the cache file {name}_dtype_{DTYPE}_layout_{LAYOUT}.tensorbin is loaded if it
    exists, else the tensor is made on host (a ReplicateTensorToMesh one unsharded), dumped, and put
    on the device."""
    if torch is not None:
        return ttnn.as_tensor(torch.from_numpy(np.ascontiguousarray(array)), dtype=dtype, layout=layout, mesh_mapper=mapper,
                              device=device, memory_config=memory_config, cache_file_name=cache_file_name)
    if device is not None and memory_config is None:
        raise RuntimeError("memory_config must be specified when device is specified")
    if cache_file_name is None:
        return host_tensor(array, dtype, layout, mapper, device, memory_config)
    path = f"{cache_file_name}_dtype_{str(dtype).split('.')[-1]}_layout_{str(layout).split('.')[-1].removesuffix('_LAYOUT')}.tensorbin"
    if Path(path).exists():
        return ttnn.load_tensor(path, device=device)
    unwrapped = None if isinstance(mapper, ttnn.ReplicateTensorToMeshWrapper) else mapper
    t = host_tensor(array, dtype, layout, unwrapped)
    ttnn.dump_tensor(path, t)
    return t if device is None else t.to(device, memory_config)
'''


def export(scenario: LoadedScenario, data_dir: str = ".") -> str:
    """The script's text. ``data_dir``: where the scenario's ``.npy`` data files are, relative to
    the script (``.``: beside it)."""
    imports, observe_body = _inlined_source()
    ctx = Context(scenario, _script_names(HELPERS, observe_body))
    shape = ", ".join(map(str, scenario.mesh_shape))
    body: list[str] = []
    for step in scenario.steps:
        body.append(f"    step({step.index})  # {step.op} (scenario line {step.line})")
        body += [f"    {code}" for code in EMITTERS[step.op](step.args, ctx)]
    body.append("    return locals()")
    fabric = _fabric(scenario)
    needs = _needs(body)
    steps = ", ".join(f"{s.index}: {s.op!r}" for s in scenario.steps)
    names = {n: ctx.var(n) for s in scenario.steps for n in _bound(s)}
    here = "Path(__file__).resolve().parent" + "".join(f" / {part!r}" for part in Path(data_dir).parts if part != ".")
    lines = [
        "#!/usr/bin/env python3",
        f'"""{_doc(printable(scenario.name))}: a meshspec scenario as ttnn code (written by `meshspec export`).',
        "",
        *[f"    {_doc(printable(line))}" for line in _wrap(scenario.description)],
        "",
        "Run where ttnn runs (hardware, or the mock on a CPU):  python THIS.py [REPORT.json]",
        "It writes a meshspec.report/1 of what the real runtime recorded after the last step (or the",
        "step that raised); compare it with the simulation:  meshspec diff SIMULATED.json REPORT.json",
        '"""',
        *_requirements(scenario, fabric, needs),
        "",
        "import os",
        "import sys",
        "",
        "# Nothing is imported from this script's own folder: a shutil.py or numpy.py beside it would run.",
        "sys.path[:] = [p for p in sys.path if os.path.realpath(p or os.curdir) != os.path.dirname(os.path.realpath(__file__))]",
        "",
        *sorted({"import shutil", "import tempfile", *imports} - {"import os", "import sys"}),
        "from pathlib import Path",
        "",
        "if len(sys.argv) < 2:  # the report goes to stdout: keep ttnn's log lines out of it",
        '    os.environ.setdefault("TT_LOGGER_LEVEL", "FATAL")',
        "",
        "try:",
        "    import numpy as np",
        "    import ttnn",
        "except ModuleNotFoundError as err:  # not where ttnn runs: say so in one line",
        "    sys.exit(f'{sys.argv[0]}: this script runs on ttnn (tt-metal), and this Python ({sys.executable}) has no '",
        "             f'{err.name!r}: run it in the environment where ttnn is installed (hardware, or the mock on a CPU)')",
        "",
        "try:",
        "    import torch",
        "except ImportError:  # the mock's Python has none: host tensors go through numpy",
        "    torch = None",
        "",
        f"here = {here}  # the scenario's data files",
        "",
        "",
        "def repro(mesh_device, files):",
        *body,
        "",
        "",
        f"MESH_SHAPE = [{shape}]",
        f"STEPS = {{{steps}}}",
        f"NAMES = {names!r}",
        '"""The scenario\'s tensor names -> the variables above (a list\'s items are reported as parts[0] ...)."""',
        f"FABRIC = {fabric!r}",
        '"""The ttnn.FabricConfig the steps\' collectives run over, set up before the mesh opens; None: no fabric."""',
        f"NEEDS = {needs!r}",
        '"""What the steps call on ttnn: a version without one of them cannot run this script, and says so first."""',
        "",
        "",
        "def main(out=None):",
        "    missing = [name for name in NEEDS if not has(name)]",
        "    if missing:",
        "        sys.exit(f'{sys.argv[0]}: this script calls {\", \".join(missing)}, which ttnn {ttnn_version()} has not: '",
        "                 'it cannot run on this version')",
        "    if out is None:  # the report alone on stdout: ttnn's own lines go to stderr while the steps run",
        "        sys.stdout.flush()",
        "        stdout = os.dup(1)",
        "        os.dup2(2, 1)",
        "    else:",
        "        if os.path.exists(out) and os.path.samefile(out, __file__):",
        "            sys.exit(f'{sys.argv[0]}: {out} is this script; give the report a name of its own, e.g. real.json')",
        "        if not may_replace(out):  # the rule of meshspec run -o, and its record of what it wrote",
        "            sys.exit(f'{sys.argv[0]}: {out} exists, and neither this script nor meshspec wrote it as it is now (a file '",
        "                     'of yours, or one changed since); refusing to overwrite it (remove it first, or choose another name)')",
        "        why = cannot_write(out)",
        "        if why is not None:",
        "            sys.exit(f'{sys.argv[0]}: cannot write the report to {out}: {why}')",
        "    mesh_device = open_mesh(out)",
        "    CURRENT[1] = out",
        "    error = None",
        "    files = Path(tempfile.mkdtemp(prefix='meshspec-repro-'))  # tensor files the steps dump and load: removed at the end",
        "    try:",
        "        try:",
        "            variables = repro(mesh_device, files)",
        "        except Exception as exc:  # the step's error ends the run, as it ends meshspec's",
        "            variables = _frame_locals(exc)",
        "            error = error_json(CURRENT[0], STEPS[CURRENT[0]], exc)",
        "        done = len(STEPS) if error is None else CURRENT[0]",
        "        result = report(variables, error, done)",
        "    finally:",
        "        shutil.rmtree(files, ignore_errors=True)",
        "    if out is None:",
        "        sys.stdout.flush()",
        "        os.dup2(stdout, 1)",
        "    write_report(result, out)",
        "",
        "",
        "def report(variables, error, done):",
        '    """The report of the named tensors among ``variables``, as the runtime records them now."""',
        "    tensors = {}",
        "    for name, var in NAMES.items():",
        "        value = variables.get(var)",
        "        if isinstance(value, list):",
        "            tensors |= {f'{name}[{i}]': item for i, item in enumerate(value) if hasattr(item, 'storage_type')}",
        "        elif hasattr(value, 'storage_type'):",
        "            tensors[name] = value",
        f"    return report_json({scenario.name!r}, MESH_SHAPE, tensors, error, done, len(STEPS))",
        "",
        "",
        "def has(name):",
        '    """Whether ttnn has ``name`` (``ttnn.Tensor.update_tensor_topology``)."""',
        "    found = sys.modules['ttnn']",
        "    for part in name.split('.')[1:]:",
        "        found = getattr(found, part, None)",
        "    return found is not None",
        "",
        "",
        "def open_mesh(out):",
        '    """The mesh, with the fabric set up first when the steps need one (as tt-metal\'s tests do:',
        '    ttnn.set_fabric_config before ttnn.open_mesh_device). A mesh that does not open with the fabric',
        '    ends the script here, in one line with ttnn\'s own words, before any step runs."""',
        "    if FABRIC is None:",
        "        return ttnn.open_mesh_device(ttnn.MeshShape(*MESH_SHAPE))",
        "    if not on_hardware():  # said first: 0.66.0 aborts the process there (SIGABRT), raising nothing",
        "        print(f'{sys.argv[0]}: the collectives need the fabric, set up before the mesh opens; in the mock (no hardware) the '",
        "              'mesh does not open with one (its router kernel cannot be built): expect no step to run', file=sys.stderr)",
        "    ttnn.set_fabric_config(getattr(ttnn.FabricConfig, FABRIC))",
        "    try:",
        "        return ttnn.open_mesh_device(ttnn.MeshShape(*MESH_SHAPE))",
        "    except RuntimeError as exc:",
        "        sys.exit(f'{sys.argv[0]}: the mesh did not open with the fabric its collectives need '",
        "                 f'(ttnn.set_fabric_config(ttnn.FabricConfig.{FABRIC})): {error_json(0, \"open_mesh_device\", exc)[\"message\"]}'",
        "                 + (f'; no report written to {out}' if out else ''))",
        "",
        "",
        "# -- bookkeeping -------------------------------------------------------------------------------",
        "CURRENT = [0, None]  # the step about to run; the report's path",
        "",
        "",
        "def step(index):",
        '    """Mark the step about to run (the report names the step that raised). With a report path,',
        "    first write the report of the state so far as if this step killed the process: a step that",
        "    crashes (SIGSEGV) raises nothing, and this report is what remains; the next step or the end",
        '    overwrites it."""',
        "    CURRENT[0] = index",
        "    if CURRENT[1] is not None:",
        "        caller = sys._getframe(1).f_locals",
        "        died = {'step': index, 'op': STEPS[index], 'source': 'ttnn', 'crash': True,",
        "                'message': 'the process died during this step (killed by a signal: no error was raised)'}",
        "        try:",
        "            write_report(report(caller, died, index), CURRENT[1])",
        "        except OSError:  # the report could not be written: the step still runs",
        "            pass",
        "",
        "",
        "def write_report(result, out):",
        '    """The report to ``out`` (stdout if None); a regular file is recorded as written (the bytes',
        '    write() wrote, never read back: a FIFO or /dev/stdout would block), so the next run may replace it."""',
        "    data = write(result, out)",
        "    if data is not None and os.path.isfile(out):",
        "        remember(out, data)",
        "",
        "",
        "def _frame_locals(exc):",
        '    """repro()\'s variables when a step raised: the tensors made before it."""',
        "    tb = exc.__traceback__",
        "    while tb is not None and tb.tb_frame.f_code.co_name != 'repro':",
        "        tb = tb.tb_next",
        "    return dict(tb.tb_frame.f_locals) if tb is not None else {}",
        "",
        "",
        "# -- host data and the calls that need torch -------------------------------------------------",
        HELPERS.strip("\n"),
        "",
        "",
        "# -- what the runtime records, as a meshspec report (meshspec/bridge/observe.py) ---------------",
        observe_body,
        "",
        "",
        'if __name__ == "__main__":',
        "    main(sys.argv[1] if len(sys.argv) > 1 else None)",
        "",
    ]
    text = "\n".join(lines)
    compile(text, f"<meshspec export of {scenario.name}>", "exec")  # a script that does not compile is meshspec's bug
    return text


#: ttnn names the exported steps may call that a version verified in the mock lacks (observed in
#: ttnn 0.66.0 and 0.67.0; tests_ttnn/test_export.py checks the list on the version it runs).
ABSENT_IN: dict[str, tuple[str, ...]] = {
    "ttnn.copy_host_to_device_tensor_partial": ("0.66.0", "0.67.0"),
    "ttnn.Tensor.update_tensor_topology": ("0.66.0", "0.67.0"),
}

#: methods the steps call on a mesh device; every other method call is on a tensor
_MESH_METHODS = frozenset({"create_submesh", "create_submeshes", "reshape"})


def _fabric(scenario: LoadedScenario):
    """The ``ttnn.FabricConfig`` the scenario's collectives run over, as tt-metal's tests choose it
    (tests/ttnn/unit_tests/operations/ccl: ``FABRIC_1D`` for a line, ``FABRIC_1D_RING`` for a ring);
    None when no step is a collective."""
    from ..sim.ops import OPS

    ops = [s for s in scenario.steps if OPS[s.op].fabric]
    if not ops:
        return None
    return "FABRIC_1D_RING" if any(getattr(s.args, "topology", None) == "ring" for s in ops) else "FABRIC_1D"


def _needs(body: list[str]) -> list[str]:
    """Every ttnn name the steps call or read, methods as ``ttnn.Tensor.cpu`` or
    ``ttnn.MeshDevice.create_submesh``, sorted."""
    import ast

    found: set[str] = set()
    for node in ast.walk(ast.parse("\n".join(line[4:] for line in body))):
        if not isinstance(node, ast.Attribute):
            continue
        parts, root = [node.attr], node.value
        while isinstance(root, ast.Attribute):
            parts.append(root.attr)
            root = root.value
        if isinstance(root, ast.Name) and root.id == "ttnn":
            found.add(".".join(["ttnn", *reversed(parts)]))
    for node in ast.walk(ast.parse("\n".join(line[4:] for line in body))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and isinstance(node.func.value, (ast.Name, ast.Subscript)) \
                and not (isinstance(node.func.value, ast.Name) and node.func.value.id in ("ttnn", "np")):
            owner = "MeshDevice" if node.func.attr in _MESH_METHODS else "Tensor"
            found.add(f"ttnn.{owner}.{node.func.attr}")
    # a name read as part of a longer one (ttnn.Topology of ttnn.Topology.Ring) is needed through it
    return sorted(n for n in found if not any(m.startswith(n + ".") for m in found))


def _requirements(scenario: LoadedScenario, fabric, needs: list[str]) -> list[str]:
    """Comment lines at the script's top: what it needs that not every version or machine has."""
    from ..sim.ops import OPS

    out = []
    if fabric is not None:
        indexes = [str(s.index) for s in scenario.steps if OPS[s.op].fabric]
        steps = f"step{'s' if len(indexes) > 1 else ''} {', '.join(indexes)}"
        out += [f"# Needs the fabric between chips: its collectives ({steps}) run over it, set up with",
                f"# ttnn.set_fabric_config(ttnn.FabricConfig.{fabric}) before the mesh opens. In the mock (no",
                "# hardware) the mesh does not open with a fabric: the script says so, and no step runs."]
    for name in needs:
        if name in ABSENT_IN:
            out.append(f"# Calls {name}, which ttnn {' and '.join(ABSENT_IN[name])} have not: there the script says so and stops first.")
    return out


def _doc(text: str) -> str:
    """Text safe inside the script's docstring: backslashes and triple quotes escaped."""
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


# names the script's own code binds at module level, besides those of the helpers and observe.py
TEMPLATE_NAMES = ("os", "shutil", "sys", "tempfile", "Path", "np", "ttnn", "torch", "here", "files", "repro", "main", "step",
                  "FABRIC", "NEEDS", "has", "open_mesh", "missing",
                  "CURRENT", "_frame_locals", "write_report", "MESH_SHAPE", "STEPS", "NAMES", "variables", "error", "tensors")


@functools.lru_cache(maxsize=4)
def _script_names(*sources: str) -> frozenset[str]:
    """Names a tensor's variable must not take: Python's builtins, the script's module-level names
    and those its helper code defines or imports (a tensor named ``host_tensor`` would shadow the
    helper of that name inside ``repro``)."""
    import ast
    import builtins

    names = set(dir(builtins)) | set(TEMPLATE_NAMES)
    for source in sources:
        for node in ast.parse(source).body:
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
            elif isinstance(node, (ast.Import, ast.ImportFrom)):
                names |= {(a.asname or a.name).split(".")[0] for a in node.names}
    return frozenset(names)


@functools.lru_cache(maxsize=1)
def _inlined_source() -> tuple[list[str], str]:
    """observe.py and written.py as the script inlines them: their import lines, and their code
    without their docstrings."""
    imports: list[str] = []
    bodies: list[str] = []
    for source in (Path(__file__).parent / "observe.py", Path(__file__).parents[1] / "written.py"):
        more, body = _module_body(source.read_text(encoding="utf-8"))
        imports += more
        bodies.append(body)
    return imports, "\n\n\n".join(bodies)


def _module_body(source: str) -> tuple[list[str], str]:
    import ast

    tree = ast.parse(source)
    lines = source.splitlines()
    imports = [lines[n.lineno - 1] for n in tree.body if isinstance(n, (ast.Import, ast.ImportFrom))]
    start = next(n for n in tree.body if not isinstance(n, (ast.Import, ast.ImportFrom, ast.Expr)))
    return imports, "\n".join(lines[start.lineno - 1 :]).rstrip()


def _bound(step) -> list[str]:
    from ..sim.ops import OPS

    name = OPS[step.op].bound(step.args)
    if name is None or OPS[step.op].binds.kind.value == "mesh":  # type: ignore[union-attr]
        return []
    return [name]


def _wrap(text: str, width: int = 92) -> list[str]:
    import textwrap

    return textwrap.wrap(" ".join(text.split()), width) if text else []
