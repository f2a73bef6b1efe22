"""``ttnn.from_torch(t, dtype, layout, mesh_mapper=...)``: a host tensor, distributed by a mapper.

The mapper's distribution is :func:`~meshspec.sim.mapping.distribute` under the era's mapper rules
(docs/semantics.md section 4). Without a mapper the result is one plain host tensor, which a copy
replicates to every device. Block floats are quantized shard by shard, as ttnn does.
"""

from typing import Optional

import numpy as np
from ..mapping import Distribution, distribute, single
from ..mesh import Shape, fmt_shape, volume
from ..meshdevice import MeshDevice
from ..runtime import Runtime
from ..spec import DataType
from ..tensor import HostShard, HostTensor
from ..values import ShapeOnly, generate, host_dtype, load_npy, quantize_block_float
from .base import Op, TensorKind, Use
from .fields import As, Data, FillData, Mapper, MeshName, RandomData, TensorFields
from .mappers import MapperChoice, mapper_choice
from .to_torch import check_offset


class FromTorch(TensorFields):
    """``ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=..., device=..., memory_config=...)``."""

    as_: As
    data: Data = "arange"
    mesh_mapper: Optional[Mapper] = None
    device: Optional[MeshName] = None
    """A mesh device: the tensor goes on it (to_device with ``memory_config``, DRAM without one)."""


def run(rt: Runtime, a: FromTorch) -> None:
    choice = mapper_choice(a.mesh_mapper, lambda m: rt.mesh(m).num_devices) if a.mesh_mapper is not None else None
    mesh = rt.mesh(choice.mesh if choice is not None and choice.mesh else a.device)
    host = make_host(rt, a, a.as_, choice, mesh)
    if a.device is None:
        rt.bind(a.as_, host)
        return
    # ttnn.from_torch(device=) is the host tensor, then to_device (ttnn/operations/core.py from_torch,
    # ttnn.Tensor(..., device, mem_config)); in the mock the conversion runs a kernel and fails, so
    # tests/golden records distribute_tensor(host, mapper, mesh_device), which places the same shards.
    from .to_device import put

    put(rt, host, a.as_, a.placement, rt.mesh(a.device))


def make_host(rt: Runtime, a: TensorFields, name: str, choice: Optional[MapperChoice], mesh: MeshDevice) -> HostTensor:
    """The host tensor ``a`` describes (values from ``a.data``), distributed by ``choice`` over ``mesh``."""
    shape = tuple(a.shape)
    dtype = DataType(a.dtype)
    itemsize = 4 if dtype.is_block_float else host_dtype(dtype).itemsize
    if rt.with_data:
        # the values, plus up to one more copy of them as shards (replicas are views, or share one
        # quantized block), plus for block floats one more for a shard's quantizing (its padding and
        # output; encoding itself works in small chunks, values.GROUPS_AT_A_TIME)
        copies = 3 if dtype.is_block_float else 2
        rt.reserve(copies * volume(shape) * itemsize, lambda: f"host tensor {name} {fmt_shape(shape)} {dtype}")
        values = _values(rt, a, shape, dtype)
    else:
        values = ShapeOnly(shape, host_dtype(dtype))
    return distribute_values(rt, name, values, shape, dtype, lambda s: a.spec(rt.arch, s), choice, mesh)


def distribute_values(rt: Runtime, name: str, values, shape: Shape, dtype: DataType, spec_of, choice, mesh: MeshDevice) -> HostTensor:
    """A host tensor of ``values`` (``shape``) distributed by ``choice`` over ``mesh``; ``spec_of``
    gives a shard shape's spec. Without a mapper, one plain shard."""
    dist, plain = distribution(rt, shape, choice, mesh)
    charge = rt.charge_records(len(dist.slots), f"host tensor {name}'s shards")  # before they are made
    shards = {}
    specs: dict = {}  # shard shape -> spec (a mapper's shards mostly share one)
    quantize = dtype.is_block_float and rt.with_data  # ttnn quantizes each shard on its own
    quantized: dict = {}  # the same block (replicas) quantizes to the same values: once, shared
    for slot, index in zip(dist.slots, dist.slices()):
        v = values[index]
        if quantize:
            key = tuple((s.start, s.stop, s.step) for s in index)
            q = quantized.get(key)
            if q is None:
                q = quantized[key] = quantize_block_float(v, dtype)
            v = q
        spec = specs.get(slot.shape)
        if spec is None:
            spec = specs[slot.shape] = spec_of(slot.shape)
        shards[slot.coord] = HostShard(slot.coord, spec, v, slot.offset)
    first = next(iter(shards.values()))
    source = values if rt.with_data else None
    host = HostTensor(
        name, rt.step, first.spec, dist.topology, shards, plain=plain, source_values=source, shape=shape,
        buffer_shape=(1, 1) if plain else mesh.shape, mapper=choice,
    )
    rt.hold(host, charge)
    return host


def distribution(rt: Runtime, shape: Shape, choice: Optional[MapperChoice], mesh: MeshDevice) -> tuple[Distribution, bool]:
    """Where the mapper ``choice`` puts a tensor of ``shape`` on ``mesh``, and whether it is a
    plain (unmapped) tensor."""
    if choice is None:
        return single(mesh.shape, shape), True
    check_offset(rt, choice.offset)
    return distribute(shape, mesh.shape, choice.placements, choice.override, rt.profile.mapper, choice.offset), False


def _values(rt: Runtime, a: TensorFields, shape: Shape, dtype: DataType) -> np.ndarray:
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
    uses=(Use("device", TensorKind.MESH),),
    binds=Use("as_", TensorKind.HOST),
    kind_of=lambda a: TensorKind.DEVICE if a.device is not None else TensorKind.HOST,
    hints=(
        ("tensor", "write the values with `data:` (arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy})"),
    ),
)
