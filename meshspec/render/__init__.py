"""Renderers: one per output format. They show a report; they never compute or judge."""

from __future__ import annotations

import enum


class Format(str, enum.Enum):
    TABLE = "table"
    JSON = "json"


def render(reports: list, fmt: Format, *, color: bool = False, width: int | None = None) -> str:
    """The text of ``reports`` in ``fmt``: what ``meshspec run`` prints."""
    if fmt is Format.JSON:
        from .json import render_json

        return render_json(reports)
    from .table import render_table

    return render_table(reports, color=color, width=width)
