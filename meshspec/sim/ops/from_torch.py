"""``ttnn.from_torch(t, dtype, layout, mesh_mapper=...)``: a host tensor, distributed by a mapper.

The mapper's distribution is :func:`~meshspec.sim.mapping.distribute` under the era's mapper rules
(docs/semantics.md section 4). Without a mapper the result is one plain host tensor, which a copy
replicates to every device. Block floats are quantized shard by shard, as ttnn does.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
from pydantic import Field

from ...errors import StepInputError
from ..mapping import Distribution, distribute, single
from ..mesh import Shape, fmt_shape, volume
from ..placement import Replicate, Shard
from ..runtime import Runtime
from ..spec import DataType
from ..tensor import HostShard, HostTensor
from ..values import CHUNK, ShapeOnly, generate, host_dtype, load_npy, quantize_block_float
from .base import Op, TensorKind, Use
from .fields import Data, FillData, Mapper, Name, RandomData, ShardPlacement, TensorFields


class FromTorch(TensorFields):
    """``ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)``: a host tensor."""

    as_: Name = Field(alias="as")
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
    for slot in dist.slots:
        v = values[slot.slices()]
        if dtype.is_block_float and rt.with_data:  # ttnn quantizes each shard on its own
            v = quantize_block_float(v, dtype)
        shards[slot.coord] = HostShard(slot.coord, a.spec(rt.arch, slot.shape), v, slot.offset)
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
        if np.issubdtype(host_dtype(base), np.integer) and not np.isfinite(data.fill):
            raise StepInputError(f"fill value {data.fill} cannot be held by {base}")
        return generate("fill", shape, base, data.fill)
    if isinstance(data, RandomData):
        return generate("random", shape, base, data.random)
    path = rt.files.get(data.file, rt.folder / data.file)
    if np.issubdtype(host_dtype(base), np.integer) and _has_non_finite(path):
        raise StepInputError(f"data file {data.file!r} holds NaN or infinite values, which {base} cannot hold")
    return load_npy(path, base, rt.reserve)


def _has_non_finite(path) -> bool:
    arr = np.load(path, mmap_mode="r", allow_pickle=False)
    if arr.dtype.kind != "f":
        return False
    flat = arr.reshape(-1)
    return any(not np.isfinite(flat[i : i + CHUNK]).all() for i in range(0, flat.size, CHUNK))


OP = Op(
    "from_torch",
    FromTorch,
    run,
    "Make a host tensor from generated or file data, distributed over the mesh by a mesh mapper.",
    "ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)",
    binds=Use("as_", TensorKind.HOST),
)
