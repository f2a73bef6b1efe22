"""Argument types shared by several ops: tensor fields, host data, mappers and composers.

These are the typed forms of ttnn's own arguments (``TensorSpec`` fields, ``mesh_mapper``,
``mesh_composer``); each op's arguments type is built from them. They are strict and frozen
(meshspec/typed.py): an unknown key or a wrong type is refused where the scenario says it.
"""

from typing import Annotated, Literal, Optional, Union

from ...typed import Alias, Before, Check, Length, Pattern, Range, Schema, Typed, by_key, tagged
from ..spec import TILE_SHAPES, Arch, BufferType, DataType, Layout, TensorSpec, make_spec

Name = Annotated[str, Length(min=1), Pattern(r"[A-Za-z_][A-Za-z0-9_.\-]*", "a tensor name (a letter or _, then letters, digits, _ . -)")]
Dim = Annotated[int, Range(ge=1, le=2**40)]
As = Annotated[Name, Alias("as")]
"""The name a step binds its result to (``as``)."""
OptionalAs = Annotated[Optional[Name], Alias("as")]


def _known_tile(tile: tuple[int, int]) -> tuple[int, int]:
    if tuple(tile) not in TILE_SHAPES:
        raise ValueError(f"tile {list(tile)} is not one of {', '.join(str(list(t)) for t in TILE_SHAPES)}")
    return tile


class TensorFields(Typed):
    shape: Annotated[list[Dim], Length(min=1, max=8)]
    """Logical shape, e.g. [1, 1, 32, 32]."""
    dtype: DataType = DataType.BFLOAT16
    layout: Layout = Layout.TILE
    tile: Annotated[tuple[int, int], Check(_known_tile), Schema({"enum": [list(t) for t in TILE_SHAPES]})] = (32, 32)
    """The tile shape: [32, 32], [16, 32], [32, 16] or [16, 16]."""
    memory: BufferType = BufferType.DRAM

    def spec(self, arch: Arch, shape: Optional[tuple[int, ...]] = None) -> TensorSpec:
        """The validated spec these fields describe on ``arch`` (for ``shape``, if given)."""
        return make_spec(tuple(shape or self.shape), self.dtype, self.layout, tuple(self.tile), self.memory, arch)  # type: ignore[arg-type]


# -- from_torch data -------------------------------------------------------------------------
def _number_text(v: object) -> object:
    # YAML 1.1 reads 1e30 (no dot) as text; take it as the number it plainly is.
    if isinstance(v, str):
        try:
            return float(v)
        except ValueError:
            raise ValueError(f"fill takes a number, got {v!r}") from None
    return v


class FillData(Typed):
    fill: Annotated[Union[int, float], Before(_number_text)]


class RandomData(Typed):
    random: Annotated[int, Range(ge=0)]


class FileData(Typed):
    file: Annotated[str, Length(min=1)]
    """A .npy file, relative to the scenario's folder (loaded without pickle)."""


Data = tagged(
    {"Name": Literal["arange", "zeros", "ones"], "Fill": FillData, "Random": RandomData, "File": FileData},
    by_key("fill", "random", "file"),
    "arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy}",
)


# -- mappers and composers -------------------------------------------------------------------
class ShardPlacement(Typed):
    shard: int


PlacementItem = tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement}, by_key("shard"), "replicate or {shard: DIM}"
)


class PlacementsMapper(Typed):
    placements: Annotated[list[PlacementItem], Length(min=1)]
    mesh_shape: Optional[Annotated[list[Dim], Length(min=1)]] = None
    """MeshMapperConfig's mesh_shape_override."""


Mapper = tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement, "Placements": PlacementsMapper},
    by_key("shard", "placements"),
    "replicate, {shard: DIM} or {placements: [...], mesh_shape: [...]}",
)


class ConcatComposer(Typed):
    """``{concat: d}`` is concat_mesh_to_tensor_composer; a list, or a ``mesh_shape``, is
    create_mesh_composer(MeshComposerConfig(dims, mesh_shape_override))."""

    concat: Union[int, Annotated[list[int], Length(min=1)]]
    """A dim (concat_mesh_to_tensor_composer) or one dim per mesh axis (create_mesh_composer)."""
    mesh_shape: Optional[Annotated[list[Dim], Length(min=1)]] = None
