"""Mapper math: docs/semantics.md section 4 (ttnn/core/tensor/xtensor/partition.cpp, chunk_ndim;
ttnn/core/distributed/distribution_mode.cpp)."""

import itertools
import math

import numpy as np
import pytest

from meshspec.errors import TTFatal
from meshspec.sim.mapper_rules import CURRENT_MAPPER, LEGACY_MAPPER
from meshspec.sim.mapping import chunk_ranges, distribute, replicate_all
from meshspec.sim.mesh import coords
from meshspec.sim.placement import Replicate, Shard

R, S = Replicate(), Shard
T3K = (2, 4)


# docs/semantics.md section 4, "How a dim is split": exactly torch.chunk.
@pytest.mark.parametrize(
    "n, k, sizes",
    [
        (7, 8, [1] * 7),  # the seed: the 8th device gets nothing
        (10, 8, [2] * 5),  # 3 devices get nothing
        (9, 8, [2, 2, 2, 2, 1]),  # unequal
        (8, 8, [1] * 8),
        (13, 8, [2] * 6 + [1]),
        (1, 8, [1]),
        (64, 3, [22, 22, 20]),
    ],
)
def test_chunk_ranges_is_torch_chunk(n, k, sizes):
    ranges = chunk_ranges(n, k)
    assert [b - a for a, b in ranges] == sizes
    assert ranges[0][0] == 0 and ranges[-1][1] == n
    assert all(a == prev_b for (a, _), (_, prev_b) in zip(ranges[1:], ranges))


# Reference implementation: torch.chunk semantics written out directly.
def _torch_chunk_sizes(n, k):
    c = math.ceil(n / k)
    return [min(c, n - s) for s in range(0, n, c)]


@pytest.mark.parametrize("n, k", list(itertools.product(range(1, 40), range(1, 12))))
def test_chunk_ranges_sweep(n, k):
    assert [b - a for a, b in chunk_ranges(n, k)] == _torch_chunk_sizes(n, k)


# docs/semantics.md section 4: the seed's case, verified on ttnn 0.81.1: 7 shards of (1,1,32,32) at
# (0,0)..(1,2), distribution shape (7).
def test_seed_distribution():
    d = distribute((1, 7, 32, 32), T3K, (S(1),), (8,))
    assert d.topology.distribution_shape == (7,)
    assert d.topology.coords == tuple(coords(T3K))[:7]
    assert [s.shape for s in d.slots] == [(1, 1, 32, 32)] * 7
    assert [s.offset for s in d.slots] == [(0, i, 0, 0) for i in range(7)]
    assert (1, 3) not in [s.coord for s in d.slots]


# docs/semantics.md section 4: (1,8,32,32) with (None, 1) gives (1,2,32,32) on every device.
def test_replicate_shard_2d():
    d = distribute((1, 8, 32, 32), T3K, (R, S(1)))
    assert d.topology.distribution_shape == (2, 4)
    assert len(d.slots) == 8
    for s in d.slots:
        r, c = s.coord
        assert s.shape == (1, 2, 32, 32)
        assert s.offset == (0, 2 * c, 0, 0)  # replicated down the rows


# docs/semantics.md section 4: equal-shape rule (current) vs legacy plain torch.chunk.
def test_equal_shape_rule_current_vs_legacy():
    with pytest.raises(TTFatal, match="Shard shape mismatch"):
        distribute((1, 9, 32, 32), T3K, (S(1),), (8,), CURRENT_MAPPER)
    legacy = distribute((1, 9, 32, 32), T3K, (S(1),), (8,), LEGACY_MAPPER)
    assert [s.shape[1] for s in legacy.slots] == [2, 2, 2, 2, 1]
    # issue #17476: (1,13,32,32) over 8 devices was accepted by the legacy mappers
    legacy13 = distribute((1, 13, 32, 32), T3K, (S(1),), (8,), LEGACY_MAPPER)
    assert [s.shape[1] for s in legacy13.slots] == [2] * 6 + [1]
    # n=7 and n=10 over 8 are accepted by the current mapper
    assert len(distribute((1, 10, 32, 32), T3K, (S(1),), (8,)).slots) == 5


# docs/semantics.md section 4: ShardTensor2dMesh((2,4), (None,1)) on (1,7,32,32) fails with the
# shard-shape TT_FATAL (7 over 4 -> 2,2,2,1).
def test_2d_uneven_fails_current():
    with pytest.raises(TTFatal, match="Shard shape mismatch"):
        distribute((1, 7, 32, 32), T3K, (R, S(1)))


# docs/semantics.md section 4: for N-D the chunk count must equal the sharded mesh size.
def test_nd_chunk_count():
    with pytest.raises(TTFatal, match="ND sharding requires the number of chunks 3 to match the mesh dimension size 4"):
        distribute((1, 3, 32, 32), T3K, (R, S(1)))  # 3 equal chunks of 1 over 4 columns
    # the count is checked before the shapes (tests/golden, ttnn 0.81.1): 5 over 4 -> 2,2,1
    with pytest.raises(TTFatal, match="ND sharding requires the number of chunks 3"):
        distribute((1, 5, 32, 32), T3K, (R, S(1)))


# docs/semantics.md section 4, "Errors the real mapper raises".
@pytest.mark.parametrize(
    "placements, override, match",
    [
        ((S(1), S(1)), None, "dims must be unique"),
        ((S(1),), (9,), "does not match the device shape size"),
        ((R, S(1)), (8,), "does not match the number of placements"),
        ((S(4),), (8,), "Invalid dimension index"),
    ],
)
def test_mapper_errors(placements, override, match):
    for rules in (CURRENT_MAPPER, LEGACY_MAPPER):
        with pytest.raises(TTFatal, match=match):
            distribute((4, 8, 32, 32), T3K, placements, override, rules)


# docs/semantics.md section 4, "Which device gets which chunk": SUBMESH keeps coordinates (2x3 on 2x4
# uses the top-left 2x3 devices); ROW_MAJOR (1-D override, or 4x2 on 2x4) walks devices in order.
def test_submesh_override():
    d = distribute((1, 6, 32, 32), T3K, (R, S(1)), (2, 3))
    assert d.topology.coords == ((0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2))
    assert [s.offset[1] for s in d.slots] == [0, 2, 4, 0, 2, 4]


def test_row_major_override():
    d = distribute((1, 8, 32, 32), T3K, (S(1), R), (4, 2))
    assert d.topology.coords == tuple(coords(T3K))
    # dist coords (i, j) row-major: chunk i goes to dist row i, replicated over j
    assert [s.offset[1] for s in d.slots] == [0, 0, 2, 2, 4, 4, 6, 6]


def test_replicate_everywhere():
    d = distribute((1, 1, 32, 32), T3K, (R, R))
    assert len(d.slots) == 8 and all(s.offset == (0, 0, 0, 0) for s in d.slots)
    one_d = distribute((1, 1, 32, 32), T3K, (R,), (8,))
    assert one_d.topology.distribution_shape == (8,) and len(one_d.slots) == 8
    plain = replicate_all(T3K, (1, 1, 32, 32))
    assert plain.topology.distribution_shape == (8,) and str(plain.topology.placements[0]) == "R"


# tests/golden: ttnn 0.81.1 accepts S(-1) and keeps PlacementShard(-1) in the topology.
def test_negative_dim_kept_in_topology():
    d = distribute((2, 8), (1, 2), (R, S(-1)))
    assert d.topology.placements == (R, S(-1))
    assert [s.offset for s in d.slots] == [(0, 0), (0, 4)]


# Property over a sweep of meshes, shapes and placements: shards tile the global tensor exactly
# once per replica group, and offsets/shapes follow torch.chunk arithmetic.
MESHES = [(1, 1), (1, 2), (2, 2), (2, 4), (8, 4), (1, 8), (8,)]


@pytest.mark.parametrize("mesh", MESHES)
def test_shards_tile_the_tensor(mesh):
    shape = (3, 8, 12)
    ndim = len(mesh)
    options = [R] + [S(d) for d in range(len(shape))]
    for placements in itertools.product(options, repeat=ndim):
        dims = [p.dim for p in placements if isinstance(p, Shard)]
        if len(dims) != len(set(dims)):
            continue
        try:
            d = distribute(shape, mesh, placements, None, LEGACY_MAPPER if ndim == 1 else CURRENT_MAPPER)
        except TTFatal:
            continue
        replicas = math.prod(mesh[a] for a, p in enumerate(placements) if not isinstance(p, Shard))
        cover = np.zeros(shape, dtype=int)
        for s in d.slots:
            cover[s.slices()] += 1
            for a, p in enumerate(placements):
                if isinstance(p, Shard):
                    idx = s.coord[a]
                    start, stop = chunk_ranges(shape[p.dim], mesh[a])[idx]
                    assert s.offset[p.dim] == start and s.shape[p.dim] == stop - start
        assert (cover == replicas).all(), (mesh, placements)


def test_a_distribution_is_worked_out_once_per_arguments_on_a_small_mesh():
    # a suite maps the same shapes over and over: equal arguments give the one (immutable) result,
    # on a mesh up to CACHED_MESH devices; a larger mesh's (a slot per device) is not kept
    from meshspec.sim.mapping import CACHED_MESH

    a = distribute((1, 7, 32, 32), (2, 4), (Shard(1),), (8,))  # the seed's shard_tensor_to_mesh_mapper
    assert distribute([1, 7, 32, 32], [2, 4], [Shard(1)], [8]) is a and a.slots[6].offset == (0, 6, 0, 0)
    assert distribute((1, 7, 32, 32), (2, 4), (Shard(2),), (8,)) is not a
    big = (1, CACHED_MESH + 1)
    assert distribute((1, 1, 32, 32), big, (Replicate(), Replicate())) is not distribute((1, 1, 32, 32), big, (Replicate(), Replicate()))
    for _ in range(2):  # an error is raised each time, never remembered as a result
        with pytest.raises(TTFatal, match="placements"):
            distribute((1, 7, 32, 32), (2, 4), (Shard(1),), (8, 1, 1))


def test_shard_equality_and_hash_are_by_dim():
    """Shard's own __eq__/__hash__ (the mapper cache's keys) agree with Frozen's: by type and dim."""
    assert Shard(1) == Shard(1) and hash(Shard(1)) == hash(Shard(1))
    assert Shard(1) != Shard(2) and Shard(0) != R and R != Shard(0) and Shard(1) != 1
    assert len({Shard(1), Shard(1), Shard(-1), R, Replicate()}) == 3
    assert distribute((1, 8, 32, 32), T3K, (R, S(1))) is distribute((1, 8, 32, 32), T3K, (Replicate(), Shard(1)))
