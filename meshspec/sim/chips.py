"""The chips of each system with a cluster descriptor: which physical device id ttnn puts at each
mesh coordinate, and which chips share an ethernet link (docs/semantics.md section 17).

Data, recorded from the real library: tools/golden/record_device_ids.py asks ttnn 0.81.1, 0.67.0 and
0.66.0 (mock mode, each system's tt-umd mock cluster descriptor) for ``get_device_ids()`` of every
shape each system opens, and reads the links from the descriptor; tests/sim/test_device_ids.py checks
every recorded shape against :func:`meshspec.sim.mesh.device_ids` over this table. The systems'
own table is :data:`meshspec.sim.mesh.SYSTEMS`, whose ``chips`` facet these are.
"""

from __future__ import annotations

from ..frozen import Frozen

Ids = tuple[int, ...]


class Chips(Frozen):
    """Where a system's physical chips sit on the meshes it opens, and how they are wired."""

    grid: tuple[Ids, ...]
    """The device ids of the system mesh (the shape ``open_mesh_device()`` opens), one tuple a row. A
    2-D mesh that fits it opens on its top-left block; a rotated one, on the block of its transpose
    (observed for every 2-D shape of every system)."""
    line: Ids
    """The device ids of a line of every chip (``(N)``, ``1xN`` or ``Nx1``), in order: a path over
    ethernet links, and a ring where the system has one. A shorter line takes its first ids unless
    :attr:`short_lines` says otherwise."""
    links: frozenset[tuple[int, int]]
    """Chip pairs joined by at least one ethernet link, smaller id first (the descriptor's
    ``ethernet_connections``)."""
    short_lines: tuple[Ids, ...] = ()
    """Lines that are not the first ids of :attr:`line` (the galaxies: a line of an even number of
    chips is a ring of its own), shortest first; a tuple, so a system stays a hashable value."""

    def line_of(self, n: int) -> Ids:
        """The ids of a line of ``n`` chips."""
        return next((ids for ids in self.short_lines if len(ids) == n), self.line[:n])


#: System name -> its chips as ttnn 0.81.1 maps them (every system with a mock cluster descriptor).
CHIPS: dict[str, Chips] = {
    "n150": Chips(
        grid=((0,),),
        line=(0,),
        links=frozenset(),
    ),
    "n300": Chips(
        grid=((0,), (1,)),
        line=(0, 1),
        links=frozenset({(0, 1)}),
    ),
    "t3k": Chips(
        grid=((4, 0, 2, 6), (5, 1, 3, 7)),
        line=(4, 0, 2, 6, 7, 3, 1, 5),
        links=frozenset({(0, 1), (0, 2), (0, 4), (1, 3), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (6, 7)}),
    ),
    "galaxy": Chips(
        grid=(
            (0, 16, 18, 2),
            (4, 20, 22, 6),
            (8, 24, 26, 10),
            (12, 28, 30, 14),
            (13, 29, 31, 15),
            (9, 25, 27, 11),
            (5, 21, 23, 7),
            (1, 17, 19, 3),
        ),
        line=(0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 23, 27, 25, 9, 13, 29, 31, 30, 28, 12, 8, 24, 26, 22, 20, 4),
        short_lines=(
            (0, 16, 20, 4),
            (0, 16, 18, 22, 20, 4),
            (0, 16, 18, 2, 6, 22, 20, 4),
            (0, 16, 18, 2, 6, 10, 26, 24, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 30, 28, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 31, 29, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 27, 25, 9, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 23, 21, 5, 9, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 9, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 25, 9, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 23, 27, 25, 9, 13, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 23, 27, 25, 9, 13, 29, 28, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 23, 27, 25, 9, 13, 29, 31, 30, 28, 12, 8, 4),
            (0, 16, 18, 2, 6, 10, 14, 15, 11, 7, 3, 19, 17, 1, 5, 21, 23, 27, 25, 9, 13, 29, 31, 30, 28, 12, 8, 24, 20, 4),
        ),
        links=frozenset({
            (0, 4), (0, 16), (1, 5), (1, 17), (2, 6), (2, 18), (3, 7), (3, 19), (4, 8), (4, 20), (5, 9), (5, 21),
            (6, 10), (6, 22), (7, 11), (7, 23), (8, 12), (8, 24), (9, 13), (9, 25), (10, 14), (10, 26), (11, 15),
            (11, 27), (12, 13), (12, 28), (13, 29), (14, 15), (14, 30), (15, 31), (16, 18), (16, 20), (17, 19),
            (17, 21), (18, 22), (19, 23), (20, 22), (20, 24), (21, 23), (21, 25), (22, 26), (23, 27), (24, 26),
            (24, 28), (25, 27), (25, 29), (26, 30), (27, 31), (28, 29), (28, 30), (29, 31), (30, 31)
        }),
    ),
    "p150": Chips(
        grid=((0,),),
        line=(0,),
        links=frozenset(),
    ),
    "p150x4": Chips(
        grid=((0, 2), (3, 1)),
        line=(0, 2, 1, 3),
        links=frozenset({(0, 2), (0, 3), (1, 2), (1, 3)}),
    ),
    "p150x8": Chips(
        grid=((1, 0, 4, 5), (3, 2, 6, 7)),
        line=(1, 0, 4, 5, 7, 6, 2, 3),
        links=frozenset({
            (0, 1), (0, 2), (0, 4), (1, 3), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (4, 6), (5, 7), (6, 7)
        }),
    ),
    "bh-galaxy": Chips(
        grid=(
            (0, 4, 12, 8),
            (1, 5, 13, 9),
            (2, 6, 14, 10),
            (3, 7, 15, 11),
            (27, 31, 23, 19),
            (26, 30, 22, 18),
            (25, 29, 21, 17),
            (24, 28, 20, 16),
        ),
        line=(0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 21, 22, 30, 26, 27, 31, 23, 15, 7, 3, 2, 6, 14, 13, 5, 1),
        short_lines=(
            (0, 4, 5, 1),
            (0, 4, 12, 13, 5, 1),
            (0, 4, 12, 8, 9, 13, 5, 1),
            (0, 4, 12, 8, 9, 10, 14, 6, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 15, 7, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 23, 31, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 22, 30, 26, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 21, 29, 25, 26, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 26, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 30, 26, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 21, 22, 30, 26, 27, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 21, 22, 30, 26, 27, 31, 7, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 21, 22, 30, 26, 27, 31, 23, 15, 7, 3, 2, 1),
            (0, 4, 12, 8, 9, 10, 11, 19, 18, 17, 16, 20, 28, 24, 25, 29, 21, 22, 30, 26, 27, 31, 23, 15, 7, 3, 2, 6, 5, 1),
        ),
        links=frozenset({
            (0, 1), (0, 4), (0, 8), (0, 24), (1, 2), (1, 5), (1, 9), (2, 3), (2, 6), (2, 10), (2, 26), (3, 7),
            (3, 11), (3, 27), (4, 5), (4, 12), (4, 28), (5, 6), (5, 13), (6, 7), (6, 14), (6, 30), (7, 15),
            (7, 31), (8, 9), (8, 12), (8, 16), (9, 10), (9, 13), (10, 11), (10, 14), (10, 18), (11, 15), (11, 19),
            (12, 13), (12, 20), (13, 14), (14, 15), (14, 22), (15, 23), (16, 17), (16, 20), (16, 24), (17, 18),
            (17, 21), (17, 25), (18, 19), (18, 22), (18, 26), (19, 23), (19, 27), (20, 21), (20, 28), (21, 22),
            (21, 29), (22, 23), (22, 30), (23, 31), (24, 25), (24, 28), (25, 26), (25, 29), (26, 27), (26, 30),
            (27, 31), (28, 29), (29, 30), (30, 31)
        }),
    ),
}

#: Systems whose chips ttnn 0.66.0 and 0.67.0 (February-March 2026) mapped otherwise, as those versions
#: did (observed; the links are the same descriptor's). The other systems' ids are the same in all three.
CHIPS_EARLY_2026: dict[str, Chips] = {
    "p150x4": Chips(
        grid=((2, 1), (0, 3)),
        line=(2, 1, 3, 0),
        links=CHIPS["p150x4"].links,
    ),
    "p150x8": Chips(
        grid=((0, 2, 3, 1), (4, 6, 7, 5)),
        line=(0, 2, 3, 1, 5, 7, 6, 4),
        links=CHIPS["p150x8"].links,
    ),
}
