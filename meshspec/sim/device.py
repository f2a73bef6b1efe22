"""The simulated device side: one mesh buffer holds the same-sized buffer on every device.

This is the ground truth the runtime's records are judged against: which pages of each device's
buffer were written since allocation, by which step, with what shard. Never-written memory
reads back as the poison pattern ``A5 FF`` repeated (a NaN in bfloat16 and float32, 0xFFA5 in
uint16) so a stale read is recognisable, never a plausible zero (see :class:`MemoryPool` for the
other choices).

Speed: tilizing a TILE tensor into 16x16 faces costs several memory copies, so a device keeps
the bytes of its latest write as the written spec's physical rows (``native``) and tilizes them
only when someone reads them with a different page layout. Reading with the layout they were
written with is then one copy, and gives what the tiled bytes would give.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional

import numpy as np

from . import pages
from .mesh import Coord, Shape
from .modes import Uninitialized
from .spec import DataType, Layout, TensorSpec
from .values import host_dtype

POISON = np.array([0xA5, 0xFF], dtype=np.uint8)


def poison(nbytes: int) -> np.ndarray:
    """``nbytes`` of the poison pattern."""
    out = np.empty(nbytes, dtype=np.uint8)
    out[0::2] = POISON[0]
    out[1::2] = POISON[1]
    return out


class MemoryPool:
    """Hands out each device's fresh buffer memory, per the :class:`Uninitialized` rule."""

    def __init__(self, rule: Uninitialized = Uninitialized.POISON) -> None:
        self.rule = Uninitialized(rule)
        self._freed: dict[Coord, list[np.ndarray]] = {}
        self._at: dict[tuple, np.ndarray] = {}
        """Freed memory by device and place (``reuse``): what a buffer put there finds. A place is
        the mesh device's allocator, the buffer type and the address (see MeshBuffer.place)."""

    def take(self, coord: Coord, nbytes: int, written: int = 0, address: Optional[tuple] = None) -> np.ndarray:
        """Fresh memory for a device; the first ``written`` bytes are about to be overwritten,
        so they are left as they come (no point poisoning what is written next). With ``reuse``,
        a buffer at an address a freed buffer had gets that buffer's bytes, as on hardware (the
        allocator hands out the same address; meshspec/sim/allocator.py); past them, poison."""
        if self.rule is Uninitialized.REUSE and address is not None:
            old = self._at.pop((coord, address), None)
            if old is not None:
                if old.size >= nbytes:
                    return old[:nbytes]
                return np.concatenate([old, poison(nbytes - old.size + (old.size % 2))[old.size % 2 :]])
        if self.rule is Uninitialized.REUSE and address is None:
            freed = self._freed.get(coord, [])
            for i in range(len(freed) - 1, -1, -1):
                if freed[i].size >= nbytes:
                    old = freed.pop(i)
                    return old[:nbytes]
        if self.rule is Uninitialized.ZEROS:
            return np.zeros(nbytes, dtype=np.uint8)
        written = min(written, nbytes)
        if written == 0:
            return poison(nbytes)  # (made once, not made and copied into memory made for it)
        out = np.empty(nbytes, dtype=np.uint8)
        if written < nbytes:  # the pattern's phase follows the byte's address: A5 at even ones
            out[written:] = poison(nbytes - written) if (written % 2 == 0) else poison(nbytes - written + 1)[1:]
        return out

    def give(self, coord: Coord, memory: np.ndarray, address: Optional[tuple] = None) -> None:
        if self.rule is Uninitialized.REUSE:
            if address is not None:
                self._at[(coord, address)] = memory
            else:
                self._freed.setdefault(coord, []).append(memory)


class Write:
    """What one step wrote to the devices that got one spec: the ground truth for each of them. A
    value, never changed once made, compared by identity. One per spec, not per device (a
    65,536-device copy made 65,536 of them per step): the offset and values each device got are
    its shard's, looked up in the shards the step wrote (:meth:`offset_at`, :meth:`values_at`).
    Those shards stay alive while any device's last write is this one (a device op's per-device
    outputs, once one device is written over, are freed only when all of them are).

    >>> from types import SimpleNamespace as Shard
    >>> u = np.zeros(2)
    >>> w = Write(1, "src", None, {(0, 1): Shard(offset=(0, 32), values=None), (0, 0): Shard(offset=None, values=u)}, (0, 0))
    >>> w.offset_at((0, 1)), w.offset_at((0, 0)), w.values_at((0, 0)) is u, w.values_at((0, 1))
    ((0, 32), (0, 0), True, None)
    """

    __slots__ = ("step", "source", "spec", "shards", "origin", "host", "pages", "cores", "_ranges", "_after")

    def __init__(
        self, step: int, source: str, spec: TensorSpec, shards: Optional[Mapping[Coord, object]] = None, origin: Shape = (),
        host: object = None, pages: Optional[tuple[int, ...]] = None, cores: tuple = (),
    ) -> None:
        self.step = step
        """Index of the step that wrote."""
        self.source = source
        """Name of the host tensor the bytes came from."""
        self.spec = spec
        """Spec of the shard written (shape, dtype, layout of the bytes)."""
        self.shards = shards if shards is not None else {}
        """The shards the step wrote, by device (``HostShard``s: each one's offset and values)."""
        self.origin = origin
        """The offset of a shard that gives none (page 0 of the source)."""
        self.host = host
        """The host tensor written from (its name may be rebound later)."""
        self.pages = pages
        """A write to some cores only (copy_host_to_device_tensor_partial): the pages it wrote; None: all."""
        self.cores = cores
        """Those cores."""
        self._ranges: Optional[PageRanges] = None
        self._after: dict[PageRanges, PageRanges] = {}

    def added_to(self, old: "PageRanges") -> "PageRanges":
        """A device's written pages after this partial write: ``old`` and :attr:`pages`. The
        pages become ranges once per write and are merged once per distinct ``old`` (devices
        written alike share one), not once per device and page (that was O(pages x ranges) a
        device: 10 s for 16,384 pages on one device, issue 34)."""
        after = self._after.get(old)
        if after is None:
            after = self._after[old] = old.union(self.coverage())
        return after

    def coverage(self) -> "PageRanges":
        """The pages this write put on a device: all of its spec's, or :attr:`pages` (made once)."""
        if self._ranges is None:
            self._ranges = PageRanges.of(self.pages) if self.pages is not None else NOTHING.plus(0, self.spec.num_pages)
        return self._ranges

    def offset_at(self, coord: Coord) -> Shape:
        """Global offset in the source tensor of the shard written to ``coord``."""
        return self.shards[coord].offset or self.origin

    def values_at(self, coord: Coord) -> Optional[np.ndarray]:
        """The logical values written to ``coord`` (kept to judge readback; None in metadata mode,
        where a shard holds only its shape)."""
        values = self.shards[coord].values
        return values if isinstance(values, np.ndarray) else None

    @property
    def content_bytes(self) -> int:
        """Bytes of the spec's data this write put on a device."""
        return self.spec.buffer_bytes if self.pages is None else len(self.pages) * self.spec.page_size

    def __repr__(self) -> str:
        return f"Write(step={self.step}, source={self.source!r}, spec={self.spec.describe()!r}, devices={len(self.shards)})"


class PageRanges:
    """Written pages as sorted, disjoint ``[start, stop)`` ranges: a value, never changed once
    made (adding pages gives a new one, or the same one when they were all there), so the devices
    a step wrote alike share one. O(ranges) for counts, never O(pages) of bookkeeping per write.

    >>> w = NOTHING.plus(0, 4).plus(10, 12)
    >>> w.ranges, w.count()
    (((0, 4), (10, 12)), 6)
    >>> w.plus(4, 10).ranges, w.prefix(3) is w
    (((0, 12),), True)
    """

    __slots__ = ("ranges", "_count")

    def __init__(self, ranges: tuple[tuple[int, int], ...] = ()) -> None:
        self.ranges = ranges
        self._count = sum(b - a for a, b in ranges)  # asked once per device of every view: counted once

    def plus(self, start: int, stop: int) -> "PageRanges":
        """These pages and ``[start, stop)``; ``self`` when they add nothing."""
        if stop <= start or any(a <= start and stop <= b for a, b in self.ranges):
            return self
        merged: list[tuple[int, int]] = []
        for a, b in self.ranges:
            if b < start or a > stop:
                merged.append((a, b))
            else:
                start, stop = min(a, start), max(b, stop)
        merged.append((start, stop))
        return PageRanges(tuple(sorted(merged)))

    def prefix(self, stop: int) -> "PageRanges":
        """``plus(0, stop)``: what every write but a partial one does (a write starts at page 0)."""
        r = self.ranges
        if not r and stop > 0:  # a device's first write: one shared value per page count
            return _first_pages(stop)
        if len(r) == 1 and r[0][0] == 0 and stop <= r[0][1]:
            return self
        return self.plus(0, stop)

    @staticmethod
    def of(pages) -> "PageRanges":
        """The ranges of ``pages`` (page numbers in any order, repeats allowed), found in one
        sorted pass: O(pages log pages) whatever the layout, never one range set per page.

        >>> PageRanges.of([9, 0, 1, 2, 8, 4]).ranges
        ((0, 3), (4, 5), (8, 10))
        """
        index = np.unique(np.asarray(pages, dtype=np.int64))
        if index.size == 0:
            return NOTHING
        cut = np.flatnonzero(np.diff(index) != 1) + 1  # where a run of consecutive pages ends
        starts = index[np.concatenate(([0], cut))]
        stops = index[np.concatenate((cut - 1, [index.size - 1]))] + 1
        return PageRanges(tuple(zip(starts.tolist(), stops.tolist())))

    def union(self, other: "PageRanges") -> "PageRanges":
        """These pages and ``other``'s, in one merge of the two sorted range lists (O(ranges));
        ``self`` when ``other`` adds nothing.

        >>> PageRanges(((0, 2), (5, 6))).union(PageRanges(((2, 3), (7, 9)))).ranges
        ((0, 3), (5, 6), (7, 9))
        """
        if not other.ranges:
            return self
        if not self.ranges:
            return other
        merged: list[list[int]] = []
        for a, b in sorted(self.ranges + other.ranges):  # two sorted runs: timsort merges them in linear time
            if merged and a <= merged[-1][1]:
                if b > merged[-1][1]:
                    merged[-1][1] = b
            else:
                merged.append([a, b])
        out = tuple((a, b) for a, b in merged)
        return self if out == self.ranges else PageRanges(out)

    def count(self) -> int:
        return self._count

    def within(self, n: int) -> int:
        """How many of the pages ``[0, n)`` are written.

        >>> NOTHING.plus(0, 4).plus(10, 12).within(11)
        5
        """
        return sum(max(0, min(b, n) - a) for a, b in self.ranges if a < n)

    def among(self, pages: np.ndarray) -> int:
        """How many of ``pages`` (sorted page numbers) are written.

        >>> NOTHING.plus(0, 4).plus(10, 12).among(np.array([1, 5, 10]))
        2
        """
        if not self.ranges or not len(pages):
            return 0
        starts = np.array([a for a, _ in self.ranges])
        stops = np.array([b for _, b in self.ranges])
        i = np.searchsorted(starts, pages, side="right") - 1
        return int(np.count_nonzero((i >= 0) & (pages < stops[np.maximum(i, 0)])))

    def mask(self, n: int) -> np.ndarray:
        """Written pages among the first ``n``, as a bool array."""
        out = np.zeros(n, dtype=bool)
        for a, b in self.ranges:
            out[a : min(b, n)] = True
        return out


NOTHING = PageRanges()
"""No page written."""


@functools.lru_cache(maxsize=1024)
def _first_pages(stop: int) -> PageRanges:
    """``[0, stop)``: what a first write leaves, made once per page count (a value: shared)."""
    return PageRanges(((0, stop),))


def _fresh(values: np.ndarray, memory: np.ndarray, out: Optional[np.ndarray]) -> np.ndarray:
    """``values`` as a read's result: written into ``out`` when given, else an array that shares
    no bytes with the device's ``memory`` (copied when it is a view of them)."""
    if out is not None:
        out[...] = values
        return out
    return values.copy() if np.may_share_memory(values, memory) else values


@functools.cache  # one per dtype
def _poison_element(dtype: DataType) -> Optional[np.ndarray]:
    """The value every element of never-written memory reads as, when there is one: elements of
    an even size start at even addresses (pages lie at even strides), so each holds the pattern
    from its start; None for one-byte elements (A5 and FF alternate) and block floats (decoded)."""
    size = host_dtype(dtype).itemsize
    if dtype.is_block_float or size % 2:
        return None
    return np.frombuffer(POISON.tobytes() * (size // 2), dtype=host_dtype(dtype)).reshape(())


def _filled(fill: np.ndarray, spec: TensorSpec, out: Optional[np.ndarray]) -> np.ndarray:
    """What reading never-written memory as ``spec`` gives (each element ``fill``, bit for bit),
    as :meth:`MeshBuffer.read` returns it: written into ``out`` when given, else a new array."""
    if out is None:
        out = np.empty(spec.shape, dtype=fill.dtype)
    out[...] = fill
    return out


def _same_rows(a: TensorSpec, b: TensorSpec) -> bool:
    """Whether ``b``'s pages are the first pages of ``a``'s physical rows, laid out alike."""
    return a is b or (
        a.dtype == b.dtype
        and a.layout == b.layout
        and (a.layout is Layout.ROW_MAJOR or a.tile == b.tile)
        and a.physical_shape[1] == b.physical_shape[1]
    )


@dataclass(eq=False)  # compared by identity: it is state, not a value
class DeviceMemory:
    data: np.ndarray
    """``allocated_bytes`` of memory (data mode only: metadata mode keeps no device memory)."""
    native: Optional[tuple[TensorSpec, int, Optional[np.ndarray]]] = None
    """The first ``n`` pages hold ``spec``'s physical rows, not yet tiled; with, for a tile-aligned
    write of values in the spec's host dtype, those rows as the spec's logical values (a view of
    ``data``: what a read with that spec returns, without making the view again)."""


@dataclass(eq=False)  # compared by identity: it is state, not a value
class MeshBuffer:
    """A buffer of ``spec.allocated_bytes`` on every device of a mesh (``MeshBuffer``).

    Device memory is created on first touch; ``with_data=False`` (metadata mode) tracks written
    pages and writes only, with no bytes at all.
    """

    id: int
    spec: TensorSpec
    """The spec the buffer was allocated with; fixes its page size and page count."""
    mesh_shape: Shape
    step: int
    """Step that allocated it."""
    pool: MemoryPool = field(default_factory=MemoryPool, repr=False)
    with_data: bool = True
    devices: dict[Coord, DeviceMemory] = field(default_factory=dict, repr=False)
    last_write: dict[Coord, Write] = field(default_factory=dict, repr=False)
    written: dict[Coord, PageRanges] = field(default_factory=dict, repr=False)
    """The pages written on each device since allocation (absent: none); devices written alike share one value."""
    released: bool = False
    """Its bytes were returned to the run's memory account (once, whichever handle freed it)."""
    charge: list = field(default_factory=lambda: [0], repr=False)
    """``[bytes]`` it holds against the run's memory account (its data and its records); set to 0
    when returned, by a free or when nothing holds the buffer any more (Runtime.new_buffer)."""
    content_step: Optional[int] = None
    """Step of the last write (copy or to_device) that defines the content, through any handle."""
    freed_step: Optional[int] = None
    """Step that deallocated it, through any handle: every handle on it is freed then."""
    freed_by: str = ""
    """The name of the handle that step deallocated."""
    address: Optional[int] = None
    """Where the allocator put it: the same address on every device (meshspec/sim/allocator.py)."""
    allocator: Optional[object] = field(default=None, repr=False)
    """The mesh device's allocators that hold its block (freed there)."""
    single_device: bool = False
    """Single-device storage, not a mesh buffer: what a tensor on a 1x1 mesh device became in the
    era of issue #15833 (profiles ``unit_mesh``; docs/semantics.md section 19)."""

    @property
    def place(self) -> Optional[tuple]:
        """Where it lies in device memory: its mesh device's allocator, buffer type and address."""
        return None if self.address is None else (id(self.allocator), self.spec.memory.value, self.address)

    def _device(self, coord: Coord, written: int = 0) -> DeviceMemory:
        """``coord``'s memory, made on first touch (data mode only)."""
        dev = self.devices.get(coord)
        if dev is None:
            pool = self.pool
            # where it lies matters to the reuse rule alone (what a freed buffer there left)
            data = pool.take(coord, self.spec.allocated_bytes, written, self.place if pool.rule is Uninitialized.REUSE else None)
            dev = self.devices[coord] = DeviceMemory(data)
        return dev

    def _pages(self, dev: DeviceMemory) -> np.ndarray:
        return dev.data.reshape(self.spec.num_pages, self.spec.aligned_page_size)  # type: ignore[union-attr]

    def _tile_native(self, dev: DeviceMemory) -> None:
        """Turn a native prefix into the page bytes the device really holds."""
        if dev.native is None:
            return
        spec, n, _ = dev.native
        dev.native = None
        raw = dev.data[: n * spec.page_size]
        values = raw.view(host_dtype(spec.dtype)).reshape(spec.physical_shape)
        self._pages(dev)[:n, : spec.page_size] = pages.encode_physical(values, spec)

    def write(self, coord: Coord, values: Optional[np.ndarray], spec: TensorSpec, write: Write) -> None:
        """Write ``values`` (logical, shaped as ``spec``) from page 0 of ``coord``'s buffer; only
        ``write.pages`` when the write is to some cores."""
        if write.pages is not None:
            self._write_pages(coord, values, spec, write)
            return
        n = spec.num_pages
        if not self.with_data or values is None:  # metadata mode: pages and the write only
            self.write_records([coord], n, write)
            return
        if coord not in self.devices and self.pool.rule is not Uninitialized.REUSE and self._fills_buffer(spec):
            self._first_write(coord, values, spec, write)
            return
        contiguous = n * spec.page_size if spec.page_size == self.spec.aligned_page_size else 0
        dev = self._device(coord, contiguous)
        if self._rows_alike(spec):
            if dev.native is not None and dev.native[1] > n:
                self._tile_native(dev)  # the older write's tail must stay as the device has it
            rows = dev.data[: n * spec.page_size]
            if not spec.cropped and values.shape == spec.shape:
                # tile-aligned: the values are the physical rows; written in their own shape (no
                # reshape of them) through a view kept for reads with this spec (see read)
                held = rows.view(values.dtype).reshape(spec.shape)
                held[...] = values
                dev.native = (spec, n, held if values.dtype == host_dtype(spec.dtype) else None)
            else:
                physical = pages.physical(values, spec)
                rows.view(physical.dtype).reshape(physical.shape)[...] = physical
                dev.native = (spec, n, None)
        else:
            self._tile_native(dev)
            self._pages(dev)[:n, : spec.page_size] = pages.encode(values, spec)
        self.written[coord] = self.written.get(coord, NOTHING).prefix(n)
        self.last_write[coord] = write

    def write_shards(self, coords: list[Coord], shards: Mapping[Coord, Any], spec: TensorSpec, write: Write) -> None:
        """:meth:`write` of each of ``coords`` its shard's values, all as ``spec`` by ``write``.
        Whether a device's write can be a first write depends on the spec, so it is worked out once
        for them all (each device's :meth:`write` call and its checks cost about 3,000 instructions)."""
        if write.pages is not None or not self.with_data:
            for c in coords:
                self.write(c, shards[c].values, spec, write)
            return
        first = self._fills_buffer(spec) and self.pool.rule is not Uninitialized.REUSE
        devices = self.devices
        for c in coords:
            values = shards[c].values
            if first and values is not None and c not in devices:
                self._first_write(c, values, spec, write)
            else:
                self.write(c, values, spec, write)

    def _rows_alike(self, spec: TensorSpec) -> bool:
        """Whether ``spec``'s pages are rows of the buffer's page size (a device keeps them native)."""
        return spec.pages_are_rows and self.spec.pages_are_rows and spec.page_size == self.spec.page_size

    def _fills_buffer(self, spec: TensorSpec) -> bool:
        """Whether a write of ``spec`` (from page 0) fills the buffer with rows laid out as its own:
        a device's first such write can become its memory (:meth:`_first_write`)."""
        return (self._rows_alike(spec) and spec.page_size == self.spec.aligned_page_size
                and spec.num_pages * spec.page_size == self.spec.allocated_bytes)

    def _first_write(self, coord: Coord, values: np.ndarray, spec: TensorSpec, write: Write) -> None:
        """:meth:`write` of a device not touched before, whose write fills its whole buffer with
        rows: the device's memory is a copy of the values (a fresh buffer made and then written in
        place was four numpy calls more a device, about 9,000 instructions). Never under ``reuse``,
        where a buffer's memory is what the last one at its address left."""
        if spec.cropped or values.shape != spec.shape:
            physical = np.array(pages.physical(values, spec), order="C")
            held = None
        else:  # tile-aligned: the values are the physical rows, kept for reads with this spec (see read)
            physical = held = np.array(values, order="C")
            if values.dtype != host_dtype(spec.dtype):
                held = None
        self.devices[coord] = DeviceMemory(physical.reshape(-1).view(np.uint8), (spec, spec.num_pages, held))
        self.written[coord] = self.written.get(coord, NOTHING).prefix(spec.num_pages)
        self.last_write[coord] = write

    def write_records(self, coords: list[Coord], num_pages: int, write: Write) -> None:
        """Metadata mode: ``write`` reached each of ``coords``, from page 0 to ``num_pages``, as
        :meth:`write` records it with no values (one call for a run of devices, not one each).

        Devices written alike share their written pages, so the new pages are worked out once per
        distinct old value (a handful) and stored in passes made of C-level maps; a copy into pages
        already written (every copy after the first into the same allocation) stores nothing."""
        if self.with_data:  # a write of no values in data mode: the devices' memory as they have it now
            for c in coords:
                self._device(c)
        written = self.written
        olds = list(map(written.get, coords))
        alike: dict[tuple, PageRanges] = {}  # devices that end up with the same pages share one value
        new = {old: alike.setdefault((p := (old or NOTHING).prefix(num_pages)).ranges, p) for old in set(olds)}
        if any(old is not pages for old, pages in new.items()):
            if len(new) == 1:
                written.update(dict.fromkeys(coords, next(iter(new.values()))))
            else:
                written.update(zip(coords, map(new.__getitem__, olds)))
        self.last_write.update(dict.fromkeys(coords, write))

    def _write_pages(self, coord: Coord, values: Optional[np.ndarray], spec: TensorSpec, write: Write) -> None:
        dev = self._device(coord) if self.with_data else None  # (data mode: its memory as it has it now, values or not)
        if dev is not None and values is not None:
            self._tile_native(dev)
            encoded = pages.encode(values, spec)
            index = np.asarray(write.pages, dtype=np.int64)
            self._pages(dev)[index, : spec.page_size] = encoded[index]
        self.written[coord] = write.added_to(self.written.get(coord, NOTHING))
        self.last_write[coord] = write

    def read(self, coord: Coord, spec: TensorSpec, out: Optional[np.ndarray] = None) -> Optional[np.ndarray]:
        """What a reader gets reading ``coord`` as ``spec``: a fresh copy (None in metadata mode),
        or, given ``out`` (an array of ``spec``'s logical shape and host dtype, a block of a
        composed result say), those values written into it and ``out`` returned."""
        if not self.with_data:
            return None
        dev = self.devices.get(coord)  # (the memory looked up once: _device() is for a device never touched)
        if dev is None:
            if self.pool.rule is Uninitialized.POISON:
                fill = _poison_element(spec.dtype)
                if fill is not None:  # never touched: no memory to make, tile or decode (about 45,000 instructions)
                    return _filled(fill, spec, out)
            dev = self._device(coord)
        native = dev.native
        if native is not None and native[0] is spec and native[2] is not None:
            # read with the spec written: its values are held as a view (a slice, a view and a
            # reshape fewer a device, about 5,000 instructions)
            return _fresh(native[2], dev.data, out)
        if native is not None and _same_rows(native[0], spec) and spec.num_pages <= native[1]:
            rows = dev.data[: spec.buffer_bytes].view(host_dtype(spec.dtype))  # the physical rows, flat
            return _fresh(pages.logical_from_physical(rows, spec), dev.data, out)
        self._tile_native(dev)
        if spec.page_size <= self.spec.page_size and spec.num_pages <= self.spec.num_pages:
            # pages lie at the buffer's page stride, a narrower one in the first bytes of each (as
            # write() puts them: an uneven legacy shard in a buffer sized for the widest); ROW_MAJOR
            # pages at the full stride decode to a view of the device's memory, which a later
            # write would change under this read: _fresh copies it
            return _fresh(pages.decode(self._pages(dev)[: spec.num_pages, : spec.page_size], spec), dev.data, out)
        # A record that claims other pages than the buffer has: read the bytes at that spec's
        # stride; what lies past the buffer reads as never-written memory.
        need = spec.num_pages * spec.aligned_page_size
        raw = poison(need)
        have = min(need, dev.data.size)
        raw[:have] = dev.data[:have]
        return _fresh(pages.decode(raw.reshape(spec.num_pages, spec.aligned_page_size)[:, : spec.page_size], spec), dev.data, out)

    def intact(self, coord: Coord, write: Write, spec: TensorSpec) -> bool:
        """True when reading ``coord`` as ``spec`` provably gives ``write``'s values back: the
        device still holds that write natively and the read uses the written spec."""
        dev = self.devices.get(coord)
        if dev is None or dev.native is None or self.last_write.get(coord) is not write:
            return False
        # equal specs, one object (a read with the spec written) known equal without comparing
        # seven fields; tested here, not by a helper called twice for every device read (1,500 instructions)
        held = dev.native[0]
        return (held is spec or held == spec) and (spec is write.spec or spec == write.spec)

    def written_pages(self, coord: Coord) -> int:
        return self.written.get(coord, NOTHING).count()

    def written_bytes(self, coord: Coord) -> int:
        """Bytes of data written to ``coord`` since allocation (pages x page size)."""
        return self.written.get(coord, NOTHING).count() * self.spec.page_size  # (not through written_pages: a call less a device)

    def written_mask(self, coord: Coord, n: int) -> np.ndarray:
        return self.written.get(coord, NOTHING).mask(n)

    def free(self) -> None:
        """Return every device's memory to the pool (for ``reuse``)."""
        for coord, dev in self.devices.items():
            self._tile_native(dev)
            self.pool.give(coord, dev.data, self.place)
        self.devices.clear()
        self.written.clear()
