"""A real runtime's report beside a simulated one: what of the two can be compared
(docs/semantics.md section 10, "The bundled scenarios on each version").

An exported script's observer (meshspec/bridge/observe.py) writes what the real runtime records,
named ``ttnn V (the real runtime)``. Two things in it are not the runtime's records to compare:
a tensor it could not describe (``unreadable``, with why: a part on 0.66/0.67, which have no
``device_coords()``), and the addresses of a version whose DRAM allocator starts lower than
0.81.1's by a fixed amount, which no profile rule holds. ``meshspec diff`` and ``hunt --real``
leave the first out of both reports and take the second's addresses as shifted, each only where
the shift is exactly the version's.
"""

from __future__ import annotations

import copy
import re
from typing import Optional

#: version -> how much lower its DRAM allocator hands out addresses than 0.81.1's (section 10,
#: "Buffer addresses"); every address that differs must differ by exactly this to be taken as equal.
ADDRESS_SHIFT = {"0.67.0": 1048608, "0.66.0": 1048608}

_REAL = re.compile(r"ttnn (\S+) \(the real runtime\)")


def real_version(report: dict) -> Optional[str]:
    """The ttnn version whose runtime wrote ``report`` (an exported script's observer), else None.

    >>> real_version({"profile": "ttnn 0.67.0 (the real runtime)"}), real_version({"profile": "current"})
    ('0.67.0', None)
    """
    m = _REAL.fullmatch(str(report.get("profile") or ""))
    return m.group(1) if m else None


def view(simulated: dict, real: dict, version: str) -> tuple[dict, dict]:
    """The two reports as they can be compared: on a version whose allocator starts lower
    (:data:`ADDRESS_SHIFT`), a real address lower by exactly that is taken as the simulated one;
    a tensor the observer could not read on the real side is left out of both."""
    simulated, real = copy.deepcopy(simulated), copy.deepcopy(real)
    shift = ADDRESS_SHIFT.get(version, 0)
    sim = {t["name"]: t for t in simulated["tensors"]}
    unreadable = {t["name"] for t in real["tensors"] if t.get("unreadable")}
    for t in real["tensors"]:
        s = sim.get(t["name"])
        if shift and s is not None and None not in (s.get("address"), t.get("address")) and s["address"] - t["address"] == shift:
            t["address"] = s["address"]
    simulated["tensors"] = [t for t in simulated["tensors"] if t["name"] not in unreadable]
    real["tensors"] = [t for t in real["tensors"] if t["name"] not in unreadable]
    return simulated, real


def comparable(expected: dict, actual: dict) -> tuple[dict, dict, tuple[tuple[str, str], ...]]:
    """``expected`` and ``actual`` as :func:`view` leaves them when one of them is a real runtime's
    report, with the tensors left out and why; as they are otherwise."""
    for sim, real, flip in ((expected, actual, False), (actual, expected, True)):
        version = real_version(real)
        if version is not None and real_version(sim) is None:
            skipped = tuple((t["name"], str(t["unreadable"])) for t in real["tensors"] if t.get("unreadable"))
            sim, real = view(sim, real, version)
            return (real, sim, skipped) if flip else (sim, real, skipped)
    return expected, actual, ()
