"""Host tensors the runtime allocates and fills: ``ttnn.allocate_tensor_on_host`` and
``ttnn.copy_device_to_host_tensor`` (docs/semantics.md section 9; ttnn 0.81.1, tests/golden ``api``).

- ``allocate_tensor_on_host(spec, mesh_device)``: a host buffer with a shard at *every* coordinate
  of the mesh, under the default topology, distribution (1) [Replicate] on (0, 0): its own records
  contradict each other (a ``topology_mismatch``). Put on device, it keeps that topology on all the
  devices. The reference (rule ``host_alloc_topology: mesh``) gives it the mesh's shape, Replicate
  on every axis.
- ``copy_device_to_host_tensor(device_tensor, host_tensor)``: the host tensor becomes the device
  tensor's topology, populated at exactly its recorded devices. Every recorded device needs a
  populated shard in the host buffer.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

import numpy as np

from ...errors import Crash, TTFatal
from ...typed import Typed
from ..mesh import ttnn_shape
from ..profiles import HostAllocTopology, HostReadSource
from ..readback import read
from ..runtime import Runtime, in_memory
from ..tensor import HostShard, HostTensor
from ..values import ShapeOnly, host_dtype
from .base import Op, TensorKind, Use
from . import exporting as ex
from .output import default_topology, replicated
from .fields import As, MeshName, Name, TensorFields
from .transfer import same_spec


class AllocateOnHost(TensorFields):
    """``ttnn.allocate_tensor_on_host(TensorSpec(...), mesh_device)``."""

    mesh_device: Optional[MeshName] = None
    as_: As


class CopyDeviceToHost(Typed):
    """``ttnn.copy_device_to_host_tensor(device_tensor, host_tensor, blocking=True)``."""

    device_tensor: Name
    host_tensor: Name


def allocate_on_host(rt: Runtime, a: AllocateOnHost) -> None:
    mesh = rt.mesh(a.mesh_device)
    spec = rt.field_spec(a)
    dtype = host_dtype(spec.dtype)
    shards = {}
    for c in mesh.coords:
        values = np.zeros(spec.shape, dtype=dtype) if rt.with_data else ShapeOnly(spec.shape, dtype)
        shards[c] = HostShard(c, spec, values, None)
    topology = default_topology() if rt.profile.host_alloc_topology is HostAllocTopology.DEFAULT else replicated(mesh.shape)
    rt.bind(a.as_, HostTensor(a.as_, rt.step, spec, topology, shards, buffer_shape=mesh.shape))


def copy_device_to_host(rt: Runtime, a: CopyDeviceToHost) -> None:
    if isinstance(rt.item(a.device_tensor), HostTensor):
        if rt.profile.host_read_source is HostReadSource.CHECKED:  # 0.66.0, 0.67.0 (docs/semantics.md section 23)
            raise TTFatal(f"Source tensor is not on device. ({a.device_tensor} is a host tensor)")
        raise Crash(f"{a.device_tensor} is a host tensor: the real library crashes here (SIGSEGV; ttnn 0.81.1)", "SIGSEGV")
    dev = rt.device(a.device_tensor)
    host = rt.host(a.host_tensor)
    same_spec(dev.record.spec, host.spec, a.device_tensor, a.host_tensor, next(iter(dev.record.recorded), ()))
    shape = host.buffer_shape or (1, 1)
    for c in dev.record.recorded:
        if len(c) != len(shape) or any(not 0 <= x < n for x, n in zip(c, shape)):
            raise TTFatal(f"Coordinate {ttnn_shape(c, 'MeshCoordinate')} is out of bounds for shape {ttnn_shape(shape)}")
        if c not in host.shards:
            raise TTFatal(f"Host shard for device shard {ttnn_shape(c, 'MeshCoordinate')} is not populated.")
    got = read(rt, dev, a.host_tensor)
    got.buffer_shape = shape
    # the host tensor keeps its own memory config (DRAM, say, for an L1 device tensor; ttnn 0.81.1)
    memory = host.spec.memory_config
    got.spec = in_memory(got.spec, memory)
    got.shards = {c: replace(s, spec=in_memory(s.spec, memory)) for c, s in got.shards.items()}
    rt.update(a.host_tensor, got)


def _export_allocate_tensor_on_host(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.allocate_tensor_on_host({ex.spec_code(a, ctx)}, {ctx.mesh(a.mesh_device)})"]


def _export_copy_device_to_host_tensor(a, ctx):
    return [f"ttnn.copy_device_to_host_tensor({ctx.var(a.device_tensor)}, {ctx.var(a.host_tensor)}, blocking=True)"]


ALLOCATE_ON_HOST = Op(
    "allocate_tensor_on_host",
    AllocateOnHost,
    allocate_on_host,
    "A host buffer with a shard at every device of the mesh, under the default topology (1) [R] on (0, 0).",
    "ttnn.allocate_tensor_on_host(ttnn.TensorSpec(shape, dtype, layout), mesh_device)",
    uses=(Use("mesh_device", TensorKind.MESH),),
    binds=Use("as_", TensorKind.HOST),
    captured=False, only_makes=True,
    export=_export_allocate_tensor_on_host,
)

COPY_DEVICE_TO_HOST = Op(
    "copy_device_to_host_tensor",
    CopyDeviceToHost,
    copy_device_to_host,
    "Read a device tensor into a preallocated host tensor: it takes the device tensor's topology and recorded devices.",
    "ttnn.copy_device_to_host_tensor(device_tensor, host_tensor)",
    uses=(Use("device_tensor", TensorKind.DEVICE), Use("host_tensor", TensorKind.HOST)),
    captured=False,
    export=_export_copy_device_to_host_tensor,
)
