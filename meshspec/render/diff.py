"""Table output of ``meshspec diff``: per tensor, devices side by side, changed cells marked.

A changed cell reads ``expected -> actual`` (highlighted on a terminal), so the text alone says
what changed; devices that agree are folded into one line unless ``show_all``.
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
        shard = v.get("shard_spec")
        extra = f" {'x'.join(map(str, shard['shape']))} {len(shard['grid'])}r" if shard else ""
        return f"{v.get('buffer_type')} {v.get('memory_layout')}{extra}"
    if isinstance(v, list):
        return ("(" + ",".join(str(x) for x in v) + ")") if field == "offset" else "x".join(str(x) for x in v)
    return str(v)


def _sharded(v) -> bool:
    return isinstance(v, dict) and v.get("memory_layout") not in (None, "interleaved")


def _topology(t: dict) -> str:
    if "same_as" in t and "coords" not in t:  # a shared topology diff_reports could not resolve
        return f"that of {one_line(str(t['same_as']))}"
    shape = "x".join(str(n) for n in t["distribution_shape"])
    placements = ", ".join("R" if p == "R" else f"S({p['shard']})" for p in t["placements"])
    return f"({shape}) [{placements}] on {len(t['coords'])} devices"


def render_diff(diff: Diff, *, color: bool = False, width: int = 120, show_all: bool = False) -> str:
    console = make_console(color, width)
    head = Text()
    head.append("meshspec diff ", style="bold")
    head.append(one_line(diff.scenario), style="bold cyan")
    head.append(f"  mesh {'x'.join(str(n) for n in diff.mesh)}  expected {diff.expected_label}  actual {diff.actual_label}")
    console.print(head)
    for label, err in (("expected", diff.expected_error), ("actual", diff.actual_error)):
        if err:
            console.print(Text(f"{label} run stopped at step {err['step']} ({err['op']}): {err['message']}", style="yellow"))
    for d in diff.run:
        console.print(Text(f"error: {d.expected or 'none'} -> {d.actual or 'none'}", style="bold yellow"))
    for t in diff.tensors:
        _tensor(console, t, show_all, width)
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


def _tensor(console: Console, t: TensorDiff, show_all: bool, width: int) -> None:
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
        console.print(Text("  " + textwrap.shorten(line, width=width - 2, placeholder=" ..."), style="bold yellow"))
    if not t.rows:
        return
    changed = {d.device for d in t.differences if d.device is not None}
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    table.add_column("device", no_wrap=True)
    # the memory column only where a memory config is sharded or differs (interleaved is the rule)
    fields = [f for f in DEVICE_FIELDS if f != "memory_config" or any(_sharded(e[f]) or _sharded(a[f]) or not same(e[f], a[f])
                                                                      for _, e, a in t.rows)]
    for f in fields:
        table.add_column(HEADERS[f], no_wrap=True, justify="right" if f in ("num_pages", "bytes") else "left")
    agree = []
    for coord, e, a in t.rows:
        if coord not in changed and not show_all:
            agree.append(coord)
            continue
        cells = [Text(fmt_coord(coord), style="bold" if coord in changed else "")]
        for f in fields:
            if same(e[f], a[f]):
                cells.append(Text(_value(f, e[f] if e[f] is not UNKNOWN else a[f]), style="dim"))
            else:
                cells.append(Text(f"{_value(f, e[f])} -> {_value(f, a[f])}", style="bold yellow"))
        table.add_row(*cells)
    if table.row_count:
        console.print(table)
    if agree:
        shown = [fmt_coord(c) for c in agree]
        if len(shown) > 6:
            shown = shown[:3] + ["..."] + shown[-2:]
        console.print(Text(f"  {len(agree)} device{'s' * (len(agree) != 1)} agree: {' '.join(shown)}", style="dim"))
