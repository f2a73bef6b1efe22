"""Per-device tensors: ``ttnn.get_device_tensors(t)`` and ``ttnn.combine_device_tensors(tensors=[...])``.

What ttnn 0.81.1 does (tests/golden ``api``; docs/semantics.md section 9):

- ``get_device_tensors(device_tensor)``: one tensor per *recorded* device (``device_coords()``),
  in that order; each holds the parent's storage at one coordinate and reports the parent's
  topology (shared: change it through a part and the parent changes). After the seed's copy that
  is 7 tensors, not 8.
- on a mesh spread over several hosts, ``get_device_tensors(device_tensor)`` gives the parts of the
  devices this host owns only (issue #22042: "the function will return only host-local shards";
  docs/semantics.md section 15).
- after ``MeshDevice.reshape`` a recorded coordinate off the mesh is refused (``DeviceStorage
  coordinate ... is out of bounds for mesh device shape ...``); ttnn 0.66.0 and 0.67.0 give the parts
  at the old coordinates (profiles ``reshaped_storage``, docs/semantics.md section 23).
- ``get_device_tensors(host_tensor)``: one single-shard host tensor per populated shard, each with
  the default topology, distribution (1) [Replicate] on (0, 0).
- ``combine_device_tensors(tensors=[...])``: parts of one storage put back together: device
  coordinates the parts' (sorted), topology ``(n) [Shard(0)]`` on coordinates ``(0, 0) ... (0, n-1)``
  (flat positions written as mesh coordinates) -- written into the topology every handle on that
  storage shares, so the parent now claims it too.
"""

from __future__ import annotations

from ...errors import TTFatal
from ..mesh import ttnn_shape
from ..placement import Replicate, Shard, Topology
from ..profiles import CombineCheck, Handles, ReshapedStorage
from ..runtime import Runtime
from ..tensor import DeviceTensor, HostShard, HostTensor, Record, Tensor
from ...typed import Typed
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import Step, on_device
from .fields import As, Name, Names
from .output import DEFAULT_TOPOLOGY_ORIGIN, default_topology
from .transfer import check_api


class GetDeviceTensors(Typed):
    """``ttnn.get_device_tensors(tensor)``: its per-device tensors, bound as ``as[0]``, ``as[1]`` ..."""

    tensor: Name
    as_: As


class CombineDeviceTensors(Typed):
    """``ttnn.combine_device_tensors(tensors=[...])``: per-device tensors of one storage, combined."""

    tensors: Names
    """Per-device tensors (``parts[0]``, ...), or the name of a list of them (``parts``)."""
    as_: As


def get_device_tensors(rt: Runtime, a: GetDeviceTensors) -> None:
    t = rt.item(a.tensor)
    parts: list[Tensor]
    if isinstance(t, DeviceTensor):
        dev = rt.device(a.tensor)
        rec = dev.record
        mesh = rt.mesh_of(dev)
        checked = rt.profile.reshaped_storage is ReshapedStorage.CHECKED  # unchecked: parts at the old coordinates (0.6x)
        for c in rec.recorded if checked else ():  # after MeshDevice.reshape a recorded coordinate may be off the mesh
            if not mesh.has(c):
                raise TTFatal(
                    f"DeviceStorage coordinate {ttnn_shape(c, 'MeshCoordinate')} is out of bounds for mesh device shape "
                    f"{ttnn_shape(mesh.shape)}"
                )
        # on a multi-host mesh, the parts of the devices this host owns only (issue #22042)
        held = tuple(c for c in rec.recorded if rt.is_local(mesh, c)) if rt.hosts is not None else rec.recorded
        rt.charge_work(len(held), f"the per-device tensors of {dev.name}")  # a part a device
        own = rt.profile.handles is Handles.OWN
        parts = []
        for c in held:
            spec = rec.specs.get(c, rec.spec)
            origin = {c: rec.origin.get(c, rt.step)}
            if own:  # each part its own topology, on its own device
                part_rec = Record(spec, Topology((1,), (Replicate(),), (c,)), {c: spec}, (c,), origin)
            else:  # the parent's topology: shared (ttnn 0.81.1), or a copy of it (0.66.0, 0.67.0)
                shared = rec.shared if rt.profile.handles is Handles.SHARED else None
                part_rec = Record(spec, rec.topology, {c: spec}, (c,), origin, shared=shared)
            parts.append(DeviceTensor(a.as_, rt.step, dev.buffer, part_rec, dev.mesh, span=(c,)))
    else:
        rt.charge_work(len(t.shards), f"the per-shard tensors of {a.tensor}")
        parts = []
        for c, shard in t.shards.items():
            one = HostShard(DEFAULT_TOPOLOGY_ORIGIN, shard.spec, shard.values, shard.offset, shard.origin, shard.composed_from)
            parts.append(
                HostTensor(a.as_, rt.step, shard.spec, default_topology(), {DEFAULT_TOPOLOGY_ORIGIN: one}, plain=True,
                           source_values=None, buffer_shape=(1, 1), read_from=t.read_from)
            )
    rt.bind_list(a.as_, parts)


def combine_device_tensors(rt: Runtime, a: CombineDeviceTensors) -> None:
    check_api(rt, "combine_device_tensors")
    names = [n for name in a.tensors for n in rt.names(name)]
    if not names:
        raise TTFatal("At least one tensor shard must be provided")
    tensors = [rt.item(n) for n in names]
    if any(not isinstance(t, DeviceTensor) for t in tensors):
        raise TTFatal("All tensor shards must be on device")
    if rt.profile.combine_check is CombineCheck.STORAGES:
        # ttnn 0.81.1 checks the storages before anything else (tests/golden api "deallocate_part")
        parts = [rt.device(n, refused="All DeviceStorages must be allocated") for n in names]
        same = "tensor shards must be allocated on the same mesh buffer."
    else:  # 0.66.0, 0.67.0: the mesh buffers only; parts freed since they were taken make a tensor on the
        # freed buffer; a part taken from a freed tensor has no mesh buffer and is refused (tests/golden
        # ttnn_0_6*_0.json api "deallocate_part", ttnn_0_6*_0_freed.json "combine_device_tensors")
        parts = [rt.device(n) if _taken_after_free(rt.item(n)) else rt.device_unchecked(n) for n in names]
        same = ("Error aggregating multichip tensors: tensor shards must be allocated on the same mesh buffer. "
                "Consider moving tensors to host, aggregating, and re-uploading on device storage.")
    buffer = parts[0].buffer
    if any(p.buffer is not buffer for p in parts):
        raise TTFatal(same)
    seen: set = set()
    for p in parts:
        for c in p.record.recorded:
            if c in seen:
                raise TTFatal(f"Found a tensor shard at duplicate coordinate {ttnn_shape(c, 'MeshCoordinate')}")
            seen.add(c)
    coords = tuple(sorted(seen))
    first = parts[0]
    specs = {c: p.record.specs.get(c, p.record.spec) for p in parts for c in p.record.recorded}
    rank = len(buffer.mesh_shape)
    origin = {c: rt.step for c in coords}
    if rt.profile.handles is Handles.OWN:  # its own topology, on the parts' devices
        record = Record(first.record.spec, Topology((len(coords),), (Shard(0),), coords), specs, coords, origin)
    else:  # ttnn 0.81.1: flat positions as coordinates, written into the topology every handle shares (0.6x: its own)
        flat = tuple((0,) * (rank - 1) + (i,) for i in range(len(coords)))
        topology = Topology((len(coords),), (Shard(0),), flat)
        shared = first.record.shared if rt.profile.handles is Handles.SHARED else None  # COPIED: its own
        record = Record(first.record.spec, topology, specs, coords, origin, shared=shared)
    rt.bind(a.as_, DeviceTensor(a.as_, rt.step, buffer, record, first.mesh, span=coords))
    for name, t in rt.tensors.items():  # every handle on the storage now reads the new topology
        if isinstance(t, DeviceTensor) and t.record.shared is record.shared:
            rt.touched.add(name)


def _taken_after_free(t: Tensor) -> bool:
    return isinstance(t, DeviceTensor) and t.freed_step is not None and t.step > t.freed_step


def _generate(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """The first per-device tensor is used on."""
    del st.kinds[name]
    st.devices[f"{name}[0]"], st.kinds[f"{name}[0]"] = list(shape), kind
    return {op: {"tensor": dev, "as": name}}


def _export_get_device_tensors(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.get_device_tensors({ctx.var(a.tensor)})"]


def _export_combine_device_tensors(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.combine_device_tensors(tensors={ex.tensors_code(a.tensors, ctx)})"]


GET = Op(
    "get_device_tensors",
    GetDeviceTensors,
    get_device_tensors,
    "One tensor per recorded device (or per host shard), bound as as[0], as[1] ...; each reports the parent's topology.",
    "ttnn.get_device_tensors(tensor)",
    uses=(Use("tensor", TensorKind.ANY),),
    binds=Use("as_", TensorKind.ANY, many=True),
    only_makes=True,
    generate=on_device(_generate),
    export=_export_get_device_tensors,
)

COMBINE = Op(
    "combine_device_tensors",
    CombineDeviceTensors,
    combine_device_tensors,
    "Per-device tensors of one storage put back together; the topology every handle on it shares becomes (n) [S(0)].",
    "ttnn.combine_device_tensors(tensors=[...])",
    uses=(Use("tensors", TensorKind.DEVICE, many=True),),
    binds=Use("as_", TensorKind.DEVICE),
    export=_export_combine_device_tensors,
)
