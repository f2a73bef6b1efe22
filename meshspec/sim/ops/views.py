"""Shape ops on device mesh tensors: ``ttnn.squeeze``, ``ttnn.unsqueeze``, ``ttnn.reshape``,
``ttnn.view``, ``ttnn.permute``
(docs/semantics.md section 12).

Each device's data is computed with numpy from what that device holds, so a device that holds
the wrong data passes it on. The output's topology is the era's
:class:`~meshspec.sim.profiles.OpTopology`: ttnn 0.81.1's default imputation keeps the input's
placements as they are, whatever the op does to the dims (ttnn/core/device_operation_detail.cpp,
PR #29899; issue #52331: ``squeeze(t, 0)`` keeps ``PlacementShard(3)`` on a rank-3 tensor,
``permute`` keeps ``Shard(3)`` on a dim that moved); the reference renumbers them as the data
moved. The data's own distribution is kept with the output (``Record.truth``), and
``topology_stale`` says where the topology disagrees with it.

>>> renumber_squeeze((Shard(3),), 4, 0)
(Shard(dim=2),)
>>> renumber_permute((Shard(3), Replicate()), (0, 1, 3, 2))
(Shard(dim=2), Replicate())
"""

from __future__ import annotations

import math
from typing import Annotated, Callable, Optional

import numpy as np

from ...errors import TTFatal
from ...typed import Length, Range, Typed
from ..placement import Placement, Replicate, Shard, Topology, as_label, has_partial  # noqa: F401 - Replicate: the docstring example
from ..profiles import OpTopology
from ..runtime import Runtime
from ..spec import make_spec
from ..tensor import DeviceTensor, HostShard, Record
from .base import Op, TensorKind, Use
from .fields import As, Name


class Squeeze(Typed):
    """``ttnn.squeeze(tensor, dim)``."""

    tensor: Name
    dim: Annotated[int, Range(ge=-8, le=7)]
    as_: As


class Unsqueeze(Typed):
    """``ttnn.unsqueeze(tensor, dim)``."""

    tensor: Name
    dim: Annotated[int, Range(ge=-9, le=8)]
    as_: As


class ReshapeTensor(Typed):
    """``ttnn.reshape(tensor, shape)``: ``shape`` is each device's (a mesh tensor's shape is its shard's)."""

    tensor: Name
    shape: Annotated[list[Annotated[int, Range(ge=1, le=2**31)]], Length(min=1, max=8)]
    as_: As


class Permute(Typed):
    """``ttnn.permute(tensor, dims)``."""

    tensor: Name
    dims: Annotated[list[Annotated[int, Range(ge=-8, le=7)]], Length(min=1, max=8)]
    as_: As


def _dim(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


def renumber_squeeze(placements: tuple[Placement, ...], rank: int, dim: int) -> tuple[Placement, ...]:
    """Placements after removing ``dim`` from a rank-``rank`` tensor (the data's real layout)."""
    dim = _dim(dim, rank)
    return tuple(Shard(_dim(p.dim, rank) - (_dim(p.dim, rank) > dim)) if isinstance(p, Shard) else p for p in placements)


def renumber_unsqueeze(placements: tuple[Placement, ...], rank: int, dim: int) -> tuple[Placement, ...]:
    dim = _dim(dim, rank + 1)
    return tuple(Shard(_dim(p.dim, rank) + (_dim(p.dim, rank) >= dim)) if isinstance(p, Shard) else p for p in placements)


def renumber_permute(placements: tuple[Placement, ...], dims: tuple[int, ...]) -> tuple[Placement, ...]:
    rank = len(dims)
    order = [_dim(d, rank) for d in dims]
    return tuple(Shard(order.index(_dim(p.dim, rank))) if isinstance(p, Shard) else p for p in placements)


def renumber_reshape(placements: tuple[Placement, ...], old: tuple[int, ...], new: tuple[int, ...]) -> Optional[tuple[Placement, ...]]:
    """Placements after a reshape: a shard dim among the trailing dims the reshape keeps as they
    are moves with them (merging or splitting leading dims leaves it whole); otherwise, where the
    reshape only adds or drops size-1 dims, each dim keeps its place among those of size > 1; None
    for any other reshape (the data's layout then has no simple label).

    >>> renumber_reshape((Shard(3),), (1, 1, 32, 32), (1, 32, 32))
    (Shard(dim=2),)
    >>> renumber_reshape((Shard(3),), (1, 2, 40, 32), (80, 32))
    (Shard(dim=1),)
    """
    kept = 0  # how many trailing dims are the same in both
    while kept < min(len(old), len(new)) and old[-1 - kept] == new[-1 - kept]:
        kept += 1
    dims = [_dim(p.dim, len(old)) for p in placements if isinstance(p, Shard)]
    if dims and all(d >= len(old) - kept for d in dims):
        return tuple(Shard(_dim(p.dim, len(old)) - len(old) + len(new)) if isinstance(p, Shard) else p for p in placements)
    big_old = [i for i, n in enumerate(old) if n != 1]
    big_new = [i for i, n in enumerate(new) if n != 1]
    if [old[i] for i in big_old] != [new[i] for i in big_new]:
        return None
    out = []
    for p in placements:
        if not isinstance(p, Shard):
            out.append(p)
            continue
        d = _dim(p.dim, len(old))
        if d not in big_old:
            return None
        out.append(Shard(big_new[big_old.index(d)]))
    return tuple(out)


def _bytes(spec) -> tuple[int, int]:
    """A device's buffer size for ``spec`` (then its page count): the widest of several specs."""
    return spec.num_pages * spec.aligned_page_size, spec.num_pages


def per_device(rt: Runtime, a, name: str, fn: Callable[[np.ndarray], np.ndarray], shape_of: Callable[[tuple], tuple],
               placements_of: Callable[[tuple[Placement, ...], int], tuple[Placement, ...]], view: bool = False,
               linear: bool = True) -> None:
    """A device op: each recorded device's output computed from what it holds; the output on the
    same devices, its topology by the era's rule, its data's real distribution kept with it.
    ``view``: no data moves (a size-1 leading dim added or removed): the output is a view on the
    input's buffer, as ttnn 0.81.1's squeeze and unsqueeze are (the same address, observed), and
    deallocating either frees both. ``linear``: the op keeps partial sums partial (a nonlinear
    one, exp of a partial sum, leaves data no layout describes)."""
    src = rt.device(a.tensor)
    rec = src.record
    mesh = rt.mesh_of(src)
    from .allocate import allocation, unread

    spec_in = rec.spec
    out_spec = make_spec(shape_of(tuple(spec_in.shape)), spec_in.dtype, spec_in.layout, spec_in.tile, spec_in.memory, spec_in.arch)
    rank = len(spec_in.shape)
    topo = rec.topology
    real = rec.layout()  # the data's layout, when an op made the input
    if real is not None and not linear and has_partial(real):
        real = None
    moved = placements_of(real.placements, rank) if real is not None else None
    truth = Topology(real.distribution_shape, moved if moved is not None else real.placements, real.coords) if real is not None else None
    exact = rt.profile.op_topology is OpTopology.EXACT and truth is not None
    label = as_label(truth) if exact else Topology(topo.distribution_shape, topo.placements, topo.coords)
    judged = (truth, rt.step, rt.op) if moved is not None or (real is None and rec.truth is not None) else None
    if view:
        specs = {c: make_spec(shape_of(tuple(s.shape)), s.dtype, s.layout, s.tile, s.memory, s.arch) for c, s in rec.specs.items()}
        record = Record(out_spec, label, specs, tuple(rec.recorded), {c: rt.step for c in rec.specs})
        record.truth = judged
        rt.bind(name, DeviceTensor(name, rt.step, src.buffer, record, src.mesh, src.span))
        return
    shards = {}
    for c in tuple(rec.recorded):
        spec_c = rec.specs.get(c)
        if spec_c is None:
            continue
        held = src.buffer.read(c, spec_c) if rt.with_data else None
        values = fn(held) if held is not None else None
        shape_c = shape_of(tuple(spec_c.shape))
        s = make_spec(shape_c, spec_c.dtype, spec_c.layout, spec_c.tile, spec_c.memory, spec_c.arch)
        shards[c] = HostShard(c, s, values if values is not None else unread(rt, s), (0,) * len(shape_c))
    # the buffer holds the widest device's output: a record can claim more than its tensor's spec,
    # more pages (TILE) or wider ones (ROW_MAJOR: a page is a row), so widest is by bytes
    widest = max([out_spec, *(sh.spec for sh in shards.values())], key=_bytes)
    out = allocation(rt, widest if _bytes(widest) > _bytes(out_spec) else out_spec, mesh, name, label)
    out.record.spec = out_spec
    out.record.recorded = tuple(shards)
    out.record.specs = {c: sh.spec for c, sh in shards.items()}
    from .creation import _plain

    host = _plain(rt, f"{name}.{a.tensor}", out_spec, None)
    rt.write(out, host, shards)
    out.record.truth = judged
    out.record.sources = {c: ((src, a.tensor, c),) for c in shards}
    rt.bind(name, out)


def squeeze(rt: Runtime, a: Squeeze) -> None:
    shape = tuple(rt.device(a.tensor).record.spec.shape)
    dim = _dim(a.dim, len(shape))
    if not 0 <= dim < len(shape):
        raise TTFatal(f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], but got {a.dim})")
    squeezed = (lambda s: s[:dim] + s[dim + 1 :]) if shape[dim] == 1 else (lambda s: s)
    per_device(rt, a, a.as_, lambda v: v.reshape(squeezed(v.shape)), squeezed,
               lambda p, r: renumber_squeeze(p, r, dim) if shape[dim] == 1 else p, view=dim < len(shape) - 2 or shape[dim] != 1)


def unsqueeze(rt: Runtime, a: Unsqueeze) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    dim = _dim(a.dim, rank + 1)
    if not 0 <= dim <= rank:
        raise TTFatal(f"Dimension out of range (expected to be in range of [{-rank - 1}, {rank}], but got {a.dim})")
    per_device(rt, a, a.as_, lambda v: np.expand_dims(v, dim), lambda s: s[:dim] + (1,) + s[dim:],
               lambda p, r: renumber_unsqueeze(p, r, dim), view=dim <= rank - 2)


def reshape(rt: Runtime, a: ReshapeTensor) -> None:
    """A view when the tiles stay as they are (TILE layout, the last two dims unchanged: ttnn's
    view() keeps the storage and the topology, ttnn/core/tensor/tensor_ops.cpp @ c2aaf71d), so
    deallocating either frees both (issue #31145); else each device's data copied reshaped."""
    spec = rt.device(a.tensor).record.spec
    old, new = tuple(spec.shape), tuple(a.shape)
    if math.prod(old) != math.prod(new):
        raise TTFatal(f"Invalid arguments to reshape: {list(old)} has {math.prod(old)} elements, {list(new)} has {math.prod(new)}")
    view = spec.layout.value == "tile" and old[-2:] == new[-2:] if len(new) >= 2 and len(old) >= 2 else False
    per_device(rt, a, a.as_, lambda v: v.reshape(new), lambda s: new if s == old else s,
               lambda p, r: renumber_reshape(p, old, new), view=view)


def view(rt: Runtime, a: ReshapeTensor) -> None:
    """``ttnn.view``: always a view on the same buffer (the same address and label, observed), so
    only a shape with the same last dim, and in TILE layout the same second-last dim, is allowed:
    the tiles cannot move (ttnn 0.81.1's words for each refusal: tests/golden views)."""
    spec = rt.device(a.tensor).record.spec
    old, new = tuple(spec.shape), tuple(a.shape)
    if math.prod(old) != math.prod(new):
        raise TTFatal(f"Invalid arguments to reshape: {list(old)} has {math.prod(old)} elements, {list(new)} has {math.prod(new)}")
    if old[-1] != new[-1]:
        raise TTFatal(f"The last dimension can not change in view, attempting to change last dimension from {old[-1]} to {new[-1]}, "
                      "use reshape instead")
    if spec.layout.value == "tile" and len(old) >= 2 and len(new) >= 2 and old[-2] != new[-2]:
        raise TTFatal(f"Invalid second last dims for TILED reshape, from {old[-2]} to {new[-2]}, use reshape instead")
    per_device(rt, a, a.as_, lambda v: v.reshape(new), lambda s: new if s == old else s, lambda p, r: renumber_reshape(p, old, new), view=True)


def permute(rt: Runtime, a: Permute) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    order = tuple(_dim(d, rank) for d in a.dims)
    if sorted(order) != list(range(rank)):
        raise TTFatal(f"permute: dims {list(a.dims)} are not a permutation of the tensor's {rank} dims")
    per_device(rt, a, a.as_, lambda v: np.ascontiguousarray(np.transpose(v, order)), lambda s: tuple(s[d] for d in order),
               lambda p, r: renumber_permute(p, order))


OPS = (
    Op("squeeze", Squeeze, squeeze, "Remove a size-1 dim on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.squeeze(tensor, dim)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
    Op("unsqueeze", Unsqueeze, unsqueeze, "Add a size-1 dim on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.unsqueeze(tensor, dim)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
    Op("reshape", ReshapeTensor, reshape, "Reshape each device's tensor; a view on the same buffer when the tiles stay (deallocating either frees both).",
       "ttnn.reshape(tensor, shape)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
    Op("view", ReshapeTensor, view, "A view on the same buffer with another shape (the last dim, and in TILE the second-last, unchanged).",
       "ttnn.view(tensor, shape)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
    Op("permute", Permute, permute, "Reorder the dims on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.permute(tensor, dims)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
)
