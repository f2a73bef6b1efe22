"""``--profile all``: one scenario under every profile, side by side.

One row per device whose status differs between profiles, one column per distinct set of
statuses: profiles that agree on every row share a column, named by the first of them with a
count (``current +6``) and spelled out under the table. Then a verdict per profile. The quickest
way to show "the bug is in this era and the fix removes it".

Worked example: the seed under the nine built-ins differs on eight devices of ``dst``; seven
profiles read ``ok ... empty`` down those rows, ``uniform-by-value`` reads ``ok ... stale`` and
``unpopulated`` ``missing_spec ... empty``: three columns, ``current +6``, ``uniform-by-value``,
``unpopulated``, instead of nine that 80 columns cannot hold.
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

INDENT = 18
"""Where a profile's verdict starts: the longest built-in name and a space."""


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
    profiles = [r.profile for r in reports]
    differing = [k for k, by in statuses.items() if len({by.get(p, "-") for p in profiles}) > 1]
    if differing:
        rows = _rows(differing, statuses, profiles)
        columns = profile_columns([row for _, row in rows], profiles)
        parts.append(_table(rows, columns, profiles, grouped=len(differing) > 16))
        for names in columns:
            if len(names) > 1:
                parts.append(Text(textwrap.fill(f"{column_name(names)}: the same under {', '.join(names)}", width=max(40, width),
                                                subsequent_indent="  ", break_on_hyphens=False), style="dim"))
    else:
        parts.append(Text("every device has the same status under every profile", style="dim"))
    parts.append(Text())
    for r in reports:
        summary = textwrap.wrap(r.summary(), width=max(40, width - INDENT), break_on_hyphens=False) or [""]
        line = Text(f"{r.profile:<{INDENT - 1}} ")
        line.append(summary[0], style="bold red" if r.exit_code else "bold green")
        parts.append(line)
        for more in summary[1:]:
            parts.append(Text(" " * INDENT + more, style="bold red" if r.exit_code else "bold green"))
        if r.error is not None:
            text = textwrap.fill(f"error: {r.error.message}", width=max(40, width), initial_indent=" " * INDENT,
                                 subsequent_indent=" " * (INDENT + 7))
            parts.append(Text(text, style="dim"))
        if r.findings:
            first_f = r.findings[0]
            where = f" {fmt_coord(first_f.device)}" if first_f.device is not None else ""
            parts.append(Text(f"{'':<{INDENT - 1}} first: {first_f.kind.value} {first_f.tensor}{where}, origin step {first_f.step}", style="dim"))
    return Group(*parts)


def profile_columns(rows: list[tuple[str, ...]], profiles: list[str]) -> list[tuple[str, ...]]:
    """The profiles grouped by the statuses they read down ``rows`` (one tuple per row, a status
    per profile), in order of first appearance: ``[("current", "reference"), ("uniform-by-value",)]``
    when current and reference agree on every row."""
    groups: dict[tuple, list[str]] = {}
    for i, profile in enumerate(profiles):
        groups.setdefault(tuple(row[i] for row in rows), []).append(profile)
    return [tuple(names) for names in groups.values()]


def column_name(names: tuple[str, ...]) -> str:
    """A shared column's header: its first profile and how many more (``current +6``)."""
    return names[0] if len(names) == 1 else f"{names[0]} +{len(names) - 1}"


def _rows(differing: list, statuses: dict, profiles: list[str]) -> list[tuple[tuple[str, str], tuple[str, ...]]]:
    """``((tensor, device), statuses)`` per differing device, in the reports' order."""
    return [((name, fmt_coord(coord)), tuple(statuses[(name, coord)].get(p, "-") for p in profiles)) for name, coord in differing]


def _table(rows: list, columns: list[tuple[str, ...]], profiles: list[str], grouped: bool) -> Table:
    """The rows under one column per group of profiles; on big meshes (``grouped``), devices of a
    tensor with the same statuses share a row (``8: (0,0) (0,1) +6``)."""
    first_of = [profiles.index(names[0]) for names in columns]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    table.add_column("tensor", no_wrap=True)
    table.add_column("devices" if grouped else "device", no_wrap=True)
    for names in columns:
        table.add_column(column_name(names), no_wrap=True)
    if grouped:
        merged: dict[tuple, list[str]] = {}
        for (name, coord), row in rows:
            merged.setdefault((name, row), []).append(coord)
        rows = [((name, f"{len(coords)}: " + " ".join(coords[:2]) + (f" +{len(coords) - 2}" if len(coords) > 2 else "")), row)
                for (name, row), coords in merged.items()]
    for (name, where), row in rows:
        cells = [Text(row[i], style=status_style(row[i], "dim")) for i in first_of]
        table.add_row(name, where, *cells)
    return table
