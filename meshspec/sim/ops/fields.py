"""Argument models shared by several ops: tensor fields, host data, mappers and composers.

These are the typed forms of ttnn's own arguments (``TensorSpec`` fields, ``mesh_mapper``,
``mesh_composer``); each op's arguments model is built from them. Models are strict and frozen:
an unknown key or a wrong type is refused where the scenario says it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

from ..spec import TILE_SHAPES, Arch, BufferType, DataType, Layout, TensorSpec, make_spec

# Strict scalars via Field(strict=True): importing pydantic's StrictInt & co. loads pydantic.types,
# a fifth of the loader's import time.
StrictInt = Annotated[int, Field(strict=True)]
StrictFloat = Annotated[float, Field(strict=True)]
StrictStr = Annotated[str, Field(strict=True)]

Name = Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_.\-]*$")]
Dim = Annotated[StrictInt, Field(ge=1, le=2**40)]


def tagged(tags: dict[str, Any], fn: Any, expected: str) -> Any:
    """A union picked by ``fn(value)`` (a tag), so errors point inside the branch the user meant.

    Tags are capitalised so they never collide with a key in a message's path.
    """
    return Annotated[
        Union[tuple(Annotated[t, Tag(name)] for name, t in tags.items())],  # type: ignore[misc]
        Discriminator(fn, custom_error_type="invalid_choice", custom_error_message=f"expected {expected}"),
    ]


def by_key(*keys: str) -> Any:
    """Tag function: 'Name' for a string, else the tag of the first of ``keys`` the mapping has."""

    def tag(value: Any) -> Optional[str]:
        if isinstance(value, str):
            return "Name"
        if isinstance(value, dict):
            for k in keys:
                if k in value:
                    return k.capitalize()
        return None

    return tag


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=True)


class TensorFields(Strict):
    shape: Annotated[list[Dim], Field(min_length=1, max_length=8)]
    """Logical shape, e.g. [1, 1, 32, 32]."""
    dtype: DataType = DataType.BFLOAT16
    layout: Layout = Layout.TILE
    tile: Annotated[tuple[StrictInt, StrictInt], Field(json_schema_extra={"enum": [list(t) for t in TILE_SHAPES]})] = (32, 32)
    """The tile shape: [32, 32], [16, 32], [32, 16] or [16, 16]."""
    memory: BufferType = BufferType.DRAM

    @field_validator("tile")
    @classmethod
    def _known_tile(cls, v: tuple[int, int]) -> tuple[int, int]:
        if tuple(v) not in TILE_SHAPES:
            raise ValueError(f"tile {list(v)} is not one of {', '.join(str(list(t)) for t in TILE_SHAPES)}")
        return v

    def spec(self, arch: Arch, shape: Optional[tuple[int, ...]] = None) -> TensorSpec:
        """The validated spec these fields describe on ``arch`` (for ``shape``, if given)."""
        return make_spec(tuple(shape or self.shape), self.dtype, self.layout, tuple(self.tile), self.memory, arch)  # type: ignore[arg-type]


# -- from_torch data -------------------------------------------------------------------------
class FillData(Strict):
    fill: Union[StrictInt, StrictFloat]

    @field_validator("fill", mode="before")
    @classmethod
    def _number_text(cls, v: Any) -> Any:
        # YAML 1.1 reads 1e30 (no dot) as text; take it as the number it plainly is.
        if isinstance(v, str):
            try:
                return float(v)
            except ValueError:
                raise ValueError(f"fill takes a number, got {v!r}") from None
        return v


class RandomData(Strict):
    random: Annotated[StrictInt, Field(ge=0)]


class FileData(Strict):
    file: Annotated[str, Field(min_length=1)]
    """A .npy file, relative to the scenario's folder (loaded without pickle)."""


Data = tagged(
    {"Name": Literal["arange", "zeros", "ones"], "Fill": FillData, "Random": RandomData, "File": FileData},
    by_key("fill", "random", "file"),
    "arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy}",
)


# -- mappers and composers -------------------------------------------------------------------
class ShardPlacement(Strict):
    shard: StrictInt


PlacementItem = tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement}, by_key("shard"), "replicate or {shard: DIM}"
)


class PlacementsMapper(Strict):
    placements: Annotated[list[PlacementItem], Field(min_length=1)]
    mesh_shape: Optional[Annotated[list[Dim], Field(min_length=1)]] = None
    """MeshMapperConfig's mesh_shape_override."""


Mapper = tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement, "Placements": PlacementsMapper},
    by_key("shard", "placements"),
    "replicate, {shard: DIM} or {placements: [...], mesh_shape: [...]}",
)


class ConcatComposer(Strict):
    """``{concat: d}`` is concat_mesh_to_tensor_composer; a list, or a ``mesh_shape``, is
    create_mesh_composer(MeshComposerConfig(dims, mesh_shape_override))."""

    concat: Union[StrictInt, Annotated[list[StrictInt], Field(min_length=1)]]
    """A dim (concat_mesh_to_tensor_composer) or one dim per mesh axis (create_mesh_composer)."""
    mesh_shape: Optional[Annotated[list[Dim], Field(min_length=1)]] = None
