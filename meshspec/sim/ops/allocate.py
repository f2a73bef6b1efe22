"""``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``: a device tensor, nothing written.

What the allocation records is the era's :class:`~meshspec.sim.profiles.AllocationRecord`
(docs/semantics.md section 6): no per-device specs (before PR #18833), the spec on every device
(PR #18833 and today's coords), or nothing recorded until written (the reference).
"""

from ..placement import Replicate, Topology
from ..profiles import AllocationRecord
from ..runtime import Runtime
from ..tensor import DeviceTensor, Record
from .base import Op, TensorKind, Use
from .fields import As, Name, TensorFields


class Allocate(TensorFields):
    """``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``."""

    as_: As


def run(rt: Runtime, a: Allocate) -> None:
    spec = a.spec(rt.arch)
    buffer = rt.new_buffer(spec)
    rule = rt.profile.allocation
    everyone = rt.all_coords
    record = Record(
        spec=spec,
        topology=Topology(rt.mesh_shape, tuple(Replicate() for _ in rt.mesh_shape), everyone),
        specs={} if rule is AllocationRecord.NONE else {c: spec for c in everyone},
        recorded=everyone if rule is AllocationRecord.ALL else (),
        origin={c: rt.step for c in everyone},
    )
    rt.bind(a.as_, DeviceTensor(a.as_, rt.step, buffer, record))


OP = Op(
    "allocate_tensor_on_device",
    Allocate,
    run,
    "Allocate a device tensor of one spec on every device of the mesh; nothing is written.",
    "ttnn.allocate_tensor_on_device(ttnn.TensorSpec(shape, dtype, layout), mesh_device)",
    binds=Use("as_", TensorKind.DEVICE),
)
