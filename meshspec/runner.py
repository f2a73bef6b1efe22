"""Run a loaded scenario under one profile and build its report.

This is the function a test or a library user calls; the CLI is a thin layer over it. The runner
drives three parts that know nothing of each other: the simulator executes each step
(:data:`~meshspec.sim.ops.OPS`), the judge turns the simulator's state and events into findings
after each step, and the report is plain data for the renderers.
"""

from __future__ import annotations

from typing import Optional


from .errors import Crash, ResourceLimit, ScenarioError, StepInputError, TTFatal
from .judge.expect import check_report, claimed_sources, compares_named
from .judge.findings import Judge
from .sim.tensor import DeviceTensor
from .judge.trace import record_changes, snapshot, touches
from .report import MeshReport, Report, StepError, StepTrace
from .scenario.loader import LoadedScenario, LoadedStep, load
from .sim.device import MemoryPool
from .sim.chips import Chips
from .sim.mesh import SYSTEMS
from .sim.modes import Uninitialized
from .sim.profiles import DEFAULT_PROFILE, PROFILES, ChipMap, Profile, get_profile
from .sim.runtime import Runtime
from .sim.ops import execute as run_step
from .sim.steps import StepResult
from .sim.words import era_words

OUT_OF_MEMORY = (
    "out of memory: the machine could not hold this step's data; run with --no-data (records and written pages "
    "only) or lower --max-memory so meshspec refuses before allocating"
)


def execute(rt: Runtime, step: LoadedStep) -> StepResult:
    """Execute one step on ``rt`` and say what it did (raises the step's error, if it has one;
    what it did before is then ``rt.last``)."""
    return run_step(rt, step.index, step.op, step.args)


def _banks(system: Optional[str]) -> Optional[tuple[tuple[int, int], int]]:
    s = SYSTEMS.get(system or "t3k")  # a bare shape is Wormhole chips, as a T3K's
    return (s.worker_grid, s.dram_banks) if s is not None and s.worker_grid is not None and s.dram_banks is not None else None


def _chips(system: Optional[str], prof: Profile) -> Optional[Chips]:
    """The chips the scenario's mesh opens on, by the era's ``chip_map`` (None for a bare shape)."""
    s = SYSTEMS.get(system) if system is not None else None
    if s is None:
        return None
    return (s.chips_early_2026 if prof.chip_map is ChipMap.EARLY_2026 else None) or s.chips


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
    max_work: int | None = None,
    fault=None,
    device: Optional[tuple[int, ...]] = None,
    trace: bool = True,
    tensors: bool = True,
) -> Report:
    """Execute every step (stopping at the first TT_FATAL) and judge the end state.

    ``profile`` overrides the scenario's own; the default is ``current``. The report carries a
    trace: per step, what it wrote and read, how records changed, which findings appeared.
    ``data`` adds, per device tensor, what a reader gets back from each device (the data view).
    ``on_step(index, total, op)`` is called before each step (for a progress bar).
    ``with_data=False`` (or ``data: none`` in the scenario) runs in metadata mode: shapes, records
    and written pages only. ``uninitialized``: poison, zeros or reuse (see sim/modes.py).
    ``max_memory``: bytes a run may hold, its data (data mode), device records (both modes) and
    report (default: half the machine's RAM). ``max_work``: work units it may do (a device
    of each buffer, write or read, plus 16 KiB of data moved, or a KiB of block floats: :meth:`~meshspec.sim.runtime.Runtime.charge_work`;
    :data:`~meshspec.sim.runtime.MAX_WORK` by default); past either, the step is refused (exit 4).
    ``fault``: a :class:`~meshspec.sim.faults.Fault` to inject (testing the detectors).
    ``trace=False`` leaves the step trace out (``steps`` is empty) and ``tensors=False`` the
    tensor reports (``tensors`` is empty; findings are judged all the same): ``check`` reads the
    findings and the error, and the tensors only when the expect block names some.
    """
    prof = get_profile(profile or scenario.profile or DEFAULT_PROFILE, scenario.profiles)
    rt = Runtime(
        scenario.mesh_shape,
        prof,
        scenario.folder,
        arch=scenario.arch,
        files=dict(scenario.files),
        with_data=scenario.with_data if with_data is None else with_data,
        pool=MemoryPool(Uninitialized(uninitialized)),
        system_shape=SYSTEMS[scenario.mesh_name].shape if scenario.mesh_name in SYSTEMS else None,
        banks=_banks(scenario.mesh_name),
        hosts=scenario.hosts,
        chips=_chips(scenario.mesh_name, prof),
    )
    if max_memory is not None:
        rt.max_memory = max_memory
    if max_work is not None:
        rt.max_work = max_work
    rt.fault = fault
    judge = Judge(scenario.mesh_shape, rt.ops, lambda t: rt.mesh_of(t).shape if isinstance(t, DeviceTensor) else rt.mesh_shape,
                  claims=_claims(scenario, prof.name, prof.base))
    error = None
    ran = 0
    traces: list[StepTrace] = []
    seen: set[tuple] = set()
    records = snapshot(rt.tensors) if trace else {}
    for step in scenario.steps:
        if on_step is not None:
            on_step(step.index, len(scenario.steps), step.op)
        failure = None
        try:
            done = execute(rt, step)
        except (TTFatal, StepInputError) as err:
            error = StepError(step.index, step.op, era_words(str(err), prof), step.line, crash=isinstance(err, Crash))
            failure = str(err)
        except ResourceLimit as err:
            error = StepError(step.index, step.op, str(err), step.line, source="meshspec")
            failure = str(err)
        except MemoryError:
            error = StepError(step.index, step.op, OUT_OF_MEMORY, step.line, source="meshspec")
            failure = OUT_OF_MEMORY
        if failure is not None:
            done = rt.last
        # A step changes only the tensors it names or touches: judge those alone, so a long
        # scenario costs time in proportion to its length.
        mentioned = step.touched
        # in a fixed order (the step's own names, then the rest by name), so the trace's rows do not
        # follow the string hashes of a set, which differ from one process to the next
        names = dict.fromkeys([*mentioned, *sorted(done.touched)])
        judge.step_index = step.index
        now = judge.step(rt.tensors, list(done.events), names)
        if trace:
            traces.append(_trace_row(step, mentioned, names, rt, records, done, now, seen, failure))
        if failure is not None:
            break
        ran += 1

    reports, findings = judge.result(rt.tensors, _slices_named(scenario.expect), reports=tensors,
                                     compares=compares_named(scenario.expect))
    if data and rt.with_data:
        from .judge.datasummary import summarize_device_tensor

        reports = [
            t.replace(data=summarize_device_tensor(rt.tensors[t.name], scenario.mesh_shape, show_values))
            if t.storage == "device"
            else t
            for t in reports
        ]
    if device is not None:
        reports = _with_cores(reports, rt, tuple(device))
    report = Report(
        scenario=scenario.name,
        path=str(scenario.path),
        description=scenario.description,
        profile=prof.name,
        era=prof.era,
        mesh=scenario.mesh_shape,
        mesh_name=scenario.mesh_name,
        error=error,
        tensors=tuple(reports),
        findings=tuple(findings),
        readbacks=tuple(judge.readbacks),
        steps_run=ran,
        steps_total=len(scenario.steps),
        steps=tuple(traces),
        metadata=not rt.with_data,
        profile_rules={**prof.rules(), "base": prof.base},
        meshes=mesh_reports(rt),
        hosts=rt.hosts,
    )
    if scenario.expect is None:
        return report
    return report.replace(expect=check_report(report, scenario.expect))


def _trace_row(step: LoadedStep, mentioned, names, rt: Runtime, records: dict, done: StepResult, now, seen: set, failure) -> StepTrace:
    """The step's trace row; ``records`` (the snapshot before it) is brought up to date and
    ``seen`` (the findings of earlier steps) gains this step's."""
    before = {n: records.pop(n) for n in names if n in records}
    after = snapshot({n: rt.tensors[n] for n in names if n in rt.tensors})
    records.update(after)
    new = tuple(f for f in now if _key(f) not in seen)
    seen.update(_key(f) for f in now)
    written, read = touches(done)
    return StepTrace(step.index, step.op, step.line, mentioned, written, read, tuple(record_changes(before, after)), new, failure)


def _with_cores(tensors: list, rt: Runtime, device: tuple[int, ...]) -> list:
    """Each sharded device tensor's core view of ``device`` (``meshspec run --device``)."""
    from .errors import UsageError
    from .judge.cores import core_views
    from .sim.mesh import fmt_coord

    shape = tuple(rt.mesh_shape)
    if len(device) != len(shape) or any(not 0 <= x < n for x, n in zip(device, shape)):
        raise UsageError(f"--device {fmt_coord(device)}: not a device of the {'x'.join(map(str, shape))} mesh; give its row and column, "
                         f"e.g. {fmt_coord(tuple(n - 1 for n in shape))}")
    out = []
    for t in tensors:
        live = rt.tensors.get(t.name)
        view = next((v for v in t.devices if v.coord == device), None)
        cores = core_views(live, device, view) if isinstance(live, DeviceTensor) and view is not None else None
        out.append(t.replace(cores=(device, cores)) if cores else t)
    return out


def _claims(scenario: LoadedScenario, profile: str, base: Optional[str]) -> dict[int, str]:
    """Per step, the tensor the expectations say the tensor it binds equals (the last step that
    binds a name: the one whose tensor the expectation reads at the end of the run)."""
    claimed = claimed_sources(scenario.expect, profile, base) if scenario.expect is not None else {}
    if not claimed:
        return {}
    last = {getattr(s.args, "as_", None): s.index for s in scenario.steps}
    return {last[name]: source for name, source in claimed.items() if name in last}


def _slices_named(expect) -> dict[str, tuple[str, ...]]:
    """Per tensor, the slices an expectation compares values with (``equals: {tensor, slice}``)."""
    if expect is None:
        return {}
    out: dict[str, list[str]] = {}
    entries = [expect.tensors or {}] + [p.tensors or {} for p in (expect.profiles or {}).values()]
    for tensors in entries:
        for te in tensors.values():
            eq = te.values.equals if te.values is not None else None
            if eq is not None and not isinstance(eq, str) and eq.slice is not None:
                out.setdefault(eq.tensor, []).append(eq.slice)
    return {k: tuple(dict.fromkeys(v)) for k, v in out.items()}


def _key(f) -> tuple:
    return (f.kind, f.tensor, f.device, f.step)


def mesh_reports(rt) -> tuple[MeshReport, ...]:
    """The run's mesh devices at its end: the scenario's, then the submeshes in the order made."""
    out = []
    for name, m in rt.meshes.items():
        if m.parent is None:
            out.append(MeshReport(name, m.shape, device_ids=m.ids))
        else:
            out.append(MeshReport(name, m.shape, m.parent.name, m.offset, m.at, m.ids,
                                  made_shape=m.made_shape if m.made_shape != m.shape else None))
    return tuple(out)


def missing_profile(scenario: LoadedScenario, profile: str | None) -> ScenarioError | None:
    """The error for a ``--profile`` that neither meshspec nor ``scenario`` defines (another file
    given with it may: a profile a scenario defines is that file's alone), else None."""
    if profile is None or profile == "all" or profile in PROFILES or profile in scenario.profiles:
        return None
    own = f"it defines {', '.join(scenario.profiles)}" if scenario.profiles else "it defines none"
    return ScenarioError(
        f"does not define profile {profile!r} ({own}; meshspec's are {', '.join(PROFILES)}); the profiles a file "
        "defines are its own: copy the definition into this file to use it here",
        str(scenario.path),
    )


def run_paths(paths, profile: str | None = None, *, allow_outside_data: bool = False, **options) -> list["Report | ScenarioError"]:
    """Load and run each scenario file, in order; an invalid file gives its error, not a raise.

    ``profile`` ``all`` runs each scenario under every profile, its own included; an unknown one is
    a :class:`~meshspec.errors.UsageError`.
    """
    out: list[Report | ScenarioError] = []
    for path in paths:
        try:
            scenario = load(path, allow_outside_data=allow_outside_data)
        except ScenarioError as err:
            out.append(err)
            continue
        if profile == "all":  # every profile: meshspec's and the scenario's own
            out += [run(case, p, **options) for case in scenario.cases or (scenario,) for p in (*PROFILES, *scenario.profiles)]
            continue
        missing = missing_profile(scenario, profile)
        if missing is not None:  # another file given defines it (the CLI checked), this one does not
            out.append(missing)
            continue
        out += [run(case, profile, **options) for case in scenario.cases or (scenario,)]  # a matrix: each case
    return out
