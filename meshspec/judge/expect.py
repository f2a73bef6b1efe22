"""Check a run against a scenario's ``expect`` block.

Works on the report's JSON form (``meshspec.report/1``), the one view every consumer shares
(:func:`check_report`: on the entries of it that an expect block reads). Rules:

- the profile's entry (or ``default``) is used; with neither, the run must be clean (no findings,
  no error);
- ``findings`` is an exact set: every pattern must match a finding (on the keys it gives) and
  every finding must match a pattern; absent, findings are not checked;
- ``error`` is a substring of the step error; null or absent, the run must not stop on an error;
- ``tensors`` (top level, and the profile's own) check only the keys given.

Each mismatch is one line naming the tensor, the device and the field.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Optional, Union

from ..report import ExpectResult, Report
from ..scenario.model import DeviceExpect, ErrorMatch, Expect, FindingExpect, ProfileExpect, TensorExpect, ValuesExpect
from ..sim.mesh import fmt_coord, parse_coord
from ..sim.spec import BufferType, memory_config_json
from ..typed import as_dict, given, validate
from .values import Compare


def profile_entry(expect: Optional[Expect], profile: str, base: Optional[str] = None) -> Optional[ProfileExpect]:
    """The expectations for ``profile``: its own entry, else its base's (a profile that changes one
    rule of another expects what that one expects unless told otherwise), else ``default``."""
    if expect is None or not expect.profiles:
        return None
    for name in (profile, base, "default"):
        if name is not None and name in expect.profiles:
            return expect.profiles[name]
    return None


def named_profiles(expect: Optional[Expect]) -> list[str]:
    """Profiles an expect block names explicitly (not ``default``), in file order."""
    if expect is None or not expect.profiles:
        return []
    return [p for p in expect.profiles if p != "default"]


def names_tensors(expect: Optional[Expect]) -> bool:
    """Whether the block expects anything of a tensor (top level or in a profile's entry): only
    then does checking need the report's tensors."""
    if expect is None:
        return False
    return bool(expect.tensors) or any(p.tensors for p in (expect.profiles or {}).values())


def check(report: dict, expect: Optional[Expect]) -> ExpectResult:
    """Every way ``report`` (report JSON) differs from ``expect`` under the report's profile."""
    return _check(report, expect, profile_entry(expect, report["profile"], (report.get("profile_rules") or {}).get("base")))


def check_report(report: Report, expect: Optional[Expect]) -> ExpectResult:
    """:func:`check` of a run's report, made into JSON only as far as ``expect`` reads it: its
    error, its findings and the tensors the expectations name (:meth:`Report.checked_json`). Made
    into whole JSON (readbacks, meshes, summary, every tensor) and checked, a small scenario's
    report cost 133,000 instructions; this, 85,000."""
    entry = profile_entry(expect, report.profile, (report.profile_rules or {}).get("base"))
    return _check(report.checked_json(_tensors_read(expect, entry)), expect, entry)


def _check(report: dict, expect: Optional[Expect], entry: Optional[ProfileExpect]) -> ExpectResult:
    """:func:`check` with the profile's entry found."""
    out: list[str] = []
    out += _check_error(report, entry.error if entry else None)
    if entry is None:
        out += _check_findings(report["findings"], [])
    elif entry.findings is not None:
        out += _check_findings(report["findings"], entry.findings)
    if entry is not None and entry.device_ids is not None:
        out += _check_device_ids(report.get("meshes") or [], entry.device_ids)
    tensors = _merged_tensors(expect, entry)
    if tensors:
        by_name = {t["name"]: t for t in report["tensors"]}
        by_name["__metadata__"] = report.get("metadata_mode")  # type: ignore[assignment]
        for name, te in tensors.items():
            out += _check_tensor(name, by_name.get(name), te, by_name)
    return ExpectResult(report["profile"], tuple(out))


def _check_device_ids(meshes: list[dict], want: dict[str, list[int]]) -> list[str]:
    """Each named mesh's ``get_device_ids()`` against the expected list."""
    got = {m["name"]: m.get("device_ids") for m in meshes}
    out = []
    for name, ids in want.items():
        if name not in got:
            out.append(f"device_ids: no mesh device {name!r} (the run's: {', '.join(got) or 'none'})")
        elif got[name] is None:
            out.append(f"device_ids: {name}'s ids are not known (a bare mesh shape: name a system, e.g. mesh: t3k)")
        elif list(got[name]) != list(ids):
            out.append(f"device_ids: {name} is on devices {list(got[name])}, expected {list(ids)}")
    return out


def _tensor_sources(expect: Optional[Expect], entry: Optional[ProfileExpect]) -> list[dict[str, TensorExpect]]:
    """The tensor expectations that hold under ``entry``: the top level's, then the profile's own
    (those given)."""
    return [source for source in ((expect.tensors if expect else None), (entry.tensors if entry else None)) if source]


def _tensors_read(expect: Optional[Expect], entry: Optional[ProfileExpect]) -> set[str]:
    """The tensors an expectation reads: those it names and those whose values it compares with."""
    names: set[str] = set()
    for source in _tensor_sources(expect, entry):
        for name, te in source.items():
            names.add(name)
            names.update(r.other for r in comparisons(te.values))
    return names


def comparisons(ve: Optional[ValuesExpect]) -> list[Compare]:
    """The comparisons of values ``ve`` asks for (``equals``, ``pcc``, ``allclose``), as the judge
    makes them (meshspec/judge/values.py)."""
    if ve is None:
        return []
    out = []
    for kind, given in (("equals", ve.equals), ("pcc", ve.pcc and ve.pcc.golden), ("allclose", ve.allclose and ve.allclose.other)):
        if given is None:
            continue
        other, sl = (given, None) if isinstance(given, str) else (given.tensor, given.slice)
        if kind == "allclose":
            out.append(Compare(kind, other, sl, float(ve.allclose.rtol), float(ve.allclose.atol), ve.allclose.equal_nan))
        else:
            out.append(Compare(kind, other, sl))
    return out


def compares_named(expect: Optional[Expect]) -> dict[str, tuple[Compare, ...]]:
    """Per tensor, every comparison of its values the block asks for, under any profile: the
    judge makes them at the end of a run, and the check reads their results in the report."""
    if expect is None:
        return {}
    out: dict[str, list[Compare]] = {}
    for tensors in [expect.tensors or {}] + [p.tensors or {} for p in (expect.profiles or {}).values()]:
        for name, te in tensors.items():
            for c in comparisons(te.values):
                out.setdefault(name, []).append(c)
    return {name: tuple(dict.fromkeys(cs)) for name, cs in out.items()}


def claimed_sources(expect: Optional[Expect], profile: str, base: Optional[str] = None) -> dict[str, str]:
    """Per tensor, the tensor the expectations under ``profile`` say it equals as a whole
    (``values: {equals: NAME}``, or ``{tensor: NAME}`` with no slice): the claim that makes a
    composition laid out otherwise than its source a ``data_mismatch`` (docs/semantics.md section 5)."""
    entry = profile_entry(expect, profile, base)
    if not any(te.values is not None and te.values.equals is not None for source in _tensor_sources(expect, entry) for te in source.values()):
        return {}  # the usual block (findings, records): nothing merged for nothing
    out = {}
    for name, te in _merged_tensors(expect, entry).items():
        eq = te.values.equals if te.values is not None else None
        if isinstance(eq, str):
            out[name] = eq
        elif eq is not None and eq.slice is None:
            out[name] = eq.tensor
    return out


def _merged_tensors(expect: Optional[Expect], entry: Optional[ProfileExpect]) -> dict[str, TensorExpect]:
    """Top-level tensor expectations with the profile's on top, key by key (and device by device):
    a profile adds to or overrides what holds for every profile, it does not drop it."""
    sources = _tensor_sources(expect, entry)
    if not sources:  # the usual case
        return {}
    out: dict[str, dict] = {}
    for source in sources:
        for name, te in source.items():
            merged = out.setdefault(name, {})
            fields = as_dict(te, only_given=True)
            devices = fields.pop("devices", None)
            merged.update(fields)
            for key, device in (devices or {}).items():
                merged.setdefault("devices", {}).setdefault(key, {}).update(device)
    return {name: validate(TensorExpect, fields) for name, fields in out.items()}


def _check_error(report: dict, expected: Optional[Union[str, ErrorMatch]]) -> list[str]:
    err = report["error"]
    if expected is None:
        if err:
            return [f"unexpected error at step {err['step']} ({err['op']}): {err['message']}"]
        return []
    if isinstance(expected, ErrorMatch):
        wanted = f"an error matching {expected.match!r}"
        with warnings.catch_warnings():  # compiled again if re's cache let it go: no FutureWarning on stderr
            warnings.simplefilter("ignore")
            ok = err is not None and re.search(expected.match, err["message"]) is not None
        said = "does not match"
        shown = repr(expected.match)
    else:
        wanted = f"an error containing {expected!r}"
        ok = err is not None and expected in err["message"]
        said = "does not contain"
        shown = repr(expected)
    if not err:
        return [f"expected {wanted}; the run had none"]
    if not ok:
        return [f"error at step {err['step']} ({err['op']}) {said} {shown}: {err['message']}"]
    return []


PATTERN_KEYS = ("kind", "tensor", "device", "step")


def _key_of(finding: dict, keys: tuple[str, ...]) -> tuple:
    if keys is PATTERN_KEYS:  # every key (the usual pattern): no loop over the names
        device = finding["device"]
        return finding["kind"], finding["tensor"], tuple(device) if device is not None else None, finding["step"]
    # (a list, not a generator, made into the tuple: 2,300 of its 7,800 instructions)
    return tuple([tuple(finding[k]) if k == "device" and finding[k] is not None else finding[k] for k in keys])


def _pattern_key(pattern: FindingExpect) -> tuple[tuple[str, ...], tuple]:
    """The keys a pattern gives and its values on them (a pattern matches every finding equal there).
    One pass over the keys (two generators took 14,600 instructions a pattern, this 6,400)."""
    kind, tensor, device, step = pattern.kind, pattern.tensor, pattern.device, pattern.step
    if kind is not None and tensor is not None and device is not None and step is not None:
        return PATTERN_KEYS, (kind, tensor, tuple(device), step)  # every key given (the usual pattern): 5,000 instructions less
    keys, values = [], []
    for k in PATTERN_KEYS:
        value = getattr(pattern, k)
        if value is not None:
            keys.append(k)
            values.append(tuple(value) if k == "device" else value)
    return tuple(keys), tuple(values)


def _fmt_pattern(p: FindingExpect) -> str:
    parts = [f"{k}: {v}" for k, v in as_dict(p).items() if v is not None]
    return "{" + ", ".join(parts) + "}"


def _fmt_finding(f: dict) -> str:
    device = f" {fmt_coord(tuple(f['device']))}" if f["device"] is not None else ""
    return f"{f['kind']} {f['tensor']}{device} (step {f['step']})"


def _check_findings(findings: list[dict], patterns: list[FindingExpect]) -> list[str]:
    """Every finding must match some pattern, every pattern some finding. Patterns are grouped by
    the keys they give (at most 16 groups), so this is linear in findings plus patterns."""
    by_keys: dict[tuple[str, ...], set[tuple]] = {}
    keyed = [(p, *_pattern_key(p)) for p in patterns]
    for _, keys, values in keyed:
        by_keys.setdefault(keys, set()).add(values)
    seen: dict[tuple[str, ...], set[tuple]] = {keys: set() for keys in by_keys}
    out = []
    for f in findings:
        matched = False
        for keys, wanted in by_keys.items():
            key = _key_of(f, keys)
            seen[keys].add(key)
            matched = matched or key in wanted
        if not matched:
            out.append(f"unexpected finding: {_fmt_finding(f)}: {f['message']}")
    for p, keys, values in keyed:
        if values not in seen[keys]:
            out.append(f"missing finding {_fmt_pattern(p)}")
    return out


def _check_values(name: str, tensor: dict, ve, by_name: dict) -> list[str]:
    """Values expectations, from the report alone (its tensors' values: sha256, first, slices)."""
    got = tensor.get("values")
    if got is None:
        why = "metadata mode has no values" if by_name.get("__metadata__") else "it holds no single array (several shards: compose it)"
        return [f"{name}: values: expected values, but the report has none ({why})"]
    out = []
    if ve.sha256 is not None and got["sha256"] != ve.sha256:
        out.append(f"{name}: values: sha256 expected {ve.sha256}, got {got['sha256']}")
    if ve.first is not None:
        have = got["first"][: len(ve.first)]
        if have != list(ve.first):
            out.append(f"{name}: values: first {len(ve.first)} expected {list(ve.first)}, got {have}")
    results = got.get("compared") or {}
    for c in comparisons(ve):
        what = f"{c.other}{c.slice or ''}"
        ref = by_name.get(c.other)
        ref_values = ref.get("values") if ref is not None else None
        if ref_values is None:
            out.append(f"{name}: values: {c.other} holds no single array to compare with")
            continue
        if c.slice is not None and c.kind == "equals" and c.slice not in (ref_values.get("slices") or {}):
            out.append(f"{name}: values: the slice {c.slice} of {c.other} does not fit its shape {ref_values['shape']}")
            continue
        result = results.get(c.key)
        if c.kind == "equals" and result is None:
            target = ref_values if c.slice is None else ref_values["slices"][c.slice]
            if target["shape"] != got["shape"]:
                out.append(f"{name}: values: expected {what}, shape {target['shape']}; got shape {got['shape']}")
            elif target["sha256"] != got["sha256"]:
                out.append(f"{name}: values: expected the values of {what}; they differ (their bytes: a dtype apart?)")
            continue
        if result is None:
            out.append(f"{name}: values: the report holds no {c.kind} comparison with {what} (a run makes it: run the scenario)")
        elif "unfit" in result:
            out.append(f"{name}: values: the slice {c.slice} of {c.other} does not fit its shape {result['unfit']}")
        elif "shape" in result:
            out.append(f"{name}: values: expected {what}, shape {result['shape']}; got shape {got['shape']}")
        elif c.kind == "equals":
            nan = f"; {result['nan']:,} of them NaN on both sides (torch.equal: NaN equals nothing)" if result.get("nan") else ""
            out.append(f"{name}: values: expected the values of {what}; {_where_differ(result)}{nan}")
        elif c.kind == "pcc":
            want = ve.pcc.pcc  # type: ignore[union-attr]
            if result["pcc"] < want:
                out.append(f"{name}: values: comp_pcc({what}, {name}) is {result['pcc']:.6g}, below {want}; {_where_differ(result)}")
        elif result["failing"]:
            a = ve.allclose  # type: ignore[union-attr]
            out.append(f"{name}: values: not allclose to {what} (rtol={a.rtol}, atol={a.atol}): {_where_differ(result)}")
    return out


def _where_differ(result: dict) -> str:
    """``3 of 1024 elements differ; the worst at [0, 0, 5, 7] on device (1,3): 9.0, expected 4.0
    (difference 5.0, allowed 0.4)``: where and by how much, from a comparison's result."""
    n, total = result["failing"], result["elements"]
    if not n:
        return f"no element differs (of {total})"
    w = result["worst"]
    device = f" on device {fmt_coord(tuple(w['device']))}" if w.get("device") is not None else ""
    allowed = f", allowed {w['allowed']}" if "allowed" in w else ""
    return (f"{n:,} of {total:,} elements differ; the worst at {w['index']}{device}: {w['actual']}, expected {w['golden']} "
            f"(difference {w['diff']}{allowed})")


def _check_tensor(name: str, tensor: Optional[dict], te: TensorExpect, by_name: Optional[dict] = None) -> list[str]:
    if tensor is None:
        return [f"{name}: expected a tensor named {name!r}; the run has none"]
    out = []
    if te.values is not None:
        out += _check_values(name, tensor, te.values, by_name or {})
    set_keys = given(te)
    devices = {tuple(d["coord"]): d for d in tensor["devices"]}
    recorded = [tuple(d["coord"]) for d in tensor["devices"] if d["recorded"]]
    if "storage" in set_keys and tensor["storage"] != te.storage:
        out.append(f"{name}: storage: expected {te.storage}, got {tensor['storage']}")
    if "storage_kind" in set_keys and tensor["storage_kind"] != te.storage_kind:
        out.append(f"{name}: storage_kind: expected {te.storage_kind}, got {tensor['storage_kind']}")
    if "recorded" in set_keys:
        want = [tuple(c) for c in te.recorded or []]
        if sorted(want) != sorted(recorded):
            extra = sorted(set(recorded) - set(want))
            gone = sorted(set(want) - set(recorded))
            detail = "; ".join(
                s
                for s in (
                    f"also recorded: {', '.join(fmt_coord(c) for c in extra)}" if extra else "",
                    f"not recorded: {', '.join(fmt_coord(c) for c in gone)}" if gone else "",
                )
                if s
            )
            out.append(f"{name}: recorded devices differ ({detail})")
    if "distribution_shape" in set_keys and tensor["topology"]["distribution_shape"] != te.distribution_shape:
        out.append(
            f"{name}: distribution_shape: expected {te.distribution_shape}, got {tensor['topology']['distribution_shape']}"
        )
    for field in ("shape", "dtype", "layout"):
        if field not in set_keys:
            continue
        want = _plain(getattr(te, field))
        for c in recorded:
            got = (devices[c]["spec"] or {}).get(field)
            if got != want:
                out.append(f"{name} {fmt_coord(c)}: {field}: expected {want}, got {got}")
    for key, de in (te.devices or {}).items():
        coord = parse_coord(key)
        d = devices.get(coord)
        if d is None:
            out.append(f"{name} {fmt_coord(coord)}: expected a device entry; the tensor has none there")
            continue
        out += _check_device(f"{name} {fmt_coord(coord)}", d, de)
    return out


def _memory_config(config: Any) -> Any:
    """An expected memory_config in the form a report prints (a sharded constant without a shard
    spec, which no spec can have, as its words)."""
    from ..errors import TTFatal
    from ..sim.ops.fields import memory_of

    try:
        return memory_config_json(*memory_of(config))
    except TTFatal as err:
        return str(err)


def _plain(value: Any) -> Any:
    return value.value if hasattr(value, "value") else value


def _device_field(d: dict, field: str) -> Any:
    if field in ("recorded", "status", "written_bytes", "offset"):
        return d[field]
    spec = d["spec"] or {}
    if field == "memory_config" and spec:
        return spec.get("memory_config") or memory_config_json(BufferType(spec["memory"]), None)
    return spec.get(field)


def _check_device(where: str, d: dict, de: DeviceExpect) -> list[str]:
    out = []
    for field in DeviceExpect.fields():
        if field not in given(de):
            continue
        want = _plain(getattr(de, field)) if field != "memory_config" else _memory_config(de.memory_config)
        got = _device_field(d, field)
        if got != want:
            out.append(f"{where}: {field}: expected {_fmt(want)}, got {_fmt(got)}")
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return "null" if value is None else str(value)
