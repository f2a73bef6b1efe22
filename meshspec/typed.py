"""Typed values: small frozen classes declared with annotations, validated from plain data.

A scenario step's arguments, the scenario itself and a saved report are typed values. A class
deriving from :class:`Typed` is declared like a dataclass (annotations, defaults, a docstring under
each field) and its instances are frozen and built with keyword arguments; :func:`validate` turns parsed YAML or JSON into an instance or
raises :class:`Invalid` with *where* (a path of keys and indices, which the loader turns into a
line and column) and one line saying what is wrong, the bad value and the valid choices (and, for a
value written in another language, what to write instead: the :class:`Hints` a layer installs).
:func:`json_schema` describes the same declarations as JSON Schema; :meth:`Typed.json` writes a
record's JSON object in its declared key order (a saved report is written and read through one
declaration, meshspec/report.py).

Constraints ride on ``typing.Annotated``::

    class Shard(Typed):
        shard: Annotated[int, Range(ge=0)]

    Dim = Annotated[int, Range(ge=1, le=2**40)]
    Data = Annotated[Any, Tagged(by_key("fill", "file"), {"Name": Literal["arange"], ...}, "arange or {fill: V}")]

Integers and floats are strict (``true`` is not 1, ``32.0`` is not 32). A record refuses keys it
does not declare unless declared ``open`` (``class Report(Typed, open=True)``). This replaces
pydantic: meshspec's start-up paid about a tenth of a second for it, and its errors had to be
translated back into a scenario's own words anyway.
"""

from __future__ import annotations

import enum
import math
import re
import types
import typing
from typing import Any, Callable, ClassVar, Optional

from .errors import did_you_mean

class _Missing:
    def __repr__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The default of a required field."""


class Invalid(Exception):
    """A value does not fit its declaration: ``loc`` says where, ``message`` what (one line)."""

    def __init__(self, loc: tuple, message: str, *, unknown_key: Optional[str] = None, record: Optional[type] = None,
                 key: bool = False):
        super().__init__(message)
        self.loc = loc
        self.message = message
        self.key = key or unknown_key is not None
        """Whether ``loc``'s last element is a key that is wrong itself (not its value)."""
        self.unknown_key = unknown_key
        """Set when the problem is a key the record does not declare."""
        self.record = record
        """The record class whose mapping holds ``loc``'s last element."""


# -- constraints ---------------------------------------------------------------------------------
class _Marker:
    """A constraint carried by ``Annotated``: plain slotted classes (cheap to declare; meshspec's
    start-up is measured)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(repr(getattr(self, a)) for a in self.__slots__)})"


class Alias(_Marker):
    """The key a field is written with (``as`` for ``as_``)."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class Range(_Marker):
    __slots__ = ("ge", "le")

    def __init__(self, ge: Optional[float] = None, le: Optional[float] = None) -> None:
        self.ge, self.le = ge, le


class Length(_Marker):
    __slots__ = ("min", "max")

    def __init__(self, min: Optional[int] = None, max: Optional[int] = None) -> None:
        self.min, self.max = min, max


class Pattern(_Marker):
    """A regular expression the whole value matches; ``says`` what such a value looks like."""

    __slots__ = ("regex", "says", "_compiled")

    def __init__(self, regex: str, says: str) -> None:
        self.regex, self.says, self._compiled = regex, says, None

    def match(self, value: str) -> bool:
        return self.compiled().fullmatch(value) is not None

    def compiled(self) -> re.Pattern:
        """The regular expression, compiled at its first use (most are never used in a run)."""
        if self._compiled is None:
            self._compiled = re.compile(self.regex)
        return self._compiled


class Check(_Marker):
    """``fn(value)`` returns the value (or a converted one) or raises ValueError with the message."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn


class Before(_Marker):
    """``fn(raw)`` runs before the type is checked (to take ``1e30`` written as text as a number)."""

    __slots__ = ("fn",)

    def __init__(self, fn: Callable[[Any], Any]) -> None:
        self.fn = fn


class Schema(_Marker):
    """Extra JSON Schema keys for the field (an ``enum`` an editor can offer); ``replace``: the
    field's whole schema (for a field a ``Before`` widens, like one name for a list of them)."""

    __slots__ = ("extra", "replace")

    def __init__(self, extra: dict, replace: bool = False) -> None:
        self.extra = extra
        self.replace = replace


class Tagged(_Marker):
    """A union picked by ``tag(value)``: the branch named by the tag, so an error points inside the
    branch the user meant; ``expected`` says the forms in words."""

    __slots__ = ("tag", "branches", "expected")

    def __init__(self, tag: Callable[[Any], Optional[str]], branches: dict, expected: str) -> None:
        self.tag, self.branches, self.expected = tag, branches, expected


def by_key(*keys: str) -> Callable[[Any], Optional[str]]:
    """Tag function: ``Name`` for a string, else ``Key`` for the first of ``keys`` the mapping has."""

    def tag(value: Any) -> Optional[str]:
        if isinstance(value, str):
            return "Name"
        if isinstance(value, dict):
            for k in keys:
                if k in value:
                    return k.capitalize()
        return None

    return tag


def tagged(branches: dict, tag: Callable[[Any], Optional[str]], expected: str) -> Any:
    """``Annotated[Any, Tagged(tag, branches, expected)]``."""
    return typing.Annotated[Any, Tagged(tag, branches, expected)]


# -- typed classes -------------------------------------------------------------------------------
class FieldInfo:
    __slots__ = ("name", "key", "type", "default")

    def __init__(self, name: str, key: str, type: Any, default: Any) -> None:
        self.name, self.key, self.type, self.default = name, key, type, default

    @property
    def required(self) -> bool:
        return self.default is MISSING


class Typed:
    """Base of every typed class: frozen, built with keyword arguments, compared by value.

    Declared like a dataclass, but nothing is generated per class: ``__init__``, ``__eq__`` and
    ``__repr__`` are these, for every subclass (declaring a class costs nothing at start-up)."""

    __open__: ClassVar[bool] = False
    __fields_cache__: ClassVar[Optional[dict]] = None
    __json_orders__: ClassVar[dict] = {}

    def __init_subclass__(cls, open: bool = False, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        cls.__open__ = open
        cls.__fields_cache__ = None
        cls.__json_orders__ = {}

    def __init__(self, **values: Any) -> None:
        for f in self.fields().values():
            if f.name in values:
                value = values.pop(f.name)
            elif f.required:
                raise TypeError(f"{type(self).__name__}() needs {f.name}")
            else:
                value = list(f.default) if isinstance(f.default, list) else f.default
            object.__setattr__(self, f.name, value)
        if values:
            raise TypeError(f"{type(self).__name__}() takes no {', '.join(values)}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is frozen")

    def __eq__(self, other: object) -> bool:
        return type(other) is type(self) and all(getattr(self, n) == getattr(other, n) for n in self.fields())

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={getattr(self, n)!r}' for n in self.fields())})"

    @classmethod
    def fields(cls) -> dict[str, FieldInfo]:
        """Field name -> its declaration, base classes' first (types resolved once, on first use)."""
        cached = cls.__dict__.get("__fields_cache__")
        if cached is None:
            hints = typing.get_type_hints(cls, include_extras=True)
            names: list[str] = []
            for klass in reversed(cls.__mro__):
                for name in klass.__dict__.get("__annotations__", {}):
                    if not name.startswith("_") and name not in names and typing.get_origin(hints.get(name)) is not ClassVar:
                        names.append(name)
            cached = {}
            for name in names:
                tp = hints[name]
                alias = next((m.name for m in _metadata(tp) if isinstance(m, Alias)), name)
                cached[name] = FieldInfo(name, alias, tp, getattr(cls, name, MISSING))
            cls.__fields_cache__ = cached
        return cached

    @classmethod
    def keys(cls) -> list[str]:
        return [f.key for f in cls.fields().values()]

    @classmethod
    def json(cls, **values: Any) -> dict:
        """The JSON object of a record of ``values`` (by field name): its keys in declared order,
        spelt as declared (``as`` for ``as_``); a field not given is not written. A name the class
        does not declare is a TypeError: a writer writes no key its readers' declaration lacks.
        The values are written as given (already plain data: lists, not tuples); a writer's output is
        held to the declaration by validating it (tests).

        >>> class Error(Typed):
        ...     step: int
        ...     message: str
        ...     crash: bool = False
        >>> Error.json(message="refused", step=3)
        {'step': 3, 'message': 'refused'}
        """
        given = tuple(values)
        order = cls.__json_orders__.get(given, MISSING)  # worked out once for each set of names given in each order
        if order is MISSING:
            order = cls.__json_orders__[given] = _json_order(cls, given)
        return values if order is None else {key: values[name] for name, key in order}


def _json_order(cls: type[Typed], given: tuple[str, ...]) -> Optional[tuple[tuple[str, str], ...]]:
    """(name, key) of the fields ``given`` names, in declared order; None when that is the order
    they were given in and every key is its name (the values are the object as they are: a report's
    device entries are written without a copy). TypeError for a name ``cls`` does not declare."""
    keys = _json_keys(cls)
    unknown = [name for name in given if name not in keys]
    if unknown:
        raise TypeError(f"{cls.__name__} declares no {', '.join(unknown)}")
    order = tuple((name, key) for name, key in keys.items() if name in given)
    return None if all(n == k for n, k in order) and tuple(n for n, _ in order) == given else order


def _json_keys(cls: type[Typed]) -> dict[str, str]:
    """Field name -> its key, in declared order. Read off the annotations as written where none
    names an :class:`Alias` or a ClassVar (a writer's first object of each record then evaluates no
    type: 0.6 ms of a small run's JSON); else from :meth:`Typed.fields`."""
    names: dict[str, str] = {}
    for klass in reversed(cls.__mro__):
        for name, annotation in klass.__dict__.get("__annotations__", {}).items():
            if name.startswith("_"):
                continue
            if not isinstance(annotation, str) or "Alias" in annotation or "ClassVar" in annotation:
                return {f.name: f.key for f in cls.fields().values()}
            names.setdefault(name, name)
    return names


def given(record: Typed) -> frozenset[str]:
    """The field names the data gave (not defaulted)."""
    return getattr(record, "_given", frozenset())


def as_dict(record: Typed, only_given: bool = False) -> dict:
    """Field name -> value (the given ones only, with ``only_given``); nested records as dicts."""
    names = given(record) if only_given else record.fields().keys()
    return {n: _plain(getattr(record, n), only_given) for n in record.fields() if n in names}


def _plain(value: Any, only_given: bool) -> Any:
    if isinstance(value, Typed):
        return as_dict(value, only_given)
    if isinstance(value, list):
        return [_plain(v, only_given) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v, only_given) for k, v in value.items()}
    return value


# -- validation ------------------------------------------------------------------------------------
def validate(tp: Any, value: Any, loc: tuple = ()) -> Any:
    """``value`` (parsed YAML or JSON) as ``tp`` declares it; :class:`Invalid` if it does not fit."""
    return _validator(tp)(value, loc)


Validator = Callable[[Any, tuple], Any]
_VALIDATORS: dict[int, tuple[Any, Validator]] = {}
"""id(type) -> (type, its validator): each annotation is taken apart once, not per value (a
scenario of 10,000 steps is validated in 10,000 calls of ready closures)."""


def _validator(tp: Any) -> Validator:
    hit = _VALIDATORS.get(id(tp))
    if hit is None or hit[0] is not tp:
        hit = _VALIDATORS[id(tp)] = (tp, _compile(tp))  # keeps tp alive: its id stays its own
    return hit[1]


def _compile(tp: Any) -> Validator:
    base, meta = _split(tp)
    befores = [m.fn for m in meta if isinstance(m, Before)]
    tag = next((m for m in meta if isinstance(m, Tagged)), None)
    checks = [m for m in meta if isinstance(m, (Range, Length, Pattern, Check))]
    inner = _tagged_validator(tag) if tag is not None else _base_validator(base)
    if not befores and not checks:
        return inner
    checkers = [_checker(m) for m in checks]
    if not befores and tag is None and (quick := _quick(base, checks, inner, checkers)) is not None:
        return quick
    if not befores and len(checkers) == 1:  # the common case (a range, a length): no loops
        (check,) = checkers
        return lambda value, loc: check(inner(value, loc), loc)

    def run(value: Any, loc: tuple) -> Any:
        for fn in befores:
            value = fn(value)
        value = inner(value, loc)
        for check in checkers:
            value = check(value, loc)
        return value

    return run


def _quick(base: Any, checks: list, inner: Validator, checkers: list[Validator]) -> Optional[Validator]:
    """For the commonest checked values, one call that takes a good value itself and leaves any
    other to the checks in their order (which say what is wrong): an integer in its range (a dim),
    text of its length matching its pattern (a name), a list of its length (a shape). Checked by
    ``inner`` and then ``checkers`` one by one, they were 3 or 4 calls each (a small scenario's 22:
    32 K instructions). None for any other declaration."""

    def full(value: Any, loc: tuple) -> Any:
        value = inner(value, loc)
        for check in checkers:
            value = check(value, loc)
        return value

    if base is int and all(isinstance(m, Range) for m in checks):
        low = max((m.ge for m in checks if m.ge is not None), default=-math.inf)
        high = min((m.le for m in checks if m.le is not None), default=math.inf)

        def int_in_range(value: Any, loc: tuple) -> Any:
            if type(value) is int and low <= value <= high:
                return value
            return full(value, loc)

        return int_in_range
    lengths = [m for m in checks if isinstance(m, Length)]
    shortest = max((m.min for m in lengths if m.min is not None), default=0)
    longest = min((m.max for m in lengths if m.max is not None), default=math.inf)
    patterns = [m for m in checks if isinstance(m, Pattern)]
    if base is str and len(lengths) + len(patterns) == len(checks) and len(patterns) <= 1:
        pattern = patterns[0] if patterns else None
        fullmatch = None  # the pattern's, at the first value

        def text(value: Any, loc: tuple) -> Any:
            nonlocal fullmatch
            if type(value) is str and shortest <= len(value) <= longest:
                if pattern is None:
                    return value
                if fullmatch is None:
                    fullmatch = pattern.compiled().fullmatch
                if fullmatch(value) is not None:
                    return value
            return full(value, loc)

        return text
    if typing.get_origin(base) is list and len(lengths) == len(checks):

        def list_of_length(value: Any, loc: tuple) -> Any:
            items = inner(value, loc)
            if shortest <= len(items) <= longest:
                return items
            for check in checkers:  # the length's own error
                items = check(items, loc)
            return items

        return list_of_length
    return None


def _checker(m: Any) -> Validator:
    """The check ``m`` (a Range, Length, Pattern or Check) as a function of (value, loc) that
    returns the value (a Check's, converted) or raises Invalid: worked out once per annotation."""
    if isinstance(m, Range):
        ge, le = m.ge, m.le

        valid = f"{_num(ge)} to {_num(le)}" if ge is not None and le is not None else None  # said when both bound it

        def in_range(value: Any, loc: tuple) -> Any:
            if value != value:  # NaN: no comparison holds, so neither check below would refuse it
                within = f"from {valid}" if valid else (f"from {_num(ge)}" if ge is not None else f"up to {_num(le)}")
                raise Invalid(loc, f"{_where(loc)}: nan is not a number; expected a number {within}")
            if ge is not None and value < ge:
                raise Invalid(loc, f"{_where(loc)}: {value} is below the smallest allowed, {_num(ge)}" + (f" (valid: {valid})" if valid else ""))
            if le is not None and value > le:
                raise Invalid(loc, f"{_where(loc)}: {value} is above the largest allowed, {_num(le)}" + (f" (valid: {valid})" if valid else ""))
            return value

        return in_range
    if isinstance(m, Length):
        low, high = m.min, m.max

        def of_length(value: Any, loc: tuple) -> Any:
            n = len(value)
            if (low is not None and n < low) or (high is not None and n > high):
                raise Invalid(loc, f"{_where(loc)}: expected {_count(m)}, got {n}: {_show(value)}")
            return value

        return of_length
    if isinstance(m, Pattern):

        def matching(value: Any, loc: tuple) -> Any:
            if not m.match(value):
                raise Invalid(loc, f"{_where(loc)}: {value!r} is not {m.says}")
            return value

        return matching

    def checked(value: Any, loc: tuple) -> Any:  # a Check
        try:
            return m.fn(value)
        except ValueError as err:
            raise Invalid(loc, f"{_where(loc)}: {err}") from None

    return checked


def _tagged_validator(tag: Tagged) -> Validator:
    checks: dict[str, Validator] = {}
    """Branch name -> its validator, looked up at the branch's first value, not at every value (a
    step's op is a branch: 15 K instructions a small scenario)."""

    def run(value: Any, loc: tuple) -> Any:
        name = tag.tag(value)
        check = checks.get(name)
        if check is None:
            if name is None or name not in tag.branches:
                raise _untagged(value, loc, tag)
            check = checks[name] = _validator(tag.branches[name])
        try:
            return check(value, loc)
        except Invalid as err:
            if not isinstance(value, str) or err.loc != loc:
                raise
            raise Invalid(loc, _unknown_word(value, loc, tag, tag.branches[name])) from None

    return run


def _untagged(value: Any, loc: tuple, tag: Tagged) -> Invalid:
    """The error for a value no branch of a tagged union takes (its tag names none)."""
    if isinstance(value, dict):  # a misspelt key: name it where it stands, suggest one the forms use
        known = re.findall(r"\{(\w+):", tag.expected)
        for k in value:
            hint = did_you_mean(k, known) if isinstance(k, str) and k not in known else ""
            if hint:
                return Invalid(
                    loc + (k,),
                    f"unknown key {k!r} in {_where(loc)}{hint}; expected {tag.expected}",
                    unknown_key=k,
                )
    called = _hints.for_union(value, loc, tag) if isinstance(value, str) else None
    return Invalid(loc, called or f"{_where(loc)}: expected {tag.expected}, got {_show(value)}")


def _unknown_word(value: str, loc: tuple, tag: Tagged, branch: Any) -> str:
    """A word none of a tagged union's word forms has: the message names every form, the mapping
    ones too (a literal's own message lists the words alone), and the form the word is the key of.
    A word written in another language says what to write instead (:class:`Hints`).

    >>> t = Tagged(lambda v: "Word", {"Word": typing.Literal["replicate"]}, "replicate or {shard: DIM}")
    >>> _unknown_word("shard", ("mesh_mapper",), t, typing.Literal["replicate"])
    "mesh_mapper: 'shard' is the key of a mapping form: write {shard: DIM}; expected replicate or {shard: DIM}"
    """
    form = _form(value, tag)
    if form is not None:
        return f"{_where(loc)}: {value!r} is the key of a mapping form: write {form}; expected {tag.expected}"
    called = _hints.for_union(value, loc, tag)
    if called is not None:
        return called
    base = _split(branch)[0]
    words = [c for c in typing.get_args(base) if isinstance(c, str)] if typing.get_origin(base) is typing.Literal else []
    return _unknown(value, loc, lambda w: _union_accepts(tag, w), did_you_mean(value, words), tag.expected)


def form(key: str, tag: Tagged) -> Optional[str]:
    """The mapping form of a tagged union keyed by ``key`` (:func:`_form`)."""
    return _form(key, tag)


def _form(key: str, tag: Tagged) -> Optional[str]:
    """The mapping form of a tagged union keyed by ``key``, as its ``expected`` writes it
    (``{shard: DIM}``, ``{ShardTensorToMesh: {...}}``); None when no form has that key."""
    found = re.search(r"\{" + re.escape(key) + r": (?:\{[^{}]*\}|[^{}])*\}", tag.expected)
    return found.group(0) if found is not None else None


def _unknown(value: str, loc: tuple, accepts: Callable[[str], bool], near: str, expected: str) -> str:
    """``unknown value 'x'`` with ``near`` (a did-you-mean hint) and the ``expected`` choices; for a
    word written otherwise that names one ``accepts`` takes, what to write instead (:class:`Hints`)."""
    hinted = _hints.for_word(value, loc, accepts)
    if hinted is not None:
        return hinted
    return f"{_where(loc)}: unknown value {value!r}{near}; expected {expected}"


def _base_validator(tp: Any) -> Validator:  # noqa: C901 - one branch per kind of annotation
    if tp is Any or tp is object:
        return lambda value, loc: value
    if isinstance(tp, type) and issubclass(tp, Typed):
        return _record_validator(tp)
    origin = typing.get_origin(tp)
    if origin is typing.Literal:
        return _literal_validator(typing.get_args(tp))
    if origin in (typing.Union, types.UnionType):
        return _union_validator(typing.get_args(tp))
    if origin is list:
        (item,) = typing.get_args(tp) or (Any,)

        check = None  # the item's validator, looked up at the first list (a type may contain itself)
        low, high = _int_bounds(item) or (None, None)

        def run_list(value: Any, loc: tuple) -> Any:
            nonlocal check
            if not isinstance(value, list):
                raise Invalid(loc, f"{_where(loc)}: expected a list, got {_show(value)}{_hints.for_list(value, (item,))}")
            if low is not None:  # integers (a shape, a coordinate): each taken here, not by a call
                for v in value:
                    if type(v) is not int or not low <= v <= high:
                        break  # the item's own validator says what is wrong
                else:
                    return list(value)
            if check is None:
                check = _validator(item)
            return [check(v, loc + (i,)) for i, v in enumerate(value)]

        return run_list
    if origin is tuple:
        args = typing.get_args(tp)

        checks: Optional[list[Validator]] = None  # the items' validators, looked up at the first tuple

        def run_tuple(value: Any, loc: tuple) -> Any:
            nonlocal checks
            if not isinstance(value, (list, tuple)) or len(value) != len(args):
                raise Invalid(loc, f"{_where(loc)}: expected a list of {len(args)}, got {_show(value)}{_hints.for_list(value, args)}")
            if checks is None:
                checks = [_validator(a) for a in args]
            return tuple(check(v, loc + (i,)) for i, (check, v) in enumerate(zip(checks, value)))

        return run_tuple
    if origin is dict:
        key_tp, value_tp = typing.get_args(tp)

        check = None  # the values' validator, looked up at the first mapping
        check_key = None if key_tp is str else _validator(key_tp)  # a declared key (a name): each key checked by it

        def run_dict(value: Any, loc: tuple) -> Any:
            nonlocal check
            if not isinstance(value, dict):
                raise Invalid(loc, f"{_where(loc)}: expected a mapping, got {_show(value)}")
            if check is None:
                check = _validator(value_tp)
            out = {}
            for k, v in value.items():
                if not isinstance(k, str):
                    raise Invalid(loc + (k,), f"{_where(loc)}: keys are text, got {k!r}")
                if check_key is not None:
                    try:
                        check_key(k, loc)
                    except Invalid as err:  # said of the mapping, placed at the key itself
                        raise Invalid(loc + (k,), err.message, key=True) from None
                out[k] = check(v, loc + (k,))
            return out

        return run_dict
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        return _enum_validator(tp)
    simple = {
        bool: (lambda v: isinstance(v, bool), "true or false"),
        int: (lambda v: isinstance(v, int) and not isinstance(v, bool), "an integer"),
        float: (lambda v: isinstance(v, float), "a number with a decimal point"),
        str: (lambda v: isinstance(v, str), "text"),
        type(None): (lambda v: v is None, "null"),
    }
    if tp in simple:
        ok, says = simple[tp]

        def run_simple(value: Any, loc: tuple) -> Any:
            if type(value) is tp or ok(value):  # the exact type (every YAML value is one) needs no call
                return value
            raise Invalid(loc, f"{_where(loc)}: expected {says}, got {_show(value)}")

        return run_simple
    raise TypeError(f"records cannot validate {tp!r}")  # a declaration error: a bug, not input


def _int_bounds(tp: Any) -> Optional[tuple[float, float]]:
    """(lowest, highest) of an integer ``tp`` declares with no more than ranges, as the integer's
    validator takes it (:func:`_quick`); None for any other declaration."""
    base, meta = _split(tp)
    if base is not int or not all(isinstance(m, (Range, Schema, Alias)) for m in meta):
        return None
    low = max((m.ge for m in meta if isinstance(m, Range) and m.ge is not None), default=-math.inf)
    high = min((m.le for m in meta if isinstance(m, Range) and m.le is not None), default=math.inf)
    return low, high


def _literal_validator(choices: tuple) -> Validator:
    texts = frozenset(c for c in choices if type(c) is str)  # a word is found in one look-up, not a loop

    def run(value: Any, loc: tuple) -> Any:
        if type(value) is str and value in texts:
            return value
        for c in choices:
            if type(value) is type(c) and value == c:
                return value
        shown = ", ".join(repr(c) for c in choices)
        if isinstance(value, str):
            words = [c for c in choices if isinstance(c, str)]
            raise Invalid(loc, _unknown(value, loc, lambda w: w in words, did_you_mean(value, words), shown))
        raise Invalid(loc, f"{_where(loc)}: expected {shown}, got {_show(value)}")

    return run


def _union_validator(args: tuple) -> Validator:
    nullable = type(None) in args
    rest = [a for a in args if a is not type(None)]
    if len(rest) == 1:
        return _optional_validator(rest[0], nullable)
    checks: Optional[list[Validator]] = None  # the members' validators, looked up at the first value, not at each

    def run(value: Any, loc: tuple) -> Any:
        nonlocal checks
        if value is None and nullable:
            return None
        if checks is None:
            checks = [_validator(a) for a in rest]
        errors = []
        for check in checks:
            try:
                return check(value, loc)
            except Invalid as err:
                # without its traceback: that holds this frame, which holds ``errors``, a cycle
                # only the collector would free (with every frame and value along the way)
                errors.append(err.with_traceback(None))
        # an error inside the value (a record that was meant) explains better than "wrong type"
        deepest = max(errors, key=lambda e: len(e.loc))
        if len(deepest.loc) > len(loc):
            raise deepest
        raise Invalid(loc, f"{_where(loc)}: expected {' or '.join(_describe(a) for a in rest)}, got {_show(value)}")

    return run


def _optional_validator(tp: Any, nullable: bool) -> Validator:
    """``Optional[T]``: null, or a T with T's own error (what the general union raises for one
    member, without its list of errors: 9 K instructions for a small scenario's 14 optional values)."""
    check = None  # T's validator, looked up at the first value (T may contain this type)

    def run_optional(value: Any, loc: tuple) -> Any:
        nonlocal check
        if value is None and nullable:
            return None
        if check is None:
            check = _validator(tp)
        return check(value, loc)

    return run_optional


def _enum_validator(tp: type) -> Validator:
    by_value: Optional[dict] = None  # word -> member: tp(word) without its Python-level call (made at the first word)

    def run(value: Any, loc: tuple) -> Any:
        nonlocal by_value
        if isinstance(value, tp):
            return value
        if type(value) is str:
            if by_value is None:
                by_value = {m.value: m for m in tp if type(m.value) is str}
            if value in by_value:
                return by_value[value]
        if isinstance(value, str):
            try:
                return tp(value)
            except ValueError:
                words = [m.value for m in tp]
                near = did_you_mean(value.lower(), words)
                raise Invalid(loc, _unknown(value, loc, lambda w: _accepts(tp, w), near, f"one of {', '.join(words)}")) from None
        raise Invalid(loc, f"{_where(loc)}: expected one of {', '.join(m.value for m in tp)}, got {_show(value)}")

    return run


def _record_validator(cls: type[Typed]) -> Validator:
    """A record's validator. The common mapping (every required key given, and declared keys only,
    or an open record's) is walked by its own keys, over a copy of the defaults: no visit to each
    field left out, no check of each key in Python (50 K instructions less for a small scenario's
    15 records). Any other mapping, and any error, goes to :func:`_validate_record`, which walks
    the declared fields in order: the error it raises is the first in that order, whatever order
    the keys came in. It is given what this walk validated and the error it met, so nothing is
    validated twice (a nested error would be, at every level of nesting)."""
    plan: Optional[_Plan] = None  # made at the first value: a field's type may name a class declared later

    def run_record(value: Any, loc: tuple) -> Any:
        nonlocal plan
        if plan is None:
            plan = cls.__dict__.get("__plan__") or _plan(cls)
        if type(value) is not dict:
            return _validate_record(cls, value, loc)
        own = plan.keys.issuperset(value)  # (not value.keys() <= plan.keys: no view made)
        every = own and len(value) == plan.count  # every key given, the required ones among them
        if not every and plan.required and not value.keys() >= plan.required:
            return _validate_record(cls, value, loc)  # names the missing key
        if not own and not cls.__open__:
            return _validate_record(cls, value, loc)  # names the unknown key
        items = value.items() if own else [(k, v) for k, v in value.items() if k in plan.keys]  # an open record's: its own keys
        record = object.__new__(cls)  # what Typed.__init__ makes of these values, without a call per field
        values = record.__dict__  # filled in place, not a copy of the defaults set as its dict afterwards (12 K instructions a small scenario)
        values.update(plan.defaults)
        try:
            for key, raw in items:
                name, check = plan.by_key[key]
                values[name] = check(raw, loc + (key,))
        except Invalid as err:
            failed = (name, err.with_traceback(None))  # (no traceback: it would hold this frame, and so itself)
        else:
            for name, key in plan.lists:
                if key not in value:
                    values[name] = list(values[name])  # each record its own list
            if every:  # the plan's set of every name
                values["_given"] = plan.every
            else:
                keys = value if own else [k for k, _ in items]
                values["_given"] = frozenset(keys) if plan.name_of is None else frozenset(map(plan.name_of, keys))
            return record
        done = {}  # the fields validated before the one that failed
        for key, _ in items:
            name = plan.by_key[key][0]
            if name == failed[0]:
                break
            done[name] = values[name]
        return _validate_record(cls, value, loc, done, failed)  # outside the except: its error is not chained to the first

    return run_record


def _validate_record(cls: type[Typed], value: Any, loc: tuple, done: Optional[dict] = None, failed: Optional[tuple] = None) -> Typed:
    """``value`` as a ``cls`` record, its fields validated in declared order. ``done``: fields
    already validated (by name); ``failed``: (name, error) of a field already found invalid."""
    if not isinstance(value, dict):
        raise Invalid(loc, f"{_where(loc)}: expected a mapping with keys {', '.join(cls.keys())}, got {_show(value)}", record=cls)
    plan = cls.__dict__.get("__plan__") or _plan(cls)
    if not cls.__open__:
        for key in value:
            if key not in plan.keys:
                keys = cls.keys()
                hint = did_you_mean(key, keys) if isinstance(key, str) else ""
                raise Invalid(
                    loc + (key,),
                    f"unknown key {'~ (null)' if key is None else repr(key)} in {_where(loc) or 'the scenario'}{hint}; valid keys: {', '.join(keys)}",
                    unknown_key="~" if key is None else key,  # never None: None says the key is known
                    record=cls,
                )
    values = {}
    given = []
    done = done or {}
    for name, key, check, default in plan.fields:
        if key in value:
            if name in done:
                values[name] = done[name]
            elif failed is not None and failed[0] == name:
                raise failed[1]
            else:
                values[name] = check(value[key], loc + (key,))
            given.append(name)
        elif default is MISSING:
            raise Invalid(loc + (key,), f"{_where(loc + (key,))}: required key is missing", record=cls)
        else:
            values[name] = list(default) if isinstance(default, list) else default
    record = object.__new__(cls)  # what Typed.__init__ makes of these values, without a call per field
    record.__dict__.update(values)
    record.__dict__["_given"] = frozenset(given)
    return record


class _Plan:
    """How to validate one record class: its keys, and per field (name, key, validator, default);
    for :func:`_record_validator`'s walk by keys, the same by key, and the defaults as one dict."""

    __slots__ = ("keys", "fields", "required", "by_key", "name_of", "defaults", "lists", "every", "count")

    def __init__(self, cls: type[Typed]) -> None:
        self.fields = []
        self.by_key: dict[str, tuple[str, Validator]] = {}
        self.defaults: dict[str, Any] = {}
        """Every field's default, in declared order (a required field's is MISSING: always given over)."""
        self.lists: list[tuple[str, str]] = []
        """(name, key) of each field whose default is a list (each record gets its own copy)."""
        required = []
        names = {}
        for f in cls.fields().values():  # one loop: a plan is made at its class's first value
            check = _validator(f.type)
            self.fields.append((f.name, f.key, check, f.default))
            self.by_key[f.key] = (f.name, check)
            self.defaults[f.name] = f.default
            if f.default is MISSING:
                required.append(f.key)
            elif isinstance(f.default, list):
                self.lists.append((f.name, f.key))
            names[f.key] = f.name
        self.keys = frozenset(self.by_key)
        self.required = frozenset(required)
        self.count = len(self.keys)
        self.every = frozenset(names.values())
        """Every field's name: the given names of a record given every key, one set shared by all
        (half a small scenario's records: a set made, kept and collected less for each)."""
        self.name_of = None if all(k == n for k, n in names.items()) else names.__getitem__
        """A declared key's field name, where some differ (``as`` for ``as_``)."""


def _plan(cls: type[Typed]) -> _Plan:
    plan = _Plan(cls)
    cls.__plan__ = plan  # type: ignore[attr-defined]
    return plan


# -- hints: a refused value written in another language ---------------------------------------
class Hints:
    """What to add to the error of a value already refused when it looks written in another language
    than the one being validated: the scenario layer knows the library's Python, and says what to write
    for a tuple, a name or a call copied from a test (meshspec/scenario/pyhints.py, installed with
    :func:`use_hints`). Each method returns its part of the message, or ''/None for no hint; these
    give none. They run only for a value already refused."""

    def for_list(self, value: Any, items: tuple) -> str:
        """The end of ``expected a list, got X`` for ``value`` given where a list of ``items`` (its
        item types) was expected."""
        return ""

    def for_word(self, value: str, loc: tuple, accepts: Callable[[str], bool]) -> Optional[str]:
        """The whole message for an unknown word ``value`` that names, written otherwise, a word
        ``accepts`` takes."""
        return None

    def for_union(self, value: str, loc: tuple, tag: Tagged) -> Optional[str]:
        """The whole message for text a tagged union refused that means one of its forms written
        otherwise (a call of one of its mapping forms)."""
        return None


_hints = Hints()


def use_hints(hints: Hints) -> None:
    """Make ``hints`` say what to write instead in every message that follows."""
    global _hints
    _hints = hints


def _is_record(tp: Any) -> bool:
    return isinstance(tp, type) and issubclass(tp, Typed)


def is_record(tp: Any) -> bool:
    """Whether ``tp`` (its annotations taken off) is a typed record class."""
    return _is_record(_split(tp)[0])


_PLAIN = (bool, int, float, str, type(None))


def may_hold_record(tp: Any) -> bool:
    """Whether a value ``tp`` declares may be a record or hold one: False only for plain data
    (numbers, text, words, enums, null, and lists, tuples, mappings and unions of them); a record,
    ``Any`` or anything unknown may. A check returns a value of its declared kind (a list, a tuple),
    never a record."""
    base, meta = _split(tp)
    tag = next((m for m in meta if isinstance(m, Tagged)), None)
    if tag is not None:
        return any(may_hold_record(branch) for branch in tag.branches.values())
    if base in _PLAIN or (isinstance(base, type) and issubclass(base, enum.Enum)):
        return False
    origin = typing.get_origin(base)
    if origin is typing.Literal:
        return False
    if origin in (typing.Union, types.UnionType, list, tuple, dict):
        args = typing.get_args(base)  # none: a bare List, which holds anything
        return not args or any(a is not Ellipsis and may_hold_record(a) for a in args)
    return True


def accepts(tp: Any, value: Any) -> bool:
    """Whether ``value`` is valid as ``tp`` (a probe: a hook's own error is a no too)."""
    return _accepts(tp, value)


def _accepts(tp: Any, value: Any) -> bool:
    """Whether ``value`` is valid as ``tp``: a probe for a hint, so a hook's own error is a no too."""
    try:
        validate(tp, value)
    except (Invalid, ValueError, TypeError):
        return False
    return True


def union_accepts(tag: Tagged, value: Any) -> bool:
    """Whether the branch of a tagged union that ``value``'s tag names takes it."""
    return _union_accepts(tag, value)


def _union_accepts(tag: Tagged, value: Any) -> bool:
    """Whether the branch ``value``'s tag names takes it."""
    branch = tag.branches.get(tag.tag(value))
    return branch is not None and _accepts(branch, value)


# -- helpers ---------------------------------------------------------------------------------------
def _split(tp: Any) -> tuple[Any, list]:
    """``Annotated[T, m1, m2]`` -> (T, [m1, m2]), nested Annotated flattened."""
    meta: list = []
    while typing.get_origin(tp) is typing.Annotated:
        args = typing.get_args(tp)
        tp = args[0]
        meta = list(args[1:]) + meta
    return tp, meta


def base(tp: Any) -> Any:
    """``tp`` without its ``Annotated`` constraints."""
    return _split(tp)[0]


def _metadata(tp: Any) -> list:
    return _split(tp)[1]


def _where(loc: tuple) -> str:
    parts = []
    for p in loc:
        parts.append(f"[{p}]" if isinstance(p, int) else ("." if parts else "") + str(p))
    return "".join(parts)


def where(loc: tuple) -> str:
    """``("steps", 0, "from_torch", "shape")`` -> ``steps[0].from_torch.shape``."""
    return _where(loc)


def _show(value: Any) -> str:
    """A bad value as the file wrote it: text quoted, anything else as JSON, which YAML reads too
    (``null``, ``true``, ``[1, 2]``: not Python's ``None``, ``True``); cut at 80 characters.

    >>> _show("abc"), _show(None), _show([1, True, None]), _show({"dim": None})
    ("'abc'", 'null', '[1, true, null]', '{"dim": null}')
    """
    if isinstance(value, str):
        text = repr(value)
    else:
        import json

        try:
            text = json.dumps(value)
        except (TypeError, ValueError):  # not plain data (a hook's own value)
            text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def _num(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else str(x)


def _count(m: Length) -> str:
    if m.min is not None and m.max is not None:
        return f"{m.min} to {m.max} items" if m.min != m.max else f"{m.min} items"
    if m.min is not None:
        return f"at least {m.min} item{'s' * (m.min != 1)}"
    return f"at most {m.max} items"


def _describe(tp: Any) -> str:
    base, meta = _split(tp)
    tag = next((m for m in meta if isinstance(m, Tagged)), None)
    if tag is not None:
        return tag.expected
    if isinstance(base, type) and issubclass(base, Typed):
        return f"a mapping with keys {', '.join(base.keys())}"
    names = {int: "an integer", float: "a number", str: "text", bool: "true or false", type(None): "null"}
    if base in names:
        return names[base]
    origin = typing.get_origin(base)
    if origin is list:
        return "a list"
    if origin is typing.Literal:
        return " or ".join(repr(c) for c in typing.get_args(base))
    return str(base)


# -- JSON Schema -----------------------------------------------------------------------------------
def json_schema(root: type[Typed], docs: Optional[dict[str, dict[str, str]]] = None) -> dict:
    """The JSON Schema (draft 2020-12) of ``root``, records in ``$defs`` by class name. ``docs``:
    class name -> field name -> description."""
    defs: dict[str, dict] = {}
    docs = docs or {}

    def of(tp: Any) -> dict:
        base, meta = _split(tp)
        tag = next((m for m in meta if isinstance(m, Tagged)), None)
        if tag is not None:
            out = {"anyOf": [of(b) for b in tag.branches.values()]}
        else:
            out = of_base(base)
        for m in meta:
            if isinstance(m, Range):
                if m.ge is not None:
                    out["minimum"] = m.ge
                if m.le is not None:
                    out["maximum"] = m.le
            elif isinstance(m, Length):
                key = "Length" if out.get("type") == "string" else "Items"
                if m.min is not None:
                    out[f"min{key}"] = m.min
                if m.max is not None:
                    out[f"max{key}"] = m.max
            elif isinstance(m, Pattern):
                out["pattern"] = "^(?:" + m.regex + ")$"
            elif isinstance(m, Schema):
                out = dict(m.extra) if m.replace else {**out, **m.extra}
        return out

    def of_base(tp: Any) -> dict:
        if tp is Any or tp is object:
            return {}
        if isinstance(tp, type) and issubclass(tp, Typed):
            name = tp.__name__
            if name not in defs:
                defs[name] = {}  # a placeholder while its fields are described (recursion)
                props, required = {}, []
                for f in tp.fields().values():
                    prop = of(f.type)
                    doc = docs.get(name, {}).get(f.name)
                    if doc:
                        prop.setdefault("description", doc)
                    if not f.required and f.default is not None and not isinstance(f.default, (list, dict)):
                        prop.setdefault("default", f.default.value if isinstance(f.default, enum.Enum) else list(f.default) if isinstance(f.default, tuple) else f.default)
                    props[f.key] = prop
                    if f.required:
                        required.append(f.key)
                body = {"type": "object", "properties": props, "additionalProperties": tp.__open__}
                if required:
                    body["required"] = required
                if tp.__doc__ and tp.__doc__ != Typed.__doc__:
                    body["description"] = " ".join(tp.__doc__.split())
                defs[name] = body
            return {"$ref": f"#/$defs/{name}"}
        origin = typing.get_origin(tp)
        if origin is typing.Literal:
            return {"enum": list(typing.get_args(tp))}
        if origin in (typing.Union, types.UnionType):
            return {"anyOf": [of(a) for a in typing.get_args(tp)]}
        if origin is list:
            (item,) = typing.get_args(tp) or (Any,)
            return {"type": "array", "items": of(item)}
        if origin is tuple:
            args = typing.get_args(tp)
            return {"type": "array", "prefixItems": [of(a) for a in args], "minItems": len(args), "maxItems": len(args)}
        if origin is dict:
            key_tp, value_tp = typing.get_args(tp)
            keys = {} if key_tp is str else {"propertyNames": of(key_tp)}
            return {"type": "object", **keys, "additionalProperties": of(value_tp)}
        if isinstance(tp, type) and issubclass(tp, enum.Enum):
            return {"enum": [m.value for m in tp]}
        simple = {bool: "boolean", int: "integer", float: "number", str: "string", type(None): "null"}
        if tp in simple:
            return {"type": simple[tp]}
        raise TypeError(f"records cannot describe {tp!r}")

    top = of(root)
    return {**defs[root.__name__], "$defs": {k: v for k, v in defs.items() if k != root.__name__}} if "$ref" in top else top
