"""The step trace: how each step changed the runtime's records.

Like a sanitizer's origin tracking, a trace row (:class:`~meshspec.report.StepTrace`) says, per
step: the tensors it touched, the devices it wrote (bytes) or read, how the runtime's records
changed (which devices became recorded or unrecorded, whose spec changed), and which findings
were first visible after it. This module computes the record changes from snapshots.
"""

from __future__ import annotations

from typing import Optional

from ..report import RecordChange
from ..sim.mesh import Coord
from ..sim.spec import TensorSpec
from ..sim.tensor import DeviceTensor, Tensor

Snapshot = dict[str, dict[Coord, tuple[bool, Optional[TensorSpec]]]]


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
