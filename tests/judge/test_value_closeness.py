"""Value checks as model tests write them (docs/semantics.md section 21): ``comp_pcc(golden,
calculated, pcc)`` by tt-metal's own rules (models/common/utility_functions.py) and
``torch.allclose(input, other, rtol, atol, equal_nan)``, in ``expect``, with a failure that says
where and by how much the values differ."""

from pathlib import Path

import numpy as np
import pytest

from meshspec.check import check_file
from meshspec.errors import ScenarioError
from meshspec.judge.values import Compare, compare, pcc
from meshspec.runner import run
from meshspec.scenario.loader import load, parse

SCENARIO = Path(__file__).resolve().parents[2] / "scenarios" / "permute-composed-by-label.yaml"


# -- comp_pcc's rules, each from its source ---------------------------------------------------
def test_pcc_is_pearsons_correlation_of_the_flattened_values():
    a, b = np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([[1.0, 2.0], [4.0, 3.0]])
    # by hand: means 2.5; deviations (-1.5, -0.5, 0.5, 1.5) and (-1.5, -0.5, 1.5, 0.5): 4 / 5
    assert pcc(a, b) == pytest.approx(0.8)
    assert pcc(-a, a) == pytest.approx(-1.0)


def test_pcc_follows_comp_pcc_on_nan_zero_and_constant_tensors():
    nan = np.full(4, np.nan)
    assert pcc(nan, nan) == 1.0  # "Both tensors are 'nan'": passes
    assert pcc(nan, np.arange(4.0)) == 0.0  # one all NaN
    assert pcc(np.zeros(4), np.arange(4.0)) == 0.0  # one all zero, the other not
    assert pcc(np.zeros(4), np.zeros(4)) == 1.0  # equal
    # np.ma.corrcoef masks what a zero variance divides; comp_pcc takes the least unmasked entry
    # (the other tensor's own 1.0) or passes a fully masked matrix: a constant tensor passes
    assert pcc(np.full(4, 3.0), np.arange(4.0)) == 1.0
    assert pcc(np.full(4, 3.0), np.full(4, 2.0)) == 1.0
    # NaN and infinities count as 0 where they are
    assert pcc(np.array([1.0, np.inf, 3.0, 4.0]), np.array([1.0, 0.0, 3.0, 4.0])) == 1.0


def test_allclose_allows_atol_plus_rtol_times_the_others_magnitude():
    # |1 - 2| = 1 <= 0 + 0.5 * |2|: close; the other way, 1 > 0.5 * |1|: not (torch.allclose is not symmetric)
    assert compare(np.array([1.0]), np.array([2.0]), Compare("allclose", "o", rtol=0.5))["failing"] == 0
    assert compare(np.array([2.0]), np.array([1.0]), Compare("allclose", "o", rtol=0.5))["failing"] == 1
    inf_nan = np.array([np.inf, np.nan])
    assert compare(inf_nan, inf_nan, Compare("allclose", "o"))["failing"] == 1  # equal infinities are close, NaN is not
    assert compare(inf_nan, inf_nan, Compare("allclose", "o", equal_nan=True))["failing"] == 0


def test_the_worst_element_is_the_one_furthest_past_what_is_allowed():
    got = compare(np.array([10.0, 0.0, 100.0]), np.array([0.0, 1.0, 95.0]), Compare("allclose", "o", rtol=0.1, atol=0.5))
    # allowed 0.5, 0.6, 10.0: past by 9.5, 0.4, -5: two fail, the worst at index 0
    assert got["failing"] == 2 and got["worst"]["index"] == [0] and got["worst"]["allowed"] == 0.5


# -- in expect ----------------------------------------------------------------------------------
def _mismatches(profile: str, values: str) -> tuple:
    text = SCENARIO.read_text().split("\nexpect:")[0] + f"\nexpect:\n  tensors:\n    out: {{values: {values}}}\n"
    report = run(parse(text, SCENARIO), profile)
    return tuple(m for m in report.expect.mismatches if m.startswith("out: values"))


def test_a_failed_pcc_says_by_how_much_and_where_on_which_device():
    (message,) = _mismatches("auto-compose", "{pcc: {golden: golden, pcc: 0.99}}")
    # [S(2), S(3)] on 2x2: devices (0,0) and (1,1) hold the diagonal blocks, which a transpose keeps in
    # place; the off-diagonal blocks trade places, so only (0,1)'s and (1,0)'s 2 x 1024 elements can differ
    assert message.startswith("out: values: comp_pcc(golden, out) is ") and "below 0.99" in message
    assert 0.0 < float(message.split(" is ")[1].split(",")[0]) < 0.99
    failing = int(message.split("; ")[1].split(" of ")[0].replace(",", ""))
    assert 1900 < failing <= 2048 and " of 4,096 elements differ" in message
    worst = message.split("the worst at ")[1]
    index = [int(x) for x in worst.split("]")[0].strip("[").split(",")]
    device = "(0,1)" if index[2] < 32 else "(1,0)"
    assert (index[2] < 32) != (index[3] < 32) and worst.startswith(f"{index} on device {device}: ".replace(" ", " "))


def test_a_failed_allclose_names_the_tolerance_and_what_was_allowed():
    (message,) = _mismatches("auto-compose", "{allclose: {other: golden, rtol: 1e-2, atol: 1e-2}}")
    assert message.startswith("out: values: not allclose to golden (rtol=0.01, atol=0.01): ")
    assert "elements differ; the worst at [0, 0, " in message and ", allowed " in message


def test_equals_says_where_values_differ_not_the_first_values():
    (message,) = _mismatches("auto-compose", "{equals: golden}")
    # the first values are in the diagonal block (0,0), equal in both: showing them said nothing
    assert "first" not in message and "elements differ; the worst at" in message and "on device (" in message


def test_the_fixed_era_passes_the_checks_a_model_test_writes():
    assert _mismatches("labels-fixed", "{pcc: {golden: golden, pcc: 0.999}, allclose: {other: golden, rtol: 0, atol: 0}, equals: golden}") == ()


def test_the_bundled_scenario_checks_clean_under_each_profile_it_names():
    assert [r.outcome for r in check_file(SCENARIO)] == ["PASS"] * 3


@pytest.mark.parametrize("values, where, said", [
    ("{pcc: {golden: nope}}", "8:34", "unknown tensor 'nope'"),
    ("{allclose: {other: golden, rtol: -1}}", "8:52", "rtol: -1 is below"),
    ("{pcc: {golden: golden, pcc: 2}}", "8:47", "pcc: 2 is above"),
    ("{allclose: {other: {tensor: golden, slice: '[0:'}}}", "8:62", "is not a slice"),
])
def test_a_bad_value_check_is_one_line_with_its_place(values, where, said):
    text = ("meshspec: 1\nmesh: t3k\nsteps:\n  - from_torch: {as: golden, shape: [1, 1, 32, 32]}\n"
            "  - to_torch: {tensor: golden, as: out}\nexpect:\n  tensors:\n"
            f"    out: {{values: {values}}}\n")
    with pytest.raises(ScenarioError) as err:
        parse(text, Path("v.yaml"))
    line = str(err.value)
    assert line.startswith(f"v.yaml:{where}: ") and said in line and "\n" not in line, line
