"""Profiles as named rules (meshspec/sim/profiles.py; docs/semantics.md section 6)."""

import pytest

from cli_runner import invoke
from meshspec.errors import UsageError
from meshspec.sim.profiles import PROFILES, RULES, define, source_only


def test_every_rule_has_every_choice_explained_and_every_profile_sets_it():
    for rule in RULES.values():
        assert set(rule.meanings) == {c.value for c in rule.choices}, rule.name
        assert all(m.strip() for m in rule.meanings.values())
    for p in PROFILES.values():
        assert set(p.rules()) == set(RULES)


def test_a_defined_profile_changes_only_what_it_says():
    p = define("mine", "uniform-by-value", {"copy": "current"})
    base = PROFILES["uniform-by-value"].rules()
    assert p.rules() == {**base, "copy": "current"} and p.base == "uniform-by-value"


@pytest.mark.parametrize(
    "changes, words",
    [({"copie": "current"}, "unknown rule 'copie' (did you mean 'copy'?)"), ({"copy": "by_ref"}, "copy: unknown choice 'by_ref'")],
)
def test_bad_rules_and_choices_are_named(changes, words):
    with pytest.raises(UsageError) as err:
        define("mine", "current", changes)
    assert words in str(err.value)


def test_profiles_command_lists_rules_by_profile(tmp_path):
    res = invoke(["profiles"], env={"COLUMNS": "400"})  # one table: every profile side by side
    assert res.exit_code == 0
    header = res.stdout.splitlines()[0].split()
    assert header == ["rule", *PROFILES]
    row = next(line for line in res.stdout.splitlines() if line.startswith("copy "))
    assert row.split() == ["copy", *(p.copy.value for p in PROFILES.values())]
    assert "PR #53481" in res.stdout  # each choice with its source


def test_profiles_command_shows_a_scenarios_own(tmp_path):
    path = tmp_path / "s.yaml"
    path.write_text(
        "meshspec: 1\nmesh: t3k\nprofiles:\n  mine: {base: current, copy: exact}\n"
        "steps:\n  - allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}\n"
    )
    res = invoke(["profiles", str(path)], env={"COLUMNS": "400"})
    assert res.exit_code == 0 and res.stdout.splitlines()[0].split()[-1] == "mine"
    assert "mine: current with copy exact (changes current)" in res.stdout


@pytest.mark.parametrize("rules, padded", [
    ("ccl_padding: padded", {"ga"}),
    ("gather_padding: padded", {"g"}),
    ("ccl_padding: padded, gather_padding: padded", {"g", "ga"}),
])
def test_ccl_padding_governs_all_gather_async_and_gather_padding_all_gather(tmp_path, rules, padded):
    # issue 35 item 4: a user profile with ccl_padding: padded changed all_gather_async but silently
    # not all_gather; issue 36 item 9: ttnn.all_gather gathered padding too, in eras of its own
    # (2024, issue #11013), so it has a rule of its own (docs/semantics.md sections 12 and 22)
    path = tmp_path / "s.yaml"
    path.write_text(
        f"meshspec: 1\nmesh: t3k\nprofile: {{base: current, {rules}}}\nsteps:\n"
        "  - from_torch: {as: x, shape: [1, 1, 32, 200], mesh_mapper: {shard: 3}, device: mesh_device}\n"
        "  - all_gather: {tensor: x, dim: 3, as: g}\n"
        "  - all_gather_async: {tensor: x, dim: 3, as: ga}\n"
    )
    res = invoke(["run", str(path), "--format", "json"])
    import json

    report = json.loads(res.stdout)
    shapes = {t["name"]: t["devices"][0]["spec"]["shape"] for t in report["tensors"] if t["name"] in ("g", "ga")}
    # 25 columns a device, padded to 32 by the padded choice
    assert shapes == {n: [1, 1, 32, 256 if n in padded else 200] for n in ("g", "ga")}
    assert {f["tensor"] for f in report["findings"] if f["kind"] == "padding_gathered"} == padded
    listing = invoke(["profiles"]).stdout
    assert "ccl_padding: what all_gather_async does with tile padding (ttnn.all_gather: gather_padding)" in listing
    assert "gather_padding: what ttnn.all_gather does with tile padding" in listing


def test_profiles_command_comes_in_parts_that_fit_the_width():
    """At 80 columns the nine profiles come as tables of as many columns as fit, each with the rule
    column, every profile once (the one table was 198 columns wide)."""
    res = invoke(["profiles"], env={"COLUMNS": "80"})
    lines = res.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80
    heads = [line.split()[1:] for line in lines if line.startswith("rule ")]
    assert len(heads) > 1 and [p for head in heads for p in head] == list(PROFILES)
    rows = [line for line in lines if line.startswith("copy ")]
    assert [c for row in rows for c in row.split()[1:]] == [p.copy.value + ("*" if p.verified_by and "copy" in source_only(p) else "")
                                                            for p in PROFILES.values()]
