"""The step trace: how each step changed the runtime's records.

Like a sanitizer's origin tracking, a trace row (:class:`~meshspec.report.StepTrace`) says, per
step: the tensors it touched, the devices it wrote (bytes) or read, how the runtime's records
changed (which devices became recorded or unrecorded, whose spec changed), and which findings
were first visible after it. This module computes the record changes from snapshots.
"""

from __future__ import annotations

from typing import Optional

from ..report import RecordChange, Touch
from ..sim.mesh import Coord, ranges
from ..sim.spec import TensorSpec
from ..sim.steps import StepResult
from ..sim.tensor import DeviceTensor, Tensor

Snapshot = dict[str, tuple[tuple[Coord, ...], dict[Coord, TensorSpec]]]


def snapshot(tensors: dict[str, Tensor]) -> Snapshot:
    """Per live device tensor, its record's recorded devices and per-device specs (a copy: the
    ops replace or update them). Comparing two of these is C-speed when nothing changed."""
    return {
        name: (t.record.recorded, dict(t.record.specs))
        for name, t in tensors.items()
        if isinstance(t, DeviceTensor) and t.freed_step is None
    }


def record_changes(before: Snapshot, after: Snapshot) -> list[RecordChange]:
    """How the records changed, the devices that changed alike grouped into boxes."""
    out: list[RecordChange] = []
    for name in before:
        if name not in after:
            out.append(RecordChange(name, None, "deallocated"))
    for name, (recorded, specs) in after.items():
        old = before.get(name)
        if old is None:
            n = len(set(recorded))
            out.append(RecordChange(name, None, "allocated", f"{n} device{'s' * (n != 1)} recorded"))
            continue
        was_recorded, was_specs = old
        groups: dict[tuple[str, str], list[Coord]] = {}
        flipped: set[Coord] = set()
        if recorded != was_recorded:
            now, was = set(recorded), set(was_recorded)
            flipped = now ^ was
            groups["recorded", ""] = sorted(now - was)
            groups["unrecorded", ""] = sorted(was - now)
        if specs != was_specs:  # a device whose recording flipped says so, not its spec
            for c in sorted((set(specs) | set(was_specs)) - flipped):
                a, b = was_specs.get(c), specs.get(c)
                if a != b:
                    groups.setdefault(("spec", f"{_describe(a)} -> {_describe(b)}"), []).append(c)
        out += [RecordChange(name, ranges(cs), change, detail) for (change, detail), cs in groups.items() if cs]
    return out


def _describe(spec: Optional[TensorSpec]) -> str:
    return spec.describe() if spec is not None else "none"


def touches(done: StepResult) -> tuple[tuple[Touch, ...], tuple[Touch, ...]]:
    """What one step wrote and read back, per device tensor (and, for writes, per size): the
    devices as boxes, in the order of first use."""
    written: dict[tuple[str, int], list[Coord]] = {}
    read: dict[str, list[Coord]] = {}
    for w in done.writes:
        each = dict.fromkeys(w.sizes.values())
        if len(each) == 1:  # every device got the same bytes (the common case)
            written.setdefault((w.tensor, next(iter(each))), []).extend(w.sizes)
            continue
        for nbytes in each:
            written.setdefault((w.tensor, nbytes), []).extend(c for c, b in w.sizes.items() if b == nbytes)
    for r in done.reads:
        read.setdefault(r.tensor, []).extend(r.devices)
    return (
        tuple(Touch(name, ranges(cs), nbytes) for (name, nbytes), cs in written.items()),
        tuple(Touch(name, ranges(cs)) for name, cs in read.items()),
    )
