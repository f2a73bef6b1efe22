"""One step on the simulator, and what it did: a typed result, not tuples matched by position.

:func:`meshspec.sim.ops.execute` runs a step's op on the runtime, keeps it in the trace being
captured if there is one (a captured program is replayed by ``execute_trace``:
meshspec/sim/ops/trace.py), and returns a :class:`StepResult`: the device tensors it wrote (per device, the bytes), the ones it read back
to the host, the names it touched and the events it left for the judge. When the op fails, the
result of what it did before failing is the runtime's :attr:`~meshspec.sim.runtime.Runtime.last`.

>>> Wrote("t", {(0, 0): 2048}).devices
((0, 0),)
"""

from __future__ import annotations

from typing import Any, Mapping

from ..frozen import Frozen

class Wrote(Frozen):
    """A write into a device tensor: the bytes each device got."""

    tensor: str
    sizes: Mapping[tuple[int, ...], int]

    @property
    def devices(self) -> tuple[tuple[int, ...], ...]:
        return tuple(self.sizes)


class ReadBack(Frozen):
    """A read of a device tensor back to the host (``cpu``, ``to_torch``): the devices read."""

    tensor: str
    devices: tuple[tuple[int, ...], ...]


class StepResult(Frozen):
    """What one step did, in the order it did it."""

    index: int
    op: str
    writes: tuple[Wrote, ...] = ()
    reads: tuple[ReadBack, ...] = ()
    touched: frozenset = frozenset()
    """The names whose tensors it made, changed, freed or rebound."""
    events: tuple[Any, ...] = ()
    """What the judge must see (meshspec/sim/events.py), in order."""
