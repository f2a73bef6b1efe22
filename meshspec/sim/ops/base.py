"""What an op is: one TT-NN call, defined once.

An :class:`Op` holds everything about a call: its arguments model (the scenario step's fields,
named as ttnn names them), the tensors it uses and binds, its handler, and its one-line doc. The
registry (:data:`meshspec.sim.ops.OPS`) is the only list of ops; the loader's name checks, the
runner's touched sets, the scenario schema, ``meshspec explain`` and docs/ttnn-spelling.md's step table are
all derived from it.
"""

from __future__ import annotations

import enum
from functools import cached_property
from ...frozen import Frozen
from typing import TYPE_CHECKING, Any, Callable, Optional

from ...typed import Typed, may_hold_record

if TYPE_CHECKING:
    from ..runtime import Runtime


class TensorKind(str, enum.Enum):
    """What a name an op uses or binds stands for: a tensor where it lives, or a mesh device."""

    HOST = "host"
    DEVICE = "device"
    ANY = "any"
    MESH = "mesh"


class Use(Frozen):
    """A field naming a tensor (or mesh device) the op reads or writes, and the kind it must be."""

    field: str
    """The argument's Python name (``as_`` for ``as``)."""
    kind: TensorKind
    many: bool = False
    """Uses: the field is a list of names (a list's name stands for its items). Binds: the name
    is bound to a list (``parts``, then ``parts[0]``, ``parts[1]`` ...), as long as the run makes."""


#: Arguments real ttnn calls take that no step has, and what a scenario writes instead.
TTNN_ARGUMENTS: dict[str, str] = {
    "mesh_device": "this step runs where its tensors are (the top-level `mesh:`, or a submesh they were put on); drop it",
    "device": "this step runs where its tensors are (the top-level `mesh:`, or a submesh they were put on); drop it",
    "memory_config": "write `memory: dram` or `memory: l1` (interleaved)",
    "cq_id": "command queues are not simulated; drop it",
    "queue_id": "command queues are not simulated; drop it",
    "blocking": "every step completes before the next; drop it",
}


def _nested_meshes(value: Any, depth: int = 0) -> list[tuple[str, str]]:
    """``(dotted YAML path, name)`` of every ``mesh_device`` set inside a step argument's models."""
    if not isinstance(value, Typed) or depth > 4:
        return []
    out = []
    for name, key in _mesh_fields(type(value)):
        inner = getattr(value, name)
        if name == "mesh_device" and depth > 0 and isinstance(inner, str):
            out.append((key, inner))
        elif inner is not None and not isinstance(inner, (str, int, float, list, tuple)):
            out.extend((f"{key}.{path}", name) for path, name in _nested_meshes(inner, depth + 1))
    return out


_MESH_FIELDS: dict[type, tuple[tuple[str, str], ...]] = {}


def _mesh_fields(cls: type[Typed]) -> tuple[tuple[str, str], ...]:
    """``(name, key)`` of each field of ``cls`` a mesh device can be named in, in declared order:
    ``mesh_device``, and each whose value may be a record (:func:`may_hold_record`). The others
    (shapes, dtypes, names: most of a step's) are never looked at: a small scenario's names were
    looked for in 40 of its fields, and in its mapper's and composer's, which name none (31 K instructions less)."""
    found = _MESH_FIELDS.get(cls)
    if found is None:
        found = _MESH_FIELDS[cls] = tuple(
            (f.name, f.key) for f in cls.fields().values()
            if f.name == "mesh_device" or may_hold_record(f.type) or isinstance(f.default, Typed)
        )
    return found


class Op(Frozen):
    name: str
    """The ttnn function name, which is also the step's key in a scenario."""
    args: type["Typed"]
    """The arguments model; its fields are the step's keys."""
    run: Callable[["Runtime", Any], None]
    """Executes the op on a runtime, for validated arguments."""
    doc: str
    """One line: what the call does."""
    ttnn: str
    """The ttnn code the step stands for, as a user would write it."""
    uses: tuple[Use, ...] = ()
    binds: Optional[Use] = None
    """The field naming the tensor the op creates (``as``), and its kind; may be left out when
    optional in the arguments."""
    hints: tuple[tuple[str, str], ...] = ()
    """Real ttnn arguments of this call that its step spells otherwise: (argument, what to write)."""
    kind_of: Optional[Callable[[Any], TensorKind]] = None
    """The kind of what the step binds, when its arguments decide it (from_torch with a device)."""
    follows: Optional[str] = None
    """The field naming the tensor whose kind the bound one takes, when the op runs where its input
    is (to_layout of a host tensor is a host op, of a device tensor a device op: section 18)."""
    fabric: bool = False
    """Whether the op moves data between chips over the fabric (a collective): an exported script
    sets the fabric up before the mesh opens, as tt-metal's tests do (docs/semantics.md section 10)."""
    captured: bool = True
    """Whether a step of it run while a trace is captured joins the trace (``execute_trace`` runs it
    again): not the trace steps themselves, nor host transfers, allocations and host ops, which a
    trace of device programs cannot hold."""
    export: Optional[Callable[[Any, Any], list[str]]] = None
    """The lines of Python on the real ttnn API a step of it stands for (``meshspec export``):
    ``export(args, ctx)``, ``ctx`` naming the script's variables (meshspec/sim/ops/exporting.py);
    every op has one (tests/bridge/test_export.py)."""
    generate: Optional[Callable[[Any, Any, str], Optional[dict]]] = None
    """How ``meshspec hunt`` writes a step of it on what its program made so far: ``generate(rng,
    st, op)`` gives the step as a scenario writes it, or None when nothing it needs exists yet
    (meshspec/sim/ops/generating.py); None: hunt never writes it."""
    fault_site: bool = False
    """Whether a step of it writes a host tensor into device memory where a fault is injected
    (meshspec/sim/faults.py): hunt injects it at a program's first such step."""
    only_makes: bool = False
    """Whether the step only makes new tensors, leaving every other tensor's records as they were:
    ``meshspec record`` reuses their last report (after any other step it reads every one again,
    since the step may change a handle's shared storage)."""

    def bound_kind(self, args: Any) -> TensorKind:
        assert self.binds is not None
        return self.kind_of(args) if self.kind_of is not None else self.binds.kind

    def hint(self, key: str) -> Optional[str]:
        """What to write instead of ``key``, a ttnn argument the step does not take, if it is one."""
        own = dict(self.hints).get(key)
        if own is None and key in ("mesh_device", "device"):
            other = "device" if key == "mesh_device" else "mesh_device"
            if other in self.fields:  # to_device spells it device:, most steps mesh_device:
                own = f"{self.name} names its mesh device `{other}:`"
        return own or TTNN_ARGUMENTS.get(key)

    def names_used(self, args: Any) -> list[tuple[str, str, TensorKind]]:
        """``(field, name, kind)`` for every tensor or mesh ``args`` names (each item of a list)."""
        out = []
        for u in self.uses:
            value = getattr(args, u.field)
            if value is None:
                continue  # an optional mesh_device: the scenario's own
            for name in value if isinstance(value, list) else [value]:
                out.append((u.field, name, u.kind))
        used = self._use_fields
        for key, _ in _mesh_fields(type(args)):  # a mapper's or composer's own mesh_device: {mesh_mapper: {ShardTensorToMesh: {mesh_device: m}}}
            value = getattr(args, key)
            if key not in used and isinstance(value, Typed):  # only a record holds a nested mesh_device
                nested = _nested_meshes(value)
                if nested:  # most mappers name none: no generator made for nothing
                    out.extend((f"{key}.{path}", name, TensorKind.MESH) for path, name in nested)
        return out

    @cached_property
    def _use_fields(self) -> frozenset[str]:
        return frozenset(u.field for u in self.uses)

    @cached_property
    def list_fields(self) -> frozenset[str]:
        """The fields of its uses that take a list of names (the first use of a field says)."""
        first: dict[str, bool] = {}
        for u in self.uses:
            first.setdefault(u.field, u.many)
        return frozenset(f for f, many in first.items() if many)

    def bound(self, args: Any) -> Optional[str]:
        """The name ``args`` binds, if any."""
        return getattr(args, self.binds.field) if self.binds is not None else None

    def touched(self, args: Any, used: Optional[tuple] = None) -> tuple[str, ...]:
        """Every tensor name the step mentions, uses first, in field order (meshes are not tensors).
        ``used``: :meth:`names_used` of ``args``, if the caller has it."""
        names = {}  # in a loop, not a list, a generator and dict.fromkeys: 22 K instructions less a small scenario
        for _, name, kind in self.names_used(args) if used is None else used:
            if kind is not TensorKind.MESH and name:
                names[name] = None  # a name seen before keeps its first place
        if self.binds is not None and self.binds.kind is not TensorKind.MESH:
            name = self.bound(args)
            if name:
                names[name] = None
        return tuple(names)

    @property
    def fields(self) -> list[str]:
        """The step's keys, as a scenario writes them."""
        return self.args.keys()
