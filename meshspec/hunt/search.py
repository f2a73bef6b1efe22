"""Where two profiles disagree on a program, why, and the smallest program that still shows it.

A disagreement is a finding under the hunted profile that the other does not report (same kind,
tensor, device and origin step), or a step error in one run and not the other. Its
:class:`Signature` names the finding kind, the profile rule that produces it and the op at its
origin. The rule is found by experiment: the comparison profile with that one rule set as the
hunted profile has it must show the same disagreement (``several`` when no single rule does; a
fault's name when a fault was injected). Shrinking keeps the signature: fewest steps first, then
the smallest mesh, then smaller shapes, then bfloat16.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..errors import MeshspecError
from ..names import file_slug
from ..sim.faults import EXPECTED, Fault
from ..sim.ops import OPS
from ..sim.profiles import RULES, Profile, define, get_profile
from .programs import Program

#: Meshes tried when shrinking, smallest first (as scenarios write them).
SMALLER_MESHES: tuple[list, ...] = ([1, 2], [2, 1], [1, 4], [2, 2], [1, 8], [2, 4], [4, 2], [4, 4], [4, 8], [8, 4])

LABEL_LIMIT = 64
"""The longest profile-pair part of a file name."""

SLUG_LIMIT = 47
"""The longest signature part of a file name (``hunt-<pair>-<signature>-<hash>.yaml``, a name of at
most 128 characters; see hunt.file_name)."""


class Deadline:
    """When a hunt's wall-clock budget runs out: one for the whole hunt, made when it starts and
    passed down, so the search, each shrink and each attribution ask the same clock whether
    it has passed. ``clock`` (seconds, increasing) is :func:`time.monotonic` unless a test gives one.

    >>> now = [0.0]; d = Deadline(30, clock=lambda: now[0])
    >>> d.passed(), (now.__setitem__(0, 30.0), d.passed())[1], Deadline(None).passed()
    (False, True, False)
    """

    def __init__(self, seconds: Optional[float], clock: Callable[[], float] = time.monotonic) -> None:
        self.clock = clock
        self.at = None if seconds is None else clock() + seconds

    def passed(self) -> bool:
        return self.at is not None and self.clock() >= self.at

    def check(self, *_step) -> None:
        """Raise :class:`OutOfTime` once the deadline has passed: called before each program,
        each run and each step of a run (the runner's ``on_step``), so a hunt overruns its
        budget by at most one step of one run."""
        if self.passed():
            raise OutOfTime


class OutOfTime(Exception):
    """The hunt's deadline passed during a search, a shrink or an attribution (caught by hunt)."""


@dataclass(frozen=True, order=True)
class Signature:
    kind: str
    """The finding kind, or ``error`` for a step error only one side has."""
    rule: str
    """``rule=choice`` (the hunted profile's choice), ``several``, or ``fault:KIND``."""
    op: str
    """The op at the finding's origin step (or the failing step)."""

    def __str__(self) -> str:
        return f"{self.kind} / {self.rule} / {self.op}"

    def slug(self) -> str:
        """The signature in a file name: a safe slug (:func:`meshspec.names.file_slug`, with a
        hash when it had to change more than ``= : _`` or is longer than :data:`SLUG_LIMIT`)."""
        text = "-".join(p.replace("=", "-").replace(":", "-").replace("_", "-") for p in (self.kind, self.rule, self.op))
        return file_slug(text, SLUG_LIMIT)


@dataclass
class Target:
    """What is hunted: ``profile`` against ``against`` (names; ``own`` holds user profiles by
    name), optionally with a fault injected into the hunted side."""

    profile: str
    against: str
    own: dict[str, Profile] = field(default_factory=dict)
    fault: Optional[str] = None
    """A fault injected into the hunted side, compared with the same profile unmodified."""
    max_memory: Optional[int] = None
    """Bytes each run may hold (``hunt --max-memory``; None: the runner's default)."""
    max_work: Optional[int] = None
    """Device operations each run may do (``hunt --max-work``; None: the runner's default)."""

    def __post_init__(self) -> None:
        from ..errors import UsageError

        if self.fault is not None and self.fault not in EXPECTED:
            raise UsageError(f"--fault {self.fault!r}: one of {', '.join(EXPECTED)}")
        if self.fault is not None:
            self.against = self.profile
        self.hunted = get_profile(self.profile, self.own)
        self.other = get_profile(self.against, self.own)
        self.rules = [r for r in RULES if self.hunted.rule(r) != self.other.rule(r)]
        self._flips: dict[str, Profile] = {}

    @property
    def label(self) -> str:
        """The pair in file names: ``current-vs-reference``, or ``current-with-skip_write``; made
        safe by :func:`meshspec.names.file_slug` (a user profile's name may hold ``/`` or ``..``,
        or be long: such a label is a slug with a hash of the pair)."""
        return file_slug(f"{self.profile}-with-{self.fault}" if self.fault else f"{self.profile}-vs-{self.against}", LABEL_LIMIT)

    @property
    def bounds(self) -> dict:
        """The runner's bounds for every run of this hunt (:func:`meshspec.runner.run`)."""
        return {"max_memory": self.max_memory, "max_work": self.max_work}

    def own_used(self) -> dict[str, Profile]:
        """The user profiles the pair needs, each after the user profile it is based on."""
        out: dict[str, Profile] = {}
        for wanted in (self.profile, self.against):
            chain = []
            while wanted in self.own and wanted not in out and wanted not in chain:
                chain.append(wanted)
                wanted = self.own[wanted].base or ""
            for name in reversed(chain):
                out[name] = self.own[name]
        return out

    def flipped(self, rule: str) -> Profile:
        """The comparison profile with ``rule`` as the hunted profile has it."""
        if rule not in self._flips:
            name = f"{self.against}+{rule}"
            self._flips[rule] = define(name, self.against, {rule: self.hunted.rule(rule).value}, parent=self.other)
        return self._flips[rule]


def _load(program: Program, profiles: dict):
    from ..scenario.loader import parse

    try:
        scenario = parse(program.text(), Path("hunt.yaml"))
    except MeshspecError:
        return None
    return scenario.replace(profiles={**scenario.profiles, **profiles})


def fault_for(program: Program, kind: str, mesh_shape: tuple[int, ...]) -> Optional[Fault]:
    """The fault injected into a program: at its first write (an op's :attr:`~meshspec.sim.ops.Op.fault_site`),
    on its first device."""
    for i, step in enumerate(program.steps):
        op = next(iter(step))
        if op in OPS and OPS[op].fault_site:
            return Fault(kind, i, tuple(0 for _ in mesh_shape))
    return None


class OverLimit(Exception):
    """A run stopped at meshspec's memory or work bound (``--max-memory``, ``--max-work``): its
    program is no evidence either way; hunt skips it and counts it."""


class Crash(Exception):
    """meshspec itself failed on a program (a bug in meshspec, not a disagreement)."""

    def __init__(self, error: BaseException, fault: Optional[Fault]) -> None:
        super().__init__(f"{type(error).__name__}: {error}")
        self.fault = (fault.kind.value, fault.step, tuple(fault.coord)) if fault is not None else None


def _run(scenario, profile: str, fault: Optional[Fault] = None, deadline: Optional[Deadline] = None, bounds: Optional[dict] = None):
    """The report of one run, under ``bounds`` (:attr:`Target.bounds`); raises :class:`OverLimit`
    when the run stopped at one (its error is meshspec's, not TT-NN's)."""
    from ..runner import run

    try:
        report = run(scenario, profile, fault=fault, on_step=deadline.check if deadline is not None else None, **(bounds or {}))
    except (MeshspecError, OutOfTime):
        if deadline is not None and deadline.passed():
            raise OutOfTime from None
        return None
    except Exception as err:  # noqa: BLE001 - meshspec's own bug: the hunt keeps the program to report
        raise Crash(err, fault) from err
    if report.error is not None and report.error.source == "meshspec":
        raise OverLimit(report.error.message)
    return report


def _keys(report) -> dict[tuple, str]:
    """Finding identity -> the op at its origin; a step error as ('error', step). A lie carried
    into a host tensor by a read (its ``source`` names the device) is the device's finding again,
    not a disagreement of its own."""
    out = {(f.kind.value, f.tensor, f.device, f.step): (f.op or "") for f in report.findings if f.source is None}
    if report.error is not None and report.error.source == "ttnn":
        out[("error", None, None, report.error.step)] = report.error.op
    return out


def disagreements(hunted, other) -> list[tuple[str, str]]:
    """(kind, op) of what the hunted run reports and the other does not, in step order; nothing
    after the step the other run stopped at (what follows a divergence is not a new one)."""
    mine, theirs = _keys(hunted), _keys(other)
    stop = other.error.step if other.error is not None else None
    found = sorted((k for k in mine if k not in theirs and (stop is None or k[3] is None or k[3] <= stop)),
                   key=lambda k: (k[3] if k[3] is not None else -1, k[0]))
    return [(k[0], mine[k]) for k in found]


def silent(hunted, other, scenario) -> list[tuple[str, str]]:
    """Where the two runs report the same but a tensor read back holds other values in each: a
    lie no detector names (``values_differ``, at the op that made the tensor)."""
    def digests(report) -> dict[str, tuple[int, str]]:
        return {t.name: (t.step, t.values["sha256"]) for t in report.tensors
                if t.plain and t.values is not None and t.values.get("sha256")}

    mine, theirs = digests(hunted), digests(other)
    out = []
    for name, (step, sha) in sorted(mine.items(), key=lambda kv: kv[1][0]):
        if name in theirs and theirs[name][1] != sha:
            out.append(("values_differ", scenario.steps[step].op if step < len(scenario.steps) else ""))
    return out[:1]


@dataclass(frozen=True)
class Outcome:
    signatures: tuple[Signature, ...]
    reports: tuple  # (hunted, other)


def judge(program: Program, target: Target, attribute: bool = True, deadline: Optional[Deadline] = None) -> Optional[Outcome]:
    """Run ``program`` on both sides; the signatures of their disagreements (None: it does not
    load). Raises :class:`OutOfTime` when ``deadline`` passes before it is done."""
    profiles = {**target.own, **{f.name: f for f in target._flips.values()}}
    scenario = _load(program, profiles)
    if scenario is None:
        return None
    fault = fault_for(program, target.fault, tuple(scenario.mesh_shape)) if target.fault else None
    if target.fault and fault is None:
        return Outcome((), ())
    hunted = _run(scenario, target.profile, fault, deadline, target.bounds)
    other = _run(scenario, target.profile if target.fault else target.against, None, deadline, target.bounds)
    if hunted is None or other is None:
        return None
    found = disagreements(hunted, other) or silent(hunted, other, scenario)
    if not found:
        return Outcome((), (hunted, other))
    sigs = []
    for kind, op in found:
        if target.fault:
            sigs.append(Signature(kind, f"fault:{target.fault}", op))
        elif attribute:
            sigs.append(Signature(kind, _rule(scenario, target, kind, op, hunted, deadline), op))
        else:
            sigs.append(Signature(kind, "?", op))
    return Outcome(tuple(dict.fromkeys(sigs)), (hunted, other))


def _rule(scenario, target: Target, kind: str, op: str, hunted, deadline: Optional[Deadline] = None) -> str:
    """The one rule whose flip makes the comparison profile show (kind, op) too."""
    for rule in target.rules:
        flip = target.flipped(rule)
        with_flip = scenario.replace(profiles={**scenario.profiles, flip.name: flip})
        report = _run(with_flip, flip.name, None, deadline, target.bounds)
        if report is not None and (kind, op) not in disagreements(hunted, report):
            return f"{rule}={target.hunted.rule(rule).value}"
    return "several"


def attribute(program: Program, target: Target, sig: Signature, deadline: Optional[Deadline] = None) -> Signature:
    """``sig`` with its rule found again on ``program`` (a shrunk program may need fewer rules)."""
    if target.fault:
        return sig
    out = judge(program, target, deadline=deadline)
    again = [s for s in (out.signatures if out is not None else ()) if s.kind == sig.kind and s.op == sig.op]
    return again[0] if again else sig


def shows(program: Program, target: Target, sig: Signature, deadline: Optional[Deadline] = None) -> Optional[Outcome]:
    """Whether ``program`` still shows disagreement ``sig`` (its rule re-checked by one flip): its
    outcome when it does, else None."""
    out = judge(program, target, attribute=False, deadline=deadline)
    if out is None or not any(s.kind == sig.kind and s.op == sig.op for s in out.signatures):
        return None
    if target.fault or sig.rule == "several":
        return out
    rule = sig.rule.split("=")[0]
    scenario = _load(program, {**target.own, target.flipped(rule).name: target.flipped(rule)})
    report = _run(scenario, target.flipped(rule).name, None, deadline, target.bounds) if scenario is not None else None
    return out if report is not None and (sig.kind, sig.op) not in disagreements(out.reports[0], report) else None


def shrink(program: Program, target: Target, sig: Signature, budget: int = 400,
           deadline: Optional[Deadline] = None,
           check: Optional[Callable[[Program], Optional[Outcome]]] = None) -> tuple[Program, bool, Optional[tuple]]:
    """The smallest program that still shows ``sig``: steps removed one at a time while it does,
    then smaller meshes, then a dim's size made smaller in every shape that has it (a host tensor
    and the allocation sized for its shard shrink together), then one shape's dim, then bfloat16
    TILE; until nothing shrinks (at most ``budget`` candidate runs, and not past ``deadline``).
    Returns it, whether the deadline stopped the shrinking (the program is then the smallest found
    by then), and the two reports of the program kept (None: ``program`` itself was kept).
    ``check`` judges a candidate instead of :func:`shows` (``hunt --real``: on the real ttnn)."""
    tries = [0]
    stopped = [False]
    reports: list = [None]

    def keep(candidate: Program) -> bool:
        if stopped[0] or tries[0] >= budget:
            return False
        tries[0] += 1
        try:
            out = check(candidate) if check is not None else shows(candidate, target, sig, deadline)
        except OutOfTime:
            stopped[0] = True
            return False
        except OverLimit:  # a candidate past the bounds shows nothing
            return False
        if out is not None:
            reports[0] = out.reports
        return out is not None

    changed = True
    while changed and tries[0] < budget and not stopped[0]:
        changed = False
        for i in reversed(range(len(program.steps))):  # fewest steps
            if len(program.steps) > 1 and i < len(program.steps):
                cand = Program(program.mesh, program.steps[:i] + program.steps[i + 1 :])
                if keep(cand):
                    program, changed = cand, True
        for mesh in SMALLER_MESHES:  # the smallest mesh
            if _devices(mesh) < _devices(program.mesh) and keep(Program(mesh, program.steps)):
                program, changed = Program(mesh, program.steps), True
                break
        for cand in _together(program):  # a size made smaller everywhere it appears
            if keep(cand):
                program, changed = cand, True
                break
        for i, step in enumerate(program.steps):  # smaller shapes, then bfloat16
            for cand_step in _smaller(step):
                cand = Program(program.mesh, program.steps[:i] + (cand_step,) + program.steps[i + 1 :])
                if keep(cand):
                    program, changed = cand, True
                    break
    return program, stopped[0], reports[0]


def _devices(mesh) -> int:
    from ..sim.mesh import SYSTEMS

    shape = SYSTEMS[mesh].shape if isinstance(mesh, str) else mesh
    n = 1
    for d in shape:
        n *= d
    return n


def _together(program: Program) -> list[Program]:
    """Variants with one (dim, size) made smaller in every shape that has that size at that dim."""
    sizes = sorted({(d, n) for step in program.steps for args in step.values() if isinstance(args.get("shape"), list)
                    for d, n in enumerate(args["shape"]) if n > 1}, key=lambda x: -x[1])
    out = []
    for d, n in sizes:
        for m in sorted({1, 2, n // 2} - {n}):
            if 1 <= m < n:
                steps = tuple({op: {**args, "shape": [m if (i == d and v == n) else v for i, v in enumerate(args["shape"])]}}
                              if isinstance(args.get("shape"), list) else {op: args} for step in program.steps for op, args in step.items())
                out.append(Program(program.mesh, steps))
    return out


def _smaller(step: dict) -> list[dict]:
    """Variants of a step with one dim of its shape smaller, or in bfloat16."""
    op, args = next(iter(step.items()))
    out = []
    shape = args.get("shape")
    if isinstance(shape, list):
        for d, n in enumerate(shape):
            for m in sorted({1, 32, n // 2} - {n}):
                if 1 <= m < n:
                    out.append({op: {**args, "shape": shape[:d] + [m] + shape[d + 1 :]}})
    if "dtype" in args or "layout" in args:  # the default kind: bfloat16 TILE
        out.append({op: {k: v for k, v in args.items() if k not in ("dtype", "layout")}})
    return out
