"""The data view: per device, what a reader gets back, with poison marked."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from ..mesh import fmt_coord


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def data_renderables(report, opts) -> list:
    from .table import _tensor_title

    out: list = []
    for t in report.tensors:
        if t.data is None:
            continue
        out.append(Text())
        out.append(_tensor_title(t))
        if not t.data:
            out.append(Text("  no device is recorded: a reader gets nothing back", style="dim"))
            continue
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
        for name in ("device", "first", "last", "min", "max", "crc32", "differ", "poison"):
            table.add_column(name, justify="left" if name in ("device", "crc32") else "right", no_wrap=True)
        if opts.show_values:
            table.add_column(f"first {opts.show_values} values")
        for coord, d in t.data.items():
            bad = d.poison or d.differ
            row = [
                fmt_coord(coord),
                _fmt(d.first),
                _fmt(d.last),
                _fmt(d.min),
                _fmt(d.max),
                d.crc32,
                _fmt(d.differ),
                Text(f"{d.poison} POISON" if d.poison else "0", style="bold red" if d.poison else ""),
            ]
            if opts.show_values:
                row.append(Text(" ".join(_fmt(v) for v in d.values), overflow="fold"))
            table.add_row(*row, style="bold" if bad else None)
        out.append(table)
    return out
