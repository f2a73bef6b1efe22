"""Calls that show a tensor to the user: printing it (``to_string``) and ``ttnn.visualize_tensor``.

Neither makes a tensor. Printing reads the shards this host holds (``tensor.cpu()`` first) through
:func:`~meshspec.sim.ops.output.read`, and both leave a :class:`~meshspec.sim.events.Shown`
event saying which shard they showed under which coordinate, for the judge. On one host every
coordinate is local and both show every recorded device under its own coordinate. On a mesh
spread over several hosts (docs/semantics.md section 15):

- ``to_string`` visits the shards this host holds in ascending flat index
  (``DistributedHostBuffer::apply``) and the tensor's coordinates (``get_coords()``, every one).
  The era's rule (``print_coords``) says how it pairs them: ``own``, each shard under its own
  coordinate (PR #52708); ``prefix``, the i-th shard under the i-th coordinate, shown only when
  that coordinate is local (ttnn/core/tensor/tensor_impl.cpp before PR #52708, issue #48267).
- ``visualize_tensor`` walks every coordinate of the mesh; the rule ``visualize_remote`` says
  whether it asks a remote one for its device id (``fatal``: TT_FATAL, issue #35441) or marks it
  Remote, Unknown ID (``marked``: PR #35464). It reads no device memory.
"""

from __future__ import annotations

from ...errors import TTFatal
from ...typed import Typed
from ..events import Shown
from ..mesh import Coord, ttnn_shape
from ..profiles import PrintCoords, VisualizeRemote
from ..runtime import Runtime
from ..tensor import DeviceTensor
from .base import Op, TensorKind, Use
from .fields import Name
from .output import read


class ToString(Typed):
    """``print(tensor)`` / ``str(tensor)``: ``Tensor.__repr__``, which is ``ttnn::to_string``."""

    tensor: Name


class VisualizeTensor(Typed):
    """``ttnn.visualize_tensor(tensor)``: the mesh as a table, each device's shard in its cell."""

    tensor: Name


def paired(held: tuple[Coord, ...], spans: tuple[Coord, ...], local, rule: PrintCoords) -> tuple[tuple[Coord, Coord], ...]:
    """``(coordinate printed, coordinate whose shard it is)`` for each shard ``to_string`` prints:
    ``held`` the shards this host holds (ascending flat index), ``spans`` every coordinate the
    tensor spans, ``local(c)`` whether this host owns ``c``.

    On host 1 of a T3K split over hosts [1, 2] (it owns columns 2 and 3), a tensor on all 8:

    >>> held = ((0, 2), (0, 3), (1, 2), (1, 3))
    >>> spans = tuple((r, c) for r in range(2) for c in range(4))
    >>> paired(held, spans, lambda c: c[1] >= 2, PrintCoords.PREFIX)
    (((0, 2), (1, 2)), ((0, 3), (1, 3)))
    >>> len(paired(held, spans, lambda c: c[1] >= 2, PrintCoords.OWN))
    4
    """
    if rule is PrintCoords.OWN:
        return tuple((c, c) for c in held)
    return tuple((at, whose) for at, whose in zip(spans, held) if local(at))


def host_shards(rt: Runtime, t) -> tuple[Coord, ...]:
    """The shards of host tensor ``t`` this process holds: all on one host; on several, those of
    its own devices (a DistributedHostBuffer holds the local shards only, PRs #22653 and #22848)."""
    return tuple(sorted(c for c in t.shards if rt.hosts is None or rt.hosts.is_local(c)))


def shown_on_host(rt: Runtime, name: str) -> bool:
    """Show host tensor ``name``, each shard this process holds under its own coordinate (True);
    False for a device tensor, which the caller shows."""
    t = rt.item(name)
    if isinstance(t, DeviceTensor):
        return False
    shards = host_shards(rt, t)
    rt.events.append(Shown(rt.step, rt.op, name, tuple((c, c) for c in shards), shards, None))
    return True


def to_string(rt: Runtime, a: ToString) -> None:
    if shown_on_host(rt, a.tensor):
        return
    dev = rt.device(a.tensor)
    mesh = rt.mesh_of(dev)
    spans = tuple(sorted(c for c in dev.record.recorded if dev.record.specs.get(c) is not None))
    held = tuple(c for c in spans if rt.is_local(mesh, c))
    rt.charge_work(len(held), f"printing {a.tensor}")
    got = tuple(read(rt, dev, a.tensor, c) for c in held)  # tensor.cpu(): the shards this host holds
    reads = tuple(r for _, r in got)
    shown = paired(held, spans, lambda c: rt.is_local(mesh, c), rt.profile.print_coords)
    local = frozenset(held) if rt.hosts is not None else None
    contents = tuple(content(dev, c, values, r) for c, (values, r) in zip(held, got)) if local is not None else ()
    rt.events.append(Shown(rt.step, rt.op, a.tensor, shown, held, local, reads, contents))


def content(dev: DeviceTensor, c: Coord, values, r):
    """What device ``c`` of ``dev`` held when read, in a form the judge compares with another
    device's: the values read; in metadata mode, the write holding its content and where its shard
    starts in the source, when that write reached every page read and says so (two devices given
    the same slice of one write hold the same data); None when neither is known."""
    if values is not None:
        return values
    buffer = dev.buffer
    w = buffer.last_write.get(c)
    if w is None or r.outdated or w.step != buffer.content_step:
        return None
    shard = w.shards.get(c)
    offset = getattr(shard, "offset", None)
    return (w, tuple(offset)) if offset is not None else None


def visualize_tensor(rt: Runtime, a: VisualizeTensor) -> None:
    if shown_on_host(rt, a.tensor):
        return
    dev = rt.device(a.tensor)
    mesh = rt.mesh_of(dev)
    rt.charge_work(len(mesh.coords), f"visualizing {a.tensor} (every coordinate of the mesh)")
    remote = [c for c in mesh.coords if not rt.is_local(mesh, c)]
    if remote and rt.profile.visualize_remote is VisualizeRemote.FATAL:
        raise TTFatal(
            f"Cannot get device for remote device at coordinate {ttnn_shape(remote[0], 'MeshCoordinate')} "
            "(visualize_tensor asks every coordinate of the mesh for its device id, remote ones too: "
            "ttnn/ttnn/distributed/distributed.py before PR #35464, issue #35441)"
        )
    held = tuple(sorted(c for c in dev.record.recorded if dev.record.specs.get(c) is not None and rt.is_local(mesh, c)))
    local = frozenset(held) if rt.hosts is not None else None
    rt.events.append(Shown(rt.step, rt.op, a.tensor, tuple((c, c) for c in held), held, local))


def _export_to_string(a, ctx):
    return [f"show({ctx.var(a.tensor)})"]


def _export_visualize_tensor(a, ctx):
    return [f"ttnn.visualize_tensor({ctx.var(a.tensor)})"]


OPS = (
    Op("to_string", ToString, to_string,
       "Print a tensor (Tensor.__repr__): the shards this host holds, each under a coordinate (on several hosts, by the era's print_coords).",
       "print(tensor)  # ttnn::to_string", uses=(Use("tensor", TensorKind.ANY),), export=_export_to_string),
    Op("visualize_tensor", VisualizeTensor, visualize_tensor,
       "The mesh as a table of shards; on several hosts a remote cell is marked, or fatal, by the era's visualize_remote.",
       "ttnn.visualize_tensor(tensor)", uses=(Use("tensor", TensorKind.ANY),), export=_export_visualize_tensor),
)
