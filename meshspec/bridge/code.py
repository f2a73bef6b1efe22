"""Which program lines an exported script may run: the ``code`` of an ``opaque`` step.

``meshspec record`` keeps the program's own line for a call meshspec does not model
(``tiled = ttnn.to_layout(a, ttnn.TILE_LAYOUT)``), and ``meshspec export`` writes it back, so the
script runs the real op. A scenario is also a file people pass around in bug reports, and its
``code`` is text anyone can write: the script runs it on a machine with hardware. So a line is
written into a script only when it is plainly the step's own call, on the step's tensors:

- one statement, ``[names =] CALL``, where CALL calls exactly the step's ``call``, a ttnn op
  (``ttnn.add``, ``ttnn.experimental.all_gather_async``; not one that reads or writes files);
- its first argument is one of the step's tensors (``uses``): an op on tensors, not a call that
  takes a path or a config (``ttnn.save_config_to_json_file``);
- its arguments are the step's tensors, number and boolean literals (no text: no path can be
  spelt), ttnn's constants (``ttnn.bfloat16``, ``ttnn.Topology.Linear``), ttnn's config classes
  built from the same (``ttnn.MemoryConfig(...)``), lists, tuples and dicts of these, arithmetic
  on literals, and attributes or items of the tensors (``a.shape[-1]``);
- no name or attribute with two underscores on each side, no other call, and ASCII only (Python
  reads a fullwidth ``ｅｘｅｃ`` as ``exec``).

Anything else (``exec``, ``ttnn.os.system(...)``, a second statement, a lambda) is not written:
the script makes a tensor with the recorded records instead, as for a call with no line.

>>> usable("out = ttnn.add(a, b, dtype=ttnn.bfloat16)", "ttnn.add", ["a", "b"]) is None
True
>>> usable("out = ttnn.add(a, a); ttnn.__dict__['x']", "ttnn.add", ["a"])
'it is 2 statements, not one'
"""

from __future__ import annotations

import ast
from typing import Optional

#: ttnn calls an exported script never runs from a scenario's text: they read or write files.
FILE_CALLS = frozenset({"ttnn.dump_tensor", "ttnn.load_tensor", "ttnn.as_tensor"})

#: The namespaces of ttnn's ops below ``ttnn`` itself (``ttnn.experimental.all_gather_async``). Any
#: other middle part could be a module ttnn imports (``ttnn.os.system``): not run.
OP_NAMESPACES = frozenset({"experimental", "transformer", "operations", "ccl", "prim", "fused", "moreh", "kv_cache"})


def ttnn_op(dotted: str) -> bool:
    """Whether ``dotted`` names a ttnn op a script may call: ``ttnn.NAME`` or ``ttnn.NAMESPACE.NAME``
    (:data:`OP_NAMESPACES`), no part with double underscores, and none of :data:`FILE_CALLS`.

    >>> [ttnn_op(d) for d in ("ttnn.add", "ttnn.experimental.all_gather_async", "ttnn.os.system", "ttnn.dump_tensor")]
    [True, True, False, False]
    """
    parts = dotted.split(".")
    if parts[0] != "ttnn" or not 2 <= len(parts) <= 4 or any(not p.isidentifier() or _dunder(p) for p in parts):
        return False
    return all(p in OP_NAMESPACES for p in parts[1:-1]) and dotted not in FILE_CALLS


def usable(code: str, call: str, uses: list[str]) -> Optional[str]:
    """None when ``code`` may be written into an exported script as the step's call; else why not."""
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
    if not ttnn_op(call):
        return f"{call} is not a ttnn op an exported script runs from a scenario's text"
    if not value.args or not isinstance(value.args[0], ast.Name) or value.args[0].id not in uses:
        return "its first argument is not one of the step's tensors"  # an op on tensors, not a file or a config
    bad = next((why for node in [*value.args, *(k.value for k in value.keywords)] if (why := _argument(node, set(uses)))), None)
    if bad is None and any(k.arg is not None and _dunder(k.arg) for k in value.keywords):
        bad = "a keyword with double underscores"
    return bad


def _plain_target(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return not _dunder(node.id)
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


def _dunder(name: str) -> bool:
    return name.startswith("__") and name.endswith("__")


def _argument(node: ast.expr, uses: set[str]) -> Optional[str]:  # noqa: C901 - one branch per kind of node
    """None when ``node`` is an argument the script may evaluate; else what it holds instead."""
    if isinstance(node, ast.Constant):
        return "a text literal (no path or name is spelt in a script's call)" if isinstance(node.value, (str, bytes)) else None
    if isinstance(node, ast.Name):
        return None if node.id in uses else f"the name {node.id!r}, not one of the step's tensors"
    if isinstance(node, ast.Attribute):
        if _dunder(node.attr):
            return f"the attribute {node.attr!r}"
        dotted = _dotted(node)
        if dotted is not None and dotted.split(".")[0] == "ttnn":
            return None  # a ttnn constant: ttnn.bfloat16, ttnn.Topology.Linear
        return _argument(node.value, uses)  # a.shape
    if isinstance(node, ast.Subscript):
        return _argument(node.value, uses) or _argument(node.slice, uses)
    if isinstance(node, ast.Slice):
        return next((w for part in (node.lower, node.upper, node.step) if part is not None and (w := _argument(part, uses))), None)
    if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        return next((w for e in node.elts if (w := _argument(e, uses))), None)
    if isinstance(node, ast.Dict):
        return next((w for e in [*node.keys, *node.values] if e is not None and (w := _argument(e, uses))), None)
    if isinstance(node, ast.UnaryOp):
        return _argument(node.operand, uses)
    if isinstance(node, ast.BinOp):
        return _argument(node.left, uses) or _argument(node.right, uses)
    if isinstance(node, ast.Call):
        dotted = _dotted(node.func) or ""
        parts = dotted.split(".")
        if len(parts) != 2 or parts[0] != "ttnn" or not parts[1][:1].isupper() or _dunder(parts[1]):
            return f"a call of {dotted or 'an expression'}, not of a ttnn config class (ttnn.MemoryConfig, ...)"
        inner = [*node.args, *(k.value for k in node.keywords)]
        return next((w for e in inner if (w := _argument(e, uses))), None)
    return f"a {type(node).__name__} expression"
