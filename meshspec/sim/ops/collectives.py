"""Collectives on device mesh tensors: ``ttnn.all_gather``, ``ttnn.experimental.all_gather_async``,
``ttnn.all_reduce`` (and ``experimental.all_reduce_async``), ``ttnn.reduce_scatter`` (and
``experimental.reduce_scatter_minimal_async``) (docs/semantics.md section 12).

Each device's output is computed with numpy from what the devices of its group hold (the devices
along ``cluster_axis`` through it, or every device of the mesh in row-major order): all_gather
concatenates their shards along ``dim`` in group order, all_reduce sums them, reduce_scatter gives
each device its piece of the sum. A device's buffer is read whatever its record says: a
collective moves bytes, not records.

The output's topology is the era's :class:`~meshspec.sim.profiles.CclTopology`:

- ``per_axis`` (ttnn 0.81.1): the CCL topology helpers of :mod:`meshspec.sim.ccl_topology`; where
  no label is honest, the legacy per-axis edit and the library's warning (kept as the record's
  ``dishonest`` reason, judged as topology_stale).
- ``union``: before those helpers. ``all_gather_async`` (no compute_output_topologies @ 90095175)
  and ``all_reduce`` keep their input's label (the default imputation: issues #38371, #50657);
  ``all_gather`` had its own hook since PR #30684: every ``Shard(dim)`` whose dim equals the gather
  dim (compared as raw ints) becomes Replicate, on every axis; reduce_scatter the per-axis edit
  the helpers' source names as what the family did before them.

The data's own distribution is kept with the output; ``topology_stale`` reports where they differ.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional

import numpy as np

from ...errors import TTFatal
from ...typed import Range, Typed
from ..dims import normal_dim
from ..mesh import Coord, coord_tuple, fmt_coord
from .. import ccl_topology as ccl
from ..placement import Replicate, Shard, Topology, as_label
from ..profiles import CclDevices, CclLinks, CclPadding, CclTopology, GatherPadding, OpTopology
from ..meshdevice import MeshDevice
from ..runtime import Runtime
from ..spec import Layout
from .base import Op, TensorKind, Use
from . import exporting as ex
from .generating import Step, on_device
from .fields import As, Name
from .output import emit, read, shard


class Gather(Typed):
    """``ttnn.all_gather(tensor, dim, cluster_axis=None, topology=None)``."""

    tensor: Name
    dim: Annotated[int, Range(ge=-8, le=7)]
    cluster_axis: Optional[Annotated[int, Range(ge=0, le=3)]] = None
    topology: Optional[Literal["ring", "linear"]] = None
    """``ttnn.Topology.Ring`` or ``Linear``: how the devices of a group pass data round (the
    ``ccl_links`` rule checks the links it needs; docs/semantics.md section 17)."""
    as_: As


class Reduce(Typed):
    """``ttnn.all_reduce(tensor, cluster_axis=None, topology=None)`` (a sum)."""

    tensor: Name
    cluster_axis: Optional[Annotated[int, Range(ge=0, le=3)]] = None
    topology: Optional[Literal["ring", "linear"]] = None
    as_: As


def groups(mesh_shape: tuple[int, ...], cluster_axis: Optional[int]) -> dict[Coord, tuple[Coord, ...]]:
    """Each device's group: the devices along ``cluster_axis`` through it, in order; or every
    device, row-major.

    The devices of a group share one tuple: a collective works out a group's spec, result and
    sources once, by the group's identity (not once per member: over the whole mesh that was
    quadratic in the devices).

    >>> g = groups((2, 2), 1)
    >>> g[(1, 0)], g[(1, 0)] is g[(1, 1)]
    (((1, 0), (1, 1)), True)
    """
    every = coord_tuple(tuple(mesh_shape))
    if cluster_axis is None:
        return {c: every for c in every}
    if not 0 <= cluster_axis < len(mesh_shape):
        raise TTFatal(f"cluster_axis {cluster_axis} is out of range for a mesh of shape {list(mesh_shape)}")
    out: dict[Coord, tuple[Coord, ...]] = {}
    for c in every:
        if c not in out:
            group = tuple(c[:cluster_axis] + (i,) + c[cluster_axis + 1 :] for i in range(mesh_shape[cluster_axis]))
            out.update(dict.fromkeys(group, group))
    return {c: out[c] for c in every}  # in the mesh's order


def _cut(group_of: dict[Coord, tuple[Coord, ...]], listed: frozenset) -> dict[Coord, tuple[Coord, ...]]:
    """Each listed device's group cut to the listed devices (members still share one tuple).

    >>> _cut(groups((2, 2), 1), frozenset({(0, 0), (0, 1), (1, 0)}))
    {(0, 0): ((0, 0), (0, 1)), (0, 1): ((0, 0), (0, 1)), (1, 0): ((1, 0),)}
    """
    cut: dict[int, tuple[Coord, ...]] = {}
    out = {}
    for c, g in group_of.items():
        if c in listed:
            if id(g) not in cut:
                cut[id(g)] = tuple(x for x in g if x in listed)
            out[c] = cut[id(g)]
    return out


def _era_groups(rt: Runtime, src, cluster_axis: Optional[int]) -> dict[Coord, tuple[Coord, ...]]:
    """Each device's group as the era's ``ccl_devices`` rule has it: along ``cluster_axis`` over the
    mesh, or cut to the devices the tensor's topology lists (a group may then be smaller, or one)."""
    group_of = groups(tuple(rt.mesh_of(src).shape), cluster_axis)
    if rt.profile.ccl_devices is CclDevices.TENSOR:
        group_of = _cut(group_of, frozenset(src.record.topology.coords))
    return group_of


def check_links(mesh: MeshDevice, groups_: list[tuple[Coord, ...]], ring: bool) -> None:
    """The ``ccl_links`` rule's ``ethernet`` era: every device of a group sends to the next over a
    direct ethernet link (and the last to the first on a ring), in group order, as the CCLs of
    2024 to early 2025 looked the link up per pair; a pair without one is the real error,
    ``Device 4 is not connected to Device 6`` (tt_metal/llrt/tt_cluster.cpp,
    ``Cluster::get_ethernet_sockets``; issue #13693), each device checked against the one before
    it, then the one after (meshspec's order: #13693's ring of [4, 0, 3, 7, 5, 1, 2, 6] names 4 and 6
    first). No check where the mesh's chips are not known.

    >>> from meshspec.sim.chips import CHIPS
    >>> t3k = MeshDevice("m", (2, 4), chips=CHIPS["t3k"])
    >>> check_links(t3k, [((0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 1), (1, 2), (1, 3))], ring=False)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    meshspec.errors.TTFatal: Device 6 is not connected to Device 5 ...
    """
    links = _links(mesh)
    if mesh.ids is None or links is None:
        return
    for g in groups_:
        ids = [mesh.id_of(c) for c in g]
        n = len(ids)
        if n < 2:
            continue
        for i, here in enumerate(ids):
            for j in (i - 1, i + 1):
                if not ring and not 0 <= j < n:
                    continue
                there = ids[j % n]
                if (min(here, there), max(here, there)) not in links:
                    raise TTFatal(
                        f"Device {here} is not connected to Device {there} (the {'ring' if ring else 'line'} runs over the devices "
                        f"{', '.join(map(str, ids))} in mesh order; {here} at {fmt_coord(g[i])} and {there} at {fmt_coord(g[j % n])} share "
                        "no ethernet link: open the mesh so that neighbours are neighbours, e.g. as a line of the system)"
                    )


def _links(mesh: MeshDevice):
    """The ethernet links of the chips a mesh (or its root) opened on."""
    while mesh.parent is not None:
        mesh = mesh.parent
    return mesh.chips.links if mesh.chips is not None else None


def gather_hook(topo: Topology, dim: int) -> Topology:
    """PR #30684's all_gather hook: every Shard of the gather dim (raw ints) Replicate, on every axis."""
    return Topology(topo.distribution_shape, tuple(Replicate() if isinstance(p, Shard) and p.dim == dim else p for p in topo.placements),
                    topo.coords)


def _layout_after(real: Topology, helper) -> Optional[Topology]:
    """How the output's data is laid out: the helper's answer for the input's layout (the devices
    of a group hold the same result after a gather or reduce, their pieces after a scatter, whatever
    the input held: shards, replicas or partial sums); None where no label is honest (pieces
    interleaved, or a layout no topology can express)."""
    result = helper(real)
    return None if isinstance(result, ccl.NoLabel) else result


def _collective(rt: Runtime, a, combine, shape_of, helper, legacy, piece=None, padding: Optional[str] = None,
                no_layout: bool = False, why: Optional[str] = None) -> None:
    """A collective over each device's group: ``combine(parts)`` is the group's result from its
    buffers, computed once per group, and ``piece(result, index, members)`` a device's part of it by its
    place in the group (all of it without ``piece``); the label by the era's rule (``helper`` on a
    topology: 0.81.1's CCL helpers; ``legacy``: the label before them). ``padding``: how the
    output took its shards' tile padding as data; ``no_layout``: no layout describes the output's
    data (its label is worked out first); ``why``: the reason its label cannot be honest."""
    src = rt.device(a.tensor)
    rec = src.record
    mesh = rt.mesh_of(src)
    topo = rec.topology
    group_of = _era_groups(rt, src, a.cluster_axis)
    spec_in = rec.spec
    # a device reads each of its group's buffers as the tensor's spec says, whatever each device's
    # record (the device op's compute_output_specs takes the input's tensor spec and multiplies the
    # gather dim by the ring: all_gather_device_operation.cpp @ 00555207), so uneven legacy shards
    # give no uneven output; ttnn's CCLs take their devices from the mesh (tt-metal issue #31845), so
    # a device the record does not list is read all the same
    distinct = list({id(g): g for g in group_of.values()}.values())  # each group once (members share its tuple)
    if rt.profile.ccl_links is CclLinks.ETHERNET:  # a ring unless Linear is asked (cluster_axis: Linear, inferred)
        topology = a.topology or ("ring" if a.cluster_axis is None else "linear")
        check_links(mesh, distinct, ring=topology == "ring")
    group_spec = {id(g): spec_in.with_shape(shape_of([tuple(spec_in.shape)] * len(g))) for g in distinct}
    specs = {c: group_spec[id(group_of[c])] for c in group_of}
    out_spec = next(iter(specs.values())) if specs else spec_in
    real = src.layout()  # the data's layout, when an op made the input
    truth = _layout_after(real, helper) if real is not None else None
    dishonest = None
    if rt.profile.op_topology is OpTopology.EXACT and truth is not None:
        label = as_label(truth)
    elif rt.profile.ccl_topology is CclTopology.PER_AXIS or rt.profile.op_topology is OpTopology.EXACT:
        result = helper(topo)
        label = ccl.label(result)
        if isinstance(result, ccl.NoLabel) and rt.profile.op_topology is not OpTopology.EXACT:
            # (the reference has no honest label either: it claims no layout rather than 0.81.1's warning)
            dishonest = f"ttnn 0.81.1 warns: {result.reason}; keeping the legacy per-axis label"
    else:
        label = legacy(topo)
    if no_layout:
        truth = None
    dishonest = why or dishonest
    held = {c: read(rt, src, a.tensor, c, spec_in) for c in group_of}
    position = {c: i for g in distinct for i, c in enumerate(g)}
    results: dict[int, Optional[np.ndarray]] = {}  # each group's result (None: a part is not there), once
    for g in distinct:
        parts = [held[x][0] for x in g]
        results[id(g)] = combine(parts) if all(p is not None for p in parts) else None
    shards = {}
    for c, g in group_of.items():
        result = results[id(g)]
        shards[c] = shard(c, specs[c], (result if piece is None else piece(result, position[c], len(g))) if result is not None else None, rt)
    got = {id(g): tuple(held[x][1] for x in g) for g in distinct}  # a group's members share what they read
    emit(rt, a.as_, mesh, out_spec, label, shards, {c: got[id(g)] for c, g in group_of.items()}, claims=True, layout=truth,
         dishonest=dishonest, gathered_padding=padding)


def _rank_dim(rt: Runtime, a, what: str) -> tuple[int, int]:
    rank = len(rt.device(a.tensor).record.spec.shape)
    dim = normal_dim(a.dim, rank)
    if dim is None:
        if what == "all_gather":  # ttnn/cpp/ttnn/operations/ccl/all_gather/all_gather.cpp:140 (golden views all_gather_dim_*)
            raise TTFatal(f"Invalid gather dim {a.dim} for {rank}D input tensor (the input is rank {rank}: dims {-rank} to {rank - 1})")
        raise TTFatal(f"{what}: dim {a.dim} is out of range for a rank-{rank} tensor")
    return rank, dim


def _all_gather_padding(rt: Runtime, a: Gather) -> tuple[str, str]:
    """What ttnn.all_gather of the profile's era does with tile padding (rule gather_padding), and
    the source to name: ``window`` is the cluster_axis overload's (without one, the unpadding
    overload runs)."""
    choice = rt.profile.gather_padding
    if choice is GatherPadding.WINDOW and a.cluster_axis is None:
        return "logical", ""
    if choice is GatherPadding.PADDED:
        return "padded", "as all_gather's output shape was the padded (legacy) shape times the ring (all_gather_op.cpp, 2024; issue #11013)"
    return choice.value, ""


def _async_padding(rt: Runtime, a: Gather) -> tuple[str, str]:
    """What experimental.all_gather_async of the profile's era does with tile padding (rule ccl_padding)."""
    if rt.profile.ccl_padding is CclPadding.PADDED:
        return "padded", "as the output spec was built from the padded shape (PR #19575; issue #24399)"
    return "logical", ""


def _gather(legacy, padding_of):
    """all_gather or all_gather_async; ``padding_of(rt, a)`` is what the era does with a TILE
    tensor's padding: ``logical`` (left out), ``padded`` (the output spec from the padded shape:
    the padding is data) or ``window`` (a logical output spec over the shards' tiles back to back:
    the padding is data and the last shards fall past the output's end)."""

    def run(rt: Runtime, a: Gather) -> None:
        rank, dim = _rank_dim(rt, a, rt.op)
        src = rt.device(a.tensor)
        mesh_shape = tuple(rt.mesh_of(src).shape)
        spec = src.record.spec
        shape, padded = tuple(spec.shape), tuple(spec.padded_shape)
        mode, source = padding_of(rt, a)
        # the groups as the era forms them: a group cut to the tensor's devices may hold fewer shards
        sizes = sorted({len(g) for g in _era_groups(rt, src, a.cluster_axis).values()})
        n = sizes[-1] if sizes else 1  # the message's figures: the largest group's
        if padded == shape or spec.layout is not Layout.TILE or (mode == "window" and (padded[dim] == shape[dim] or n == 1)):
            # nothing padded, or no tile padding (the rules are about tiles: a ROW_MAJOR row padded to its
            # shard width is gathered as its logical rows, meshspec's choice), or a window over whole tiles
            # along dim, or over one shard: the logical gather
            mode = "logical"
        with_padding = mode == "padded"
        # each part carries what its tiles hold past its end, the zeros from_torch padded with
        widths = [(0, p - m) for m, p in zip(shape, padded)]
        padding = None
        want = list(shape[:dim] + (shape[dim] * n,) + shape[dim + 1 :])
        groups_note = (f" (the largest of the groups, which hold {', '.join(map(str, sizes))} shards: cut to the devices the "
                       "tensor lists)" if len(sizes) > 1 else "")
        if with_padding:
            # the output spec from the padded shape (every dim), the gather dim times the group
            where = "; ".join(f"dim {d}: {shape[d]} of every {padded[d]}" for d in range(rank) if padded[d] != shape[d])
            got = list(padded[:dim] + (padded[dim] * n,) + padded[dim + 1 :])
            padding = (f"it is {got}, but the tensor gathered is {want}{groups_note}: each shard's tile padding is data now "
                       f"({where} is the shard, the rest padding), {source}")
        elif mode == "window":
            # the output is cut to the logical extent in every dim: only the gather dim's padding is in it
            held = -(-(shape[dim] * n) // padded[dim])  # the shards whose tiles start inside the output's extent
            padding = (f"it is {want} as the tensor gathered is{groups_note}, but it holds the shards' tiles back to back along dim "
                       f"{dim}, padding and all ({shape[dim]} of every {padded[dim]} is the shard, the rest padding): only the first "
                       f"{min(held, n)} of the {n} shards start inside it, the others fall past its end (the output spec is logical, "
                       "the kernel moves whole tiles, and this cluster_axis overload neither pads nor unpads; issue #21964)")

        def combine(parts):
            if mode == "logical":
                return np.concatenate(parts, axis=dim)
            whole = np.concatenate([np.pad(p, widths) for p in parts], axis=dim)
            if with_padding:
                return whole
            # the logical extent of the tiles back to back (the gather dim as long as this group's parts)
            return whole[tuple(slice(0, shape[dim] * len(parts) if d == dim else shape[d]) for d in range(rank))]

        # a tensor with padding inside: no layout of the gathered one
        _collective(rt, a, combine,
                    lambda shapes: (padded[:dim] + (padded[dim] * len(shapes),) + padded[dim + 1 :]) if with_padding
                    else _joined(shapes, dim),
                    lambda t: ccl.all_gather_topology(t, a.cluster_axis, mesh_shape, rank, a.dim), lambda t: legacy(t, a.dim),
                    padding=padding, no_layout=mode != "logical")

    return run


def _joined(shapes: list[tuple[int, ...]], dim: int) -> tuple[int, ...]:
    """The shape of a group's parts (each the tensor's spec) concatenated along ``dim``."""
    return shapes[0][:dim] + (sum(s[dim] for s in shapes),) + shapes[0][dim + 1 :]


def _sum(parts):
    with np.errstate(all="ignore"):  # never-written memory reads as poison (NaN): summed as the device would
        return np.sum(np.stack([p.astype(np.float64) for p in parts]), axis=0).astype(parts[0].dtype)


def all_reduce(rt: Runtime, a: Reduce) -> None:
    rank = len(rt.device(a.tensor).record.spec.shape)
    mesh_shape = tuple(rt.mesh_of(rt.device(a.tensor)).shape)
    _collective(rt, a, _sum, lambda shapes: shapes[0],
                lambda t: ccl.all_reduce_topology(t, a.cluster_axis, mesh_shape, rank),
                lambda t: t)  # the default imputation: the input's label (#50657)


def reduce_scatter(rt: Runtime, a: Gather) -> None:
    """The group's sum, split along ``dim`` into one piece per device of the group, in group order."""
    rank, dim = _rank_dim(rt, a, "reduce_scatter")
    src = rt.device(a.tensor)
    mesh_shape = tuple(rt.mesh_of(src).shape)
    n = len(next(iter(groups(mesh_shape, a.cluster_axis).values())))  # also checks cluster_axis
    size = src.record.spec.shape[dim]
    if size % n:
        raise TTFatal(f"reduce_scatter: dim {a.dim} of size {size} does not split over the {n} devices of each group "
                      "(meshspec: each device takes an equal piece of the sum)")
    real = src.layout()
    inner = _split_again(real, mesh_shape, a.cluster_axis, dim, rank) if real is not None else None
    why = None
    if inner is not None and rt.profile.op_topology is not OpTopology.EXACT:
        why = (f"the scatter along mesh axis {a.cluster_axis} splits each piece of dim {dim} that axis {inner} already holds, so "
               f"the pieces run in column-major device order, which the label (read row-major) does not describe")
    def pieces(shapes: list[tuple[int, ...]]) -> tuple[int, ...]:  # a group cut to the tensor's devices may be smaller
        whole = shapes[0]
        if whole[dim] % len(shapes):
            raise TTFatal(f"reduce_scatter: dim {a.dim} of size {whole[dim]} does not split over the {len(shapes)} devices of a group "
                          "(meshspec: each device takes an equal piece of the sum)")
        return whole[:dim] + (whole[dim] // len(shapes),) + whole[dim + 1 :]

    _collective(rt, a, _sum, pieces,
                lambda t: ccl.reduce_scatter_topology(t, a.cluster_axis, mesh_shape, rank, a.dim),
                lambda t: ccl.legacy_relabel(t, a.cluster_axis, Shard(dim)),  # the per-axis edit before the helpers
                piece=lambda whole, i, k: np.take(whole, range(i * (whole.shape[dim] // k), (i + 1) * (whole.shape[dim] // k)), axis=dim),
                no_layout=inner is not None, why=why)


def _split_again(real: Topology, mesh_shape: tuple[int, ...], cluster_axis: Optional[int], dim: int, rank: int) -> Optional[int]:
    """An inner mesh axis that already shards ``dim`` when a scatter along ``cluster_axis`` splits
    it again: its pieces then run in column-major order (the helpers' label says row-major)."""
    axes = ccl.uncollapse(real, mesh_shape)
    if isinstance(axes, str) or cluster_axis is None:
        return None
    for j in range(cluster_axis + 1, len(axes)):
        if mesh_shape[j] > 1 and isinstance(axes[j], Shard) and normal_dim(axes[j].dim, rank) == dim:
            return j
    return None


_IN, _OUT = (Use("tensor", TensorKind.DEVICE),), Use("as_", TensorKind.DEVICE)
def _gather_step(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    dim = rng.randrange(len(shape))
    st.devices[name] = list(shape)
    return {op: {"tensor": dev, "dim": dim, "as": name}}


def _all_reduce(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    st.devices[name] = list(shape)
    return {op: {"tensor": dev, "as": name, **({"cluster_axis": rng.randrange(len(st.mesh_shape))} if rng.random() < 0.5 else {})}}


def _reduce_scatter(rng, st, op: str, dev: str, shape: list, kind: tuple, name: str) -> Step:
    """The last dim over a mesh axis (a dim that does not split is refused)."""
    axis = rng.randrange(len(st.mesh_shape))
    st.devices[name] = shape[:-1] + [max(1, shape[-1] // st.mesh_shape[axis])]
    return {op: {"tensor": dev, "dim": len(shape) - 1, "cluster_axis": axis, "as": name}}


def _export_on_dim(name: str):
    """``out = ttnn.NAME(tensor, dim, cluster_axis=...)``, with the collective's topology when it has one."""
    return lambda a, ctx: [f"{ctx.var(a.as_)} = ttnn.{name}({ctx.var(a.tensor)}, {a.dim}, cluster_axis={a.cluster_axis}{ex.ccl_topology_code(a)})"]


def _export_all_gather_async(a, ctx):
    return [
        f"{ctx.var(a.as_)} = ttnn.experimental.all_gather_async({ctx.var(a.tensor)}, dim={a.dim}, "
        f"multi_device_global_semaphore=ccl_semaphores(mesh_device, 2), topology=ttnn.Topology.{ex.TOPOLOGY[a.topology or 'linear']}, cluster_axis={a.cluster_axis})"]


def _export_all_reduce(a, ctx):
    return [f"{ctx.var(a.as_)} = ttnn.all_reduce({ctx.var(a.tensor)}, cluster_axis={a.cluster_axis}{ex.ccl_topology_code(a)})"]


def _export_all_reduce_async(a, ctx):
    return [
        f"{ctx.var(a.as_)} = ttnn.experimental.all_reduce_async({ctx.var(a.tensor)}, cluster_axis={a.cluster_axis}, mesh_device=mesh_device, "
        f"math_op=ttnn.ReduceType.Sum, topology=ttnn.Topology.{ex.TOPOLOGY[a.topology or 'linear']})"]


def _export_reduce_scatter_minimal_async(a, ctx):
    return [
        f"{ctx.var(a.as_)} = ttnn.experimental.reduce_scatter_minimal_async({ctx.var(a.tensor)}, dim={a.dim}, "
        f"multi_device_global_semaphore=ccl_semaphores(mesh_device, 3), topology=ttnn.Topology.{ex.TOPOLOGY[a.topology or 'linear']}, cluster_axis={a.cluster_axis})"]


OPS = (
    Op("all_gather", Gather, _gather(gather_hook, _all_gather_padding),
       "Each device gets its group's shards concatenated along dim; the topology by the era's rule (0.81.1: the CCL helpers).",
       "ttnn.all_gather(tensor, dim, cluster_axis=None, topology=None)", uses=_IN, binds=_OUT, fabric=True, generate=on_device(_gather_step), export=_export_on_dim("all_gather")),
    Op("all_gather_async", Gather, _gather(lambda topo, dim: topo, _async_padding),
       "ttnn.experimental.all_gather_async: as all_gather; before its hook the output kept the input's label (issue #38371).",
       "ttnn.experimental.all_gather_async(tensor, dim, cluster_axis=None, ...)", uses=_IN, binds=_OUT, fabric=True, generate=on_device(_gather_step), export=_export_all_gather_async),
    Op("all_reduce", Reduce, all_reduce,
       "Each device gets the sum over its group; the topology by the era's rule (before the CCL helpers it kept the input's label, #50657).",
       "ttnn.all_reduce(tensor, cluster_axis=None, topology=None)", uses=_IN, binds=_OUT, fabric=True, generate=on_device(_all_reduce), export=_export_all_reduce),
    Op("all_reduce_async", Reduce, all_reduce, "ttnn.experimental.all_reduce_async: as all_reduce.",
       "ttnn.experimental.all_reduce_async(tensor, cluster_axis=None, ...)", uses=_IN, binds=_OUT, fabric=True, export=_export_all_reduce_async),
    Op("reduce_scatter", Gather, reduce_scatter,
       "Each device gets its piece (along dim, in group order) of its group's sum; the topology by the era's rule (0.81.1: Shard(dim)).",
       "ttnn.reduce_scatter(tensor, dim, cluster_axis=None, topology=None)", uses=_IN, binds=_OUT, fabric=True, generate=on_device(_reduce_scatter), export=_export_on_dim("reduce_scatter")),
    Op("reduce_scatter_minimal_async", Gather, reduce_scatter, "ttnn.experimental.reduce_scatter_minimal_async: as reduce_scatter.",
       "ttnn.experimental.reduce_scatter_minimal_async(tensor, dim, cluster_axis=None, ...)", uses=_IN, binds=_OUT, fabric=True, export=_export_reduce_scatter_minimal_async),
)
