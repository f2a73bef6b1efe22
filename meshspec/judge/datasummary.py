"""What a reader gets back from each device, in numbers: the data view.

Per recorded device: first and last values, min and max of the values that were written, a
CRC-32 of the bytes, how many elements differ from what the current write put there, and how many
come from pages never written since allocation (poison).
"""

from __future__ import annotations

import zlib

import numpy as np

from ..report import DataSummary
from ..sim import pages
from ..sim.mesh import Coord, Shape, fmt_coord
from ..sim.modes import Uninitialized
from ..sim.tensor import DeviceTensor
from ..sim.values import count_different


def _num(v) -> float | int:
    v = v.item() if hasattr(v, "item") else v
    if isinstance(v, float) and (v != v or v in (float("inf"), float("-inf"))):
        return str(v)  # type: ignore[return-value]  # JSON has no NaN/inf
    return v


def _derived(t: DeviceTensor, c: Coord) -> str:
    """Why values written by a device op are not data anyone wrote: the op read never-written pages
    for this device (its provenance), so what it wrote here came from whatever that memory held."""
    made = t.provenance
    reads = made.reads.get(c, ()) if made is not None else ()
    bad = next((r for r in reads if r.unwritten), None)
    if bad is None:
        return ""
    return f"computed by {made.op} at step {made.step} from never-written memory of {bad.tensor} {fmt_coord(bad.device)}"


def summarize_device_tensor(t: DeviceTensor, mesh_shape: Shape, show_values: int = 0) -> dict[Coord, DataSummary]:
    """A summary for every device a reader would read (the recorded ones with a spec)."""
    out: dict[Coord, DataSummary] = {}
    if t.freed_step is not None:
        return out
    for c in t.devices:  # the devices of its storage this handle covers
        spec = t.record.specs.get(c)
        if not t.record.is_recorded(c) or spec is None:
            continue
        values = t.buffer.read(c, spec)
        if values is None:  # metadata mode: no values to summarize
            continue
        poison_mask = ~t.buffer.written_mask(c, spec.num_pages)[pages.page_of_elements(spec)]
        write = t.current_write(c)
        sent = write.values_at(c) if write is not None else None
        if sent is None:
            differ = None  # nothing of the current content was written here to compare with
        elif sent.shape != values.shape:
            differ = int(values.size)  # read with another shape: every element is misplaced
        else:
            differ = count_different(values, sent)
        flat = values.reshape(-1)  # a rank-0 tensor's one value too (docs/semantics.md section 21)
        flat_poison = poison_mask.reshape(-1)
        clean = flat[~flat_poison]
        label = "POISON" if t.buffer.pool.rule is Uninitialized.POISON else "UNWRITTEN"
        shown = tuple(label if flat_poison[i] else _num(flat[i]) for i in range(min(show_values, flat.size)))
        old = t.buffer.last_write.get(c)
        if write is not None:
            note = _derived(t, c)
        elif old is not None:
            note = f"holds superseded data from step {old.step}"
        else:
            note = "never written since allocation"
        with np.errstate(invalid="ignore"):  # written data may hold NaN (a device op that read poison)
            low = _num(np.min(clean)) if clean.size else None
            high = _num(np.max(clean)) if clean.size else None
        out[c] = DataSummary(
            coord=c,
            count=int(values.size),
            first=_num(flat[0]) if flat.size else None,
            last=_num(flat[-1]) if flat.size else None,
            min=low,
            max=high,
            crc32=f"{zlib.crc32(np.ascontiguousarray(values).tobytes()):08x}",
            differ=differ,
            poison=int(poison_mask.sum()),
            values=shown,
            note=note,
        )
    return out
