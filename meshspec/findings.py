"""Findings: where a runtime's record disagrees with what was written (REFERENCE.md section 7).

Per device, three things are compared: the *record* (does the runtime say the device holds
data, with which spec), the *content* (did the write that defines the tensor's current content
reach this device, with which shard), and what a *reader* got back.

======================  ==========================================================================
status / finding        meaning
======================  ==========================================================================
ok                      recorded, and holds the current content with the recorded shape and bytes
empty                   not recorded, holds no current content
uninitialized           allocated and recorded, but nothing was copied into the tensor yet (like
                        ``torch.empty``: not a lie by itself; reading it back is a data_mismatch)
stale                   recorded, but the current content never reached it (never written since
                        allocation, or only by an earlier, superseded write)
partial                 recorded with N bytes, the current write put fewer there (the reader gets
                        the rest from memory that does not hold this content)
shape_mismatch          every recorded byte was written, but the recorded shape differs from the
                        shape of the shard written there (the reader misreads padding as data)
lost                    holds current content, the record says it holds nothing
missing_spec            holds content, or is claimed, but the runtime keeps no spec for it
data_mismatch           a read-back value differs from what was written (or a written device was
                        left out of the readback)
use_after_free          a deallocated tensor was used
======================  ==========================================================================

When several apply to one device, the first of missing_spec, stale, partial, shape_mismatch, lost
is its status (the one that best explains what a reader will see).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import Optional

from .mesh import Coord, Shape, coords, fmt_coord, fmt_shape
from .spec import TensorSpec
from .tensor import DeviceTensor, HostTensor, Tensor


class Status(str, enum.Enum):
    OK = "ok"
    EMPTY = "empty"
    UNINITIALIZED = "uninitialized"
    STALE = "stale"
    PARTIAL = "partial"
    LOST = "lost"
    MISSING_SPEC = "missing_spec"
    SHAPE_MISMATCH = "shape_mismatch"

    def __str__(self) -> str:
        return self.value

    @property
    def is_finding(self) -> bool:
        return self not in (Status.OK, Status.EMPTY, Status.UNINITIALIZED)


class Kind(str, enum.Enum):
    STALE = "stale"
    PARTIAL = "partial"
    LOST = "lost"
    MISSING_SPEC = "missing_spec"
    SHAPE_MISMATCH = "shape_mismatch"
    DATA_MISMATCH = "data_mismatch"
    USE_AFTER_FREE = "use_after_free"

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Finding:
    kind: Kind
    tensor: str
    device: Optional[Coord]
    step: Optional[int]
    """The origin: the step that set the lying record (or did the bad read / use)."""
    op: Optional[str]
    message: str
    spec: Optional[TensorSpec] = None
    """The spec the record (or the read) claims for the device, if any."""
    written_bytes: Optional[int] = None
    """Bytes written to the device since allocation, where a device is named."""
    source: Optional[tuple[str, Coord]] = None
    """For a lie carried into a host tensor by a read: the device tensor and device it came from."""

    def key(self) -> tuple:
        return (self.kind, self.tensor, self.device)

    def to_json(self) -> dict:
        return {
            "kind": self.kind.value,
            "tensor": self.tensor,
            "device": list(self.device) if self.device is not None else None,
            "step": self.step,
            "op": self.op,
            "message": self.message,
            "spec": self.spec.to_json() if self.spec is not None else None,
            "written_bytes": self.written_bytes,
            "source": {"tensor": self.source[0], "device": list(self.source[1])} if self.source else None,
        }


@dataclass(frozen=True)
class DeviceView:
    """One device of one tensor: record vs truth. The single source every view renders."""

    coord: Coord
    recorded: bool
    spec: Optional[TensorSpec]
    """The recorded spec (None when the runtime keeps none for this device)."""
    written_bytes: int
    """Bytes written to this device since allocation (host shards: the shard's bytes)."""
    written_spec: Optional[TensorSpec]
    """Spec of the shard holding the current content, if any."""
    offset: Optional[Shape]
    status: Status
    record_step: Optional[int]
    write_step: Optional[int]
    detail: str = ""
    """Why the status is what it is, in words."""


def _status(
    recorded: bool, spec: Optional[TensorSpec], written: Optional[TensorSpec], content_bytes: int, has_content: bool
) -> Status:
    if spec is None and (recorded or written is not None):
        return Status.MISSING_SPEC
    if recorded:
        if written is None:
            return Status.STALE if has_content else Status.UNINITIALIZED
        if content_bytes < spec.buffer_bytes:  # type: ignore[union-attr]
            return Status.PARTIAL
        if written.shape != spec.shape:  # type: ignore[union-attr]
            return Status.SHAPE_MISMATCH
        return Status.OK
    return Status.LOST if written is not None else Status.EMPTY


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
        written = t.buffer.written_bytes(c)
        status = _status(
            recorded, spec, write.spec if write else None, write.spec.buffer_bytes if write else 0, t.content_step is not None
        )
        detail = _detail(status, spec, write, old, written)
        out.append(
            DeviceView(
                coord=c,
                recorded=recorded,
                spec=spec,
                written_bytes=written,
                written_spec=write.spec if write else None,
                offset=write.offset if write else None,
                status=status,
                record_step=rec.origin.get(c),
                write_step=write.step if write else (old.step if old else None),
                detail=detail,
            )
        )
    return out


def _detail(status: Status, spec, write, old, written: int) -> str:
    if status is Status.STALE:
        if old is not None:
            return f"holds superseded data from step {old.step}; the current content never reached it"
        return "never written since allocation"
    if status is Status.SHAPE_MISMATCH:
        return f"recorded {spec.describe()}, written {write.spec.describe()}"
    if status is Status.PARTIAL:
        return (
            f"recorded as {spec.describe()} ({spec.buffer_bytes} B), but the current write put only "
            f"{write.spec.buffer_bytes} B there ({write.spec.describe()})"
        )
    if status is Status.LOST:
        return f"written by step {write.step}, not recorded"
    if status is Status.MISSING_SPEC:
        return "holds data but has no spec" if write is not None else "claimed but has no spec"
    return ""


def _host_views(t: HostTensor) -> list[DeviceView]:
    """Shards of a host tensor. A read-back shard is judged like the device it came from: it holds
    what the reader got, so a stale device gives a stale shard, with the device's record as origin."""
    out = []
    for c, shard in t.shards.items():
        origin, taint = shard.origin, shard.taint
        status, detail, written, write_step, record_step = Status.OK, "", shard.spec.buffer_bytes, None, t.step
        if origin is not None:
            w = origin.write
            written, write_step, record_step = origin.written_bytes, w.step if w else None, origin.record_step
            status = _status(True, shard.spec, w.spec if w else None, w.spec.buffer_bytes if w else 0, True)
            detail = _read_detail(status, shard.spec, origin)
        elif taint is not None:
            status, detail, record_step = Status(taint[0]), taint[1], taint[2]
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


def _read_detail(status: Status, spec: TensorSpec, origin) -> str:
    read = f"read by step {origin.step} from {origin.tensor} {fmt_coord(origin.coord)}"
    if status is Status.STALE:
        if origin.stale_write is not None:
            return f"{read}, which held superseded data from step {origin.stale_write.step}"
        return f"{read}, whose memory was never written since allocation"
    if status is Status.PARTIAL:
        return f"{read} as {spec.buffer_bytes} B; only {origin.write.spec.buffer_bytes} B were written there"
    if status is Status.SHAPE_MISMATCH:
        return f"{read} as {fmt_shape(spec.shape)}; it was written as {fmt_shape(origin.write.spec.shape)}"
    return ""


def findings_of(name: str, tensor: Tensor, views: list[DeviceView], ops: dict[int, str]) -> list[Finding]:
    """Findings for every device whose status is not ok/empty, each with its origin step."""
    out = []
    for v in views:
        if not v.status.is_finding:
            continue
        step = v.record_step
        if v.status is Status.MISSING_SPEC and not v.recorded or step is None:
            step = v.write_step  # nothing set a record: the write that should have is the origin
        plain = isinstance(tensor, HostTensor) and tensor.plain
        where = name if plain else f"{name} {fmt_coord(v.coord)}"
        origin = f"step {step} ({ops.get(step, '?')})" if step is not None else "no step"
        if v.status is Status.STALE and isinstance(tensor, DeviceTensor):
            msg = f"{where}: recorded as holding {v.spec.describe() if v.spec else 'data'} since {origin}, but {v.detail}"
        elif v.status is Status.LOST:
            msg = f"{where}: {v.detail}; its record, set by {origin}, says it holds nothing, so no reader sees it"
        elif v.status is Status.MISSING_SPEC and not v.recorded:
            msg = f"{where}: written by {origin}, but the runtime keeps no spec for it, so no reader sees it"
        else:
            msg = f"{where}: {v.detail}"
        op = ops.get(step) if step is not None else None
        device, source = v.coord, None
        if isinstance(tensor, HostTensor):
            shard = tensor.shards[v.coord]
            if shard.origin is not None:
                source = (shard.origin.tensor, shard.origin.coord)
            elif shard.taint is not None and len(shard.taint) > 3:
                source = shard.taint[3]
            if tensor.plain:
                device = None  # a composed torch tensor lives on no device
        out.append(Finding(Kind(v.status.value), name, device, step, op, msg, v.spec, v.written_bytes, source))
    return out
