"""``ttnn.from_torch(t, dtype, layout, mesh_mapper=...)``: a host tensor, distributed by a mapper.

The mapper's distribution is :func:`~meshspec.sim.mapping.distribute` under the era's mapper rules
(docs/semantics.md section 4). Without a mapper the result is one plain host tensor, which a copy
replicates to every device. Block floats are quantized shard by shard, as ttnn does.
"""

from typing import Optional

from ..profiles import HostBorrow
from ..runtime import Runtime
from ..spec import Layout, TensorSpec
from .base import Op, TensorKind, Use
from .fields import As, Data, Mapper, MeshName, TensorFields
from .mappers import mapper_choice
from .transfer import make_host, put


class FromTorch(TensorFields):
    """``ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=..., device=..., memory_config=...)``."""

    as_: As
    data: Data = "arange"
    mesh_mapper: Optional[Mapper] = None
    device: Optional[MeshName] = None
    """A mesh device: the tensor goes on it (to_device with ``memory_config``, DRAM without one)."""


def run(rt: Runtime, a: FromTorch) -> None:
    choice = mapper_choice(a.mesh_mapper, lambda m: rt.mesh(m).num_devices) if a.mesh_mapper is not None else None
    # a mapper is made for its own mesh device (the scenario's unless it names one), whatever device the
    # call puts the tensor on: a parent's mapper on a submesh is refused when written (ttnn 0.81.1, observed)
    mesh = rt.mesh(choice.mesh if choice is not None else a.device)
    host = make_host(rt, a, a.as_, choice, mesh)
    host.borrowed = choice is None and borrows(rt, host.spec)
    if a.device is None:
        rt.bind(a.as_, host)
        return
    # ttnn.from_torch(device=) is the host tensor, then to_device (ttnn/operations/core.py from_torch,
    # ttnn.Tensor(..., device, mem_config)); in the mock the conversion runs a kernel and fails, so
    # tests/golden records distribute_tensor(host, mapper, mesh_device), which places the same shards.
    put(rt, host, a.as_, a.placement, rt.mesh(a.device))


def borrows(rt: Runtime, spec: TensorSpec) -> bool:
    """Whether from_torch (no mapper) borrows the caller's buffer in this era: under the borrowing
    rules, a ROW_MAJOR tensor of a dtype stored as given (not a block float: "newly created non-bfp_b
    types", PR #18555; a float32 ROW_MAJOR numpy array in ttnn 0.66.0, observed). A TILE tensor is
    tilized into a new, owned buffer *(inferred)*."""
    return (rt.profile.host_borrow is not HostBorrow.OWNED and spec.layout is Layout.ROW_MAJOR
            and not spec.dtype.is_block_float)


OP = Op(
    "from_torch",
    FromTorch,
    run,
    "Make a host tensor from generated or file data, distributed over the mesh by a mesh mapper.",
    "ttnn.from_torch(torch_tensor, dtype, layout, mesh_mapper=...)",
    uses=(Use("device", TensorKind.MESH),),
    binds=Use("as_", TensorKind.HOST),
    kind_of=lambda a: TensorKind.DEVICE if a.device is not None else TensorKind.HOST,
    hints=(
        ("tensor", "write the values with `data:` (arange, zeros, ones, {fill: V}, {random: SEED} or {file: x.npy})"),
    ),
    captured=False, only_makes=True,
)
