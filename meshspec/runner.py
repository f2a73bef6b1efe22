"""Run a loaded scenario under one profile and build its report.

This is the function a test or a library user calls; the CLI is a thin layer over it.
"""

from __future__ import annotations

import dataclasses

from .errors import ResourceLimit, ScenarioError, StepInputError, TTFatal
from .findings import device_views, findings_of
from .profiles import DEFAULT_PROFILE, get_profile
from .report import Report, StepError, TensorReport
from .runtime import Runtime
from .scenario import LoadedScenario, load
from .tensor import DeviceTensor


def run(scenario: LoadedScenario, profile: str | None = None) -> Report:
    """Execute every step (stopping at the first TT_FATAL) and judge the end state.

    ``profile`` overrides the scenario's own; the default is ``current``.
    """
    prof = get_profile(profile or scenario.profile or DEFAULT_PROFILE)
    rt = Runtime(scenario.mesh_shape, prof, scenario.folder)
    error = None
    ran = 0
    for step in scenario.steps:
        try:
            rt.execute(step)
        except (TTFatal, ResourceLimit, StepInputError) as err:
            error = StepError(step.index, step.op, str(err), step.line)
            break
        ran += 1

    tensors = []
    findings = []
    for name, t in rt.tensors.items():
        views = device_views(t, scenario.mesh_shape)
        storage = t.storage
        if isinstance(t, DeviceTensor):
            spec, topology = t.record.spec, t.record.topology
            if t.freed_step is not None:
                storage = "deallocated"
        else:
            spec, topology = t.spec, t.topology
        tensors.append(TensorReport(name, storage, spec, topology, tuple(views), t.step))
        findings.extend(findings_of(name, t, views, rt.ops))
    findings.extend(rt.events)
    findings.sort(key=lambda f: (f.step if f.step is not None else -1, f.tensor, f.device or ()))
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
        ops=tuple(s.op for s in scenario.steps),
    )
    if scenario.expect is None:
        return report
    from .expect import check

    return dataclasses.replace(report, expect=check(report.to_json(), scenario.expect))


def run_paths(paths, profile: str | None = None) -> list["Report | ScenarioError"]:
    """Load and run each scenario file, in order; an invalid file gives its error, not a raise.

    An unknown ``profile`` is a :class:`~meshspec.errors.UsageError` (raised before any run).
    """
    if profile is not None:
        get_profile(profile)
    out: list[Report | ScenarioError] = []
    for path in paths:
        try:
            scenario = load(path)
        except ScenarioError as err:
            out.append(err)
            continue
        out.append(run(scenario, profile))
    return out
