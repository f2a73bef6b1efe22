"""YAML with positions: a scenario's text composed into nodes that keep their line and column.

The safe loader builds plain data only (strings, numbers, booleans, nulls, lists, mappings) in one
walk that refuses duplicate keys, deep nesting, alias bombs and text a terminal would act on;
:func:`node_at` and :func:`line_col` find where a value stands, so every later message names
``file:line:column``. :mod:`meshspec.scenario.checks` and :mod:`meshspec.scenario.loader` use it.
"""

from __future__ import annotations

import operator
import re
from typing import Any, NamedTuple, Optional

import yaml

from ..errors import ScenarioError
from ..text import printable

MAX_DEPTH = 32
"""Deepest nesting a scenario may use (a scenario needs about 8)."""
MAX_NODES = 200_000
"""Most values a scenario may expand to, aliases counted each time they are used."""

_MERGE = "tag:yaml.org,2002:merge"


_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it: ~15x faster


class ScenarioLoader(_Base):  # type: ignore[misc, valid-type]
    """Safe loader (plain data only) that refuses duplicate keys and reads no base-60 numbers.
    It parses with libyaml where PyYAML was built with it; nodes keep their line and column."""

    # libyaml calls these two back for every node; meshspec has no path resolvers, so they do
    # nothing. C builtins of the same arity cost a fraction of a Python method's call (a builtin
    # set on a class is no method: it gets no self): operator.is_(node, index) and tuple().
    descend_resolver = operator.is_
    ascend_resolver = tuple

    def resolve(self, kind: Any, value: Any, implicit: Any) -> str:
        """A node's tag from its kind and text alone: the same answer as PyYAML's, remembered per
        plain text (a suite's files repeat their keys and values). Called for every node, so kept
        lean: the node classes are module globals, not attributes of yaml, and the search of the
        resolvers is a function of its own (a generator here makes ``value`` a cell at every call):
        20 K instructions less a small scenario (83 nodes)."""
        if kind is _ScalarNode:
            if not implicit[0]:
                return _STR
            tag = _RESOLVED.get(value)
            return tag if tag is not None else _resolve_plain(value)
        return _SEQ if kind is _SequenceNode else _MAP


def _resolve_plain(value: str) -> str:
    """The tag of plain scalar text, as PyYAML's resolvers (meshspec's) say; remembered."""
    tag = next((t for t, regexp in ScenarioLoader._implicit.get(value[:1], ()) if regexp.match(value)), _STR)
    if len(_RESOLVED) < 10_000:
        _RESOLVED[value] = tag
    return tag


_RESOLVED: dict[str, str] = {}
"""Plain scalar text -> its tag (bounded: a file of distinct numbers does not grow it forever)."""

_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
# YAML 1.1 reads 1:30 as 90 and 1:30.5 as 90.5 (sexagesimal): a mesh [1:30] would be 90 devices.
# meshspec reads them as text, so they are refused where a number is due.
ScenarioLoader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
ScenarioLoader.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"),
)
ScenarioLoader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
# first character -> the resolvers to try (PyYAML's "" key for the empty scalar; it has no None key)
ScenarioLoader._implicit = {first: tuple(rs) for first, rs in ScenarioLoader.yaml_implicit_resolvers.items() if first is not None}
assert None not in ScenarioLoader.yaml_implicit_resolvers and not ScenarioLoader.yaml_path_resolvers


def _construct_mapping(loader: ScenarioLoader, node: yaml.MappingNode, deep: bool = False) -> dict:
    seen: dict[Any, yaml.Node] = {}
    for key_node, _ in node.value:
        if key_node.tag == _MERGE:  # '<<: *base' merges; explicit keys may override it
            continue
        key = loader.construct_object(key_node, deep=True)
        if not isinstance(key, (str, int, float, bool, type(None))):
            raise ScenarioError(
                f"a mapping key must be a plain word or number, got {type(key).__name__} {key!r}",
                None,
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
            )
        if key in seen:
            raise ScenarioError(
                f"duplicate key {key!r} (first at line {seen[key].start_mark.line + 1})",
                None,
                key_node.start_mark.line + 1,
                key_node.start_mark.column + 1,
            )
        seen[key] = key_node
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


ScenarioLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


_STR, _BOOL, _NULL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMALS: dict[str, int] = {}
"""Decimal integer text -> its value, remembered as :data:`_RESOLVED` is (a suite's files repeat
their shapes and dims): taken where it stands in :func:`construct`, instead of a call, a regular
expression and int() (94 K instructions less a small scenario, whose 20 integers are all known)."""
_KEY_TYPES = (str, int, float, bool, type(None))


def construct(loader: ScenarioLoader, root: yaml.Node, file: str, text: str = "") -> Any:
    """The document's plain data, in one walk that also refuses deep nesting, alias bombs (every
    use of an alias counted), text a terminal would act on and duplicate keys. Strings, numbers,
    booleans, nulls, lists and mappings are built here (PyYAML's constructor costs a dozen Python
    calls a value); any other tag, and a mapping with a merge key, is left to PyYAML's own.
    ``text``: the document's source, where a duplicate key may be a piece of a Python value
    (:func:`python_split`), which is then read whole.

    Most of a scenario's values are plain words and integers: a list's or mapping's own are taken
    where they stand, counted and limited as ``build`` would, without a call to it (with the merge
    key search below, the walk of a small scenario went from 400 K instructions to 175 K)."""
    count = 0
    # a merge key is the plain scalar << or one tagged merge (a tag is written with a "!"): in a
    # source with neither, no mapping is searched for one (4 K instructions a mapping, 50 K a small scenario)
    merges = not text or "<<" in text or "!" in text

    def build(node: yaml.Node, depth: int) -> Any:
        nonlocal count
        count += 1
        if count > MAX_NODES:
            aliased = " (aliases counted each time they are used)" if "*" in text else ""  # an alias is written *name
            raise ScenarioError(
                f"the file {'expands to' if aliased else 'holds'} more than {MAX_NODES:,} values{aliased}; a scenario needs far fewer",
                file,
                *line_col(node),
            )
        if depth > MAX_DEPTH:
            raise ScenarioError(f"nesting deeper than {MAX_DEPTH} levels; a scenario needs about 8", file, *line_col(node))
        tag = node.tag
        if isinstance(node, _ScalarNode):
            if not node.value.isprintable():
                _check_text(node, file)
            if tag == _STR:
                return node.value
            if tag == _NULL:
                return None
            try:
                if tag == _INT and _DECIMAL.fullmatch(node.value):
                    value = int(node.value)
                    if len(node.value) < 20 and len(_DECIMALS) < 10_000:
                        _DECIMALS[node.value] = value  # the next one written so is taken where it stands
                else:
                    value = loader.construct_object(node, deep=True)  # other ints, floats, bools, timestamps, ...
                if tag == _INT and isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
                    raise ValueError("too many digits")  # 0x followed by 5,000 f's: Python could not even print it
                return value
            except ValueError as err:  # a number past Python's 4,300 digits, a date with no such day
                raise ScenarioError(_unreadable(node, tag, err), file, *line_col(node)) from None
        inline = depth < MAX_DEPTH  # a child's own depth is within the limit
        if isinstance(node, _SequenceNode):
            items = []
            for item in node.value:
                if type(item) is _ScalarNode and inline and count < MAX_NODES:
                    if item.tag == _STR and item.value.isprintable():
                        count += 1
                        items.append(item.value)
                        continue
                    if item.tag == _INT and item.value in _DECIMALS:
                        count += 1
                        items.append(_DECIMALS[item.value])
                        continue
                items.append(build(item, depth + 1))
            return items if tag == _SEQ else loader.construct_object(node, deep=True)
        if isinstance(node, _MappingNode):
            if tag != _MAP or (merges and any(k.tag == _MERGE for k, _ in node.value)):
                for k, v in node.value:  # checked as the fast path checks, built by PyYAML's rules
                    if k.tag != _MERGE:  # a merge key is no value of its own
                        build(k, depth + 1)
                    build(v, depth + 1)
                return loader.construct_object(node, deep=True)
            out: dict = {}
            for key_node, value_node in node.value:
                if (key_node.tag == _STR and type(key_node) is _ScalarNode and key_node.value.isprintable()
                        and inline and count < MAX_NODES):
                    count += 1  # a plain word, as nearly every key is
                    key = key_node.value
                else:
                    key = build(key_node, depth + 1)
                    if not isinstance(key, _KEY_TYPES):
                        raise ScenarioError(
                            f"a mapping key must be a plain word or number, got {type(key).__name__} {key!r}", None, *line_col(key_node)
                        )
                if key in out:
                    split = python_split(node, text)
                    if split is not None:  # {shape: (1, 32, 32, 32)}: the pieces 32 and 32 are no keys
                        join_split(node, split)
                        return build(node, depth)
                    raise _duplicate_key(loader, node, len(out), key, text)  # every key before it is in out, once
                if type(value_node) is _ScalarNode and inline and count < MAX_NODES:
                    if value_node.tag == _STR and value_node.value.isprintable():
                        count += 1
                        out[key] = value_node.value
                        continue
                    if value_node.tag == _INT and value_node.value in _DECIMALS:
                        count += 1
                        out[key] = _DECIMALS[value_node.value]
                        continue
                out[key] = build(value_node, depth + 1)
            return out
        return loader.construct_object(node, deep=True)  # pragma: no cover - the composer makes only these three

    try:
        return build(root, 1)
    finally:
        # the recursive closure refers to itself: a reference cycle that would keep the loader and
        # every node of the file alive until the next collection (a suite of files piles them up)
        build = None  # type: ignore[assignment]


def _duplicate_key(loader: ScenarioLoader, mapping: yaml.MappingNode, i: int, key: Any, text: str) -> ScenarioError:
    """The error for the ``i``-th key of ``mapping``, which repeats an earlier one. (Its own function:
    a generator in ``build`` would make every local it names a cell, slower to use at every key.)"""
    key_node = mapping.value[i][0]
    # an alias of an earlier key (*a) is that key's own node: it has no place of its own
    first = next(k for k, _ in mapping.value[:i] if k is key_node or loader.construct_object(k, deep=True) == key)
    if first is key_node:
        at = _alias_key_at(mapping, i, text)
        return ScenarioError(
            f"duplicate key {key!r} (an alias of the key at line {first.start_mark.line + 1})", None, *(at or line_col(key_node))
        )
    return ScenarioError(f"duplicate key {key!r} (first at line {first.start_mark.line + 1})", None, *line_col(key_node))


MAX_INT_BITS = 14_000
"""Integers are refused past this many bits (about 4,200 decimal digits): Python will not print
one of over 4,300, so an error naming it would itself fail. Below that, a fill too big for its
dtype is ttnn's own error (torch.full's overflow), as 10**400 for float32 is."""


def _unreadable(node: yaml.ScalarNode, tag: str, err: ValueError) -> str:
    """Why a plain scalar YAML reads as a number or a date cannot be made one: ``2024-02-30`` is a
    date with no such day; 5,000 nines are more digits than Python turns into an integer."""
    text = printable(node.value[:40]) + ("..." if len(node.value) > 40 else "")
    if tag == _INT:
        return f"the integer {text} is {len(node.value):,} characters long; a scenario's numbers are far shorter"
    kind = tag.rsplit(":", 1)[-1]
    return f"{text} reads as a {kind} in YAML, and is none ({err}); quote it to keep it as text: '{text}'"


def _check_text(node: yaml.ScalarNode, file: str) -> None:
    """Text a terminal would act on, or that is no character at all, is refused where it stands:
    control characters (ANSI escapes among them) and lone surrogates (a "\\ud800" escape)."""
    value = node.value
    if value.isprintable():
        return
    for ch in value:
        if ch in "\n\t" or ch.isprintable():
            continue
        code = ord(ch)
        what = "the lone surrogate" if 0xD800 <= code <= 0xDFFF else "the control character"
        raise ScenarioError(
            f"{what} {ch.encode('unicode_escape', 'backslashreplace').decode('ascii')} in {printable(value[:40])!r}: "
            "scenario text holds printable characters, newlines and tabs only",
            file,
            *line_col(node),
        )


_HIDDEN = re.compile("\r(?!\n)|[\x85\u2028\u2029\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
r"""What makes a scenario read otherwise than it shows, refused anywhere in the file:

- a line break YAML honours where editors, diffs and terminals may show none: a lone ``\r`` (not
  before ``\n``), NEL (U+0085), LINE SEPARATOR (U+2028), PARAGRAPH SEPARATOR (U+2029). YAML ends a
  comment at each, so a step written after one, on what a reviewer sees as one comment line, is
  live. ``\r\n`` is a Windows line ending, which every editor shows as the break it is: allowed.
- a bidirectional control (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069), which
  reorders how the rest of its line is shown ("Trojan Source", CVE-2021-42574). A scalar refuses
  them already (they are not printable); in a comment YAML keeps them."""

_HIDDEN_NAMES = {"\r": "a carriage return (\\r) not followed by \\n", "\x85": "NEXT LINE (U+0085)",
                 "\u2028": "LINE SEPARATOR (U+2028)", "\u2029": "PARAGRAPH SEPARATOR (U+2029)"}


def check_hidden(text: str, file: str) -> None:
    r"""Refuse what :data:`_HIDDEN` matches anywhere in ``text`` (a comment, a string, a key), at its
    line and column as a person counts them: lines end at ``\n`` only."""
    if text.isascii() and "\r" not in text:  # nearly every file: one C-level pass, no search
        return
    found = _HIDDEN.search(text)
    if found is None:
        return
    at, ch = found.start(), found.group()
    line = text.count("\n", 0, at) + 1
    column = at - (text.rfind("\n", 0, at) + 1) + 1
    if ch in _HIDDEN_NAMES:
        why = (f"{_HIDDEN_NAMES[ch]}: YAML breaks the line there though editors and diffs show one line, so what follows it "
               "(in a comment too) would be live; a scenario breaks lines with \\n (or \\r\\n) only")
    else:
        why = (f"the bidirectional control U+{ord(ch):04X}: it reorders how the rest of the line is shown, so the file would "
               "read otherwise than it runs")
    raise ScenarioError(f"{why}: delete it", file, line, column)


def compose(text: str, file: str) -> tuple[Any, yaml.Node]:
    try:
        loader = ScenarioLoader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                what = "is empty" if not text.strip() else "holds only comments"
                raise ScenarioError(f"the file {what}; a scenario starts with 'meshspec: 1'", file, 1, 1)
            data = construct(loader, node, file, text)
        finally:
            getattr(loader, "dispose", lambda: None)()
    except ScenarioError as err:
        err.file = file
        raise
    except yaml.MarkedYAMLError as err:
        mark = err.problem_mark or err.context_mark
        problem = " ".join((err.problem or err.context or "invalid YAML").split())
        row = text.split("\n")[mark.line] if mark is not None and mark.line < text.count("\n") + 1 else ""
        tab = "\t" in row[: mark.column + 1 if mark else 0] or "\\t" in problem
        if tab:
            problem += " (indent with spaces: YAML does not allow tabs there)"
        start = err.context_mark
        if not tab and err.problem and err.context and start is not None and mark is not None and start.line != mark.line:
            context = " ".join(err.context.split())
            if not text[mark.index :].strip():
                # the file ends inside a quote or bracket: the end of the file says nothing, where it opened does
                problem += f" ({context}: it starts here and is never closed)"
                mark = start
            else:
                # the parser notices an unclosed bracket where the next item starts: say where it opened
                problem += f" ({context} started at line {start.line + 1}, column {start.column + 1})"
        raise ScenarioError(
            f"invalid YAML: {problem}",
            file,
            mark.line + 1 if mark else None,
            mark.column + 1 if mark else None,
        ) from None
    except yaml.reader.ReaderError as err:  # a character YAML refuses: it has a position, not a mark
        line = text.count("\n", 0, err.position) + 1
        column = err.position - (text.rfind("\n", 0, err.position) + 1) + 1
        raise ScenarioError(
            f"invalid YAML: unacceptable character #x{err.character:04x} (a control character); write plain text",
            file,
            line,
            column,
        ) from None
    except yaml.YAMLError as err:
        raise ScenarioError("invalid YAML: " + " ".join(str(err).split()), file) from None
    except RecursionError:
        raise ScenarioError(f"nesting deeper than {MAX_DEPTH} levels; a scenario needs about 8", file) from None
    return data, node


def node_at(root: yaml.Node, loc: tuple, key: bool = False) -> yaml.Node:
    """The deepest node along a validation error's ``loc`` (keys and indices).

    With ``key``, a final mapping key gives its key node (where an unknown key is written).
    """
    node = root
    for i, part in enumerate(loc):
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if k.value == part or (not isinstance(part, str) and k.value == str(part).lower()) or (
                        part is None and k.tag == _NULL):  # ~, null or nothing: the key None
                    node = k if key and i == len(loc) - 1 else v
                    break
        elif isinstance(node, yaml.SequenceNode) and isinstance(part, int) and 0 <= part < len(node.value):
            node = node.value[part]
    return node


def line_col(node: yaml.Node) -> tuple[int, int]:
    return node.start_mark.line + 1, node.start_mark.column + 1


_ANCHOR = re.compile(r"&([^\s,\[\]{}]+)")


def _alias_key_at(mapping: yaml.MappingNode, i: int, text: str) -> Optional[tuple[int, int]]:
    """Line and column of the alias written as the ``i``-th key of ``mapping``: the composer gives
    an alias its anchor's own node, marks and all, so it is found in the text instead, as the
    first ``*name`` used as a key after the key before it. ``&a mesh: t3k`` then ``*a : t3k``: the
    second line. None when the text does not show it plainly (the caller points at the anchor)."""
    anchor_at = mapping.value[i][0].start_mark.index
    named = _ANCHOR.match(text, anchor_at)
    if named is None:
        return None
    previous = mapping.value[i - 1][0].start_mark.index if i else mapping.start_mark.index
    alias = re.compile(r"\*" + re.escape(named.group(1)) + r"[ \t]*:")
    found = alias.search(text, max(previous, named.end()), mapping.end_mark.index)
    if found is None:
        return None
    line = text.count("\n", 0, found.start())
    return line + 1, found.start() - (text.rfind("\n", 0, found.start()) + 1) + 1


class _Split(NamedTuple):
    """A value written as Python in a flow mapping, which YAML splits at its commas:
    ``{shape: (1, 1, 32, 32)}`` reads as the value ``(1`` and the keys ``1``, ``32`` and ``32)``."""

    at: int
    """The pair whose value starts it."""
    pieces: int
    """How many pairs after that one are pieces of it."""
    text: str
    """The value as written."""


def python_split(node: yaml.Node, text: str) -> Optional[_Split]:
    """The first value of a flow mapping that YAML split at the commas of a Python tuple or call
    (``(1, 1, 32, 32)``, ``ShardTensorToMesh(mesh_device, dim=1)``): a plain value that opens a
    parenthesis the source closes after it, within the mapping; None when there is none."""
    if not isinstance(node, yaml.MappingNode) or not node.flow_style:
        return None
    for at, (_, value) in enumerate(node.value):
        if isinstance(value, yaml.ScalarNode) and value.tag == _STR and value.value.count("(") > value.value.count(")"):
            start = value.start_mark.index
            if text[start : start + len(value.value)] != value.value:  # quoted, or a source the marks do not index
                return None
            end = _closing(text, start, node.end_mark.index)
            if end is None:
                return None
            pieces = sum(1 for key, _ in node.value[at + 1 :] if key.start_mark.index < end)
            return _Split(at, pieces, text[start:end]) if pieces else None
    return None


def _closing(text: str, start: int, stop: int) -> Optional[int]:
    """The index just after the bracket that closes the first ``(`` from ``start``, before ``stop``."""
    depth = 0
    for i in range(start, stop):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i + 1
    return None


def join_split(node: yaml.MappingNode, split: _Split) -> None:
    """Replace the split value and its pieces by one text node holding the value as written."""
    key, value = node.value[split.at]
    end = node.value[split.at + split.pieces][1].end_mark
    node.value[split.at : split.at + split.pieces + 1] = [(key, yaml.ScalarNode(_STR, split.text, value.start_mark, end))]
