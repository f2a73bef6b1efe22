"""``ttnn.allocate_tensor_on_device(TensorSpec(...), mesh_device)``: a device tensor, nothing written.

What the allocation records is the era's :class:`~meshspec.sim.profiles.AllocationRecord`
(docs/semantics.md section 6): no per-device specs (before PR #18833), the spec on every device
(PR #18833 and today's coords), or nothing recorded until written (the reference).
"""

from typing import Optional

from ..runtime import Runtime
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, Step, kind_fields, new_shape
from .fields import As, MeshName, PrintedSpec, TensorFields
from .output import allocation


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
    spec = rt.field_spec(a)
    rt.bind(a.as_, allocation(rt, spec, rt.mesh(a.mesh_device), a.as_))


def _generate(rng, st, op: str) -> Step:
    """Room for a host tensor's shard (one not placed yet, when there is one), or a new shape."""
    unplaced = [h for h, (s, _) in st.hosts.items() if s not in st.devices.values()]
    kind = DEFAULT_KIND
    if st.hosts and rng.random() < 0.9:
        host = rng.choice(unplaced or list(st.hosts))  # room for a host tensor's shard
        shape, kind = list(st.hosts[host][0]), st.kinds.get(host, DEFAULT_KIND)
    else:
        shape = new_shape(rng, st.size)
    name = st.fresh("d")
    st.devices[name] = shape
    st.kinds[name] = kind
    return {"allocate_tensor_on_device": {"as": name, "shape": shape, **kind_fields(kind)}}


def _export_allocate_tensor_on_device(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.allocate_tensor_on_device({ex.spec_code(a, ctx)}, {ctx.mesh(a.mesh_device)})"]


OP = Op(
    "allocate_tensor_on_device",
    Allocate,
    run,
    "Allocate a device tensor of one spec on every device of the mesh; nothing is written.",
    "ttnn.allocate_tensor_on_device(ttnn.TensorSpec(shape, dtype, layout), mesh_device)",
    uses=(Use("mesh_device", TensorKind.MESH),),
    binds=Use("as_", TensorKind.DEVICE),
    captured=False, only_makes=True,
    generate=_generate,
    export=_export_allocate_tensor_on_device,
)

