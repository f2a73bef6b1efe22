"""``ttnn.deallocate(t)``: free a device tensor's mesh buffer on every device.

A second deallocate is ignored by ttnn 0.81.1 (tests/golden); meshspec still reports it.
"""

from ...errors import StepInputError
from ..events import DoubleFree, Retired
from ..runtime import Runtime, freed_by
from ..tensor import DeviceTensor
from ...typed import Typed
from .base import Op, TensorKind, Use
from .generating import Step, of_device
from .fields import Name


class Deallocate(Typed):
    """``ttnn.deallocate(t, force=True)``."""

    tensor: Name
    force: bool = True
    """False: the buffer is freed only when no other handle holds it (a view, the input an op
    returned as it is): ttnn 0.81.1 then leaves both allocated (tests/golden views)."""


def run(rt: Runtime, a: Deallocate) -> None:
    dev = rt.item(a.tensor)
    if not isinstance(dev, DeviceTensor):
        raise StepInputError(f"{a.tensor} is a host tensor; deallocate frees device tensors")
    if dev.freed_step is not None:
        msg = f"{freed_by(dev)} and is deallocated again"
        rt.events.append(DoubleFree(rt.step, a.tensor, msg))
        return
    if not a.force and rt.shares_buffer(dev):
        return  # another handle holds the buffer: not freed without force
    rt.events.append(Retired(rt.step, a.tensor, dev, f"step {rt.step} deallocated it"))
    rt.free(dev)


def _deallocate(rng, st, op: str, dev: str, shape: list, kind: tuple) -> Step:
    del st.devices[dev]
    return {"deallocate": {"tensor": dev}}


def _export_deallocate(a, ctx):
    return [f"ttnn.deallocate({ctx.var(a.tensor)}{'' if a.force else ', force=False'})"]


OP = Op(
    "deallocate",
    Deallocate,
    run,
    "Free a device tensor's buffer on every device (without force, only when no other handle holds it); a later use is use_after_free.",
    "ttnn.deallocate(device_tensor, force=True)",
    uses=(Use("tensor", TensorKind.DEVICE),),
    captured=False,
    generate=of_device(_deallocate),
    export=_export_deallocate,
)
