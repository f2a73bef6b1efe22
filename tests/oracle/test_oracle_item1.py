"""Issue 35 item 1 as a regression case (tests/oracle/item1-row0-gather.yaml): x on row 0 only of
a T3K, all_gather(x, dim=3, cluster_axis=1) on every device of the mesh (ttnn's CCLs take their
devices from the mesh, tt-metal issue #31845; docs/semantics.md section 12), so each row-1 device
of y gathers row 1's never-written memory. The oracle's view of it: test_oracle_naive.py (the reads
worked out by hand) and test_oracle_cases.py (the disagreement, per profile)."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import load
from oracle_diff import PROFILE_NAMES, _input_named

PATH = Path(__file__).parent / "item1-row0-gather.yaml"
ROW1 = [(1, j) for j in range(4)]


@pytest.mark.parametrize("profile", PROFILE_NAMES)
@pytest.mark.xfail(strict=True, raises=AssertionError, reason="issue 35 item 1: meshspec says ok; the lead's provenance change names the never-written read")
def test_meshspec_names_output_input_op_and_step(profile):
    report = run(load(PATH), profile)
    found = {f.device: f for f in report.findings if f.kind.value == "stale_input" and f.tensor == "y"}
    assert sorted(found) == ROW1  # row 0 read written memory only
    for c, f in found.items():
        assert (f.step, f.op) == (1, "all_gather")
        named = _input_named(f.message)
        assert named is not None and named[0] == "x" and named[1] in ROW1, f.message
