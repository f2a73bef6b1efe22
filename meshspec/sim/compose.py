"""Composing a host tensor's shards into one tensor (``to_torch(t, mesh_composer=...)``).

docs/semantics.md section 5. ``{concat: d}`` is ``concat_mesh_to_tensor_composer``: a 1-D walk
over the shards present. ``{concat: [d...], mesh_shape: [...]}`` is ``create_mesh_composer``: one
dim per axis of the composer's mesh shape (default: the mesh's); a 1-D shape walks the shards
present, an N-D one needs every shard. The legacy composer concatenates every shard it is handed.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from ..errors import TTFatal
from .mesh import Coord, Shape, coord_of, fmt_shape, ttnn_shape, volume
from .tensor import HostTensor
from .values import ShapeOnly, concat_shape


def compose(
    host: HostTensor, mesh_shape: Shape, dims: Optional[Sequence[int]], override: Optional[Shape], one_d: bool
) -> tuple[np.ndarray, list[Coord]]:
    """The composed values and the shards used, in order.

    ``dims`` is None without a composer; ``one_d`` for ``concat_mesh_to_tensor_composer``.
    """
    shards = host.shards
    order = list(shards)
    if not order:
        raise TTFatal(
            f"{host.read_from or host.name} has no recorded device to read back (0 shards); "
            "there is nothing to compose"
        )
    if dims is None:
        if len(order) == 1:
            return shards[order[0]].values, order
        raise TTFatal(f"to_torch of a tensor with {len(order)} shards needs a mesh_composer, e.g. {{concat: 0}}")
    if host.plain and volume(mesh_shape) > 1:
        # ttnn 0.81.1 walks the composer's mesh over a 1x1 host buffer (tests/golden, composer)
        second = ttnn_shape(coord_of(1, mesh_shape), "MeshCoordinate")
        raise TTFatal(
            f"Coordinate {second} is out of bounds for shape MeshShape([1, 1]): {host.name} is a single host "
            "tensor (no mesh_mapper) and ttnn's composers fail on it on a multi-device mesh; drop mesh_composer"
        )
    rank = len(shards[order[0]].spec.shape)
    dims = list(dims)
    norm = []
    for d in dims:
        if not -rank <= d < rank:
            raise TTFatal(f"mesh_composer concat dim {d} is out of range for a rank-{rank} tensor")
        norm.append(d % rank)
    grid = (len(order),) if one_d else tuple(override or mesh_shape)
    if len(grid) != len(norm):
        raise TTFatal(
            f"The number of dimensions in the mesh shape {ttnn_shape(grid)} does not match the number of "
            f"dimensions in the config MeshComposerConfig(dims: {dims}); give one dim per mesh axis"
        )
    if len(set(norm)) != len(norm):
        raise TTFatal(f"mesh_composer concat dims {dims} repeat a dim")
    if len(grid) == 1:
        return concat([shards[c].values for c in order], norm[0]), order
    if len(order) != volume(grid):
        raise TTFatal(
            f"ND composition requires the number of tensors {len(order)} to match the mesh shape {ttnn_shape(grid)}"
        )
    arrays = [shards[c].values for c in order]
    # Concatenate along the last mesh axis first, then outward.
    for axis in reversed(range(len(grid))):
        group = grid[axis]
        arrays = [concat(arrays[i : i + group], norm[axis]) for i in range(0, len(arrays), group)]
    return arrays[0], order


def concat(arrays: list, dim: int):
    """``np.concatenate`` (shapes only in metadata mode); a misfit is the runtime's error."""
    try:
        if any(isinstance(a, ShapeOnly) for a in arrays):
            return ShapeOnly(concat_shape([tuple(a.shape) for a in arrays], dim), arrays[0].dtype)
        return np.concatenate(arrays, axis=dim)
    except ValueError:
        shapes = [fmt_shape(a.shape) for a in arrays]
        raise TTFatal(f"cannot concatenate shards of shapes {shapes} along dim {dim}") from None
