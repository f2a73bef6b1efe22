"""Load a scenario file: YAML -> typed model, validated once, every error with file:line:column.

The YAML is composed into nodes first (safe loader: plain data only), so every value keeps its
position; meshspec/typed.py validates the plain data against :mod:`meshspec.scenario.model`; then a
static pass checks what a schema cannot (tensor names defined before use and of the right kind,
system names, profile names, data files).
"""

from __future__ import annotations

import copy
import errno
import operator
import os
import re
import stat
import warnings
from functools import cached_property
from ..frozen import Frozen

from pathlib import Path
from typing import Any, NamedTuple, Optional

import yaml

from ..errors import ScenarioError, TTFatal, UsageError, MAX_LISTED, did_you_mean, listed, one_of
from ..names import RESERVED_PROFILE_NAMES, is_name
from ..text import printable
from ..sim.hosts import Hosts, topology_error
from ..sim.mesh import SYSTEM_ALIASES, SYSTEMS, Shape, open_shape, parse_coord, system_named, volume
from ..sim.meshdevice import ROOT as ROOT_MESH
from ..sim.ops import OPS, TensorKind
from ..sim.ops.fields import PrintedSpec
from ..sim.profiles import PROFILES, define
from ..sim.spec import Arch
from ..typed import Invalid, Typed, as_dict, given as given_fields, validate
from ..typed import where as _where
from .matrix import values_in
from .model import Expect, Scenario, SystemMesh, step_args, step_op
from .sniff import NONBLOCK, read_all, saved_format

MAX_FILE_BYTES = 4 * 1024 * 1024


class LoadedStep(Frozen):
    index: int
    op: str
    args: Typed
    line: int
    """1-based line of the step in the file."""
    names: Optional[tuple] = None
    """``(field, name, kind)`` of each tensor or mesh the step names (:meth:`Op.names_used`): the
    loader's, which checked them; None for a step built otherwise (computed when needed)."""

    @cached_property
    def touched(self) -> tuple[str, ...]:
        """The tensors the step names (:meth:`Op.touched`): what the runner judges after it. A step
        the loader made holds it already (:func:`_loaded_step`); one built otherwise finds it here."""
        return OPS[self.op].touched(self.args, self.names)


def _loaded_step(index: int, step: Typed, line: int, names: tuple, touched: tuple) -> LoadedStep:
    """A validated step as the runner takes it, its touched tensors given as the cached property
    would keep them, so the runner reads a plain attribute: the property's first read (its call,
    and before Python 3.12 its lock) cost more than finding them here (a check of a small scenario: 22 K instructions less)."""
    op = step_op(step)
    loaded = object.__new__(LoadedStep)  # its fields and touched in one update, not Frozen.__init__ and a second write (14 K instructions a small scenario)
    loaded.__dict__.update(index=index, op=op, args=getattr(step, op), line=line, names=names, touched=touched)
    return loaded


class LoadedScenario(Frozen):
    path: Path
    name: str
    description: str
    mesh_shape: Shape
    mesh_name: Optional[str]
    profile: Optional[str]
    steps: tuple[LoadedStep, ...]
    profiles: dict = {}
    """Profiles the scenario defines, by name."""
    expect: Optional[Expect] = None
    with_data: bool = True
    """False for ``data: none``: metadata mode."""
    arch: Arch = Arch.WORMHOLE_B0
    """The chips' architecture: the system's, or Wormhole for a bare shape."""
    files: dict[str, Path] = {}
    """Each data file name as written -> the file the loader checked (the one the runtime opens)."""
    hosts: Optional[Hosts] = None
    """The hosts the mesh is spread over and the one the scenario runs as (None: one host)."""
    case: Optional[str] = None
    """A matrix case's values, as its name ends (``bfloat16-tile``); None for a scenario without a matrix."""
    cases: tuple = ()
    """A ``matrix`` scenario's cases, this one (the first) among them, each a scenario named
    ``name[values]``; empty for a scenario without a matrix (meshspec/scenario/matrix.py)."""

    @property
    def folder(self) -> Path:
        return self.path.parent


# -- YAML with positions ---------------------------------------------------------------------
MAX_DEVICES = 1 << 16
"""Largest mesh meshspec simulates (32x32 multi-Galaxy systems are planned; this is 64x that)."""
MAX_HOSTS = 1 << 10
"""Most hosts a mesh may be spread over: one device a host of the largest planned 32x32 system
(tt-metal's multi-host descriptors have 2 and 4; docs/semantics.md section 15)."""
MAX_DEPTH = 32
"""Deepest nesting a scenario may use (a scenario needs about 8)."""
MAX_NODES = 200_000
"""Most values a scenario may expand to, aliases counted each time they are used."""

_MERGE = "tag:yaml.org,2002:merge"


_ScalarNode, _SequenceNode, _MappingNode = yaml.ScalarNode, yaml.SequenceNode, yaml.MappingNode
_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)  # libyaml's parser when PyYAML has it: ~15x faster


class _Loader(_Base):  # type: ignore[misc, valid-type]
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
    tag = next((t for t, regexp in _Loader._implicit.get(value[:1], ()) if regexp.match(value)), _STR)
    if len(_RESOLVED) < 10_000:
        _RESOLVED[value] = tag
    return tag


_RESOLVED: dict[str, str] = {}
"""Plain scalar text -> its tag (bounded: a file of distinct numbers does not grow it forever)."""

_INT, _FLOAT = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
# YAML 1.1 reads 1:30 as 90 and 1:30.5 as 90.5 (sexagesimal): a mesh [1:30] would be 90 devices.
# meshspec reads them as text, so they are refused where a number is due.
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in (_INT, _FLOAT)]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}
_Loader.add_implicit_resolver(
    _INT,
    re.compile(r"^(?:[-+]?0b[0-1_]+|[-+]?0[0-7_]+|[-+]?(?:0|[1-9][0-9_]*)|[-+]?0x[0-9a-fA-F_]+)$"),
    list("-+0123456789"),
)
_Loader.add_implicit_resolver(
    _FLOAT,
    re.compile(
        r"^(?:[-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)?|\.[0-9][0-9_]*(?:[eE][-+][0-9]+)?"
        r"|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"
    ),
    list("-+0123456789."),
)
# first character -> the resolvers to try (PyYAML's "" key for the empty scalar; it has no None key)
_Loader._implicit = {first: tuple(rs) for first, rs in _Loader.yaml_implicit_resolvers.items() if first is not None}
assert None not in _Loader.yaml_implicit_resolvers and not _Loader.yaml_path_resolvers


def _construct_mapping(loader: _Loader, node: yaml.MappingNode, deep: bool = False) -> dict:
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


_Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


_STR, _BOOL, _NULL = "tag:yaml.org,2002:str", "tag:yaml.org,2002:bool", "tag:yaml.org,2002:null"
_SEQ, _MAP = "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"
_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]*)")
_DECIMALS: dict[str, int] = {}
"""Decimal integer text -> its value, remembered as :data:`_RESOLVED` is (a suite's files repeat
their shapes and dims): taken where it stands in :func:`_construct`, instead of a call, a regular
expression and int() (94 K instructions less a small scenario, whose 20 integers are all known)."""
_KEY_TYPES = (str, int, float, bool, type(None))


def _construct(loader: _Loader, root: yaml.Node, file: str, text: str = "") -> Any:
    """The document's plain data, in one walk that also refuses deep nesting, alias bombs (every
    use of an alias counted), text a terminal would act on and duplicate keys. Strings, numbers,
    booleans, nulls, lists and mappings are built here (PyYAML's constructor costs a dozen Python
    calls a value); any other tag, and a mapping with a merge key, is left to PyYAML's own.
    ``text``: the document's source, where a duplicate key may be a piece of a Python value
    (:func:`_python_split`), which is then read whole.

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
                *_mark(node),
            )
        if depth > MAX_DEPTH:
            raise ScenarioError(f"nesting deeper than {MAX_DEPTH} levels; a scenario needs about 8", file, *_mark(node))
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
                raise ScenarioError(_unreadable(node, tag, err), file, *_mark(node)) from None
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
                            f"a mapping key must be a plain word or number, got {type(key).__name__} {key!r}", None, *_mark(key_node)
                        )
                if key in out:
                    split = _python_split(node, text)
                    if split is not None:  # {shape: (1, 32, 32, 32)}: the pieces 32 and 32 are no keys
                        _join(node, split)
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


def _duplicate_key(loader: _Loader, mapping: yaml.MappingNode, i: int, key: Any, text: str) -> ScenarioError:
    """The error for the ``i``-th key of ``mapping``, which repeats an earlier one. (Its own function:
    a generator in ``build`` would make every local it names a cell, slower to use at every key.)"""
    key_node = mapping.value[i][0]
    # an alias of an earlier key (*a) is that key's own node: it has no place of its own
    first = next(k for k, _ in mapping.value[:i] if k is key_node or loader.construct_object(k, deep=True) == key)
    if first is key_node:
        at = _alias_key_at(mapping, i, text)
        return ScenarioError(
            f"duplicate key {key!r} (an alias of the key at line {first.start_mark.line + 1})", None, *(at or _mark(key_node))
        )
    return ScenarioError(f"duplicate key {key!r} (first at line {first.start_mark.line + 1})", None, *_mark(key_node))


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
            *_mark(node),
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


def _check_hidden(text: str, file: str) -> None:
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


def _compose(text: str, file: str) -> tuple[Any, yaml.Node]:
    try:
        loader = _Loader(text)
        try:
            node = loader.get_single_node()
            if node is None:
                what = "is empty" if not text.strip() else "holds only comments"
                raise ScenarioError(f"the file {what}; a scenario starts with 'meshspec: 1'", file, 1, 1)
            data = _construct(loader, node, file, text)
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


def _node_at(root: yaml.Node, loc: tuple, key: bool = False) -> yaml.Node:
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


def _mark(node: yaml.Node) -> tuple[int, int]:
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


def _python_split(node: yaml.Node, text: str) -> Optional[_Split]:
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


def _join(node: yaml.MappingNode, split: _Split) -> None:
    """Replace the split value and its pieces by one text node holding the value as written."""
    key, value = node.value[split.at]
    end = node.value[split.at + split.pieces][1].end_mark
    node.value[split.at : split.at + split.pieces + 1] = [(key, yaml.ScalarNode(_STR, split.text, value.start_mark, end))]


# -- validation errors -> one line ---------------------------------------------------------------
def _invalid(err: Invalid, root: yaml.Node, file: str, data: Any = None, text: str = "") -> ScenarioError:
    """The validation error as ``file:line:column: message``; an unknown key that is a real ttnn
    argument of the step's call says what to write instead, and one that is a piece of a Python
    value YAML split gives way to that value's own error (:func:`_rejoined`)."""
    whole = _rejoined(err, data, root, text)
    if whole is not None:
        return _invalid(whole, root, file, data, text)
    message = err.message
    if err.loc == ("meshspec",) and err.unknown_key is None:  # the version key left out
        message = "the format version is missing: a scenario starts with the line 'meshspec: 1'"
    if err.unknown_key is not None:
        op = _op_of(err) if err.record is not None else None
        hint = OPS[op].hint(err.unknown_key) if op is not None else None
        if hint is not None:
            message = f"unknown key {err.unknown_key!r} in {_where(err.loc[:-1])}: {hint}"
    line, col = _mark(_node_at(root, err.loc, key=err.key))
    return ScenarioError(message, file, line, col)


def _op_of(err: Invalid) -> Optional[str]:
    """The op whose arguments ``err`` is in: the step's own key (``ones`` and ``zeros`` share one
    arguments model, so the model alone would name the wrong one), else any op with that model."""
    named = [p for p in err.loc if isinstance(p, str) and p in OPS and OPS[p].args is err.record]
    return named[-1] if named else next((name for name, op in OPS.items() if op.args is err.record), None)


def _rejoined(err: Invalid, data: Any, root: yaml.Node, text: str) -> Optional[Invalid]:
    """When ``err`` is an unknown key that is a piece of a Python value YAML split (the ``1`` of
    ``{shape: (1, 1, 32, 32)}``): the first error once the value is read whole, which says what to
    write; None when the key is no such piece, or the value read whole is valid (``err`` stands).
    Changes ``data`` and the nodes in place: the load fails either way."""
    if err.unknown_key is None:
        return None
    node, mapping = _node_at(root, err.loc[:-1]), _data_at(data, err.loc[:-1])
    if not isinstance(node, yaml.MappingNode) or not isinstance(mapping, dict) or len(mapping) != len(node.value):
        return None  # keys and nodes pair up in order (no merge key)
    split = _python_split(node, text)
    keys = list(mapping)
    pieces = keys[split.at + 1 : split.at + 1 + split.pieces] if split is not None else []
    if err.unknown_key not in pieces:
        return None
    mapping[keys[split.at]] = split.text
    for key in pieces:
        del mapping[key]
    try:
        validate(Scenario, data)
    except Invalid as whole:
        _join(node, split)
        return whole
    return None


def _data_at(data: Any, loc: tuple) -> Any:
    """The value at ``loc`` (keys and indices) in ``data``; None where there is none."""
    for part in loc:
        if isinstance(data, dict) and part in data:
            data = data[part]
        elif isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data):
            data = data[part]
        else:
            return None
    return data


# -- static checks -----------------------------------------------------------------------------
REPEAT = "repeat"
"""``- repeat: {times: N, steps: [...]}``: the steps N times, numbered with the others (a decode loop)."""
MAX_REPEAT = 4096
"""Most passes one repeat block makes."""
MAX_STEPS = 100_000
"""Most steps a scenario runs, its blocks expanded: a decode loop of 4,096 passes over 16 steps
and the steps around it fit (loaded in about 2 s and 200 MB). A file without blocks cannot hold
that many steps (:data:`MAX_NODES` values, five a step); nested repeats could (three of 4,096
around one step: 68.7 billion), so the total is counted on the blocks as written, before any is
expanded (:func:`_check_total`)."""
MAX_VALUES = 10 * MAX_NODES
"""Most values (YAML nodes: mappings, lists, keys, scalars) a scenario's blocks expand to, counted
on the blocks as written before any is expanded (:func:`_check_total`): a step is copied with all
it holds, so 4,096 passes over one step holding 60,000 values (a 120 KB file) made 245 million
(1.3 GB, then a MemoryError). 2,000,000 leaves room for 100,000 steps of up to 20 values each (a
step with a shape and a memory config holds about 15)."""
DISTRIBUTE = "distribute"
"""``with ttnn.distribute(mapper_or_composer):``, spelt ``- distribute: {mesh_mapper: M, steps: [...]}``."""


def _expand_distribute(data: Any, steps_node: yaml.Node, file: str) -> None:
    """Replace each ``distribute`` block by its steps, in place (data and nodes alike, so every
    later message still names the line and column in the file): a from_torch inside without a
    mesh_mapper gets the block's (``ttnn.distribute`` patches ``ttnn.from_torch`` with it as a
    keyword default, ``ttnn/distributed/distributed.py``), a to_torch without a mesh_composer the
    block's composer. Steps inside are numbered with the others, in order. ``steps_node``: the
    node of the top-level ``steps``, whose items are replaced."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return
    if not isinstance(steps_node, yaml.SequenceNode):
        return
    if len(data["steps"]) == len(steps_node.value):
        for item in data["steps"]:
            if isinstance(item, dict) and (REPEAT in item or DISTRIBUTE in item):
                break
        else:
            return  # no block: every step stays as it is (9 K instructions less a small scenario)
    _check_total(data["steps"], steps_node.value, file)
    items, nodes = _flatten(data["steps"], list(steps_node.value), None, file)
    data["steps"] = items
    steps_node.value = nodes


def _steps_in(items: list) -> tuple[int, int]:
    """How many steps ``items`` expand to, and how many values those steps hold, counted on the
    blocks as written (a repeat: its times its steps'; a step in a distribute block also holds the
    block's mapper or composer), so nothing is expanded to count them. A malformed block counts as
    its steps once: :func:`_flatten` says what is wrong with it. Visits each value once (aliases
    each time used, as :data:`MAX_NODES` counts them)."""
    steps = values = 0
    for item in items:
        block = next(iter(item.values())) if isinstance(item, dict) and len(item) == 1 else None
        if isinstance(block, dict) and isinstance(block.get("steps"), list) and (REPEAT in item or DISTRIBUTE in item):
            inner, held = _steps_in(block["steps"])
            if REPEAT in item:
                times = block.get("times")
                times = times if type(times) is int and 1 <= times <= MAX_REPEAT else 1
            else:
                times = 1
                given = block.get("mesh_mapper", block.get("mesh_composer"))
                held += inner * (1 + values_in(given))  # the key and its value, in each step (within MAX_NODES: small)
            steps += inner * times
            values += held * times
        else:
            steps += 1
            values += values_in(item)
    return steps, values


def _check_total(items: list, nodes: list, file: str) -> None:
    """Refuse a scenario whose blocks expand to more than :data:`MAX_STEPS` steps, or to steps
    holding more than :data:`MAX_VALUES` values, at the outermost block that takes the total past
    it, before anything is expanded."""
    total = total_values = 0
    for item, node in zip(items, nodes):
        n, v = _steps_in([item])
        total += n
        total_values += v
        what = next(iter(item)) if isinstance(item, dict) and len(item) == 1 else "steps"
        if total > MAX_STEPS:
            before = f", {total:,} with the {total - n:,} before it" if total > n else ""
            raise ScenarioError(
                f"{what}: this block expands to {n:,} steps{before}; a scenario runs at most {MAX_STEPS:,} steps, its blocks "
                "expanded: repeat fewer times, or fewer steps in the loop",
                file, *_mark(node),
            )
        if total_values > MAX_VALUES:
            before = f", {total_values:,} with the {total_values - v:,} before it" if total_values > v else ""
            raise ScenarioError(
                f"{what}: this block expands to steps holding {v:,} values{before}; a scenario's steps hold at most "
                f"{MAX_VALUES:,} values, its blocks expanded: repeat fewer times, or fewer or smaller steps in the loop",
                file, *_mark(node),
            )


def _flatten(items: list, nodes: list, defaults: Optional[tuple], file: str) -> tuple[list, list]:
    out_items, out_nodes = [], []
    for item, node in zip(items, nodes):
        if isinstance(item, dict) and len(item) == 1 and REPEAT in item:
            block, block_node = item[REPEAT], node.value[0][1]
            line, col = _mark(block_node)
            times = block.get("times") if isinstance(block, dict) else None
            if not isinstance(block, dict) or not isinstance(block.get("steps"), list) or set(block) != {"times", "steps"}:
                raise ScenarioError("repeat: a block is {times: N, steps: [...]} (the steps run N times, in order)", file, line, col)
            if not isinstance(times, int) or isinstance(times, bool) or not 1 <= times <= MAX_REPEAT:
                raise ScenarioError(f"repeat: times {times!r} is not a whole number from 1 to {MAX_REPEAT}", file, line, col)
            inner_node = next(v for k, v in block_node.value if k.value == "steps")
            sub_items, sub_nodes = _flatten(block["steps"], list(inner_node.value), defaults, file)
            for _ in range(times):  # each pass its own copies (validation mutates nothing, but keep them apart)
                out_items += copy.deepcopy(sub_items)
                out_nodes += sub_nodes
            continue
        if isinstance(item, dict) and len(item) == 1 and DISTRIBUTE in item:
            block, block_node = item[DISTRIBUTE], node.value[0][1]
            line, col = _mark(block_node)
            if not isinstance(block, dict) or not isinstance(block.get("steps"), list):
                raise ScenarioError(
                    "distribute: a block is {mesh_mapper: M, steps: [...]} or {mesh_composer: C, steps: [...]}", file, line, col
                )
            extra = [k for k in block if k not in ("mesh_mapper", "mesh_composer", "steps")]
            given = [k for k in ("mesh_mapper", "mesh_composer") if k in block]
            if extra or len(given) != 1:
                why = f"unknown key {extra[0]!r}" if extra else "give one of mesh_mapper and mesh_composer"
                raise ScenarioError(
                    f"distribute: {why}; ttnn.distribute takes one mapper or one composer (ValueError otherwise)", file, line, col
                )
            key = given[0]
            value_node = next(v for k, v in block_node.value if k.value == key)
            inner_node = next(v for k, v in block_node.value if k.value == "steps")
            op = "from_torch" if key == "mesh_mapper" else "to_torch"
            sub_items, sub_nodes = _flatten(block["steps"], list(inner_node.value), (op, key, block[key], value_node), file)
            out_items += sub_items
            out_nodes += sub_nodes
            continue
        if defaults is not None and isinstance(item, dict) and len(item) == 1:
            op, key, value, value_node = defaults
            args = item.get(op)
            if isinstance(args, dict) and key not in args:
                args[key] = value
                args_node = node.value[0][1]
                if isinstance(args_node, yaml.MappingNode):
                    args_node.value.append((yaml.ScalarNode("tag:yaml.org,2002:str", key, value_node.start_mark, value_node.end_mark), value_node))
        out_items.append(item)
        out_nodes.append(node)
    return out_items, out_nodes


MAX_PROFILES = 256
"""Most profiles a scenario defines of its own (``profiles:``): a run under ``--profile all`` runs
each, and a message about them stays short (14,000 made a 1.7 MB one-line error)."""
INLINE_PROFILE = "custom"
"""The name of a profile a scenario defines in ``profile:`` itself."""


def _own_profiles(scenario: Scenario, root: yaml.Node, file: str) -> tuple[dict, Optional[str]]:
    """The profiles the scenario defines (``profiles:``, and ``profile: {...}`` as ``custom``), and
    the name of the scenario's own profile; errors name the bad base, rule or choice where it is.

    A profile's base may be any of meshspec's profiles or the scenario's own, defined before or
    after it: each is made after its base, following the bases to one of meshspec's. A chain that
    comes back to itself is a cycle, said as one (``a -> b -> a``), where its first profile's base is."""
    defs: dict = dict(scenario.profiles or {})
    own: dict = {}
    choices = list(PROFILES) + list(defs)
    profile = scenario.profile
    inline = profile is not None and not isinstance(profile, str)

    def fail(loc: tuple, message: str, key: bool = False) -> None:
        line, col = _mark(_node_at(root, loc, key=key))
        raise ScenarioError(f"{_where(loc)}: {message}", file, line, col)

    def make(name: str, d, loc: tuple) -> None:
        changes = {k: v for k, v in as_dict(d, only_given=True).items() if k not in ("base", "era")}
        try:
            own[name] = define(name, d.base, changes, d.era or "", parent=own.get(d.base))
        except UsageError as err:
            fail(loc, str(err))

    def unknown_base(base: str, loc: tuple) -> None:
        if inline and base == INLINE_PROFILE:
            fail(loc, f"{INLINE_PROFILE!r} is the name of the profile 'profile: {{...}}' defines, which is made after the "
                 f"scenario's profiles and so cannot be their base; base it on one of them or on meshspec's ({one_of(choices)})")
        fail(loc, f"unknown base profile {base!r}{did_you_mean(base, choices)}; {one_of(choices)}")

    def resolve(name: str) -> None:
        """Define ``name`` and, first, the scenario's profiles its base chain passes through."""
        chain: list[str] = []
        at = name
        while at not in own and at not in PROFILES:
            if at in chain:
                cycle = chain[chain.index(at):] + [at]
                shown = cycle if len(cycle) <= MAX_LISTED else [*cycle[:10], f"... ({len(cycle) - 20:,} more)", *cycle[-10:]]
                fail(("profiles", at, "base"), f"profile cycle: {' -> '.join(shown)}; a base chain must end at one of meshspec's "
                     f"profiles ({', '.join(PROFILES)})")
            if at not in defs:
                unknown_base(at, ("profiles", chain[-1], "base"))
            chain.append(at)
            at = defs[at].base
        for n in reversed(chain):
            make(n, defs[n], ("profiles", n))

    if len(defs) > MAX_PROFILES:
        fail(("profiles",), f"{len(defs):,} profiles; a scenario defines at most {MAX_PROFILES} of its own (each is run by "
             "--profile all): keep the ones its expect block needs", key=True)
    for name in defs:
        if name in PROFILES:
            fail(("profiles", name), f"{name!r} is one of meshspec's own profiles; give yours another name", key=True)
    if inline and INLINE_PROFILE in defs:
        fail(("profiles", INLINE_PROFILE), f"{INLINE_PROFILE!r} is the name of the profile 'profile: {{...}}' defines; give "
             "yours another name, or write profile: " + INLINE_PROFILE, key=True)
    for name in defs:
        resolve(name)
    if inline:
        if profile.base not in PROFILES and profile.base not in own:
            unknown_base(profile.base, ("profile", "base"))
        make(INLINE_PROFILE, profile, ("profile",))
        profile = INLINE_PROFILE
    elif profile is not None and profile not in PROFILES and profile not in own:
        fail(("profile",), f"unknown profile {profile!r}{did_you_mean(profile, choices)}; {one_of(choices)}")
    return {n: own[n] for n in [*defs, *own]}, profile  # in the file's order, custom last


def _check_steps_shape(data: Any, steps_node: yaml.Node, root: yaml.Node, file: str) -> None:
    """Each step must be a mapping with exactly one known op (checked first for clear messages)."""
    if not isinstance(data, dict) or not isinstance(data.get("steps"), list):
        return
    for i, item in enumerate(data["steps"]):
        if isinstance(item, dict) and len(item) == 1:
            op = next(iter(item))
            if op in _OP_NAMES and item[op] is not None:
                continue  # the place of a message is found only for a step that is wrong (5 K a small scenario)
        node = steps_node.value[i] if isinstance(steps_node, yaml.SequenceNode) else root
        line, col = _mark(node)
        if not isinstance(item, dict) or len(item) != 1:
            got = list(item) if isinstance(item, dict) else item
            raise ScenarioError(
                f"steps[{i}]: a step is a mapping with one op, like '- from_torch: {{...}}', got {got!r}",
                file,
                line,
                col,
            )
        if op not in OPS:
            raise ScenarioError(
                f"steps[{i}]: unknown step {op!r}{did_you_mean(op, list(OPS))}; {one_of(list(OPS), limit=None)}",
                file,
                line,
                col,
            )
        raise ScenarioError(f"steps[{i}].{op}: needs arguments, e.g. {{tensor: t}}", file, line, col)


_OP_NAMES = frozenset(OPS)
"""Every op's name: a set's look-up, not the registry's own ``in`` (a Python call: 5 K instructions a small scenario)."""


class _Bound(NamedTuple):
    """What a name means after a step: its kind, whether it is a list, and the step that bound it."""

    kind: TensorKind
    many: bool
    step: int
    op: str

    def what(self) -> str:
        """``'a device tensor'``, ``'a list of mesh devices'``."""
        noun = "mesh device" if self.kind is TensorKind.MESH else "tensor" if self.kind is TensorKind.ANY else f"{self.kind.value} tensor"
        return f"a list of {noun}s" if self.many else f"a {noun}"

    def since(self) -> str:
        return "the scenario's mesh" if self.step < 0 else f"since step {self.step} ({self.op})"


def _check_names(scenario: Scenario, root: yaml.Node, file: str) -> tuple[list[tuple], list[tuple], list[str], set[str]]:
    """Every tensor (and mesh device) a step uses is bound by an earlier step, and of the kind the
    op needs. A name means one thing at a time, as a Python variable does: the step that bound it
    last says what. ``parts[0]`` needs ``parts`` bound to a list; how long the list is, the run says.

    Returns, per step, the names it uses (:meth:`Op.names_used`) and the tensors it touches
    (:meth:`Op.touched`), which the runner needs again; and every name a step binds, in step
    order, and those bound to a list, which ``expect`` may name (:func:`_check_expect`)."""
    bound: dict[str, _Bound] = {ROOT_MESH: _Bound(TensorKind.MESH, False, -1, "")}
    names: list[tuple] = []
    touched: list[tuple] = []
    defined: list[str] = []
    lists: set[str] = set()
    for i, step in enumerate(scenario.steps):
        name_of_op = step_op(step)
        op = OPS[name_of_op]
        args = getattr(step, name_of_op)
        used = tuple(op.names_used(args))
        many_fields = op.list_fields
        for field, name, want in used:
            had = bound.get(name)
            if had is not None and not had.many and field not in many_fields and (
                    had.kind is want or (want is TensorKind.ANY and had.kind is not TensorKind.MESH)):
                continue  # one thing of the kind wanted, in a field of one name: what _misnamed passes (26 K a small scenario)
            node_of = lambda f=field: _node_at(root, ("steps", i, name_of_op, *f.split(".")))  # noqa: E731 - found only for a mistake
            message = _misnamed(name, want, field in many_fields, bound, name_of_op, node_of)
            if message is not None:
                raise ScenarioError(f"steps[{i}].{name_of_op}.{field}: {message}", file, *_mark(node_of()))
        new = op.bound(args)
        kind = op.bound_kind(args) if new is not None else None
        if op.follows is not None and new is not None:  # a host op on a host tensor, a device op on a device one
            had = bound.get(_split_index(getattr(args, op.follows))[0])
            if had is not None and had.kind in (TensorKind.HOST, TensorKind.DEVICE):
                kind = had.kind
        if new == ROOT_MESH and (kind is not TensorKind.MESH or op.binds.many):  # type: ignore[union-attr]
            _root_named(root, file, i, name_of_op, op.binds.field.rstrip("_"), _Bound(kind, op.binds.many, i, name_of_op))  # type: ignore[union-attr]
        if getattr(args, "trace", None) == ROOT_MESH:
            _root_named(root, file, i, name_of_op, "trace", None)
        if new is not None:
            bound[new] = _Bound(kind, op.binds.many, i, name_of_op)  # type: ignore[union-attr,arg-type]
            if new:
                defined.append(new)
            if op.binds.many:  # type: ignore[union-attr]
                lists.add(new)
        names.append(used)
        touched.append(op.touched(args, used))
    return names, touched, defined, lists


def _root_named(root: yaml.Node, file: str, i: int, op: str, field: str, what: Optional[_Bound]) -> None:
    """Refuse ``mesh_device`` as the name of a tensor, a list or a trace: it is the scenario's mesh,
    which every step given no mesh device runs on (a tensor bound to it left the run without one)."""
    thing = what.what() if what is not None else "a trace"  # 'a device tensor', 'a list of tensors'
    line, col = _mark(_node_at(root, ("steps", i, op, field)))
    raise ScenarioError(
        f"steps[{i}].{op}.{field}: {ROOT_MESH!r} is the scenario's mesh (every step given no mesh device runs on it), "
        f"not a name for {thing}; give the {'list' if what is not None and what.many else thing[2:]} another name",
        file, line, col,
    )


def _misnamed(name: str, want: TensorKind, many: bool, bound: dict[str, _Bound], op: str, node_of) -> Optional[str]:
    """What is wrong with a step's use of ``name`` (``want``: the kind the op needs; ``many``: the
    field takes a list), given the names bound so far; None when nothing is. ``node_of()`` is the
    name's YAML node, looked up only where the answer depends on how it is written."""
    mesh = want is TensorKind.MESH
    what = "mesh device" if mesh else "tensor"
    base, index = _split_index(name)
    had = bound.get(base)
    if index is not None:
        if had is None:
            lister = "create_submeshes" if mesh else "get_device_tensors"
            return f"{name!r} names an item of {base!r}, but no earlier step bound {base!r} ({lister} binds a list)"
        if not had.many:
            return f"{name!r} names an item of {base!r}, but {base!r} is {had.what()} {had.since()}, not a list"
    elif had is not None and had.many and not many:
        if (had.kind is TensorKind.MESH) == mesh:
            return f"{name!r} is {had.what()} {had.since()}; name one of them, like {name}[0]"
    elif many and had is not None and not had.many and isinstance(node_of(), yaml.ScalarNode):
        return f"{name!r} is {had.what()} {had.since()}; {op} takes a list: write [{name}], or name a list (get_device_tensors binds one)"
    if had is None:
        known = sorted(n for n, b in bound.items() if (b.kind is TensorKind.MESH) == mesh)
        choices = f"defined so far: {listed(known)}" if known else f"no {what} is defined before this step"
        return f"unknown {what} {name!r}{did_you_mean(name, known)}; {choices}"
    if (had.kind is TensorKind.MESH) != mesh:
        return f"{base!r} is {had.what()} {had.since()}; {op} needs a {what} here"
    if want not in (TensorKind.ANY, TensorKind.MESH) and had.kind is not TensorKind.ANY and had.kind is not want:
        return f"{name!r} is {had.what()} {had.since()}; {op} needs a {want.value} tensor"
    return None


def _split_index(name: str) -> tuple[str, Optional[int]]:
    """``parts[3]`` -> ("parts", 3); a plain name -> (name, None)."""
    if name.endswith("]") and "[" in name:
        base, _, index = name[:-1].partition("[")
        return base, int(index)
    return name, None


def _check_data_files(scenario: Scenario, root: yaml.Node, path: Path, file: str, allow_outside: bool) -> dict[str, Path]:
    """Every data file a step names, checked: beside the scenario (unless ``allow_outside``), a
    regular .npy file of plain numbers of the step's shape. Returns the resolved path of each
    name as written: the runtime opens exactly the file that was checked."""
    folder: Optional[Path] = None  # resolved at the first data file (most scenarios name none: no syscalls)
    resolved: dict[str, Path] = {}
    for i, step in enumerate(scenario.steps):
        args = step_args(step)
        file_name = getattr(getattr(args, "data", None), "file", None)
        if file_name is None:
            continue
        import numpy as np  # only for a data file: most scenarios name none

        line, col = _mark(_node_at(root, ("steps", i, step_op(step), "data", "file")))
        try:
            target = (path.parent / file_name).resolve(strict=True)
        except FileNotFoundError:
            raise ScenarioError(f"data file {file_name!r} not found (looked for {path.parent / file_name})", file, line, col) from None
        except (OSError, RuntimeError) as err:  # a symlink loop, a name too long, no permission
            why = "a symlink loop" if isinstance(err, RuntimeError) or getattr(err, "errno", None) == 40 else (err.strerror or str(err))
            raise ScenarioError(f"data file {file_name!r} cannot be opened: {why}", file, line, col) from None
        folder = folder or path.parent.resolve()
        if not allow_outside and not target.is_relative_to(folder):
            raise ScenarioError(
                f"data file {file_name!r} is outside the scenario's folder {folder} (a scenario reads only files beside "
                "it unless you pass --allow-outside-data)",
                file,
                line,
                col,
            )
        if target.suffix != ".npy":
            raise ScenarioError(f"data file {file_name!r} must be a .npy file", file, line, col)
        if target.exists() and not target.is_file():
            raise ScenarioError(f"data file {file_name!r} is not a regular file", file, line, col)
        try:
            arr = _npy_header(np, target)
        except Exception as err:  # numpy raises ValueError, OSError, EOFError (an empty file) and more
            empty = " (it is empty)" if isinstance(err, EOFError) else ""
            raise ScenarioError(
                f"data file {file_name!r} is not a .npy array file{empty} (or needs pickle, which meshspec never loads)",
                file,
                line,
                col,
            ) from None
        if arr is None:
            raise ScenarioError(
                f"data file {file_name!r} is a zip of arrays (np.savez's .npz), not one array; save the one array "
                "the step reads with np.save",
                file, line, col,
            )
        if arr.dtype.kind not in "biuf":
            raise ScenarioError(
                f"data file {file_name!r} holds {arr.dtype} values; meshspec reads bool, integer and floating-point arrays",
                file,
                line,
                col,
            )
        if arr.shape != tuple(args.shape):
            raise ScenarioError(
                f"data file {file_name!r} has shape {list(arr.shape)}, the step says shape {list(args.shape)}",
                file,
                line,
                col,
            )
        resolved[file_name] = target
    return resolved


class _Header(NamedTuple):
    dtype: Any
    shape: tuple


def _npy_header(np: Any, target: Path) -> Optional[_Header]:
    """The dtype and shape of the one array a ``.npy`` file holds, or None for a zip of arrays
    (np.savez's, whatever its name): mapped, not read, and the file closed before this returns."""
    with warnings.catch_warnings():  # a header whose shape overflows warns before it fails: the error says it
        warnings.simplefilter("ignore", RuntimeWarning)
        loaded = np.load(target, mmap_mode="r", allow_pickle=False)
    if not isinstance(loaded, np.ndarray):  # an NpzFile keeps its file open until closed
        close = getattr(loaded, "close", None)
        if close is not None:
            close()
        return None
    return _Header(loaded.dtype, tuple(loaded.shape))  # the map ends with the array, here (numpy closed the file once mapped)


def _check_expect(
    scenario: Scenario, mesh_shape: Shape, root: yaml.Node, file: str, defined: list[str], lists: set[str], own: tuple = ()
) -> None:
    """Names in ``expect`` must exist: profiles, tensors defined by a step (``defined``, ``lists``:
    as :func:`_check_names` found them, not asked of every op again: 26 K instructions a small
    scenario), coordinates on the mesh. The checks are functions of the module, given what they
    need, and a place in the file is worked out only for a mistake: closures made at every call
    and a path built for each finding's device cost more than the checks (19 K instructions a
    small scenario's two findings)."""
    expect = scenario.expect
    assert expect is not None
    for pname, pe in (expect.profiles or {}).items():
        if pname != "default" and pname not in PROFILES and pname not in own:
            valid = list(PROFILES) + list(own) + ["default"]
            _fail_at(root, file, ("expect", "profiles", pname), f"expect.profiles: unknown profile {pname!r}{did_you_mean(pname, valid)}; {one_of(valid)}")
        for i, f in enumerate(pe.findings or ()):
            if f.tensor is not None and not _known(f.tensor, defined, lists):
                _fail_at(root, file, ("expect", "profiles", pname, "findings", i, "tensor"), f"expect.profiles.{pname}.findings[{i}]: unknown tensor {f.tensor!r}{did_you_mean(f.tensor, defined)}", False)
            if f.device is not None and not _on_mesh(f.device, mesh_shape):
                _check_coord(root, file, ("expect", "profiles", pname, "findings", i, "device"), tuple(f.device), mesh_shape, False)
        if pe.tensors:
            _check_expected_tensors(root, file, ("expect", "profiles", pname, "tensors"), pe.tensors, mesh_shape, defined, lists)
    if expect.tensors:
        _check_expected_tensors(root, file, ("expect", "tensors"), expect.tensors, mesh_shape, defined, lists)


def _known(name: str, defined: list[str], lists: set[str]) -> bool:
    """Whether a step defines ``name``; ``parts[3]`` is known when ``parts`` is a list a step binds (the run says how long)."""
    if not name.endswith("]"):  # a plain name, as nearly every one is: not taken apart
        return name in defined
    base, index = _split_index(name)
    return name in defined if index is None else base in lists


def _on_mesh(coord: list, mesh_shape: Shape) -> bool:
    if len(coord) != len(mesh_shape):
        return False
    for c, n in zip(coord, mesh_shape):
        if not 0 <= c < n:
            return False
    return True


def _fail_at(root: yaml.Node, file: str, loc: tuple, message: str, key: bool = True) -> None:
    line, col = _mark(_node_at(root, loc, key=key))
    raise ScenarioError(message, file, line, col)


def _check_coord(root: yaml.Node, file: str, loc: tuple, coord: tuple, mesh_shape: Shape, key: bool) -> None:
    if not _on_mesh(coord, mesh_shape):
        _fail_at(root, file, loc, f"{_where(loc)}: device {list(coord)} is not on the mesh {list(mesh_shape)}", key)


def _check_expected_tensors(
    root: yaml.Node, file: str, loc: tuple, tensors: dict, mesh_shape: Shape, defined: list[str], lists: set[str]
) -> None:
    """The tensors an ``expect`` names (at ``loc``): each defined by a step, its devices on the mesh."""
    for name, t in tensors.items():
        if not _known(name, defined, lists):
            choices = f"tensors: {listed(dict.fromkeys(defined))}" if defined else "no step defines a tensor"
            _fail_at(root, file, loc + (name,), f"{_where(loc)}: unknown tensor {name!r}{did_you_mean(name, defined)}; {choices}")
        for i, c in enumerate(t.recorded or []):
            _check_coord(root, file, loc + (name, "recorded", i), tuple(c), mesh_shape, False)
        v = t.values
        refs = [] if v is None else [(("equals",), v.equals), (("pcc", "golden"), v.pcc and v.pcc.golden),
                                      (("allclose", "other"), v.allclose and v.allclose.other)]
        for path, eq in refs:  # the tensors (or slices of them) whose values it is compared with
            if eq is None:
                continue
            at = loc + (name, "values", *path)
            other = eq if isinstance(eq, str) else eq.tensor
            where = at + (() if isinstance(eq, str) else ("tensor",))
            if not _known(other, defined, lists):
                _fail_at(root, file, where, f"{_where(at)}: unknown tensor {other!r}{did_you_mean(other, defined)}", False)
            if not isinstance(eq, str) and eq.slice is not None:
                from ..sim.mapping import parse_slice

                try:
                    parse_slice(eq.slice, (1 << 30,) * 8)
                except ValueError as err:
                    _fail_at(root, file, at + ("slice",), f"{_where(at + ('slice',))}: {err}", False)
        for key in t.devices or {}:
            try:
                coord = parse_coord(key)
            except ValueError as err:
                _fail_at(root, file, loc + (name, "devices", key), f"{_where(loc + (name, 'devices'))}: {err}")
            _check_coord(root, file, loc + (name, "devices", key), coord, mesh_shape, True)


def _system_hint(name: str) -> str:
    return did_you_mean(name, list(SYSTEMS) + list(SYSTEM_ALIASES))


def _mesh_error(data: dict, root: yaml.Node, file: str) -> Optional[ScenarioError]:
    """The error :func:`_mesh` gives for the raw ``mesh``, if it is a valid value that names no
    system or a shape the system cannot open; else None (an invalid value is validation's)."""
    try:
        mesh = validate(Scenario.fields()["mesh"].type, data.get("mesh"), ("mesh",))
        _mesh(mesh, root, file)
    except Invalid:
        return None
    except ScenarioError as err:
        return err
    return None


def _mesh(mesh: Any, root: yaml.Node, file: str) -> tuple[Shape, Optional[str], Arch]:
    """The mesh shape, the system's name (None for a bare shape) and the chips' architecture."""
    if isinstance(mesh, list):
        shape = tuple(mesh)
        _check_devices(shape, ("mesh",), root, file)
        return shape, None, Arch.WORMHOLE_B0
    written, where = (mesh, ("mesh",)) if isinstance(mesh, str) else (mesh.system, ("mesh", "system"))
    name = system_named(written)
    if name is None:
        line, col = _mark(_node_at(root, where))
        raise ScenarioError(
            f"{_where(where)}: unknown system {written!r}{_system_hint(written.lower())}; "
            f"{one_of(list(SYSTEMS))}, or a shape like [2, 4]",
            file,
            line,
            col,
        )
    requested = tuple(mesh.shape) if isinstance(mesh, SystemMesh) and mesh.shape is not None else None
    try:
        shape = open_shape(name, requested)
    except TTFatal as err:
        line, col = _mark(_node_at(root, ("mesh", "shape")))
        raise ScenarioError(f"mesh.shape: {err} (open_mesh_device on a {name})", file, line, col) from None
    return shape, name, _ARCHS.get(SYSTEMS[name].arch) or Arch(SYSTEMS[name].arch)


def _hosts(scenario: Scenario, mesh: Shape, root: yaml.Node, file: str) -> Optional[Hosts]:
    """The scenario's ``hosts:`` on its mesh, or the one-line error of a split the real library
    refuses or a rank no host has."""
    spec = scenario.hosts
    if spec is None:
        return None
    topology = tuple(spec.topology)
    if volume(topology) > MAX_HOSTS:
        line, col = _mark(_node_at(root, ("hosts", "topology")))
        raise ScenarioError(f"hosts.topology: {list(topology)} has {volume(topology):,} hosts; meshspec spreads a mesh over up to "
                            f"{MAX_HOSTS:,} (one device a host of a 32x32 system; tt-metal's descriptors have 2 and 4): "
                            "give fewer, larger blocks, e.g. [1, 2]", file, line, col)
    error = topology_error(mesh, topology)
    if error is not None:
        line, col = _mark(_node_at(root, ("hosts", "topology")))
        raise ScenarioError(f"hosts.topology: {error}", file, line, col)
    count = volume(topology)
    if spec.rank >= count:
        line, col = _mark(_node_at(root, ("hosts", "rank")))
        raise ScenarioError(f"hosts.rank: {spec.rank} is not a host of topology {list(topology)}, which has {count} "
                            f"(ranks 0 to {count - 1}, row-major over the host grid)", file, line, col)
    return Hosts(mesh, topology, spec.rank)


_ARCHS = {arch.value: arch for arch in Arch}
"""An architecture's name -> it: a look-up, not the enum's call (6 K instructions a scenario)."""


def _check_printed_specs(scenario: Scenario, arch: Arch, root: yaml.Node, file: str) -> None:
    """A spec pasted from a report keeps the keys the report worked out (padded_shape, page and
    buffer sizes): each must be what the spec the step's other fields give has, or the paste
    describes another spec than it makes. A spec ttnn refuses is left to the run, which says why."""
    for i, step in enumerate(scenario.steps):
        name_of_op = step_op(step)
        args = getattr(step, name_of_op)
        if not isinstance(args, PrintedSpec) or given_fields(args).isdisjoint(PrintedSpec.PRINTED):
            continue
        try:
            spec = args.spec(arch)  # type: ignore[attr-defined]
        except TTFatal:
            continue
        for key, want, have in args.differences(spec):
            line, col = _mark(_node_at(root, ("steps", i, name_of_op, key)))
            raise ScenarioError(
                f"steps[{i}].{name_of_op}.{key}: {want} is not this spec's ({have}, from its shape, dtype, layout, tile and "
                f"memory on {arch.value}); a report prints {key}, the step works it out: correct it or leave it out",
                file, line, col,
            )


def _check_code(scenario: Scenario, root: yaml.Node, file: str) -> None:
    """An opaque step's ``code`` is a line an exported script would run (meshspec/scenario/code.py:
    one call of the step's ttnn function on its tensors and bounded literals), or the scenario is
    refused where the code is: a scenario is data, and text that a script would not run is not
    kept in it to look as if it were (``meshspec record`` writes only such lines)."""
    parsed: dict[tuple, Any] = {}  # (code, call, uses) -> what parse said: a repeat block's steps are one code each
    for i, step in enumerate(scenario.steps):
        args = getattr(step, "opaque", None) if step_op(step) == "opaque" else None
        if args is None or args.code is None:
            continue
        from .code import parse as parse_code  # here: only a scenario with code pays for ttnn's list

        key = (args.code, args.call, tuple(args.uses))
        why = parsed[key] if key in parsed else parsed.setdefault(key, parse_code(args.code, args.call, list(args.uses)))
        if isinstance(why, str):
            line, col = _mark(_node_at(root, ("steps", i, "opaque", "code")))
            raise ScenarioError(
                f"steps[{i}].opaque.code: not a line an exported script runs: {why}; the code must be one call of "
                f"{args.call} on the step's uses (see meshspec/scenario/code.py), or leave code out (export then makes "
                "a tensor with the recorded records)",
                file, line, col,
            )


def _check_devices(shape: Shape, where: tuple, root: yaml.Node, file: str) -> None:
    if volume(shape) > MAX_DEVICES:
        line, col = _mark(_node_at(root, where))
        raise ScenarioError(
            f"mesh: {list(shape)} has {volume(shape):,} devices; meshspec simulates up to {MAX_DEVICES:,} "
            "(the largest planned systems are 32x32)",
            file,
            line,
            col,
        )


def parse(text: str, path: Path | str = "<scenario>", *, allow_outside_data: bool = False) -> LoadedScenario:
    """Parse scenario text; ``path`` names it in messages and anchors relative data files, which
    must lie in its folder unless ``allow_outside_data``."""
    path = path if isinstance(path, Path) else Path(path)  # a copy of a Path would parse its text again
    file = str(path)
    _check_hidden(text, file)
    data, root = _compose(text, file)
    saved = saved_format(data)
    if saved is not None:
        first = data[0] if isinstance(data, list) else data
        origin = f", from {printable(str(first['path']))}" if isinstance(first.get("path"), str) else ""
        raise ScenarioError(f"a file meshspec wrote ({saved}{origin}), not a scenario: compare two reports with "
                            "'meshspec diff A.json B.json', and run or check the scenario itself", file, 1, 1)
    if not isinstance(data, dict):
        raise ScenarioError(f"a scenario is a mapping starting with 'meshspec: 1', got {type(data).__name__}", file, 1, 1)
    version = data.get("meshspec", 1)
    if version != 1 or not isinstance(version, int) or isinstance(version, bool):
        line, col = _mark(_node_at(root, ("meshspec",)))
        if isinstance(version, int) and not isinstance(version, bool):
            msg = f"meshspec: format version {version} is not supported; this meshspec reads version 1"
        else:
            msg = f"meshspec: the format version is the number 1, got {version!r}"
        raise ScenarioError(msg, file, line, col)
    if "matrix" in data:
        return _matrix_cases(data, root, text, path, file, allow_outside_data)
    return _parse_document(data, root, text, path, file, allow_outside_data)


def _matrix_cases(data: dict, root: yaml.Node, text: str, path: Path, file: str, allow_outside_data: bool) -> LoadedScenario:
    """The first case of a ``matrix`` scenario, holding every case (meshspec/scenario/matrix.py).
    Each case is validated as a scenario of its own, against its own copy of the nodes; an error in
    one names the case after the place in the file."""
    from .matrix import expand, placeholders

    at = lambda loc: _mark(_node_at(root, loc))  # noqa: E731
    filled = {at(loc): name for loc, name in placeholders(data)}  # where a $name stands -> the variable
    loaded = []
    for case, doc, picked in expand(data, file, at, MAX_VALUES):
        try:
            one = _parse_document(doc, copy.deepcopy(root), text, path, file, allow_outside_data)
        except ScenarioError as err:
            name = filled.get((err.line, err.column))  # type: ignore[arg-type]
            if name is not None:  # the value is the matrix's: point there, and say where it went
                err.line, err.column = at(("matrix", name, picked[name]))
                err.message = f"{err.message} (the value of ${name} in matrix case [{case}])"
            else:
                err.message = f"{err.message} (matrix case [{case}])"
            raise
        loaded.append(one.replace(name=f"{one.name}[{case}]", case=case))
    cases = tuple(loaded)
    return cases[0].replace(cases=cases)


def _parse_document(data: dict, root: yaml.Node, text: str, path: Path, file: str, allow_outside_data: bool) -> LoadedScenario:
    """A scenario's document (composed, its version checked) as the runner takes it."""
    steps_node = _node_at(root, ("steps",))  # found once (8 K instructions): distribute blocks replace its items, never the node
    _expand_distribute(data, steps_node, file)
    _check_steps_shape(data, steps_node, root, file)
    try:
        scenario = validate(Scenario, data)
    except Invalid as err:
        error = _invalid(err, root, file, data, text)
        earlier = _mesh_error(data, root, file)  # checked after validation, but first in the file: said first
        raise (earlier if earlier is not None and (earlier.line, earlier.column) < (error.line, error.column) else error) from None
    own, profile = _own_profiles(scenario, root, file)
    mesh_shape, mesh_name, arch = _mesh(scenario.mesh, root, file)
    hosts = _hosts(scenario, mesh_shape, root, file)
    _check_printed_specs(scenario, arch, root, file)
    _check_code(scenario, root, file)
    names, touched, defined, lists = _check_names(scenario, root, file)
    if scenario.expect is not None:
        _check_expect(scenario, mesh_shape, root, file, defined, lists, tuple(own))
    files = _check_data_files(scenario, root, path, file, allow_outside_data)
    steps = tuple(
        _loaded_step(i, s, steps_node.value[i].start_mark.line + 1, names[i], touched[i]) for i, s in enumerate(scenario.steps)
    )
    return LoadedScenario(
        path=path,
        name=scenario.name or path.stem,
        description=scenario.description or "",
        mesh_shape=mesh_shape,
        mesh_name=mesh_name,
        arch=arch,
        files=files,
        profile=profile,
        profiles=own,
        steps=steps,
        expect=scenario.expect,
        with_data=scenario.data != "none",
        hosts=hosts,
    )


def load(path: Path | str, *, allow_outside_data: bool = False) -> LoadedScenario:
    """Read and parse a scenario file."""
    path = path if isinstance(path, Path) else Path(path)  # a copy of a Path would parse its text again
    try:
        try:
            fd = os.open(path, os.O_RDONLY | NONBLOCK)  # what it is, from the open file (a FIFO opens without waiting)
        except OSError as err:
            if err.errno == errno.ENXIO:  # a socket cannot be opened at all
                raise _not_regular(path) from None
            raise
        try:
            info = os.fstat(fd)
            if stat.S_ISDIR(info.st_mode):
                raise IsADirectoryError
            if not stat.S_ISREG(info.st_mode):  # a FIFO or device would block or never end
                raise _not_regular(path)
            if info.st_size > MAX_FILE_BYTES:
                raise ScenarioError(f"file is {info.st_size} bytes; scenarios are limited to {MAX_FILE_BYTES} bytes", str(path))
            raw = read_all(fd, info.st_size, MAX_FILE_BYTES)
        finally:
            os.close(fd)
        if len(raw) > MAX_FILE_BYTES:
            raise ScenarioError(f"file is over {MAX_FILE_BYTES} bytes; scenarios are limited to that", str(path))
        text = raw.decode("utf-8")
    except FileNotFoundError:
        raise ScenarioError("no such file", str(path)) from None
    except IsADirectoryError:
        raise ScenarioError("is a folder; give a scenario .yaml file", str(path)) from None
    except UnicodeDecodeError as err:
        raise ScenarioError(f"not UTF-8 text ({err.reason} at byte {err.start})", str(path)) from None
    except OSError as err:
        raise ScenarioError(f"cannot read: {err.strerror}", str(path)) from None
    return parse(text, path, allow_outside_data=allow_outside_data)


def _not_regular(path: Path) -> ScenarioError:
    """Made when raised, not beforehand in case (an error made and dropped at every load was 5 K instructions)."""
    return ScenarioError("is not a regular file (a pipe or device?); give a scenario .yaml file", str(path))


def defined_profiles(path: Path | str) -> list[str]:
    """The profile names a scenario file defines (``profiles:``, ``custom`` for ``profile: {...}``),
    from a quick read of its YAML without validating it (a broken file defines none)."""
    try:
        path = Path(path)
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return []
        data = yaml.load(path.read_text(encoding="utf-8"), Loader=_Loader)
    except Exception:
        return []
    if not isinstance(data, dict):
        return []
    defined = data.get("profiles")
    # only names the loader would take: a raw key is text from the file (a path, a control character)
    names = [n for n in defined if is_name(n) and n not in RESERVED_PROFILE_NAMES] if isinstance(defined, dict) else []
    return names + ([INLINE_PROFILE] if isinstance(data.get("profile"), dict) else [])


_FILE_KEY = re.compile(r"\bfile\b")
"""The word ``file`` (a data file's key, plain or quoted), not ``profiles`` or ``files``."""


def referenced_files(path: Path | str) -> list[Path]:
    """The data files a scenario file names (``data: {file: ...}``), resolved beside it, from a
    quick read of its YAML without validating it: the files a run must never write over."""
    path = Path(path)
    try:
        if not path.is_file() or path.stat().st_size > MAX_FILE_BYTES:
            return []
        text = path.read_text(encoding="utf-8")
        if _FILE_KEY.search(text) is None:  # every spelling of a data file's key has it: nothing to parse for
            return []
        data = yaml.load(text, Loader=_Loader)
    except Exception:  # a broken file names nothing; loading it reports why
        return []
    found: list[Path] = []
    stack = [data]
    while stack and len(found) < 10_000:
        item = stack.pop()
        if isinstance(item, dict):
            data_field = item.get("data")
            if isinstance(data_field, dict) and isinstance(data_field.get("file"), str):
                found.append(path.parent / data_field["file"])
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
