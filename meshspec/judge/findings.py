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

import dataclasses
from typing import Optional

import numpy as np

from ..kinds import Kind
from ..report import DeviceView, Finding, Readback, TensorReport
from ..sim.events import Composed, DoubleFree, Event, Retired, UseAfterFree
from ..sim.mesh import Coord, Shape, coords, fmt_coord, fmt_shape
from ..sim.spec import TensorSpec
from ..sim.tensor import DeviceTensor, HostShard, HostTensor, Tensor
from ..sim.values import MANTISSA_BITS, ShapeOnly, differences, same_bits


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
        if written.shape != spec.shape:  # type: ignore[union-attr]
            return Kind.SHAPE_MISMATCH
        return Kind.OK
    return Kind.LOST if written is not None else Kind.EMPTY


def device_views(tensor: Tensor, mesh_shape: Shape) -> list[DeviceView]:
    """Every device of a device tensor, or every shard of a host tensor, with its status."""
    if isinstance(tensor, DeviceTensor):
        return _device_tensor_views(tensor, mesh_shape)
    return _host_views(tensor)


def _device_tensor_views(t: DeviceTensor, mesh_shape: Shape) -> list[DeviceView]:
    if t.freed_step is not None:
        return []
    out = []
    rec = t.record
    for c in coords(mesh_shape):
        recorded = rec.is_recorded(c)
        spec = rec.specs.get(c)
        write = t.current_write(c)
        old = t.buffer.last_write.get(c)
        status = _status(
            recorded, spec, write.spec if write else None, write.spec.buffer_bytes if write else 0, t.content_step is not None
        )
        out.append(
            DeviceView(
                coord=c,
                recorded=recorded,
                spec=spec,
                written_bytes=t.buffer.written_bytes(c),
                written_spec=write.spec if write else None,
                offset=write.offset if write else None,
                status=status,
                record_step=rec.origin.get(c),
                write_step=write.step if write else (old.step if old else None),
                detail=_detail(status, spec, write, old),
            )
        )
    return out


def _detail(status: Kind, spec, write, old) -> str:
    if status is Kind.STALE:
        if old is not None:
            return f"holds superseded data from step {old.step}; the current content never reached it"
        return "never written since allocation"
    if status is Kind.SHAPE_MISMATCH:
        return f"recorded {spec.describe()}, written {write.spec.describe()}"
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
            status = _status(True, shard.spec, w.spec if w else None, w.spec.buffer_bytes if w else 0, True)
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


def _read_detail(status: Kind, spec: TensorSpec, origin) -> str:
    read = f"read by step {origin.step} from {origin.tensor} {fmt_coord(origin.coord)}"
    if status is Kind.STALE:
        if origin.stale_write is not None:
            return f"{read}, which held superseded data from step {origin.stale_write.step}"
        return f"{read}, whose memory was never written since allocation"
    if status is Kind.PARTIAL:
        return f"{read} as {spec.buffer_bytes} B; only {origin.write.spec.buffer_bytes} B were written there"
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


def storage_of(t: Tensor) -> str:
    if isinstance(t, DeviceTensor):
        return "deallocated" if t.freed_step is not None else "device"
    return "host"


def _key(f: Finding) -> tuple:
    return (f.kind, f.tensor, f.device, f.step)


class Judge:
    """Judges a run as it goes: after each step, the tensors it touched and the events it left.

    Per live tensor name the judge keeps the views and findings from the last time that tensor
    was touched; nothing else can change it, so the end state needs no second pass. Events become
    findings in the order they happened; the lies of a tensor that goes away are kept as they stood.
    """

    def __init__(self, mesh_shape: Shape, ops: dict[int, str]) -> None:
        self.mesh_shape = mesh_shape
        self.ops = ops
        self.views: dict[str, list[DeviceView]] = {}
        self.found: dict[str, list[Finding]] = {}
        self.events: list[Finding] = []
        """Findings from events (readbacks, uses after free), in order."""
        self.retired: list[Finding] = []
        """Findings of tensors that were deallocated or whose name was rebound, as they stood then."""
        self.readbacks: list[Readback] = []
        self._events_seen = 0

    def step(self, tensors: dict[str, Tensor], events: list[Event], names: set[str]) -> list[Finding]:
        """Judge one step: its new events, then the tensors ``names``. Returns every finding the
        step's tensors and events show (the caller tells which are new)."""
        events_before, retired_before = len(self.events), len(self.retired)
        for e in events[self._events_seen :]:
            self._event(e)
        self._events_seen = len(events)
        now: list[Finding] = []
        for name in sorted(names):
            t = tensors.get(name)
            if t is None:
                continue
            views = device_views(t, self.mesh_shape)
            self.views[name] = views
            self.found[name] = findings_of(name, t, views, self.ops)
            now += self.found[name]
        return now + self.events[events_before:] + self.retired[retired_before:]

    def result(self, tensors: dict[str, Tensor]) -> tuple[list[TensorReport], list[Finding]]:
        """Every tensor's report and every finding: the live tensors' lies, events, and the lies
        of tensors that went away, ordered by origin step."""
        reports = []
        findings: list[Finding] = []
        for name, t in tensors.items():
            views = self.views[name]
            if isinstance(t, DeviceTensor):
                spec, topology = t.record.spec, t.record.topology
            else:
                spec, topology = t.spec, t.topology
            plain = isinstance(t, HostTensor) and t.plain
            reports.append(TensorReport(name, storage_of(t), spec, topology, tuple(views), t.step, plain=plain))
            findings.extend(self.found[name])
        findings.extend(self.events)
        keys = {_key(f) for f in findings}
        findings.extend(f for f in self.retired if _key(f) not in keys)
        findings.sort(key=lambda f: (f.step if f.step is not None else -1, f.tensor, f.device or ()))
        return reports, findings

    # -- events --------------------------------------------------------------------------------
    def _event(self, e: Event) -> None:
        if isinstance(e, Composed):
            self._composed(e)
        elif isinstance(e, (UseAfterFree, DoubleFree)):
            op = e.op if isinstance(e, UseAfterFree) else "deallocate"
            self.events.append(Finding(Kind.USE_AFTER_FREE, e.name, None, e.step, op, e.message))
        elif isinstance(e, Retired):
            for f in self.found.get(e.name, []):
                self.retired.append(dataclasses.replace(f, message=f"{f.message} (then {e.why})"))
        else:  # pragma: no cover - every event kind is handled above
            raise AssertionError(f"unhandled event {e!r}")

    def _composed(self, e: Composed) -> None:
        result, host = e.result, e.host
        self.readbacks.append(Readback(e.step, e.name, e.used, tuple(result.shape), e.device is not None))
        before = len(self.events)
        self._judge_readback(host, e.name, e.used, e.step)
        if len(self.events) == before:  # no device explains a difference: compare with the source
            self._judge_composed(e)

    def _judge_readback(self, host: HostTensor, name: str, used: tuple[Coord, ...], step: int) -> None:
        """data_mismatch for each device whose read-back values are not what was written."""
        label = host.read_from or name
        for c in used:
            shard = host.shards[c]
            origin = shard.origin
            if origin is None:
                continue
            w = origin.write
            where = f"{label} {fmt_coord(c)}"
            facts = (shard.spec, origin.written_bytes)
            if w is None:
                what = (
                    "never written since allocation"
                    if origin.stale_write is None
                    else f"holding superseded data from step {origin.stale_write.step}"
                )
                self._mismatch(label, c, step, f"{where}: read back {shard.values.size} values from device memory {what}", *facts)
            elif origin.intact or isinstance(shard.values, ShapeOnly) or w.values is None:
                if tuple(w.spec.shape) != tuple(shard.values.shape):
                    msg = f"{where}: read back as {fmt_shape(shard.values.shape)}, written as {fmt_shape(w.spec.shape)} by step {w.step}"
                    self._mismatch(label, c, step, msg, *facts)
            elif w.values.shape != shard.values.shape:
                msg = f"{where}: read back as {fmt_shape(shard.values.shape)}, written as {fmt_shape(w.values.shape)} by step {w.step}"
                self._mismatch(label, c, step, msg, *facts)
            else:
                differ = int((~same_bits(shard.values, w.values.astype(shard.values.dtype))).sum())
                if differ:
                    msg = f"{where}: {differ} of {w.values.size} values differ from what step {w.step} wrote"
                    self._mismatch(label, c, step, msg, *facts)
        for c, w in host.unread.items():
            msg = f"{label} {fmt_coord(c)}: written by step {w.step} but left out of the readback"
            self._mismatch(label, c, step, msg, None, w.spec.buffer_bytes)

    def _judge_composed(self, e: Composed) -> None:
        """data_mismatch (no device) when the composed tensor differs from the host tensor that was
        sent, within the dtype's precision: exact for integers, float32 and bfloat16 (already
        rounded at from_torch), one step of the shared exponent for block floats. Compared only
        when the shapes agree (composing replicas on purpose gives a bigger tensor)."""
        result, host = e.result, e.host
        source = _source_of(host, e.device, self.mesh_shape)
        if source is None or isinstance(result, ShapeOnly) or tuple(result.shape) != tuple(source.source_values.shape):
            return
        dtype = source.spec.dtype
        src = source.source_values
        tolerance = None
        if dtype.is_block_float:
            rowmax = np.max(np.abs(src), axis=-1, keepdims=True).astype(np.float64)
            tolerance = 2.0 * rowmax * 2.0 ** -(MANTISSA_BITS[dtype] - 1)
        n, first_flat = differences(result, src if tolerance is not None else src.astype(result.dtype, copy=False), tolerance)
        if n:
            first = tuple(int(i) for i in np.unravel_index(first_flat, result.shape))
            msg = (
                f"{e.name}: the composed tensor differs from {source.name}, the tensor that was sent, in {n} of "
                f"{result.size} values (first at {list(first)}), though every device read back what was written there: "
                "check the composer's dims and mesh_shape"
            )
            self.events.append(Finding(Kind.DATA_MISMATCH, host.read_from or e.name, None, e.step, self.ops.get(e.step), msg))

    def _mismatch(
        self, tensor: str, coord: Coord, step: int, msg: str, spec: Optional[TensorSpec], written: Optional[int]
    ) -> None:
        f = Finding(Kind.DATA_MISMATCH, tensor, coord, step, self.ops.get(step), msg, spec, written)
        if all(e.key() != f.key() for e in self.events):
            self.events.append(f)


def _source_of(host: HostTensor, device: Optional[DeviceTensor], mesh_shape: Shape) -> Optional[HostTensor]:
    """The from_torch tensor whose data the host tensor holds, if one tensor is the source."""
    if host.source_values is not None:
        return host
    if device is None:
        return None
    sources = {id(w.host): w.host for c in coords(mesh_shape) if (w := device.current_write(c)) is not None}
    if len(sources) != 1:
        return None
    src = next(iter(sources.values()))
    return src if isinstance(src, HostTensor) and src.source_values is not None else None
