"""The op registry: every TT-NN call meshspec simulates, one module each.

:data:`OPS` is the only list of ops. The scenario model's step union, the loader's name checks,
the runner's touched sets, the schema, ``meshspec explain`` and the README's step table are all
derived from it; ``tests/sim/test_ops.py`` fails if an op lacks any part.
"""

from __future__ import annotations

from . import (
    allocate, cache, collectives, copy, cpu, creation, deallocate, device_tensors, elementwise, from_torch, host_alloc, host_shards, opaque,
    partial, slicing,
    submesh, to_device, to_torch, topology, trace, views,
)
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
        partial.OP,
        cpu.OP,
        to_torch.OP,
        deallocate.OP,
        device_tensors.GET,
        device_tensors.COMBINE,
        host_shards.FROM_HOST_SHARDS,
        host_shards.DISTRIBUTE_TENSOR,
        host_shards.AGGREGATE_TENSOR,
        host_alloc.ALLOCATE_ON_HOST,
        host_alloc.COPY_DEVICE_TO_HOST,
        topology.OP,
        *creation.OPS,
        *submesh.OPS,
        *cache.OPS,
        *views.OPS,
        *slicing.OPS,
        *collectives.OPS,
        *elementwise.OPS,
        *trace.OPS,
        opaque.OP,
    )
}

__all__ = ["OPS", "Op", "TensorKind", "Use"]
