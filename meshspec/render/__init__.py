"""Renderers: one per output format. They show a report; they never compute or judge."""

from __future__ import annotations

import enum
import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from rich.console import Console


class Format(str, enum.Enum):
    TABLE = "table"
    JSON = "json"


class View(str, enum.Enum):
    TABLE = "table"
    """Per-device tables (and a mesh map when the mesh has at most 64 devices)."""
    MAP = "map"
    """A grid shaped like the mesh per tensor."""
    DATA = "data"
    """What a reader gets back from each device, in numbers."""


@dataclass(frozen=True)
class Options:
    view: View = View.TABLE
    trace: bool = False
    color: bool = False
    width: int = 120
    show_values: int = 0
    brief: bool = False
    """Side by side (--profile all): no description, maps of device tensors only."""


def make_console(color: bool, width: int, record: bool = False) -> "Console":
    """A console writing to memory: colour only when asked; recording for SVG/HTML export."""
    from rich.console import Console

    return Console(
        file=io.StringIO(),
        width=width,
        color_system=("truecolor" if record else "standard") if color else None,
        force_terminal=color,
        no_color=not color,
        highlight=False,
        emoji=False,
        record=record,
    )


def console_text(console: "Console", color: bool) -> str:
    text = console.file.getvalue()  # type: ignore[attr-defined]
    if not color:  # rich pads cells to the column width; plain text should not trail blanks
        text = "\n".join(line.rstrip() for line in text.split("\n"))
    return text


def render(reports: list, fmt: Format, opts: Optional[Options] = None, *, compare: bool = False) -> str:
    """The text of ``reports`` in ``fmt``: what ``meshspec run`` prints.

    ``compare``: the reports are one scenario under several profiles (``--profile all``).
    """
    opts = opts or Options()
    if fmt is Format.JSON:
        from .json import render_json

        return render_json(reports, force_array=compare)
    console = make_console(opts.color, opts.width)
    print_reports(console, reports, opts, compare=compare)
    return console_text(console, opts.color)


def print_reports(console: "Console", reports: list, opts: Options, *, compare: bool = False) -> None:
    """Print the table-format output on ``console`` (also used to record SVG/HTML exports)."""
    from .table import report_renderable

    if compare:
        from .compare import comparison_renderable

        by_scenario: dict[str, list] = {}
        for r in reports:
            by_scenario.setdefault(r.path, []).append(r)
        for i, group in enumerate(by_scenario.values()):
            if i:
                console.print()
            if opts.view is not View.TABLE or opts.trace:
                from dataclasses import replace

                for j, r in enumerate(group):
                    console.print(report_renderable(r, replace(opts, brief=j > 0)))
                    console.print()
            console.print(comparison_renderable(group, opts.width))
        return
    for i, report in enumerate(reports):
        if i:
            console.print()
        console.print(report_renderable(report, opts))


def export(path, reports: list, opts: Options, kind: str, *, compare: bool = False) -> str:
    """SVG or HTML of exactly what the table format prints, in colour."""
    from dataclasses import replace

    console = make_console(True, opts.width, record=True)
    print_reports(console, reports, replace(opts, color=True), compare=compare)
    title = "meshspec " + ", ".join(dict.fromkeys(r.scenario for r in reports))
    if kind == "svg":
        return console.export_svg(title=title)
    return console.export_html(inline_styles=True)
