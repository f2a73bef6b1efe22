"""Reading saved reports: validation against ``meshspec.report/1`` (declared in meshspec/report.py) and its schema.

``meshspec diff A.json B.json`` compares two saved reports, one of which may come from somewhere
else (a real runtime's report, written by an exported script). Each is validated against the
format first, so a report with a missing key, a wrong type or a bad value is one line naming the
file and the place, never a crash. Keys the format does not name are allowed: a report may carry
more than diff compares. ``meshspec schema --report`` prints the format as JSON Schema.
"""

from typing import Any

from ..errors import MeshspecError
from ..report import REPORT_FORMAT, ReportJSON
from ..typed import Invalid, json_schema, validate


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
    if data["mesh"] is None:  # the entry of a scenario that could not be loaded: no run to compare
        error = data.get("error") or {}
        raise ReportError(f"{label} is the entry of a scenario that could not be loaded ({error.get('message', 'no message')}); "
                          "diff compares reports of runs")
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
