"""Runtime profiles: how TT-NN recorded per-device specs in each era (docs/semantics.md section 6).

A profile is a handful of rules, each one a named choice the runtime branches on; the
simulated mesh and the ground truth of what was written are the same under every profile.

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
from ..frozen import Frozen

from ..errors import UsageError, did_you_mean, one_of
from .mapping import CURRENT_MAPPER, LEGACY_MAPPER, MapperRules


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


class Profile(Frozen):
    name: str
    era: str
    summary: str
    allocation: AllocationRecord
    copy: CopyRecord
    mapper: MapperRules
    composer: Composer
    copy_check: CopyCheck


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            "current",
            "TT-NN today (ttnn 0.81, 2026)",
            "one spec + coords; copy by reference; a full write after a partial one keeps the old coords",
            AllocationRecord.ALL,
            CopyRecord.CURRENT,
            CURRENT_MAPPER,
            Composer.CURRENT,
            CopyCheck.EVERY_SHARD,
        ),
        Profile(
            "uniform-by-value",
            "PR #18833, March 2025 (the seed)",
            "allocation records a uniform spec on every device; the copy's record update is lost",
            AllocationRecord.ALL,
            CopyRecord.LOST,
            LEGACY_MAPPER,
            Composer.LEGACY,
            CopyCheck.FIRST_SHARD,
        ),
        Profile(
            "unpopulated",
            "before PR #18833, early March 2025",
            "allocation records no per-device specs; the copy's record update is lost",
            AllocationRecord.NONE,
            CopyRecord.LOST,
            LEGACY_MAPPER,
            Composer.LEGACY,
            CopyCheck.FIRST_SHARD,
        ),
        Profile(
            "reference",
            "what a correct runtime records",
            "records exactly the devices and shapes written; mapper rules as in current",
            AllocationRecord.UNRECORDED,
            CopyRecord.EXACT,
            CURRENT_MAPPER,
            Composer.CURRENT,
            CopyCheck.EVERY_SHARD,
        ),
    )
}

DEFAULT_PROFILE = "current"


def get_profile(name: str) -> Profile:
    try:
        return PROFILES[name]
    except KeyError:
        raise UsageError(
            f"unknown profile {name!r}{did_you_mean(name, list(PROFILES))}; {one_of(list(PROFILES))}"
        ) from None
