"""Issue 34, section 3, third item: a scenario's own profiles (``profiles:``) say what is wrong.

A cycle of bases (``a: {base: b}``, ``b: {base: a}``) was reported as "unknown base profile 'b'",
with choices that left out the scenario's own profiles; a base defined later in the file was
unknown too. Now a base may be any profile, meshspec's or the scenario's, before or after; a cycle
is said as one, and an unknown base lists every choice.

Lines and columns are counted by hand: "  a: {base: " is 12 characters, so a base written so is
at column 13.
"""

from __future__ import annotations

import pytest

from meshspec.errors import ScenarioError
from meshspec.runner import run
from meshspec.scenario.loader import parse
from meshspec.sim.profiles import PROFILES

HEAD = "meshspec: 1\nmesh: t3k\n"
STEPS = "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"


def _error(text: str) -> str:
    with pytest.raises(ScenarioError) as info:
        parse(text, "p.yaml")
    message = str(info.value)
    assert "\n" not in message, message
    return message


@pytest.mark.parametrize(
    "profiles, where, cycle",
    [
        ("  a: {base: b}\n  b: {base: a}\n", "p.yaml:4:13: profiles.a.base", "a -> b -> a"),
        ("  a: {base: a}\n", "p.yaml:4:13: profiles.a.base", "a -> a"),
        # x leads into the cycle without being in it: the cycle is a -> b -> c -> a, said at a (line 5)
        ("  x: {base: a}\n  a: {base: b}\n  b: {base: c}\n  c: {base: a}\n", "p.yaml:5:13: profiles.a.base", "a -> b -> c -> a"),
    ],
)
def test_a_cycle_of_bases_is_said_as_a_cycle(profiles, where, cycle):
    message = _error(HEAD + "profiles:\n" + profiles + STEPS)
    assert message.startswith(where + ": "), message
    assert f"profile cycle: {cycle};" in message, message
    assert "unknown" not in message, message
    for name in PROFILES:  # where a chain must end
        assert name in message, message


def test_an_unknown_base_lists_meshspec_s_profiles_and_the_scenario_s_own():
    message = _error(HEAD + "profiles:\n  a: {base: mien}\n  mine: {base: current}\n  later: {base: a}\n" + STEPS)
    assert message.startswith("p.yaml:4:13: profiles.a.base: unknown base profile 'mien' (did you mean 'mine'?); one of: "), message
    choices = message.split("one of: ", 1)[1].split(", ")
    assert choices == [*PROFILES, "a", "mine", "later"], choices


def test_an_inline_profile_s_unknown_base_lists_the_scenario_s_own_too():
    # line 5: "profile: {base: " is 16 characters: the base at 17
    message = _error(HEAD + "profiles:\n  mine: {base: current}\nprofile: {base: mien}\n" + STEPS)
    assert message.startswith("p.yaml:5:17: profile.base: unknown base profile 'mien' (did you mean 'mine'?); one of: "), message
    assert message.endswith(", mine"), message


def test_a_base_defined_later_in_the_file_is_a_base():
    s = parse(HEAD + "profile: a\nprofiles:\n  a: {base: b, copy: exact}\n  b: {base: uniform-by-value, mapper: equal_shards}\n" + STEPS, "p.yaml")
    assert list(s.profiles) == ["a", "b"]  # the file's order
    a = s.profiles["a"]
    assert (a.base, a.copy.value, a.mapper_rule.value) == ("b", "exact", "equal_shards")  # b's rule, a's own change
    assert a.allocation == PROFILES["uniform-by-value"].allocation
    assert run(s).profile == "a"


def test_custom_cannot_name_a_profile_when_profile_defines_one_inline():
    """``profile: {...}`` is named custom: a ``profiles: {custom: ...}`` beside it was silently replaced."""
    message = _error(HEAD + "profiles:\n  custom: {base: current, copy: exact}\nprofile: {base: custom}\n" + STEPS)
    assert message.startswith("p.yaml:4:3: profiles.custom: 'custom' is the name of the profile"), message
    # without an inline profile, custom is a name like any other
    s = parse(HEAD + "profiles:\n  custom: {base: current, copy: exact}\nprofile: custom\n" + STEPS, "p.yaml")
    assert s.profile == "custom" and s.profiles["custom"].copy.value == "exact"


def test_a_long_chain_of_bases_is_made_in_one_pass():
    """256 profiles (the most a scenario defines), each based on the next, written first to last: each made once, after its base."""
    n = 255
    lines = "".join(f"  p{i}: {{base: p{i + 1}}}\n" for i in range(n)) + f"  p{n}: {{base: current, copy: exact}}\n"
    s = parse(HEAD + "profile: p0\nprofiles:\n" + lines + STEPS, "p.yaml")
    assert s.profiles["p0"].copy.value == "exact" and len(s.profiles) == n + 1
