"""Is a YAML file a meshspec scenario? (Used when scanning folders, so other YAML is left alone.)

Imports only yaml: the pytest plugin calls this in projects that may never run a scenario.
"""

from __future__ import annotations

import re
from pathlib import Path

SCENARIO_SUFFIXES = (".yaml", ".yml")
MAX_SNIFF_BYTES = 4 * 1024 * 1024
_TOP_KEY = re.compile(r"""^["']?meshspec["']?[ \t]*:""", re.M)


def looks_like_scenario(path: Path) -> bool:
    """True for a YAML mapping with a top-level ``meshspec`` key, and for files too broken to
    tell (so that loading them reports the problem instead of skipping them silently). Never
    reads from anything but a regular file (a FIFO would block)."""
    import stat

    import yaml

    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_SNIFF_BYTES:
            return True  # a FIFO, a device, a dangling link: loading it says what it is
        text = path.read_text(encoding="utf-8")
        if _TOP_KEY.search(text):  # a block mapping's top-level key starts a line: no parse needed
            return True
        node = yaml.compose(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True
    if not isinstance(node, yaml.MappingNode):
        return False
    import difflib  # only for a file with no 'meshspec' key at its start: not on the plugin's path

    keys = {k.value for k, _ in node.value if isinstance(k, yaml.ScalarNode)}
    # a scenario whose version key is misspelt, or missing beside its mesh and steps, is one: loading
    # it says what is wrong (skipped, it would drop out of a CI run without a word)
    return "meshspec" in keys or {"mesh", "steps"} <= keys or bool(difflib.get_close_matches("meshspec", keys, n=1, cutoff=0.75))


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
