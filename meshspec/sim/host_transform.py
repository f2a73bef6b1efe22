"""Host-side ops on a host tensor: shard by shard, the topology kept (docs/semantics.md section 18).

A mapped host tensor holds one buffer per mesh coordinate. ttnn's host ops (``to_layout``,
``to_dtype`` / ``typecast``, ``reshape``, ``pad``, ``Tensor.unpad``, ``Tensor.pad_to_tile``) change
each shard on its own and hand back a host tensor with the same distribution shape, placements and
coordinates (``HostStorage::transform``, PR #24656; observed in ttnn 0.81.1's mock: every case of
tests/golden/ttnn_0_81_1_host_ops.json). :func:`transform` is that one sequence; an op gives it
what becomes of one shard's spec and values.

Which host ops ran on a multi-shard tensor is an era's (profile rule ``host_shard_ops``): before
PR #6976 (April 2024) padding refused it, and until PR #21628 (May 2025) unpadding did.
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ..errors import TTFatal
from .profiles import HostShardOps, RowMajorTilize
from .spec import Layout, TensorSpec, infer_shape
from .tensor import HostShard, HostTensor
from .values import ShapeOnly, host_dtype, to_dtype as _to_dtype

#: What each era's refusal says, in the real library's words, then meshspec's (its source).
PAD_REFUSED = ("Tensor must be on host for padding ({op} of {name}, a multi-device host tensor of {n} shards: before PR #6976 "
               "(2024-04-01) Tensor::pad accepted only OWNED or BORROWED storage, tt_eager/tensor/tensor.cpp; issue #6889)")
UNPAD_REFUSED = ("Device storage isn't supported ({op} of {name}, a multi-device host tensor of {n} shards: until PR #21628 "
                 "(2025-05-05) tensor_impl::unpad refused MultiDeviceHostStorage, ttnn/cpp/ttnn/tensor/tensor_impl.cpp; issue #16870)")
UNPAD_REFUSED_EARLIER = ("Tensor must be on host for unpadding ({op} of {name}, a multi-device host tensor of {n} shards: before PR #6976 "
                         "(2024-04-01) Tensor::unpad accepted only host storage of one buffer, tt_eager/tensor/tensor.cpp)")


def multi_shard(host: HostTensor) -> bool:
    """Whether ``host`` is a mapped tensor (MultiDeviceHostStorage in the eras that had it), not a
    plain one of one buffer."""
    return not host.plain


def check_era(rule: HostShardOps, op: str, name: str, host: HostTensor, *, pads: bool = False, unpads: bool = False) -> None:
    """Refuse, as the era did, a host op that pads (``pads``) or drops padding (``unpads``) on a
    multi-shard host tensor."""
    if not multi_shard(host) or rule is HostShardOps.PER_SHARD:
        return
    n = len(host.shards)
    if pads and rule is HostShardOps.NONE:
        raise TTFatal(PAD_REFUSED.format(op=op, name=name, n=n))
    if unpads:
        raise TTFatal((UNPAD_REFUSED if rule is HostShardOps.NO_UNPAD else UNPAD_REFUSED_EARLIER).format(op=op, name=name, n=n))


def needs_padding(spec: TensorSpec) -> bool:
    """Whether ``spec``'s shard, tilized, carries tile padding: its logical last two dims are not
    whole tiles. A to_layout to TILE then pads it on the host first, and one back to ROW_MAJOR
    unpads it (ttnn/cpp/ttnn/operations/core/to_layout; issue #16870: (1, 1, 32, 48) split 8 ways
    is a (32, 6) shard)."""
    probe = spec if spec.layout is Layout.TILE else spec.with_shape(spec.shape, layout=Layout.TILE)
    return probe.cropped


def values_as(values, shape: tuple, dtype) -> object:
    """The stand-in (metadata mode) of ``shape`` in ``dtype``'s host array type, or ``values``."""
    return values if isinstance(values, np.ndarray) else ShapeOnly(shape, host_dtype(dtype))


def transform(host: HostTensor, name: str, step: int, fn: Callable[[HostShard], tuple[TensorSpec, object]],
              *, keeps_offsets: bool = True, whole: Optional[Callable[[np.ndarray], np.ndarray]] = None) -> HostTensor:
    """A new host tensor ``name`` made at ``step``: every shard of ``host`` through ``fn`` (its new
    spec and values), at the same coordinates, with the same topology and host buffer.

    ``keeps_offsets``: each shard still holds the same slice of the tensor that was distributed (a
    layout or dtype change), so its offset and the tensor's global shape stay; else (a reshape,
    an unpad) they are unknown. ``whole``: the same change on the tensor that was distributed, kept
    as the values a composed readback must equal (None: no comparison). A shard read back from a
    device (or made from one) is made from that shard (``composed_from``): a lie read from a device
    stays a lie after a host op, judged where it was read, not against the new spec."""
    shards = {}
    for c, s in host.shards.items():
        spec, values = fn(s)
        made_from = (host, (c,)) if s.origin is not None or s.composed_from is not None else None
        shards[c] = HostShard(c, spec, values, s.offset if keeps_offsets else None, composed_from=made_from)
    first = next(iter(shards.values())).spec if shards else host.spec
    source = whole(host.source_values) if whole is not None and isinstance(host.source_values, np.ndarray) else None
    return HostTensor(name, step, first, host.topology, shards, plain=host.plain, read_from=host.read_from, unread=host.unread,
                      source_values=source, shape=host.shape if keeps_offsets else None, buffer_shape=host.buffer_shape,
                      mapper=host.mapper)


def _cast(values: np.ndarray, dtype) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _to_dtype(np.asarray(values, dtype=np.float64), dtype)


def _physical(spec: TensorSpec) -> str:
    h, w = spec.physical_shape
    return f"({h}, {w})"


def _refuse_tilize(tilize: RowMajorTilize, several: bool, op: str, name: str, coord, spec: TensorSpec, tiled: TensorSpec) -> None:
    """A ROW_MAJOR shard that is not whole tiles, converted to a block float (which is TILE only):
    0.81.1 refuses it at its physical-shape check; 0.66.0 and 0.67.0 refuse a tensor of one shard in
    the host tilize's words and convert one of several shard by shard, each padded to whole tiles
    (rule ``row_major_tilize``; observed in the mock: [1, 1, 1, 1] alone refused, two such shards made)."""
    where = f"({op} of {name}: its shard at {list(coord)} is {list(spec.shape)})"
    if tilize is RowMajorTilize.TILIZE:
        if several:
            return
        h, w = spec.tile
        raise TTFatal(f"Unsupported shape for tensor conversion from row-major to tile layout. The tensor shape height and width "
                      f"must be a multiple of tile height ({h}) and width ({w}), but the provided shape is {_physical(spec)} {where}")
    raise TTFatal(f"to_dtype: Converting layout to Layout::TILE implicitly changed physical shape from {_physical(spec)} to "
                  f"{_physical(tiled)} due to alignment constraints. This is currently unsupported. Please pad the tensor "
                  f"explicitly before conversion. {where}")


def to_dtype(rule: HostShardOps, op: str, name: str, host: HostTensor, out: str, step: int, dtype,
             tilize: RowMajorTilize = RowMajorTilize.PHYSICAL_SHAPE) -> HostTensor:
    """``ttnn.to_dtype`` (and ``ttnn.typecast`` of a host tensor, which is the same call in ttnn
    0.81.1: its refusal says ``to_dtype:``): each shard in ``dtype``, rounded to it as a device op's output is. A block float is TILE only: a ROW_MAJOR shard is tilized, refused where that would
    change its physical shape (a shard that is not whole tiles; observed), in the words of the era's
    ``row_major_tilize`` rule."""
    several = len(host.shards) > 1

    def one(s: HostShard) -> tuple[TensorSpec, object]:
        spec = s.spec
        layout = spec.layout
        if dtype.is_block_float and layout is Layout.ROW_MAJOR:
            tiled = spec.with_shape(spec.shape, layout=Layout.TILE)
            if tiled.physical_shape != spec.physical_shape:
                _refuse_tilize(tilize, several, op, name, s.coord, spec, tiled)
            layout = Layout.TILE
        new = spec.with_shape(spec.shape, dtype=dtype, layout=layout)
        values = _cast(s.values, dtype) if isinstance(s.values, np.ndarray) else values_as(s.values, tuple(spec.shape), dtype)
        return new, values

    return transform(host, out, step, one, whole=lambda v: _cast(v, dtype))


def to_layout(rule: HostShardOps, op: str, name: str, host: HostTensor, out: str, step: int, layout: Layout) -> HostTensor:
    """``ttnn.to_layout`` of a host tensor: each shard tilized (padded to whole tiles first) or
    untilized (its tile padding dropped), its logical shape and values kept (observed). A block
    float stays TILE: ttnn 0.81.1 only logs "Tensor layout must be Layout::TILE for bfloat8_b or
    bfloat4_b!" and returns it as it was (observed; tt-metal issue #43763, open)."""
    if layout is Layout.ROW_MAJOR and host.spec.dtype.is_block_float:  # a block float is TILE only: ttnn logs a warning and
        return transform(host, out, step, lambda s: (s.spec, s.values), whole=lambda v: v)  # keeps it TILE (#43763, observed)
    padded = any(needs_padding(s.spec) for s in host.shards.values())
    if layout is not host.spec.layout and padded:  # to TILE pads each shard first, to ROW_MAJOR unpads it (issue #16870)
        check_era(rule, op, name, host, pads=layout is Layout.TILE, unpads=layout is Layout.ROW_MAJOR)
    return transform(host, out, step, lambda s: (s.spec.with_shape(s.spec.shape, layout=layout), s.values), whole=lambda v: v)


def reshape(op: str, name: str, host: HostTensor, out: str, step: int, shape: tuple) -> HostTensor:
    """``ttnn.reshape`` of a host tensor: each shard to ``shape``, which is a shard's shape as on
    device (the global shape is refused, observed: ``Invalid arguments to reshape``)."""
    asked = shape

    def one(s: HostShard) -> tuple[TensorSpec, object]:
        old = tuple(s.spec.shape)
        shape = infer_shape(int(np.prod(old)), asked)  # one -1, inferred per shard as ttnn does
        if int(np.prod(old)) != int(np.prod(shape)):
            raise TTFatal(f"Invalid arguments to reshape: {name}'s shard at {list(s.coord)} is {list(old)}, {int(np.prod(old))} elements; "
                          f"{list(shape)} has {int(np.prod(shape))} (a mapped host tensor is reshaped shard by shard: give a shard's shape)")
        values = s.values.reshape(shape) if isinstance(s.values, np.ndarray) else ShapeOnly(shape, s.values.dtype)
        return s.spec.with_shape(shape), values

    return transform(host, out, step, one, keeps_offsets=False)


def pad(rule: HostShardOps, op: str, name: str, host: HostTensor, out: str, step: int, widths: list, explicit_padding_error) -> HostTensor:
    """``ttnn.pad`` of a host tensor (``widths``: [front, back] per dim). ttnn 0.81.1 pads on the
    host and keeps each shard's logical shape: only its padded shape grows (observed), and a TILE
    shard's padded shape stays its tiles', so a TILE shard comes back as it was. A ROW_MAJOR
    shard's new padded shape is padding meshspec's specs do not carry (``explicit_padding_error``
    says so and stops the run)."""
    check_era(rule, op, name, host, pads=True)
    if host.spec.layout is Layout.TILE:
        if any(front for front, _ in widths):
            raise TTFatal(f"ttnn.pad: on device tile padding does not support front padding ({name} is a host tensor in TILE: "
                          "ttnn 0.81.1 refuses it on the host too, observed)")
    elif any(front or back for front, back in widths):
        raise explicit_padding_error
    return transform(host, out, step, lambda s: (s.spec, s.values), whole=lambda v: v)


def unpad(rule: HostShardOps, op: str, name: str, host: HostTensor, out: str, step: int, start: tuple, end: tuple,
          out_of_bounds) -> HostTensor:
    """``Tensor.unpad(start, end)``: each ROW_MAJOR shard cut to ``[start, end)`` (observed). ttnn
    0.81.1 checks neither bound: ``out_of_bounds(shard)`` is meshspec's refusal of a region past a
    shard (what ttnn then reads is not known)."""
    if host.spec.layout is not Layout.ROW_MAJOR:
        raise TTFatal(f"Tensor layout must be ROW_MAJOR for unpadding ({name} is {host.spec.layout}; ttnn 0.81.1, "
                      "tt_metal/impl/tensor/host_pad_apis.cpp)")
    check_era(rule, op, name, host, unpads=True)
    shape = tuple(e - b for b, e in zip(start, end))

    def one(s: HostShard) -> tuple[TensorSpec, object]:
        have = tuple(s.spec.shape)
        if len(start) != len(have) or any(b >= e or e > n for b, e, n in zip(start, end, have)):
            raise out_of_bounds(s)
        cut = tuple(slice(b, e) for b, e in zip(start, end))
        values = s.values[cut] if isinstance(s.values, np.ndarray) else ShapeOnly(shape, s.values.dtype)
        return s.spec.with_shape(shape), values

    return transform(host, out, step, one, keeps_offsets=False)


def pad_to_tile(rule: HostShardOps, op: str, name: str, host: HostTensor, out: str, step: int, explicit_padding_error) -> HostTensor:
    """``Tensor.pad_to_tile(value)``: a TILE shard is already whole tiles and comes back as it was
    (observed); a ROW_MAJOR shard keeps its logical shape and takes a padded shape of whole tiles
    (observed), padding meshspec's specs do not carry, unless it already is whole tiles."""
    check_era(rule, op, name, host, pads=True)
    if host.spec.layout is Layout.ROW_MAJOR and any(needs_padding(s.spec) for s in host.shards.values()):
        raise explicit_padding_error
    return transform(host, out, step, lambda s: (s.spec, s.values), whole=lambda v: v)
