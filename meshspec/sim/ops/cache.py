"""Tensor files: ``ttnn.dump_tensor`` / ``ttnn.load_tensor`` and ``ttnn.as_tensor(..., cache_file_name=)``
(docs/semantics.md section 9).

Files live in the run, never on disk. What a file keeps and how it loads (ttnn 0.81.1, tests/golden
``api``; ``ttnn/operations/core.py``):

- ``dump_tensor(file_name, tensor)`` needs a ``.tensorbin`` name; a device tensor is gathered to the
  host first. The file keeps the shards and the topology (PR #29158, 2025-09-23).
- ``load_tensor(file_name, device=None)``: the host tensor as dumped, or put on the device; a
  single-shard file is replicated over the whole mesh, (num_devices) [R]. Under the
  ``cache_topology: default`` rule (mid 2025, PR #24765 to PR #29158) it loads with the default
  topology, distribution (1), whatever its shards.
- ``as_tensor(tensor, dtype, layout, mesh_mapper, device, memory_config, cache_file_name)``: the
  file is ``{cache_file_name}_dtype_{DTYPE}_layout_{LAYOUT}.tensorbin``; neither the mapper nor the
  mesh is in the name. On a miss the tensor is made on host (a ``ReplicateTensorToMesh`` one
  unsharded), dumped, then put on the device with ``memory_config``; on a hit the file is loaded.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional

from ...errors import TTFatal
from ...typed import Typed
from ..profiles import CacheTopology
from ..readback import read
from ..runtime import Runtime
from ..tensor import DeviceTensor, HostTensor
from .base import Op, TensorKind, Use
from .output import default_topology
from .fields import As, Data, FileName, Mapper, MeshName, Name, TensorFields
from .transfer import make_host, put


class DumpTensor(Typed):
    """``ttnn.dump_tensor(file_name, tensor)``."""

    file_name: FileName
    tensor: Name


class LoadTensor(Typed):
    """``ttnn.load_tensor(file_name, device=None)``."""

    file_name: FileName
    device: Optional[MeshName] = None
    as_: As


class AsTensor(TensorFields):
    """``ttnn.as_tensor(tensor, dtype, layout, mesh_mapper, device, memory_config, cache_file_name)``."""

    as_: As
    data: Data = "arange"
    mesh_mapper: Optional[Mapper] = None
    device: Optional[MeshName] = None
    cache_file_name: Optional[FileName] = None


def dump(rt: Runtime, file_name: str, t, name: str) -> None:
    if not file_name.endswith(".tensorbin"):
        raise TTFatal(f"File {file_name} must have .tensorbin extension")
    if isinstance(t, DeviceTensor):
        t = read(rt, rt.device(name), f"{name}.dumped")
    rt.tensor_files[file_name] = t


def load(rt: Runtime, file_name: str, name: str, device: Optional[str], memory=None) -> None:

    stored = rt.tensor_files.get(file_name)
    if stored is None:
        raise TTFatal(f"Unable to load the tensor from {file_name}.  The file does not exist.")
    assert isinstance(stored, HostTensor)
    host = replace(stored, name=name, step=rt.step)
    if rt.profile.cache_topology is CacheTopology.DEFAULT:
        host = replace(host, topology=default_topology())
    if device is None:
        rt.bind(name, host)
    else:
        put(rt, host, name, memory or host.spec.memory, rt.mesh(device))


def dump_tensor(rt: Runtime, a: DumpTensor) -> None:
    dump(rt, a.file_name, rt.item(a.tensor), a.tensor)


def load_tensor(rt: Runtime, a: LoadTensor) -> None:
    load(rt, a.file_name, a.as_, a.device)


def cache_file(cache_file_name: str, a: TensorFields) -> str:
    """``as_tensor``'s file name for ``cache_file_name`` (ttnn/operations/core.py: dtype and layout
    only: the mapper and the mesh are not in it)."""
    return f"{cache_file_name}_dtype_{a.dtype.value.upper()}_layout_{a.layout.value.upper()}.tensorbin"


def as_tensor(rt: Runtime, a: AsTensor) -> None:
    from .mappers import mapper_choice

    if a.device is not None and a.memory_config is None:
        raise TTFatal("memory_config must be specified when device is specified")
    choice = mapper_choice(a.mesh_mapper, lambda m: rt.mesh(m).num_devices) if a.mesh_mapper is not None else None
    mesh = rt.mesh(choice.mesh if choice is not None and choice.mesh else a.device)
    if a.cache_file_name is not None:
        file_name = cache_file(a.cache_file_name, a)
        if file_name in rt.tensor_files:
            load(rt, file_name, a.as_, a.device, a.buffer_type)
            return
        if choice is not None and choice.replicate_wrapper:
            choice = None  # a ReplicateTensorToMesh tensor is cached unsharded
        host = make_host(rt, a, a.as_, choice, mesh)
        dump(rt, file_name, host, a.as_)
    else:
        host = make_host(rt, a, a.as_, choice, mesh)
    if a.device is None:
        rt.bind(a.as_, host)
    else:
        put(rt, host, a.as_, a.placement, rt.mesh(a.device))


def _kind(a) -> TensorKind:
    return TensorKind.DEVICE if a.device is not None else TensorKind.HOST


OPS = (
    Op("dump_tensor", DumpTensor, dump_tensor, "Write a tensor (a device one gathered to host) to a .tensorbin file, in the run.",
       "ttnn.dump_tensor(file_name, tensor)", uses=(Use("tensor", TensorKind.ANY),)),
    Op("load_tensor", LoadTensor, load_tensor, "Load a .tensorbin file a step dumped; on the device when given.",
       "ttnn.load_tensor(file_name, device=None)", uses=(Use("device", TensorKind.MESH),),
       binds=Use("as_", TensorKind.HOST), kind_of=_kind),
    Op("as_tensor", AsTensor, as_tensor, "from_torch with a tensor cache: a miss dumps the tensor, a hit loads the file.",
       "ttnn.as_tensor(tensor, dtype, layout, mesh_mapper=..., device=..., memory_config=..., cache_file_name=...)",
       uses=(Use("device", TensorKind.MESH),), binds=Use("as_", TensorKind.HOST), kind_of=_kind),
)
