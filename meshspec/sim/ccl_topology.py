"""The output topology of a collective, as ttnn 0.81.1's CCL topology helpers compute it
(ttnn/cpp/ttnn/operations/ccl/common/host/ccl_topology_utils.cpp @ 0b4d561a; docs/semantics.md
section 12). Pure functions on topologies.

A collapsed label is a 1-D distribution with one placement over a multi-axis mesh (what a 1-D
mapper makes: shards in row-major device order). The helpers first expand it to one placement per
axis (:func:`uncollapse`: the shard on every axis of more than one device), edit the collective's
axis, then :func:`finalise`: a tensor dim sharded on several axes is only expressible as the
collapsed row-major label again. Where no label is honest, 0.81.1 (``strict_ccl_topology`` off,
its default) logs a warning and keeps the legacy per-axis edit of the label as it is
(:func:`legacy_relabel`); :class:`NoLabel` carries that outcome and its reason.

>>> t = Topology((8,), (Shard(3),), tuple((r, c) for r in range(2) for c in range(4)))
>>> all_gather_topology(t, 1, (2, 4), 4, 3).placements
(Shard(dim=3), Replicate())
>>> r = all_gather_topology(t, 0, (2, 4), 4, 3)  # gathering the outer axis would interleave
>>> r.reason.split(" of a tensor")[0], r.legacy.placements
('all_gather of tensor dim 3 along mesh axis 0 would interleave the shards', (Replicate(),))
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Optional, Union

from .dims import normal_dim
from .mesh import Shape, volume
from .placement import Placement, Replicate, Shard, Topology


@dataclass(frozen=True)
class NoLabel:
    """No per-axis label is honest: why, and the label 0.81.1 gives instead (the legacy edit)."""

    reason: str
    legacy: Topology



Result = Union[Topology, NoLabel]


def _shards(p: Placement, dim: int, rank: int) -> bool:
    return isinstance(p, Shard) and normal_dim(p.dim, rank) == dim


def is_collapsed(topo: Topology) -> bool:
    return len(topo.distribution_shape) == 1 and len(topo.placements) == 1


def legacy_relabel(topo: Topology, cluster_axis: Optional[int], placement: Placement) -> Topology:
    """The per-axis edit of the label as it is (whatever its rank): the cluster axis, or every
    entry without one, takes ``placement``."""
    out = list(topo.placements)
    if cluster_axis is None:
        out = [placement] * len(out)
    elif cluster_axis < len(out):
        out[cluster_axis] = placement
    return Topology(topo.distribution_shape, tuple(out), topo.coords)


def uncollapse(topo: Topology, mesh_shape: Shape) -> Union[tuple[Placement, ...], str]:
    """One placement per mesh axis, or why there is none (a label over fewer devices or a submesh)."""
    if len(topo.distribution_shape) == len(mesh_shape) and len(topo.placements) == len(mesh_shape):
        return tuple(topo.placements)
    if not is_collapsed(topo):
        return f"tensor topology {topo} is neither a collapsed 1-D label nor one placement per axis of mesh {list(mesh_shape)}"
    row_major = list(itertools.product(*(range(n) for n in mesh_shape)))
    if topo.distribution_shape[0] != len(row_major) or [tuple(c) for c in topo.coords] != row_major:
        return (f"collapsed tensor topology {topo} does not cover mesh {list(mesh_shape)} in row-major order (fewer shards than "
                "devices, or a sub-mesh); create the tensor with an N-D mesh mapper")
    p = topo.placements[0]
    return tuple(p if isinstance(p, Shard) and n > 1 else Replicate() for n in mesh_shape)


def finalise(topo: Topology, mesh_shape: Shape, out: tuple[Placement, ...], rank: int, collapsed: bool) -> Union[Topology, str]:
    """The label for per-axis placements ``out``: as they are, unless a tensor dim is sharded on
    several axes, which only the collapsed row-major label can say (every axis of more than one
    device sharding that dim, nothing else sharded); else why no label can."""
    axis_shape = tuple(mesh_shape) if collapsed else tuple(topo.distribution_shape)
    dup = None
    for i, p in enumerate(out):
        d = normal_dim(p.dim, rank) if isinstance(p, Shard) else None
        if d is not None and any(_shards(q, d, rank) for q in out[i + 1 :]):
            dup = d
            break
    if dup is None:
        return Topology(axis_shape, tuple(out), topo.coords)
    hierarchical = all(_shards(p, dup, rank) if n > 1 else (_shards(p, dup, rank) or not isinstance(p, Shard))
                       for p, n in zip(out, axis_shape))
    if not hierarchical:
        return (f"the output would shard tensor dim {dup} on more than one mesh axis in a layout no TensorTopology can express "
                f"(per-axis result {Topology(axis_shape, tuple(out), topo.coords)} for input {topo})")
    return Topology((volume(axis_shape),), (Shard(dup),), topo.coords)


def all_gather_topology(topo: Topology, cluster_axis: Optional[int], mesh_shape: Shape, rank: int, dim: int,
                        contiguous: bool = True) -> Result:
    """``all_gather_output_topology``: every placement Replicate without a cluster axis; else the
    expanded label's cluster axis Replicate. ``contiguous`` (a gather; not all_reduce): gathering
    the shard dim along an outer axis of a collapsed label would interleave its pieces."""
    if cluster_axis is None:
        return Topology(topo.distribution_shape, (Replicate(),) * len(topo.placements), topo.coords)
    fallback = lambda why: NoLabel(why, legacy_relabel(topo, cluster_axis, Replicate()))  # noqa: E731
    if cluster_axis >= len(mesh_shape):
        return fallback(f"all_gather cluster_axis {cluster_axis} is out of range for mesh {list(mesh_shape)}")
    expanded = uncollapse(topo, mesh_shape)
    if isinstance(expanded, str):
        return fallback(expanded)
    collapsed = is_collapsed(topo) and len(mesh_shape) > 1
    gathered = normal_dim(dim, rank)
    if (collapsed and contiguous and gathered is not None and mesh_shape[cluster_axis] > 1
            and _shards(expanded[cluster_axis], gathered, rank)):
        for inner in range(cluster_axis + 1, len(expanded)):
            if mesh_shape[inner] > 1 and _shards(expanded[inner], gathered, rank):
                return fallback(f"all_gather of tensor dim {gathered} along mesh axis {cluster_axis} would interleave the shards of "
                                f"a tensor distributed with a 1-D mapper over mesh {list(mesh_shape)} (label {topo}): gather along "
                                "the innermost sharded mesh axis or create the tensor with an N-D mesh mapper")
    out = list(expanded)
    out[cluster_axis] = Replicate()
    result = finalise(topo, mesh_shape, tuple(out), rank, collapsed)
    return fallback(result) if isinstance(result, str) else result


def all_reduce_topology(topo: Topology, cluster_axis: Optional[int], mesh_shape: Shape, rank: int) -> Result:
    """``all_reduce_output_topology``: the gather's, with no contiguity to keep."""
    return all_gather_topology(topo, cluster_axis, mesh_shape, rank, 0, contiguous=False)


def reduce_scatter_topology(topo: Topology, cluster_axis: Optional[int], mesh_shape: Shape, rank: int, dim: int) -> Result:
    """``reduce_scatter_output_topology``: the scattered axis (every axis of more than one device
    without a cluster axis) takes ``Shard(dim)``, dim normalised.

    >>> t = Topology((2, 4), (Replicate(), Replicate()), ())
    >>> reduce_scatter_topology(t, 1, (2, 4), 4, -1).placements
    (Replicate(), Shard(dim=3))
    """
    d = normal_dim(dim, rank)
    if d is None:
        return NoLabel(f"reduce_scatter dim {dim} is out of range for a rank-{rank} tensor", legacy_relabel(topo, cluster_axis, Shard(dim)))
    shard = Shard(d)
    fallback = lambda why: NoLabel(why, legacy_relabel(topo, cluster_axis, shard))  # noqa: E731
    collapsed = is_collapsed(topo) and len(mesh_shape) > 1
    if cluster_axis is None:
        if collapsed:
            return Topology(topo.distribution_shape, (shard,), topo.coords)
        expanded = uncollapse(topo, mesh_shape)
        if isinstance(expanded, str):
            return fallback(expanded)
        out = tuple(shard if n > 1 else Replicate() for n in topo.distribution_shape)
        result = finalise(topo, mesh_shape, out, rank, False)
        return fallback(result) if isinstance(result, str) else result
    if cluster_axis >= len(mesh_shape):
        return fallback(f"reduce_scatter cluster_axis {cluster_axis} is out of range for mesh {list(mesh_shape)}")
    expanded = uncollapse(topo, mesh_shape)
    if isinstance(expanded, str):
        return fallback(expanded)
    out = list(expanded)
    out[cluster_axis] = shard
    result = finalise(topo, mesh_shape, tuple(out), rank, collapsed)
    return fallback(result) if isinstance(result, str) else result


def label(result: Result) -> Topology:
    """The label ttnn 0.81.1 gives: the helper's, or the legacy edit where none is honest."""
    return result.legacy if isinstance(result, NoLabel) else result
