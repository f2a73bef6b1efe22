"""``ttnn.to_device(host, mesh_device)``: a new device tensor holding the host tensor's shards.

It records exactly what it writes, in every era (docs/semantics.md section 6).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from pydantic import Field

from ..runtime import Runtime
from ..spec import BufferType
from ..tensor import DeviceTensor, Record
from .base import Op, TensorKind, Use
from .fields import Name, Strict


class ToDevice(Strict):
    """``ttnn.to_device(host, mesh_device)``: a new device tensor holding the host shards."""

    src: Name
    as_: Name = Field(alias="as")
    memory: Optional[BufferType] = None


def run(rt: Runtime, a: ToDevice) -> None:
    host = rt.host_with_shards(a.src)
    memory = a.memory or host.spec.memory
    shards = rt.shards_to_write(host)
    widest = max((s.spec for s in shards.values()), key=lambda s: s.num_pages)
    buffer = rt.new_buffer(replace(widest, memory=memory))
    topology = rt.written_topology(host)
    specs = {c: replace(s.spec, memory=memory) for c, s in shards.items()}
    record = Record(replace(host.spec, memory=memory), topology, specs, tuple(shards), {c: rt.step for c in rt.all_coords})
    dev = DeviceTensor(a.as_, rt.step, buffer, record)
    rt.write(dev, host, shards)
    rt.bind(a.as_, dev)


OP = Op(
    "to_device",
    ToDevice,
    run,
    "Put a host tensor on the mesh: a new device tensor recording exactly the shards written.",
    "ttnn.to_device(host_tensor, mesh_device)",
    uses=(Use("src", TensorKind.HOST),),
    binds=Use("as_", TensorKind.DEVICE),
)
