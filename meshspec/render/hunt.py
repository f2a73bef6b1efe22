"""``meshspec hunt`` output: the summary table and its JSON, from plain data (the index entries)."""

from __future__ import annotations

import json

from ..report import HUNT_FORMAT


def summary_data(entries: list[dict], tried, disagreements, crashes: list[dict], out: str, merged: int = 0,
                 unreachable: tuple = (), interrupted: bool = False) -> dict:
    data: dict = {"format": HUNT_FORMAT, "out": out}
    if merged:
        data["merged"] = merged
    else:
        data.update(tried=tried, disagreements=disagreements, interrupted=interrupted, unreachable=list(unreachable))
    data.update(found=entries, crashes=crashes)
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
    if data.get("interrupted"):
        head = f"interrupted: {head} (what was found so far)"
    out = [head, ""] + (lines if n else ["(none found)"])
    if data.get("unreachable"):
        out.append(f"the profiles also differ in {', '.join(data['unreachable'])}, which no op of these programs exercises "
                   "(meshspec profiles: what each rule governs)")
    for c in data["crashes"]:
        fault = f" with the fault {c['fault'][0]} at step {c['fault'][1]}" if c.get("fault") else ""
        out.append(f"meshspec crashed on example {c['example']}{fault} ({c['error']}): {c['file']}; please report it")
    return "\n".join(out) + "\n"
