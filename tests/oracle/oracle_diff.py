"""Run a scenario through meshspec and through the naive model (naive.py), and list where their
verdicts differ (naive.py's docstring says which verdicts are compared and how).

meshspec runs it as ``meshspec run --profile P`` would (:func:`meshspec.runner.run`); the only
thing taken from that run besides its report is what the runtime records before each step, read
off ``rt.tensors`` by wrapping :func:`meshspec.runner.execute` for the length of the run.

A disagreement is a tuple ``(category, detail)``; the categories:

- ``status:NAIVE/MESHSPEC:OP``: a device's status differs (naive's first) on a tensor OP's step bound;
- ``KIND:missed:OP:STATUS``: an op output device read never-written bytes and meshspec reports
  neither ``stale_input`` nor ``uninitialized_read`` on it (KIND the one the naive model expects,
  :func:`naive.expected_kind`; OP ``gather`` or ``per_device``; STATUS the input device's naive status);
- ``kind:NAIVE/MESHSPEC``: meshspec reports the other of the two kinds than the naive model expects;
- ``KIND:wrong_input``: meshspec reports KIND naming an input device the naive model saw no
  never-written (or superseded) read of on that output device;
- ``crash:OP:ERROR``: meshspec raised ERROR (a Python exception, not a step error) at a step of OP;
- ``naive_crash:OP:ERROR``: the naive model raised ERROR at a step of OP (a bug of the naive model's);
- ``KIND:unsupported``: meshspec reports ``stale_input`` on an output device whose every read was
  of the inputs' current content, or ``uninitialized_read`` on one that read no never-written byte,
  or either on a device no op wrote in the naive model.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import meshspec.runner as runner
from meshspec.hunt.programs import HOST_OPS
from meshspec.sim.profiles import PROFILES, RULES, define, get_profile

from naive import Model, Unmodelled, expected_kind, records_of, statuses

READ_KINDS = ("stale_input", "uninitialized_read")
"""The findings about what an op read (naive.py's docstring (b))."""

PROFILE_NAMES = tuple(PROFILES)

ERA_RULES = (
    "gather_padding", "ccl_padding", "tensor_file", "to_device_record", "read_buffers", "host_borrow", "unit_mesh",
    "shard_grid", "uneven_row_major_shards", "dram_grid_rows", "bank_check", "replicated_distribution", "plain_to_device",
    "block_float_mapper", "host_shard_ops", "ccl_links", "chip_map", "reshape_order", "print_coords", "visualize_remote",
    "graph_capture", "write_pinning", "topology_update",
    "freed_transfer", "handles",
)
"""The rules of issue 36 (docs/semantics.md section 6's second table, gather_padding's section 22 and
ccl_padding with it): each choice other than current's is an era profile of its own (:func:`eras`)."""


def eras(rules: tuple[str, ...] = ERA_RULES) -> dict[str, dict]:
    """Each era profile, ``RULE.CHOICE``, as a scenario defines it: current with that one rule set to
    a choice other than current's (``{base: current, RULE: CHOICE}``)."""
    current = PROFILES["current"]
    return {f"{rule}.{c.value}": {"base": "current", rule: c.value}
            for rule in rules for c in RULES[rule].choices if c is not current.rule(rule)}


ERAS = eras()
"""Every era profile of :data:`ERA_RULES`, by name."""

_FEWER = ("add(a, b) where b records fewer devices than a but keeps specs on more: ttnn runs a device op on the devices of "
          "the input that records fewer (extract_tensor_coordinates, ttnn/api/ttnn/mesh_device_operation_utils.hpp @ 021df86f; "
          "the output keeps those, filter_tensor_shards), but sim/ops/elementwise._binary runs on a's recorded devices where "
          "both inputs keep a spec.")

_UNEVEN = ("a device op of an input whose devices record different shapes (uneven shards: uniform-by-value, unpopulated) "
           "computes each device's output from that device's own tensor (docs/semantics.md section 12, slice / concat / pad and "
           "'Per-device compute'; neg, transpose, sum ... do), but sim/ops/slicing._each_device (slice, concat, pad) and "
           "sim/ops/elementwise.matmul (matmul, linear) take the output spec from the first input's tensor spec on every device: "
           "metadata mode records and writes that whole spec where the device's own output is smaller "
           "(cases/uneven-shards-tensor-spec-outputs.yaml); data mode fails with a Python ValueError in sim/pages.physical "
           "(cases/uneven-shards-*-data.yaml; views.per_device's reshape too)")

_BIAS = ("linear whose bias has the output's columns but rows that do not broadcast to it: meshspec takes the step in metadata "
         "mode and fails with numpy's ValueError in data mode (sim/ops/elementwise.matmul, the bias add), where ttnn 0.81.1 "
         "checks nothing on the host (tests/oracle/mock_linear_bias.py) (cases/linear-bias-not-broadcasting.yaml)")

OPEN: dict[str, str] = {}
"""Disagreements open today, each with a strict xfail case in tests/oracle/cases/ (test_oracle_cases.CASES):
none. The two classes found when the oracle's programs took every device op (WIDE_VOCABULARY), _UNEVEN
and _BIAS, are gone (every device read as the tensor's spec and one output spec; the bias refused in
meshspec's words); their cases stay as regression cases."""

DOWNSTREAM: dict[str, str] = {}
"""Categories that programs show only downstream of an open class (the op itself agrees: its own
cases are clean); known while that class is open."""

_GONE = """Gone, their cases kept as regression cases: the never-written reads meshspec missed (its provenance
of reads, docs/semantics.md section 12, "What an op read"), status:shape_mismatch/ok (a gather of
uneven shards sized its output per group; now the tensor spec times the ring),
status:missing_spec/empty (a copy under current gave newly recorded devices no spec), and the six
classes of an add run on a's devices where b records fewer (now the op's workload is the input
recording the fewest, output.workload, as ttnn's extract_tensor_coordinates)."""

KNOWN = dict(OPEN, **DOWNSTREAM)


@contextmanager
def _recording(snapshots: list):
    """Keep, after each step meshspec executes, its runtime's records (``snapshots[i]`` after step i)."""
    real = runner.execute

    def execute(rt, step):
        try:
            return real(rt, step)
        finally:
            snapshots.append(records_of(rt.tensors))

    runner.execute = execute
    try:
        yield
    finally:
        runner.execute = real


_READ = re.compile(r"read (\S+) \(([\d, ]+)\)")


def _input_named(message: str) -> Optional[tuple[str, tuple[int, ...]]]:
    """The input device a stale_input message names (``... read x (1, 3), which ...``); the finding
    has no field for it (yet), so its text is read.

    >>> _input_named("y (1, 0): all_gather at step 1 read x (1, 3), which was stale then"), _input_named("read x (2,), which")
    (('x', (1, 3)), ('x', (2,)))
    """
    m = _READ.search(message)
    if m is None:
        return None
    return m.group(1), tuple(int(v) for v in m.group(2).split(",") if v.strip())


@dataclass
class Outcome:
    profile: str
    skipped: Optional[str] = None
    """The op the naive model does not know, if it skipped the program."""
    disagreements: list[tuple[str, str]] = field(default_factory=list)
    compared: int = 0
    """Device statuses and op output devices compared."""
    kinds: dict = field(default_factory=dict)
    """Kind of finding -> op output devices the naive model required it on (each compared)."""
    ops: list = field(default_factory=list)
    """The op of each step both models ran."""
    on_host: list = field(default_factory=list)
    """The op of each of those steps that ran on a host tensor (programs.HOST_OPS)."""


def check(scenario, steps: list[dict], profile: str, *, with_data: Optional[bool] = None, fault=None) -> Outcome:
    """Run ``scenario`` (loaded; ``steps`` its steps as written) under ``profile`` and compare
    (``fault``: a :class:`~meshspec.sim.faults.Fault` injected into meshspec's run)."""
    prof = get_profile(profile, scenario.profiles)
    snapshots: list = []
    out = Outcome(profile)
    try:
        with _recording(snapshots):
            report = runner.run(scenario, profile, with_data=with_data, trace=False, fault=fault)
    except Exception as err:  # meshspec itself failed (a traceback a user would see): a class of its own
        op = next(iter(steps[len(snapshots) - 1])) if snapshots else "?"
        out.disagreements.append((f"crash:{op}:{type(err).__name__}", f"step {len(snapshots) - 1}: {err}"))
        return out
    model = Model(tuple(scenario.mesh_shape), ccl_padded=prof.ccl_padding.value == "padded",
                  gather_padded=prof.gather_padding.value == "padded",
                  ccl_tensor=prof.ccl_devices.value == "tensor",
                  grids_unchecked=prof.dram_grid_rows.value == "aliased" or prof.bank_check.value == "unchecked",
                  block_float_padded=prof.block_float_mapper.value == "padded",
                  tensor_file=prof.tensor_file.value)
    ran = report.steps_run if report.error is None else report.error.step  # a failing step changes nothing naive
    before: dict = {}
    try:
        for i in range(ran):
            model.step(i, steps[i], before)
            before = snapshots[i]
    except Unmodelled as err:
        out.skipped = str(err)
        return out
    except Exception as err:  # the naive model failed: a bug of its own, a class of its own
        out.disagreements.append((f"naive_crash:{next(iter(steps[i]))}:{type(err).__name__}", f"step {i}: {err!r}"))
        return out
    final = snapshots[-1] if snapshots else {}
    out.ops = [next(iter(steps[i])) for i in range(ran)]
    out.on_host = [op for i, op in enumerate(out.ops) if op in HOST_OPS and steps[i][op].get("tensor") not in (snapshots[i - 1] if i else {})]

    # (a) device statuses of the tensors alive at the end
    views = {(t.name, v.coord): v.status.value for t in report.tensors if t.storage == "device" for v in t.devices}
    for key, naive_status in statuses(model, final).items():
        theirs = views.get(key)
        if theirs is None:
            continue
        out.compared += 1
        if theirs != naive_status:
            out.disagreements.append((f"status:{naive_status}/{theirs}:{model.made.get(key[0], '?')}", f"{key[0]} {key[1]}"))

    # (b) never-written reads against stale_input and uninitialized_read findings
    live = {n for n, b in model.handles.items() if not b.freed}
    found: dict[tuple, list] = {}
    for f in report.findings:
        if f.kind.value in READ_KINDS and f.tensor in live:
            found.setdefault((f.tensor, f.device), []).append((f.kind.value, _input_named(f.message)))
    by_output: dict[tuple, list] = {}
    for r in model.reads:
        if r.out in live:
            by_output.setdefault((r.out, r.out_device), []).append(r)
    for key, reads in by_output.items():
        out.compared += 1
        never = [r for r in reads if r.never_written]
        maybe = {(r.input, r.in_device) for r in reads if r.not_current}
        want = expected_kind(reads)
        if want is not None:
            out.kinds[want] = out.kinds.get(want, 0) + 1
        theirs = found.get(key, [])
        if want is not None and not theirs:
            first = min(never or reads, key=lambda r: (r.input, r.in_device))
            kind = "gather" if first.op.startswith("all_gather") else "per_device"
            out.disagreements.append((f"{want}:missed:{kind}:{first.in_status}",
                                      f"{key[0]} {key[1]} ({first.op}, step {first.step}) read never-written {first.input} {first.in_device}"))
        for kind, named in theirs:
            if want is not None and kind != want:
                out.disagreements.append((f"kind:{want}/{kind}", f"{key[0]} {key[1]} names {named}"))
            elif kind == "uninitialized_read" and want is None:
                out.disagreements.append(("uninitialized_read:unsupported", f"{key[0]} {key[1]} (meshspec names {named})"))
            elif not maybe:
                out.disagreements.append((f"{kind}:unsupported", f"{key[0]} {key[1]} (meshspec names {named})"))
            elif named is not None and named not in maybe:
                out.disagreements.append((f"{kind}:wrong_input", f"{key[0]} {key[1]} names {named}, naive {sorted(maybe)}"))
    for key in found.keys() - by_output.keys():  # a device the naive op did not run on
        for kind, named in found[key]:
            out.disagreements.append((f"{kind}:unsupported", f"{key[0]} {key[1]} (meshspec names {named}; naive: no op wrote it)"))
    return out


def load_program(program, profiles: Optional[dict] = None):
    """A hunt Program as a loaded scenario (as ``meshspec hunt`` loads it), defining ``profiles``
    (name -> definition, as a scenario's ``profiles:`` writes them: :data:`ERAS`)."""
    from meshspec.scenario.loader import parse

    return parse(program.text(extra={"profiles": profiles} if profiles else None), Path("hunt.yaml"))


MESHES = (("t3k", (2, 4)), ([2, 2], (2, 2)))
"""The meshes programs run on, in turn: a T3K and a bare 2x2 mesh."""


@dataclass
class Summary:
    programs: int = 0
    runs: int = 0
    """Programs times profiles."""
    skipped: int = 0
    agreeing: int = 0
    """Runs with no disagreement."""
    compared: int = 0
    kinds: dict = field(default_factory=dict)
    """Kind of finding -> op output devices the naive model required it on."""
    by_category: dict = field(default_factory=dict)
    """Category -> number of disagreements."""
    example: dict = field(default_factory=dict)
    """Category -> (program text, profile, detail) of its first disagreement."""
    ops: dict = field(default_factory=dict)
    """Op -> steps of it both models ran and compared."""
    on_host: dict = field(default_factory=dict)
    """Op -> steps of it on a host tensor both models ran and compared."""
    by_profile: dict = field(default_factory=dict)
    """Profile (built-in or era) -> runs under it."""


def era_names(k: int, per_program: Optional[int]) -> list[str]:
    """The era profiles program ``k`` runs under: every one of :data:`ERAS` (``per_program`` None),
    or ``per_program`` of them, program after program in turn, so that a sample of programs
    shares them out evenly.

    >>> era_names(0, 2), era_names(1, 2)[0] == list(ERAS)[2], len(era_names(3, None)) == len(ERAS)
    (['gather_padding.padded', 'gather_padding.window'], True, True)
    """
    names = list(ERAS)
    if per_program is None:
        return names
    return [names[(k * per_program + j) % len(names)] for j in range(min(per_program, len(names)))]


def campaign(seed: int, count: int, *, with_data: bool = False, profiles: tuple[str, ...] = PROFILE_NAMES,
             eras_per_program: Optional[int] = None, max_steps: int = 7, meshes=MESHES, on_program=None,
             ops: Optional[tuple[str, ...]] = None) -> Summary:
    """``count`` hunt programs of seed ``seed`` (example k is ``Random(f"{seed}:{k}")``, as hunt's),
    drawn from ``ops`` (default: every op the generator writes, WIDE_VOCABULARY, not only
    hunt's default VOCABULARY), each run under every profile of ``profiles`` and under era profiles
    (:func:`era_names`: all of :data:`ERAS`, or ``eras_per_program`` of them in turn; 0: none) and compared."""
    import random

    from meshspec.hunt.programs import WIDE_VOCABULARY, generate

    VOCABULARY = ops or WIDE_VOCABULARY

    s = Summary()
    for k in range(count):
        mesh, shape = meshes[k % len(meshes)]
        program = generate(random.Random(f"{seed}:{k}"), shape, mesh, VOCABULARY, max_steps)
        mine = era_names(k, eras_per_program)
        scenario = load_program(program, {n: ERAS[n] for n in mine})
        s.programs += 1
        for profile in (*profiles, *mine):
            s.runs += 1
            s.by_profile[profile] = s.by_profile.get(profile, 0) + 1
            o = check(scenario, list(program.steps), profile, with_data=with_data)
            if o.skipped is not None:
                s.skipped += 1
                continue
            s.compared += o.compared
            for op in o.ops:
                s.ops[op] = s.ops.get(op, 0) + 1
            for op in o.on_host:
                s.on_host[op] = s.on_host.get(op, 0) + 1
            for kind, n in o.kinds.items():
                s.kinds[kind] = s.kinds.get(kind, 0) + n
            s.agreeing += not o.disagreements
            for category, detail in o.disagreements:
                s.by_category[category] = s.by_category.get(category, 0) + 1
                era = {"profiles": {profile: ERAS[profile]}} if profile in ERAS else None
                s.example.setdefault(category, (program.text(f"oracle-{seed}-{k}", extra=era), profile, detail))
        if on_program is not None:
            on_program(k)
    return s
