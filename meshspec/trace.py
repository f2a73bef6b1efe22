"""The step trace: what each step did and when each lie first became visible.

Like a sanitizer's origin tracking, a trace row says, per step: the tensors it touched, the
devices it wrote (bytes) or read, how the runtime's records changed (which devices became
recorded or unrecorded, whose spec changed), and which findings were first visible after it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from .findings import Finding
from .mesh import Coord, fmt_coord
from .spec import TensorSpec
from .tensor import DeviceTensor, Tensor

Snapshot = dict[str, dict[Coord, tuple[bool, Optional[TensorSpec]]]]


@dataclass(frozen=True)
class RecordChange:
    tensor: str
    device: Optional[Coord]
    change: str
    """``recorded``, ``unrecorded``, ``spec``, ``allocated``, ``deallocated``."""
    detail: str = ""

    def to_json(self) -> dict:
        return {
            "tensor": self.tensor,
            "device": list(self.device) if self.device is not None else None,
            "change": self.change,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class StepTrace:
    index: int
    op: str
    line: int
    tensors: tuple[str, ...]
    written: tuple[tuple[str, Coord, int], ...]
    """(device tensor, device, bytes) for every device written by the step."""
    read: tuple[tuple[str, Coord], ...]
    changes: tuple[RecordChange, ...]
    findings: tuple[Finding, ...]
    """Findings first visible after this step."""
    error: Optional[str] = None

    def to_json(self) -> dict:
        return {
            "step": self.index,
            "op": self.op,
            "line": self.line,
            "tensors": list(self.tensors),
            "written": [{"tensor": t, "device": list(c), "bytes": b} for t, c, b in self.written],
            "read": [{"tensor": t, "device": list(c)} for t, c in self.read],
            "record_changes": [c.to_json() for c in self.changes],
            "new_findings": [{"kind": f.kind.value, "tensor": f.tensor, "device": list(f.device) if f.device else None} for f in self.findings],
            "error": self.error,
        }


def snapshot(tensors: dict[str, Tensor]) -> Snapshot:
    """Per live device tensor, each device's (recorded, spec)."""
    out: Snapshot = {}
    for name, t in tensors.items():
        if isinstance(t, DeviceTensor) and t.freed_step is None:
            rec = t.record
            devices = set(rec.specs) | set(rec.recorded)
            recorded = rec.recorded_set
            out[name] = {c: (c in recorded, rec.specs.get(c)) for c in sorted(devices)}
    return out


def record_changes(before: Snapshot, after: Snapshot) -> list[RecordChange]:
    out: list[RecordChange] = []
    for name in before:
        if name not in after:
            out.append(RecordChange(name, None, "deallocated"))
    for name, devices in after.items():
        old = before.get(name)
        if old is None:
            n = sum(r for r, _ in devices.values())
            out.append(RecordChange(name, None, "allocated", f"{n} device{'s' * (n != 1)} recorded"))
            continue
        for c in sorted(set(old) | set(devices)):
            was, now = old.get(c, (False, None)), devices.get(c, (False, None))
            if was[0] != now[0]:
                out.append(RecordChange(name, c, "recorded" if now[0] else "unrecorded"))
            elif was[1] != now[1]:
                detail = f"{was[1].describe() if was[1] else 'none'} -> {now[1].describe() if now[1] else 'none'}"
                out.append(RecordChange(name, c, "spec", detail))
    return out


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
        from .mesh import coords as all_coords

        everyone = list(all_coords(mesh_shape))
        missing = sorted(set(everyone) - set(chosen))
        if not missing:
            return f"all {len(everyone)} devices"
        if len(missing) <= 4:
            return f"all {len(everyone)} devices but {' '.join(fmt_coord(c) for c in missing)}"
    head = " ".join(fmt_coord(c) for c in chosen[:3])
    return f"{len(chosen)} devices: {head} and {len(chosen) - 3} more"
