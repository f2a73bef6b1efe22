"""The rule partial_copy (docs/semantics.md section 23): ttnn 0.66.0 and 0.67.0 have no
copy_host_to_device_tensor_partial (their bindings lack the name; tests_ttnn/test_export.py checks
meshspec/bridge/export.py ABSENT_IN on each version), so their profiles refuse the step as the call
would fail there, and write nothing."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import load

SCENARIO = Path(__file__).parents[2] / "scenarios" / "partial-core-write.yaml"


@pytest.mark.parametrize("profile", ["ttnn-0.67.0", "ttnn-0.66.0"])
def test_the_older_versions_have_no_partial_copy(profile):
    report = run(load(SCENARIO), profile)
    assert report.error.message.startswith("module 'ttnn' has no attribute 'copy_host_to_device_tensor_partial'")
    assert report.error.op == "copy_host_to_device_tensor_partial" and not report.error.crash
    assert not [f for f in report.findings if f.kind.value == "partial"]


def test_current_writes_the_filtered_cores():
    report = run(load(SCENARIO), "current")
    assert report.error.message.startswith("copy_to_device_filtered does not support non-uniform host->device writes.")
    assert [f for f in report.findings if f.kind.value == "partial"]


def test_a_rule_left_null_names_the_rule_and_its_choices(tmp_path):
    """``host_buffer_shape: null`` in a profile: one line naming the rule, that no choice was given,
    the choices and the hint (a tester saw ``unknown choice None``)."""
    from meshspec.errors import MeshspecError
    from meshspec.scenario.loader import parse

    text = ("meshspec: 1\nname: b\nmesh: t3k\nprofile: {base: ttnn-0.66.0, host_buffer_shape: null}\n"
            "steps:\n  - {from_torch: {as: h, shape: [1, 1, 32, 32]}}\n")
    with pytest.raises(MeshspecError) as err:
        parse(text, tmp_path / "b.yaml")
    said = str(err.value)
    assert "host_buffer_shape: no choice given (null); one of: coords, same_shape" in said and "None" not in said
