"""Is a YAML file a meshspec scenario? (Used when scanning folders, so other YAML is left alone.)

Imports only yaml: the pytest plugin calls this in projects that may never run a scenario.
"""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

SCENARIO_SUFFIXES = (".yaml", ".yml")
MAX_SNIFF_BYTES = 4 * 1024 * 1024
_TOP_KEY = re.compile(r"""^["']?meshspec["']?[ \t]*:""", re.M)


def looks_like_scenario(path: Path, empty: bool = False) -> bool:
    """True for a YAML mapping with a top-level ``meshspec`` key, and for files too broken to
    tell (so that loading them reports the problem instead of skipping them silently). A file
    with no YAML in it (empty, or comments only) is ``empty``: ``check`` takes it (a scenario not
    written yet, which its load reports), the pytest plugin, visiting a whole project, does not.
    Never reads from anything but a regular file (a FIFO would block)."""
    try:
        raw = read_regular(path, MAX_SNIFF_BYTES)
        if raw is None:
            return True  # a FIFO, a device, a dangling link, too big: loading it says what it is
        text = raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return True
    if _TOP_KEY.search(text):  # a block mapping's top-level key starts a line: no parse needed
        return True
    import yaml  # only here: a scenario found by the line above runs no import statement (1.5 K instructions a file)

    try:
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except yaml.YAMLError:
        return True
    if node is None:
        return empty
    if not isinstance(node, yaml.MappingNode):
        return False
    import difflib  # only for a file with no 'meshspec' key at its start: not on the plugin's path

    keys = {k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    # a scenario whose version key is misspelt, or missing beside its mesh and steps, is one: loading
    # it says what is wrong (skipped, it would drop out of a CI run without a word)
    return "meshspec" in keys or {"mesh", "steps"} <= keys or bool(difflib.get_close_matches("meshspec", keys, n=1, cutoff=0.75))


NONBLOCK = getattr(os, "O_NONBLOCK", 0)
"""Opened with it, a FIFO does not wait for a writer: what the file is comes from the open file."""


def read_regular(path: Path | str, limit: int) -> bytes | None:
    """The bytes of a regular file of at most ``limit`` bytes; None for anything else (a FIFO, a
    device, a folder, a larger file). One open, one fstat of the open file (not of a name that may
    since point elsewhere) and its reads. Raises OSError (no such file, no permission)."""
    fd = os.open(path, os.O_RDONLY | NONBLOCK)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return read_all(fd, info.st_size, limit)
    finally:
        os.close(fd)


def read_all(fd: int, size: int, limit: int) -> bytes:
    """An open file's ``size`` bytes as fstat gave them, and, if it grew since, on to ``limit + 1``
    bytes in all (the caller tells a file past its limit by the length). A read of ``size + 1``,
    not of the limit: reading the limit would allocate 4 MiB a file."""
    raw = read_upto(fd, size + 1)
    return raw + read_upto(fd, limit + 1 - len(raw)) if len(raw) > size else raw


def read_upto(fd: int, n: int) -> bytes:
    """Up to ``n`` bytes of an open file, fewer at its end."""
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, n - got)
        if not chunk:
            break
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


_SAVED = re.compile(r"meshspec\.[a-z]+/\d+")
"""The ``format`` of every file meshspec writes (``meshspec.report/1``, ``meshspec.diff/1``, ``meshspec.hunt/1``)."""


def saved_format(data: object) -> str | None:
    """The ``format`` of a parsed document meshspec wrote (a report, an array of them, a diff, a
    hunt index), or None: told apart from a scenario or a capture given where one is expected.

    >>> saved_format([{"format": "meshspec.report/1", "scenario": "seed"}]), saved_format({"meshspec": 1})
    ('meshspec.report/1', None)
    """
    first = data[0] if isinstance(data, list) and data else data
    fmt = first.get("format") if isinstance(first, dict) else None
    return fmt if isinstance(fmt, str) and _SAVED.fullmatch(fmt) else None
