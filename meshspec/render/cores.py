"""One device of a sharded tensor drawn as its core grid (``meshspec run --device R,C``): each
core of the shard grid, by its (x, y), with the pages it holds and their status."""

from __future__ import annotations

from rich import box
from rich.table import Table
from rich.text import Text

from ..report import CoreView, TensorReport
from ..sim.mesh import fmt_coord

STYLE = {"ok": "green", "phantom": "dim", "stale": "bold red", "partial": "bold yellow"}


def _pages(pages: tuple[int, ...]) -> str:
    """``0-3``, ``6,13``, ``0,4,...,252`` (64)."""
    if not pages:
        return "-"
    if list(pages) == list(range(pages[0], pages[-1] + 1)):
        return f"{pages[0]}-{pages[-1]}" if len(pages) > 1 else str(pages[0])
    if len(pages) <= 4:
        return ",".join(map(str, pages))
    return f"{pages[0]},{pages[1]},...,{pages[-1]} ({len(pages)})"


def cores_renderables(t: TensorReport, styled: bool = True) -> list:
    """The core grid of ``t`` on its --device, rows by y, columns by x (only the grid's span)."""
    device, cores = t.cores  # type: ignore[misc]
    by_core: dict[tuple[int, int], CoreView] = {c.core: c for c in cores}
    xs = sorted({x for x, _ in by_core})
    ys = sorted({y for _, y in by_core})
    counts: dict[str, int] = {}
    for c in cores:
        counts[c.status] = counts.get(c.status, 0) + 1
    summary = ", ".join(f"{n} {s}" for s, n in sorted(counts.items()))
    title = Text(f"  {t.name} on device {fmt_coord(device)}: {len(cores)} cores ({summary})", style="bold")
    table = Table(box=box.SQUARE, show_header=True, pad_edge=False, padding=(0, 1))
    table.add_column("y\\x", no_wrap=True)
    for x in xs:
        table.add_column(str(x), no_wrap=True)
    for y in ys:
        row = [Text(str(y))]
        for x in xs:
            c = by_core.get((x, y))
            if c is None:
                row.append(Text(""))
                continue
            row.append(Text(f"{_pages(c.pages)}\n{c.status}", style=STYLE.get(c.status, "bold red") if styled else ""))
        table.add_row(*row)
    return [title, table]
