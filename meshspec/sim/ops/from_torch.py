"""``ttnn.from_torch(t, dtype, layout, mesh_mapper=...)``: a host tensor, distributed by a mapper.

The mapper's distribution is :func:`~meshspec.sim.mapping.distribute` under the era's mapper rules
(docs/semantics.md section 4). Without a mapper the result is one plain host tensor, which a copy
replicates to every device. Block floats are quantized shard by shard, as ttnn does.
"""

from typing import Any, Optional

from ...errors import TTFatal
from ..mesh import volume
from ..profiles import HostBorrow, NumpyBfloat16
from ..runtime import Runtime
from ..spec import DataType, Layout, TensorSpec
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import DEFAULT_KIND, KINDS, Step, devices_written, kind_fields, new_mapper, new_shape
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
    numpy: bool = False
    """The data is a numpy array given to the constructor from_torch ends in, ``ttnn.Tensor(array,
    dtype, device, layout, mesh_mapper=...)`` (the call where torch is missing), not a torch tensor:
    where that constructor misreads bfloat16 (profile rule ``numpy_bfloat16``), the call is refused."""


def run(rt: Runtime, a: FromTorch) -> None:
    if a.numpy:
        check_numpy_dtype(rt, DataType(a.dtype), a.shape)
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


def check_numpy_dtype(rt: Runtime, dtype: DataType, shape) -> None:
    """The numpy ``ttnn.Tensor`` constructor of an era whose bfloat16 conversion reads nothing
    (rule ``numpy_bfloat16``; docs/semantics.md section 23): refused in that version's words, which
    name the whole tensor's volume. Every other dtype reads in every version (observed)."""
    rule = rt.profile.numpy_bfloat16
    if dtype is not DataType.BFLOAT16 or rule is NumpyBfloat16.CONVERTED:
        return
    n = volume(tuple(shape))
    why = ("(the numpy ttnn.Tensor constructor of this profile's era converts a numpy array to bfloat16 as an empty "
           "buffer, whatever the array's dtype or the layout; ttnn 0.81.1 reads it. Build it as float32 from a float32 "
           "array, then ttnn.to_dtype(tensor, ttnn.bfloat16), as meshspec export --minimal does)")
    said = {  # each refusing choice in its version's words
        NumpyBfloat16.EMPTY_BUFFER: f"Current buffer size is 0 different from shape volume {n}",
        NumpyBfloat16.INVALID_NDARRAY: f"Number of elements from python tensor 0 must match volume of shape {n}! is_valid: false, "
                                       "itemsize: 0, deviceid: 0, nbytes: 0, ndim: 0 dtype.code: 0, dtype.bits: 0",
    }[rule]
    raise TTFatal(f"{said} {why}")


def borrows(rt: Runtime, spec: TensorSpec) -> bool:
    """Whether from_torch (no mapper) borrows the caller's buffer in this era: under the borrowing
    rules, a ROW_MAJOR tensor of a dtype stored as given (not a block float: "newly created non-bfp_b
    types", PR #18555; a float32 ROW_MAJOR numpy array in ttnn 0.66.0, observed). A TILE tensor is
    tilized into a new, owned buffer *(inferred)*."""
    return (rt.profile.host_borrow is not HostBorrow.OWNED and spec.layout is Layout.ROW_MAJOR
            and not spec.dtype.is_block_float)


def _generate(rng, st, op: str) -> Step:
    """A host tensor (or now and then one on the mesh) of a new shape, or of shards that fit an
    allocation made before: a host tensor to copy into it."""
    shape = new_shape(rng, st.size)
    earlier = [h[0] for h in st.hosts.values() if len(h[0]) == 4]
    allocated = [d for d, s in st.devices.items() if len(s) == 4]
    kind = rng.choice(KINDS) if rng.random() < 0.3 else DEFAULT_KIND
    if allocated and rng.random() < 0.7:  # shards that fit an allocation: a host tensor to copy into it
        fit = rng.choice(allocated)
        target, kind = list(st.devices[fit]), st.kinds.get(fit, DEFAULT_KIND)
        # the other coverage than what was last copied into it: a partial write after a whole
        # one, a whole one after a partial one (where records and data part ways)
        last = st.covered.get(fit)
        ways = {"whole": ["whole", "shard"] if target[1] == 1 else ["whole"], "part": ["part"]}
        way = rng.choice(ways["part" if last == "whole" else "whole"] if last and rng.random() < 0.7
                         else (["whole", "part", "shard"] if target[1] == 1 else ["whole", "part"]))
        if way == "shard":  # dim 1 over the mesh, one row a device: shorter than the mesh leaves devices out
            shape = [target[0], max(1, rng.choice([st.size - 1, st.size])), *target[2:]]
            mapper, dim, shard = {"shard": 1}, 1, list(target)
        elif way == "part" and st.size > 2:  # a write to fewer devices than the mesh, of shards that fit
            m = rng.randint(1, st.size - 1)
            shape = [target[0], target[1] * m, *target[2:]]
            mapper = {"create_mesh_mapper": {"placements": [{"shard": 1}], "mesh_shape_override": [m]}}
            dim, shard = 1, list(target)
        else:
            shape, mapper, dim, shard = list(target), "replicate", None, list(target)
    else:
        if earlier and rng.random() < 0.5:  # the rows and columns of an earlier one: their shards may share an allocation
            shape[2:] = list(rng.choice(earlier)[2:])
        mapper, dim, shard = new_mapper(rng, st, shape)
    name = st.fresh("h")
    args: dict[str, Any] = {"as": name, "shape": shape, **kind_fields(kind), "mesh_mapper": mapper}
    st.kinds[name] = kind
    st.coverage[name] = "whole" if devices_written(mapper, shape, st.size) >= st.size else "part"
    if rng.random() < 0.2:
        args["device"] = "mesh_device"
        st.devices[name] = shard
    else:
        st.hosts[name] = (shard, dim)
    if rng.random() < 0.3:
        args["data"] = {"random": rng.randint(1, 9)}
    return {"from_torch": args}


def _export_from_torch(a, ctx):
    device = ctx.mesh(a.device) if a.device else "None"
    memory = ex.memory_code(a) if a.memory_config is not None else "None"
    return [
        f"{ctx.var(a.as_)} = host_tensor({ex.data_code(a, ctx)}, {ex.DTYPES[DataType(a.dtype)]}, {ex.LAYOUTS[Layout(a.layout)]}, "
        f"mapper={ex.mapper_code(a.mesh_mapper, ctx)}, device={device}, memory_config={memory}, tile={list(a.tile)}"
        f"{', numpy=True' if a.numpy else ''})"
    ]


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
    generate=_generate,
    export=_export_from_torch,
)
