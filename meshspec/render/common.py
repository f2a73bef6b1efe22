"""What several renderers share: status colours, a tensor's title line, device sets in words."""

from __future__ import annotations

import json
import re
from typing import Optional

from rich.text import Text

from ..kinds import Kind
from ..report import TensorReport
from ..sim.mesh import Coord, CoordRange, coords, fmt_coord, fmt_range, fmt_shape, range_size, volume

#: The colour of each device status; every status is also spelled out, so colour is only a help.
STATUS_STYLE: dict[Kind, str] = {
    Kind.OK: "green",
    Kind.EMPTY: "dim",
    Kind.UNINITIALIZED: "dim",
    Kind.STALE: "bold red",
    Kind.PARTIAL: "bold yellow",
    Kind.LOST: "bold magenta",
    Kind.MISSING_SPEC: "bold cyan",
    Kind.SHAPE_MISMATCH: "bold blue",
}


def status_style(name: str, default: str = "bold red") -> str:
    """The colour of a status or finding kind by name (finding-only kinds get ``default``)."""
    try:
        return STATUS_STYLE.get(Kind(name), default)
    except ValueError:
        return default


def ids_of(t: TensorReport, meshes: tuple = ()) -> Optional[dict]:
    """Coordinate -> physical device id for a device tensor's coordinates: those of the mesh it is
    on, when its buffer's grid is that mesh's shape now (after a MeshDevice.reshape the old
    coordinates' ids are not known); None otherwise (a host tensor, a bare mesh shape)."""
    if t.storage != "device" or not meshes:
        return None
    mesh = next((m for m in meshes if m.name == t.mesh_device), None) if t.mesh_device else meshes[0]
    if mesh is None or mesh.device_ids is None or (t.grid is not None and tuple(t.grid) != tuple(mesh.shape)):
        return None
    return mesh.id_at()


def device_id_lines(meshes: tuple) -> list[str]:
    """The meshes' ``get_device_ids()`` as an ``expect`` entry that pastes into a scenario's profile
    block: ``device_ids: {mesh_device: [4, 0, 2, 6, 5, 1, 3, 7]}`` (docs/semantics.md section 17);
    nothing where no mesh's chips are known."""
    known = [(m.name, list(m.device_ids)) for m in meshes if m.device_ids is not None]
    if not known:
        return []
    plain = re.compile(r"[A-Za-z_][A-Za-z0-9_]*$")
    return ["device_ids: {" + ", ".join(f"{n if plain.match(n) else json.dumps(n)}: {ids}" for n, ids in known) + "}"]


def tensor_title(t: TensorReport, meshes: tuple = (), *, name: Optional[str] = None, spec: Optional[str] = None,
                 topology: Optional[str] = None, recorded: Optional[str] = None) -> Text:
    """``dst  device  1x1x32x32 bfloat16 tile dram  topology (2x4) [R, R] on 8 devices  (created at step 0)``;
    a mapped host tensor: ``src  host  1x7x32x32 in shards of 1x1x32x32 bfloat16 tile dram  topology ...``.

    A title for several tensors (a list's parts, :mod:`.parts`) passes what it says in their place:
    ``name``, ``spec`` and ``topology`` texts, and ``recorded``, the note of how many devices are
    recorded when that contradicts the topology (default: this tensor's count)."""
    title = Text()
    title.append(t.name if name is None else name, style="bold")
    title.append(f"  {t.storage}")
    if t.storage_kind in ("single-device", "borrowed"):  # what an era made of it (docs/semantics.md section 19)
        title.append(f" ({t.storage_kind} storage)", style="bold yellow")
    if t.storage == "deallocated":
        return title
    spec = t.spec.describe() if spec is None else spec
    if t.plain:
        title.append(f"  {spec}  " + ("a single host tensor (no mesh mapper): on no device" if name is None else
                                      "single host tensors (no mesh mapper): on no device"))
        title.append(f"  (created at step {t.step})")
        return title
    topology = str(t.topology) if topology is None else topology
    if t.storage == "host":
        # a host tensor's spec is its first shard's (tensor_spec(), issue #21652): say so
        whole = f"  {fmt_shape(t.shape)} in shards of" if t.shape is not None else "  shards of"
        title.append(f"{whole} {spec}  topology {topology}")
    else:
        title.append(f"  {spec}  topology {topology}")
    if t.storage == "device":
        if recorded is None:
            n = {v.coord for v in t.devices if v.recorded}
            if n != t.topology.coord_set():  # (made once for the parts that share a topology)
                recorded = f"{len(n)} recorded"
        if recorded:  # the record contradicts the topology (the current library's gap shows here)
            title.append(f"; {recorded}", style="bold yellow")
    where = next((m for m in meshes if m.name == t.mesh_device), None)
    if where is not None:  # its coordinates are the submesh's: say where that lies
        title.append(f"  on {where.describe()}")
    title.append(f"  (created at step {t.step})")
    return title


def fit_title(title: Text, width: int) -> Text:
    """A title no wider than ``width`` where it can be: broken before a field (fields are two spaces
    apart), so a continuation starts with those two spaces and a field is never split (rich would
    break ``(created at step 3)`` after ``step``). A field wider than ``width`` is left to wrap.

    >>> fit_title(Text("dst  device  1x1x32x32  (created at step 0)"), 30).plain.splitlines()
    ['dst  device  1x1x32x32', '  (created at step 0)']
    """
    plain = title.plain
    if len(plain) <= width or "\n" in plain:
        return title
    bounds = [m.start() for m in re.finditer(r"(?<! )  (?=\S)", plain)] + [len(plain)]
    pieces, start, fits = [], 0, 0
    for b in bounds:
        if b - start > width and fits > start:
            pieces.append(title[start:fits])
            start = fits
        if b - start <= width:
            fits = b
    pieces.append(title[start:])
    return Text("\n").join(pieces) if len(pieces) > 1 else title


def fmt_devices(devices: list[Coord], mesh_shape: Optional[tuple[int, ...]] = None, limit: int = 8) -> str:
    """A set of devices in words that cannot be misread: every one when few, else what the set
    leaves out of the mesh when that is shorter, else the first few and a count.

    >>> fmt_devices([(0, 0), (0, 1)])
    '(0,0) (0,1)'
    >>> fmt_devices([(r, c) for r in range(8) for c in range(4)][:-1], (8, 4))
    'all 32 devices but (7,3)'
    """
    chosen = sorted(set(devices))
    if len(chosen) <= limit:
        return " ".join(fmt_coord(c) for c in chosen)
    if mesh_shape is not None:
        everyone = list(coords(mesh_shape))
        missing = sorted(set(everyone) - set(chosen))
        if not missing:
            return f"all {len(everyone)} devices"
        if len(missing) <= 4:
            return f"all {len(everyone)} devices but {' '.join(fmt_coord(c) for c in missing)}"
    head = " ".join(fmt_coord(c) for c in chosen[:3])
    return f"{len(chosen)} devices: {head} and {len(chosen) - 3} more"


def fmt_ranges(boxes: tuple[CoordRange, ...], mesh_shape: Optional[tuple[int, ...]] = None, limit: int = 8) -> str:
    """:func:`fmt_devices` for devices given as boxes, without listing a big set one by one:
    few devices by name, all or all-but-a-few of the mesh as such, else the boxes.

    >>> fmt_ranges((((0, 0), (3, 2)),), (8, 8))
    '(0,0)..(3,2) (12 devices)'
    """
    total = sum(range_size(b) for b in boxes)
    near_all = mesh_shape is not None and total >= volume(mesh_shape) - 4
    if total <= limit or near_all:
        return fmt_devices([c for a, b in boxes for c in _box_coords(a, b)], mesh_shape, limit)
    shown = " ".join(fmt_range(b) for b in boxes[:4])
    more = f" and {len(boxes) - 4} more boxes" if len(boxes) > 4 else ""
    return f"{shown}{more} ({total} devices)"


def _box_coords(start: Coord, end: Coord) -> list[Coord]:
    shape = tuple(b - a + 1 for a, b in zip(start, end))
    return [tuple(a + i for a, i in zip(start, c)) for c in coords(shape)]
