"""Every bundled scenario gives the outcome its description claims, under every profile.

Expectations are derived by hand from docs/semantics.md (section cited per scenario), not copied from
a run: the set of (finding kind, device) and the step error, if any.
"""

from pathlib import Path

import pytest

from meshspec.runner import run
from meshspec.scenario.loader import load

SCENARIOS = Path(__file__).resolve().parents[1] / "scenarios"
T3K = [(r, c) for r in range(2) for c in range(4)]
SEVEN = T3K[:7]


def missing(devs):
    return {("missing_spec", d) for d in devs}


# (scenario, profile) -> (findings as {(kind, device)}, error substring or None)
EXPECTED = {
    # docs/semantics.md sections 1 and 6: the seed. 7 shards into a uniform allocation.
    ("seed-uneven-copy", "uniform-by-value"): ({("stale", (1, 3)), ("data_mismatch", (1, 3))}, None),
    ("seed-uneven-copy", "current"): (set(), None),
    ("seed-uneven-copy", "reference"): (set(), None),
    # section 6, first era row: no specs, the copy's update is lost, readback has nothing to read.
    ("seed-uneven-copy", "unpopulated"): (missing(SEVEN), "nothing to compose"),
    # section 11: a copy never checks the memory config, so the seed on a height-sharded L1
    # destination lies as on an interleaved one (the same outcomes as the seed).
    ("seed-sharded-destination", "uniform-by-value"): ({("stale", (1, 3)), ("data_mismatch", (1, 3))}, None),
    ("seed-sharded-destination", "current"): (set(), None),
    ("seed-sharded-destination", "reference"): (set(), None),
    ("seed-sharded-destination", "unpopulated"): (missing(SEVEN), "nothing to compose"),
    # section 12: issues #38371 and #50657: in the ccl-union era all_gather_async and all_reduce keep their
    # input's label; the CCL helpers (current) and the reference replicate the gathered axis.
    **{("all-gather-async-label", p): (set(), None) for p in ("current", "reference", "uniform-by-value", "unpopulated")},
    # section 12 (padding): all_gather_async gathered the tile padding between PR #19575 and #24399's fix.
    ("all-gather-async-padding", "ccl-padded"): ({("padding_gathered", None)}, None),
    **{("all-gather-async-padding", p): (set(), None) for p in ("current", "reference")},
    # section 22: issue #28755: a replicated tensor on 1x8 is recorded (8) in every era, (1, 8) under the
    # reference; the data is the same, so no profile finds anything (the expect block checks the record).
    **{("replicated-1x8-distribution", p): (set(), None) for p in ("current", "reference")},
    # section 22: PR #29158: before it a plain tensor put on the mesh kept the host's (1) [R] (user profile mid-2025)
    ("plain-to-device-topology", "mid-2025"): ({("topology_mismatch", None)}, None),
    **{("plain-to-device-topology", p): (set(), None) for p in ("current", "reference")},
    # section 22: ttnn.all_gather gathered the tile padding as data in 2024 (issue #11013) and, with a
    # cluster axis, kept a logical window over the padded tiles in 2025 (issue #21964); user profiles.
    ("all-gather-padding-2024", "all-gather-2024"): ({("padding_gathered", None)}, None),
    ("all-gather-padding-window", "all-gather-cluster-axis-2025"): ({("padding_gathered", None)}, None),
    **{(n, p): (set(), None) for n in ("all-gather-padding-2024", "all-gather-padding-window") for p in ("current", "reference")},
    # section 12: a reshape view shares the buffer: deallocating it frees the original (issue #31145),
    # whose read-back is a use after free; the view's label keeps Shard(3) except under reference.
    **{("reshape-alias-deallocate", p): ({("topology_stale", None), ("use_after_free", None)}, "freed by step 2")
       for p in ("current", "uniform-by-value", "unpopulated")},
    ("reshape-alias-deallocate", "reference"): ({("use_after_free", None)}, "freed by step 2"),
    # section 12: the seed through a trace: each replay gathers the stale (1,3) into every device
    # (stale_input) under uniform-by-value; current's copy records 7 devices, so nothing is stale; a
    # part's cpu() keeps the parent's topology except under reference (section 9).
    ("traced-decode-seed", "uniform-by-value"): ({("stale", (1, 3)), ("topology_mismatch", None)} | {("stale_input", d) for d in T3K}, None),
    # ttnn's CCLs gather over the mesh, not the tensor (tt-metal issue #31845): (1,3), never written, is read all the same
    ("traced-decode-seed", "current"): ({("topology_mismatch", None)} | {("stale_input", d) for d in T3K}, None),
    ("traced-decode-seed", "reference"): (set(), None),
    ("traced-decode-seed", "unpopulated"): (missing(SEVEN) | {("stale_input", d) for d in T3K} | {("topology_mismatch", None)}, None),
    # section 12: issue #35362: linear's raw-int union labels both axes with the last dim
    **{("linear-2d-mesh-label", p): ({("topology_stale", None)}, None) for p in ("current", "uniform-by-value", "unpopulated")},
    ("linear-2d-mesh-label", "reference"): (set(), None),
    # section 12: squeeze / unsqueeze keep the input's Shard(3) (the default imputation, issue #52331)
    **{("squeeze-permute-topology", p): ({("topology_stale", None)}, None) for p in ("current", "uniform-by-value", "unpopulated")},
    ("squeeze-permute-topology", "reference"): (set(), None),
    # section 11: an ND spec wraps round robin; one a 2-D spec can say becomes it. Nothing lies.
    **{("nd-round-robin", p): (set(), None) for p in ("current", "reference", "uniform-by-value", "unpopulated")},
    # section 11: ttnn.create_sharded_memory_config's configs; its 64x50 width shard no TILE tensor takes.
    **{("sharded-helper-l1", p): (set(), "Physical shard shape (64, 50) must be tile {32, 32} sized!")
       for p in ("current", "reference", "uniform-by-value", "unpopulated")},
    # section 11: copy_host_to_device_tensor_partial writes core (0,0)'s 4 of 6 pages on every device,
    # the records unchanged: partial everywhere; a plain host tensor is refused. unpopulated records
    # no spec: the writes are to devices it keeps no spec for.
    **{("partial-core-write", p): ({("partial", d) for d in T3K}, "non-uniform host->device writes")
       for p in ("current", "uniform-by-value", "reference")},
    ("partial-core-write", "unpopulated"): (missing(T3K), "non-uniform host->device writes"),
    # sections 11 and 16: 8 shards on a 64-core grid; every era records the grid given, the put exact;
    # the reference records the grid cut to the 8 cores that hold a page (rule shard_grid, PR #55112).
    ("phantom-core-grid", "current"): ({("phantom_cores", None)}, None),
    ("phantom-core-grid", "reference"): (set(), None),
    ("phantom-core-grid", "uniform-by-value"): ({("phantom_cores", None)}, None),
    ("phantom-core-grid", "unpopulated"): ({("phantom_cores", None)}, None),
    # section 16: issues #20726 / #22396: ROW_MAJOR rows that (1, 64) width shards do not divide;
    # refused before the fix (ttnn 0.66.0 / 0.67.0 observed, 2025's eras), padded by 0.81.1 and the reference.
    **{("uneven-row-major-width-shards", p): (set(), "Physical width 96 must be multiple of page width 64")
       for p in ("before-pr-22396-fix", "uniform-by-value", "unpopulated")},
    **{("uneven-row-major-width-shards", p): (set(), None) for p in ("current", "reference")},
    # section 16: issue #22947: ROW_MAJOR rows of 30 in 32-wide height shards; refused by ttnn 0.66.0 / 0.67.0
    # (observed), padded to 32 by 0.81.1 and the reference.
    **{("height-shard-padded-width", p): (set(), "Physical width 30 must be multiple of page width 32")
       for p in ("before-issue-22947-fix", "uniform-by-value", "unpopulated")},
    **{("height-shard-padded-width", p): (set(), None) for p in ("current", "reference")},
    # section 16: issue #51503: a DRAM grid of two rows aliases banks 0 and 1; the earlier shard of each
    # column is written over (4 of 8 pages stay: partial, the host copy too, and the read-back differs); PR #51542 refuses it.
    **{("dram-grid-bank-aliasing", p): ({("partial", (0, 0)), ("partial", None), ("data_mismatch", (0, 0))}, None)
       for p in ("before-pr-51542", "uniform-by-value", "unpopulated")},
    **{("dram-grid-bank-aliasing", p): (set(), "is not on row 0") for p in ("current", "reference")},
    # section 16: PR #53263: core (12,0) of a 13-core DRAM grid has no bank on a 12-bank N150: its tile is
    # lost (12 of 13 pages: partial, the host copy too, and the read-back differs); PR #53263 refuses the grid.
    **{("shard-core-without-bank", p): ({("partial", (0, 0)), ("partial", None), ("data_mismatch", (0, 0))}, None)
       for p in ("before-pr-53263", "uniform-by-value", "unpopulated")},
    **{("shard-core-without-bank", p): (set(), "has no DRAM bank on this device") for p in ("current", "reference")},
    # section 16: PR #55112: a slice keeps its input's 4-core grid for 2 shards; the reference clamps it.
    **{("sharded-output-grid", p): ({("phantom_cores", None)}, None) for p in ("current", "uniform-by-value", "unpopulated")},
    ("sharded-output-grid", "reference"): (set(), None),
    # section 6, "A real gap in the current library".
    ("partial-then-full", "current"): ({("lost", (1, 3)), ("topology_mismatch", None), ("data_mismatch", (1, 3))}, None),
    ("partial-then-full", "reference"): (set(), None),
    ("partial-then-full", "uniform-by-value"): (set(), None),
    ("partial-then-full", "unpopulated"): (missing(T3K), "nothing to compose"),
    ("even-copy", "current"): (set(), None),
    ("even-copy", "reference"): (set(), None),
    ("even-copy", "uniform-by-value"): (set(), None),
    ("even-copy", "unpopulated"): (missing(T3K), "nothing to compose"),
    # section 4: [R, S(1)] -> 4 column shards replicated down 2 rows; to_device records exactly.
    **{("replicate-shard-2d", p): (set(), None) for p in ("current", "reference", "uniform-by-value", "unpopulated")},
    # section 4, SUBMESH: a 2x3 override on 2x4 leaves column 3 empty; section 5: the legacy
    # ConcatMesh2dToTensor takes all 8 recorded shards, groups them 3, 3, 2, and torch.cat fails.
    ("submesh-override", "uniform-by-value"): (
        {("stale", (0, 3)), ("stale", (1, 3))},
        "Sizes of tensors must match except in dimension 2",
    ),
    ("submesh-override", "current"): (set(), None),
    ("submesh-override", "reference"): (set(), None),
    # section 4, equal-shape rule (current) vs legacy torch.chunk (2,2,2,2,1 on 5 devices).
    ("mapper-error-nine-over-eight", "current"): (set(), "Shard shape mismatch"),
    ("mapper-error-nine-over-eight", "reference"): (set(), "Shard shape mismatch"),
    ("mapper-error-nine-over-eight", "uniform-by-value"): (
        {("partial", (1, 0)), ("stale", (1, 1)), ("stale", (1, 2)), ("stale", (1, 3))}
        | {("data_mismatch", d) for d in [(1, 0), (1, 1), (1, 2), (1, 3)]},
        None,
    ),
    # section 4: 63 rows over 2 -> 32 + 31; one tile each.
    ("legacy-uneven-tail", "uniform-by-value"): ({("shape_mismatch", (0, 1)), ("data_mismatch", (0, 1))}, None),
    ("legacy-uneven-tail", "current"): (set(), "Shard shape mismatch"),
    ("legacy-uneven-tail", "reference"): (set(), "Shard shape mismatch"),
    # sections 1 and 2: the seed on an 8x4 Galaxy, 31 shards over 32 devices.
    ("galaxy-31-of-32", "uniform-by-value"): ({("stale", (7, 3)), ("data_mismatch", (7, 3))}, None),
    ("galaxy-31-of-32", "current"): (set(), None),
    ("galaxy-31-of-32", "reference"): (set(), None),
    # section 9: per-device reads after the seed's copy; current records 7 devices (7 parts), the seed's
    # era keeps all 8 recorded (an 8th part on the stale device), the unpopulated era records none.
    ("per-device-reads", "current"): (set(), None),
    ("per-device-reads", "uniform-by-value"): ({("stale", (1, 3))}, None),
    ("per-device-reads", "unpopulated"): (missing(SEVEN), "list index out of range"),
    # section 9: combine writes (3) [S(0)] on flat coords into the shared topology: dst, c and the parts
    # not on (0,0) (0,1) (0,2) contradict it; the reference gives each its own; older eras lack the call.
    ("combine-round-trip", "current"): ({("topology_mismatch", None)}, None),
    ("combine-round-trip", "reference"): (set(), None),
    ("combine-round-trip", "uniform-by-value"): ({("stale", (1, 3))}, "has no attribute 'combine_device_tensors'"),
    # section 9: a host tensor for a 1x4 submesh lands on the parent's row 0; a 2x4 one fails on the submesh.
    ("submesh-copy", "current"): (set(), "not found in mesh MeshShape([1, 4])"),
    # section 9: the cache keeps the topology today; mid 2025 it loaded with distribution (1).
    ("cache-round-trip", "current"): (set(), None),
    ("cache-round-trip", "cache-mid-2025"): ({("topology_mismatch", None)}, None),
    # section 20: what a tensor file keeps and what a load gives, each real bug under its era's tensor_file rule.
    ("cache-hit-replicated-shards", "may-2024"): ({("data_mismatch", (0, c)) for c in (1, 2, 3)} | {("data_mismatch", (1, c)) for c in range(4)}, None),
    ("cache-hit-replicated-shards", "current"): (set(), None),
    **{("dump-after-reshape-first-shard", p): ({("topology_stale", None), ("data_mismatch", (0, 1))}, None)
       for p in ("aug-2025", "uniform-by-value")},
    ("dump-after-reshape-first-shard", "current"): ({("topology_stale", None)}, None),
    ("export-one-shard-replicated", "export-june-2026"): ({("data_mismatch", (0, 1))}, None),
    ("export-one-shard-replicated", "current"): (set(), None),
    ("dump-replicate-label-keeps-one-shard", "current"): ({("data_mismatch", (1, c)) for c in range(4)}, None),
    ("dump-replicate-label-keeps-one-shard", "uniform-by-value"): (set(), None),  # the legacy format goes by config
    # section 20, load_memory: the symptom is the loaded config (its expect block), no finding
    ("dump-dram-sharded-loads-interleaved", "before-pr-26831"): (set(), None),
    ("dump-dram-sharded-loads-interleaved", "current"): (set(), None),
    # section 9: allocate_tensor_on_host and an unchecked update_tensor_topology contradict themselves.
    ("self-contradicting-calls", "current"): ({("topology_mismatch", None)}, None),
    # section 6 with one rule changed: the seed's era with a by-reference copy is clean.
    ("user-profile-fix", "seed-by-reference"): (set(), None),
    ("user-profile-fix", "uniform-by-value"): ({("stale", (1, 3)), ("stale", None), ("data_mismatch", (1, 3))}, None),
    # section 19: storage kinds. Issue #15833: on a 1x1 mesh the device tensor is single-device storage
    # and a copy from a mapped host tensor asserts (dec-2024); a mesh tensor copies in today.
    ("unit-mesh-single-device-copy", "dec-2024"): (set(), "std::holds_alternative<OwnedStorage>"),
    **{("unit-mesh-single-device-copy", p): (set(), None) for p in ("current", "reference", "unpopulated")},
    # issue #18842: replicating a borrowed host tensor fails in aggregate_as_tensor; a shard mapper works.
    ("replicate-borrowed-aggregate", "mar-2025"): (set(), "std::get device index fail"),
    **{("replicate-borrowed-aggregate", p): (set(), None) for p in ("current", "reference", "uniform-by-value", "early-2026")},
    # section 19: faults of the read and transfer paths. PR #19032: cpu() reads into the wrong buffers,
    # every device's readback differs from what was written though every record is right.
    ("readback-resized-to-devices", "mar-2025"): ({("data_mismatch", (0, 0)), ("data_mismatch", (0, 1))}, None),
    **{("readback-resized-to-devices", p): (set(), None) for p in ("current", "reference", "uniform-by-value")},
    # PR #17513: to_device records the replicated allocation: (1,3) recorded, never written.
    ("to-device-replicated-allocation", "feb-2025"): (
        {("topology_mismatch", None), ("stale", (1, 3)), ("stale", None), ("data_mismatch", (1, 3))}, None),
    **{("to-device-replicated-allocation", p): (set(), None) for p in ("current", "reference", "unpopulated")},
    # section 15: on host 1 of a T3K over hosts [1, 2], to_string before PR #52708 prints (1,2)'s shard as
    # (0,2)'s and (1,3)'s as (0,3)'s, and drops (0,2)'s and (0,3)'s (issue #48267); since, each under its own.
    ("multihost-print-labels", "before-52708"): ({("locality", (0, 2)), ("locality", (0, 3))}, None),
    ("multihost-print-labels", "current"): (set(), None),
    ("multihost-print-labels", "reference"): (set(), None),
    # section 15: visualize_tensor before PR #35464 asks remote (0,0) for its device id (issue #35441).
    ("multihost-visualize-remote", "before-35464"): (set(), "Cannot get device for remote device at coordinate MeshCoordinate([0, 0])"),
    ("multihost-visualize-remote", "current"): (set(), None),
    ("multihost-visualize-remote", "reference"): (set(), None),
    # section 15: graph capture before PR #47846 tracks remote (0,0) of neg's tensors and throws (ttnn-visualizer #1672).
    ("multihost-graph-capture", "before-47846"): (set(), "Attempted to access remote device from process that does not have it!"),
    ("multihost-graph-capture", "current"): (set(), None),
    ("multihost-graph-capture", "reference"): (set(), None),
    # section 15: a 32 MiB sharded write pins remote (0,0) (issue #48477, open in 0.81.1); the plain one passes
    # since PR #46138; before it both fail; the reference pins local devices only.
    ("multihost-write-pinning", "current"): (set(), "Cannot get device for remote device at coordinate MeshCoordinate([0, 0])"),
    ("multihost-write-pinning", "before-46138"): (set(), "Cannot get device for remote device at coordinate MeshCoordinate([0, 0])"),
    ("multihost-write-pinning", "reference"): (set(), None),
    # section 18: host ops on a mapped host tensor, shard by shard; unpad refused until PR #21628
    # (issue #16870), pad until PR #6976 (issue #6889), each in the library's own words.
    **{("host-unpad-multi-shard", p): (set(), "Device storage isn't supported") for p in ("unpad-2025-01", "uniform-by-value", "unpopulated")},
    **{("host-unpad-multi-shard", p): (set(), None) for p in ("current", "reference")},
    ("host-pad-replicated-tile", "pad-2024-03"): (set(), "Tensor must be on host for padding"),
    **{("host-pad-replicated-tile", p): (set(), None) for p in ("current", "reference", "uniform-by-value")},
    # section 18: issue #8967's from_torch mapped a block float's tile-padded tensor (no device lies).
    **{("block-float-padded-shape", p): (set(), None) for p in ("bfp8-2024", "current", "reference")},
    # section 17: a ring or line over chips without a link between neighbours stops an ethernet-socket CCL
    # (issue #13693, PR #17646, PR #18319); the fabric CCLs (current) and the reference run it.
    ("ring-all-gather-row-major", "ethernet-ccl"): (set(), "Device 4 is not connected to Device 7"),
    ("reshape-line-order", "reshape-row-major"): (set(), "Device 6 is not connected to Device 5"),
    ("reshape-line-order", "reshape-fixed"): (set(), None),
    ("submesh-ring-all-gather", "ethernet-ccl"): (set(), "Device 4 is not connected to Device 1"),
    **{(name, p): (set(), None) for name in ("ring-all-gather-row-major", "reshape-line-order", "submesh-ring-all-gather")
       for p in ("current", "reference")},
    # section 21 (and 12): issue #52331's stale label composed by PR #53481's to_torch: the label is
    # stale in every era but reference and labels-fixed; without auto-compose to_torch wants a composer.
    ("permute-composed-by-label", "auto-compose"): ({("topology_stale", None)}, None),
    ("permute-composed-by-label", "labels-fixed"): (set(), None),
    ("permute-composed-by-label", "current"): ({("topology_stale", None)}, "Supply a mesh composer"),
    ("permute-composed-by-label", "reference"): (set(), "Supply a mesh composer"),
    # section 21: a rank-0 tensor replicates like any other; distributing one already split per device is
    # refused in every era (tt-xla issue #6004: the caller's fault, not the runtime's).
    **{("rank0-presplit-distribute", p): (set(), "Can't get a single buffer from host storage")
       for p in ("current", "reference", "uniform-by-value", "unpopulated")},
    # sections 1, 6 and 21: the seed over a matrix; run() of the loaded file runs its first case,
    # bfloat16 TILE on 2x4 (tests/scenario/test_matrix.py runs the others).
    ("seed-uneven-copy-matrix", "uniform-by-value"): ({("stale", (1, 3)), ("data_mismatch", (1, 3)), ("stale", None)}, None),
    ("seed-uneven-copy-matrix", "reference"): (set(), None),
    ("seed-uneven-copy-matrix", "current"): (set(), None),
    ("seed-uneven-copy-matrix", "unpopulated"): (missing(SEVEN), "nothing to compose"),
    # section 6: deallocate frees the buffer; a later use is an error in every era.
    **{
        ("use-after-deallocate", p): ({("use_after_free", None)}, "after free")
        for p in ("current", "reference", "uniform-by-value", "unpopulated")
    },
}


@pytest.mark.parametrize("name, profile", sorted(EXPECTED))
def test_bundled_outcome(name, profile):
    findings, error = EXPECTED[(name, profile)]
    report = run(load(SCENARIOS / f"{name}.yaml"), profile)
    got = {(f.kind.value, f.device) for f in report.findings}
    assert got == findings
    if error is None:
        assert report.error is None, report.error
    else:
        assert report.error is not None and error in report.error.message
    assert report.exit_code == (1 if findings or error else 0)


def test_every_bundled_scenario_is_covered_and_described():
    names = {p.stem for p in SCENARIOS.glob("*.yaml")}
    assert names == {n for n, _ in EXPECTED}
    for name in names:
        s = load(SCENARIOS / f"{name}.yaml")
        assert s.name == (f"{name}[{s.case}]" if s.case else name) and len(s.description) > 80


def test_default_profile_is_the_scenarios():
    assert run(load(SCENARIOS / "seed-uneven-copy.yaml")).profile == "uniform-by-value"
    assert run(load(SCENARIOS / "even-copy.yaml")).profile == "current"
