"""``meshspec hunt`` output: the summary table and its JSON, from plain data (the index entries).
Every text in a row may come from a foreign ``hunt.json`` (a merge): it is shown through
:func:`meshspec.text.one_line`, so no escape sequence reaches the terminal."""

from __future__ import annotations

import json

from ..report import HUNT_FORMAT
from ..text import one_line

SKIPPED_SHOWN = 5
"""Files a merge skipped that the text summary names one a line (then a count of the rest)."""


def summary_data(entries: list[dict], tried, disagreements, crashes: list[dict], out: str, merged: int = 0,
                 unreachable: tuple = (), interrupted: bool = False, skipped: tuple = (), shrinks_stopped: int = 0,
                 over_limit: int = 0) -> dict:
    data: dict = {"format": HUNT_FORMAT, "out": out}
    if merged:
        data["merged"] = merged
        data["skipped"] = list(skipped)
    else:
        data.update(tried=tried, disagreements=disagreements, interrupted=interrupted, unreachable=list(unreachable),
                    shrinks_stopped=shrinks_stopped, over_limit=over_limit)
    data.update(found=entries, crashes=crashes)
    return data


def summary_json(data: dict) -> str:
    return json.dumps(data, indent=2) + "\n"


def summary_text(data: dict) -> str:
    """The signature, the file and the steps before and after shrinking, one row each."""
    rows = [("signature (kind / rule / op)", "file", "steps")]
    rows += [(one_line(f"{e['kind']} / {e['rule']} / {e['op']}"), one_line(str(e["file"])), f"{e['steps_before']} -> {e['steps_after']}")
             for e in data["found"]]
    widths = [max(len(r[i]) for r in rows) for i in range(3)]
    lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "  ".join("-" * w for w in widths))
    n = len(data["found"])
    what = (f"{data['merged']} hunt folders merged" if data.get("merged")
            else f"{data['tried']} programs tried, {data['disagreements']} disagreed")
    head = f"{what}, {n} distinct signature{'s' * (n != 1)} written to {one_line(data['out'])}"
    if data.get("interrupted"):
        head = f"interrupted: {head} (what was found so far)"
    out = [head, ""] + (lines if n else ["(none found)"])
    if data.get("shrinks_stopped"):
        k = data["shrinks_stopped"]
        out.append(f"the time budget stopped {k} shrink{'s' * (k != 1)}: {'each keeps its' if k != 1 else 'it keeps its'} smallest "
                   "program found by then (give more --time for smaller ones)")
    if data.get("over_limit"):
        k = data["over_limit"]
        out.append(f"{k} program{'s' * (k != 1)} stopped at meshspec's memory or work bound (--max-memory, --max-work) and "
                   f"{'were' if k != 1 else 'was'} skipped (raise the bounds to judge {'them' if k != 1 else 'it'})")
    skipped = data.get("skipped") or []
    if skipped:
        out.append(f"skipped {len(skipped)} file{'s' * (len(skipped) != 1)} of the merged folders (only regular files inside a "
                   "folder that load as scenarios are merged):")
        out += [f"  {one_line(s)}" for s in skipped[:SKIPPED_SHOWN]]
        if len(skipped) > SKIPPED_SHOWN:
            out.append(f"  and {len(skipped) - SKIPPED_SHOWN} more (--format json lists them all)")
    if data.get("unreachable"):
        out.append(f"the profiles also differ in {', '.join(data['unreachable'])}, which no op of these programs exercises "
                   "(meshspec profiles: what each rule governs)")
    for c in data["crashes"]:
        fault = f" with the fault {one_line(str(c['fault'][0]))} at step {c['fault'][1]}" if c.get("fault") else ""
        out.append(f"meshspec crashed on example {c['example']}{fault} ({one_line(c['error'])}): {one_line(c['file'])}; please report it")
    return "\n".join(out) + "\n"


def real_summary_text(data: dict) -> str:
    """What a real hunt (``meshspec hunt --real``) did and found, for a person."""
    where = "mock" if data["mock"] else "hardware"
    n = len(data["found_now"])
    head = (f"ttnn {data['version']} ({where}) against the simulation under {data['profile']}: {data['programs']} programs tried, "
            f"{data['run']} run ({data['steps']} steps), {data['refused']} the version could not run, {data['disagreements']} disagreed; "
            f"{n} distinct signature{'s' * (n != 1)} written to {one_line(data['out'])}")
    if data["interrupted"]:
        head = f"interrupted: {head} (what was found so far)"
    lines = [head, ""]
    rows = [("signature (kind / op)", "file", "steps", "first difference")]
    rows += [(f"{e['kind']} / {e['op']}", e["file"], f"{e['steps_before']} -> {e['steps_after']}", one_line(e["difference"])[:100])
             for e in data["found_now"]]
    if n:
        widths = [max(len(r[i]) for r in rows) for i in range(3)]
        lines += ["  ".join([*(c.ljust(w) for c, w in zip(r[:3], widths)), r[3]]).rstrip() for r in rows]
    else:
        lines.append("(no disagreement found)")
    if data["refused_why"]:
        lines += ["", "not run (the version cannot):"] + [f"  {k:>5}  {one_line(why)}" for why, k in data["refused_why"].items()]
    if data["crashes"]:
        lines += ["", f"meshspec itself failed on {len(data['crashes'])} program(s), kept as crash-*.yaml: its bug; please report it"]
    return "\n".join(lines) + "\n"
