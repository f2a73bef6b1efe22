"""``t.cpu()``: read a device tensor back into a host tensor (see meshspec/sim/readback.py).

A tensor that records no device reads back as a host tensor with no shard, and no error: ttnn 0.81.1's
``to_host_mesh_tensor`` (ttnn/core/tensor/tensor_impl.cpp) makes a host buffer of the mesh's shape and
fills the coordinates its storage lists, none here. What fails is composing it: ``to_torch`` with no
composer is ttnn's ``buffers.size() == 1`` check, its words (docs/semantics.md section 5).
"""


from ..readback import read
from ..runtime import Runtime
from ...typed import Typed
from .base import Op, TensorKind, Use
from .generating import Step, of_device
from .fields import Name, OptionalAs


class Cpu(Typed):
    """``dst.cpu()``: read the device tensor back into a host tensor."""

    tensor: Name
    as_: OptionalAs = None


def run(rt: Runtime, a: Cpu) -> None:
    dev = rt.device(a.tensor)
    host = read(rt, dev, a.as_ or f"{a.tensor}.cpu")
    if a.as_:
        rt.bind(a.as_, host)


def _cpu(rng, st, op: str, dev: str, shape: list, kind: tuple) -> Step:
    name = st.fresh("h")
    st.hosts[name] = (list(shape), None)
    st.kinds[name] = kind
    return {"cpu": {"tensor": dev, "as": name}}


def _export_cpu(a, ctx):
    return [f"{ctx.var(a.as_) if a.as_ else '_'} = {ctx.var(a.tensor)}.cpu()"]


OP = Op(
    "cpu",
    Cpu,
    run,
    "Read every recorded device of a device tensor back into a host tensor.",
    "device_tensor.cpu()",
    uses=(Use("tensor", TensorKind.DEVICE),),
    binds=Use("as_", TensorKind.HOST),
    captured=False, only_makes=True,
    generate=of_device(_cpu),
    export=_export_cpu,
)
