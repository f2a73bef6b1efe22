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

from typing import Optional

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
            d = p.dim + rank if rank is not None and p.dim < 0 else p.dim
            if d in claimed:
                continue
            claimed.add(d)
            if not isinstance(placements[axis], Shard):
                placements[axis] = Shard(d)
    coords = next((t.coords for t in counted if tuple(t.distribution_shape) == shape), counted[0].coords)
    return Topology(shape, tuple(placements), coords)


def dim_index(d: int, rank: int) -> int:
    return d + rank if d < 0 else d


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
    dims = [dim_index(p.dim, len(old)) for p in placements if isinstance(p, Shard)]
    if dims and all(d >= len(old) - kept for d in dims):
        return tuple(Shard(dim_index(p.dim, len(old)) - len(old) + len(new)) if isinstance(p, Shard) else p for p in placements)
    big_old = [i for i, n in enumerate(old) if n != 1]
    big_new = [i for i, n in enumerate(new) if n != 1]
    if [old[i] for i in big_old] != [new[i] for i in big_new]:
        return None
    out = []
    for p in placements:
        if not isinstance(p, Shard):
            out.append(p)
            continue
        d = dim_index(p.dim, len(old))
        if d not in big_old:
            return None
        out.append(Shard(big_new[big_old.index(d)]))
    return tuple(out)
