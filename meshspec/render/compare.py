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

from ..sim.mesh import coords as mesh_coords, fmt_coord
from ..text import one_line
from .common import status_style
from .parts import PART

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
    on_host: set[str] = set()  # a single host tensor's one shard is on no device: "host", as its table says
    for r in reports:
        for t in r.tensors:
            if t.plain:
                on_host.add(t.name)
            for v in t.devices:
                statuses.setdefault((t.name, v.coord), {})[r.profile] = v.status.value
    profiles = [r.profile for r in reports]
    differing = [k for k, by in statuses.items() if len({by.get(p, "-") for p in profiles}) > 1]
    if differing:
        grouped = len(differing) > 16
        rows = _grouped_rows(differing, statuses, profiles, on_host, tuple(first.mesh)) if grouped else _rows(differing, statuses, profiles, on_host)
        columns = profile_columns([row for _, row in rows], profiles)
        parts.append(_table(rows, columns, profiles, grouped))
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


def _rows(differing: list, statuses: dict, profiles: list[str], on_host: set[str]) -> list[tuple[tuple[str, str], tuple[str, ...]]]:
    """``((tensor, device), statuses)`` per differing device, in the reports' order."""
    return [((name, "host" if name in on_host else fmt_coord(coord)), tuple(statuses[(name, coord)].get(p, "-") for p in profiles))
            for name, coord in differing]


def _grouped_rows(differing: list, statuses: dict, profiles: list[str], on_host: set[str], mesh: tuple) -> list:
    """On big meshes, devices with the same statuses across profiles share a row, and so do the
    parts of one list (``parts[0:7]``) whose devices have the same statuses."""
    groups: dict[tuple, list] = {}
    for name, coord in differing:
        row = tuple(statuses[(name, coord)].get(p, "-") for p in profiles)
        groups.setdefault((name, row), []).append(coord)
    merged: list[tuple[list[str], tuple, list]] = []  # (names, statuses, devices)
    for (name, row), coords in groups.items():
        last = merged[-1] if merged else None
        if last is not None and last[1] == row and _next_part(last[0][-1], name) and (name in on_host) == (last[0][-1] in on_host):
            last[0].append(name)
            last[2].extend(coords)
        else:
            merged.append(([name], row, list(coords)))
    rows = []
    for names, row, coords in merged:
        label = names[0] if len(names) == 1 else f"{PART.match(names[0])['base']}[{_index(names[0])}:{_index(names[-1]) + 1}]"
        rows.append(((label, "host" if names[0] in on_host else _devices(coords, mesh)), row))
    return rows


def _table(rows: list, columns: list[tuple[str, ...]], profiles: list[str], grouped: bool) -> Table:
    """The rows under one column per group of profiles (``grouped``: a row stands for several
    devices, the column says ``devices``)."""
    first_of = [profiles.index(names[0]) for names in columns]
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    table.add_column("tensor", no_wrap=True)
    table.add_column("devices" if grouped else "device", no_wrap=True)
    for names in columns:
        table.add_column(column_name(names), no_wrap=True)
    for (name, where), row in rows:
        cells = [Text(row[i], style=status_style(row[i], "dim")) for i in first_of]
        table.add_row(name, where, *cells)
    return table


def _index(name: str) -> int:
    return int(PART.match(name)["index"])  # type: ignore[index]


def _next_part(previous: str, name: str) -> bool:
    """Whether ``name`` is the item after ``previous`` in one list (``parts[3]`` after ``parts[2]``)."""
    a, b = PART.match(previous), PART.match(name)
    return a is not None and b is not None and a["base"] == b["base"] and int(b["index"]) == int(a["index"]) + 1


def _devices(coords: list, mesh: tuple) -> str:
    """``(0,1) (1,0)``; ``all but (1,3)`` (of the mesh's devices); ``12: (0,0) (0,1) +10``."""
    if len(coords) <= 3:
        return " ".join(fmt_coord(c) for c in coords)
    everyone = set(mesh_coords(mesh))
    if set(coords) <= everyone and len(everyone) - len(set(coords)) <= 2:
        missing = sorted(everyone - set(coords))
        return "all" + (" but " + " ".join(fmt_coord(c) for c in missing) if missing else "")
    return f"{len(coords)}: {fmt_coord(coords[0])} {fmt_coord(coords[1])} +{len(coords) - 2}"
