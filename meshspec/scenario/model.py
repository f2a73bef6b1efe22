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

import re
from typing import Annotated, Any, Literal, Optional, Union

from ..kinds import FINDINGS, STATUSES
from ..lazy import Lazy
from ..names import NAME, NAME_HELP, RESERVED_PROFILE_NAMES
from ..sim.mesh import SYSTEM_ALIASES, SYSTEMS
from ..sim.ops import OPS
from ..sim.ops.fields import Dim, MemoryConfig, Name
from ..sim.spec import BufferType, DataType, Layout
from ..text import one_line
from ..typed import Before, Check, Length, Pattern, Range, Schema, Tagged, Typed, by_key, tagged, use_hints
from .pyhints import PYTHON

use_hints(PYTHON)  # a value copied from ttnn's Python is refused with the YAML to write instead


def _step_tag(value: Any) -> Optional[str]:
    if isinstance(value, dict) and len(value) == 1:
        return next(iter(value))
    return None


def _step_type(op: str, args: type[Typed]) -> type[Typed]:
    """``{op: args}``: the one-key mapping a step is."""
    return type(f"Step_{op}", (Typed,), {"__annotations__": {op: args}, "__module__": __name__, "op": op})


#: One single-key type per op, ``{op: args}``, derived from the op registry; made when a scenario
#: first uses the op (with it, the op's module is imported).
STEP_TYPES: Lazy[str, type[Typed]] = Lazy(OPS, lambda name: _step_type(name, OPS[name].args))

Step = Annotated[Any, Tagged(_step_tag, STEP_TYPES, "a mapping with one op, like {from_torch: {...}}")]


# -- expectations (checked by `meshspec check`, shown by `meshspec run`) ------------------------
FindingKind = Literal[tuple(k.value for k in FINDINGS)]  # type: ignore[valid-type]
DeviceStatus = Literal[tuple(k.value for k in STATUSES)]  # type: ignore[valid-type]
Coord = Annotated[list[int], Length(min=1, max=4)]


class FindingExpect(Typed):
    """A finding pattern: matches every finding equal on the keys given."""

    kind: Optional[FindingKind] = None
    tensor: Optional[Name] = None
    device: Optional[Coord] = None
    step: Optional[Annotated[int, Range(ge=0)]] = None


class DeviceExpect(Typed):
    """Expected record of one device; only the keys given are checked."""

    recorded: Optional[bool] = None
    status: Optional[DeviceStatus] = None
    shape: Optional[list[int]] = None
    padded_shape: Optional[list[int]] = None
    dtype: Optional[DataType] = None
    layout: Optional[Layout] = None
    num_pages: Optional[int] = None
    buffer_bytes: Optional[int] = None
    written_bytes: Optional[int] = None
    offset: Optional[list[int]] = None
    memory_config: Optional[MemoryConfig] = None
    """As a report prints a device's spec (``{memory_layout, buffer_type, shard_spec}``), or any
    form a step takes; an interleaved spec's is its buffer type, interleaved."""
    tile: Optional[list[int]] = None
    memory: Optional[BufferType] = None
    page_size: Optional[int] = None
    aligned_page_size: Optional[int] = None
    """With ``shape`` to ``buffer_bytes`` above: every key of a device's ``spec`` in a report, so a
    printed spec pastes in as the device's expectation."""


class SliceOf(Typed):
    """``{tensor: src, slice: "[:, 0:64, :, :]"}``: a slice of another tensor's values (the source
    of a mapped host tensor), written as maps print slices."""

    tensor: Name
    slice: Optional[str] = None


_EXPONENT_TEXT = re.compile(r"[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+")
"""What YAML 1.1 reads as text but is plainly a number: ``1e-2`` (PyYAML's float needs a dot and a sign)."""


def _number_text(v: Any) -> Any:
    """YAML 1.1 reads ``1e-2`` (no dot) as text; a threshold written so is the number it plainly is.
    Other text stays text, for the validator to refuse with the file, line and value: ``'0.99'``
    quoted is a string, and ``nan`` (which float() would take) is no threshold."""
    if isinstance(v, str) and _EXPONENT_TEXT.fullmatch(v):
        return float(v)
    return v


Tolerance = Annotated[
    Union[int, float], Before(_number_text), Range(ge=0),
    Schema({"anyOf": [{"type": "number", "minimum": 0},
                      {"type": "string", "pattern": r"^[0-9]+(\.[0-9]*)?[eE][-+]?[0-9]+$", "description": "1e-2: YAML 1.1 reads it as text"}]},
           replace=True),
]
"""A tolerance of torch.allclose: a number from 0, ``1e-2`` (text to YAML 1.1) included."""


class PccExpect(Typed):
    """``assert comp_pcc(golden, calculated, pcc)[0]`` as tt-metal's model tests write it (the
    calculated tensor is the one the expectation is of): the Pearson correlation of the flattened
    values, with comp_pcc's own rules for all-NaN, all-zero and constant tensors
    (models/common/utility_functions.py; docs/semantics.md section 21)."""

    golden: Union[Name, SliceOf]
    """The tensor (or a slice of it) the values are compared with: comp_pcc's first argument."""
    pcc: Annotated[Union[int, float], Before(_number_text), Range(ge=-1, le=1)] = 0.99
    """The lowest correlation that passes (comp_pcc's default, 0.99)."""


class AllcloseExpect(Typed):
    """``torch.allclose(calculated, other, rtol, atol, equal_nan)``: every element within
    ``atol + rtol * |other|`` of ``other``'s (docs/semantics.md section 21)."""

    other: Union[Name, SliceOf]
    rtol: Tolerance = 1e-05
    atol: Tolerance = 1e-08
    equal_nan: bool = False
    """NaN equals NaN (torch.allclose's default is no; tt-metal's comp_allclose passes yes)."""


class ValuesExpect(Typed):
    """Expected values of a tensor holding one array (a composed to_torch result, a per-device part):
    exactly those of another tensor (or a slice of it), close to them (``pcc``, ``allclose``), its
    first values, or its SHA-256 (meshspec/judge/values.py says of which bytes)."""

    equals: Optional[Union[Name, SliceOf]] = None
    pcc: Optional[PccExpect] = None
    """``comp_pcc(golden, this, pcc)``: {golden: NAME, pcc: 0.99}."""
    allclose: Optional[AllcloseExpect] = None
    """``torch.allclose(this, other, rtol, atol)``: {other: NAME, rtol: 1e-05, atol: 1e-08}."""
    first: Optional[list[Union[int, float]]] = None
    sha256: Optional[Annotated[str, Pattern(r"[0-9a-f]{64}", "a SHA-256: 64 lower-case hex digits, as hashlib.sha256(...).hexdigest() prints it")]] = None


class TensorExpect(Typed):
    """Expected record of one tensor at the end of the run; only the keys given are checked."""

    storage: Optional[Literal["device", "host", "deallocated"]] = None
    storage_kind: Optional[Literal["mesh", "single-device", "owned", "borrowed"]] = None
    """What its storage is: mesh or single-device (on device), owned or borrowed (on host)."""
    recorded: Optional[list[Coord]] = None
    """Exactly the devices recorded as holding data."""
    shape: Optional[list[int]] = None
    """The shape every recorded device is recorded with."""
    dtype: Optional[DataType] = None
    layout: Optional[Layout] = None
    distribution_shape: Optional[list[int]] = None
    devices: Optional[dict[str, DeviceExpect]] = None
    """Per device, keyed by coordinate: ``"[1, 3]": {shape: [...]}``."""
    values: Optional[ValuesExpect] = None
    """Its values (a tensor holding one array): equal to another tensor or a slice of it, first values, sha256."""


def _compiles(v: str) -> str:
    import re
    import warnings

    from .regex import unbounded  # here: only a scenario with a pattern pays for the scanner

    try:
        with warnings.catch_warnings():  # "[a||]": a FutureWarning of what a later Python may read (two lines on stderr)
            warnings.simplefilter("ignore")
            re.compile(v)
    except re.error as err:
        raise ValueError(f"{v!r} is not a regular expression: {err}") from None
    why = unbounded(v)
    if why is not None:  # re has no timeout: a run or check would never end on some error message
        raise ValueError(
            f"'{one_line(v)}' is refused: {why}; write the text the error must contain (error: TEXT), "
            "or a pattern without a repeated group that repeats (x+y, not (x+x+)+y)"
        )
    return v


class ErrorMatch(Typed):
    """``{match: REGEX}``: the step error matches the regular expression (``re.search``), as
    ``pytest.raises(match=...)`` does."""

    match: Annotated[str, Length(min=1), Check(_compiles)]


ProfileRef = Annotated[str, Length(min=1), Pattern(NAME, "a profile's name: " + NAME_HELP.split(": ", 1)[1])]
"""A profile named where one is used (``profile:``, a ``base``, an ``expect`` entry): the one rule
for names (meshspec/names.py); whether it names a profile the loader says, with the choices."""

_RESERVED_WHY = {
    "all": "'--profile all' runs every profile",
    "default": "an expect block's 'default' is what every profile not named expects",
}
assert set(_RESERVED_WHY) == RESERVED_PROFILE_NAMES


def _not_reserved(name: str) -> str:
    if name in RESERVED_PROFILE_NAMES:
        raise ValueError(f"{name!r} cannot name a profile of yours: {_RESERVED_WHY[name]}; give yours another name")
    return name


ProfileName = Annotated[ProfileRef, Check(_not_reserved), Schema({"not": {"enum": sorted(RESERVED_PROFILE_NAMES)}})]
"""The name a scenario gives a profile of its own (a key of ``profiles:``): a name under the one
rule, and neither ``all`` nor ``default`` (:data:`meshspec.names.RESERVED_PROFILE_NAMES`). It
reaches file names (``hunt --out``) and the command line (``--profile NAME``)."""


class ProfileExpect(Typed):
    findings: Optional[list[FindingExpect]] = None
    """The exact set of findings (each pattern must match one, each finding some pattern)."""
    error: Optional[tagged({"Name": str, "Match": ErrorMatch}, by_key("match"), "a substring of the error, or {match: REGEX}")] = None
    """A substring of the expected step error, or {match: REGEX}; null or absent: the run must not
    stop on an error."""
    tensors: Optional[dict[Name, TensorExpect]] = None
    device_ids: Optional[dict[str, list[int]]] = None
    """Per mesh device (``mesh_device``, or a submesh's name), its ``get_device_ids()`` at the end of
    the run, row-major: the line a report's header prints (docs/semantics.md section 17)."""


class CaseExpect(Typed):
    """Expectations of the matrix cases whose values match ``when`` (meshspec/scenario/matrix.py),
    put over the block's own by profile and by tensor name."""

    when: Annotated[dict[str, Any], Length(min=1)]
    """Matrix variables and a value of each: the cases it is for (``{dtype: bfloat8_b}``)."""
    profiles: Optional[dict[ProfileRef, Optional[ProfileExpect]]] = None
    """Each over the block's entry of that name; null drops it."""
    tensors: Optional[dict[Name, Optional[TensorExpect]]] = None
    """Each over the block's expectation of that tensor; null drops it (a case that makes no such tensor)."""


class Expect(Typed):
    profiles: Optional[dict[ProfileRef, ProfileExpect]] = None
    """Per profile name; ``default`` applies to every profile not named."""
    tensors: Optional[dict[Name, TensorExpect]] = None
    """Expected records at the end of the run, under every profile."""
    cases: Optional[list[CaseExpect]] = None
    """With a ``matrix``: what some cases expect otherwise, ``[{when: {dtype: float32}, tensors: ...}]``."""


SystemName = Annotated[str, Schema({"enum": list(SYSTEMS) + list(SYSTEM_ALIASES)})]
MeshShape = Annotated[list[Dim], Length(min=1, max=4)]


class SystemMesh(Typed):
    """A system opened with a mesh shape, as ``open_mesh_device(MeshShape(...))`` on it."""

    system: SystemName
    shape: Optional[MeshShape] = None
    """The mesh shape to open; the system's own when left out."""


class HostsSpec(Typed):
    """``hosts: {topology: [1, 2], rank: 1}``: the mesh spread over several hosts, as a mesh graph
    descriptor's ``host_topology { dims: [1, 2] }`` says, and the host this scenario runs as
    (docs/semantics.md section 15)."""

    topology: Annotated[list[Dim], Length(min=2, max=2)]
    """The host grid: the mesh is cut into that many equal blocks, one a host."""
    rank: Annotated[int, Range(ge=0)]
    """The host this scenario runs as; ranks are row-major over the host grid."""


def _profile_definition() -> type[Typed]:
    """``{base: current, <rule>: <choice>, era: "..."}``: a profile that changes rules of another;
    one optional field per rule of :data:`meshspec.sim.profiles.RULES` (derived from it)."""
    from ..sim.profiles import RULES

    notes = {"base": ProfileRef, "era": Optional[str]}
    fields: dict[str, Any] = {"base": None, "era": None}
    for name, rule in RULES.items():
        notes[name] = Optional[Literal[tuple(c.value for c in rule.choices)]]  # type: ignore[misc]
        fields[name] = None
    del fields["base"]
    return type("ProfileDefinition", (Typed,), {"__annotations__": notes, "__module__": __name__, **fields,
                "__doc__": "A profile that is ``base`` with some rules changed (meshspec profiles lists them)."})


ProfileDefinition = _profile_definition()


def _version(v: Any) -> Any:
    if isinstance(v, bool) or not isinstance(v, int):
        raise ValueError(f"the format version is the number 1, got {v!r}")
    return v


class Scenario(Typed):
    """A whole scenario file, format version 1."""

    meshspec: Annotated[Literal[1], Before(_version)]
    """Format version."""
    name: Optional[str] = None
    description: Optional[str] = None
    mesh: tagged(
        {"Name": SystemName, "Shape": MeshShape, "System": SystemMesh},
        lambda v: "Name" if isinstance(v, str) else "Shape" if isinstance(v, list) else "System" if isinstance(v, dict) else None,
        "a system name like t3k, a mesh shape like [2, 4] (1 to 4 dims), or {system: t3k, shape: [1, 8]}",
    )
    """A system name (its default mesh), a bare shape like [2, 4] (Wormhole chips), or a system
    opened with a shape: {system: t3k, shape: [1, 8]}."""
    profile: Optional[tagged(
        {"Name": ProfileRef, "Definition": ProfileDefinition},
        lambda v: "Name" if isinstance(v, str) else "Definition" if isinstance(v, dict) else None,
        f"a profile's name ({NAME_HELP.split(': ', 1)[1]}), or a definition like {{base: current, copy: exact}}",
    )] = None  # type: ignore[valid-type]
    """A profile's name (meshspec's, or one ``profiles`` defines), or a definition: {base: current, copy: exact}."""
    profiles: Optional[dict[ProfileName, ProfileDefinition]] = None  # type: ignore[valid-type]
    """Profiles of the scenario's own, by name: each {base: NAME, <rule>: <choice>}; --profile all runs them too."""
    hosts: Optional[HostsSpec] = None
    """The mesh spread over several hosts, and the one this scenario runs as: {topology: [1, 2], rank: 1}."""
    matrix: Optional[dict[Annotated[str, Pattern(r"[a-z_][a-z0-9_]{0,31}", "a matrix variable: lower-case letters, digits and _")],
                          Annotated[list[Any], Length(min=1)]]] = None
    """One case per combination of the values (``pytest.mark.parametrize``): ``{dtype: [bfloat16, float32]}``;
    a value written ``$dtype`` stands for the case's. At most 64 cases (meshspec/scenario/matrix.py)."""
    data: Literal["full", "none"] = "full"
    """``none``: metadata mode (shapes, records and written pages only; no values, no buffers)."""
    steps: Annotated[list[Step], Length(min=1)]
    expect: Optional[Expect] = None
    """What a correct run records, per profile (see `meshspec check`)."""


def step_op(step: Typed) -> str:
    """The op name of a validated step."""
    return type(step).op  # type: ignore[attr-defined]


def step_args(step: Typed) -> Typed:
    return getattr(step, step_op(step))


def all_types() -> dict[str, type[Typed]]:
    """Every typed class a scenario can hold, by class name: the scenario's own and every op's."""
    import sys

    from ..sim.ops import fields

    modules = [sys.modules[__name__], fields] + [sys.modules[op.args.__module__] for op in OPS.values()]
    return {
        name: obj
        for module in modules
        for name, obj in vars(module).items()
        if isinstance(obj, type) and issubclass(obj, Typed) and obj is not Typed
    }
