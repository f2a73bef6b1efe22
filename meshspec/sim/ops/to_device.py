"""``ttnn.to_device(host, mesh_device, memory_config=None)`` and ``host.to(mesh_device, memory_config)``:
a new device tensor holding the host tensor's shards.

Both record exactly what they write, in every era (docs/semantics.md section 6). Without a memory
config, ``ttnn.to_device`` gives DRAM interleaved whatever the host tensor's config, while
``Tensor.to`` keeps the host tensor's (observed, tests/golden ``memory_configs``).
"""

from typing import Optional

from ..runtime import Runtime
from ..spec import BufferType
from ..tensor import DeviceTensor, Record
from ...typed import Typed
from .base import Op, TensorKind, Use
from .fields import As, Name


class ToDevice(Typed):
    """``ttnn.to_device(host, mesh_device, memory_config=None)``: a new device tensor holding the host shards."""

    src: Name
    as_: As
    memory: Optional[BufferType] = None
    """The buffer type; without one, DRAM (whatever the host tensor's)."""


class To(Typed):
    """``host.to(mesh_device, memory_config=None)``: like to_device, keeping the host tensor's memory config."""

    tensor: Name
    as_: As
    memory: Optional[BufferType] = None
    """The buffer type; without one, the host tensor's."""


def run(rt: Runtime, a: ToDevice) -> None:
    put(rt, a.src, a.as_, a.memory or BufferType.DRAM)


def run_to(rt: Runtime, a: To) -> None:
    put(rt, a.tensor, a.as_, a.memory or rt.host(a.tensor).spec.memory)


def put(rt: Runtime, src: str, name: str, memory: BufferType) -> None:
    """A new device tensor named ``name`` holding host tensor ``src``'s shards in ``memory``."""
    host = rt.host_with_shards(src)
    shards = rt.shards_to_write(host)
    widest = max((s.spec for s in shards.values()), key=lambda s: s.num_pages)
    buffer = rt.new_buffer(widest.with_memory(memory))
    topology = rt.written_topology(host)
    specs = {c: s.spec.with_memory(memory) for c, s in shards.items()}
    record = Record(host.spec.with_memory(memory), topology, specs, tuple(shards), {c: rt.step for c in rt.all_coords})
    dev = DeviceTensor(name, rt.step, buffer, record)
    rt.write(dev, host, shards)
    rt.bind(name, dev)


OP = Op(
    "to_device",
    ToDevice,
    run,
    "Put a host tensor on the mesh (DRAM unless told): a new device tensor recording exactly the shards written.",
    "ttnn.to_device(host_tensor, mesh_device, memory_config=None)",
    uses=(Use("src", TensorKind.HOST),),
    binds=Use("as_", TensorKind.DEVICE),
    hints=(("tensor", "to_device names its host tensor `src`"),),
)

TO = Op(
    "to",
    To,
    run_to,
    "Put a host tensor on the mesh in its own memory config (Tensor.to), recording exactly the shards written.",
    "host_tensor.to(mesh_device, memory_config=None)",
    uses=(Use("tensor", TensorKind.HOST),),
    binds=Use("as_", TensorKind.DEVICE),
)
