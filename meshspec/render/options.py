"""The choices a rendering takes (format, view, colour, width) and the console it draws on."""

from __future__ import annotations

import enum
import io
from ..frozen import Frozen
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from rich.console import Console


class Format(str, enum.Enum):
    """Output formats; each has one renderer (meshspec/render/__init__.py)."""

    TABLE = "table"
    JSON = "json"


class View(str, enum.Enum):
    TABLE = "table"
    """Per-device tables (and a mesh map when the mesh has at most 64 devices)."""
    MAP = "map"
    """A grid shaped like the mesh per tensor."""
    DATA = "data"
    """What a reader gets back from each device, in numbers."""


class Options(Frozen):
    view: View = View.TABLE
    trace: bool = False
    color: bool = False
    width: int = 120
    show_values: int = 0
    brief: bool = False
    """Side by side (--profile all): no description, maps of device tensors only."""
    device: Optional[tuple[int, ...]] = None
    """``--device R,C``: the device the maps mark (bracketed, reversed in colour)."""
    fit: bool = True
    """Laid out for a terminal ``width`` wide; False (a pipe, a file): a value is never cut (diff)."""


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
