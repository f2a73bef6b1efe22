"""Findings: where a runtime's record disagrees with what was written (docs/semantics.md section 7).

Judged here and nowhere else. Per device, three things are compared: the *record* (does the
runtime say the device holds data, with which spec), the *content* (did the write that defines
the tensor's current content reach this device, with which shard), and what a *reader* got back.
:func:`device_views` gives every device's :class:`~meshspec.report.DeviceView` (its status in the
vocabulary of :mod:`meshspec.kinds`); :func:`findings_of` turns the views into findings; the
:class:`Judge` does both step by step, re-judging only the tensors a step touched, and turns the
runtime's events (compositions, uses after free, tensors going away) into findings too.
"""

from __future__ import annotations

import math
import weakref
from itertools import compress, repeat
from operator import is_
from typing import Optional

import numpy as np

from ..kinds import Kind
from ..report import DeviceView, Finding, Readback, TensorReport, slice_text as _slice_text
from ..sim.device import Write
from ..sim.dims import dim_index, normal_dim
from ..sim.events import Composed, DoubleFree, Event, Loaded, Retired, Shown, UseAfterFree
from ..sim.placement import Partial, Replicate, Shard, as_label
from ..sim.mesh import Coord, Shape, block, fmt_coord, fmt_shape, ttnn_shape, volume
from ..sim.spec import TensorSpec
from ..sim.tensor import DeviceTensor, HostShard, HostTensor, Provenance, Read, ReadOrigin, Tensor
from ..sim.values import MANTISSA_BITS, ShapeOnly, count_different, differences
from .values import EARLY_BYTES, Digests


def _status(
    recorded: bool, spec: Optional[TensorSpec], written: Optional[TensorSpec], content_bytes: int, has_content: bool
) -> Kind:
    if spec is None and (recorded or written is not None):
        return Kind.MISSING_SPEC
    if recorded:
        if written is None:
            return Kind.STALE if has_content else Kind.UNINITIALIZED
        if content_bytes < spec.buffer_bytes:  # type: ignore[union-attr]
            return Kind.PARTIAL
        if not _same_page_shape(written, spec):  # type: ignore[arg-type]
            return Kind.SHAPE_MISMATCH  # (a view that keeps the pages as they are reads the same bytes)
        return Kind.OK
    return Kind.LOST if written is not None else Kind.EMPTY


def _pages(spec: TensorSpec) -> Shape:
    """The shape as its pages see it: in TILE layout the last two dims (the tiles) and how many
    such planes; in ROW_MAJOR the last dim (a page is a row) and how many rows. A view
    (``ttnn.view``, a tile-keeping reshape, squeeze) changes the shape but not this, and reads the
    same bytes: (1, 2, 1, 32, 32) and (2, 32, 32) in TILE, (1, 1, 32, 32) and (2, 16, 32) in ROW_MAJOR.

    >>> from meshspec.sim.spec import DataType, Layout, make_spec
    >>> _pages(make_spec((1, 2, 16, 32), DataType.BFLOAT16, Layout.ROW_MAJOR)) == _pages(make_spec((32, 32), DataType.BFLOAT16, Layout.ROW_MAJOR))
    True
    """
    dims = tuple(spec.shape)
    keep = 2 if spec.layout.value == "tile" else 1
    lead = 1
    for d in dims[:-keep]:
        lead *= d
    return (lead,) + dims[-keep:]


def _same_page_shape(a: TensorSpec, b: TensorSpec) -> bool:
    """``_pages(a) == _pages(b)``, worked out only when the shapes or layouts differ: a device is
    usually written with the shape and layout it is recorded with, and the two ``_pages`` of
    that case were 12,000 of the 65,000 instructions of finding a small tensor's lying devices."""
    return (a.shape == b.shape and a.layout is b.layout) or _pages(a) == _pages(b)


def _same_pages(a: TensorSpec, b: TensorSpec) -> bool:
    """Whether two specs hold the same pages in the same order (one is a view of the other)."""
    return a.layout == b.layout and _same_page_shape(a, b)


def _host_grid(t: HostTensor) -> Optional[Shape]:
    """The mesh shape a mapped host tensor's shard coordinates are on (its host buffer's), when
    every shard is on it."""
    shape = t.buffer_shape
    if t.plain or shape is None or not all(len(c) == len(shape) and all(0 <= x < n for x, n in zip(c, shape)) for c in t.shards):
        return None
    return tuple(shape)


def device_views(tensor: Tensor, mesh_shape: Shape) -> list[DeviceView]:
    """Every device of a device tensor, or every shard of a host tensor, with its status."""
    if isinstance(tensor, DeviceTensor):
        return _device_tensor_views(tensor, mesh_shape)
    return _host_views(tensor)


def _device_tensor_views(t: DeviceTensor, mesh_shape: Shape, only_findings: bool = False) -> list[DeviceView]:
    """Every device's view; with ``only_findings``, the devices whose status is a finding only
    (a step needs just those: a mesh of 65,536 ok devices costs a dictionary look-up each, no
    view: devices with the same record, spec and write spec have the same status)."""
    if t.freed_step is None:
        # a tensor's devices are those of the mesh its buffer was allocated on (a submesh's, or the
        # scenario's mesh before a reshape)
        chosen = _lying_devices(t) if only_findings else t.devices
        return [_device_view(t, c) for c in chosen]
    return []


def _lying_devices(t: DeviceTensor) -> list[Coord]:
    """The devices whose status is a finding. A device's status follows from whether it is
    recorded, its recorded spec and the write it last got (one object per spec a step wrote), so
    the devices are keyed by those three (spec and write by identity) and each distinct key, a
    handful on any mesh, is judged once.

    The common case, every device recorded alike with one spec object, is keyed by the write
    alone: two look-ups a device, an identity scan of a plain list, a set operation or two and no
    object made per device. Otherwise each device's key tuple is made when it is used and freed
    at once: holding 65,536 of them (fresh memory the cache no longer holds) made a device cost
    more on a larger mesh."""
    devices = t.devices
    if not devices:
        return []
    rec = t.record
    specs = list(map(rec.specs.get, devices))
    writes = list(map(t.buffer.last_write.get, devices))
    spec, is_recorded = specs[0], _held_by_all(rec.recorded_set, devices)
    if is_recorded is not None and all(map(is_, specs, repeat(spec))):
        lie = {w: _lies(t, is_recorded, spec, w) for w in set(writes)}
        if not any(lie.values()):
            return []
        return list(devices) if all(lie.values()) else list(compress(devices, map(lie.__getitem__, writes)))
    # keyed by all three; the keys are made as they are used and dropped at once, never held
    # one per device (specs are held by the list, so their ids stay theirs)
    recorded = list(map(rec.recorded_set.__contains__, devices))
    spec_of = dict(zip(map(id, specs), specs))
    lie_by = {key: _lies(t, key[0], spec_of[key[1]], key[2]) for key in set(zip(recorded, map(id, specs), writes))}
    if not any(lie_by.values()):
        return []
    return list(compress(devices, map(lie_by.__getitem__, zip(recorded, map(id, specs), writes))))


def same_content(a, b) -> bool:
    """Whether two devices' contents, as a :class:`~meshspec.sim.events.Shown` records them, are
    provably the same data: equal values read, or the same slice of one write (None: not known,
    so not the same).

    >>> a = np.arange(4.0)
    >>> same_content(a, a.copy()), same_content(a, a + 1), same_content(a, None)
    (True, False, False)
    """
    if a is None or b is None:
        return False
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    return a[0] is b[0] and a[1] == b[1]


def _held_by_all(held: frozenset[Coord], devices: tuple[Coord, ...]) -> Optional[bool]:
    """True when every device is in ``held``, False when none is, None when some are: set
    operations in C instead of a bool per device in a list and a scan of it (that list and scan
    were 13,000 of the 65,000 instructions of finding the lying devices of a small tensor)."""
    if held.issuperset(devices):
        return True
    return False if held.isdisjoint(devices) else None


def _lies(t: DeviceTensor, recorded: bool, spec: Optional[TensorSpec], last: Optional[Write]) -> bool:
    """Whether a device so recorded, with that spec and that last write, is a finding."""
    content = t.content_step
    current = last if last is not None and last.step == content else None
    written = current.spec if current is not None else None
    return _status(recorded, spec, written, current.content_bytes if current is not None else 0, content is not None).is_finding


def _device_view(t: DeviceTensor, c: Coord) -> DeviceView:
    rec = t.record
    recorded = c in rec.recorded_set
    spec = rec.specs.get(c)
    old = t.buffer.last_write.get(c)
    write = old if old is not None and old.step == t.content_step else None
    if write is not None:
        status = _status(recorded, spec, write.spec, write.content_bytes, t.content_step is not None)
    else:
        status = _status(recorded, spec, None, 0, t.content_step is not None)
    return DeviceView(  # by position, in the fields' order (by keyword: about 4,000 more instructions a view)
        c,
        recorded,
        spec,
        t.buffer.written_bytes(c),  # written_bytes
        write.spec if write else None,  # written_spec
        write.offset_at(c) if write else None,  # offset
        status,
        rec.origin.get(c),  # record_step
        write.step if write else (old.step if old else None),  # write_step
        _detail(status, spec, write, old),
    )


def _detail(status: Kind, spec, write, old) -> str:
    if status is Kind.STALE:
        if old is not None:
            return f"holds superseded data from step {old.step}; the current content never reached it"
        return "never written since allocation"
    if status is Kind.SHAPE_MISMATCH:
        return f"recorded {spec.describe()}, written {write.spec.describe()}"
    if status is Kind.PARTIAL and write.pages is not None:
        held = {c for c, p in write.spec.core_pages if p}
        reached = [c for c in write.cores if c in held]
        cores = ", ".join(f"({x},{y})" for x, y in reached[:4]) + (", ..." if len(reached) > 4 else "")
        return (f"recorded as {spec.describe()} ({spec.buffer_bytes} B), but the current write reached only cores {cores}: "
                f"{len(write.pages)} of {spec.num_pages} pages ({write.content_bytes} B); the others hold what was there "
                "before (an earlier write, or never-written memory)")
    if status is Kind.PARTIAL:
        return (
            f"recorded as {spec.describe()} ({spec.buffer_bytes} B), but the current write put only "
            f"{write.spec.buffer_bytes} B there ({write.spec.describe()})"
        )
    if status is Kind.LOST:
        return f"written by step {write.step}, not recorded"
    if status is Kind.MISSING_SPEC:
        return "holds data but has no spec" if write is not None else "claimed but has no spec"
    return ""


def _host_views(t: HostTensor) -> list[DeviceView]:
    """Shards of a host tensor. A read-back shard is judged like the device it came from: it holds
    what the reader got, so a stale device gives a stale shard, with the device's record as origin.
    A composed shard carries the worst of the shards it was composed from."""
    out = []
    for c, shard in t.shards.items():
        origin = shard.origin
        status, detail, written, write_step, record_step = Kind.OK, "", shard.spec.buffer_bytes, None, t.step
        if origin is not None:
            w = origin.write
            written, write_step, record_step = origin.written_bytes, w.step if w else None, origin.record_step
            # what the write put there, its pages only when it reached some cores (a device the write left
            # partly unwritten gives a partial shard, as a stale device a stale one)
            status = _status(True, shard.spec, w.spec if w else None, w.content_bytes if w else 0, True)
            detail = _read_detail(status, shard.spec, origin)
        elif shard.composed_from is not None:
            taint = _taint(*shard.composed_from)
            if taint is not None:
                status, detail, record_step = taint[0], taint[1], taint[2]
        out.append(
            DeviceView(
                coord=c,
                recorded=True,
                spec=shard.spec,
                written_bytes=written,
                written_spec=origin.write.spec if origin and origin.write else shard.spec,
                offset=shard.offset,
                status=status,
                record_step=record_step,
                write_step=write_step,
                detail=detail,
            )
        )
    return out


def _may_lie(t: HostTensor) -> bool:
    """Whether a shard of ``t`` can be anything but ok in :func:`_host_views`: only read-back and
    composed shards can; a host tensor made from data holds what it was made from."""
    for s in t.shards.values():  # (a loop, not any() of a generator: a from_torch tensor's shards are all looked at)
        if s.origin is not None or s.composed_from is not None:
            return True
    return False


def _taint(host: HostTensor, used: tuple[Coord, ...]) -> Optional[tuple]:
    """Why a composed result is not what was written, if it is not: its worst contributor, as
    (status, why, origin step, (device tensor, device) of the first bad read)."""
    views = {v.coord: v for v in _host_views(host)}
    bad = [views[c] for c in used if c in views and views[c].status.is_finding]
    if not bad:
        return None
    first = bad[0]
    where = ", ".join(fmt_coord(v.coord) for v in bad)
    source = host.shards[first.coord].origin
    where_from = (source.tensor, source.coord) if source else None
    detail = f"composed from {len(bad)} bad shard(s) of {host.read_from or host.name} ({where}): {first.detail}"
    return first.status, detail, first.record_step, where_from


def _bad_read(r: Read) -> Optional[tuple[Kind, str]]:
    """What was wrong with what a read got (None: it read the input's current content, every page
    of it written), as a finding kind and a clause ("which was stale then").

    - the device was stale, partial or without a spec (a record that lies), or the read took
      never-written pages from a device the input's topology does not list (a collective over
      the mesh: tt-metal issue #31845): **stale_input**, the runtime's doing;
    - it took never-written pages from a device the input's topology lists and no record lie
      explains: the program used the tensor before writing it, **uninitialized_read**, a user error.

    >>> _bad_read(Read("x", (1, 0), 4, 4, False, None, None, 0, True, None, listed=False))[1]
    'which had never been written since allocation (neither its topology nor its record lists that device)'
    """
    status = _status(r.recorded, r.spec, r.written_spec, r.content_bytes, r.has_content)
    # a lying record matters where the pages read are not the current content (a slice of the pages
    # a partial write reached reads what was written)
    lie = status is Kind.MISSING_SPEC or (status in (Kind.STALE, Kind.PARTIAL) and r.outdated > 0)
    if r.unwritten:
        what = ("which had never been written since allocation" if r.unwritten == r.pages
                else f"{r.unwritten} of whose {r.pages} pages read had never been written since allocation")
        if not r.listed:
            what += f" ({'neither its topology nor its record lists' if not r.recorded else 'its topology does not list'} that device)"
        elif not r.recorded:
            what += " (its topology lists that device, its record does not: nothing written there yet)"
        elif r.spec is None:
            what += " (its record keeps no spec for that device)"
        elif lie:
            what += f" (the device was {status.value} then)"
        if r.past is not None:
            what += f" (read as the tensor's spec, {fmt_shape(r.past)}, where the device's record says {fmt_shape(r.spec.shape)})"
        return (Kind.STALE_INPUT if lie or not r.listed or r.past is not None else Kind.UNINITIALIZED_READ), what
    if lie:
        return Kind.STALE_INPUT, f"which was {status.value} then"
    if r.past is not None:  # an uneven legacy shard read as the first shard's spec (issue #21652): its padding read as data
        return Kind.STALE_INPUT, (f"as the tensor's spec, {fmt_shape(r.past)}, where the device's record says "
                                  f"{fmt_shape(r.spec.shape)} (the first shard's spec for every device, issue #21652)")
    return None


def _read_detail(status: Kind, spec: TensorSpec, origin) -> str:
    read = f"read by step {origin.step} from {origin.tensor} {fmt_coord(origin.coord)}"
    if status is Kind.STALE:
        if origin.stale_write is not None:
            return f"{read}, which held superseded data from step {origin.stale_write.step}"
        return f"{read}, whose memory was never written since allocation"
    if status is Kind.PARTIAL:
        w = origin.write
        if w.pages is not None:
            return (f"{read} as {spec.buffer_bytes} B ({spec.num_pages} pages); the current write reached only {len(w.pages)} of its "
                    f"{w.spec.num_pages} pages ({w.content_bytes} B), the others hold what was there before (an earlier write, "
                    "or never-written memory)")
        return f"{read} as {spec.buffer_bytes} B; only {w.spec.buffer_bytes} B were written there"
    if status is Kind.SHAPE_MISMATCH:
        return f"{read} as {fmt_shape(spec.shape)}; it was written as {fmt_shape(origin.write.spec.shape)}"
    return ""


def _source_device(shard: HostShard) -> Optional[tuple[str, Coord]]:
    """The device a host shard's lie came from: where it was read, or the first bad shard it was
    composed from."""
    if shard.origin is not None:
        return (shard.origin.tensor, shard.origin.coord)
    if shard.composed_from is not None:
        taint = _taint(*shard.composed_from)
        if taint is not None:
            return taint[3]
    return None


def findings_of(name: str, tensor: Tensor, views: list[DeviceView], ops: dict[int, str]) -> list[Finding]:
    """Findings for every device whose status is not ok/empty/uninitialized, each with its origin."""
    out = []
    for v in views:
        if not v.status.is_finding:
            continue
        step = v.record_step
        if v.status is Kind.MISSING_SPEC and not v.recorded or step is None:
            step = v.write_step  # nothing set a record: the write that should have is the origin
        plain = isinstance(tensor, HostTensor) and tensor.plain
        where = name if plain else f"{name} {fmt_coord(v.coord)}"
        origin = f"step {step} ({ops.get(step, '?')})" if step is not None else "no step"
        if v.status is Kind.STALE and isinstance(tensor, DeviceTensor):
            msg = f"{where}: recorded as holding {v.spec.describe() if v.spec else 'data'} since {origin}, but {v.detail}"
        elif v.status is Kind.LOST:
            msg = f"{where}: {v.detail}; its record, set by {origin}, says it holds nothing, so no reader sees it"
        elif v.status is Kind.MISSING_SPEC and not v.recorded:
            msg = f"{where}: written by {origin}, but the runtime keeps no spec for it, so no reader sees it"
        else:
            msg = f"{where}: {v.detail}"
        op = ops.get(step) if step is not None else None
        device, source = v.coord, None
        if isinstance(tensor, HostTensor):
            source = _source_device(tensor.shards[v.coord])
            if tensor.plain:
                device = None  # a composed torch tensor lives on no device
        out.append(Finding(v.status, name, device, step, op, msg, v.spec, v.written_bytes, source))
    return out


def topology_contradictions(t: Tensor, mesh_shape: Shape) -> list[str]:
    """How a tensor's topology disagrees with what it records (docs/semantics.md section 9): the
    coordinates it lists against the devices recorded (a device tensor's ``device_coords()``; a
    get_device_tensors part needs only its own device listed) or the shards populated (a host
    tensor, in its buffer's coordinates), coordinates off the mesh, a distribution shape whose size
    is not the number of coordinates, a placement count that is not its rank. Empty: consistent."""
    if isinstance(t, DeviceTensor):
        if t.freed_step is not None:
            return []
        topo, held = t.record.topology, tuple(t.record.recorded)
        what, not_held = "the runtime records", "that the runtime does not record"
        on_mesh = mesh_shape
        part = t.span is not None  # a part or a combined handle: its own devices must be listed, no more
    else:
        topo, held = t.topology, tuple(t.shards)
        what, not_held = "its host buffer holds shards at", "where its host buffer has no shard"
        on_mesh = t.buffer_shape or mesh_shape
        part = False
    out = []
    if held and held != topo.coords:  # set operations, not a Python loop over 65,536 devices a step
        listed, held_set = topo.coord_set(), set(held)  # (a part's held is its one device: no set of the topology's)
        missing = [c for c in held if c not in listed] if not held_set <= listed else []
        extra = [c for c in topo.coords if c not in held_set] if not part and not listed <= held_set else []
        if extra:
            out.append(f"its topology {topo} lists {_coords_text(extra)} {not_held}")
        if missing:
            out.append(f"{what} {_coords_text(missing)} that its topology {topo} does not list")
    off = topo.off_mesh(tuple(on_mesh))
    if off and isinstance(t, DeviceTensor):
        out.append(f"its topology lists {_coords_text(off)}, not on its mesh {ttnn_shape(on_mesh)}")
    size = volume(topo.distribution_shape)
    if size != len(topo.coords):
        out.append(f"its distribution shape {ttnn_shape(topo.distribution_shape)} has {size} positions for {len(topo.coords)} coordinates")
    if len(topo.placements) != len(topo.distribution_shape):
        out.append(f"it has {len(topo.placements)} placement(s) for a rank-{len(topo.distribution_shape)} distribution shape")
    return out


def _gathered_padding(name: str, t: Tensor) -> list[Finding]:
    """A gather's output whose logical shape holds its shards' tile padding."""
    made = t.provenance if isinstance(t, DeviceTensor) else None
    if made is None or t.freed_step is not None or made.gathered_padding is None:
        return []
    return [Finding(Kind.PADDING_GATHERED, name, None, made.step, made.op, f"{name}: after {made.op} {made.gathered_padding}")]


def _stale_topology(name: str, t: Tensor) -> list[Finding]:
    """A device op's output whose topology is not its data's distribution (its provenance's layout)."""
    made = t.provenance if isinstance(t, DeviceTensor) else None
    if made is None or t.freed_step is not None or not made.claims:
        return []
    truth, step, op = made.layout, made.step, made.op
    topo = t.record.topology
    rank = len(t.record.spec.shape)
    dims = [d for p in topo.placements if isinstance(p, Shard) and (d := normal_dim(p.dim, rank)) is not None]
    twice = sorted({d for d in dims if dims.count(d) > 1})
    if made.dishonest is not None:
        why = f"after {op} its topology says {ttnn_placements(topo.placements)}: {made.dishonest}"
        return [Finding(Kind.TOPOLOGY_STALE, name, None, step, op, f"{name}: {why}")]
    if truth is None:  # no layout describes the data: only a label that contradicts itself is judged
        if not twice:
            return []
        why = (f"after {op} its topology says {ttnn_placements(topo.placements)}: two mesh axes shard the same dim {twice[0]} "
               "of the tensor, which no data can be")
        return [Finding(Kind.TOPOLOGY_STALE, name, None, step, op, f"{name}: {why}")]
    if _labels(topo, rank) == _labels(as_label(truth), rank):
        moved = _reordered(topo, truth)
        if moved is None:
            return []  # a partial axis labelled Replicate: the nearest label ttnn has (the reference's)
        why = f"after {op} its topology says {ttnn_placements(topo.placements)} on the same devices as its data, in another order: {moved}"
        return [Finding(Kind.TOPOLOGY_STALE, name, None, step, op, f"{name}: {why}")]
    out_of_range = [p for p in topo.placements if isinstance(p, Shard) and normal_dim(p.dim, rank) is None]
    said, real = ttnn_placements(topo.placements), ttnn_placements(truth.placements)
    if said == real:  # the same placements over another distribution: say the shapes
        said = f"{said} over {ttnn_shape(topo.distribution_shape)}"
        real = f"{real} over {ttnn_shape(truth.distribution_shape)}"
    why = f"after {op} its topology says {said}, but its data is laid out as {real}"
    if out_of_range:
        why += f" (a rank-{rank} tensor has no dim {out_of_range[0].dim})"
    if twice:
        why += f" (two mesh axes shard dim {twice[0]})"
    return [Finding(Kind.TOPOLOGY_STALE, name, None, step, op, f"{name}: {why}")]


def _reordered(topo, truth) -> Optional[str]:
    """Where a sharded label lists the data's devices in another order (the same devices: which
    shard is where is what it gets wrong), e.g. ``update_tensor_topology`` given the coordinates
    reversed; None when the order is the data's, or when no axis shards (a replica is on every
    listed device whatever the order)."""
    if topo.coords == truth.coords or set(topo.coords) != set(truth.coords):
        return None
    if not any(isinstance(p, Shard) for p in topo.placements):
        return None
    i = next(i for i, (a, b) in enumerate(zip(topo.coords, truth.coords)) if a != b)
    return (f"position {i} of its distribution {ttnn_shape(topo.distribution_shape)} is on {fmt_coord(truth.coords[i])}, "
            f"the topology says {fmt_coord(topo.coords[i])} (a reader that follows the topology puts that shard in the wrong place)")


def _labels(topo, rank: int) -> tuple:
    """A label as what it says of the data: dims normalised; every placement Replicate is the same
    claim whatever the distribution shape ((8) [R] and (2x4) [R, R])."""
    norm = tuple(Shard(dim_index(p.dim, rank)) if isinstance(p, Shard) else p for p in topo.placements)
    if all(isinstance(p, Replicate) for p in norm):
        return "replicated"
    return tuple(topo.distribution_shape), norm


def ttnn_placements(placements) -> str:
    def one(p) -> str:
        if isinstance(p, Shard):
            return f"PlacementShard({p.dim})"
        return "partial sums" if isinstance(p, Partial) else "PlacementReplicate()"

    return "[" + ", ".join(one(p) for p in placements) + "]"


def _coords_text(cs) -> str:
    shown = " ".join(fmt_coord(c) for c in list(cs)[:8])
    more = f" and {len(cs) - 8} more" if len(cs) > 8 else ""
    return f"{len(cs)} device{'s' * (len(cs) != 1)}: {shown}{more}" if cs else "no device"


def storage_of(t: Tensor) -> str:
    if isinstance(t, DeviceTensor):
        return "deallocated" if t.freed_step is not None else "device"
    return "host"


def storage_kind_of(t: Tensor) -> str:
    """``mesh`` or ``single-device`` (a device tensor), ``owned`` or ``borrowed`` (a host tensor):
    what the runtime made its storage (docs/semantics.md section 19)."""
    if isinstance(t, DeviceTensor):
        return "single-device" if t.buffer.single_device else "mesh"
    return "borrowed" if t.borrowed else "owned"


def _key(f: Finding) -> tuple:
    return (f.kind, f.tensor, f.device, f.step)


class Judge:
    """Judges a run as it goes: after each step, the tensors it touched and the events it left.

    Per live tensor name the judge keeps the views and findings from the last time that tensor
    was touched. Only another handle on its buffer can change it (a write through ``t`` changes
    what ``view(t)`` holds): those handles are judged again at the end, the rest need no second
    pass. Events become findings in the order they happened; the lies of a tensor that goes away
    are kept as they stood.
    """

    def __init__(self, mesh_shape: Shape, ops: dict[int, str], mesh_of=None, claims: Optional[dict[int, str]] = None) -> None:
        self.mesh_shape = mesh_shape
        self.ops = ops
        self.claims = claims or {}
        """Step -> the tensor the scenario's expectations say that step's result equals (``values:
        {equals: NAME}``): a composition laid out otherwise than that tensor is then a data_mismatch."""
        self.mesh_of = mesh_of
        """Tensor -> the shape of its mesh now (for coordinates off the mesh); the scenario's mesh without it."""
        self._tainted: "weakref.WeakKeyDictionary[DeviceTensor, tuple[Provenance, list]]" = weakref.WeakKeyDictionary()
        """A device op's output -> (its provenance, the output devices that read what their input
        did not hold, each with its first such read): worked out once per provenance, which never
        changes (a trace replay gives the output a new one)."""
        self._earlier: "weakref.WeakKeyDictionary[DeviceTensor, dict[str, Finding]]" = weakref.WeakKeyDictionary()
        """A device op's output computed again (a trace replay) -> the findings of its earlier
        computations that the new one does not repeat: they happened, and what read them then read them."""
        self._taint_since: dict[tuple, tuple[int, str]] = {}
        """(tensor, device, input, input device) -> the step and op it was first found tainted at."""
        self._topology_since: dict[tuple[str, str], int] = {}
        """(tensor, contradiction) -> the step it was first seen after: its origin."""
        self.step_index = 0
        self.views: dict[str, list[DeviceView]] = {}
        self.found: dict[str, list[Finding]] = {}
        self.events: list[Finding] = []
        """Findings from events (readbacks, uses after free), in order; added by :meth:`_add_event` only."""
        self._event_keys: set[tuple] = set()
        """The keys of ``events``, so that a readback in which every device lies does not compare each
        finding with all the others (that scan took 411 s of a 256x256 mesh's 65,536 never-written devices)."""
        self.retired: list[Finding] = []
        """Findings of tensors that were deallocated or whose name was rebound, as they stood then."""
        self.readbacks: list[Readback] = []
        self._judged: dict[str, Tensor] = {}
        """The tensor each name had when last judged (a host tensor is judged once)."""
        self.same_bytes: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        """id(composed array) -> (it, its source): a composition found bit for bit equal to the
        tensor that was sent, so the report hashes those bytes once."""
        self.digests = Digests()
        """The report's SHA-256s; a large host source starts hashing when it is first judged."""
        self._judged_at: dict[str, int] = {}
        """Device tensor name -> the step it was last judged after."""
        self._storage_at: "weakref.WeakKeyDictionary[object, int]" = weakref.WeakKeyDictionary()
        """Mesh buffer -> the last step after which a handle on it was judged (weakly: a buffer no
        handle holds any more is not kept for this, issue 34). Handles
        share a buffer (a view, a get_device_tensors part, a to_device of a device tensor): a write
        through one changes what the others hold, so :meth:`result` judges again each live handle
        judged before its buffer was last touched (once, at the end, not every alias at every step:
        65,536 parts of one buffer, written one by one, would be quadratic)."""

    def step(self, tensors: dict[str, Tensor], events: list[Event], names: set[str]) -> list[Finding]:
        """Judge one step: its new events, then the tensors ``names``. Returns every finding the
        step's tensors and events show (the caller tells which are new). ``events`` is a queue:
        the judge takes each event out as it judges it, so what an event holds (a rebound name's
        old tensor, a composition) is not kept to the end of the run (x = neg(x) 150 times on a
        64x64 mesh held every old x: 3 MB a step, issue 34)."""
        events_before, retired_before = len(self.events), len(self.retired)
        for e in events:
            self._event(e)
        del events[:]
        now: list[Finding] = []
        for name in sorted(names):
            t = tensors.get(name)
            if t is None:
                continue
            if isinstance(t, DeviceTensor):
                self._judged[name] = t
                self._judged_at[name] = self.step_index
                self._storage_at[t.buffer] = self.step_index
                self.found[name] = self._device_tensor(name, t)
            elif self._judged.get(name) is not t:  # a host tensor never changes
                self._judged[name] = t
                self.found[name] = self._host_tensor(name, t)
            now += self.found[name]
        return now + self.events[events_before:] + self.retired[retired_before:]

    def _device_tensor(self, name: str, t: DeviceTensor) -> list[Finding]:
        """A device tensor's findings now. Its views wait for the end; a step needs its lies only."""
        self.views.pop(name, None)
        lying = _device_tensor_views(t, self.mesh_shape, only_findings=True)
        return findings_of(name, t, lying, self.ops) + self._topology(name, t) + self._made_by(name, t)

    def _made_by(self, name: str, t: DeviceTensor) -> list[Finding]:
        """What a device tensor's making can get wrong: a sharded spec's grid (phantom cores), and
        a device op's output's topology, gathered padding and inputs. Each is looked at only when
        the record says it can apply (four calls that found nothing cost 6,600 instructions each
        time a tensor that no op made and no shard spec lays out was judged)."""
        out = self._phantom(name, t) if t.record.spec.shard is not None else []
        made = t.provenance
        if made is not None:
            if made.claims or made.dishonest is not None or made.gathered_padding is not None:
                out += _stale_topology(name, t) + _gathered_padding(name, t)
            if made.reads or t in self._earlier or t in self._tainted:
                out += self._stale_inputs(name, t)
        return out

    def _host_tensor(self, name: str, t: HostTensor) -> list[Finding]:
        """A host tensor's findings (judged once: it never changes). Only its shards and topology
        can lie (asking it the device tensor's questions too, each a call that found nothing, cost
        4,600 instructions)."""
        if _may_lie(t):
            found = self.views[name] = device_views(t, self.mesh_shape)
        else:  # every shard ok: the views wait for the report
            self.views.pop(name, None)
            found = []
        if isinstance(t.source_values, np.ndarray) and t.source_values.nbytes >= EARLY_BYTES:
            self.digests.start(t.source_values)
        return findings_of(name, t, found, self.ops) + self._topology(name, t)

    def _topology(self, name: str, t: Tensor) -> list[Finding]:
        shape = self.mesh_of(t) if self.mesh_of is not None else self.mesh_shape
        whys = topology_contradictions(t, shape)
        if not whys:
            return []
        why = "; ".join(whys)
        step = self._topology_since.setdefault((name, why), self.step_index)
        return [Finding(Kind.TOPOLOGY_MISMATCH, name, None, step, self.ops.get(step), f"{name}: {why}")]

    def _stale_inputs(self, name: str, t: DeviceTensor) -> list[Finding]:
        """A device op's output devices that computed from what their input did not hold: never
        written memory, or data that is not the input's current content (its device stale,
        partial or without a spec, as the judge calls a device). Judged from the facts of the
        reads (:class:`~meshspec.sim.tensor.Read`), once per provenance; a device found tainted
        keeps the step it was first found at (a trace replay that reads the same lie again)."""
        if t.freed_step is not None:
            return []
        made = t.provenance
        held = self._tainted.get(t)
        if held is not None and held[0] is not made:  # computed again (a trace replay): what it did before stays a finding
            earlier = self._earlier.setdefault(t, {})
            for f in held[2]:
                earlier.setdefault(f.message, f.replace(message=f"{f.message} (then step {made.step}, {made.op}, computed it again)"))
        memo = held[1] if held is not None and held[0] is made else None
        if memo is None:
            memo = []
            first: dict[int, Optional[tuple]] = {}  # per reads tuple (a collective's group shares one): its first bad read
            for c, reads in made.reads.items():
                key = id(reads)
                if key not in first:
                    bad = [(r, _bad_read(r)) for r in reads]
                    # the runtime's lie first (a group read some devices a record lies about, others never written)
                    first[key] = next((r for r, b in bad if b is not None and b[0] is Kind.STALE_INPUT),
                                      next((r for r, b in bad if b is not None), None))
                r = first[key]
                if r is not None:
                    memo.append((c, r, *_bad_read(r)))
        out = []
        for c, r, kind, what in memo:
            step, op = self._taint_since.setdefault((name, c, r.tensor, r.device), (made.step, made.op))
            out.append(Finding(kind, name, c, step, op,
                               f"{name} {fmt_coord(c)}: {op} at step {step} read {r.tensor} {fmt_coord(r.device)}, "
                               f"{what}, and wrote what it read here"))
        self._tainted[t] = (made, memo, out)
        now = {f.message for f in out}
        return [f for m, f in self._earlier.get(t, {}).items() if m not in now] + out

    def _phantom(self, name: str, t: Tensor) -> list[Finding]:
        """A sharded device tensor whose grid has cores holding no page (docs/semantics.md section 11)."""
        if not isinstance(t, DeviceTensor) or t.freed_step is not None or t.record.spec.shard is None or t.span is not None:
            return []  # a part (get_device_tensors) shares its parent's grid: the finding is the parent's
        spec = t.record.spec
        idle = [core for core, pages in spec.core_pages if not pages]
        if not idle:
            return []
        shown = ", ".join(f"({x},{y})" for x, y in idle[:4]) + (", ..." if len(idle) > 4 else "")
        what = "DRAM banks" if spec.memory.value == "dram" else "cores"
        why = (f"its shard grid claims {spec.shard.num_cores} {what} and {len(idle)} of them hold no page ({shown}): "
               f"{len(spec.core_pages) - len(idle)} shard(s) of {fmt_shape(tuple(spec.shard.shape))} fill the rest"
               + ("; each bank still reserves a whole shard" if what == "DRAM banks" else ""))
        step = self._topology_since.setdefault((name, why), self.step_index)
        return [Finding(Kind.PHANTOM_CORES, name, None, step, self.ops.get(step), f"{name}: {why}")]

    def result(
        self, tensors: dict[str, Tensor], slices: Optional[dict[str, tuple[str, ...]]] = None, reports: bool = True,
        compares: Optional[dict[str, tuple]] = None,
    ) -> tuple[list[TensorReport], list[Finding]]:
        """Every tensor's report and every finding: the live tensors' lies, events, and the lies
        of tensors that went away, ordered by origin step. ``slices``: per tensor, the slices
        whose values an expectation names (their sha256 goes in the report). ``reports=False``:
        the findings alone (no tensor reports: no views of ok devices, no values hashed). ``compares``:
        per tensor, the comparisons of its values an expectation asks for (meshspec/judge/values.py
        :class:`~.values.Compare`), whose results go in its report's values."""
        findings: list[Finding] = []
        self._rejudge_aliases(tensors)
        out = self._reports(tensors, slices, compares) if reports else []
        for name in tensors:
            findings.extend(self.found[name])
        findings.extend(self.events)
        if self.retired:  # (making the keys for nothing was a fifth of a small run's result: 5,500 instructions)
            keys = {_key(f) for f in findings}
            findings.extend(f for f in self.retired if _key(f) not in keys)
        findings.sort(key=lambda f: (f.step if f.step is not None else -1, f.tensor, f.device or ()))
        return out, findings

    def _rejudge_aliases(self, tensors: dict[str, Tensor]) -> None:
        """Judge again each live device tensor whose buffer a later step touched through another
        handle (a copy into ``t`` after ``v = view(t)``): its findings then say what its tables say.
        A buffer freed through another handle is left as it stood (the handle that freed it keeps
        its lies as they were; this one's are not dropped for a free it did not make)."""
        storage = self._storage_at
        for name, t in tensors.items():
            if isinstance(t, DeviceTensor) and t.freed_step is None:
                touched = storage.get(t.buffer)
                if touched is not None and touched > self._judged_at.get(name, touched):
                    self._judged_at[name] = touched
                    self.found[name] = self._device_tensor(name, t)

    def _reports(self, tensors: dict[str, Tensor], slices: Optional[dict[str, tuple[str, ...]]],
                 compares: Optional[dict[str, tuple]] = None) -> list[TensorReport]:
        from .values import compared, summary, values_of

        reports = []
        digests = self.digests
        digests.alias = {k: src for k, (_, src) in self.same_bytes.items()}
        for name, t in tensors.items():
            views = self.views.get(name)
            if views is None:
                views = self.views[name] = device_views(t, self.mesh_shape)
            if isinstance(t, DeviceTensor):
                spec, topology = t.record.spec, t.record.topology
            else:
                spec, topology = t.spec, t.topology
            plain = isinstance(t, HostTensor) and t.plain
            shape = t.shape if isinstance(t, HostTensor) else None
            mesh = t.mesh.name if isinstance(t, DeviceTensor) and t.mesh is not None else None
            grid = t.buffer.mesh_shape if isinstance(t, DeviceTensor) else _host_grid(t)
            values = summary(t, (slices or {}).get(name, ()), digests)
            if values is not None and compares and name in compares:
                values["compared"] = compared(t, values_of(t), values["sha256"], compares[name], tensors)
            address = t.buffer.address if isinstance(t, DeviceTensor) else None
            reports.append(
                TensorReport(name, storage_of(t), spec, topology, tuple(views), t.step, plain=plain, shape=shape, values=values,
                             mesh_device=mesh, grid=grid, address=address, storage_kind=storage_kind_of(t))
            )
        return reports

    # -- events --------------------------------------------------------------------------------
    def _event(self, e: Event) -> None:
        if isinstance(e, Composed):
            self._composed(e)
        elif isinstance(e, (UseAfterFree, DoubleFree)):
            op = e.op if isinstance(e, UseAfterFree) else "deallocate"
            self._add_event(Finding(Kind.USE_AFTER_FREE, e.name, None, e.step, op, e.message))
        elif isinstance(e, Retired):
            for f in self.found.get(e.name, []):
                self.retired.append(f.replace(message=f"{f.message} (then {e.why})"))
        elif isinstance(e, Shown):
            self._shown(e)
        elif isinstance(e, Loaded):
            self._judge_loaded(e)
        else:  # pragma: no cover - every event kind is handled above
            raise AssertionError(f"unhandled event {e!r}")

    def _shown(self, e: Shown) -> None:
        """locality for what a call showed on a multi-host mesh (docs/semantics.md section 15): a
        remote device it read, a shard it showed under another coordinate, a local shard it left out."""
        for r in e.reads:
            if e.local is not None and r.device not in e.local:
                self._add_event(Finding(Kind.LOCALITY, e.name, r.device, e.step, e.op,
                                        f"{e.name} {fmt_coord(r.device)}: {e.op} read it as if this host held it, but another "
                                        "host owns it: this host has no buffer there", r.spec))
        shown = set()
        held = dict(zip(e.held, e.contents))
        for at, whose in e.shown:
            if at != whose and same_content(held.get(at), held.get(whose)):
                shown.add(at)  # a replica: what is printed under ``at`` is what ``at`` holds
                continue
            shown.add(whose)
            if at != whose:
                self._add_event(Finding(Kind.LOCALITY, e.name, at, e.step, e.op,
                                        f"{e.name} {fmt_coord(at)}: {e.op} showed the shard of {fmt_coord(whose)} as this "
                                        f"device's: data {fmt_coord(at)} does not hold, under its coordinate"))
        for c in e.held:
            if c not in shown:
                self._add_event(Finding(Kind.LOCALITY, e.name, c, e.step, e.op,
                                        f"{e.name} {fmt_coord(c)}: this host holds its shard, but {e.op} left it out "
                                        "without a word"))

    def _composed(self, e: Composed) -> None:
        comp, host = e.composition, e.host
        before = len(self.events)
        self._judge_readback(host, e.name, comp.used, e.step)
        self._judge_dropped(e)
        partial = e.device is not None and e.device.span is not None  # a get_device_tensors part holds a slice only
        landed = None
        if len(self.events) == before and not partial:  # no device explains a difference: compare with the source
            landed = self._judge_composed(e)
        self.readbacks.append(Readback(e.step, e.name, comp.used, tuple(comp.values.shape), e.device is not None,
                                       *(landed or (None, ()))))

    def _judge_loaded(self, e: Loaded) -> None:
        """data_mismatch for each device (or host shard) a load gave another slice than was dumped
        from it: a file is a write and its load a read back (docs/semantics.md section 20). A device
        given a copy of the slice dumped from it (a replica), or given the one shard of a file of one
        shard, holds what was dumped."""
        dumped = e.dumped.shards
        for c, d in e.held:
            own = dumped.get(c)
            if c == d or own is None or _same_content(own, dumped[d]):
                continue
            got, want = _held_text(e.dumped.name, dumped[d]), _held_text(e.dumped.name, own)
            if got == want:  # two slices of one op's output (each device's own): told apart by their values
                got, want = _first_value_text(dumped[d]), _first_value_text(own)
            msg = (f"{e.name} {fmt_coord(c)}: loaded from {e.file}, it holds {got}, the shard dumped from {fmt_coord(d)}, "
                   f"where {e.dumped.name} was dumped with {want} on {fmt_coord(c)}")
            self._mismatch(e.name, c, e.step, msg + (f" ({e.why})" if e.why else ""), own.spec, None)

    def _judge_readback(self, host: HostTensor, name: str, used: tuple[Coord, ...], step: int) -> None:
        """data_mismatch for each device whose read-back values are not what was written."""
        label = host.read_from or name
        for c in used:
            shard = _read_shard(host.shards[c])
            origin = shard.origin
            if origin is None:
                continue
            why = _readback_difference(shard, origin)
            if why:  # (a device is named for a mismatch only: naming each device read cost 6,000 instructions)
                if origin.step != step:  # read into a host tensor earlier (cpu), composed here
                    why += f" (read into {name} by step {origin.step}, {self.ops.get(origin.step)}, and composed here)"
                self._mismatch(label, c, step, f"{label} {fmt_coord(c)}: {why}", shard.spec, origin.written_bytes)
        for c, w in host.unread.items():
            msg = f"{label} {fmt_coord(c)}: written by step {w.step} but left out of the readback"
            self._mismatch(label, c, step, msg, None, w.spec.buffer_bytes)

    def _judge_dropped(self, e: Composed) -> None:
        """data_mismatch for each shard the composer's grid left out, unless a composed shard
        holds the same slice (a replica): data the reader never read."""
        comp, host = e.composition, e.host
        if not comp.dropped:  # the usual case (working out the used shards' slices for nothing: 26,000 instructions for 8)
            return
        label = host.read_from or e.name
        kept = {_slice_of(host.shards[c]) for c in comp.used}
        for c in comp.dropped:
            held = _slice_of(host.shards[c])
            if held is None or held in kept:
                continue
            source = _source_tensor(host, host.shards[c])
            what = f"{source.name}{_slice_text(*held)}" if source is not None else "its shard"
            msg = (
                f"{label} {fmt_coord(c)}: holds {what}, but the composer ({e.composer}) takes the shards of its "
                f"{ttnn_shape(comp.grid)} grid only and left it out of the composed tensor: the reader never reads it"
            )
            self._mismatch(label, c, e.step, msg, host.shards[c].spec, None)

    def _judge_composed(self, e: Composed) -> Optional[tuple[str, tuple]]:
        """Compare the composed tensor with the tensor that was sent (docs/semantics.md section 5).

        Every shard was read once and none was dropped (the readback and dropped judgements found
        nothing), so a composer that puts the shards elsewhere than the source has them (other
        dims or another mesh shape than the mapper's, on purpose in many upstream tests) loses
        nothing: where each shard landed is returned as information, (source name, landings),
        and is a data_mismatch only when the scenario's expectations say this step's result equals
        the source (``values: {equals: SOURCE}``). Stacking replicas (a copy of the whole source
        per block) is in place. Either way each block's values are compared with the slice of the
        source it holds, within the dtype's precision (exact for integers, float32 and bfloat16,
        one step of the shared exponent for block floats): a difference is a data_mismatch."""
        comp, host = e.composition, e.host
        source = _common_source(host, comp.used)
        if source is None or source.shape is None:
            return None
        result = comp.values
        shape = tuple(source.shape)
        got = tuple(result.shape)
        held = {c: _slice_of(host.shards[c]) for c in comp.used}
        if any(h is None for h in held.values()):
            return None  # a shard of unknown content: the readback judgement speaks for it
        if len(got) != len(shape) or any(tuple(host.shards[c].values.shape) != tuple(size) for c, (_, size) in held.items()):
            return None  # read through a view of another shape: its pages were judged device by device
        misplaced = [(c, off, size) for c, (off, size) in held.items() if not _in_place(comp.placed[c], off, size, shape)]

        def whole(d: int) -> bool:  # every block spans all of the source's dim d: copies may stack on it
            return all(size[d] == shape[d] for _, size in held.values())

        stacked = all(g == n or (g % n == 0 and whole(d)) for d, (g, n) in enumerate(zip(got, shape)))
        name = host.read_from or e.name
        landed = None
        if misplaced or not stacked:
            if self.claims.get(e.step) != source.name:
                landed = (source.name, tuple((c, tuple(off), tuple(size), tuple(comp.placed[c])) for c, (off, size) in held.items()))
            else:
                msg = (f"{e.name}: the composed tensor is {fmt_shape(got)}, but {source.name}, the tensor that was sent and that "
                       f"the scenario's expect says it equals, is {fmt_shape(shape)}")
                if misplaced:
                    shown = [
                        f"{fmt_coord(c)}'s {source.name}{_slice_text(off, size)} landed at {_slice_text(comp.placed[c], size)}"
                        for c, off, size in misplaced[:3]
                    ]
                    more = f" and {len(misplaced) - 3} more" if len(misplaced) > 3 else ""
                    msg += f": {'; '.join(shown)}{more}"
                msg += f" ({e.composer}; check that the composer's dims and mesh_shape undo the mapper's placements)"
                self._add_event(Finding(Kind.DATA_MISMATCH, name, None, e.step, self.ops.get(e.step), msg))
                return None
        if isinstance(result, ShapeOnly) or source.source_values is None:
            return landed
        src = source.source_values
        dtype = source.spec.dtype
        tolerance = None
        if dtype.is_block_float:
            rowmax = np.max(np.abs(src), axis=-1, keepdims=True).astype(np.float64)
            tolerance = 2.0 * rowmax * 2.0 ** -(MANTISSA_BITS[dtype] - 1)
        total, first = 0, None
        for c, (offset, size) in held.items():
            got_block = result[block(comp.placed[c], size)]
            want = src[block(offset, size)]
            tol = None if tolerance is None else tolerance[block(offset, size)[:-1] + (slice(None),)]
            n, at = differences(got_block, want if tol is not None else want.astype(got_block.dtype, copy=False), tol)
            if n and first is None:
                local = np.unravel_index(at, got_block.shape)
                first = [int(p + i) for p, i in zip(comp.placed[c], local)]
            total += n
        in_place = all(tuple(comp.placed[c]) == tuple(off) for c, (off, _) in held.items())
        tiled = sum(math.prod(size) for _, size in held.values()) == result.size
        if not total and tolerance is None and got == shape and result.dtype == src.dtype and in_place and tiled:
            self.same_bytes[id(result)] = (result, src)
        if total:
            compared = "" if landed is None else f"; each block compared with the slice of {source.name} it holds"
            msg = (
                f"{e.name}: the composed tensor differs from {source.name}, the tensor that was sent, in {total} of "
                f"{result.size} values (first at {first}{compared}), though every device read back what was written there"
                + (": check the composer's dims and mesh_shape" if landed is None else "")
            )
            self._add_event(Finding(Kind.DATA_MISMATCH, name, None, e.step, self.ops.get(e.step), msg))
        return landed

    def _mismatch(
        self, tensor: str, coord: Coord, step: int, msg: str, spec: Optional[TensorSpec], written: Optional[int]
    ) -> None:
        f = Finding(Kind.DATA_MISMATCH, tensor, coord, step, self.ops.get(step), msg, spec, written)
        if f.key() not in self._event_keys:  # one finding a device: the first reason found
            self._add_event(f)

    def _add_event(self, f: Finding) -> None:
        self.events.append(f)
        self._event_keys.add(f.key())


def _readback_difference(shard: HostShard, origin: ReadOrigin) -> str:
    """How a read-back shard differs from what was written to its device ("": it does not)."""
    w = origin.write
    if w is None:
        what = ("never written since allocation" if origin.stale_write is None
                else f"holding superseded data from step {origin.stale_write.step}")
        return f"read back {shard.values.size} values from device memory {what}"
    values = shard.values
    # what that device was sent (not looked at when the device provably still holds it)
    written = None if origin.intact or isinstance(values, ShapeOnly) else w.values_at(origin.coord)
    if written is None:
        if tuple(w.spec.shape) != tuple(values.shape) and not _same_pages(w.spec, shard.spec):
            return f"read back as {fmt_shape(values.shape)}, written as {fmt_shape(w.spec.shape)} by step {w.step}"
        return ""
    if written.shape != values.shape and not (_same_pages(w.spec, shard.spec) and written.size == values.size):
        return f"read back as {fmt_shape(values.shape)}, written as {fmt_shape(written.shape)} by step {w.step}"
    differ = count_different(values, written.reshape(values.shape))  # a view reads the pages as written, in its own shape
    if differ and origin.default_buffer:
        return (f"{differ} of {written.size} values differ from what step {w.step} wrote: the shard is a default-initialized "
                "host buffer, the read landed past the buffers the host tensor uses (a read loop resized to the device "
                "count, PR #19032)")
    return f"{differ} of {written.size} values differ from what step {w.step} wrote" if differ else ""


def _read_shard(shard: HostShard) -> HostShard:
    """The read-back shard a host op's shard was made from (a host op keeps each shard where it
    is: docs/semantics.md section 18), following host op after host op; ``shard`` itself if none."""
    while shard.origin is None and shard.composed_from is not None and len(shard.composed_from[1]) == 1:
        host, (c,) = shard.composed_from
        shard = host.shards[c]
    return shard


def _same_content(a: HostShard, b: HostShard) -> bool:
    """Whether two dumped shards hold the same thing: the same values where both have values, else
    the same slice of one source (a replica)."""
    if isinstance(a.values, np.ndarray) and isinstance(b.values, np.ndarray):
        return a.values is b.values or (a.values.shape == b.values.shape and not count_different(a.values, b.values))
    held = _slice_of(a)
    return held is not None and held == _slice_of(b)


def _held_text(name: str, shard: HostShard) -> str:
    held = _slice_of(shard)
    return f"{name}{_slice_text(*held)}" if held is not None else f"its {fmt_shape(shard.spec.shape)} shard"


def _first_value_text(shard: HostShard) -> str:
    v = shard.values
    first = v.reshape(-1)[0].item() if isinstance(v, np.ndarray) and v.size else None
    return f"a {fmt_shape(shard.spec.shape)} shard starting {first}" if first is not None else f"a {fmt_shape(shard.spec.shape)} shard"


def _source_tensor(host: HostTensor, shard: HostShard) -> Optional[HostTensor]:
    """The from_torch tensor a shard holds a slice of: ``host`` itself when it was made by a
    mapper, the host tensor that was written for a shard read back from a device, when the
    device got that tensor's own shard (:func:`_sent`)."""
    if host.shape is not None:
        return host
    origin = shard.origin
    if origin is not None and origin.write is not None:
        src = origin.write.host
        return src if isinstance(src, HostTensor) and src.shape is not None and _sent(src, origin.write, origin.coord) else None
    return None


def _sent(src: HostTensor, write: Write, coord: Coord) -> bool:
    """Whether the shard ``write`` put on ``coord`` is one of ``src``'s: the shard itself (a
    mapped tensor's), or its one shard's values (a plain tensor, replicated). A device op's output
    is written with a stand-in host tensor named after the op (``out.a``), holding none of what
    each device got: its shards were computed on the devices, so it is no source to compare a
    composition with (an ``add`` of uneven shards was judged against it as though ``out.a`` were
    a tensor that was sent)."""
    written = write.shards.get(coord)
    if written is None:
        return False
    if src.shards.get(coord) is written:
        return True
    if src.plain and len(src.shards) == 1:
        only = next(iter(src.shards.values()))
        return written.values is only.values
    return False


def _slice_of(shard: HostShard) -> Optional[tuple[Shape, Shape]]:
    """(offset, shape) of the source slice a shard holds, if known."""
    if shard.origin is not None:
        w = shard.origin.write
        return None if w is None else (tuple(w.offset_at(shard.origin.coord)), tuple(w.spec.shape))
    if shard.offset is None:
        return None
    return tuple(shard.offset), tuple(shard.spec.shape)


def _common_source(host: HostTensor, used: tuple[Coord, ...]) -> Optional[HostTensor]:
    """The one from_torch tensor every used shard holds a slice of, if there is one."""
    sources = [_source_tensor(host, host.shards[c]) for c in used]
    if not sources or any(s is None for s in sources) or len({id(s) for s in sources}) != 1:
        return None
    return sources[0]


def _in_place(placed: Shape, offset: Shape, size: Shape, shape: Shape) -> bool:
    """A block is where the source has it, on every dim: at its own offset, or (a whole-dim
    replica) at a multiple of the dim's size."""
    return all(p == o or (o == 0 and s == n and p % n == 0) for p, o, s, n in zip(placed, offset, size, shape))

