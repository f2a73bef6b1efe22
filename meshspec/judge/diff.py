"""``meshspec diff``: expected vs actual per-device records, field by field.

Both sides are report JSON (``meshspec.report/1``), whether they come from running a scenario
under two profiles or from two saved files (one simulated, one captured from hardware), so one
function compares them.
"""

from __future__ import annotations

from typing import Any, Optional

from ..errors import ResourceLimit
from ..report import DEVICE_FIELDS, UNKNOWN, Diff, Difference, TensorDiff, same
from .reports import DiffError, validate_report


def device_fields(device: dict) -> dict:
    """The compared record of one device (report JSON ``devices[]`` entry); a field the report
    leaves out is :data:`UNKNOWN` (a report of the real runtime has no ``offset``, a host shard no
    pages), and is not compared."""
    spec = device.get("spec", UNKNOWN)  # absent: the report cannot know (the real runtime keeps no spec off its records)
    recorded = bool(device.get("recorded"))

    def of_spec(key: str) -> Any:
        if spec is UNKNOWN:
            return UNKNOWN
        if spec is None:
            return None
        return spec.get(key, UNKNOWN)

    size = of_spec("buffer_bytes") if recorded else 0
    return {
        "recorded": recorded,
        "shape": of_spec("shape"),
        "padded_shape": of_spec("padded_shape"),
        "dtype": of_spec("dtype"),
        "layout": of_spec("layout"),
        "num_pages": of_spec("num_pages"),
        # an interleaved spec leaves memory_config out: it is its buffer type, interleaved
        "memory_config": of_spec("memory_config") if spec in (None, UNKNOWN) or "memory_config" in spec
        else {"memory_layout": "interleaved", "buffer_type": spec.get("memory")},
        "bytes": 0 if size is None else size,
        "offset": device.get("offset", UNKNOWN),
    }


def same_error(e: Optional[dict], a: Optional[dict]) -> bool:
    """Both runs stopped at the same step with the same words, or neither stopped. A simulated
    error starts with the real library's words and adds meshspec's explanation, so one message
    beginning with the other is the same error; a crash (the process killed, ``"crash": true``) at
    the same step in both is the same whatever each says about it."""
    if e is None or a is None:
        return e is None and a is None
    if e.get("step") != a.get("step"):
        return False
    if e.get("crash") and a.get("crash"):  # the process dies there in both: no words to compare
        return True
    em, am = str(e.get("message", "")), str(a.get("message", ""))
    return em.startswith(am) or am.startswith(em)


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
    exp_t = {t["name"]: t for t in _listed(expected["tensors"])}
    act_t = {t["name"]: t for t in _listed(actual["tensors"])}
    names = list(exp_t) + [n for n in act_t if n not in exp_t]
    e_err, a_err = expected.get("error"), actual.get("error")
    run = () if same_error(e_err, a_err) else (Difference("", None, "error", _error_text(e_err), _error_text(a_err)),)
    return Diff(
        expected["scenario"],
        expected["mesh"],
        expected_label,
        actual_label,
        e_err,
        a_err,
        tuple(_diff_tensor(n, exp_t.get(n), act_t.get(n), compared) for compared in [{}] for n in names),
        run,
    )


def _listed(tensors: list) -> list:
    """``tensors`` with each ``{"same_as": name}`` topology replaced by the one ``name`` lists (the
    same dict): a report made by a run names a big shared topology once (report.py LISTED_ONCE),
    and a saved one is read so already (reports.py); compared or drawn unresolved, the names of
    two tensors were compared, not their topologies, and the table renderer failed on it."""
    topologies: dict = {}
    for t in tensors:
        ref = t["topology"].get("same_as") if "coords" not in t["topology"] else None
        if ref is not None and ref in topologies:
            t["topology"] = topologies[ref]
        topologies[t["name"]] = t["topology"]
    return tensors


def _values_text(v: dict) -> str:
    first = ", ".join(map(str, v.get("first", [])[:4]))
    return f"{v.get('dtype')} {v.get('shape')} [{first}, ...] sha256 {str(v.get('sha256'))[:12]}"


def _error_text(err: Optional[dict]) -> Optional[str]:
    return None if err is None else f"step {err.get('step')} ({err.get('op')}): {err.get('message')}"


def _same_topology(exp: dict, act: dict, compared: dict) -> bool:
    """Whether two topologies are equal, compared once per pair of listed topologies: the tensors
    that share one (get_device_tensors' parts, read back from ``same_as``) share its dict, and
    16,384 parts comparing 16,384 coordinates each took minutes (issue 34)."""
    key = (id(exp), id(act))
    if key not in compared:
        compared[key] = exp == act
    return compared[key]


def _diff_tensor(name: str, exp: Optional[dict], act: Optional[dict], compared: Optional[dict] = None) -> TensorDiff:
    if exp is None or act is None:
        return TensorDiff(name, (), (Difference(name, None, "present", exp is not None, act is not None),))
    diffs = []
    if exp["storage"] != act["storage"]:
        diffs.append(Difference(name, None, "storage", exp["storage"], act["storage"]))
    if not _same_topology(exp["topology"], act["topology"], {} if compared is None else compared):
        diffs.append(Difference(name, None, "topology", exp["topology"], act["topology"]))
    if exp.get("address") is not None and act.get("address") is not None and exp["address"] != act["address"]:
        diffs.append(Difference(name, None, "address", exp["address"], act["address"]))
    ev, av = exp.get("values"), act.get("values")
    if ev and av and ev.get("sha256") != av.get("sha256"):  # compared where both read one array
        diffs.append(Difference(name, None, "values", _values_text(ev), _values_text(av)))
    e_dev = {tuple(d["coord"]): device_fields(d) for d in exp["devices"]}
    a_dev = {tuple(d["coord"]): device_fields(d) for d in act["devices"]}
    rows = []
    empty = {f: None for f in DEVICE_FIELDS} | {"recorded": False, "bytes": 0}
    for coord in sorted(set(e_dev) | set(a_dev)):
        e, a = e_dev.get(coord, empty), a_dev.get(coord, empty)
        rows.append((coord, e, a))
        diffs += [Difference(name, coord, f, e[f], a[f]) for f in DEVICE_FIELDS if not same(e[f], a[f])]
    return TensorDiff(name, tuple(rows), tuple(diffs))


class DiffRefused(ResourceLimit):
    """diff stopped at meshspec's own limit (--max-memory, --max-work): one line, exit 4."""


DIFF_ROW_WORK = 16
"""Work units of a device row diff draws (a rich table row: about 110 us, 20 device ops'
bookkeeping; 262,144 rows with --all ran past 2 minutes, issue 34); a device compared costs 1."""


def bound_diff(where: str, compared: int, drawn: int, limits: dict, row_bytes: int) -> None:
    """Refuse a diff whose comparison of ``compared`` devices and table of ``drawn`` rows (of
    ``row_bytes`` each, render.DEVICE_ENTRY_BYTES) would pass --max-work or --max-memory (counted
    before they are made)."""
    from ..sim.runtime import fmt_bytes

    work = compared + drawn * DIFF_ROW_WORK
    if work > limits["max_work"]:
        raise DiffRefused(f"{where}: the diff of {compared:,} devices, {drawn:,} of them drawn, would take {work:,} work units (one a device "
                          f"compared, {DIFF_ROW_WORK} a row drawn), over meshspec's work bound of {limits['max_work']:,}; raise "
                          "--max-work, or drop --all (only the devices that differ are drawn)")
    need = drawn * row_bytes
    if need > limits["max_memory"]:
        raise DiffRefused(f"{where}: the diff's table of {drawn:,} device rows would need about {fmt_bytes(need)}, over meshspec's memory "
                          f"limit of {fmt_bytes(limits['max_memory'])} (--max-memory; default half the machine's RAM); raise "
                          "--max-memory, or drop --all")


def bound_runs(where: str, reports: list, show_all: bool, limits: dict, json_cost: tuple[int, str], row_bytes: int) -> None:
    """Refuse comparing two runs' reports (diff SCENARIO) that would pass --max-work or
    --max-memory, counted from their devices before either report is made JSON: ``json_cost``
    (render.cost of both as JSON), and the diff's field records of their devices about as much."""
    from ..sim.runtime import fmt_bytes

    devices: dict = {}
    for r in reports:
        for t in r.tensors:
            devices[t.name] = max(devices.get(t.name, 0), len(t.devices))
    compared = sum(devices.values())
    bound_diff(where, compared, compared if show_all else 0, limits, row_bytes)
    need, what = json_cost
    if 2 * need > limits["max_memory"]:
        raise DiffRefused(f"{where}: comparing the two runs ({what}) would need about {fmt_bytes(2 * need)}, over meshspec's memory "
                          f"limit of {fmt_bytes(limits['max_memory'])} (--max-memory; default half the machine's RAM); raise "
                          "--max-memory, or use a smaller mesh or fewer tensors")
