"""meshspec/typed.py: a record's quick walk (by its given keys) and the declared-order walk give
the same record, and the same first error whatever order the keys come in."""

from __future__ import annotations

import enum
import itertools
from typing import Annotated, Literal, Optional

import pytest

from meshspec.typed import Alias, Check, Invalid, Length, Pattern, Range, Typed, _plan, _validate_record, as_dict, given, validate


class Color(str, enum.Enum):
    RED = "red"
    BLUE = "blue"


class Inner(Typed):
    n: Annotated[int, Range(ge=1, le=9)]


class Rec(Typed):
    name: Annotated[str, Length(min=1), Pattern(r"[a-z]+", "a lower-case word")]
    dims: Annotated[list[Annotated[int, Range(ge=1)]], Length(min=1, max=3)]
    as_: Annotated[Optional[str], Alias("as")] = None
    kind: Optional[Literal["a", "b"]] = None
    color: Color = Color.RED
    inner: Optional[Inner] = None
    tags: list[str] = []


class Open(Typed, open=True):
    a: int = 0


GOOD = [
    {"name": "x", "dims": [1, 2]},
    {"dims": [3], "name": "abc", "as": "t", "kind": "b", "color": "blue", "inner": {"n": 9}, "tags": ["q"]},
    {"name": "x", "dims": [1], "as": None, "inner": None, "kind": None},
]


def slow(cls: type[Typed], value: dict) -> Typed:
    _plan(cls)
    return _validate_record(cls, value, ())


@pytest.mark.parametrize("value", GOOD)
def test_the_quick_walk_makes_the_record_the_declared_walk_makes(value):
    quick, walked = validate(Rec, value), slow(Rec, value)
    assert quick == walked and as_dict(quick) == as_dict(walked)
    assert given(quick) == given(walked)
    assert list(vars(quick)) == list(vars(walked))  # fields in declared order, then what was given


def test_each_record_gets_its_own_copy_of_a_list_default():
    a, b = validate(Rec, GOOD[0]), validate(Rec, GOOD[0])
    assert a.tags == [] and a.tags is not b.tags and a.tags is not Rec.fields()["tags"].default


BAD = {"name": "X", "dims": [0], "kind": "c", "color": "green", "inner": {"n": 10}}
"""Every value wrong: the error is the first field's in declared order (name), in any key order."""


@pytest.mark.parametrize("keys", list(itertools.permutations(BAD))[::7])
def test_the_first_error_is_the_first_in_declared_order_whatever_the_key_order(keys):
    with pytest.raises(Invalid) as info:
        validate(Rec, {k: BAD[k] for k in keys})
    assert info.value.loc == ("name",) and "'X' is not a lower-case word" in info.value.message


@pytest.mark.parametrize(
    "value, loc, words",
    [
        ({"dims": [1], "bogus": 1, "name": "x"}, ("bogus",), "unknown key 'bogus'"),
        ({"dims": [0], "name": "x"}, ("dims", 0), "0 is below the smallest allowed, 1"),
        ({"dims": [True], "name": "x"}, ("dims", 0), "expected an integer, got true"),
        ({"dims": [], "name": "x"}, ("dims",), "expected 1 to 3 items, got 0"),
        ({"dims": [1], "name": ""}, ("name",), "expected at least 1 item"),
        ({"dims": [1], "name": "x", "kind": "c"}, ("kind",), "unknown value 'c'"),
        ({"dims": [1], "name": "x", "color": "green"}, ("color",), "unknown value 'green'"),
        ({"dims": [1], "name": "x", "inner": {"n": 10}}, ("inner", "n"), "10 is above the largest allowed, 9"),
        ({"dims": [1, "x"], "name": "x", "as": 3}, ("dims", 1), "expected an integer"),
        ({"name": "x"}, ("dims",), "required key is missing"),
    ],
)
def test_errors_say_what_the_declared_walk_says(value, loc, words):
    for walk in (lambda v: validate(Rec, v), lambda v: slow(Rec, v)):
        with pytest.raises(Invalid) as info:
            walk(value)
        assert info.value.loc == loc and words in info.value.message


def test_an_error_after_the_quick_walk_gave_up_is_not_chained_to_its_first():
    with pytest.raises(Invalid) as info:
        validate(Rec, {"kind": "c", "name": "X", "dims": [1]})  # kind fails first, name is said
    assert info.value.loc == ("name",) and info.value.__context__ is None


def test_words_of_literals_and_enums_are_taken_as_before():
    r = validate(Rec, {"name": "x", "dims": [1], "kind": "a", "color": "blue"})
    assert r.kind == "a" and r.color is Color.BLUE
    assert validate(Rec, {"name": "x", "dims": [1], "color": Color.BLUE}).color is Color.BLUE


def test_an_open_record_ignores_keys_it_does_not_declare():
    assert validate(Open, {"a": 2, "b": 3}).a == 2 and given(validate(Open, {"a": 2, "b": 3})) == {"a"}


CALLS: list = []


def _counted(value):
    CALLS.append(value)
    return value


class Leaf(Typed):
    v: Annotated[int, Check(_counted)]
    bad: int = 0


class Mid(Typed):
    leaf: Leaf


class Top(Typed, open=True):
    mid: Mid
    w: Annotated[int, Check(_counted)] = 0


def test_each_field_is_validated_once_on_an_error_and_on_an_open_record_s_extra_keys():
    """The quick walk hands what it validated, and the error it met, to the declared-order walk:
    a nested error costs one validation per field, not one per level of nesting (2^depth)."""
    CALLS.clear()
    with pytest.raises(Invalid, match="bad: expected an integer"):
        validate(Top, {"w": 5, "mid": {"leaf": {"v": 1, "bad": "x"}}})
    assert sorted(CALLS) == [1, 5]
    CALLS.clear()
    top = validate(Top, {"mid": {"leaf": {"v": 2}}, "extra": 1, "w": 3})  # an open record: extra keys are not its business
    assert sorted(CALLS) == [2, 3] and given(top) == frozenset({"mid", "w"}) and top.w == 3


def test_may_hold_record_is_false_only_for_plain_data():
    """An op's names are looked for only in fields that may hold a record: a wrong False would
    miss a mesh device named inside a mapper."""
    from typing import Any, List, Union

    from meshspec.sim.ops.fields import Composer, Data, Mapper, Name
    from meshspec.typed import may_hold_record, tagged

    for plain in (int, str, Optional[Name], Color, Literal["a"], list[int], dict[str, list[Optional[int]]],
                  tuple[int, ...], Union[int, list[int]], Annotated[list[Annotated[int, Range(ge=1)]], Length(min=1)]):
        assert not may_hold_record(plain), plain
    for holder in (Inner, Optional[Inner], list[Inner], dict[str, Rec], Any, List, Mapper, Composer, Data,
                   Union[int, Inner], tagged({"Name": str, "Rec": Inner}, lambda v: "Name", "x")):
        assert may_hold_record(holder), holder


def test_a_list_of_integers_is_a_copy_and_takes_only_integers_in_range():
    """Integer items are taken in one loop; anything else goes to the item's validator."""
    value = {"name": "x", "dims": [1, 2, 3]}
    r = validate(Rec, value)
    assert r.dims == [1, 2, 3] and type(r.dims) is list and r.dims is not value["dims"]
    with pytest.raises(Invalid, match=r"\[1\]: expected an integer, got true"):
        validate(list[int], [2, True])
    with pytest.raises(Invalid, match=r"\[1\]: 0 is below the smallest allowed, 1"):
        validate(Rec.fields()["dims"].type, [2, 0])

    class Small(enum.IntEnum):
        ONE = 1

    assert validate(list[int], [Small.ONE, 2])[0] is Small.ONE  # an int subclass: the item's validator takes it


def test_the_typed_layer_knows_no_ttnn_and_gives_hints_it_is_given():
    """Issue 38 item 6: what to write for a value copied from ttnn's Python is the scenario layer's
    (meshspec/scenario/pyhints.py); the typed layer only asks the hints it is given."""
    from pathlib import Path

    import meshspec.scenario.model  # noqa: F401 - installs the scenario's hints
    from meshspec import typed
    from meshspec.scenario.pyhints import PYTHON

    assert "ttnn" not in Path(typed.__file__).read_text().lower()
    with pytest.raises(Invalid, match=r"^shape: expected a list, got '\(1, 2\)' \(a Python tuple\); write \[1, 2\]$"):
        validate(list[int], "(1, 2)", ("shape",))
    typed.use_hints(typed.Hints())
    try:
        with pytest.raises(Invalid, match=r"^shape: expected a list, got '\(1, 2\)'$"):
            validate(list[int], "(1, 2)", ("shape",))
        with pytest.raises(Invalid, match=r"^c: unknown value 'ttnn.RED'; expected one of red, blue$"):
            validate(Color, "ttnn.RED", ("c",))
    finally:
        typed.use_hints(PYTHON)
