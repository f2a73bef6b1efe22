"""``meshspec hunt --real PYTHON``: random programs run on the real ttnn and compared with meshspec.

Each program (:mod:`.programs`) is exported (:func:`meshspec.bridge.export.export`), run in the
Python that has ttnn (hardware, or the mock on a CPU) by a worker process (:mod:`.worker`), and
the records the runtime gives its tensors are read back as a ``meshspec.report/1``. Two questions:

(a) does the simulation under that version's profile record the same (``meshspec diff``: storage,
    topology, address, and each device's record), and stop at the same step with the same words?
(b) do the real records agree with themselves (:func:`contradictions`: a tensor's topology
    against the devices the runtime records, or the shards its host buffer holds; coordinates off
    the mesh; a distribution shape or a placement count that does not fit), where the simulation
    names no finding on that tensor?

A program the version cannot run is reported as such and counted, never as a disagreement: a
script calling a name the version lacks (the export's ``NEEDS`` against ``ABSENT_IN``), a program
that needs the fabric (no mock opens a mesh with one), a script that stopped itself or failed
outside its steps (a mesh larger than the machine), one that did not finish in time. Each
disagreement is shrunk (:func:`.search.shrink`, judging each candidate again on the real ttnn) and
written with the version, the real report and the simulated one (docs/hunt-real.md).
"""

from __future__ import annotations

import ast
import collections
import json
import os
import queue
import random
import shutil
import subprocess
import tempfile
import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

from ..errors import MeshspecError, UsageError
from ..judge.real import view
from ..names import file_slug
from ..sim.profiles import profile_for_version
from ..text import one_line
from .programs import VOCABULARY, MeshSpec, Program, generate
from .search import Crash, Deadline, Outcome, Signature, shrink

if TYPE_CHECKING:
    from ..render.options import Format

#: The ops ``hunt --real`` writes: those of the op registry's hunt vocabulary that the mock runs as
#: hardware would, with no device kernel and no fabric, so a difference is the records' and not the
#: mock's (docs/semantics.md section 10): the collectives need the fabric, with which no mock mesh
#: opens; ``neg``, ``add`` and ``permute`` run a device kernel, which 0.81.1's mock refuses
#: (``WorkUnitSpec 'eltwise_unary' targets node (0,7) ...``) and 0.67.0's dies in (SIGSEGV). The
#: host-only ops, the file ops and get_device_tensors run on the host.
REAL_VOCABULARY: tuple[str, ...] = tuple(o for o in VOCABULARY if o not in ("all_gather", "all_gather_async", "neg", "add", "permute")) + (
    "to_dtype", "unpad", "pad_to_tile", "dump_tensor", "load_tensor", "get_device_tensors")


NO_COORDS = "no device_coords() to tell them apart"
"""observe.py's words for a tensor whose recorded devices a version without ``device_coords()`` cannot
tell (docs/semantics.md section 10): no evidence either way, left out of both reports."""

INDEX = "real-hunt.json"
FORMAT = "meshspec.real-hunt/1"
PROGRAM_SECONDS = 120.0
"""The longest one program may run on the real ttnn (the mock takes well under a second)."""
MAX_REPORT_BYTES = 64 * 1024 * 1024
WORKER = Path(__file__).with_name("worker.py")


@dataclass(frozen=True)
class Ttnn:
    """Where the real ttnn runs: its Python, the environment it runs in, its version."""

    python: str
    env: tuple[tuple[str, str], ...]
    version: str

    @property
    def mock(self) -> bool:
        return bool(dict(self.env).get("TT_METAL_MOCK_CLUSTER_DESC_PATH"))


def locate(real: str) -> Ttnn:
    """``--real``: a Python (run in this environment) or a mock's ``env.sh`` (sourced: its
    variables, and the ``python`` it puts on PATH); the ttnn version that Python has."""
    env = dict(os.environ)
    python = real
    if real.endswith(".sh"):
        if not os.path.isfile(real):
            raise UsageError(f"--real {one_line(real)}: no such file; give the Python that has ttnn, or the env.sh that activates it")
        done = subprocess.run(["bash", "-c", 'source "$1" >/dev/null 2>&1 && env -0', "bash", real], capture_output=True, timeout=60)
        if done.returncode != 0:
            raise UsageError(f"--real {one_line(real)}: sourcing it failed (exit {done.returncode})")
        env = dict(kv.split("=", 1) for kv in done.stdout.decode(errors="replace").split("\0") if "=" in kv)
        python = shutil.which("python", path=env.get("PATH")) or ""
        if not python:
            raise UsageError(f"--real {one_line(real)}: it puts no python on PATH")
    elif shutil.which(real) is None:
        raise UsageError(f"--real {one_line(real)}: no such program; give the Python that has ttnn (e.g. "
                         "/tmp/ttnn-mock/venv/bin/python) or the mock's env.sh")
    env["TT_LOGGER_LEVEL"] = env.get("TT_LOGGER_LEVEL", "FATAL")
    try:
        done = subprocess.run([python, "-c", "import importlib.metadata as m; print(m.version('ttnn'))"], env=env,
                              capture_output=True, text=True, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise UsageError(f"--real {one_line(real)}: could not ask it for ttnn's version ({one_line(str(err))})") from None
    version = done.stdout.strip().splitlines()[-1] if done.returncode == 0 and done.stdout.strip() else ""
    if not version:
        raise UsageError(f"--real {one_line(real)}: this Python has no ttnn ({one_line(done.stderr.strip()[-200:]) or 'no version'}); "
                         "give the one ttnn is installed in")
    return Ttnn(python, tuple(sorted(env.items())), version)


def version_profile(version: str, given: Optional[str]) -> str:
    """The profile the simulation runs under: ``given``, else the built-in one ``version`` verifies."""
    if given is not None:
        return given
    name = profile_for_version(version)
    if name is None:
        raise UsageError(f"--real: ttnn {one_line(version)} verifies no meshspec profile (meshspec profiles says which version "
                         "verifies each); give --profile NAME to compare with one")
    return name


@dataclass(frozen=True)
class RealRun:
    """One program on the real ttnn: its report, or why the version could not run it."""

    report: Optional[dict] = None
    refused: Optional[str] = None


class Worker:
    """The worker process (:mod:`.worker`), started again after a program that killed it or ran
    past :data:`PROGRAM_SECONDS`; its stderr (ttnn's log lines) goes to a file kept short."""

    def __init__(self, ttnn: Ttnn, folder: Path, seconds: float = PROGRAM_SECONDS) -> None:
        self.ttnn, self.folder, self.seconds = ttnn, folder, seconds
        self.proc: Optional[subprocess.Popen] = None
        self.lines: "queue.Queue[Optional[str]]" = queue.Queue()
        self.count = 0
        self.started = 0

    def _start(self) -> Optional[str]:
        env = dict(self.ttnn.env) | {"MESHSPEC_STATE_DIR": str(self.folder / "state")}
        self.log = open(self.folder / "worker.log", "wb")
        self.proc = subprocess.Popen([self.ttnn.python, str(WORKER)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self.log,
                                     env=env, cwd=self.folder, text=True, bufsize=1)
        self.lines = queue.Queue()
        self.started += 1
        threading.Thread(target=_pump, args=(self.proc.stdout, self.lines), daemon=True).start()
        first = self._answer(self.seconds)
        if not first or not first.get("ready"):
            self.stop()
            return f"the worker did not start ({self._tail()})"
        return None

    def _answer(self, seconds: float) -> Optional[dict]:
        try:
            line = self.lines.get(timeout=seconds)
        except queue.Empty:
            return {"timeout": True}
        if line is None:
            return None  # the process ended
        try:
            return json.loads(line)
        except ValueError:
            return {"failed": one_line(line)[:300]}

    def _tail(self) -> str:
        try:
            data = (self.folder / "worker.log").read_bytes()[-2000:].decode(errors="replace")
        except OSError:
            return "no output"
        lines = [ln for ln in data.splitlines() if ln.strip()]
        return one_line(lines[-1])[:300] if lines else "no output"

    def stop(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.kill()
            self.proc.wait()
            self.proc = None
            self.log.close()

    def run(self, script: str) -> RealRun:
        """Run one exported script; its report (a step that killed the process: the report the
        script wrote before that step, which says so), or why there is none."""
        if self.proc is not None and self.proc.poll() is not None:  # it ended after its last answer (closing a mesh)
            self.stop()
        if self.proc is None:
            why = self._start()
            if why is not None:
                return RealRun(refused=why)
        assert self.proc is not None and self.proc.stdin is not None
        self.count += 1
        path, out = self.folder / f"p{self.count}.py", self.folder / f"p{self.count}.json"
        path.write_text(script)
        if self.log.tell() > 1 << 20:  # ttnn's log lines: only the last program's are of use
            self.log.seek(0)
            self.log.truncate()
        try:
            self.proc.stdin.write(json.dumps({"script": str(path), "out": str(out)}) + "\n")
            self.proc.stdin.flush()
            answer = self._answer(self.seconds)
        except (BrokenPipeError, OSError):
            answer = None
        try:
            if answer is None or answer.get("timeout"):
                timed_out = answer is not None and answer.get("timeout")
                self.stop()
                if timed_out:
                    return RealRun(refused=f"did not finish in {self.seconds:g} s")
                report = _read_report(out)
                if report is None:
                    return RealRun(refused=f"the process died before its first step ({self._tail()})")
                return RealRun(report)  # a step killed it: the report its script wrote before that step says so
            if "exit" in answer:
                return RealRun(refused=f"the script stopped: {one_line(str(answer['exit']))[:300]}")
            if "failed" in answer:
                return RealRun(refused=f"the script failed outside its steps: {one_line(str(answer['failed']))[:300]}")
            report = _read_report(out)
            return RealRun(report) if report is not None else RealRun(refused="the script wrote no report")
        finally:
            path.unlink(missing_ok=True)
            out.unlink(missing_ok=True)


def _pump(stream, lines: "queue.Queue[Optional[str]]") -> None:
    for line in stream:
        lines.put(line)
    lines.put(None)


def _read_report(path: Path) -> Optional[dict]:
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:
            return None
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("format") == "meshspec.report/1" else None


def needs_of(script: str) -> list[str]:
    """The ttnn names an exported script calls (its ``NEEDS`` line)."""
    line = next((ln for ln in script.splitlines() if ln.startswith("NEEDS = ")), "NEEDS = []")
    return list(ast.literal_eval(line.split(" = ", 1)[1]))


def refusal(script: str, version: str) -> Optional[str]:
    """Why ``version`` cannot run an exported script before it starts: a name it lacks
    (``ABSENT_IN``), or the fabric (no mock opens a mesh with one); None: it can try."""
    from ..bridge.export import ABSENT_IN

    absent = [n for n in needs_of(script) if version in ABSENT_IN.get(n, ())]
    if absent:
        return f"calls {', '.join(absent)}, which ttnn {version} has not"
    fabric = next((ln for ln in script.splitlines() if ln.startswith("FABRIC = ")), "FABRIC = None")
    if fabric != "FABRIC = None":
        return "needs the fabric (its collectives), with which no mock mesh opens"
    return None


def _made_by(scenario) -> dict[str, str]:
    """Each tensor name -> the op of the step that bound it (a list's items by the list's name)."""
    from ..sim.ops import OPS

    out = {}
    for s in scenario.steps:
        name = OPS[s.op].bound(s.args) if OPS[s.op].binds is not None else None
        if name:
            out[name] = s.op
    return out


def _op_of(tensor: str, made: dict[str, str]) -> str:
    return made.get(tensor.split("[", 1)[0], "")


def differences(simulated: dict, real: dict, scenario) -> list[tuple[str, str, str]]:
    """(kind, op, what) of each way the real report differs from the simulated one (already
    :func:`view`-ed), one per (kind, op), in report order. A run that stopped elsewhere or with
    other words is that difference alone: what follows a divergence is not a new one."""
    from ..judge.diff import diff_reports

    d = diff_reports(simulated, real, "simulated", "real")
    if d.run:
        errors = [e for e in (simulated.get("error"), real.get("error")) if e]
        err = min(errors, key=lambda e: e.get("step", 0)) if errors else {}  # the first run to stop names the op
        what = f"simulated: {_error_text(simulated.get('error'))}; real: {_error_text(real.get('error'))}"
        return [("error", str(err.get("op") or ""), what)]
    made = _made_by(scenario)
    out: dict[tuple[str, str], str] = {}
    for t in d.tensors:
        if not t.differences:
            continue
        x = min(t.differences, key=lambda x: FIELD_ORDER.index(x.field) if x.field in FIELD_ORDER else len(FIELD_ORDER))
        where = f"{x.tensor} {tuple(x.device)}" if x.device is not None else x.tensor
        key = (x.field, _op_of(x.tensor, made))
        out.setdefault(key, f"{where} {x.field}: simulated {_short(x.expected)}, real {_short(x.actual)}")
    return [(k, op, what) for (k, op), what in out.items()]


#: The fields of a tensor's difference, most telling first: a tensor is named by the first it
#: differs in (a device recorded on one side only differs in its shape, dtype and pages too).
FIELD_ORDER = ("present", "storage", "topology", "recorded", "shape", "padded_shape", "dtype", "layout", "memory_config",
               "num_pages", "bytes", "address", "values")


def _error_text(err: Optional[dict]) -> str:
    if not err:
        return "no error"
    if err.get("crash"):
        return f"step {err.get('step')} ({err.get('op')}) killed the process"
    return f"step {err.get('step')} ({err.get('op')}): {err.get('message')}"


def _short(value) -> str:
    return one_line(json.dumps(value) if not isinstance(value, str) else value)[:160]


def part_names(scenario) -> frozenset[str]:
    """The tensors that are handles on some devices of a storage: ``get_device_tensors``' items
    and whatever a step makes from one (a squeeze of a part is a part: it keeps the parent's
    topology and its own device, docs/semantics.md section 9)."""
    from ..sim.ops import OPS

    parts: set[str] = set()
    for s in scenario.steps:
        op = OPS[s.op]
        bound = op.bound(s.args) if op.binds is not None else None
        if bound is None:
            continue
        if op.binds.many:
            parts.add(bound)
        elif any(name.split("[", 1)[0] in parts for _, name, _ in op.names_used(s.args)):
            parts.add(bound)
    return frozenset(parts)


def contradictions(report: dict, parts: frozenset = frozenset()) -> list[tuple[str, str]]:
    """(tensor, why) for each tensor whose records contradict themselves, read from a report alone
    (the judge's topology_contradictions on report data, docs/semantics.md section 9): the
    coordinates its topology lists against the devices a device tensor records or the shards a
    host tensor's buffer holds; coordinates off the mesh; a distribution shape whose size is not the
    number of coordinates; a placement count that is not its rank. ``parts`` (:func:`part_names`)
    need only their own devices listed."""
    out = []
    mesh = report.get("mesh") or []
    for t in report.get("tensors", []):
        if t.get("unreadable") or t.get("storage") not in ("device", "host"):
            continue
        topo = t.get("topology") or {}
        coords = [tuple(c) for c in topo.get("coords", [])]
        shape = list(topo.get("distribution_shape", []))
        held = [tuple(d["coord"]) for d in t.get("devices", []) if d.get("recorded")]
        part = t["name"].split("[", 1)[0] in parts  # a part: its parent's topology, its own device(s)
        whys = []
        if held and sorted(held) != sorted(coords):
            extra = [c for c in coords if c not in held] if not part else []
            missing = [c for c in held if c not in coords]
            device = t["storage"] == "device"
            if extra:
                whys.append(f"its topology lists {extra} where {'the runtime records nothing' if device else 'its host buffer has no shard'}")
            if missing:
                whys.append(f"{'the runtime records' if device else 'its host buffer holds shards at'} {missing}, which its topology does not list")
        if t["storage"] == "device" and mesh:
            off = [c for c in coords if len(c) != len(mesh) or any(x >= n for x, n in zip(c, mesh))]
            if off:
                whys.append(f"its topology lists {off}, not on its mesh {mesh}")
        size = 1
        for n in shape:
            size *= n
        if size != len(coords):
            whys.append(f"its distribution shape {shape} has {size} positions for {len(coords)} coordinates")
        if len(topo.get("placements", [])) != len(shape):
            whys.append(f"it has {len(topo.get('placements', []))} placement(s) for a rank-{len(shape)} distribution shape")
        out += [(t["name"], why) for why in whys]
    return out


@dataclass
class Session:
    """One real hunt: where ttnn runs, the profile simulated, the worker, the folder it works in."""

    ttnn: Ttnn
    profile: str
    own: dict = field(default_factory=dict)
    seconds: float = PROGRAM_SECONDS
    work: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="meshspec-real-hunt-")))

    def __post_init__(self) -> None:
        from ..sim.profiles import get_profile

        get_profile(self.profile, self.own)  # an unknown name: said now, before anything runs
        self.worker = Worker(self.ttnn, self.work, self.seconds)

    def close(self) -> None:
        self.worker.stop()
        shutil.rmtree(self.work, ignore_errors=True)

    def judge(self, program: Program) -> tuple[Optional[Outcome], Optional[str], dict]:
        """(outcome, why the version refused it, each signature's first difference in words): the outcome is
        None where the program does not load, the simulation stops at meshspec's own bound, or the
        version refused it. Raises :class:`.search.Crash` where meshspec itself failed."""
        from ..bridge.export import export
        from ..runner import run
        from ..scenario.loader import parse

        try:
            scenario = parse(program.text("hunt"), Path("hunt.yaml"))
        except MeshspecError:
            return None, None, {}
        scenario = scenario.replace(profiles={**scenario.profiles, **self.own})
        try:
            script = export(scenario)
            simulated = run(scenario, self.profile)
        except MeshspecError:
            return None, None, {}
        except Exception as err:  # noqa: BLE001 - meshspec's own bug: kept to report
            raise Crash(err, None) from err
        if simulated.error is not None and simulated.error.source == "meshspec":
            return None, None, {}  # past meshspec's memory or work bound: no evidence
        why = refusal(script, self.ttnn.version)
        real = None
        if why is None:
            done = self.worker.run(script)
            why, real = done.refused, done.report
        if why is not None:
            return None, why, {}
        reported = simulated.to_json()
        sim, seen = view(reported, real, self.ttnn.version)
        found = differences(sim, seen, scenario)
        if not found:  # (b): only where the simulation agrees, and names no finding on that tensor
            named = {f.tensor for f in simulated.findings}
            made = _made_by(scenario)
            found = [("inconsistent_records", _op_of(name, made), f"{name}: {why}")
                     for name, why in contradictions(seen, part_names(scenario)) if name not in named]
        details: dict[Signature, str] = {}
        for kind, op, what in found:
            details.setdefault(Signature(kind, "real", op), what)
        return Outcome(tuple(details), (reported, real)), None, details


@dataclass
class Real:
    """A signature found on the real ttnn, shrunk."""

    signature: Signature
    program: Program
    steps_before: int
    example: int
    detail: str
    reports: tuple
    stopped: bool = False


@dataclass
class Tally:
    tried: int = 0
    run: int = 0
    steps: int = 0
    """Steps of the programs the real ttnn ran."""
    refused: collections.Counter = field(default_factory=collections.Counter)
    disagreements: int = 0
    crashes: list = field(default_factory=list)
    interrupted: bool = False


def hunt_real(session: Session, meshes: list[tuple[MeshSpec, tuple[int, ...]]], ops: tuple[str, ...], *, seed: int = 0,
              examples: Optional[int] = None, deadline: Optional[Deadline] = None, tally: Optional[Tally] = None,
              on_progress: Optional[Callable[[Tally], None]] = None) -> list[Real]:
    """Generate program ``k`` of ``seed`` as ``meshspec hunt`` does, run it on both sides, shrink each new
    disagreement on the real ttnn; until ``examples`` programs were tried or ``deadline`` passed."""
    tally = tally if tally is not None else Tally()
    deadline = deadline or Deadline(None)
    found: dict[Signature, Real] = {}
    k = 0
    try:
        while (examples is None or tally.tried < examples) and not deadline.passed():
            mesh, shape = meshes[random.Random(f"{seed}:{k}:mesh").randrange(len(meshes))]
            program = generate(random.Random(f"{seed}:{k}"), shape, mesh, ops)
            tally.tried += 1
            try:
                out, why, details = session.judge(program)
            except Crash as err:
                tally.crashes.append((k, program, str(err)))
                out, why, details = None, None, {}
            if why is not None:
                tally.refused[why] += 1
            if out is not None:
                tally.run += 1
                tally.steps += len(program.steps)
                if out.signatures:
                    tally.disagreements += 1
                for sig in out.signatures:
                    if sig in found and len(found[sig].program.steps) <= 2:
                        continue
                    small, stopped, _ = _shrink(session, program, sig, deadline)
                    if sig in found and len(small.steps) >= len(found[sig].program.steps):
                        continue
                    again, said = (out, details) if small is program else _again(session, small)
                    kept = again if again is not None and sig in again.signatures else out
                    found[sig] = Real(sig, small, len(program.steps), k, said.get(sig, details[sig]), kept.reports, stopped)
            if on_progress is not None:
                on_progress(tally)
            k += 1
    except KeyboardInterrupt:
        tally.interrupted = True
    return sorted(found.values(), key=lambda f: f.signature)


def _again(session: Session, program: Program) -> tuple[Optional[Outcome], dict]:
    """The shrunk program judged once more, for its own reports and words (None: not shown now)."""
    try:
        out, _, said = session.judge(program)
    except Crash:
        return None, {}
    return out, said


def _shrink(session: Session, program: Program, sig: Signature, deadline: Deadline) -> tuple[Program, bool, Optional[tuple]]:
    def check(candidate: Program) -> Optional[Outcome]:
        if deadline.passed():
            from .search import OutOfTime

            raise OutOfTime
        try:
            out = session.judge(candidate)[0]
        except Crash:
            return None
        return out if out is not None and sig in out.signatures else None

    return shrink(program, None, sig, budget=200, deadline=deadline, check=check)  # type: ignore[arg-type]


def file_base(version: str, sig: Signature) -> str:
    """``real-<version>-<kind>-real-<op>-<hash>``: the files of one signature found on ``version``."""
    return f"real-{file_slug(version, 16)}-{sig.slug()}"


def scenario_text(f: Real, session: Session, base: str) -> str:
    """The shrunk program as a scenario naming the version, the profile and the first difference;
    the real and simulated reports are the files beside it."""
    from ..sim.profiles import PROFILES

    where = "in mock mode" if session.ttnn.mock else "on hardware"
    description = (f"meshspec hunt --real: ttnn {session.ttnn.version} ({where}) against the simulation under {session.profile}: "
                   f"{f.detail}. The real records: {base}.real.json; the simulated ones: {base}.simulated.json"
                   + (" (the shrink stopped at the time budget)" if f.stopped else ""))
    extra = {"profile": session.profile} if session.profile in PROFILES else None
    return f.program.text(base, one_line(description), extra)


def write(found: list[Real], tally: Tally, session: Session, seed: int, out: Path) -> list[dict]:
    """The scenarios, the two reports of each, and ``real-hunt.json`` into ``out``. A file there
    that an earlier real hunt's index does not list is never replaced (refused before writing)."""
    from ..files import replace_entry
    from ..scenario.loader import parse

    index = _index(out)
    mine = set(index.get("files", []))
    texts: dict[str, str] = {}
    entries = []
    for f in found:
        base = file_base(session.ttnn.version, f.signature)
        simulated, real = f.reports
        texts[f"{base}.yaml"] = scenario_text(f, session, base)
        texts[f"{base}.real.json"] = json.dumps(real, indent=1) + "\n"
        texts[f"{base}.simulated.json"] = json.dumps(simulated, indent=1) + "\n"
        entries.append({"file": f"{base}.yaml", "kind": f.signature.kind, "op": f.signature.op, "steps_before": f.steps_before,
                        "steps_after": len(f.program.steps), "example": f.example, "difference": f.detail, "stopped": f.stopped})
    crashes = []
    for k, program, error in tally.crashes[:20]:
        name = f"crash-real-{file_slug(session.ttnn.version, 16)}-{seed}-{k}.yaml"
        texts[name] = program.text(name[:-5], one_line(f"meshspec itself failed on this program: {error}"))
        crashes.append({"file": name, "example": k, "error": one_line(error)})
    taken = [n for n in texts if os.path.lexists(out / n) and n not in mine]
    if taken:
        raise UsageError(f"{one_line(str(out / taken[0]))}: exists and is not one of this folder's real-hunt files ({INDEX}); nothing was "
                         "written: move it away, or choose another --out")
    for name, text in texts.items():
        if name.endswith(".yaml"):
            parse(text, out / name)  # what is written loads (else meshspec's bug, said before anything is written)
    for name, text in texts.items():
        replace_entry(out / name, text)
    written = {e["file"] for e in entries}
    kept = [e for e in index.get("found", []) if e.get("file") not in written]
    data = {"format": FORMAT, "version": session.ttnn.version, "mock": session.ttnn.mock, "python": session.ttnn.python,
            "profile": session.profile, "seed": seed, **tally_data(tally), "found": kept + entries, "crashes": crashes,
            "files": sorted(mine | set(texts))}
    replace_entry(out / INDEX, json.dumps(data, indent=1) + "\n")
    return entries


def _index(out: Path) -> dict:
    """The folder's earlier ``real-hunt.json`` ({} when there is none); the folder made."""
    from .hunt import make_out

    make_out(out)
    path = out / INDEX
    if not os.path.lexists(path):
        return {}
    try:
        data = json.loads(path.read_text()) if path.is_file() and not path.is_symlink() and path.stat().st_size < (16 << 20) else None
    except (OSError, ValueError):
        data = None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not all(isinstance(n, str) and "/" not in n
                                                                              for n in data.get("files", [])):
        raise UsageError(f"{one_line(str(path))}: not a real-hunt index (format {FORMAT}); choose another --out")
    return data


def tally_data(tally: Tally) -> dict:
    return {"programs": tally.tried, "run": tally.run, "steps": tally.steps, "refused": sum(tally.refused.values()),
            "refused_why": dict(tally.refused.most_common()), "disagreements": tally.disagreements, "interrupted": tally.interrupted}


def main(real: str, profile: Optional[str], meshes: list[tuple[MeshSpec, tuple[int, ...]]], ops: Optional[tuple[str, ...]],
         seconds: Optional[float], examples: Optional[int], seed: int, own: dict, out: Path, fmt: "Format",
         program_seconds: float = PROGRAM_SECONDS) -> tuple[str, int]:
    """``meshspec hunt --real``: the summary and the exit code (0 nothing found, 1 found, 3 meshspec
    failed on a program, 130 interrupted)."""
    from ..render.hunt import real_summary_text, summary_json
    from ..render.options import Format  # noqa: F811 (the run's, beside the annotation's)

    ops = check_real_ops(ops)
    ttnn = locate(real)
    _index(out)  # a folder that cannot take the files fails now, not after the hunt
    session = Session(ttnn, version_profile(ttnn.version, profile), own, program_seconds)
    tally = Tally()
    try:
        found = hunt_real(session, meshes, ops, seed=seed, examples=examples, deadline=Deadline(seconds), tally=tally)
    finally:
        session.close()
    entries = write(found, tally, session, seed, out)
    data = {"format": FORMAT, "out": str(out), "version": ttnn.version, "mock": ttnn.mock, "profile": session.profile, "seed": seed,
            **tally_data(tally), "found_now": entries, "crashes": [{"example": k, "error": one_line(e)} for k, _, e in tally.crashes]}
    code = 130 if tally.interrupted else 3 if tally.crashes else 1 if entries else 0
    match fmt:
        case Format.JSON:
            return summary_json(data), code
        case Format.TABLE:
            return real_summary_text(data), code


def check_real_ops(ops: Optional[tuple[str, ...]]) -> tuple[str, ...]:
    """``--ops`` with ``--real``: some of :data:`REAL_VOCABULARY` (the default: all of it)."""
    if not ops:
        return REAL_VOCABULARY
    allowed = REAL_VOCABULARY
    bad = next((o for o in ops if o not in allowed), None)
    if bad is not None:
        raise UsageError(f"--ops {bad!r} with --real: not an op the real hunt writes (a collective needs the fabric, a device kernel "
                         f"does not run in the mock); it writes {', '.join(allowed)}")
    if "from_torch" not in ops:
        raise UsageError("--ops: include from_torch (nothing reaches a device without a host tensor)")
    return tuple(ops)
