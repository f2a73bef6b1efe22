"""Tensors created on a mesh: ``ttnn.empty``, ``zeros`` / ``ones`` / ``full``, and their ``_like``
forms (docs/semantics.md section 9).

ttnn 0.81.1 records them with three different spellings of "everywhere" (tests/golden ``api``):

- ``empty(shape, device=mesh)``: ``create_device_tensor``, the allocation's topology, the mesh's
  shape with a Replicate per axis: (2, 4) [R, R] on a T3K (issue #36804). Default layout ROW_MAJOR.
- ``zeros`` / ``ones`` / ``full(shape, device=mesh)``: filled on host, then ``to_device`` of a 1x1
  host buffer: ``create_fully_replicated_tensor_topology``, (8) [R] (creation.cpp ``full_impl``,
  issue #54822). Without a device, a host tensor. Default layout ROW_MAJOR.
- ``empty_like(t)``: the input's topology when the input is on device and its distribution is as
  large as the target mesh, else the allocation's (PR #40930; observed). ``zeros_like`` & co. fill
  on device: a device op, whose output takes the input's topology (default imputation,
  ``ttnn/core/device_operation_detail.cpp``); the mock cannot run device ops, so these rest on the
  source. Their host forms give a plain host tensor of the input's spec; ttnn 0.66.0 dies on them
  (profile rule ``fill_like``, docs/semantics.md section 23).
"""

from __future__ import annotations

from typing import Optional

from ...errors import Crash, TTFatal
from ...typed import Typed
from ..mesh import volume
from ..profiles import FillLike
from ..runtime import Runtime
from ..spec import DataType, Layout, make_spec
from ..tensor import DeviceTensor
from ..values import generate
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import Step, on_device, same
from .output import allocation, emit, plain_host, shard
from .fields import As, FillValue, MemoryConfig, MeshName, Name, TensorFields, memory_of
from .transfer import put


class Empty(TensorFields):
    """``ttnn.empty(shape, dtype, layout, device, memory_config)``."""

    layout: Layout = Layout.ROW_MAJOR
    device: MeshName
    as_: As


class Filled(TensorFields):
    """``ttnn.zeros`` / ``ttnn.ones`` (shape, dtype, layout, device=None, memory_config=None)."""

    layout: Layout = Layout.ROW_MAJOR
    device: Optional[MeshName] = None
    as_: As


class Full(Filled):
    """``ttnn.full(shape, fill_value, dtype, layout, device=None, memory_config=None)``."""

    fill_value: FillValue


class Like(Typed):
    """``ttnn.empty_like`` / ``zeros_like`` / ``ones_like`` (tensor, dtype=None, layout=None, device=None, memory_config=None)."""

    tensor: Name
    dtype: Optional[DataType] = None
    layout: Optional[Layout] = None
    device: Optional[MeshName] = None
    memory_config: Optional[MemoryConfig] = None
    as_: As


class FullLike(Like):
    """``ttnn.full_like(tensor, fill_value, ...)``."""

    fill_value: FillValue


def empty(rt: Runtime, a: Empty) -> None:
    spec = rt.field_spec(a)
    rt.bind(a.as_, allocation(rt, spec, rt.mesh(a.device), a.as_))


def _fill(rt: Runtime, a: Filled, value: float) -> None:
    spec = a.spec(rt.arch)
    values = generate("fill", tuple(spec.shape), spec.dtype, value) if rt.with_data else None
    host = plain_host(rt, a.as_, spec, values)
    if a.device is None:
        rt.bind(a.as_, host)
    else:
        put(rt, host, a.as_, spec.memory_config, rt.mesh(a.device))  # sharded as asked (observed: tests/golden sharded op_outputs)


def zeros(rt: Runtime, a: Filled) -> None:
    _fill(rt, a, 0)


def ones(rt: Runtime, a: Filled) -> None:
    _fill(rt, a, 1)


def full(rt: Runtime, a: Full) -> None:
    _fill(rt, a, a.fill_value)


def _like_spec(rt: Runtime, a: Like, t):
    spec = t.record.spec if isinstance(t, DeviceTensor) else t.spec
    memory, shard = memory_of(a.memory_config) if a.memory_config is not None else spec.memory_config
    return make_spec(spec.shape, a.dtype or spec.dtype, a.layout or spec.layout, spec.tile, memory, rt.arch, shard)


def empty_like(rt: Runtime, a: Like) -> None:
    t = rt.item(a.tensor)
    if isinstance(t, DeviceTensor):
        t = rt.device(a.tensor)
        mesh = rt.mesh(a.device) if a.device else rt.mesh_of(t)
    elif a.device is None and rt.profile.fill_like is FillLike.HOST_CRASH:  # ttnn 0.66.0: buffer.cpp's check (a tester, observed)
        raise TTFatal(f"Device needs to not be null. (empty_like of the host tensor {a.tensor} with no device allocates on none; give "
                      "a device)")
    elif a.device is None:
        raise Crash(f"empty_like of the host tensor {a.tensor} with no device: the real library crashes here (SIGSEGV); give a device", "SIGSEGV")
    else:
        mesh = rt.mesh(a.device)
    spec = _like_spec(rt, a, t)
    topology = None
    if isinstance(t, DeviceTensor) and volume(t.record.topology.distribution_shape) == mesh.num_devices:
        topology = t.record.topology  # PR #40930: the input's topology, when its distribution fills the mesh
    rt.bind(a.as_, allocation(rt, spec, mesh, a.as_, topology))


def _fill_like(rt: Runtime, a: Like, op: str, value: float) -> None:
    t = rt.item(a.tensor)
    _check_fill_like(rt, a, op, t)
    spec = _like_spec(rt, a, t)
    values = generate("fill", tuple(spec.shape), spec.dtype, value) if rt.with_data else None
    if not isinstance(t, DeviceTensor):
        host = plain_host(rt, a.as_, spec, values)
        if a.device is None:
            rt.bind(a.as_, host)
        else:
                    put(rt, host, a.as_, spec.memory, rt.mesh(a.device))
        return
    dev = rt.device(a.tensor)
    mesh = rt.mesh(a.device) if a.device else rt.mesh_of(dev)
    # a device op on the input's devices that reads none of its values; the input's topology
    value = plain_host(rt, a.as_, spec, values).shards[(0, 0)].values
    shards = {c: shard(c, spec, value, rt) for c in dev.record.recorded}
    emit(rt, a.as_, mesh, spec, dev.record.topology, shards, dict.fromkeys(shards, ()))


def _check_fill_like(rt: Runtime, a: Like, op: str, t) -> None:
    """Where the era's ``fill_like`` rule says the process dies: of a host tensor on ttnn 0.66.0
    (observed: tests/golden ``api`` "creation"; docs/semantics.md section 23)."""
    if rt.profile.fill_like is FillLike.HOST_CRASH and not isinstance(t, DeviceTensor):
        raise Crash(f"{op} of the host tensor {a.tensor}: the real library crashes here (SIGSEGV; profile "
                    f"{rt.profile.name}, fill_like {rt.profile.fill_like.value}: observed in mock mode)", "SIGSEGV")


def zeros_like(rt: Runtime, a: Like) -> None:
    _fill_like(rt, a, "zeros_like", 0)


def ones_like(rt: Runtime, a: Like) -> None:
    _fill_like(rt, a, "ones_like", 1)


def full_like(rt: Runtime, a: FullLike) -> None:
    _fill_like(rt, a, "full_like", a.fill_value)


_DEVICE = Use("device", TensorKind.MESH)


def _kind(a) -> TensorKind:
    return TensorKind.DEVICE if getattr(a, "device", None) is not None else TensorKind.HOST


def _full_like_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    st.devices[name] = list(shape)
    return {op: {"tensor": dev, "fill_value": rng.choice([0.5, 2, -1]), "as": name}}


OPS = (
    Op("empty", Empty, empty, "Allocate a device tensor (ROW_MAJOR unless told); topology the mesh's shape with R on each axis.",
       "ttnn.empty(shape, dtype, layout, device=mesh_device)", uses=(_DEVICE,), binds=Use("as_", TensorKind.DEVICE), only_makes=True, export=ex.creation("empty")),
    Op("zeros", Filled, zeros, "Zeros, filled on host and put on the device when given: topology (num_devices) [R].",
       "ttnn.zeros(shape, dtype, layout, device=mesh_device)", uses=(_DEVICE,), binds=Use("as_", TensorKind.HOST), kind_of=_kind, only_makes=True, export=ex.creation("zeros")),
    Op("ones", Filled, ones, "Ones, filled on host and put on the device when given: topology (num_devices) [R].",
       "ttnn.ones(shape, dtype, layout, device=mesh_device)", uses=(_DEVICE,), binds=Use("as_", TensorKind.HOST), kind_of=_kind, only_makes=True, export=ex.creation("ones")),
    Op("full", Full, full, "fill_value everywhere, filled on host and put on the device when given: topology (num_devices) [R].",
       "ttnn.full(shape, fill_value, dtype, layout, device=mesh_device)", uses=(_DEVICE,), binds=Use("as_", TensorKind.HOST), kind_of=_kind, only_makes=True, export=ex.creation("full", fill=True)),
    Op("empty_like", Like, empty_like, "Allocate like a tensor; its topology if on device and its distribution fills the mesh.",
       "ttnn.empty_like(tensor, device=mesh_device)", uses=(Use("tensor", TensorKind.ANY), _DEVICE), binds=Use("as_", TensorKind.DEVICE), export=ex.like("empty_like")),
    Op("zeros_like", Like, zeros_like, "Zeros like a tensor; a device op on a device tensor (the input's topology and devices).",
       "ttnn.zeros_like(tensor)", uses=(Use("tensor", TensorKind.ANY), _DEVICE), binds=Use("as_", TensorKind.ANY), generate=on_device(same), export=ex.like("zeros_like")),
    Op("ones_like", Like, ones_like, "Ones like a tensor; a device op on a device tensor (the input's topology and devices).",
       "ttnn.ones_like(tensor)", uses=(Use("tensor", TensorKind.ANY), _DEVICE), binds=Use("as_", TensorKind.ANY), generate=on_device(same), export=ex.like("ones_like")),
    Op("full_like", FullLike, full_like, "fill_value like a tensor; a device op on a device tensor (the input's topology and devices).",
       "ttnn.full_like(tensor, fill_value)", uses=(Use("tensor", TensorKind.ANY), _DEVICE), binds=Use("as_", TensorKind.ANY), generate=on_device(_full_like_step), export=ex.like("full_like", fill=True)),
)
