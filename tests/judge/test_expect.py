"""The expect block: loading it (names checked with file:line:column) and checking a run against it."""

from pathlib import Path

import pytest

from conftest import make_scenario
from meshspec.errors import ScenarioError
from meshspec.judge.expect import check, named_profiles
from meshspec.runner import run
from meshspec.scenario.loader import parse

SEED_STEPS = """\
steps:
  - allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}
  - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
  - copy_host_to_device_tensor: {src: src, dst: dst}
"""


def seed(expect: str, profile: str = "uniform-by-value"):
    text = "meshspec: 1\nmesh: t3k\n" + SEED_STEPS + expect
    return run(parse(text, "seed.yaml"), profile)


# docs/semantics.md section 1: the seed's stale device is (1,3), recorded by the allocation (step 0).
def test_exact_findings_pass():
    r = seed("expect:\n  profiles:\n    uniform-by-value:\n      findings: [{kind: stale, tensor: dst, device: [1, 3], step: 0}]\n")
    assert r.expect.passed, r.expect.mismatches


def test_wrong_device_fails_both_ways():
    r = seed("expect:\n  profiles:\n    uniform-by-value:\n      findings: [{kind: stale, device: [1, 2]}]\n")
    assert not r.expect.passed
    assert r.expect.mismatches == (
        "unexpected finding: stale dst (1,3) (step 0): " + r.findings[0].message,
        "missing finding {kind: stale, device: [1, 2]}",
    )


def test_pattern_keys_are_partial():
    r = seed("expect:\n  profiles:\n    uniform-by-value:\n      findings: [{kind: stale}]\n")
    assert r.expect.passed


def test_default_applies_to_unnamed_profiles_and_absence_means_clean():
    text = "expect:\n  profiles:\n    default:\n      findings: [{kind: stale}]\n"
    assert seed(text, "uniform-by-value").expect.passed
    assert not seed(text, "current").expect.passed  # default says stale; current is clean
    only_ubv = "expect:\n  profiles:\n    uniform-by-value:\n      findings: [{kind: stale}]\n"
    assert seed(only_ubv, "current").expect.passed  # no entry, no default: expect clean, and it is
    assert named_profiles(parse("meshspec: 1\nmesh: t3k\n" + SEED_STEPS + only_ubv).expect) == ["uniform-by-value"]


def test_error_expectations():
    steps = "steps:\n  - from_torch: {as: h, shape: [1, 9, 32, 32], mesh_mapper: {shard: 1}}\n"
    base = "meshspec: 1\nmesh: t3k\n" + steps
    ok = run(parse(base + "expect:\n  profiles:\n    current: {error: Shard shape mismatch}\n"), "current")
    assert ok.expect.passed
    wrong = run(parse(base + "expect:\n  profiles:\n    current: {error: dims must be unique}\n"), "current")
    assert wrong.expect.mismatches[0].startswith("error at step 0 (from_torch) does not contain 'dims must be unique'")
    unexpected = run(parse(base), "current")
    assert unexpected.expect is None  # no expect block: run shows nothing
    assert check(unexpected.to_json(), None).mismatches[0].startswith("unexpected error at step 0 (from_torch): Shard shape")
    none = run(parse(base + "expect:\n  profiles:\n    uniform-by-value: {error: Shard}\n"), "uniform-by-value")
    assert none.expect.mismatches == ("expected an error containing 'Shard'; the run had none",)


def test_tensor_expectations_name_device_and_field():
    text = """\
expect:
  tensors:
    dst:
      recorded: [[0, 0], [0, 1], [0, 2], [0, 3], [1, 0], [1, 1], [1, 2]]
      shape: [1, 1, 32, 32]
      devices: {"[1, 3]": {recorded: false, status: empty, written_bytes: 0}}
"""
    assert seed(text, "current").expect.passed
    r = seed(text, "uniform-by-value")
    assert r.expect.mismatches == (
        "unexpected finding: stale dst (1,3) (step 0): " + r.findings[0].message,
        "dst: recorded devices differ (also recorded: (1,3))",
        "dst (1,3): recorded: expected false, got true",
        "dst (1,3): status: expected empty, got stale",
    )


def test_profile_tensors_override_top_level():
    text = """\
expect:
  profiles:
    uniform-by-value:
      findings: [{kind: stale}]
      tensors:
        dst: {devices: {"[1, 3]": {recorded: true}}}
  tensors:
    dst: {devices: {"[1, 3]": {recorded: false}}}
"""
    assert seed(text, "uniform-by-value").expect.passed
    assert seed(text, "reference").expect.passed


@pytest.mark.parametrize(
    "expect, line, col, message",
    [
        ("expect:\n  profiles:\n    curent: {findings: []}\n", 9, 5, "unknown profile 'curent' (did you mean 'current'?)"),
        ("expect:\n  tensors:\n    dts: {shape: [1]}\n", 9, 5, "unknown tensor 'dts' (did you mean 'dst'?)"),
        ('expect:\n  tensors:\n    dst: {devices: {"[2, 0]": {recorded: true}}}\n', 9, 21, "device [2, 0] is not on the mesh [2, 4]"),
        ('expect:\n  tensors:\n    dst: {devices: {"x": {recorded: true}}}\n', 9, 21, "'x' is not a device coordinate"),
        ("expect:\n  profiles:\n    default: {findings: [{kind: stail}]}\n", 9, 33, "unknown value 'stail' (did you mean 'stale'?)"),
        ("expect:\n  profiles:\n    default: {findings: [{device: [1, 4]}]}\n", 9, 35, "device [1, 4] is not on the mesh"),
        ("expect:\n  profiles:\n    default: {finding: []}\n", 9, 15, "unknown key 'finding'"),
        ("expect:\n  profiles:\n    default: {findings: [{tensor: dts}]}\n", 9, 35, "findings[0]: unknown tensor 'dts' (did you mean 'dst'?)"),
        ("expect:\n  profiles:\n    default: {findings: [{kind: stale}, {tensor: dst, device: [1]}]}\n", 9, 63,
         "findings[1].device: device [1] is not on the mesh [2, 4]"),
        ("expect:\n  profiles:\n    default: {findings: [{device: [0, -1]}]}\n", 9, 35, "device [0, -1] is not on the mesh"),
        ("expect:\n  profiles:\n    default: {tensors: {dts: {shape: [1]}}}\n", 9, 25, "profiles.default.tensors: unknown tensor 'dts'"),
        ("expect:\n  tensors:\n    dst: {recorded: [[0, 1], [0, 9]]}\n", 9, 30, "dst.recorded[1]: device [0, 9] is not on the mesh"),
        ("expect:\n  tensors:\n    dst: {values: {equals: {tensor: srx}}}\n", 9, 37, "values.equals: unknown tensor 'srx' (did you mean 'src'?)"),
        ("expect:\n  tensors:\n    dst: {values: {equals: {tensor: src, slice: '[:'}}}\n", 9, 49, "equals.slice: '[:' is not a slice"),
        ("expect:\n  tensors:\n    'dst[0]': {shape: [1]}\n", 9, 5, "unknown tensor 'dst[0]' (did you mean 'dst'?)"),
    ],
)
def test_invalid_expect_is_a_scenario_error(expect, line, col, message):
    # lines 1-2 header, 3-6 steps, 7 'expect:', so the entry under it is line 9
    with pytest.raises(ScenarioError) as err:
        parse("meshspec: 1\nmesh: t3k\n" + SEED_STEPS + expect, "s.yaml")
    assert (err.value.line, err.value.column) == (line, col), str(err.value)
    assert message in err.value.message


def test_run_json_shows_the_expect_result():
    r = seed("expect:\n  profiles:\n    uniform-by-value: {findings: []}\n")
    data = r.to_json()["expect"]
    assert data["passed"] is False and data["mismatches"][0].startswith("unexpected finding: stale dst (1,3)")
    assert make_scenario([{"from_torch": {"as": "h", "shape": [2]}}]).expect is None


BUNDLED = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


@pytest.mark.parametrize("index", range(len(BUNDLED)), ids=[p.stem for p in BUNDLED])
def test_a_report_is_checked_as_its_whole_json_is(index):
    """check_report makes JSON of only what an expect block reads (Report.checked_json): under
    every profile of every bundled scenario, with the tensors reported or not, its entries are the
    whole JSON's and it finds the same mismatches, in the same order, as check of the whole JSON,
    against the scenario's own expect block (which passes), none (a clean run expected) and the
    next scenario's (tensors and findings it does not have)."""
    from meshspec.judge.expect import check_report
    from meshspec.scenario.loader import load
    from meshspec.sim.profiles import PROFILES

    scenario, other = load(BUNDLED[index]), load(BUNDLED[(index + 1) % len(BUNDLED)])
    for profile in [*PROFILES, *scenario.profiles]:
        for tensors in (True, False):
            report = run(scenario, profile, trace=False, tensors=tensors)
            whole = report.to_json()
            part = report.checked_json({t.name for t in report.tensors})
            assert part == {key: whole[key] for key in part}
            for expect in (scenario.expect, None, other.expect):
                assert check_report(report, expect) == check(whole, expect), (profile, tensors)


def test_checked_json_holds_the_tensors_named_only():
    report = seed("")
    assert [t["name"] for t in report.checked_json({"src", "elsewhere"})["tensors"]] == ["src"]
    assert report.checked_json(set())["tensors"] == []


def test_full_patterns_match_as_partial_ones_do():
    """A pattern giving every key (matched without a loop over the key names) matches what the
    same keys given in a smaller group match: the device compared as a coordinate, not a list."""
    from meshspec.judge.expect import _check_findings
    from meshspec.scenario.model import FindingExpect
    from meshspec.typed import validate

    found = [{"kind": "stale", "tensor": "dst", "device": [1, 3], "step": 0, "message": "m"},
             {"kind": "data_mismatch", "tensor": "dst", "device": None, "step": 3, "message": "n"}]

    def pattern(**keys):
        return validate(FindingExpect, keys)

    full = pattern(kind="stale", tensor="dst", device=[1, 3], step=0)
    assert _check_findings(found, [full, pattern(kind="data_mismatch", step=3)]) == []
    assert _check_findings(found, [full, pattern(kind="data_mismatch", tensor="dst", step=3)]) == []
    wrong = pattern(kind="stale", tensor="dst", device=[1, 2], step=0)
    assert _check_findings(found, [wrong, pattern(kind="data_mismatch")]) == [
        "unexpected finding: stale dst (1,3) (step 0): m",
        "missing finding {kind: stale, tensor: dst, device: [1, 2], step: 0}",
    ]
