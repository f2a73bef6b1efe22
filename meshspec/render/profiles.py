"""``meshspec profiles``: every profile's rules side by side, and what each choice means.

Plain text from plain data (:func:`profiles_data`, also the JSON form): rows are the rules of
:data:`meshspec.sim.profiles.RULES`, columns the profiles, under the real ttnn version that verifies
each (its golden data, tests/golden) or "source only"; a rule whose choice rests on source reading
only in a verified profile is marked ``*``. The choices' meanings and sources follow.
"""

from __future__ import annotations

from ..sim.profiles import RULES, Profile, source_only

SOURCE_ONLY = "source only"
"""What a profile no real version verifies shows as its verifying version."""


def profiles_data(profiles: list[Profile]) -> dict:
    """The JSON form: each profile's era, base and rules; each rule's choices and their meanings."""
    return {
        "profiles": [
            {"name": p.name, "era": p.era, "summary": p.summary, "base": p.base, "verified_by": p.verified_by,
             "source_only": source_only(p), "rules": p.rules()}
            for p in profiles
        ],
        "rules": [
            {"name": r.name, "governs": r.governs, "choices": [{"choice": c, "means": m} for c, m in r.meanings.items()]}
            for r in RULES.values()
        ],
    }


def profiles_text(profiles: list[Profile], width: int = 10**6) -> str:
    """A table of rules by profile, then each profile's era and each choice's meaning. When the
    profiles do not fit ``width`` side by side, the table comes in parts of as many profile columns
    as fit, each part with the rule column; the prose wraps under its indent."""
    from ..text import wrap_lines

    unverified = {p.name: set(source_only(p)) if p.verified_by else set() for p in profiles}
    names = ["rule", "verified by", *RULES]
    columns = [[p.name, f"ttnn {p.verified_by}" if p.verified_by else SOURCE_ONLY,
                *(p.rules()[name] + ("*" if name in unverified[p.name] else "") for name in RULES)] for p in profiles]
    first = max(len(n) for n in names)
    out: list[str] = []
    for part in _parts([max(len(c) for c in column) for column in columns], first, width):
        widths = [first, *(max(len(c) for c in columns[i]) for i in part)]
        line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
        rows = [[names[k], *(columns[i][k] for i in part)] for k in range(len(names))]
        out += [line(rows[0]), line(rows[1]), "-" * (sum(widths) + 2 * (len(widths) - 1)), *(line(r) for r in rows[2:]), ""]
    out.append("* rests on source reading only: that version's golden data does not check it")
    out.append("")
    out += ["profiles:"] + [f"  {p.name}: {p.era}" + (f" (changes {p.base})" if p.base else "") + "; " + _verified(p)
                            for p in profiles] + [""]
    out.append("rules:")
    for rule in RULES.values():
        out.append(f"  {rule.name}: {rule.governs}")
        out += [f"    {choice}: {means}" for choice, means in rule.meanings.items()]
    return wrap_lines("\n".join(out), width) + "\n"


def _parts(widths: list[int], first: int, width: int) -> list[list[int]]:
    """The profile columns (their widths) cut into runs that fit ``width`` beside a first column of
    ``first``; a column wider than the rest of the line is a run of its own.

    >>> _parts([10, 10, 10], 5, 30), _parts([10, 10, 10], 5, 100)  # 5 + (2 + 10) * 2 = 29 fits 30, a third does not
    ([[0, 1], [2]], [[0, 1, 2]])
    """
    parts: list[list[int]] = [[]]
    used = first
    for i, w in enumerate(widths):
        if parts[-1] and used + 2 + w > width:
            parts.append([])
            used = first
        parts[-1].append(i)
        used += 2 + w
    return parts


def _verified(p: Profile) -> str:
    if not p.verified_by:
        return "no real version verifies it: every rule rests on source reading only"
    only = source_only(p)
    return f"verified by ttnn {p.verified_by}" + (f"; source reading only: {', '.join(only)}" if only else "")
