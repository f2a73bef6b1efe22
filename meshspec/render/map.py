"""Mesh map: one tensor drawn as a grid shaped like the mesh, one cell per device (issue 4, section 1).

Layout is computed by pure functions on plain data (cells, slice texts, glyph rows); only
:func:`map_renderable` and :func:`legend` build rich renderables.

A cell shows the device's coordinate, the global slice it holds, the recorded shape and the
status word, so the map says everything without colour::

    ┌────────────────┐
    │ (1,3) id 7     │   coordinate, and the physical device id where the system's chips are known
    │ -              │   slice of the current content held here (``-``: none)
    │ 1x1x32x32      │   recorded shape (``-``: not recorded)
    │ stale          │   status
    └────────────────┘

Slice text (:func:`slice_text`): numpy/torch style, one entry per tensor dim. A dim is written
``:`` when it is not split across devices: every device holding current content has offset 0 and
the same extent on it, and, when fewer devices hold content than the tensor's topology lists, the
topology shards no mesh axis of two or more devices on it. Otherwise it is ``start:stop`` (from
the device's offset and the shape of the shard written there). The global shape is not known to a
map, so ``:`` never means "the whole dim of some larger tensor", only "the same, unsplit range on
every device". A tensor held by one device (a get_device_tensors part) is split where its topology
says: ``parts[0]`` of a tensor sharded on dim 3 is ``[:, :, :, 0:64]``, as ``parts[1]`` is
``[:, :, :, 64:128]``; the parts of one list are measured together (:mod:`.parts`).

Colour: the status colour of the table view (``common.STATUS_STYLE``) for the cell's text; devices
holding the same slice as another device (replicas) share a background tone from
:data:`REPLICA_TONES`, in order of first appearance (cycling when there are more replica groups
than tones). A slice held by one device only gets no tone.

Compressed view: when the mesh has more than :data:`MAX_FULL_DEVICES` devices, or the full grid is
wider than the width given, each device is one glyph (:data:`GLYPHS`), with column rulers, row
labels, consecutive identical rows merged (``rows 0-30``), a count per status above and the devices
whose status is a finding listed below (at most :data:`MAX_LISTED`, then a count of the rest).
Grids wider than the width are cut into column bands (``cols 0-99``), never wrapped.

Meshes of three or more dims are drawn as a series of 2-D planes titled by their leading
coordinates (``[0, :, :]``); a 1-D mesh ``(n)`` is one row.

Host tensors: devices without a shard are drawn as ``empty``.
"""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Mapping, Optional, Sequence

from rich.console import Group, RenderableType
from rich.text import Text

from ..kinds import STATUSES, Kind
from ..report import DeviceView, TensorReport
from ..sim.dims import dim_index
from ..sim.placement import Shard, Topology
from ..sim.mesh import Coord, Shape, coords, fmt_coord, fmt_shape, volume
from .common import STATUS_STYLE
from .grid import boxed

#: One character per status in the compressed view (in the legend's order).
GLYPHS: dict[Kind, str] = {
    Kind.OK: ".",
    Kind.STALE: "S",
    Kind.PARTIAL: "P",
    Kind.LOST: "L",
    Kind.MISSING_SPEC: "M",
    Kind.SHAPE_MISMATCH: "X",
    Kind.EMPTY: "_",
    Kind.UNINITIALIZED: "u",
}

#: Background tones shared by replicas (chosen to stay apart from the status colours, also when
#: rich downgrades them to the 16 standard colours: grey, blue, cyan, bright blue).
REPLICA_TONES: tuple[str, ...] = ("grey23", "navy_blue", "turquoise4", "dodger_blue3")

#: Meshes with more devices than this are always shown compressed.
MAX_FULL_DEVICES = 64

#: Devices listed under a compressed map, at most.
MAX_LISTED = 10

NONE = "-"


# --------------------------------------------------------------------------- pure layout


@dataclass(frozen=True)
class Cell:
    """What one device's cell says, as text."""

    coord: Coord
    slice: str
    """Global slice of the current content held there (``-`` when none)."""
    recorded: str
    """Recorded shape (``-`` when not recorded)."""
    status: Kind
    device_id: Optional[int] = None
    """The physical device id there (``get_device_ids()``), shown beside the coordinate; None where
    not known (docs/semantics.md section 17)."""
    label: str = ""
    """The tensor held there, in a map of several (a list's parts): its name; empty otherwise."""
    marked: bool = False
    """The device ``--device`` names: its coordinate is bracketed, ``[(1,3) id 7]``."""

    @cached_property  # asked for its width, then drawn: made once
    def lines(self) -> tuple[str, ...]:
        device = device_text(self.coord, self.device_id, self.marked)
        if self.label:
            return (device, self.label, self.slice, self.recorded, self.status.value)
        return (device, self.slice, self.recorded, self.status.value)


def device_text(coord: Coord, device_id: Optional[int], marked: bool = False) -> str:
    """A device as a map shows it: ``(1,3) id 7``, the coordinate as a scenario writes it (a
    ``device:`` key) and the physical id beside it; the coordinate alone where no id is known.
    ``marked`` (the device ``--device`` names): in brackets, so it stands out without colour.

    >>> device_text((1, 3), 7, marked=True)
    '[(1,3) id 7]'
    """
    text = fmt_coord(coord) if device_id is None else f"{fmt_coord(coord)} id {device_id}"
    return f"[{text}]" if marked else text


def whole_dims(views: Iterable[DeviceView], topology: Optional[Topology] = None) -> Optional[tuple[bool, ...]]:
    """Per tensor dim: is it unsplit (offset 0 and the same extent on every device holding content)?
    When fewer devices hold content than ``topology`` lists (a get_device_tensors part, with its
    parent's topology), a dim the topology shards over two or more devices is split as well: what
    one device holds is then no evidence of the whole.

    None when no device holds content.

    >>> from meshspec.sim.spec import TensorSpec
    >>> def held(offset, shape):
    ...     return DeviceView((0,), True, None, 0, TensorSpec(shape), offset, Kind.OK, None, None)
    >>> whole_dims([held((0, 0, 0), (1, 2, 32)), held((0, 2, 0), (1, 2, 32))])
    (True, False, True)
    >>> from meshspec.sim.placement import Shard
    >>> whole_dims([held((0, 0, 0), (1, 2, 32))], Topology((8,), (Shard(-1),), tuple((i,) for i in range(8))))  # one part of 8
    (True, True, False)
    """
    held = [(v.offset, v.written_spec.shape) for v in views if v.offset is not None and v.written_spec is not None]
    if not held:
        return None
    rank = len(held[0][0])
    split = sharded_dims(topology, rank) if topology is not None and len(held) < len(topology.coords) else frozenset()
    return tuple(
        d not in split and all(off[d] == 0 for off, _ in held) and len({shape[d] for _, shape in held}) == 1 for d in range(rank)
    )


def sharded_dims(topology: Topology, rank: int) -> frozenset[int]:
    """The tensor dims ``topology`` shards over two or more devices (a shard over one device splits
    nothing).

    >>> from meshspec.sim.placement import Replicate, Shard
    >>> sorted(sharded_dims(Topology((2, 4), (Shard(0), Shard(-1)), ()), 4)), sharded_dims(Topology((1,), (Shard(1),), ()), 4)
    ([0, 3], frozenset())
    """
    if not rank:
        return frozenset()
    return frozenset(dim_index(p.dim, rank) for p, n in zip(topology.placements, topology.distribution_shape) if isinstance(p, Shard) and n > 1)


def slice_text(offset: Optional[Shape], shape: Optional[Shape], whole: Optional[Sequence[bool]]) -> str:
    """The slice a device holds: ``:`` on unsplit dims, ``start:stop`` on split ones.

    >>> slice_text((0, 3, 0, 0), (1, 1, 32, 32), (True, False, True, True))
    '[:, 3:4, :, :]'
    >>> slice_text(None, None, None)
    '-'
    """
    if offset is None or shape is None:
        return NONE
    whole = whole or (False,) * len(offset)
    parts = [":" if w else f"{o}:{o + n}" for o, n, w in zip(offset, shape, whole)]
    return "[" + ", ".join(parts) + "]"


def cells_of(tensor: TensorReport, mesh_shape: Shape, ids: Optional[Mapping[Coord, int]] = None,
             marked: Optional[Coord] = None) -> dict[Coord, Cell]:
    """Every device of the mesh as a cell; a device missing from ``tensor.devices`` (a host
    tensor's device without a shard) is ``empty``. ``ids``: the physical id at each coordinate;
    ``marked``: the device ``--device`` names."""
    whole = whole_dims(tensor.devices, tensor.topology)
    out = dict(_empty_cells(tuple(mesh_shape)))
    if ids or marked is not None:
        out = {c: Cell(c, NONE, NONE, Kind.EMPTY, ids.get(c) if ids else None, marked=c == marked) for c in out}
    for v in tensor.devices:
        shape = v.written_spec.shape if v.written_spec is not None else None
        recorded = fmt_shape(v.spec.shape) if v.recorded and v.spec is not None else NONE
        out[v.coord] = Cell(v.coord, slice_text(v.offset, shape, whole), recorded, v.status, ids.get(v.coord) if ids else None,
                            marked=v.coord == marked)
    return out


@functools.lru_cache(maxsize=4)
def _empty_cells(mesh_shape: Shape) -> dict[Coord, Cell]:
    """Every device of the mesh as an empty cell, made once per mesh: cells are values, and the
    maps of a tensor's many parts (get_device_tensors) each start from all of them."""
    return {c: Cell(c, NONE, NONE, Kind.EMPTY) for c in coords(mesh_shape)}


def replica_tones(cells: Iterable[Cell], tones: Sequence[str] = REPLICA_TONES) -> dict[str, str]:
    """Slice text -> background tone, for slices held by two or more devices.

    >>> replica_tones([Cell((0,), "[0:1]", "-", Kind.OK), Cell((1,), "[0:1]", "-", Kind.OK),
    ...                Cell((2,), "[1:2]", "-", Kind.OK)], ("grey23",))
    {'[0:1]': 'grey23'}
    """
    counts = Counter(c.slice for c in cells if c.slice != NONE)
    shared = [s for s in counts if counts[s] > 1]  # Counter keeps first-seen order
    return {s: tones[i % len(tones)] for i, s in enumerate(shared)}


@dataclass(frozen=True)
class Plane:
    """One 2-D plane of the mesh: its title (``[0, :, :]``, empty for 1-D/2-D meshes) and its
    device coordinates, row by row."""

    title: str
    rows: tuple[tuple[Coord, ...], ...]


def planes(mesh_shape: Shape) -> list[Plane]:
    """The mesh as 2-D planes: a 1-D mesh is one row, a 2-D mesh one plane, higher ranks one plane
    per leading coordinate.

    >>> [p.title for p in planes((2, 1, 3))]
    ['[0, :, :]', '[1, :, :]']
    >>> planes((3,))[0].rows
    (((0,), (1,), (2,)),)
    """
    if len(mesh_shape) == 1:
        return [Plane("", (tuple((i,) for i in range(mesh_shape[0])),))]
    *lead, nrows, ncols = mesh_shape
    out = []
    for head in itertools.product(*(range(n) for n in lead)):
        rows = tuple(tuple((*head, r, c) for c in range(ncols)) for r in range(nrows))
        title = "[" + ", ".join([*(str(h) for h in head), ":", ":"]) + "]" if head else ""
        out.append(Plane(title, rows))
    return out


def cell_width(cells: Iterable[Cell]) -> int:
    """Width of the widest line of any cell (every column of the full grid gets this width)."""
    return max((len(line) for c in cells for line in c.lines), default=1)


def full_grid_width(ncols: int, inner: int) -> int:
    """Width of the boxed full grid: a border, then per column 1 + inner + 1 padding and a border."""
    return ncols * (inner + 3) + 1


def fits_full(mesh_shape: Shape, cells: Iterable[Cell], width: int) -> bool:
    """Whether the full grid is drawn: at most MAX_FULL_DEVICES devices and no wider than ``width``."""
    return _full_inner(mesh_shape, cells, width) is not None


def _full_inner(mesh_shape: Shape, cells: Iterable[Cell], width: int) -> Optional[int]:
    """The full grid's cell width when it is drawn, else None. The cells' text is measured only
    for a mesh small enough for the full grid: a map per part of a 32x32 mesh measured a million."""
    if volume(mesh_shape) > MAX_FULL_DEVICES:
        return None
    inner = cell_width(cells)
    return inner if full_grid_width(mesh_shape[-1], inner) <= width else None


def glyph_row(cells: dict[Coord, Cell], row: Sequence[Coord]) -> str:
    """One row of the compressed grid, one glyph per device."""
    return "".join(GLYPHS[cells[c].status] for c in row)


def merge_rows(rows: Sequence[str]) -> list[tuple[int, int, str]]:
    """Runs of consecutive identical rows as ``(first, last, row)``.

    >>> merge_rows(["..", "..", ".S", ".."])
    [(0, 1, '..'), (2, 2, '.S'), (3, 3, '..')]
    """
    out: list[tuple[int, int, str]] = []
    for i, row in enumerate(rows):
        if out and out[-1][2] == row:
            out[-1] = (out[-1][0], i, row)
        else:
            out.append((i, i, row))
    return out


def row_label(first: int, last: int) -> str:
    """``row 3`` or ``rows 0-30``."""
    return f"row {first}" if first == last else f"rows {first}-{last}"


def ruler(start: int, stop: int) -> list[str]:
    """Column rulers for columns ``start..stop-1``: the index of the first and of every tenth
    column (only when there are more than ten columns), then the last digit of every column.

    >>> ruler(0, 12)
    ['0         10', '012345678901']
    >>> ruler(0, 4)
    ['0123']
    """
    units = "".join(str(c % 10) for c in range(start, stop))
    if stop - start <= 10:
        return [units]
    tens = ""
    for c in range(start, stop):
        if c % 10 == 0 or c == start:
            tens = tens.ljust(c - start) + str(c)
    return [tens, units]


def bands(ncols: int, room: int) -> list[tuple[int, int]]:
    """Column ranges ``[start, stop)`` that fit ``room`` characters (whole tens when cut).

    >>> bands(32, 100)
    [(0, 32)]
    >>> bands(250, 100)
    [(0, 90), (90, 180), (180, 250)]
    """
    if max(len(line) for line in ruler(0, ncols)) <= room:
        return [(0, ncols)]
    step = max(10, (room - 4) // 10 * 10)  # keep room for the last ruler number
    return [(s, min(s + step, ncols)) for s in range(0, ncols, step)]


def status_counts(cells: Iterable[Cell]) -> str:
    """``1024 devices: 1023 ok, 1 stale`` (statuses in their declared order)."""
    cells = list(cells)
    counts = Counter(c.status for c in cells)
    parts = [f"{counts[s]} {s.value}" for s in STATUSES if counts[s]]
    n = len(cells)
    return f"{n} device{'s' * (n != 1)}: " + ", ".join(parts)


def finding_rows(cells: Iterable[Cell], limit: int = MAX_LISTED) -> tuple[list[Cell], int]:
    """Devices whose status is a finding, at most ``limit``, and how many were left out."""
    found = [c for c in cells if c.status.is_finding]
    return found[:limit], max(0, len(found) - limit)


def align(rows: Sequence[Sequence[str]], indent: str = "  ", gap: str = "  ") -> list[str]:
    """Rows of text cells as left-aligned columns (no trailing blanks).

    >>> align([("device", "status"), ("(31,31)", "stale")])
    ['  device   status', '  (31,31)  stale']
    """
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    return [(indent + gap.join(t.ljust(w) for t, w in zip(r, widths))).rstrip() for r in rows]


@dataclass(frozen=True)
class Line:
    """One line of a compressed map, as plain text plus what the renderer needs to colour it."""

    kind: str
    """``counts``, ``title``, ``band``, ``ruler``, ``row``, ``heading``, ``header``, ``device`` or ``more``."""
    text: str
    glyphs_at: int = 0
    """For a ``row``: where its glyphs start in ``text``."""
    status: Optional[Kind] = None
    """For a ``device``: its status."""


def compressed_lines(cells: dict[Coord, Cell], mesh_shape: Shape, width: int) -> list[Line]:
    """The compressed map as lines: status counts; per plane (titled for 3-D and larger meshes)
    and per column band (when the grid is wider than ``width``), the column rulers and one line
    per run of identical rows; then the devices whose status is a finding, and the device
    ``--device`` names (a glyph cannot be bracketed)."""
    one_dim = len(mesh_shape) == 1
    # plain data first: (plane title, bands of (start, stop, merged rows)); labels need the widest
    nrows = 1 if one_dim else mesh_shape[-2]
    widest = len(f"rows {nrows - 1}-{nrows - 1}")  # no label is longer
    room = width - (0 if one_dim else widest + 1)
    layout = []
    for plane in planes(mesh_shape):
        spans = []
        for start, stop in bands(len(plane.rows[0]), room):
            glyphs = [glyph_row(cells, row[start:stop]) for row in plane.rows]
            spans.append((start, stop, merge_rows(glyphs)))
        layout.append((plane.title, spans))
    labels = [row_label(a, b) for _, spans in layout for _, _, runs in spans for a, b, _ in runs]
    label_w = 0 if one_dim else max(len(label) for label in labels)
    pad = " " * (label_w + 1) if label_w else ""

    lines = [Line("counts", status_counts(cells.values()))]
    for title, spans in layout:
        if title:
            lines.append(Line("title", title))
        for start, stop, runs in spans:
            if len(spans) > 1:
                lines.append(Line("band", f"cols {start}-{stop - 1}"))
            lines += [Line("ruler", pad + r) for r in ruler(start, stop)]
            for first, last, glyphs in runs:
                label = (row_label(first, last).ljust(label_w) + " ") if label_w else ""
                lines.append(Line("row", label + glyphs, glyphs_at=len(label)))
    found, more = finding_rows(cells.values())
    if found:
        n = len(found) + more
        lines.append(Line("heading", f"findings on {n} device{'s' * (n != 1)}:"))
        table = [("device", "status", "slice", "recorded")]
        table += [(device_text(c.coord, c.device_id, c.marked), c.status.value, c.slice, c.recorded) for c in found]
        if any(c.label for c in found):  # a map of a list's parts: which part each is
            table = [("part", *table[0]), *((c.label, *row) for c, row in zip(found, table[1:]))]
        head, *rows = align(table)
        lines.append(Line("header", head))
        lines += [Line("device", text, status=c.status) for text, c in zip(rows, found)]
        if more:
            lines.append(Line("more", f"  ... and {more} more"))
    for c in cells.values():
        if c.marked:
            table = [("device", "status", "slice", "recorded"), (device_text(c.coord, c.device_id, True), c.status.value, c.slice,
                                                                c.recorded)]
            if c.label:
                table = [("part", *table[0]), (c.label, *table[1])]
            head, row = align(table)
            lines += [Line("heading", "--device:"), Line("header", head), Line("device", row, status=c.status)]
    return lines


# --------------------------------------------------------------------------- rich rendering


def legend(marked: Optional[Coord] = None) -> Text:
    """The status colours and words, with the glyph each has in a compressed map; the mark of the
    device ``--device`` names, when one is."""
    text = Text("legend:")
    for status in GLYPHS:
        text.append("  ")
        text.append(f"{GLYPHS[status]} {status.value}", style=STATUS_STYLE[status])
    text.append("\nsame background: same slice on several devices (replicas)", style="dim")
    if marked is not None:
        text.append(f"\n{device_text(marked, None, True)}: the device --device names", style="dim")
    return text


def map_renderable(tensor: TensorReport, mesh_shape: tuple[int, ...], *, width: int, styled: bool = True,
                   ids: Optional[Mapping[Coord, int]] = None, marked: Optional[Coord] = None) -> RenderableType:
    """The mesh map of one tensor: the full grid when it fits ``width`` (and the mesh has at most
    MAX_FULL_DEVICES devices), else the compressed one. The caller prints the tensor's title and
    the :func:`legend`. ``ids``: the physical device id at each coordinate, shown beside it;
    ``marked``: the device ``--device`` names, bracketed (and reversed in colour)."""
    if tensor.storage == "deallocated":
        return Text("deallocated: no device holds it", style="dim")
    if drawn_as_list(tensor, mesh_shape):
        return _listed(tensor, mesh_shape, ids, marked)
    cells = cells_of(tensor, mesh_shape, ids, marked)
    inner = _full_inner(mesh_shape, cells.values(), width)
    if inner is not None:
        return _full(cells, mesh_shape, inner, styled)
    return _compressed(cells, mesh_shape, width)


def drawn_as_list(tensor: TensorReport, mesh_shape: Shape) -> bool:
    """Whether a tensor's map is the list of its own devices, not a grid of the mesh: a tensor on
    at most MAX_LISTED devices of a mesh too big for the full grid (a get_device_tensors part). Its
    cost is then its devices', not the mesh's: 16,384 parts of a 128x128 mesh, each drawn as a
    compressed map of 16,384 cells, ran for minutes (issue 34)."""
    return volume(mesh_shape) > MAX_FULL_DEVICES and len(tensor.devices) <= MAX_LISTED


def map_cells(tensor: TensorReport, mesh_shape: Shape) -> int:
    """Cells the map view makes for ``tensor``: what drawing it costs (cli.py's estimate)."""
    if tensor.storage == "deallocated":
        return 0
    return len(tensor.devices) if drawn_as_list(tensor, mesh_shape) else volume(mesh_shape)


def _listed(tensor: TensorReport, mesh_shape: Shape, ids: Optional[Mapping[Coord, int]] = None,
            marked: Optional[Coord] = None) -> Group:
    n, mesh = len(tensor.devices), "x".join(map(str, mesh_shape))
    parts: list[RenderableType] = [Text(f"on {n} device{'s' * (n != 1)} of the {mesh} mesh (the others: empty)", style="dim")]
    if n:
        whole = whole_dims(tensor.devices, tensor.topology)
        rows = [("device", "status", "slice", "recorded")]
        for v in tensor.devices:
            shape = v.written_spec.shape if v.written_spec is not None else None
            rows.append((device_text(v.coord, ids.get(v.coord) if ids else None, v.coord == marked), v.status.value,
                         slice_text(v.offset, shape, whole),
                         fmt_shape(v.spec.shape) if v.recorded and v.spec is not None else NONE))
        head, *lines = align(rows)
        parts.append(Text(head, style="dim"))
        parts += [Text(line, style=STATUS_STYLE[v.status]) for line, v in zip(lines, tensor.devices)]
    return Group(*parts)


def _full(cells: dict[Coord, Cell], mesh_shape: Shape, inner: int, styled: bool = True) -> Group:
    tones = replica_tones(cells.values())
    parts: list[RenderableType] = []
    for plane in planes(mesh_shape):
        if plane.title:
            parts.append(Text(plane.title, style="bold"))
        parts.append(boxed([[_cell(cells[c], tones) for c in row] for row in plane.rows], inner, styled=styled))
    return Group(*parts)


def _cell(cell: Cell, tones: dict[str, str]) -> tuple[Sequence[str], str, str]:
    tone = tones.get(cell.slice)
    style = STATUS_STYLE[cell.status] + (" reverse" if cell.marked else "")
    return cell.lines, style, f"on {tone}" if tone else ""


_STATUS_OF_GLYPH = {g: s for s, g in GLYPHS.items()}
_NO_WRAP = {"ruler", "row", "header", "device"}
_LINE_STYLE = {"title": "bold", "band": "dim", "ruler": "dim", "heading": "bold", "header": "dim", "more": "dim"}


def _compressed(cells: dict[Coord, Cell], mesh_shape: Shape, width: int) -> Group:
    parts = []
    for line in compressed_lines(cells, mesh_shape, width):
        if line.kind == "row":
            text = Text(line.text[: line.glyphs_at])
            for g in line.text[line.glyphs_at :]:
                text.append(g, style=STATUS_STYLE[_STATUS_OF_GLYPH[g]])
        elif line.kind == "device":
            text = Text(line.text, style=STATUS_STYLE[line.status])
        else:
            text = Text(line.text, style=_LINE_STYLE.get(line.kind, ""))
        if line.kind in _NO_WRAP:  # on a console narrower than asked for: cut, never wrap
            text.no_wrap, text.overflow = True, "ellipsis"
        parts.append(text)
    return Group(*parts)
