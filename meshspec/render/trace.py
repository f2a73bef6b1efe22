"""The step trace as a table: one row per step, so the user sees when the lie began."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from ..report import StepTrace
from .common import fmt_devices


def _written(t: StepTrace, mesh) -> str:
    by_tensor: dict[str, list] = {}
    for name, coord, nbytes in t.written:
        by_tensor.setdefault(name, []).append((coord, nbytes))
    parts = []
    for name, items in by_tensor.items():
        sizes = {b for _, b in items}
        size = f"{sizes.pop()} B each" if len(sizes) == 1 else f"{sum(b for _, b in items)} B"
        parts.append(f"{name}: {fmt_devices([c for c, _ in items], mesh)}, {size}")
    reads: dict[str, list] = {}
    for name, coord in t.read:
        reads.setdefault(name, []).append(coord)
    parts += [f"read {name}: {fmt_devices(cs, mesh)}" for name, cs in reads.items()]
    return "\n".join(parts) or "-"


def _changes(t: StepTrace, mesh) -> str:
    groups: dict[tuple, list] = {}
    lines = []
    for c in t.changes:
        if c.device is None:
            lines.append(f"{c.tensor} {c.change}" + (f" ({c.detail})" if c.detail else ""))
        else:
            groups.setdefault((c.tensor, c.change, c.detail), []).append(c.device)
    for (tensor, change, detail), devices in groups.items():
        lines.append(f"{tensor} {change}: {fmt_devices(devices, mesh)}" + (f" ({detail})" if detail else ""))
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

