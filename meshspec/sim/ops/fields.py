"""Argument types shared by several ops: tensor fields, host data, mappers and composers.

These are the typed forms of ttnn's own arguments (``TensorSpec`` fields, ``mesh_mapper``,
``mesh_composer``); each op's arguments type is built from them. They are strict and frozen
(meshspec/typed.py): an unknown key or a wrong type is refused where the scenario says it.
"""

import re
from typing import Annotated, ClassVar, Literal, Optional, Union

from ...errors import TTFatal
from ...names import NAME, NAME_HELP
from ...typed import Alias, Before, Check, Length, Pattern, Range, Schema, Typed, by_key, tagged
from ..sharding import Distribution, MemoryLayout, Orientation, ShardingHelperError, ShardSpec, create_sharded_memory_config
from ..spec import TILE_SHAPES, Arch, BufferType, DataType, Layout, TensorSpec, make_spec

Name = Annotated[
    str,
    Length(min=1),
    Pattern(NAME + r"(\[[0-9]+\])?", NAME_HELP + ", or an item of a list: parts[0]"),
]
"""A tensor's name, or ``parts[0]``: the first tensor a list-binding step (get_device_tensors) bound."""
NewName = Annotated[str, Length(min=1), Pattern(NAME, "a new name: " + NAME_HELP.split(": ", 1)[1])]
FileName = Annotated[str, Length(min=1, max=1024), Pattern(r"[^\x00]+", "a file name or path, as the code passes it")]
"""A tensor file's name or path as the code writes it (``f"{cache_dir}/w.tensorbin"``): files
live in the run (docs/semantics.md section 9), so any path names one and none is touched. At most
1,024 characters: a step's error quotes it, and an expect pattern is matched against that error
(meshspec/scenario/regex.py bounds a match's time by a power of the text's length)."""
Dim = Annotated[int, Range(ge=1, le=2**40)]
As = Annotated[NewName, Alias("as")]
"""The name a step binds its result to (``as``)."""
OptionalAs = Annotated[Optional[NewName], Alias("as")]
MeshName = Annotated[str, Length(min=1), Pattern(NAME + r"(\[[0-9]+\])?", "a mesh device's name: mesh_device (the scenario's), or one a create_submesh step bound ("
                                                  + NAME_HELP.split(": ", 1)[1] + ")")]
"""A mesh device: ``mesh_device`` (the scenario's own) or a submesh's name."""
def _one_or_many(value: object) -> object:
    return [value] if isinstance(value, str) else value


_NAME_SCHEMA = {"type": "string", "pattern": "^(?:" + NAME + r"(\[[0-9]+\])?)$"}
Names = Annotated[
    list[Name],
    Before(_one_or_many),
    Schema({"anyOf": [{"type": "array", "items": _NAME_SCHEMA}, {**_NAME_SCHEMA, "description": "a list's name: all its items"}]}, replace=True),
]
"""Tensor names, or one list's name for all its items (``tensors: parts``, as ttnn code passes
the list); a list's name in the list stands for its items too. An empty list is the library's
error to give."""


def _known_tile(tile: tuple[int, int]) -> tuple[int, int]:
    if tuple(tile) not in TILE_SHAPES:
        raise ValueError(f"tile {list(tile)} is not one of {', '.join(str(list(t)) for t in TILE_SHAPES)}")
    return tile


def _core_range(r: list) -> list:
    (x0, y0), (x1, y1) = r
    if x1 < x0 or y1 < y0:
        raise ValueError(f"core range {r}: its end must not be left of or above its start ([[x0, y0], [x1, y1]], inclusive)")
    return r


Core = Annotated[list[Annotated[int, Range(ge=0, le=4096)]], Length(min=2, max=2)]
CoreRangeItem = Annotated[list[Core], Length(min=2, max=2), Check(_core_range)]
"""``[[x0, y0], [x1, y1]]``: ``ttnn.CoreRange(CoreCoord(x0, y0), CoreCoord(x1, y1))``, inclusive."""

MAX_GRID_CORES = 65_536
"""meshspec's limit on a core grid's cores (a chip's worker grid is 8x8 to 12x10, sim/mesh.py):
a grid of [[0, 0], [4095, 4095]] named its first core with no bank after listing 16 million."""


def _grid_size(grid: list) -> list:
    n = sum((x1 - x0 + 1) * (y1 - y0 + 1) for (x0, y0), (x1, y1) in grid)
    if n > MAX_GRID_CORES:
        raise ValueError(f"a grid of {n:,} cores; meshspec takes up to {MAX_GRID_CORES:,} (a chip's worker grid is 8x8 to 12x10 cores)")
    return grid


CoreGrid = Annotated[list[CoreRangeItem], Length(min=1), Check(_grid_size)]
"""A CoreRangeSet: its core ranges."""


class ShardSpecFields(Typed):
    """``ttnn.ShardSpec(CoreRangeSet([...]), shape, orientation)``."""

    grid: CoreGrid
    """A CoreRangeSet: its core ranges, ``[[[0, 0], [3, 0]]]`` for the four cores (0,0) to (3,0)."""
    shape: Annotated[list[Annotated[int, Range(ge=0, le=2**31)]], Length(min=2, max=2)]
    """The shard's (height, width) in elements."""
    orientation: Orientation = Orientation.ROW_MAJOR


class NdShardSpecFields(Typed):
    """``ttnn.NdShardSpec(ttnn.Shape(shard_shape), CoreRangeSet, orientation, distribution)``."""

    shard_shape: Annotated[list[Annotated[int, Range(ge=1, le=2**31)]], Length(min=1, max=8)]
    grid: CoreGrid
    orientation: Orientation = Orientation.ROW_MAJOR
    distribution: Distribution = Distribution.ROUND_ROBIN_1D


class MemoryConfigFields(Typed):
    """``ttnn.MemoryConfig(memory_layout, buffer_type, shard_spec)`` or ``ttnn.MemoryConfig(buffer_type,
    nd_shard_spec)``, as a report prints it."""

    buffer_type: BufferType = BufferType.DRAM
    memory_layout: MemoryLayout = MemoryLayout.INTERLEAVED
    shard_spec: Optional[ShardSpecFields] = None
    nd_shard_spec: Optional[NdShardSpecFields] = None
    """An ND shard spec (the layout is then nd_sharded, or the 2-D one it can be written as)."""


InterleavedConfig = MemoryConfigFields  # the name earlier code used


class CoreGridFields(Typed):
    """``ttnn.CoreGrid(y=..., x=...)``: the cores (0, 0) to (x - 1, y - 1)."""

    x: Annotated[int, Range(ge=1, le=4096)]
    y: Annotated[int, Range(ge=1, le=4096)]


class CreateShardedFields(Typed):
    """``ttnn.create_sharded_memory_config(shape, core_grid, strategy, orientation, use_height_and_width_as_shard_shape)``."""

    shape: Annotated[list[Dim], Length(min=2, max=8)]
    core_grid: Optional[CoreGridFields] = None
    core_range_set: Optional[CoreGrid] = None
    """A CoreRangeSet instead of a CoreGrid (only with use_height_and_width_as_shard_shape)."""
    strategy: Literal["height", "width", "block"]
    orientation: Optional[Orientation] = None
    use_height_and_width_as_shard_shape: bool = False


class CreateSharded(Typed):
    """``memory_config: {create_sharded_memory_config: {...}}``: the helper real code calls."""

    create_sharded_memory_config: CreateShardedFields

#: ttnn's memory config constants: buffer type and layout (the sharded ones have no shard spec).
NAMED_CONFIGS = {
    "DRAM_MEMORY_CONFIG": (BufferType.DRAM, MemoryLayout.INTERLEAVED),
    "L1_MEMORY_CONFIG": (BufferType.L1, MemoryLayout.INTERLEAVED),
    "L1_HEIGHT_SHARDED_MEMORY_CONFIG": (BufferType.L1, MemoryLayout.HEIGHT_SHARDED),
    "L1_WIDTH_SHARDED_MEMORY_CONFIG": (BufferType.L1, MemoryLayout.WIDTH_SHARDED),
    "L1_BLOCK_SHARDED_MEMORY_CONFIG": (BufferType.L1, MemoryLayout.BLOCK_SHARDED),
    "dram": (BufferType.DRAM, MemoryLayout.INTERLEAVED),
    "l1": (BufferType.L1, MemoryLayout.INTERLEAVED),
}
MEMORY_CONFIGS = {name: buffer for name, (buffer, _) in NAMED_CONFIGS.items()}


def _memory_config_tag(value: object) -> Optional[str]:
    if isinstance(value, str):
        return "Name"
    if isinstance(value, dict):
        return "Helper" if "create_sharded_memory_config" in value else "Config"
    return None


MemoryConfig = tagged(
    {"Name": Literal[tuple(NAMED_CONFIGS)], "Config": MemoryConfigFields, "Helper": CreateSharded},  # type: ignore[misc]
    _memory_config_tag,
    "DRAM_MEMORY_CONFIG, L1_MEMORY_CONFIG, an L1_*_SHARDED_MEMORY_CONFIG, or {memory_layout, buffer_type, shard_spec}",
)
"""ttnn's ``memory_config``: a constant, or a MemoryConfig's fields (a sharded one with its shard spec)."""


def buffer_type(config: object) -> BufferType:
    """The buffer type a validated memory_config names (the sharding helper's is always L1)."""
    if isinstance(config, CreateSharded):
        return BufferType.L1
    return MEMORY_CONFIGS[config] if isinstance(config, str) else config.buffer_type  # type: ignore[union-attr]


def core_range_set(ranges) -> tuple:
    """A validated grid as ``ttnn.CoreRangeSet`` builds it: overlapping ranges refused in its words
    (tt_metal/common/core_coord.cpp:412)."""
    grid = tuple((tuple(a), tuple(b)) for a, b in ranges)
    for i, (a0, a1) in enumerate(grid):
        for b0, b1 in grid[i + 1 :]:
            if a0[0] <= b1[0] and b0[0] <= a1[0] and a0[1] <= b1[1] and b0[1] <= a1[1]:
                raise TTFatal(f"Cannot create CoreRangeSet with specified core ranges because core ranges [{a0[0]}-{a0[1]} - "
                              f"{a1[0]}-{a1[1]}] and [{b0[0]}-{b0[1]} - {b1[0]}-{b1[1]}] overlap!")
    return grid


def memory_of(config: object) -> tuple[BufferType, Optional[ShardSpec]]:
    """The buffer type and shard spec a validated memory_config names, as the runtime uses them
    (docs/semantics.md section 11): a sharded layout without a shard spec is ttnn 0.81.1's
    ``bad optional access`` when a TensorSpec is built of it; a shard spec with the interleaved
    layout is allocated interleaved; overlapping core ranges are refused as CoreRangeSet does."""
    if isinstance(config, CreateSharded):
        h = config.create_sharded_memory_config
        layout = MemoryLayout(f"{h.strategy}_sharded")
        grid = (h.core_grid.x, h.core_grid.y) if h.core_grid is not None else None
        ranges = core_range_set(h.core_range_set) if h.core_range_set is not None else None
        if grid is None and ranges is None:
            raise TTFatal("create_sharded_memory_config() missing 1 required positional argument: 'core_grid'")
        try:
            return BufferType.L1, create_sharded_memory_config(tuple(h.shape), grid, ranges, layout, h.orientation,
                                                               h.use_height_and_width_as_shard_shape)
        except ShardingHelperError as err:
            raise TTFatal(str(err)) from None
    if isinstance(config, str):
        buffer, layout = NAMED_CONFIGS[config]
        spec = None
    else:
        buffer, layout, spec = config.buffer_type, config.memory_layout, config.shard_spec  # type: ignore[union-attr]
        nd = config.nd_shard_spec  # type: ignore[union-attr]
        if nd is not None and spec is None:
            grid = core_range_set(nd.grid)
            return buffer, ShardSpec(MemoryLayout.ND_SHARDED, grid, tuple(nd.shard_shape), nd.orientation, nd.distribution)
    if layout is MemoryLayout.INTERLEAVED:
        return buffer, None
    if spec is None:
        named = f"{config} is" if isinstance(config, str) else f"memory_layout {layout.value} is"
        raise TTFatal(f"bad optional access ({named} sharded but names no shard spec, so the TensorSpec has none to read: give a "
                      "shard_spec or nd_shard_spec, or make the config with create_sharded_memory_config)")
    grid = core_range_set(spec.grid)
    return buffer, ShardSpec(layout, grid, (int(spec.shape[0]), int(spec.shape[1])), spec.orientation)  # type: ignore[arg-type]


class TensorFields(Typed):
    shape: Annotated[list[Dim], Length(min=0, max=8)]
    """Logical shape, e.g. [1, 1, 32, 32]; [] is a rank-0 tensor (one value: a scalar loss, a step
    counter), which ttnn 0.81.1 takes (docs/semantics.md section 21)."""
    dtype: DataType = DataType.BFLOAT16
    layout: Layout = Layout.TILE
    tile: Annotated[tuple[int, int], Check(_known_tile), Schema({"enum": [list(t) for t in TILE_SHAPES]})] = (32, 32)
    """The tile shape: [32, 32], [16, 32], [32, 16] or [16, 16]."""
    memory: BufferType = BufferType.DRAM
    """TensorSpec's buffer_type (``memory_config`` says the same as ttnn spells it)."""
    memory_config: Optional[MemoryConfig] = None
    """ttnn's memory_config: DRAM_MEMORY_CONFIG, L1_MEMORY_CONFIG or {buffer_type: ...}; wins over ``memory``."""

    @property
    def buffer_type(self) -> BufferType:
        return buffer_type(self.memory_config) if self.memory_config is not None else self.memory

    @property
    def placement(self) -> tuple[BufferType, Optional[ShardSpec]]:
        """Where the tensor goes on a device: its buffer type and shard spec (None: interleaved)."""
        return memory_of(self.memory_config) if self.memory_config is not None else (self.memory, None)

    def spec(self, arch: Arch, shape: Optional[tuple[int, ...]] = None, *, row_major_block_float: bool = False) -> TensorSpec:
        """The validated spec these fields describe on ``arch`` (for ``shape``, if given);
        ``row_major_block_float`` as :func:`~meshspec.sim.spec.make_spec` takes it."""
        memory, shard = self.placement
        return make_spec(tuple(shape or self.shape), self.dtype, self.layout, tuple(self.tile), memory, arch, shard,  # type: ignore[arg-type]
                         row_major_block_float=row_major_block_float)


class PrintedSpec:
    """A mixin of an op that takes a spec's fields: it also takes the keys a report prints in a
    device's spec that the other fields work out (``PRINTED``, declared by the op as optional
    fields, last), so a printed spec pastes in. Given, each must be what the spec it describes
    has; the loader checks them (meshspec/scenario/loader.py) and nothing else reads them."""

    PRINTED: ClassVar[tuple[str, ...]] = ("padded_shape", "page_size", "aligned_page_size", "num_pages", "buffer_bytes")

    def differences(self, spec: TensorSpec) -> list[tuple[str, object, object]]:
        """(key, given, what ``spec`` has) for each printed key given that ``spec`` does not match."""
        out = []
        for key in self.PRINTED:
            want = getattr(self, key)
            if want is not None:
                have = getattr(spec, key)
                have = list(have) if isinstance(have, tuple) else have
                if want != have:
                    out.append((key, want, have))
        return out


# -- from_torch data -------------------------------------------------------------------------
def _number_text(v: object) -> object:
    # YAML 1.1 reads 1e30 (no dot) as text; take it as the number it plainly is.
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            return v  # not a number: the validator refuses it with the file, line and value
    return v


FillValue = Annotated[Union[int, float], Before(_number_text)]
"""A fill value: a number, 1e5 (which YAML 1.1 reads as text) included."""


class FillData(Typed):
    fill: FillValue


class RandomData(Typed):
    random: Annotated[int, Range(ge=0)]


class FileData(Typed):
    file: Annotated[str, Length(min=1, max=1024)]
    """A .npy file, relative to the scenario's folder (loaded without pickle)."""


Data = tagged(
    {"Name": Literal["arange", "zeros", "ones"], "Fill": FillData, "Random": RandomData, "File": FileData},
    by_key("fill", "random", "file"),
    "arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy}",
)


# -- mappers and composers -------------------------------------------------------------------
# Spelt as scenarios have spelt them ({shard: 1}, replicate, {placements: [...]}, {concat: 1}) and
# as real code spells them: the ttnn function or legacy class name as the key, its arguments
# (ttnn's names) inside. meshspec/sim/ops/mappers.py turns every spelling into one distribution.
class ShardPlacement(Typed):
    shard: int


_PRINTED_PLACEMENT = re.compile(r"\s*(?:S|PlacementShard)\(\s*(-?\d+)\s*\)\s*|\s*(PlacementReplicate\(\s*\))\s*")


def _printed_placement(raw: object) -> object:
    """A placement as meshspec's tables print it (``S(1)``) or as ttnn's repr does
    (``PlacementShard(1)``, ``PlacementReplicate()``), as the scenario form it stands for; any
    other value as it is.

    >>> _printed_placement("S(-1)"), _printed_placement("PlacementReplicate()"), _printed_placement("R")
    ({'shard': -1}, 'replicate', 'R')
    """
    if isinstance(raw, str) and "(" in raw and (m := _PRINTED_PLACEMENT.fullmatch(raw)):
        return "replicate" if m.group(2) else {"shard": int(m.group(1))}
    return raw


PlacementItem = Annotated[
    tagged(
        {"Name": Literal["replicate", "R"], "Shard": ShardPlacement},
        by_key("shard"),
        "replicate (or R) or {shard: DIM} (or S(DIM))",
    ),
    Before(_printed_placement),
    Schema(
        {
            "anyOf": [
                {"enum": ["replicate", "R"]},
                {"type": "object", "properties": {"shard": {"type": "integer"}}, "required": ["shard"], "additionalProperties": False},
                {"type": "string", "pattern": "^(?:" + _PRINTED_PLACEMENT.pattern + ")$", "description": "as printed: S(1), PlacementShard(1), PlacementReplicate()"},
            ]
        },
        replace=True,
    ),
]
"""A placement: ``replicate`` or ``{shard: DIM}``; also as tables print them (``R``, ``S(1)``) and
as ttnn prints them (``PlacementReplicate()``, ``PlacementShard(1)``), so a printed topology
pastes in unchanged."""
Offset = Annotated[list[Annotated[int, Range(ge=0)]], Length(min=1, max=4)]


class PlacementsMapper(Typed):
    placements: Annotated[list[PlacementItem], Length(min=1)]
    mesh_shape: Optional[Annotated[list[Dim], Length(min=1)]] = None
    """MeshMapperConfig's mesh_shape_override."""
    mesh_offset: Optional[Offset] = None
    """MeshMapperConfig's mesh_offset_override (SUBMESH mode only)."""


class ShardToMesh(Typed):
    """``ShardTensorToMesh(mesh_device, dim)`` / ``shard_tensor_to_mesh_mapper(mesh_device, dim)``."""

    dim: int
    mesh_device: Optional[MeshName] = None


class ReplicateToMesh(Typed):
    """``ReplicateTensorToMesh(mesh_device)`` / ``replicate_tensor_to_mesh_mapper(mesh_device)``."""

    mesh_device: Optional[MeshName] = None


class Shard2d(Typed):
    """``ShardTensor2dMesh(mesh_device, mesh_shape, dims)``: dims[i] None replicates mesh axis i."""

    dims: Annotated[list[Optional[int]], Length(min=2, max=2)]
    mesh_shape: Annotated[list[Dim], Length(min=2, max=2)]
    mesh_device: Optional[MeshName] = None


class MapperConfig(Typed):
    """``create_mesh_mapper(mesh_device, MeshMapperConfig(placements, mesh_shape_override, mesh_offset_override))``,
    or its 2-D overload ``MeshMapperConfig(row_dim, col_dim, ...)`` (a None dim replicates that mesh axis)."""

    placements: Optional[Annotated[list[PlacementItem], Length(min=1)]] = None
    row_dim: Optional[int] = None
    col_dim: Optional[int] = None
    mesh_shape_override: Optional[Annotated[list[Dim], Length(min=1)]] = None
    mesh_offset_override: Optional[Offset] = None
    mesh_device: Optional[MeshName] = None


def _one_key(key: str, inner: type) -> type:
    """The record ``{key: inner}``: a ttnn name as the key, its arguments inside."""
    return type(key.replace(".", "_"), (Typed,), {"__annotations__": {key: inner}, "__module__": __name__, "key": key})


MAPPER_FORMS: dict[str, type] = {
    "ShardTensorToMesh": ShardToMesh,
    "shard_tensor_to_mesh_mapper": ShardToMesh,
    "ReplicateTensorToMesh": ReplicateToMesh,
    "replicate_tensor_to_mesh_mapper": ReplicateToMesh,
    "ShardTensor2dMesh": Shard2d,
    "create_mesh_mapper": MapperConfig,
}
"""ttnn's mapper functions and legacy classes, as the one key of a mesh_mapper mapping."""
MAPPER_WORDS = ("replicate", "ReplicateTensorToMesh", "replicate_tensor_to_mesh_mapper")


def _mapper_tag(value: object) -> Optional[str]:
    if isinstance(value, str):
        return "Name"
    if isinstance(value, dict):
        if "shard" in value:
            return "Shard"
        if "placements" in value:
            return "Placements"
        if len(value) == 1 and next(iter(value)) in MAPPER_FORMS:
            return next(iter(value))
    return None


Mapper = tagged(
    {"Name": Literal[MAPPER_WORDS], "Shard": ShardPlacement, "Placements": PlacementsMapper}  # type: ignore[valid-type]
    | {k: _one_key(k, v) for k, v in MAPPER_FORMS.items()},
    _mapper_tag,
    "replicate, {shard: DIM}, {placements: [...], mesh_shape: [...]}, or a ttnn mapper: "
    + ", ".join("{" + k + ": {...}}" for k in MAPPER_FORMS),
)


class ConcatComposer(Typed):
    """``{concat: d}`` is concat_mesh_to_tensor_composer; a list, or a ``mesh_shape``, is
    create_mesh_composer(MeshComposerConfig(dims, mesh_shape_override))."""

    concat: Union[int, Annotated[list[int], Length(min=1)]]
    """A dim (concat_mesh_to_tensor_composer) or one dim per mesh axis (create_mesh_composer)."""
    mesh_shape: Optional[Annotated[list[Dim], Length(min=1)]] = None
    mesh_offset: Optional[Offset] = None
    """MeshComposerConfig's mesh_offset_override (SUBMESH mode only)."""


class ConcatToTensor(Typed):
    """``ConcatMeshToTensor(mesh_device, dim)`` / ``concat_mesh_to_tensor_composer(mesh_device, dim)``."""

    dim: int
    mesh_device: Optional[MeshName] = None


class Concat2d(Typed):
    """``ConcatMesh2dToTensor(mesh_device, mesh_shape, dims)``."""

    dims: Annotated[list[int], Length(min=2, max=2)]
    mesh_shape: Annotated[list[Dim], Length(min=2, max=2)]
    mesh_device: Optional[MeshName] = None


class ComposerConfig(Typed):
    """``create_mesh_composer(mesh_device, MeshComposerConfig(dims, mesh_shape_override, mesh_offset_override))``,
    or its 2-D overload ``MeshComposerConfig(row_dim, col_dim, ...)``."""

    dims: Optional[Annotated[list[int], Length(min=1)]] = None
    row_dim: Optional[int] = None
    col_dim: Optional[int] = None
    mesh_shape_override: Optional[Annotated[list[Dim], Length(min=1)]] = None
    mesh_offset_override: Optional[Offset] = None
    mesh_device: Optional[MeshName] = None


COMPOSER_FORMS: dict[str, type] = {
    "ConcatMeshToTensor": ConcatToTensor,
    "concat_mesh_to_tensor_composer": ConcatToTensor,
    "ConcatMesh2dToTensor": Concat2d,
    "create_mesh_composer": ComposerConfig,
}
"""ttnn's composer functions and legacy classes, as the one key of a mesh_composer mapping."""


def _composer_tag(value: object) -> Optional[str]:
    if isinstance(value, dict):
        if "concat" in value:
            return "Concat"
        if len(value) == 1 and next(iter(value)) in COMPOSER_FORMS:
            return next(iter(value))
    return None


Composer = tagged(
    {"Concat": ConcatComposer} | {k: _one_key(k, v) for k, v in COMPOSER_FORMS.items()},
    _composer_tag,
    "{concat: DIM}, {concat: [DIMS], mesh_shape: [...]}, or a ttnn composer: "
    + ", ".join("{" + k + ": {...}}" for k in COMPOSER_FORMS),
)
