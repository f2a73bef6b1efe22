"""Sharding math: where each piece of a host tensor goes on the mesh (docs/semantics.md section 4).

Pure functions on plain tuples; nothing here touches data or devices. The one question answered
is *device coordinate -> (global offset, shard shape)*; tables, the simulator and the composer are
views of that mapping.

Worked example — the seed: (1,7,32,32) sharded on dim 1 over a T3K (2x4) with
``shard_tensor_to_mesh_mapper`` (a 1-D distribution of 8)::

    chunk size ceil(7/8) = 1 -> 7 chunks; distribution shape cut to (7)
    device  (0,0) (0,1) (0,2) (0,3) (1,0) (1,1) (1,2) (1,3)
    offset  dim1=0  1     2     3     4     5     6    --
    shape   1x1x32x32 on each of the first 7;        (1,3) gets nothing
"""

from __future__ import annotations

import functools
import itertools
import math
from ..frozen import Frozen

from ..errors import TTFatal
from .dims import dim_index, normal_dim
from .mapper_rules import CURRENT_MAPPER, MapperRules
from .mesh import Coord, Shape, block, coords, ttnn_shape, volume
from .placement import Placement, Replicate, Shard, Topology


def chunk_ranges(size: int, parts: int) -> tuple[tuple[int, int], ...]:
    """``torch.chunk`` ranges of a dim of ``size`` split ``parts`` ways.

    Chunk size is ``ceil(size / parts)``, so there may be fewer than ``parts`` chunks and the
    last may be short (``ttnn/core/tensor/xtensor/partition.cpp``, ``chunk_ndim``).

    >>> chunk_ranges(7, 8)
    ((0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 7))
    >>> chunk_ranges(10, 8)
    ((0, 2), (2, 4), (4, 6), (6, 8), (8, 10))
    >>> [b - a for a, b in chunk_ranges(9, 8)]
    [2, 2, 2, 2, 1]
    """
    if parts < 1:
        raise ValueError(f"cannot split into {parts} parts")
    if size == 0:
        return ((0, 0),)
    step = -(-size // parts)
    return tuple((start, min(start + step, size)) for start in range(0, size, step))


class ShardSlot(Frozen):
    """One populated device: where its shard starts in the global tensor and its shape."""

    coord: Coord
    offset: Shape
    shape: Shape

    def slices(self) -> tuple[slice, ...]:
        return block(self.offset, self.shape)


class Distribution(Frozen):
    """The result of mapping a tensor onto a mesh: topology plus one slot per populated device."""

    topology: Topology
    slots: tuple[ShardSlot, ...]

    def slices(self) -> tuple[tuple[slice, ...], ...]:
        """Each slot's :meth:`ShardSlot.slices`, worked out once per distribution (distributions
        are cached: a suite maps the same shapes over and over, and the slices of 7 shards were
        28,000 instructions of each from_torch)."""
        d = self.__dict__  # beside the fields: equality, hashing and replace() read the fields only
        cached = d.get("_slices")
        if cached is None:
            cached = d["_slices"] = tuple(slot.slices() for slot in self.slots)
        return cached


def distribute(
    shape: Shape,
    mesh_shape: Shape,
    placements: tuple[Placement, ...],
    override: Shape | None = None,
    rules: MapperRules = CURRENT_MAPPER,
    mesh_offset: Coord | None = None,
) -> Distribution:
    """Map a tensor of ``shape`` onto ``mesh_shape`` (``create_mesh_mapper`` + ``distribute_tensor``).

    1. The distribution shape is ``override`` or the mesh shape; it needs one placement per axis
       and no more devices than the mesh has.
    2. Each sharded axis splits its tensor dim with :func:`chunk_ranges`; chunks are laid on the
       distribution shape row-major (last sharded axis fastest) and copied along replicated axes.
    3. Distribution coordinates become device coordinates as they are (SUBMESH: no override, or
       an override of the mesh's rank that fits inside it) or by row-major order (ROW_MAJOR).

    Errors follow the current library (and the legacy Python mappers for ``LEGACY_MAPPER``):
    a dim sharded on two axes, a distribution larger than the mesh, a placement count that is
    not the distribution rank, unequal shards (current only), and an N-D distribution whose
    chunk count is not the sharded mesh size.

    >>> d = distribute((1, 8, 32, 32), (2, 4), (Replicate(), Shard(1)))
    >>> [(s.coord, s.offset[1], s.shape[1]) for s in d.slots][:5]
    [((0, 0), 0, 2), ((0, 1), 2, 2), ((0, 2), 4, 2), ((0, 3), 6, 2), ((1, 0), 0, 2)]
    """
    key = (tuple(shape), tuple(mesh_shape), tuple(placements), None if override is None else tuple(override), rules,
           None if mesh_offset is None else tuple(mesh_offset))
    if volume(mesh_shape) > CACHED_MESH:
        return _distribute(*key)
    return _cached_distribute(*key)


CACHED_MESH = 1024
"""Distributions on meshes up to this many devices (32x32, the largest planned system) are
remembered, the last 64 of them: a suite maps the same shapes over and over. A distribution holds
a slot per device (about 0.45 MB for 1,024), so the cache stays under 30 MB; a larger mesh's is not kept."""


@functools.lru_cache(maxsize=64)
def _cached_distribute(*key) -> Distribution:
    return _distribute(*key)


def _distribute(shape: Shape, mesh_shape: Shape, placements: tuple[Placement, ...], override: Shape | None,
                rules: MapperRules, mesh_offset: Coord | None) -> Distribution:
    dist_shape = tuple(override) if override is not None else tuple(mesh_shape)
    rank = len(shape)
    if any(n < 1 for n in dist_shape):
        raise TTFatal(f"distribution shape {list(dist_shape)} has an empty axis")
    if volume(dist_shape) > volume(mesh_shape):
        raise TTFatal(
            f"The size of the supplied mesh shape {ttnn_shape(dist_shape)} does not match the device shape size "
            f"{ttnn_shape(mesh_shape)} (the distribution needs {volume(dist_shape)} devices, the mesh has "
            f"{volume(mesh_shape)}; a smaller one is allowed)"
        )
    if len(placements) != len(dist_shape):
        raise TTFatal(
            f"The number of dimensions in the mesh shape {ttnn_shape(dist_shape)} does not match the number of "
            f"placements in the config {mapper_config_repr(placements, override)} (give one placement per axis of the "
            "distribution shape)"
        )
    # Every shard dim is checked for range before any is checked for being unique, and ttnn's
    # message lists all of them as given: [S(4), S(3)] of a rank-4 tensor is "got dims: {4, 3}"
    # (ttnn 0.81.1, tests/golden "mappers").
    given = [p.dim for p in placements if isinstance(p, Shard)]
    bad = [(axis, p.dim) for axis, p in enumerate(placements) if isinstance(p, Shard) and normal_dim(p.dim, rank) is None]
    if bad:
        axis, dim = bad[0]
        raise TTFatal(
            f"Invalid dimension index; got dims: {{{', '.join(map(str, given))}}}, tensor dimension: {rank} "
            f"(Shard(dim={dim}) on axis {axis} is out of range for a rank-{rank} tensor {list(shape)}; dims are "
            f"0..{rank - 1}, or negative from the end)"
        )
    seen: dict[int, int] = {}
    norm: list[Placement] = []
    for axis, p in enumerate(placements):
        if isinstance(p, Shard):
            dim = dim_index(p.dim, rank)
            if dim in seen:
                raise TTFatal(
                    f"dims must be unique (tensor dim {dim} is sharded on both distribution axes "
                    f"{seen[dim]} and {axis}; a dim can be sharded on one mesh axis only)"
                )
            seen[dim] = axis
            norm.append(Shard(dim))
        else:
            norm.append(Replicate())

    # Chunks per axis (a replicated axis has one "chunk": the whole tensor).
    per_axis: list[tuple[tuple[int, int] | None, ...]] = []
    for axis, p in enumerate(norm):
        per_axis.append(chunk_ranges(shape[p.dim], dist_shape[axis]) if isinstance(p, Shard) else (None,))

    sharded_axes = [a for a, p in enumerate(norm) if isinstance(p, Shard)]
    n_chunks = math.prod(len(per_axis[a]) for a in sharded_axes)
    # distribute_tensor checks the N-D chunk count before the shard shapes (seen on ttnn 0.81.1).
    if len(dist_shape) > 1:
        expected = math.prod(dist_shape[a] for a in sharded_axes)
        if n_chunks != expected:
            chunks = " x ".join(str(len(per_axis[a])) for a in sharded_axes)
            sizes = " x ".join(str(dist_shape[a]) for a in sharded_axes)
            raise TTFatal(
                f"ND sharding requires the number of chunks {n_chunks} to match the mesh dimension size "
                f"{expected} (the 'mesh dimension size' is the product of the sharded axes of the distribution "
                f"shape {list(dist_shape)}: {sizes}; the tensor splits into {chunks} chunks on them; fewer chunks "
                "than devices is allowed only for a 1-D distribution)"
            )
    if rules.equal_shards:
        mismatch = first_unequal_shard(shape, norm, per_axis)
        if mismatch is not None:
            axis, first, other = mismatch
            dim = norm[axis].dim  # type: ignore[union-attr]
            sizes = [stop - start for start, stop in per_axis[axis]]  # type: ignore[misc]
            raise TTFatal(
                f"Shard shape mismatch: expected {ttnn_shape(first, 'Shape')} but got {ttnn_shape(other, 'Shape')} "
                f"(dim {dim} of size {shape[dim]} split {dist_shape[axis]} ways gives {sizes}; "
                "all tensor shards must have the same tensor spec)"
            )

    # Lay chunks on the distribution shape; replicate along replicated axes.
    populated: list[tuple[Coord, Shape, Shape]] = []
    for dist_coord in coords(dist_shape):
        offset = [0] * rank
        sub = list(shape)
        ok = True
        for axis, p in enumerate(norm):
            if isinstance(p, Shard):
                idx = dist_coord[axis]
                if idx >= len(per_axis[axis]):
                    ok = False
                    break
                start, stop = per_axis[axis][idx]  # type: ignore[misc]
                offset[p.dim] = start
                sub[p.dim] = stop - start
        if ok:
            populated.append((dist_coord, tuple(offset), tuple(sub)))

    if len(dist_shape) == 1:
        dist_shape = (len(populated),)

    submesh = override is None or (
        len(override) == len(mesh_shape) and all(o <= m for o, m in zip(override, mesh_shape))
    )
    shift = anchor(tuple(override) if override is not None else tuple(mesh_shape), mesh_shape, mesh_offset, submesh)
    if submesh:
        slots = tuple(ShardSlot(tuple(a + b for a, b in zip(c, shift)), off, sub) for c, off, sub in populated)
    else:
        devices = itertools.islice(coords(mesh_shape), len(populated))
        slots = tuple(ShardSlot(dev, off, sub) for dev, (_, off, sub) in zip(devices, populated))
    # The topology keeps the placements as given: ttnn reports PlacementShard(-1), not (rank-1).
    topology = Topology(dist_shape, tuple(placements), tuple(s.coord for s in slots))
    return Distribution(topology, slots)


def first_unequal_shard(shape: Shape, placements: list[Placement], per_axis: list) -> tuple[int, Shape, Shape] | None:
    """The first shard (row-major over the distribution) whose shape differs from the first
    shard's: ``(axis, first shard's shape, its shape)``, or None when all are equal. ttnn 0.81.1
    names these two shards' whole shapes, every sharded dim split (tests/golden "mappers").

    Row-major, later axes are faster, so the first unequal shard is at index 0 on every axis but
    the last axis with unequal chunks, at that axis's first chunk that differs from its first.

    >>> first_unequal_shard((1, 1, 96, 26), [Shard(2), Shard(3)], [chunk_ranges(96, 2), chunk_ranges(26, 4)])
    (1, (1, 1, 48, 7), (1, 1, 48, 5))
    """
    first = list(shape)
    for p, chunks in zip(placements, per_axis):
        if isinstance(p, Shard):
            first[p.dim] = chunks[0][1] - chunks[0][0]
    for axis in reversed(range(len(placements))):
        p = placements[axis]
        if not isinstance(p, Shard):
            continue
        sizes = [stop - start for start, stop in per_axis[axis]]
        other = next((n for n in sizes if n != sizes[0]), None)
        if other is not None:
            got = list(first)
            got[p.dim] = other
            return axis, tuple(first), tuple(got)
    return None


def anchor(region: Shape, mesh_shape: Shape, offset: Coord | None, submesh: bool) -> Coord:
    """Where a SUBMESH distribution (or composition) of ``region`` starts: ``mesh_offset_override``
    (PR #51639), checked as ttnn 0.81.1 checks it (tests/golden ``api``). A zero offset is the
    default and always accepted.

    >>> anchor((1, 4), (2, 4), (1, 0), True)
    (1, 0)
    """
    zero = (0,) * len(mesh_shape)
    if offset is None or not any(offset):
        return zero
    at = tuple(offset)
    if not submesh:
        raise TTFatal(
            "mesh_offset_override is only supported when the distribution fits within the mesh device per-dimension "
            f"(SUBMESH mode); the supplied mesh_shape_override {ttnn_shape(region)} requires a row-major reshape of "
            f"device shape {ttnn_shape(mesh_shape)}"
        )
    for d in range(len(mesh_shape)):
        if d >= len(at) or d >= len(region) or at[d] + region[d] > mesh_shape[d]:
            raise TTFatal(
                f"The sub-rectangle anchored at offset {ttnn_shape(at, 'MeshCoordinate')} with shape {ttnn_shape(region)} "
                f"does not fit within the mesh device shape {ttnn_shape(mesh_shape)} (dimension {d})"
            )
    return at


def mapper_config_repr(placements: tuple[Placement, ...], override: Shape | None) -> str:
    """How ttnn prints a MeshMapperConfig in its messages.

    >>> mapper_config_repr((Replicate(), Shard(1)), (8,))
    'MeshMapperConfig(placements: [PlacementReplicate(), PlacementShard(1)], mesh_shape_override=MeshShape([8]))'
    """
    names = ", ".join("PlacementReplicate()" if isinstance(p, Replicate) else f"PlacementShard({p.dim})" for p in placements)
    tail = f", mesh_shape_override={ttnn_shape(override)}" if override is not None else ""
    return f"MeshMapperConfig(placements: [{names}]{tail})"


def replicate_all(mesh_shape: Shape, shape: Shape) -> Distribution:
    """A plain host tensor copied to every device: topology ``(num_devices)``, ``[R]``."""
    slots = tuple(ShardSlot(c, (0,) * len(shape), tuple(shape)) for c in coords(mesh_shape))
    return Distribution(Topology((volume(mesh_shape),), (Replicate(),), tuple(s.coord for s in slots)), slots)


def single(mesh_shape: Shape, shape: Shape) -> Distribution:
    """A host tensor with no mapper: one shard, at the mesh's first coordinate."""
    first = tuple(0 for _ in mesh_shape)
    return Distribution(Topology((1,), (Replicate(),), (first,)), (ShardSlot(first, (0,) * len(shape), tuple(shape)),))


def parse_slice(text: str, shape: Shape) -> tuple[slice | int, ...]:
    """``"[:, 0:64, 3]"`` (numpy / torch style, as maps print slices) -> an index over ``shape``.
    A plain integer picks one position and drops that dim, as in torch and numpy: ``t[0, 0]`` of a
    ``[1, 8, 32, 32]`` tensor is ``[32, 32]``.

    >>> parse_slice("[:, 4:5, :, :]", (1, 7, 32, 32))
    (slice(None, None, None), slice(4, 5, None), slice(None, None, None), slice(None, None, None))
    >>> parse_slice("[..., 64:128]", (1, 1, 32, 512))[-1]
    slice(64, 128, None)
    >>> parse_slice("[0, -1]", (1, 8, 32, 32))
    (0, -1)
    """
    body = text.strip()
    if not (body.startswith("[") and body.endswith("]")):
        raise ValueError(f"{text!r} is not a slice; write it like [:, 0:64, :, :]")
    parts = [p.strip() for p in body[1:-1].split(",")] if body[1:-1].strip() else []
    if parts.count("...") > 1:
        raise ValueError(f"{text!r} has more than one ...")
    if "..." in parts:  # the leading (or middle) dims a slice leaves whole, as numpy reads it
        at = parts.index("...")
        parts[at : at + 1] = [":"] * (len(shape) - len(parts) + 1)
    if len(parts) > len(shape):
        raise ValueError(f"{text!r} has {len(parts)} dims; the tensor has {len(shape)}")
    out = []
    for p in parts:
        try:
            if ":" in p:
                a, _, b = p.partition(":")
                out.append(slice(int(a) if a.strip() else None, int(b) if b.strip() else None))
            else:
                out.append(int(p))
        except ValueError:
            raise ValueError(f"{text!r}: {p!r} is not an index or a start:stop range") from None
    return tuple(out)
