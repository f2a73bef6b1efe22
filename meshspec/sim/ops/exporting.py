"""How a step exports to Python on the real ttnn API: what every op's :attr:`Op.export` shares.

An op's ``export(args, ctx)`` gives the lines of Python (``meshspec export SCENARIO --to ttnn``)
a step of it stands for; ``ctx`` names the script's variables for the scenario's tensors and
meshes (:class:`meshspec.bridge.export.Context`: ``ctx.var(name)``, ``ctx.mesh(name)``,
``ctx.trace(name)``, ``ctx.lists``, and ``ctx.code(args)`` for an opaque step's own line). The
pieces here write a spec, a memory config, a mapper, data and numbers as ttnn code; the script
around the steps, and its helpers (``host_tensor``, ``to_torch``, ``show``), are the bridge's.
"""

from __future__ import annotations

import math

from ..sharding import MemoryLayout
from ..spec import BufferType, DataType, Layout
from . import fields as f
from .mappers import composer_choice, mapper_choice

DTYPES = {d: f"ttnn.{d.value}" for d in DataType}
LAYOUTS = {Layout.TILE: "ttnn.TILE_LAYOUT", Layout.ROW_MAJOR: "ttnn.ROW_MAJOR_LAYOUT"}
BUFFERS = {BufferType.DRAM: "ttnn.BufferType.DRAM", BufferType.L1: "ttnn.BufferType.L1"}
MEMORY_CONFIGS = {BufferType.DRAM: "ttnn.DRAM_MEMORY_CONFIG", BufferType.L1: "ttnn.L1_MEMORY_CONFIG"}


def spec_code(a, ctx, shape=None) -> str:
    parts = [str(list(shape or a.shape)), DTYPES[DataType(a.dtype)], LAYOUTS[Layout(a.layout)]]
    config = getattr(a, "memory_config", None)
    if isinstance(config, f.CreateSharded):
        h = config.create_sharded_memory_config
        parts += [f"ttnn.TensorMemoryLayout.{h.strategy.upper()}_SHARDED", f"{memory_config_code(config)}.shard_spec", BUFFERS[a.buffer_type]]
    elif isinstance(config, f.MemoryConfigFields) and config.nd_shard_spec is not None and config.shard_spec is None:
        # TensorSpec(shape, dtype, layout, nd_shard_spec, buffer_type): the ND overload
        parts += [nd_shard_spec_code(config.nd_shard_spec), BUFFERS[a.buffer_type]]
    elif isinstance(config, f.MemoryConfigFields) and config.memory_layout is not MemoryLayout.INTERLEAVED:
        # TensorSpec(shape, dtype, layout, memory_layout, shard_spec, buffer_type): the 2-D sharded overload
        shard = shard_spec_code(config.shard_spec) if config.shard_spec is not None else "None"
        parts += [f"ttnn.TensorMemoryLayout.{config.memory_layout.name}", shard, BUFFERS[a.buffer_type]]
    elif isinstance(config, str) and f.NAMED_CONFIGS[config][1] is not MemoryLayout.INTERLEAVED:
        parts += [f"ttnn.TensorMemoryLayout.{f.NAMED_CONFIGS[config][1].name}", "None", BUFFERS[a.buffer_type]]
    else:
        parts.append(BUFFERS[a.buffer_type])
    tile = "" if tuple(a.tile) == (32, 32) else f", tile=ttnn.Tile({list(a.tile)})"
    return f"ttnn.TensorSpec({', '.join(parts)}{tile})"


def shard_spec_code(s) -> str:
    """``ttnn.ShardSpec(ttnn.CoreRangeSet([...]), [h, w], orientation)`` for a scenario's shard_spec."""
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({a[0]}, {a[1]}), ttnn.CoreCoord({b[0]}, {b[1]}))" for a, b in s.grid)
    return f"ttnn.ShardSpec(ttnn.CoreRangeSet([{ranges}]), {list(s.shape)}, ttnn.ShardOrientation.{s.orientation.name})"


def nd_shard_spec_code(nd) -> str:
    """``ttnn.NdShardSpec(ttnn.Shape([...]), ttnn.CoreRangeSet([...]), orientation, distribution)``."""
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({a[0]}, {a[1]}), ttnn.CoreCoord({b[0]}, {b[1]}))" for a, b in nd.grid)
    return (f"ttnn.NdShardSpec(ttnn.Shape({list(nd.shard_shape)}), ttnn.CoreRangeSet([{ranges}]), "
            f"ttnn.ShardOrientation.{nd.orientation.name}, ttnn.ShardDistributionStrategy.{nd.distribution.name})")


def memory_config_code(config) -> str:
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
        return f"ttnn.MemoryConfig({BUFFERS[config.buffer_type]}, {nd_shard_spec_code(config.nd_shard_spec)})"
    if config.memory_layout is MemoryLayout.INTERLEAVED:
        return MEMORY_CONFIGS[config.buffer_type]
    shard = f", {shard_spec_code(config.shard_spec)}" if config.shard_spec is not None else ""
    return f"ttnn.MemoryConfig(ttnn.TensorMemoryLayout.{config.memory_layout.name}, {BUFFERS[config.buffer_type]}{shard})"


def number(v) -> str:
    """A number as Python source: ``float('nan')``, ``float('inf')`` and ``-float('inf')`` for what
    repr writes as bare names (``nan``: a NameError, or a tensor of that name, in the script).

    >>> number(float("nan")), number(float("-inf")), number(2**31 + 1), number(0.5)
    ("float('nan')", "-float('inf')", '2147483649', '0.5')
    """
    if isinstance(v, float) and not math.isfinite(v):
        return "float('nan')" if math.isnan(v) else ("float('inf')" if v > 0 else "-float('inf')")
    return repr(v)


def data_code(a, ctx) -> str:
    """numpy code for a step's host data (the values meshspec makes: docs/semantics.md section 8)."""
    shape = tuple(a.shape)
    data = a.data
    if data == "arange":
        return f"arange({shape})"
    if data in ("zeros", "ones"):
        return f"np.{data}({shape}, dtype=np.float32)"
    if isinstance(data, f.FillData):
        return f"np.full({shape}, {number(data.fill)}, dtype=np.float64)"
    if isinstance(data, f.RandomData):
        return f"random({shape}, {data.random})"
    return f"np.load(here / {data.file!r})"


def mapper_code(m, ctx) -> str:
    if m is None:
        return "None"
    choice = mapper_choice(m, lambda _: 0)
    return choice.text.replace("(mesh_device", f"({ctx.mesh(choice.mesh)}")


def composer_code(c, ctx) -> str:
    choice = composer_choice(c)
    return choice.text.replace("(mesh_device", f"({ctx.mesh(choice.mesh)}")


def memory_code(a) -> str:
    config = getattr(a, "memory_config", None)
    if config is not None:
        return memory_config_code(config)
    memory = getattr(a, "memory", None)
    return MEMORY_CONFIGS[memory] if memory is not None else "None"


TOPOLOGY = {"ring": "Ring", "linear": "Linear"}
"""A collective's ``topology:`` -> its ``ttnn.Topology`` member."""


def ccl_topology_code(a) -> str:
    """``, topology=ttnn.Topology.Ring`` for a collective given one; nothing (ttnn's default) otherwise."""
    return f", topology=ttnn.Topology.{TOPOLOGY[a.topology]}" if a.topology else ""


def tensors_code(names, ctx) -> str:
    """A list of tensors: a list name is the list itself (``parts``)."""
    items = [ctx.var(n) for n in names]
    if len(items) == 1 and names[0] in ctx.lists:
        return items[0]
    return "[" + ", ".join(f"*{i}" if n in ctx.lists else i for n, i in zip(names, items)) + "]"


def topology_code(t) -> str:
    """``ttnn.TensorTopology(...)`` for a topology's fields."""
    placements = ", ".join("ttnn.PlacementReplicate()" if p in ("replicate", "R") else f"ttnn.PlacementShard({p.shard})" for p in t.placements)
    coords = ", ".join(f"ttnn.MeshCoordinate({', '.join(map(str, c))})" for c in t.coordinates)
    shape = list(t.distribution_shape)  # MeshShape(7) is refused; MeshShape([7]) is the 1-D shape
    # by ttnn's own argument names (its pybind signature, tests/golden userwrites), as the step may spell them
    return f"ttnn.TensorTopology(distribution_shape=ttnn.MeshShape({shape}), placements=[{placements}], mesh_coords=[{coords}])"


def creation(name: str, fill: bool = False):
    def emit(a, ctx):
        device = ctx.mesh(a.device) if getattr(a, "device", None) else "None"
        value = f", fill_value={number(a.fill_value)}" if fill else ""
        # memory_config=None is refused ("incompatible function arguments"): left out, ttnn's default
        memory = f", memory_config={memory_code(a)}" if a.memory_config is not None else ""
        return [
            f"{ctx.var(a.as_)} = ttnn.{name}({list(a.shape)}{value}, dtype={DTYPES[DataType(a.dtype)]}, "
            f"layout={LAYOUTS[Layout(a.layout)]}, device={device}{memory})"
        ]

    return emit


def like(name: str, fill: bool = False):
    def emit(a, ctx):
        args = [ctx.var(a.tensor)] + ([f"fill_value={number(a.fill_value)}"] if fill else [])
        if a.dtype is not None:
            args.append(f"dtype={DTYPES[DataType(a.dtype)]}")
        if a.layout is not None:
            args.append(f"layout={LAYOUTS[Layout(a.layout)]}")
        if a.device:
            args.append(f"device={ctx.mesh(a.device)}")
        if a.memory_config is not None:
            args.append(f"memory_config={memory_code(a)}")
        return [f"{ctx.var(a.as_)} = ttnn.{name}({', '.join(args)})"]

    return emit


def in_files(name: str) -> str:
    """A scenario's file name as one plain name inside the script's own temporary folder: in a
    scenario, files live in the run, and a script must not write where the name points
    (``/home/me/.bashrc``, ``../x``). Two names are two files, as in the simulation (a load of a
    name never dumped must fail there too): every character but ``A-Z a-z 0-9 _ . -`` (and a
    leading ``.``) becomes ``%XX`` of its UTF-8 bytes, ``%`` included, so the mapping is one to
    one; and a name's mapping followed by ``as_tensor``'s suffix is the mapping of the name with
    the suffix, as the simulation's file is. A name whose mapping would be longer than
    :data:`LONG_FILE` characters is its SHA-256 instead (``%%`` + 64 digits: in a mapping
    spelt out, ``%`` is always followed by two digits).

    >>> in_files("/home/me/.bashrc"), in_files("x/y.tensorbin"), in_files("x_y.tensorbin"), in_files("..")
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


def call_of_tensor(name: str):
    """``out = ttnn.NAME(tensor)``."""
    return lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{name}({ctx.var(a.tensor)})"]


def call_of_two(name: str):
    """``out = ttnn.NAME(a, b)``."""
    return lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{name}({ctx.var(a.a)}, {ctx.var(a.b)})"]
