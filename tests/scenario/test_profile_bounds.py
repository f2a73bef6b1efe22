"""Issue 34, attack round 1: profile errors scale.

14,000 profiles with 120-character names: a cycle made a 1.7 MB one-line message, and an unknown
base took 14 s (a did-you-mean over every name) and printed 1.7 MB. A scenario now defines at most
256 profiles of its own (loader.MAX_PROFILES), a message lists at most 20 choices and how many more
(errors.listed), a cycle shows its first and last ten profiles. And a base naming ``custom``, the
profile ``profile: {...}`` defines, says so instead of "unknown base profile".
"""

from __future__ import annotations

import pytest

from meshspec.errors import ScenarioError, did_you_mean, one_of
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES

TAIL = "steps:\n  - allocate_tensor_on_device: {as: a, shape: [1, 1, 32, 32]}\n"


def _name(i: int) -> str:
    return f"p{i}" + "x" * 118


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse(text, "r.yaml")
    message = str(info.value)
    assert "\n" not in message
    return message


def _profiles(bases: dict) -> str:
    return "meshspec: 1\nmesh: [1, 2]\nprofiles:\n" + "".join(f"  {n}: {{base: {b}}}\n" for n, b in bases.items()) + TAIL


def test_more_than_256_profiles_are_refused_in_one_line():
    message = _error(_profiles({_name(i): "current" for i in range(257)}))
    assert message == ("r.yaml:3:1: profiles: 257 profiles; a scenario defines at most 256 of its own (each is run by "
                       "--profile all): keep the ones its expect block needs"), message[:300]
    assert len(parse(_profiles({_name(i): "current" for i in range(256)}), "r.yaml").profiles) == 256


def test_a_long_cycle_shows_its_ends():
    names = [_name(i) for i in range(256)]
    message = _error(_profiles({n: names[(i + 1) % 256] for i, n in enumerate(names)}))
    # the cycle from p0 back to p0: 257 entries, 20 shown
    assert f"profile cycle: {' -> '.join(names[:10])} -> ... (237 more) -> {' -> '.join(names[247:])} -> {names[0]}; " in message
    assert len(message) < 4000, len(message)


def test_an_unknown_base_lists_twenty_choices_and_how_many_more():
    names = [_name(i) for i in range(256)]
    bases = {n: "current" for n in names}
    bases[names[-1]] = "nosuch"
    message = _error(_profiles(bases))
    choices = list(PROFILES) + names
    assert f"unknown base profile 'nosuch'; one of: {', '.join(choices[:20])} and {len(choices) - 20} more" in message, message[:400]
    assert len(message) < 4000, len(message)


def test_a_base_naming_the_inline_profile_says_what_custom_is():
    text = "meshspec: 1\nmesh: [1, 2]\nprofiles: {a: {base: custom}}\nprofile: {base: a}\n" + TAIL
    message = _error(text)
    # "profiles: {a: {base: " is 21 characters: custom at 3:22
    assert message.startswith("r.yaml:3:22: profiles.a.base: 'custom' is the name of the profile 'profile: {...}' defines, "), message
    assert "cannot be their base" in message


def test_listed_bounds_and_counts():
    from meshspec.errors import listed

    assert listed(["a", "b"]) == "a, b"
    assert listed([str(i) for i in range(25)]) == ", ".join(str(i) for i in range(20)) + " and 5 more"
    assert one_of([str(i) for i in range(25)], limit=None) == "one of: " + ", ".join(str(i) for i in range(25))


def test_did_you_mean_compares_a_bounded_number_of_choices():
    choices = [f"t{i}" for i in range(10_000)] + ["bfloat16"]
    assert did_you_mean("bfloat61", choices) == ""  # past the first 500: not compared
    assert did_you_mean("bfloat61", ["bfloat16", *choices[:10]]) == " (did you mean 'bfloat16'?)"
