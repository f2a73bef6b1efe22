"""TensorSpec: shapes, pages and bytes of one device's tensor (docs/semantics.md section 3).

A spec is a frozen value; every derived number (padded shape, page size, page count, buffer
bytes) is a pure function of it, following ``tt_metal/impl/tensor/spec/tensor_spec.cpp``,
``.../layout/tensor_layout.cpp`` and ``tt_metal/impl/data_format/tile.cpp``.

Worked examples (each checked in tests/test_spec.py):

=====================  ======  =====  ==========  =========  =====  ============
logical shape          dtype   layout padded      page size  pages  buffer bytes
=====================  ======  =====  ==========  =========  =====  ============
(1,1,32,32)            bf16    tile   (1,1,32,32)      2048      1         2048
(1,1,30,50)            bf16    tile   (1,1,32,64)      2048      2         4096
(3,5,33,65)            bf16    tile   (3,5,64,96)      2048     90       184320
(4,10,31)              fp32    row    (4,10,31)     124 (128)   40         4960
(1,1,32,32)            bfp8_b  tile   (1,1,32,32)      1088      1         1088
=====================  ======  =====  ==========  =========  =====  ============
"""

from __future__ import annotations

import enum
import functools
import math
from dataclasses import dataclass
from functools import cached_property
from typing import Optional

from ..errors import TTFatal
from .mesh import Shape, fmt_shape
from .sharding import MemoryLayout, ShardSpec, core_pages, nd_as_2d, nd_core_pages, nd_shards, padded_width, shard_pages, spec_error


class _NameEnum(str, enum.Enum):
    """A str enum that reads its values case-insensitively (ttnn spells them BFLOAT16, TILE, L1)
    and whose repr pastes back as code."""

    @classmethod
    def _missing_(cls, value: object) -> "_NameEnum | None":
        if isinstance(value, str):
            for member in cls:
                if member.value == value.lower().removesuffix("_layout"):
                    return member
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}.{self.name}"

    def __str__(self) -> str:
        return self.value


class DataType(_NameEnum):
    """ttnn.DataType, in the C++ enum's order (BFLOAT16=0 ... INT32=7)."""

    BFLOAT16 = "bfloat16"
    FLOAT32 = "float32"
    UINT32 = "uint32"
    BFLOAT8_B = "bfloat8_b"
    BFLOAT4_B = "bfloat4_b"
    UINT8 = "uint8"
    UINT16 = "uint16"
    INT32 = "int32"

    @property
    def is_block_float(self) -> bool:
        return self is DataType.BFLOAT8_B or self is DataType.BFLOAT4_B

    @property
    def element_bytes(self) -> int:
        """Bytes per element for the non-block-float types."""
        return _ELEMENT_BYTES[self]


_ELEMENT_BYTES = {
    DataType.BFLOAT16: 2,
    DataType.FLOAT32: 4,
    DataType.UINT32: 4,
    DataType.INT32: 4,
    DataType.UINT16: 2,
    DataType.UINT8: 1,
}


class Layout(_NameEnum):
    ROW_MAJOR = "row_major"
    TILE = "tile"


class BufferType(_NameEnum):
    DRAM = "dram"
    L1 = "l1"


#: Tile shapes ttnn accepts (``ttnn.Tile``).
TILE_SHAPES: tuple[tuple[int, int], ...] = ((32, 32), (16, 32), (32, 16), (16, 16))
FACE = (16, 16)

class Arch(_NameEnum):
    """The chip architecture, which sets buffer alignment."""

    WORMHOLE_B0 = "wormhole_b0"
    BLACKHOLE = "blackhole"


#: Per-page alignment of a buffer, in bytes (docs/semantics.md section 3; observed on ttnn 0.81.1,
#: tests/golden ``systems``): DRAM 32 B on Wormhole and 64 B on Blackhole, L1 16 B on both.
BUFFER_ALIGNMENT = {
    Arch.WORMHOLE_B0: {BufferType.DRAM: 32, BufferType.L1: 16},
    Arch.BLACKHOLE: {BufferType.DRAM: 64, BufferType.L1: 16},
}


def round_up(value: int, multiple: int) -> int:
    """Smallest multiple of ``multiple`` that is >= ``value``."""
    return -(-value // multiple) * multiple


def infer_shape(volume: int, shape: tuple[int, ...]) -> tuple[int, ...]:
    """``shape`` with its one ``-1`` made what ttnn infers for a tensor of ``volume`` elements
    (``ttnn.reshape`` and ``ttnn.view``, on device and on the host), or ttnn 0.81.1's refusal
    (observed in the mock, tests/golden views): two ``-1``, a ``-1`` beside a 0, a size that does
    not divide the volume. A shape without ``-1`` comes back as it is (its volume is checked later).

    >>> infer_shape(2048, (-1, 32)), infer_shape(2048, (1, 1, 32, -1))
    ((64, 32), (1, 1, 32, 64))
    >>> infer_shape(2048, (3, -1))
    Traceback (most recent call last):
    ...
    meshspec.errors.TTFatal: Invalid arguments to reshape: 2048 elements do not divide into (3, -1) (the other sizes' product, 3, must divide the volume for -1 to be inferred)
    """
    shape = tuple(shape)
    if shape.count(-1) > 1:
        raise TTFatal(f"Shape cannot have more than 1 elements that is set to -1! Shape used: ({''.join(f'{n},' for n in shape)}) "
                      "(give one size as -1 at most)")
    if -1 not in shape:
        return shape
    rest = math.prod(n for n in shape if n != -1)
    if rest == 0:
        raise TTFatal(f"cannot reshape tensor of 0 elements into shape ({''.join(f'{n},' for n in shape)}) because the unspecified "
                      "dimension size -1 can be any value and is ambiguous")
    if rest < 0 or volume % rest:
        raise TTFatal(f"Invalid arguments to reshape: {volume} elements do not divide into {shape} (the other sizes' product, "
                      f"{rest}, must divide the volume for -1 to be inferred)")
    return tuple(volume // rest if n == -1 else n for n in shape)


def tile_bytes(dtype: DataType, tile: tuple[int, int]) -> int:
    """Bytes of one tile of ``dtype`` (``tt_metal/impl/data_format/tile.cpp``).

    Block floats add a shared-exponent section of ``round_up(face_h * num_faces, 16)`` bytes:
    one exponent byte per 16-wide face row.

    >>> tile_bytes(DataType.BFLOAT8_B, (32, 32)), tile_bytes(DataType.BFLOAT4_B, (32, 32))
    (1088, 576)
    >>> tile_bytes(DataType.BFLOAT8_B, (16, 32))
    544
    """
    h, w = tile
    if dtype.is_block_float:
        exponents = round_up(exponent_rows(tile), 16)
        mantissas = h * w if dtype is DataType.BFLOAT8_B else h * w // 2
        return mantissas + exponents
    return h * w * dtype.element_bytes


def exponent_rows(tile: tuple[int, int]) -> int:
    """Face rows in a tile, each with one shared exponent: ``face_h * num_faces``."""
    h, w = tile
    face_h = min(h, FACE[0])
    num_faces = (h // face_h) * (w // FACE[1])
    return face_h * num_faces


@dataclass(frozen=True)
class TensorSpec:
    """The spec of the tensor one device holds: logical shape plus layout (``ttnn.TensorSpec``).

    Built only through :func:`make_spec`, which validates it.
    """

    shape: Shape
    """Logical shape, e.g. ``(1, 1, 32, 32)``."""
    dtype: DataType = DataType.BFLOAT16
    layout: Layout = Layout.TILE
    tile: tuple[int, int] = (32, 32)
    """Tile shape; meaningful in TILE layout only."""
    memory: BufferType = BufferType.DRAM
    arch: Arch = Arch.WORMHOLE_B0
    """The architecture of the device the spec is on (its buffer alignment)."""
    shard: Optional[ShardSpec] = None
    """A sharded memory config's shard spec (None: interleaved); see :mod:`.sharding`."""

    # -- derived numbers (computed once per spec: large meshes ask for them per device) -----------
    @cached_property
    def padded_shape(self) -> Shape:
        """Last two dims rounded up to the tile (TILE) or unchanged (ROW_MAJOR).

        TILE tensors of rank below 2 are padded as rank 2: ``(5,)`` pads to ``(32, 32)``
        (seen on ttnn 0.81.1, tests/golden).
        """
        if self.layout is Layout.ROW_MAJOR:
            if not self.shape:
                return (1,)  # a rank-0 tensor is one row of one value (ttnn 0.81.1, tests/golden userwrites)
            if self.shard is None:
                return self.shape
            return (*self.shape[:-1], padded_width(self.shape[-1], self.shard, True))
        th, tw = self.tile
        dims = [1] * (2 - len(self.shape)) + list(self.shape)
        dims[-1] = round_up(dims[-1], tw)
        dims[-2] = round_up(dims[-2], th)
        return tuple(dims)

    @cached_property
    def physical_shape(self) -> tuple[int, int]:
        """2-D (height, width): padded width, and padded height times every outer dim."""
        padded = self.padded_shape
        return math.prod(padded[:-1]), padded[-1]

    @cached_property
    def page_shape(self) -> tuple[int, int]:
        """A tile in TILE layout; in ROW_MAJOR one row of the physical shape, or of a shard when
        width or block sharded."""
        if self.layout is Layout.TILE:
            return self.tile
        if self.shard is not None and self.shard.layout is not MemoryLayout.HEIGHT_SHARDED:
            return 1, self.shard.shape[-1]
        return 1, self.physical_shape[1]

    @cached_property
    def page_size(self) -> int:
        """Bytes of one page, before alignment."""
        if self.layout is Layout.TILE:
            return tile_bytes(self.dtype, self.tile)
        # a ROW_MAJOR block float (made only under block_float_row_major: allocated) is stored as full
        # floats, 4 bytes an element: rm_element_size_bytes, ttnn/core/tensor/layout/page_config.cpp
        return self.page_shape[1] * (4 if self.dtype.is_block_float else self.dtype.element_bytes)

    @cached_property
    def alignment(self) -> int:
        return BUFFER_ALIGNMENT[self.arch][self.memory]

    @cached_property
    def aligned_page_size(self) -> int:
        """Bytes one page takes in the buffer: ``page_size`` rounded up to the buffer alignment."""
        return round_up(self.page_size, self.alignment)

    @cached_property
    def num_pages(self) -> int:
        (h, w), (ph, pw) = self.physical_shape, self.page_shape
        return (h // ph) * (w // pw)

    @cached_property
    def buffer_bytes(self) -> int:
        """Bytes of data the spec describes: ``num_pages * page_size`` (ttnn's buffer size)."""
        return self.num_pages * self.page_size

    @cached_property
    def allocated_bytes(self) -> int:
        """Bytes the buffer occupies on a device: ``num_pages * aligned_page_size``."""
        return self.num_pages * self.aligned_page_size

    @cached_property
    def pages_are_rows(self) -> bool:
        """Whether its pages, untiled, are plain rows of its physical array: no block floats, and
        no padding between pages (a device keeps such a write as rows, meshspec/sim/device.py)."""
        return not self.dtype.is_block_float and self.page_size == self.aligned_page_size

    @cached_property
    def volume(self) -> int:
        return math.prod(self.shape)

    @cached_property
    def cropped(self) -> bool:
        """Whether its physical array holds padding past the logical shape (a read crops it)."""
        return self.padded_shape != (1,) * (len(self.padded_shape) - len(self.shape)) + self.shape

    def with_memory(self, memory: BufferType, shard: Optional[ShardSpec] = None) -> "TensorSpec":
        """This spec in another memory config: ``memory``, sharded by ``shard`` or interleaved
        (the same object when it is already there; equal specs are one object, so their derived
        numbers are computed once)."""
        if self.memory is memory and self.shard == shard:
            return self
        return make_spec(self.shape, self.dtype, self.layout, self.tile, memory, self.arch, shard, row_major_block_float=True)

    def with_shape(self, shape: Shape, dtype: Optional[DataType] = None, layout: Optional[Layout] = None) -> "TensorSpec":
        """This spec for another shape (and dtype or layout, if given): tile, buffer type, shard
        spec and arch kept, as a device op's output keeps its input's memory config by default
        (docs/semantics.md section 12). A shard spec the new shape does not fit (a transpose of a
        height-sharded tensor whose shard no longer divides it) cannot be kept as it is, and which
        spec ttnn computes then is each op's own: meshspec puts the output interleaved in the same
        buffer type, and says so in docs/semantics.md.

        >>> s = make_spec((1, 1, 32, 64))
        >>> s.with_shape((1, 1, 64, 32)).shape, s.with_shape((1, 1, 32, 64)) is s
        ((1, 1, 64, 32), True)
        """
        dtype, layout = dtype or self.dtype, layout or self.layout
        kept = dtype is self.dtype and layout is self.layout  # a dtype and layout this spec was made with stand
        if self.shard is not None:
            try:
                return make_spec(shape, dtype, layout, self.tile, self.memory, self.arch, self.shard, row_major_block_float=kept)
            except TTFatal:
                pass
        return make_spec(shape, dtype, layout, self.tile, self.memory, self.arch, row_major_block_float=kept)

    def with_shard(self, shape: Shape, shard: ShardSpec) -> "TensorSpec":
        """This spec for another shape, sharded by ``shard`` (an op's own rule for its output's shard
        spec: a transpose's turns, meshspec/sim/sharding.py ``transposed``)."""
        return make_spec(shape, self.dtype, self.layout, self.tile, self.memory, self.arch, shard, row_major_block_float=True)

    @property
    def memory_config(self) -> tuple[BufferType, Optional[ShardSpec]]:
        return self.memory, self.shard

    @cached_property
    def core_pages(self) -> tuple:
        """Sharded: each core of the grid and the pages it holds (:func:`.sharding.core_pages`)."""
        if self.shard is None:
            return ()
        if self.shard.is_nd:
            return nd_core_pages(self.shard, self.padded_shape, self.page_shape)
        return core_pages(self.shard, self.physical_shape, self.page_shape)

    @cached_property
    def bank_bytes(self) -> int:
        """Sharded: the bytes each core reserves, a whole shard of aligned pages; Blackhole's L1
        allocator rounds a bank's block to 64 B (observed, tests/golden sharded: 3 rows of 32 B
        reserve 128)."""
        if self.shard is None:
            return 0
        if self.shard.is_nd:  # ceil(shards / cores) whole shards per core
            ph, pw = self.page_shape
            shape = (1,) * (len(self.padded_shape) - len(self.shard.shape)) + tuple(self.shard.shape)
            pages = math.prod(shape[:-2]) * (shape[-2] // ph) * max(shape[-1] // pw, 1)
            shards = nd_shards(self.shard, self.padded_shape, self.page_shape)
            size = -(-shards // self.shard.num_cores) * pages * self.aligned_page_size
        else:
            size = shard_pages(self.shard, self.page_shape) * self.aligned_page_size
        if self.memory is BufferType.L1:  # the allocator rounds an L1 block: 64 B Blackhole, 32 B Wormhole
            return round_up(size, 64 if self.arch is Arch.BLACKHOLE else 32)
        return size

    # -- renderings --------------------------------------------------------------------------
    def describe(self) -> str:
        """Compact one-liner for tables: ``1x1x32x32 bfloat16 tile dram``."""
        return self._description

    @cached_property
    def _description(self) -> str:  # a finding's message names the spec of every lying device: once a spec
        tile = f"[{self.tile[0]}x{self.tile[1]}]" if self.layout is Layout.TILE and self.tile != (32, 32) else ""
        shard = f" {self.shard.describe()}" if self.shard is not None else ""
        return f"{fmt_shape(self.shape)} {self.dtype} {self.layout}{tile} {self.memory}{shard}"

    def to_json(self) -> dict:
        """The spec as report JSON; one dict per spec, shared by every device that has it (a
        report only reads it: do not change it)."""
        return self._json

    @cached_property
    def _json(self) -> dict:
        return {
            "shape": list(self.shape),
            "padded_shape": list(self.padded_shape),
            "dtype": self.dtype.value,
            "layout": self.layout.value,
            "tile": list(self.tile),
            "memory": self.memory.value,
            "page_size": self.page_size,
            "aligned_page_size": self.aligned_page_size,
            "num_pages": self.num_pages,
            "buffer_bytes": self.buffer_bytes,
        } | ({"memory_config": memory_config_json(self.memory, self.shard)} if self.shard is not None else {})


def make_spec(
    shape: Shape,
    dtype: DataType = DataType.BFLOAT16,
    layout: Layout = Layout.TILE,
    tile: tuple[int, int] = (32, 32),
    memory: BufferType = BufferType.DRAM,
    arch: Arch = Arch.WORMHOLE_B0,
    shard: Optional[ShardSpec] = None,
    *,
    row_major_block_float: bool = False,
) -> TensorSpec:
    """Build a validated :class:`TensorSpec`; raises :class:`TTFatal` where ttnn would.

    ``row_major_block_float``: a bfloat8_b or bfloat4_b spec in ROW_MAJOR is made, as ttnn 0.66.0
    and 0.67.0 make it (the profile rule ``block_float_row_major: allocated``); by default it is
    refused, as ttnn 0.81.1 refuses it (docs/semantics.md sections 3 and 23).

    Equal arguments give the same object: a mesh's thousands of equal shards share one spec, and
    its derived numbers are computed once."""
    if not row_major_block_float and _member(DataType, dtype).is_block_float and _member(Layout, layout) is not Layout.TILE:
        # ttnn 0.81.1 names BFLOAT8_B whichever block float it is (tests/golden, specs)
        raise TTFatal(f"Only TILE layout is supported for BFLOAT8_B dtype! ({DataType(dtype).value} is a block float; got {Layout(layout)})")
    return _spec(tuple(map(int, shape)), _member(DataType, dtype), _member(Layout, layout), tuple(tile),
                 _member(BufferType, memory), _member(Arch, arch), shard)


def _member(kind: type[enum.Enum], value):
    """``kind(value)``, without the enum machinery's call when ``value`` already is a member."""
    return value if type(value) is kind else kind(value)


@functools.lru_cache(maxsize=4096)
def _spec(shape: Shape, dtype: DataType, layout: Layout, tile: tuple[int, int], memory: BufferType, arch: Arch,
          shard: Optional[ShardSpec] = None) -> TensorSpec:
    if any(n < 0 for n in shape):
        raise TTFatal(f"shape {list(shape)} has a negative dimension")
    if tile not in TILE_SHAPES:
        raise TTFatal(f"tile {list(tile)} is not supported; use one of {[list(t) for t in TILE_SHAPES]}")
    spec = TensorSpec(shape, dtype, layout, tile, memory, arch, shard)
    if shard is not None:
        error = spec_error(shard, spec.physical_shape, tile if layout is Layout.TILE else None)
        if error is not None:
            raise TTFatal(error)
        if shard.is_nd:  # an ND spec a 2-D one can express becomes that one, in the TensorSpec
            flat = nd_as_2d(shard, spec.padded_shape, spec.physical_shape, tile if layout is Layout.TILE else None)
            if flat is not None:
                return _spec(shape, dtype, layout, tile, memory, arch, flat)
    return spec


def memory_config_json(memory: BufferType, shard: Optional[ShardSpec]) -> dict:
    """A memory config as a scenario's ``memory_config`` writes it (reports print it so)."""
    if shard is None:
        return {"memory_layout": "interleaved", "buffer_type": memory.value}
    key = "nd_shard_spec" if shard.is_nd else "shard_spec"
    return {"memory_layout": shard.layout.value, "buffer_type": memory.value, key: shard.to_json()}
