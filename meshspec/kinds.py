"""meshspec's one vocabulary of device statuses and finding kinds.

Every device of every tensor has a status; every status but ``ok``, ``empty`` and
``uninitialized`` is also a finding kind, and two findings are not device statuses
(``data_mismatch``, ``use_after_free``: they come from reads and uses, not from a record). The
scenario model, the judge, ``meshspec explain``, the schema and the renderers all use
:class:`Kind`; its meaning, example and fix live in :data:`KINDS` (docs/semantics.md section 7).

=================  ========  ==========================================================================
kind               status?   meaning
=================  ========  ==========================================================================
ok                 yes       recorded, holds the current content with the recorded shape and bytes
empty              yes       not recorded, holds no current content
uninitialized      yes       allocated and recorded, nothing copied in yet (like ``torch.empty``)
stale              yes       recorded, but the current content never reached it
partial            yes       recorded with N bytes, the current write put fewer there
lost               yes       holds current content, the record says it holds nothing
missing_spec       yes       holds content, or is claimed, but the runtime keeps no spec for it
shape_mismatch     yes       every recorded byte written, but the recorded shape differs
data_mismatch      no        a read-back value differs from what was written
use_after_free     no        a deallocated tensor was used
topology_mismatch  no        the tensor's topology disagrees with the devices or shards it records
phantom_cores      no        a sharded spec's grid claims cores that hold no page of the tensor
topology_stale     no        after a device op (or a topology set by hand), the topology says another distribution than the data has
stale_input        no        a device op read never-written memory or a device that held no current data, and wrote what it read
uninitialized_read no        a device op computed from a tensor's own devices before anything was written there (user error)
locality           no        on a mesh spread over several hosts, a call read a remote device as local, or showed a shard under another device's coordinate, or left a local one out
=================  ========  ==========================================================================

When several statuses apply to one device, the first of missing_spec, stale, partial,
shape_mismatch, lost is its status (the one that best explains what a reader will see).

``use_after_free`` is the one *user error* (:attr:`KindInfo.user_error`): the program used a tensor it
had freed (or freed it twice), and no runtime can record its way out of that. Every other finding is a
record that lies, which the ``reference`` profile never does.
"""

from __future__ import annotations

import enum
from .frozen import Frozen


class Kind(str, enum.Enum):
    """A device status or a finding kind (see the module docstring)."""

    OK = "ok"
    EMPTY = "empty"
    UNINITIALIZED = "uninitialized"
    STALE = "stale"
    PARTIAL = "partial"
    LOST = "lost"
    MISSING_SPEC = "missing_spec"
    SHAPE_MISMATCH = "shape_mismatch"
    DATA_MISMATCH = "data_mismatch"
    USE_AFTER_FREE = "use_after_free"
    TOPOLOGY_MISMATCH = "topology_mismatch"
    PHANTOM_CORES = "phantom_cores"
    TOPOLOGY_STALE = "topology_stale"
    STALE_INPUT = "stale_input"
    UNINITIALIZED_READ = "uninitialized_read"
    PADDING_GATHERED = "padding_gathered"
    LOCALITY = "locality"

    def __str__(self) -> str:
        return self.value

    @property
    def is_finding(self) -> bool:
        """Reported as a finding (everything but ok, empty and uninitialized)."""
        return KINDS[self].finding

    @property
    def is_status(self) -> bool:
        """A status a device can have (everything but data_mismatch, use_after_free and topology_mismatch)."""
        return KINDS[self].status


class KindInfo(Frozen):
    finding: bool
    status: bool
    meaning: str
    """One line, for tables."""
    what: str
    example: str
    fix: str
    user_error: bool = False
    """The user's program is wrong whatever the runtime records (a tensor used after it was freed):
    no era of the runtime, the ``reference`` profile included, can make it go away. Every other
    finding is a record that lies, and ``reference`` reports none of those (tests/test_reference_clean.py)."""


COMPOSITION_RULE = (
    "A composition (to_torch or aggregate_tensor with a mesh_composer) that reads every shard once "
    "and drops none, along other dims or another mesh shape than the mapper's, is not a lie by itself "
    "(upstream tests do it on purpose: shard on dim 1, concat on dim 0): the report notes where each "
    "shard landed, under the readback, and it is a data_mismatch only when the scenario's expect says "
    "the result equals the tensor that was sent (values: {equals: SOURCE} on the result), or when a "
    "written shard is dropped, read from never-written memory, or its values differ from what was sent."
)
"""When a composition is a data_mismatch (docs/semantics.md section 5); ``meshspec explain`` says it
under data_mismatch and under each step that composes."""


KINDS: dict[Kind, KindInfo] = {
    Kind.OK: KindInfo(
        False,
        True,
        "recorded, and holds the current content with the recorded shape and bytes",
        "The runtime says the device holds data, and the write that defines the tensor's current content "
        "put exactly the recorded spec's bytes there. A reader gets what was written.",
        "Every device of scenarios/even-copy.yaml under current: 8 shards written into 8 recorded devices.",
        "Nothing to fix.",
    ),
    Kind.EMPTY: KindInfo(
        False,
        True,
        "not recorded, holds no current content",
        "The runtime says the device holds nothing, and nothing of the current content was written there. "
        "A reader skips it, rightly.",
        "Device (1,3) of the seed under reference or current: 7 shards go to 7 devices and the 8th is "
        "neither written nor recorded (scenarios/seed-uneven-copy.yaml).",
        "Nothing to fix.",
    ),
    Kind.UNINITIALIZED: KindInfo(
        False,
        True,
        "allocated and recorded, nothing copied in yet (like torch.empty)",
        "The tensor was allocated with a record on the device, and nothing has been copied into the tensor "
        "yet, like torch.empty. It is not a lie by itself; reading it back is a data_mismatch.",
        "Right after allocate_tensor_on_device under current: every device is recorded and none is written.",
        "Write the tensor before reading it.",
    ),
    Kind.STALE: KindInfo(
        True,
        True,
        "recorded, but the current content never reached it",
        "The runtime records the device as holding data, but the write that defines the tensor's "
        "current content never reached it: the memory was never written since allocation, or still "
        "holds an earlier, superseded write. A reader gets uninitialized memory (or old data that "
        "looks plausible) as if it were the tensor.",
        "The seed (tt-metal PR #18833): allocate_tensor_on_device records a uniform (1,1,32,32) spec on "
        "all 8 devices of a T3K; a (1,7,32,32) tensor sharded on dim 1 gives only 7 shards; "
        "copy_host_to_device_tensor(src, dst) writes them, but it takes dst by value, so its update of "
        "dst's per-device specs is lost. Device (1,3) is still recorded as holding data; dst.cpu() "
        "reads it back. Try: meshspec run scenarios/seed-uneven-copy.yaml --view map --profile all",
        "Make the write update the record it writes through (pass dst by reference), and record only "
        "the devices the host tensor populates (TT-NN today keeps 'coords' = the written devices). "
        "Under the reference profile this scenario is clean.",
    ),
    Kind.PARTIAL: KindInfo(
        True,
        True,
        "recorded with N bytes, the current write put fewer there",
        "The device is recorded as holding N bytes, but the write that defines the current content put "
        "fewer there: the rest of what a reader gets is memory this content never touched.",
        "Legacy torch.chunk mappers allowed unequal shards: (1,9,32,32) over 8 devices gives "
        "2,2,2,2,1 rows, and the 5th device gets one row where two are recorded "
        "(scenarios/mapper-error-nine-over-eight.yaml under uniform-by-value).",
        "Record per-device specs from the shards actually written, or refuse unequal shards as current "
        "TT-NN does (TT_FATAL 'Shard shape mismatch', issue #22977).",
    ),
    Kind.LOST: KindInfo(
        True,
        True,
        "holds current content, the record says it holds nothing",
        "Data was written to the device, but the runtime's record says the device holds nothing: no "
        "reader ever sees it, and a composed readback comes back short.",
        "TT-NN 0.81.1 (current profile): copy a 7-shard tensor into a uniform allocation (coords "
        "become the 7 written devices), then copy a full 8-shard tensor: the uniform-write path "
        "replaces the topology but keeps the old coords, so device (1,3) is written and never read "
        "(scenarios/partial-then-full.yaml).",
        "Reset coords on every write to the devices the host tensor populates, on the uniform path too.",
    ),
    Kind.MISSING_SPEC: KindInfo(
        True,
        True,
        "holds content (or is claimed) but the runtime keeps no spec for it",
        "The device holds data (or is claimed), but the runtime keeps no spec for it at all, so it "
        "cannot read it back.",
        "Before PR #18833 mesh-buffer storage kept no per-device specs, and copy_host_to_device_tensor's "
        "update was lost (by value): every written device has no spec and readback finds nothing "
        "(any copy scenario under the unpopulated profile).",
        "Populate per-device specs when writing (or when allocating, as PR #18833 did).",
    ),
    Kind.SHAPE_MISMATCH: KindInfo(
        True,
        True,
        "every recorded byte was written, but the recorded shape differs from the shard's",
        "Every recorded byte was written, but the recorded shape differs from the shape of the shard "
        "written there: a reader interprets the bytes with the wrong shape (padding read as data, rows "
        "misplaced).",
        "(1,1,63,32) sharded on dim 2 over two devices gives 32 and 31 rows; both fit one 32x32 tile, so "
        "the bytes match, but the second device is recorded as (1,1,32,32) "
        "(scenarios/legacy-uneven-tail.yaml under uniform-by-value).",
        "Record the shard's own spec per device (tensor_spec() returning the first shard's spec hides "
        "this, issue #21652), or require equal shards.",
    ),
    Kind.DATA_MISMATCH: KindInfo(
        True,
        False,
        "a read-back value differs from what was written there, or a written device was left out of the readback",
        "A value read back differs from what was written to that device, or a device that holds the "
        "tensor's data was left out of the readback. Reported at the to_torch that read it. " + COMPOSITION_RULE,
        "The seed under uniform-by-value: the legacy composer concatenates all 8 recorded shards, "
        "including (1,3)'s poison, into a (1,8,32,32) tensor where (1,7,32,32) was sent.",
        "Fix the record (stale, partial, lost, ...) that made the reader read the wrong memory; the "
        "data_mismatch goes away with it.",
    ),
    Kind.USE_AFTER_FREE: KindInfo(
        True,
        False,
        "a deallocated tensor was used",
        "A deallocated tensor was used (read, copied into, deallocated again). ttnn.deallocate frees the "
        "mesh buffer for every handle sharing it.",
        "deallocate(dst) then dst.cpu(): ttnn 0.81.1 crashes (SIGSEGV) in mock mode "
        "(scenarios/use-after-deallocate.yaml).",
        "Keep the tensor alive while it is used, or reallocate it.",
        user_error=True,
    ),
    Kind.TOPOLOGY_MISMATCH: KindInfo(
        True,
        False,
        "the tensor's topology disagrees with the devices or host shards it records",
        "The tensor's topology (distribution shape, placements, mesh coords) and the devices the runtime "
        "records for it (device_coords(), or a host tensor's populated shards) say different things: "
        "coordinates one lists and the other does not, coordinates off the mesh, or a distribution shape "
        "whose size is not the number of coordinates. A reader that trusts one (a composer walks the "
        "topology, cpu() reads the devices) gets what the other describes.",
        "ttnn.allocate_tensor_on_host on a T3K: a shard on all 8 devices under topology (1) [R] on (0, 0); "
        "combine_device_tensors: coords (0,0)..(0,6) on a 2x4 mesh, and the parent tensor now claims them "
        "too (scenarios/self-contradicting-calls.yaml).",
        "Build the topology from the devices actually written (TensorTopology from the storage's coords), "
        "and give every handle its own topology instead of sharing one.",
    ),
    Kind.PHANTOM_CORES: KindInfo(
        True,
        False,
        "a sharded spec's shard grid claims cores that hold no page of the tensor",
        "The memory config's shard grid names more cores than the tensor has shards: the cores past the "
        "last shard hold nothing (each still reserves a whole shard of L1 or DRAM). Code that walks the "
        "grid (sharded_to_interleaved's writers, a kernel per core) runs on those cores and reads or "
        "writes memory that is not the tensor's: the same lie as a device recorded with no data, one "
        "level down.",
        "tt-metal PR #55112: 8 shards on a grid claiming all 88 cores, then sharded_to_interleaved runs "
        "writers on the 80 phantom cores and corrupts adjacent DRAM (scenarios/phantom-core-grid.yaml).",
        "Derive the grid from the shard count (ttnn.num_cores_to_corerangeset(n, device grid)), or give "
        "the shard spec exactly the cores that hold shards.",
    ),
    Kind.STALE_INPUT: KindInfo(
        True,
        False,
        "a device op read never-written memory, or a device that held no current data (stale, partial), and wrote what it read here",
        "A collective or per-device op computed this device's data from pages of its input that were never "
        "written since allocation (whatever the input's record says of that device: ttnn's collectives run "
        "on every device of the mesh, tt-metal issue #31845), or from a device whose record lies: recorded "
        "as holding the tensor, but the write that defines its content never reached it (or only part of "
        "it). The op moved those bytes on, so this device's data is wrong although it was written: the lie "
        "spreads past the device that holds it. The finding names the input device read, the op and the step.",
        "The seed's copy leaves device (1,3) unwritten; an all_gather of the tensor, replayed by execute_trace "
        "each decode step, hands every device (1,3)'s never-written bytes (scenarios/traced-decode-seed.yaml).",
        "Fix the source's record (or the copy that left it stale); gather only devices the data is on "
        "(a submesh of them, or a tensor put on every device of the mesh).",
    ),
    Kind.UNINITIALIZED_READ: KindInfo(
        True,
        False,
        "a device op computed from a tensor's own devices before anything was written there (user error)",
        "A device op read pages of its input that were never written since allocation, on a device the "
        "input's own topology lists and no record lie explains (the device is not stale: nothing was ever "
        "meant to be there yet). The program used the tensor before filling it, as reading torch.empty "
        "would: whatever the runtime records, the values are whatever the memory held. A user error: no era "
        "makes it right (under the reference a bare allocation records no device, so a per-device op runs on "
        "none and only a collective, which reads the tensor's devices, still reads it).",
        "allocate_tensor_on_device(t), then neg(t) before any copy into t.",
        "Write the tensor (copy_host_to_device_tensor, a fill) before an op reads it.",
        user_error=True,
    ),
    Kind.TOPOLOGY_STALE: KindInfo(
        True,
        False,
        "after a device op (or a topology set by hand), the tensor's topology says another distribution than its data has",
        "A device op's output took its inputs' placements (ttnn's default imputation) although the op moved "
        "the dims or the data: a Shard on a dim the tensor no longer has, on a dim that moved, or on an axis "
        "whose devices now hold the same data. Whatever reads the topology (a composer derived from it, "
        "models/common/auto_compose.py, a later op's imputation) then puts the data in the wrong place. A "
        "topology set by hand with update_tensor_topology is judged the same way: the data's devices listed in "
        "another order put each shard at another's place.",
        "ttnn.squeeze(t, 0) of a tensor sharded on dim 3 keeps PlacementShard(3) on a rank-3 tensor; "
        "ttnn.permute keeps Shard(3) on a dim that moved (issue #52331; scenarios/squeeze-permute-topology.yaml).",
        "Give the op a compute_output_topologies that renumbers the placements, or update_tensor_topology "
        "after it with the distribution the data has.",
    ),
    Kind.PADDING_GATHERED: KindInfo(
        True,
        False,
        "a gather took each shard's tile padding as data: the output holds padding inside its logical shape",
        "Each device's shard was not a whole number of tiles along the gather dim, so its tiles carry padding "
        "past its logical end. A gather that concatenates padded shards (its output spec built from the padded "
        "shape) makes that padding part of the result: rows or columns of zeros, or whatever the padding held, "
        "between the shards, and a shape larger than the tensor that was gathered. The records are consistent; "
        "the data is not the tensor.",
        "A (1, 1, 32, 96) tensor sharded on dim 3 over 8 devices: 12 columns each, padded to 32. all_gather_async "
        "on dim 3 then gives (1, 1, 32, 256) with 20 padding columns after each shard (issue #24399; "
        "scenarios/all-gather-async-padding.yaml).",
        "Gather only tile-aligned shards (shard a dim whose per-device size is a multiple of the tile), gather "
        "in ROW_MAJOR layout, or slice the padding out after the gather (tt_transformers' workaround, issue #26351).",
    ),
    Kind.LOCALITY: KindInfo(
        True,
        False,
        "on a multi-host mesh, a call read a remote device as local, showed a shard under another device, or left a local shard out",
        "A mesh spread over several hosts (scenario hosts:) gives each host some of its devices: a coordinate is "
        "local to the host that owns it and remote to the others, which hold no buffer for it and cannot read it. "
        "A call on one host that reads a remote device as if it held it, that shows a shard under a coordinate "
        "other than its own (data this device does not hold reported as its), or that silently leaves out a "
        "shard the host does hold, lies about which data is where. The records are right; what the call "
        "reports is not.",
        "Printing a tensor on host 1 of a T3K split over hosts [1, 2] before PR #52708: to_string pairs the "
        "host's 4 local shards with the first 4 of the tensor's 8 coordinates, prints the shard of (1,2) as "
        "(0,2)'s and (1,3) as (0,3)'s, and drops (0,2) and (0,3), paired with remote (0,0) and (0,1) (issue "
        "#48267; scenarios/multihost-print-labels.yaml).",
        "Walk the coordinates, ask is_local of each, and take the shard of that coordinate (DistributedHostBuffer "
        "by coordinate), as PR #52708 does; never zip per-host buffers with the tensor's global coordinates.",
    ),
}

STATUSES: tuple[Kind, ...] = tuple(k for k in Kind if k.is_status)
"""Device statuses, in their declared order (tables, legends and counts use it)."""
FINDINGS: tuple[Kind, ...] = tuple(k for k in Kind if k.is_finding)
"""Finding kinds, in their declared order."""
USER_ERRORS: tuple[Kind, ...] = tuple(k for k in Kind if KINDS[k].user_error)
"""Finding kinds that are the user's program's fault, not a record's (``meshspec explain`` says so)."""
