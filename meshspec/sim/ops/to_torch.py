"""``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose one tensor.

The runtime composes (meshspec/sim/compose.py) and records a :class:`~meshspec.sim.events.Composed`
event; the judge compares what was read with what was written, and the composed tensor with the
tensor that was sent.
"""

from typing import Optional

from ..compose import compose
from ..events import Composed
from ..mapping import single
from ..readback import read
from ..runtime import Runtime
from ..spec import make_spec
from ..tensor import DeviceTensor, HostShard, HostTensor
from ...typed import Typed
from .base import Op, TensorKind, Use
from .fields import ConcatComposer, Name, OptionalAs


class ToTorch(Typed):
    """``ttnn.to_torch(t, mesh_composer=...)``: read back (if on device) and compose."""

    tensor: Name
    mesh_composer: Optional[ConcatComposer] = None
    as_: OptionalAs = None


def run(rt: Runtime, a: ToTorch) -> None:
    t = rt.tensors[a.tensor]
    device = None
    if isinstance(t, DeviceTensor):
        device = rt.device(a.tensor)
        host = read(rt, device, a.as_ or f"{a.tensor}.torch")
    else:
        host = t
    if rt.with_data:
        need = sum(getattr(sh.values, "nbytes", 0) for sh in host.shards.values())
        rt.reserve(need, f"composing {a.tensor} ({len(host.shards)} shard(s))")
    composer = a.mesh_composer
    if composer is None:
        composition = compose(host, rt.mesh_shape, None, None, True)
    else:
        dims = list(composer.concat) if isinstance(composer.concat, list) else [composer.concat]
        one_d = not isinstance(composer.concat, list) and composer.mesh_shape is None
        override = tuple(composer.mesh_shape) if composer.mesh_shape is not None else None
        composition = compose(host, rt.mesh_shape, dims, override, one_d, rt.profile.composer)
    rt.events.append(Composed(rt.step, a.tensor, host, composition, device, _describe(composer)))
    result, used = composition.values, composition.used
    if a.as_:
        spec = make_spec(result.shape, host.spec.dtype, host.spec.layout, host.spec.tile, host.spec.memory, host.spec.arch)
        dist = single(rt.mesh_shape, tuple(result.shape))
        c = dist.slots[0].coord
        shard = HostShard(c, spec, result, (0,) * result.ndim, composed_from=(host, tuple(used)))
        rt.bind(a.as_, HostTensor(a.as_, rt.step, spec, dist.topology, {c: shard}, plain=True))


def _describe(composer: Optional[ConcatComposer]) -> str:
    if composer is None:
        return "no mesh_composer"
    text = f"{{concat: {composer.concat}"
    return text + (f", mesh_shape: {composer.mesh_shape}}}" if composer.mesh_shape is not None else "}")


OP = Op(
    "to_torch",
    ToTorch,
    run,
    "Read a tensor back (from every recorded device, if on device) and compose it with a mesh composer.",
    "ttnn.to_torch(tensor, mesh_composer=...)",
    uses=(Use("tensor", TensorKind.ANY),),
    binds=Use("as_", TensorKind.HOST),
)
