"""The tensors of one list (``get_device_tensors``' parts, ``parts[0]``, ``parts[1]`` ...) shown as one
thing: a title for them all, then a row per part in the table and one map holding every part, not a
block per part (eight parts of a T3K took about 200 lines).

:func:`grouped` finds them in a report's tensors (pure, on plain report data); the renderers of
:mod:`.table` and :mod:`.map` draw a :class:`PartGroup` where they drew a tensor. The JSON report
is unchanged: it lists every part as a tensor of its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property
from typing import Mapping, Optional, Union

from rich.console import Group, RenderableType
from rich.text import Text

from ..kinds import Kind
from ..report import TensorReport
from ..sim.mesh import Coord, Shape, fmt_shape
from .common import STATUS_STYLE, tensor_title
from .map import NONE, Cell, _compressed, _empty_cells, _full, _full_inner, align, device_text, sharded_dims, slice_text, whole_dims

PART = re.compile(r"(?P<base>.+)\[(?P<index>\d+)\]\Z")
"""A list item's name as the runtime binds it (``bind_list``): a scenario's own names hold no brackets."""


@dataclass(frozen=True)
class PartGroup:
    """Two or more tensors of one list: one base name, made by one step, with one storage."""

    base: str
    tensors: tuple[TensorReport, ...]

    @property
    def label(self) -> str:
        """``parts[0:7]``, the Python slice of the list that holds them (or their names, when their
        indices are not a run)."""
        idx = [int(PART.match(t.name)["index"]) for t in self.tensors]  # type: ignore[index]
        if idx == list(range(idx[0], idx[0] + len(idx))):
            return f"{self.base}[{idx[0]}:{idx[-1] + 1}]"
        return ", ".join(t.name for t in self.tensors)

    @cached_property  # (a table and a map ask; 16,384 parts of a 128x128 mesh share one topology)
    def whole(self) -> Optional[tuple[bool, ...]]:
        """:func:`~.map.whole_dims` over every part's devices, and split on a dim the topology of a
        part on fewer devices than it lists (its parent's) shards: the slices of one list are
        measured together, so ``parts[0]`` reads ``[:, :, :, 0:64]`` beside ``parts[1]``'s ``64:128``."""
        whole = whole_dims([v for t in self.tensors for v in t.devices])
        if whole is None:
            return None
        topologies = {id(t.topology): t.topology for t in self.tensors if len(t.devices) < len(t.topology.coords)}.values()
        split = frozenset().union(*(sharded_dims(topo, len(whole)) for topo in topologies))
        return tuple(w and d not in split for d, w in enumerate(whole))

    @cached_property
    def slices(self) -> dict[tuple[str, Coord], str]:
        """(part name, device) -> the global slice that device of that part holds."""
        whole = self.whole
        return {
            (t.name, v.coord): slice_text(v.offset, v.written_spec.shape if v.written_spec is not None else None, whole)
            for t in self.tensors
            for v in t.devices
        }


Shown = Union[TensorReport, PartGroup]


def grouped(tensors) -> list[Shown]:
    """``tensors`` in their order, with the parts of one list (the same base name, creation step,
    storage and plainness) as one :class:`PartGroup` where its first part was; a list of one part
    stays a tensor.

    >>> from meshspec.sim.placement import Topology
    >>> from meshspec.sim.spec import TensorSpec
    >>> t = lambda name: TensorReport(name, "device", TensorSpec((1, 32)), Topology((1,), (), ()), (), 3)
    >>> [getattr(s, "label", getattr(s, "name", None)) for s in grouped([t("x"), t("p[0]"), t("y"), t("p[1]")])]
    ['x', 'p[0:2]', 'y']
    """
    keys: dict[int, tuple] = {}
    members: dict[tuple, list[TensorReport]] = {}
    for t in tensors:
        m = PART.match(t.name)
        if m is not None:
            key = (m["base"], t.step, t.storage, t.plain)
            keys[id(t)] = key
            members.setdefault(key, []).append(t)
    out: list[Shown] = []
    placed: set[tuple] = set()
    for t in tensors:
        key = keys.get(id(t))
        if key is None or len(members[key]) < 2:
            out.append(t)
        elif key not in placed:
            placed.add(key)
            out.append(PartGroup(key[0], tuple(members[key])))
    return out


def group_title(g: PartGroup, meshes: tuple = ()) -> Text:
    """The first part's title, naming them all: ``parts[0:7]  device  1x1x32x32 bfloat16
    tile dram  topology (7) [S(1)] on 7 devices; 1 recorded each  (created at step 3)``. What the
    parts do not share is said per row (:func:`differing`)."""
    first = g.tensors[0]
    specs = list(dict.fromkeys(t.spec.describe() for t in g.tensors))
    spec = specs[0] if len(specs) == 1 else " or ".join(specs) if len(specs) <= 3 else f"{len(specs)} specs (see each row)"
    topology = str(first.topology) if "topology" not in differing(g) else "per part (a column below)"
    notes = set()
    for t in g.tensors:
        n = sum(v.recorded for v in t.devices)
        notes.add(n if {v.coord for v in t.devices if v.recorded} != t.topology.coord_set() else None)
    recorded = "" if notes == {None} else f"{notes.pop()} recorded each" if len(notes) == 1 else "recorded: see each row"
    return tensor_title(first, meshes, name=g.label, spec=spec, topology=topology, recorded=recorded)


def differing(g: PartGroup) -> set[str]:
    """What the parts do not all share, of what a tensor's title says: ``topology``."""
    return {"topology"} if len({str(t.topology) for t in g.tensors}) > 1 else set()


def group_cells(g: PartGroup, mesh_shape: Shape, ids: Optional[Mapping[Coord, int]] = None,
                marked: Optional[Coord] = None) -> Optional[dict[Coord, Cell]]:
    """One map of every part: each device's cell names the part held there. None when two parts are
    on one device (or a part is off the mesh): one cell cannot name both, so each is listed."""
    cells = {c: Cell(c, NONE, NONE, Kind.EMPTY, ids.get(c) if ids else None, label=NONE, marked=c == marked)
             for c in _empty_cells(tuple(mesh_shape))}
    taken: set[Coord] = set()
    slices = g.slices
    for t in g.tensors:
        for v in t.devices:
            if v.coord in taken or v.coord not in cells:
                return None
            taken.add(v.coord)
            recorded = fmt_shape(v.spec.shape) if v.recorded and v.spec is not None else NONE
            cells[v.coord] = Cell(v.coord, slices[(t.name, v.coord)], recorded, v.status, ids.get(v.coord) if ids else None,
                                  label=t.name, marked=v.coord == marked)
    return cells


def group_map(g: PartGroup, mesh_shape: Shape, *, width: int, styled: bool = True,
              ids: Optional[Mapping[Coord, int]] = None, marked: Optional[Coord] = None) -> RenderableType:
    """The parts on one map: the mesh's grid with each device's part named in its cell (compressed
    as a tensor's is on a big mesh, its findings listed with their parts), when no device holds two
    parts; else a row per device of each part."""
    cells = group_cells(g, mesh_shape, ids, marked)
    if cells is not None:
        inner = _full_inner(mesh_shape, cells.values(), width)
        return _full(cells, mesh_shape, inner, styled) if inner is not None else _compressed(cells, mesh_shape, width)
    slices = g.slices
    rows, statuses = [("part", "device", "status", "slice", "recorded")], []
    for t in g.tensors:
        for v in t.devices:
            rows.append((t.name, device_text(v.coord, ids.get(v.coord) if ids else None, v.coord == marked), v.status.value,
                         slices[(t.name, v.coord)], fmt_shape(v.spec.shape) if v.recorded and v.spec is not None else NONE))
            statuses.append(v.status)
    n, mesh = len({v.coord for t in g.tensors for v in t.devices}), "x".join(map(str, mesh_shape))
    out: list[RenderableType] = [Text(f"on {n} device{'s' * (n != 1)} of the {mesh} mesh (the others: empty)", style="dim")]
    if statuses:
        head, *lines = align(rows)
        out.append(Text(head, style="dim"))
        out += [Text(line, style=STATUS_STYLE[k]) for line, k in zip(lines, statuses)]
    return Group(*out)
