"""One device of a sharded tensor, core by core (``meshspec run --device R,C``; docs/semantics.md
section 11): which pages each core of the shard grid holds, and what those pages hold now.

A core's status follows from its device's (meshspec/judge/findings.py) and from the write that
defines the current content: ``phantom`` (the grid claims it, no page is on it), ``ok`` (the
current write reached all its pages), ``stale`` (none of them: a partial write to other cores),
``partial`` (some), or the device's own status when the whole device is one thing (stale,
uninitialized, empty, missing_spec, shape_mismatch).
"""

from __future__ import annotations

from typing import Optional

from ..report import CoreView, DeviceView
from ..sim.mesh import Coord
from ..sim.tensor import DeviceTensor

WHOLE_DEVICE = {"stale", "uninitialized", "empty", "missing_spec", "shape_mismatch", "lost"}


def core_views(t: DeviceTensor, coord: Coord, view: DeviceView) -> Optional[tuple[CoreView, ...]]:
    """The cores of ``t``'s shard grid on device ``coord`` (None: not sharded, or not on it)."""
    spec = t.record.specs.get(coord) or t.record.spec
    if spec.shard is None or t.freed_step is not None or not t.has_device(coord):
        return None
    write = t.buffer.last_write.get(coord)
    current = write if write is not None and write.step == t.content_step else None
    reached = set(current.pages) if current is not None and current.pages is not None else None
    status = view.status.value
    out = []
    for core, pages in spec.core_pages:
        if not pages:
            s = "phantom"
        elif status in WHOLE_DEVICE or reached is None:
            s = status
        else:
            hit = sum(p in reached for p in pages)
            s = "ok" if hit == len(pages) else "stale" if hit == 0 else "partial"
        out.append(CoreView(core, tuple(pages), s))
    return tuple(out)
