"""Host and device tensors as the simulated runtime holds them.

A device tensor pairs a :class:`~meshspec.device.MeshBuffer` (the truth: what was written) with a
:class:`Record` (what the runtime *says* each device holds). meshspec's findings are the places
where the two disagree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import repeat
from operator import attrgetter, is_
from typing import Callable, Mapping, Optional, Union

import numpy as np

from ..frozen import Frozen
from .device import MeshBuffer, Write
from .meshdevice import MeshDevice
from .mesh import Coord, Shape, coord_set, coord_tuple
from .placement import Topology
from .spec import TensorSpec


class ReadOrigin:
    """Where a read-back host shard came from, and what that device really held when read. A
    value, never changed once made (as :class:`~meshspec.sim.device.Write`): a plain class with
    slots, made once per device read, where a frozen dataclass's ``__init__`` (a call of
    ``object.__setattr__`` a field) cost about 5,000 instructions more each."""

    __slots__ = ("tensor", "coord", "step", "written_bytes", "write", "stale_write", "record_step", "intact", "default_buffer")

    def __init__(
        self, tensor: str, coord: Coord, step: int, written_bytes: int, write: Optional[Write],
        stale_write: Optional[Write] = None, record_step: Optional[int] = None, intact: bool = False,
        default_buffer: bool = False,
    ) -> None:
        self.tensor = tensor
        self.coord = coord
        self.step = step
        self.written_bytes = written_bytes
        """Bytes written to the device since allocation, at the time of the read."""
        self.write = write
        """The write holding the tensor's current content on that device, if any."""
        self.stale_write = stale_write
        """An older, superseded write the device still held, if any."""
        self.record_step = record_step
        """The step that set the record that made the runtime read this device."""
        self.intact = intact
        """The device provably still held ``write``'s bytes in its written layout, read with the
        written spec: the values are the written ones without comparing them."""
        self.default_buffer = default_buffer
        """The shard is one of the default-initialized host buffers a read loop resized to the
        device count put in front of what it read (profiles ``read_buffers``, PR #19032)."""

    def __repr__(self) -> str:
        return f"ReadOrigin(tensor={self.tensor!r}, coord={self.coord}, step={self.step}, write={self.write!r})"


@dataclass
class HostShard:
    coord: Coord
    spec: TensorSpec
    values: np.ndarray = field(repr=False)
    offset: Optional[Shape]
    """Global offset in the source tensor (None for a read-back shard of unknown origin)."""
    origin: Optional[ReadOrigin] = None
    composed_from: Optional[tuple["HostTensor", tuple[Coord, ...]]] = None
    """For a composed (to_torch) result: the host tensor composed and the shards used, in order."""
    placed: Optional[dict[Coord, Shape]] = None
    """For a composed (to_torch) result: where each used shard's block starts in it."""


@dataclass(eq=False)  # compared by identity: it is state, not a value
class HostTensor:
    """A host tensor: one shard (plain) or a mapper's shards keyed by device coordinate."""

    name: str
    step: int
    spec: TensorSpec
    """``tensor_spec()``: the first shard's spec (issue #21652)."""
    topology: Topology
    shards: dict[Coord, HostShard]
    plain: bool = False
    """No mesh mapper: a single host tensor, replicated when copied to a mesh."""
    read_from: Optional[str] = None
    """Name of the device tensor this was read back from."""
    unread: dict[Coord, Write] = field(default_factory=dict, repr=False)
    """Devices that held the tensor's current content but were not read back."""
    source_values: Optional[np.ndarray] = field(default=None, repr=False)
    """For from_torch: the whole tensor as given (block floats before quantization)."""
    shape: Optional[Shape] = None
    """For from_torch: the global (logical) shape of the tensor that was distributed."""
    buffer_shape: Optional[Shape] = None
    """The shape of its distributed host buffer: the mesh it was mapped for, (1, 1) for a plain
    tensor; shards are keyed by coordinates of it (None: the scenario's mesh)."""
    mapper: Optional[object] = None
    """The mapper that made it (a MapperChoice), if any: as_tensor's cache file depends on it."""
    borrowed: bool = False
    """Its buffer is borrowed from the caller's torch or numpy tensor, not owned (profiles
    ``host_borrow``; docs/semantics.md section 19)."""
    mapped_from: Optional[str] = None
    """The tensor file its shards are read from lazily, through a map of the file (load_tensor
    without a device; profiles ``dump_overwrite``, docs/semantics.md section 23)."""
    _runs: Optional[tuple] = field(default=None, init=False, repr=False)
    """The shards' runs (:meth:`spec_runs`), with the shards dict they are of."""

    storage = "host"

    def spec_runs(self, shards: dict[Coord, HostShard]) -> list[tuple[TensorSpec, list[Coord]]]:
        """``shards`` (this tensor's, or those a write of it gives) as runs of consecutive devices
        whose shards share one spec object, in order: what a write works out once per spec. Kept
        for this tensor's own shards (never changed in place), which every copy of it writes again.

        >>> from meshspec.sim.spec import DataType, Layout, make_spec
        >>> a, b = make_spec((32, 32), DataType.BFLOAT16, Layout.TILE), make_spec((32, 64), DataType.BFLOAT16, Layout.TILE)
        >>> shards = {c: HostShard(c, s, None, None) for c, s in [((0, 0), a), ((0, 1), a), ((0, 2), b), ((0, 3), a)]}
        >>> [(s is a, coords) for s, coords in HostTensor("h", 0, a, None, shards).spec_runs(shards)]
        [(True, [(0, 0), (0, 1)]), (False, [(0, 2)]), (True, [(0, 3)])]
        """
        if self._runs is not None and self._runs[0] is shards:
            return self._runs[1]
        runs = spec_runs(shards)
        if shards is self.shards:
            self._runs = (shards, runs)
        return runs


def spec_runs(shards: dict[Coord, HostShard]) -> list[tuple[TensorSpec, list[Coord]]]:
    """``shards`` as runs of consecutive devices whose shards share one spec object, in order
    (:meth:`HostTensor.spec_runs`, which keeps them for a tensor's own shards)."""
    specs = list(map(attrgetter("spec"), shards.values()))
    if specs and all(map(is_, specs, repeat(specs[0]))):  # one spec: a mapper's even shards
        return [(specs[0], list(shards))]
    runs: list[tuple[TensorSpec, list[Coord]]] = []
    for c, spec in zip(shards, specs):
        if runs and runs[-1][0] is spec:
            runs[-1][1].append(c)
        else:
            runs.append((spec, [c]))
    return runs


class SharedTopology:
    """The topology every handle on one device storage reads and writes: in ttnn 0.81.1 a
    ``combine_device_tensors`` of some parts, or ``update_tensor_topology`` on one part, changes the
    topology the parent and every other part report (tests/golden ``api``)."""

    __slots__ = ("value", "step")

    def __init__(self, value: Topology, step: Optional[int] = None) -> None:
        self.value = value
        self.step = step
        """The step that set it last."""


class Read:
    """What an op read from one device of one of its inputs, as the simulator saw it then: a
    fact, never changed once made (a plain class with slots: one is made per device an op reads).

    ``pages`` pages were read from page 0 of ``device``'s buffer; ``unwritten`` of them had never
    been written since the buffer was allocated (their bytes are whatever the memory held). The
    rest say what the input's record and last write were then, which is what the judge's device
    status is made of (meshspec/judge/findings.py ``_status``): whether the record claimed the
    device, its per-device spec, the spec and size of the write holding the current content (None:
    the current content never reached the device), whether the tensor had any content, and the
    step of the device's last write (current or superseded; None: never written), and whether the
    input's topology lists the device at all.
    """

    __slots__ = ("tensor", "device", "pages", "unwritten", "recorded", "spec", "written_spec", "content_bytes", "has_content",
                 "last_step", "listed", "outdated", "past")

    def __init__(self, tensor: str, device: Coord, pages: int, unwritten: int, recorded: bool, spec: Optional[TensorSpec],
                 written_spec: Optional[TensorSpec], content_bytes: int, has_content: bool, last_step: Optional[int],
                 listed: bool = True, outdated: Optional[int] = None, past: Optional[tuple] = None) -> None:
        self.tensor = tensor
        self.device = device
        self.pages = pages
        self.unwritten = unwritten
        self.recorded = recorded
        self.spec = spec
        self.written_spec = written_spec
        self.content_bytes = content_bytes
        self.has_content = has_content
        self.last_step = last_step
        self.listed = listed
        """Whether the input's topology lists the device (a collective reads devices it does not)."""
        self.outdated = pages if outdated is None else outdated
        """Of the pages read, how many the write holding the tensor's current content did not put
        there (never written, or an earlier write's): 0 when the read took current content only,
        though the device's record lies about other pages (a slice of the pages a partial write reached)."""
        self.past = past
        """The shape read (the tensor's spec) when it is not the device's own record's: an uneven
        legacy shard read as the first shard's spec (issue #21652); None when they agree."""

    def __setattr__(self, name: str, value: object) -> None:
        if hasattr(self, name):
            raise AttributeError(f"Read.{name} is a fact of the step that read it: it is not changed")
        object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        return f"Read({self.tensor!r}, {self.device}, pages={self.pages}, unwritten={self.unwritten}, last_step={self.last_step})"


class Provenance(Frozen):
    """How a device op's output came to be: the step and op that made it, how its data is really
    laid over the mesh, and what each output device read. Made once by the output primitive
    (meshspec/sim/ops/output.py) and never changed: the judge reads it, and keeps what it
    concludes in its own memo.

    ``claims`` says whether the op states a layout for its data at all (``layout`` is then that
    layout, or None where no layout describes the data: a concat of differently laid inputs; a
    partial sum is :class:`~meshspec.sim.placement.Partial` on its axis); an op that moves no data
    between devices and whose input was no op's output claims nothing: its label is judged as the
    mapper's was.
    """

    step: int
    op: str
    claims: bool = False
    layout: Optional[Topology] = None
    reads: Mapping[Coord, tuple[Read, ...]] = {}
    """Per output device, what it was computed from (the devices of a group share one tuple)."""
    dishonest: Optional[str] = None
    """Why the library itself says the topology cannot be honest (0.81.1's CCL helpers warn and
    keep a legacy label), judged as topology_stale whatever the data's layout."""
    gathered_padding: Optional[str] = None
    """How a gather took its shards' tile padding as data (judged as padding_gathered)."""


class Record:
    """What the runtime records about a device tensor.

    ``specs`` are the per-device specs the runtime keeps; ``recorded`` the devices it says hold
    data (``device_coords()``, read back by ``cpu()``); ``topology`` the tensor's topology, shared
    with every other handle on the same storage. Eras differ only in how these are set (see
    profiles). Compared by identity: it is state, not a value.
    """

    __slots__ = ("spec", "shared", "specs", "recorded", "origin", "_recorded_cache", "derive")

    def __init__(
        self,
        spec: TensorSpec,
        topology: Topology,
        specs: dict[Coord, TensorSpec],
        recorded: tuple[Coord, ...],
        origin: dict[Coord, int],
        *,
        shared: Optional[SharedTopology] = None,
    ) -> None:
        self.spec = spec
        self.shared = shared if shared is not None else SharedTopology(topology)
        if shared is not None:
            shared.value = topology
        self.specs = specs
        self.recorded = recorded
        self.origin = origin
        """Step that last set (or cleared) each device's record."""
        self._recorded_cache: Optional[tuple] = None
        self.derive: Optional[Callable] = None
        """A view's (squeeze, unsqueeze, reshape, view): its placements from its storage's (None where
        no placement describes them), for a runtime that records what is written through any handle."""

    @property
    def topology(self) -> Topology:
        return self.shared.value

    @topology.setter
    def topology(self, value: Topology) -> None:
        self.shared.value = value

    def is_recorded(self, coord: Coord) -> bool:
        return coord in self.recorded_set

    @property
    def recorded_set(self) -> frozenset[Coord]:
        """``recorded`` as a set, for O(1) membership on large meshes (rebuilt when replaced)."""
        cached = self._recorded_cache
        if cached is None or cached[0] is not self.recorded:
            cached = self._recorded_cache = (self.recorded, frozenset(self.recorded))
        return cached[1]


@dataclass(eq=False)  # compared by identity: it is state, not a value
class DeviceTensor:
    name: str
    step: int
    buffer: MeshBuffer
    record: Record
    mesh: Optional["MeshDevice"] = None
    """The mesh device it was made on (None: the scenario's own mesh)."""
    span: Optional[tuple[Coord, ...]] = None
    """The devices of its storage this handle covers: one for a ``get_device_tensors`` part, the
    parts' for a combined tensor; None: every device of the buffer."""
    provenance: Optional[Provenance] = None
    """How a device op made it (None: no op did; a write from the host is what its topology says)."""
    _span_set: Optional[frozenset] = field(default=None, init=False, repr=False)
    """``span`` as a set, made on :meth:`has_device`'s first call (a span is set once, at construction)."""

    def layout(self) -> Optional[Topology]:
        """How the data is really laid over the mesh: what the op that made it claims, else the
        topology (what a mapper wrote is what its topology says); None where no layout describes it."""
        made = self.provenance
        return made.layout if made is not None and made.claims else self.record.topology

    @property
    def devices(self) -> tuple[Coord, ...]:
        """The devices this handle is judged and read on, row-major."""
        return self.span if self.span is not None else coord_tuple(self.buffer.mesh_shape)

    def has_device(self, coord: Coord) -> bool:
        """``coord in self.devices`` in one look-up: a scan of a 16,384-device tuple for each
        device an op read made a view op on a 128x128 mesh take 37 s."""
        if self.span is None:
            return coord in coord_set(self.buffer.mesh_shape)
        if self._span_set is None:
            self._span_set = frozenset(self.span)
        return coord in self._span_set

    storage = "device"

    @property
    def content_step(self) -> Optional[int]:
        """Step of the last write that defines the content: the storage's, whichever handle wrote."""
        return self.buffer.content_step

    @property
    def freed_step(self) -> Optional[int]:
        """Step that deallocated the storage, through this handle or another sharing it
        (docs/semantics.md section 9: ``deallocate`` frees the mesh buffer for every handle)."""
        return self.buffer.freed_step

    def current_write(self, coord: Coord) -> Optional[Write]:
        """The write holding the current content on ``coord``, or None."""
        w = self.buffer.last_write.get(coord)
        return w if w is not None and w.step == self.content_step else None


Tensor = Union[HostTensor, DeviceTensor]
