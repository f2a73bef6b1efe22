"""The data view: per device, what a reader gets back, with poison marked."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from ..sim.mesh import fmt_coord
from .common import fit_title, tensor_title
from .parts import PartGroup, group_title, grouped


MAX_ROWS = 256
"""Devices a table lists: those that read back wrong first, then the others in mesh order."""
MAX_TABLES = 64
"""Device tensors the data view draws a table for (a list's parts are one); the rest are counted (a
table each for 65,536 get_device_tensors parts ran for minutes, issue 34)."""


def _fmt(v) -> str:
    if v is None:
        return "-"
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def data_renderables(report, opts) -> list:
    out: list = []
    if report.metadata:
        return [Text(), Text("data view: no values in metadata mode (--no-data / data: none)", style="dim")]
    held = _host_values(report, opts)
    if all(t.data is None for t in report.tensors):
        return (held or [Text()]) + ([] if held else [Text("data view: no device tensor to read back", style="dim")])
    # a list's parts (get_device_tensors) as one table, a row per part's device (render/parts.py)
    tables = grouped([t for t in report.tensors if t.data is not None])
    for item in tables[:MAX_TABLES]:
        out.append(Text())
        if isinstance(item, PartGroup):
            out.append(fit_title(group_title(item, report.meshes), opts.width))
            rows = [(t.name, coord, d) for t in item.tensors for coord, d in (t.data or {}).items()]
        else:
            out.append(fit_title(tensor_title(item, report.meshes), opts.width))
            rows = [(None, coord, d) for coord, d in item.data.items()]
        if not rows:
            out.append(Text("  no device is recorded: a reader gets nothing back", style="dim"))
            continue
        out += _table(rows, opts, parts=isinstance(item, PartGroup))
    if len(tables) > MAX_TABLES:
        more = len(tables) - MAX_TABLES
        out += [Text(), Text(f"... and {more} more device tensor{'s' * (more != 1)} (every one: --format json)", style="dim")]
    return out + held


def _table(rows: list, opts, parts: bool) -> list:
    """Rows of (part name or None, device, DataSummary): at most MAX_ROWS, those that read back
    wrong first, then the others in order; with ``parts``, a first column naming each part."""
    any_note = any(d.note for _, _, d in rows)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    names = (("part",) if parts else ()) + ("device", "first", "last", "min", "max", "crc32", "differ", "unwritten")
    for name in names:
        table.add_column(name, justify="left" if name in ("part", "device", "crc32") else "right", no_wrap=True)
    if any_note:
        table.add_column("note")
    if opts.show_values:
        table.add_column(f"first {opts.show_values} values")
    left_out = max(0, len(rows) - MAX_ROWS)
    if left_out:  # the devices that read back wrong, then the first others, in mesh order
        chosen = {i for i, (_, _, d) in enumerate(rows) if d.poison or d.differ or d.note}
        chosen = set(sorted(chosen)[:MAX_ROWS])
        for i in range(len(rows)):
            if len(chosen) >= MAX_ROWS:
                break
            chosen.add(i)
        rows = [rows[i] for i in sorted(chosen)]
    for part, coord, d in rows:
        bad = d.poison or d.differ or d.note
        row = [
            *([part] if parts else []),
            fmt_coord(coord),
            _fmt(d.first),
            _fmt(d.last),
            _fmt(d.min),
            _fmt(d.max),
            d.crc32,
            _fmt(d.differ),
            Text(str(d.poison), style="bold red" if d.poison else ""),
        ]
        if any_note:
            row.append(Text(d.note, style="bold red" if d.note else ""))
        if opts.show_values:
            row.append(Text(" ".join(_fmt(v) for v in d.values), overflow="fold"))
        table.add_row(*row, style="bold" if bad else None)
    out: list = [table]
    if left_out:
        what = "row" if parts else "device"
        out.append(Text(f"  ... and {left_out} more {what}{'s' * (left_out != 1)} (every one: --format json)", style="dim"))
    return out


def _host_values(report, opts) -> list:
    """Host tensors holding one array (composed results, per-device parts, sources): their
    values as ``expect: values`` checks them (shape, dtype, sha256, first values)."""
    shown = [t for t in report.tensors if t.storage == "host" and t.values is not None]
    if not shown:
        return []
    # --show-values N, as the device table takes it (4 without it); the report keeps the first 16
    n = min(opts.show_values or 4, max(len(t.values["first"]) for t in shown))
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    for name in ("host tensor", "shape", "dtype", "sha256", f"first {n} values"):
        table.add_column(name, no_wrap=name != f"first {n} values")
    for t in shown:
        v = t.values
        table.add_row(t.name, "x".join(map(str, v["shape"])), v["dtype"], v["sha256"][:16], " ".join(_fmt(x) for x in v["first"][:n]))
    return [Text(), Text("host tensors (one array each; expect: values checks these)", style="bold"), table]
