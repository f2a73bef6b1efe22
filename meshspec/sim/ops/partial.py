"""``ttnn.copy_host_to_device_tensor_partial(host, dev, core_filter)``: write only the shards a
sharded destination puts on some cores (docs/semantics.md section 11; ttnn 0.81.1, observed:
tests/golden/ttnn_0_81_1_sharded.json ``mesh`` copy_partial).

- The host tensor must hold a shard for every device of the destination's mesh, else
  ``copy_to_device_filtered does not support non-uniform host->device writes.`` (a plain host
  tensor too, even with an empty filter); each shard must have the destination's shape (``Host
  tensor has different shape``).
- An empty filter writes nothing; a filter core outside the shard grid holds no page.
- The destination's records (topology, device coords, specs) stay as they are.
- Pages on the other cores keep what they held: a device recorded with the whole tensor now holds
  the new content on some cores only, and meshspec reports it ``partial``, naming the cores.

An interleaved destination with a non-empty filter is accepted by 0.81.1 (its docstring says it
raises); which pages it writes cannot be seen in the mock (device reads are zeros), and meshspec
writes all of them (meshspec choice, to be checked on hardware).
"""

from __future__ import annotations

from ...errors import TTFatal
from ...typed import Typed
from ..profiles import PartialCopy
from ..runtime import Runtime
from ..sharding import grid_cores
from .base import Op, TensorKind, Use
from .fields import CoreRangeItem, Name, core_range_set


class CopyPartial(Typed):
    """``ttnn.copy_host_to_device_tensor_partial(src, dst, CoreRangeSet)``."""

    src: Name
    dst: Name
    core_filter: list[CoreRangeItem] = []
    """A CoreRangeSet as ``[[[x0, y0], [x1, y1]], ...]``: the cores whose shards are written."""


def run(rt: Runtime, a: CopyPartial) -> None:
    if rt.profile.partial_copy is PartialCopy.ABSENT:
        raise TTFatal("module 'ttnn' has no attribute 'copy_host_to_device_tensor_partial' (this profile's era lacks it: "
                      "ttnn 0.66.0 and 0.67.0 have no such binding; docs/semantics.md section 23)")
    host = rt.host(a.src)
    dev = rt.device(a.dst)
    mesh = rt.mesh_of(dev)
    shards = {c: s for c, s in host.shards.items()}
    if host.plain and mesh.num_devices > 1 or any(c not in shards for c in mesh.coords):
        raise TTFatal("copy_to_device_filtered does not support non-uniform host->device writes.")
    spec = dev.record.spec
    if any(tuple(s.spec.shape) != tuple(spec.shape) for s in shards.values()):
        raise TTFatal("Host tensor has different shape")
    grid = core_range_set(a.core_filter)
    if not grid:
        return  # an empty filter is a no-op
    cores = grid_cores(grid)
    if spec.shard is not None and not any(pages for core, pages in spec.core_pages if core in set(cores)):
        return  # no core of the filter holds a page of the tensor: nothing is written
    rt.write(dev, host, {c: shards[c] for c in mesh.coords}, cores=cores if spec.shard is not None else None)


def _export_copy_host_to_device_tensor_partial(a, ctx):
    ranges = ", ".join(f"ttnn.CoreRange(ttnn.CoreCoord({r[0][0]}, {r[0][1]}), ttnn.CoreCoord({r[1][0]}, {r[1][1]}))" for r in a.core_filter)
    return [f"ttnn.copy_host_to_device_tensor_partial({ctx.var(a.src)}, {ctx.var(a.dst)}, ttnn.CoreRangeSet([{ranges}]))"]


OP = Op(
    "copy_host_to_device_tensor_partial",
    CopyPartial,
    run,
    "Write only the shards a sharded destination puts on the filter's cores; its records stay as they are.",
    "ttnn.copy_host_to_device_tensor_partial(host_tensor, device_tensor, ttnn.CoreRangeSet([...]))",
    uses=(Use("src", TensorKind.HOST), Use("dst", TensorKind.DEVICE)),
    captured=False,
    export=_export_copy_host_to_device_tensor_partial,
)
