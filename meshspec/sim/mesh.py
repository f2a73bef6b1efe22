"""Mesh shapes, device coordinates and the known Tenstorrent systems (docs/semantics.md section 2).

Coordinates are plain tuples of ints, ordered row-major with the last dim fastest, as
``ttnn.MeshCoordinateRange`` walks them: on a 2x4 mesh ``(0,0) (0,1) (0,2) (0,3) (1,0) ... (1,3)``.
"""

from __future__ import annotations

import itertools
import math
from typing import Iterator

Coord = tuple[int, ...]
Shape = tuple[int, ...]

#: Known systems and their mesh shapes (tt_metal/fabric/mesh_graph_descriptors/*.textproto).
SYSTEMS: dict[str, tuple[Shape, str]] = {
    "n150": ((1, 1), "one Wormhole chip"),
    "n300": ((1, 2), "two Wormhole chips on one card"),
    "t3k": ((2, 4), "eight Wormhole chips (some tests use 1x8)"),
    "galaxy": ((8, 4), "32 Wormhole chips, TG (older descriptors say 4x8)"),
    "p150": ((1, 1), "one Blackhole chip"),
    "p300": ((1, 2), "two Blackhole chips"),
    "p150x4": ((2, 2), "four Blackhole chips"),
    "p150x8": ((2, 4), "eight Blackhole chips"),
}

#: Other names people use for a system, for "did you mean" hints only.
SYSTEM_ALIASES = {"t3000": "t3k", "tg": "galaxy", "wh_galaxy": "galaxy", "n300s": "n300", "lb": "t3k", "loudbox": "t3k"}


def coords(shape: Shape) -> Iterator[Coord]:
    """Every coordinate of ``shape`` in row-major order.

    >>> list(coords((2, 2)))
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    """
    return itertools.product(*(range(n) for n in shape))


def volume(shape: Shape) -> int:
    """Number of elements (devices, for a mesh) in ``shape``; 1 for ``()``."""
    return math.prod(shape)


def coord_of(index: int, shape: Shape) -> Coord:
    """The coordinate of the ``index``-th device in row-major order: on 2x4, device 7 is ``(1, 3)``."""
    out = []
    for n in reversed(shape):
        index, c = divmod(index, n)
        out.append(c)
    return tuple(reversed(out))


def fmt_coord(coord: Coord) -> str:
    """``(1, 3)`` -> ``'(1,3)'``, the compact form used in tables and messages."""
    return "(" + ",".join(str(c) for c in coord) + ")"


def fmt_shape(shape: Shape) -> str:
    """``(1, 1, 32, 32)`` -> ``'1x1x32x32'``; ``()`` -> ``'scalar'``."""
    return "x".join(str(n) for n in shape) if shape else "scalar"


def ttnn_shape(shape: Shape, kind: str = "MeshShape") -> str:
    """How ttnn prints a shape in its messages: ``MeshShape([2, 4])``, ``Shape([1, 2, 32, 32])``."""
    return f"{kind}({list(shape)})"


def parse_coord(text: str) -> Coord:
    """A coordinate written as a mapping key: ``"[1, 3]"``, ``"(1,3)"`` or ``"1,3"``.

    >>> parse_coord("[1, 3]")
    (1, 3)
    """
    body = text.strip().strip("[]()").strip()
    try:
        return tuple(int(p) for p in body.split(","))
    except ValueError:
        raise ValueError(f"{text!r} is not a device coordinate; write it like \"[1, 3]\"") from None
