"""Fuzz family of the scenario loader (issue 34, attack round 1): error patterns.

``error_patterns`` builds a random regular expression from a small grammar (literals, escapes,
character classes holding ``]``, ``(``, ``|`` and ``*``, groups of every kind, alternation,
quantifiers lazy or not, now and then a backreference) and works out from the way it was built
whether its matching time is bounded (no repeated group whose body holds a quantifier or ``|``,
no backreference, at most two repetitions without a small bound: ``*``, ``+``, ``{2,}``). Loaded as an ``expect`` error pattern, the loader must refuse exactly those
that are not, in one line at the pattern, and take the others.
"""

from __future__ import annotations

import random
import re
from pathlib import Path

from meshspec.errors import ScenarioError
from meshspec.scenario.loader import load

SCENARIO = """\
meshspec: 1
mesh: [1, 2]
steps:
  - allocate_tensor_on_device: {{as: a, shape: [1, 1, 32, 32]}}
expect:
  profiles:
    default:
      error: {{match: {pattern}}}
"""
QUANTIFIERS = ["*", "+", "?", "{2}", "{1,3}", "{,2}", "{2,}"]
OPEN_ENDED = {"*", "+", "{2,}"}


class _Pattern:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.groups = 0
        self.bad = False
        self.open_ended = 0

    def seq(self, depth: int) -> tuple[str, bool]:
        """Text and whether it holds a quantifier or '|' (at any depth)."""
        parts, repeats = [], False
        for _ in range(self.rng.randint(1, 3)):
            text, inner, is_group = self.atom(depth)
            repeats = repeats or inner
            if self.rng.random() < 0.4:
                quantifier = self.rng.choice(QUANTIFIERS)
                text += quantifier + self.rng.choice(["", "", "?"])
                self.open_ended += quantifier in OPEN_ENDED
                self.bad = self.bad or (is_group and inner) or self.open_ended > 2
                repeats = True
            parts.append(text)
        if depth > 0 and self.rng.random() < 0.2:
            other, inner = self.seq(depth + 1)
            return "".join(parts) + "|" + other, True
        return "".join(parts), repeats

    def atom(self, depth: int) -> tuple[str, bool, bool]:
        r = self.rng.random()
        if r < 0.25 and depth < 4:
            kind = self.rng.choice(["(", "(?:", "(?P<g{n}>", "(?i:"])
            if kind in ("(", "(?P<g{n}>"):
                self.groups += 1
            body, inner = self.seq(depth + 1)
            return kind.format(n=self.groups) + body + ")", inner, True
        if r < 0.4:
            members = self.rng.choice(["]", "^]", "", "^"]) + self.rng.choice("ab(") + self.rng.choice("|*)+?.")
            return "[" + members + "]", False, False
        if r < 0.5:
            return self.rng.choice([r"\d", r"\(", r"\)", r"\|", r"\\", r"\*", r"\w", r"\{2\}"]), False, False
        if r < 0.53 and self.groups:
            self.bad = True
            return "\\" + str(self.rng.randint(1, self.groups)), False, False
        return self.rng.choice("abcx. :"), False, False


def error_patterns(rng: random.Random, scratch: Path) -> str:
    gen = _Pattern(rng)
    pattern, _ = gen.seq(0)
    try:
        re.compile(pattern)
    except re.error:
        return "invalid"  # the grammar may make one now and then (a quantified lookahead, ...): not this family's
    quoted = '"' + pattern.replace("\\", "\\\\").replace('"', '\\"') + '"'
    path = scratch / "pattern.yaml"
    path.write_text(SCENARIO.format(pattern=quoted), encoding="utf-8")
    try:
        load(path)
    except ScenarioError as err:
        message = str(err)
        assert "\n" not in message, message
        assert gen.bad, f"{pattern!r} is bounded, yet refused: {message}"
        assert message.startswith(f"{path}:8:22: expect.profiles.default.error.match: "), message
        return "refused"
    assert not gen.bad, f"{pattern!r} repeats a group that repeats (or refers back), yet was taken"
    return "taken"


FAMILIES = {"error_patterns": error_patterns}
