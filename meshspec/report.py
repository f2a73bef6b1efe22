"""Plain report data: what every renderer (table, JSON, diff, check) shows, and the report's format.

Nothing here computes or judges, and nothing imports numpy, yaml or pydantic: the judge
(meshspec/judge) fills these values in from the simulator's state; the renderers (meshspec/render)
only read them. The JSON format ``meshspec.report/1`` is declared once, below: the records a run's
JSON is written through, that ``meshspec diff`` validates a saved report against
(meshspec/judge/reports.py) and that ``meshspec schema --report`` describes.
"""

from __future__ import annotations

from .frozen import Frozen
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Collection, Literal, Optional, Union

from .kinds import Kind
from .sim.mesh import Coord, CoordRange, Shape, coords, fmt_coord, range_size
from .sim.placement import Topology
from .sim.spec import TensorSpec
from .typed import Range, Typed

if TYPE_CHECKING:
    from .sim.hosts import Hosts

REPORT_FORMAT = "meshspec.report/1"
DIFF_FORMAT = "meshspec.diff/1"
HUNT_FORMAT = "meshspec.hunt/1"
"""A hunt's index (``hunt.json``) and its ``--format json`` summary."""


# -- the format: meshspec.report/1, declared once --------------------------------------------------
# Each record is one JSON object, its fields the object's keys in the order a run writes them: the
# writers below build every object with ``Record.json(...)`` (a key a record does not declare is a
# TypeError), a saved report is validated against ReportJSON, and the schema is made from it. A
# field with a default may be left out: a report of the real runtime (meshspec/bridge/observe.py)
# leaves out what the runtime cannot know. Every record is open: a key it does not declare is read
# (a report may carry more than diff compares). The spec, topology and sharding objects are written
# by the simulator's values themselves (meshspec/sim: it knows nothing of reports).
Int = Annotated[int, Range(ge=-(2**63), le=2**63 - 1)]
Count = Annotated[int, Range(ge=0, le=2**63 - 1)]
Ints = list[Int]
Number = Union[int, float, str]
"""A value read back: a number, or ``nan``, ``inf``, ``-inf`` as text (JSON has none of them)."""


class ShardSpecJSON(Typed, open=True):
    grid: list[list[Ints]]
    shape: Ints
    orientation: str


class NdShardSpecJSON(Typed, open=True):
    shard_shape: Ints
    grid: list[list[Ints]]
    orientation: str
    distribution: str


class MemoryConfigJSON(Typed, open=True):
    """A sharded spec's memory config as meshspec prints it (an interleaved spec has none)."""

    memory_layout: str
    buffer_type: str
    shard_spec: Optional[ShardSpecJSON] = None
    nd_shard_spec: Optional[NdShardSpecJSON] = None


class SpecJSON(Typed, open=True):
    shape: Ints
    padded_shape: Optional[Ints] = None
    dtype: str
    layout: str
    tile: Optional[Ints] = None
    memory: Optional[str] = None
    page_size: Optional[Count] = None
    aligned_page_size: Optional[Count] = None
    num_pages: Optional[Count] = None
    buffer_bytes: Optional[Count] = None
    memory_config: Optional[MemoryConfigJSON] = None


class ShardJSON(Typed, open=True):
    shard: Int


class TopologyJSON(Typed, open=True):
    distribution_shape: Ints
    placements: list[Union[Literal["R"], ShardJSON]]
    coords: list[Ints]


class TopologyRefJSON(Typed):
    """The topology of an earlier tensor of the same report, named rather than copied (the parts
    of get_device_tensors share their parent's)."""

    same_as: str


class DataJSON(Typed, open=True):
    """What a reader gets back from one device, in numbers (the data view)."""

    count: Count
    first: Optional[Number] = None
    last: Optional[Number] = None
    min: Optional[Number] = None
    max: Optional[Number] = None
    crc32: str
    differ: Optional[Count] = None
    poison: Count
    values: list[Number] = []
    note: str = ""


class DeviceJSON(Typed, open=True):
    coord: Ints
    recorded: bool
    spec: Optional[SpecJSON] = None
    written_bytes: Optional[Count] = None
    written_shape: Optional[Ints] = None
    offset: Optional[Ints] = None
    status: Optional[str] = None
    record_step: Optional[Int] = None
    write_step: Optional[Int] = None
    data: Optional[DataJSON] = None


class CoreJSON(Typed, open=True):
    core: Ints
    pages: list[Count]
    status: str


class CoresJSON(Typed, open=True):
    """One device of a sharded tensor, core by core (with ``--device``)."""

    device: Ints
    cores: list[CoreJSON]


class SliceJSON(Typed, open=True):
    shape: Ints
    sha256: str


class ValuesJSON(Typed, open=True):
    """A host tensor's values as a report sums them up: diff compares the sha256 and shows the rest."""

    shape: Optional[Ints] = None
    dtype: Optional[str] = None
    sha256: Optional[str] = None
    first: Optional[list[Any]] = None
    slices: Optional[dict[str, SliceJSON]] = None
    """The sha256 of each slice the scenario's expectations name."""
    compared: Optional[dict[str, dict[str, Any]]] = None
    """What each of the expectations comparing these values with another tensor found."""


class TensorJSON(Typed, open=True):
    name: str
    storage: Literal["device", "host", "deallocated"]
    storage_kind: str = ""
    plain: bool = False
    global_shape: Optional[Ints] = None
    step: Optional[Int] = None
    topology: Union[TopologyJSON, TopologyRefJSON]
    """The tensor's topology, or ``{"same_as": name}``: that of the earlier tensor ``name`` lists."""
    mesh_device: Optional[str] = None
    mesh_shape: Optional[Ints] = None
    address: Optional[Count] = None
    """A live device tensor's buffer address (the same on every device)."""
    cores: Optional[CoresJSON] = None
    values: Optional[ValuesJSON] = None
    """A host tensor holding one array: its values, summed up (null otherwise)."""
    devices: list[DeviceJSON]


class ErrorJSON(Typed, open=True):
    step: Optional[Int] = None
    op: Optional[str] = None
    message: str
    source: Literal["ttnn", "meshspec"] = "ttnn"
    crash: bool = False


class SourceJSON(Typed, open=True):
    tensor: str
    device: Ints


class FindingJSON(Typed, open=True):
    kind: str
    tensor: str
    device: Optional[Ints] = None
    step: Optional[Int] = None
    op: Optional[str] = None
    message: str = ""
    spec: Optional[SpecJSON] = None
    written_bytes: Optional[Count] = None
    source: Optional[SourceJSON] = None


class LandedJSON(Typed, open=True):
    device: Ints
    slice: str
    at: str


class ReadbackJSON(Typed, open=True):
    step: Int
    tensor: str
    devices: list[Ints]
    shape: Ints
    from_device: bool = True
    source: Optional[str] = None
    landed: list[LandedJSON] = []


class RangeJSON(Typed, open=True):
    start: Ints
    end: Ints


class TouchJSON(Typed, open=True):
    tensor: str
    devices: list[RangeJSON]
    count: Count
    bytes: Optional[Count] = None


class RecordChangeJSON(Typed, open=True):
    tensor: str
    devices: Optional[list[RangeJSON]]
    change: str
    detail: str = ""


class StepJSON(Typed, open=True):
    step: Int
    op: str
    line: Int
    tensors: list[str]
    written: list[TouchJSON]
    read: list[TouchJSON]
    record_changes: list[RecordChangeJSON]
    new_findings: list[FindingJSON]
    error: Optional[str] = None


class ExpectJSON(Typed, open=True):
    passed: bool
    mismatches: list[str]


class MeshJSON(Typed, open=True):
    name: str
    shape: Ints
    parent: Optional[str] = None
    offset: Optional[Ints] = None
    at: Optional[Ints] = None
    device_ids: Optional[list[Count]] = None


class HostsJSON(Typed, open=True):
    topology: Ints
    rank: Count
    local: list[Ints]


class ReportJSON(Typed, open=True):
    """A meshspec.report/1 document: one run's records, device by device."""

    format: Literal["meshspec.report/1"]
    scenario: Optional[str]
    path: Optional[str] = None
    profile: Optional[str] = None
    profile_rules: Optional[dict[str, Optional[str]]] = None
    mesh: Optional[Ints]
    """null in the entry of a scenario that could not be loaded (its error says why)."""
    meshes: list[MeshJSON] = []
    hosts: Optional[HostsJSON] = None
    error: Optional[ErrorJSON] = None
    steps_run: Optional[Count] = None
    steps_total: Optional[Count] = None
    tensors: list[TensorJSON]
    findings: list[FindingJSON] = []
    readbacks: list[ReadbackJSON] = []
    steps: list[StepJSON] = []
    expect: Optional[ExpectJSON] = None
    metadata_mode: bool = False
    summary: str = ""


# -- one run -------------------------------------------------------------------------------------
EXIT_LIMIT = 4
"""Exit code of a run that meshspec stopped at one of its own limits (--max-memory, out of memory)."""


class StepError(Frozen):
    step: int
    op: str
    message: str
    line: Optional[int] = None
    source: str = "ttnn"
    """``ttnn``: the simulated library refused the step (a TT_FATAL, or data its dtype cannot
    hold), part of what the scenario shows. ``meshspec``: meshspec's own limit stopped the run
    (--max-memory, the machine's memory); the scenario's outcome is unknown."""
    crash: bool = False
    """The real library kills the process at this step (SIGSEGV, SIGABRT) rather than raising:
    a real run's report ends before it, and a test cannot catch it."""

    def to_json(self) -> dict:
        if self.crash:
            return ErrorJSON.json(step=self.step, op=self.op, message=self.message, source=self.source, crash=True)
        return ErrorJSON.json(step=self.step, op=self.op, message=self.message, source=self.source)


class Finding(Frozen):
    kind: Kind
    tensor: str
    device: Optional[Coord]
    step: Optional[int]
    """The origin: the step that set the lying record (or did the bad read / use)."""
    op: Optional[str]
    message: str
    spec: Optional[TensorSpec] = None
    """The spec the record (or the read) claims for the device, if any."""
    written_bytes: Optional[int] = None
    """Bytes written to the device since allocation, where a device is named."""
    source: Optional[tuple[str, Coord]] = None
    """For a lie carried into a host tensor by a read: the device tensor and device it came from."""

    def key(self) -> tuple:
        return (self.kind, self.tensor, self.device)

    def to_json(self) -> dict:
        return FindingJSON.json(
            kind=self.kind.value,
            tensor=self.tensor,
            device=list(self.device) if self.device is not None else None,
            step=self.step,
            op=self.op,
            message=self.message,
            spec=self.spec.to_json() if self.spec is not None else None,
            written_bytes=self.written_bytes,
            source=SourceJSON.json(tensor=self.source[0], device=list(self.source[1])) if self.source else None,
        )


class DeviceView(Frozen):
    """One device of one tensor: record vs truth. The single source every view renders."""

    coord: Coord
    recorded: bool
    spec: Optional[TensorSpec]
    """The recorded spec (None when the runtime keeps none for this device)."""
    written_bytes: int
    """Bytes written to this device since allocation (host shards: the shard's bytes)."""
    written_spec: Optional[TensorSpec]
    """Spec of the shard holding the current content, if any."""
    offset: Optional[Shape]
    status: Kind
    """A device status (``Kind.is_status``)."""
    record_step: Optional[int]
    write_step: Optional[int]
    detail: str = ""
    """Why the status is what it is, in words."""

    def to_json(self, view: dict = {}) -> dict:  # noqa: B006 - never changed
        """Its JSON; ``view``: what a view adds to it (the data view: ``{"data": ...}``)."""
        return DeviceJSON.json(
            coord=list(self.coord),
            recorded=self.recorded,
            spec=self.spec.to_json() if self.spec is not None else None,
            written_bytes=self.written_bytes,
            written_shape=list(self.written_spec.shape) if self.written_spec is not None else None,
            offset=list(self.offset) if self.offset is not None else None,
            status=self.status.value,
            record_step=self.record_step,
            write_step=self.write_step,
            **view,
        )


class DataSummary(Frozen):
    """What a reader gets back from one device, in numbers (the data view)."""

    coord: Coord
    count: int
    first: Optional[float]
    last: Optional[float]
    min: Optional[float]
    """Over the elements that are not poison (None when all are)."""
    max: Optional[float]
    crc32: str
    differ: Optional[int]
    """Elements that differ from what the current write put there (None: nothing to compare)."""
    poison: int
    """Elements read from pages never written since allocation."""
    values: tuple = ()
    """The first N values; never-written ones as "POISON" (or "UNWRITTEN" when memory is not
    poisoned: zeros or reused bytes)."""
    note: str = ""
    """Why the values are not the tensor's: never written, or an earlier write's data."""

    def to_json(self) -> dict:
        return DataJSON.json(count=self.count, first=self.first, last=self.last, min=self.min, max=self.max, crc32=self.crc32,
                             differ=self.differ, poison=self.poison, values=list(self.values), note=self.note)


class CoreView(Frozen):
    """One core of a sharded tensor's shard grid on one device (meshspec/judge/cores.py)."""

    core: tuple[int, int]
    pages: tuple[int, ...]
    status: str
    """phantom, ok, stale, partial, or the device's status."""

    def to_json(self) -> dict:
        return CoreJSON.json(core=list(self.core), pages=list(self.pages), status=self.status)


LISTED_ONCE = 64
"""A topology of more coordinates than this is listed once in a report's JSON; the other tensors
that share it (the same object: get_device_tensors' parts, a copy's destination) name the first."""


class TensorReport(Frozen):
    name: str
    storage: str
    """``device``, ``host`` or ``deallocated``."""
    spec: TensorSpec
    topology: Topology
    devices: tuple[DeviceView, ...]
    step: int
    """Step that created the tensor."""
    data: Optional[dict] = None
    """With the data view: device -> :class:`DataSummary` of what a reader gets."""
    plain: bool = False
    """A single host tensor (no mesh mapper, or a to_torch result): on no device at all."""
    shape: Optional[Shape] = None
    """The global shape of a host tensor made by a mapper (None when not known: a read-back)."""
    values: Optional[dict] = None
    """What it holds, when it holds one array (meshspec/judge/values.py): shape, dtype, sha256,
    first values, and the sha256 of the slices the scenario's expectations name."""
    mesh_device: Optional[str] = None
    """The mesh device a device tensor is on, when not the scenario's own (a submesh)."""
    grid: Optional[Shape] = None
    """The mesh shape its device coordinates are on: its buffer's mesh (a submesh's, or the
    scenario's mesh as it was when the buffer was made); None: the scenario's mesh."""
    address: Optional[int] = None
    """A live device tensor's buffer address, the same on every device (``buffer_address()``)."""
    cores: Optional[tuple[Coord, tuple[CoreView, ...]]] = None
    """With ``--device``: that device of a sharded tensor, core by core."""
    storage_kind: str = ""
    """What its storage is (docs/semantics.md section 19): ``mesh`` or ``single-device`` for a device
    tensor, ``owned`` or ``borrowed`` for a host tensor."""

    def to_json(self, listed: Optional[dict] = None) -> dict:
        """Its JSON. ``listed``: id(topology) -> the name of the tensor of the same report that
        lists it; a tensor whose topology (of more than :data:`LISTED_ONCE` coordinates) is already
        listed names that tensor instead of copying it (``{"same_as": name}``: get_device_tensors'
        parts share their parent's, and 16,384 parts of a 128x128 mesh each listing its 16,384
        coordinates took 7.5 GB, issue 34)."""
        data = self.data
        devices = [v.to_json() for v in self.devices] if data is None else [v.to_json({"data": s.to_json() if s is not None else None})
                                                                             for v in self.devices for s in [data.get(v.coord)]]
        cores = {"cores": CoresJSON.json(device=list(self.cores[0]), cores=[c.to_json() for c in self.cores[1]])} if self.cores else {}
        return TensorJSON.json(
            name=self.name,
            storage=self.storage,
            storage_kind=self.storage_kind,
            plain=self.plain,
            global_shape=list(self.shape) if self.shape is not None else None,
            step=self.step,
            topology=self._topology_json(listed),
            mesh_device=self.mesh_device,
            mesh_shape=list(self.grid) if self.grid is not None else None,
            address=self.address,
            **cores,
            values=self.values,
            devices=devices,
        )


    def _topology_json(self, listed: Optional[dict]) -> dict:
        if listed is None or len(self.topology.coords) <= LISTED_ONCE:
            return self.topology.to_json()
        first = listed.setdefault(id(self.topology), self.name)
        return self.topology.to_json() if first == self.name else TopologyRefJSON.json(same_as=first)


class Readback(Frozen):
    """One composition (``to_torch``): which devices were read and the composed shape."""

    step: int
    tensor: str
    devices: tuple[Coord, ...]
    shape: Shape
    from_device: bool = True
    """False when a host tensor's shards were composed (nothing was read from a device)."""
    source: Optional[str] = None
    """With ``landed``: the tensor that was sent, whose slices the shards hold."""
    landed: tuple[tuple[Coord, Shape, Shape, Shape], ...] = ()
    """(device, offset in ``source``, size, offset in the composed tensor) of every shard, when the
    composer put shards elsewhere than ``source`` has them: information, not a finding, unless an
    expectation says the composed tensor equals ``source`` (docs/semantics.md section 5)."""

    def note(self) -> str:
        """Where the shards landed, in words ("": they landed where the source has them)."""
        if not self.landed:
            return ""
        shown = [f"{fmt_coord(c)} {self.source}{slice_text(off, size)} at {slice_text(at, size)}" for c, off, size, at in self.landed[:4]]
        more = f" and {len(self.landed) - 4} more" if len(self.landed) > 4 else ""
        return (f"laid out otherwise than {self.source}: {'; '.join(shown)}{more} (every shard read once, none dropped: "
                f"information, not a finding; an expect giving the result values: {{equals: {self.source}}} claims it is "
                f"{self.source}, and makes this a data_mismatch)")

    def to_json(self) -> dict:
        landed = {}
        if self.landed:  # only then: a composition in place reads as it always did
            landed = {"source": self.source, "landed": [LandedJSON.json(device=list(c), slice=slice_text(off, size), at=slice_text(at, size))
                                                         for c, off, size, at in self.landed]}
        return ReadbackJSON.json(step=self.step, tensor=self.tensor, devices=[list(c) for c in self.devices], shape=list(self.shape),
                                 from_device=self.from_device, **landed)


def slice_text(offset: Shape, size: Shape) -> str:
    """``[0:1, 1:2, 0:32, 0:32]``: a block as start:stop on every dim."""
    return "[" + ", ".join(f"{o}:{o + n}" for o, n in zip(offset, size)) + "]"


def ranges_json(boxes: tuple[CoordRange, ...]) -> list[dict]:
    """Device boxes as ``ttnn.MeshCoordinateRange`` spells them: ``[{"start": [0, 0], "end": [0, 3]}]``."""
    return [RangeJSON.json(start=list(a), end=list(b)) for a, b in boxes]


class Touch(Frozen):
    """Devices of one tensor a step wrote (with the bytes each got) or read, as boxes."""

    tensor: str
    devices: tuple[CoordRange, ...]
    bytes: Optional[int] = None
    """Bytes written to each of the devices (None for a read)."""

    @property
    def count(self) -> int:
        return sum(range_size(b) for b in self.devices)

    def to_json(self) -> dict:
        written = {"bytes": self.bytes} if self.bytes is not None else {}  # a read has no bytes
        return TouchJSON.json(tensor=self.tensor, devices=ranges_json(self.devices), count=self.count, **written)


class RecordChange(Frozen):
    """One change of a tensor's record: of the whole tensor, or of a set of its devices alike."""

    tensor: str
    devices: Optional[tuple[CoordRange, ...]]
    """The devices that changed so, as boxes; None for the tensor as a whole."""
    change: str
    """``recorded``, ``unrecorded``, ``spec``, ``allocated``, ``deallocated``."""
    detail: str = ""

    def to_json(self) -> dict:
        return RecordChangeJSON.json(tensor=self.tensor, devices=ranges_json(self.devices) if self.devices is not None else None,
                                     change=self.change, detail=self.detail)


class StepTrace(Frozen):
    """What one step did: the trace row where the user sees when a lie began."""

    index: int
    op: str
    line: int
    tensors: tuple[str, ...]
    written: tuple[Touch, ...]
    """Per device tensor and size, the devices the step wrote."""
    read: tuple[Touch, ...]
    changes: tuple[RecordChange, ...]
    findings: tuple[Finding, ...]
    """Findings first visible after this step."""
    error: Optional[str] = None

    def to_json(self) -> dict:
        return StepJSON.json(
            step=self.index,
            op=self.op,
            line=self.line,
            tensors=list(self.tensors),
            written=[w.to_json() for w in self.written],
            read=[r.to_json() for r in self.read],
            record_changes=[c.to_json() for c in self.changes],
            new_findings=[FindingJSON.json(kind=f.kind.value, tensor=f.tensor, device=list(f.device) if f.device else None) for f in self.findings],
            error=self.error,
        )


class ExpectResult(Frozen):
    """A run checked against its scenario's ``expect`` block."""

    profile: str
    mismatches: tuple[str, ...]

    @property
    def passed(self) -> bool:
        return not self.mismatches

    def to_json(self) -> dict:
        return ExpectJSON.json(passed=self.passed, mismatches=list(self.mismatches))


class MeshReport(Frozen):
    """A mesh device at the end of a run: the scenario's (``mesh_device``, reshaped or not) or a
    submesh, with where it lies on the scenario's mesh."""

    name: str
    shape: Shape
    parent: Optional[str] = None
    offset: Optional[Coord] = None
    """Its (0, ..., 0) in its parent's coordinates (None for the scenario's mesh)."""
    at: Optional[Coord] = None
    """Its (0, ..., 0) in the scenario's mesh coordinates."""
    device_ids: Optional[tuple[int, ...]] = None
    """The physical device id at each of its coordinates, row-major, as ``get_device_ids()`` lists
    them (docs/semantics.md section 17); None where the system's chips are not known."""
    made_shape: Optional[Shape] = None
    """A submesh's shape when it was made, where a reshape changed it (None otherwise)."""

    def id_at(self) -> Optional[dict[Coord, int]]:
        """Coordinate -> physical device id (None where not known)."""
        return dict(zip(coords(self.shape), self.device_ids)) if self.device_ids is not None else None

    def describe(self) -> str:
        """``'inner: 1x2 at (1,2) of mesh_device'`` (``at`` on the scenario's mesh); the scenario's
        mesh: ``'mesh_device: 4x2'``; a reshaped submesh: ``'row0: 4x1, reshaped from 1x4 at (0,0) of
        mesh_device'`` (no 4x1 block of the parent lies there)."""
        made = f", reshaped from {'x'.join(map(str, self.made_shape))}" if self.made_shape is not None else ""
        where = f"{made} at {fmt_coord(self.at)} of mesh_device" if self.at is not None else ""
        return f"{self.name}: {'x'.join(map(str, self.shape))}{where}"

    def to_json(self) -> dict:
        return MeshJSON.json(
            name=self.name,
            shape=list(self.shape),
            parent=self.parent,
            offset=list(self.offset) if self.offset is not None else None,
            at=list(self.at) if self.at is not None else None,
            device_ids=list(self.device_ids) if self.device_ids is not None else None,
        )


class Report(Frozen):
    scenario: str
    path: str
    description: str
    profile: str
    era: str
    """The profile's era, in words (for headers)."""
    mesh: Shape
    mesh_name: Optional[str]
    error: Optional[StepError]
    tensors: tuple[TensorReport, ...]
    findings: tuple[Finding, ...]
    readbacks: tuple[Readback, ...] = ()
    steps_run: int = 0
    steps_total: int = 0
    steps: tuple[StepTrace, ...] = ()
    expect: Optional[ExpectResult] = None
    """The scenario's ``expect`` block checked against this run (None without one)."""
    metadata: bool = False
    """Run in metadata mode: records and written pages, no values."""
    profile_rules: Optional[dict] = None
    """The profile's rules (rule -> choice) and, for a profile that changes another, its base."""
    meshes: tuple[MeshReport, ...] = ()
    """The mesh devices at the end of the run, the scenario's first (its shape after any reshape)."""
    hosts: Optional["Hosts"] = None
    """The hosts the mesh is spread over and the one the run is (None: one host owns every device)."""

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings, a step error or a failed ``expect`` block, 4 stopped at a meshspec
        limit."""
        if self.error is not None and self.error.source == "meshspec":
            return EXIT_LIMIT
        return 1 if self.findings or self.error or self.expect_failed else 0

    @property
    def expect_failed(self) -> int:
        """How many of the ``expect`` block's expectations this run fails (0 without a block)."""
        return len(self.expect.mismatches) if self.expect is not None else 0

    def summary(self) -> str:
        """A sanitizer-style one-liner: ``2 findings (1 stale, 1 data_mismatch) in 1 tensor``."""
        parts = []
        if self.findings:
            counts: dict[str, int] = {}
            names = set()
            for f in self.findings:  # one pass (a second for the names, each kind read twice: 3,600 more instructions)
                kind = f.kind.value
                counts[kind] = counts.get(kind, 0) + 1
                names.add(f.tensor)
            tensors = len(names)
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            n = len(self.findings)
            parts.append(f"{n} finding{'s' * (n != 1)} ({kinds}) in {tensors} tensor{'s' * (tensors != 1)}")
        else:
            parts.append("no findings")
        if self.expect_failed and not (self.error and self.error.source == "meshspec"):
            n = self.expect_failed
            parts.append(f"{n} failed expectation{'s' * (n != 1)}")
        if self.error and self.error.source == "meshspec":
            parts.append(f"stopped by meshspec's own limit at step {self.error.step} ({self.error.op}): the run is incomplete")
        elif self.error:
            parts.append(f"stopped by an error at step {self.error.step} ({self.error.op})")
        return "; ".join(parts)

    def to_json(self) -> dict:
        hosts = {"hosts": HostsJSON.json(**self.hosts.as_written(), local=[list(c) for c in self.hosts.local])} if self.hosts else {}
        listed: dict = {}
        return ReportJSON.json(
            format=REPORT_FORMAT,
            scenario=self.scenario,
            path=self.path,
            profile=self.profile,
            profile_rules=self.profile_rules,
            mesh=list(self.mesh),
            meshes=[m.to_json() for m in self.meshes],
            **hosts,
            error=self.error.to_json() if self.error else None,
            steps_run=self.steps_run,
            steps_total=self.steps_total,
            tensors=[t.to_json(listed) for t in self.tensors],
            findings=[f.to_json() for f in self.findings],
            readbacks=[r.to_json() for r in self.readbacks],
            steps=[t.to_json() for t in self.steps],
            expect=self.expect.to_json() if self.expect else None,
            metadata_mode=self.metadata,
            summary=self.summary(),
        )

    def checked_json(self, tensors: Collection[str]) -> dict:
        """The entries of :meth:`to_json` an ``expect`` block is checked against
        (meshspec/judge/expect.py), with only the ``tensors`` named: what ``meshspec check`` needs
        of a run, without the rest (a small scenario's: 21,000 instructions, the whole JSON 72,000)."""
        return ReportJSON.json(
            profile=self.profile,
            profile_rules=self.profile_rules,
            error=self.error.to_json() if self.error else None,
            tensors=[t.to_json() for t in self.tensors if t.name in tensors],
            findings=[f.to_json() for f in self.findings],
            metadata_mode=self.metadata,
            meshes=[m.to_json() for m in self.meshes],
        )


def invalid_json(path: str, message: str) -> dict:
    """The JSON entry of a scenario that could not be loaded (keeps ``run``'s array in order)."""
    return ReportJSON.json(format=REPORT_FORMAT, scenario=None, path=path, profile=None, mesh=None,
                           error=ErrorJSON.json(step=None, op="load", message=message), tensors=[], findings=[], summary="invalid scenario")


# -- diff: two reports compared ------------------------------------------------------------------
#: Per-device record fields compared, in table order.
DEVICE_FIELDS = ("recorded", "shape", "padded_shape", "dtype", "layout", "memory_config", "num_pages", "bytes", "offset")


class _Unknown:
    """A field one report does not know (a report of the real runtime has no shard offsets, a
    host tensor no pages): never a difference, shown as ``?``."""

    def __repr__(self) -> str:
        return "?"


UNKNOWN: Any = _Unknown()


def same(a: Any, b: Any) -> bool:
    """Equal, or unknown on either side."""
    return a is UNKNOWN or b is UNKNOWN or a == b


class Difference(Frozen):
    tensor: str
    device: Optional[tuple[int, ...]]
    """None for a tensor-level field (topology, storage, present)."""
    field: str
    expected: Any
    actual: Any

    def to_json(self) -> dict:
        return {
            "tensor": self.tensor,
            "device": list(self.device) if self.device is not None else None,
            "field": self.field,
            "expected": self.expected,
            "actual": self.actual,
        }


class TensorDiff(Frozen):
    name: str
    rows: tuple[tuple[tuple[int, ...], dict, dict], ...]
    """Every device: (coord, expected fields, actual fields)."""
    differences: tuple[Difference, ...]


class Diff(Frozen):
    scenario: str
    mesh: list[int]
    expected_label: str
    actual_label: str
    expected_error: Optional[dict]
    actual_error: Optional[dict]
    tensors: tuple[TensorDiff, ...]
    run: tuple[Difference, ...] = ()
    """Differences of the run as a whole (its error), tensor ``""``."""
    not_compared: tuple[tuple[str, str], ...] = ()
    """Tensors a real runtime's report could not describe, with why: left out of both (judge/real.py)."""

    @property
    def differences(self) -> list[Difference]:
        return list(self.run) + [d for t in self.tensors for d in t.differences]

    @property
    def equal(self) -> bool:
        return not self.differences

    @property
    def exit_code(self) -> int:
        return 0 if self.equal else 1

    def to_json(self) -> dict:
        return {
            "format": DIFF_FORMAT,
            "scenario": self.scenario,
            "mesh": self.mesh,
            "expected": self.expected_label,
            "actual": self.actual_label,
            "equal": self.equal,
            "differences": [d.to_json() for d in self.differences],
            **({"not_compared": [{"tensor": n, "why": why} for n, why in self.not_compared]} if self.not_compared else {}),
        }


# -- check: scenarios as CI cases ------------------------------------------------------------------
PASS, FAIL, ERROR = "PASS", "FAIL", "ERROR"


class CaseResult(Frozen):
    """One scenario under one profile (or one invalid file)."""

    path: str
    scenario: Optional[str]
    profile: Optional[str]
    outcome: str
    """PASS, FAIL or ERROR."""
    details: tuple[str, ...] = ()
    """Every mismatch (FAIL) or the error (ERROR); the first is the headline."""
    seconds: float = 0.0
    case: Optional[str] = None
    """A matrix case's values (``bfloat16-tile``), shown after the path."""

    @property
    def message(self) -> str:
        return self.details[0] if self.details else ""

    @property
    def case_id(self) -> str:
        return f"{self.scenario or Path(self.path).stem}[{self.profile}]" if self.profile else self.path


class Summary(Frozen):
    passed: int
    failed: int
    errors: int

    @property
    def exit_code(self) -> int:
        """0 all pass; 1 any failure; 2 any invalid input."""
        return 2 if self.errors else 1 if self.failed else 0

    def line(self) -> str:
        text = f"{self.passed} passed, {self.failed} failed"
        return text + (f", {self.errors} error{'s' * (self.errors != 1)}" if self.errors else "")


def summarize(results: list[CaseResult]) -> Summary:
    return Summary(
        sum(r.outcome == PASS for r in results),
        sum(r.outcome == FAIL for r in results),
        sum(r.outcome == ERROR for r in results),
    )
