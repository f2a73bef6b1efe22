"""``meshspec explain NAME``: a finding kind or status (what it means, how it arises, what a fix
looks like), or a step (the ttnn call, its fields, the tensors it uses and binds).

Both come from their registries (:data:`meshspec.kinds.KINDS`, :data:`meshspec.sim.ops.OPS`), as
does the README's step table (:func:`step_table`, kept current by tests/test_readme.py).
"""

from __future__ import annotations

import enum
import textwrap
import types
import typing
from typing import Any, Optional

from .errors import UsageError, did_you_mean
from .kinds import KINDS, Kind

TENSOR_FIELDS = ("shape", "dtype", "layout", "tile", "memory")


def explain(name: str) -> str:
    key = name.strip().lower().replace("-", "_")
    if key in Kind._value2member_map_:
        info = KINDS[Kind(key)]
        return (f"{key}\n\nWhat it means\n  {info.what}\n\nHow it arises\n  {info.example}\n\nWhat a fix looks like\n  {info.fix}\n"
                f"\nWhose error\n  {_whose(info)}\n")
    from .sim.ops import OPS

    step = next((op for op in OPS if op.lower().replace("-", "_") == key), None)
    if step is not None:
        return _explain_step(step)
    choices = [k.value for k in Kind] + list(OPS)
    raise UsageError(
        f"unknown finding kind or step {name!r}{did_you_mean(key, choices)}; kinds: {', '.join(k.value for k in Kind)}; "
        f"steps: {', '.join(OPS)}"
    )


def choices_text() -> str:
    """What ``explain`` can explain, for ``meshspec explain`` with no argument."""
    from .sim.ops import OPS

    width = max(len(k.value) for k in Kind)
    lines = ["finding kinds and device statuses:"]
    lines += [f"  {k.value:<{width}}  {KINDS[k].meaning}{_tag(k)}" for k in Kind]
    width = max(len(n) for n in OPS)
    lines += ["", "steps:"]
    lines += [f"  {name:<{width}}  {op.doc}" for name, op in OPS.items()]
    return "\n".join(lines) + "\n\nmeshspec explain NAME explains one.\n"


def _whose(info) -> str:
    if not info.finding:
        return "A status, not a finding."
    if info.user_error:
        return ("The user's: the program itself is wrong, whatever the runtime records; every profile reports it, "
                "reference included.")
    return "The runtime's: a record that lies. The reference profile never reports it (a program that is not wrong gets none)."


def _tag(kind: Kind) -> str:
    if not kind.is_finding:
        return " (a status, not a finding)"
    return " (a user error)" if KINDS[kind].user_error else ""


def field_words(op) -> list[str]:
    """The step's fields as docs/ttnn-spelling.md lists them: ``as``, tensor fields, ``src`` (host), ..."""
    from .sim.ops.fields import PrintedSpec, TensorFields

    kinds = {u.field: u.kind.value for u in op.uses}
    if op.binds is not None:
        kinds.setdefault(op.binds.field, "")
    printed = issubclass(op.args, PrintedSpec)
    words: list[str] = []
    for name, f in op.args.fields().items():
        if issubclass(op.args, TensorFields) and name in TENSOR_FIELDS:
            if "tensor fields" not in words:
                words.append("tensor fields")
            continue
        if printed and name in PrintedSpec.PRINTED:
            continue
        notes = [kinds[name]] if kinds.get(name) and kinds[name] != "any" else []
        if not f.required and name not in ("data", "mesh_mapper", "mesh_composer"):
            notes.append("optional")
        words.append(f"`{f.key}`" + (f" ({', '.join(notes)})" if notes else ""))
    if printed:
        words.append("a report's spec keys (`" + "`, `".join(PrintedSpec.PRINTED) + "`: optional, checked)")
    return words


def step_table() -> str:
    """docs/ttnn-spelling.md's table of steps, derived from the op registry."""
    from .sim.ops import OPS

    rows = ["| step | ttnn | fields | what it does |", "|---|---|---|---|"]
    for name, op in OPS.items():
        rows.append(f"| `{name}` | `{op.ttnn}` | {', '.join(field_words(op))} | {op.doc} |")
    return "\n".join(rows) + "\n"


def _shown(value: Any) -> str:
    """A default as a scenario writes it: ``bfloat16``, ``[32, 32]``, ``arange``."""
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, tuple):
        return "[" + ", ".join(_shown(v) for v in value) + "]"
    return str(value)


def _form(tp: Any) -> tuple[str, Optional[type]]:
    """What a field of type ``tp`` takes, in a scenario's words, and the typed record it holds
    (whose own fields are listed under it), if any. ``Optional[Annotated[list[int], ...]]`` is
    'a list of integers'; a tagged union says its forms as its error messages do."""
    from .typed import Tagged, Typed

    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if origin is typing.Annotated:
        tagged = next((m for m in tp.__metadata__ if isinstance(m, Tagged)), None)
        return (tagged.expected, None) if tagged is not None else _form(args[0])
    if origin in (typing.Union, types.UnionType):
        forms = [_form(a) for a in args if a is not type(None)]
        return (forms[0] if len(forms) == 1 else (" or ".join(f for f, _ in forms), None))
    if origin is list:
        inner, record = _form(args[0])
        for one, many in (("an integer", "integers"), ("a number", "numbers"), ("a name", "names"), ("a mapping", "mappings"), ("a list", "lists")):
            if inner.startswith(one):
                return f"a list of {many}{inner[len(one):]}", record
        return f"a list, each {inner}" if inner else "a list", record
    if origin is typing.Literal:
        return " or ".join(map(str, args)), None
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return " or ".join(str(m.value) for m in tp), None
    if isinstance(tp, type) and issubclass(tp, Typed):
        return "a mapping", tp
    words = {int: "an integer", float: "a number", str: "a name", bool: "true or false"}
    return words.get(tp, ""), None


def _field_lines(record: type, indent: str, depth: int = 0) -> list[str]:
    lines = []
    for f in record.fields().values():
        form, inner = _form(f.type)
        state = "required" if f.required else ("optional" if f.default is None else f"default {_shown(f.default)}")
        lines.append(f"{indent}{f.key}: {state}" + (f"; {form}" if form else ""))
        if inner is not None and depth < 2:
            lines += _field_lines(inner, indent + "  ", depth + 1)
    return lines


def _explain_step(name: str) -> str:
    from .sim.ops import OPS

    op = OPS[name]
    lines = [name, "", f"  {op.doc}", "", "ttnn", f"  {op.ttnn}", "", "fields"]
    lines += _field_lines(op.args, "  ")
    uses = ", ".join(f"{u.field.rstrip('_')} ({u.kind.value} tensor)" for u in op.uses) or "no tensor"
    lines += ["", f"uses: {uses}"]
    if op.binds is not None:
        lines.append(f"binds: {op.binds.field.rstrip('_')} (a {op.binds.kind.value} tensor)")
    if "mesh_composer" in op.args.fields():
        from .kinds import COMPOSITION_RULE

        lines += ["", "judged", *textwrap.wrap(COMPOSITION_RULE, 100, initial_indent="  ", subsequent_indent="  ")]
    lines += ["", f"(source: {op.run.__module__.replace('.', '/')}.py)"]
    return "\n".join(lines) + "\n"

