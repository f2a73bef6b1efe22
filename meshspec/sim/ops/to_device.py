"""``ttnn.to_device(host, mesh_device, memory_config=None)`` and ``host.to(mesh_device, memory_config)``:
a new device tensor holding the host tensor's shards.

Both record exactly what they write (docs/semantics.md section 6), but under PR #17513's
``to_device_record: replicated``, which records every device of the mesh (section 19). Without a memory
config, ``ttnn.to_device`` gives DRAM interleaved whatever the host tensor's config, while
``Tensor.to`` keeps the host tensor's (observed, tests/golden ``memory_configs``). A tensor already
on device is returned as it is (the memory config and device asked for are ignored). The host
tensor's coordinates are taken as coordinates of the target mesh as they are: a tensor mapped for
a 1x4 submesh lands on row 0 of a 2x4 parent (tests/golden ``api``).
"""

from typing import Optional

from ...errors import TTFatal
from ..profiles import UnevenRowMajorShards
from ..runtime import Runtime
from ..sharding import MemoryLayout, ShardSpec
from ..spec import BufferType, Layout
from ..tensor import DeviceTensor, HostTensor
from ...typed import Typed
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, Step
from .fields import As, MemoryConfig, MeshName, Name, memory_of
from .output import alias
from .transfer import put


class ToDevice(Typed):
    """``ttnn.to_device(tensor, mesh_device, memory_config=None)``: a new device tensor holding the host shards."""

    src: Name
    as_: As
    memory: Optional[BufferType] = None
    """The buffer type; without one, DRAM (whatever the host tensor's)."""
    memory_config: Optional[MemoryConfig] = None
    """ttnn's spelling of ``memory``."""
    device: Optional[MeshName] = None
    """The mesh device (the scenario's without one)."""


class To(Typed):
    """``tensor.to(mesh_device, memory_config=None)``: like to_device, keeping the host tensor's memory config."""

    tensor: Name
    as_: As
    memory: Optional[BufferType] = None
    """The buffer type; without one, the host tensor's."""
    memory_config: Optional[MemoryConfig] = None
    device: Optional[MeshName] = None


def _memory(a) -> Optional[tuple[BufferType, Optional[ShardSpec]]]:
    """The memory config asked (None: the default); ``memory`` is interleaved."""
    if a.memory_config is not None:
        return memory_of(a.memory_config)
    return (a.memory, None) if a.memory is not None else None


def run(rt: Runtime, a: ToDevice) -> None:
    if _already_on_device(rt, a.src, a.as_):
        return
    host, memory = rt.host_with_shards(a.src), _memory(a) or (BufferType.DRAM, None)
    _uneven_rows(rt, host, memory)
    put(rt, host, a.as_, memory, rt.mesh(a.device))


def run_to(rt: Runtime, a: To) -> None:
    if _already_on_device(rt, a.tensor, a.as_):
        return
    host = rt.host_with_shards(a.tensor)
    memory = _memory(a) or host.spec.memory_config
    _uneven_rows(rt, host, memory)
    put(rt, host, a.as_, memory, rt.mesh(a.device))


def _uneven_rows(rt: Runtime, host: HostTensor, memory) -> None:
    """The era's refusal of ROW_MAJOR rows that the shard width does not divide (rule
    ``uneven_row_major_shards``: refused; docs/semantics.md section 16): ttnn 0.66.0 and 0.67.0 page
    the host rows by the shard width without padding them first, whatever the mesh or the mapper,
    in height shards as in width and block shards (observed, tests/golden ``ttnn_placement_eras.json``:
    a height shard wider than the row, tt-metal issue #22947, is refused too); 0.81.1 pads them."""
    shard = memory[1] if isinstance(memory, tuple) else None
    if rt.profile.uneven_row_major_shards is not UnevenRowMajorShards.REFUSED or shard is None or shard.is_nd:
        return
    for spec in {s.spec for s in host.shards.values()}:
        width = spec.padded_shape[-1] if spec.shape else 1
        if spec.layout is Layout.ROW_MAJOR and width % shard.shape[1]:
            if shard.layout is MemoryLayout.HEIGHT_SHARDED:
                why = (f"this era takes the host rows' width, {width}, as the physical width where 0.81.1 pads each row to the "
                       f"shard width: issue #22947")
            else:
                why = (f"2025's words: Physical size (1, {width}) must be multiple of page size (1, {shard.shape[1]}); this era pages "
                       f"the host rows {list(spec.shape)} by the shard width without padding them to a whole number of shards: "
                       "issues #20726, #22396")
            raise TTFatal(f"Physical width {width} must be multiple of page width {shard.shape[1]} (tensor_layout.cpp:186 in ttnn "
                          f"0.66.0 and 0.67.0; {why})")


def _already_on_device(rt: Runtime, src: str, name: str) -> bool:
    """A device tensor put on a device again is returned as it is: the same storage and records,
    whatever memory config or mesh device is asked (ttnn 0.81.1, tests/golden ``api``)."""
    t = rt.item(src)
    if not isinstance(t, DeviceTensor):
        return False
    dev = rt.device(src)
    rt.bind(name, dev if name == src else alias(dev, name))
    return True


def _generate(rng, st, op: str) -> Step:
    """A host tensor put on the mesh."""
    if not st.hosts:
        return None
    src = rng.choice(list(st.hosts))
    name = st.fresh("d")
    st.devices[name] = list(st.hosts[src][0])
    st.kinds[name] = st.kinds.get(src, DEFAULT_KIND)
    return {"to_device": {"src": src, "as": name}}


def _export_to_device(a, ctx):
    memory = ex.memory_code(a)
    tail = f", memory_config={memory}" if memory != "None" else ""
    return [f"{ctx.var(a.as_)} = ttnn.to_device({ctx.var(a.src)}, {ctx.mesh(a.device)}{tail})"]


def _export_to(a, ctx):
    memory = ex.memory_code(a)
    tail = f", {memory}" if memory != "None" else ""
    return [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.to({ctx.mesh(a.device)}{tail})"]


OP = Op(
    "to_device",
    ToDevice,
    run,
    "Put a host tensor on the mesh (DRAM unless told): a new device tensor recording exactly the shards written.",
    "ttnn.to_device(host_tensor, mesh_device, memory_config=None)",
    uses=(Use("src", TensorKind.ANY), Use("device", TensorKind.MESH)),
    binds=Use("as_", TensorKind.DEVICE),
    hints=(("tensor", "to_device names its tensor `src`"),),
    captured=False, only_makes=True,
    generate=_generate, fault_site=True,
    export=_export_to_device,
)

TO = Op(
    "to",
    To,
    run_to,
    "Put a host tensor on the mesh in its own memory config (Tensor.to), recording exactly the shards written.",
    "host_tensor.to(mesh_device, memory_config=None)",
    uses=(Use("tensor", TensorKind.ANY), Use("device", TensorKind.MESH)),
    binds=Use("as_", TensorKind.DEVICE),
    captured=False, only_makes=True,
    export=_export_to,
)
