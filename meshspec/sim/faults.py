"""Faults injected into a run to test meshspec's own detectors (as sanitizers test theirs on
known-bad programs): a run with one fault must report exactly the matching finding on exactly
that device, and nothing else.

===============  ======================================================  ====================
fault            what the runtime does wrong at the step                  expected finding
===============  ======================================================  ====================
skip_write       records the device but never writes it                   stale
drop_record      writes the device but leaves it out of the record         lost
alter_shape      records the device with a larger shape than it wrote      partial
===============  ======================================================  ====================

A fault here is made up, to test a detector. A fault the real library had is an era: a profile
rule with its source (meshspec/sim/profiles.py), as PR #19032's read loop (``read_buffers``) and
PR #17513's replicated to_device (``to_device_record``) are (docs/semantics.md section 19).
"""

from __future__ import annotations

import enum

from ..frozen import Frozen

from .mesh import Coord


class FaultKind(str, enum.Enum):
    """What the runtime does wrong at the faulty step (the table above)."""

    SKIP_WRITE = "skip_write"
    DROP_RECORD = "drop_record"
    ALTER_SHAPE = "alter_shape"

    @property
    def expected(self) -> str:
        """The finding kind a run with this fault reports: stale, lost or partial."""
        return _FINDING[self]


_FINDING = {FaultKind.SKIP_WRITE: "stale", FaultKind.DROP_RECORD: "lost", FaultKind.ALTER_SHAPE: "partial"}

#: A fault kind's name (as ``hunt --fault`` takes it) -> the finding kind it must produce.
EXPECTED: dict[str, str] = {kind.value: kind.expected for kind in FaultKind}


class Fault(Frozen):
    kind: FaultKind
    """skip_write, drop_record or alter_shape (given as the kind or its name)."""
    step: int
    """The writing step (an op whose ``fault_site`` is set: copy_host_to_device_tensor, to_device) the fault applies to."""
    coord: Coord

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        kind = self.__dict__["kind"]
        try:
            self.__dict__["kind"] = FaultKind(kind)
        except ValueError:
            raise ValueError(f"unknown fault {kind!r}; one of {', '.join(EXPECTED)}") from None

    @property
    def expected(self) -> str:
        return self.kind.expected
