"""Spec math: docs/semantics.md section 3 (tt_metal/impl/tensor/spec/*, tt_metal/impl/data_format/tile.cpp)."""

import itertools

import pytest

from meshspec.errors import TTFatal
from meshspec.sim.spec import TILE_SHAPES, BufferType, DataType, Layout, make_spec, tile_bytes

BF16, FP32 = DataType.BFLOAT16, DataType.FLOAT32


# docs/semantics.md section 3, "Padded shape" and "Buffer size" worked examples.
@pytest.mark.parametrize(
    "shape, padded, pages, nbytes",
    [
        ((1, 1, 32, 32), (1, 1, 32, 32), 1, 2048),
        ((1, 1, 30, 50), (1, 1, 32, 64), 2, 4096),
        ((3, 5, 33, 65), (3, 5, 64, 96), 90, 184_320),
    ],
)
def test_tile_bf16_examples(shape, padded, pages, nbytes):
    spec = make_spec(shape, BF16, Layout.TILE)
    assert spec.padded_shape == padded
    assert spec.num_pages == pages
    assert spec.page_size == 2048
    assert spec.buffer_bytes == nbytes


# docs/semantics.md section 3: "So a 32x32 tile is: bf16 2048 B, fp32 4096 B, bfloat8_b 1088 B,
# bfloat4_b 576 B. A 16x32 bfloat8_b tile is 544 B."
@pytest.mark.parametrize(
    "dtype, tile, nbytes",
    [
        (DataType.BFLOAT16, (32, 32), 2048),
        (DataType.UINT16, (32, 32), 2048),
        (DataType.FLOAT32, (32, 32), 4096),
        (DataType.INT32, (32, 32), 4096),
        (DataType.UINT32, (32, 32), 4096),
        (DataType.UINT8, (32, 32), 1024),
        (DataType.BFLOAT8_B, (32, 32), 1088),
        (DataType.BFLOAT4_B, (32, 32), 576),
        (DataType.BFLOAT8_B, (16, 32), 544),
        # 16x32 and 32x16 have 2 faces: 32 exponent rows -> 32 B; 16x16 has 1 face: 16 B.
        (DataType.BFLOAT8_B, (32, 16), 512 + 32),
        (DataType.BFLOAT8_B, (16, 16), 256 + 16),
        (DataType.BFLOAT4_B, (16, 32), 256 + 32),
        (DataType.BFLOAT4_B, (16, 16), 128 + 16),
        (DataType.BFLOAT16, (16, 32), 1024),
    ],
)
def test_tile_bytes(dtype, tile, nbytes):
    assert tile_bytes(dtype, tile) == nbytes


# docs/semantics.md section 3, "Aligned page size": a row-major (4,10,31) float32 tensor has 40 pages
# of 124 B, each taking 128 B in DRAM (32 B alignment); L1 aligns to 16 B.
def test_row_major_pages_and_alignment():
    spec = make_spec((4, 10, 31), FP32, Layout.ROW_MAJOR, memory=BufferType.DRAM)
    assert (spec.num_pages, spec.page_size, spec.aligned_page_size) == (40, 124, 128)
    assert spec.buffer_bytes == 40 * 124
    assert spec.allocated_bytes == 40 * 128
    l1 = make_spec((4, 10, 31), FP32, Layout.ROW_MAJOR, memory=BufferType.L1)
    assert l1.aligned_page_size == 128  # 124 rounded up to 16
    odd = make_spec((1, 1, 7, 13), DataType.UINT8, Layout.ROW_MAJOR, memory=BufferType.L1)
    assert (odd.page_size, odd.aligned_page_size, odd.num_pages) == (13, 16, 7)


def test_row_major_is_not_padded():
    spec = make_spec((1, 1, 30, 50), BF16, Layout.ROW_MAJOR)
    assert spec.padded_shape == (1, 1, 30, 50)
    assert spec.physical_shape == (30, 50)
    assert spec.page_size == 100


# Sweep every dtype x tile: one page per tile, pages x page size is the buffer, and the aligned
# page is the page rounded up to DRAM's 32 B (only small block-float tiles need the rounding:
# a 16x16 bfloat8_b tile is 272 B, stored in 288).
@pytest.mark.parametrize("dtype, tile", list(itertools.product(list(DataType), TILE_SHAPES)))
def test_tile_pages(dtype, tile):
    spec = make_spec((2, 3, 40, 70), dtype, Layout.TILE, tile)
    th, tw = tile
    tiles = 2 * 3 * -(-40 // th) * -(-70 // tw)
    assert spec.num_pages == tiles
    assert spec.buffer_bytes == tiles * tile_bytes(dtype, tile)
    assert spec.aligned_page_size == -(-spec.page_size // 32) * 32
    if not dtype.is_block_float:
        assert spec.aligned_page_size == spec.page_size


# docs/semantics.md section 3: block floats exist only in TILE layout.
@pytest.mark.parametrize("dtype", [DataType.BFLOAT8_B, DataType.BFLOAT4_B])
def test_block_float_row_major_is_an_error(dtype):
    with pytest.raises(TTFatal, match="Only TILE layout"):
        make_spec((1, 1, 32, 32), dtype, Layout.ROW_MAJOR)


def test_unknown_tile_is_an_error():
    with pytest.raises(TTFatal, match="tile"):
        make_spec((32, 32), BF16, Layout.TILE, (8, 8))


def test_describe_and_json():
    spec = make_spec((1, 1, 32, 32), DataType.BFLOAT8_B, Layout.TILE, (16, 32), BufferType.L1)
    assert spec.describe() == "1x1x32x32 bfloat8_b tile[16x32] l1"
    assert spec.to_json() == {
        "shape": [1, 1, 32, 32],
        "padded_shape": [1, 1, 32, 32],
        "dtype": "bfloat8_b",
        "layout": "tile",
        "tile": [16, 32],
        "memory": "l1",
        "page_size": 544,
        "aligned_page_size": 544,
        "num_pages": 2,
        "buffer_bytes": 1088,
    }
