"""A mapping whose keys are known up front and whose values are made when first asked for.

The op registry is one: its 69 names are a table, and an op's module is imported when a scenario
first uses the op, so a run of the seed imports the modules of its four ops, not all twenty-one
(the other modules were 24 M of the seed's 737 M instructions, a whole process counted by
valgrind; bench/run.py's start-up rows)::

    squares = Lazy(range(4), lambda k: k * k)
    list(squares)      # [0, 1, 2, 3]: no value made yet
    squares[3]         # 9, made now and kept
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Callable, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lazy(Mapping[K, V]):
    __slots__ = ("_keys", "_make", "_made")

    def __init__(self, keys: Iterable[K], make: Callable[[K], V]) -> None:
        self._keys = dict.fromkeys(keys)
        self._make = make
        self._made: dict[K, V] = {}

    def __getitem__(self, key: K) -> V:
        try:
            return self._made[key]
        except KeyError:
            if key not in self._keys:
                raise
        value = self._made[key] = self._make(key)
        return value

    def __contains__(self, key: object) -> bool:
        return key in self._keys

    def __iter__(self) -> Iterator[K]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def __repr__(self) -> str:
        return f"Lazy({list(self._keys)!r}, {len(self._made)} made)"
