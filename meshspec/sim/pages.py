"""Logical values <-> the page bytes a device buffer holds, for one spec.

TILE layout stores each 32x32 (or 16x32, 32x16, 16x16) tile as its 16x16 faces in row-major
order, each face row-major; ROW_MAJOR stores one physical row per page. Block floats store a
tile's shared exponents first (padded to 16 bytes), then its mantissas (sign in the top bit:
one byte each for bfloat8_b, one nibble each for bfloat4_b).

Everything is whole-array numpy (reshape / transpose / view): no loop over elements or pages.
Reading a buffer with a spec other than the one it was written with gives the same garbage the
device would: the bytes are reinterpreted, not converted.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from .spec import FACE, DataType, Layout, TensorSpec
from .values import GROUP, decode_groups, encode_groups, host_dtype

_UINT = {1: np.uint8, 2: np.uint16, 4: np.uint32}


def physical(values: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Pad ``values`` (logical shape) with zeros to the spec's 2-D physical shape."""
    if not spec.cropped:  # tile-aligned: the values are the physical rows
        return values.reshape(spec.physical_shape)
    padded = spec.padded_shape
    lifted = (1,) * (len(padded) - len(spec.shape)) + spec.shape  # rank < 2 in TILE: as rank 2
    arr = np.pad(values.reshape(lifted), [(0, p - s) for s, p in zip(lifted, padded)])
    return arr.reshape(spec.physical_shape)


def logical_from_physical(physical: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Inverse of :func:`physical`: crop the physical array (2-D, or its rows flat) back to the
    logical shape (a view)."""
    if not spec.cropped:  # tile-aligned: nothing to crop
        return physical.reshape(spec.shape)
    padded = spec.padded_shape
    lifted = (1,) * (len(padded) - len(spec.shape)) + spec.shape
    arr = physical.reshape(padded)[tuple(slice(0, s) for s in lifted)]
    return arr.reshape(spec.shape)


def _tile_order(physical: np.ndarray, tile: tuple[int, int]) -> np.ndarray:
    """(H, W) -> (num_tiles, elements per tile) in tile-then-face order."""
    h, w = physical.shape
    th, tw = tile
    fh, fw = min(th, FACE[0]), FACE[1]
    t = physical.reshape(h // th, th // fh, fh, w // tw, tw // fw, fw)
    # tile row, tile col, face row, face col, row in face, col in face
    t = t.transpose(0, 3, 1, 4, 2, 5)
    return t.reshape(-1, th * tw)


def _untile_order(tiles: np.ndarray, spec: TensorSpec) -> np.ndarray:
    h, w = spec.physical_shape
    th, tw = spec.tile
    fh, fw = min(th, FACE[0]), FACE[1]
    t = tiles.reshape(h // th, w // tw, th // fh, tw // fw, fh, fw)
    t = t.transpose(0, 2, 4, 1, 3, 5)
    return t.reshape(h, w)


def encode(values: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Page bytes for ``values``: a ``(num_pages, page_size)`` uint8 array."""
    return encode_physical(physical(np.asarray(values, dtype=host_dtype(spec.dtype)), spec), spec)


def encode_physical(physical: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Page bytes for an array already in ``spec``'s 2-D physical shape."""
    if spec.layout is Layout.ROW_MAJOR:
        return np.ascontiguousarray(physical).view(np.uint8).reshape(spec.num_pages, spec.page_size)
    tiles = _tile_order(physical, spec.tile)
    if not spec.dtype.is_block_float:
        return np.ascontiguousarray(tiles).view(np.uint8).reshape(spec.num_pages, spec.page_size)
    groups = tiles.reshape(tiles.shape[0], -1, GROUP)
    shared, mags, signs = encode_groups(groups, spec.dtype)
    exp_bytes = spec.page_size - _mantissa_bytes(spec)
    out = np.zeros((tiles.shape[0], spec.page_size), dtype=np.uint8)
    out[:, : shared.shape[1]] = shared
    if spec.dtype is DataType.BFLOAT8_B:
        codes = (signs << 7) | mags
        out[:, exp_bytes:] = codes.reshape(tiles.shape[0], -1)
    else:
        codes = ((signs << 3) | mags).reshape(tiles.shape[0], -1)
        out[:, exp_bytes:] = codes[:, 0::2] | (codes[:, 1::2] << 4)
    return out


def decode(pages: np.ndarray, spec: TensorSpec) -> np.ndarray:
    """Logical values from ``(num_pages, page_size)`` page bytes, read as ``spec`` says."""
    pages = np.ascontiguousarray(pages, dtype=np.uint8)
    dtype = host_dtype(spec.dtype)
    if spec.layout is Layout.ROW_MAJOR:
        physical = pages.view(dtype).reshape(spec.physical_shape)
        return logical_from_physical(physical, spec)
    if not spec.dtype.is_block_float:
        tiles = pages.view(dtype).reshape(spec.num_pages, -1)
        return logical_from_physical(_untile_order(tiles, spec), spec)
    n = spec.num_pages
    exp_bytes = spec.page_size - _mantissa_bytes(spec)
    per_tile_groups = spec.tile[0] * spec.tile[1] // GROUP
    shared = pages[:, :per_tile_groups]
    body = pages[:, exp_bytes:]
    if spec.dtype is DataType.BFLOAT8_B:
        codes = body
        signs, mags = codes >> 7, codes & 0x7F
    else:
        codes = np.empty((n, body.shape[1] * 2), dtype=np.uint8)
        codes[:, 0::2] = body & 0x0F
        codes[:, 1::2] = body >> 4
        signs, mags = codes >> 3, codes & 0x07
    vals = decode_groups(shared, mags.reshape(n, per_tile_groups, GROUP), signs.reshape(n, per_tile_groups, GROUP), spec.dtype)
    return logical_from_physical(_untile_order(vals.reshape(n, -1), spec), spec)


def _mantissa_bytes(spec: TensorSpec) -> int:
    elements = spec.tile[0] * spec.tile[1]
    return elements if spec.dtype is DataType.BFLOAT8_B else elements // 2


def page_of_elements(spec: TensorSpec) -> np.ndarray:
    """For each logical element, the index of the page that holds it (logical shape, int64).

    TILE: tiles are numbered row-major over the physical 2-D shape; ROW_MAJOR: one page a row.
    """
    h, w = spec.physical_shape
    rows = np.arange(h, dtype=np.int64)[:, None]
    cols = np.arange(w, dtype=np.int64)[None, :]
    if spec.layout is Layout.ROW_MAJOR:
        index = np.broadcast_to(rows, (h, w))
    else:
        th, tw = spec.tile
        index = (rows // th) * (w // tw) + cols // tw
    return np.ascontiguousarray(logical_from_physical(index, spec))


def pages_in(spec: TensorSpec, region: tuple[slice, ...]) -> Optional[np.ndarray]:
    """The pages (sorted, unique) that hold the elements of ``region`` (a slice per dim, as
    ``slice.indices`` normalises them) of a tensor of ``spec``: what an op reading only that region
    reads. Worked out from the ranges, never one entry per element (a 4 GiB tensor's slice costs
    the pages it touches). None for a rank below 2 (no page arithmetic here).

    >>> from meshspec.sim.spec import make_spec
    >>> s = make_spec((1, 1, 96, 64))   # 3 x 2 tiles
    >>> pages_in(s, (slice(0, 1, 1), slice(0, 1, 1), slice(0, 64, 1), slice(0, 64, 1))).tolist()
    [0, 1, 2, 3]
    """
    shape = tuple(spec.shape)
    if len(shape) < 2 or len(region) != len(shape):
        return None
    (ph, pw), (hp, w) = spec.page_shape, (spec.padded_shape[-2], spec.physical_shape[1])
    outer = [np.arange(*r.indices(n)) for r, n in zip(region[:-2], shape[:-2])]
    flat = np.zeros(1, dtype=np.int64)
    for idx, n in zip(outer, shape[:-2]):
        flat = (flat[:, None] * n + idx[None, :]).reshape(-1)
    rows = np.arange(*region[-2].indices(shape[-2]))
    cols = np.arange(*region[-1].indices(shape[-1]))
    if not (flat.size and rows.size and cols.size):
        return np.zeros(0, dtype=np.int64)
    page_rows = np.unique((flat[:, None] * hp + rows[None, :]) // ph)
    page_cols = np.unique(cols // pw)
    return np.unique(page_rows[:, None] * (w // pw) + page_cols[None, :])
