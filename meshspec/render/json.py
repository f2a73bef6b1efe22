"""JSON output: one report object, or an array of them for several scenarios."""

from __future__ import annotations

import json
import re

from ..errors import ScenarioError
from ..report import invalid_json

# A list of plain numbers on one line: [1, 3] rather than five lines of indentation. Only
# structural newlines match (a JSON string cannot hold a raw newline), so values are untouched.
_NUMBER_LIST = re.compile(r"\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]")


def dumps(data: object) -> str:
    """Indented JSON with short number lists kept on one line."""
    text = json.dumps(data, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


def render_json(reports: list, force_array: bool = False) -> str:
    """One report as an object; several (in the order given, an invalid file as its error entry)
    as an array."""
    def one(r) -> dict:
        return invalid_json(r.file or "", str(r)) if isinstance(r, ScenarioError) else r.to_json()

    return dumps(one(reports[0]) if len(reports) == 1 and not force_array else [one(r) for r in reports])
