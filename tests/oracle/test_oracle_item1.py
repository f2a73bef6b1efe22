"""Issue 35 item 1 as a regression case (tests/oracle/item1-row0-gather.yaml): x on row 0 only of
a T3K, all_gather(x, dim=3, cluster_axis=1) on every device of the mesh (ttnn's CCLs take their
devices from the mesh, tt-metal issue #31845; docs/semantics.md section 12), so each row-1 device
of y gathers row 1's never-written memory."""

import re
from pathlib import Path

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import load
from oracle_diff import PROFILE_NAMES, check

PATH = Path(__file__).parent / "item1-row0-gather.yaml"
ROW0, ROW1 = [(0, j) for j in range(4)], [(1, j) for j in range(4)]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="issue 35 item 1: meshspec misses the four never-written reads of y's row 1")
def test_the_oracle_agrees_with_meshspec(profile):
    """Today the oracle's only disagreements here are y's row-1 devices, each a missed stale_input
    whose input device is unrecorded and never written (tests/oracle/test_oracle_naive.py works the
    reads out by hand)."""
    steps = yaml.safe_load(PATH.read_text())["steps"]
    out = check(load(PATH), steps, profile)
    assert out.disagreements == []


def _named_input(f):
    m = re.search(r"read (\S+) \((\d+), (\d+)\)", f.message)
    return (m.group(1), (int(m.group(2)), int(m.group(3)))) if m else None


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="issue 35 item 1: meshspec says ok; the lead's provenance change names the never-written read")
def test_meshspec_names_output_input_op_and_step(profile):
    report = run(load(PATH), profile)
    found = {f.device: f for f in report.findings if f.kind.value == "stale_input" and f.tensor == "y"}
    assert sorted(found) == ROW1  # row 0 read written memory only
    for c, f in found.items():
        assert (f.step, f.op) == (1, "all_gather")
        name, device = _named_input(f)
        assert name == "x" and device in ROW1, f.message
