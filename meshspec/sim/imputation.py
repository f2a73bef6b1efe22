"""The default imputation of a device op's output topology, and how each op moves shard dims.

ttnn 0.81.1 gives a device op's output the union of its inputs' labels, taken in argument order, and
keeps the placements as they are, whatever the op does to the dims (ttnn/core/device_operation_detail.cpp,
PR #29899; issue #52331). The functions here say both: :func:`union` is that imputation, and the
``renumber_*`` functions say where a shard dim really goes when an op moves the dims (the data's
layout, which the reference profile labels and ``topology_stale`` compares with). Pure functions
on placements and plain tuples (docs/semantics.md section 12).

>>> renumber_squeeze((Shard(3),), 4, 0)
(Shard(dim=2),)
>>> renumber_permute((Shard(3), Replicate()), (0, 1, 3, 2))
(Shard(dim=2), Replicate())
"""

from __future__ import annotations

import math
from typing import Optional

from .dims import dim_index
from .placement import Placement, Replicate, Shard, Topology


def union(labels: list[Topology], rank: Optional[int] = None) -> Topology:
    """ttnn 0.81.1's default imputation over the inputs' labels, in argument order
    (``compute_output_placements_and_shape``, ttnn/core/device_operation_detail.cpp @ 0815d3efc;
    observed in the mock, tests/golden/ttnn_0_81_1_imputation.json):

    1. the distribution rank is the largest among the inputs with a Shard, or the first input's when
       none has one (a fully replicated input of another rank is left out);
    2. the inputs of that rank, in order, make the distribution shape (the per-axis maximum of
       theirs) and the placements: each Shard whose tensor dim no earlier Shard claimed claims that
       dim for its axis, and takes the axis if nothing holds it yet (else the earlier Shard stays);
       a Shard of a dim already claimed leaves the axis as it is. Every other axis is Replicate.

    So the order counts: a dim claimed first on one axis is Replicate on any other. Dims are
    compared as written (-1 and 3 differ: the code never normalises them; issue #35362); with a
    tensor ``rank`` they are normalised first (the reference). ``coords`` are no part of the rule
    (launch() gives the output tensor's own; in the mock, the whole mesh): meshspec takes those of
    the first counted input whose distribution shape is the result's, else the first counted one's.

    >>> col = Topology((2, 4), (Replicate(), Shard(3)), ())
    >>> row = Topology((2, 4), (Shard(3), Replicate()), ())
    >>> union([col, row]).placements  # add(col, row): dim 3 is claimed by axis 1 first
    (Replicate(), Shard(dim=3))
    >>> union([row, col]).placements  # add(row, col): by axis 0 first
    (Shard(dim=3), Replicate())
    >>> union([Topology((2, 4), (Shard(2), Replicate()), ()), Topology((2, 4), (Shard(3), Replicate()), ()),
    ...        col]).placements  # dim 3 is claimed on axis 0 (which keeps Shard(2)), so axis 1 is Replicate
    (Shard(dim=2), Replicate())
    >>> union([Topology((2, 4), (Replicate(), Replicate()), ()), Topology((8,), (Shard(3),), ())])
    Topology(distribution_shape=(8,), placements=(Shard(dim=3),), coords=())
    >>> union([Topology((1, 4), (Replicate(), Shard(3)), ()), col]).distribution_shape
    (2, 4)
    """
    sharded = [t for t in labels if any(isinstance(p, Shard) for p in t.placements)]
    dist_rank = max(len(t.distribution_shape) for t in sharded) if sharded else len(labels[0].distribution_shape)
    counted = [t for t in labels if len(t.distribution_shape) == dist_rank]
    shape = tuple(max(n) for n in zip(*(t.distribution_shape for t in counted)))
    placements: list[Placement] = [Replicate()] * dist_rank
    claimed: set[int] = set()
    for t in counted:
        for axis, p in enumerate(t.placements):
            if not isinstance(p, Shard):
                continue
            d = dim_index(p.dim, rank) if rank is not None else p.dim
            if d in claimed:
                continue
            claimed.add(d)
            if not isinstance(placements[axis], Shard):
                placements[axis] = Shard(d)
    coords = next((t.coords for t in counted if tuple(t.distribution_shape) == shape), counted[0].coords)
    return Topology(shape, tuple(placements), coords)


def renumber_squeeze(placements: tuple[Placement, ...], rank: int, dim: int) -> tuple[Placement, ...]:
    """Placements after removing ``dim`` from a rank-``rank`` tensor (the data's real layout)."""
    dim = dim_index(dim, rank)
    return tuple(Shard(dim_index(p.dim, rank) - (dim_index(p.dim, rank) > dim)) if isinstance(p, Shard) else p for p in placements)


def renumber_unsqueeze(placements: tuple[Placement, ...], rank: int, dim: int) -> tuple[Placement, ...]:
    dim = dim_index(dim, rank + 1)
    return tuple(Shard(dim_index(p.dim, rank) + (dim_index(p.dim, rank) >= dim)) if isinstance(p, Shard) else p for p in placements)


def renumber_permute(placements: tuple[Placement, ...], dims: tuple[int, ...]) -> tuple[Placement, ...]:
    rank = len(dims)
    order = [dim_index(d, rank) for d in dims]
    return tuple(Shard(order.index(dim_index(p.dim, rank))) if isinstance(p, Shard) else p for p in placements)


def renumber_reshape(placements: tuple[Placement, ...], old: tuple[int, ...], new: tuple[int, ...]) -> Optional[tuple[Placement, ...]]:
    """Placements after a reshape of each device's ``old`` shape to ``new``: a shard dim ``d`` goes
    to a new dim ``e`` whose outer dims hold as many elements as ``d``'s (``prod(old[:d]) ==
    prod(new[:e])``). Each device's part of ``d`` is then one block of ``e`` with all the inner dims
    whole, so composing along ``e`` gives the whole tensor reshaped: the dims inside ``d`` may merge
    into it or split off it (``d`` is the outermost of its group). None when no new dim has the
    same outer volume: ``d`` merges with a dim outside it, and the devices' rows interleave.
    Among several such ``e`` (size-1 dims), ``d`` itself if it qualifies, else the one of ``d``'s
    size, else the one of size > 1.

    >>> renumber_reshape((Shard(3),), (1, 1, 32, 32), (1, 32, 32))
    (Shard(dim=2),)
    >>> renumber_reshape((Shard(3),), (1, 2, 40, 32), (80, 32))
    (Shard(dim=1),)
    >>> renumber_reshape((Shard(0),), (16, 16, 5, 5), (16, 400))  # dim 0 untouched
    (Shard(dim=0),)
    >>> renumber_reshape((Shard(2),), (1, 1, 64, 64), (1, 1, 32, 128))  # merges only dims inside it
    (Shard(dim=2),)
    >>> renumber_reshape((Shard(1),), (16, 16, 5, 5), (16, 400))  # merges the whole 5 x 5 inside it
    (Shard(dim=1),)
    >>> renumber_reshape((Shard(2),), (16, 16, 5, 5), (16, 400)) is None  # merged with dim 1 outside it
    True
    """
    rank = len(old)
    dims = {dim_index(p.dim, rank) for p in placements if isinstance(p, Shard)}
    moved: dict[int, int] = {}
    for d in sorted(dims):
        if not 0 <= d < rank:
            return None
        outer = math.prod(old[:d])
        fits = [e for e in range(len(new)) if math.prod(new[:e]) == outer]
        if not fits:
            return None
        same = [e for e in fits if new[e] == old[d]]
        big = [e for e in fits if new[e] != 1]
        moved[d] = d if d in fits else (same or big or fits)[0]
    order = [moved[d] for d in sorted(dims)]
    if len(set(order)) != len(order):  # two shard dims land on one new dim: no placement says that
        return None
    return tuple(Shard(moved[dim_index(p.dim, rank)]) if isinstance(p, Shard) else p for p in placements)
