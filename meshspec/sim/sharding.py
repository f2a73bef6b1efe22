"""Sharded memory inside one device: a shard spec's grid of cores, and which pages each core holds
(docs/semantics.md section 11). Pure functions on plain tuples; :mod:`.spec` uses them.

A sharded buffer splits the tensor's 2-D physical shape (height: every dim but the last) into
shards of ``shape`` (height, width), numbered row-major over the shard grid, and gives them to the
grid's cores (ttnn 0.81.1, observed in the mock: /work/research/mock-sharded, tests/golden):

- height and width sharding: shard ``k`` to the ``k``-th core, cores taken range by range, each
  row by row (``row_major``) or column by column (``col_major``);
- block sharding: shard (row ``i``, column ``j``) to the core ``j`` right and ``i`` down of the
  grid's start (``row_major``), or ``i`` right and ``j`` down (``col_major``).

A core holds its shard's pages row-major, only pages of the tensor: the ragged last shard holds
fewer, and cores past the last shard hold none, but every core reserves a whole shard.

>>> s = ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (3, 0)),), (64, 64))
>>> [(core, pages) for core, pages in core_pages(s, (96, 64), (32, 32))]
[((0, 0), (0, 1, 2, 3)), ((1, 0), (4, 5)), ((2, 0), ()), ((3, 0), ())]
>>> w = ShardSpec(MemoryLayout.WIDTH_SHARDED, (((0, 0), (3, 0)),), (64, 64))
>>> core_pages(w, (64, 256), (32, 32))[0]
((0, 0), (0, 1, 8, 9))
"""

from __future__ import annotations

import enum
import functools
import math
from typing import Iterator, Optional

from ..frozen import Frozen

Core = tuple[int, int]
"""A logical core ``(x, y)``."""
CoreRange = tuple[Core, Core]
"""``(start, end)``, both inclusive, as ``ttnn.CoreRange``."""


class _Name(str, enum.Enum):
    def __str__(self) -> str:
        return self.value

    @classmethod
    def _missing_(cls, value: object):
        if isinstance(value, str):
            for m in cls:
                if m.value == value.lower():
                    return m
        return None


class MemoryLayout(_Name):
    """``ttnn.TensorMemoryLayout``."""

    INTERLEAVED = "interleaved"
    HEIGHT_SHARDED = "height_sharded"
    WIDTH_SHARDED = "width_sharded"
    BLOCK_SHARDED = "block_sharded"
    ND_SHARDED = "nd_sharded"


class Distribution(_Name):
    """``ttnn.ShardDistributionStrategy`` of an ND shard spec."""

    ROUND_ROBIN_1D = "round_robin_1d"
    GRID_2D = "grid_2d"
    CONTIGUOUS_1D = "contiguous_1d"


class Orientation(_Name):
    """``ttnn.ShardOrientation``."""

    ROW_MAJOR = "row_major"
    COL_MAJOR = "col_major"


class ShardSpec(Frozen):
    """A sharded memory config's layout and ``ttnn.ShardSpec(grid, shape, orientation)``."""

    layout: MemoryLayout
    grid: tuple[CoreRange, ...]
    shape: tuple[int, ...]
    """(height, width); for ND_SHARDED the ND shard shape (the last two dims its height and width)."""
    orientation: Orientation = Orientation.ROW_MAJOR
    distribution: Distribution = Distribution.ROUND_ROBIN_1D
    """ND_SHARDED only: how shards go to cores."""
    nd_shape: Optional[tuple[int, ...]] = None
    """A 2-D spec made from an ND one: the ND shard shape it came from (the buffer checks its rank)."""

    @property
    def cores(self) -> tuple[Core, ...]:
        """The grid's cores in the order shards go to them (height and width sharding)."""
        return grid_cores(self.grid, self.orientation)

    @property
    def num_cores(self) -> int:
        return sum((x1 - x0 + 1) * (y1 - y0 + 1) for (x0, y0), (x1, y1) in self.grid)

    @property
    def is_nd(self) -> bool:
        return self.layout is MemoryLayout.ND_SHARDED

    def describe(self) -> str:
        """``height_sharded 64x64 on 4 cores``."""
        n = self.num_cores
        return f"{self.layout} {'x'.join(map(str, self.shape))} on {n} core{'s' * (n != 1)}"

    def to_json(self) -> dict:
        """The ``shard_spec`` (or ``nd_shard_spec``) of a scenario's ``memory_config`` (a report prints it so)."""
        grid = [[list(a), list(b)] for a, b in self.grid]
        if self.is_nd:
            return {"shard_shape": list(self.shape), "grid": grid, "orientation": self.orientation.value, "distribution": self.distribution.value}
        return {"grid": grid, "shape": list(self.shape), "orientation": self.orientation.value}


def transposed(shard: ShardSpec) -> Optional[ShardSpec]:
    """The shard spec of a transpose of the last two dims: a height-sharded (h, w) shard becomes a
    width-sharded (w, h) one on the same grid, and back (ttnn 0.81.1, observed: a (1,1,128,64)
    tensor height-sharded 32x64 on 4 cores transposes into a width-sharded one, tests/golden
    sharded ``op_outputs`` transpose); None for other layouts, whose transposed spec is not known.

    >>> t = transposed(ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (3, 0)),), (32, 64)))
    >>> t.layout.value, t.shape
    ('width_sharded', (64, 32))
    """
    swap = {MemoryLayout.HEIGHT_SHARDED: MemoryLayout.WIDTH_SHARDED, MemoryLayout.WIDTH_SHARDED: MemoryLayout.HEIGHT_SHARDED}
    if shard.layout not in swap:
        return None
    return shard.replace(layout=swap[shard.layout], shape=(shard.shape[1], shard.shape[0]), nd_shape=None)


def narrowed(shard: ShardSpec, width: int) -> Optional[ShardSpec]:
    """The shard spec of a reduction over the last dim of a height-sharded tensor: each shard keeps
    its rows and is ``width`` (the output's padded width) wide (ttnn 0.81.1, observed: sum over the
    last dim of a (1,1,128,64) tensor height-sharded 32x64 on 4 cores allocates 8,192 B
    height-sharded, tests/golden sharded ``op_outputs`` sum_last_dim); None for other layouts.

    >>> narrowed(ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (3, 0)),), (32, 64)), 32).shape
    (32, 32)
    """
    if shard.layout is not MemoryLayout.HEIGHT_SHARDED:
        return None
    return shard.replace(shape=(shard.shape[0], width), nd_shape=None)


@functools.lru_cache(maxsize=256)  # a shard's core is looked up in it once per shard
def grid_cores(grid: tuple[CoreRange, ...], orientation: Orientation = Orientation.ROW_MAJOR) -> tuple[Core, ...]:
    """Every core of a CoreRangeSet, range by range; in a range row by row (``row_major``: x
    fastest) or column by column (``col_major``: y fastest).

    >>> grid_cores((((0, 0), (1, 1)),), Orientation.COL_MAJOR)
    ((0, 0), (0, 1), (1, 0), (1, 1))
    """
    return tuple(iter_grid_cores(grid, orientation))


def iter_grid_cores(grid: tuple[CoreRange, ...], orientation: Orientation = Orientation.ROW_MAJOR) -> Iterator[Core]:
    """:func:`grid_cores` one core at a time: a check that stops at the first bad core of a large
    grid never lists the rest."""
    for (x0, y0), (x1, y1) in grid:
        if orientation is Orientation.ROW_MAJOR:
            yield from ((x, y) for y in range(y0, y1 + 1) for x in range(x0, x1 + 1))
        else:
            yield from ((x, y) for x in range(x0, x1 + 1) for y in range(y0, y1 + 1))


def nd_as_2d(nd: ShardSpec, padded: tuple[int, ...], physical: tuple[int, int], tile: Optional[tuple[int, int]]) -> Optional[ShardSpec]:
    """The 2-D shard spec an ND one means, when there is one (ttnn 0.81.1 converts it in the
    TensorSpec; observed): its leading shard dims all 1, no shard across a leading dim, no more
    shards than cores, and a height (full width), width (full height) or block spec valid for
    the tensor (grid_2d: always block); else None (it stays ND_SHARDED)."""
    shape = nd.shape
    lead, (sh, sw) = shape[:-2], shape[-2:] if len(shape) >= 2 else (1, shape[-1])
    if any(d != 1 for d in lead):
        return None
    if any(d != 1 for d in padded[:-2]) and len(padded) >= 2 and padded[-2] % sh:
        return None
    height, width = physical
    if sh > height or sw > width:
        return None
    if nd.distribution is Distribution.GRID_2D:  # always block: (1,1,64,256) in 64x64 shards on 4 cores too (observed)
        layout = MemoryLayout.BLOCK_SHARDED
    elif sw == width:
        layout = MemoryLayout.HEIGHT_SHARDED
    elif sh == height:
        layout = MemoryLayout.WIDTH_SHARDED
    else:
        layout = MemoryLayout.BLOCK_SHARDED
    candidate = ShardSpec(layout, nd.grid, (sh, sw), nd.orientation, nd.distribution, nd_shape=tuple(shape))  # (the buffer checks a grid_2d one)
    if spec_error(candidate, physical, tile) is not None:
        return None
    if nd.distribution is Distribution.GRID_2D or len(shape) > len(padded):
        return candidate  # grid_2d is the block placement; a shard rank above the tensor's fails later, when allocated
    # round robin (or contiguous) becomes the 2-D spec only where it puts every page where that
    # spec does (observed: 2x2 block shards on a 2x2 grid convert, on an 8x8 or 4x2 grid they stay ND)
    page = tile if tile is not None else (1, sw if layout is not MemoryLayout.HEIGHT_SHARDED else width)
    as_2d = dict(core_pages(candidate, physical, page))  # (made once: per ND core, it was quadratic in the grid's cores)
    same = as_2d == {c: p for c, p in nd_core_pages(nd, padded, page) if p or c in as_2d}
    return candidate if same else None


def nd_core_pages(nd: ShardSpec, padded: tuple[int, ...], page: tuple[int, int]) -> tuple[tuple[Core, tuple[int, ...]], ...]:
    """Pages per core of an ND shard spec: shards numbered row-major over the ND shard grid, given
    to cores round robin (or in equal runs, contiguous_1d), each shard's pages in row-major order
    of the page grid (leading dims, page rows, page columns).

    >>> nd = ShardSpec(MemoryLayout.ND_SHARDED, (((0, 0), (3, 0)),), (1, 1, 32, 64))
    >>> [p for _, p in nd_core_pages(nd, (1, 1, 192, 64), (32, 32))]
    [(0, 1, 8, 9), (2, 3, 10, 11), (4, 5), (6, 7)]
    """
    shape = (1,) * (len(padded) - len(nd.shape)) + tuple(nd.shape)
    grid = list(padded[:-2]) + [padded[-2] // page[0], padded[-1] // page[1]]  # the page grid
    per = list(shape[:-2]) + [shape[-2] // page[0], max(shape[-1] // page[1], 1)]  # a shard, in pages
    counts = [-(-g // p) for g, p in zip(grid, per)]
    cores = nd.cores
    held: dict[Core, list[int]] = {c: [] for c in cores}
    total = math.prod(counts)
    run = -(-total // len(cores))
    strides = [math.prod(grid[i + 1 :]) for i in range(len(grid))]
    for k, index in enumerate(_product(counts)):
        core = cores[k // run] if nd.distribution is Distribution.CONTIGUOUS_1D else cores[k % len(cores)]
        spans = [range(i * p, min((i + 1) * p, g)) for i, p, g in zip(index, per, grid)]
        held[core].extend(sum(c * s for c, s in zip(at, strides)) for at in _product_ranges(spans))
    return tuple((c, tuple(p)) for c, p in held.items())


def nd_shards(nd: ShardSpec, padded: tuple[int, ...], page: tuple[int, int]) -> int:
    shape = (1,) * (len(padded) - len(nd.shape)) + tuple(nd.shape)
    grid = list(padded[:-2]) + [padded[-2] // page[0], padded[-1] // page[1]]
    per = list(shape[:-2]) + [shape[-2] // page[0], max(shape[-1] // page[1], 1)]
    return math.prod(-(-g // p) for g, p in zip(grid, per))


def nd_allocation_error(nd: ShardSpec, padded: tuple[int, ...], page: tuple[int, int]) -> Optional[str]:
    """The real words for an ND spec refused when the buffer is made (buffer_distribution_spec.cpp);
    a 2-D spec made from an ND one is checked by the ND shape it came from.

    grid_2d is checked first, on the shard shape as given: more than two dims (even leading 1s:
    (1, 1, 64, 64)), more than one core range, then the shards along the width and along the
    height, every leading tensor dim folded into the height ((2, 128, 128) in 64x64 shards is 4
    down), against the grid's columns and rows (swapped for col_major). ttnn 0.81.1, observed:
    tests/golden sharded ``nd_specs``."""
    rank = len(nd.nd_shape) if nd.nd_shape is not None else len(nd.shape)
    if nd.distribution is Distribution.GRID_2D and (nd.is_nd or nd.nd_shape is not None):
        if rank > 2:
            return "2D grid distribution is only supported for 2D sharding!"
        if len(nd.grid) != 1:
            return "2D grid distribution is only supported for one contiguous core grid!"
        (x0, y0), (x1, y1) = nd.grid[0]
        sh, sw = nd.shape[-2:] if len(nd.shape) >= 2 else (1, nd.shape[-1])
        across = max(-(-padded[-1] // sw), 1)
        down = max(-(-math.prod(padded[:-1]) // sh), 1)
        if nd.orientation is not Orientation.ROW_MAJOR:
            across, down = down, across
        if across > x1 - x0 + 1:
            return "Number of shards along width must not exceed core grid width!"
        if down > y1 - y0 + 1:
            return "Number of shards along height must not exceed core grid height!"
    if rank > len(padded):
        return f"Tensor shape rank ({len(padded)}) can't be less than shard shape rank ({rank})!"
    return None


def _product(counts: list[int]):
    import itertools

    return itertools.product(*(range(n) for n in counts))


def _product_ranges(spans: list[range]):
    import itertools

    return itertools.product(*spans)


def padded_width(width: int, shard: ShardSpec, row_major: bool) -> int:
    """ROW_MAJOR sharding pads the width to a multiple of the shard width (its page is one
    shard-width row); TILE sharding pads as interleaved does (the caller's ``width``).

    >>> padded_width(200, ShardSpec(MemoryLayout.WIDTH_SHARDED, (((0, 0), (3, 0)),), (64, 64)), True)
    256
    """
    if not row_major or shard.shape[-1] <= 0:  # a shard width of 0 is refused by spec_error, with ttnn's words
        return width
    return -(-width // shard.shape[-1]) * shard.shape[-1]


def shard_grid(physical: tuple[int, int], shard: ShardSpec) -> tuple[int, int]:
    """Shards along the height and along the width of a 2-D physical shape (the last ones ragged)."""
    return -(-physical[0] // shard.shape[0]), -(-physical[1] // shard.shape[1])


def core_of_shard(shard: ShardSpec, i: int, j: int, along_width: int) -> Core:
    """The core that holds shard (row ``i``, column ``j``) of a grid ``along_width`` shards wide."""
    if shard.layout is MemoryLayout.BLOCK_SHARDED:
        (x0, y0), _ = shard.grid[0]
        return (x0 + j, y0 + i) if shard.orientation is Orientation.ROW_MAJOR else (x0 + i, y0 + j)
    return shard.cores[i * along_width + j]


def core_pages(shard: ShardSpec, physical: tuple[int, int], page: tuple[int, int]) -> tuple[tuple[Core, tuple[int, ...]], ...]:
    """Each core of the grid and the page numbers it holds, in the order it holds them.

    ``physical`` is the 2-D physical shape (ROW_MAJOR: already padded to the shard width),
    ``page`` the page shape: a tile, or one row (ROW_MAJOR height) or one shard-width row
    (ROW_MAJOR width and block). Pages are numbered row-major over the page grid."""
    ph, pw = page
    rows, cols = physical[0] // ph, physical[1] // pw  # the page grid
    sh, sw = shard.shape[0] // ph, shard.shape[1] // pw  # a shard, in pages
    down, across = -(-rows // sh), -(-cols // sw)
    held: dict[Core, list[int]] = {c: [] for c in shard.cores}
    for i in range(down):
        for j in range(across):
            pages = held.setdefault(core_of_shard(shard, i, j, across), [])
            for r in range(i * sh, min((i + 1) * sh, rows)):
                pages.extend(range(r * cols + j * sw, r * cols + min((j + 1) * sw, cols)))
    return tuple((c, tuple(p)) for c, p in held.items())


def shard_pages(shard: ShardSpec, page: tuple[int, int]) -> int:
    """Pages one shard holds when full: what every core of the grid reserves."""
    return (shard.shape[0] // page[0]) * (shard.shape[1] // page[1])


def spec_error(shard: ShardSpec, physical: tuple[int, int], tile: Optional[tuple[int, int]]) -> Optional[str]:
    """The real library's words for a shard spec it refuses for this tensor when the TensorSpec
    is built (tensor_layout.cpp:171, tensor_spec.cpp:173 in ttnn 0.81.1), or None.

    ``physical``: the 2-D physical shape (ROW_MAJOR padded to the shard width); ``tile``: the
    tile shape in TILE layout, None in ROW_MAJOR."""
    if shard.is_nd:
        sh, sw = (shard.shape[-2:] if len(shard.shape) >= 2 else (1, shard.shape[-1]))
        if tile is not None and (sh % tile[0] or sw % tile[1]):
            return f"Physical shard shape Shape([{', '.join(map(str, shard.shape))}]) must be tile {{{tile[0]}, {tile[1]}}} sized!"
        return None
    sh, sw = shard.shape
    if tile is not None and (sh % tile[0] or sw % tile[1]):
        return f"Physical shard shape ({sh}, {sw}) must be tile {{{tile[0]}, {tile[1]}}} sized!"
    if sh <= 0 or sw <= 0:
        return f"Shard shape must be greater than 0 in each sharded dim, got [{sh}, {sw}]"
    height, width = physical
    down, across = shard_grid(physical, shard)
    if shard.layout is MemoryLayout.HEIGHT_SHARDED:
        if sw != width:
            return f"Shard width {sw} must match physical width {width} for height sharded"
        if down > shard.num_cores:
            return f"Number of shards along height {down} must not exceed number of cores {shard.num_cores}"
    elif shard.layout is MemoryLayout.WIDTH_SHARDED:
        if sh != height:
            return f"Shard height {sh} must match physical height {height} for width sharded"
        if across > shard.num_cores:
            return f"Number of shards along width {across} must not exceed number of cores {shard.num_cores}"
    elif shard.layout is MemoryLayout.BLOCK_SHARDED:
        if len(shard.grid) != 1:
            return "Shard grid must be one full rectangular grid for block sharded!"
        (x0, y0), (x1, y1) = shard.grid[0]
        columns, grid_rows = x1 - x0 + 1, y1 - y0 + 1
        if shard.orientation is Orientation.ROW_MAJOR:
            if across > columns:
                return f"Number of shards along width {across} must not exceed number of columns {columns} for row major orientation!"
            if down > grid_rows:
                return f"Number of shards along height {down} must not exceed number of rows {grid_rows} for row major orientation!"
        else:
            if down > columns:
                return f"Number of shards along height {down} must not exceed number of columns {columns} for column major orientation!"
            if across > grid_rows:
                return f"Number of shards along width {across} must not exceed number of rows {grid_rows} for column major orientation!"
    return None


def grid_error(shard: ShardSpec, dram: bool, worker_grid: tuple[int, int], dram_banks: int,
               rows: bool = True, banks: bool = True) -> Optional[str]:
    """The real library's words for a grid core the device has no bank for, raised when the
    buffer is allocated (buffer.cpp:259/272, ttnn 0.81.1), or None. L1 banks are the worker
    grid's cores; DRAM banks are cores (x, 0) for x below the bank count. ``rows``: a DRAM core off
    row 0 is refused (PR #51542); ``banks``: a core with no bank is refused (PR #53263); an era
    before either takes the grid (docs/semantics.md section 16)."""
    if not (rows or banks):
        return None
    for x, y in iter_grid_cores(shard.grid):  # lazily: a large grid's first core with no bank ends it
        if dram:
            if y != 0 and rows:
                return (f"Invalid DRAM shard grid: shard core ({x}, {y}) is not on row 0. DRAM banks are 1D (bank_id == logical "
                        "x-coordinate), so every shard core must have y == 0.")
            if x >= dram_banks and banks:
                return _no_bank(x, y, "DRAM", dram_banks)
        elif (x >= worker_grid[0] or y >= worker_grid[1]) and banks:
            return _no_bank(x, y, "L1", math.prod(worker_grid))
    return None


def misplaced_cores(cores: tuple[Core, ...], dram: bool, worker_grid: tuple[int, int], dram_banks: int,
                    rows: bool = True, banks: bool = True) -> frozenset[Core]:
    """Of ``cores`` (the cores that hold a page, in the order their shards are written), those whose
    shard a write does not leave where the spec says, in an era that takes grids :func:`grid_error`
    refuses (docs/semantics.md section 16): with ``rows`` off, a DRAM core's bank is its x alone
    (issue #51503), so of the cores of one column only the last keeps its shard, the others' are
    written over; with ``banks`` off, a core with no bank keeps nothing of the tensor (PR #53263).
    Empty when both checks are on (such a grid was refused).

    >>> sorted(misplaced_cores(((0, 0), (1, 0), (0, 1), (1, 1)), True, (8, 8), 12, rows=False))
    [(0, 0), (1, 0)]
    >>> sorted(misplaced_cores(((7, 0), (8, 0)), False, (8, 8), 12, banks=False))
    [(8, 0)]
    """
    if rows and banks:
        return frozenset()
    out = set()
    if dram and not rows:
        last = {x: (x, y) for x, y in cores}
        out.update(c for c in cores if last[c[0]] != c)
    if not banks:
        out.update(c for c in cores if (c[0] >= dram_banks if dram else c[0] >= worker_grid[0] or c[1] >= worker_grid[1]))
    return frozenset(out)


def clamped(shard: ShardSpec, physical: tuple[int, int], page: tuple[int, int]) -> ShardSpec:
    """``shard`` with its grid cut to the cores that hold a page of a tensor of 2-D ``physical``
    shape in pages of ``page`` (PR #55112 does it for op outputs; meshspec's reference for every
    sharded tensor, docs/semantics.md section 16). Every shard stays on its core: height and width
    shards fill a prefix of the cores in the grid's order, kept as whole rows (row_major) or whole
    columns (col_major) of each range and one part row or column; block shards fill a rectangle at
    the grid's start. An ND spec is kept as it is.

    >>> clamped(ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (7, 7)),), (32, 64)), (256, 64), (32, 32)).grid
    (((0, 0), (7, 0)),)
    >>> clamped(ShardSpec(MemoryLayout.HEIGHT_SHARDED, (((0, 0), (3, 3)),), (32, 64)), (192, 64), (32, 32)).grid
    (((0, 0), (3, 0)), ((0, 1), (1, 1)))
    """
    if shard.is_nd:
        return shard
    down, across = shard_grid(physical, shard)
    if down * across == 0 or down * across >= shard.num_cores:
        return shard
    if shard.layout is MemoryLayout.BLOCK_SHARDED:
        (x0, y0), _ = shard.grid[0]
        wide, tall = (across, down) if shard.orientation is Orientation.ROW_MAJOR else (down, across)
        return shard.replace(grid=(((x0, y0), (x0 + wide - 1, y0 + tall - 1)),))
    left = down * across  # height or width sharding: shard k on the k-th core
    grid: list[CoreRange] = []
    for (x0, y0), (x1, y1) in shard.grid:
        if left <= 0:
            break
        w, h = x1 - x0 + 1, y1 - y0 + 1
        if left >= w * h:
            grid.append(((x0, y0), (x1, y1)))
        elif shard.orientation is Orientation.ROW_MAJOR:
            full, part = divmod(left, w)
            grid += [((x0, y0), (x1, y0 + full - 1))] if full else []
            grid += [((x0, y0 + full), (x0 + part - 1, y0 + full))] if part else []
        else:
            full, part = divmod(left, h)
            grid += [((x0, y0), (x0 + full - 1, y1))] if full else []
            grid += [((x0 + full, y0), (x0 + full, y0 + part - 1))] if part else []
        left -= w * h
    return shard.replace(grid=tuple(grid))


def _no_bank(x: int, y: int, kind: str, banks: int) -> str:
    return (f"Invalid shard grid: shard core ({x}, {y}) has no {kind} bank on this device, which has {banks} of them. Derive "
            "the shard grid from the device (dram_grid_size() for DRAM, compute_with_storage_grid_size() for L1) rather than "
            "assuming a fixed size -- a harvested device exposes fewer banks than an unharvested one of the same type. An L1 "
            "shard core outside the compute grid is legal only while it is claimed via ServiceCoreManager.")


class ShardingHelperError(ValueError):
    """``ttnn.create_sharded_memory_config``'s own refusal (a RuntimeError in ttnn's Python)."""


def create_sharded_memory_config(
    shape: tuple[int, ...],
    core_grid: Optional[tuple[int, int]],
    core_range_set: Optional[tuple[CoreRange, ...]],
    layout: MemoryLayout,
    orientation: Optional[Orientation] = None,
    use_height_and_width_as_shard_shape: bool = False,
) -> ShardSpec:
    """What ``ttnn.create_sharded_memory_config(shape, core_grid, strategy, orientation,
    use_height_and_width_as_shard_shape)`` makes (ttnn/ttnn/core.py, 0.81.1; always L1). A
    ``CoreGrid(y, x)`` is the cores (0, 0) to (x - 1, y - 1); the tensor is seen as
    (product of all dims but the last, last dim), each strategy divides it exactly, or
    ``Invalid sharding core_grid``; a CoreRangeSet needs ``use_height_and_width_as_shard_shape``,
    which takes the last two dims as the shard (swapped for col_major).

    >>> create_sharded_memory_config((1, 1, 128, 256), (4, 2), None, MemoryLayout.BLOCK_SHARDED, Orientation.COL_MAJOR).shape
    (32, 128)
    """
    orientation = orientation or Orientation.ROW_MAJOR
    if core_range_set is not None:
        if not use_height_and_width_as_shard_shape:
            raise ShardingHelperError("height and width must be shard shape with CoreRangeSet")
        grid = core_range_set
    else:
        assert core_grid is not None
        x, y = core_grid
        grid = (((0, 0), (x - 1, y - 1)),)
    *batch, height, width = shape
    if use_height_and_width_as_shard_shape:
        shard = (height, width) if orientation is Orientation.ROW_MAJOR else (width, height)
        return ShardSpec(layout, grid, shard, orientation)
    assert core_grid is not None
    x, y = core_grid
    tall = math.prod(batch) * height
    if layout is MemoryLayout.BLOCK_SHARDED:
        rows, cols = (y, x) if orientation is Orientation.ROW_MAJOR else (x, y)
        if tall % rows or width % cols:
            raise ShardingHelperError("Invalid sharding core_grid")
        shard = (tall // rows, width // cols)
    elif layout is MemoryLayout.HEIGHT_SHARDED:
        if tall % (x * y):
            raise ShardingHelperError("Invalid sharding core_grid")
        shard = (tall // (x * y), width)
    else:
        if width % (x * y):
            raise ShardingHelperError("Invalid sharding core_grid")
        shard = (tall, width // (x * y))
    return ShardSpec(layout, grid, shard, orientation)
