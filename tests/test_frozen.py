"""meshspec/frozen.py: immutable values declared by their annotations."""

from __future__ import annotations

import re
from typing import ClassVar, Optional

import pytest

from meshspec.frozen import Frozen


class Point(Frozen):
    x: int
    y: int
    label: Optional[str] = None
    tags: tuple = ()
    KIND: ClassVar[str] = "point"


class Point3(Point):
    z: int = 0


def test_by_position_keyword_and_default_alike():
    a = Point(1, 2)
    assert a == Point(x=1, y=2) == Point(1, y=2) == Point(y=2, x=1) == Point(1, 2, None, ())
    assert (a.x, a.y, a.label, a.tags) == (1, 2, None, ())
    assert Point(y=2, label="p", x=1).label == "p"
    assert hash(a) == hash(Point(y=2, x=1))
    assert repr(Point(y=2, x=1)) == "Point(x=1, y=2, label=None, tags=())"  # field order, not call order
    assert Point.KIND == "point" and "KIND" not in Point._fields


def test_a_subclass_adds_fields_after_its_bases():
    p = Point3(1, 2, z=3)
    assert Point3._fields == ("x", "y", "label", "tags", "z")
    assert (p.x, p.z) == (1, 3) and Point3(x=1, y=2).z == 0
    assert p != Point(1, 2)  # another type is never equal


class Required(Point):
    label: str  # the base's default taken away: required here and below


class Below(Required):
    z: int = 0


def test_a_field_a_subclass_makes_required_stays_required_below_it():
    with pytest.raises(TypeError, match=re.escape("Below() needs 'label'")):
        Below(1, 2)
    assert Below(x=1, y=2, label="p").tags == ()  # the other defaults are still inherited


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Point(x=1), "Point() needs 'y'"),
        (lambda: Point(1), "Point() needs 'y'"),
        (lambda: Point(x=1, y=2, w=3), "Point() has no field 'w'"),
        (lambda: Point(1, x=1, y=2), "Point() got 'x' twice"),
        (lambda: Point(1, 2, 3, 4, 5), "Point() takes 4 arguments, got 5"),
    ],
)
def test_a_wrong_call_says_which_field(make, message):
    with pytest.raises(TypeError, match=re.escape(message)):
        make()


def test_immutable_and_replace_copies():
    a = Point(1, 2)
    with pytest.raises(AttributeError, match="immutable"):
        a.x = 5  # type: ignore[misc]
    with pytest.raises(AttributeError):
        del a.x
    b = a.replace(y=7)
    assert (a.y, b.y, b.x) == (2, 7, 1) and type(b) is Point


def test_replace_checks_fields_and_keeps_a_class_own_init():
    """replace copies a plain class's values without a call (meshspec/frozen.py), but still
    refuses a field the class has not, and a class with its own __init__ still checks its values."""
    from meshspec.sim.faults import Fault

    a = Point(1, 2)
    with pytest.raises(TypeError, match="no field 'w'"):
        a.replace(w=3)
    b = a.replace(x=5)
    assert b == Point(5, 2) and hash(b) == hash(Point(5, 2)) and a == Point(1, 2)
    fault = Fault("skip_write", 2, (0, 1))
    with pytest.raises(ValueError, match="unknown fault 'nope'"):
        fault.replace(kind="nope")
    assert fault.replace(step=3) == Fault("skip_write", 3, (0, 1))


def test_replace_leaves_what_a_method_cached_behind():
    """Profile.rules() caches its answer beside the fields: a replaced profile works its own out."""
    from meshspec.sim.profiles import PROFILES

    p = PROFILES["uniform-by-value"]
    assert p.rules()["composer"] == "legacy"
    assert p.replace(composer=type(p.composer)("current")).rules()["composer"] == "current"
