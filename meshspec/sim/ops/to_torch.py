"""``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose one tensor.

The runtime composes (meshspec/sim/compose.py) and records a :class:`~meshspec.sim.events.Composed`
event; the judge compares what was read with what was written, and the composed tensor with the
tensor that was sent.
"""

from typing import Optional


from ..runtime import Runtime
from ...typed import Typed
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import Step, of_device
from .fields import Composer, Name, OptionalAs
from .transfer import compose_back


class ToTorch(Typed):
    """``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose."""

    tensor: Name
    mesh_composer: Optional[Composer] = None
    as_: OptionalAs = None


def run(rt: Runtime, a: ToTorch) -> None:
    compose_back(rt, a.tensor, a.mesh_composer, a.as_)


def _to_torch(rng, st, op: str, dev: str, shape: list, kind: tuple) -> Step:
    """Now and then no composer: the era's default (refused, or derived from the topology)."""
    composer = {"mesh_composer": {"concat": rng.choice([0, 1, 3])}} if rng.random() < 0.8 else {}
    return {"to_torch": {"tensor": dev, "as": st.fresh("out"), **composer}}


def _export_to_torch(a, ctx):
    composer = ex.composer_code(a.mesh_composer, ctx) if a.mesh_composer is not None else "None"
    return [f"{ctx.var(a.as_) if a.as_ else '_'} = to_torch({ctx.var(a.tensor)}, mesh_composer={composer})"]


OP = Op(
    "to_torch",
    ToTorch,
    run,
    "Read a tensor back (from every recorded device, if on device) and compose it with a mesh composer.",
    "ttnn.to_torch(tensor, mesh_composer=...)",
    uses=(Use("tensor", TensorKind.ANY),),
    binds=Use("as_", TensorKind.HOST),
    captured=False, only_makes=True,
    generate=of_device(_to_torch),
    export=_export_to_torch,
)
