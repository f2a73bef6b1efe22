"""Thresholds of the value checks are numbers in their range, refused at load otherwise (one line,
file:line:col), and ``equals`` is ``torch.equal``: NaN equals nothing (docs/semantics.md section 21;
issue 36's new-user trial: trial/adversarial-pcc-nan-threshold.yaml)."""

from pathlib import Path

import pytest

from meshspec.check import check_file
from meshspec.errors import ScenarioError
from meshspec.scenario.loader import parse

TEXT = """meshspec: 1
name: t
mesh: t3k
steps:
  - from_torch: {as: g, shape: [1, 1, 32, 256], dtype: float32, data: {random: 1}}
  - from_torch: {as: x, shape: [1, 1, 32, 256], dtype: bfloat4_b, data: {random: 1}, mesh_mapper: {shard: 3}, device: mesh_device}
  - to_torch: {tensor: x, mesh_composer: {concat: 3}, as: out}
expect:
  tensors:
    out: {values: CHECK}
"""


@pytest.mark.parametrize("check, said", [
    # comp_pcc passes on cal_pcc >= pcc: never with NaN, so a NaN threshold can only fail: refused
    ("{pcc: {golden: g, pcc: .nan}}", "pcc.pcc: nan is not a number; expected a number from -1 to 1"),
    ("{pcc: {golden: g, pcc: '0.99'}}", "pcc.pcc: expected an integer or a number, got '0.99'"),
    ("{pcc: {golden: g, pcc: nan}}", "pcc.pcc: expected an integer or a number, got 'nan'"),
    ("{pcc: {golden: g, pcc: 1.5}}", "pcc.pcc: 1.5 is above the largest allowed, 1 (valid: -1 to 1)"),
    ("{allclose: {other: g, rtol: .nan}}", "allclose.rtol: nan is not a number; expected a number from 0"),
    ("{allclose: {other: g, atol: .NaN}}", "allclose.atol: nan is not a number; expected a number from 0"),
    ("{allclose: {other: g, atol: '1.0'}}", "allclose.atol: expected an integer or a number, got '1.0'"),
])
def test_a_threshold_that_is_no_number_in_its_range_is_refused_at_load(check, said):
    with pytest.raises(ScenarioError) as err:
        parse(TEXT.replace("CHECK", check), Path("t.yaml"))
    line = str(err.value)
    assert line.startswith("t.yaml:10:") and f"expect.tensors.out.values.{said}" in line and "\n" not in line, line


def test_a_threshold_yaml_reads_as_text_but_is_plainly_a_number_is_taken():
    # YAML 1.1 reads 1e-2 and 9e-1 (no dot) as text: the numbers they plainly are
    s = parse(TEXT.replace("CHECK", "{pcc: {golden: g, pcc: 9e-1}, allclose: {other: g, rtol: 1e-2}}"), Path("t.yaml"))
    v = s.expect.tensors["out"].values
    assert v.pcc.pcc == 0.9 and v.allclose.rtol == 0.01


EQUAL = """meshspec: 1
name: e
mesh: n150
steps:
  - from_torch: {as: g, shape: [1, 1, 32, 32], dtype: DTYPE, data: {fill: FILL}}
  - from_torch: {as: x, shape: [1, 1, 32, 32], dtype: DTYPE, data: {fill: FILL}}
expect:
  tensors:
    x: {values: {equals: g}}
"""


@pytest.mark.parametrize("dtype", ["float32", "bfloat16"])
def test_equals_is_torch_equal_nan_equals_nothing_and_the_failure_says_so(dtype, tmp_path):
    # torch.equal(t, t) is False for a tensor holding NaN (NaN != NaN); the same bytes are not enough
    path = tmp_path / "e.yaml"
    path.write_text(EQUAL.replace("DTYPE", dtype).replace("FILL", ".nan"))
    [result] = check_file(path)
    assert result.outcome == "FAIL", result
    said = " ".join(result.details)
    assert ("x: values: expected the values of g; 1,024 of 1,024 elements differ; the worst at [0, 0, 0, 0]: nan, "
            "expected nan (difference nan); 1,024 of them NaN on both sides (torch.equal: NaN equals nothing)") in said, said
    path.write_text(EQUAL.replace("DTYPE", dtype).replace("FILL", "2.5"))  # the same values, no NaN: equal
    assert [r.outcome for r in check_file(path)] == ["PASS"]
