"""Reading a device tensor back (``dev.cpu()``): every recorded device, with its recorded spec.

The order is the era's composer rule (docs/semantics.md section 5): legacy composers walk the
mesh, current ones the topology's coords (then any recorded device the topology leaves out).
After ``MeshDevice.reshape`` the era's ``reshaped_storage`` rule says whether the coordinates
must fit the host buffer (0.81.1) or a shard off the mesh's shape now is left unread (0.66.0,
0.67.0; docs/semantics.md section 23). Each read-back shard remembers where it came from and what
that device really held then (:class:`~meshspec.sim.tensor.ReadOrigin`), so the judge can tell a
good read from a lie.
"""

from __future__ import annotations

import numpy as np

from ..errors import StepInputError, TTFatal
from .mesh import Coord, coord_set, ttnn_shape
from .profiles import Composer, ReadBuffers, ReshapedStorage
from .runtime import Runtime, work_bytes
from .steps import ReadBack
from .tensor import DeviceTensor, HostShard, HostTensor, ReadOrigin
from .values import ShapeOnly, host_dtype


def read(rt: Runtime, dev: DeviceTensor, name: str, *, values: bool = True) -> HostTensor:
    """``dev.cpu()`` as a host tensor named ``name``. Without ``values`` the shards hold
    shape-only stand-ins (as in metadata mode) for the caller to read into memory of its own
    (``to_torch`` reads each device straight into its block of the composed tensor); the memory
    they need is accounted all the same."""
    rec = dev.record
    mesh = rt.mesh_of(dev)
    remote = [c for c in rec.recorded if not rt.is_local(mesh, c)] if rt.hosts is not None else ()
    if remote:  # what the host tensor and a composer make of the devices this host does not own was not found
        raise StepInputError(
            f"{dev.name} records {len(remote)} device(s) another host owns, {ttnn_shape(remote[0], 'MeshCoordinate')} first: "
            "meshspec does not model reading back a tensor with remote devices on a multi-host mesh (docs/semantics.md "
            "section 15); print it (to_string) or take its local parts (get_device_tensors) instead"
        )
    everyone = dev.devices
    if rt.profile.reshaped_storage is ReshapedStorage.CHECKED:
        buffer_shape = host_buffer_shape(dev, mesh)
        recorded = rec.recorded_set
    else:  # 0.66.0 / 0.67.0: a buffer of the mesh's shape now; a shard off it is not read (its worker stops there)
        allocated = tuple(dev.buffer.mesh_shape)
        off = [c for c in rec.recorded if len(c) != len(allocated) or any(i >= n for i, n in zip(c, allocated))]
        if off:  # a write since a MeshDevice.reshape recorded a device off the storage's own mesh shape (a tester, 0.6x)
            raise TTFatal(f"Coordinate {ttnn_shape(off[0], 'MeshCoordinate')} is out of bounds for shape "
                          f"{ttnn_shape(allocated, 'MeshShape')} ({dev.name} was allocated on a mesh of that shape and written "
                          "since the mesh was reshaped: the read checks its devices against the storage's own shape)")
        buffer_shape = tuple(mesh.shape)
        recorded = coord_set(buffer_shape).intersection(rec.recorded_set)
    if rt.profile.composer is Composer.LEGACY:
        order = [c for c in everyone if c in recorded]
    else:
        order = [c for c in rec.topology.coords if c in recorded]
        listed = set(order)
        order += [c for c in everyone if c in recorded and c not in listed]
    specs = list(map(rec.specs.get, order))
    rt.charge_work(len(order), f"reading back {dev.name}", sum(work_bytes(s) for s in specs if s is not None) if rt.with_data else 0)
    if rt.with_data:
        need = sum(s.volume * host_dtype(s.dtype).itemsize for s in specs if s is not None)
        rt.reserve(need, lambda: f"reading back {dev.name} from {len(order)} device(s)")
    shards: dict[Coord, HostShard] = {}
    shapes: dict[int, ShapeOnly] = {}  # metadata mode: one stand-in per spec (by identity)
    buffer = dev.buffer
    # dev.current_write inlined and the buffer's look-ups bound once: calls a device fewer, 2,000 instructions
    last_write, content, written_bytes = buffer.last_write, dev.content_step, buffer.written_bytes
    intact = buffer.intact if rt.with_data else None
    # the era's read loop (PR #19032): buffers resized to the device count and the shards read
    # appended past them; the host tensor's shards are the default-initialized buffers in front
    misplaced = rt.profile.read_buffers is ReadBuffers.DEVICES
    name, step, record_step = dev.name, rt.step, rec.origin.get  # (looked up once, not once a device)
    for c, spec in zip(order, specs):
        if spec is None:
            continue  # the runtime cannot read a device it has no spec for
        read_values = (default_buffer(spec) if misplaced else buffer.read(c, spec)) if values else None
        if read_values is None:  # metadata mode, or read by the caller
            read_values = shapes.get(id(spec))
            if read_values is None:
                read_values = shapes[id(spec)] = ShapeOnly(spec.shape, host_dtype(spec.dtype))
        last = last_write.get(c)
        write = last if last is not None and last.step == content else None
        origin = ReadOrigin(
            name,
            c,
            step,
            written_bytes(c),
            write,
            None if write else last,
            record_step(c),
            write is not None and intact is not None and not misplaced and intact(c, write, spec),
            misplaced,
        )
        shards[c] = HostShard(c, spec, read_values, write.offset_at(c) if write else None, origin)
    rt.log.append(ReadBack(dev.name, tuple(shards)))
    unread = {}
    for c in everyone:
        if c not in shards:
            w = dev.current_write(c)
            if w is not None:
                unread[c] = w
    first = next(iter(shards.values())).spec if shards else rec.spec
    return HostTensor(name, rt.step, first, rec.topology, shards, read_from=dev.name, unread=unread, buffer_shape=buffer_shape)


def default_buffer(spec) -> np.ndarray:
    """What a host shard holds when its buffer is one of the default-initialized ones the
    ``devices`` read loop puts in front of the data it reads (PR #19032): no value read from any
    device. An empty buffer has no values to show; meshspec shows zeros in the shard's shape
    *(meshspec choice)*, so composing and comparing work as they do for any shard."""
    return np.zeros(spec.shape, host_dtype(spec.dtype))


def host_buffer_shape(dev: DeviceTensor, mesh) -> tuple[int, ...]:
    """The shape of the host buffer ``cpu()`` fills, after checking that every coordinate it is
    filled from fits it (ttnn 0.81.1: ``cpu()`` in tensor_apis.cpp, ``DeviceStorage::is_uniform_storage``).

    A tensor recorded on as many devices as its mesh has is read as a whole: the buffer has the
    shape the mesh had when the tensor's buffer was allocated, and is filled from every
    coordinate of the mesh's shape now. Any other is read from its recorded devices into a
    buffer of the mesh's shape now. The distribution shape plays no part: a 4x2 distribution on
    a 2x4 mesh reads back into a 2x4 buffer. Only after ``MeshDevice.reshape`` can a coordinate
    miss: ttnn's error (observed, tests/golden ``api`` "reshape" and "readback_buffer_shape":
    allocated on 2x4 and reshaped to 1x8, ``(0,4)`` is out of a 2x4 buffer; on 7 of them, ``(1,0)``
    is out of a 1x8 one)."""
    rec = dev.record
    whole = len(rec.recorded) == mesh.num_devices
    shape = tuple(dev.buffer.mesh_shape) if whole else tuple(mesh.shape)
    source = mesh.coords if whole else rec.recorded
    if coord_set(shape).issuperset(source):  # one C-level pass: every coordinate fits
        return shape
    for c in source:
        if len(c) != len(shape):
            raise TTFatal(f"Shape and coordinate dimensions do not match: {len(shape)} != {len(c)}")
        if any(not 0 <= x < n for x, n in zip(c, shape)):
            raise TTFatal(f"Coordinate {ttnn_shape(c, 'MeshCoordinate')} is out of bounds for shape {ttnn_shape(shape)}")
    return shape
