"""``meshspec profiles``: every profile's rules side by side, and what each choice means.

Plain text from plain data (:func:`profiles_data`, also the JSON form): rows are the rules of
:data:`meshspec.sim.profiles.RULES`, columns the profiles. The choices' meanings and sources follow.
"""

from __future__ import annotations

from ..sim.profiles import RULES, Profile


def profiles_data(profiles: list[Profile]) -> dict:
    """The JSON form: each profile's era, base and rules; each rule's choices and their meanings."""
    return {
        "profiles": [
            {"name": p.name, "era": p.era, "summary": p.summary, "base": p.base, "rules": p.rules()} for p in profiles
        ],
        "rules": [
            {"name": r.name, "governs": r.governs, "choices": [{"choice": c, "means": m} for c, m in r.meanings.items()]}
            for r in RULES.values()
        ],
    }


def profiles_text(profiles: list[Profile]) -> str:
    """A table of rules by profile, then each profile's era and each choice's meaning."""
    head = ["rule", *(p.name for p in profiles)]
    rows = [[name, *(p.rules()[name] for p in profiles)] for name in RULES]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    line = lambda cells: "  ".join(c.ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    out = [line(head), "-" * (sum(widths) + 2 * (len(widths) - 1)), *(line(r) for r in rows), ""]
    out += ["profiles:"] + [f"  {p.name}: {p.era}" + (f" (changes {p.base})" if p.base else "") for p in profiles] + [""]
    out.append("rules:")
    for rule in RULES.values():
        out.append(f"  {rule.name}: {rule.governs}")
        out += [f"    {choice}: {means}" for choice, means in rule.meanings.items()]
    return "\n".join(out) + "\n"
