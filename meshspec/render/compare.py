"""``--profile all``: one scenario under every profile, side by side.

One row per device whose status differs between profiles, one column per profile; then a
one-line verdict per profile. The quickest way to show "the bug is in this era and the fix
removes it".
"""

from __future__ import annotations

import textwrap

from rich import box
from rich.console import Group
from rich.table import Table
from rich.text import Text

from ..sim.mesh import fmt_coord
from ..text import one_line
from .common import status_style


def comparison_renderable(reports: list, width: int) -> Group:
    first = reports[0]
    parts: list = []
    head = Text()
    head.append("meshspec ", style="bold")
    head.append(one_line(first.scenario), style="bold cyan")
    head.append(f"  mesh {'x'.join(str(n) for n in first.mesh)}  profiles side by side")
    parts.append(head)
    statuses: dict[tuple, dict[str, str]] = {}
    for r in reports:
        for t in r.tensors:
            for v in t.devices:
                statuses.setdefault((t.name, v.coord), {})[r.profile] = v.status.value
    differing = [k for k, by in statuses.items() if len({by.get(r.profile, "-") for r in reports}) > 1]
    if len(differing) > 16:
        parts.append(_grouped(differing, statuses, reports))
    elif differing:
        table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
        table.add_column("tensor", no_wrap=True)
        table.add_column("device", no_wrap=True)
        for r in reports:
            table.add_column(r.profile, no_wrap=True)
        for name, coord in differing:
            cells = []
            for r in reports:
                value = statuses[(name, coord)].get(r.profile, "-")
                cells.append(Text(value, style=status_style(value, "dim")))
            table.add_row(name, fmt_coord(coord), *cells)
        parts.append(table)
    else:
        parts.append(Text("every device has the same status under every profile", style="dim"))
    parts.append(Text())
    for r in reports:
        line = Text(f"{r.profile:<17} ")
        line.append(r.summary(), style="bold red" if r.exit_code else "bold green")
        parts.append(line)
        if r.error is not None:
            text = textwrap.fill(f"error: {r.error.message}", width=max(40, width), initial_indent=" " * 18, subsequent_indent=" " * 25)
            parts.append(Text(text, style="dim"))
        if r.findings:
            first_f = r.findings[0]
            where = f" {fmt_coord(first_f.device)}" if first_f.device is not None else ""
            parts.append(Text(f"{'':<17} first: {first_f.kind.value} {first_f.tensor}{where}, origin step {first_f.step}", style="dim"))
    return Group(*parts)


def _grouped(differing: list, statuses: dict, reports: list) -> Table:
    """On big meshes, devices with the same statuses across profiles share a row."""
    groups: dict[tuple, list] = {}
    for name, coord in differing:
        row = tuple(statuses[(name, coord)].get(r.profile, "-") for r in reports)
        groups.setdefault((name, row), []).append(coord)
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    table.add_column("tensor", no_wrap=True)
    table.add_column("devices")
    for r in reports:
        table.add_column(r.profile, no_wrap=True)
    for (name, row), coords in groups.items():
        shown = " ".join(fmt_coord(c) for c in coords[:3]) + (f" and {len(coords) - 3} more" if len(coords) > 3 else "")
        cells = [Text(v, style=status_style(v, "dim")) for v in row]
        table.add_row(name, f"{len(coords)}: {shown}", *cells)
    return table
