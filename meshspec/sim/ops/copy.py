"""``ttnn.copy_host_to_device_tensor(src, dst)``: write a host tensor into an allocated device tensor.

What gets written is the same in every era; what the destination's record becomes is the era's
:class:`~meshspec.sim.profiles.CopyRecord` (docs/semantics.md section 6): lost (``dst`` taken by
value, the seed), current (by reference, with the uniform-write gap), or exact. The check of the
source against the destination is the era's :class:`~meshspec.sim.profiles.CopyCheck`.
"""

from ...errors import TTFatal
from ..mesh import Coord, fmt_coord
from ..placement import Topology
from ..profiles import CopyCheck, CopyRecord, Handles
from ..runtime import Runtime, in_memory
from ..tensor import DeviceTensor, HostShard, HostTensor
from ...typed import Typed
from .base import Op, TensorKind, Use
from .generating import Step
from .fields import Name
from .transfer import one_buffer_to_many, packed_size_check, pinned, same_spec


class CopyHostToDevice(Typed):
    """``ttnn.copy_host_to_device_tensor(src, dst)``."""

    src: Name
    dst: Name


def run(rt: Runtime, a: CopyHostToDevice) -> None:
    host = rt.host_with_shards(a.src)
    dev = rt.device(a.dst)
    mesh = rt.mesh_of(dev)
    shards = rt.shards_to_write(host, mesh)  # coordinates as they are, on dst's mesh
    _check(rt, host, dev, shards)
    pinned(rt, host, mesh, shards)
    rt.write(dev, host, shards)
    rec = dev.record
    rule = rt.profile.copy
    if rule is CopyRecord.LOST:
        return  # dst was taken by value: the update was made on a copy
    written = tuple(shards)
    everyone = mesh.coords
    full = set(written) == set(everyone)
    topology = rt.written_topology(host, mesh)
    # the record now describes the copy's data: the layout of the op that made dst (its provenance's)
    # and what the judge drew from it no longer do (a neg output filled by a sharded copy was reported
    # as a stale [S(2)] at the neg); what the op read stays what it read. A view of dst keeps its own
    # record and provenance: its label is still the view's.
    made = dev.provenance
    if made is not None and made.claims:
        dev.provenance = made.replace(claims=False, layout=None, dishonest=None, gathered_padding=None)
    if rule is CopyRecord.CURRENT:
        rec.topology = topology
        if host.plain:
            rt.set_recorded(rec, everyone)
        elif not full:
            rt.set_recorded(rec, written)
        # a full write from a mapped host tensor keeps the old coords: the current gap. A device the
        # record now lists has the tensor's spec, as every device has in 0.81.1's one spec + coords
        # (a copy of 3 shards into a tensor to_device made on 2: 3 device tensors of that spec, and
        # cpu() gives 3 shards; tests/oracle/mock_copy_coords.py)
        missing = [c for c in rec.recorded if c not in rec.specs]
        if missing:
            rec.specs = {**rec.specs, **dict.fromkeys(missing, rec.spec)}
        _cover_recorded(dev)
        return
    assert rule is CopyRecord.EXACT
    rec.topology = topology
    memory = dev.buffer.spec.memory_config
    rec.specs = {c: in_memory(s.spec, memory) for c, s in shards.items()} | {
        c: rec.spec for c in everyone if c not in shards
    }
    rt.set_recorded(rec, written)
    _cover_recorded(dev)
    if rt.profile.handles is Handles.COPIED:
        return  # copy-on-write (0.66.0, 0.67.0): a view keeps its own record, devices and label as they were
    # a runtime that records exactly what is written records it for every view of the storage too
    # (a view made before the copy would still list the devices it held then: stale, lost)
    for t in list(rt.tensors.values()):
        if isinstance(t, DeviceTensor) and t.buffer is dev.buffer and t.record is not rec and t.span is None and t.freed_step is None:
            t.record.specs = {**t.record.specs, **dict.fromkeys(written, t.record.spec)}
            rt.set_recorded(t.record, written)
            moved = t.record.derive(topology.placements) if t.record.derive is not None else topology.placements
            if t.record.shared is not rec.shared and moved is not None:  # the written placements, in the view's dims
                t.record.topology = Topology(topology.distribution_shape, tuple(moved), topology.coords)
                if t.provenance is not None and t.provenance.claims:  # the data is the copy's now
                    t.provenance = t.provenance.replace(claims=False, layout=None, dishonest=None, gathered_padding=None)
            rt.touched.add(t.name)


def _cover_recorded(dev: DeviceTensor) -> None:
    """A handle on some devices of its storage (a ``get_device_tensors`` part, a combined tensor)
    covers every device its record now lists: copied into, a part records the devices the copy
    wrote, its own and others of the storage (0.81.1, 0.67.0 and 0.66.0 in the mock: a 2-shard copy
    into the part at (0,0) of a 1x4 tensor records it at (0,0) and (0,1); found by ``meshspec hunt
    --real``, docs/semantics.md section 9)."""
    if dev.span is not None and not set(dev.record.recorded) <= set(dev.span):
        dev.span = tuple(sorted(set(dev.span) | set(dev.record.recorded)))
        dev._span_set = None


def _check(rt: Runtime, host: HostTensor, dev: DeviceTensor, shards: dict[Coord, HostShard]) -> None:
    """The era's check of the source's shards against the destination, then each shard's fit in
    the buffer. A mapper's shards share spec objects: each spec is checked once, at the first
    shard that has it (the one the error names)."""
    if dev.buffer.single_device and not host.plain:
        raise TTFatal(
            "TT_ASSERT @ ttnn/cpp/ttnn/tensor/tensor.cpp:922: std::holds_alternative<OwnedStorage>(async_safe_tensor.get_storage()) "
            f"({dev.name} was made on a 1x1 mesh device and became single-device storage, while {host.name}, made by a mesh "
            "mapper, is multi-device host storage; a release build fails with a bad variant access: issue #15833. "
            "PR #15845 handled this copy; copy a host tensor made without a mesh mapper)"
        )
    dst = dev.record.spec
    runs = host.spec_runs(shards)
    if rt.profile.copy_check is CopyCheck.EVERY_SHARD:
        checked = [shards[coords[0]] for _, coords in runs]
    else:
        checked = [next(iter(host.shards.values()))]
    seen: set[int] = set()
    for shard in checked:
        if id(shard.spec) not in seen:
            seen.add(id(shard.spec))
            same_spec(shard.spec, dst, host.name, dev.name, shard.coord)
    buf = dev.buffer.spec
    seen.clear()
    for spec, coords in runs:
        if id(spec) in seen:
            continue
        seen.add(id(spec))
        laid = in_memory(spec, buf.memory_config)  # the shard as the buffer pages it (a sharded ROW_MAJOR page is a shard-width row)
        if one_buffer_to_many(host, rt.mesh_of(dev)):
            packed_size_check(spec, laid)
        if laid.page_size != buf.page_size or laid.num_pages > buf.num_pages:
            raise TTFatal(
                f"shard of {host.name} for device {fmt_coord(shards[coords[0]].coord)} is {spec.describe()} "
                f"({laid.num_pages} pages of {laid.page_size} B there); the buffer of {dev.name} has "
                f"{buf.num_pages} pages of {buf.page_size} B"
            )


def _generate(rng, st, op: str) -> Step:
    """A host tensor into an allocation its shards fit (one not copied there yet, when there is one)."""
    if not st.hosts or not st.devices:
        return None
    fits = [d for d in st.devices if any(st.fits(h, d) for h in st.hosts)]
    dst = rng.choice(fits or list(st.devices))
    srcs = [h for h in st.hosts if st.fits(h, dst)] or list(st.hosts)
    fresh = [h for h in srcs if (h, dst) not in st.copies]  # a second copy into dst: the partial-then-full class
    src = rng.choice(fresh or srcs)
    st.copies.add((src, dst))
    st.covered[dst] = st.coverage.get(src, "whole")
    return {"copy_host_to_device_tensor": {"src": src, "dst": dst}}


def _export_copy_host_to_device_tensor(a, ctx):
    return [f"ttnn.copy_host_to_device_tensor({ctx.var(a.src)}, {ctx.var(a.dst)})"]


OP = Op(
    "copy_host_to_device_tensor",
    CopyHostToDevice,
    run,
    "Write a host tensor's shards into an allocated device tensor; the era decides what is recorded.",
    "ttnn.copy_host_to_device_tensor(host_tensor, device_tensor)",
    uses=(Use("src", TensorKind.HOST), Use("dst", TensorKind.DEVICE)),
    captured=False,
    generate=_generate, fault_site=True,
    export=_export_copy_host_to_device_tensor,
)
