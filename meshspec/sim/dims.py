"""A tensor's dims as TT-NN (and torch) take them: a negative dim counts from the end.

:func:`normal_dim` is the one rule every op, mapper, composer and check uses to read a dim: the
dim counted from 0, or None when the tensor has no such dim, where each caller raises the real
library's own error for its call (their words differ: ``Invalid gather dim``, ``Dimension out of
range``, ``Index is out of bounds for the rank``).
"""

from __future__ import annotations

from typing import Optional


def normal_dim(dim: int, rank: int) -> Optional[int]:
    """``dim`` counted from 0 in a tensor of ``rank`` dims (``-1`` is the last), or None when the
    tensor has no such dim.

    >>> normal_dim(-1, 4), normal_dim(3, 4), normal_dim(4, 4), normal_dim(-5, 4)
    (3, 3, None, None)
    """
    d = dim + rank if dim < 0 else dim
    return d if 0 <= d < rank else None


def dim_index(dim: int, rank: int) -> int:
    """``dim`` counted from 0, for a dim already known to be one of the tensor's (a placement's):
    unchecked, so a negative dim past the front stays negative.

    >>> dim_index(-1, 4), dim_index(2, 4), dim_index(-5, 4)
    (3, 2, -1)
    """
    return dim + rank if dim < 0 else dim
