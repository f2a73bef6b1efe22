"""``t.cpu()``: read a device tensor back into a host tensor (see meshspec/sim/readback.py)."""

from __future__ import annotations

from typing import Optional

from pydantic import Field

from ..readback import read
from ..runtime import Runtime
from .base import Op, TensorKind, Use
from .fields import Name, Strict


class Cpu(Strict):
    """``dst.cpu()``: read the device tensor back into a host tensor."""

    tensor: Name
    as_: Optional[Name] = Field(default=None, alias="as")


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
