"""Composing a host tensor's shards into one tensor (``to_torch(t, mesh_composer=...)``).

docs/semantics.md section 5. ``{concat: d}`` is ``concat_mesh_to_tensor_composer``: a 1-D walk
over every device of the mesh. ``{concat: [d...], mesh_shape: [...]}`` is ``create_mesh_composer``
with one dim per axis of its grid, the override or the mesh shape. ttnn 0.81.1 picks the shards
as it picks devices for a mapper (observed, tests/golden ``composer_overrides``):

- SUBMESH, when the grid has the mesh's rank and fits inside it: the shards whose coordinate lies
  in the grid's region, each at its own coordinate; the rest are dropped without a word.
- ROW_MAJOR otherwise (a 1-D grid on a 2-D mesh, another rank, a shape that does not fit): the
  shards in row-major order of their coordinates, the k-th at the k-th grid position; shards past
  the grid's size are dropped.

A 1-D grid concatenates the shards present (missing ones are skipped); an N-D one needs every
position filled. Blocks are concatenated along the last grid axis first, then outward.

Worked example: (1,7,32,32) sharded on dim 1 over a 2x4 mesh (the seed's 7 shards), composed
with dims [0, 1] and mesh_shape [2, 2]: SUBMESH; region (0,0) (0,1) (1,0) (1,1) holds source rows
0, 1, 4, 5; the result is (2,2,32,32) and rows 2, 3, 6 are dropped.
"""

from __future__ import annotations

import itertools
from ..frozen import Frozen
from typing import Any, Optional, Sequence

import numpy as np

from ..errors import TTFatal
from .mesh import Coord, Shape, coord_of, fmt_shape, ttnn_shape, volume
from .dims import normal_dim
from .mapping import anchor
from .profiles import Composer
from .tensor import HostTensor
from .values import ShapeOnly, concat_shape


class Composition(Frozen):
    values: Any
    """The composed tensor (an array, or a ShapeOnly in metadata mode)."""
    used: tuple[Coord, ...]
    """The shards composed, in order."""
    placed: dict[Coord, Shape]
    """Where each used shard's block starts in the result."""
    dropped: tuple[Coord, ...] = ()
    """Shards the composer's grid left out."""
    grid: Shape = ()


def no_composer_error(mesh_shape: Shape, hint: str = "") -> TTFatal:
    """ttnn 0.81.1's error for a multi-shard tensor read back without a composer
    (``ttnn/cpp/ttnn-nanobind/pytensor.cpp``; observed, tests/golden ``no_composer``)."""
    return TTFatal(
        f"Can't convert a tensor distributed on {ttnn_shape(mesh_shape)} mesh to row-major logical tensor. "
        "Supply a mesh composer to concatenate multi-device shards. "
        + (hint or "(give to_torch a mesh_composer, e.g. {concat: 0}: ttnn 0.81.1 counts host shards, so a replicated tensor needs one too)")
    )


def compose(
    host: HostTensor,
    mesh_shape: Shape,
    dims: Optional[Sequence[int]],
    override: Optional[Shape],
    one_d: bool,
    rule: Composer = Composer.CURRENT,
    offset: Optional[Coord] = None,
) -> Composition:
    """The composed values and which shards went where, under the era's composer ``rule``.

    ``dims`` is None without a composer; ``one_d`` for ``concat_mesh_to_tensor_composer``.
    """
    shards = host.shards
    present = sorted(shards)
    if not present and dims is None:
        # no shard is not one: ttnn's check is buffers.size() == 1 (pytensor.cpp), its words for none too
        raise no_composer_error(mesh_shape, f"({host.read_from or host.name} has no shard: {host.read_from or host.name} "
                                            "records no device, so cpu() read nothing back; write it before reading it)")
    if not present:
        raise TTFatal(
            f"{host.read_from or host.name} has no recorded device to read back (0 shards); "
            "there is nothing to compose"
        )
    if dims is None:
        if len(present) == 1:
            only = present[0]
            return Composition(shards[only].values, (only,), {only: (0,) * len(shards[only].spec.shape)})
        raise no_composer_error(mesh_shape)
    if host.plain and volume(mesh_shape) > 1:
        # ttnn 0.81.1 walks the composer's mesh over a 1x1 host buffer (tests/golden, composer)
        second = ttnn_shape(coord_of(1, mesh_shape), "MeshCoordinate")
        raise TTFatal(
            f"Coordinate {second} is out of bounds for shape MeshShape([1, 1]): {host.name} is a single host "
            "tensor (no mesh_mapper) and ttnn's composers fail on it on a multi-device mesh; drop mesh_composer"
        )
    rank = len(shards[present[0]].spec.shape)
    dims = list(dims)
    if rule is Composer.LEGACY:
        return _legacy(host, present, mesh_shape, dims, override, one_d, rank)
    grid = (volume(mesh_shape),) if one_d else tuple(override or mesh_shape)
    if len(grid) != len(dims):
        config = f"MeshComposerConfig(dims: {dims}" + (f", mesh_shape_override={ttnn_shape(override)})" if override else ")")
        raise TTFatal(
            f"The number of dimensions in the mesh shape {ttnn_shape(grid)} does not match the number of "
            f"dimensions in the config {config} (give one dim per axis of the composer's mesh shape)"
        )
    if volume(grid) > volume(mesh_shape):
        raise TTFatal(
            f"The size of the supplied mesh shape {ttnn_shape(grid)} does not match the device shape size "
            f"{ttnn_shape(mesh_shape)} (the composer's mesh shape needs {volume(grid)} devices, the mesh has "
            f"{volume(mesh_shape)}; a smaller one composes part of the tensor)"
        )
    norm = []
    for d in dims:  # partition.cpp (concat_ndim) checks every dim's range, then that none repeats
        n = normal_dim(d, rank)
        if n is None:
            raise TTFatal(
                f"Invalid dimension index; got dims: {{{', '.join(map(str, dims))}}}, tensor dimension: {rank} "
                f"(mesh_composer concat dim {d} is out of range for a rank-{rank} tensor)"
            )
        norm.append(n)
    if len(set(norm)) != len(norm):
        raise TTFatal(f"dims must be unique (mesh_composer concat dims {dims} name one tensor dim twice)")

    submesh = len(grid) == len(mesh_shape) and all(g <= m for g, m in zip(grid, mesh_shape))
    shift = anchor(grid, mesh_shape, offset, submesh)
    if submesh:
        selected = [c for c in present if all(s <= x < s + g for x, s, g in zip(c, shift, grid))]
    else:
        selected = present[: volume(grid)]
    if len(grid) > 1 and len(selected) != volume(grid):
        raise TTFatal(
            f"ND composition requires the number of tensors {len(selected)} to match the mesh shape "
            f"{ttnn_shape(grid)} (an N-D composer needs every position of its grid filled; a 1-D one skips "
            "missing shards)"
        )
    if len(grid) == 1:
        positions = {c: (i,) for i, c in enumerate(selected)}
    elif submesh:
        positions = {c: tuple(x - s for x, s in zip(c, shift)) for c in selected}
    else:
        positions = {c: coord_of(i, grid) for i, c in enumerate(selected)}
    dropped = tuple(c for c in present if c not in positions)
    values, placed = _assemble([(shards[c].values, c) for c in selected], positions, grid, norm)
    return Composition(values, tuple(selected), placed, dropped, grid)


def _legacy(host, present, mesh_shape, dims, override, one_d, rank) -> Composition:
    """The Python composers of early 2025 (``ttnn/ttnn/distributed/distributed.py`` before PR
    #23684 made them wrappers of the C++ ones): ``ConcatMeshToTensor`` is ``torch.cat`` of every
    device tensor; ``ConcatMesh2dToTensor(mesh_shape=(rows, cols), dims)`` groups them ``cols`` at a
    time, concatenates each group along ``dims[1]``, then the groups along ``dims[0]``, whatever the
    number of groups. Nothing is dropped, nothing is checked against the mesh shape."""
    shards = host.shards
    norm = []
    for d in dims:
        n = normal_dim(d, rank)
        if n is None:
            raise TTFatal(
                f"Dimension out of range (expected to be in range of [{-rank}, {rank - 1}], but got {d}) "
                f"(torch.cat in the legacy composer; the tensor has rank {rank})"
            )
        norm.append(n)
    if one_d or len(norm) == 1:
        values, placed = concat_devices([shards[c].values for c in present], present, norm[0], rank)
        return Composition(values, tuple(present), placed, (), (len(present),))
    blocks = [(shards[c].values, {c: (0,) * rank}) for c in present]
    if len(norm) != 2:
        raise TTFatal(
            f"the composers of this era are 1-D (ConcatMeshToTensor) or 2-D (ConcatMesh2dToTensor); "
            f"{len(norm)} concat dims {dims} have no composer here"
        )
    if norm[0] == norm[1]:
        raise TTFatal("Both dimensions in 'dims' must be different (ConcatMesh2dToTensor)")
    rows, cols = tuple(override or mesh_shape)[:2] if len(override or mesh_shape) >= 2 else (1, (override or mesh_shape)[0])
    groups = [concat(blocks[i : i + cols], norm[1]) for i in range(0, len(blocks), cols)]
    values, placed = concat(groups, norm[0])
    return Composition(values, tuple(present), placed, (), (rows, cols))


def _assemble(blocks, positions: dict[Coord, tuple[int, ...]], grid: Shape, dims: list[int]):
    """Concatenate blocks laid on ``grid`` along ``dims`` (last axis first), tracking where each
    block lands. A 1-D grid concatenates the blocks present, in order."""
    rank = len(np.shape(blocks[0][0])) if not isinstance(blocks[0][0], ShapeOnly) else len(blocks[0][0].shape)
    if len(grid) == 1:
        return concat_devices([v for v, _ in blocks], [c for _, c in blocks], dims[0], rank)
    cells = {positions[c]: (v, {c: (0,) * rank}) for v, c in blocks}
    for axis in reversed(range(len(grid))):
        lead = grid[:axis]
        merged = {}
        for head in itertools.product(*(range(n) for n in lead)):
            line = [cells[head + (i,) + _zeros(len(grid) - axis - 1)] for i in range(grid[axis])]
            merged[head + _zeros(len(grid) - axis)] = concat(line, dims[axis])
        cells = merged
    return cells[_zeros(len(grid))]


def _zeros(n: int) -> tuple[int, ...]:
    return (0,) * n


def concat(pieces: list[tuple[Any, dict[Coord, Shape]]], dim: int) -> tuple[Any, dict[Coord, Shape]]:
    """``np.concatenate`` (shapes only in metadata mode) of ``(values, block offsets)`` pieces; a
    misfit is the runtime's error, in torch.cat's words (the legacy composers were torch.cat)."""
    out, shapes = _concatenate([a for a, _ in pieces], dim)
    placed: dict[Coord, Shape] = {}
    start = 0
    for (a, offsets), shape in zip(pieces, shapes):
        for c, off in offsets.items():
            moved = list(off)
            moved[dim] += start
            placed[c] = tuple(moved)
        start += shape[dim]
    return out, placed


def concat_devices(arrays: list, coords: Sequence[Coord], dim: int, rank: int) -> tuple[Any, dict[Coord, Shape]]:
    """:func:`concat` of one block a device, each device at its block's start (a 1-D composition,
    ``dim`` in ``range(rank)``): the same values and placements, with no dict of offsets made and
    copied a block (those cost a small readback about 20,000 instructions)."""
    out, shapes = _concatenate(arrays, dim)
    head, tail = (0,) * dim, (0,) * (rank - dim - 1)
    placed: dict[Coord, Shape] = {}
    start = 0
    for c, shape in zip(coords, shapes):
        placed[c] = (*head, start, *tail)
        start += shape[dim]
    return out, placed


def _concatenate(arrays: list, dim: int) -> tuple[Any, list[Shape]]:
    """``np.concatenate(arrays, axis=dim)`` (shapes only in metadata mode) and the arrays' shapes;
    a misfit is the runtime's error, in torch.cat's words (the legacy composers were torch.cat)."""
    shapes = [tuple(np.shape(a)) if not isinstance(a, ShapeOnly) else a.shape for a in arrays]
    try:
        if any(isinstance(a, ShapeOnly) for a in arrays):
            out = ShapeOnly(concat_shape(shapes, dim), arrays[0].dtype)
        else:
            out = np.concatenate(arrays, axis=dim)
    except ValueError:
        first = shapes[0]
        bad = next(i for i, s in enumerate(shapes) if len(s) != len(first) or any(a != b for j, (a, b) in enumerate(zip(s, first)) if j != dim))
        other = next((j for j, (a, b) in enumerate(zip(shapes[bad], first)) if j != dim and a != b), dim)
        raise TTFatal(
            f"Sizes of tensors must match except in dimension {dim}. Expected size {first[other]} but got size "
            f"{shapes[bad][other]} for tensor number {bad} in the list. (composing shards of shapes "
            f"{[fmt_shape(s) for s in shapes]} along dim {dim})"
        ) from None
    return out, shapes
