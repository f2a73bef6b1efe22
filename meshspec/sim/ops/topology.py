"""``tensor.update_tensor_topology(ttnn.TensorTopology(distribution_shape, placements, mesh_coords))``.

ttnn 0.81.1 (PR #39485) sets the topology and checks nothing: coordinates off the mesh, a
placement count other than the distribution's rank, a coordinate count other than its size are
all taken; ``device_coords()`` and the populated host shards stay as they were (tests/golden
``api``). On a device tensor the topology is the one every handle on its storage shares.

A topology set by hand is a claim about the data like any label: given the devices the data is on
in another order (the coordinates reversed: ttnn 0.81.1 records them so, observed), the shard written
to (0,0) is listed at (1,3), and whatever follows the topology puts it in the wrong place; given
another dim, it says the data is split where it is not. Both are ``topology_stale`` at this step
(docs/semantics.md section 9).
"""

from __future__ import annotations

from dataclasses import replace
from ...typed import Typed
from ...errors import TTFatal
from ..profiles import TopologyUpdate
from ..runtime import Runtime
from ..tensor import DeviceTensor, Provenance
from .base import Op, TensorKind, Use
from . import exporting as ex
from .fields import Name
from .mappers import GivenTopology


class UpdateTopology(Typed):
    """``tensor.update_tensor_topology(ttnn.TensorTopology(...))``."""

    tensor: Name
    topology: GivenTopology


def run(rt: Runtime, a: UpdateTopology) -> None:
    if rt.profile.topology_update is TopologyUpdate.ABSENT:
        raise TTFatal(
            "'Tensor' object has no attribute 'update_tensor_topology' (this profile's era predates it: "
            "PR #39485, March 2026, replaced with_tensor_topology by it; ttnn 0.66.0 and 0.67.0 lack it)"
        )
    topology = a.topology.topology()
    t = rt.item(a.tensor)
    if isinstance(t, DeviceTensor):
        dev = rt.device(a.tensor)
        real = dev.layout()  # how the data is laid out, whatever the label said
        dev.record.topology = topology
        if real is not None and set(real.coords) == set(topology.coords):
            # the same devices: the topology is judged against the data as a device op's label is
            # (a lie about which shard is where, or on which dim, is topology_stale; other devices
            # than it records are topology_mismatch, judged from the record alone); what an op
            # that made the data read stays as it was
            made = dev.provenance
            dev.provenance = Provenance(rt.step, rt.op, True, real, made.reads if made is not None else {})
        for name, other in rt.tensors.items():  # every handle on the storage reads it
            if isinstance(other, DeviceTensor) and other.record.shared is dev.record.shared:
                rt.touched.add(name)
        return
    rt.update(a.tensor, replace(t, topology=topology))


def _export_update_tensor_topology(a, ctx):
    return [f"{ctx.var(a.tensor)}.update_tensor_topology(", f"    {ex.topology_code(a.topology)}", ")"]


OP = Op(
    "update_tensor_topology",
    UpdateTopology,
    run,
    "Set a tensor's topology, unchecked; its recorded devices and shards stay as they were.",
    "tensor.update_tensor_topology(ttnn.TensorTopology(distribution_shape, placements, mesh_coords))",
    uses=(Use("tensor", TensorKind.ANY),),
    export=_export_update_tensor_topology,
)
