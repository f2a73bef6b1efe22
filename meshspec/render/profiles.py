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


def profiles_text(profiles: list[Profile]) -> str:
    """A table of rules by profile, then each profile's era and each choice's meaning."""
    head = ["rule", *(p.name for p in profiles)]
    unverified = {p.name: set(source_only(p)) if p.verified_by else set() for p in profiles}
    rows = [["verified by", *(f"ttnn {p.verified_by}" if p.verified_by else SOURCE_ONLY for p in profiles)]]
    rows += [[name, *(p.rules()[name] + ("*" if name in unverified[p.name] else "") for p in profiles)] for name in RULES]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    rule = "-" * (sum(widths) + 2 * (len(widths) - 1))
    out = [line(head), line(rows[0]), rule, *(line(r) for r in rows[1:]), ""]
    out.append("* rests on source reading only: that version's golden data does not check it")
    out.append("")
    out += ["profiles:"] + [f"  {p.name}: {p.era}" + (f" (changes {p.base})" if p.base else "") + "; " + _verified(p)
                            for p in profiles] + [""]
    out.append("rules:")
    for rule in RULES.values():
        out.append(f"  {rule.name}: {rule.governs}")
        out += [f"    {choice}: {means}" for choice, means in rule.meanings.items()]
    return "\n".join(out) + "\n"


def _verified(p: Profile) -> str:
    if not p.verified_by:
        return "no real version verifies it: every rule rests on source reading only"
    only = source_only(p)
    return f"verified by ttnn {p.verified_by}" + (f"; source reading only: {', '.join(only)}" if only else "")
