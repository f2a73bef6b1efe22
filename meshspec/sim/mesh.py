"""Mesh shapes, device coordinates and the known Tenstorrent systems (docs/semantics.md section 2).

Coordinates are plain tuples of ints, ordered row-major with the last dim fastest, as
``ttnn.MeshCoordinateRange`` walks them: on a 2x4 mesh ``(0,0) (0,1) (0,2) (0,3) (1,0) ... (1,3)``.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from ..errors import TTFatal
from ..frozen import Frozen
from .chips import CHIPS, CHIPS_EARLY_2026, Chips
from typing import Iterable, Iterator, Optional

Coord = tuple[int, ...]
Shape = tuple[int, ...]
CoordRange = tuple[Coord, Coord]
"""``(start, end)``, both inclusive: the devices of ``ttnn.MeshCoordinateRange(start, end)``."""

class System(Frozen):
    """A Tenstorrent system: its mesh (the shape ``open_mesh_device()`` opens by default) and chips."""

    shape: Shape
    arch: str
    """``wormhole_b0`` or ``blackhole`` (sets buffer alignment, docs/semantics.md section 3)."""
    note: str
    worker_grid: Optional[tuple[int, int]] = None
    """A chip's worker cores (``compute_with_storage_grid_size()``): its L1 banks, the cores a
    shard grid may name. Depends on the system, not only the chip (observed, docs/semantics.md
    section 11); None where not observed (no check)."""
    dram_banks: Optional[int] = None
    chips: Optional[Chips] = None
    """Its physical chips: the device id at each coordinate and the ethernet links (ttnn 0.81.1,
    observed with its mock cluster descriptor; docs/semantics.md section 17); None where no
    descriptor was read (no ids)."""
    chips_early_2026: Optional[Chips] = None
    """Where ttnn 0.66.0-0.67.0 put the mesh on other chips (the ``chip_map`` rule's
    ``early_2026``); None where they put it on the same ones."""


#: Known systems (docs/semantics.md section 2). Shapes are what the real ttnn 0.81.1 opens by
#: default with the system's cluster descriptor (observed, tests/golden ``systems``); p300 has no
#: descriptor here and keeps the shape of tt_metal/fabric/mesh_graph_descriptors.
SYSTEMS: dict[str, System] = {
    "n150": System((1, 1), "wormhole_b0", "one Wormhole chip", (8, 8), 12, chips=CHIPS["n150"]),
    "n300": System((2, 1), "wormhole_b0", "two Wormhole chips on one card (opens 2x1 by default; 1x2 also opens)", (8, 8), 12, chips=CHIPS["n300"]),
    "t3k": System((2, 4), "wormhole_b0", "eight Wormhole chips (also opens as 1x8, 4x2, 8)", (8, 8), 12, chips=CHIPS["t3k"]),
    "galaxy": System((8, 4), "wormhole_b0", "32 Wormhole chips, TG (also opens as 4x8, 1x32)", (8, 9), 12, chips=CHIPS["galaxy"]),
    "p150": System((1, 1), "blackhole", "one Blackhole chip", (11, 10), 8, chips=CHIPS["p150"]),
    "p300": System((1, 2), "blackhole", "two Blackhole chips"),
    "p150x4": System((2, 2), "blackhole", "four Blackhole chips", (11, 10), 8, chips=CHIPS["p150x4"], chips_early_2026=CHIPS_EARLY_2026["p150x4"]),
    "p150x8": System((2, 4), "blackhole", "eight Blackhole chips", (12, 10), 8, chips=CHIPS["p150x8"], chips_early_2026=CHIPS_EARLY_2026["p150x8"]),
    "bh-galaxy": System((8, 4), "blackhole", "32 Blackhole chips", (12, 10), 8, chips=CHIPS["bh-galaxy"]),
}

#: Other names for a system: accepted, and shown as the system's own name.
SYSTEM_ALIASES = {"tg": "galaxy", "wh-galaxy": "galaxy", "t3000": "t3k", "loudbox": "t3k", "lb": "t3k", "n300s": "n300"}


def system_named(name: str) -> Optional[str]:
    """The system's own name for ``name`` (case-insensitive, aliases included), or None."""
    key = name.lower().replace("_", "-")
    key = SYSTEM_ALIASES.get(key, key)
    return key if key in SYSTEMS else None


def open_shape(system: str, requested: Optional[Shape]) -> Shape:
    """The mesh ``open_mesh_device(MeshShape(requested))`` opens on ``system``, or the real
    library's error (observed on ttnn 0.81.1 for every system with a cluster descriptor):

    - no shape: the system's own;
    - more dims than the system mesh: ``Requested mesh shape dimensions mismatch``;
    - more devices than it has: ``Requested mesh shape ... requires N devices``;
    - a line (one dim, or 1xN / Nx1) of up to that many devices, or a 2-D shape that fits the
      system mesh as it is or rotated, opens;
    - anything else: ``Requested mesh is too big and is not rotatable``.

    >>> open_shape("t3k", (1, 8)), open_shape("t3k", (3, 2))
    ((1, 8), (3, 2))
    """
    home = SYSTEMS[system].shape
    if requested is None:
        return home
    shape = tuple(requested)
    if len(shape) > len(home):
        raise TTFatal(f"Requested mesh shape dimensions mismatch: {ttnn_shape(shape)} != {ttnn_shape(home)}")
    if volume(shape) > volume(home):
        raise TTFatal(
            f"Requested mesh shape {ttnn_shape(shape)} requires {volume(shape)} devices, but only {volume(home)} "
            f"devices are available in the system mesh {ttnn_shape(home)}."
        )
    line = len(shape) == 1 or sum(n > 1 for n in shape) <= 1
    fits = len(shape) == len(home) and (
        all(a <= b for a, b in zip(shape, home)) or all(a <= b for a, b in zip(shape, reversed(home)))
    )
    if line or fits:
        return shape
    origin = ttnn_shape((0,) * len(home), "MeshCoordinate")
    raise TTFatal(
        f"Requested mesh is too big and is not rotatable: {ttnn_shape(shape)} and SystemMesh {ttnn_shape(home)}, "
        f"offset {origin}"
    )


def device_ids(system: str, shape: Shape, early_2026: bool = False) -> Optional[tuple[int, ...]]:
    """The physical device ids ``open_mesh_device(MeshShape(shape))`` gives on ``system``
    (``get_device_ids()``: row-major over the opened mesh's coordinates), for a shape
    :func:`open_shape` opens; None for a system without a chip table. ``early_2026``: as ttnn
    0.66.0-0.67.0 mapped it. Observed for every shape of every system (tests/sim/test_device_ids.py):

    - a line (``(n)``, ``1xn``, ``nx1``) follows the system's line of chips, a path over ethernet links;
    - a 2-D mesh that fits the system mesh is its top-left block; a rotated one, its transpose's.

    >>> device_ids("t3k", (2, 4)), device_ids("t3k", (1, 8))
    ((4, 0, 2, 6, 5, 1, 3, 7), (4, 0, 2, 6, 7, 3, 1, 5))
    """
    known = SYSTEMS[system]
    chips = (known.chips_early_2026 if early_2026 else None) or known.chips
    return None if chips is None else ids_on(chips, shape)


def ids_on(chips: Chips, shape: Shape) -> tuple[int, ...]:
    """:func:`device_ids` of a mesh of ``shape`` opened on ``chips``."""
    n = volume(shape)
    if len(shape) == 1 or sum(d > 1 for d in shape) <= 1:
        return chips.line_of(n)
    rows, cols = shape
    grid = chips.grid
    if rows <= len(grid) and cols <= len(grid[0]):
        return tuple(grid[r][c] for r in range(rows) for c in range(cols))
    return tuple(grid[c][r] for r in range(rows) for c in range(cols))


def line_of(shape: Shape, ids: tuple[int, ...]) -> tuple[int, ...]:
    """A mesh's devices as a connected line, as ttnn 0.81.1's ``MeshDevice.reshape`` to a line
    orders a submesh's (observed on a T3K: the 2x2 submesh [[4, 0], [5, 1]] becomes 4, 0, 1, 5):
    row by row, every other row walked backwards. A line stays as it is.

    >>> line_of((2, 2), (4, 0, 5, 1))
    (4, 0, 1, 5)
    """
    if len(shape) != 2 or min(shape) == 1:
        return ids
    rows, cols = shape
    out: list[int] = []
    for r in range(rows):
        row = ids[r * cols:(r + 1) * cols]
        out += row if r % 2 == 0 else row[::-1]
    return tuple(out)


def coords(shape: Shape) -> Iterator[Coord]:
    """Every coordinate of ``shape`` in row-major order.

    >>> list(coords((2, 2)))
    [(0, 0), (0, 1), (1, 0), (1, 1)]
    """
    return itertools.product(*(range(n) for n in shape))


@functools.lru_cache(maxsize=16)
def coord_tuple(shape: Shape) -> tuple[Coord, ...]:
    """``tuple(coords(shape))``, made once per shape (a 65,536-device tensor is judged every step)."""
    return tuple(coords(shape))


@functools.lru_cache(maxsize=16)
def coord_set(shape: Shape) -> frozenset[Coord]:
    """Every coordinate of ``shape``, as a set: a membership test costs one look-up however large
    the mesh (checked one by one in Python, 65,536 coordinates made the 256x256 bench case quadratic).

    >>> sorted(coord_set((1, 2)))
    [(0, 0), (0, 1)]
    """
    return frozenset(coord_tuple(shape))


def volume(shape: Shape) -> int:
    """Number of elements (devices, for a mesh) in ``shape``; 1 for ``()``."""
    return math.prod(shape)


def system_of(arch: str, devices: int) -> Optional[str]:
    """The system of ``devices`` chips of ``arch`` (``wormhole_b0``, ``blackhole``), or None: a
    cluster's size names it, whatever mesh is opened on it (a 1x2 mesh of a T3K is a T3K).

    >>> system_of("blackhole", 4), system_of("wormhole_b0", 4)
    ('p150x4', None)
    """
    return _BY_SIZE.get((arch, devices))


_BY_SIZE = {(system.arch, volume(system.shape)): name for name, system in SYSTEMS.items()}
"""(architecture, chips) -> the system's name: one system of each size an architecture has."""
assert len(_BY_SIZE) == len(SYSTEMS)


def block(offset: Shape, shape: Shape) -> tuple[slice, ...]:
    """The index of the block of ``shape`` that starts at ``offset`` (a shard in its tensor).

    >>> block((0, 32), (1, 32))
    (slice(0, 1, None), slice(32, 64, None))
    """
    return tuple(map(slice, offset, map(operator.add, offset, shape)))


def coord_of(index: int, shape: Shape) -> Coord:
    """The coordinate of the ``index``-th device in row-major order: on 2x4, device 7 is ``(1, 3)``."""
    out = []
    for n in reversed(shape):
        index, c = divmod(index, n)
        out.append(c)
    return tuple(reversed(out))


def ranges(devices: Iterable[Coord]) -> tuple[CoordRange, ...]:
    """A set of devices as few inclusive boxes as a row-major sweep gives, in row-major order:
    on each leading index the rest's boxes, merged with the next index's when they are the same.

    Seven of a 2x4 mesh's eight devices (all but (1,3)), and a 4x4 mesh without its last column:

    >>> ranges([(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2)])
    (((0, 0), (0, 3)), ((1, 0), (1, 2)))
    >>> ranges([(r, c) for r in range(4) for c in range(3)])
    (((0, 0), (3, 2)),)
    """
    chosen = sorted(devices)  # linear on the row-major order writes come in
    return tuple(_boxes(chosen)) if chosen else ()


def _boxes(chosen: list[Coord]) -> list[CoordRange]:
    """:func:`ranges` of sorted coordinates of one rank (duplicates allowed)."""
    if len(chosen[0]) == 1:
        out: list[CoordRange] = []
        start = end = chosen[0][0]
        for (i,) in chosen:
            if i > end + 1:
                out.append(((start,), (end,)))
                start = i
            end = i
        out.append(((start,), (end,)))
        return out
    out = []
    block: Optional[list] = None  # [first index, last index, boxes of the rest]
    for head, group in itertools.groupby(chosen, key=lambda c: c[0]):
        rest = _boxes([c[1:] for c in group])
        if block is not None and block[1] == head - 1 and block[2] == rest:
            block[1] = head
            continue
        if block is not None:
            out += [((block[0],) + a, (block[1],) + b) for a, b in block[2]]
        block = [head, head, rest]
    assert block is not None
    out += [((block[0],) + a, (block[1],) + b) for a, b in block[2]]
    return out


def range_size(box: CoordRange) -> int:
    """Devices in an inclusive box: ``((0, 0), (1, 2))`` holds 6."""
    return math.prod(b - a + 1 for a, b in zip(*box))


def fmt_range(box: CoordRange) -> str:
    """``((0, 0), (1, 2))`` -> ``'(0,0)..(1,2)'``; a single device as itself."""
    start, end = box
    return fmt_coord(start) if start == end else f"{fmt_coord(start)}..{fmt_coord(end)}"


def fmt_coord(coord: Coord) -> str:
    """``(1, 3)`` -> ``'(1,3)'``, the compact form used in tables and messages."""
    return "(" + ",".join(map(str, coord)) + ")"


def fmt_shape(shape: Shape) -> str:
    """``(1, 1, 32, 32)`` -> ``'1x1x32x32'``; ``()`` -> ``'scalar'``."""
    return "x".join(map(str, shape)) if shape else "scalar"


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
