"""The report of one scenario run: the data every renderer (table, JSON) shows.

JSON is built here, in one place, from plain dicts (format ``meshspec.report/1``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Optional

from typing import TYPE_CHECKING

from .findings import DeviceView, Finding
from .mesh import Shape
from .placement import Topology
from .runtime import Readback
from .spec import TensorSpec

if TYPE_CHECKING:
    from .expect import ExpectResult

REPORT_FORMAT = "meshspec.report/1"


@dataclass(frozen=True)
class StepError:
    step: int
    op: str
    message: str
    line: Optional[int] = None

    def to_json(self) -> dict:
        return {"step": self.step, "op": self.op, "message": self.message}


@dataclass(frozen=True)
class TensorReport:
    name: str
    storage: str
    """``device``, ``host`` or ``deallocated``."""
    spec: TensorSpec
    topology: Topology
    devices: tuple[DeviceView, ...]
    step: int
    """Step that created the tensor."""
    data: Optional[dict] = None
    """With the data view: device -> :class:`~meshspec.datasummary.DataSummary` of what a reader gets."""
    plain: bool = False
    """A single host tensor (no mesh mapper, or a to_torch result): on no device at all."""

    def to_json(self) -> dict:
        devices = [_device_json(v) for v in self.devices]
        if self.data is not None:
            for d, v in zip(devices, self.devices):
                summary = self.data.get(v.coord)
                d["data"] = summary.to_json() if summary is not None else None
        return {
            "name": self.name,
            "storage": self.storage,
            "plain": self.plain,
            "step": self.step,
            "topology": self.topology.to_json(),
            "devices": devices,
        }


def _device_json(v: DeviceView) -> dict:
    return {
        "coord": list(v.coord),
        "recorded": v.recorded,
        "spec": v.spec.to_json() if v.spec is not None else None,
        "written_bytes": v.written_bytes,
        "written_shape": list(v.written_spec.shape) if v.written_spec is not None else None,
        "offset": list(v.offset) if v.offset is not None else None,
        "status": v.status.value,
        "record_step": v.record_step,
        "write_step": v.write_step,
    }


@dataclass(frozen=True)
class Report:
    scenario: str
    path: str
    description: str
    profile: str
    mesh: Shape
    mesh_name: Optional[str]
    error: Optional[StepError]
    tensors: tuple[TensorReport, ...]
    findings: tuple[Finding, ...]
    readbacks: tuple[Readback, ...] = ()
    steps_run: int = 0
    steps_total: int = 0
    steps: tuple = ()
    """Per step: a :class:`~meshspec.trace.StepTrace`."""
    expect: Optional["ExpectResult"] = None
    """The scenario's ``expect`` block checked against this run (None without one)."""

    @property
    def exit_code(self) -> int:
        """0 clean, 1 findings or a step error."""
        return 1 if self.findings or self.error else 0

    def summary(self) -> str:
        """A sanitizer-style one-liner: ``2 findings (1 stale, 1 data_mismatch) in 1 tensor``."""
        parts = []
        if self.findings:
            counts = Counter(f.kind.value for f in self.findings)
            tensors = len({f.tensor for f in self.findings})
            kinds = ", ".join(f"{n} {k}" for k, n in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])))
            n = len(self.findings)
            parts.append(f"{n} finding{'s' * (n != 1)} ({kinds}) in {tensors} tensor{'s' * (tensors != 1)}")
        else:
            parts.append("no findings")
        if self.error:
            parts.append(f"stopped by an error at step {self.error.step} ({self.error.op})")
        return "; ".join(parts)

    def to_json(self) -> dict:
        return {
            "format": REPORT_FORMAT,
            "scenario": self.scenario,
            "path": self.path,
            "profile": self.profile,
            "mesh": list(self.mesh),
            "error": self.error.to_json() if self.error else None,
            "steps_run": self.steps_run,
            "steps_total": self.steps_total,
            "tensors": [t.to_json() for t in self.tensors],
            "findings": [f.to_json() for f in self.findings],
            "readbacks": [r.to_json() for r in self.readbacks],
            "steps": [t.to_json() for t in self.steps],
            "expect": self.expect.to_json() if self.expect else None,
            "summary": self.summary(),
        }


def invalid_json(path: str, message: str) -> dict:
    """The JSON entry of a scenario that could not be loaded (keeps ``run``'s array in order)."""
    return {
        "format": REPORT_FORMAT,
        "scenario": None,
        "path": path,
        "profile": None,
        "mesh": None,
        "error": {"step": None, "op": "load", "message": message},
        "tensors": [],
        "findings": [],
        "summary": "invalid scenario",
    }
