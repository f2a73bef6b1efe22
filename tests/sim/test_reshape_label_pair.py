"""The reshape view's topology_stale appears in one case and not in an equivalent one (issue 35, list
item 4; docs/semantics.md section 12, "A reshape's or view's layout").

A (1, 64, 32, 64) tensor sharded on dim 1 over a T3K's 8 devices holds (1, 8, 32, 64) on each. Both
reshapes below are views in TILE layout (the last two dims stay) and both move the sharded dim; ttnn
0.81.1 keeps the label ``PlacementShard(1)`` for both (the default imputation, PR #29899):

- to (8, 32, 64): the sharded dim becomes dim 0, the data is ``Shard(0)``, and meshspec reports the
  kept ``Shard(1)`` as topology_stale;
- to (2, 4, 32, 64): the sharded dim is split in two, each device's 8 rows become 2 x 4: composing
  along dim 1 interleaves the devices' rows, but along dim 0 it gives the whole tensor reshaped to
  (16, 4, 32, 64) (the split dim is the outermost, so each device's part is one block of dim 0), so
  the data is ``Shard(0)`` and the kept ``Shard(1)`` is as stale (a tester's defect on issue 36: the
  rule first said no placement describes it);
- a tensor with an outer dim of 2 before the sharded one, (2, 64, 32, 64), each device's (2, 8, 32, 64)
  reshaped to (16, 32, 64): the sharded dim merges with dim 0 outside it and no placement describes
  the data; the label ``Shard(1)`` lies as much, and meshspec said nothing.

Diagnosis (fixed in views.reshape/view through output.per_device's ``unplaced``; as it was): ``placements_of`` (renumber_reshape) returns None when the
reshape splits or merges the sharded dim with another, and then
``judged = (truth, step, op) if moved is not None or (real is None and rec.truth is not None) else None``
is None: the output carries no ``Record.truth``, so the judge has no layout to compare the label with,
and ``Record.layout()`` hands the stale label to every later op as if it were the data's layout (the
reference even labels the output with it: ``truth`` falls back to ``real.placements`` unchanged). The
fix: when ``real`` is not None, has a Shard, and ``moved`` is None, set the output's truth to
``(None, rt.step, rt.op)`` (no layout describes the data) and its ``dishonest`` reason ("reshape
(1, 8, 32, 64) -> (2, 4, 32, 64) splits the sharded dim 1: no placement describes the data"), so the
label is topology_stale in every profile that keeps a Shard there, as the (8, 32, 64) case is; the
reference's label has no honest choice either (a profile rule to refuse such a reshape, or Replicate
with the finding, is the lead's call).
"""

import pytest
from conftest import run_steps

MAKE = [{"from_torch": {"as": "h", "shape": [1, 64, 32, 64], "mesh_mapper": {"shard": 1}}}, {"to_device": {"src": "h", "as": "x"}}]


def _stale(shape, op="reshape"):
    report = run_steps([*MAKE, {op: {"tensor": "x", "shape": shape, "as": "y"}}], "current")
    assert report.error is None
    return [f for f in report.findings if f.tensor == "y" and f.kind.value == "topology_stale"]


@pytest.mark.parametrize("op", ["reshape", "view"])
def test_a_reshape_that_moves_the_sharded_dim_keeps_a_stale_label(op):
    [finding] = _stale([8, 32, 64], op)
    assert "laid out as [PlacementShard(0)]" in finding.message


@pytest.mark.parametrize("op", ["reshape", "view"])
def test_a_reshape_that_splits_the_outermost_sharded_dim_moves_the_shard_to_the_first_part(op):
    [finding] = _stale([2, 4, 32, 64], op)
    assert "laid out as [PlacementShard(0)]" in finding.message
    report = run_steps([*MAKE, {op: {"tensor": "x", "shape": [2, 4, 32, 64], "as": "y"}}], "reference")
    assert report.error is None and not [f for f in report.findings if f.tensor == "y"]


OUTER = [{"from_torch": {"as": "h", "shape": [2, 64, 32, 64], "mesh_mapper": {"shard": 1}}}, {"to_device": {"src": "h", "as": "x"}}]


@pytest.mark.parametrize("op", ["reshape", "view"])
def test_a_reshape_that_merges_the_sharded_dim_with_an_outer_one_keeps_a_stale_label_too(op):
    report = run_steps([*OUTER, {op: {"tensor": "x", "shape": [16, 32, 64], "as": "y"}}], "current")
    assert report.error is None
    [finding] = [f for f in report.findings if f.tensor == "y" and f.kind.value == "topology_stale"]
    assert finding.op == op and "splits or merges the dim it is sharded on" in finding.message
    # the reference has no honest label for it either: it claims no layout and reports nothing
    report = run_steps([*OUTER, {op: {"tensor": "x", "shape": [16, 32, 64], "as": "y"}}], "reference")
    assert report.error is None and not [f for f in report.findings if f.tensor == "y"]
