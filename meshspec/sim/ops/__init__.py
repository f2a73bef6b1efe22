"""The op registry: every TT-NN call meshspec simulates, one module each.

:data:`OPS` is the only list of ops. The scenario model's step union, the loader's name checks,
the runner's touched sets, the schema, ``meshspec explain`` and the README's step table are all
derived from it; ``tests/sim/test_ops.py`` fails if an op lacks any part.
"""

from __future__ import annotations

from . import allocate, copy, cpu, deallocate, from_torch, to_device, to_torch
from .base import Op, TensorKind, Use

#: Op name -> op, in the order the README lists them.
OPS: dict[str, Op] = {
    op.name: op
    for op in (
        allocate.OP,
        from_torch.OP,
        to_device.OP,
        to_device.TO,
        copy.OP,
        cpu.OP,
        to_torch.OP,
        deallocate.OP,
    )
}

__all__ = ["OPS", "Op", "TensorKind", "Use"]
