"""Per-device compute and conversions on device mesh tensors (docs/semantics.md section 12):
unary ``neg``, ``exp``, ``relu``, ``gelu``; binary ``add``, ``sub``, ``mul`` (numpy broadcasting,
device by device); ``sum`` / ``max`` over a dim; ``transpose``; ``typecast``, ``to_layout``,
``clone``, ``to_memory_config``, ``reallocate``.

Each device's output is computed from what that device holds, in float32 and rounded to the
output's dtype (exact kernels are not the point; records are). The output's topology is the era's
:class:`~meshspec.sim.profiles.OpTopology`: the default imputation's union of the inputs' labels
(ttnn/core/device_operation_detail.cpp, PR #29899: sharded on an axis if any input is, the
inputs of the largest distribution rank, in input order), or the data's distribution (the
reference). A reduction over the dim a tensor is sharded on leaves each device a partial result,
which no label describes: no finding is made for it either way.
"""

from __future__ import annotations

import math
from typing import Annotated, Optional

import numpy as np

from ...errors import ResourceLimit, TTFatal
from ..events import Retired
from ...typed import Range, Typed
from ..placement import Partial, Placement, Replicate, Shard, Topology, as_label, has_partial
from ..profiles import OpTopology
from ..runtime import Runtime
from ..mesh import Shape
from ..sharding import narrowed, transposed
from ..spec import BufferType, DataType, Layout, TensorSpec, make_spec
from ..dims import dim_index, normal_dim
from ..imputation import renumber_permute, union
from .. import host_transform
from ..tensor import HostTensor
from ..values import to_dtype
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, Step, host_or_device, matmul_pairs, new_dtype, on_device, same
from .fields import As, MemoryConfig, Name, memory_of
from .output import alias, each_device, emit, per_device, read, shard, unclaimed_label, workload


class Unary(Typed):
    """``ttnn.<op>(tensor)``: a unary op, clone or reallocate."""

    tensor: Name
    as_: As


class Binary(Typed):
    """``ttnn.<op>(a, b)``."""

    a: Name
    b: Name
    as_: As


class Reduction(Typed):
    """``ttnn.sum`` / ``ttnn.max(tensor, dim, keepdim=True)``."""

    tensor: Name
    dim: Annotated[int, Range(ge=-8, le=7)]
    keepdim: bool = True
    as_: As


class Transpose(Typed):
    """``ttnn.transpose(tensor, dim0, dim1)``."""

    tensor: Name
    dim0: Annotated[int, Range(ge=-8, le=7)]
    dim1: Annotated[int, Range(ge=-8, le=7)]
    as_: As


class Typecast(Typed):
    """``ttnn.typecast(tensor, dtype)``."""

    tensor: Name
    dtype: DataType
    as_: As


class ToLayout(Typed):
    """``ttnn.to_layout(tensor, layout)``."""

    tensor: Name
    layout: Layout
    as_: As


class ToMemoryConfig(Typed):
    """``ttnn.to_memory_config(tensor, memory_config)``."""

    tensor: Name
    memory_config: MemoryConfig
    as_: As


def _gelu(v: np.ndarray) -> np.ndarray:
    x = v.astype(np.float32)
    return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))


UNARY = {"neg": np.negative, "exp": np.exp, "relu": lambda v: np.maximum(v, 0), "gelu": _gelu}
BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply}


def _rounded(values: np.ndarray, dtype: DataType) -> np.ndarray:
    with np.errstate(all="ignore"):
        return to_dtype(np.asarray(values, dtype=np.float64), dtype)


def _unary(fn, linear: bool):
    def run(rt: Runtime, a: Unary) -> None:
        dtype = rt.device(a.tensor).record.spec.dtype
        with np.errstate(all="ignore"):
            per_device(rt, a, a.as_, lambda v: _rounded(fn(v.astype(np.float32)), dtype), lambda s: s, lambda p, r: p, linear=linear)

    return run


def _binary_layout(truths: list[Optional[Topology]], linear: bool, devices: tuple) -> Optional[Topology]:
    """How a binary op's output data is laid over the mesh, ``devices`` the ones it runs on: each
    device combines what the inputs hold there, so a replicated input changes nothing and the
    output is laid out as its sharded inputs are, when they agree (the first input's layout when
    none is sharded); inputs laid out differently, or a layout on other devices than the op ran on,
    leave data no layout describes (None). Partial sums stay partial only when added to (or
    subtracted from) partial sums laid out the same way.

    >>> row = Topology((4,), (Shard(3),), ((0, 0), (0, 1), (0, 2), (0, 3)))
    >>> everywhere = Topology((8,), (Replicate(),), tuple((r, c) for r in range(2) for c in range(4)))
    >>> _binary_layout([everywhere, row], True, row.coords) == row, _binary_layout([everywhere, row], True, everywhere.coords)
    (True, None)
    """
    if any(t is None for t in truths):
        return None
    if any(has_partial(t) for t in truths):
        return truths[0] if linear and all(t == truths[0] for t in truths) else None
    sharded = [t for t in truths if any(isinstance(p, Shard) for p in t.placements)]
    chosen = truths[0] if not sharded else sharded[0] if all(t == sharded[0] for t in sharded) else None
    return chosen if chosen is not None and set(chosen.coords) == set(devices) else None


def broadcast(sa: Shape, sb: Shape, what: str) -> Shape:
    """The shape two operands of a binary op broadcast to, or ttnn 0.81.1's refusal (binary_ng,
    ``binary_ng_device_operation.cpp``:246 and :455; golden views ``add_*``): the last two dims (the
    tiles) first, then the outer dims from the innermost out. ``what`` names the operands.

    >>> broadcast((1, 2, 32, 32), (1, 1, 32, 32), "a and b")
    (1, 2, 32, 32)
    """
    rank = max(len(sa), len(sb))
    a, b = (1,) * (rank - len(sa)) + tuple(sa), (1,) * (rank - len(sb)) + tuple(sb)
    bad = [i for i in range(-1, -rank - 1, -1) if a[i] != b[i] and 1 not in (a[i], b[i])]
    if any(i >= -2 for i in bad):
        raise TTFatal(f"Invalid subtile broadcast type ({what}: their last two dims, the tiles, do not broadcast)")
    if bad:
        i = bad[0]
        raise TTFatal(f"Broadcasting rule violation at dimension index {i} (output rank {rank}), dim a: {a[i]}, dim b: {b[i]} ({what} do not broadcast)")
    return tuple(max(x, y) for x, y in zip(a, b))


def _binary(fn, linear: bool):
    def run(rt: Runtime, a: Binary) -> None:
        x, y = rt.device(a.a), rt.device(a.b)
        labels = [x.record.topology, y.record.topology]
        truths = [t.layout() for t in (x, y)]
        shape = broadcast(tuple(x.record.spec.shape), tuple(y.record.spec.shape), f"{a.a} {list(x.record.spec.shape)} and {a.b} {list(y.record.spec.shape)}")
        s = x.record.spec
        out_spec = s.with_shape(shape)
        devices = workload([x, y])
        truth = _binary_layout(truths, linear, devices)
        exact = rt.profile.op_topology is OpTopology.EXACT
        label = (as_label(truth) if truth is not None else unclaimed_label(labels, devices)) if exact else union(labels)
        shards, reads = {}, {}
        for c in devices:
            if x.record.specs.get(c) is None and y.record.specs.get(c) is None:
                continue
            # every device of the workload read as its tensor's spec (the op's output spec is one,
            # from them), whatever the other input records there: inputs on disjoint devices read
            # the other's never-written memory (ttnn only asserts they overlap in debug builds)
            (vx, rx), (vy, ry) = read(rt, x, a.a, c, x.record.spec), read(rt, y, a.b, c, y.record.spec)
            values = None
            if vx is not None and vy is not None:
                with np.errstate(all="ignore"):
                    values = _rounded(fn(vx.astype(np.float32), vy.astype(np.float32)), s.dtype)
            shards[c] = shard(c, out_spec, values, rt)
            reads[c] = (rx, ry)
        emit(rt, a.as_, rt.mesh_of(x), out_spec, label, shards, reads, claims=True, layout=truth)

    return run


class Matmul(Typed):
    """``ttnn.matmul(a, b)`` / ``ttnn.linear(a, b, bias=None)``."""

    a: Name
    b: Name
    bias: Optional[Name] = None
    as_: As


def matmul(rt: Runtime, a: Matmul) -> None:
    """Each device multiplies what it holds. The label is the default imputation's union of the
    inputs' (raw dims, #35362); the data's distribution has no label where the contracted dim is
    sharded (each device holds a partial sum): then the reference labels only the output's own
    shard dims, and no truth is claimed."""
    x, y = rt.device(a.a), rt.device(a.b)
    b = rt.device(a.bias) if a.bias is not None else None
    sx, sy = tuple(x.record.spec.shape), tuple(y.record.spec.shape)
    if len(sx) < 2 or len(sy) < 2:  # 0.81.1 fails its program config (per_core_M > 0) on a 1-D operand
        low = a.a if len(sx) < 2 else a.b
        raise TTFatal(f"{rt.op}: {low} {list(sx if len(sx) < 2 else sy)} is rank 1; ttnn 0.81.1 refuses a 1-D operand "
                      "(its program config: per_core_M > 0); unsqueeze it to rank 2 first")
    try:
        shape = tuple(np.broadcast_shapes(sx[:-2], sy[:-2])) + (sx[-2], sy[-1]) if sx[-1] == sy[-2] else None
    except ValueError:
        shape = None
    if shape is None:
        raise TTFatal(f"The width of the first tensor must be equal to the height of the second tensor ({sx[-1]} != {sy[-2]})")
    if b is not None:
        try:
            fits = np.broadcast_shapes(tuple(b.record.spec.shape), shape) == shape
        except ValueError:
            fits = False
        if not fits:  # 0.81.1 checks nothing on the host (mock); what its kernel does is not known
            raise ResourceLimit(f"{rt.op}: bias {a.bias} {list(b.record.spec.shape)} does not broadcast to the output {list(shape)}; "
                                "ttnn 0.81.1 does not check it on the host, and what its kernel then computes is not known to "
                                "meshspec, which stops here rather than guess")
    s = x.record.spec
    # memory_config=None gives ttnn.DRAM_MEMORY_CONFIG (ttnn.linear's docstring, 0.81.1; observed for
    # matmul: tests/golden sharded op_outputs), whatever the inputs' memory
    out_spec = make_spec(shape, s.dtype, s.layout, s.tile, BufferType.DRAM, s.arch)
    labels = [x.record.topology, y.record.topology]
    lx, ly = x.layout(), y.layout()
    layout = _matmul_layout(lx, ly, len(sx), len(sy)) if lx is not None and ly is not None and not (has_partial(lx) or has_partial(ly)) else None
    devices = workload([x, y] + ([b] if b is not None else []))
    if layout is not None and set(layout.coords) != set(devices):
        layout = None  # the data is on other devices than the layout says: no layout describes it
    exact = rt.profile.op_topology is OpTopology.EXACT
    label = (as_label(layout) if layout is not None else unclaimed_label(labels, devices)) if exact else union(labels)
    shards, reads = {}, {}
    for c in devices:
        if x.record.specs.get(c) is None and y.record.specs.get(c) is None:
            continue
        (vx, rx), (vy, ry) = read(rt, x, a.a, c, x.record.spec), read(rt, y, a.b, c, y.record.spec)
        got = (rx, ry)
        vb = None
        if b is not None and b.record.specs.get(c) is not None:
            vb, rb = read(rt, b, a.bias, c, b.record.spec)
            got += (rb,)
        values = None
        if vx is not None and vy is not None:
            with np.errstate(all="ignore"):
                prod = np.matmul(vx.astype(np.float32), vy.astype(np.float32))
                values = _rounded(prod + vb.astype(np.float32) if vb is not None else prod, s.dtype)
        shards[c] = shard(c, out_spec, values, rt)
        reads[c] = got
    if a.bias is not None and layout is not None and has_partial(layout):
        layout = None  # each device adds the bias to its partial sum: summed, the bias counts once per device
    emit(rt, a.as_, rt.mesh_of(x), out_spec, label, shards, reads, claims=True, layout=layout)


def _matmul_layout(tx: Topology, ty: Topology, rx: int, ry: int) -> Topology:
    """How a matmul's output is laid over the mesh, axis by axis: partial sums
    (:class:`~meshspec.sim.placement.Partial`) where the contracted dim is split.

    >>> x = Topology((2, 4), (Replicate(), Shard(3)), ())
    >>> w = Topology((2, 4), (Shard(-1), Shard(-2)), ())
    >>> _matmul_layout(x, w, 4, 4).placements
    (Shard(dim=3), Partial())
    """
    if len(tx.distribution_shape) != len(ty.distribution_shape):
        return union([tx, ty], rx)
    out: list = []
    for px, py in zip(tx.placements, ty.placements):
        dx = px.dim % rx if isinstance(px, Shard) else None
        dy = py.dim % ry if isinstance(py, Shard) else None
        if dx == rx - 1 or dy == ry - 2:
            out.append(Partial())  # the contracted dim split over this axis
        elif dx is not None:
            out.append(Shard(dx))  # a batch or row dim of x
        elif dy is not None:
            out.append(Shard(rx - 1 if dy == ry - 1 else dy))  # y's columns are the output's last dim
        else:
            out.append(Replicate())
    return Topology(tx.distribution_shape, tuple(out), tx.coords)


def _reduce(fn, summed: bool):
    def run(rt: Runtime, a: Reduction) -> None:
        rec = rt.device(a.tensor).record
        rank = len(rec.spec.shape)
        dim = normal_dim(a.dim, rank)
        if dim is None:
            raise TTFatal(f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {a.dim})")
        dtype = rec.spec.dtype
        if rank == 1 and not a.keepdim:
            raise TTFatal(f"{rt.op} over dim {a.dim} of a rank-1 tensor without keepdim leaves a rank-0 tensor, which meshspec does not "
                          "simulate (ttnn 0.81.1 accepts it, then builds a kernel); use keepdim: true")
        shape_of = (lambda s: s[:dim] + (1,) + s[dim + 1 :]) if a.keepdim else (lambda s: s[:dim] + s[dim + 1 :])

        def placements(p: tuple[Placement, ...], r: int) -> Optional[tuple[Placement, ...]]:
            def one(q):
                if not isinstance(q, Shard):
                    return q
                d = dim_index(q.dim, r)
                if d == dim:  # each device reduced its own part: a partial sum (a partial max is no layout)
                    return Partial() if summed else None
                return Shard(d - (d > dim and not a.keepdim))

            out = tuple(one(q) for q in p)
            return None if any(q is None for q in out) else out

        def respec(spec: TensorSpec, shape: tuple) -> TensorSpec:  # over the last dim, a height-sharded tensor stays so
            narrow = narrowed(spec.shard, spec.with_shape(shape).padded_shape[-1]) if spec.shard is not None and dim == rank - 1 else None
            return spec.with_shard(shape, narrow) if narrow is not None else spec.with_shape(shape)

        with np.errstate(all="ignore"):
            per_device(rt, a, a.as_, lambda v: _rounded(fn(v.astype(np.float32), axis=dim, keepdims=a.keepdim), dtype), shape_of, placements,
                       linear=summed, respec=respec)

    return run


def transpose(rt: Runtime, a: Transpose) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    d0, d1 = (normal_dim(d, rank) for d in (a.dim0, a.dim1))
    for d, given in ((d0, a.dim0), (d1, a.dim1)):  # Shape::get_normalized_index (tt_metal/common/shape.cpp:56), a size_t: -1 prints as 2**64 - 1
        if d is None:
            raise TTFatal(f"Index is out of bounds for the rank, should be between 0 and {rank - 1} however is {dim_index(given, rank) % 2**64} "
                          f"(transpose of a rank-{rank} tensor: dim0 {a.dim0}, dim1 {a.dim1})")
    order = list(range(rank))
    order[d0], order[d1] = order[d1], order[d0]

    def respec(spec: TensorSpec, shape: tuple) -> TensorSpec:  # the last two dims swapped: a shard spec turns
        turned = transposed(spec.shard) if spec.shard is not None and {d0, d1} == {rank - 2, rank - 1} else None
        return spec.with_shard(shape, turned) if turned is not None else spec.with_shape(shape)

    per_device(rt, a, a.as_, lambda v: np.ascontiguousarray(np.transpose(v, order)), lambda s: tuple(s[i] for i in order),
               lambda p, r: renumber_permute(p, tuple(order)), respec=respec)


def _converted(rt: Runtime, a, dtype=None, layout=None, memory=None) -> None:
    """A copy of each device's data in another dtype, layout or memory config (its label kept)."""
    src = rt.device(a.tensor)
    rec = src.record
    s = rec.spec
    buffer, kept = memory if memory is not None else (s.memory, s.shard)
    out_spec = make_spec(s.shape, dtype or s.dtype, layout or s.layout, s.tile, buffer, s.arch, kept)
    made = src.provenance
    shards, reads = {}, {}
    for c, _, held, r in each_device(rt, src, a.tensor):
        shards[c] = shard(c, out_spec, _rounded(held, out_spec.dtype) if held is not None else None, rt)
        reads[c] = (r,)
    claims = made is not None and made.claims  # the input's lie carried over
    emit(rt, a.as_, rt.mesh_of(src), out_spec, rec.topology, shards, reads, claims=claims, layout=made.layout if claims else None)


def typecast(rt: Runtime, a: Typecast) -> None:
    """On device, each device's data in the dtype; a host tensor's shards converted on the host,
    as ``ttnn.to_dtype`` does them (docs/semantics.md section 18)."""
    t = rt.item(a.tensor)
    if isinstance(t, HostTensor):
        rt.bind(a.as_, host_transform.to_dtype(rt.profile.host_shard_ops, rt.op, a.tensor, t, a.as_, rt.step, DataType(a.dtype),
                                                rt.profile.row_major_tilize))
        return
    _converted(rt, a, dtype=a.dtype)


def to_layout(rt: Runtime, a: ToLayout) -> None:
    """A copy in the other layout; to the layout it has, the input itself (the same tensor and
    address, observed: tests/golden views). A host tensor's shards are tilized or untilized on
    the host, shard by shard, the topology kept (section 18)."""
    t = rt.item(a.tensor)
    if isinstance(t, HostTensor):
        rt.bind(a.as_, host_transform.to_layout(rt.profile.host_shard_ops, rt.op, a.tensor, t, a.as_, rt.step, Layout(a.layout)))
        return
    src = rt.device(a.tensor)
    if src.record.spec.layout == Layout(a.layout):
        rt.bind(a.as_, alias(src, a.as_))
        return
    _converted(rt, a, layout=a.layout)


def _tilize(to: Layout, refusal: str):
    def run(rt: Runtime, a: Unary) -> None:
        if rt.device(a.tensor).record.spec.layout == to:
            raise TTFatal(refusal)
        _converted(rt, a, layout=to)

    return run


def clone(rt: Runtime, a: Unary) -> None:
    _converted(rt, a)


def reallocate(rt: Runtime, a: Unary) -> None:
    """``ttnn.reallocate``: the input is deallocated and a new buffer allocated (the lowest free
    place: where the input was, if nothing lower is free), the data copied into it. When another
    handle (a view, a second tensor on its storage) holds its buffer, the input itself comes back,
    its address, topology and coords as they were, both handles allocated (observed in the mock:
    tests/golden sharded op_outputs reallocate_shared_seven). Its topology
    is a fresh allocation's, the mesh's shape with Replicate on each axis: the input's label is lost
    (ttnn 0.81.1, observed in the mock for a tensor already lowest: tests/golden views; a move
    lower needs a kernel the mock cannot run). The reference keeps the data's distribution."""
    src = rt.device(a.tensor)
    if rt.shares_buffer(src):  # another handle holds its buffer: the tensor as it is, both still allocated (observed in the mock)
        rt.bind(a.as_, alias(src, a.as_))
        return
    rec = src.record
    mesh = rt.mesh_of(src)
    held = {c: (spec_c, values, r) for c, spec_c, values, r in each_device(rt, src, a.tensor)}  # read before the input is freed
    real = src.layout()
    if a.as_ != a.tensor:  # its lies are kept as they stood, as a deallocate keeps them (a rebound name retires itself)
        rt.events.append(Retired(rt.step, a.tensor, src, f"step {rt.step} reallocated it into {a.as_}"))
    rt.free(src)
    exact = rt.profile.op_topology is OpTopology.EXACT
    label = (as_label(real) if real is not None else rec.topology) if exact else None  # None: the allocation's own
    emit(rt, a.as_, mesh, rec.spec, label, {c: shard(c, s, v, rt) for c, (s, v, _) in held.items()},
         {c: (r,) for c, (_, _, r) in held.items()}, claims=True, layout=real)


def to_memory_config(rt: Runtime, a: ToMemoryConfig) -> None:
    _converted(rt, a, memory=memory_of(a.memory_config))


_IN = (Use("tensor", TensorKind.DEVICE),)
_OUT = Use("as_", TensorKind.DEVICE)
_ANY_IN = (Use("tensor", TensorKind.ANY),)  # a host tensor too: the op then runs on the host, shard by shard (section 18)
_ANY_OUT = Use("as_", TensorKind.ANY)

def _binary_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    other = rng.choice([d for d in st.devices if d != name])
    st.devices[name] = list(shape)
    return {op: {"a": dev, "b": other, "as": name}}


def _matmul_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """b's rows as long as a's last dim; linear with a bias now and then."""
    pairs = matmul_pairs(st, name)
    if not pairs:
        return None
    dev, b = rng.choice(pairs)
    shape, rank = st.devices[dev], len(st.devices[dev])
    st.kinds[name] = st.kinds.get(dev, DEFAULT_KIND)
    out = [*shape[:-1], st.devices[b][-1]]
    st.devices[name] = out
    args = {"a": dev, "b": b}
    if op == "linear":
        bias = [o for o, s in st.devices.items() if o not in (name, dev, b) and len(s) == rank and s[-1] == out[-1]]
        if bias and rng.random() < 0.7:
            args["bias"] = rng.choice(bias)
    return {op: {**args, "as": name}}


def _reduce_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    d = rng.randrange(len(shape))
    st.devices[name] = [1 if i == d else v for i, v in enumerate(shape)]
    return {op: {"tensor": dev, "dim": d, "as": name}}


def _transpose_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    d0, d1 = rng.choice([(-2, -1), (1, 2), (0, 1), (1, 3)]) if len(shape) == 4 else (-2, -1)
    out = list(shape)
    out[d0], out[d1] = out[d1], out[d0]
    st.devices[name] = out
    return {op: {"tensor": dev, "dim0": d0, "dim1": d1, "as": name}}


def _typecast_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    dtype = rng.choice(["bfloat16", "float32"] + (["bfloat8_b"] if kind[1] == "tile" else []))
    st.devices[name], st.kinds[name] = list(shape), (dtype, kind[1])
    return {op: {"tensor": dev, "dtype": dtype, "as": name}}


def _to_layout_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    layout = rng.choice(["tile", "row_major"])
    if kind[0].endswith("_b"):
        layout = "tile"
    st.devices[name], st.kinds[name] = list(shape), (kind[0], layout)
    return {op: {"tensor": dev, "layout": layout, "as": name}}


def _to_layout_host(rng, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    """A block float stays TILE."""
    layout = rng.choice(["tile", "row_major"])
    return shape, (kind[0], "tile" if kind[0].endswith("_b") else layout), {"layout": layout}


def _to_memory_config_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    st.devices[name] = list(shape)
    return {op: {"tensor": dev, "memory_config": rng.choice(["L1_MEMORY_CONFIG", "DRAM_MEMORY_CONFIG"]), "as": name}}


def _export_matmul(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.matmul({ctx.var(a.a)}, {ctx.var(a.b)})"]


def _export_linear(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.linear({ctx.var(a.a)}, {ctx.var(a.b)}"
        + (f", bias={ctx.var(a.bias)})" if a.bias else ")")]


def _export_reduction(name: str):
    """``out = ttnn.NAME(tensor, dim, keepdim=...)``."""
    return lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{name}({ctx.var(a.tensor)}, {a.dim}, keepdim={a.keepdim})"]


def _export_transpose(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.transpose({ctx.var(a.tensor)}, {a.dim0}, {a.dim1})"]


def _export_typecast(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.typecast({ctx.var(a.tensor)}, {ex.DTYPES[DataType(a.dtype)]})"]


def _export_to_layout(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.to_layout({ctx.var(a.tensor)}, {ex.LAYOUTS[Layout(a.layout)]})"]


def _export_to_memory_config(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.to_memory_config({ctx.var(a.tensor)}, {ex.memory_config_code(a.memory_config)})"]


OPS = (
    *(Op(name, Unary, _unary(fn, name == "neg"), f"ttnn.{name} on every device; the input's label.", f"ttnn.{name}(tensor)", uses=_IN,
         binds=_OUT, generate=on_device(same), export=ex.call_of_tensor(name))
      for name, fn in UNARY.items()),
    *(Op(name, Binary, _binary(fn, name != "mul"), f"ttnn.{name} device by device (numpy broadcasting); the union of the inputs' labels.",
         f"ttnn.{name}(a, b)", uses=(Use("a", TensorKind.DEVICE), Use("b", TensorKind.DEVICE)), binds=_OUT,
         generate=on_device(_binary_step), export=ex.call_of_two(name))
      for name, fn in BINARY.items()),
    Op("matmul", Matmul, matmul, "Each device multiplies what it holds; the union of the inputs' labels (issue #35362 on a 2-D mesh).",
       "ttnn.matmul(a, b)", uses=(Use("a", TensorKind.DEVICE), Use("b", TensorKind.DEVICE), Use("bias", TensorKind.DEVICE)), binds=_OUT, generate=on_device(_matmul_step), export=_export_matmul),
    Op("linear", Matmul, matmul, "ttnn.linear: a matmul and an optional bias, each device on what it holds; the union of the inputs' labels.",
       "ttnn.linear(a, b, bias=None)", uses=(Use("a", TensorKind.DEVICE), Use("b", TensorKind.DEVICE), Use("bias", TensorKind.DEVICE)),
       binds=_OUT, generate=on_device(_matmul_step), export=_export_linear),
    Op("sum", Reduction, _reduce(np.sum, True), "Sum over a dim on every device (a partial sum where the tensor is sharded on it).",
       "ttnn.sum(tensor, dim, keepdim=True)", uses=_IN, binds=_OUT, generate=on_device(_reduce_step), export=_export_reduction("sum")),
    Op("max", Reduction, _reduce(np.max, False), "Max over a dim on every device (a partial max where the tensor is sharded on it).",
       "ttnn.max(tensor, dim, keepdim=True)", uses=_IN, binds=_OUT, generate=on_device(_reduce_step), export=_export_reduction("max")),
    Op("transpose", Transpose, transpose, "Swap two dims on every device; the topology by the era's rule (0.81.1 keeps the placements).",
       "ttnn.transpose(tensor, dim0, dim1)", uses=_IN, binds=_OUT, generate=on_device(_transpose_step), export=_export_transpose),
    Op("typecast", Typecast, typecast, "Each device's data (or a host tensor's shards) in another dtype; the input's label.",
       "ttnn.typecast(tensor, dtype)", uses=_ANY_IN, binds=_ANY_OUT, follows="tensor", generate=host_or_device(new_dtype, _typecast_step), export=_export_typecast),
    Op("to_layout", ToLayout, to_layout, "Each device's data (or a host tensor's shards) in another layout (tilize / untilize); the input's label.",
       "ttnn.to_layout(tensor, layout)", uses=_ANY_IN, binds=_ANY_OUT, follows="tensor", generate=host_or_device(_to_layout_host, _to_layout_step), export=_export_to_layout),
    Op("tilize", Unary, _tilize(Layout.TILE, "Can only tilize row major data"), "A ROW_MAJOR tensor in TILE layout, on every device.",
       "ttnn.tilize(tensor)", uses=_IN, binds=_OUT, export=ex.call_of_tensor("tilize")),
    Op("untilize", Unary, _tilize(Layout.ROW_MAJOR, "Can only untilize tile major data"), "A TILE tensor in ROW_MAJOR layout, on every device.",
       "ttnn.untilize(tensor)", uses=_IN, binds=_OUT, export=ex.call_of_tensor("untilize")),
    Op("clone", Unary, clone, "A copy of each device's data in a new buffer; the input's label.", "ttnn.clone(tensor)", uses=_IN, binds=_OUT, generate=on_device(same), export=ex.call_of_tensor("clone")),
    Op("reallocate", Unary, reallocate, "The input freed and its data copied into a new buffer (the lowest free place); the label is a fresh allocation's, all Replicate.", "ttnn.reallocate(tensor)",
       uses=_IN, binds=_OUT, generate=on_device(same), export=ex.call_of_tensor("reallocate")),
    Op("to_memory_config", ToMemoryConfig, to_memory_config, "Each device's data in another memory config (interleaved <-> sharded).",
       "ttnn.to_memory_config(tensor, memory_config)", uses=_IN, binds=_OUT, generate=on_device(_to_memory_config_step), export=_export_to_memory_config),
)
