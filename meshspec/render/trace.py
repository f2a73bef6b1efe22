"""The step trace as a table: one row per step, so the user sees when the lie began."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from ..report import StepTrace
from .common import fmt_devices, fmt_ranges


def _written(t: StepTrace, mesh) -> str:
    sizes: dict[str, set[int]] = {}
    boxes: dict[str, list] = {}
    for w in t.written:
        sizes.setdefault(w.tensor, set()).add(w.bytes)
        boxes.setdefault(w.tensor, []).append(w)
    parts = []
    for name, touches in boxes.items():
        devices = tuple(sorted(b for w in touches for b in w.devices))
        each = sizes[name]
        size = f"{next(iter(each))} B each" if len(each) == 1 else f"{sum(w.bytes * w.count for w in touches)} B"
        parts.append(f"{name}: {fmt_ranges(devices, mesh)}, {size}")
    parts += [f"read {r.tensor}: {fmt_ranges(r.devices, mesh)}" for r in t.read]
    return "\n".join(parts) or "-"


def _changes(t: StepTrace, mesh) -> str:
    lines = []
    for c in t.changes:
        if c.devices is None:
            lines.append(f"{c.tensor} {c.change}" + (f" ({c.detail})" if c.detail else ""))
        else:
            lines.append(f"{c.tensor} {c.change}: {fmt_ranges(c.devices, mesh)}" + (f" ({c.detail})" if c.detail else ""))
    return "\n".join(lines) or "-"


def _findings(t: StepTrace, mesh) -> Text:
    if t.error:
        return Text(f"error: {t.error}", style="bold red")
    if not t.findings:
        return Text("-")
    groups: dict[tuple, list] = {}
    for f in t.findings:
        groups.setdefault((f.kind.value, f.tensor), []).append(f.device)
    text = Text()
    for i, ((kind, tensor), devices) in enumerate(groups.items()):
        if i:
            text.append("\n")
        where = fmt_devices([d for d in devices if d is not None], mesh)
        text.append(f"{kind} {tensor}" + (f" {where}" if where else ""), style="bold red")
    return text


def trace_renderable(steps: tuple, width: int, mesh=None) -> Table:
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1), expand=False)
    table.add_column("step", justify="right", no_wrap=True)
    table.add_column("op", no_wrap=True)
    table.add_column("tensors", overflow="fold")
    table.add_column("written / read", overflow="fold")
    table.add_column("record changes", overflow="fold")
    table.add_column("new findings", overflow="fold", min_width=14)
    for t in steps:
        table.add_row(
            str(t.index),
            f"{t.op}\nline {t.line}",
            ", ".join(t.tensors) or "-",
            _written(t, mesh),
            _changes(t, mesh),
            _findings(t, mesh),
        )
    return table

