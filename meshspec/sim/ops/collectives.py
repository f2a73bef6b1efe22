"""Collectives on device mesh tensors: ``ttnn.all_gather``, ``ttnn.experimental.all_gather_async``
and ``ttnn.all_reduce`` (docs/semantics.md section 12).

Each device's output is computed with numpy from what the devices of its group hold (the devices
along ``cluster_axis`` through it, or every device of the mesh in row-major order): all_gather
concatenates their shards along ``dim`` in group order, all_reduce sums them. A device's buffer is
read whatever its record says: a collective moves bytes, not records.

The output's topology is the era's :class:`~meshspec.sim.profiles.CclTopology`:

- ``per_axis`` (ttnn 0.81.1: ttnn/cpp/ttnn/operations/ccl/common/host/ccl_topology_utils.cpp @
  0b4d561a, the helpers whose ``strict_ccl_topology`` flag 0.81.1's ttnn.CONFIG carries): a
  collapsed 1-D label over a multi-axis mesh is expanded per axis; the gathered or reduced axis
  (``cluster_axis``), or every axis without one, becomes Replicate.
- ``union``: before those helpers. ``all_gather_async`` (no compute_output_topologies @ 90095175)
  and ``all_reduce`` keep their input's label (the default imputation: issues #38371, #50657);
  ``all_gather`` had its own hook since PR #30684: every ``Shard(dim)`` whose dim equals the gather
  dim (compared as raw ints) becomes Replicate, on every axis.

The data's own distribution is kept with the output; ``topology_stale`` reports where they differ.
"""

from __future__ import annotations

from typing import Annotated, Optional

import numpy as np

from ...errors import TTFatal
from ...typed import Range, Typed
from ..mesh import Coord
from ..placement import Partial, Placement, Replicate, Shard, Topology, as_label
from ..profiles import CclTopology, OpTopology
from ..runtime import Runtime
from ..spec import make_spec
from ..tensor import HostShard
from .base import Op, TensorKind, Use
from .fields import As, Name


class Gather(Typed):
    """``ttnn.all_gather(tensor, dim, cluster_axis=None)``."""

    tensor: Name
    dim: Annotated[int, Range(ge=-8, le=7)]
    cluster_axis: Optional[Annotated[int, Range(ge=0, le=3)]] = None
    as_: As


class Reduce(Typed):
    """``ttnn.all_reduce(tensor, cluster_axis=None)`` (a sum)."""

    tensor: Name
    cluster_axis: Optional[Annotated[int, Range(ge=0, le=3)]] = None
    as_: As


def groups(mesh_shape: tuple[int, ...], cluster_axis: Optional[int]) -> dict[Coord, tuple[Coord, ...]]:
    """Each device's group: the devices along ``cluster_axis`` through it, in order; or every
    device, row-major.

    >>> groups((2, 2), 1)[(1, 0)]
    ((1, 0), (1, 1))
    """
    import itertools

    every = tuple(itertools.product(*(range(n) for n in mesh_shape)))
    if cluster_axis is None:
        return {c: every for c in every}
    if not 0 <= cluster_axis < len(mesh_shape):
        raise TTFatal(f"cluster_axis {cluster_axis} is out of range for a mesh of shape {list(mesh_shape)}")
    return {c: tuple(c[:cluster_axis] + (i,) + c[cluster_axis + 1 :] for i in range(mesh_shape[cluster_axis])) for c in every}


def expanded(topo: Topology, mesh_shape: tuple[int, ...]) -> Topology:
    """A collapsed 1-D label over a multi-axis mesh expanded to the mesh's axes (its placement on each)."""
    if len(topo.distribution_shape) == 1 and len(mesh_shape) > 1:
        return Topology(tuple(mesh_shape), tuple(topo.placements) * len(mesh_shape), topo.coords)
    return topo


def per_axis(topo: Topology, mesh_shape: tuple[int, ...], cluster_axis: Optional[int]) -> Topology:
    """The label after a gather or reduce, per axis: :func:`expanded`, then the cluster axis (or
    every axis) Replicate."""
    full = expanded(topo, mesh_shape)
    placements = tuple(Replicate() if cluster_axis is None or i == cluster_axis else p for i, p in enumerate(full.placements))
    return Topology(full.distribution_shape, placements, topo.coords)


def gather_hook(topo: Topology, dim: int) -> Topology:
    """PR #30684's all_gather hook: every Shard of the gather dim (raw ints) Replicate, on every axis."""
    return Topology(topo.distribution_shape, tuple(Replicate() if isinstance(p, Shard) and p.dim == dim else p for p in topo.placements),
                    topo.coords)


def _collective(rt: Runtime, a, combine, shape_of, label_of, truth_of) -> None:
    from .allocate import allocation
    from .creation import _plain

    src = rt.device(a.tensor)
    rec = src.record
    mesh = rt.mesh_of(src)
    topo = rec.topology
    group_of = groups(tuple(mesh.shape), a.cluster_axis)
    spec_in = rec.spec
    out_spec = make_spec(shape_of(tuple(spec_in.shape), len(group_of[mesh.coords[0]])), spec_in.dtype, spec_in.layout, spec_in.tile,
                         spec_in.memory, spec_in.arch)
    real = rec.layout()  # the data's layout, when an op made the input
    truth = truth_of(real, tuple(mesh.shape)) if real is not None else None
    if rt.profile.op_topology is OpTopology.EXACT and truth is not None:
        label = as_label(truth)
    elif rt.profile.ccl_topology is CclTopology.PER_AXIS or rt.profile.op_topology is OpTopology.EXACT:
        label = per_axis(topo, tuple(mesh.shape), a.cluster_axis)
    else:
        label = label_of(topo)
    out = allocation(rt, out_spec, mesh, a.as_, label)
    held = {c: src.buffer.read(c, rec.specs.get(c) or spec_in) if rt.with_data else None for c in mesh.coords}
    shards = {}
    for c in mesh.coords:
        parts = [held[g] for g in group_of[c]]
        values = combine(parts) if all(p is not None for p in parts) else None
        if values is None:
            values = np.zeros(out_spec.shape, dtype=np.float32)
        shards[c] = HostShard(c, out_spec, values, (0,) * len(out_spec.shape))
    out.record.recorded = tuple(mesh.coords)
    out.record.specs = {c: out_spec for c in mesh.coords}
    rt.write(out, _plain(rt, f"{a.as_}.{a.tensor}", out_spec, None), shards)
    out.record.truth = (truth, rt.step, rt.op)
    out.record.sources = {c: tuple((src, a.tensor, g) for g in group_of[c]) for c in mesh.coords}
    rt.bind(a.as_, out)


def _gather(label_of):
    def run(rt: Runtime, a: Gather) -> None:
        rank = len(rt.device(a.tensor).record.spec.shape)
        dim = a.dim + rank if a.dim < 0 else a.dim
        if not 0 <= dim < rank:
            raise TTFatal(f"all_gather: dim {a.dim} is out of range for a rank-{rank} tensor")
        def truth_of(real: Topology, mesh_shape: tuple[int, ...]) -> Optional[Topology]:
            axes = expanded(real, mesh_shape).placements
            if any(isinstance(p, Partial) for i, p in enumerate(axes) if a.cluster_axis in (None, i)):
                return None  # partial sums side by side: no layout describes them
            return per_axis(real, mesh_shape, a.cluster_axis)

        _collective(rt, a, lambda parts: np.concatenate(parts, axis=dim),
                    lambda s, n: s[:dim] + (s[dim] * n,) + s[dim + 1 :], lambda topo: label_of(topo, a.dim), truth_of)

    return run


def all_reduce(rt: Runtime, a: Reduce) -> None:
    def total(parts):
        with np.errstate(all="ignore"):  # never-written memory reads as poison (NaN): summed as the device would
            return np.sum(np.stack([p.astype(np.float64) for p in parts]), axis=0).astype(parts[0].dtype)

    _collective(rt, a, total, lambda s, n: s, lambda topo: topo,  # the default imputation: the input's label
                lambda real, mesh_shape: per_axis(real, mesh_shape, a.cluster_axis))  # partial sums made whole


OPS = (
    Op("all_gather", Gather, _gather(gather_hook),
       "Each device gets its group's shards concatenated along dim; the topology by the era's rule (0.81.1: the cluster axis Replicate).",
       "ttnn.all_gather(tensor, dim, cluster_axis=None)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
    Op("all_gather_async", Gather, _gather(lambda topo, dim: topo),
       "ttnn.experimental.all_gather_async: as all_gather; before its hook the output kept the input's label (issue #38371).",
       "ttnn.experimental.all_gather_async(tensor, dim, cluster_axis=None, ...)", uses=(Use("tensor", TensorKind.DEVICE),),
       binds=Use("as_", TensorKind.DEVICE)),
    Op("all_reduce", Reduce, all_reduce,
       "Each device gets the sum over its group; the topology by the era's rule (before the CCL helpers it kept the input's label, #50657).",
       "ttnn.all_reduce(tensor, cluster_axis=None)", uses=(Use("tensor", TensorKind.DEVICE),), binds=Use("as_", TensorKind.DEVICE)),
)
