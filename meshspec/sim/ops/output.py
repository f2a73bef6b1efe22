"""The one output path of a device op: read what each device holds, hand the result over.

A device op (a unary or binary op, a reduction, a view that copies, a slice, a collective, a
``*_like`` fill, a trace replay) does two things only: it reads its inputs device by device through
:func:`read`, and computes each output device's values from what it read (in metadata mode, only
their shapes). It then hands the per-device results to :func:`emit`, which is the only code that
allocates a device op's output, records it, writes it, binds it and states its provenance:

- the buffer is sized for the widest device (a record can claim more than its tensor's spec);
- the record holds exactly the devices and per-device specs the op computed;
- the write is the op's own (no host tensor was sent, ``Write.host`` is None: a composition of the
  output is judged by its devices, not against a source it never had);
- the :class:`~meshspec.sim.tensor.Provenance` says which step and op made it, how its data is
  really laid over the mesh, and what every output device read, down to how many of the pages
  it read had never been written since their buffer was allocated.

>>> from meshspec.sim.device import NOTHING
>>> NOTHING.plus(0, 2).within(4)   # of four pages read, two were written: two never were
2
"""

from __future__ import annotations

import functools
from typing import Callable, Mapping, Optional

import numpy as np

from ..device import NOTHING
from ..imputation import union
from ..mesh import Coord, Shape, coord_tuple, fmt_coord
from ..meshdevice import MeshDevice
from ..placement import Placement, Replicate, Shard, Topology, as_label, has_partial
from ...errors import TTFatal
from ..profiles import AllocationRecord, GraphCapture, OpTopology
from ..runtime import Runtime
from ..spec import TensorSpec
from ..tensor import DeviceTensor, HostShard, HostTensor, Provenance, Read, Record
from ..values import ShapeOnly, host_dtype


def allocation(rt: Runtime, spec: TensorSpec, mesh: MeshDevice, name: str, topology: Optional[Topology] = None) -> DeviceTensor:
    """A device tensor of ``spec`` allocated on every device of ``mesh``, recorded as the era's
    allocation is (docs/semantics.md section 6); its topology the mesh's shape with a Replicate
    per axis unless given."""
    buffer = rt.new_buffer(spec, mesh)
    spec = rt.placed(spec)  # the grid the era records (section 16); the buffer is made on the grid given
    rule = rt.profile.allocation
    everyone = mesh.coords
    record = Record(  # by position, the per-device dicts made in C (dict.fromkeys)
        spec,
        topology or replicated(mesh.shape),
        {} if rule is AllocationRecord.NONE else dict.fromkeys(everyone, spec),
        everyone if rule is AllocationRecord.ALL else (),
        dict.fromkeys(everyone, rt.step),
    )
    return DeviceTensor(name, rt.step, buffer, record, mesh=mesh if mesh is not rt.root else None)


@functools.lru_cache(maxsize=16)
def replicated(shape: Shape) -> Topology:
    """A Replicate per axis of a mesh of ``shape``, on all its devices: an allocation's topology.
    A value, made once per shape (its coordinate set, too, is then worked out once)."""
    return Topology(shape, tuple(Replicate() for _ in shape), coord_tuple(shape))


DEFAULT_TOPOLOGY_ORIGIN = (0, 0)


def default_topology() -> Topology:
    """The topology of a tensor nothing distributed: (1) [Replicate] on (0, 0) (``TensorTopology{}``,
    ttnn/api/ttnn/distributed/tensor_topology.hpp)."""
    return Topology((1,), (Replicate(),), (DEFAULT_TOPOLOGY_ORIGIN,))


def alias(dev: DeviceTensor, name: str) -> DeviceTensor:
    """Another handle on ``dev``'s storage: the same buffer, records, shared topology and provenance
    (an op that returns its input as it is, ``to_layout`` to the layout it has, say)."""
    return DeviceTensor(name, dev.step, dev.buffer, dev.record, dev.mesh, dev.span, dev.provenance)


def plain_host(rt: Runtime, name: str, spec: TensorSpec, values: Optional[np.ndarray]) -> HostTensor:
    """A host tensor of one spec holding ``values`` (None: their shape only), that a write puts on
    every device alike (``ttnn.zeros`` filled on host)."""
    known = values is not None
    if values is None:
        values = ShapeOnly(spec.shape, host_dtype(spec.dtype))
    origin = (0, 0)
    shard = HostShard(origin, spec, values, (0,) * len(spec.shape))
    return HostTensor(name, rt.step, spec, default_topology(), {origin: shard}, plain=True,
                      source_values=values if rt.with_data and known else None, shape=tuple(spec.shape), buffer_shape=(1, 1))


def unread(rt: Runtime, spec: TensorSpec):
    """The values of an output device whose inputs gave no array: in metadata mode their shape
    only (every write there is), with data zeros of that shape."""
    shape = tuple(spec.shape)
    return ShapeOnly(shape, host_dtype(spec.dtype)) if not rt.with_data else np.zeros(shape, dtype=np.float32)


def fact(t: DeviceTensor, name: str, c: Coord, spec: TensorSpec, pages: Optional[np.ndarray] = None) -> Read:
    """What reading ``c`` of ``t`` as ``spec`` reads, as the simulator knows it now: every page of
    it, or only ``pages`` (sorted page numbers: a slice reads the pages its region lies in)."""
    buffer = t.buffer
    written = buffer.written.get(c, NOTHING)
    n, done = (spec.num_pages, written.within(spec.num_pages)) if pages is None else (len(pages), written.among(pages))
    last = buffer.last_write.get(c)
    content = buffer.content_step
    current = last if last is not None and last.step == content else None
    rec = t.record
    own = rec.specs.get(c)
    past = tuple(spec.shape) if own is not None and own.shape != spec.shape else None  # the tensor's spec is not this device's record
    if current is None:
        outdated = n
    else:
        cover = current.coverage()
        outdated = n - (cover.within(n) if pages is None else cover.among(pages))
    return Read(name, c, n, n - done, c in rec.recorded_set, rec.specs.get(c), current.spec if current is not None else None,
                current.content_bytes if current is not None else 0, content is not None, last.step if last is not None else None,
                c in rec.topology.coord_set(), outdated, past)


def read(rt: Runtime, t: DeviceTensor, name: str, c: Coord, spec: Optional[TensorSpec] = None,
         pages: Optional[np.ndarray] = None) -> tuple[Optional[np.ndarray], Read]:
    """What device ``c`` of ``t`` (named ``name`` in the step) holds, read as ``spec`` (its record's
    spec for ``c`` unless given), and the fact of that read (of ``pages`` only, when the op reads
    only those). Values are None in metadata mode."""
    spec = spec if spec is not None else t.record.specs[c]
    return (t.buffer.read(c, spec) if rt.with_data else None), fact(t, name, c, spec, pages)


def each_device(rt: Runtime, t: DeviceTensor, name: str):
    """``(device, the spec read, its values, the read)`` for every device ``t``'s record holds with
    a spec: what a device op that keeps each device's data where it is reads. Every device is read
    as the tensor's spec, as a device op computes its output spec from it (compute_output_specs
    takes the input's TensorSpec; with uneven legacy shards, the first shard's, issue #21652)."""
    rec = t.record
    spec = rec.spec
    for c in tuple(rec.recorded):
        if rec.specs.get(c) is None:
            continue
        values, r = read(rt, t, name, c, spec)
        yield c, spec, values, r


def workload(tensors: list[DeviceTensor]) -> tuple[Coord, ...]:
    """The devices a device op of several inputs runs on: the first input's recorded devices,
    replaced by a later input's when it records fewer (ttnn's extract_tensor_coordinates,
    ttnn/core/device_operation_detail.cpp @ 0815d3efc; mesh_device_operation_utils.hpp @ 021df86f).
    The output records those devices only.

    >>> from types import SimpleNamespace as T
    >>> a, b = T(record=T(recorded=((0, 0), (0, 1), (0, 2)))), T(record=T(recorded=((0, 0), (0, 1))))
    >>> workload([a, b]), workload([b, a])
    (((0, 0), (0, 1)), ((0, 0), (0, 1)))
    """
    coords = tuple(tensors[0].record.recorded)
    for t in tensors[1:]:
        if len(t.record.recorded) < len(coords):
            coords = tuple(t.record.recorded)
    return coords


def unclaimed_label(labels: list[Topology], devices: tuple[Coord, ...]) -> Topology:
    """The reference's label for the output of an op of several inputs whose data no layout
    describes: the label of the input that lies on exactly the devices the op ran on (the output is
    there and nowhere else), else the default imputation's. Its placements claim nothing the judge
    holds it to (no layout to compare with); its devices are the output's.

    >>> a = Topology((2,), (Shard(1),), ((0, 0), (0, 1)))
    >>> b = Topology((1,), (Shard(1),), ((0, 0),))
    >>> unclaimed_label([a, b], ((0, 0),)) == b
    True
    """
    return next((t for t in labels if set(t.coords) == set(devices)), None) or union(labels)


def shard(c: Coord, spec: TensorSpec, values, rt: Runtime) -> HostShard:
    """Device ``c``'s output: ``values`` (None: none could be computed, their shape only) as ``spec``."""
    return HostShard(c, spec, values if values is not None else unread(rt, spec), (0,) * len(spec.shape))


def _bytes(spec: TensorSpec) -> tuple[int, int]:
    """A device's buffer size for ``spec`` (then its page count): the widest of several specs."""
    return spec.num_pages * spec.aligned_page_size, spec.num_pages


def emit(
    rt: Runtime,
    name: str,
    mesh: MeshDevice,
    spec: TensorSpec,
    label: Optional[Topology],
    shards: dict[Coord, HostShard],
    reads: Mapping[Coord, tuple[Read, ...]],
    *,
    claims: bool = False,
    layout: Optional[Topology] = None,
    dishonest: Optional[str] = None,
    gathered_padding: Optional[str] = None,
) -> DeviceTensor:
    """Bind ``name`` to a device op's output: ``shards`` (each output device's spec and values),
    recorded on exactly those devices with those specs, on a new buffer of ``mesh`` sized for the
    widest, labelled ``label`` (None: the allocation's own), made from ``reads``. ``claims`` and
    ``layout``: how the op says its data is laid over the mesh (see
    :class:`~meshspec.sim.tensor.Provenance`). ``shards`` and ``reads`` are kept as they are."""
    if rt.graph_capture:
        tracked(rt, mesh, tuple(shards))
    widest = max([spec, *(s.spec for s in shards.values())], key=_bytes) if shards else spec
    out = allocation(rt, widest if _bytes(widest) > _bytes(spec) else spec, mesh, name, label)
    out.record.spec = rt.placed(spec)
    out.record.recorded = tuple(shards)
    out.record.specs = {c: rt.placed(s.spec) for c, s in shards.items()}
    if rt.capturing is None:
        rt.write(out, None, shards, source=f"{rt.op} at step {rt.step}")
    else:  # a captured program runs when the trace is replayed, not now: it has read and written nothing yet
        reads = {}
    out.provenance = Provenance(rt.step, rt.op, claims, layout, reads, dishonest, gathered_padding)
    rt.bind(name, out)
    return out


def tracked(rt: Runtime, mesh: MeshDevice, devices: tuple[Coord, ...]) -> None:
    """Graph capture tracks a device op's tensors (GraphProcessor::add_tensor): under the era's
    ``every_coord`` rule it asks the mesh buffer of each of their devices, and on a multi-host mesh a
    remote one throws (docs/semantics.md section 15)."""
    if rt.hosts is None or rt.profile.graph_capture is not GraphCapture.EVERY_COORD:
        return
    remote = next((c for c in devices if not rt.is_local(mesh, c)), None)
    if remote is not None:
        raise TTFatal(
            f"Attempted to access remote device from process that does not have it! (graph capture tracks every "
            f"device of {rt.op}'s tensors, remote {fmt_coord(remote)} too: GraphProcessor::add_tensor before PR #47846, "
            "ttnn-visualizer issue #1672)"
        )


def per_device(rt: Runtime, a, name: str, fn: Callable[[np.ndarray], np.ndarray], shape_of: Callable[[tuple], tuple],
               placements_of: Callable[[tuple[Placement, ...], int], Optional[tuple[Placement, ...]]], view: bool = False,
               linear: bool = True, respec: Callable[[TensorSpec, tuple], TensorSpec] = TensorSpec.with_shape,
               unplaced: Optional[str] = None) -> None:
    """A device op: each recorded device's output computed from what it holds; the output on the
    same devices, its topology by the era's rule, its data's real distribution kept with it.
    ``view``: no data moves (a size-1 leading dim added or removed): the output is a view on the
    input's buffer, as ttnn 0.81.1's squeeze and unsqueeze are (the same address, observed), and
    deallocating either frees both. ``linear``: the op keeps partial sums partial (a nonlinear
    one, exp of a partial sum, leaves data no layout describes). ``respec(spec, shape)``: the
    output's spec for an input spec and the output's shape (the input's memory config kept, unless
    the op has its own rule: a transpose's shard spec turns). ``unplaced``: why no placement
    describes the output's data when ``placements_of`` finds none for a sharded input (a reshape
    that splits the sharded dim): the output then claims no layout, and a label that keeps a Shard
    is judged stale for that reason (except by the reference, which has no honest label either)."""
    src = rt.device(a.tensor)
    rec = src.record
    spec_in = rec.spec
    out_spec = respec(spec_in, shape_of(tuple(spec_in.shape)))
    rank = len(spec_in.shape)
    topo = rec.topology
    real = src.layout()  # the data's layout, when an op made the input
    if real is not None and not linear and has_partial(real):
        real = None
    moved = placements_of(real.placements, rank) if real is not None else None
    truth = Topology(real.distribution_shape, moved if moved is not None else real.placements, real.coords) if real is not None else None
    exact = rt.profile.op_topology is OpTopology.EXACT and truth is not None
    label = as_label(truth) if exact else Topology(topo.distribution_shape, topo.placements, topo.coords)
    made = src.provenance
    claims = moved is not None or (real is None and made is not None and made.claims)
    dishonest = None
    if unplaced is not None and real is not None and moved is None and any(isinstance(p, Shard) for p in real.placements):
        claims, truth = True, None
        if any(isinstance(p, Shard) for p in label.placements) and rt.profile.op_topology is not OpTopology.EXACT:
            dishonest = unplaced
    if view:
        if rt.graph_capture:
            tracked(rt, rt.mesh_of(src), tuple(rec.recorded))
        specs = {c: respec(s, shape_of(tuple(s.shape))) for c, s in rec.specs.items()}
        record = Record(out_spec, label, specs, tuple(rec.recorded), {c: rt.step for c in rec.specs})
        record.derive = lambda p: placements_of(p, rank)
        rt.bind(name, DeviceTensor(name, rt.step, src.buffer, record, src.mesh, src.span,
                                   Provenance(rt.step, rt.op, claims, truth if claims else None, dishonest=dishonest)))
        return
    shards, reads = {}, {}
    for c, _, held, r in each_device(rt, src, a.tensor):
        shards[c] = shard(c, out_spec, fn(held) if held is not None else None, rt)
        reads[c] = (r,)
    emit(rt, name, rt.mesh_of(src), out_spec, label, shards, reads, claims=claims, layout=truth if claims else None,
         dishonest=dishonest)
