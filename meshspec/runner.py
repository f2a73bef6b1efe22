"""Run a loaded scenario under one profile and build its report.

This is the function a test or a library user calls; the CLI is a thin layer over it.
"""

from __future__ import annotations

import dataclasses

from .device import MemoryPool
from .modes import Uninitialized
from .errors import ResourceLimit, ScenarioError, StepInputError, TTFatal
from .findings import Finding, device_views, findings_of
from .profiles import DEFAULT_PROFILE, get_profile
from .report import Report, StepError, TensorReport
from .runtime import Runtime
from .scenario import LoadedScenario, load
from .tensor import DeviceTensor, HostTensor
from .trace import StepTrace, record_changes, snapshot


def run(
    scenario: LoadedScenario,
    profile: str | None = None,
    *,
    data: bool = False,
    show_values: int = 0,
    on_step=None,
    with_data: bool | None = None,
    uninitialized: str = "poison",
    max_memory: int | None = None,
    fault=None,
) -> Report:
    """Execute every step (stopping at the first TT_FATAL) and judge the end state.

    ``profile`` overrides the scenario's own; the default is ``current``. The report carries a
    trace: per step, what it wrote and read, how records changed, which findings appeared.
    ``data`` adds, per device tensor, what a reader gets back from each device (the data view).
    ``on_step(index, total, op)`` is called before each step (for a progress bar).
    ``with_data=False`` (or ``data: none`` in the scenario) runs in metadata mode: shapes, records
    and written pages only. ``uninitialized``: poison, zeros or reuse (see device.Uninitialized).
    ``max_memory``: bytes a data-mode run may hold (default: half the machine's RAM).
    """
    prof = get_profile(profile or scenario.profile or DEFAULT_PROFILE)
    rt = Runtime(
        scenario.mesh_shape,
        prof,
        scenario.folder,
        with_data=scenario.with_data if with_data is None else with_data,
        pool=MemoryPool(Uninitialized(uninitialized)),
    )
    if max_memory is not None:
        rt.max_memory = max_memory
    rt.fault = fault
    error = None
    ran = 0
    traces: list[StepTrace] = []
    seen: set[tuple] = set()
    records = snapshot(rt.tensors)
    events_seen = retired_seen = 0
    for step in scenario.steps:
        if on_step is not None:
            on_step(step.index, len(scenario.steps), step.op)
        logged = len(rt.log)
        failure = None
        try:
            rt.execute(step)
        except (TTFatal, ResourceLimit, StepInputError) as err:
            error = StepError(step.index, step.op, str(err), step.line)
            failure = str(err)
        except MemoryError:
            error = StepError(step.index, step.op, OUT_OF_MEMORY, step.line)
            failure = OUT_OF_MEMORY
        entries = rt.log[logged:]
        # A step changes only the tensors it names or writes: judge those alone, so a long
        # scenario costs time in proportion to its length.
        names = set(_touched(step)) | {e[1] for e in entries}
        before = {n: records.pop(n) for n in names if n in records}
        after = snapshot({n: rt.tensors[n] for n in names if n in rt.tensors})
        records.update(after)
        now = [f for n in sorted(names) if n in rt.tensors for f in _findings(rt, n, scenario.mesh_shape)]
        now += rt.events[events_seen:] + rt.retired[retired_seen:]
        events_seen, retired_seen = len(rt.events), len(rt.retired)
        new = tuple(f for f in now if _key(f) not in seen)
        seen.update(_key(f) for f in now)
        traces.append(
            StepTrace(
                step.index,
                step.op,
                step.line,
                _touched(step),
                tuple((e[1], e[2], e[3]) for e in entries if e[0] == "write"),
                tuple((e[1], e[2]) for e in entries if e[0] == "read"),
                tuple(record_changes(before, after)),
                new,
                failure,
            )
        )
        if failure is not None:
            break
        ran += 1

    tensors, findings = _judge(rt, scenario.mesh_shape)
    if data and rt.with_data:
        from .datasummary import summarize_device_tensor

        tensors = [
            dataclasses.replace(t, data=summarize_device_tensor(rt.tensors[t.name], scenario.mesh_shape, show_values))
            if t.storage == "device"
            else t
            for t in tensors
        ]
    report = Report(
        scenario=scenario.name,
        path=str(scenario.path),
        description=scenario.description,
        profile=prof.name,
        mesh=scenario.mesh_shape,
        mesh_name=scenario.mesh_name,
        error=error,
        tensors=tuple(tensors),
        findings=tuple(findings),
        readbacks=tuple(rt.readbacks),
        steps_run=ran,
        steps_total=len(scenario.steps),
        steps=tuple(traces),
    )
    if scenario.expect is None:
        return report
    from .expect import check

    return dataclasses.replace(report, expect=check(report.to_json(), scenario.expect))


def _key(f: Finding) -> tuple:
    return (f.kind, f.tensor, f.device, f.step)


def _touched(step) -> tuple[str, ...]:
    names = [getattr(step.args, f, None) for f in ("src", "dst", "tensor", "as_")]
    return tuple(dict.fromkeys(n for n in names if n))


OUT_OF_MEMORY = (
    "out of memory: the machine could not hold this step's data; run with --no-data (records and written pages "
    "only) or lower --max-memory so meshspec refuses before allocating"
)


def _findings(rt: Runtime, name: str, mesh_shape) -> list[Finding]:
    t = rt.tensors[name]
    return findings_of(name, t, device_views(t, mesh_shape), rt.ops)


def _judge(rt: Runtime, mesh_shape) -> tuple[list[TensorReport], list[Finding]]:
    """Every tensor's per-device view, and every finding: the live tensors' lies, events
    (readback mismatches, use after free) and the lies of tensors that went away."""
    tensors = []
    findings: list[Finding] = []
    for name, t in rt.tensors.items():
        views = device_views(t, mesh_shape)
        storage = t.storage
        if isinstance(t, DeviceTensor):
            spec, topology = t.record.spec, t.record.topology
            if t.freed_step is not None:
                storage = "deallocated"
        else:
            spec, topology = t.spec, t.topology
        plain = isinstance(t, HostTensor) and t.plain
        tensors.append(TensorReport(name, storage, spec, topology, tuple(views), t.step, plain=plain))
        findings.extend(findings_of(name, t, views, rt.ops))
    findings.extend(rt.events)
    keys = {_key(f) for f in findings}
    findings.extend(f for f in rt.retired if _key(f) not in keys)
    findings.sort(key=lambda f: (f.step if f.step is not None else -1, f.tensor, f.device or ()))
    return tensors, findings


def run_paths(paths, profile: str | None = None, *, allow_outside_data: bool = False, **options) -> list["Report | ScenarioError"]:
    """Load and run each scenario file, in order; an invalid file gives its error, not a raise.

    An unknown ``profile`` is a :class:`~meshspec.errors.UsageError` (raised before any run).
    """
    if profile is not None:
        get_profile(profile)
    out: list[Report | ScenarioError] = []
    for path in paths:
        try:
            scenario = load(path, allow_outside_data=allow_outside_data)
        except ScenarioError as err:
            out.append(err)
            continue
        out.append(run(scenario, profile, **options))
    return out
