"""An ``opaque`` step's ``code``, parsed into the one form an exported script may run.

``meshspec record`` keeps the program's own line for a call meshspec does not model
(``tiled = ttnn.to_layout(a, ttnn.TILE_LAYOUT)``), and ``meshspec export`` writes that call back so
the script runs the real op. A scenario is also a file people pass around in bug reports, and its
``code`` is text anyone can write, run on a machine with hardware. So the text is never copied into
a script: :func:`parse` reads it into a :class:`Call` of whitelisted values, and export *generates*
the script's line from that value (:func:`Call.expression`, an AST unparsed), with each tensor's
name mapped to the script's own variable. The rule, one line of code:

- ``[names =] CALL`` (the names are the program's and are dropped: the script binds the step's
  ``as``), where CALL calls exactly the step's ``call``, a known ttnn function (:data:`.ttnn_api.FUNCTIONS`,
  recorded from ttnn 0.81.1: ``ttnn.add``, ``ttnn.experimental.all_gather_async``; not what ttnn
  merely imports, ``ttnn.os`` or ``ttnn.ModuleType``, nor the tensor-file calls);
- its first argument is one of the step's tensors (``uses``, written as the name itself: only a use
  that is a Python identifier can be named);
- its arguments are the step's tensors, literals (integers up to 2**64 in magnitude, finite floats,
  booleans, None; no text: no path can be spelt), ttnn's constants (:data:`.ttnn_api.CONSTANTS`:
  ``ttnn.bfloat16``, ``ttnn.Topology.Linear``), ttnn's config classes built from the same
  (:data:`.ttnn_api.CONFIG_CLASSES`: ``ttnn.MemoryConfig(...)``), lists, tuples and dicts of these,
  a tensor's ``shape``, ``padded_shape``, ``dtype`` or ``layout`` and items of them (``a.shape[-1]``),
  and arithmetic ``+ - * / // %`` on numbers (``**`` only of two literals, an exponent up to 64);
- at most :data:`MAX_CODE` characters, :data:`MAX_NODES` values, :data:`MAX_DEPTH` deep; ASCII.

Anything else is refused when the scenario loads (``checks.check_code``: a scenario is data, and
code no script would run is not kept in it looking as if it were). Export checks again, for a
scenario made without the loader: it does not run the line, makes a tensor with the recorded
records instead, and says why in one line. ``record`` keeps a line only when :func:`parse` takes
it, so the reasons are the same everywhere.

>>> parse("out = ttnn.add(a, b, dtype=ttnn.bfloat16)", "ttnn.add", ["a", "b"]).expression(str.upper)
'ttnn.add(A, B, dtype=ttnn.bfloat16)'
>>> parse("out = ttnn.add(a, a); ttnn.__dict__['x']", "ttnn.add", ["a"])
'it is 2 statements, not one'
>>> parse("ttnn.add(a, 10**10**10)", "ttnn.add", ["a"])
'a power of other than two literals (10 ** 10 ** 10)'
"""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass
from typing import Callable, Optional, Union

from ..text import one_line
from . import ttnn_api

MAX_CODE = 2000
"""The longest code taken, in characters."""
MAX_NODES = 200
"""The most values (literals, names, calls, ...) in one call."""
MAX_DEPTH = 12
"""The deepest nesting of values in one call."""
MAX_INT = 2**64
"""The largest magnitude of an integer literal."""
MAX_EXPONENT = 64
"""The largest exponent of a power of two literals."""

TENSOR_ATTRIBUTES = frozenset({"shape", "padded_shape", "dtype", "layout"})
"""What an argument may read of a tensor."""

ARITHMETIC = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**"}


# -- the parsed form ----------------------------------------------------------------------------
@dataclass(frozen=True)
class Tensor:
    """One of the step's tensors, by its scenario name."""
    name: str


@dataclass(frozen=True)
class Literal:
    """An int (at most :data:`MAX_INT` in magnitude), a finite float, a bool or None."""
    value: Union[int, float, bool, None]


@dataclass(frozen=True)
class Constant:
    """A ttnn constant, ``ttnn.bfloat16`` (one of :data:`.ttnn_api.CONSTANTS`)."""
    dotted: str


@dataclass(frozen=True)
class Build:
    """A ttnn config class built from values: ``ttnn.MemoryConfig(...)``."""
    cls: str
    args: tuple
    keywords: tuple  # ((name, value), ...)


@dataclass(frozen=True)
class Sequence:
    kind: str  # "list" or "tuple"
    items: tuple


@dataclass(frozen=True)
class Mapping:
    items: tuple  # ((key, value), ...)


@dataclass(frozen=True)
class Attribute:
    """A tensor's shape, padded_shape, dtype or layout."""
    tensor: Tensor
    attr: str


@dataclass(frozen=True)
class Item:
    """``value[index]`` of a tensor attribute (``a.shape[-1]``, ``a.shape[1:3]``)."""
    value: Union[Attribute, "Item"]
    index: object  # a number, or Slice


@dataclass(frozen=True)
class Slice:
    lower: object
    upper: object
    step: object


@dataclass(frozen=True)
class Arithmetic:
    op: str  # one of ARITHMETIC's values
    left: object
    right: object


@dataclass(frozen=True)
class Negative:
    operand: object


@dataclass(frozen=True)
class Call:
    """The step's call, as :func:`parse` took it: one known ttnn function on whitelisted values."""
    func: str
    args: tuple
    keywords: tuple  # ((name, value), ...)

    def expression(self, var: Callable[[str], str]) -> str:
        """The call as Python source generated from this value, each tensor named by ``var(name)``
        (export's ``Context.var``: an identifier, or ``list[3]``)."""
        return ast.unparse(ast.fix_missing_locations(_node(self, var)))


Value = Union[Tensor, Literal, Constant, Build, Sequence, Mapping, Attribute, Item, Slice, Arithmetic, Negative]


# -- parsing ------------------------------------------------------------------------------------
class _Refused(Exception):
    pass


def parse(code: str, call: str, uses) -> Union[Call, str]:
    """``code`` as a :class:`Call` when an exported script may run it as the step's call; else why
    not, in one line."""
    why = _why(code, call, list(uses))
    return why if isinstance(why, Call) else one_line(why)


def usable(code: str, call: str, uses) -> Optional[str]:
    """None when :func:`parse` takes ``code``; else why not (record's test of a program's line)."""
    got = parse(code, call, uses)
    return None if isinstance(got, Call) else got


def _why(code: str, call: str, uses: list[str]) -> Union[Call, str]:
    if not isinstance(code, str):
        return "it is not text"
    if len(code) > MAX_CODE:
        return f"it is {len(code):,} characters, more than {MAX_CODE:,}"
    if not code.isascii():  # Python folds lookalike letters (NFKC): a fullwidth 'ｅｘｅｃ' would be the builtin exec
        return "it is not ASCII"
    try:
        tree = ast.parse(code)
    except SyntaxError as err:
        return f"it is not Python ({err.msg})"
    except (ValueError, RecursionError, MemoryError):
        return "it is not Python"
    if len(tree.body) != 1:
        return f"it is {len(tree.body)} statements, not one"
    stmt = tree.body[0]
    if isinstance(stmt, ast.Assign) and all(_plain_target(t) for t in stmt.targets):
        value = stmt.value
    elif isinstance(stmt, ast.Expr):
        value = stmt.value
    else:
        return "it is not '[names =] a call'"
    if not isinstance(value, ast.Call) or _dotted(value.func) != call:
        return f"it does not call {call}, the step's call"
    if call not in ttnn_api.FUNCTIONS:
        return f"{call} is not a ttnn function an exported script runs from a scenario's text (meshspec/scenario/ttnn_api.py lists them)"
    names = {u for u in uses if u.isidentifier()}
    if not value.args or not isinstance(value.args[0], ast.Name) or value.args[0].id not in names:
        return "its first argument is not one of the step's tensors"  # an op on tensors, not a file or a config
    reader = _Reader(names)
    try:
        args, keywords = reader.arguments(value, 1)
    except _Refused as err:
        return str(err)
    return Call(call, args, keywords)


def _plain_target(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return True
    return isinstance(node, (ast.Tuple, ast.List)) and all(_plain_target(e) for e in node.elts)


def _dotted(node: ast.expr) -> Optional[str]:
    """``ttnn.a.b`` for an attribute chain on a plain name, else None."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def _shown(node: ast.AST) -> str:
    text = ast.unparse(node)
    return text if len(text) <= 60 else text[:57] + "..."


class _Reader:
    """Turns argument nodes into values, counting them (:data:`MAX_NODES`, :data:`MAX_DEPTH`)."""

    def __init__(self, uses: set[str]) -> None:
        self.uses = uses
        self.count = 0

    def arguments(self, node: ast.Call, depth: int) -> tuple[tuple, tuple]:
        args = []
        for a in node.args:
            if isinstance(a, ast.Starred):
                raise _Refused(f"a starred argument ({_shown(a)})")
            args.append(self.value(a, depth))
        keywords = []
        for k in node.keywords:
            if k.arg is None:
                raise _Refused(f"a ** argument ({_shown(k.value)})")
            if k.arg.startswith("_"):
                raise _Refused(f"the keyword {k.arg!r} (a keyword starts with a letter)")
            if any(k.arg == name for name, _ in keywords):  # Python parses it, then refuses to compile it
                raise _Refused(f"the keyword {k.arg!r} given twice")
            keywords.append((k.arg, self.value(k.value, depth)))
        return tuple(args), tuple(keywords)

    def value(self, node: ast.expr, depth: int):  # noqa: C901 - one branch per kind of node
        self.count += 1
        if self.count > MAX_NODES:
            raise _Refused(f"it holds more than {MAX_NODES} values")
        if depth > MAX_DEPTH:
            raise _Refused(f"it nests values more than {MAX_DEPTH} deep")
        if isinstance(node, ast.Constant):
            return self.literal(node)
        if isinstance(node, ast.Name):
            if node.id in self.uses:
                return Tensor(node.id)
            if node.id in ("True", "False", "None"):
                return Literal({"True": True, "False": False, "None": None}[node.id])
            raise _Refused(f"the name {node.id!r}, not one of the step's tensors")
        if isinstance(node, ast.Attribute):
            dotted = _dotted(node)
            if dotted is not None and dotted in ttnn_api.CONSTANTS:
                return Constant(dotted)
            if isinstance(node.value, ast.Name) and node.value.id in self.uses and node.attr in TENSOR_ATTRIBUTES:
                return Attribute(Tensor(node.value.id), node.attr)
            raise _Refused(f"the attribute {_shown(node)} (not a ttnn constant, nor a tensor's {', '.join(sorted(TENSOR_ATTRIBUTES))})")
        if isinstance(node, ast.Subscript):
            base = self.value(node.value, depth + 1)
            if not isinstance(base, (Attribute, Item)):
                raise _Refused(f"the item {_shown(node)} (only items of a tensor's shape, padded_shape, dtype or layout)")
            return Item(base, self.index(node.slice, depth + 1))
        if isinstance(node, (ast.List, ast.Tuple)):
            kind = "list" if isinstance(node, ast.List) else "tuple"
            return Sequence(kind, tuple(self.value(e, depth + 1) for e in node.elts))
        if isinstance(node, ast.Dict):
            if any(k is None for k in node.keys):
                raise _Refused(f"a ** in a dict ({_shown(node)})")
            return Mapping(tuple((self.value(k, depth + 1), self.value(v, depth + 1)) for k, v in zip(node.keys, node.values)))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.USub, ast.UAdd)):
            operand = self.number(node.operand, depth + 1)
            return operand if isinstance(node.op, ast.UAdd) else Negative(operand)
        if isinstance(node, ast.BinOp) and type(node.op) in ARITHMETIC:
            return self.arithmetic(node, depth)
        if isinstance(node, ast.Call):
            dotted = _dotted(node.func)
            if dotted is None or dotted not in ttnn_api.CONFIG_CLASSES:
                shown = dotted if dotted is not None else "an expression"
                raise _Refused(f"a call of {shown}, not of a ttnn config class (ttnn.MemoryConfig, ...)")
            args, keywords = self.arguments(node, depth + 1)
            return Build(dotted, args, keywords)
        raise _Refused(f"a {type(node).__name__} expression ({_shown(node)})")

    def literal(self, node: ast.Constant) -> Literal:
        v = node.value
        if isinstance(v, (str, bytes)):
            raise _Refused("a text literal (no path or name is spelt in a script's call)")
        if isinstance(v, bool) or v is None:
            return Literal(v)
        if isinstance(v, int):
            if abs(v) > MAX_INT:
                raise _Refused(f"an integer of {len(str(abs(v)))} digits (at most 2**64 in magnitude)")
            return Literal(v)
        if isinstance(v, float) and math.isfinite(v):
            return Literal(v)
        raise _Refused(f"the literal {_shown(node)} (an int, a finite float, a bool or None)")

    def number(self, node: ast.expr, depth: int):
        """A value arithmetic may take: a number, an item of a tensor's attribute, or arithmetic on them."""
        v = self.value(node, depth)
        if isinstance(v, Literal) and v.value is not None or isinstance(v, (Item, Arithmetic, Negative)):
            return v
        raise _Refused(f"arithmetic on {_shown(node)}, not a number")

    def arithmetic(self, node: ast.BinOp, depth: int) -> Arithmetic:
        op = ARITHMETIC[type(node.op)]
        if op == "**":
            left, right = node.left, node.right
            if not (isinstance(left, ast.Constant) and isinstance(right, ast.Constant)):
                raise _Refused(f"a power of other than two literals ({_shown(node)})")
            base, exponent = self.literal(left), self.literal(right)
            if not (isinstance(exponent.value, int) and 0 <= exponent.value <= MAX_EXPONENT) or base.value is None:
                raise _Refused(f"a power with an exponent other than 0 to {MAX_EXPONENT} ({_shown(node)})")
            return Arithmetic(op, base, exponent)
        return Arithmetic(op, self.number(node.left, depth + 1), self.number(node.right, depth + 1))

    def index(self, node: ast.expr, depth: int):
        if isinstance(node, ast.Slice):
            return Slice(*(None if p is None else self.number(p, depth + 1) for p in (node.lower, node.upper, node.step)))
        return self.number(node, depth)


# -- generating ---------------------------------------------------------------------------------
def _ttnn(dotted: str) -> ast.expr:
    parts = dotted.split(".")
    node: ast.expr = ast.Name(parts[0], ast.Load())
    for part in parts[1:]:
        node = ast.Attribute(node, part, ast.Load())
    return node


def _variable(text: str) -> ast.expr:
    """``x`` or ``x[3]`` (what export's ``Context.var`` gives) as a node, built, not parsed."""
    if text.endswith("]") and "[" in text:
        head, index = text[:-1].rsplit("[", 1)
        if not index.isdigit():
            raise ValueError(f"not a variable: {text!r}")
        return ast.Subscript(_variable(head), ast.Constant(int(index)), ast.Load())
    if not text.isidentifier() or text.startswith("__"):
        raise ValueError(f"not a variable: {text!r}")
    return ast.Name(text, ast.Load())


_OPS = {v: k for k, v in ARITHMETIC.items()}


def _node(v, var: Callable[[str], str]) -> ast.expr:  # noqa: C901 - one branch per kind of value
    if isinstance(v, Call) or isinstance(v, Build):
        func = v.func if isinstance(v, Call) else v.cls
        return ast.Call(_ttnn(func), [_node(a, var) for a in v.args], [ast.keyword(k, _node(a, var)) for k, a in v.keywords])
    if isinstance(v, Tensor):
        return _variable(var(v.name))
    if isinstance(v, Literal):
        return ast.Constant(v.value)
    if isinstance(v, Constant):
        return _ttnn(v.dotted)
    if isinstance(v, Sequence):
        items = [_node(i, var) for i in v.items]
        return ast.List(items, ast.Load()) if v.kind == "list" else ast.Tuple(items, ast.Load())
    if isinstance(v, Mapping):
        return ast.Dict([_node(k, var) for k, _ in v.items], [_node(x, var) for _, x in v.items])
    if isinstance(v, Attribute):
        return ast.Attribute(_node(v.tensor, var), v.attr, ast.Load())
    if isinstance(v, Item):
        return ast.Subscript(_node(v.value, var), _node(v.index, var), ast.Load())
    if isinstance(v, Slice):
        return ast.Slice(*(None if p is None else _node(p, var) for p in (v.lower, v.upper, v.step)))
    if isinstance(v, Arithmetic):
        return ast.BinOp(_node(v.left, var), _OPS[v.op](), _node(v.right, var))
    if isinstance(v, Negative):
        return ast.UnaryOp(ast.USub(), _node(v.operand, var))
    raise TypeError(f"not a parsed value: {v!r}")
