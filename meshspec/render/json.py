"""JSON output: one report object, or an array of them for several scenarios."""

from __future__ import annotations

import json

from ..errors import ScenarioError
from ..report import invalid_json

WIDTH = 100
"""A value whose compact JSON fits in this many columns (indent included) stays on one line."""
LONG = 64
"""A list of more items than this has each item on one line, however long (a mesh's devices)."""

_compact = json.JSONEncoder(separators=(", ", ": ")).encode  # the C encoder: no indent given


def dumps(data: object) -> str:
    """Indented JSON in which every value that fits on one line is on one line (a shape, a spec),
    and each item of a long list (a mesh's devices) is one line. Values are encoded by the C
    encoder (``indent`` would select the pure Python one, 8 times slower), each once for each
    level above it, so a report of 65,536 devices costs a few encodings of its size."""
    return _format(data, 0) + "\n"


def _format(value: object, indent: int) -> str:
    flat = _compact(value)
    if len(flat) + indent <= WIDTH or not isinstance(value, (dict, list)) or not value:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, dict):
        items = [f"{inner}{_compact(k)}: {_format(v, indent + 2)}" for k, v in value.items()]
        return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
    if len(value) > LONG:
        items = [inner + _compact(v) for v in value]
    else:
        items = [inner + _format(v, indent + 2) for v in value]
    return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"


def render_json(reports: list, force_array: bool = False) -> str:
    """One report as an object; several (in the order given, an invalid file as its error entry)
    as an array."""
    def one(r) -> dict:
        return invalid_json(r.file or "", str(r)) if isinstance(r, ScenarioError) else r.to_json()

    return dumps(one(reports[0]) if len(reports) == 1 and not force_array else [one(r) for r in reports])
