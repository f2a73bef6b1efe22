"""``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose one tensor.

The runtime composes (meshspec/sim/compose.py) and records a :class:`~meshspec.sim.events.Composed`
event; the judge compares what was read with what was written, and the composed tensor with the
tensor that was sent.
"""

from typing import Optional

import numpy as np

from ...errors import TTFatal
from ..compose import compose
from ..events import Composed
from ..mapping import single
from ..mesh import block
from ..placement import Shard
from ..profiles import DefaultComposer, MapperOffset
from ..readback import read
from ..runtime import Runtime, work_bytes
from ..spec import BufferType, make_spec
from ..tensor import DeviceTensor, HostShard, HostTensor
from ..values import host_dtype
from ...typed import Typed
from .base import Op, TensorKind, Use
from .fields import Composer, Name, OptionalAs
from .mappers import ComposerChoice, composer_choice


class ToTorch(Typed):
    """``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose."""

    tensor: Name
    mesh_composer: Optional[Composer] = None
    as_: OptionalAs = None


def run(rt: Runtime, a: ToTorch, keep_memory_config: bool = False) -> None:
    """``keep_memory_config``: the result keeps the host tensor's memory config, sharded or not,
    as ``aggregate_tensor`` does (a composed shape its shard spec does not fit is refused; ttnn
    0.81.1, docs/semantics.md section 11). ``to_torch`` composes into a plain buffer."""
    t = rt.item(a.tensor)
    device = None
    direct = False
    if isinstance(t, DeviceTensor):
        device = rt.device(a.tensor)
        direct = rt.with_data and _one_dtype(device)
        host = read(rt, device, a.as_ or f"{a.tensor}.torch", values=not direct)
        mesh_shape = rt.mesh_of(device).shape
    else:  # composing a host tensor reads each of its shards (a device's read is charged by read())
        host = t
        rt.charge_work(len(host.shards), f"composing {a.tensor}",
                       sum(work_bytes(sh.spec) for sh in host.shards.values()) if rt.with_data else 0)
        mesh_shape = host.buffer_shape if host.buffer_shape is not None and not host.plain else rt.mesh_shape
    # read straight into the result, the bytes read back are the result: read() reserved them once
    if rt.with_data and not direct:
        need = sum(getattr(sh.values, "nbytes", 0) for sh in host.shards.values())
        rt.reserve(need, lambda: f"composing {a.tensor} ({len(host.shards)} shard(s))")
    choice = composer_choice(a.mesh_composer) if a.mesh_composer is not None else default_composer(rt, host)
    if choice is None:
        composition = compose(host, mesh_shape, None, None, True)
    else:
        check_offset(rt, choice.offset)
        if choice.mesh is not None:
            mesh_shape = rt.mesh(choice.mesh).shape
        composition = compose(host, mesh_shape, list(choice.dims), choice.override, choice.one_d, rt.profile.composer, choice.offset)
    if direct:
        host, composition = _read_into(device, host, composition)
    text = choice.text if choice is not None else "no mesh_composer"
    if a.mesh_composer is None and choice is not None:
        text = f"no mesh_composer: {choice.text}, derived from the topology (PR #53481)"
    rt.events.append(Composed(rt.step, a.tensor, host, composition, device, text))
    result, used = composition.values, composition.used
    if a.as_:
        shard = host.spec.shard if keep_memory_config else None
        # to_torch: a torch tensor, no memory config at all (reported as a plain host tensor, DRAM, as
        # ttnn.from_torch makes one); aggregate_tensor keeps the host tensor's
        memory = host.spec.memory if keep_memory_config else BufferType.DRAM
        spec = make_spec(result.shape, host.spec.dtype, host.spec.layout, host.spec.tile, memory, host.spec.arch, shard)
        dist = single(rt.mesh_shape, tuple(result.shape))
        c = dist.slots[0].coord
        shard = HostShard(c, spec, result, (0,) * result.ndim, composed_from=(host, tuple(used)))
        rt.bind(a.as_, HostTensor(a.as_, rt.step, spec, dist.topology, {c: shard}, plain=True, buffer_shape=(1, 1)))


def _one_dtype(device: DeviceTensor) -> bool:
    """Whether every recorded device reads back in one host dtype: then the composed tensor has
    it, and each device can be read straight into its block (np.concatenate would promote mixed
    ones, as torch.cat does)."""
    specs = device.record.specs
    dtypes = {specs[c].dtype for c in device.record.recorded if c in specs}  # (a handful: host_dtype once each, not once a device)
    return len({host_dtype(d) for d in dtypes}) <= 1


def _read_into(device: DeviceTensor, host: HostTensor, composition):
    """The composition worked out on shapes, filled in: each composed device read straight into
    its block of the result, the shards left out read as ``cpu()`` reads them. The read-back
    shards are views of the result (host tensors never change), so the data is in memory once
    where ``cpu()`` then concatenate holds it twice (ttnn's to_host does make a host buffer per
    shard; what the user gets is the same values)."""
    out = np.empty(composition.values.shape, composition.values.dtype)
    placed = composition.placed
    read = device.buffer.read
    shape = host.spec.shape
    along = _along_one_dim(out, shape)
    dim, size, lead, blocks = along if along is not None else (0, 0, (), None)  # (unpacked once, not once a device)
    for c, shard in host.shards.items():  # read() made these shards for this call alone: filled in place
        start = placed.get(c)
        if start is None:
            shard.values = read(c, shard.spec)
            continue
        if blocks is not None and shard.spec.shape == shape and sum(start) == start[dim] and start[dim] % size == 0:
            target = blocks[lead + (start[dim] // size,)]  # the block is at 0 on every other dim (offsets are never negative)
        else:
            target = out[block(start, shard.spec.shape)]
        shard.values = read(c, shard.spec, out=target)
    return host, composition.replace(values=out)


def _along_one_dim(out: np.ndarray, shape: tuple[int, ...]) -> Optional[tuple]:
    """When blocks of ``shape`` tile ``out`` along one dim alone (a 1-D concat of even shards, the
    usual composition): that dim, the block size on it, the index of the dims before it, and
    ``out`` with the dim split into (blocks, size), where a block is one integer index. Making
    each block's four slices and indexing with them cost 6,000 instructions more a device."""
    if len(out.shape) != len(shape):
        return None
    differ = [d for d, (n, k) in enumerate(zip(out.shape, shape)) if n != k]
    if len(differ) != 1 or shape[differ[0]] == 0 or out.shape[differ[0]] % shape[differ[0]]:
        return None
    dim, size = differ[0], shape[differ[0]]
    blocks = out.reshape(out.shape[:dim] + (out.shape[dim] // size, size) + out.shape[dim + 1 :])
    return dim, size, (slice(None),) * dim, blocks


def default_composer(rt: Runtime, host: HostTensor) -> Optional[ComposerChoice]:
    """The composer ``to_torch`` uses without one: none (0.81.1 refuses a tensor of several host
    shards), or under the ``from_topology`` rule (PR #53481) a concat along the Shard dims the
    topology records, when every distribution axis is a Shard."""
    if rt.profile.default_composer is not DefaultComposer.FROM_TOPOLOGY or len(host.shards) <= 1:
        return None
    topo = host.topology
    if not topo.placements or not all(isinstance(p, Shard) for p in topo.placements):
        return None  # a Replicate axis (or no label): the refusal stands
    dims = tuple(p.dim for p in topo.placements)  # type: ignore[union-attr]
    if len(dims) == 1:
        return ComposerChoice(dims, None, None, True, None, f"ttnn.concat_mesh_to_tensor_composer(mesh_device, {dims[0]})")
    shape = tuple(topo.distribution_shape)
    text = f"ttnn.create_mesh_composer(mesh_device, ttnn.MeshComposerConfig({list(dims)}, ttnn.MeshShape({', '.join(map(str, shape))})))"
    return ComposerChoice(dims, shape, None, False, None, text)


def check_offset(rt: Runtime, offset) -> None:
    """A mesh_offset_override in an era that has none (added by PR #51639, 2026-07-30)."""
    if offset is not None and rt.profile.mapper_offset is MapperOffset.ABSENT:
        raise TTFatal(
            f"mesh_offset_override {list(offset)}: this profile's era has no mesh offsets (PR #51639 added them "
            "on 2026-07-30); a SUBMESH distribution starts at (0, 0)"
        )


OP = Op(
    "to_torch",
    ToTorch,
    run,
    "Read a tensor back (from every recorded device, if on device) and compose it with a mesh composer.",
    "ttnn.to_torch(tensor, mesh_composer=...)",
    uses=(Use("tensor", TensorKind.ANY),),
    binds=Use("as_", TensorKind.HOST),
)
