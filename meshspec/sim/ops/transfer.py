"""The paths between host and device that several ops take, shared so op modules stay peers.

``put`` writes a host tensor to a new device tensor (to_device, from_torch with a device, the
creation calls, the cache, distribute_tensor); ``make_host`` and ``distribute_values`` make a
host tensor from a step's data and mapper; ``compose_back`` reads a tensor back and composes it
(to_torch, aggregate_tensor); the checks are the ones each of those paths shares with copies.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ...errors import TTFatal
from ..compose import compose
from ..events import Composed
from ..mapping import Distribution, distribute, single
from ..mesh import Coord, Shape, block, fmt_coord, fmt_shape, ttnn_shape, volume
from ..meshdevice import MeshDevice
from ..placement import Replicate, Shard
from ..profiles import BlockFloatMapper, DefaultComposer, MapperOffset, PerDeviceApi, PlainToDevice, ReadBuffers, ReplicatedDistribution, ToDeviceRecord, WritePinning
from ..readback import read
from ..runtime import Runtime, work_bytes
from ..spec import BufferType, DataType, Layout, TensorSpec, make_spec
from ..tensor import DeviceTensor, HostShard, HostTensor, Record
from ..values import ShapeOnly, generate, host_dtype, load_npy, quantize_block_float
from .fields import FillData, RandomData, TensorFields
from .mappers import ComposerChoice, MapperChoice, composer_choice


def put(rt: Runtime, host: HostTensor, name: str, memory, mesh: Optional[MeshDevice] = None) -> None:
    """A new device tensor named ``name`` on ``mesh`` holding ``host``'s shards in ``memory``
    (a buffer type, or a buffer type and shard spec: a sharded spec is checked against each
    device's shard, never the global shape; docs/semantics.md section 11)."""
    memory = memory if isinstance(memory, tuple) else (memory, None)
    mesh = mesh or rt.root
    shards = rt.shards_to_write(host, mesh)
    specs = {c: s.spec.with_memory(*memory) for c, s in shards.items()}
    if one_buffer_to_many(host, mesh):  # one spec: the plain tensor's, on every device
        c = next(iter(shards))
        packed_size_check(shards[c].spec, specs[c])
    widest = max(specs.values(), key=lambda s: s.num_pages)
    buffer = rt.new_buffer(widest, mesh)
    topology = rt.written_topology(host, mesh)
    recorded = tuple(shards)
    if rt.profile.to_device_record is ToDeviceRecord.REPLICATED:  # PR #17513: one spec on every device
        uniform = specs[next(iter(shards))]
        specs, recorded = dict.fromkeys(mesh.coords, uniform), tuple(mesh.coords)
    if host.plain and rt.profile.plain_to_device is PlainToDevice.DEFAULT:
        topology = host.topology  # the 1x1 path kept the host's default topology before PR #29158 (section 22)
    placed = {c: rt.placed(s) for c, s in specs.items()}  # the grid the era records (section 16)
    record = Record(rt.placed(host.spec.with_memory(*memory)), topology, placed, recorded, {c: rt.step for c in mesh.coords})
    dev = DeviceTensor(name, rt.step, buffer, record, mesh=mesh if mesh is not rt.root else None)
    pinned(rt, host, mesh, shards)
    rt.write(dev, host, shards)
    rt.bind(name, dev)


PINNED_WRITE_BYTES = 32 << 20
"""A write of a host tensor this large or larger tries pinned host memory (issue #25673, a
maintainer, 2026-06-01: "Anything 32 MB or bigger will try to use pinned memory"; PR #44467 turned
the cache on by default). Measured on the host tensor's bytes *(inferred: the comment does not say
of what)*."""


def pinned(rt: Runtime, host: HostTensor, mesh: MeshDevice, shards: dict) -> None:
    """A write of ``host``'s ``shards`` pins host memory for their devices when it is large; on a
    multi-host mesh the era's ``write_pinning`` rule says whether a remote device is asked for too,
    which is ttnn's TT_FATAL (docs/semantics.md section 15)."""
    rule = rt.profile.write_pinning
    if rt.hosts is None or rule is WritePinning.LOCAL:
        return
    if rule is WritePinning.MAPPED and host.plain:  # the 1x1 replicate path pins local devices only (PR #46138)
        return
    size = sum(s.spec.buffer_bytes for s in host.shards.values())
    if size < PINNED_WRITE_BYTES:
        return
    remote = next((c for c in sorted(shards) if not rt.is_local(mesh, c)), None)
    if remote is not None:
        raise TTFatal(
            f"Cannot get device for remote device at coordinate {ttnn_shape(remote, 'MeshCoordinate')} (a write of "
            f"{size >> 20} MiB pins host memory for every device it writes, another host's too: "
            "PinnedMemoryCache::compute_device_ids, issue #48477)"
        )


def one_buffer_to_many(host: HostTensor, mesh) -> bool:
    """Whether a write of ``host`` to ``mesh`` is ttnn's "replicate a 1x1 host buffer over the
    mesh" path, the only one that checks the packed size (distributed_tensor_apis.cpp,
    ``h2d_as_replicate_tensor_on_1x1_mesh``): a plain host tensor, onto a mesh of more than one
    device. A mapped host tensor (even of one shard) and any write to a 1x1 mesh are not checked
    (observed: (1,1,64,1600) ROW_MAJOR split 8 ways into 64x64 width shards on 4 cores is taken,
    each device padded to (1,1,64,256); the plain (1,1,64,200) is refused on 2x4 and on a 1x2
    submesh, taken on a 1x1 submesh; tests/golden sharded ``mesh`` "to_device_split_row_major_width")."""
    return host.plain and mesh.num_devices > 1


def packed_size_check(host: TensorSpec, device: TensorSpec) -> None:
    """The packed host data must be the device buffer's size (tt_metal/impl/tensor/distributed_tensor_apis.cpp:211,
    ttnn 0.81.1) when one host buffer is replicated (:func:`one_buffer_to_many`): a plain ROW_MAJOR
    host tensor put into a width- or block-sharded buffer that pads the width is refused
    (docs/semantics.md section 11)."""
    if device.shard is not None and host.buffer_bytes != device.buffer_bytes:
        raise TTFatal(f"Host data with total size {host.buffer_bytes}B does not match expected size {device.buffer_bytes}B of device buffer! "
                      f"(the device pads each row to a multiple of the shard width: {list(host.shape)} is {list(device.padded_shape)} there; "
                      "make the host tensor with the same memory config)")


def same_spec(src: TensorSpec, dst: TensorSpec, src_name: str, dst_name: str, coord: Coord) -> None:
    """The current library's copy check (``tt_metal/impl/tensor/tensor_apis.cpp``)."""
    if src is dst:  # one spec object: nothing differs (and the shard is named for an error only)
        return
    where = f"{src_name} shard for {fmt_coord(coord)}"
    if src.shape != dst.shape:
        raise TTFatal(
            f"Host tensor has different shape ({where} is {list(src.shape)}, {dst_name} is {list(dst.shape)})"
        )
    if src.dtype != dst.dtype:
        raise TTFatal(f"Host tensor has different dtype ({where} is {src.dtype}, {dst_name} is {dst.dtype})")
    if src.layout != dst.layout or (src.layout is Layout.TILE and src.tile != dst.tile):
        raise TTFatal(
            f"Host tensor has different page config ({where} is {src.layout} {list(src.tile)}, "
            f"{dst_name} is {dst.layout} {list(dst.tile)})"
        )


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
    if dtype.is_block_float and choice is not None and rt.profile.block_float_mapper is BlockFloatMapper.PADDED:
        return _padded_first(rt, a, name, values, shape, dtype, choice, mesh)
    return distribute_values(rt, name, values, shape, dtype, lambda s: a.spec(rt.arch, s), choice, mesh)


def _padded_first(rt: Runtime, a: TensorFields, name: str, values, shape: Shape, dtype: DataType, choice, mesh: MeshDevice) -> HostTensor:
    """Issue #8967's from_torch (profile rule ``block_float_mapper: padded``, docs/semantics.md
    section 18): the whole tensor tilized (zeros in its tile padding) and brought back to torch
    padded, and that padded tensor mapped: the shards record the padded slices' shapes. The tensor
    that was mapped, and so the one a composed readback is compared with, is the padded one."""
    padded = a.spec(rt.arch, shape).padded_shape[-len(shape):] if shape else shape
    if isinstance(values, np.ndarray):
        widths = [(0, p - n) for n, p in zip(shape, padded)]
        grown = np.pad(values, widths)
    else:
        grown = ShapeOnly(padded, values.dtype)
    return distribute_values(rt, name, grown, tuple(padded), dtype, lambda s: a.spec(rt.arch, s), choice, mesh)


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
    placements, override = choice.placements, choice.override
    if choice.replicate and rt.profile.replicated_distribution is ReplicatedDistribution.MESH:
        placements, override = (Replicate(),) * len(mesh.shape), None  # the mesh's shape, not (num_devices) (#28755)
    return distribute(shape, mesh.shape, placements, override, rt.profile.mapper, choice.offset), False


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


def compose_back(rt: Runtime, tensor: str, mesh_composer, as_: Optional[str], keep_memory_config: bool = False) -> None:
    """Read ``tensor`` back (if on device) and compose one tensor with ``mesh_composer`` (a step's
    composer argument; None: the era's default), bound to ``as_`` if given: ``to_torch``, and
    ``aggregate_tensor`` with ``keep_memory_config``.

    ``keep_memory_config``: the result keeps the host tensor's memory config, sharded or not,
    as ``aggregate_tensor`` does (a composed shape its shard spec does not fit is refused; ttnn
    0.81.1, docs/semantics.md section 11). ``to_torch`` composes into a plain buffer."""
    t = rt.item(tensor)
    device = None
    direct = False
    if isinstance(t, DeviceTensor):
        device = rt.device(tensor)
        direct = rt.with_data and _one_dtype(device) and rt.profile.read_buffers is ReadBuffers.SHARDS
        host = read(rt, device, as_ or f"{tensor}.torch", values=not direct)
        mesh_shape = rt.mesh_of(device).shape
    else:  # composing a host tensor reads each of its shards (a device's read is charged by read())
        host = t
        rt.charge_work(len(host.shards), f"composing {tensor}",
                       sum(work_bytes(sh.spec) for sh in host.shards.values()) if rt.with_data else 0)
        mesh_shape = host.buffer_shape if host.buffer_shape is not None and not host.plain else rt.mesh_shape
    # read straight into the result, the bytes read back are the result: read() reserved them once
    if rt.with_data and not direct:
        need = sum(getattr(sh.values, "nbytes", 0) for sh in host.shards.values())
        rt.reserve(need, lambda: f"composing {tensor} ({len(host.shards)} shard(s))")
    choice = composer_choice(mesh_composer) if mesh_composer is not None else default_composer(rt, host)
    if choice is None:
        composition = compose(host, mesh_shape, None, None, True)
    else:
        check_offset(rt, choice.offset, "MeshComposerConfig")
        if choice.mesh is not None:
            mesh_shape = rt.mesh(choice.mesh).shape
        composition = compose(host, mesh_shape, list(choice.dims), choice.override, choice.one_d, rt.profile.composer, choice.offset)
    if direct:
        host, composition = _read_into(device, host, composition)
    text = choice.text if choice is not None else "no mesh_composer"
    if mesh_composer is None and choice is not None:
        text = f"no mesh_composer: {choice.text}, derived from the topology (PR #53481)"
    rt.events.append(Composed(rt.step, tensor, host, composition, device, text))
    result, used = composition.values, composition.used
    if as_:
        shard = host.spec.shard if keep_memory_config else None
        # to_torch: a torch tensor, no memory config at all (reported as a plain host tensor, DRAM, as
        # ttnn.from_torch makes one); aggregate_tensor keeps the host tensor's
        memory = host.spec.memory if keep_memory_config else BufferType.DRAM
        spec = make_spec(result.shape, host.spec.dtype, host.spec.layout, host.spec.tile, memory, host.spec.arch, shard)
        dist = single(rt.mesh_shape, tuple(result.shape))
        c = dist.slots[0].coord
        shard = HostShard(c, spec, result, (0,) * result.ndim, composed_from=(host, tuple(used)), placed=dict(composition.placed))
        rt.bind(as_, HostTensor(as_, rt.step, spec, dist.topology, {c: shard}, plain=True, buffer_shape=(1, 1)))


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
            target = out[(*block(start, shard.spec.shape), ...)]  # the ... keeps a rank-0 block a view, not a copied scalar
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


def check_offset(rt: Runtime, offset, config: str = "MeshMapperConfig") -> None:
    """A mesh_offset_override in an era that has none (added by PR #51639, 2026-07-30): the config's
    binding takes no MeshCoordinate, a TypeError in the binding's words (ttnn 0.66.0 and 0.67.0,
    observed: tests/golden ``ttnn_0_6*_0.json`` api ``mapper_offsets``). ``config``:
    ``MeshMapperConfig`` or ``MeshComposerConfig``."""
    if offset is not None and rt.profile.mapper_offset is MapperOffset.ABSENT:
        first = "dims" if config == "MeshComposerConfig" else "placements"
        raise TTFatal(
            "__init__(): incompatible function arguments. The following argument types are supported: "
            f"{config}({first}, mesh_shape_override=None), {config}(row_dim, col_dim, mesh_shape_override=None) "
            f"(a TypeError: mesh_offset_override {list(offset)} is no argument of {config} in this profile's era; "
            "PR #51639 added it on 2026-07-30, and a SUBMESH distribution starts at (0, 0))"
        )


def check_api(rt: Runtime, call: str) -> None:
    """combine_device_tensors and from_host_shards do not exist in an era before June 2025."""
    if rt.profile.per_device_api is PerDeviceApi.AGGREGATE_AS_TENSOR:
        raise TTFatal(
            f"module 'ttnn' has no attribute '{call}' (this profile's era predates it: PRs #23290 and #24546, "
            "June-July 2025, split aggregate_as_tensor into combine_device_tensors and from_host_shards)"
        )
