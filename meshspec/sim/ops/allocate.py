"""``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``: a device tensor, nothing written.

What the allocation records is the era's :class:`~meshspec.sim.profiles.AllocationRecord`
(docs/semantics.md section 6): no per-device specs (before PR #18833), the spec on every device
(PR #18833 and today's coords), or nothing recorded until written (the reference).
"""

import functools
from typing import Optional

from ..mesh import Shape, coord_tuple
from ..meshdevice import MeshDevice
from ..placement import Replicate, Topology
from ..profiles import AllocationRecord
from ..runtime import Runtime
from ..spec import TensorSpec
from ..tensor import DeviceTensor, Record
from ..values import ShapeOnly, host_dtype
from .base import Op, TensorKind, Use
from .fields import As, MeshName, PrintedSpec, TensorFields


class Allocate(TensorFields, PrintedSpec):
    """``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``; a device's spec as a
    report prints it pastes in (its worked-out keys are checked, :class:`PrintedSpec`)."""

    as_: As
    mesh_device: Optional[MeshName] = None
    """The mesh device (the scenario's without one)."""
    padded_shape: Optional[list[int]] = None
    page_size: Optional[int] = None
    aligned_page_size: Optional[int] = None
    num_pages: Optional[int] = None
    buffer_bytes: Optional[int] = None


def run(rt: Runtime, a: Allocate) -> None:
    rt.bind(a.as_, allocation(rt, a.spec(rt.arch), rt.mesh(a.mesh_device), a.as_))


def allocation(rt: Runtime, spec: TensorSpec, mesh: MeshDevice, name: str, topology: Optional[Topology] = None) -> DeviceTensor:
    """A device tensor of ``spec`` allocated on every device of ``mesh``, recorded as the era's
    allocation is; its topology the mesh's shape with a Replicate per axis unless given."""
    buffer = rt.new_buffer(spec, mesh)
    rule = rt.profile.allocation
    everyone = mesh.coords
    record = Record(  # by position, the per-device dicts made in C (dict.fromkeys)
        spec,
        topology or replicated(mesh.shape),
        {} if rule is AllocationRecord.NONE else dict.fromkeys(everyone, spec),
        everyone if rule is AllocationRecord.ALL else (),
        dict.fromkeys(everyone, rt.step),
    )
    return DeviceTensor(name, rt.step, buffer, record, mesh=mesh if mesh is not rt.root else None)


@functools.lru_cache(maxsize=16)
def replicated(shape: Shape) -> Topology:
    """A Replicate per axis of a mesh of ``shape``, on all its devices: an allocation's topology.
    A value, made once per shape (its coordinate set, too, is then worked out once)."""
    return Topology(shape, tuple(Replicate() for _ in shape), coord_tuple(shape))


OP = Op(
    "allocate_tensor_on_device",
    Allocate,
    run,
    "Allocate a device tensor of one spec on every device of the mesh; nothing is written.",
    "ttnn.allocate_tensor_on_device(ttnn.TensorSpec(shape, dtype, layout), mesh_device)",
    uses=(Use("mesh_device", TensorKind.MESH),),
    binds=Use("as_", TensorKind.DEVICE),
)


def unread(rt: Runtime, spec: TensorSpec):
    """What a device op writes to a device whose input it did not read: in metadata mode no values,
    only their shape (as every write there); with data, zeros (an input that held no array)."""
    import numpy as np

    shape = tuple(spec.shape)
    return ShapeOnly(shape, host_dtype(spec.dtype)) if not rt.with_data else np.zeros(shape, dtype=np.float32)
