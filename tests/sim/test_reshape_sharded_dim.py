"""A reshape of each device's shard and the dim it is sharded on (docs/semantics.md section 12, "A
reshape's or view's layout"; meshspec/sim/imputation.py ``renumber_reshape``).

A new-user tester's LeNet batch (tt-metal issue #15422): (32, 16, 5, 5) sharded on dim 0 over an N300,
each device reshaping its (16, 16, 5, 5) to (16, 400). Dim 0 is untouched, so composing along dim 0
gives the whole tensor reshaped to (32, 400) and ``Shard(0)`` still describes the data; meshspec said
the reshape "splits or merges the dim it is sharded on" (topology_stale) for any reshape that was not
a trailing-dims one. The rule is checked here against numpy by brute force: a placement is given iff
composing the devices' reshaped shards along it equals the whole tensor reshaped.
"""

import itertools
import math

import numpy as np
import pytest

from conftest import run_steps
from meshspec.sim.imputation import renumber_reshape
from meshspec.sim.placement import Shard

LENET = [{"from_torch": {"as": "x", "shape": [32, 16, 5, 5], "layout": "tile", "data": {"random": 15422},
                         "mesh_mapper": {"ShardTensorToMesh": {"dim": 0}}, "device": "mesh_device"}}]


def _stale(shape, profile="current"):
    report = run_steps([*LENET, {"reshape": {"tensor": "x", "shape": shape, "as": "y"}}], profile, mesh="n300")
    assert report.error is None, report.error
    return [f.message for f in report.findings if f.tensor == "y" and f.kind.value == "topology_stale"]


@pytest.mark.parametrize("shape", [[16, 400], [16, 16, 25, 1], [16, 16, 25], [16, 80, 5], [6400]])
def test_a_reshape_that_keeps_or_absorbs_whole_inner_dims_keeps_the_dim_0_shard(shape):
    assert _stale(shape) == []
    assert _stale(shape, "reference") == []


def test_a_reshape_that_merges_the_sharded_dim_into_an_outer_one_is_still_stale():
    # (32, 16, 5, 5) sharded on dim 1 instead: each device's (32, 8, 5, 5) to (256, 25) merges dim 1
    # with dim 0 outside it, so composing along any dim interleaves the devices' rows
    steps = [{"from_torch": {"as": "x", "shape": [32, 16, 5, 5], "layout": "tile", "mesh_mapper": {"shard": 1},
                             "device": "mesh_device"}},
             {"reshape": {"tensor": "x", "shape": [256, 25], "as": "y"}}]
    report = run_steps(steps, "current", mesh="n300")
    [message] = [f.message for f in report.findings if f.tensor == "y" and f.kind.value == "topology_stale"]
    assert "splits or merges the dim it is sharded on" in message


def _composes(old, new, d, e, devices):
    """Do ``devices`` shards of ``old`` (the whole tensor cut on dim ``d``), each reshaped to ``new``
    and concatenated on dim ``e``, make the whole tensor reshaped?"""
    whole_shape = list(old)
    whole_shape[d] *= devices
    whole = np.arange(math.prod(whole_shape)).reshape(whole_shape)
    parts = [p.reshape(new) for p in np.split(whole, devices, axis=d)]
    composed = np.concatenate(parts, axis=e)
    return np.array_equal(composed, whole.reshape(composed.shape))


def _factorings(shape):
    """Every shape of the same volume with at most 3 dims (size-1 dims included)."""
    n = math.prod(shape)
    sizes = [k for k in range(1, n + 1) if n % k == 0]
    for rank in (1, 2, 3):
        for dims in itertools.product(sizes, repeat=rank):
            if math.prod(dims) == n:
                yield dims


@pytest.mark.parametrize("old", [(2, 3, 2), (1, 4, 2), (3, 1, 2), (2, 2), (4, 1)])
def test_a_placement_is_given_exactly_when_composing_along_it_is_the_whole_tensor_reshaped(old):
    for new, d in itertools.product(list(_factorings(old)), range(len(old))):
        got = renumber_reshape((Shard(d),), old, new)
        if got is not None:
            assert _composes(old, new, d, got[0].dim, 2), (old, new, d, got)
        else:
            assert not any(_composes(old, new, d, e, 2) for e in range(len(new))), (old, new, d)
