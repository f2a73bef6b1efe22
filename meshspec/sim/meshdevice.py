"""Mesh devices: the scenario's mesh, its submeshes, and what reshaping one does (docs/semantics.md
section 2).

A :class:`MeshDevice` is state, like ``ttnn.MeshDevice``: a shape that ``MeshDevice.reshape`` may
change under live tensors, a parent and an offset for a submesh, and an allocator of its own (a
submesh and its parent hand out the same addresses, ttnn 0.81.1, tests/golden ``api``). Device
tensors keep the shape their buffer was allocated on; a coordinate is checked against the mesh
when a call needs the device (ttnn 0.81.1 checks late: reshape never fails on live tensors).
"""

from __future__ import annotations

from typing import Optional

from ..errors import TTFatal
from .chips import Chips
from .mesh import Coord, Shape, coord_set, coord_tuple, coords, ids_on, line_of, ttnn_shape, volume

ROOT = "mesh_device"
"""The name steps use for the scenario's own mesh (``mesh_device:`` in a step; also the default)."""


class MeshDevice:
    """One mesh device. Compared by identity: it is state, not a value."""

    def __init__(self, name: str, shape: Shape, parent: Optional["MeshDevice"] = None, offset: Optional[Coord] = None,
                 chips: Optional[Chips] = None) -> None:
        self.name = name
        self.shape = tuple(shape)
        self.parent = parent
        self.offset = tuple(offset) if offset is not None else (0,) * len(shape)
        """Where the submesh's (0, ..., 0) lies in its parent."""
        self.made_shape = self.shape
        """The shape it was made with (a reshape changes :attr:`shape` only)."""
        self.system_shape = parent.system_shape if parent is not None else self.shape
        """The system mesh it was opened on (the shape a reshape's rank is checked against)."""
        self.chips = chips
        """The system's chips, for the scenario's own mesh opened on a known system (None otherwise)."""
        self.ids: Optional[tuple[int, ...]] = None
        """The physical device id at each coordinate, row-major (``get_device_ids()``: docs/semantics.md
        section 17); None where the system's chips are not known (a bare mesh shape)."""
        if chips is not None:
            self.ids = ids_on(chips, self.shape)
        elif parent is not None and parent.ids is not None:  # a submesh: its block of the parent's ids
            at = dict(zip(parent.coords, parent.ids))
            self.ids = tuple(at[tuple(o + x for o, x in zip(self.offset, c))] for c in coord_tuple(self.shape))

    def id_of(self, coord: Coord) -> Optional[int]:
        """The physical device id at ``coord`` (None where ids are not known)."""
        if self.ids is None:
            return None
        return self.ids[self.coords.index(coord)]

    @property
    def at(self) -> Coord:
        """Where its (0, ..., 0) lies on the scenario's mesh (a submesh of a submesh adds up)."""
        if self.parent is None:
            return (0,) * len(self.shape)
        return tuple(a + o for a, o in zip(self.parent.at, self.offset))

    @property
    def coords(self) -> tuple[Coord, ...]:
        """Its coordinates, row-major: one tuple per shape, made once (a tuple of every coordinate
        made at each call cost an allocation or a copy 1,500 instructions on a T3K, and the judge
        then compared the record's coordinates with its topology's item by item)."""
        return coord_tuple(self.shape)

    @property
    def num_devices(self) -> int:
        return volume(self.shape)

    def has(self, coord: Coord) -> bool:
        return coord in coord_set(self.shape)

    def check_coords(self, cs, what: str = "Coordinate") -> None:
        """:meth:`check_coord` of each of ``cs``, in order; one set operation when all are on the mesh."""
        if not coord_set(self.shape).issuperset(cs):
            for c in cs:
                self.check_coord(c, what)

    def check_coord(self, coord: Coord, what: str = "Coordinate") -> None:
        """ttnn's error for a coordinate that is not on this mesh (``MeshCoordinate([1, 0]) not found in
        mesh MeshShape([1, 4])``, tests/golden ``api``)."""
        if not self.has(coord):
            raise TTFatal(f"{what} {ttnn_shape(coord, 'MeshCoordinate')} not found in mesh {ttnn_shape(self.shape)}")

    def __repr__(self) -> str:
        where = f" of {self.parent.name} at {list(self.offset)}" if self.parent is not None else ""
        return f"MeshDevice({self.name!r}, {ttnn_shape(self.shape)}{where})"


def submesh(parent: MeshDevice, name: str, shape: Shape, offset: Optional[Coord]) -> MeshDevice:
    """``parent.create_submesh(MeshShape(shape), offset)``: a rectangle of the parent, no rotation or
    reshape; ttnn 0.81.1's error when it does not fit (tests/golden ``api``)."""
    shape = tuple(shape)
    if len(shape) != len(parent.shape):  # checked before the offset (observed, tests/golden api "submesh_ranks")
        raise TTFatal(
            f"Submesh shape {ttnn_shape(shape)} and mesh device shape {ttnn_shape(parent.shape)} must have the same "
            "number of dimensions. (a submesh is a rectangle of its parent, written with one size per axis of the parent)"
        )
    if offset is not None and len(offset) != len(shape):
        raise TTFatal(
            f"Submesh shape {ttnn_shape(shape)} and offset {ttnn_shape(tuple(offset), 'MeshCoordinate')} must have the "
            "same number of dimensions. (give the offset one coordinate per axis of the parent)"
        )
    where = (0,) * len(parent.shape) if offset is None else tuple(offset)
    fits = len(shape) == len(parent.shape) and len(where) == len(shape) and all(
        o >= 0 and o + s <= p for s, o, p in zip(shape, where, parent.shape)
    )
    if not fits:
        shown = "std::nullopt" if offset is None else ttnn_shape(where, "MeshCoordinate")
        raise TTFatal(
            f"Submesh shape {ttnn_shape(shape)} and offset {shown} does not fit within parent mesh ({ttnn_shape(parent.shape)})."
        )
    return MeshDevice(name, shape, parent, where)


def submeshes(parent: MeshDevice, name: str, shape: Shape) -> list[MeshDevice]:
    """``parent.create_submeshes(MeshShape(shape))``: the parent tiled by ``shape``, row-major."""
    shape = tuple(shape)
    # Each axis in turn, as far as the longer of the two shapes; one the submesh shape lacks, or one
    # the parent lacks, is ttnn 0.81.1's index error there (observed on a 2x4 mesh, tests/golden api
    # "submesh_ranks": (2,) and (2, 4, 1) on 2x4).
    for d in range(max(len(shape), len(parent.shape))):
        if d >= len(shape):
            raise TTFatal(
                f"ShapeBase[] index out of range. {d} not in [-{max(len(shape), 4)}, {len(shape)}) (the submesh shape "
                f"{ttnn_shape(shape)} has fewer axes than the mesh {ttnn_shape(parent.shape)}; give one size per axis)"
            )
        if d >= len(parent.shape):
            n = len(parent.shape)
            raise TTFatal(
                f"Index out of bounds: {d} not in [-{n}, {n}) (the submesh shape {ttnn_shape(shape)} has more axes "
                f"than the mesh {ttnn_shape(parent.shape)}; give one size per axis)"
            )
        p, s = parent.shape[d], shape[d]
        if s <= 0 or p % s:
            raise TTFatal(f"Shape {ttnn_shape(parent.shape)} is not divisible by submesh shape {ttnn_shape(shape)} along dimension {d}")
    grid = tuple(p // s for p, s in zip(parent.shape, shape))
    return [
        MeshDevice(f"{name}[{i}]", shape, parent, tuple(g * s for g, s in zip(at, shape)))
        for i, at in enumerate(coords(grid))
    ]


def reshape(mesh: MeshDevice, shape: Shape, connected: bool = True) -> None:
    """``mesh.reshape(MeshShape(shape))``: the same devices in a new shape; live tensors keep their
    coordinates, on the new shape or not (ttnn 0.81.1, tests/golden ``api``).

    The devices' order (docs/semantics.md section 17): ``connected`` (PR #17646; ttnn 0.81.1,
    observed) gives a mesh reshaped to a 2-D grid the block of the system mesh at its offset
    (:func:`grid_block`, which refuses a grid that is not one), and a submesh reshaped to a line its
    devices row by row, every other row backwards; otherwise (before PR #17646) the ids keep their
    row-major order."""
    shape = tuple(shape)
    if volume(shape) != volume(mesh.shape):
        raise TTFatal("New shape must have the same number of devices as current shape")
    if len(shape) != len(mesh.system_shape) and len(shape) != 1:  # checked against the system mesh, as opening is
        raise TTFatal(f"Requested mesh shape dimensions mismatch: {ttnn_shape(shape)} != {ttnn_shape(mesh.system_shape)}")
    old, ids = mesh.shape, mesh.ids
    line = len(shape) == 1 or min(shape) == 1
    chips = _root(mesh).chips
    at = mesh.at if mesh.parent is not None else (0, 0)  # the scenario's mesh, of any rank now, starts at the corner
    block = grid_block(chips.grid, at, shape, ids, old) if connected and not line and chips is not None else None
    mesh.shape = shape
    if ids is None or not connected:
        return
    if block is not None:
        mesh.ids = block
    elif mesh.chips is not None:  # the scenario's own mesh reshaped to a line: the system's line
        mesh.ids = ids_on(mesh.chips, shape)
    else:
        mesh.ids = line_of(old, ids)


def _root(mesh: MeshDevice) -> MeshDevice:
    while mesh.parent is not None:
        mesh = mesh.parent
    return mesh


def grid_block(grid: tuple[tuple[int, ...], ...], offset: Coord, shape: Shape, ids: Optional[tuple[int, ...]],
               before: Shape) -> tuple[int, ...]:
    """The device ids a mesh at ``offset`` on the system mesh ``grid`` holds after ttnn 0.81.1's
    ``MeshDevice.reshape`` to the 2-D grid ``shape``, or its error (observed in the mock for the
    T3K's submeshes and the galaxies' own mesh, tests/golden device_ids): the block of ``shape`` at
    ``offset``, or of its transpose read column by column, must fit the system mesh ("Requested mesh
    is too big and is not rotatable", issue #26118's 2x16 on an 8x4 galaxy), and hold the mesh's own
    chips ``ids`` in its shape ``before`` ("not possible to form a physically connected mesh grid": a T3K row, 1x4, to 2x2).

    >>> T3K = ((4, 0, 2, 6), (5, 1, 3, 7))
    >>> grid_block(T3K, (0, 0), (4, 2), (4, 0, 2, 6, 5, 1, 3, 7), (2, 4))
    (4, 5, 0, 1, 2, 3, 6, 7)
    >>> grid_block(T3K, (0, 0), (2, 2), (4, 0, 2, 6), (1, 4))
    Traceback (most recent call last):
    ...
    meshspec.errors.TTFatal: User has requested a reshape of the MeshDevice to shape: MeshShape([2, 2]), but it is not possible to form a physically connected mesh grid with the opened devices from the original shape: MeshShape([1, 4]). (the block of the system mesh at the mesh's offset holds chips [4, 0, 5, 1], not its own [4, 0, 2, 6])
    """
    home = (len(grid), len(grid[0]))
    rows, cols = shape
    if all(o + n <= h for o, n, h in zip(offset, shape, home)):
        block = tuple(grid[offset[0] + r][offset[1] + c] for r in range(rows) for c in range(cols))
    elif all(o + n <= h for o, n, h in zip(offset, reversed(shape), home)):
        block = tuple(grid[offset[0] + c][offset[1] + r] for r in range(rows) for c in range(cols))
    else:
        raise TTFatal(f"Requested mesh is too big and is not rotatable: {ttnn_shape(shape)} and SystemMesh {ttnn_shape(home)}, "
                      f"offset {ttnn_shape(offset, 'MeshCoordinate')} (a 2-D mesh must fit the system mesh from its offset, "
                      "as it is or rotated; a line of the same devices always goes)")
    if ids is not None and sorted(block) != sorted(ids):
        raise TTFatal(f"User has requested a reshape of the MeshDevice to shape: {ttnn_shape(shape)}, but it is not possible to "
                      f"form a physically connected mesh grid with the opened devices from the original shape: "
                      f"{ttnn_shape(before)}. (the block of the system mesh at the mesh's offset holds chips "
                      f"{list(block)}, not its own {list(ids)})")
    return block
