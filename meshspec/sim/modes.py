"""Run-wide choices that the command line names before anything heavy is imported."""

from __future__ import annotations

import enum


class Uninitialized(str, enum.Enum):
    """What never-written device memory holds."""

    POISON = "poison"
    """The pattern A5 FF: a stale read is recognisable garbage."""
    ZEROS = "zeros"
    """Zeros, as the ttnn mock does: a stale read looks plausible."""
    REUSE = "reuse"
    """The bytes of the last buffer freed on that device: a stale read returns an earlier tensor's
    data, the most misleading case (an allocator handing out freed addresses again)."""
