"""What an op is: one TT-NN call, defined once.

An :class:`Op` holds everything about a call: its arguments model (the scenario step's fields,
named as ttnn names them), the tensors it uses and binds, its handler, and its one-line doc. The
registry (:data:`meshspec.sim.ops.OPS`) is the only list of ops; the loader's name checks, the
runner's touched sets, the scenario schema, ``meshspec explain`` and the README's step table are
all derived from it.
"""

from __future__ import annotations

import enum
from ...frozen import Frozen
from typing import TYPE_CHECKING, Any, Callable, Optional

if TYPE_CHECKING:
    from ...typed import Typed
    from ..runtime import Runtime


class TensorKind(str, enum.Enum):
    """Where a tensor an op uses or binds lives."""

    HOST = "host"
    DEVICE = "device"
    ANY = "any"


class Use(Frozen):
    """A field naming a tensor the op reads or writes, and the kind it must be."""

    field: str
    """The argument's Python name (``as_`` for ``as``)."""
    kind: TensorKind


#: Arguments real ttnn calls take that no step has, and what a scenario writes instead.
TTNN_ARGUMENTS: dict[str, str] = {
    "mesh_device": "steps run on the scenario's mesh (the top-level `mesh:`); drop it",
    "device": "steps run on the scenario's mesh (the top-level `mesh:`); drop it",
    "memory_config": "write `memory: dram` or `memory: l1` (interleaved)",
    "cq_id": "command queues are not simulated; drop it",
    "queue_id": "command queues are not simulated; drop it",
    "blocking": "every step completes before the next; drop it",
}


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

    def hint(self, key: str) -> Optional[str]:
        """What to write instead of ``key``, a ttnn argument the step does not take, if it is one."""
        return dict(self.hints).get(key) or TTNN_ARGUMENTS.get(key)

    def names_used(self, args: Any) -> list[tuple[str, str, TensorKind]]:
        """``(field, tensor name, kind)`` for every tensor ``args`` uses."""
        return [(u.field, getattr(args, u.field), u.kind) for u in self.uses]

    def bound(self, args: Any) -> Optional[str]:
        """The name ``args`` binds, if any."""
        return getattr(args, self.binds.field) if self.binds is not None else None

    def touched(self, args: Any) -> tuple[str, ...]:
        """Every tensor name the step mentions, uses first, in field order."""
        names = [name for _, name, _ in self.names_used(args)] + [self.bound(args)]
        return tuple(dict.fromkeys(n for n in names if n))

    @property
    def fields(self) -> list[str]:
        """The step's keys, as a scenario writes them."""
        return self.args.keys()
