"""Runtime profiles: how TT-NN recorded per-device specs in each era (docs/semantics.md section 6).

A profile is a set of named rules, each rule a choice the runtime branches on, each choice with
its source (:data:`RULES`); the simulated mesh and the ground truth of what was written are the
same under every profile. ``meshspec profiles`` prints them side by side. A scenario (or a
profile file) can define its own: ``profile: {base: current, copy: exact}`` is the current
library with one rule changed, to model a branch or a fix and compare it with ``--profile all``.

==================  ============  =============  ================  ========  =========
profile             allocation    copy record    mapper            composer  copy check
==================  ============  =============  ================  ========  =========
unpopulated         no specs      lost (by val)  legacy chunk      legacy    1st shard
uniform-by-value    every device  lost (by val)  legacy chunk      legacy    1st shard
current             every device  by reference*  equal shards      current   every shard
reference           nothing yet   exact          equal shards      current   every shard
==================  ============  =============  ================  ========  =========

\\* including the current library's gap: a full write after a partial one keeps the old coords.
"""

from __future__ import annotations

import enum
from typing import Any, Mapping, Optional

from ..errors import UsageError, did_you_mean, one_of
from ..frozen import Frozen
from .mapper_rules import CURRENT_MAPPER, LEGACY_MAPPER, MapperRules


class AllocationRecord(str, enum.Enum):
    NONE = "none"
    """No per-device specs at all (mesh-buffer storage before PR #18833)."""
    ALL = "all"
    """Every device recorded as holding the allocated spec (PR #18833, and today's coords)."""
    UNRECORDED = "unrecorded"
    """The spec is known, no device is recorded until written (the reference)."""


class CopyRecord(str, enum.Enum):
    LOST = "lost"
    """``dst`` is taken by value: the record update is made on a copy and lost."""
    CURRENT = "current"
    """By reference; a partial write sets coords, a full write keeps the old coords (the gap)."""
    EXACT = "exact"
    """Record exactly the devices and shard specs written."""


class MapperRule(str, enum.Enum):
    LEGACY = "legacy"
    """The Python mappers of early 2025: torch.chunk, unequal last shard allowed."""
    EQUAL_SHARDS = "equal_shards"
    """The C++ mappers (PR #23684): every shard the same shape (issue #22977)."""

    @property
    def rules(self) -> MapperRules:
        return LEGACY_MAPPER if self is MapperRule.LEGACY else CURRENT_MAPPER


class Composer(str, enum.Enum):
    LEGACY = "legacy"
    """Concatenate every shard the storage claims (``ConcatMeshToTensor`` of early 2025)."""
    CURRENT = "current"
    """Walk the distribution shape, skip missing shards (1-D); N-D needs every shard."""


class CopyCheck(str, enum.Enum):
    FIRST_SHARD = "first_shard"
    """Only the host tensor's spec (its first shard's, issue #21652) must match ``dst``."""
    EVERY_SHARD = "every_shard"
    """Every shard's shape, dtype and page config must match ``dst`` (tensor_apis.cpp)."""


class DefaultComposer(str, enum.Enum):
    REFUSE = "refuse"
    """``to_torch`` with no composer refuses any tensor of more than one host shard, replicated or
    not (``ttnn/cpp/ttnn-nanobind/pytensor.cpp``, ``TT_FATAL(buffers.size() == 1, ...)``)."""
    FROM_TOPOLOGY = "from_topology"
    """When every distribution axis is a Shard, concatenate along the shard dims the topology
    records; a Replicate axis still refuses (PR #53481, open in 2026-09)."""


class CacheTopology(str, enum.Enum):
    KEPT = "kept"
    """A cached tensor loads with the topology it was dumped with (PR #29158, 2025-09-23)."""
    DEFAULT = "default"
    """A cached tensor loads with the default topology, distribution (1) [R] on (0, 0), though
    its shards are per device (PR #24765 to PR #29158, mid 2025; issue #25340)."""


class LoadMemory(str, enum.Enum):
    KEPT = "kept"
    """A tensor loaded onto a device gets the memory config it was dumped with, a sharded one too
    (PR #26831, 2025-08-14; ttnn 0.81.1, observed: WIDTH_SHARDED DRAM after dump and load)."""
    INTERLEAVED = "interleaved"
    """A tensor loaded onto a device gets a default ``MemoryConfig{}``, DRAM interleaved: the
    flatbuffer loader called ``to_device`` without the tensor's own config (issue #26763, fixed by
    PR #26831: "The default of mem_config is default constructed MemoryConfig and not MemoryConfig
    that is present in Tensor already")."""


class TensorFile(str, enum.Enum):
    COLLAPSE_REPLICATED = "collapse_replicated"
    """A file keeps one shard for each group of devices the topology says hold copies (a Replicate
    axis kept at its first coordinate); a load gives every device its group's shard, whatever the
    devices held (ttnn 0.81.1, observed: tests/golden ``ttnn_tensor_files.json``)."""
    EVERY_SHARD = "every_shard"
    """A file keeps every populated shard; a load gives each device what was dumped from it
    (meshspec's reference)."""
    REPLICATE_ON_LOAD = "replicate_on_load"
    """A file keeps every shard, but a load onto a mesh puts the first shard on every device: the
    copy of the loaded storage lost its distribution and defaulted to replicated (tt-metal issue
    #8228, fixed by PR #8229, 2024-05-07)."""
    REPLICATED_CONFIG = "replicated_config"
    """The legacy format: a tensor whose distribution config is ReplicateTensor (a fully Replicate
    topology, or a device op's output, which kept the default config) is written as its first shard
    alone, and a load puts that shard on every device (serialization.cpp
    ``dump_multi_device_host_storage``, PR #7445 to the flatbuffer format; issue #26637, 2025-08-11)."""
    FIRST_SHARD = "first_shard"
    """The serialiser writes the first device's shard of any multi-device tensor; the file is one
    shard, which a load replicates over the mesh (tt-xla issue #5177, codegen ``export_tensors``,
    2026-06-11; regression test tt-xla PR #5219)."""


class MapperOffset(str, enum.Enum):
    SUPPORTED = "supported"
    """``MeshMapperConfig`` / ``MeshComposerConfig`` take ``mesh_offset_override`` (PR #51639, 2026-07-30)."""
    ABSENT = "absent"
    """No offset: a SUBMESH distribution starts at (0, 0) (before PR #51639)."""


class Handles(str, enum.Enum):
    SHARED = "shared"
    """get_device_tensors parts share the parent's topology; combine_device_tensors writes (n)
    [S(0)] on flat positions into it, for every handle (ttnn 0.81.1, observed)."""
    OWN = "own"
    """Each handle has its own topology: a part (1) [R] on its device; a combined tensor (n) [S(0)]
    on the parts' devices (meshspec's reference)."""
    COPIED = "copied"
    """Each handle holds its own copy of the topology: a part starts with its parent's, a combined
    tensor with (n) [S(0)] on flat positions, as under ``shared``, but a later change (a copy into a
    part, a combine) is the handle's alone, and a view keeps its record (devices and label) through a
    copy into its base.
    Before PR #39485 (March 2026) "TTNN Tensor updates its topology via copy-on-write" (its
    description); ttnn 0.66.0 and 0.67.0, observed: tests/hunt/data copy-into-a-part and
    real-bugs/view-keeps-its-topology."""


class PerDeviceApi(str, enum.Enum):
    COMBINE = "combine"
    """combine_device_tensors and from_host_shards exist (PRs #23290, 2025-06-09, and #24546, 2025-07-03)."""
    AGGREGATE_AS_TENSOR = "aggregate_as_tensor"
    """Before June 2025: aggregate_as_tensor did both jobs; the two calls do not exist."""


class TopologyUpdate(str, enum.Enum):
    METHOD = "method"
    """``Tensor.update_tensor_topology`` sets a tensor's topology in place (PR #39485, "Allow mutation
    of tensor topology", opened 2026-03-09; ttnn 0.81.1)."""
    ABSENT = "absent"
    """Before PR #39485 the Tensor has no such method, an AttributeError (ttnn 0.66.0 and 0.67.0,
    observed: tests/golden ``ttnn_0_6*_0.json`` api ``update_tensor_topology``)."""


class FreedTransfer(str, enum.Enum):
    CRASH = "crash"
    """cpu() of a deallocated device tensor, and copy_host_to_device_tensor into one, are not
    checked: the process dies (SIGSEGV; ttnn 0.81.1, observed: tests/golden ``ttnn_0_81_1_freed.json``)."""
    CHECKED = "checked"
    """Every use is checked first: the host reads refuse, ``TT_FATAL: Buffer must be allocated on
    device!`` (cpu, to_torch, dump_tensor) and ``... device.`` (the copies either way), every device
    op ``Buffer is not allocated``, parts of a freed tensor are not combined; the views (squeeze,
    unsqueeze, reshape, view) are made on the freed buffer unchecked. The words of the reads are the
    allocation check of the older to_host path (``TT_ASSERT(tensor.is_allocated(), "Buffer must be
    allocated on device!")`` in ttnn/cpp/ttnn/tensor/tensor_impl.cpp's to_host_helper); ttnn 0.66.0
    and 0.67.0, observed op by op: tests/golden ``ttnn_0_6*_0_freed.json`` (the two alike) and
    ``ttnn_0_6*_0.json`` runtime ``deallocate``."""


class OpTopology(str, enum.Enum):
    IMPUTED = "imputed"
    """A device op's output takes the union of its inputs' labels, whatever the op does to the
    tensor's dims (ttnn/core/device_operation_detail.cpp, PR #29899, 2025-10-02); only ops with
    their own compute_output_topologies hook differ (8 of 274 per issue #52331)."""
    EXACT = "exact"
    """The output's topology is how its data is laid out (meshspec's reference)."""


class CclTopology(str, enum.Enum):
    PER_AXIS = "per_axis"
    """The CCL topology helpers (ccl_topology_utils.cpp @ 0b4d561a, 2026): a collapsed label expanded
    per mesh axis, the gathered or reduced cluster axis (every axis without one) Replicate; ttnn
    0.81.1 (its ttnn.CONFIG carries the helpers' strict_ccl_topology flag)."""
    UNION = "union"
    """Before them: all_gather_async and all_reduce keep the input's label (issues #38371, 2026-02;
    #50657, 2026-07); all_gather's own hook replicates every Shard of the gather dim (PR #30684)."""


class CclPadding(str, enum.Enum):
    LOGICAL = "logical"
    """A gather concatenates each device's logical shard; tile padding stays padding (its output
    spec is the logical shape with the gather dim times the ring; ttnn 0.81.1). ``ttnn.all_gather``
    has a rule of its own, :class:`GatherPadding` (its eras are not all_gather_async's)."""
    PADDED = "padded"
    """all_gather_async builds its output spec from the padded shape (PR #19575, 2025-03-24:
    ``get_padded_shape()`` with a TODO to use the logical one), so each shard's tile padding is
    gathered as data (issue #24399, 2025-06-30: "doesn't do unpad at the end")."""


class GatherPadding(str, enum.Enum):
    LOGICAL = "logical"
    """``ttnn.all_gather`` concatenates each device's logical shard: its output spec is the logical
    shape with the gather dim times the ring, and the 2025 wrapper padded the input to whole tiles
    and cut each device's part back out (``ttnn::ccl::unpad_output_tensor``, PR #16347); ttnn 0.81.1."""
    PADDED = "padded"
    """all_gather's output shape was the input's legacy (padded) shape with the gather dim times
    the ring (``compute_output_shapes``: ``get_legacy_shape()``, all_gather_op.cpp @ 00324ac3, 2024),
    so each shard's tile padding is gathered as data (issue #11013, 2024-08-01, line_all_gather of
    ``[1, 1, 8[32], 1024]``; its V1 CCL subtask #16392 closed by PR #16347, 2025-01)."""
    WINDOW = "window"
    """The 2025 ``all_gather(..., cluster_axis, mesh_device)`` overload neither padded nor unpadded
    around the device op, whose output spec is logical while its kernel moves whole tiles: the
    output's logical extent holds the shards' tiles back to back, padding and all, and the last
    shards fall past it (issue #21964, 2025-05-12: "the output tensor includes unexpected 0.0
    values"). Without a cluster axis the unpadding overload runs: logical."""


class CclDevices(str, enum.Enum):
    MESH = "mesh"
    """A collective's groups are the mesh device's (its shape and cluster_axis), whatever devices
    the tensor is on: a device the tensor does not cover is read all the same (tt-metal issue
    #31845, open: "the CCL OPs are relying on the mesh shape to determine the set of devices";
    ttnn 0.81.1)."""
    TENSOR = "tensor"
    """Each group is cut to the devices of the tensor's own topology, as #31845 asks (its
    ``tensor_topology()``, not the mesh's shape): meshspec's reference."""


class HostAllocTopology(str, enum.Enum):
    DEFAULT = "default"
    """allocate_tensor_on_host gives a shard at every coordinate of the mesh under the default
    topology, (1) [R] on (0, 0): its own records contradict each other (ttnn 0.81.1, observed:
    tests/golden ``api``)."""
    MESH = "mesh"
    """The mesh's shape with Replicate on every axis, on every coordinate the shards are at
    (meshspec's reference)."""


class UnitMesh(str, enum.Enum):
    MESH = "mesh"
    """A tensor on a 1x1 mesh device is mesh storage like any other (ttnn 0.66.0, 0.67.0 and 0.81.1,
    observed: StorageType.DEVICE on 1x1 as on 2x4, and a mapped host tensor copies in;
    tests/golden ``storage``)."""
    SINGLE_DEVICE = "single_device"
    """A device tensor made on a 1x1 mesh device silently becomes single-device storage (the
    infrastructure turned a tensor with one worker into a single-device tensor), while a mapped
    host tensor is multi-device host storage: copy_host_to_device_tensor between them fails
    (issue #15833, 2024-12-09; PR #15845 handled the copy the same day)."""


class HostBorrow(str, enum.Enum):
    OWNED = "owned"
    """A host tensor made from the caller's array owns a copy, and so does every shard a mapper
    makes of it (ttnn 0.81.1, observed: tests/golden ``storage``)."""
    BORROWED = "borrowed"
    """A ROW_MAJOR host tensor made from the caller's array borrows its memory, and a replicate
    mapper's replicas borrow it too; a shard mapper copies into owned chunks (ttnn 0.66.0 and
    0.67.0, observed with numpy: the array changed after, the tensor and all 8 replicas see it,
    the shards do not; tests/golden ``storage``)."""
    BORROWED_REFUSED = "borrowed_refused"
    """As ``borrowed``, and aggregate_as_tensor takes anything not owned for device storage: a
    replicate in distribute_tensor fails on a borrowed tensor (issue #18842, 2025-03-09, until PR
    #18555: "borrowed storage is currently the preferred default")."""


class ReadBuffers(str, enum.Enum):
    SHARDS = "shards"
    """cpu() makes one host buffer per shard it reads (ttnn 0.81.1)."""
    DEVICES = "devices"
    """to_host_mesh_tensor resizes its buffer list to the number of devices, then appends the
    shards read: the host tensor's buffers are default-initialized ones, the data read sits past
    them. PR #19032 (2025-03-13) fixed it, and the ``buffers.back()`` read in the same loop that
    changes the list."""


class ToDeviceRecord(str, enum.Enum):
    WRITTEN = "written"
    """to_device records exactly the shards it writes (ttnn 0.81.1)."""
    REPLICATED = "replicated"
    """to_device allocates a replicated mesh buffer, one spec on every device, then writes the
    host shards: a mapper that populates fewer devices leaves devices recorded and never written
    (PR #17513, 2025-02, ``to_device_mesh_tensor``; its review: "This allocates a replicated
    tensor across all devices")."""


class ShardGrid(str, enum.Enum):
    AS_GIVEN = "as_given"
    """A sharded tensor records the grid it was given, by the user's memory config or by a device op
    that keeps its input's: cores that hold no page stay in it (ttnn 0.81.1; PR #50174 counts ~6 op
    families that report such grids)."""
    CLAMPED = "clamped"
    """The recorded grid is cut to the cores that hold a page, as PR #55112 (open, 2026-09) does for
    op outputs (meshspec's reference does it for every sharded tensor)."""


class UnevenRowMajorShards(str, enum.Enum):
    PADDED = "padded"
    """to_device / Tensor.to of a ROW_MAJOR tensor into shards whose width does not divide its width
    pads each row: to a whole number of shards (width, block), to the shard width (height) (ttnn
    0.81.1, observed)."""
    REFUSED = "refused"
    """The same transfer is refused, ``Physical width 96 must be multiple of page width 64``
    (tensor_layout.cpp:186; ttnn 0.66.0 and 0.67.0, observed, height shards too; issues #20726 and
    #22396 in 2025, and #22947 for height shards wider than the rows)."""


class DramGridRows(str, enum.Enum):
    ROW_ZERO = "row_zero"
    """A DRAM shard grid off row 0 is refused when the buffer is made (PR #51542, 2026-07-29; ttnn 0.81.1)."""
    ALIASED = "aliased"
    """It is taken, and a DRAM core's bank is its x alone: cores (x, 0) and (x, 1) write the same bank,
    the later shard over the earlier (issue #51503; ttnn 0.66.0 and 0.67.0 take it, observed)."""


class BankCheck(str, enum.Enum):
    CHECKED = "checked"
    """A shard core with no bank (off the worker grid, past the DRAM banks) is refused when the buffer is
    made (PR #53263, 2026-08-15; ttnn 0.81.1)."""
    UNCHECKED = "unchecked"
    """It is taken, and what is written for it lands in no bank of the tensor (PR #53263: aborts or
    silently wrong data; ttnn 0.66.0 and 0.67.0 take it, observed)."""


class PrintCoords(str, enum.Enum):
    OWN = "own"
    """to_string prints each shard this host holds under its own coordinate (PR #52708, 2026-08;
    ttnn 0.81.1 by date, inferred)."""
    PREFIX = "prefix"
    """to_string pairs the i-th shard this host holds with the i-th of every coordinate the tensor
    spans and prints it only when that coordinate is local (ttnn/core/tensor/tensor_impl.cpp
    before PR #52708; issue #48267)."""


class VisualizeRemote(str, enum.Enum):
    MARKED = "marked"
    """visualize_tensor asks local devices only for their ids; a remote cell reads Remote, Unknown
    ID (PR #35464, 2026-01; ttnn 0.66.0, 0.67.0 and 0.81.1's distributed.py, read)."""
    FATAL = "fatal"
    """visualize_tensor asks every coordinate of the mesh for its device id: the first remote one is
    TT_FATAL (ttnn/ttnn/distributed/distributed.py before PR #35464; issue #35441)."""


class GraphCapture(str, enum.Enum):
    LOCAL = "local"
    """Graph capture tracks a device tensor's buffers on the coordinates this host owns only (PR
    #47846, 2026-06; ttnn 0.81.1 by date, inferred)."""
    EVERY_COORD = "every_coord"
    """GraphProcessor::add_tensor asks the mesh buffer of every coordinate the tensor spans, and a
    remote one throws: the capture stops at the first device op (ttnn/core/graph/graph_processor.cpp
    before PR #47846; ttnn-visualizer issue #1672)."""


class WritePinning(str, enum.Enum):
    MAPPED = "mapped"
    """A host-to-device write of 32 MiB or more pins host memory for the devices it writes: a plain
    host tensor (the 1x1 replicate path) for this host's devices only (PR #46138, 2026-06-04), a
    mapped one for every device its shards go to, remote ones too, and get_device of a remote one is
    TT_FATAL (PinnedMemoryCache::compute_device_ids checks contains() only; issue #48477, open;
    ttnn 0.81.1)."""
    EVERY = "every"
    """Both paths pin every device they write, remote ones too (PR #41612's pinned writes before PR
    #46138, 2026-04 to 2026-06)."""
    LOCAL = "local"
    """No write asks a remote device: only this host's devices are pinned and written (what PR
    #46138 does for the 1x1 path, for every write: meshspec's reference; and every era before PR
    #41612's pinned writes, 2026-04)."""


class ReplicatedDistribution(str, enum.Enum):
    FLAT = "flat"
    """``replicate_tensor_to_mesh_mapper`` (what ``ReplicateTensorToMesh`` wraps) records a 1-D
    distribution of every device, ``(num_devices) [R]``, whatever the mesh's shape: its config's
    ``mesh_shape_override`` is ``MeshShape(mesh_device.num_devices())`` (distributed_tensor.cpp);
    so does a plain host tensor written to every device (``create_fully_replicated_tensor_topology``,
    tensor_topology.cpp);
    tt-metal issue #28755 (2025-09-17, "Tensor topology shape is being squeezed from 1x8 by 8");
    ttnn 0.66.0, 0.67.0 and 0.81.1 (observed, tests/golden ``replicated_distribution``)."""
    MESH = "mesh"
    """The mesh's shape with a Replicate per axis, as ``create_mesh_mapper`` with a Replicate per
    axis records it: ``(1, 8) [R, R]`` on a 1x8 mesh (what #28755 asks for; meshspec's reference)."""


class PlainToDevice(str, enum.Enum):
    REPLICATED = "replicated"
    """A plain host tensor (one host buffer) put on a mesh of several devices is replicated to every
    device and recorded fully replicated, ``(num_devices) [R]`` on every device (PR #29158,
    2025-09-23: "Fixed ``tensor.to(device)`` for 1x1 tensor path to update ``TensorTopology``
    accordingly"; ttnn 0.66.0, 0.67.0 and 0.81.1, observed, tests/golden ``replicated_distribution``)."""
    DEFAULT = "default"
    """Before PR #29158 (from PR #24765, July 2025): the 1x1 path wrote every device and kept the host
    tensor's default topology, (1) [R] on (0, 0), so the record lists one of the devices that hold
    the data (inferred from PR #29158's description; the era of CacheTopology.DEFAULT)."""


class HostShardOps(str, enum.Enum):
    PER_SHARD = "per_shard"
    """Host ops (pad, unpad, to_layout, to_dtype, typecast, reshape) on a mapped host tensor run
    shard by shard and keep its topology (unpad since PR #21628, 2025-05-05; ttnn 0.81.1, observed)."""
    NO_UNPAD = "no_unpad"
    """pad runs shard by shard (PR #6976, 2024-04-01) but unpad refuses a multi-shard host tensor,
    ``Device storage isn't supported`` (tensor_impl.cpp's unpad; issue #16870, 2025-01-17), and
    so does a to_layout to ROW_MAJOR that must drop tile padding."""
    NONE = "none"
    """pad and unpad refuse a multi-device host tensor, ``Tensor must be on host for padding``
    (tt_eager/tensor/tensor.cpp; issue #6889, 2024-03-28, before PR #6976)."""


class BlockFloatMapper(str, enum.Enum):
    LOGICAL = "logical"
    """from_torch of a block float with a mesh mapper maps the logical tensor: each shard keeps
    its logical shape (ttnn 0.81.1, observed: tests/golden/ttnn_0_81_1_host_ops.json)."""
    PADDED = "padded"
    """from_torch tilized the whole tensor, took its tile-padded shape, mapped that, and reshaped
    back to the logical shape only without a mesh mapper (``and mesh_mapper is None``,
    ttnn/ttnn/operations/core.py of 2024): each shard records a slice of the padded tensor, its
    padding as data (issue #8967, 2024-05-30; PR #8968, closed unmerged)."""


class ChipMap(str, enum.Enum):
    CURRENT = "current"
    """Which physical chip each mesh coordinate opens on, as ttnn 0.81.1 maps it (observed with
    each system's mock cluster descriptor: tests/golden ``ttnn_0_81_1_device_ids.json``)."""
    EARLY_2026 = "early_2026"
    """As ttnn 0.66.0 and 0.67.0 (February-March 2026) map it: the same ids on the Wormhole systems,
    other chips on Blackhole P150x4 and P150x8 (observed: tests/golden ``ttnn_0_66_0_device_ids.json``,
    ``ttnn_0_67_0_device_ids.json``)."""


class ReshapeOrder(str, enum.Enum):
    CONNECTED = "connected"
    """``MeshDevice.reshape`` keeps neighbours neighbours: a mesh reshaped to a line gets the
    devices in the order opening that line gives (2x4 -> 1x8 on a T3K: 4 0 2 6 7 3 1 5), a line to
    2-D the system mesh's block (PR #17646, 2025-02-06; ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1_device_ids.json`` "reshape")."""
    ROW_MAJOR = "row_major"
    """The devices keep their row-major order under the new shape (2x4 -> 1x8: 4 0 2 6 5 1 3 7, so
    6 and 5 are neighbours on the line but not on the board): MeshDevice::reshape from PR #16029
    (2024-12) to PR #17646, whose fix says a line all-gather after a reshape failed with
    "Device[i-1] not connected to Device[i]"."""


class CclLinks(str, enum.Enum):
    NOT_CHECKED = "not_checked"
    """A collective's ring or line is not checked against the chips' ethernet links: the fabric
    CCLs of ttnn 0.81.1 route between mesh coordinates (meshspec models no route; ttnn 0.81.1's
    meshes open with neighbours on neighbouring chips: tests/golden device ids)."""
    ETHERNET = "ethernet"
    """The CCLs of 2024 to early 2025 send each device's data to its neighbour in the ring or line
    over a direct ethernet link, looked up per pair; a pair of devices without one stops the op with
    ``Device 4 is not connected to Device 6`` (tt_metal/llrt/tt_cluster.cpp,
    ``Cluster::get_ethernet_sockets``; issue #13693, PR #17646, PR #18319)."""


class ReshapedStorage(str, enum.Enum):
    CHECKED = "checked"
    """After ``MeshDevice.reshape``, get_device_tensors and cpu() of a tensor whose recorded
    coordinates do not fit the mesh refuse: ``DeviceStorage coordinate (1, 0) is out of bounds for
    mesh device shape (1, 8)`` (DeviceStorage's constructor checks its coordinates,
    ttnn/core/tensor/storage.cpp ``validate_mesh_coordinates``; the PR that added it is not
    established), and cpu() fills a buffer its coordinates must fit (ttnn 0.81.1, observed:
    tests/golden ``ttnn_0_81_1.json`` api ``reshape``, ``readback_buffer_shape``)."""
    UNCHECKED = "unchecked"
    """Nothing checks: get_device_tensors gives a part per recorded coordinate, each with its
    parent's topology, and cpu() reads into a buffer of the mesh's current shape, keeping the
    tensor's topology; a shard whose coordinate is off that shape is not read (its read worker
    logs the TT_FATAL and stops). ttnn 0.66.0 and 0.67.0, observed: tests/golden ``ttnn_0_6*_0.json``
    api ``reshape``, ``readback_buffer_shape``; the words of the check are not in their libraries."""


class FillLike(str, enum.Enum):
    MADE = "made"
    """zeros_like / ones_like / full_like make their tensor: on device by a fill op on the input's
    devices, on host a plain host tensor (ttnn 0.81.1 and 0.67.0; the device op is a kernel the mock
    cannot run, so its form rests on the source)."""
    HOST_CRASH = "host_crash"
    """Of a host tensor (plain or mapped) the process dies, SIGSEGV: a host call, no device op nor
    kernel in it (ttnn 0.66.0, observed: tests/golden ``ttnn_0_66_0.json`` api ``creation`` event 15,
    and a plain host tensor in the mock); 0.67.0 and 0.81.1 make it. And ``empty_like`` of a host
    tensor with no device, which dies on 0.67.0 and 0.81.1, refuses there, ``Device needs to not be
    null.`` (buffer.cpp's check; a tester's probe, plain and mapped)."""


class NumpyBfloat16(str, enum.Enum):
    CONVERTED = "converted"
    """The numpy ``ttnn.Tensor(array, bfloat16, ...)`` constructor converts a float32 (or int32)
    array to bfloat16 on host, in either layout (ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1.json`` api ``from_torch_path``)."""
    EMPTY_BUFFER = "empty_buffer"
    """The numpy constructor makes bfloat16 from an empty buffer, whatever the array's dtype or the
    layout: ``Current buffer size is 0 different from shape volume N`` (the ``buffer.size() ==
    volume`` check of ttnn/core/tensor/tensor.cpp, which the refusal names; ttnn 0.67.0, observed:
    tests/golden ``ttnn_0_67_0.json`` api ``from_torch_path``). Every other dtype reads."""
    INVALID_NDARRAY = "invalid_ndarray"
    """As ``empty_buffer``, refused earlier, by the count of the converted ndarray, which is
    invalid: ``Number of elements from python tensor 0 must match volume of shape N!`` (the check in
    ttnn/cpp/ttnn-nanobind/pytensor.cpp the refusal names; ttnn 0.66.0, observed: tests/golden
    ``ttnn_0_66_0.json`` api ``from_torch_path``)."""


class BlockFloatRowMajor(str, enum.Enum):
    REFUSED = "refused"
    """A TensorSpec of bfloat8_b or bfloat4_b in ROW_MAJOR is refused, ``Only TILE layout is
    supported for BFLOAT8_B dtype!``: a TT_FATAL of ``validate_dtype_and_layout`` in
    tt_metal/impl/tensor/spec/tensor_spec.cpp (ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1.json`` specs)."""
    ALLOCATED = "allocated"
    """The same check was a TT_ASSERT in ttnn/core/tensor/tensor_spec.cpp, compiled out of release
    builds: the spec is made (padded shape = shape) and a device tensor of it allocates on every
    device (ttnn 0.66.0 and 0.67.0, observed: tests/golden ``ttnn_0_6*_0.json`` specs; in the mock
    it also reads back, copies both ways and comes from ``ttnn.empty``)."""


class CombineCheck(str, enum.Enum):
    STORAGES = "storages"
    """combine_device_tensors goes through the parts' device storages (DeviceStorage::combine_device_storages,
    ttnn/core/tensor/storage.cpp; its symbol and words are in 0.81.1's _ttnncpp.so, not in 0.66/0.67's):
    a freed part is refused, ``All DeviceStorages must be allocated``, and parts of two storages
    ``tensor shards must be allocated on the same mesh buffer.`` (ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1.json`` api ``combine_device_tensors``, ``deallocate_part``)."""
    MESH_BUFFER = "mesh_buffer"
    """The older aggregation in ttnn/core/distributed/api.cpp compares the parts' mesh buffer pointers
    and nothing else: parts of two storages are ``Error aggregating multichip tensors: tensor shards
    must be allocated on the same mesh buffer. Consider moving tensors to host, aggregating, and
    re-uploading on device storage.``, and freed parts make a tensor on the freed buffer, not
    allocated (ttnn 0.66.0 and 0.67.0, observed: tests/golden ``ttnn_0_6*_0.json`` api
    ``combine_device_tensors`` event 9, ``deallocate_part`` event 5)."""


class HostBufferShape(str, enum.Enum):
    COORDS = "coords"
    """to_device and copy_host_to_device_tensor take a mapped host tensor's shard coordinates as
    coordinates of the destination mesh, whatever its distributed host buffer's shape; the first one
    off the mesh fails, ``Coordinate ... not found in mesh`` (ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1.json`` api ``submesh_copies``, ``from_host_shards``)."""
    SAME_SHAPE = "same_shape"
    """The distributed host buffer must have the destination mesh's shape (a plain 1x1 one is
    replicated): ``Distributed host buffer has different shape MeshShape([4, 2]) than the mesh device
    MeshShape([2, 4])`` before any write (to_device_mesh_buffer in ttnn/core/tensor/tensor_impl.cpp;
    ttnn 0.66.0 and 0.67.0, observed: tests/golden ``ttnn_0_6*_0.json`` api ``submesh_copies``,
    ``from_host_shards``)."""


class HostReadSource(str, enum.Enum):
    CRASH = "crash"
    """copy_device_to_host_tensor does not check that its source is on device: a host tensor
    there kills the process (SIGSEGV; ttnn 0.81.1, observed: tests/golden ``ttnn_0_81_1.json`` api
    ``copy_device_to_host_tensor`` event 13)."""
    CHECKED = "checked"
    """It is refused, ``TT_FATAL: Source tensor is not on device.`` (copy_to_host in
    ttnn/core/tensor/tensor_impl.cpp; ttnn 0.66.0 and 0.67.0, observed: tests/golden
    ``ttnn_0_6*_0.json`` api ``copy_device_to_host_tensor`` event 13)."""


class DumpOverwrite(str, enum.Enum):
    RENAMED = "renamed"
    """dump_tensor writes a private temporary sibling and renames it into place (atomic), so a
    tensor loaded from the same file, whose shards load_tensor reads lazily through a map of it,
    keeps the old file's pages (ttnn 0.81.1, observed: a tensor loaded from a file and dumped into
    it again; ttnn/core/tensor/serialization.cpp ``dump_tensor_flatbuffer_impl``, "Write to a
    private temporary sibling and rename it into place")."""
    IN_PLACE = "in_place"
    """dump_tensor opens the file for writing, truncating it, and then reads the tensor's bytes: a
    tensor loaded from that very file reads them through its map of the file (load_tensor_flatbuffer:
    "Mmap the file to read tensor data lazily", MAP_PRIVATE) past the new end, and the process dies
    (SIGBUS). ttnn 0.66.0 and 0.67.0, observed in the mock: plain and mapped, ROW_MAJOR and TILE
    alike; a dump into another file runs (ttnn/core/tensor/serialization.cpp of early 2026: fopen "wb")."""


class DimListWords(str, enum.Enum):
    BRACES = "braces"
    """A list of dims in ttnn's words is printed ``{4, 3}`` (``Invalid dimension index; got dims:
    {4, 3}``; ttnn 0.81.1, observed: tests/golden ``ttnn_0_81_1.json`` mappers, composer_dims)."""
    SMALL_VECTOR = "small_vector"
    """The same list is printed ``SmallVector([4, 3])`` (fmt's formatter of ttsl::SmallVector of the
    time; ttnn 0.66.0 and 0.67.0, observed: tests/golden ``ttnn_0_6*_0.json`` mappers, composer_dims,
    and the real hunt's to_torch)."""


class RowMajorTilize(str, enum.Enum):
    PHYSICAL_SHAPE = "physical_shape"
    """to_dtype of a ROW_MAJOR host shard to a block float, which must be tiled, refuses a shard that
    is not whole tiles before it tilizes: ``to_dtype: Converting layout to Layout::TILE implicitly
    changed physical shape from (1, 1) to (32, 32) ...`` (the physical-shape check of to_layout /
    to_dtype; ttnn 0.81.1, observed)."""
    TILIZE = "tilize"
    """The same shard reaches the host tilize, which refuses it in its own words: ``Unsupported
    shape for tensor conversion from row-major to tile layout. The tensor shape height and width
    must be a multiple of tile height (32) and width (32), but the provided shape is (1, 1)``
    (``convert_layout_row_major_to_tile``, tensor_impl; ttnn 0.66.0 and 0.67.0, observed by the real
    hunt: tests/hunt/data to-dtype-tilize-words). A tensor of several such shards is converted
    there, shard by shard, each padded to whole tiles (observed in the mock and by the real hunt);
    the tensor it makes then cannot be read back per shard (``host_ccl.cpp:31: shard.has_value()``),
    which no rule models."""


class PartialCopy(str, enum.Enum):
    PRESENT = "present"
    """``ttnn.copy_host_to_device_tensor_partial`` exists (ttnn 0.81.1, observed: tests/golden
    ``ttnn_0_81_1_sharded.json`` copy_partial)."""
    ABSENT = "absent"
    """No such function: ``module 'ttnn' has no attribute 'copy_host_to_device_tensor_partial'``
    (ttnn 0.66.0 and 0.67.0, observed: their bindings lack the name, which the tier checks on each
    version against meshspec/bridge/export.py ``ABSENT_IN``)."""


class Rule(Frozen):
    """One rule: the profile field it sets, its choices (an enum), what it governs, and what each
    choice means with its source."""

    name: str
    choices: type
    governs: str
    meanings: dict
    """Choice value -> what it means, with its source."""


#: Every rule a profile sets, in the order ``meshspec profiles`` shows them.
RULES: dict[str, Rule] = {
    r.name: r
    for r in (
        Rule("allocation", AllocationRecord, "what allocate_tensor_on_device records", {
            "none": "no per-device specs (mesh-buffer storage before PR #18833)",
            "all": "the spec on every device, every device recorded (PR #18833; ttnn 0.81.1's coords)",
            "unrecorded": "the spec known, no device recorded until written (meshspec's reference)",
        }),
        Rule("copy", CopyRecord, "what copy_host_to_device_tensor records", {
            "lost": "dst taken by value: the record update is lost (PR #18833, March 2025)",
            "current": "by reference; a partial write sets coords, a full write keeps the old ones (ttnn 0.81.1, observed)",
            "exact": "exactly the devices and shard specs written (meshspec's reference)",
        }),
        Rule("mapper", MapperRule, "which shards a mesh mapper accepts", {
            "legacy": "torch.chunk, an unequal last shard allowed (the Python mappers before PR #23684)",
            "equal_shards": "every shard the same shape (the C++ mappers, PR #23684; issue #22977)",
        }),
        Rule("composer", Composer, "which shards a mesh composer takes", {
            "legacy": "every shard the storage claims, concatenated (ConcatMeshToTensor of early 2025)",
            "current": "the distribution walked, missing shards skipped (1-D), every shard needed (N-D) (ttnn 0.81.1)",
        }),
        Rule("copy_check", CopyCheck, "which host shards a copy checks against dst", {
            "first_shard": "only the host tensor's spec, its first shard's (issue #21652)",
            "every_shard": "every shard's shape, dtype and page config (tt_metal/impl/tensor/tensor_apis.cpp)",
        }),
        Rule("default_composer", DefaultComposer, "to_torch with no mesh_composer", {
            "refuse": "any tensor of more than one host shard refused (pytensor.cpp TT_FATAL(buffers.size() == 1); ttnn 0.81.1)",
            "from_topology": "an all-Shard topology concatenated along its shard dims; Replicate still refused (PR #53481, open)",
        }),
        Rule("cache_topology", CacheTopology, "the topology of a tensor loaded from a file", {
            "kept": "the topology it was dumped with (PR #29158, 2025-09-23; ttnn 0.81.1)",
            "default": "distribution (1) [R] on (0, 0) whatever its shards (PR #24765 to PR #29158; issue #25340)",
        }),
        Rule("load_memory", LoadMemory, "the memory config of a tensor loaded from a file onto a device", {
            "kept": "the one it was dumped with, sharded or not (PR #26831, 2025-08-14; ttnn 0.81.1, observed)",
            "interleaved": "a default MemoryConfig, DRAM interleaved (the flatbuffer loader before PR #26831; issue #26763)",
        }),
        Rule("mapper_offset", MapperOffset, "mesh_offset_override in mapper and composer configs", {
            "supported": "MeshMapperConfig / MeshComposerConfig take an offset (PR #51639, 2026-07-30; ttnn 0.81.1)",
            "absent": "no offset: a SUBMESH distribution starts at (0, 0) (before PR #51639)",
        }),
        Rule("handles", Handles, "the topology of per-device handles and of combined tensors", {
            "shared": "parts share the parent's topology; combine writes (n) [S(0)] on flat positions into it (ttnn 0.81.1, observed)",
            "own": "each handle its own topology, on its own devices (meshspec's reference)",
            "copied": "as shared when made, then each handle's own copy: a copy into a part or a view's base, a combine, changes "
                      "that handle alone, a view keeps its record (copy-on-write before PR #39485; ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("op_topology", OpTopology, "the topology a device op gives its output", {
            "imputed": "the inputs' labels, unchanged by what the op does to dims (device_operation_detail.cpp, PR #29899; ttnn 0.81.1)",
            "exact": "the distribution of the output's data (meshspec's reference)",
        }),
        Rule("ccl_topology", CclTopology, "the topology collectives give their output", {
            "per_axis": "the CCL topology helpers: the cluster axis Replicate (Shard(dim) for reduce_scatter), a collapsed label expanded "
                        "per axis, the legacy label and a warning where none is honest (ccl_topology_utils.cpp; ttnn 0.81.1)",
            "union": "all_gather_async and all_reduce keep the input's label (#38371, #50657); all_gather replicates Shard(dim) (PR #30684)",
        }),
        Rule("ccl_padding", CclPadding, "what all_gather_async does with tile padding (ttnn.all_gather: gather_padding)", {
            "logical": "the logical shards concatenated, the padding left out (the logical output spec; ttnn 0.81.1)",
            "padded": "the padded shards concatenated: padding rows become data (PR #19575's output spec; issue #24399)",
        }),
        Rule("gather_padding", GatherPadding, "what ttnn.all_gather does with tile padding", {
            "logical": "the logical shards concatenated, the padding left out (unpad_output_tensor, PR #16347; ttnn 0.81.1)",
            "padded": "the output from the padded (legacy) shape: padding rows become data (all_gather_op.cpp 2024; issue #11013)",
            "window": "with a cluster_axis: a logical output over the padded tiles, padding in it and the last shards cut off (issue #21964)",
        }),
        Rule("ccl_devices", CclDevices, "which devices a collective gathers or reduces over", {
            "mesh": "the mesh's groups, whatever devices the tensor is on (issue #31845, open; ttnn 0.81.1)",
            "tensor": "each group cut to the devices of the tensor's own topology, as #31845 asks (meshspec's reference)",
        }),
        Rule("host_alloc_topology", HostAllocTopology, "the topology allocate_tensor_on_host gives its host buffer", {
            "default": "(1) [R] on (0, 0) over a shard at every coordinate (ttnn 0.81.1, observed)",
            "mesh": "the mesh's shape, Replicate on every axis, on every coordinate (meshspec's reference)",
        }),
        Rule("unit_mesh", UnitMesh, "the storage of a device tensor on a 1x1 mesh device", {
            "mesh": "mesh storage like any other mesh's (ttnn 0.66.0 to 0.81.1, observed)",
            "single_device": "single-device storage; a copy from a mapped host tensor fails (issue #15833, before PR #15845, Dec 2024)",
        }),
        Rule("host_borrow", HostBorrow, "whether a host tensor from from_torch owns its buffer", {
            "owned": "owned copies, a mapper's shards and replicas too (ttnn 0.81.1, observed)",
            "borrowed": "a ROW_MAJOR from_torch borrows the caller's memory, and so do a replicate mapper's replicas (ttnn 0.66.0, 0.67.0, observed)",
            "borrowed_refused": "as borrowed; a replicate in distribute_tensor fails in aggregate_as_tensor (issue #18842, before PR #18555, Mar 2025)",
        }),
        Rule("read_buffers", ReadBuffers, "how cpu() lays the shards it reads into host buffers", {
            "shards": "one host buffer per shard read (ttnn 0.81.1)",
            "devices": "buffers resized to the device count, the shards read appended past them (before PR #19032, Mar 2025)",
        }),
        Rule("to_device_record", ToDeviceRecord, "what to_device records", {
            "written": "exactly the shards written (ttnn 0.81.1)",
            "replicated": "a replicated allocation, every device recorded, fewer shards written (PR #17513, Feb 2025)",
        }),
        Rule("shard_grid", ShardGrid, "the shard grid a sharded device tensor records", {
            "as_given": "the grid given (memory config, or an op keeping its input's), idle cores included (ttnn 0.81.1; PR #50174)",
            "clamped": "the grid cut to the cores that hold a page (PR #55112, open; meshspec's reference for every tensor)",
        }),
        Rule("uneven_row_major_shards", UnevenRowMajorShards, "to_device of ROW_MAJOR rows into shards whose width does not divide them", {
            "padded": "each row padded to a whole number of shards, or to a height shard's width (ttnn 0.81.1, observed)",
            "refused": "Physical width 96 must be multiple of page width 64 (ttnn 0.66.0 and 0.67.0, observed; issues #20726, #22396, #22947)",
        }),
        Rule("dram_grid_rows", DramGridRows, "a DRAM shard grid with cores off row 0", {
            "row_zero": "refused when the buffer is made (PR #51542, 2026-07-29; ttnn 0.81.1)",
            "aliased": "taken; bank = x, so cores of one column write one bank, the later shard over the earlier (issue #51503; ttnn 0.67.0)",
        }),
        Rule("bank_check", BankCheck, "a shard core that has no L1 or DRAM bank", {
            "checked": "refused when the buffer is made (PR #53263, 2026-08-15; ttnn 0.81.1)",
            "unchecked": "taken; its pages land in no bank of the tensor (before PR #53263; ttnn 0.67.0)",
        }),
        Rule("print_coords", PrintCoords, "which coordinate to_string prints each local shard under, on a multi-host mesh", {
            "own": "each local shard under its own coordinate (PR #52708, 2026-08; ttnn 0.81.1 by date, inferred)",
            "prefix": "the i-th local shard under the i-th coordinate, printed only if that one is local (tensor_impl.cpp before PR #52708; #48267)",
        }),
        Rule("visualize_remote", VisualizeRemote, "what visualize_tensor does with a remote coordinate", {
            "marked": "shown as Remote, Unknown ID; ids asked of local devices only (PR #35464; ttnn 0.81.1's distributed.py)",
            "fatal": "get_device_id asked of every coordinate: TT_FATAL on the first remote one (before PR #35464; issue #35441)",
        }),
        Rule("graph_capture", GraphCapture, "which coordinates graph capture tracks a device tensor's buffers on", {
            "local": "the coordinates this host owns (PR #47846, 2026-06; ttnn 0.81.1 by date, inferred)",
            "every_coord": "every coordinate the tensor spans: a remote one throws (graph_processor.cpp before PR #47846; ttnn-visualizer #1672)",
        }),
        Rule("write_pinning", WritePinning, "which devices a write of 32 MiB or more pins host memory for, on a multi-host mesh", {
            "mapped": "a plain tensor this host's devices (PR #46138); a mapped one's every device, remote too: TT_FATAL (issue #48477, open; ttnn 0.81.1)",
            "every": "every device written, remote ones too, plain or mapped (pinned writes before PR #46138)",
            "local": "this host's devices only (meshspec's reference; and every era before PR #41612's pinned writes)",
        }),
        Rule("replicated_distribution", ReplicatedDistribution, "the distribution shape of a tensor replicated to every device", {
            "flat": "(num_devices) [R] whatever the mesh: a 1x8 mesh records (8) (distributed_tensor.cpp, tensor_topology.cpp; issue #28755; "
                    "ttnn 0.66.0 to 0.81.1, observed)",
            "mesh": "the mesh's shape, a Replicate per axis: (1, 8) [R, R] on a 1x8 mesh (what #28755 asks for; meshspec's reference)",
        }),
        Rule("plain_to_device", PlainToDevice, "the topology of a plain host tensor put on a mesh", {
            "replicated": "fully replicated on every device it was written to (PR #29158, 2025-09-23; ttnn 0.66.0 to 0.81.1, observed)",
            "default": "the host's default (1) [R] on (0, 0) kept over every device written (PR #24765 to PR #29158)",
        }),
        Rule("host_shard_ops", HostShardOps, "which host ops (pad, unpad) run on a mapped, multi-shard host tensor", {
            "per_shard": "every host op shard by shard, the topology kept (unpad: PR #21628, 2025-05-05; ttnn 0.81.1, observed)",
            "no_unpad": "pad shard by shard, unpad refused: Device storage isn't supported (PR #6976 to PR #21628; issue #16870)",
            "none": "pad and unpad refused: Tensor must be on host for padding (before PR #6976, 2024-04-01; issue #6889)",
        }),
        Rule("block_float_mapper", BlockFloatMapper, "what from_torch maps for a block float dtype with a mesh mapper", {
            "logical": "the logical tensor: each shard its logical shape (ttnn 0.81.1, observed)",
            "padded": "the whole tensor tile-padded first, never reshaped back: the shards record padding as data (issue #8967, 2024)",
        }),
        Rule("chip_map", ChipMap, "which physical device id each mesh coordinate opens on", {
            "current": "ttnn 0.81.1's mapping, observed with each system's mock cluster descriptor (T3K 2x4: [[4,0,2,6],[5,1,3,7]])",
            "early_2026": "ttnn 0.66.0-0.67.0's (Feb-Mar 2026, observed): Blackhole P150x4/P150x8 on other chips",
        }),
        Rule("reshape_order", ReshapeOrder, "the order of the devices after MeshDevice.reshape", {
            "connected": "neighbours stay neighbours: a line is the line open_mesh_device gives (PR #17646, 2025-02-06; ttnn 0.81.1, observed)",
            "row_major": "the devices keep their row-major order under the new shape (PR #16029 to PR #17646, Dec 2024-Feb 2025)",
        }),
        Rule("ccl_links", CclLinks, "whether a collective's ring or line must run over direct ethernet links", {
            "not_checked": "not checked: the fabric CCLs route between mesh coordinates (ttnn 0.81.1)",
            "ethernet": "each neighbour pair needs a link, else 'Device X is not connected to Device Y' (tt_cluster.cpp; #13693, PR #17646)",
        }),
        Rule("per_device_api", PerDeviceApi, "which calls rebuild a tensor from per-device ones", {
            "combine": "combine_device_tensors and from_host_shards (PRs #23290 and #24546, June-July 2025; ttnn 0.81.1)",
            "aggregate_as_tensor": "aggregate_as_tensor only, before June 2025 (meshspec does not simulate it)",
        }),
        Rule("topology_update", TopologyUpdate, "whether a tensor's topology can be set by hand", {
            "method": "Tensor.update_tensor_topology sets it in place (PR #39485, March 2026; ttnn 0.81.1)",
            "absent": "no such method, an AttributeError (before PR #39485; ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("freed_transfer", FreedTransfer, "what cpu() of a deallocated tensor, and a copy into one, do", {
            "crash": "nothing checks: the process dies, SIGSEGV (ttnn 0.81.1, observed)",
            "checked": "every use refused first: 'Buffer must be allocated on device' (reads, copies; tensor_impl.cpp), "
                       "'Buffer is not allocated' (device ops); views made unchecked (ttnn 0.66.0 and 0.67.0, observed op by op)",
        }),
        Rule("tensor_file", TensorFile, "what a tensor file keeps per shard, and what a load of it puts on each device", {
            "collapse_replicated": "one shard a group of devices the topology says hold copies; a load copies it to the group "
                                   "(ttnn 0.81.1, observed: tests/golden ttnn_tensor_files.json)",
            "every_shard": "every shard kept; a load gives each device what was dumped from it (meshspec's reference)",
            "replicate_on_load": "every shard kept, a load onto a mesh puts the first on every device (issue #8228, before PR #8229)",
            "replicated_config": "a Replicate config (a Replicate topology, or a device op's output) keeps its first shard, a load "
                                 "replicates it (the legacy serialiser; issue #26637)",
            "first_shard": "the first device's shard of any multi-device tensor; a load replicates it (tt-xla issue #5177)",
        }),
        Rule("reshaped_storage", ReshapedStorage, "what get_device_tensors and cpu() do with a tensor a MeshDevice.reshape left off the mesh", {
            "checked": "both refuse: 'DeviceStorage coordinate ... is out of bounds for mesh device shape ...' (storage.cpp), "
                       "'Coordinate ... is out of bounds for shape ...' (ttnn 0.81.1, observed)",
            "unchecked": "parts at the old coordinates; a readback in a buffer of the mesh's shape now, without the shards off it "
                         "(ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("fill_like", FillLike, "what zeros_like, ones_like, full_like and empty_like do with a host tensor", {
            "made": "a fill op on the input's devices, or a plain host tensor (ttnn 0.81.1 and 0.67.0)",
            "host_crash": "of a host tensor the process dies, SIGSEGV; empty_like with no device refuses, 'Device needs to not be "
                          "null.' (ttnn 0.66.0, observed)",
        }),
        Rule("numpy_bfloat16", NumpyBfloat16, "what the numpy ttnn.Tensor constructor (from_torch with numpy: true) makes of bfloat16", {
            "converted": "the array converted to bfloat16 on host, either layout (ttnn 0.81.1, observed)",
            "empty_buffer": "refused: Current buffer size is 0 different from shape volume N (ttnn 0.67.0, observed)",
            "invalid_ndarray": "refused: Number of elements from python tensor 0 must match volume of shape N! (ttnn 0.66.0, observed)",
        }),
        Rule("block_float_row_major", BlockFloatRowMajor, "a TensorSpec of bfloat8_b or bfloat4_b in ROW_MAJOR layout", {
            "refused": "Only TILE layout is supported for BFLOAT8_B dtype! (a TT_FATAL; ttnn 0.81.1, observed)",
            "allocated": "made and allocated, padded shape = shape (the check a TT_ASSERT, off in release builds; ttnn 0.66.0 and "
                         "0.67.0, observed)",
        }),
        Rule("combine_check", CombineCheck, "what combine_device_tensors checks of its parts", {
            "storages": "the storages: a freed part refused (All DeviceStorages must be allocated), parts of two storages too "
                        "(storage.cpp's combine_device_storages; ttnn 0.81.1, observed)",
            "mesh_buffer": "the mesh buffer pointers only: Error aggregating multichip tensors: ... Consider moving tensors to host; "
                           "freed parts make a freed tensor (api.cpp; ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("host_buffer_shape", HostBufferShape, "a mapped host tensor written to a mesh of another shape than its host buffer's", {
            "coords": "its shard coordinates taken as the mesh's: refused at the first off the mesh (ttnn 0.81.1, observed)",
            "same_shape": "refused before any write: Distributed host buffer has different shape (tensor_impl.cpp; "
                          "ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("host_read_source", HostReadSource, "copy_device_to_host_tensor with a host tensor as its source", {
            "crash": "not checked: the process dies, SIGSEGV (ttnn 0.81.1, observed)",
            "checked": "TT_FATAL: Source tensor is not on device. (tensor_impl.cpp's copy_to_host; ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("dump_overwrite", DumpOverwrite, "what dump_tensor into the file a loaded tensor reads from does", {
            "renamed": "a temporary sibling renamed into place: the loaded tensor keeps the old pages (ttnn 0.81.1, observed)",
            "in_place": "the file truncated, then the tensor read through its map past the end: SIGBUS (ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("dim_list_words", DimListWords, "how ttnn's words print a list of dims", {
            "braces": "{4, 3} (ttnn 0.81.1, observed)",
            "small_vector": "SmallVector([4, 3]) (ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("row_major_tilize", RowMajorTilize, "the words of to_dtype refusing a ROW_MAJOR shard that is not whole tiles", {
            "physical_shape": "'Converting layout to Layout::TILE implicitly changed physical shape' (ttnn 0.81.1, observed)",
            "tilize": "one shard: 'Unsupported shape for tensor conversion from row-major to tile layout' (the host tilize); several: "
                      "converted, each padded to whole tiles (ttnn 0.66.0 and 0.67.0, observed)",
        }),
        Rule("partial_copy", PartialCopy, "whether ttnn.copy_host_to_device_tensor_partial exists", {
            "present": "it writes the shards a core filter names (ttnn 0.81.1, observed)",
            "absent": "no such function, an AttributeError (ttnn 0.66.0 and 0.67.0, observed in their bindings)",
        }),
    )
}


class Profile(Frozen):
    name: str
    era: str
    summary: str
    allocation: AllocationRecord
    copy: CopyRecord
    mapper_rule: MapperRule
    composer: Composer
    copy_check: CopyCheck
    default_composer: DefaultComposer = DefaultComposer.REFUSE
    cache_topology: CacheTopology = CacheTopology.KEPT
    load_memory: LoadMemory = LoadMemory.KEPT
    tensor_file: TensorFile = TensorFile.COLLAPSE_REPLICATED
    mapper_offset: MapperOffset = MapperOffset.SUPPORTED
    handles: Handles = Handles.SHARED
    per_device_api: PerDeviceApi = PerDeviceApi.COMBINE
    topology_update: TopologyUpdate = TopologyUpdate.METHOD
    freed_transfer: FreedTransfer = FreedTransfer.CRASH
    op_topology: OpTopology = OpTopology.IMPUTED
    ccl_topology: CclTopology = CclTopology.PER_AXIS
    ccl_padding: CclPadding = CclPadding.LOGICAL
    gather_padding: GatherPadding = GatherPadding.LOGICAL
    ccl_devices: CclDevices = CclDevices.MESH
    host_alloc_topology: HostAllocTopology = HostAllocTopology.DEFAULT
    unit_mesh: UnitMesh = UnitMesh.MESH
    host_borrow: HostBorrow = HostBorrow.OWNED
    read_buffers: ReadBuffers = ReadBuffers.SHARDS
    to_device_record: ToDeviceRecord = ToDeviceRecord.WRITTEN
    shard_grid: ShardGrid = ShardGrid.AS_GIVEN
    uneven_row_major_shards: UnevenRowMajorShards = UnevenRowMajorShards.PADDED
    dram_grid_rows: DramGridRows = DramGridRows.ROW_ZERO
    bank_check: BankCheck = BankCheck.CHECKED
    print_coords: PrintCoords = PrintCoords.OWN
    visualize_remote: VisualizeRemote = VisualizeRemote.MARKED
    graph_capture: GraphCapture = GraphCapture.LOCAL
    write_pinning: WritePinning = WritePinning.MAPPED
    replicated_distribution: ReplicatedDistribution = ReplicatedDistribution.FLAT
    plain_to_device: PlainToDevice = PlainToDevice.REPLICATED
    host_shard_ops: HostShardOps = HostShardOps.PER_SHARD
    block_float_mapper: BlockFloatMapper = BlockFloatMapper.LOGICAL
    chip_map: ChipMap = ChipMap.CURRENT
    reshape_order: ReshapeOrder = ReshapeOrder.CONNECTED
    ccl_links: CclLinks = CclLinks.NOT_CHECKED
    reshaped_storage: ReshapedStorage = ReshapedStorage.CHECKED
    fill_like: FillLike = FillLike.MADE
    numpy_bfloat16: NumpyBfloat16 = NumpyBfloat16.CONVERTED
    block_float_row_major: BlockFloatRowMajor = BlockFloatRowMajor.REFUSED
    combine_check: CombineCheck = CombineCheck.STORAGES
    host_buffer_shape: HostBufferShape = HostBufferShape.COORDS
    host_read_source: HostReadSource = HostReadSource.CRASH
    dump_overwrite: DumpOverwrite = DumpOverwrite.RENAMED
    dim_list_words: DimListWords = DimListWords.BRACES
    row_major_tilize: RowMajorTilize = RowMajorTilize.PHYSICAL_SHAPE
    partial_copy: PartialCopy = PartialCopy.PRESENT
    base: Optional[str] = None
    """For a profile defined by a scenario or a file: the profile it changes."""
    verified_by: Optional[str] = None
    """The real ttnn version whose golden data this profile matches (tests/golden); None: source reading only."""

    @property
    def mapper(self) -> MapperRules:
        return self.mapper_rule.rules

    def rules(self) -> dict[str, str]:
        """Rule name -> this profile's choice (a new dict each call; worked out once a profile)."""
        known = self.__dict__.get("_rules")  # beside the fields: no field, so no part of equality
        if known is None:
            known = self.__dict__["_rules"] = {name: self.rule(name).value for name in RULES}
        return dict(known)

    def rule(self, name: str) -> Any:
        return getattr(self, "mapper_rule" if name == "mapper" else name)


CURRENT = Profile(
    "current",
    "TT-NN today (ttnn 0.81, 2026)",
    "one spec + coords; copy by reference; a full write after a partial one keeps the old coords",
    AllocationRecord.ALL,
    CopyRecord.CURRENT,
    MapperRule.EQUAL_SHARDS,
    Composer.CURRENT,
    CopyCheck.EVERY_SHARD,
    verified_by="0.81.1",
)


def _changes_current(name: str, era: str, summary: str, verified_by: Optional[str] = None, **rules: Any) -> Profile:
    """A built-in profile that is ``current`` with ``rules`` changed (listed as changing it)."""
    return CURRENT.replace(name=name, era=era, summary=summary, base="current", verified_by=verified_by, **rules)  # type: ignore[return-value]


def _early_2026(version: str, month: str) -> Profile:
    """ttnn 0.66.0 or 0.67.0: ``current`` with the rules in which their records differ from 0.81.1's,
    each observed in the mock (tests/golden per version; the ttnn tier)."""
    return _changes_current(
        f"ttnn-{version}",
        f"ttnn {version} ({month} 2026), observed in mock mode",
        "as current, but a full copy after a partial one records every device written, mappers take no "
        "offset, a freed tensor is checked at every use, older host-buffer and sharded-buffer checks, "
        "and the version's own error words",
        verified_by=version,
        copy=CopyRecord.EXACT,  # a full copy after a partial one records all 8 devices (issue 37's probe cases)
        mapper_offset=MapperOffset.ABSENT,  # no mesh_offset_override (issue 37's probe cases)
        uneven_row_major_shards=UnevenRowMajorShards.REFUSED,  # docs/semantics.md section 16
        dram_grid_rows=DramGridRows.ALIASED,  # section 16
        bank_check=BankCheck.UNCHECKED,  # section 16
        host_borrow=HostBorrow.BORROWED,  # section 19, tests/golden ttnn_storage.json
        chip_map=ChipMap.EARLY_2026,  # section 17, tests/golden ttnn_0_6*_device_ids.json
        ccl_topology=CclTopology.UNION,  # no strict_ccl_topology in their ttnn.CONFIG: before the CCL topology helpers
        handles=Handles.COPIED,  # copy-on-write topology before PR #39485: tests/hunt/data copy-into-a-part, view-keeps-its-topology
        topology_update=TopologyUpdate.ABSENT,  # before PR #39485: tests/golden ttnn_0_6*_0.json api update_tensor_topology
        freed_transfer=FreedTransfer.CHECKED,  # tests/golden ttnn_0_6*_0.json runtime deallocate
        reshaped_storage=ReshapedStorage.UNCHECKED,  # tests/golden ttnn_0_6*_0.json api reshape, readback_buffer_shape
        # the one rule in which 0.66.0 and 0.67.0 differ: tests/golden ttnn_0_6*_0.json api creation event 15
        fill_like=FillLike.HOST_CRASH if version == "0.66.0" else FillLike.MADE,
        # each version in its own words: tests/golden ttnn_0_6*_0.json api from_torch_path
        numpy_bfloat16=NumpyBfloat16.EMPTY_BUFFER if version == "0.67.0" else NumpyBfloat16.INVALID_NDARRAY,
        block_float_row_major=BlockFloatRowMajor.ALLOCATED,  # tests/golden ttnn_0_6*_0.json specs
        combine_check=CombineCheck.MESH_BUFFER,  # api.cpp's older aggregation: tests/golden ttnn_0_6*_0.json api combine_device_tensors, deallocate_part
        host_buffer_shape=HostBufferShape.SAME_SHAPE,  # tensor_impl.cpp's shape check: api submesh_copies, from_host_shards
        host_read_source=HostReadSource.CHECKED,  # tensor_impl.cpp's copy_to_host check: api copy_device_to_host_tensor
        dump_overwrite=DumpOverwrite.IN_PLACE,  # serialization.cpp's fopen "wb": tests/hunt/data dump-into-its-own-file
        dim_list_words=DimListWords.SMALL_VECTOR,  # tests/golden ttnn_0_6*_0.json mappers, composer_dims
        row_major_tilize=RowMajorTilize.TILIZE,  # tests/hunt/data to-dtype-tilize-words
        partial_copy=PartialCopy.ABSENT,  # their bindings: tests_ttnn/test_export.py checks ABSENT_IN on each version
    )


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        CURRENT,
        Profile(
            "uniform-by-value",
            "PR #18833, March 2025 (the seed)",
            "allocation records a uniform spec on every device; the copy's record update is lost",
            AllocationRecord.ALL,
            CopyRecord.LOST,
            MapperRule.LEGACY,
            Composer.LEGACY,
            CopyCheck.FIRST_SHARD,
            mapper_offset=MapperOffset.ABSENT,
            per_device_api=PerDeviceApi.AGGREGATE_AS_TENSOR,
            uneven_row_major_shards=UnevenRowMajorShards.REFUSED,
            dram_grid_rows=DramGridRows.ALIASED,
            bank_check=BankCheck.UNCHECKED,
            write_pinning=WritePinning.LOCAL,
            host_shard_ops=HostShardOps.NO_UNPAD,
            tensor_file=TensorFile.REPLICATED_CONFIG,
        ),
        Profile(
            "unpopulated",
            "before PR #18833, early March 2025",
            "allocation records no per-device specs; the copy's record update is lost",
            AllocationRecord.NONE,
            CopyRecord.LOST,
            MapperRule.LEGACY,
            Composer.LEGACY,
            CopyCheck.FIRST_SHARD,
            mapper_offset=MapperOffset.ABSENT,
            per_device_api=PerDeviceApi.AGGREGATE_AS_TENSOR,
            uneven_row_major_shards=UnevenRowMajorShards.REFUSED,
            dram_grid_rows=DramGridRows.ALIASED,
            bank_check=BankCheck.UNCHECKED,
            write_pinning=WritePinning.LOCAL,
            host_shard_ops=HostShardOps.NO_UNPAD,
            tensor_file=TensorFile.REPLICATED_CONFIG,
        ),
        Profile(
            "reference",
            "what a correct runtime records",
            "records exactly the devices and shapes written; mapper rules as in current",
            AllocationRecord.UNRECORDED,
            CopyRecord.EXACT,
            MapperRule.EQUAL_SHARDS,
            Composer.CURRENT,
            CopyCheck.EVERY_SHARD,
            handles=Handles.OWN,
            write_pinning=WritePinning.LOCAL,
            tensor_file=TensorFile.EVERY_SHARD,
            op_topology=OpTopology.EXACT,
            ccl_devices=CclDevices.TENSOR,
            host_alloc_topology=HostAllocTopology.MESH,
            shard_grid=ShardGrid.CLAMPED,
            replicated_distribution=ReplicatedDistribution.MESH,
        ),
        _changes_current(
            "auto-compose",
            "ttnn 0.81 with PR #53481 (open, 2026-08-18): to_torch derives a composer from the topology",
            "as current, but to_torch without a composer concatenates an all-Shard tensor along its shard dims",
            default_composer=DefaultComposer.FROM_TOPOLOGY,
        ),
        _changes_current(
            "ccl-union",
            "ttnn in 2026 before the CCL topology helpers (issues #38371, 2026-02-23; #50657, 2026-07-21)",
            "as current, but all_gather_async and all_reduce keep their input's label; all_gather replicates Shard(dim)",
            ccl_topology=CclTopology.UNION,
        ),
        _changes_current(
            "ccl-padded",
            "all_gather_async from PR #19575 (2025-03-24) to the fix of issue #24399 (reported 2025-06-30)",
            "as current, but all_gather_async gathers each shard's tile padding as data",
            ccl_padding=CclPadding.PADDED,
        ),
        _early_2026("0.67.0", "March"),
        _early_2026("0.66.0", "February"),
    )
}

DEFAULT_PROFILE = "current"

_EACH_VERSION = {  # what every version's golden data checks: rule -> the golden file (tests/golden) that does
    "allocation": "ttnn_<v>.json runtime (every device recorded after allocate_tensor_on_device)",
    "copy": "ttnn_<v>.json runtime partial_then_full",
    "mapper": "ttnn_<v>.json mappers",
    "composer": "ttnn_<v>.json runtime composer, composer_dims, composer_overrides",
    "default_composer": "ttnn_<v>.json runtime no_composer",
    "to_device_record": "ttnn_<v>.json runtime to_device",
    "mapper_offset": "ttnn_<v>.json api mapper_offsets",
    "topology_update": "ttnn_<v>.json api update_tensor_topology",
    "freed_transfer": "ttnn_<v>_freed.json (each op on a freed tensor), ttnn_<v>.json runtime deallocate",
    "reshaped_storage": "ttnn_<v>.json api reshape, readback_buffer_shape",
    "fill_like": "ttnn_<v>.json api creation (the host form: the device form is a kernel no mock runs)",
    "dump_overwrite": "tests/hunt/data/dump-into-its-own-file.real-<v>.json (the real reports, replayed)",
    "dim_list_words": "ttnn_<v>.json mappers, composer_dims (through the runner: tests/sim/test_era_words.py)",
    "row_major_tilize": "tests/hunt/data/to-dtype-tilize-words.real-<v>.json (the real reports, replayed)",
    "handles": "ttnn_<v>.json api get_device_tensors, combine_shared_topology",
    "chip_map": "ttnn_<v>_device_ids.json",
    "replicated_distribution": "ttnn_<v>_replicated_distribution.json",
    "plain_to_device": "ttnn_<v>_replicated_distribution.json",
    "unit_mesh": "ttnn_storage.json",
    "host_borrow": "ttnn_storage.json",
    "uneven_row_major_shards": "ttnn_placement_eras.json transfers",
    "dram_grid_rows": "ttnn_placement_eras.json grids",
    "bank_check": "ttnn_placement_eras.json grids",
    "cache_topology": "ttnn_tensor_files.json (the loaded tensor's topology)",
    "numpy_bfloat16": "ttnn_<v>.json api from_torch_path",
    "block_float_row_major": "ttnn_<v>.json specs (bfloat8_b and bfloat4_b in ROW_MAJOR)",
    "combine_check": "ttnn_<v>.json api combine_device_tensors, deallocate_part",
    "host_buffer_shape": "ttnn_<v>.json api submesh_copies, from_host_shards",
    "host_read_source": "ttnn_<v>.json api copy_device_to_host_tensor",
}

#: Not verified by any version, though golden files touch them: no golden case tells their choices
#: apart (each changed to its other choice, every golden replay still passed): ``copy_check``
#: (every shard of shape_mismatch_copy has one shape), ``read_buffers`` (the readbacks' shards are
#: counted, not placed), ``reshape_order`` (tests/sim/test_device_ids.py replays it without a profile).
#: Built-in profile -> the rules whose choice golden data of the version that verifies it checks
#: (rule -> the golden file in tests/golden that does; ``<v>`` is the version); every other rule of
#: it rests on source reading only (:func:`source_only`), and so does every rule of a profile no
#: version verifies (the 2025 eras: older than any version the package index can open a mesh with).
#: tests/test_golden_versions.py replays each file under the profile.
VERIFIED_RULES: dict[str, dict[str, str]] = {
    "current": {
        **_EACH_VERSION,
        "tensor_file": "ttnn_tensor_files.json (labels that lie)",
        "load_memory": "ttnn_tensor_files.json dram_width_sharded",
        "per_device_api": "ttnn_0_81_1.json api combine_device_tensors, from_host_shards",
        "host_alloc_topology": "ttnn_0_81_1.json api allocate_tensor_on_host",
        "op_topology": "ttnn_0_81_1_imputation.json",
        "host_shard_ops": "ttnn_0_81_1_host_ops.json",
        "block_float_mapper": "ttnn_0_81_1_host_ops.json",
        "shard_grid": "ttnn_0_81_1_sharded.json",
    },
    # 0.66.0 and 0.67.0: no update_tensor_topology, so no label lies and tensor_file's choices agree
    # on their files; their api section is replayed whole, every scenario agreeing (docs/semantics.md "Version boundaries")
    "ttnn-0.67.0": dict(_EACH_VERSION),
    "ttnn-0.66.0": dict(_EACH_VERSION),
}


def source_only(profile: Profile) -> list[str]:
    """The rules of ``profile`` whose choice rests on source reading only: all of them unless it is
    a built-in profile a real version verifies, else those that version's golden data does not check."""
    checked = VERIFIED_RULES.get(profile.name, {}) if profile.verified_by and PROFILES.get(profile.name) is profile else {}
    return [name for name in RULES if name not in checked]


def profile_for_version(version: str) -> Optional[str]:
    """The built-in profile a real ttnn ``version`` verifies ("0.81.1" -> "current"), or None."""
    return next((p.name for p in PROFILES.values() if p.verified_by == version), None)


def get_profile(name: str, own: Optional[Mapping[str, Profile]] = None) -> Profile:
    """The profile ``name``: one of meshspec's, or one the scenario or a profile file defines."""
    known = {**PROFILES, **(own or {})}
    try:
        return known[name]
    except KeyError:
        raise UsageError(f"unknown profile {name!r}{did_you_mean(name, list(known))}; {one_of(list(known))}") from None


def define(name: str, base: str, changes: Mapping[str, str], era: str = "", parent: Optional[Profile] = None) -> Profile:
    """A profile that is ``base`` (or ``parent``, a profile defined alongside) with ``changes``
    (rule name -> choice); the errors name the bad rule or choice and list the valid ones."""
    parent = parent or get_profile(base)
    fields: dict[str, Any] = {}
    for rule_name, choice in changes.items():
        rule = RULES.get(rule_name)
        if rule is None:
            raise UsageError(f"unknown rule {rule_name!r}{did_you_mean(rule_name, list(RULES))}; {one_of(list(RULES))}")
        values = [c.value for c in rule.choices]
        if choice is None:  # YAML's null or ~: no choice at all
            raise UsageError(f"{rule_name}: no choice given (null); {one_of(values)} (leave the rule out to keep {base}'s)")
        if choice not in values:
            raise UsageError(f"{rule_name}: unknown choice {choice!r}{did_you_mean(str(choice), values)}; {one_of(values)}")
        fields["mapper_rule" if rule_name == "mapper" else rule_name] = rule.choices(choice)
    changed = ", ".join(f"{k} {v}" for k, v in changes.items()) or "no change"
    return parent.replace(  # no version verifies a profile a user changed
        name=name, era=era or f"{base} with {changed}", summary=f"{parent.summary} ({changed})", base=base,
        verified_by=None, **fields
    )
