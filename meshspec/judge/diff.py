"""``meshspec diff``: expected vs actual per-device records, field by field.

Both sides are report JSON (``meshspec.report/1``), whether they come from running a scenario
under two profiles or from two saved files (one simulated, one captured from hardware), so one
function compares them.
"""

from __future__ import annotations

from typing import Any, Optional

from ..report import DEVICE_FIELDS, Diff, Difference, TensorDiff
from .reports import DiffError, validate_report


def device_fields(device: dict) -> dict:
    """The compared record of one device (report JSON ``devices[]`` entry)."""
    spec = device.get("spec") or {}
    recorded = bool(device.get("recorded"))
    return {
        "recorded": recorded,
        "shape": spec.get("shape"),
        "padded_shape": spec.get("padded_shape"),
        "dtype": spec.get("dtype"),
        "layout": spec.get("layout"),
        "num_pages": spec.get("num_pages"),
        "bytes": spec.get("buffer_bytes", 0) if recorded else 0,
        "offset": device.get("offset"),
    }


def check_report(data: Any, label: str) -> dict:
    """``data`` if it is a valid saved report (see reports.py), else a one-line error."""
    return validate_report(data, label)


def diff_reports(expected: dict, actual: dict, expected_label: str = "expected", actual_label: str = "actual") -> Diff:
    """Compare two reports of the same scenario on the same mesh."""
    if expected["scenario"] != actual["scenario"]:
        raise DiffError(
            f"the reports are of different scenarios ({expected['scenario']!r} vs {actual['scenario']!r}); "
            "diff compares two runs of one scenario"
        )
    if expected["mesh"] != actual["mesh"]:
        raise DiffError(f"the reports are of different meshes ({expected['mesh']} vs {actual['mesh']})")
    exp_t = {t["name"]: t for t in expected["tensors"]}
    act_t = {t["name"]: t for t in actual["tensors"]}
    names = list(exp_t) + [n for n in act_t if n not in exp_t]
    return Diff(
        expected["scenario"],
        expected["mesh"],
        expected_label,
        actual_label,
        expected.get("error"),
        actual.get("error"),
        tuple(_diff_tensor(n, exp_t.get(n), act_t.get(n)) for n in names),
    )


def _diff_tensor(name: str, exp: Optional[dict], act: Optional[dict]) -> TensorDiff:
    if exp is None or act is None:
        return TensorDiff(name, (), (Difference(name, None, "present", exp is not None, act is not None),))
    diffs = []
    if exp["storage"] != act["storage"]:
        diffs.append(Difference(name, None, "storage", exp["storage"], act["storage"]))
    if exp["topology"] != act["topology"]:
        diffs.append(Difference(name, None, "topology", exp["topology"], act["topology"]))
    e_dev = {tuple(d["coord"]): device_fields(d) for d in exp["devices"]}
    a_dev = {tuple(d["coord"]): device_fields(d) for d in act["devices"]}
    rows = []
    empty = {f: None for f in DEVICE_FIELDS} | {"recorded": False, "bytes": 0}
    for coord in sorted(set(e_dev) | set(a_dev)):
        e, a = e_dev.get(coord, empty), a_dev.get(coord, empty)
        rows.append((coord, e, a))
        diffs += [Difference(name, coord, f, e[f], a[f]) for f in DEVICE_FIELDS if e[f] != a[f]]
    return TensorDiff(name, tuple(rows), tuple(diffs))
