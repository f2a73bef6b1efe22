"""Text that is safe to show: what a terminal would act on, or a UTF-8 file cannot hold, escaped;
and plain data as the one-line YAML a scenario writes (:func:`flow`)."""

from __future__ import annotations

import re
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


def one_line(text: str) -> str:
    """``text`` as one line that nothing reads as two: :func:`printable` with newlines escaped too.
    Every comment meshspec writes into a scenario or a script, and every line it prints, uses it:
    YAML and editors also break lines at ``\\r``, U+0085, U+2028 and U+2029 (escaped by
    :func:`printable` as they are not printable), so a recorded path or an error text holding one
    cannot make the rest of a comment a live line.

    >>> one_line("a\\nb\\u2028c\\x85d\\re")
    'a\\\\nb\\\\u2028c\\\\x85d\\\\re'
    """
    return printable(text).replace("\n", "\\n")


_LONG_QUOTED = re.compile(r"""(['"])([^'"\n]{200,})\1""")


def shorten_values(message: str) -> str:
    """``message`` with every quoted value of 200 characters or more cut to its first 60: an error
    names the bad value, and a 1 MB one made a 1 MB line.

    >>> shorten_values("unknown dtype '" + "x" * 5000 + "'; expected bfloat16")
    "unknown dtype 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...' (5,000 characters); expected bfloat16"
    """
    if len(message) < 200:
        return message
    return _LONG_QUOTED.sub(lambda m: f"{m[1]}{m[2][:60]}...{m[1]} ({len(m[2]):,} characters)", message)


def printable_data(value):
    """``value`` (JSON data read from a file: a saved report) with :func:`printable` applied to
    every string, keys included, so a tensor named ``"\x1b[31mRED"`` cannot act on the terminal.

    >>> printable_data({"name": "a\\x1b[2J", "steps": [1, "b\\x07"]})
    {'name': 'a\\\\x1b[2J', 'steps': [1, 'b\\\\x07']}
    """
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, list):
        return [printable_data(v) for v in value]
    if isinstance(value, dict):
        return {printable_data(k): printable_data(v) for k, v in value.items()}
    return value


def flow(value) -> str:
    """``value`` (plain data) as one line of flow-style YAML, as a scenario writes it: what every
    scenario meshspec writes (hunt, record, import) and every hint that says what to write use.

    >>> flow({"ShardTensor2dMesh": {"mesh_shape": [2, 4], "dims": [None, 3]}}), flow("row 1")
    ('{ShardTensor2dMesh: {mesh_shape: [2, 4], dims: [null, 3]}}', 'row 1')
    >>> flow({"file_name": "a\\u2028b\\x85c\\nd"})
    '{file_name: "a\\\\Lb\\\\Nc\\\\nd"}'
    """
    import yaml  # here, not at the top: renderers import this module and load no yaml

    text = yaml.dump(value, Dumper=_one_line_dumper(), default_flow_style=True, sort_keys=False, width=10**9, allow_unicode=True).strip()
    return text[: -len("...")].strip() if text.endswith("\n...") else text  # a plain scalar ends its document


_LINE_BREAKS = ("\n", "\r", "\x85", "\u2028", "\u2029")


def _one_line_dumper():
    """PyYAML's safe dumper, but a string holding a line break of any kind is written double-quoted,
    where the break is an escape (``"a\\Lb"``): single-quoted, PyYAML wrote it as a real line break
    (a value a program gave record, ``dump_tensor``'s file name, became two lines, and U+0085 came
    back as a space)."""
    global _DUMPER
    if _DUMPER is None:
        import yaml

        class OneLine(yaml.SafeDumper):
            pass

        def text(dumper, data: str):
            style = '"' if any(b in data for b in _LINE_BREAKS) else None
            return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=style)

        OneLine.add_representer(str, text)
        _DUMPER = OneLine
    return _DUMPER


_DUMPER = None


WRITTEN_MARK = "<!-- written by meshspec -->"
"""The first line of an SVG, the second (after the doctype) of an HTML page, that meshspec writes:
a reader of the file sees what made it. (Whether meshspec may replace a file is files.py's record
of what it wrote, not this mark.)"""


def wrap_lines(text: str, width: int) -> str:
    """``text`` with every line longer than ``width`` wrapped between words, its continuation
    indented under where the line's text starts: a prose line under its indent, a ``name  meaning``
    row under its meaning. Lines that fit are kept as they are.

    >>> print(wrap_lines("  stale  recorded but never written since allocation", 30))
      stale  recorded but never
             written since
             allocation
    """
    import re
    import textwrap

    out = []
    for line in text.split("\n"):
        if len(line) <= width:
            out.append(line)
            continue
        row = re.match(r"(\s*\S+\s{2,})\S", line)
        head = row.group(1) if row and len(row.group(1)) < width // 2 else line[: len(line) - len(line.lstrip())]
        out.append(textwrap.fill(line[len(head):].strip(), width=width, initial_indent=head, subsequent_indent=" " * len(head),
                                 break_on_hyphens=False, break_long_words=False))
    return "\n".join(out)
