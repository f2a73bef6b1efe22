"""Tables and boxed grids drawn as styled :class:`~rich.text.Text`, not as ``rich.Table``.

A ``rich.Table`` measures every cell of every row, twice, whatever its content: about 7 ms for a
tensor's eight devices, 70 s for a scenario of 10,000 tensors. The per-device tables and the full
mesh maps have fixed columns whose widths meshspec knows, so they are drawn here as lines of text
with style spans: the same characters ``rich.Table`` prints for them (``box.SIMPLE_HEAD`` without
edges, and ``box.SQUARE`` with lines between rows), a string join per line, and still a rich
renderable (SVG and HTML export record them like anything else). :func:`write` then prints such
text without rich's wrapping machinery when no line needs wrapping.

    >>> columns(["device", "pages"], [["(0,0)", "1"]], right={1}).plain.splitlines()
    ['device  pages', '─────────────', '(0,0)       1']
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Optional, Sequence, Union

from rich.cells import cell_len as _cell_len
from rich.console import Group
from rich.text import Span, Text


def cell_len(text: str) -> int:
    """Terminal cells ``text`` takes: its length when it is ASCII (known to Python without a scan),
    else rich's count of wide characters. rich's own costs half a microsecond a call, and a table
    view of 10,000 tensors asks 1.5 million times."""
    return len(text) if text.isascii() else _cell_len(text)


if TYPE_CHECKING:
    from rich.console import Console

Cell = Union[str, Text]


class Plain:
    """Text laid out here, with no style and no control codes: printed as it is (``Text`` would
    scan it for control codes first, a tenth of the table view's time on 10,000 tensors)."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    @property
    def plain(self) -> str:
        return self.text

    def __rich_console__(self, console: "Console", options: object):  # for rich: export, narrow consoles
        yield Text(self.text, no_wrap=True)


class _Builder:
    """Text built from pieces and style spans (``Text.append`` costs a control-code scan per call)."""

    __slots__ = ("pieces", "spans", "at")

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.spans: list[Span] = []
        self.at = 0

    def add(self, piece: str, style: object = "") -> None:
        if style and piece:
            self.spans.append(Span(self.at, self.at + len(piece), style))  # type: ignore[arg-type]
        self.pieces.append(piece)
        self.at += len(piece)

    def add_text(self, text: Text) -> None:
        if text.style:
            self.spans.append(Span(self.at, self.at + len(text.plain), text.style))
        self.spans.extend(Span(self.at + a, self.at + b, st) for a, b, st in text.spans)
        self.add(text.plain)

    def text(self, end: str = "\n") -> Text:
        return Text("".join(self.pieces), spans=self.spans, no_wrap=True, end=end)


def _plain(cell: Cell) -> str:
    return cell.plain if isinstance(cell, Text) else cell


def column_widths(header: Sequence[str], texts: Sequence[Sequence[str]]) -> list[int]:
    """Each column's width in terminal cells: its widest cell or header.

    >>> column_widths(["device", "status"], [["(0,0)", "stale"], ["(10,10)", "ok"]])
    [7, 6]
    """
    ascii_only = "".join(header).isascii() and "".join(map("".join, texts)).isascii()
    width = len if ascii_only else cell_len  # (the common case: a column's width is a max of lens)
    return [max(width(h), *map(width, column)) for h, column in zip(header, zip(*texts))] if texts else list(map(width, header))


def columns(
    header: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    right: set[int] = frozenset(),  # type: ignore[assignment]
    row_styles: Optional[Sequence[Optional[str]]] = None,
    widths: Optional[Sequence[int]] = None,
) -> "Text | Plain":
    """A table as ``box.SIMPLE_HEAD`` with no edge draws it: a bold header, a rule as wide as the
    table, then the rows; columns two spaces apart, ``right`` (column indices) right-justified,
    each row in its ``row_styles`` entry under its cells' own styles. Rows of plain strings and
    no row styles make a plain text (nothing to colour: one join per line). ``widths``: each
    column's width in terminal cells, when the caller has measured them."""
    texts = [[_plain(c) for c in r] for r in rows]
    if any(len(r) != len(header) for r in texts):
        raise ValueError(f"a row of {min(map(len, texts))} or {max(map(len, texts))} cells under {len(header)} headers")
    if widths is None:
        widths = column_widths(header, texts)
    total = sum(widths) + 2 * (len(widths) - 1)
    styled = row_styles is not None or any(isinstance(c, Text) for r in rows for c in r)
    if not styled:
        line = "  ".join(f"{{:{'>' if i in right else '<'}{w}}}" for i, w in enumerate(widths)).format  # ljust/rjust, as one call a row
        lines = [line(*header), "─" * total, *(line(*r) for r in texts)]
        return Plain("\n".join(lines))
    out = _Builder()
    cells_of: list = [[Text(h, style="bold") for h in header], None, *rows]
    for n, cells in enumerate(cells_of):
        if n:
            out.add("\n")
        if cells is None:
            out.add("─" * total)
            continue
        style = row_styles[n - 2] if row_styles and n >= 2 else None
        begin, first = out.at, len(out.spans)
        for i, (cell, w) in enumerate(zip(cells, widths)):
            if i:
                out.add("  ")
            pad = " " * (w - cell_len(_plain(cell)))
            if i in right:
                out.add(pad)
            if isinstance(cell, Text):
                out.add_text(cell)
            else:
                out.add(cell)
            if i not in right:
                out.add(pad)
        if style:  # the row's style under its cells' (a span listed earlier applies first)
            out.spans.insert(first, Span(begin, out.at, style))
    return out.text()


def boxed(rows: Sequence[Sequence[tuple[Sequence[str], str, str]]], inner: int, *, styled: bool = True) -> "Text | Plain":
    """A grid of cells as ``box.SQUARE`` with lines between rows draws it. Each cell is (lines,
    text style, background style); a cell is ``inner`` wide plus a space each side, and the
    background covers it all. Every row has as many lines as its tallest cell. Without
    ``styled``, plain text."""
    ncols = len(rows[0])
    bar = "─" * (inner + 2)
    if not styled:
        lines = ["┌" + "┬".join([bar] * ncols) + "┐"]
        for r, row in enumerate(rows):
            if r:
                lines.append("├" + "┼".join([bar] * ncols) + "┤")
            height = max(len(cell_lines) for cell_lines, _, _ in row)
            for k in range(height):
                words = [(cell_lines[k] if k < len(cell_lines) else "") for cell_lines, _, _ in row]
                if "".join(words).isascii():  # a width is a length: ljust pads in C
                    lines.append("│ " + " │ ".join(w.ljust(inner) for w in words) + " │")
                else:
                    lines.append("│" + "│".join(" " + w + " " * (inner - cell_len(w) + 1) for w in words) + "│")
        lines.append("└" + "┴".join([bar] * ncols) + "┘")
        return Plain("\n".join(lines))
    out = _Builder()
    out.add("┌" + "┬".join([bar] * ncols) + "┐")
    for r, row in enumerate(rows):
        if r:
            out.add("\n├" + "┼".join([bar] * ncols) + "┤")
        height = max(len(lines) for lines, _, _ in row)
        for k in range(height):
            out.add("\n│")
            for i, (lines, style, background) in enumerate(row):
                if i:
                    out.add("│")
                word = lines[k] if k < len(lines) else ""
                out.add(" ", background)
                out.add(word, f"{style} {background}".strip())
                out.add(" " * (inner - cell_len(word) + 1), background)
            out.add("│")
    out.add("\n└" + "┴".join([bar] * ncols) + "┘")
    return out.text()


def write(console: "Console", renderable: object, width: Optional[int] = None) -> None:
    """Print ``renderable`` on ``console``: a :class:`Text` none of whose lines is wider than the
    console (and that holds no tab) straight from its style spans, anything else through rich.
    The characters are the ones ``console.print`` writes; only the line-wrapping work is skipped."""
    width = console.width if width is None else width  # (a property that asks the terminal)
    if isinstance(renderable, Group):
        for part in renderable.renderables:
            write(console, part, width)
        return
    if isinstance(renderable, Plain) and not _too_wide(renderable.text, width):
        console.file.write(renderable.text + "\n")
        return
    if not isinstance(renderable, Text) or "\t" in renderable.plain or _too_wide(renderable.plain, width):
        console.print(renderable)
        return
    out = console.file
    if console.no_color or console.color_system is None:
        out.write(renderable.plain + renderable.end)
        return
    system = console._color_system  # rich's own choice of colour codes for this console
    if renderable.style and not renderable.spans:
        renderable = Text(renderable.plain, end=renderable.end, spans=[Span(0, len(renderable.plain), renderable.style)])
    for segment in renderable.render(console, end=renderable.end):
        style = segment.style
        if not style:
            out.write(segment.text)
        else:  # styled line by line, as rich does: a colour never runs across a line break
            out.write("\n".join(style.render(part, color_system=system) if part else "" for part in segment.text.split("\n")))


def _too_wide(plain: str, width: int) -> bool:
    if plain.isascii():
        return len(plain) > width and max(map(len, plain.split("\n"))) > width
    return any(cell_len(line) > width for line in plain.split("\n"))
