"""The hand-drawn tables and grids (meshspec/render/grid.py) print what rich.Table prints for them."""

import io

from rich import box
from rich.console import Console
from rich.padding import Padding
from rich.table import Table
from rich.text import Text

from meshspec.render.grid import Plain, boxed, columns, write


def console(color: bool = False, width: int = 120) -> Console:
    return Console(file=io.StringIO(), width=width, color_system="standard" if color else None, force_terminal=color, no_color=not color)


def printed(renderable, color: bool = False, fast: bool = False) -> str:
    c = console(color)
    if fast:
        write(c, renderable)
    else:
        c.print(renderable)
    return "\n".join(line.rstrip() for line in c.file.getvalue().split("\n"))


HEADER = ["device", "recorded", "pages", "status"]
ROWS = [["(0,0)", "yes", "1", "ok"], ["(1,3)", "no", "12", "stale"]]


def rich_columns() -> Table:
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False, collapse_padding=True, padding=(0, 1))
    for i, h in enumerate(HEADER):
        t.add_column(h, justify="right" if i == 2 else "left", no_wrap=True)
    for r in ROWS:
        t.add_row(*r)
    return t


def test_columns_are_rich_simple_head_character_for_character():
    ours = columns(HEADER, ROWS, right={2})
    assert isinstance(ours, Plain)  # nothing to colour: plain text
    assert printed(ours) == printed(rich_columns())
    assert printed(ours, fast=True) == printed(rich_columns())


def test_styled_columns_keep_row_and_cell_styles():
    rows = [[*ROWS[0][:3], Text("ok", style="green")], [*ROWS[1][:3], Text("stale", style="red")]]
    ours = columns(HEADER, rows, right={2}, row_styles=[None, "bold"])
    assert isinstance(ours, Text)
    assert "\n".join(line.rstrip() for line in ours.plain.split("\n")) == printed(rich_columns()).rstrip("\n")
    styles = {ours.plain[s.start : s.end]: str(s.style) for s in ours.spans}
    assert styles["stale"] == "red" and styles["device"] == "bold"
    bold_row = [s for s in ours.spans if str(s.style) == "bold" and "(1,3)" in ours.plain[s.start : s.end]]
    assert bold_row, "the finding's row is bold"
    # printed fast or by rich, the same bytes on a colour terminal once trailing padding is ignored
    assert printed(ours, color=True, fast=True) == printed(ours, color=True)


def test_boxed_is_rich_square_grid_with_lines():
    cells = [[(["(0,0)", "ok"], "green", ""), (["(0,1)", "stale"], "red", "")], [(["(1,0)", "ok"], "green", ""), (["(1,1)", "-"], "", "")]]
    inner = 5
    t = Table(show_header=False, show_lines=True, box=box.SQUARE, padding=0, pad_edge=False, expand=False)
    for _ in range(2):
        t.add_column(width=inner + 2, no_wrap=True)
    for row in cells:
        t.add_row(*(Padding(Text("\n".join(lines)), (0, 1), expand=True) for lines, _, _ in row))
    assert printed(boxed(cells, inner, styled=False)) == printed(t)
    assert boxed(cells, inner).plain == boxed(cells, inner, styled=False).text


def test_write_falls_back_to_rich_when_a_line_is_too_wide():
    long = Text("x" * 150)
    assert printed(long, fast=True) == printed(long)  # wrapped by rich, not cut or overflowing
