"""Text that is safe to show: what a terminal would act on, or a UTF-8 file cannot hold, escaped."""

from __future__ import annotations

import unicodedata


def printable(text: str) -> str:
    """``text`` with what a terminal or a UTF-8 file cannot show as such escaped: control
    characters (ANSI escapes included) but newline and tab, and lone surrogates (from file names
    that are not UTF-8).

    >>> printable("a\\x1b[31mb\\udcff")
    'a\\\\x1b[31mb\\\\udcff'
    """
    if text.isprintable():
        return text
    out = []
    for ch in text:
        if ch in "\n\t" or (ch.isprintable() and not 0xD800 <= ord(ch) <= 0xDFFF):
            out.append(ch)
        elif unicodedata.category(ch) == "Zs":  # a non-ASCII space: keep it visible as itself
            out.append(ch)
        else:
            out.append(ch.encode("unicode_escape", "backslashreplace").decode("ascii"))
    return "".join(out)


WRITTEN_MARK = "<!-- written by meshspec -->"
"""The first line of an SVG, the second (after the doctype) of an HTML page, that meshspec writes:
how files.py knows them as its own (it replaces no file meshspec did not write)."""
