"""JSON output: one report object, or an array of them for several scenarios."""

from __future__ import annotations

import json


def render_json(reports: list) -> str:
    data = reports[0].to_json() if len(reports) == 1 else [r.to_json() for r in reports]
    return json.dumps(data, indent=2) + "\n"
