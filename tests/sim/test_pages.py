"""Page encoding: values survive a device round trip; bytes are laid out as TT-NN lays them
(docs/semantics.md section 3: pages, tiles of 16x16 faces, block-float exponent sections)."""

import itertools

import numpy as np
import pytest

from meshspec.sim import pages
from meshspec.sim.device import POISON, MemoryPool, MeshBuffer, Write, poison
from meshspec.sim.modes import Uninitialized
from meshspec.sim.spec import TILE_SHAPES, DataType, Layout, make_spec
from meshspec.sim.values import generate, host_dtype, quantize_block_float, same_bits

LOSSLESS = [d for d in DataType if not d.is_block_float]


@pytest.mark.parametrize(
    "dtype, layout, tile",
    [(d, Layout.TILE, t) for d, t in itertools.product(list(DataType), TILE_SHAPES)]
    + [(d, Layout.ROW_MAJOR, (32, 32)) for d in LOSSLESS],
)
def test_round_trip(dtype, layout, tile):
    shape = (2, 3, 37, 45)
    spec = make_spec(shape, dtype, layout, tile)
    values = generate("random", shape, dtype, 3)
    if dtype.is_block_float:
        values = quantize_block_float(values, dtype)
    data = pages.encode(values, spec)
    assert data.shape == (spec.num_pages, spec.page_size)
    back = pages.decode(data, spec)
    assert back.shape == shape and back.dtype == host_dtype(dtype)
    assert same_bits(back, values).all()


def test_tile_layout_is_faces_row_major():
    # A 32x32 bf16 tile: face 0 is rows 0-15 x cols 0-15, face 1 rows 0-15 x cols 16-31, ...
    spec = make_spec((32, 32), DataType.FLOAT32, Layout.TILE)
    values = np.arange(32 * 32, dtype=np.float32).reshape(32, 32)
    flat = pages.encode(values, spec).view(np.float32).reshape(-1)
    assert flat[:16].tolist() == list(range(16))  # row 0, cols 0..15
    assert flat[16] == 32  # row 1 of face 0
    assert flat[256] == 16  # face 1 starts at row 0, col 16
    assert flat[512] == 16 * 32  # face 2 starts at row 16, col 0
    assert flat[768] == 16 * 32 + 16  # face 3


def test_padding_is_zero_and_cropped():
    spec = make_spec((1, 1, 30, 50), DataType.BFLOAT16, Layout.TILE)
    values = generate("ones", (1, 1, 30, 50), DataType.BFLOAT16)
    data = pages.encode(values, spec)
    assert data.shape == (2, 2048)
    assert int(data.view(np.uint16).astype(bool).sum()) == 30 * 50  # only real values are non-zero
    assert pages.decode(data, spec).shape == (1, 1, 30, 50)


def test_block_float_layout():
    # bfloat8_b tile: 64 shared exponents (one per face row of 16), padded to 64 B, then 1024 codes.
    spec = make_spec((32, 32), DataType.BFLOAT8_B, Layout.TILE)
    values = np.full((32, 32), 1.5, dtype=np.float32)
    data = pages.encode(values, spec)[0]
    assert data.size == 1088
    assert (data[:64] == 127).all()  # 1.5 = 1.1b x 2^0: biased exponent 127
    assert (data[64:] == 0b1100000).all()  # sign 0, 7-bit magnitude 1.100000b x 2^6 = 96


def test_block_float_quantization_shares_exponent():
    v = np.array([[8.0, 0.01] + [0.0] * 14], dtype=np.float32)
    q = quantize_block_float(v, DataType.BFLOAT8_B)
    assert q[0, 0] == 8.0
    assert q[0, 1] == 0.0  # too small next to 8.0 with 7 mantissa bits: lost, as on hardware
    q4 = quantize_block_float(np.array([[1.0, 0.3] + [0.0] * 14], dtype=np.float32), DataType.BFLOAT4_B)
    assert q4[0, 0] == 1.0 and q4[0, 1] == 0.25


def test_reading_with_another_spec_reinterprets_bytes():
    written = make_spec((1, 1, 32, 32), DataType.FLOAT32, Layout.TILE)
    read = make_spec((1, 1, 32, 64), DataType.BFLOAT16, Layout.TILE)
    assert written.buffer_bytes == read.buffer_bytes
    values = generate("arange", (1, 1, 32, 32), DataType.FLOAT32)
    garbage = pages.decode(pages.encode(values, written), read)
    assert garbage.shape == (1, 1, 32, 64)
    assert not same_bits(garbage[..., :32].astype(np.float32), values).all()


def test_poison_reads_back_as_nan():
    spec = make_spec((1, 1, 32, 32), DataType.BFLOAT16, Layout.TILE)
    buf = MeshBuffer(1, spec, (1, 2), 0)
    values = generate("arange", (1, 1, 32, 32), DataType.BFLOAT16)
    buf.write((0, 0), values, spec, Write(1, "h", spec, origin=(0, 0, 0, 0)))
    assert same_bits(buf.read((0, 0), spec), values).all()
    stale = buf.read((0, 1), spec)
    assert np.isnan(stale.astype(np.float32)).all()
    assert buf.written_bytes((0, 0)) == 2048 and buf.written_bytes((0, 1)) == 0
    assert poison(4).tolist() == [0xA5, 0xFF, 0xA5, 0xFF] and POISON.dtype == np.uint8


@pytest.mark.parametrize("layout", [Layout.ROW_MAJOR, Layout.TILE])
def test_a_read_is_a_copy_that_later_writes_leave_alone(layout):
    """MeshBuffer.read gives a fresh copy, as cpu() copies device memory into a host buffer: a read
    of never-written ROW_MAJOR memory was a view of it, so the poison it showed turned into
    whatever a later write put there (a stale cpu() result reported the later data)."""
    spec = make_spec((1, 1, 32, 32), DataType.FLOAT32, layout)
    buf = MeshBuffer(1, spec, (1, 1), 0)
    before = buf.read((0, 0), spec)
    assert np.isnan(before).all()
    buf.write((0, 0), generate("arange", (1, 1, 32, 32), DataType.FLOAT32), spec, Write(1, "h", spec, origin=(0, 0, 0, 0)))
    assert np.isnan(before).all()
    assert not np.shares_memory(buf.read((0, 0), spec), buf.devices[(0, 0)].data)


def test_row_major_pages_use_aligned_stride():
    spec = make_spec((4, 10, 31), DataType.FLOAT32, Layout.ROW_MAJOR)
    buf = MeshBuffer(1, spec, (1, 1), 0)
    values = generate("arange", (4, 10, 31), DataType.FLOAT32)
    buf.write((0, 0), values, spec, Write(1, "h", spec, origin=(0, 0, 0)))
    mem = buf.devices[(0, 0)].data
    assert mem.size == 40 * 128
    # page 1 starts at byte 128 (not 124); the 4 alignment bytes of page 0 stay poison
    assert mem[128:132].view(np.float32)[0] == 31.0
    assert mem[124:128].tolist() == [0xA5, 0xFF, 0xA5, 0xFF]
    assert same_bits(buf.read((0, 0), spec), values).all()


def test_native_rows_read_back_exactly_as_tiles_would():
    """The fast path (bytes kept as the written spec's rows) must give what tiled bytes give,
    whatever spec reads them: same spec, fewer rows, or another shape with the same width."""
    written = make_spec((1, 2, 64, 64), DataType.BFLOAT16, Layout.TILE)
    values = generate("random", (1, 2, 64, 64), DataType.BFLOAT16, 9)
    fast = MeshBuffer(1, written, (1, 1), 0)
    fast.write((0, 0), values, written, Write(1, "h", written, origin=(0, 0, 0, 0)))
    assert fast.devices[(0, 0)].native is not None
    tiled = pages.encode(values, written).reshape(-1)
    for read in (
        written,
        make_spec((1, 1, 64, 64), DataType.BFLOAT16, Layout.TILE),  # fewer rows: first pages
        make_spec((1, 1, 128, 64), DataType.BFLOAT16, Layout.TILE),  # same pages, other shape
        make_spec((1, 1, 32, 128), DataType.BFLOAT16, Layout.TILE),  # other width: reinterpreted
        make_spec((1, 1, 16, 64), DataType.UINT16, Layout.TILE),  # other dtype, same page size
    ):
        expected = pages.decode(tiled[: read.buffer_bytes].reshape(read.num_pages, read.page_size), read)
        got = fast.read((0, 0), read)
        assert same_bits(got, expected).all(), read.describe()


def test_a_read_with_the_written_spec_gives_the_bytes_written():
    """The held view (a read with the very spec written returns the write's rows as a view, made
    at the write) must give what the tiled bytes give: for strided values, into ``out``, after a
    later write, and for values of another dtype than the spec's (the bytes reinterpreted)."""
    spec = make_spec((1, 1, 32, 64), DataType.UINT32, Layout.TILE)
    source = generate("random", (1, 1, 32, 128), DataType.UINT32, 3)
    for values in (source[..., :64], source[..., ::2], np.arange(2048, dtype=np.float32).reshape(1, 1, 32, 64)):
        buf = MeshBuffer(1, spec, (1, 1), 0)
        buf.write((0, 0), values, spec, Write(1, "h", spec, origin=(0, 0, 0, 0)))
        tiled = pages.encode_physical(np.ascontiguousarray(values).view(np.uint32).reshape(32, 64), spec)
        expected = pages.decode(tiled, spec)
        got = buf.read((0, 0), spec)
        assert got.dtype == np.uint32 and same_bits(got, expected).all()
        assert not np.shares_memory(got, buf.devices[(0, 0)].data)
        out = np.zeros((1, 2, 32, 64), np.uint32)
        assert buf.read((0, 0), spec, out=out[:, 1:]) is not None and same_bits(out[:, 1:], expected).all()
    buf.write((0, 0), source[..., 64:], spec, Write(2, "h", spec, origin=(0, 0, 0, 0)))
    assert same_bits(buf.read((0, 0), spec), source[..., 64:]).all()


@pytest.mark.parametrize("dtype", [DataType.BFLOAT16, DataType.FLOAT32, DataType.UINT8, DataType.INT32])
@pytest.mark.parametrize("layout", [Layout.ROW_MAJOR, Layout.TILE])
@pytest.mark.parametrize("shape", [(1, 2, 32, 64), (1, 1, 20, 30)])
def test_a_first_write_holds_what_a_write_to_touched_memory_holds(dtype, layout, shape):
    """A device's first write that fills its buffer becomes its memory (a copy of the values, no
    fresh buffer written in place): the same bytes as the same write to memory already made, read
    with the spec written, with another spec, and once tiled; for strided values and values of
    another dtype (their bytes), in each rule but reuse, which takes the path of made memory."""
    spec = make_spec(shape, dtype, layout)
    source = generate("random", shape[:-1] + (2 * shape[-1],), dtype, 5)
    other = make_spec(shape, DataType.UINT16 if host_dtype(dtype).itemsize == 2 else DataType.UINT8, layout)
    for values in (source[..., : shape[-1]], source[..., ::2], source[..., ::2].view(np.uint8) if dtype is DataType.UINT8 else None):
        if values is None:
            continue
        fast, slow = MeshBuffer(1, spec, (1, 1), 0), MeshBuffer(1, spec, (1, 1), 0)
        slow._device((0, 0))  # made (poisoned) before the write: the path of a device written before
        for buf in (fast, slow):
            buf.write((0, 0), values, spec, Write(1, "h", spec, origin=(0,) * len(shape)))
        assert not np.shares_memory(fast.devices[(0, 0)].data, values)
        for read in (spec, other):
            assert same_bits(fast.read((0, 0), read), slow.read((0, 0), read)).all(), read.describe()
        for buf in (fast, slow):
            buf._tile_native(buf.devices[(0, 0)])
        assert fast.devices[(0, 0)].data.tobytes() == slow.devices[(0, 0)].data.tobytes()
        assert fast.written[(0, 0)].ranges == slow.written[(0, 0)].ranges == ((0, spec.num_pages),)


@pytest.mark.parametrize("dtype", list(DataType))
@pytest.mark.parametrize("layout", [Layout.ROW_MAJOR, Layout.TILE])
def test_never_written_memory_reads_alike_touched_or_not(dtype, layout):
    """A read of a device never touched (no memory made: each element is the pattern's value, or
    decoded for one-byte and block-float elements) gives what reading its poisoned memory gives,
    bit for bit: for the buffer's spec, a cropped one, one of more pages than the buffer, into ``out``."""
    if layout is Layout.ROW_MAJOR and dtype.is_block_float:
        return
    spec = make_spec((1, 2, 32, 64), dtype, layout)
    buf = MeshBuffer(1, spec, (1, 2), 0)
    buf._device((0, 1))  # touched: poisoned memory
    for read in (spec, make_spec((1, 1, 20, 30), dtype, layout), make_spec((1, 4, 32, 64), dtype, layout)):
        expected = buf.read((0, 1), read)
        got = buf.read((0, 0), read)
        assert got.dtype == expected.dtype and got.shape == expected.shape and same_bits(got, expected).all(), read.describe()
        out = np.zeros((2,) + read.shape, expected.dtype)
        assert buf.read((0, 0), read, out=out[1]) is not None and same_bits(out[1], expected).all()
    assert (0, 0) not in buf.devices or dtype.is_block_float or dtype is DataType.UINT8


def test_metadata_mode_tracks_pages_without_bytes():
    spec = make_spec((1, 1, 64, 64), DataType.BFLOAT16, Layout.TILE)
    buf = MeshBuffer(1, spec, (1, 2), 0, with_data=False)
    buf.write((0, 1), None, spec, Write(1, "h", spec, origin=(0, 0, 0, 0)))
    assert buf.written_pages((0, 1)) == 4 and buf.written_pages((0, 0)) == 0
    assert buf.read((0, 1), spec) is None and buf.devices == {}  # no device memory in metadata mode


def test_page_ranges_merge():
    from meshspec.sim.device import PageRanges

    r = PageRanges().plus(0, 4).plus(2, 6).plus(10, 12)
    assert r.ranges == ((0, 6), (10, 12)) and r.count() == 8
    r = r.plus(6, 10)
    assert r.ranges == ((0, 12),) and r.count() == 12
    assert r.mask(14).tolist() == [True] * 12 + [False] * 2
    assert r.plus(3, 9) is r and r.prefix(12) is r  # nothing new: the same value, shared by the devices that hold it


def test_devices_written_alike_share_their_written_pages():
    """write_records works out the new pages once per distinct old value: devices written alike
    share one, a write into pages already written stores nothing new, and a device written less
    keeps its own count."""
    spec = make_spec((1, 1, 64, 64), DataType.BFLOAT16, Layout.TILE)  # 4 pages
    half = make_spec((1, 1, 32, 64), DataType.BFLOAT16, Layout.TILE)  # 2 pages
    buf = MeshBuffer(1, spec, (2, 2), 0, with_data=False)
    buf.write_records([(0, 0), (0, 1)], 2, Write(1, "h", half, origin=(0, 0, 0, 0)))
    buf.write_records([(0, 0), (0, 1), (1, 0)], 4, Write(2, "h", spec, origin=(0, 0, 0, 0)))
    assert [buf.written_pages(c) for c in ((0, 0), (0, 1), (1, 0), (1, 1))] == [4, 4, 4, 0]
    assert buf.written[(0, 0)] is buf.written[(0, 1)] is buf.written[(1, 0)]
    before = buf.written[(0, 0)]
    buf.write_records([(0, 0), (1, 0)], 3, Write(3, "h", spec, origin=(0, 0, 0, 0)))
    assert buf.written[(0, 0)] is before and buf.last_write[(0, 0)].step == 3 and buf.last_write[(0, 1)].step == 2
    buf.write_records([(1, 1)], 1, Write(4, "h", spec, origin=(0, 0, 0, 0)))
    assert buf.written_pages((1, 1)) == 1 and buf.written_mask((1, 1), 4).tolist() == [True, False, False, False]


def test_bfloat16_rounds_to_nearest_even():
    # 257 is halfway between 256 and 258 in bfloat16: ties go to the even mantissa (256);
    # 259 is halfway between 258 and 260: ties to 260.
    v = generate("arange", (260,), DataType.BFLOAT16).astype(np.float32)
    assert v[256] == 256 and v[257] == 256 and v[259] == 260


def test_integer_wrap():
    v = generate("arange", (300,), DataType.UINT8)
    assert v[255] == 255 and v[256] == 0


@pytest.mark.parametrize("rule", [Uninitialized.POISON, Uninitialized.REUSE])
@pytest.mark.parametrize("written", [(1, 1, 64, 32), (1, 1, 48, 32), (1, 1, 32, 32)])
def test_write_shards_writes_as_write_does_one_device_at_a_time(rule, written):
    """MeshBuffer.write_shards (first writes worked out once for a run of devices) leaves every
    device as write() does: a device touched before, a write that does not fill the buffer, a
    shard with no values, and the reuse rule all take write()'s own path."""
    from types import SimpleNamespace as Shard

    allocated = make_spec((1, 1, 64, 32), DataType.FLOAT32, Layout.TILE)  # the last two writes do not fill it
    spec = make_spec(written, DataType.FLOAT32, Layout.TILE)
    coords = [(0, 0), (0, 1), (0, 2)]
    shards = {c: Shard(values=generate("random", written, DataType.FLOAT32, i), offset=None) for i, c in enumerate(coords)}
    shards[(0, 2)].values = None
    one, many = (MeshBuffer(1, allocated, (1, 3), 0, MemoryPool(rule)) for _ in range(2))
    for buf in (one, many):  # (0, 1) touched before: not a first write
        buf.write((0, 1), generate("arange", (1, 1, 64, 32), DataType.FLOAT32), allocated, Write(0, "old", allocated))
    w1, w2 = Write(1, "h", spec, shards), Write(1, "h", spec, shards)
    touched = many.devices[(0, 1)]
    for c in coords:
        one.write(c, shards[c].values, spec, w1)
    many.write_shards(coords, shards, spec, w2)
    for c in coords:
        assert one.written[c].ranges == many.written[c].ranges
        assert one.last_write[c] is w1 and many.last_write[c] is w2
        assert (one.devices[c].native is None) == (many.devices[c].native is None)
        assert one.devices[c].data.tobytes() == many.devices[c].data.tobytes()
        assert same_bits(one.read(c, spec), many.read(c, spec)).all()
    assert many.devices[(0, 1)] is touched  # written in place, as write() does: its memory stays the device's
