"""The CCL topology helpers (meshspec/sim/ccl_topology.py), case by case from
ttnn/cpp/ttnn/operations/ccl/common/host/ccl_topology_utils.cpp @ 0b4d561a (docs/semantics.md
section 12)."""

from meshspec.sim.ccl_topology import NoLabel, all_gather_topology, all_reduce_topology, reduce_scatter_topology, uncollapse
from meshspec.sim.placement import Replicate, Shard, Topology

R = Replicate()
ROW_MAJOR_2x4 = tuple((r, c) for r in range(2) for c in range(4))
COLLAPSED = Topology((8,), (Shard(3),), ROW_MAJOR_2x4)


def test_a_collapsed_label_expands_onto_the_axes_of_more_than_one_device():
    assert uncollapse(COLLAPSED, (2, 4)) == (Shard(3), Shard(3))
    one_row = Topology((4,), (Shard(3),), tuple((0, c) for c in range(4)))
    assert uncollapse(one_row, (1, 4)) == (R, Shard(3))  # the size-1 axis holds it whole
    assert isinstance(uncollapse(Topology((4,), (Shard(3),), ROW_MAJOR_2x4[:4]), (2, 4)), str)  # fewer shards than devices


def test_a_whole_mesh_gather_replicates_every_placement_and_keeps_the_distribution_shape():
    out = all_gather_topology(COLLAPSED, None, (2, 4), 4, 3)
    assert out.distribution_shape == (8,) and out.placements == (R,)


def test_gathering_the_inner_axis_keeps_the_outer_shard():
    out = all_gather_topology(COLLAPSED, 1, (2, 4), 4, -1)
    assert out.distribution_shape == (2, 4) and out.placements == (Shard(3), R)


def test_gathering_the_outer_axis_of_a_row_major_shard_would_interleave_and_keeps_the_legacy_label():
    out = all_gather_topology(COLLAPSED, 0, (2, 4), 4, 3)
    assert isinstance(out, NoLabel) and "interleave" in out.reason
    assert out.legacy == Topology((8,), (R,), ROW_MAJOR_2x4)  # the per-axis edit of the 1-D label as it is
    # all_reduce has no order to keep: the same label is honest
    assert all_reduce_topology(COLLAPSED, 0, (2, 4), 4).placements == (R, Shard(3))


def test_gathering_another_dim_of_a_row_major_shard_is_honest_on_either_axis():
    assert all_gather_topology(COLLAPSED, 0, (2, 4), 4, 2).placements == (R, Shard(3))


def test_reduce_scatter_shards_the_scattered_axis_on_the_normalised_dim():
    replicated = Topology((2, 4), (R, R), ROW_MAJOR_2x4)
    assert reduce_scatter_topology(replicated, 1, (2, 4), 4, -1).placements == (R, Shard(3))
    # without a cluster axis, a collapsed label scatters in its own row-major order
    assert reduce_scatter_topology(COLLAPSED, None, (2, 4), 4, 2) == Topology((8,), (Shard(2),), ROW_MAJOR_2x4)


def test_two_axes_sharding_one_dim_collapse_to_the_row_major_label():
    replicated = Topology((2, 4), (R, R), ROW_MAJOR_2x4)
    # every axis takes Shard(3): only the collapsed label can say it
    assert reduce_scatter_topology(replicated, None, (2, 4), 4, 3) == Topology((8,), (Shard(3),), ROW_MAJOR_2x4)
    # the outer axis shards dim 3 and the scatter puts dim 3 on the inner one too: row-major again
    outer = Topology((2, 4), (Shard(3), R), ROW_MAJOR_2x4)
    assert reduce_scatter_topology(outer, 1, (2, 4), 4, 3) == Topology((8,), (Shard(3),), ROW_MAJOR_2x4)


def test_a_dim_sharded_twice_beside_another_shard_has_no_label():
    mixed = Topology((2, 2, 2), (Shard(3), Shard(2), R), tuple((a, b, c) for a in range(2) for b in range(2) for c in range(2)))
    out = reduce_scatter_topology(mixed, 2, (2, 2, 2), 4, 3)
    assert isinstance(out, NoLabel) and "no TensorTopology can express" in out.reason
    assert out.legacy.placements == (Shard(3), Shard(2), Shard(3))
