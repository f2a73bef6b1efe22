"""Renderers: one per output format. They show plain report data (meshspec/report.py); they
never compute or judge, and importing any of them loads none of numpy, yaml or pydantic.

Each :class:`Format` has exactly one renderer in :data:`RENDERERS` (and one in
:data:`DIFF_RENDERERS`); an unknown format is an error, never a fallthrough.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable, Optional

from ..errors import UsageError
from ..text import WRITTEN_MARK
from .options import Format, Options, View, console_text, make_console

if TYPE_CHECKING:
    from rich.console import Console

    from ..report import Diff

__all__ = ["Format", "Options", "View", "export", "print_reports", "render", "render_diff"]


def _table(reports: list, opts: Options, compare: bool) -> str:
    console = make_console(opts.color, opts.width)
    print_reports(console, reports, opts, compare=compare, fast=True)
    return console_text(console, opts.color)


def _json(reports: list, opts: Options, compare: bool) -> str:
    from .json import render_json

    return render_json(reports, force_array=compare)


def _diff_table(diff: "Diff", opts: Options, show_all: bool) -> str:
    from .diff import render_diff as table

    return table(diff, color=opts.color, width=opts.width, show_all=show_all, fit=opts.fit)


def _diff_json(diff: "Diff", opts: Options, show_all: bool) -> str:
    from .json import dumps

    return dumps(diff.to_json())


#: Format -> renderer of run reports.
RENDERERS: dict[Format, Callable[[list, Options, bool], str]] = {Format.TABLE: _table, Format.JSON: _json}
#: Format -> renderer of a diff.
DIFF_RENDERERS: dict[Format, Callable[["Diff", Options, bool], str]] = {Format.TABLE: _diff_table, Format.JSON: _diff_json}


DEVICE_ENTRY_BYTES = 4096
"""What one device of one tensor costs a report as it is rendered (its JSON object or table row,
the text made of it and the joined output: about 4 KiB at the peak, measured on 64x64 and 256x256
meshes, issue 34)."""
MAP_CELL_BYTES = 512
"""What one cell of a mesh map costs (its text and glyph)."""


def cost(reports: list, fmt: Format, opts: Options) -> tuple[int, str]:
    """Bytes rendering ``reports`` as ``fmt`` needs at most, about, and what they are in words:
    estimated from counts, before anything is rendered (--max-memory bounds the report too)."""
    from ..report import LISTED_ONCE

    if fmt is Format.TABLE:  # (the table renderer's modules: loaded here only when it draws)
        from .map import map_cells
        from .parts import PartGroup, grouped
        from .table import FOLD_OVER
    if opts.view is View.DATA and fmt is Format.TABLE:
        from .data import MAX_ROWS, MAX_TABLES
    entries = cells = coords = 0
    tensors = 0
    for r in reports:
        if not hasattr(r, "tensors"):
            continue
        listed: set[int] = set()
        maps = fmt is Format.TABLE and (opts.view is View.MAP or opts.view is View.TABLE and _volume(r.mesh) <= 64)
        for t in r.tensors:
            tensors += 1
            if fmt is Format.JSON:  # every device of every tensor
                entries += len(t.devices)
            elif opts.view is View.TABLE:  # a long table lists the devices with a finding, and counts the rest
                entries += len(t.devices) if len(t.devices) <= FOLD_OVER else sum(v.status.is_finding for v in t.devices)
            n = len(t.topology.coords)
            if n <= LISTED_ONCE or id(t.topology) not in listed:
                listed.add(id(t.topology))
                coords += n
            if maps and t.devices and not t.plain:
                cells += map_cells(t, t.grid or r.mesh)
        if fmt is Format.TABLE:  # a list's parts are one table (a row each), one map of the mesh
            shown = grouped(r.tensors)
            if maps:
                cells += sum(_volume(g.tensors[0].grid or r.mesh) for g in shown if isinstance(g, PartGroup))
            if opts.view is View.DATA:
                with_data = grouped([t for t in r.tensors if t.data is not None])[:MAX_TABLES]
                entries += sum(min(sum(len(t.data) for t in (s.tensors if isinstance(s, PartGroup) else (s,))), MAX_ROWS)
                               for s in with_data)
    need = entries * DEVICE_ENTRY_BYTES + cells * MAP_CELL_BYTES + coords * 64
    what = f"{entries:,} device entries of {tensors:,} tensor{'s' * (tensors != 1)}" + (f", {cells:,} map cells" if cells else "")
    return need, what


def _volume(shape) -> int:
    n = 1
    for x in shape:
        n *= x
    return n


def _pick(table: dict, fmt: Format):
    try:
        return table[Format(fmt)]
    except (KeyError, ValueError):
        raise UsageError(f"unknown format {fmt!r}; one of: {', '.join(f.value for f in Format)}") from None


def render(reports: list, fmt: Format, opts: Optional[Options] = None, *, compare: bool = False) -> str:
    """The text of ``reports`` in ``fmt``: what ``meshspec run`` prints.

    ``compare``: the reports are one scenario under several profiles (``--profile all``).
    """
    return _pick(RENDERERS, fmt)(reports, opts or Options(), compare)


def render_diff(diff: "Diff", fmt: Format, opts: Optional[Options] = None, *, show_all: bool = False) -> str:
    """The text of a diff in ``fmt``: what ``meshspec diff`` prints."""
    return _pick(DIFF_RENDERERS, fmt)(diff, opts or Options(), show_all)


def print_reports(console: "Console", reports: list, opts: Options, *, compare: bool = False, fast: bool = False) -> None:
    """Print the table-format output on ``console`` (also used to record SVG/HTML exports, which
    need rich to see everything; ``fast`` writes text renderables straight, see grid.write)."""
    from .grid import write
    from .table import report_renderable

    def show(renderable=None) -> None:
        if renderable is None:
            console.print()
        elif fast:
            write(console, renderable)
        else:
            console.print(renderable)

    if compare:
        # the comparison first, for a person at a terminal; each profile's report after it when a
        # view or the trace asks for what only a report shows (the JSON form holds every report)
        from .compare import comparison_renderable  # rich.table: only for profiles side by side

        by_scenario: dict[str, list] = {}
        for r in reports:
            by_scenario.setdefault(r.path, []).append(r)
        for i, group in enumerate(by_scenario.values()):
            if i:
                show()
            show(comparison_renderable(group, opts.width))
            if opts.view is not View.TABLE or opts.trace:
                for j, r in enumerate(group):
                    show()
                    show(report_renderable(r, opts.replace(brief=j > 0)))
            else:
                show(_one_in_full(group[0]))
        return
    for i, report in enumerate(reports):
        if i:
            show()
        show(report_renderable(report, opts))


def _one_in_full(r):
    """The line under a comparison in the table view: how to see the profiles' whole reports."""
    from rich.text import Text

    return Text("\na profile in full: --profile NAME; every profile in full: --view map or --trace; all the data: --format json",
                style="dim")


def export(path, reports: list, opts: Options, kind: str, *, compare: bool = False) -> str:
    """SVG or HTML of exactly what the table format prints, in colour."""
    console = make_console(True, opts.width, record=True)
    print_reports(console, reports, opts.replace(color=True), compare=compare)
    from ..text import one_line

    title = "meshspec " + ", ".join(dict.fromkeys(one_line(r.scenario) for r in reports))
    # the mark files.py knows its own files by (so a later run may write over them, and no other)
    if kind == "svg":
        return f"{WRITTEN_MARK}\n" + console.export_svg(title=title)
    html = console.export_html(inline_styles=True)
    doctype, _, rest = html.partition("\n")  # after the doctype: a comment before it puts browsers in quirks mode
    return f"{doctype}\n{WRITTEN_MARK}\n{rest}"
