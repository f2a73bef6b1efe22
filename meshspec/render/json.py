"""JSON output: one report object, or an array of them for several scenarios."""

from __future__ import annotations

from ..errors import ScenarioError
from ..report import invalid_json

WIDTH = 100
"""A value whose compact JSON fits in this many columns (indent included) stays on one line."""
LONG = 64
"""A list of more items than this has each item on one line, however long (a mesh's devices)."""


def _encoders():
    """(compact, item): a value's compact JSON (``", "`` and ``": "`` between items), and the same
    without the check for circular containers, for the items of a long list. Both are the C encoder's
    function itself, made once (``JSONEncoder.encode`` makes one per call, a quarter of the cost of
    encoding a device's view), taken from CPython's ``_json``: the ``json`` package would import its
    decoder and scanner too, 1 ms of a run's start-up that writes JSON and reads none."""
    try:
        from _json import encode_basestring_ascii, make_encoder
    except ImportError:  # pragma: no cover - not CPython: the json package's encoder
        import json

        compact = json.JSONEncoder(separators=(", ", ": ")).encode
        return compact, compact

    def default(value: object) -> object:
        raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")

    checked = make_encoder({}, default, encode_basestring_ascii, None, ": ", ", ", False, False, True)
    unchecked = make_encoder(None, default, encode_basestring_ascii, None, ": ", ", ", False, False, True)

    def compact(value: object) -> str:
        return encode_basestring_ascii(value) if isinstance(value, str) else "".join(checked(value, 0))

    return compact, lambda value: "".join(unchecked(value, 0))


_compact, _item = _encoders()


def dumps(data: object) -> str:
    """Indented JSON in which every value that fits on one line is on one line (a shape, a spec),
    and each item of a long list (a mesh's devices) is one line. Values are encoded by the C
    encoder (``indent`` would select the pure Python one, 8 times slower); a container is encoded
    whole only when it may fit on its line, so a report of 65,536 devices encodes each device once.
    The pieces go into one list, joined once: a nested join per level copied a 55 MB report four
    times (a page fault per 4 KiB of each copy)."""
    out: list[str] = []
    _format(data, 0, out)
    out.append("\n")
    return "".join(out)


def _format(value: object, indent: int, out: list[str]) -> None:
    if not isinstance(value, (dict, list)) or not value:
        out.append(_compact(value))
        return
    if _may_fit(value, WIDTH - indent):
        flat = _compact(value)
        if len(flat) + indent <= WIDTH:
            out.append(flat)
            return
    inner = " " * (indent + 2)
    close = "\n" + " " * indent
    if isinstance(value, dict):
        out.append("{")
        sep = "\n"
        for k, v in value.items():
            out.append(f"{sep}{inner}{_compact(k)}: ")
            _format(v, indent + 2, out)
            sep = ",\n"
        out.append(close + "}")
        return
    if len(value) > LONG and all(type(v) is list and all(type(n) is int for n in v) for v in value):
        out.append(_packed(value, indent))  # coordinates: as many to a line as fit
        return
    out.append("[")
    sep = "\n"
    if len(value) > LONG:
        joined = ",\n" + inner
        out.append(sep + inner + joined.join(_item(v) for v in value))
    else:
        for v in value:
            out.append(sep + inner)
            _format(v, indent + 2, out)
            sep = ",\n"
    out.append(close + "]")


def _packed(value: list, indent: int) -> str:
    """A long list of short int lists (a topology's coords), encoded at once and packed into
    lines of at most :data:`WIDTH` columns."""
    pieces = _compact(value)[2:-2].split("], [")  # ints hold no brackets: a safe split
    inner = " " * (indent + 2)
    lines, line = [], inner
    for piece in pieces:
        item = f"[{piece}],"
        if len(line) + len(item) + 1 > WIDTH and line != inner:
            lines.append(line)
            line = inner
        line += item if line == inner else " " + item
    lines.append(line)
    return "[\n" + "\n".join(lines)[:-1] + "\n" + " " * indent + "]"


def _may_fit(value: object, width: int) -> bool:
    """False when ``value``'s compact JSON is surely longer than ``width``, found without
    encoding it: each item takes at least 3 characters (a digit and ``", "``), each key 6."""
    if isinstance(value, list):
        if 3 * len(value) > width:
            return False
        return all(_may_fit(v, width) for v in value if isinstance(v, (dict, list)))
    if isinstance(value, dict):
        if 6 * len(value) > width:
            return False
        return all(_may_fit(v, width) for v in value.values() if isinstance(v, (dict, list)))
    return True


def render_json(reports: list, force_array: bool = False) -> str:
    """One report as an object; several (in the order given, an invalid file as its error entry)
    as an array."""
    def one(r) -> dict:
        return invalid_json(r.file or "", str(r)) if isinstance(r, ScenarioError) else r.to_json()

    return dumps(one(reports[0]) if len(reports) == 1 and not force_array else [one(r) for r in reports])
