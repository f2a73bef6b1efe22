"""Reading saved reports: the published schema of ``meshspec.report/1`` and its validation.

``meshspec diff A.json B.json`` compares two saved reports, one of which may come from somewhere
else (a real runtime's report, written by an exported script). Each is validated against this
schema first, so a report with a missing key, a wrong type or a bad value is one line naming the
file and the place, never a crash. Keys the schema does not name are allowed: a report may carry
more (a buffer address, data summaries) than diff compares. ``meshspec schema --report`` prints
the JSON Schema.
"""

from typing import Annotated, Any, Literal, Optional, Union

from ..errors import MeshspecError
from ..report import REPORT_FORMAT
from ..typed import Invalid, Range, Typed, json_schema, validate

Int = Annotated[int, Range(ge=-(2**63), le=2**63 - 1)]
Count = Annotated[int, Range(ge=0, le=2**63 - 1)]
Ints = list[Int]


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


class DeviceJSON(Typed, open=True):
    coord: Ints
    recorded: bool
    spec: Optional[SpecJSON] = None
    written_bytes: Optional[Count] = None
    offset: Optional[Ints] = None
    status: Optional[str] = None


class ValuesJSON(Typed, open=True):
    """A host tensor's values as a report sums them up: diff compares the sha256 and shows the rest."""

    shape: Optional[Ints] = None
    dtype: Optional[str] = None
    sha256: Optional[str] = None
    first: Optional[list[Any]] = None


class TensorJSON(Typed, open=True):
    name: str
    storage: Literal["device", "host", "deallocated"]
    topology: Union[TopologyJSON, TopologyRefJSON]
    """The tensor's topology, or ``{"same_as": name}``: that of the earlier tensor ``name`` lists."""
    devices: list[DeviceJSON]
    address: Optional[Count] = None
    """A live device tensor's buffer address (the same on every device)."""
    values: Optional[ValuesJSON] = None
    """A host tensor holding one array: its values, summed up (null otherwise)."""


class ErrorJSON(Typed, open=True):
    step: Optional[Int] = None
    op: Optional[str] = None
    message: str
    crash: bool = False


class FindingJSON(Typed, open=True):
    kind: str
    tensor: str
    device: Optional[Ints] = None
    step: Optional[Int] = None
    message: str = ""


class ReportJSON(Typed, open=True):
    """A meshspec.report/1 document: one run's records, device by device."""

    format: Literal["meshspec.report/1"]
    scenario: Optional[str]
    profile: Optional[str] = None
    mesh: Ints
    steps_run: Optional[Count] = None
    error: Optional[ErrorJSON] = None
    tensors: list[TensorJSON]
    findings: list[FindingJSON] = []


class DiffError(MeshspecError):
    """Two reports cannot be compared (not reports, or of different scenarios or meshes)."""


class ReportError(DiffError):
    """A saved report is not a valid meshspec.report/1 document."""


def validate_report(data: Any, label: str) -> dict:
    """``data`` (parsed JSON) if it is a valid report; else :class:`ReportError`, one line."""
    if isinstance(data, list):
        raise ReportError(f"{label} holds {len(data)} reports; diff compares one report with one report")
    if not isinstance(data, dict) or data.get("format") != REPORT_FORMAT:
        got = data.get("format") if isinstance(data, dict) else type(data).__name__
        raise ReportError(f"{label} is not a meshspec report (format {got!r}; expected {REPORT_FORMAT!r})")
    try:
        validate(ReportJSON, data)
    except Invalid as err:
        raise ReportError(f"{label} is not a valid {REPORT_FORMAT} report: {err.message} (meshspec schema --report prints the format)") from None
    twice = _repeated(t["name"] for t in data["tensors"])
    if twice is not None:
        raise ReportError(f"{label} is not a valid {REPORT_FORMAT} report: tensor {twice!r} is listed twice")
    topologies: dict[str, dict] = {}
    for t in data["tensors"]:  # a shared topology is read as the one listed (the same dict, not a copy)
        ref = t["topology"].get("same_as") if "coords" not in t["topology"] else None
        if ref is not None:
            if ref not in topologies:
                raise ReportError(f"{label} is not a valid {REPORT_FORMAT} report: tensor {t['name']!r}'s topology is that of "
                                  f"{ref!r}, which no earlier tensor of the report is")
            t["topology"] = topologies[ref]
        topologies[t["name"]] = t["topology"]
    for t in data["tensors"]:
        twice = _repeated(tuple(d["coord"]) for d in t["devices"])
        if twice is not None:
            raise ReportError(f"{label} is not a valid {REPORT_FORMAT} report: tensor {t['name']!r} lists device ({','.join(map(str, twice))}) twice")
    return data


def _repeated(items) -> Any:
    """The first item seen twice, or None: a report names each tensor once, and each device of a tensor once."""
    seen = set()
    for item in items:
        if item in seen:
            return item
        seen.add(item)
    return None


def report_schema() -> dict:
    schema = json_schema(ReportJSON)
    return {"$schema": "https://json-schema.org/draft/2020-12/schema", **schema, "title": f"meshspec report ({REPORT_FORMAT})"}
