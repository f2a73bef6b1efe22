"""Ops that cut, join or pad each device's tensor: ``ttnn.slice``, ``ttnn.concat``, ``ttnn.pad``
(docs/semantics.md section 12).

A mesh tensor's shape is its shard's, so each works on every device's own tensor: slicing a
tensor sharded on dim 3 keeps part of every shard, not a part of the whole. The label is the
default imputation's (the input's; concat's is the union of its inputs'), and so is the data's
layout: these ops move no data between devices. Where an op has nothing to do (the whole tensor
sliced, one tensor concatenated, no padding), ttnn 0.81.1 returns its input as it is: the same
tensor, at the same address (tests/golden/ttnn_0_81_1_views.json).

>>> slices((1, 1, 32, 32), [0, 0, 0, -16], [1, 1, 32, 32], None)
(slice(0, 1, 1), slice(0, 1, 1), slice(0, 32, 1), slice(16, 32, 1))
"""

from __future__ import annotations

import functools
from typing import Annotated, Optional, Union

import numpy as np

from ...errors import ResourceLimit, TTFatal
from ...typed import Check, Length, Range, Typed
from ..placement import Topology, as_label, has_partial
from ..profiles import OpTopology
from ..runtime import Runtime
from ..dims import normal_dim
from ..imputation import union
from ..tensor import DeviceTensor, HostTensor
from .. import host_transform
from ..pages import pages_in
from ..values import HOST_DTYPES
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, Step, host_or_device, is_tile, on_device
from .fields import As, Name, Names
from .output import alias, emit, fact, read, shard, unclaimed_label, workload

Index = Annotated[int, Range(ge=-(2**31), le=2**31)]


class Slice(Typed):
    """``ttnn.slice(tensor, starts, ends, steps=None)``: on each device's tensor."""

    tensor: Name
    starts: Annotated[list[Index], Length(min=1, max=8)]
    ends: Annotated[list[Index], Length(min=1, max=8)]
    steps: Optional[Annotated[list[Annotated[int, Range(ge=1, le=2**31)]], Length(min=1, max=8)]] = None
    as_: As


class Concat(Typed):
    """``ttnn.concat(tensors, dim)``: each device's tensors joined along ``dim``."""

    tensors: Names
    dim: Annotated[int, Range(ge=-9, le=8)]
    as_: As


def _a_float(v: Union[int, float]) -> Union[int, float]:
    """ttnn.pad's binding takes its value as a C++ float: an integer no double holds is refused
    before anything runs (docs/semantics.md section 12; observed in the mock)."""
    try:
        float(v)
    except OverflowError:
        raise ValueError(f"an integer of {len(str(v)):,} digits is too large for a float: ttnn 0.81.1 refuses it "
                         "('ttnn.pad(): incompatible function arguments')") from None
    return v


class Pad(Typed):
    """``ttnn.pad(tensor, padding, value)``: ``padding`` a [front, back] pair per dim, for the last
    dims when shorter than the rank."""

    tensor: Name
    padding: Annotated[list[Annotated[list[Annotated[int, Range(ge=0, le=2**31)]], Length(min=2, max=2)]], Length(min=1, max=8)]
    value: Annotated[Union[int, float], Check(_a_float)] = 0.0
    as_: As


def slices(shape: tuple[int, ...], starts: list[int], ends: list[int], steps: Optional[list[int]]) -> tuple[slice, ...]:
    """Each dim's slice, with negative starts and ends counted from the end (as Python's)."""
    steps = steps or [1] * len(shape)
    return tuple(slice(*slice(b, e, s).indices(n)) for b, e, s, n in zip(starts, ends, steps, shape))


def _each_device(rt: Runtime, name: str, inputs: list[tuple[DeviceTensor, str]], shape: tuple[int, ...], fn, label: Topology,
                 truth: Optional[Topology], claims: bool, region: Optional[tuple[slice, ...]] = None) -> None:
    """Bind ``name`` to a per-device op's output: every device of the op's workload (the input
    recording the fewest, :func:`~.output.workload`) the first input keeps a spec for, computed by
    ``fn`` from each input's values there, on a new buffer. A device another input
    keeps no spec for gets no values (zeros; none in metadata mode), and its read is the tensor's
    spec's, as a kernel reading it would."""
    src = inputs[0][0]
    rec = src.record
    out_spec = rec.spec.with_shape(shape)
    shards, reads = {}, {}
    for c in workload([t for t, _ in inputs]):
        if rec.specs.get(c) is None:
            continue
        # every device read as its tensor's spec (the op's output spec is one, from it)
        got = [read(rt, t, n, c, t.record.spec, pages=_pages(t.record.spec, region)) if t.record.specs.get(c) is not None
               else (None, fact(t, n, c, t.record.spec)) for t, n in inputs]
        values = fn([v for v, _ in got]) if all(v is not None for v, _ in got) else None
        shards[c] = shard(c, out_spec, values, rt)
        reads[c] = tuple(r for _, r in got)
    emit(rt, name, rt.mesh_of(src), out_spec, label, shards, reads, claims=claims, layout=truth)


def _pages(spec, region: Optional[tuple[slice, ...]]):
    """The pages of ``spec`` an op reading only ``region`` reads (None: every page). Worked out once
    per spec and region: the devices of a mesh share both."""
    return None if region is None else _pages_cached(spec, tuple((r.start, r.stop, r.step) for r in region))


@functools.lru_cache(maxsize=64)
def _pages_cached(spec, region: tuple):
    return pages_in(spec, tuple(slice(*r) for r in region))


def _kept(rt: Runtime, t: DeviceTensor) -> tuple[Topology, bool]:
    """The label of an op that moves no data between devices, and whether it claims a layout: the
    input's (its layout is the input's, ``t.layout()``)."""
    rec = t.record
    real = t.layout()
    exact = rt.profile.op_topology is OpTopology.EXACT and real is not None
    label = as_label(real) if exact else rec.topology
    return label, made.claims if (made := t.provenance) is not None else False


def slice_(rt: Runtime, a: Slice) -> None:
    src = rt.device(a.tensor)
    rec = src.record
    shape = tuple(rec.spec.shape)
    rank = len(shape)
    if len(a.starts) != rank:
        raise TTFatal(f"Input rank {rank} and begins {len(a.starts)} must have the same size")
    if len(a.ends) != rank or (a.steps is not None and len(a.steps) != rank):
        raise TTFatal(f"Input rank {rank} and ends {len(a.ends)} must have the same size")
    for e, n in zip(a.ends, shape):
        if e > n:
            raise TTFatal(f"Ends {e} must be less than or equal to the shape of the tensor {n}")
    cut = slices(shape, a.starts, a.ends, a.steps)
    out_shape = tuple(len(range(s.start, s.stop, s.step)) for s in cut)
    if 0 in out_shape:
        raise TTFatal(f"slice: starts {list(a.starts)} and ends {list(a.ends)} of a {list(shape)} tensor leave nothing "
                      "(meshspec does not simulate empty device tensors)")
    if out_shape == shape:  # nothing to cut: ttnn returns the input as it is (observed)
        rt.bind(a.as_, alias(src, a.as_))
        return
    label, claims = _kept(rt, src)
    _each_device(rt, a.as_, [(src, a.tensor)], out_shape, lambda vs: vs[0][cut], label, src.layout() if claims else None, claims,
                 region=cut)


def concat(rt: Runtime, a: Concat) -> None:
    names = [n for name in a.tensors for n in rt.names(name)]
    if not names:
        raise TTFatal("ttnn.concat: expected a non-empty list of Tensors!")
    tensors = [rt.device(n) for n in names]
    first = tensors[0].record.spec
    rank = len(first.shape)
    dim = normal_dim(a.dim, rank)
    if dim is None:
        raise TTFatal(f"Index is out of bounds for the rank, should be between 0 and {rank - 1} however is {a.dim}")
    if len(tensors) == 1:  # nothing to join: the input as it is (observed)
        rt.bind(a.as_, alias(tensors[0], a.as_))
        return
    if any(t.record.spec.dtype != first.dtype for t in tensors):
        raise TTFatal("All Tensors should have same dtypes.")
    for t in tensors[1:]:
        s = tuple(t.record.spec.shape)
        if len(s) != rank or any(n != m for i, (n, m) in enumerate(zip(s, first.shape)) if i != dim):
            raise TTFatal("All dimensions must be the same size except for the dimension along which the contenation is taking place. "
                          f"({names[0]} is {list(first.shape)}, {t.name} is {list(s)})")
    recs = [t.record for t in tensors]
    layouts = [t.layout() for t in tensors]
    same = all(lay is not None and lay == layouts[0] for lay in layouts)
    exact = rt.profile.op_topology is OpTopology.EXACT
    labels = [r.topology for r in recs]
    label = (as_label(layouts[0]) if same else unclaimed_label(labels, workload(tensors))) if exact else union(labels)
    claims = any(t.provenance is not None and t.provenance.claims for t in tensors) or not same
    shape = tuple(first.shape[:dim]) + (sum(t.record.spec.shape[dim] for t in tensors),) + tuple(first.shape[dim + 1 :])
    # differently laid inputs: no layout describes the output
    _each_device(rt, a.as_, list(zip(tensors, names)), shape, lambda vs: np.concatenate(vs, axis=dim), label,
                 layouts[0] if same and claims else None, claims)


def pad(rt: Runtime, a: Pad) -> None:
    t = rt.item(a.tensor)
    if isinstance(t, HostTensor):  # on the host, shard by shard (docs/semantics.md section 18)
        rank = len(t.spec.shape)
        if len(a.padding) > rank:
            raise TTFatal("ttnn.pad: padding len can't be larger than input tensor rank")
        widths = [(0, 0)] * (rank - len(a.padding)) + [tuple(p) for p in a.padding]
        rt.bind(a.as_, host_transform.pad(rt.profile.host_shard_ops, rt.op, a.tensor, t, a.as_, rt.step, widths, ResourceLimit(
            f"pad of the ROW_MAJOR host tensor {a.tensor}: ttnn 0.81.1 keeps each shard's logical shape and pads only its padded "
            "shape (observed), padding meshspec's specs do not carry, so it stops here; pad on the device, or tilize first")))
        return
    src = rt.device(a.tensor)
    rec = src.record
    shape = tuple(rec.spec.shape)
    rank = len(shape)
    if len(a.padding) > rank:
        raise TTFatal("ttnn.pad: padding len can't be larger than input tensor rank")
    widths = [(0, 0)] * (rank - len(a.padding)) + [tuple(p) for p in a.padding]
    if rec.spec.layout.value == "tile" and any(front for front, _ in widths):
        raise TTFatal("ttnn.pad: on device tile padding does not support front padding")
    if not any(front or back for front, back in widths):  # nothing to pad: the input as it is (observed)
        rt.bind(a.as_, alias(src, a.as_))
        return
    out_shape = tuple(n + front + back for n, (front, back) in zip(shape, widths))
    value = _pad_value(a.value, rec.spec.dtype)
    label, claims = _kept(rt, src)
    truth = src.layout() if claims else None
    if truth is not None and has_partial(truth) and value != 0:
        truth = None  # a pad value added to every partial sum: summed, it counts once per device
    _each_device(rt, a.as_, [(src, a.tensor)], out_shape, lambda vs: np.pad(vs[0], widths, constant_values=value), label, truth, claims)


def _pad_value(value: Union[int, float], dtype) -> Union[int, float]:
    """The pad value as the tensor's values take it: an integer for an integer dtype, else a float
    (a Python integer past 2**64 is no number numpy fills a bfloat16 array with). One the dtype
    cannot hold (an integer type's range; a float type's largest finite value, as a C++ float, which
    the binding takes): what the device's pad kernel writes then is not known here, so meshspec
    stops at the step rather than guess (docs/semantics.md section 12)."""
    target = HOST_DTYPES[dtype]
    if np.issubdtype(target, np.integer):
        info = np.iinfo(target)
        fits = (not isinstance(value, float) or np.isfinite(value)) and info.min <= value <= info.max
        bounds = f"{info.min}..{info.max}"
    else:
        largest = float(np.finfo(np.float32).max)
        fits = not np.isfinite(float(value)) or abs(float(value)) <= largest  # NaN and infinity are float values
        bounds = f"{-largest:g}..{largest:g}"
    if not fits:
        raise ResourceLimit(f"pad value {value} is outside what {dtype} holds ({bounds}): what ttnn's pad kernel writes for it is "
                            "not known to meshspec, which stops here rather than guess")
    return int(value) if np.issubdtype(target, np.integer) else float(value)


def _slice_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    rank = len(shape)
    d = rng.randrange(rank)
    starts, ends = [0] * rank, list(shape)
    if shape[d] > 1:
        if rng.random() < 0.5:
            ends[d] = rng.randint(1, shape[d] - 1)
        else:
            starts[d] = rng.randint(1, shape[d] - 1)
    st.devices[name] = [e - b for b, e in zip(starts, ends)]
    return {op: {"tensor": dev, "starts": starts, "ends": ends, "as": name}}


def _concat_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    rank = len(shape)
    d = rng.randrange(rank)
    others = [o for o, s in st.devices.items() if o != name and len(s) == rank and st.kinds.get(o, DEFAULT_KIND) == kind
              and all(s[i] == shape[i] for i in range(rank) if i != d)]
    other = rng.choice(others) if others else dev
    st.devices[name] = [*shape[:d], shape[d] + st.devices[other][d], *shape[d + 1:]]
    return {op: {"tensors": [dev, other], "dim": d, "as": name}}


def _pad_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """Back padding of the last dim (TILE refuses front padding on device)."""
    n = rng.choice([0, 1, 15, 32])
    st.devices[name] = shape[:-1] + [shape[-1] + n]
    return {op: {"tensor": dev, "padding": [[0, n]], "value": 0.0, "as": name}}


def _pad_host(rng, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    """Back padding of the last dim of a TILE tensor's shards: each comes back as it was."""
    return shape, kind, {"padding": [[0, rng.choice([0, 1, 15, 32])]], "value": 0.0}


def _export_slice(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.slice({ctx.var(a.tensor)}, {list(a.starts)}, {list(a.ends)}"
        + (f", {list(a.steps)})" if a.steps else ")")]


def _export_concat(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.concat({ex.tensors_code(a.tensors, ctx)}, {a.dim})"]


def _export_pad(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.pad({ctx.var(a.tensor)}, {[tuple(p) for p in a.padding]}, {ex.number(float(a.value))})"]


_OUT = Use("as_", TensorKind.DEVICE)
OPS = (
    Op("slice", Slice, slice_, "Cut each device's tensor (starts, ends, steps per dim); the input's label. The whole tensor: the input itself.",
       "ttnn.slice(tensor, starts, ends, steps=None)", uses=(Use("tensor", TensorKind.DEVICE),), binds=_OUT, generate=on_device(_slice_step), export=_export_slice),
    Op("concat", Concat, concat, "Join each device's tensors along dim; the union of their labels. One tensor: that tensor itself.",
       "ttnn.concat(tensors, dim)", uses=(Use("tensors", TensorKind.DEVICE, many=True),), binds=_OUT, generate=on_device(_concat_step), export=_export_concat),
    Op("pad", Pad, pad, "Pad each device's tensor ([front, back] per dim, the last dims when fewer); the input's label. No padding: the input. "
       "A TILE host tensor: its shards as they were (section 18).",
       "ttnn.pad(tensor, padding, value)", uses=(Use("tensor", TensorKind.ANY),), binds=Use("as_", TensorKind.ANY), follows="tensor", generate=host_or_device(_pad_host, _pad_step, fits=is_tile), export=_export_pad),
)
