"""``ttnn.from_torch(t, dtype, layout, mesh_mapper=...)``: a host tensor, distributed by a mapper.

The mapper's distribution is :func:`~meshspec.sim.mapping.distribute` under the era's mapper rules
(docs/semantics.md section 4). Without a mapper the result is one plain host tensor, which a copy
replicates to every device. Block floats are quantized shard by shard, as ttnn does.
"""

from typing import Optional

import numpy as np
from ..mapping import Distribution, distribute, single
from ..mesh import Shape, fmt_shape, volume
from ..placement import Replicate, Shard
from ..runtime import Runtime
from ..spec import DataType
from ..tensor import HostShard, HostTensor
from ..values import ShapeOnly, generate, host_dtype, load_npy, quantize_block_float
from .base import Op, TensorKind, Use
from .fields import As, Data, FillData, Mapper, Name, RandomData, ShardPlacement, TensorFields


class FromTorch(TensorFields):
    """``ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)``: a host tensor."""

    as_: As
    data: Data = "arange"
    mesh_mapper: Optional[Mapper] = None


def run(rt: Runtime, a: FromTorch) -> None:
    shape = tuple(a.shape)
    dtype = DataType(a.dtype)
    itemsize = 4 if dtype.is_block_float else host_dtype(dtype).itemsize
    dist, plain = distribution(rt, shape, a.mesh_mapper)
    if rt.with_data:
        # the values, plus up to one more copy of them as shards (replicas are views)
        rt.reserve(2 * volume(shape) * itemsize, f"host tensor {a.as_} {fmt_shape(shape)} {dtype}")
        values = _values(rt, a, shape, dtype)
    else:
        values = ShapeOnly(shape, host_dtype(dtype))
    shards = {}
    specs: dict = {}  # shard shape -> spec (a mapper's shards mostly share one)
    for slot in dist.slots:
        v = values[slot.slices()]
        if dtype.is_block_float and rt.with_data:  # ttnn quantizes each shard on its own
            v = quantize_block_float(v, dtype)
        spec = specs.get(slot.shape)
        if spec is None:
            spec = specs[slot.shape] = a.spec(rt.arch, slot.shape)
        shards[slot.coord] = HostShard(slot.coord, spec, v, slot.offset)
    first = next(iter(shards.values()))
    source = values if rt.with_data else None
    rt.bind(a.as_, HostTensor(a.as_, rt.step, first.spec, dist.topology, shards, plain=plain, source_values=source, shape=shape))


def distribution(rt: Runtime, shape: Shape, mapper) -> tuple[Distribution, bool]:
    """Where ``mapper`` puts a tensor of ``shape``, and whether it is a plain (unmapped) tensor."""
    n = volume(rt.mesh_shape)
    rules = rt.profile.mapper
    if mapper is None:
        return single(rt.mesh_shape, shape), True
    if mapper == "replicate":
        return distribute(shape, rt.mesh_shape, (Replicate(),), (n,), rules), False
    if isinstance(mapper, ShardPlacement):
        return distribute(shape, rt.mesh_shape, (Shard(mapper.shard),), (n,), rules), False
    placements = tuple(Replicate() if p == "replicate" else Shard(p.shard) for p in mapper.placements)
    override = tuple(mapper.mesh_shape) if mapper.mesh_shape is not None else None
    return distribute(shape, rt.mesh_shape, placements, override, rules), False


def _values(rt: Runtime, a: FromTorch, shape: Shape, dtype: DataType) -> np.ndarray:
    # Block floats are kept unquantized here and quantized per shard, as ttnn does.
    base = DataType.FLOAT32 if dtype.is_block_float else dtype
    data = a.data
    if isinstance(data, str):
        return generate(data, shape, base)
    if isinstance(data, FillData):
        return generate("fill", shape, base, data.fill)
    if isinstance(data, RandomData):
        return generate("random", shape, base, data.random)
    return load_npy(rt.files.get(data.file, rt.folder / data.file), base, rt.reserve, data.file)


OP = Op(
    "from_torch",
    FromTorch,
    run,
    "Make a host tensor from generated or file data, distributed over the mesh by a mesh mapper.",
    "ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)",
    binds=Use("as_", TensorKind.HOST),
    hints=(
        ("device", "from_torch here makes the host tensor; put it on the mesh with a to_device step after it "
                   "(ttnn.from_torch(..., device=mesh) is from_torch, then to_device)"),
        ("tensor", "write the values with `data:` (arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy})"),
    ),
)
