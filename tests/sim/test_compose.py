"""Composing shards (meshspec/sim/compose.py): the fast paths give what the general ones give."""

import numpy as np
import pytest

from meshspec.errors import TTFatal
from meshspec.sim.compose import concat, concat_devices
from meshspec.sim.values import ShapeOnly, concat_shape


@pytest.mark.parametrize("dim", [0, 1, 2])
@pytest.mark.parametrize("shape_only", [False, True])
def test_concat_devices_is_concat_of_one_block_a_device(dim, shape_only):
    rng = np.random.default_rng(dim)
    sizes = [1, 3, 2, 0, 4]
    arrays = []
    for n in sizes:
        shape = tuple(n if d == dim else 2 + d for d in range(3))
        a = rng.integers(0, 100, shape).astype(np.int32)
        arrays.append(ShapeOnly(shape, np.dtype(np.int32)) if shape_only else a)
    coords = [(0, i) for i in range(len(sizes))]
    want_values, want_placed = concat([(a, {c: (0, 0, 0)}) for a, c in zip(arrays, coords)], dim)
    got_values, got_placed = concat_devices(arrays, coords, dim, 3)
    assert got_placed == want_placed and list(got_placed) == coords
    if shape_only:
        assert got_values.shape == want_values.shape
    else:
        np.testing.assert_array_equal(got_values, want_values)


def test_concat_devices_misfit_is_torch_cat_error():
    arrays = [np.zeros((1, 2)), np.zeros((1, 3))]
    with pytest.raises(TTFatal, match="Sizes of tensors must match except in dimension 0. Expected size 2 but got size 3"):
        concat_devices(arrays, [(0, 0), (0, 1)], 0, 2)


@pytest.mark.parametrize(
    "shapes",
    [[(1, 1, 32, 32)] * 7, [(2, 3)] * 1, [(1, 2), (1, 3)], [(2, 2), (2, 2), (3, 2)], [(0, 4)] * 3, [(1, 2), (1, 2, 1)]],
)
@pytest.mark.parametrize("dim", [0, 1])
def test_concat_shape_is_numpys(shapes, dim):
    """concat_shape (even shards counted at once) gives np.concatenate's shape, or its refusal."""
    try:
        want = np.concatenate([np.zeros(s) for s in shapes], axis=dim).shape
    except ValueError:
        with pytest.raises(ValueError):
            concat_shape(shapes, dim)
    else:
        assert concat_shape(shapes, dim) == want
