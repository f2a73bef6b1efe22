"""The op registry: every TT-NN call meshspec simulates, one module each.

:data:`OPS` is the only list of ops. The scenario model's step union, the loader's name checks,
the runner's touched sets, the schema, ``meshspec explain`` and docs/ttnn-spelling.md's step table are all
derived from it; ``tests/sim/test_ops.py`` fails if an op lacks any part.

The names are a table (:data:`MODULES`) and an op's module is imported when the op is first looked
up (:class:`meshspec.lazy.Lazy`): a run imports the modules of the ops its scenario uses. Each op
is defined once, in its module; ``tests/sim/test_ops.py`` checks the table against those
definitions.
"""

from __future__ import annotations

import importlib

from typing import TYPE_CHECKING, Any

from ...lazy import Lazy
from ..steps import StepResult
from .base import Op, TensorKind, Use

if TYPE_CHECKING:  # (the registry is read by the loader, explain and the schema, which run nothing)
    from ..runtime import Runtime

#: Module of meshspec/sim/ops -> the ops it defines, in the order docs/ttnn-spelling.md lists them.
MODULES: dict[str, tuple[str, ...]] = {
    "allocate": ("allocate_tensor_on_device",),
    "from_torch": ("from_torch",),
    "to_device": ("to_device", "to"),
    "copy": ("copy_host_to_device_tensor",),
    "partial": ("copy_host_to_device_tensor_partial",),
    "cpu": ("cpu",),
    "to_torch": ("to_torch",),
    "deallocate": ("deallocate",),
    "device_tensors": ("get_device_tensors", "combine_device_tensors"),
    "host_shards": ("from_host_shards", "distribute_tensor", "aggregate_tensor"),
    "host_alloc": ("allocate_tensor_on_host", "copy_device_to_host_tensor"),
    "topology": ("update_tensor_topology",),
    "creation": ("empty", "zeros", "ones", "full", "empty_like", "zeros_like", "ones_like", "full_like"),
    "submesh": ("create_submesh", "create_submeshes", "MeshDevice.reshape"),
    "cache": ("dump_tensor", "load_tensor", "as_tensor"),
    "views": ("squeeze", "unsqueeze", "reshape", "view", "permute"),
    "slicing": ("slice", "concat", "pad"),
    "collectives": (
        "all_gather", "all_gather_async", "all_reduce", "all_reduce_async", "reduce_scatter", "reduce_scatter_minimal_async",
    ),
    "elementwise": (
        "neg", "exp", "relu", "gelu", "add", "sub", "mul", "matmul", "linear", "sum", "max", "transpose", "typecast",
        "to_layout", "tilize", "untilize", "clone", "reallocate", "to_memory_config",
    ),
    "host_ops": ("to_dtype", "unpad", "pad_to_tile"),
    "trace": ("begin_trace_capture", "end_trace_capture", "execute_trace", "release_trace"),
    "opaque": ("opaque",),
    "show": ("to_string", "visualize_tensor"),
    "graph": ("begin_graph_capture", "end_graph_capture"),
}

_MODULE_OF = {name: module for module, names in MODULES.items() for name in names}


def _load(name: str) -> Op:
    """The op ``name``, from its module (imported now if it was not)."""
    module = importlib.import_module(f"{__name__}.{_MODULE_OF[name]}")
    for value in vars(module).values():
        for op in value if isinstance(value, tuple) else (value,):
            if isinstance(op, Op) and op.name == name:
                return op
    raise LookupError(f"meshspec/sim/ops/{_MODULE_OF[name]}.py defines no op {name!r}")


#: Op name -> op, in the order docs/ttnn-spelling.md lists them; a module is imported at its first op's look-up.
OPS: Lazy[str, Op] = Lazy(_MODULE_OF, _load)



def execute(rt: "Runtime", index: int, op: str, args: Any) -> StepResult:
    """Run step ``index`` (``op`` with its validated ``args``) on ``rt`` and say what it did; the
    op's error, if it has one, is raised (what it did before is ``rt.last``)."""
    rt.begin(index, op, args)
    defined = OPS[op]
    try:
        defined.run(rt, args)
        capture = rt.traces.get(rt.capturing) if rt.capturing is not None else None  # (a trace released mid-capture holds nothing)
        if capture is not None and defined.captured:
            name = getattr(args, "as_", None)
            out = rt.tensors.get(name) if name else None
            if getattr(out, "storage", None) != "host":  # a host op on a host tensor runs on the host, not in the trace (section 18)
                capture.append((op, args, out))
    finally:
        result = rt.end()
    return result


__all__ = ["MODULES", "OPS", "Op", "TensorKind", "Use", "execute"]
