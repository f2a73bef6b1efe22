"""Submeshes and reshaping a mesh: ``mesh_device.create_submesh(shape, offset)``,
``mesh_device.create_submeshes(shape)`` and ``mesh_device.reshape(shape)`` (meshspec/sim/meshdevice.py;
docs/semantics.md section 2).

A submesh's coordinates are its own ((0, 0) is its corner in the parent). A tensor keeps the mesh
it was made on; a host tensor's coordinates are taken as they are by whichever mesh it is put on.
"""

from __future__ import annotations

from typing import Annotated, Optional

from ...typed import Length, Range, Typed
from ..meshdevice import reshape, submesh, submeshes
from ...errors import StepInputError
from ..profiles import ReshapeOrder
from ..runtime import Runtime
from .base import Op, TensorKind, Use
from .fields import As, Dim, MeshName

Shape = Annotated[list[Dim], Length(min=1, max=4)]


class CreateSubmesh(Typed):
    """``mesh_device.create_submesh(ttnn.MeshShape(shape), ttnn.MeshCoordinate(offset))``."""

    mesh_device: Optional[MeshName] = None
    shape: Shape
    offset: Optional[Annotated[list[Annotated[int, Range(ge=0)]], Length(min=1, max=4)]] = None
    as_: As


class CreateSubmeshes(Typed):
    """``mesh_device.create_submeshes(ttnn.MeshShape(shape))``: the mesh tiled, bound as ``as[0]`` ..."""

    mesh_device: Optional[MeshName] = None
    shape: Shape
    as_: As


class Reshape(Typed):
    """``mesh_device.reshape(ttnn.MeshShape(shape))``."""

    mesh_device: Optional[MeshName] = None
    shape: Shape


def create_submesh(rt: Runtime, a: CreateSubmesh) -> None:
    parent = rt.mesh(a.mesh_device)
    rt.bind_mesh(a.as_, submesh(parent, a.as_, tuple(a.shape), tuple(a.offset) if a.offset is not None else None))


def create_submeshes(rt: Runtime, a: CreateSubmeshes) -> None:
    parent = rt.mesh(a.mesh_device)
    rt.bind_meshes(a.as_, submeshes(parent, a.as_, tuple(a.shape)))


def run_reshape(rt: Runtime, a: Reshape) -> None:
    if rt.hosts is not None:  # which host owns a device after a reshape was not found in the source
        raise StepInputError(
            "MeshDevice.reshape on a mesh spread over several hosts is not modelled by meshspec (which host owns "
            "each coordinate after it was not found in tt-metal's source; docs/semantics.md section 15): drop hosts: or the reshape"
        )
    reshape(rt.mesh(a.mesh_device), tuple(a.shape), connected=rt.profile.reshape_order is ReshapeOrder.CONNECTED)


_PARENT = Use("mesh_device", TensorKind.MESH)

def _export_create_submesh(a, ctx):
    shape = ", ".join(map(str, a.shape))
    offset = f", ttnn.MeshCoordinate({', '.join(map(str, a.offset))})" if a.offset is not None else ""
    return [f"{ctx.var(a.as_)} = {ctx.mesh(a.mesh_device)}.create_submesh(ttnn.MeshShape({shape}){offset})"]


def _export_create_submeshes(a, ctx):
    return [f"{ctx.var(a.as_)} = {ctx.mesh(a.mesh_device)}.create_submeshes(ttnn.MeshShape({', '.join(map(str, a.shape))}))"]


def _export_MeshDevice_reshape(a, ctx):
    return [f"{ctx.mesh(a.mesh_device)}.reshape(ttnn.MeshShape({', '.join(map(str, a.shape))}))"]


OPS = (
    Op("create_submesh", CreateSubmesh, create_submesh,
       "A rectangle of a mesh device as a mesh of its own (own coordinates, own allocator).",
       "mesh_device.create_submesh(ttnn.MeshShape(...), ttnn.MeshCoordinate(...))",
       uses=(_PARENT,), binds=Use("as_", TensorKind.MESH), only_makes=True, export=_export_create_submesh),
    Op("create_submeshes", CreateSubmeshes, create_submeshes,
       "A mesh device tiled by a shape: submeshes bound as as[0], as[1] ..., row-major.",
       "mesh_device.create_submeshes(ttnn.MeshShape(...))",
       uses=(_PARENT,), binds=Use("as_", TensorKind.MESH, many=True), only_makes=True, export=_export_create_submeshes),
    Op("MeshDevice.reshape", Reshape, run_reshape,
       "The same devices in another shape; live tensors keep their coordinates, on the new shape or not.",
       "mesh_device.reshape(ttnn.MeshShape(...))",
       uses=(_PARENT,), export=_export_MeshDevice_reshape),
)
