"""Table output of ``meshspec diff``: per tensor, devices side by side, changed cells marked.

A changed cell reads ``expected -> actual`` (highlighted on a terminal), so the text alone says
what changed; devices that agree are folded into one line unless ``show_all``. A changed value is
never cut: on a terminal its column wraps (the columns that agree may be cut), and through a pipe
or into a file (``fit=False``) every line is as long as its values.
"""

from __future__ import annotations

import textwrap

from rich import box
from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..report import DEVICE_FIELDS, UNKNOWN, Diff, TensorDiff, same
from ..sim.mesh import fmt_coord
from ..text import one_line
from .options import console_text, make_console

HEADERS = {
    "recorded": "recorded",
    "shape": "shape",
    "padded_shape": "padded",
    "dtype": "dtype",
    "layout": "layout",
    "memory_config": "memory",
    "num_pages": "pages",
    "bytes": "bytes",
    "offset": "offset",
}


def _value(field: str, v) -> str:
    if v is UNKNOWN:
        return "?"
    if v is None:
        return "-"
    if field == "recorded":
        return "yes" if v else "no"
    if field == "memory_config" and isinstance(v, dict):
        return _memory(v)
    if isinstance(v, list):
        return ("(" + ",".join(str(x) for x in v) + ")") if field == "offset" else "x".join(str(x) for x in v)
    return str(v)


DROP_ORDER = ("padded_shape", "layout", "dtype", "num_pages", "offset", "shape", "bytes", "memory_config", "recorded")
"""Columns a narrow terminal loses first, of those whose values agree (a changed one stays)."""


def _narrow(columns: list[str], rows: list[dict], differing: set[str], width: int) -> list[str]:
    """The agreeing columns to leave out, in :data:`DROP_ORDER`, so the table fits ``width``."""
    widths = {c: max([len(HEADERS.get(c, c)), *(len(r[c].plain) for r in rows)]) for c in columns}
    shown, dropped = list(columns), []
    for c in DROP_ORDER:
        if sum(widths[x] for x in shown) + 2 * (len(shown) - 1) <= width:
            break
        if c in shown and c not in differing:
            shown.remove(c)
            dropped.append(c)
    return dropped


def _memory(v: dict) -> str:
    """``l1 height_sharded 32x64 on (0,0)-(7,0)``: a memory config with its shard grid (two grids of
    one shard shape differ there), its orientation when not row-major and its ND distribution."""
    shard = v.get("shard_spec") or v.get("nd_shard_spec")
    text = f"{v.get('buffer_type')} {v.get('memory_layout')}"
    if not isinstance(shard, dict):
        return text
    shape = shard.get("shape", shard.get("shard_shape")) or []
    grid = shard.get("grid") or []
    ranges = [f"({a[0]},{a[1]})-({b[0]},{b[1]})" for a, b in grid[:3]] + ([f"and {len(grid) - 3} more"] if len(grid) > 3 else [])
    text += f" {'x'.join(map(str, shape))} on {' '.join(ranges) or 'no cores'}"
    if shard.get("orientation") not in (None, "row_major"):
        text += f" {shard['orientation']}"
    if shard.get("distribution") not in (None, "round_robin_1d"):
        text += f" {shard['distribution']}"
    return text


def _sharded(v) -> bool:
    return isinstance(v, dict) and v.get("memory_layout") not in (None, "interleaved")


def _topology(t: dict) -> str:
    if "same_as" in t and "coords" not in t:  # a shared topology diff_reports could not resolve
        return f"that of {one_line(str(t['same_as']))}"
    shape = "x".join(str(n) for n in t["distribution_shape"])
    placements = ", ".join("R" if p == "R" else f"S({p['shard']})" for p in t["placements"])
    n = len(t["coords"])
    return f"({shape}) [{placements}] on {n} device{'s' * (n != 1)}"


UNBOUNDED = 1_000_000
"""The console width of a diff written to a pipe or a file: a table's line is never cut (prose is
still wrapped at the width asked for, between words)."""


def render_diff(diff: Diff, *, color: bool = False, width: int = 120, show_all: bool = False, fit: bool = True) -> str:
    """``fit``: lay it out for a terminal ``width`` columns wide; else no table line is cut, however long."""
    console = make_console(color, width if fit else UNBOUNDED)
    head = Text()
    head.append("meshspec diff ", style="bold")
    head.append(one_line(diff.scenario), style="bold cyan")
    head.append(f"  mesh {'x'.join(str(n) for n in diff.mesh)}  expected {diff.expected_label}  actual {diff.actual_label}")
    console.print(head if fit else _wrapped(head, width))
    for label, err in (("expected", diff.expected_error), ("actual", diff.actual_error)):
        if err:
            console.print(_wrapped(Text(f"{label} run stopped at step {err['step']} ({err['op']}): {err['message']}", style="yellow"), width))
    for d in diff.run:
        console.print(_wrapped(Text(f"error: {d.expected or 'none'} -> {d.actual or 'none'}", style="bold yellow"), width))
    for t in diff.tensors:
        _tensor(console, t, show_all, width, fit)
    by_reason: dict[str, list[str]] = {}
    for name, why in diff.not_compared:  # one line a reason: the parts of a tensor share theirs
        by_reason.setdefault(one_line(why), []).append(one_line(name))
    for why, names in by_reason.items():
        console.print(_wrapped(Text(f"not compared, the real runtime's report could not describe them ({why}): {' '.join(names)}",
                                    style="dim"), width))
    console.print()
    n = len(diff.differences)
    if n:
        tensors = len({d.tensor for d in diff.differences if d.tensor})
        where = [f"{tensors} tensor{'s' * (tensors != 1)}"] if tensors else []
        where += ["the run's error"] if diff.run else []
        console.print(Text(f"{n} difference{'s' * (n != 1)} in {' and '.join(where)}", style="bold red"))
    else:
        console.print(Text("equal: no differences", style="bold green"))
    return console_text(console, color)


def _wrapped(text: Text, width: int) -> Text:
    """``text`` broken between words at ``width`` (as rich wraps prose on a terminal), its style kept."""
    lines = text.wrap(make_console(False, width), width)
    return Text("\n").join(lines) if len(lines) > 1 else text


def _tensor(console: Console, t: TensorDiff, show_all: bool, width: int, fit: bool = True) -> None:
    if not t.differences and not show_all:
        return
    console.print()
    title = Text(t.name, style="bold")
    console.print(title)
    for d in t.differences:
        if d.device is not None:
            continue
        if d.field == "topology":
            line = f"topology: {_topology(d.expected)} -> {_topology(d.actual)}"
        elif d.field == "present":
            line = f"present: {'yes' if d.expected else 'no'} -> {'yes' if d.actual else 'no'}"
        else:
            line = f"{d.field}: {d.expected} -> {d.actual}"
        # a long value (a values sha256 and first values) keeps both sides, wrapped, never cut
        line = textwrap.fill(line, width=max(40, width - 2), subsequent_indent="    ")
        console.print(Text("  " + line, style="bold yellow"))
    if not t.rows:
        return
    changed = {d.device for d in t.differences if d.device is not None}
    # the memory column only where a memory config is sharded or differs (interleaved is the rule)
    fields = [f for f in DEVICE_FIELDS if f != "memory_config" or any(_sharded(e[f]) or _sharded(a[f]) or not same(e[f], a[f])
                                                                      for _, e, a in t.rows)]
    rows, agree = [], []
    for coord, e, a in t.rows:
        if coord not in changed and not show_all:
            agree.append(coord)
            continue
        cells = {"device": Text(fmt_coord(coord), style="bold" if coord in changed else "")}
        for f in fields:
            if same(e[f], a[f]):
                cells[f] = Text(_value(f, e[f] if e[f] is not UNKNOWN else a[f]), style="dim")
            else:
                cells[f] = Text(f"{_value(f, e[f])} -> {_value(f, a[f])}", style="bold yellow")
        rows.append(cells)
    differing = {f for f in fields if any(not same(e[f], a[f]) for c, e, a in t.rows if c in changed or show_all)}
    dropped = _narrow(["device", *fields], rows, differing, width) if fit else []
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    columns = [f for f in ["device", *fields] if f not in dropped]
    for f in columns:  # a changed value wraps when it must, never cut
        table.add_column(HEADERS.get(f, f), no_wrap=f not in differing, overflow="fold" if f in differing else "ellipsis",
                         justify="right" if f in ("num_pages", "bytes") else "left")
    for cells in rows:
        table.add_row(*(cells[f] for f in columns))
    if table.row_count:
        console.print(table)
    if dropped:
        note = f"(narrow terminal: {', '.join(HEADERS[f] for f in dropped)} not shown; they agree)"
        console.print(Text(textwrap.fill(note, width=max(40, width - 2), initial_indent="  ", subsequent_indent="    "), style="dim"))
    if agree:
        shown = [fmt_coord(c) for c in agree]
        if len(shown) > 6:
            shown = shown[:3] + ["..."] + shown[-2:]
        console.print(Text(f"  {len(agree)} device{'s agree' if len(agree) != 1 else ' agrees'}: {' '.join(shown)}", style="dim"))
