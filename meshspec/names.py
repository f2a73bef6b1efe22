"""The one rule for names a scenario holds, and the one way any text becomes a name or a file name.

A scenario names tensors (``as: dst``), traces, submeshes and profiles. Those names reach Python
variables in an exported script, file names under ``hunt --out``, comments in a recorded
scenario and the terminal. So a name is checked once, at load, by :data:`NAME`; and everything
that *writes* a scenario (record, import, hunt) makes its names with :func:`as_name`, so what it
writes loads. Text that is not a name (a program's variable ``dst_é``, a profile called
``x/../../escaped``) never reaches a file name as it is: :func:`file_slug` makes one.

A name is ASCII: a letter or ``_``, then letters, digits, ``_``, ``.`` and ``-``, at most
:data:`MAX_NAME` characters. ``.`` and ``-`` are kept because ttnn programs' own names hold them
in reports (``dst.cpu``); nothing ever pastes a name into code as text, so they are only
characters (an exported script maps every name to an identifier of its own).

>>> [is_name(n) for n in ("dst", "dst.cpu", "w-2", "_x", "2x", "dst_é", "a b", "")]
[True, True, True, True, False, False, False, False]
>>> as_name("dst"), as_name("dst_é"), as_name("2nd")
('dst', 'dst___67ced1', 't_2nd_c21365')
>>> file_slug("current"), file_slug("x/../../escaped")
('current', 'x-escaped-b32831')
"""

from __future__ import annotations

import re

MAX_NAME = 128
"""The longest name, in characters: a name becomes part of a file name (255 bytes at most on
common file systems) together with a hash and a suffix."""

NAME = r"[A-Za-z_][A-Za-z0-9_.\-]{0,%d}" % (MAX_NAME - 1)
"""A name, as a regular expression (no anchors): what the loader accepts for ``as``, ``trace``,
submesh and profile names."""

NAME_HELP = "a name: a letter or _, then letters, digits, _ . - (ASCII, at most %d characters)" % MAX_NAME

_NAME = re.compile(NAME)
_NOT_NAME_CHAR = re.compile(r"[^A-Za-z0-9_.\-]")
_NOT_SLUG_CHAR = re.compile(r"[^A-Za-z0-9_-]+")

RESERVED_PROFILE_NAMES = frozenset({"all", "default"})
"""Names a user profile cannot take: ``--profile all`` runs every profile, and an ``expect``
block's ``default`` is what every profile not named expects."""


def is_name(text: object) -> bool:
    """Whether ``text`` is a name under the one rule (:data:`NAME`)."""
    return isinstance(text, str) and _NAME.fullmatch(text) is not None


def _digest(text: str, n: int = 6) -> str:
    import hashlib  # here: every run loads this module, and only a name that is changed needs a digest

    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:n]


def as_name(text: str) -> str:
    """A name under the rule made from any text, the same text always giving the same name: what
    a recorded program's variable, an imported graph's label or a hunted program's tensor becomes.
    A text that is a name stays as it is; otherwise each character the rule does not take becomes
    ``_``, a name that would start with a digit gets ``t_`` before it, and a short hash of the
    original text follows, so two texts that differ only in such characters stay two names (and
    none becomes a name that some other text keeps as it is).

    >>> as_name("dst_é"), as_name("dst_è"), as_name("a" * 200) == as_name("a" * 201)
    ('dst___67ced1', 'dst___d9895a', False)
    """
    if is_name(text):
        return text
    if not text:
        return "t_" + _digest(text)
    body = _NOT_NAME_CHAR.sub("_", text)
    if not (body[0].isascii() and (body[0].isalpha() or body[0] == "_")):
        body = "t_" + body
    tail = "_" + _digest(text)
    return body[: MAX_NAME - len(tail)] + tail


def file_slug(text: str, limit: int = 48) -> str:
    """A file-name part made from any text: ASCII letters, digits, ``_`` and ``-`` only (no ``/``,
    no ``..``, no leading dot), at most ``limit`` characters, and a short hash of the text when the
    slug is not the text itself, so two texts never share a slug by accident.

    >>> file_slug("uniform-by-value"), file_slug("a/b"), file_slug("a-b"), file_slug("")
    ('uniform-by-value', 'a-b-c14cdd', 'a-b', 'x-e3b0c4')
    >>> len(file_slug("p" * 240))
    48
    """
    slug = _NOT_SLUG_CHAR.sub("-", text).strip("-")
    if slug == text and 0 < len(slug) <= limit:
        return slug
    tail = "-" + _digest(text)
    return (slug[: limit - len(tail)].rstrip("-") or "x") + tail
