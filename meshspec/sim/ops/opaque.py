"""A call meshspec does not model (``ttnn.add``, a matmul, a collective), as ``meshspec record``
writes it: the tensor it made, declared with the records the real runtime gave it.

The step states what the real runtime recorded after the call (the output's storage, its spec,
its topology and, on device, the coordinates ``device_coords()`` listed), and the simulation takes
those records as they are, under every profile: an era rule cannot change what was observed. Its
values are not modeled: each recorded device holds zeros, written by the step (a finding about
them says nothing about the real values). The tensors the call took are named in ``uses``, so the
loader checks they exist and ``--trace`` shows the step touching them.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional

from ...text import one_line
from ...typed import Length, Pattern
from ..placement import Topology
from ..runtime import Runtime
from ..spec import DataType, Layout
from ..tensor import HostShard, HostTensor
from .base import Op, TensorKind, Use
from . import exporting as ex
from .fields import As, Names, TensorFields
from .output import emit, plain_host, shard
from .mappers import GivenTopology


CALL_NAME = r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*"
"""What an opaque step's call is: a dotted name (``ttnn.add``, ``Tensor.to``); import checks a
trace's op names by it too."""


class Opaque(TensorFields):
    """``out = ttnn.<call>(...)``: the output as the real runtime recorded it."""

    call: Annotated[str, Length(min=1, max=200), Pattern(CALL_NAME, "a dotted name such as ttnn.add")]
    """The ttnn function called, e.g. ``ttnn.add`` (what it computes is not modeled)."""
    uses: Names = []
    """The tensors the call took."""
    storage: Literal["device", "host"] = "device"
    topology: GivenTopology
    recorded: Optional[list[Annotated[list[int], Length(min=1, max=4)]]] = None
    """On device: the coordinates ``device_coords()`` lists (default: every coordinate of the topology).
    On host: the coordinates of the host buffer that hold a shard."""
    code: Optional[str] = None
    """The program's own line for the call, when recorded (``meshspec export`` writes it back)."""
    as_: As


def run(rt: Runtime, a: Opaque) -> None:
    spec = a.spec(rt.arch)
    topology: Topology = a.topology.topology()
    coords = tuple(tuple(c) for c in (a.recorded if a.recorded is not None else a.topology.coordinates))
    value = plain_host(rt, a.as_, spec, None if not rt.with_data else _zeros(spec)).shards[(0, 0)].values
    if a.storage == "host":
        shards = {c: HostShard(c, spec, value, None) for c in coords}
        rt.bind(a.as_, HostTensor(a.as_, rt.step, spec, topology, shards, buffer_shape=rt.root.shape))
        return
    rt.root.check_coords(coords)
    # what the call read is not modeled: its output's devices read nothing meshspec knows of
    shards = {c: shard(c, spec, value, rt) for c in coords}
    emit(rt, a.as_, rt.root, spec, topology, shards, dict.fromkeys(coords, ()))


def _zeros(spec):
    from ..values import generate

    return generate("zeros", tuple(spec.shape), spec.dtype)


def _kind(a: Opaque) -> TensorKind:
    return TensorKind.HOST if a.storage == "host" else TensorKind.DEVICE


def _export_opaque(a, ctx):
    """The step's call, generated from its code as :func:`meshspec.scenario.code.parse` took it (one known ttnn
    function on the step's tensors, literals and ttnn's constants; the scenario's text is never
    copied); else a call that makes the same records."""
    parsed = ctx.code(a)  # a Call, why not (a str), or None without code
    if parsed is not None and not isinstance(parsed, str):
        return [f"# not modeled by meshspec ({a.call}): the program's own call", f"{ctx.var(a.as_)} = {parsed.expression(ctx.var)}"]
    out = ctx.var(a.as_)
    head = [
        one_line(f"# {a.call}({', '.join(ctx.var(u) for u in a.uses)}) is not modeled by meshspec: put the call here. Below, a"),
        "# tensor with the records the real runtime gave its output (its values are not the call's).",
    ]
    if parsed is not None:  # why, in one line; never the text itself
        head.insert(0, one_line(f"# the scenario's code for this step is not run here: {parsed}"))
    recorded = a.recorded if a.recorded is not None else a.topology.coordinates
    if a.storage == "host" and len(recorded) == 1:  # one host buffer: a plain host tensor of zeros
        zeros = f"np.zeros({tuple(a.shape)}, dtype=np.float32)"
        return head + [f"{out} = host_tensor({zeros}, {ex.DTYPES[DataType(a.dtype)]}, {ex.LAYOUTS[Layout(a.layout)]}, tile={list(a.tile)})"]
    return head + [
        f"{out} = ttnn.allocate_tensor_on_{'host' if a.storage == 'host' else 'device'}({ex.spec_code(a, ctx)}, mesh_device)",
        f"{out}.update_tensor_topology({ex.topology_code(a.topology)})",
    ]


OP = Op(
    "opaque",
    Opaque,
    run,
    "A call meshspec does not model, as recorded: its output's spec, topology and devices as the real runtime gave them.",
    "out = ttnn.add(a, b)  # any call; meshspec record writes the records it produced",
    uses=(Use("uses", TensorKind.ANY, many=True),),
    binds=Use("as_", TensorKind.ANY),
    kind_of=_kind,
    export=_export_opaque,
)
