"""Host tensors made of others: ``ttnn.from_host_shards``, ``ttnn.distribute_tensor`` and
``ttnn.aggregate_tensor`` (docs/semantics.md section 9; ttnn 0.81.1, tests/golden ``api``).

- ``from_host_shards(tensors, mesh_shape)``: one single-buffer host tensor per coordinate of
  ``mesh_shape``, row-major; the topology is ``(n) [Shard(0)]`` on those coordinates, written as
  2-D coordinates even for a 1-D mesh shape (``(8)`` gives ``(0, 0) ... (0, 7)`` over a 1-D host
  buffer). Putting a 1-D one on a 2-D mesh kills the process in 0.81.1 (SIGABRT).
- ``distribute_tensor(tensor, mapper, mesh_device=None)``: a single-buffer host tensor, mapped;
  on the mesh device when given. Its records agree with what it places (unlike allocate + copy).
- ``aggregate_tensor(tensor, composer)``: the host tensor composed, a host tensor again.
"""

from __future__ import annotations

from typing import Annotated, Optional

from ...errors import TTFatal
from ...typed import Length, Typed
from ..mesh import coords, ttnn_shape
from ..placement import Replicate, Shard, Topology
from ..profiles import HostBorrow
from ..runtime import Runtime
from ..spec import make_spec
from ..tensor import DeviceTensor, HostShard, HostTensor
from .base import Op, TensorKind, Use
from . import exporting as ex
from .fields import As, Composer, Dim, Mapper, MeshName, Name, Names
from .transfer import check_api, compose_back, distribute_values, put


class FromHostShards(Typed):
    """``ttnn.from_host_shards(tensors, mesh_shape)``."""

    tensors: Names
    mesh_shape: Annotated[list[Dim], Length(min=1, max=4)]
    as_: As


class DistributeTensor(Typed):
    """``ttnn.distribute_tensor(tensor, mapper, mesh_device=None)``."""

    tensor: Name
    mesh_mapper: Mapper
    mesh_device: Optional[MeshName] = None
    """Put the result on this mesh device (a host tensor without one)."""
    as_: As


class AggregateTensor(Typed):
    """``ttnn.aggregate_tensor(tensor, composer)``: a host tensor composed into one."""

    tensor: Name
    mesh_composer: Composer
    as_: As


def single_buffer(t: HostTensor) -> HostShard:
    """The one buffer of a host tensor; ttnn 0.81.1's error for a distributed one."""
    if len(t.shards) != 1:
        shape = t.buffer_shape or ()
        raise TTFatal(f"Can't get a single buffer from host storage distributed over mesh shape {ttnn_shape(shape)}")
    return next(iter(t.shards.values()))


def from_host_shards(rt: Runtime, a: FromHostShards) -> None:
    check_api(rt, "from_host_shards")
    names = [n for name in a.tensors for n in rt.names(name)]
    shape = tuple(a.mesh_shape)
    where = tuple(coords(shape))
    if len(names) != len(where):
        raise TTFatal("Number of tensor shards must match mesh size")
    tensors = [rt.item(n) for n in names]
    on_device = [n for n, t in zip(names, tensors) if isinstance(t, DeviceTensor)]
    if on_device:
        raise TTFatal(f"from_host_shards takes host tensors; {on_device[0]} is on device (read it back first)")
    bufs = [single_buffer(t) for t in tensors]  # type: ignore[arg-type]
    spec = bufs[0].spec
    if any(b.spec != spec for b in bufs):
        raise TTFatal("All tensor shards must have the same tensor spec")
    shards = {c: HostShard(c, b.spec, b.values, b.offset, b.origin, b.composed_from) for c, b in zip(where, bufs)}
    labels = where if len(shape) > 1 else tuple((0, i) for i in range(len(where)))
    topology = Topology((len(where),), (Shard(0),), labels)
    rt.bind(a.as_, HostTensor(a.as_, rt.step, spec, topology, shards, buffer_shape=shape))


def distribute_tensor(rt: Runtime, a: DistributeTensor) -> None:
    from .mappers import mapper_choice

    t = rt.item(a.tensor)
    if isinstance(t, DeviceTensor):
        raise TTFatal("TensorToMesh only supports host tensors; got storage type: StorageType::DEVICE")
    buf = single_buffer(t)
    choice = mapper_choice(a.mesh_mapper, lambda m: rt.mesh(m).num_devices)
    if choice.replicate_wrapper:  # ttnn 0.81.1, observed: the nanobind function takes a TensorToMesh only
        raise TTFatal(
            "distribute_tensor(): incompatible function arguments. The following argument types are supported: "
            "(tensor, mapper: ttnn.TensorToMesh, mesh_device=None) (ttnn.ReplicateTensorToMesh returns a Python wrapper, "
            "which from_torch unwraps and distribute_tensor does not: pass ttnn.replicate_tensor_to_mesh_mapper(mesh_device))"
        )
    replicas = all(isinstance(p, Replicate) for p in choice.placements)
    if t.borrowed and replicas and rt.profile.host_borrow is HostBorrow.BORROWED_REFUSED:
        raise TTFatal(
            f"std::get device index fail (issue #18842's words: {a.tensor} is borrowed host storage; ReplicateTensorToMesh "
            "hands aggregate_as_tensor borrowed copies of it, and aggregate_as_tensor takes anything not owned for "
            "device storage. PR #18555 made it take borrowed shards; a sharding mapper copies into owned shards)"
        )
    mesh = rt.mesh(choice.mesh)  # the mapper's own mesh device, whatever mesh_device it is put on (as from_torch)
    spec = buf.spec
    host = distribute_values(
        rt, a.as_, buf.values, tuple(spec.shape), spec.dtype,
        lambda s: make_spec(tuple(s), spec.dtype, spec.layout, spec.tile, spec.memory, spec.arch), choice, mesh,
    )
    host.borrowed = t.borrowed and replicas  # a replica is the same memory; a chunk is copied (tests/golden storage)
    if a.mesh_device is None:
        rt.bind(a.as_, host)
    else:
        put(rt, host, a.as_, spec.memory, rt.mesh(a.mesh_device))


def aggregate_tensor(rt: Runtime, a: AggregateTensor) -> None:
    if isinstance(rt.item(a.tensor), DeviceTensor):
        raise TTFatal("aggregate_tensor composes a host tensor; read the device tensor back first (cpu or from_device)")
    compose_back(rt, a.tensor, a.mesh_composer, a.as_, keep_memory_config=True)


def _export_from_host_shards(a, ctx):
    shape = ", ".join(map(str, a.mesh_shape))
    return [f"{ctx.var(a.as_)} = ttnn.from_host_shards({ex.tensors_code(a.tensors, ctx)}, ttnn.MeshShape({shape}))"]


def _export_distribute_tensor(a, ctx):
    device = ctx.mesh(a.mesh_device) if a.mesh_device else "None"
    return [f"{ctx.var(a.as_)} = ttnn.distribute_tensor({ctx.var(a.tensor)}, {ex.mapper_code(a.mesh_mapper, ctx)}, {device})"]


def _export_aggregate_tensor(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.aggregate_tensor({ctx.var(a.tensor)}, {ex.composer_code(a.mesh_composer, ctx)})"]


FROM_HOST_SHARDS = Op(
    "from_host_shards",
    FromHostShards,
    from_host_shards,
    "One host tensor from single-buffer host tensors laid row-major over mesh_shape; topology (n) [S(0)].",
    "ttnn.from_host_shards(tensors, ttnn.MeshShape(...))",
    uses=(Use("tensors", TensorKind.HOST, many=True),),
    binds=Use("as_", TensorKind.HOST),
    export=_export_from_host_shards,
)

DISTRIBUTE_TENSOR = Op(
    "distribute_tensor",
    DistributeTensor,
    distribute_tensor,
    "Distribute a single-buffer host tensor with a mesh mapper; on mesh_device when given.",
    "ttnn.distribute_tensor(tensor, mapper, mesh_device)",
    uses=(Use("tensor", TensorKind.HOST), Use("mesh_device", TensorKind.MESH)),
    binds=Use("as_", TensorKind.HOST),
    kind_of=lambda a: TensorKind.DEVICE if a.mesh_device is not None else TensorKind.HOST,
    only_makes=True,
    export=_export_distribute_tensor,
)

AGGREGATE_TENSOR = Op(
    "aggregate_tensor",
    AggregateTensor,
    aggregate_tensor,
    "Compose a host tensor's shards with a mesh composer into one host tensor.",
    "ttnn.aggregate_tensor(tensor, composer)",
    uses=(Use("tensor", TensorKind.HOST),),
    binds=Use("as_", TensorKind.HOST),
    only_makes=True,
    export=_export_aggregate_tensor,
)
