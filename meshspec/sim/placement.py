"""Placements and tensor topology: small immutable values with a pasteable repr and a short str.

``Replicate()`` / ``Shard(dim=1)`` mirror ``ttnn.PlacementReplicate`` / ``ttnn.PlacementShard``;
their ``str`` forms ``R`` / ``S(1)`` are what tables show.
"""

from __future__ import annotations

from typing import Union

from ..frozen import Frozen
from .mesh import Coord, Shape, coord_set as _mesh_coords


class Replicate(Frozen):
    """Every device along this distribution axis gets the same data."""

    def __str__(self) -> str:
        return "R"

    def to_json(self) -> str:
        return "R"


class Shard(Frozen):
    """The tensor's dim ``dim`` is split (as ``torch.chunk``) along this distribution axis."""

    dim: int

    # Frozen's equality and hash, by the one field: a mapper's placements key its cached
    # distributions, and the general ones made a generator of the fields a call
    def __eq__(self, other: object) -> bool:
        return type(other) is Shard and other.dim == self.dim  # type: ignore[attr-defined]

    def __hash__(self) -> int:
        return hash((Shard, self.dim))

    def __str__(self) -> str:
        return f"S({self.dim})"

    def to_json(self) -> dict:
        return {"shard": self.dim}


class Partial(Frozen):
    """Never a label, only a data layout (``Record.truth``): the devices along this axis hold
    partial sums (a matmul's contracted dim is split there). ttnn has no such placement; an
    all_reduce or reduce_scatter over the axis completes the sums (docs/semantics.md section 12)."""

    def __str__(self) -> str:
        return "P"

    def to_json(self) -> str:
        return "partial"


Placement = Union[Replicate, Shard]


def has_partial(topo: "Topology") -> bool:
    """Whether a data layout holds partial sums on some axis."""
    return any(isinstance(p, Partial) for p in topo.placements)


def as_label(topo: "Topology") -> "Topology":
    """The label ttnn can give a data layout: a partial axis is labelled Replicate (the reference's
    label for partial sums, the nearest ttnn has).

    >>> as_label(Topology((2,), (Partial(),), ((0,), (1,)))).placements
    (Replicate(),)
    """
    if not has_partial(topo):
        return topo
    return Topology(topo.distribution_shape, tuple(Replicate() if isinstance(p, Partial) else p for p in topo.placements), topo.coords)


class Topology(Frozen):
    """``ttnn.TensorTopology``: how a tensor is laid over the mesh.

    ``coords`` are the device coordinates that hold a shard, in distribution order.
    """

    distribution_shape: Shape
    placements: tuple[Placement, ...]
    coords: tuple[Coord, ...]

    def __str__(self) -> str:
        shape = "x".join(str(n) for n in self.distribution_shape)
        n = len(self.coords)
        return f"({shape}) [{', '.join(str(p) for p in self.placements)}] on {n} device{'s' * (n != 1)}"

    def coord_set(self) -> frozenset[Coord]:
        """``coords`` as a set, made once per topology: the get_device_tensors parts of a tensor
        share its topology, and a set for each part made 16,384 parts on 128x128 quadratic."""
        d = self.__dict__  # beside the fields: equality, hashing and replace() read the fields only
        cached = d.get("_coord_set")
        if cached is None:
            cached = d["_coord_set"] = frozenset(self.coords)
        return cached

    def off_mesh(self, mesh_shape: Shape) -> tuple[Coord, ...]:
        """The coordinates not on a mesh of ``mesh_shape``, in order (worked out once per shape)."""
        d = self.__dict__
        key = ("_off_mesh", tuple(mesh_shape))
        cached = d.get(key)
        if cached is None:
            on = _mesh_coords(tuple(mesh_shape))
            cached = d[key] = () if self.coord_set() <= on else tuple(c for c in self.coords if c not in on)
        return cached

    def to_json(self) -> dict:
        return {
            "distribution_shape": list(self.distribution_shape),
            "placements": [p.to_json() for p in self.placements],
            "coords": [list(c) for c in self.coords],
        }
