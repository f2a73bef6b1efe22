"""``tensor.update_tensor_topology(ttnn.TensorTopology(distribution_shape, placements, mesh_coords))``.

ttnn 0.81.1 (PR #39485) sets the topology and checks nothing: coordinates off the mesh, a
placement count other than the distribution's rank, a coordinate count other than its size are
all taken; ``device_coords()`` and the populated host shards stay as they were (tests/golden
``api``). On a device tensor the topology is the one every handle on its storage shares.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Annotated

from ...typed import Length, Typed
from ..placement import Topology
from ..runtime import Runtime
from ..tensor import DeviceTensor
from .base import Op, TensorKind, Use
from .fields import Dim, Name, PlacementItem
from .mappers import placement_of


class TopologyFields(Typed):
    """A topology as reports print it (pasteable): ``{distribution_shape, placements, coords}``."""

    distribution_shape: Annotated[list[Dim], Length(min=1, max=4)]
    placements: Annotated[list[PlacementItem], Length(min=1)]
    coords: list[Annotated[list[int], Length(min=1, max=4)]]
    """``mesh_coords``: the coordinates, as lists."""

    def topology(self) -> Topology:
        return Topology(
            tuple(self.distribution_shape), tuple(placement_of(p) for p in self.placements), tuple(tuple(c) for c in self.coords)
        )


class UpdateTopology(Typed):
    """``tensor.update_tensor_topology(ttnn.TensorTopology(...))``."""

    tensor: Name
    topology: TopologyFields


def run(rt: Runtime, a: UpdateTopology) -> None:
    topology = a.topology.topology()
    t = rt.item(a.tensor)
    if isinstance(t, DeviceTensor):
        dev = rt.device(a.tensor)
        dev.record.topology = topology
        for name, other in rt.tensors.items():  # every handle on the storage reads it
            if isinstance(other, DeviceTensor) and other.record.shared is dev.record.shared:
                rt.touched.add(name)
        return
    rt.update(a.tensor, replace(t, topology=topology))


OP = Op(
    "update_tensor_topology",
    UpdateTopology,
    run,
    "Set a tensor's topology, unchecked; its recorded devices and shards stay as they were.",
    "tensor.update_tensor_topology(ttnn.TensorTopology(distribution_shape, placements, mesh_coords))",
    uses=(Use("tensor", TensorKind.ANY),),
)
