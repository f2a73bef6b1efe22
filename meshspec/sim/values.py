"""Host values: numpy dtypes per ttnn dtype, data generators, and block-float quantization.

bfloat16 uses ml_dtypes (round-to-nearest-even, the same type JAX uses). Block floats
(bfloat8_b, bfloat4_b) are held on the host as float32 values that are already quantized, so a
correct device round trip gives them back bit for bit.

Block-float format (one shared exponent per 16 consecutive values of a face row)::

    value = (-1)**sign * mantissa * 2**(shared_exp - 127 - (mantissa_bits - 1))
    bfloat8_b: 7 mantissa bits (0..127); bfloat4_b: 3 mantissa bits (0..7)

``shared_exp`` is the largest float32 biased exponent in the group; smaller values lose low bits.
"""

from __future__ import annotations

import functools
import math
from typing import Optional

import numpy as np

from .spec import DataType

try:  # ml_dtypes is a declared dependency; the import is here so a missing install says so.
    import ml_dtypes

    BFLOAT16 = np.dtype(ml_dtypes.bfloat16)
except ImportError as exc:  # pragma: no cover
    raise ImportError("meshspec needs ml_dtypes for bfloat16 (pip install ml_dtypes)") from exc

#: numpy dtype of a host tensor of each ttnn dtype.
HOST_DTYPES: dict[DataType, np.dtype] = {
    DataType.BFLOAT16: BFLOAT16,
    DataType.FLOAT32: np.dtype(np.float32),
    DataType.UINT32: np.dtype(np.uint32),
    DataType.INT32: np.dtype(np.int32),
    DataType.UINT16: np.dtype(np.uint16),
    DataType.UINT8: np.dtype(np.uint8),
    DataType.BFLOAT8_B: np.dtype(np.float32),
    DataType.BFLOAT4_B: np.dtype(np.float32),
}

MANTISSA_BITS = {DataType.BFLOAT8_B: 7, DataType.BFLOAT4_B: 3}
GROUP = 16


def host_dtype(dtype: DataType) -> np.dtype:
    return HOST_DTYPES[dtype]


def to_dtype(values: np.ndarray, dtype: DataType) -> np.ndarray:
    """Convert float64/int values to the host representation of ``dtype``.

    Integers wrap modulo the type's range (as a cast of a torch int64 tensor does); floats round
    to nearest even; block floats are quantized in groups of 16 along the last dim.
    """
    target = HOST_DTYPES[dtype]
    if np.issubdtype(target, np.integer):
        info = np.iinfo(target)
        span = int(info.max) - int(info.min) + 1
        with np.errstate(all="ignore"):
            ints = np.asarray(values).astype(np.int64)
        return ((ints - int(info.min)) % span + int(info.min)).astype(target)
    with np.errstate(all="ignore"):  # out-of-range values become inf, as a cast in torch does
        out = _round_floats(np.asarray(values, dtype=np.float64), target)
    if dtype.is_block_float:
        out = quantize_block_float(out, dtype)
    return out


def _round_floats(values: np.ndarray, target: np.dtype) -> np.ndarray:
    """float64 ``values`` rounded to the float type ``target`` as torch rounds them: bfloat16
    through float32 (c10::BFloat16 is built from a float, so a double is rounded twice), not in
    one step as ml_dtypes 0.7 does; the other float types in one rounding.

    >>> float(_round_floats(np.array([2.0**24 + 2**16 + 1]), BFLOAT16)[0]) == 2.0**24
    True
    """
    if target == BFLOAT16:
        return values.astype(np.float32).astype(BFLOAT16)
    return values.astype(target)


def quantize_block_float(values: np.ndarray, dtype: DataType) -> np.ndarray:
    """Round float32 ``values`` to what ``dtype`` can hold, grouping 16 along the last dim.

    Host tensors are grouped along rows of the logical tensor; on the device groups are face rows
    of the padded tile, which hold the same 16 consecutive row elements when the width is a
    multiple of 16 (always the case for padded tiles). Padding zeros do not change a group's
    shared exponent.
    """
    arr = np.asarray(values, dtype=np.float32)
    shape = arr.shape
    width = shape[-1] if shape else 1
    pad = (-width) % GROUP
    flat = arr.reshape(-1, width)
    if pad:
        flat = np.pad(flat, ((0, 0), (0, pad)))
    groups = flat.reshape(-1, GROUP)
    out = np.empty(groups.shape, dtype=np.float32)
    for i in range(0, len(groups), GROUPS_AT_A_TIME):  # float64 temporaries of a chunk, not of the whole tensor
        part = groups[i : i + GROUPS_AT_A_TIME]
        out[i : i + GROUPS_AT_A_TIME] = decode_groups(*encode_groups(part, dtype), dtype)
    out = out.reshape(flat.shape)
    if pad:
        out = out[:, :width]
    return np.ascontiguousarray(out).reshape(shape)


GROUPS_AT_A_TIME = 1 << 14
"""Groups of 16 encoded at a time (262,144 values): block-float encoding makes about 40 bytes of
temporaries a value (float64 magnitudes, scales, masks), 10 MiB a chunk whatever the tensor's size
(issue 34: one [1, 1024, 64, 32] tensor took 8.5 GB in its temporaries and replicas)."""


def encode_groups(groups: np.ndarray, dtype: DataType) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Shared exponents (uint8 per group), magnitudes and sign bits for groups of 16 float32
    (:data:`GROUPS_AT_A_TIME` at a time)."""
    n = groups.size // GROUP
    if n <= GROUPS_AT_A_TIME:
        return _encode_groups(groups, dtype)
    flat = groups.reshape(n, GROUP)
    shared = np.empty(n, dtype=np.uint8)
    mags = np.empty((n, GROUP), dtype=np.uint8)
    signs = np.empty((n, GROUP), dtype=np.uint8)
    for i in range(0, n, GROUPS_AT_A_TIME):
        j = i + GROUPS_AT_A_TIME
        shared[i:j], mags[i:j], signs[i:j] = _encode_groups(flat[i:j], dtype)
    return shared.reshape(groups.shape[:-1]), mags.reshape(groups.shape), signs.reshape(groups.shape)


def _encode_groups(groups: np.ndarray, dtype: DataType) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    bits = MANTISSA_BITS[dtype]
    g = np.ascontiguousarray(groups, dtype=np.float32)
    raw = g.view(np.uint32)
    biased = ((raw >> 23) & 0xFF).astype(np.int32)
    shared = biased.max(axis=-1)
    signs = (raw >> 31).astype(np.uint8)
    # Scale so the largest magnitude in the group lands in [2**(bits-1), 2**bits).
    scale = np.ldexp(np.float64(1.0), (bits - 1) - (shared.astype(np.int64) - 127))
    with np.errstate(all="ignore"):
        mags = np.rint(np.abs(g.astype(np.float64)) * scale[..., None])
        mags = np.clip(np.nan_to_num(mags), 0, (1 << bits) - 1).astype(np.uint8)
    mags[np.isnan(g)] = 0
    return shared.astype(np.uint8), mags, signs


def decode_groups(shared: np.ndarray, mags: np.ndarray, signs: np.ndarray, dtype: DataType) -> np.ndarray:
    """Inverse of :func:`encode_groups`, as float32."""
    bits = MANTISSA_BITS[dtype]
    scale = np.ldexp(np.float64(1.0), shared.astype(np.int64) - 127 - (bits - 1))
    vals = mags.astype(np.float64) * scale[..., None]
    vals = np.where(signs.astype(bool), -vals, vals)
    with np.errstate(over="ignore"):  # a poison exponent (0xA5/0xFF) decodes to inf, as it would
        return vals.astype(np.float32)


CHUNK = 1 << 22
"""Elements generated at a time: temporaries stay small whatever the tensor's size."""


def generate(kind: str, shape: tuple[int, ...], dtype: DataType, arg: object = None) -> np.ndarray:
    """Host data for ``from_torch``: ``arange``, ``zeros``, ``ones``, ``fill`` or ``random``.

    ``arange`` numbers elements 0, 1, 2, ... in row-major order, then converts to ``dtype`` as
    ``torch.arange(n).to(dtype)`` would: every element is distinct while the dtype can count
    that high (bfloat16 exactly to 256, uint8 wraps at 256). ``random`` is standard normal for
    floats and integers in [-1000, 1000] (clipped to the dtype) for integer types.

    Values are made a chunk at a time straight into the result, so a 1 GB tensor needs 1 GB.
    """
    target = HOST_DTYPES[dtype]
    n = math.prod(shape)  # Python ints: exact, and no array made of a tuple
    if kind in ("zeros", "ones", "fill"):
        return _fill(shape, {"zeros": 0.0, "ones": 1.0}.get(kind, arg), dtype)  # type: ignore[arg-type]
    if kind == "arange":
        out = arange(n, DataType.FLOAT32 if dtype.is_block_float else dtype).reshape(shape)
        return quantize_block_float(out, dtype) if dtype.is_block_float else out
    if kind != "random":  # pragma: no cover - the scenario model allows only the kinds above
        raise ValueError(f"unknown data kind {kind!r}")
    out = np.empty(n, dtype=target)
    rng = np.random.default_rng(int(arg))  # type: ignore[arg-type]
    floats = None if np.issubdtype(target, np.integer) else np.empty(min(CHUNK, n), dtype=np.float32)
    for start in range(0, n, CHUNK):
        stop = min(start + CHUNK, n)
        if floats is None:
            info = np.iinfo(target)
            chunk = rng.integers(max(int(info.min), -1000), min(int(info.max), 1000) + 1, size=stop - start)
            out[start:stop] = to_dtype(chunk, dtype)
        else:  # one float32 buffer, reused: no fresh pages per chunk
            rng.standard_normal(dtype=np.float32, out=floats[: stop - start])
            out[start:stop] = floats[: stop - start]
    out = out.reshape(shape)
    return quantize_block_float(out, dtype) if dtype.is_block_float else out


def arange(n: int, dtype: DataType) -> np.ndarray:
    """``0, 1, ..., n-1`` as ``torch.arange(n).to(dtype)`` makes them: integer types wrap; float32
    rounds each integer to nearest (ties to even); bfloat16 rounds through float32, as torch's
    int64 -> bfloat16 conversion does (so 2**24 + 2**16 + 1 becomes 2**24, not 2**24 + 2**17).

    Made in the dtype, without a float64 copy of the tensor: bfloat16 as runs of equal values
    (at most 65,536 of them: above 256 every value repeats), the others through one small int64
    buffer, reused. Bit for bit what converting a float64 ``np.arange`` with :func:`to_dtype` gives.

    >>> arange(6, DataType.UINT8).tolist(), arange(300, DataType.BFLOAT16)[255:260].astype(float).tolist()
    ([0, 1, 2, 3, 4, 5], [255.0, 256.0, 256.0, 258.0, 260.0])
    """
    target = HOST_DTYPES[dtype]
    if n <= 0:
        return np.empty(0, dtype=target)
    if target == BFLOAT16:  # runs pay off once values repeat; below that, the start of one made once
        return _bfloat16_arange(n) if n > 1 << 16 else _bfloat16_ramp()[:n].copy()
    out = np.empty(n, dtype=target)
    step = 1 << 16  # the int64 buffer stays in cache
    ramp = np.arange(min(step, n), dtype=np.int64)
    buf = np.empty_like(ramp)
    for start in range(0, n, step):
        m = min(step, n - start)
        np.add(ramp[:m], start, out=buf[:m])
        out[start : start + m] = buf[:m]  # an unsafe cast: wraps integers, rounds floats once
    return out


@functools.cache
def _bfloat16_ramp() -> np.ndarray:
    """0, 1, ..., 65,535 converted to bfloat16 (read-only): :func:`arange` of up to that many is a
    copy of its start, 2 us instead of 150 us for a 7x32x128 tensor (the conversion is per element,
    so a prefix converts alike)."""
    ramp = _round_floats(np.arange(1 << 16, dtype=np.float64), BFLOAT16)
    ramp.flags.writeable = False
    return ramp


def _bfloat16_arange(n: int) -> np.ndarray:
    """:func:`arange` for bfloat16: each bfloat16 value between the first and last, repeated for
    the integers that round to it. Where a value's run begins is found by bisection with the
    conversion itself (it is monotone), so the runs are the conversion's by construction."""

    def bits_of(v: np.ndarray) -> np.ndarray:  # the bit patterns grow with the value (v >= 0)
        return _round_floats(np.asarray(v, dtype=np.float64), BFLOAT16).view(np.uint16)

    last = int(bits_of(np.array([n - 1]))[0])
    values = np.arange(0, last + 1, dtype=np.uint16)  # every bit pattern from 0.0 up
    lo = np.zeros(last, dtype=np.int64)  # bits_of(lo) < values[1:]
    hi = np.full(last, n - 1, dtype=np.int64)  # bits_of(hi) >= values[1:]
    while True:
        open_ = hi - lo > 1
        if not open_.any():
            break
        mid = (lo + hi) // 2
        up = bits_of(mid) >= values[1:]
        hi = np.where(open_ & up, mid, hi)
        lo = np.where(open_ & ~up, mid, lo)
    first = np.where(bits_of(lo) >= values[1:], lo, hi)  # lo = 0 already converts past 0.0 for none
    starts = np.concatenate([[0], first])
    counts = np.diff(np.concatenate([starts, [n]]))
    return np.repeat(values, counts).view(BFLOAT16)


def _fill(shape: tuple[int, ...], value: float | int, dtype: DataType) -> np.ndarray:
    """Every element ``value``, as ``torch.full(shape, value, dtype=dtype)`` makes it: integers
    exactly (never through a float), floats rounded to the dtype; a value the dtype cannot hold
    (outside an integer type's range, NaN or infinity into an integer type, a finite value past a
    float type's largest) is refused with torch's words."""
    target = HOST_DTYPES[dtype]
    if np.issubdtype(target, np.integer):
        info = np.iinfo(target)
        if isinstance(value, float):
            if not math.isfinite(value):
                raise _overflow(value, dtype, info.min, info.max)
            value = int(value)  # torch truncates a float fill toward zero
        if not info.min <= value <= info.max:
            raise _overflow(value, dtype, info.min, info.max)
        return np.full(shape, value, dtype=target)
    base = np.dtype(np.float32) if dtype.is_block_float else target
    largest = float(ml_dtypes.finfo(base).max) if base == BFLOAT16 else float(np.finfo(base).max)
    try:
        as_float = float(value)
    except OverflowError:
        raise _overflow(value, dtype, -largest, largest) from None
    if math.isfinite(as_float) and abs(as_float) > largest:
        raise _overflow(value, dtype, -largest, largest)
    with np.errstate(all="ignore"):
        one = np.array([as_float], dtype=np.float64).astype(base)
    if dtype.is_block_float:
        one = quantize_block_float(one, dtype)
    return np.full(shape, one[0], dtype=target)


def _overflow(value, dtype: DataType, lo, hi):
    from ..errors import StepInputError

    shown = str(value) if len(str(value)) <= 40 else f"{str(value)[:20]}...({len(str(value))} digits)"
    return StepInputError(
        f"value cannot be converted to type {dtype} without overflow (fill {shown} is outside what {dtype} holds, "
        f"{lo:g}..{hi:g}; torch.full refuses it, and so does meshspec)"
    )


FILE_CHUNK = 1 << 20
"""Elements read from a data file at a time (the file's values plus their conversion: ~24 MB)."""


def load_npy(path, dtype: DataType, reserve=None, name: str = "") -> np.ndarray:
    """A ``.npy`` file's values as ``dtype`` holds them (see :func:`to_dtype`), read and converted a
    chunk at a time: whatever the file's own dtype, the temporaries stay a few chunks in size.
    ``reserve(nbytes, what)`` is told of the temporaries before they are made. NaN or infinity
    going into an integer dtype is refused (``name`` names the file in that message)."""
    from numpy.lib import format as npy

    integer = np.issubdtype(HOST_DTYPES[dtype], np.integer)

    def convert(chunk: np.ndarray) -> np.ndarray:
        if integer and chunk.dtype.kind == "f" and not np.isfinite(chunk).all():
            from ..errors import StepInputError

            raise StepInputError(f"data file {name!r} holds NaN or infinite values, which {dtype} cannot hold")
        return to_dtype(chunk, dtype) if not dtype.is_block_float else chunk

    readers = {(1, 0): npy.read_array_header_1_0, (2, 0): npy.read_array_header_2_0}
    with open(path, "rb") as f:
        version = npy.read_magic(f)
        if version not in readers:  # format 3.0 (utf-8 field names): let numpy map it
            arr = np.load(path, mmap_mode="r", allow_pickle=False)
            shape, fortran, stored = arr.shape, True, arr.dtype
        else:
            shape, fortran, stored = readers[version](f)
        n = math.prod(shape)
        out = np.empty(n, dtype=HOST_DTYPES[dtype])
        if fortran or stored.hasobject:
            if reserve is not None:
                reserve(n * stored.itemsize * 2, f"reading {path.name}")
            whole = convert(np.load(path, allow_pickle=False))
            return quantize_block_float(whole, dtype) if dtype.is_block_float else whole
        if reserve is not None:
            reserve(min(n, FILE_CHUNK) * (stored.itemsize + 16), f"reading {path.name} a chunk at a time")
        buffer = np.empty(min(n, FILE_CHUNK), dtype=stored)
        for start in range(0, n, FILE_CHUNK):
            count = min(FILE_CHUNK, n - start)
            view = buffer[:count]
            got = f.readinto(memoryview(view).cast("B"))
            if got != count * stored.itemsize:
                raise ValueError(f"{path.name} ends before its {n} values")
            out[start : start + count] = convert(view)
    out = out.reshape(shape)
    return quantize_block_float(out, dtype) if dtype.is_block_float else out


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Element-wise bit equality (NaN poison equals itself, -0.0 differs from 0.0)."""
    if a.dtype != b.dtype:
        b = b.astype(a.dtype)
    bits = _BITS[a.dtype.itemsize]
    return np.ascontiguousarray(a).view(bits) == np.ascontiguousarray(b).view(bits)


_BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
"""The unsigned integer of each item size: values compared as their bits."""


class ShapeOnly:
    """Stands in for a value array in metadata mode (``--no-data``): shape and dtype, no data.

    Slicing gives the slice's shape, so mapping and composing run unchanged.
    """

    __slots__ = ("shape", "dtype")

    def __init__(self, shape: tuple[int, ...], dtype: np.dtype) -> None:
        self.shape = tuple(map(int, shape))  # (no generator: a stand-in is made a few times a readback)
        self.dtype = np.dtype(dtype)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)  # Python ints: a 4 TiB tensor's count does not overflow

    def __getitem__(self, slices: tuple[slice, ...]) -> "ShapeOnly":
        shape = tuple(len(range(*s.indices(n))) for s, n in zip(slices, self.shape)) + self.shape[len(slices) :]
        return ShapeOnly(shape, self.dtype)

    def astype(self, dtype) -> "ShapeOnly":
        return ShapeOnly(self.shape, dtype)

    def __repr__(self) -> str:
        return f"ShapeOnly({self.shape}, {self.dtype})"


def concat_shape(shapes: list[tuple[int, ...]], dim: int) -> tuple[int, ...]:
    """The shape ``np.concatenate`` would give, or ValueError if the shapes do not fit."""
    first = shapes[0]
    if 0 <= dim < len(first) and shapes.count(first) == len(shapes):
        return first[:dim] + (first[dim] * len(shapes),) + first[dim + 1 :]  # even shards: one C-level count, no pass in Python
    if 0 <= dim < len(first):  # every other dim equal: the shapes without the concatenated one
        rest = first[:dim] + first[dim + 1 :]
        if any(len(s) != len(first) or s[:dim] + s[dim + 1 :] != rest for s in shapes[1:]):
            raise ValueError("shapes do not concatenate")
        return first[:dim] + (sum(s[dim] for s in shapes),) + first[dim + 1 :]
    for s in shapes[1:]:
        if len(s) != len(first) or any(a != b for i, (a, b) in enumerate(zip(s, first)) if i != dim):
            raise ValueError("shapes do not concatenate")
    return tuple(sum(s[dim] for s in shapes) if i == dim else n for i, n in enumerate(first))


def differences(a: np.ndarray, b: np.ndarray, tolerance: Optional[np.ndarray] = None) -> tuple[int, Optional[int]]:
    """How many elements of ``a`` differ from ``b`` (bit for bit, or by more than ``tolerance``,
    broadcast against them), and the flat index of the first; in chunks, so comparing two 1 GB
    tensors needs no 1 GB temporary. Bit for bit, each chunk is one ``not_equal`` of the bits into
    a reused buffer and a ``count_nonzero``: half the time of ``(~(a == b)).sum()``.

    >>> differences(np.array([1.0, -0.0, np.nan]), np.array([1.0, 0.0, np.nan]))
    (1, 1)
    """
    if tolerance is None and b.dtype != a.dtype:  # bits are compared in a's dtype; a tolerance in float64, each at its own precision
        b = b.astype(a.dtype)
    fa, fb = a.reshape(-1), b.reshape(-1)
    ft = None if tolerance is None else np.broadcast_to(tolerance, a.shape).reshape(-1)
    bits = _BITS[a.dtype.itemsize]
    out = np.empty(min(fa.size, CHUNK), dtype=bool)
    count, first = 0, None
    for start in range(0, fa.size, CHUNK):
        stop = min(start + CHUNK, fa.size)
        bad = out[: stop - start]
        if ft is None:
            np.not_equal(fa[start:stop].view(bits), fb[start:stop].view(bits), out=bad)
        else:
            with np.errstate(invalid="ignore"):
                diff = np.abs(fa[start:stop].astype(np.float64) - fb[start:stop].astype(np.float64))
                np.logical_not(diff <= ft[start:stop], out=bad)
        n = int(np.count_nonzero(bad))
        if n and first is None:
            first = start + int(np.argmax(bad))
        count += n
    return count, first


def count_different(a: np.ndarray, b: np.ndarray) -> int:
    """How many elements of ``a`` differ from ``b`` bit for bit (``b`` taken in ``a``'s dtype)."""
    return differences(a, b)[0]
