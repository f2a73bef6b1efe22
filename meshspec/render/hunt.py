"""``meshspec hunt`` output: the summary table and its JSON, from plain data (the index entries)."""

from __future__ import annotations

import json


def summary_data(entries: list[dict], tried: int, disagreements: int, crashes: list[dict], out: str, merged: int = 0) -> dict:
    data = {"format": "meshspec.hunt/1", "out": out, "tried": tried, "disagreements": disagreements, "found": entries, "crashes": crashes}
    if merged:
        data["merged"] = merged
    return data


def summary_json(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"


def summary_text(data: dict) -> str:
    """The signature, the file and the steps before and after shrinking, one row each."""
    rows = [("signature (kind / rule / op)", "file", "steps")]
    rows += [(f"{e['kind']} / {e['rule']} / {e['op']}", e["file"], f"{e['steps_before']} -> {e['steps_after']}") for e in data["found"]]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    n = len(data["found"])
    what = (f"{data['merged']} hunt folders merged" if data.get("merged")
            else f"{data['tried']} programs tried, {data['disagreements']} disagreed")
    head = f"{what}, {n} distinct signature{'s' * (n != 1)} written to {data['out']}"
    out = [head, ""] + (lines if n else ["(none found)"])
    for c in data["crashes"]:
        out.append(f"meshspec crashed on example {c['example']} ({c['error']}): {c['file']}; please report it")
    return "\n".join(out) + "\n"
