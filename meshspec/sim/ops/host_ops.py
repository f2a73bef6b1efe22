"""Host-only tensor calls on a (mapped) host tensor, shard by shard (docs/semantics.md section 18):
``ttnn.to_dtype(tensor, dtype)``, ``tensor.unpad(start, end)`` and ``tensor.pad_to_tile(value)``.

Each runs on every shard of the host tensor and keeps its topology (meshspec/sim/host_transform.py,
which to_layout, typecast, reshape and pad of a host tensor use too); which of them an era ran on a
multi-shard tensor is the profile rule ``host_shard_ops``.
"""

from __future__ import annotations

from typing import Annotated, Union

from ...errors import ResourceLimit
from ...typed import Check, Length, Range, Typed
from .. import host_transform
from ..runtime import Runtime
from ..spec import DataType
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import is_tile, new_dtype, on_host
from .fields import As, Name


class ToDtype(Typed):
    """``ttnn.to_dtype(tensor, dtype)``."""

    tensor: Name
    dtype: DataType
    as_: As


_Index = Annotated[list[Annotated[int, Range(ge=0, le=2**31)]], Length(min=1, max=8)]


class Unpad(Typed):
    """``tensor.unpad(output_tensor_start, output_tensor_end)``: the region ``[start, end)`` of each shard."""

    tensor: Name
    output_tensor_start: _Index
    output_tensor_end: _Index
    as_: As


def _finite(value: Union[int, float]) -> Union[int, float]:
    """The value, when finite (a ``Check`` returns the value it keeps: this one returned None for
    every finite value, so pad_to_tile's pad_value was lost and its export failed; found by
    ``meshspec hunt --real``)."""
    if value != value or abs(value) == float("inf"):
        raise ValueError("a finite number")
    return value


class PadToTile(Typed):
    """``tensor.pad_to_tile(pad_value)``."""

    tensor: Name
    pad_value: Annotated[Union[int, float], Check(_finite)] = 0.0
    as_: As


def to_dtype(rt: Runtime, a: ToDtype) -> None:
    host = rt.host(a.tensor)
    rt.bind(a.as_, host_transform.to_dtype(rt.profile.host_shard_ops, rt.op, a.tensor, host, a.as_, rt.step, DataType(a.dtype),
                                                rt.profile.row_major_tilize))


def unpad(rt: Runtime, a: Unpad) -> None:
    host = rt.host(a.tensor)
    start, end = tuple(a.output_tensor_start), tuple(a.output_tensor_end)

    def out_of_bounds(s) -> ResourceLimit:
        return ResourceLimit(
            f"unpad of {a.tensor}: from {list(start)} to {list(end)} is not a region of its shard at {list(s.coord)}, {list(s.spec.shape)}; "
            "ttnn 0.81.1 checks neither bound (observed: an end past the shard is accepted) and what it then reads is not known "
            "to meshspec, which stops here rather than guess")

    rt.bind(a.as_, host_transform.unpad(rt.profile.host_shard_ops, rt.op, a.tensor, host, a.as_, rt.step, start, end, out_of_bounds))


def pad_to_tile(rt: Runtime, a: PadToTile) -> None:
    host = rt.host(a.tensor)
    rt.bind(a.as_, host_transform.pad_to_tile(rt.profile.host_shard_ops, rt.op, a.tensor, host, a.as_, rt.step, ResourceLimit(
        f"pad_to_tile of the ROW_MAJOR host tensor {a.tensor}: ttnn 0.81.1 keeps each shard's logical shape and gives it a padded "
        "shape of whole tiles (observed), padding meshspec's specs do not carry, so it stops here; to_layout it to TILE instead")))


_IN = (Use("tensor", TensorKind.HOST),)
_OUT = Use("as_", TensorKind.HOST)

def _unpad_host(rng, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    """A region from the origin, or from an offset now and then."""
    ends = [rng.randint(1, n) if rng.random() < 0.5 else n for n in shape]
    starts = [rng.randrange(e) if rng.random() < 0.2 else 0 for e in ends]
    shape = [e - b for b, e in zip(starts, ends)]
    return shape, kind, {"output_tensor_start": starts, "output_tensor_end": ends}


def _row_major(st, h: str) -> bool:
    return not is_tile(st, h)  # an unpad of a TILE tensor is refused


def _whole_tiles(st, h: str) -> bool:
    """Shards that are whole tiles once tilized (meshspec's specs hold no padded ROW_MAJOR shard)."""
    return is_tile(st, h) or (len(st.hosts[h][0]) >= 2 and all(d % 32 == 0 for d in st.hosts[h][0][-2:]))


def _pad_to_tile_host(rng, shape: list, kind: tuple) -> tuple[list, tuple, dict]:
    return shape, kind, {"pad_value": 0.0}


def _export_to_dtype(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.to_dtype({ctx.var(a.tensor)}, {ex.DTYPES[DataType(a.dtype)]})"]


def _export_unpad(a, ctx):
    return [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.unpad({list(a.output_tensor_start)}, {list(a.output_tensor_end)})"]


def _export_pad_to_tile(a, ctx):
    return [f"{ctx.var(a.as_)} = {ctx.var(a.tensor)}.pad_to_tile({ex.number(float(a.pad_value))})"]


OPS = (
    Op("to_dtype", ToDtype, to_dtype, "A host tensor's shards in another dtype (a block float tilizes a ROW_MAJOR shard); the topology kept.",
       "ttnn.to_dtype(tensor, dtype)", uses=_IN, binds=_OUT, captured=False, generate=on_host(new_dtype), export=_export_to_dtype),
    Op("unpad", Unpad, unpad, "Each ROW_MAJOR shard of a host tensor cut to [start, end); the topology kept.",
       "tensor.unpad(output_tensor_start, output_tensor_end)", uses=_IN, binds=_OUT, captured=False, generate=on_host(_unpad_host, fits=_row_major), export=_export_unpad),
    Op("pad_to_tile", PadToTile, pad_to_tile, "A host tensor's shards padded to whole tiles (a TILE tensor comes back as it was); the topology kept.",
       "tensor.pad_to_tile(pad_value)", uses=_IN, binds=_OUT, captured=False, generate=on_host(_pad_to_tile_host, fits=_whole_tiles), export=_export_pad_to_tile),
)
