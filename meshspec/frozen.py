"""Immutable values declared by their annotations, with nothing generated per class.

``@dataclass(frozen=True)`` compiles half a dozen methods for every class it decorates, about half
a millisecond each class: for the forty-odd values meshspec defines that is a sixth of a run's
start-up. A :class:`Frozen` subclass gets the same behaviour (construction by position or
keyword, defaults, no assignment after construction, equality, hashing and a repr by value,
:meth:`~Frozen.replace`) from methods written once, here::

    class StepError(Frozen):
        step: int
        op: str
        line: Optional[int] = None

    StepError(3, "to_torch") == StepError(step=3, op="to_torch")   # True

Made by position or with every field by keyword, a Frozen value is also quicker to make than a
frozen dataclass (which sets each field through ``object.__setattr__``: 10 fields, 0.84 us against
1.18 us), so the values made once per device (device views, findings, shard slots) are Frozen too;
comparing and hashing two that are not the same object is slower (0.78 us against 0.08 us for
three fields): a value compared or hashed far more often than it is made may stay a dataclass.
"""

from __future__ import annotations

from typing import Any, ClassVar


class Frozen:
    __slots__ = ()
    _fields: ClassVar[tuple[str, ...]] = ()
    _field_set: ClassVar[frozenset[str]] = frozenset()
    _defaults: ClassVar[dict[str, Any]] = {}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        names: list[str] = []
        defaults: dict[str, Any] = {}
        for klass in reversed(cls.__mro__):
            if klass is not cls and "_defaults" in klass.__dict__:  # a Frozen base's: its class attributes are gone
                defaults = dict(klass.__dict__["_defaults"])  # the nearest base's last: what it made required stays so
            for name, annotation in klass.__dict__.get("__annotations__", {}).items():
                if name.startswith("_") or str(annotation).startswith(("ClassVar", "typing.ClassVar")):
                    continue
                if name not in names:
                    names.append(name)
                if name in klass.__dict__:
                    defaults[name] = klass.__dict__[name]
                elif name in defaults and klass is cls:
                    del defaults[name]
        cls._fields = tuple(names)
        cls._field_set = frozenset(names)
        cls._defaults = defaults
        for name in names:  # the class attributes were the defaults: instances hold the values
            if name in cls.__dict__:
                delattr(cls, name)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        fields = self._fields
        if not kwargs and len(args) == len(fields):  # every field by position: the common case
            self.__dict__.update(zip(fields, args))
            return
        if not kwargs and len(args) < len(fields):  # the first fields by position, the rest defaulted
            d = self.__dict__
            d.update(self._defaults)
            d.update(zip(fields, args))
            if len(d) == len(fields):
                return
            d.clear()  # a field without a default was left out: the path below names it
        elif not args and len(kwargs) == len(fields) and self._field_set.issuperset(kwargs):
            self.__dict__.update(kwargs)  # every field by keyword: no defaults to lay first (a loaded scenario: 5 K instructions less)
            return
        elif not args and kwargs.keys() <= self._field_set:  # some fields by keyword, the rest defaulted
            d = self.__dict__
            d.update(self._defaults)
            d.update(kwargs)
            if len(d) == len(fields):
                return
            d.clear()
        if len(args) > len(fields):
            raise TypeError(f"{type(self).__name__}() takes {len(fields)} arguments, got {len(args)}")
        values = dict(zip(fields, args))
        for name, value in kwargs.items():
            if name not in fields:
                raise TypeError(f"{type(self).__name__}() has no field {name!r}")
            if name in values:
                raise TypeError(f"{type(self).__name__}() got {name!r} twice")
            values[name] = value
        d = self.__dict__
        for name in fields:
            if name in values:
                d[name] = values[name]
            elif name in self._defaults:
                d[name] = self._defaults[name]
            else:
                raise TypeError(f"{type(self).__name__}() needs {name!r}")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable; use .replace({name}=...)")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def _values(self) -> tuple:
        return tuple(map(self.__dict__.__getitem__, self._fields))  # not a generator: half the time of one

    def __eq__(self, other: object) -> bool:  # itself first, as a tuple compares its items
        return other is self or (type(other) is type(self) and self._values() == other._values())  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((type(self), self._values()))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{n}={v!r}' for n, v in zip(self._fields, self._values()))})"

    def replace(self, **changes: Any) -> "Frozen":
        """A copy with ``changes`` (as ``dataclasses.replace``). A class with no ``__init__`` of its
        own (nothing to check) is copied without a call by keyword: a run's report took 52 K
        instructions to replace its expect result, a tenth of a small scenario's check."""
        cls = type(self)
        if cls.__init__ is Frozen.__init__ and changes.keys() <= self._field_set:
            new = object.__new__(cls)
            values = new.__dict__
            values.update(zip(self._fields, self._values()))  # the fields only: not what a method cached beside them
            values.update(changes)
            return new
        values = dict(zip(self._fields, self._values()))
        values.update(changes)
        return cls(**values)
