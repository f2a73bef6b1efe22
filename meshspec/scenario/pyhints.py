"""Values copied from ttnn's Python, refused with the YAML to write instead.

TT-NN users copy values from their Python tests: a tuple ``(1, 1, 32, 32)``, a name
``ttnn.TILE_LAYOUT``, a call ``ShardTensorToMesh(mesh_device, dim=1)``. Each is refused as any bad
value is (meshspec/typed.py), and the message ends with the YAML to write instead: these are the
hints the scenario model installs in the typed layer (:class:`~meshspec.typed.Hints`). They run only
for a value already refused.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Optional

from ..text import flow
from ..typed import Hints, Tagged, accepts, base, form, is_record, union_accepts, where

_INTEGERS = re.compile(r"\s*-?[0-9]+\s*(?:,\s*-?[0-9]+\s*)*,?\s*")
_TIMES = re.compile(r"[0-9]+(?:x[0-9]+)+")
"""A shape as meshspec's reports print it: ``1x8x32x32``."""
_MAX_CALL_TEXT = 1000
"""Longest text read as a Python call (a call copied from a test is a line at most)."""


class PythonHints(Hints):
    """What to write for a tuple, a ttnn name or a ttnn call copied from Python."""

    def for_list(self, value: Any, items: tuple) -> str:
        return list_hint(value, items)

    def for_word(self, value: str, loc: tuple, takes: Callable[[str], bool]) -> Optional[str]:
        word = python_name(value, takes)
        return f"{where(loc)}: unknown value {value!r}{_write('name', word)}" if word is not None else None

    def for_union(self, value: str, loc: tuple, tag: Tagged) -> Optional[str]:
        return python_call_message(value, loc, tag)


def _write(kind: str, yaml_text: str) -> str:
    """The end of a message for a value written as Python: what it is and the YAML to write."""
    return f" (a Python {kind}); write {yaml_text}"


def list_hint(value: Any, items: tuple) -> str:
    """For a list of integers (``items``: its item types) given as text: the list to write when the
    text is a Python tuple or a shape as reports print it; '' otherwise.

    >>> list_hint("(1, 1, 32, 32)", (int,)), list_hint("1x8x32x32", (int,)), list_hint("(a, b)", (int,))
    (' (a Python tuple); write [1, 1, 32, 32]', '; write [1, 8, 32, 32]', '')
    """
    if not isinstance(value, str) or any(base(t) is not int for t in items):
        return ""
    text = value.strip()
    if text[:1] == "(" and text[-1:] == ")" and _INTEGERS.fullmatch(text[1:-1]):
        return _write("tuple", flow([int(n) for n in text[1:-1].split(",") if n.strip()]))
    if _TIMES.fullmatch(text):
        return f"; write {flow([int(n) for n in text.split('x')])}"
    return ""


def python_name(value: str, accepts: Callable[[str], bool]) -> Optional[str]:
    """The word to write for a ttnn name copied from Python (``ttnn.TILE_LAYOUT``, ``ttnn.Layout.TILE``):
    its last part, when ``accepts`` takes it; None otherwise.

    >>> python_name("ttnn.Layout.TILE", lambda w: w == "TILE"), python_name("torch.bfloat16", lambda w: True)
    ('TILE', None)
    """
    if not value.startswith("ttnn."):
        return None
    word = value.rpartition(".")[2]
    return word if word and accepts(word) else None


def python_call_message(value: str, loc: tuple, tag: Tagged) -> Optional[str]:
    """The message for a tagged union's value written as a Python call of one of its mapping forms
    (``ShardTensorToMesh(mesh_device, dim=1)``): the form to write, with the call's arguments where
    they fit it (:func:`call_form`); None for a value that is no such call."""
    call = python_call(value)
    shown = form(call[0], tag) if call is not None else None
    if call is None or shown is None:
        return None
    written = call_form(*call, tag)
    write = _write("call", written) if written is not None else _write("call", shown) + " with its arguments by name"
    return f"{where(loc)}: unknown value {value!r}{write}"


def python_call(value: str) -> Optional[tuple[str, list, dict]]:
    """``ttnn.F(a, k=v)`` as (``F``, its positional arguments, its keyword arguments), each argument
    as plain data (a tuple as a list, a variable as its name); None for any other text.

    >>> python_call("ttnn.ShardTensor2dMesh(mesh_device, mesh_shape=(2, 4), dims=(None, -1))")
    ('ShardTensor2dMesh', ['mesh_device'], {'mesh_shape': [2, 4], 'dims': [None, -1]})
    """
    import ast

    if "(" not in value or len(value) > _MAX_CALL_TEXT:
        return None
    try:
        call = ast.parse(value.strip(), mode="eval").body
        if not isinstance(call, ast.Call) or not isinstance(call.func, (ast.Name, ast.Attribute)):
            return None
        if any(k.arg is None for k in call.keywords):  # **kwargs
            return None
        args = [_argument(a) for a in call.args]
        kwargs = {k.arg: _argument(k.value) for k in call.keywords}
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None
    name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr
    return name, args, kwargs


def _argument(node: Any) -> Any:
    """A call's argument as plain data: a variable as its name, a literal as its value (tuples as
    lists); ValueError for anything else (a nested call, ``*args``)."""
    import ast

    if isinstance(node, ast.Name):
        return node.id
    return _listed(ast.literal_eval(node))


def _listed(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_listed(v) for v in value]
    if isinstance(value, dict):
        return {k: _listed(v) for k, v in value.items()}
    return value


def call_form(name: str, args: list, kwargs: dict, tag: Tagged) -> Optional[str]:
    """The mapping ``{name: {...}}`` that says what the call says, as YAML, when the union takes it;
    None when the arguments do not fit.

    Keyword arguments keep their names. A positional argument goes to the one field left that takes
    it (none or more than one: None). An argument that is a variable named as its parameter (the
    ``mesh_device`` of ``ShardTensorToMesh(mesh_device, dim=1)``) is the scenario's thing of that
    name, which an optional field means when left out: it is left out. A call left with no argument
    is its name, where the union takes that word (``ReplicateTensorToMesh(mesh_device)``).
    """
    record = tag.branches.get(tag.tag({name: {}}))
    outer = base(record) if record is not None else None
    field = next((f for f in outer.fields().values() if f.key == name), None) if is_record(outer) else None
    inner = base(field.type) if field is not None else None
    if not is_record(inner):
        return None
    fields = {f.key: f for f in inner.fields().values()}
    given = dict(kwargs)
    for arg in args:
        fits = [k for k, f in fields.items() if k not in given and accepts(f.type, arg)]
        if len(fits) != 1:
            return None
        given[fits[0]] = arg
    given = {k: v for k, v in given.items() if not (v == k and k in fields and not fields[k].required)}
    if not given and union_accepts(tag, name):
        return name
    return flow({name: given}) if accepts(record, {name: given}) else None


PYTHON = PythonHints()
