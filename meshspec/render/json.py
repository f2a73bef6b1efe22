"""JSON output: one report object, or an array of them for several scenarios."""

from __future__ import annotations

import json
import re

# A list of plain numbers on one line: [1, 3] rather than five lines of indentation. Only
# structural newlines match (a JSON string cannot hold a raw newline), so values are untouched.
_NUMBER_LIST = re.compile(r"\[\n\s*(-?\d+(?:,\n\s*-?\d+)*)\n\s*\]")


def dumps(data: object) -> str:
    """Indented JSON with short number lists kept on one line."""
    text = json.dumps(data, indent=2)
    return _NUMBER_LIST.sub(lambda m: "[" + re.sub(r",\n\s*", ", ", m.group(1)) + "]", text) + "\n"


def render_json(reports: list) -> str:
    return dumps(reports[0].to_json() if len(reports) == 1 else [r.to_json() for r in reports])
