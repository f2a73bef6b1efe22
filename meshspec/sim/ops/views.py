"""Shape ops on device mesh tensors: ``ttnn.squeeze``, ``ttnn.unsqueeze``, ``ttnn.reshape``,
``ttnn.view``, ``ttnn.permute``
(docs/semantics.md section 12).

Each device's data is computed with numpy from what that device holds, so a device that holds
the wrong data passes it on. The output's topology is the era's
:class:`~meshspec.sim.profiles.OpTopology`: ttnn 0.81.1's default imputation keeps the input's
placements as they are, whatever the op does to the dims (ttnn/core/device_operation_detail.cpp,
PR #29899; issue #52331: ``squeeze(t, 0)`` keeps ``PlacementShard(3)`` on a rank-3 tensor,
``permute`` keeps ``Shard(3)`` on a dim that moved); the reference renumbers them as the data
moved. The data's own distribution is kept with the output (its
:class:`~meshspec.sim.tensor.Provenance`; how each op moves a shard dim is
:mod:`meshspec.sim.imputation`), and ``topology_stale`` says where the topology disagrees with it.
"""

from __future__ import annotations

import math
from typing import Annotated

import numpy as np

from ...errors import TTFatal
from ...typed import Length, Range, Typed
from ..runtime import Runtime
from .. import host_transform
from ..spec import infer_shape
from ..tensor import HostTensor
from ..mesh import volume
from ..dims import dim_index, normal_dim
from ..imputation import renumber_permute, renumber_reshape, renumber_squeeze, renumber_unsqueeze
from .base import Op, TensorKind, Use
from .generating import Step, host_or_device, on_device
from .fields import As, Name
from .output import per_device


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
    """``ttnn.reshape(tensor, shape)``: ``shape`` is each device's (a mesh tensor's shape is its shard's);
    one size may be -1, inferred from the others as ttnn does."""

    tensor: Name
    shape: Annotated[list[Annotated[int, Range(ge=-1, le=2**31)]], Length(min=1, max=8)]
    as_: As


class Permute(Typed):
    """``ttnn.permute(tensor, dims)``."""

    tensor: Name
    dims: Annotated[list[Annotated[int, Range(ge=-8, le=7)]], Length(min=1, max=8)]
    as_: As


def squeeze(rt: Runtime, a: Squeeze) -> None:
    shape = tuple(rt.device(a.tensor).record.spec.shape)
    dim = normal_dim(a.dim, len(shape))
    if dim is None:
        raise TTFatal(f"Dimension out of range (expected to be in range of [{-len(shape)}, {len(shape) - 1}], but got {a.dim})")
    squeezed = (lambda s: s[:dim] + s[dim + 1 :]) if shape[dim] == 1 else (lambda s: s)
    per_device(rt, a, a.as_, lambda v: v.reshape(squeezed(v.shape)), squeezed,
               lambda p, r: renumber_squeeze(p, r, dim) if shape[dim] == 1 else p, view=dim < len(shape) - 2 or shape[dim] != 1)


def unsqueeze(rt: Runtime, a: Unsqueeze) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    dim = normal_dim(a.dim, rank + 1)
    if dim is None:
        raise TTFatal(f"Dimension out of range (expected to be in range of [{-rank - 1}, {rank}], but got {a.dim})")
    per_device(rt, a, a.as_, lambda v: np.expand_dims(v, dim), lambda s: s[:dim] + (1,) + s[dim:],
               lambda p, r: renumber_unsqueeze(p, r, dim), view=dim <= rank - 2)


def _unplaced(old: tuple, new: tuple) -> str:
    return (f"the reshape {list(old)} -> {list(new)} splits or merges the dim it is sharded on with another: no placement "
            "describes its data (composing along any dim interleaves the devices' rows)")


def _global_hint(old: tuple, new: tuple, distribution: tuple) -> str:
    """What a shape of the whole tensor given to reshape means: ttnn.reshape takes each device's
    shape (a mesh tensor's ``shape`` is its shard's), so the global one is refused by volume
    (ttnn 0.81.1, tests/golden userwrites; docs/semantics.md section 21).

    >>> "(8 devices' worth)" in _global_hint((1, 1, 32, 32), (1, 8, 32, 32), (8,))
    True
    >>> _global_hint((1, 1, 32, 32), (1, 1, 32, 64), (1,))
    ''
    """
    ratio, rest = divmod(math.prod(new), max(math.prod(old), 1))
    if rest or ratio <= 1 or ratio > math.prod(distribution):
        return ""
    return (f"; ttnn.reshape takes the shape of each device's shard, {list(old)} here, not of the whole tensor "
            f"({ratio} devices' worth): give a shape of {math.prod(old)} elements, or reshape after to_torch composes it")


def reshape(rt: Runtime, a: ReshapeTensor) -> None:
    """A view when the tiles stay as they are (TILE layout, the last two dims unchanged: ttnn's
    view() keeps the storage and the topology, ttnn/core/tensor/tensor_ops.cpp @ c2aaf71d), so
    deallocating either frees both (issue #31145); else each device's data copied reshaped."""
    t = rt.item(a.tensor)
    if isinstance(t, HostTensor):  # on the host, shard by shard (docs/semantics.md section 18)
        rt.bind(a.as_, host_transform.reshape(rt.op, a.tensor, t, a.as_, rt.step, tuple(a.shape)))
        return
    rec = rt.device(a.tensor).record
    spec = rec.spec
    old = tuple(spec.shape)
    new = infer_shape(math.prod(old), tuple(a.shape))
    if math.prod(old) != math.prod(new):
        raise TTFatal(f"Invalid arguments to reshape: {list(old)} has {math.prod(old)} elements, {list(new)} has {math.prod(new)}"
                      + _global_hint(old, new, rec.topology.distribution_shape))
    view = spec.layout.value == "tile" and old[-2:] == new[-2:] if len(new) >= 2 and len(old) >= 2 else False
    per_device(rt, a, a.as_, lambda v: v.reshape(new), lambda s: new if s == old else s,
               lambda p, r: renumber_reshape(p, old, new), view=view, unplaced=_unplaced(old, new))


def view(rt: Runtime, a: ReshapeTensor) -> None:
    """``ttnn.view``: always a view on the same buffer (the same address and label, observed), so
    only a shape with the same last dim, and in TILE layout the same second-last dim, is allowed:
    the tiles cannot move (ttnn 0.81.1's words for each refusal: tests/golden views)."""
    spec = rt.device(a.tensor).record.spec
    old = tuple(spec.shape)
    new = infer_shape(math.prod(old), tuple(a.shape))
    if math.prod(old) != math.prod(new):
        raise TTFatal(f"Invalid arguments to reshape: {list(old)} has {math.prod(old)} elements, {list(new)} has {math.prod(new)}")
    if old[-1] != new[-1]:
        raise TTFatal(f"The last dimension can not change in view, attempting to change last dimension from {old[-1]} to {new[-1]}, "
                      "use reshape instead")
    if spec.layout.value == "tile" and len(old) >= 2 and len(new) >= 2 and old[-2] != new[-2]:
        raise TTFatal(f"Invalid second last dims for TILED reshape, from {old[-2]} to {new[-2]}, use reshape instead")
    per_device(rt, a, a.as_, lambda v: v.reshape(new), lambda s: new if s == old else s, lambda p, r: renumber_reshape(p, old, new), view=True,
               unplaced=_unplaced(old, new))


def permute(rt: Runtime, a: Permute) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    order = tuple(dim_index(d, rank) for d in a.dims)
    if sorted(order) != list(range(rank)):
        raise TTFatal(f"permute: dims {list(a.dims)} are not a permutation of the tensor's {rank} dims")
    per_device(rt, a, a.as_, lambda v: np.ascontiguousarray(np.transpose(v, order)), lambda s: tuple(s[d] for d in order),
               lambda p, r: renumber_permute(p, order))


def _squeeze(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    st.devices[name] = shape[1:] if shape[0] == 1 else list(shape)
    return {"squeeze": {"tensor": dev, "dim": 0, "as": name}}


def _unsqueeze(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    st.devices[name] = [1] + list(shape)
    return {"unsqueeze": {"tensor": dev, "dim": 0, "as": name}}


def _permute(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    order = list(range(len(shape)))
    rng.shuffle(order)
    st.devices[name] = [shape[d] for d in order]
    return {"permute": {"tensor": dev, "dims": order, "as": name}}


def _reshape(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """The leading dims merged: the tiles stay (a view), or everything flattened in a row."""
    rank = len(shape)
    new = [volume(shape[:-2]), *shape[-2:]] if rank >= 2 else list(shape)
    if op == "reshape" and rng.random() < 0.4:
        new = [1, volume(shape[:-1]), shape[-1]]
    st.devices[name] = new
    return {op: {"tensor": dev, "shape": new, "as": name}}


def _reshape_host(rng, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    """A shard's shape, as on device: the leading dims merged."""
    shape = [volume(shape[:-2]), *shape[-2:]] if len(shape) > 2 else list(shape)
    return shape, kind, {"shape": shape}


def _export_reshape(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.reshape({ctx.var(a.tensor)}, {list(a.shape)})"]


def _export_view(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.view({ctx.var(a.tensor)}, {list(a.shape)})"]


def _export_squeeze(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.squeeze({ctx.var(a.tensor)}, {a.dim})"]


def _export_unsqueeze(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.unsqueeze({ctx.var(a.tensor)}, {a.dim})"]


def _export_permute(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.permute({ctx.var(a.tensor)}, {tuple(a.dims)})"]


OPS = (
    Op("squeeze", Squeeze, squeeze, "Remove a size-1 dim on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.squeeze(tensor, dim)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE), generate=on_device(_squeeze), export=_export_squeeze),
    Op("unsqueeze", Unsqueeze, unsqueeze, "Add a size-1 dim on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.unsqueeze(tensor, dim)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE), generate=on_device(_unsqueeze), export=_export_unsqueeze),
    Op("reshape", ReshapeTensor, reshape, "Reshape each device's tensor (or each shard of a host tensor); a view on the same buffer when the tiles stay (deallocating either frees both).",
       "ttnn.reshape(tensor, shape)", uses=(Use("tensor", TensorKind.ANY),), binds=Use("as_", TensorKind.ANY), follows="tensor", generate=host_or_device(_reshape_host, _reshape), export=_export_reshape),
    Op("view", ReshapeTensor, view, "A view on the same buffer with another shape (the last dim, and in TILE the second-last, unchanged).",
       "ttnn.view(tensor, shape)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE), generate=on_device(_reshape), export=_export_view),
    Op("permute", Permute, permute, "Reorder the dims on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.permute(tensor, dims)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE), generate=on_device(_permute), export=_export_permute),
)
