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

from ..frozen import Frozen

from .mesh import Coord

EXPECTED = {"skip_write": "stale", "drop_record": "lost", "alter_shape": "partial"}


class Fault(Frozen):
    kind: str
    """skip_write, drop_record or alter_shape."""
    step: int
    """The writing step (copy_host_to_device_tensor or to_device) the fault applies to."""
    coord: Coord

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        if self.kind not in EXPECTED:
            raise ValueError(f"unknown fault {self.kind!r}; one of {', '.join(EXPECTED)}")

    @property
    def expected(self) -> str:
        return EXPECTED[self.kind]
