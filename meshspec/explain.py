"""``meshspec explain KIND``: what a finding means, how it arises, what a fix looks like."""

from __future__ import annotations

from .errors import UsageError, did_you_mean, one_of

EXPLANATIONS: dict[str, tuple[str, str, str]] = {
    "stale": (
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
    "partial": (
        "The device is recorded as holding N bytes, but the write that defines the current content put "
        "fewer there: the rest of what a reader gets is memory this content never touched.",
        "Legacy torch.chunk mappers allowed unequal shards: (1,9,32,32) over 8 devices gives "
        "2,2,2,2,1 rows, and the 5th device gets one row where two are recorded "
        "(scenarios/mapper-error-nine-over-eight.yaml under uniform-by-value).",
        "Record per-device specs from the shards actually written, or refuse unequal shards as current "
        "TT-NN does (TT_FATAL 'Shard shape mismatch', issue #22977).",
    ),
    "shape_mismatch": (
        "Every recorded byte was written, but the recorded shape differs from the shape of the shard "
        "written there: a reader interprets the bytes with the wrong shape (padding read as data, rows "
        "misplaced).",
        "(1,1,63,32) sharded on dim 2 over two devices gives 32 and 31 rows; both fit one 32x32 tile, so "
        "the bytes match, but the second device is recorded as (1,1,32,32) "
        "(scenarios/legacy-uneven-tail.yaml under uniform-by-value).",
        "Record the shard's own spec per device (tensor_spec() returning the first shard's spec hides "
        "this, issue #21652), or require equal shards.",
    ),
    "lost": (
        "Data was written to the device, but the runtime's record says the device holds nothing: no "
        "reader ever sees it, and a composed readback comes back short.",
        "TT-NN 0.81.1 (current profile): copy a 7-shard tensor into a uniform allocation (coords "
        "become the 7 written devices), then copy a full 8-shard tensor: the uniform-write path "
        "replaces the topology but keeps the old coords, so device (1,3) is written and never read "
        "(scenarios/partial-then-full.yaml).",
        "Reset coords on every write to the devices the host tensor populates, on the uniform path too.",
    ),
    "missing_spec": (
        "The device holds data (or is claimed), but the runtime keeps no spec for it at all, so it "
        "cannot read it back.",
        "Before PR #18833 mesh-buffer storage kept no per-device specs, and copy_host_to_device_tensor's "
        "update was lost (by value): every written device has no spec and readback finds nothing "
        "(any copy scenario under the unpopulated profile).",
        "Populate per-device specs when writing (or when allocating, as PR #18833 did).",
    ),
    "data_mismatch": (
        "A value read back differs from what was written to that device, or a device that holds the "
        "tensor's data was left out of the readback. Reported at the to_torch that read it.",
        "The seed under uniform-by-value: the legacy composer concatenates all 8 recorded shards, "
        "including (1,3)'s poison, into a (1,8,32,32) tensor where (1,7,32,32) was sent.",
        "Fix the record (stale, partial, lost, ...) that made the reader read the wrong memory; the "
        "data_mismatch goes away with it.",
    ),
    "use_after_free": (
        "A deallocated tensor was used (read, copied into, deallocated again). ttnn.deallocate frees the "
        "mesh buffer for every handle sharing it.",
        "deallocate(dst) then dst.cpu(): ttnn 0.81.1 crashes (SIGSEGV) in mock mode "
        "(scenarios/use-after-deallocate.yaml).",
        "Keep the tensor alive while it is used, or reallocate it.",
    ),
}


def explain(kind: str) -> str:
    key = kind.strip().lower().replace("-", "_")
    if key not in EXPLANATIONS:
        raise UsageError(f"unknown finding kind {kind!r}{did_you_mean(key, list(EXPLANATIONS))}; {one_of(list(EXPLANATIONS))}")
    what, example, fix = EXPLANATIONS[key]
    return f"{key}\n\nWhat it means\n  {what}\n\nHow it arises\n  {example}\n\nWhat a fix looks like\n  {fix}\n"
