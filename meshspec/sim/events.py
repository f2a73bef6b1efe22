"""What a step leaves behind for the judge: events the runtime records as it executes.

The runtime never judges; it notes what happened (a composition, a use after free, a tensor
going away) with the objects involved, and the judge (meshspec/judge) turns events into findings.
"""

from __future__ import annotations

from ..frozen import Frozen
from typing import TYPE_CHECKING, Optional, Union

if TYPE_CHECKING:
    from .compose import Composition
    from .tensor import DeviceTensor, HostTensor, Tensor


class Composed(Frozen):
    """``to_torch``: ``host``'s shards were composed (which ones, and where they went: ``composition``)."""

    step: int
    name: str
    """The tensor named in the step."""
    host: "HostTensor"
    """The host tensor composed (read back first when the step named a device tensor)."""
    composition: "Composition"
    device: Optional["DeviceTensor"] = None
    """The device tensor read back, when the step named one."""
    composer: str = ""
    """The composer as the step wrote it, for messages."""


class UseAfterFree(Frozen):
    """A deallocated tensor was used (the step fails: the real library crashes)."""

    step: int
    op: str
    name: str
    message: str


class DoubleFree(Frozen):
    """A deallocated tensor was deallocated again (ttnn ignores it)."""

    step: int
    name: str
    message: str


class Retired(Frozen):
    """A tensor went away (deallocated, or its name rebound); its lies are kept as they stood."""

    step: int
    name: str
    tensor: "Tensor"
    why: str


class Shown(Frozen):
    """A call showed a tensor's shards to the user (``to_string``, ``visualize_tensor``): which
    shard it showed under which coordinate, and what it read to do so (docs/semantics.md section 15)."""

    step: int
    op: str
    name: str
    shown: tuple
    """``(coordinate shown, coordinate whose shard it is)`` per shard shown, in order."""
    held: tuple
    """The coordinates of the shards this host holds that the call had to show."""
    local: Optional[frozenset]
    """The tensor's coordinates this host owns (None: one host owns them all)."""
    reads: tuple = ()
    """What the call read (:class:`~meshspec.sim.tensor.Read`), device by device."""
    contents: tuple = ()
    """What each of ``held`` held when read, in its order, for the judge to tell whether a shard
    shown under another coordinate is that coordinate's data too (a replica): the values read (data
    mode), or the write holding the content and its shard's offset in the source (metadata mode);
    None: not known. Empty: nothing was read."""


class Loaded(Frozen):
    """``load_tensor`` or an ``as_tensor`` cache hit gave ``name`` the shards of ``file``: for each
    device (or host shard) of it, the coordinate of the dumped shard it holds."""

    step: int
    name: str
    file: str
    dumped: "HostTensor"
    """The tensor the file was dumped from, as it was then."""
    held: tuple
    """((coordinate of the loaded tensor, coordinate of the dumped shard it holds), ...)."""
    why: str = ""
    """How the file or the load came to give fewer shards than were dumped ("": it did not)."""


Event = Union[Composed, UseAfterFree, DoubleFree, Retired, Shown, Loaded]
