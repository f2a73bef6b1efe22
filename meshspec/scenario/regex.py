"""Which regular expressions a scenario may give (``expect ... error: {match: REGEX}``).

Python's ``re`` backtracks and has no timeout: ``(x+x+)+y`` searched in a 60-character error
message runs for ever, and a scenario's error messages hold its own names (tensors up to 128
characters, file names up to 4096). A pattern is refused when its matching time is not bounded
by a small power of the text's length:

- a repeated group (``*``, ``+``, ``?`` or ``{m,n}`` after ``)``) whose body holds a quantifier or
  an alternation ``|`` (nested repetition: exponential time);
- a backreference (``\\1``, ``(?P=name)``) or a conditional group (``(?(1)a|b)``);
- more than :data:`MAX_OPEN_ENDED` repetitions without a small bound (``*``, ``+``, ``{m,}``,
  ``{m,n}`` with n over :data:`SMALL_BOUND`): a search with k of them takes time growing as the
  k+1-th power of the text's length at worst (``x*x*x*x*y``: 3.3 s on 200 characters). Two keep
  ``expected .* got .*`` and ``\\d+, \\d+``; their worst case, ``.*a.*b``, is cubic: well under a
  second on the longest message a scenario can cause (its names are at most 128 characters, its
  file names 1,024).

:func:`unbounded` reads the pattern's text itself (escapes, character classes, groups of every
kind, verbose mode); it is called on patterns ``re.compile`` accepted.
"""

from __future__ import annotations

import re
from typing import Optional

_QUANTIFIER = re.compile(r"[*+?]|\{(?:[0-9]+(?:,[0-9]*)?|,[0-9]*)\}")
"""What ``re`` reads as a quantifier (``a{}`` and ``a{x}`` are literal text)."""
MAX_OPEN_ENDED = 2
"""The most repetitions without a small bound a pattern may hold."""
SMALL_BOUND = 64
"""The largest ``n`` of a ``{m,n}`` that counts as a small, bounded repetition."""
_FLAGS = re.compile(r"[aiLmsux]*(?:-[imsx]+)?")
_OCTAL = re.compile(r"[0-7]{3}")


class _Group:
    __slots__ = ("start", "verbose", "repeats")

    def __init__(self, start: int, verbose: bool) -> None:
        self.start = start
        self.verbose = verbose
        self.repeats = False
        """The body holds a quantifier or an alternation (in a nested group too)."""


def unbounded(pattern: str) -> Optional[str]:
    """Why matching ``pattern`` may take time not bounded by a small power of the text's length,
    or None. ``pattern`` is one ``re.compile`` accepts.

    >>> unbounded("(x+x+)+y")
    "the group at column 1 repeats ('+') and holds a quantifier or '|': nested repetition can take exponential time"
    >>> unbounded(r"Shard shape mismatch: expected Shape\\(\\[1, \\d+, 32, 32\\]\\)") is None
    True
    """
    verbose = bool(re.compile(pattern).flags & re.VERBOSE)  # (?x) at the start: the whole pattern
    stack = [_Group(0, verbose)]
    last: Optional[_Group] = None
    """The group that just closed: a quantifier after it repeats it."""
    i, n = 0, len(pattern)
    open_ended: list[str] = []
    """The repetitions without a small bound, as written."""
    too_many: Optional[str] = None
    """Why the pattern has too many of them: said only if nothing worse is found further on."""
    while i < n:
        top = stack[-1]
        c = pattern[i]
        if top.verbose and c in " \t\n\r\f\v":
            i += 1
            continue
        if top.verbose and c == "#":
            end = pattern.find("\n", i)
            i = n if end < 0 else end + 1
            continue
        quantifier = _QUANTIFIER.match(pattern, i)
        if quantifier is not None:
            i = quantifier.end()
            if i < n and pattern[i] in "?+":  # lazy or possessive: the same repetition
                i += 1
            if last is not None and last.repeats:
                return f"the group at column {last.start + 1} repeats ({quantifier.group()!r}) and holds a quantifier or '|': nested repetition can take exponential time"
            top.repeats = True
            last = None
            if _open_ended(quantifier.group()):
                open_ended.append(quantifier.group())
                if len(open_ended) == MAX_OPEN_ENDED + 1:
                    too_many = (f"{len(open_ended)} repetitions without a small bound ({', '.join(map(repr, open_ended))}, the last at "
                                f"column {quantifier.start() + 1}): more than {MAX_OPEN_ENDED} can take time growing as a high power "
                                "of the text's length")
            continue
        last = None
        if c == "\\":
            following = pattern[i + 1 : i + 2]
            if following in "123456789" and not _OCTAL.fullmatch(pattern, i + 1, i + 4):
                return f"a backreference (\\{following} at column {i + 1}): its matching time is not bounded"
            i += 2
        elif c == "[":
            i = _class_end(pattern, i)
        elif c == "|":
            top.repeats = True
            i += 1
        elif c == ")":
            done = stack.pop() if len(stack) > 1 else top
            stack[-1].repeats = stack[-1].repeats or done.repeats
            last = done
            i += 1
        elif c == "(":
            if not pattern.startswith("?", i + 1):
                stack.append(_Group(i, top.verbose))
                i += 1
                continue
            rest = pattern[i + 2 : i + 4]
            if rest.startswith("P="):
                return f"a backreference ((?P=...) at column {i + 1}): its matching time is not bounded"
            if rest.startswith("("):
                return f"a conditional group ((?(...) at column {i + 1}), which refers to another group: its matching time is not bounded"
            if rest.startswith("#"):  # a comment, to the first ')' not escaped
                j = i + 3
                while j < n and pattern[j] != ")":
                    j += 2 if pattern[j] == "\\" else 1
                i = j + 1
                continue
            if rest.startswith("P<"):
                stack.append(_Group(i, top.verbose))
                i = pattern.index(">", i) + 1
                continue
            if rest[:1] in ("=", "!", ">") or rest in ("<=", "<!"):
                stack.append(_Group(i, top.verbose))
                i += 2 + (2 if rest in ("<=", "<!") else 1)
                continue
            flags = _FLAGS.match(pattern, i + 2)
            j = flags.end()
            if pattern.startswith(":", j):  # (?i:...), (?-x:...): scoped flags
                on, _, off = flags.group().partition("-")
                group = _Group(i, ("x" in on) or (top.verbose and "x" not in off))
                stack.append(group)
                i = j + 1
            else:  # (?x): flags of the whole pattern, read above
                i = j + 1
        else:
            i += 1
    return too_many


def _open_ended(quantifier: str) -> bool:
    """Whether a quantifier repeats without a small bound: ``*``, ``+``, ``{2,}``, ``{0,1000}``.

    >>> [_open_ended(q) for q in ("*", "+", "?", "{3}", "{2,}", "{0,64}", "{0,1000}", "{,5}")]
    [True, True, False, False, True, False, True, False]
    """
    if quantifier in "*+":
        return True
    if not quantifier.startswith("{") or "," not in quantifier:
        return False
    upper = quantifier[1:-1].split(",", 1)[1]
    return upper == "" or int(upper) > SMALL_BOUND


def _class_end(pattern: str, i: int) -> int:
    """The index after the character class opening at ``i`` (``[^]a]`` holds ``]``)."""
    j = i + 1
    if pattern.startswith("^", j):
        j += 1
    if pattern.startswith("]", j):  # a ']' first is a member
        j += 1
    n = len(pattern)
    while j < n and pattern[j] != "]":
        j += 2 if pattern[j] == "\\" else 1
    return j + 1
