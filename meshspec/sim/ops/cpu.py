"""``t.cpu()``: read a device tensor back into a host tensor (see meshspec/sim/readback.py)."""


from ..readback import read
from ..runtime import Runtime
from ...typed import Typed
from .base import Op, TensorKind, Use
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


OP = Op(
    "cpu",
    Cpu,
    run,
    "Read every recorded device of a device tensor back into a host tensor.",
    "device_tensor.cpu()",
    uses=(Use("tensor", TensorKind.DEVICE),),
    binds=Use("as_", TensorKind.HOST),
)
