"""Issue 35 item 1 as a regression case (tests/oracle/item1-row0-gather.yaml): x on row 0 only of
a T3K, all_gather(x, dim=3, cluster_axis=1). ttnn's CCLs take their devices from the mesh (tt-metal
issue #31845; docs/semantics.md section 12, "Which devices a collective runs on": ccl_devices
``mesh``, every profile but the reference), so each row-1 device of y gathers row 1's
never-written memory, which x's topology does not list: a stale_input, the runtime's doing, not an
uninitialized_read. The reference (ccl_devices ``tensor``) cuts each group to x's row 0: nothing is
read on row 1 and y is recorded on row 0 only. The oracle's view of it: test_oracle_naive.py (the
reads worked out by hand) and test_oracle_cases.py (the kinds, per profile)."""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import load
from oracle_diff import PROFILE_NAMES, READ_KINDS, _input_named

PATH = Path(__file__).parent / "item1-row0-gather.yaml"
ROW0, ROW1 = [(0, j) for j in range(4)], [(1, j) for j in range(4)]


@pytest.mark.parametrize("profile", [p for p in PROFILE_NAMES if p != "reference"])
def test_meshspec_names_output_input_op_and_step(profile):
    report = run(load(PATH), profile)
    found = {f.device: f for f in report.findings if f.kind.value in READ_KINDS and f.tensor == "y"}
    assert sorted(found) == ROW1  # row 0 read written memory only
    for c, f in found.items():
        assert f.kind.value == "stale_input", f.message
        assert (f.step, f.op) == (1, "all_gather")
        named = _input_named(f.message)
        assert named is not None and named[0] == "x" and named[1] in ROW1, f.message


def test_the_reference_gathers_over_the_tensors_devices_only():
    report = run(load(PATH), "reference")
    assert [f for f in report.findings if f.kind.value in READ_KINDS] == []
    y = next(t for t in report.tensors if t.name == "y")
    assert sorted(v.coord for v in y.devices if v.recorded) == ROW0
