"""Issue 34, "a scenario is data": every name a scenario holds is checked at load by the one rule
(meshspec/names.py: NAME, NAME_HELP), with a one-line error naming the file, line and column, the
bad value and the rule. Names reach file names (``hunt --out``), scripts (``export``), comments
and the terminal, so a name that breaks the rule never gets past the loader.

Profile names of the scenario's own (keys of ``profiles:``) may not be ``all`` or ``default``:
``--profile all`` runs every profile, and an expect block's ``default`` is what every profile
not named expects, so a profile of either name could never be asked for on its own.

Lines and columns are counted by hand from each template (the comments say how).
"""

from __future__ import annotations

import pytest

from cli_runner import invoke
from meshspec.errors import ScenarioError
from meshspec.names import MAX_NAME, NAME_HELP
from meshspec.scenario.loader import parse
from meshspec.scenario.schema import json_schema

RULE = NAME_HELP.split(": ", 1)[1]  # "a letter or _, then letters, ... (ASCII, at most 128 characters)"
HEAD = "meshspec: 1\nmesh: t3k\n"
ALLOC = "  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"

# Each place a name stands, as (template with BAD where the name goes, line, column of BAD).
PLACES = {
    # line 4: "  - allocate_tensor_on_device: {" is 32 characters, "as: " 4 more: BAD at 37
    "as": (HEAD + "steps:\n  - allocate_tensor_on_device: {as: BAD, shape: [1]}\n", 4, 37),
    # line 5: "  - deallocate: {" is 17 characters, "tensor: " 8 more: BAD at 26
    "a tensor used": (HEAD + "steps:\n" + ALLOC + "  - deallocate: {tensor: BAD}\n", 5, 26),
    # line 5: "  - combine_device_tensors: {" is 29 characters, "tensors: [" 10 more: BAD at 40
    "a list of uses": (HEAD + "steps:\n" + ALLOC + "  - combine_device_tensors: {tensors: [BAD], as: c}\n", 5, 40),
    # line 5: "  - begin_trace_capture: {" is 26 characters, "trace: " 7 more: BAD at 34
    "a trace": (HEAD + "steps:\n" + ALLOC + "  - begin_trace_capture: {trace: BAD}\n", 5, 34),
    # line 4: "  - create_submesh: {" is 21 characters, "shape: [1, 4], as: " 19 more: BAD at 41
    "a submesh": (HEAD + "steps:\n  - create_submesh: {shape: [1, 4], as: BAD}\n", 4, 41),
    # line 4: "  - allocate_tensor_on_device: {" 32, "shape: [1], mesh_device: " 25 more: BAD at 58
    "a mesh device used": (HEAD + "steps:\n  - allocate_tensor_on_device: {shape: [1], mesh_device: BAD, as: d}\n", 4, 58),
    # new in issue 34 -------------------------------------------------------------------------
    # line 4: "  " then the key: BAD at 3
    "a profile defined": (HEAD + "profiles:\n  BAD: {base: current}\nsteps:\n" + ALLOC, 4, 3),
    # line 3: "profile: " is 9 characters: BAD at 10
    "a profile used": (HEAD + "profile: BAD\nsteps:\n" + ALLOC, 3, 10),
    # line 4: "  mine: {" is 9 characters, "base: " 6 more: BAD at 16
    "a base": (HEAD + "profiles:\n  mine: {base: BAD}\nsteps:\n" + ALLOC, 4, 16),
    # line 3: "profile: {" is 10 characters, "base: " 6 more: BAD at 17
    "an inline base": (HEAD + "profile: {base: BAD}\nsteps:\n" + ALLOC, 3, 17),
    # line 7: "    " then the key: BAD at 5
    "an expect profile": (HEAD + "steps:\n" + ALLOC + "expect:\n  profiles:\n    BAD: {findings: []}\n", 7, 5),
    "an expect tensor": (HEAD + "steps:\n" + ALLOC + "expect:\n  tensors:\n    BAD: {storage: device}\n", 7, 5),
    # line 9: "        " then the key: BAD at 9
    "a profile's expect tensor": (
        HEAD + "steps:\n" + ALLOC + "expect:\n  profiles:\n    current:\n      tensors:\n        BAD: {storage: device}\n", 9, 9),
    # line 8: "      - {kind: stale, " is 22 characters, "tensor: " 8 more: BAD at 31
    "a finding's tensor": (
        HEAD + "steps:\n" + ALLOC + "expect:\n  profiles:\n    current:\n      findings:\n      - {kind: stale, tensor: BAD}\n", 9, 31),
}
NEW_IN_ISSUE_34 = ["a profile defined", "a profile used", "a base", "an inline base", "an expect profile", "an expect tensor",
                   "a profile's expect tensor"]

BAD = {
    "a path": "x/../../escaped",
    "a space": "'a b'",
    "not ASCII": "dst_é",
    "a digit first": "'2x'",
    "too long": "p" * (MAX_NAME + 1),
    "a shell word": "'$(id)'",
}


@pytest.mark.parametrize("bad", BAD.values(), ids=BAD.keys())
@pytest.mark.parametrize("place", PLACES, ids=PLACES)
def test_a_name_that_breaks_the_rule_is_refused_where_it_stands(place, bad):
    template, line, col = PLACES[place]
    text = template.replace("BAD", bad)
    with pytest.raises(ScenarioError) as info:
        parse(text, "n.yaml")
    message = str(info.value)
    assert "\n" not in message, message
    assert message.startswith(f"n.yaml:{line}:{col}: "), (message, text)
    value = bad.strip("'")
    assert (value if len(value) < 200 else value[:60]) in message, message  # the bad value, named
    assert RULE in message, message  # and the rule


@pytest.mark.parametrize("place", PLACES, ids=PLACES)
def test_the_longest_name_the_rule_allows_is_no_error_of_the_rule(place):
    """At exactly MAX_NAME characters a name is one: whatever else the loader says of it (an
    unknown tensor, an unknown profile), it is not that the name breaks the rule."""
    template, _, _ = PLACES[place]
    name = "p" * MAX_NAME
    try:
        parse(template.replace("BAD", name), "n.yaml")
    except ScenarioError as err:
        assert RULE not in str(err), str(err)


@pytest.mark.parametrize("reserved", ["all", "default"])
def test_all_and_default_cannot_name_a_profile_of_ones_own(reserved):
    with pytest.raises(ScenarioError) as info:
        parse(HEAD + f"profiles:\n  {reserved}: {{base: current}}\nsteps:\n" + ALLOC, "n.yaml")
    message = str(info.value)
    assert message.startswith("n.yaml:4:3: profiles: "), message
    assert f"{reserved!r} cannot name a profile of yours" in message
    # and it says why
    assert ("--profile all" in message) if reserved == "all" else ("every profile not named" in message), message


def test_a_dunder_or_dotted_profile_name_is_a_name():
    """The rule is the one rule: ``.``, ``-`` and a leading ``_`` are name characters (nothing
    pastes a name into code as text; meshspec/names.py)."""
    s = parse(HEAD + "profile: __init__\nprofiles:\n  __init__: {base: current}\n  a.b-c: {base: __init__}\nsteps:\n" + ALLOC, "n.yaml")
    assert list(s.profiles) == ["__init__", "a.b-c"] and s.profile == "__init__"


def test_the_schema_holds_the_rule_for_profile_names_and_expect_keys():
    import jsonschema

    validator = jsonschema.Draft202012Validator(json_schema())
    good = {"meshspec": 1, "mesh": "t3k", "steps": [{"cpu": {"tensor": "x"}}]}
    assert validator.is_valid({**good, "profiles": {"mine": {"base": "current"}}})
    assert not validator.is_valid({**good, "profiles": {"x/../y": {"base": "current"}}})
    assert not validator.is_valid({**good, "profiles": {"all": {"base": "current"}}})
    assert not validator.is_valid({**good, "expect": {"tensors": {"a b": {"storage": "device"}}}})
    assert validator.is_valid({**good, "expect": {"tensors": {"parts[0]": {"storage": "device"}}}})


def test_the_command_refuses_a_path_as_a_profile_name_in_one_line(tmp_path):
    path = tmp_path / "p.yaml"
    path.write_text(HEAD + "profiles:\n  x/../../escaped: {base: current}\nsteps:\n" + ALLOC, encoding="utf-8")
    result = invoke(["run", path, "--profile", "all"])
    assert result.exit_code == 2, (result.stdout, result.stderr)
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and f"{path}:4:3: profiles: " in lines[0] and "x/../../escaped" in lines[0], result.stderr


def test_the_quick_read_of_a_file_s_profiles_offers_only_names_the_loader_takes(tmp_path):
    """``check --profile X`` lists the profiles the files given define (a read without validating):
    a key that breaks the rule, or is reserved, is no choice to offer."""
    from meshspec.scenario.loader import defined_profiles

    path = tmp_path / "p.yaml"
    path.write_text(HEAD + 'profiles:\n  mine: {base: current}\n  "x/../y": {base: current}\n  all: {base: current}\n'
                    '  "a\\e[31m": {base: current}\nsteps:\n' + ALLOC, encoding="utf-8")
    assert defined_profiles(path) == ["mine"]
