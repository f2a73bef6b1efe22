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

from pydantic import BaseModel, Discriminator, Field, Tag, create_model, field_validator

from ..kinds import FINDINGS, STATUSES
from ..sim.mesh import SYSTEM_ALIASES, SYSTEMS
from ..sim.ops import OPS
from ..sim.ops.fields import Dim, Name, Strict, StrictInt, StrictStr, by_key, tagged
from ..sim.spec import DataType, Layout


def _step_tag(value: Any) -> Optional[str]:
    if isinstance(value, dict) and len(value) == 1:
        return "Step:" + next(iter(value))
    if isinstance(value, BaseModel):
        return "Step:" + next(iter(type(value).model_fields))
    return None


def _step_model(op: str, args: type[Strict]) -> type[Strict]:
    return create_model(f"Step_{op}", __base__=Strict, **{op: (args, ...)})


#: One single-key model per op, ``{op: args}``, derived from the op registry.
STEP_MODELS: dict[str, type[Strict]] = {name: _step_model(name, op.args) for name, op in OPS.items()}

Step = Annotated[
    Union[tuple(Annotated[STEP_MODELS[op], Tag("Step:" + op)] for op in OPS)],  # type: ignore[misc]
    Discriminator(_step_tag),
]


# -- expectations (checked by `meshspec check`, shown by `meshspec run`) ------------------------
FindingKind = Literal[tuple(k.value for k in FINDINGS)]  # type: ignore[valid-type]
DeviceStatus = Literal[tuple(k.value for k in STATUSES)]  # type: ignore[valid-type]
Coord = Annotated[list[StrictInt], Field(min_length=1, max_length=4)]


class FindingExpect(Strict):
    """A finding pattern: matches every finding equal on the keys given."""

    kind: Optional[FindingKind] = None
    tensor: Optional[Name] = None
    device: Optional[Coord] = None
    step: Optional[Annotated[StrictInt, Field(ge=0)]] = None


class DeviceExpect(Strict):
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


class TensorExpect(Strict):
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


class ErrorMatch(Strict):
    """``{match: REGEX}``: the step error matches the regular expression (``re.search``), as
    ``pytest.raises(match=...)`` does."""

    match: Annotated[str, Field(min_length=1)]

    @field_validator("match")
    @classmethod
    def _compiles(cls, v: str) -> str:
        import re

        try:
            re.compile(v)
        except re.error as err:
            raise ValueError(f"{v!r} is not a regular expression: {err}") from None
        return v


class ProfileExpect(Strict):
    findings: Optional[list[FindingExpect]] = None
    """The exact set of findings (each pattern must match one, each finding some pattern)."""
    error: Optional[tagged({"Name": StrictStr, "Match": ErrorMatch}, by_key("match"), "a substring of the error, or {match: REGEX}")] = None
    """A substring of the expected step error, or {match: REGEX}; null or absent: the run must not
    stop on an error."""
    tensors: Optional[dict[str, TensorExpect]] = None


class Expect(Strict):
    profiles: Optional[dict[str, ProfileExpect]] = None
    """Per profile name; ``default`` applies to every profile not named."""
    tensors: Optional[dict[str, TensorExpect]] = None
    """Expected records at the end of the run, under every profile."""


SystemName = Annotated[StrictStr, Field(json_schema_extra={"enum": list(SYSTEMS) + list(SYSTEM_ALIASES)})]
MeshShape = Annotated[list[Dim], Field(min_length=1, max_length=4)]


class SystemMesh(Strict):
    """A system opened with a mesh shape, as ``open_mesh_device(MeshShape(...))`` on it."""

    system: SystemName
    shape: Optional[MeshShape] = None
    """The mesh shape to open; the system's own when left out."""


class Scenario(Strict):
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
    mesh: tagged(
        {"Name": SystemName, "Shape": MeshShape, "System": SystemMesh},
        lambda v: "Name" if isinstance(v, str) else "Shape" if isinstance(v, list) else "System" if isinstance(v, dict) else None,
        "a system name like t3k, a mesh shape like [2, 4] (1 to 4 dims), or {system: t3k, shape: [1, 8]}",
    )
    """A system name (its default mesh), a bare shape like [2, 4] (Wormhole chips), or a system
    opened with a shape: {system: t3k, shape: [1, 8]}."""
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


def all_models() -> dict[str, type[BaseModel]]:
    """Every model a scenario can hold, by class name: the scenario's own and every op's."""
    import sys

    from ..sim.ops import fields

    modules = [sys.modules[__name__], fields] + [sys.modules[op.args.__module__] for op in OPS.values()]
    return {
        name: obj
        for module in modules
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, BaseModel)
    }
