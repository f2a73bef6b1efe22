"""Every spelling of a mesh mapper or composer, as the one thing it means.

Scenarios spell mappers and composers the way code does: ``{ShardTensorToMesh: {dim: 1}}``,
``{create_mesh_mapper: {placements: [...], mesh_shape_override: [...]}}``, or meshspec's short
forms (``{shard: 1}``, ``replicate``, ``{concat: 1}``). What they mean is ttnn 0.81.1's, from
``ttnn/distributed/distributed.py`` (the legacy names are thin wrappers, PR #23684):

- ``ShardTensorToMesh(md, dim)`` = ``shard_tensor_to_mesh_mapper(md, dim)``: ``[Shard(dim)]`` over
  ``(num_devices)``; ``ReplicateTensorToMesh(md)``: ``[Replicate]`` over ``(num_devices)``;
- ``ShardTensor2dMesh(md, mesh_shape, dims)``: ``MeshMapperConfig([R if d is None else S(d) for d
  in dims], MeshShape(mesh_shape))``;
- ``ConcatMeshToTensor(md, dim)`` = ``concat_mesh_to_tensor_composer(md, dim)``: a 1-D walk over
  every device; ``ConcatMesh2dToTensor(md, mesh_shape, dims)``: ``MeshComposerConfig(dims,
  MeshShape(mesh_shape))``.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, Optional

from ...errors import StepInputError
from ...frozen import Frozen
from ...typed import Check, Length, Typed
from ..mesh import Coord, Shape
from ..placement import Placement, Replicate, Shard, Topology
from . import fields as f


class MapperChoice(Frozen):
    placements: tuple[Placement, ...]
    override: Optional[Shape]
    """The distribution shape (``mesh_shape_override``); None: the mesh's."""
    offset: Optional[Coord]
    """``mesh_offset_override``."""
    mesh: Optional[str]
    """The mesh device the mapper was made for, if the scenario names one."""
    replicate_wrapper: bool
    """Made by ``ReplicateTensorToMesh``: ``as_tensor`` caches such a tensor unsharded."""
    text: str
    """The mapper as ttnn code."""
    replicate: bool = False
    """``replicate_tensor_to_mesh_mapper`` (or ``ReplicateTensorToMesh``): ``[Replicate]`` over
    ``(num_devices)``, which the rule ``replicated_distribution`` may record as the mesh's shape."""


class ComposerChoice(Frozen):
    dims: tuple[int, ...]
    override: Optional[Shape]
    offset: Optional[Coord]
    one_d: bool
    """``concat_mesh_to_tensor_composer``: a 1-D walk over every device of the mesh."""
    mesh: Optional[str]
    text: str


def placement_of(p: Any) -> Placement:
    """A validated placement item (``replicate``, ``R`` or ``{shard: DIM}``) as a placement."""
    return Replicate() if p in ("replicate", "R") else Shard(p.shard)


def _shape(v: Optional[list]) -> Optional[Shape]:
    return tuple(v) if v is not None else None


def mapper_choice(m: Any, num_devices: Callable[[Optional[str]], int]) -> MapperChoice:
    """The distribution a validated ``mesh_mapper`` means; ``num_devices(mesh)`` sizes the 1-D ones."""
    if isinstance(m, str):
        wrapper = m == "ReplicateTensorToMesh"
        call = "ttnn.ReplicateTensorToMesh(mesh_device)" if wrapper else "ttnn.replicate_tensor_to_mesh_mapper(mesh_device)"
        return MapperChoice((Replicate(),), (num_devices(None),), None, None, wrapper, call, replicate=True)
    if isinstance(m, f.ShardPlacement):
        return MapperChoice((Shard(m.shard),), (num_devices(None),), None, None, False, f"ttnn.shard_tensor_to_mesh_mapper(mesh_device, {m.shard})")
    if isinstance(m, f.PlacementsMapper):
        return _config(m.placements, m.mesh_shape, m.mesh_offset, None)
    key = type(m).key  # type: ignore[attr-defined]
    inner = getattr(m, key)
    if isinstance(inner, f.ShardToMesh):
        return MapperChoice((Shard(inner.dim),), (num_devices(inner.mesh_device),), None, inner.mesh_device, False, f"ttnn.{key}(mesh_device, {inner.dim})")
    if isinstance(inner, f.ReplicateToMesh):
        return MapperChoice((Replicate(),), (num_devices(inner.mesh_device),), None, inner.mesh_device, key == "ReplicateTensorToMesh",
                            f"ttnn.{key}(mesh_device)", replicate=True)
    if isinstance(inner, f.Shard2d):
        placements = tuple(Replicate() if d is None else Shard(d) for d in inner.dims)
        text = f"ttnn.ShardTensor2dMesh(mesh_device, mesh_shape={tuple(inner.mesh_shape)}, dims={tuple(inner.dims)})"
        return MapperChoice(placements, tuple(inner.mesh_shape), None, inner.mesh_device, False, text)
    assert isinstance(inner, f.MapperConfig)
    placements = inner.placements
    if placements is None:  # MeshMapperConfig(row_dim, col_dim): a None dim replicates its mesh axis
        placements = ["replicate" if d is None else f.ShardPlacement(shard=d) for d in (inner.row_dim, inner.col_dim)]
    return _config(placements, inner.mesh_shape_override, inner.mesh_offset_override, inner.mesh_device)


def _config(placements: list, override: Optional[list], offset: Optional[list], mesh: Optional[str]) -> MapperChoice:
    ps = tuple(placement_of(p) for p in placements)
    parts = ["[" + ", ".join("ttnn.PlacementReplicate()" if isinstance(p, Replicate) else f"ttnn.PlacementShard({p.dim})" for p in ps) + "]"]
    if override is not None:
        parts.append(_ttnn_shape("MeshShape", override))
    if offset is not None:
        parts.append(_ttnn_shape("MeshCoordinate", offset))
    text = f"ttnn.create_mesh_mapper(mesh_device, ttnn.MeshMapperConfig({', '.join(parts)}))"
    return MapperChoice(ps, _shape(override), _shape(offset), mesh, False, text)


def _ttnn_shape(kind: str, values: list) -> str:
    """``ttnn.MeshShape(2, 4)``, or ``ttnn.MeshShape([7])`` for one dim: every version's binding
    refuses ``MeshShape(7)`` and ``MeshCoordinate(1)`` (``incompatible function arguments``; 0.81.1,
    0.67.0 and 0.66.0 in the mock, found by ``meshspec hunt --real``)."""
    return f"ttnn.{kind}([{values[0]}])" if len(values) == 1 else f"ttnn.{kind}({', '.join(map(str, values))})"


def composer_choice(c: Any) -> ComposerChoice:
    """What a validated ``mesh_composer`` means."""
    if isinstance(c, f.ConcatComposer):
        if isinstance(c.concat, int) and c.mesh_shape is None and c.mesh_offset is None:
            return ComposerChoice((c.concat,), None, None, True, None, f"ttnn.concat_mesh_to_tensor_composer(mesh_device, {c.concat})")
        dims = tuple(c.concat) if isinstance(c.concat, list) else (c.concat,)
        return _composer_config(dims, c.mesh_shape, c.mesh_offset, None)
    key = type(c).key  # type: ignore[attr-defined]
    inner = getattr(c, key)
    if isinstance(inner, f.ConcatToTensor):
        return ComposerChoice((inner.dim,), None, None, True, inner.mesh_device, f"ttnn.{key}(mesh_device, {inner.dim})")
    if isinstance(inner, f.Concat2d):
        text = f"ttnn.ConcatMesh2dToTensor(mesh_device, mesh_shape={tuple(inner.mesh_shape)}, dims={tuple(inner.dims)})"
        return ComposerChoice(tuple(inner.dims), tuple(inner.mesh_shape), None, False, inner.mesh_device, text)
    assert isinstance(inner, f.ComposerConfig)
    dims = tuple(inner.dims) if inner.dims is not None else tuple(d for d in (inner.row_dim, inner.col_dim) if d is not None)
    if not dims:
        raise StepInputError("create_mesh_composer needs dims, or row_dim and col_dim")
    return _composer_config(dims, inner.mesh_shape_override, inner.mesh_offset_override, inner.mesh_device)


def _composer_config(dims: tuple, override: Optional[list], offset: Optional[list], mesh: Optional[str]) -> ComposerChoice:
    parts = [f"[{', '.join(map(str, dims))}]"]
    if override is not None:
        parts.append(_ttnn_shape("MeshShape", override))
    if offset is not None:
        parts.append(_ttnn_shape("MeshCoordinate", offset))
    text = f"ttnn.create_mesh_composer(mesh_device, ttnn.MeshComposerConfig({', '.join(parts)}))"
    return ComposerChoice(dims, _shape(override), _shape(offset), False, mesh, text)


class TopologyFields(Typed):
    """A topology as ``ttnn.TensorTopology(distribution_shape, placements, mesh_coords)`` takes it, or
    as reports print it (pasteable): ``{distribution_shape, placements, coords}``."""

    distribution_shape: Annotated[list[f.Dim], Length(min=1, max=4)]
    placements: Annotated[list[f.PlacementItem], Length(min=1)]
    mesh_coords: Optional[list[Annotated[list[int], Length(min=1, max=4)]]] = None
    """The coordinates, as lists: TensorTopology's own argument name."""
    coords: Optional[list[Annotated[list[int], Length(min=1, max=4)]]] = None
    """The coordinates as a report prints them: ``mesh_coords`` by another name (give one)."""

    @property
    def coordinates(self) -> list:
        """The coordinates, however spelt (:data:`Topology` checked that one spelling is given)."""
        return self.mesh_coords if self.mesh_coords is not None else self.coords or []

    def topology(self) -> Topology:
        return Topology(
            tuple(self.distribution_shape), tuple(placement_of(p) for p in self.placements), tuple(tuple(c) for c in self.coordinates)
        )


def _coords_once(t: TopologyFields) -> TopologyFields:
    """One spelling of the coordinates: ttnn's ``mesh_coords`` or the report's ``coords``."""
    if (t.mesh_coords is None) == (t.coords is None):
        why = "mesh_coords and coords are both given" if t.mesh_coords is not None else "no mesh_coords"
        raise ValueError(f"{why}: give the coordinates once, as mesh_coords (ttnn.TensorTopology's argument) or coords "
                         "(as a report prints them)")
    return t


GivenTopology = Annotated[TopologyFields, Check(_coords_once)]
"""A topology a step gives: :class:`TopologyFields` with its coordinates spelt once."""
