"""Tensor files: ``ttnn.dump_tensor`` / ``ttnn.load_tensor`` and ``ttnn.as_tensor(..., cache_file_name=)``
(docs/semantics.md section 9).

Files live in the run, never on disk. What a file keeps and how it loads (ttnn 0.81.1, tests/golden
``api``; ``ttnn/operations/core.py``):

- ``dump_tensor(file_name, tensor)`` needs a ``.tensorbin`` name; a device tensor is gathered to the
  host first. The file keeps the shards (below) and the topology (PR #29158, 2025-09-23).
- ``load_tensor(file_name, device=None)``: the host tensor as dumped, or put on the device; a
  single-shard file is replicated over the whole mesh, (num_devices) [R]; on a device it keeps the
  memory config it was dumped with, a sharded one too (the ``load_memory`` rule: DRAM interleaved
  before PR #26831, issue #26763). Under the
  ``cache_topology: default`` rule (mid 2025, PR #24765 to PR #29158) it loads with the default
  topology, distribution (1), whatever its shards.
- ``as_tensor(tensor, dtype, layout, mesh_mapper, device, memory_config, cache_file_name)``: the
  file is ``{cache_file_name}_dtype_{DTYPE}_layout_{LAYOUT}.tensorbin``; neither the mapper nor the
  mesh is in the name. On a miss the tensor is made on host (a ``ReplicateTensorToMesh`` one
  unsharded), dumped, then put on the device with ``memory_config``; on a hit the file is loaded.

What a file keeps per shard, and what a load puts on each device, is the era's
:class:`~meshspec.sim.profiles.TensorFile` rule (docs/semantics.md section 20): ttnn 0.81.1 keeps one
shard for each group of devices the topology says hold copies, so a label that says Replicate over
devices that hold different slices loads back with the first one's slice on all of them. Each load
leaves a :class:`~meshspec.sim.events.Loaded` event saying which dumped shard each device got; the
judge compares them (a device given another device's slice is a ``data_mismatch``).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Optional

from ...errors import Crash, TTFatal
from ...frozen import Frozen
from ...typed import Typed
from ..events import Loaded
from ..mesh import Coord, volume
from ..placement import Replicate, Topology
from ..profiles import CacheTopology, DumpOverwrite, LoadMemory, TensorFile
from ..readback import read
from ..runtime import Runtime
from ..spec import BufferType, DataType, Layout
from ..tensor import DeviceTensor, HostShard, HostTensor
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, KINDS, Step, kind_fields, new_mapper, new_shape
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


class StoredFile(Frozen):
    """A ``.tensorbin`` file of the run: the tensor that was dumped, and what the file keeps of it."""

    dumped: HostTensor
    """The tensor ``dump_tensor`` was given (a device tensor read back from its devices first)."""
    kept: HostTensor
    """What a host load gives: each coordinate's shard is the dumped shard of ``held``'s coordinate."""
    held: tuple[tuple[Coord, Coord], ...]
    """For each shard the file gives back, (its coordinate, the coordinate of the dumped shard it holds)."""
    why: str = ""
    """How the file came to keep fewer shards than were dumped, in the era's words ("": it did not)."""


def dump(rt: Runtime, file_name: str, t, name: str) -> None:
    if not file_name.endswith(".tensorbin"):
        raise TTFatal(f"File {file_name} must have .tensorbin extension")
    if rt.profile.dump_overwrite is DumpOverwrite.IN_PLACE and getattr(t, "mapped_from", None) == file_name:
        raise Crash(f"dump_tensor of {name} into {file_name}, the file it was loaded from and still reads through a map of: "
                    "the file is truncated first, then its bytes are read past the new end, and the real library dies here "
                    f"(SIGBUS; profile {rt.profile.name}, dump_overwrite in_place: observed in mock mode; docs/semantics.md section 23)",
                    "SIGBUS")
    made_by_op = isinstance(t, DeviceTensor) and t.provenance is not None
    if isinstance(t, DeviceTensor):
        t = read(rt, rt.device(name), f"{name}.dumped")
    rt.tensor_files[file_name] = keep(rt.profile.tensor_file, t, made_by_op)


def keep(rule: TensorFile, t: HostTensor, made_by_op: bool = False) -> StoredFile:
    """What a file of ``t`` keeps under ``rule`` (``made_by_op``: ``t`` was read back from a device
    op's output, whose legacy distribution config was the default, ReplicateTensor)."""
    coords = list(t.shards)
    if rule is TensorFile.COLLAPSE_REPLICATED:
        held = _group_firsts(t.topology, t.shards)
        why = f"the file kept one shard for each group of devices its topology {t.topology} says hold copies"
    elif len(coords) > 1 and (
        rule is TensorFile.FIRST_SHARD
        or (rule is TensorFile.REPLICATED_CONFIG and (made_by_op or _all_replicate(t.topology)))
    ):
        first = coords[0]
        only = replace(t.shards[first], coord=(0,) * len(first), origin=None)
        kept = HostTensor(t.name, t.step, only.spec, _single(len(first)), {only.coord: only}, plain=True, buffer_shape=(1, 1))
        why = ("the serialiser wrote the first device's shard alone (tt-xla #5177)" if rule is TensorFile.FIRST_SHARD else
               "the legacy serialiser wrote the first shard alone of a tensor whose distribution config is ReplicateTensor "
               f"({'a device op output keeps the default config' if made_by_op else 'its topology is ' + str(t.topology)}; issue #26637)")
        return StoredFile(t, kept, ((only.coord, first),), why)
    else:
        held = {c: c for c in coords}
        why = ""
    if all(c == d for c, d in held.items()):
        return StoredFile(t, t, tuple(held.items()))
    shards = {c: replace(t.shards[d], coord=c, origin=None) for c, d in held.items()}
    kept = replace(t, shards=shards)
    return StoredFile(t, kept, tuple(held.items()), why)


def _all_replicate(topology: Topology) -> bool:
    return bool(topology.placements) and all(isinstance(p, Replicate) for p in topology.placements)


def _single(rank: int) -> Topology:
    return Topology((1,), (Replicate(),), ((0,) * rank,))


def _group_firsts(topology: Topology, shards: dict) -> dict:
    """For each shard's coordinate, the first device of its group of copies: its distribution
    position with every Replicate axis at 0 (ttnn 0.81.1: a (2, 4) [R, S(3)] label keeps row 0's
    four shards, observed). A label that does not describe its devices takes nothing for a copy."""
    shape, coords = tuple(topology.distribution_shape), topology.coords
    if len(coords) != volume(shape) or len(topology.placements) != len(shape):
        return {c: c for c in shards}
    index = {c: i for i, c in enumerate(coords)}
    out = {}
    for c in shards:
        i = index.get(c)
        if i is None:
            out[c] = c
            continue
        first, stride = 0, 1
        for n, placement in zip(reversed(shape), reversed(topology.placements)):
            if not isinstance(placement, Replicate):
                first += (i % n) * stride
            i //= n
            stride *= n
        out[c] = coords[first] if coords[first] in shards else c
    return out


def load(rt: Runtime, file_name: str, name: str, device: Optional[str], memory=None) -> None:
    stored = rt.tensor_files.get(file_name)
    if stored is None:
        raise TTFatal(f"Unable to load the tensor from {file_name}.  The file does not exist.")
    assert isinstance(stored, StoredFile)
    host = replace(stored.kept, name=name, step=rt.step)
    held, why = stored.held, stored.why
    if device is not None and not host.shards:
        raise TTFatal(f"load_tensor: {file_name} holds no shard (it was dumped from {stored.dumped.read_from or stored.dumped.name}, "
                      "which records no device); there is nothing to write")
    if device is not None and rt.profile.tensor_file is TensorFile.REPLICATE_ON_LOAD and not host.plain:
        first = next(iter(host.shards.values()))
        only = replace(first, coord=(0,) * len(first.coord), origin=None)
        host = HostTensor(name, rt.step, only.spec, _single(len(only.coord)), {only.coord: only}, plain=True, buffer_shape=(1, 1))
        held = ((only.coord, dict(held)[first.coord]),)
        why = "the load put the first shard on every device: the loaded storage lost its distribution (issue #8228)"
    if rt.profile.cache_topology is CacheTopology.DEFAULT:
        host = replace(host, topology=default_topology())
    if device is None:  # its shards are read from the file lazily, through a map of it
        rt.bind(name, replace(host, mapped_from=file_name))
    else:
        mesh = rt.mesh(device)
        if memory is None:  # the file's own config (a sharded one too), or the era's default one
            kept = rt.profile.load_memory is LoadMemory.KEPT
            memory = (host.spec.memory, host.spec.shard) if kept else BufferType.DRAM
        put(rt, host, name, memory, mesh)
        if host.plain:  # one shard, replicated over the mesh
            held = tuple((c, held[0][1]) for c in mesh.coords)
    rt.events.append(Loaded(rt.step, name, file_name, stored.dumped, held, why))


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
    mesh = rt.mesh(choice.mesh if choice is not None else a.device)  # the mapper's own mesh device (as from_torch)
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


def _dump_step(rng, st, op: str) -> Step:
    """A live tensor into a new file (or over one dumped before, now and then). Tensor files live
    in the run, never on disk (docs/semantics.md section 9): the names reach no folder."""
    tensors = [*st.hosts, *st.devices]
    if not tensors:
        return None
    src = rng.choice(tensors)
    file = rng.choice(list(st.files)) if st.files and rng.random() < 0.2 else f"f{st.fresh('')}.tensorbin"
    st.files[file] = list(st.hosts[src][0] if src in st.hosts else st.devices[src])
    st.loaded.discard(file)
    st.kinds[file] = st.kinds.get(src, DEFAULT_KIND)
    return {op: {"file_name": file, "tensor": src}}


def _load_step(rng, st, op: str) -> Step:
    """A file dumped before (one not loaded since, when there is one), on the host or on the mesh."""
    if not st.files:
        return None
    file = rng.choice([f for f in st.files if f not in st.loaded] or list(st.files))
    st.loaded.add(file)
    shape, kind = list(st.files[file]), st.kinds.get(file, DEFAULT_KIND)
    if rng.random() < 0.5:
        name = st.fresh("d")
        st.devices[name], st.kinds[name] = shape, kind
        return {op: {"file_name": file, "device": "mesh_device", "as": name}}
    name = st.fresh("h")
    st.hosts[name], st.kinds[name] = (shape, None), kind
    return {op: {"file_name": file, "as": name}}


def _as_tensor_step(rng, st, op: str) -> Step:
    """An as_tensor with a cache file: a new cache name (a miss: the tensor mapped, dumped, and put
    on the mesh now and then), or one cached before in the same dtype and layout (a hit: the file
    loaded, whatever the mapper asks now; docs/semantics.md section 9)."""
    cached = [f for f in st.files if f.split("_dtype_")[0] in st.caches]
    if cached and rng.random() < 0.5:
        file = rng.choice(cached)
        cache = file.split("_dtype_")[0]
        shape, kind = list(st.files[file]), st.kinds.get(file, DEFAULT_KIND)
        whole = list(st.caches[cache])  # the shape it was first made of (a hit ignores the one given)
        mapper = new_mapper(rng, st, whole)[0]
    else:
        cache, kind = st.fresh("c"), rng.choice(KINDS) if rng.random() < 0.3 else DEFAULT_KIND
        whole = new_shape(rng, st.size)
        mapper, _, shape = new_mapper(rng, st, whole)
        if mapper == "replicate":
            shape = list(whole)
        file = f"{cache}_dtype_{kind[0].upper()}_layout_{kind[1].upper()}.tensorbin"
        st.files[file], st.kinds[file], st.caches[cache] = list(shape), kind, list(whole)
        st.loaded.add(file)
    args: dict[str, Any] = {"shape": whole, **kind_fields(kind), "mesh_mapper": mapper, "cache_file_name": cache}
    if rng.random() < 0.5:
        name = st.fresh("d")
        st.devices[name], st.kinds[name] = list(shape), kind
        args.update(device="mesh_device", memory_config="DRAM_MEMORY_CONFIG")
    else:
        name = st.fresh("h")
        st.hosts[name], st.kinds[name] = (list(shape), None), kind
    return {"as_tensor": {"as": name, **args}}


def _export_dump_tensor(a, ctx):
    return [f"ttnn.dump_tensor(files / {ex.in_files(a.file_name)!r}, {ctx.var(a.tensor)})"]


def _export_load_tensor(a, ctx):
    device = f", device={ctx.mesh(a.device)}" if a.device else ""
    return [f"{ctx.var(a.as_)} = ttnn.load_tensor(files / {ex.in_files(a.file_name)!r}{device})"]


def _export_as_tensor(a, ctx):
    device = ctx.mesh(a.device) if a.device else "None"
    memory = ex.memory_code(a) if a.memory_config is not None else "None"
    cache = f"files / {ex.in_files(a.cache_file_name)!r}" if a.cache_file_name is not None else "None"
    return [
        f"{ctx.var(a.as_)} = as_tensor({ex.data_code(a, ctx)}, {ex.DTYPES[DataType(a.dtype)]}, {ex.LAYOUTS[Layout(a.layout)]}, "
        f"mapper={ex.mapper_code(a.mesh_mapper, ctx)}, device={device}, memory_config={memory}, cache_file_name={cache})"
    ]


OPS = (
    Op("dump_tensor", DumpTensor, dump_tensor, "Write a tensor (a device one gathered to host) to a .tensorbin file, in the run.",
       "ttnn.dump_tensor(file_name, tensor)", uses=(Use("tensor", TensorKind.ANY),), captured=False, generate=_dump_step, export=_export_dump_tensor),
    Op("load_tensor", LoadTensor, load_tensor, "Load a .tensorbin file a step dumped; on the device when given.",
       "ttnn.load_tensor(file_name, device=None)", uses=(Use("device", TensorKind.MESH),),
       binds=Use("as_", TensorKind.HOST), kind_of=_kind, captured=False, only_makes=True, generate=_load_step, export=_export_load_tensor),
    Op("as_tensor", AsTensor, as_tensor, "from_torch with a tensor cache: a miss dumps the tensor, a hit loads the file.",
       "ttnn.as_tensor(tensor, dtype, layout, mesh_mapper=..., device=..., memory_config=..., cache_file_name=...)",
       uses=(Use("device", TensorKind.MESH),), binds=Use("as_", TensorKind.HOST), kind_of=_kind, captured=False, generate=_as_tensor_step, export=_export_as_tensor),
)
