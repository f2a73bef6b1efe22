"""Scenario format 1 as typed models: the one definition the loader validates against.

Step names are the ttnn function names, so a scenario reads like the code it reproduces::

    meshspec: 1
    mesh: t3k
    steps:
      - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
      - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
      - copy_host_to_device_tensor: {src: src, dst: dst}
      - to_torch: {tensor: dst, mesh_composer: {concat: 1}}
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Optional, Union

from pydantic import BaseModel, ConfigDict, Discriminator, Field, Tag, field_validator

# Strict scalars via Field(strict=True): importing pydantic's StrictInt & co. loads pydantic.types,
# a fifth of the loader's import time.
StrictInt = Annotated[int, Field(strict=True)]
StrictFloat = Annotated[float, Field(strict=True)]
StrictStr = Annotated[str, Field(strict=True)]

from ..spec import TILE_SHAPES, BufferType, DataType, Layout

Name = Annotated[str, Field(min_length=1, pattern=r"^[A-Za-z_][A-Za-z0-9_.\-]*$")]
Dim = Annotated[StrictInt, Field(ge=1, le=2**40)]


def _tagged(tags: dict[str, Any], fn: Any, expected: str) -> Any:
    """A union picked by ``fn(value)`` (a tag), so errors point inside the branch the user meant.

    Tags are capitalised so they never collide with a key in a message's path.
    """
    return Annotated[
        Union[tuple(Annotated[t, Tag(name)] for name, t in tags.items())],  # type: ignore[misc]
        Discriminator(fn, custom_error_type="invalid_choice", custom_error_message=f"expected {expected}"),
    ]


def _by_key(*keys: str) -> Any:
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


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True, defer_build=True)


class TensorFields(_Strict):
    shape: Annotated[list[Dim], Field(min_length=1, max_length=8)]
    """Logical shape, e.g. [1, 1, 32, 32]."""
    dtype: DataType = DataType.BFLOAT16
    layout: Layout = Layout.TILE
    tile: tuple[int, int] = (32, 32)
    memory: BufferType = BufferType.DRAM

    @field_validator("tile")
    @classmethod
    def _known_tile(cls, v: tuple[int, int]) -> tuple[int, int]:
        if tuple(v) not in TILE_SHAPES:
            raise ValueError(f"tile {list(v)} is not one of {', '.join(str(list(t)) for t in TILE_SHAPES)}")
        return v


# -- from_torch data -------------------------------------------------------------------------
class FillData(_Strict):
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


class RandomData(_Strict):
    random: Annotated[StrictInt, Field(ge=0)]


class FileData(_Strict):
    file: Annotated[str, Field(min_length=1)]
    """A .npy file, relative to the scenario's folder (loaded without pickle)."""


Data = _tagged(
    {"Name": Literal["arange", "zeros", "ones"], "Fill": FillData, "Random": RandomData, "File": FileData},
    _by_key("fill", "random", "file"),
    "arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy}",
)


# -- mappers and composers -------------------------------------------------------------------
class ShardPlacement(_Strict):
    shard: StrictInt


PlacementItem = _tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement}, _by_key("shard"), "replicate or {shard: DIM}"
)


class PlacementsMapper(_Strict):
    placements: Annotated[list[PlacementItem], Field(min_length=1)]
    mesh_shape: Optional[Annotated[list[Dim], Field(min_length=1)]] = None
    """MeshMapperConfig's mesh_shape_override."""


Mapper = _tagged(
    {"Name": Literal["replicate"], "Shard": ShardPlacement, "Placements": PlacementsMapper},
    _by_key("shard", "placements"),
    "replicate, {shard: DIM} or {placements: [...], mesh_shape: [...]}",
)


class ConcatComposer(_Strict):
    """``{concat: d}`` is concat_mesh_to_tensor_composer; a list, or a ``mesh_shape``, is
    create_mesh_composer(MeshComposerConfig(dims, mesh_shape_override))."""

    concat: Union[StrictInt, Annotated[list[StrictInt], Field(min_length=1)]]
    """A dim (concat_mesh_to_tensor_composer) or one dim per mesh axis (create_mesh_composer)."""
    mesh_shape: Optional[Annotated[list[Dim], Field(min_length=1)]] = None


# -- steps -------------------------------------------------------------------------------------
class Allocate(TensorFields):
    """``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``."""

    as_: Name = Field(alias="as")


class FromTorch(TensorFields):
    """``ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)``: a host tensor."""

    as_: Name = Field(alias="as")
    data: Data = "arange"
    mesh_mapper: Optional[Mapper] = None


class ToDevice(_Strict):
    """``ttnn.to_device(host, mesh_device)``: a new device tensor holding the host shards."""

    src: Name
    as_: Name = Field(alias="as")
    memory: Optional[BufferType] = None


class CopyHostToDevice(_Strict):
    """``ttnn.copy_host_to_device_tensor(src, dst)``."""

    src: Name
    dst: Name


class Cpu(_Strict):
    """``dst.cpu()``: read the device tensor back into a host tensor."""

    tensor: Name
    as_: Optional[Name] = Field(default=None, alias="as")


class ToTorch(_Strict):
    """``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose."""

    tensor: Name
    mesh_composer: Optional[ConcatComposer] = None
    as_: Optional[Name] = Field(default=None, alias="as")


class Deallocate(_Strict):
    """``ttnn.deallocate(t)``."""

    tensor: Name


#: Step op name -> its arguments' model, in the order the README lists them.
OPS: dict[str, type[_Strict]] = {
    "allocate_tensor_on_device": Allocate,
    "from_torch": FromTorch,
    "to_device": ToDevice,
    "copy_host_to_device_tensor": CopyHostToDevice,
    "cpu": Cpu,
    "to_torch": ToTorch,
    "deallocate": Deallocate,
}


def _step_tag(value: Any) -> Optional[str]:
    if isinstance(value, dict) and len(value) == 1:
        return "Step:" + next(iter(value))
    if isinstance(value, BaseModel):
        return "Step:" + next(iter(type(value).model_fields))
    return None


def _step_model(op: str, args: type[_Strict]) -> type[_Strict]:
    from pydantic import create_model

    return create_model(f"Step_{op}", __base__=_Strict, **{op: (args, ...)})


STEP_MODELS: dict[str, type[_Strict]] = {op: _step_model(op, args) for op, args in OPS.items()}

Step = Annotated[
    Union[tuple(Annotated[STEP_MODELS[op], Tag("Step:" + op)] for op in OPS)],  # type: ignore[misc]
    Discriminator(_step_tag),
]


# -- expectations (checked by `meshspec check`, shown by `meshspec run`) ------------------------
FindingKind = Literal["stale", "partial", "lost", "missing_spec", "shape_mismatch", "data_mismatch", "use_after_free"]
DeviceStatus = Literal[
    "ok", "empty", "uninitialized", "stale", "partial", "lost", "missing_spec", "shape_mismatch"
]
Coord = Annotated[list[StrictInt], Field(min_length=1, max_length=4)]


class FindingExpect(_Strict):
    """A finding pattern: matches every finding equal on the keys given."""

    kind: Optional[FindingKind] = None
    tensor: Optional[Name] = None
    device: Optional[Coord] = None
    step: Optional[Annotated[StrictInt, Field(ge=0)]] = None


class DeviceExpect(_Strict):
    """Expected record of one device; only the keys given are checked."""

    recorded: Optional[bool] = None
    status: Optional[DeviceStatus] = None
    shape: Optional[list[StrictInt]] = None
    padded_shape: Optional[list[StrictInt]] = None
    dtype: Optional[DataType] = None
    layout: Optional[Layout] = None
    num_pages: Optional[StrictInt] = None
    buffer_bytes: Optional[StrictInt] = None
    written_bytes: Optional[StrictInt] = None
    offset: Optional[list[StrictInt]] = None


class TensorExpect(_Strict):
    """Expected record of one tensor at the end of the run; only the keys given are checked."""

    storage: Optional[Literal["device", "host", "deallocated"]] = None
    recorded: Optional[list[Coord]] = None
    """Exactly the devices recorded as holding data."""
    shape: Optional[list[StrictInt]] = None
    """The shape every recorded device is recorded with."""
    dtype: Optional[DataType] = None
    layout: Optional[Layout] = None
    distribution_shape: Optional[list[StrictInt]] = None
    devices: Optional[dict[str, DeviceExpect]] = None
    """Per device, keyed by coordinate: ``"[1, 3]": {shape: [...]}``."""


class ProfileExpect(_Strict):
    findings: Optional[list[FindingExpect]] = None
    """The exact set of findings (each pattern must match one, each finding some pattern)."""
    error: Optional[str] = None
    """A substring of the expected step error; null or absent: the run must not stop on an error."""
    tensors: Optional[dict[str, TensorExpect]] = None


class Expect(_Strict):
    profiles: Optional[dict[str, ProfileExpect]] = None
    """Per profile name; ``default`` applies to every profile not named."""
    tensors: Optional[dict[str, TensorExpect]] = None
    """Expected records at the end of the run, under every profile."""


class Scenario(_Strict):
    """A whole scenario file, format version 1."""

    meshspec: Literal[1]
    """Format version."""

    @field_validator("meshspec", mode="before")
    @classmethod
    def _plain_int(cls, v: Any) -> Any:
        if isinstance(v, bool) or not isinstance(v, int):
            raise ValueError(f"the format version is the number 1, got {v!r}")
        return v
    name: Optional[str] = None
    description: Optional[str] = None
    mesh: _tagged(
        {"Name": StrictStr, "Shape": Annotated[list[Dim], Field(min_length=1, max_length=4)]},
        lambda v: "Name" if isinstance(v, str) else "Shape" if isinstance(v, list) else None,
        "a system name like t3k, or a mesh shape like [2, 4] (1 to 4 dims)",
    )
    """A system name (n150 n300 t3k galaxy p150 p300 p150x4 p150x8) or a shape like [2, 4]."""
    profile: Optional[str] = None
    data: Literal["full", "none"] = "full"
    """``none``: metadata mode (shapes, records and written pages only; no values, no buffers)."""
    steps: Annotated[list[Step], Field(min_length=1)]
    expect: Optional[Expect] = None
    """What a correct run records, per profile (see `meshspec check`)."""


def step_op(step: BaseModel) -> str:
    """The op name of a validated step."""
    return next(iter(type(step).model_fields))


def step_args(step: BaseModel) -> BaseModel:
    return getattr(step, step_op(step))
