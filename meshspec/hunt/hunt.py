"""The hunt itself: generate, compare, shrink, deduplicate, write (``meshspec hunt``).

Example ``k`` of seed ``s`` is generated from ``random.Random(f"{s}:{k}")`` on a mesh drawn
from ``meshes`` by ``k`` alone; ``--shard K/N`` takes the examples with ``k % N == K - 1``, so a CI
matrix explores disjoint programs and ``--merge`` joins their folders. Each distinct signature
keeps its smallest program, written as a scenario whose ``expect`` block states what each profile
reports; ``hunt.json`` in the folder indexes them (and the programs meshspec itself failed on).
Nothing in the folder that hunt did not write is ever replaced: every name is checked before the
first file is written.
"""

from __future__ import annotations

import contextlib
import errno
import glob
import hashlib
import json
import os
import random
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..files import replace_entry
from ..scenario.sniff import NONBLOCK, read_all
from ..written import data_digest, file_digest

from ..errors import REPORT_IT, UsageError
from ..names import NAME, file_slug, is_name
from ..report import HUNT_FORMAT
from ..text import one_line
from .programs import RULE_OPS, VOCABULARY, MeshSpec, Program, generate
from .search import Crash, Deadline, OutOfTime, OverLimit, Signature, Target, attribute, judge, shrink

INDEX = "hunt.json"
FORMAT = HUNT_FORMAT
MAX_INDEX_BYTES = 16 * 1024 * 1024
"""The largest ``hunt.json`` read (a hunt writes a few hundred bytes a signature)."""
MAX_SEED_DIGITS = 20
"""A seed is part of crash file names: at most this many digits."""
_RULE = re.compile(rf"several|fault:{NAME}|{NAME}={NAME}")
"""What an index's ``rule`` may be: ``several``, ``fault:KIND`` or ``rule=choice``."""


def is_file(name: object) -> bool:
    """Whether an index may name ``name``: a plain scenario file in the folder (``NAME.yaml``,
    NAME by :func:`meshspec.names.is_name`: no path, no leading dot, ASCII, at most 128 characters)."""
    return isinstance(name, str) and name.endswith(".yaml") and is_name(name[: -len(".yaml")])


@dataclass
class Found:
    signature: Signature
    program: Program
    steps_before: int
    example: int
    file: str = ""
    stopped: bool = False
    """Its shrinking stopped at the time budget: the smallest program found by then."""
    reports: Optional[tuple] = field(default=None, repr=False)
    """The hunted and the other side's reports of ``program`` (its expect block), when kept."""


@dataclass
class Progress:
    tried: int = 0
    disagreements: int = 0
    distinct: int = 0
    crashes: list = field(default_factory=list)
    """(example, program, error, fault) where meshspec itself failed: its bugs, kept to report."""
    interrupted: bool = False
    """Stopped by an interrupt (Ctrl-C): what was found so far is kept."""
    shrinks_stopped: int = 0
    """Shrinks the time budget stopped (each keeps the smallest program found by then)."""
    over_limit: int = 0
    """Programs skipped because a run of them stopped at --max-memory or --max-work."""


def check_ops(ops: Optional[list[str]]) -> tuple[str, ...]:
    if not ops:
        return VOCABULARY
    bad = [o for o in ops if o not in VOCABULARY]
    if bad:
        from ..errors import did_you_mean

        raise UsageError(f"--ops {bad[0]!r}: not an op hunt writes{did_you_mean(bad[0], list(VOCABULARY))}; it writes {', '.join(VOCABULARY)}")
    if "from_torch" not in ops:
        raise UsageError("--ops: include from_torch (nothing reaches a device without a host tensor)")
    return tuple(ops)


def unreachable(target: Target, ops: tuple[str, ...]) -> list[str]:
    """The rules the two profiles differ in that no op the programs use exercises: a hunt
    cannot find what they do (``meshspec profiles`` says what each means)."""
    return [r for r in target.rules if not set(RULE_OPS.get(r, ())) & set(ops)]


def hunt(target: Target, meshes: list[tuple[MeshSpec, tuple[int, ...]]], ops: tuple[str, ...], *, seed: int = 0,
         examples: Optional[int] = None, seconds: Optional[float] = None, shard: tuple[int, int] = (1, 1),
         on_progress: Optional[Callable[[Progress], None]] = None, progress: Optional[Progress] = None,
         deadline: Optional[Deadline] = None) -> list[Found]:
    """Search until ``examples`` programs were tried (deterministic) or the time budget passed, or
    an interrupt; ``progress`` (given or made) counts what was tried and keeps meshspec's own
    crashes. The budget is wall-clock for the whole hunt: ``deadline`` (or one ``seconds`` from
    now), which the search checks before each program and each shrink and re-attribution before
    each run; a shrink it stops keeps the smallest program found by then (``Found.stopped``)."""
    k_of, n_of = shard
    found: dict[Signature, Found] = {}
    progress = progress if progress is not None else Progress()
    if deadline is None:
        deadline = Deadline(seconds)
    k = k_of - 1
    try:
        while True:
            if examples is not None and progress.tried >= examples:
                break
            if deadline.passed():
                break
            mesh, shape = meshes[random.Random(f"{seed}:{k}:mesh").randrange(len(meshes))]  # by k alone, whatever the shard
            program = generate(random.Random(f"{seed}:{k}"), shape, mesh, ops)
            progress.tried += 1
            try:
                try:
                    out = judge(program, target, deadline=deadline)
                except OutOfTime:
                    break  # the budget ran out part way through this program: it is not judged
                except OverLimit:
                    progress.over_limit += 1  # past the memory or work bound: no evidence either way, skipped
                    out = None
                if out is not None and out.signatures:
                    progress.disagreements += 1
                    for sig in out.signatures:
                        if sig in found and len(found[sig].program.steps) <= 2:
                            continue
                        small, stopped, reports = shrink(program, target, sig, deadline=deadline)
                        progress.shrinks_stopped += stopped
                        try:  # the rule again, on the program kept (past the deadline: as found)
                            final = sig if stopped else attribute(small, target, sig, deadline)
                        except (OutOfTime, OverLimit):
                            final = sig
                        if final not in found or _smaller(small, found[final].program):
                            found[final] = Found(final, small, len(program.steps), k, stopped=stopped,
                                                 reports=reports if reports is not None else (out.reports if small is program else None))
                    progress.distinct = len(found)
            except Crash as err:
                progress.crashes.append((k, program, str(err), err.fault))
            if on_progress is not None:
                on_progress(progress)
            k += n_of
    except KeyboardInterrupt:
        progress.interrupted = True
    return sorted(found.values(), key=lambda f: f.signature)


def _smaller(a: Program, b: Program) -> bool:
    from .search import _devices

    return (len(a.steps), _devices(a.mesh), len(a.text())) < (len(b.steps), _devices(b.mesh), len(b.text()))


NAME_HASH = 8
"""Hex digits of the hash that ends a scenario's file name (:func:`entry_file`)."""
_HASHED = re.compile(r"hunt-.*-[0-9a-f]{%d}\.yaml" % NAME_HASH)
"""A name of the hashed naming (:func:`entry_file`); older folders' names have no such hash."""


def file_name(sig: Signature, target: Target) -> str:
    """``hunt-<profile>-vs-<against>-<kind>-<rule>-<op>-<hash>.yaml`` (a fault: ``<profile>-with-<fault>``),
    each part a safe slug (:attr:`Target.label`, :meth:`Signature.slug`): :func:`entry_file` of the
    index entry this hunt writes for ``sig``."""
    return entry_file(_key_of(sig, target), target.label)


def _key_of(sig: Signature, target: Target) -> tuple:
    """The index key of ``sig`` hunted on ``target``: (kind, rule, op, profile, against) as its entry says."""
    return sig.kind, sig.rule, sig.op, target.profile, _against(target)


def _against(target: Target) -> str:
    return target.against if not target.fault else f"{target.profile} (no fault)"


def _key(e: dict) -> tuple:
    """An index entry's signature and profile pair: one file per key in a folder."""
    return e["kind"], e["rule"], e["op"], e["profile"], e["against"]


def entry_file(key: tuple, label: Optional[str] = None) -> str:
    """The file name of the index key ``(kind, rule, op, profile, against)``: a readable slug of the
    pair and the signature, then a hash of the exact key, so two keys never share a name (``-``
    both joins the slugs and appears inside names: ``reference-topology`` + ``stale`` and
    ``reference`` + ``topology_stale`` slug alike). ``label`` is the pair's slug (computed from
    the key when not given, as :attr:`Target.label` makes it)."""
    from .search import LABEL_LIMIT

    kind, rule, op, profile, against = key
    if label is None:
        fault = against.endswith(" (no fault)") and rule.startswith("fault:")
        label = file_slug(f"{profile}-with-{rule[len('fault:'):]}" if fault else f"{profile}-vs-{against}", LABEL_LIMIT)
    digest = hashlib.sha256(json.dumps(list(key)).encode("utf-8", "surrogatepass")).hexdigest()[:NAME_HASH]
    return f"hunt-{label}-{Signature(kind, rule, op).slug()}-{digest}.yaml"


def crash_name(target: Target, seed: int, example: int) -> str:
    """``crash-<pair>-<seed>-<example>.yaml``: a program meshspec itself failed on."""
    return f"crash-{target.label}-{seed}-{example}.yaml"


def _longest_names(target: Target, seed: int) -> list[str]:
    """The longest file names a hunt of ``target`` may write: a signature slug of full length, an
    example number no hunt reaches."""
    from .search import SLUG_LIMIT

    return [f"hunt-{target.label}-{'s' * SLUG_LIMIT}-{'h' * NAME_HASH}.yaml", crash_name(target, seed, 10**12)]


def scenario_text(f: Found, target: Target, seed: int, name: str) -> str:
    """The kept program as a scenario: a description naming the rule, and an expect block with
    exactly what each side reports (so it drops into a ``meshspec check`` suite as written). A
    fault is no scenario setting: the expect block states the unmodified profile only."""
    from ..sim.profiles import RULES
    from .search import _load, _run, fault_for

    sig = f.signature
    shrunk = f"shrunk to {len(f.program.steps)}" + ("; the time budget stopped the shrinking" if f.stopped else "")
    extra: dict = {}
    own = target.own_used()
    if own:
        extra["profiles"] = {n: _profile_block(p, target) for n, p in own.items()}
    scenario = _load(f.program, target.own)
    sides = [target.profile] if target.fault else [target.profile, target.against]
    # the reports the search made of this program (a fault's unmodified side is the other), or runs
    known = dict(zip(sides, f.reports[1:] if target.fault else f.reports)) if f.reports else {}
    expect: dict = {}
    for prof in sides:
        report = known.get(prof) or _run(scenario, prof, bounds=target.bounds)
        block: dict = {"findings": [_pattern(x) for x in report.findings]}
        if report.error is not None:
            block["error"] = report.error.message[:80]
        expect[prof] = block
    extra["profile"] = target.profile
    extra["expect"] = {"profiles": expect}
    if target.fault:
        fault = fault_for(f.program, target.fault, tuple(scenario.mesh_shape))
        head = (f"Found by meshspec hunt (seed {seed}, example {f.example}; {f.steps_before} steps, {shrunk}): "
                f"with the fault {target.fault} injected at step {fault.step} on device {list(fault.coord)} "
                f"(meshspec.sim.faults.Fault(kind={target.fault}, step={fault.step}, coord={tuple(fault.coord)})), {target.profile} reports "
                f"{sig.kind} at {sig.op}; without it, it does not. Faults are no scenario setting: the expect block is "
                f"{target.profile} unmodified.")
        return f.program.text(name, head, extra)
    if sig.rule == "several":
        why = f"No single rule of {target.profile} makes {target.against} report it: it takes several of them together."
    else:
        rule, choice = sig.rule.split("=")
        meaning = RULES[rule].meanings.get(choice, "")
        other = target.other.rule(rule).value
        why = f"The rule: {rule} = {choice} ({meaning}); {target.against} has {rule} = {other}."
    head = (f"Found by meshspec hunt (seed {seed}, example {f.example}; {f.steps_before} steps, {shrunk}): "
            f"under {target.profile}, {sig.kind} at {sig.op} that {target.against} does not report. ")
    return f.program.text(name, head + why, extra)


def _pattern(f) -> dict:
    out: dict = {"kind": f.kind.value, "tensor": f.tensor}
    if f.device is not None:
        out["device"] = list(f.device)
    if f.step is not None:
        out["step"] = f.step
    return out


def _profile_block(p, target: Target) -> dict:
    from ..sim.profiles import RULES, get_profile

    base = get_profile(p.base, target.own) if p.base else None
    block: dict = {"base": p.base}
    if p.era:
        block["era"] = p.era
    for r in RULES:
        if base is None or p.rule(r) != base.rule(r):
            block[r] = p.rule(r).value
    return block


# -- the folder ------------------------------------------------------------------------------
def make_out(out: Path) -> None:
    """``--out``: the folder made if it is new; one line naming it when it is a file or this user
    cannot write there (a hunt, real or simulated, finds that out before it runs a program)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {one_line(str(out))}: {'is a file' if out.is_file() else 'is not a folder'}; give a folder (new, or one hunt wrote)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {one_line(str(out))}: {err.strerror or err}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"--out {one_line(str(out))}: this user cannot write there")


def prepare(out: Path, target: Optional[Target] = None, seed: int = 0) -> dict:
    """Make sure ``out`` can take a hunt's files before any search: a folder (made if missing)
    that can be written and, for ``target`` (and ``seed``), that takes the longest names its hunt
    may write (a file is made and removed there: the file system's own limit), whose scenarios
    load (:func:`check_writes`), and holds no file of a name its hunt may write that hunt did not
    write, nor one it wrote and you changed since (found after the search, the whole search would
    be lost); returns its index (empty for a new folder)."""
    if target is not None:
        check_writes(target, seed)
    make_out(out)
    index = read_index(out) if os.path.lexists(out / INDEX) else {"format": FORMAT, "found": [], "crashes": []}
    if target is not None:
        _probe(out, max(len(n.encode()) for n in _longest_names(target, seed)))
        label = glob.escape(target.label)
        mine = sorted(p.name for pattern in (f"hunt-{label}-*.yaml", f"crash-{label}-{seed}-*.yaml") for p in out.glob(pattern))
        _claim(out, index, mine, " (a name this hunt may write)")
        _unchanged(out, index, mine)
        pair = (target.profile, _against(target))
        forged = next((e for e in index["found"] if (e["profile"], e["against"]) == pair and _HASHED.fullmatch(e["file"])
                       and e["file"] != entry_file(_key(e))), None)
        if forged is not None:
            raise UsageError(f"{one_line(str(out / INDEX))}: lists {one_line(forged['file'])} for {one_line(forged['kind'])} / "
                             f"{one_line(forged['rule'])} / {one_line(forged['op'])}, a name hunt gives another signature; nothing "
                             "was searched nor written: choose another --out (or remove that entry)")
        _regular(out, sorted(set(mine) | {e["file"] for e in index["found"] if (e["profile"], e["against"]) == pair}
                             | {c["file"] for c in index["crashes"] if c["file"].startswith(f"crash-{target.label}-{seed}-")}))
    return index


def check_writes(target: Target, seed: int) -> None:
    """Refuse, before any search, a hunt whose files could not be named or would not load: every
    name it may write is a plain file name (:func:`is_file`), and a scenario of its pair (its
    profiles block, its ``profile:`` and ``expect`` names) loads."""
    from ..errors import ScenarioError
    from ..scenario.loader import parse
    from .programs import Program

    if len(str(seed)) > MAX_SEED_DIGITS:
        raise UsageError(f"--seed {str(seed)[:30]}...: at most {MAX_SEED_DIGITS} digits (it is part of the crash files' names)")
    bad = next((n for n in _longest_names(target, seed) if not is_file(n)), None)
    if bad is not None:  # (a label and a slug are bounded: only a bug gets here)
        raise UsageError(f"hunt would write a file named {one_line(bad)!r}, which is no plain scenario file name; {REPORT_IT}")
    extra: dict = {}
    own = target.own_used()
    if own:
        extra["profiles"] = {n: _profile_block(p, target) for n, p in own.items()}
    sides = [target.profile] if target.fault else [target.profile, target.against]
    extra["profile"] = target.profile
    extra["expect"] = {"profiles": {prof: {"findings": []} for prof in sides}}
    name = _longest_names(target, seed)[0][: -len(".yaml")]
    text = Program([1, 1], ({"from_torch": {"as": "h", "shape": [1, 1, 32, 32]}},)).text(name, "a hunt's scenario", extra)
    try:
        parse(text, Path(name + ".yaml"))
    except ScenarioError as err:
        raise UsageError(f"--profile {one_line(target.profile)}: the scenarios this hunt writes would not load "
                         f"({one_line(err.message)}); rename the profile in --profiles (a name: a letter or _, then "
                         "letters, digits, _ . -)") from None


def _probe(out: Path, length: int) -> None:
    """Make and remove a file of a name ``length`` bytes long in ``out``: the folder takes the
    hunt's files (writable, names that long), told now rather than after the search."""
    name = f".hunt-probe-{os.getpid()}-"
    path = out / (name + "x" * max(0, length - len(name)))
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    except OSError as err:
        why = (f"the file system there takes no file names of {length} bytes, which this hunt writes; choose another --out"
               if err.errno == errno.ENAMETOOLONG else f"cannot write there ({err.strerror or err})")
        raise UsageError(f"--out {one_line(str(out))}: {why}") from None
    os.close(fd)
    path.unlink()


def _claim(out: Path, index: dict, names: list[str], why: str = "") -> None:
    """Refuse, before anything is written, any name that is a file hunt did not write there."""
    ours = {e["file"] for e in index["found"]} | {c["file"] for c in index.get("crashes", [])}
    theirs = [n for n in names if os.path.lexists(out / n) and n not in ours]
    if theirs:
        raise UsageError(f"{one_line(str(out / theirs[0]))}: exists and is not one of this folder's hunt files ({INDEX}){why}; rename it (not "
                         "'hunt-...' or 'crash-...'), or choose another --out")


def _regular(out: Path, names: list[str]) -> None:
    """Refuse, before anything is searched or written, a name hunt may replace that is in ``out``
    as something other than a regular file (a folder, a link, a FIFO): replacing it would fail,
    or follow it."""
    for name in names:
        try:
            mode = os.lstat(out / name).st_mode
        except FileNotFoundError:
            continue
        except OSError as err:
            raise UsageError(f"{one_line(str(out / name))}: {one_line(err.strerror or str(err))}; hunt may replace it; "
                             "choose another --out") from None
        if not stat.S_ISREG(mode):
            what = "a folder" if stat.S_ISDIR(mode) else "a symbolic link" if stat.S_ISLNK(mode) else "not a regular file"
            raise UsageError(f"{one_line(str(out / name))}: {what}, where {INDEX} lists a scenario hunt may replace; nothing was "
                             "searched nor written: move it away (or remove its entry from the index), or choose another --out")


def _digest(data: bytes) -> str:
    return data_digest(data)[1]


def _unchanged(out: Path, index: dict, names: list[str]) -> None:
    """Refuse, before anything is written, to replace a file hunt wrote that was changed since (its
    digest in the index differs: notes added, say). An index from before digests were kept says
    nothing either way."""
    recorded = {e["file"]: e.get("sha256") for e in [*index["found"], *index.get("crashes", [])]}
    for name in names:
        want, path = recorded.get(name), out / name
        if isinstance(want, str) and path.is_file():
            now = file_digest(path)
            if now is None or now[1] != want:
                raise UsageError(f"{one_line(str(path))}: changed since hunt wrote it ({INDEX} holds what it wrote); refusing to replace it: "
                                 "keep your copy under a name that does not start with 'hunt-' or 'crash-', or choose another --out")


def write(found: list[Found], target: Target, seed: int, out: Path, crashes: Optional[list] = None) -> tuple[list[dict], list[dict]]:
    """Write the kept programs into ``out`` and update its index: a signature already there keeps
    the smaller program. Returns the index entries of this hunt's signatures and its crashes."""
    index = prepare(out)
    crash_rows = []
    for k, program, error, fault in (crashes or [])[:20]:
        crash_rows.append({"file": crash_name(target, seed, k), "example": k, "error": error,
                           "fault": list(fault) if fault else None, "program": program})
    _name_found(found, target, index)
    names = [f.file for f in found] + [c["file"] for c in crash_rows]
    _claim(out, index, names)
    old = {e["file"]: e for e in index["found"]}
    _unchanged(out, index, [f.file for f in found if f.file not in old or old[f.file]["steps_after"] > len(f.program.steps)]
               + [c["file"] for c in crash_rows])
    with _adding(out, names):
        return _write_files(found, crash_rows, target, seed, out, index), crash_rows


def _name_found(found: list[Found], target: Target, index: dict) -> None:
    """Each kept program's file: the one the folder's index already gives its signature (a folder
    an earlier hunt wrote, under whatever naming it had), else :func:`file_name`. A name is never
    one another signature's entry holds (nor a crash's): only a forged index gets there, refused."""
    owner = {e["file"]: _key(e) for e in index["found"]} | {c["file"]: ("crash", c["file"]) for c in index.get("crashes", [])}
    shared = {n for n in owner if sum(1 for e in index["found"] if e["file"] == n) > 1}
    by_key = {_key(e): e["file"] for e in index["found"] if e["file"] not in shared}
    for f in found:
        key = _key_of(f.signature, target)
        f.file = by_key.get(key) or file_name(f.signature, target)
        if owner.get(f.file, key) != key:
            raise UsageError(f"{one_line(str(f.file))}: {INDEX} lists it for another signature, and hunt would write "
                             f"{one_line(str(f.signature))} there; nothing was written: choose another --out")


def _write_files(found: list[Found], crash_rows: list[dict], target: Target, seed: int, out: Path, index: dict) -> list[dict]:
    """Write the scenario files and then the index; every text is made and checked to load
    before the first is written (one that does not: refused, nothing written)."""
    entries = {e["file"]: e for e in index["found"]}
    same = {_key_of(f.signature, target): f.file for f in found}
    for e in index["found"]:  # an entry of this hunt's signature under another file (a name shared in an old index): now f.file
        if same.get(_key(e), e["file"]) != e["file"] and entries.get(e["file"]) is e:
            del entries[e["file"]]
    mine, texts = [], {}
    for f in found:
        old = entries.get(f.file)
        if old is not None and old["steps_after"] <= len(f.program.steps):
            mine.append(old)  # the folder's program is as small: kept
            continue
        texts[f.file] = scenario_text(f, target, seed, f.file[:-5])
        entries[f.file] = _entry(f, target)
        mine.append(entries[f.file])
    known = {c["file"]: c for c in index.get("crashes", [])}
    for c in crash_rows:
        program = c.pop("program")
        fault = (f"; with meshspec.sim.faults.Fault(kind={c['fault'][0]}, step={c['fault'][1]}, coord={tuple(c['fault'][2])}) injected"
                 if c["fault"] else "")
        texts[c["file"]] = program.text(c["file"][:-5], f"meshspec itself failed on this program{fault}: {one_line(c['error'])}")
        known[c["file"]] = c
    for name, text in texts.items():
        _loads(text, out / name)
    for name, text in texts.items():
        replace_entry(out / name, text)
        (entries.get(name) or known[name])["sha256"] = _digest(text.encode("utf-8"))
    index["found"] = sorted(entries.values(), key=lambda e: e["file"])
    index["crashes"] = sorted(known.values(), key=lambda c: c["file"])
    replace_entry(out / INDEX, json.dumps(index, indent=1) + "\n")
    return mine


def _loads(text: str, path: Path) -> None:
    """Refuse to write ``text`` at ``path`` unless it loads as a scenario (what hunt writes loads)."""
    from ..errors import ScenarioError
    from ..scenario.loader import parse

    try:
        parse(text, path)
    except ScenarioError as err:
        raise UsageError(f"{one_line(str(path))}: hunt made a scenario that does not load ({one_line(err.message)}); nothing "
                         f"was written; {REPORT_IT}") from None


@contextlib.contextmanager
def _adding(out: Path, names: list[str]):
    """``names`` are about to be written into ``out``, then its index: if that fails part way (a
    full disk, an interrupt), the ones that were not there before are removed again, so the index
    still lists every file in the folder and the next hunt into it is not refused."""
    new = [out / n for n in names if not (out / n).exists()]
    try:
        yield
    except BaseException:
        for path in new:
            path.unlink(missing_ok=True)
        raise


def _entry(f: Found, target: Target) -> dict:
    return {"file": f.file, "kind": f.signature.kind, "rule": f.signature.rule, "op": f.signature.op,
            "steps_before": f.steps_before, "steps_after": len(f.program.steps), "profile": target.profile,
            "against": target.against if not target.fault else f"{target.profile} (no fault)"}


_ENTRY = {"file": str, "kind": str, "rule": str, "op": str, "steps_before": int, "steps_after": int, "profile": str, "against": str}
_AGAINST = re.compile(rf"{NAME}( \(no fault\))?")
_SHA256 = re.compile(r"[0-9a-f]{64}")
MAX_STEPS = 10**6
"""The most steps an index may say a program had."""


def _entry_problem(e: object) -> Optional[str]:
    """What is wrong with an index's ``found`` entry (None: nothing): each field of its type and
    under the rule a hunt writes it by (names by :func:`meshspec.names.is_name`, a file by
    :func:`is_file`), so nothing from a foreign index reaches a file name or a terminal unchecked."""
    if not isinstance(e, dict):
        return "needs an object"
    bad = next((k for k, t in _ENTRY.items() if not isinstance(e.get(k), t) or isinstance(e.get(k), bool)), None)
    if bad is not None:
        return f"needs {bad!r} ({_ENTRY[bad].__name__})"
    checks = (("file", is_file(e["file"]), "a scenario file name in the folder (NAME.yaml), no path"),
              ("kind", is_name(e["kind"]), "a finding kind"),
              ("rule", _RULE.fullmatch(e["rule"]) is not None, "several, fault:KIND or RULE=CHOICE"),
              ("op", e["op"] == "" or is_name(e["op"]), "an op's name"),
              ("profile", is_name(e["profile"]), "a profile's name"),
              ("against", _AGAINST.fullmatch(e["against"]) is not None, "a profile's name"),
              ("steps_before", 0 <= e["steps_before"] <= MAX_STEPS, f"0 to {MAX_STEPS}"),
              ("steps_after", 0 <= e["steps_after"] <= MAX_STEPS, f"0 to {MAX_STEPS}"),
              ("sha256", e.get("sha256") is None or (isinstance(e["sha256"], str) and _SHA256.fullmatch(e["sha256"]) is not None),
               "64 hex digits"))
    for key, ok, want in checks:
        if not ok:
            return f"{key} {one_line(repr(e[key])[:80])}: {want}"
    return None


def _crash_problem(c: object) -> Optional[str]:
    """What is wrong with an index's ``crashes`` entry (None: nothing)."""
    if not isinstance(c, dict):
        return "needs an object"
    if not is_file(c.get("file")):
        return f"file {one_line(repr(c.get('file'))[:80])}: a scenario file name in the folder (NAME.yaml), no path"
    if not isinstance(c.get("example"), int) or isinstance(c.get("example"), bool) or not isinstance(c.get("error"), str):
        return "needs 'example' (int) and 'error' (str)"
    fault = c.get("fault")
    if fault is not None and not (isinstance(fault, list) and len(fault) == 3 and is_name(fault[0]) and isinstance(fault[1], int)
                                  and isinstance(fault[2], list) and all(isinstance(x, int) for x in fault[2])):
        return "fault: null or [KIND, STEP, [COORD...]]"
    if c.get("sha256") is not None and not (isinstance(c["sha256"], str) and _SHA256.fullmatch(c["sha256"])):
        return "sha256: 64 hex digits"
    return None


_CRASH = ("file", "example", "error", "fault", "sha256")


def read_index(folder: Path) -> dict:
    """A folder's ``hunt.json`` (a regular file in it, at most :data:`MAX_INDEX_BYTES`), checked
    entry by entry (:func:`_entry_problem`); the entries keep only the fields a hunt writes."""
    path = folder / INDEX
    raw, why = _read_inside(folder, INDEX, MAX_INDEX_BYTES)
    if raw is None:
        raise UsageError(f"{one_line(str(path))}: not a hunt index ({why})")
    try:
        data = json.loads(raw.decode("utf-8"))
    except (ValueError, RecursionError) as err:
        raise UsageError(f"{one_line(str(path))}: not a hunt index ({one_line(str(err))[:200]})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("found"), list):
        raise UsageError(f"{one_line(str(path))}: not a hunt index (format {FORMAT})")
    for i, e in enumerate(data["found"]):
        bad = _entry_problem(e)
        if bad:
            raise UsageError(f"{one_line(str(path))}: found[{i}]: {bad}")
    crashes = data.get("crashes", [])
    if not isinstance(crashes, list):
        raise UsageError(f"{one_line(str(path))}: crashes: a list of {{file: NAME.yaml, ...}}")
    for i, c in enumerate(crashes):
        bad = _crash_problem(c)
        if bad:
            raise UsageError(f"{one_line(str(path))}: crashes[{i}]: {bad}")
    return {"format": FORMAT, "found": [{k: e[k] for k in (*_ENTRY, "sha256") if k in e} for e in data["found"]],
            "crashes": [{k: c[k] for k in _CRASH if k in c} for c in crashes]}


def _read_inside(folder: Path, name: str, limit: int) -> tuple[Optional[bytes], str]:
    """The bytes of ``name``, a regular file directly inside ``folder`` of at most ``limit``
    bytes, or (None, why not): no symbolic link (not even to a file in the folder), no FIFO or
    device, nothing that resolves outside ``folder``. The file is opened without following a
    link and without waiting (a FIFO), and what it is comes from the open file."""
    path = folder / name
    if "/" in name or name in ("", ".", ".."):
        return None, "not a file name in the folder"
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None, "missing"
    except OSError as err:
        return None, err.strerror or str(err)
    if stat.S_ISLNK(info.st_mode):
        return None, "a symbolic link"
    if not stat.S_ISREG(info.st_mode):
        return None, "not a regular file"
    try:
        if path.resolve().parent != folder.resolve():
            return None, "outside the folder"
        fd = os.open(path, os.O_RDONLY | NONBLOCK | getattr(os, "O_NOFOLLOW", 0))
    except (OSError, RuntimeError) as err:
        return None, getattr(err, "strerror", None) or str(err)
    try:
        now = os.fstat(fd)
        if not stat.S_ISREG(now.st_mode) or (now.st_dev, now.st_ino) != (info.st_dev, info.st_ino):
            return None, "not a regular file"
        if now.st_size > limit:
            return None, f"{now.st_size:,} bytes, over {limit:,}"
        raw = read_all(fd, now.st_size, limit)
    except OSError as err:
        return None, err.strerror or str(err)
    finally:
        os.close(fd)
    if len(raw) > limit:
        return None, f"over {limit:,} bytes"
    return raw, ""


def _scenario_in(folder: Path, name: str) -> tuple[Optional[str], str]:
    """The text of ``name`` in ``folder`` if it is a regular file there that loads as a scenario;
    otherwise (None, why not)."""
    from ..errors import ScenarioError
    from ..scenario.loader import MAX_FILE_BYTES, parse

    raw, why = _read_inside(folder, name, MAX_FILE_BYTES)
    if raw is None:
        return None, why
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None, "not UTF-8 text"
    try:
        parse(text, folder / name)
    except ScenarioError as err:
        return None, f"does not load as a scenario: {err}"
    return text, ""


def _owners(index: dict, name: str) -> int:
    """How many entries of ``index`` (found and crashes) name the file ``name``."""
    return sum(1 for e in [*index["found"], *index.get("crashes", [])] if e["file"] == name)


def _merged_index(folder: Path) -> dict:
    """A hunt folder's index (a folder to merge)."""
    if not os.path.lexists(folder / INDEX):
        raise UsageError(f"{one_line(str(folder))}: not a hunt folder (no {INDEX})")
    return read_index(folder)


def merge(folders: list[Path], out: Path, skipped: Optional[list[str]] = None) -> list[dict]:
    """Join hunt folders into ``out`` (its own entries included): per signature and profile pair,
    the smallest scenario (fewest steps), its file copied; crashes kept. Only regular files
    directly inside a folder that load as scenarios are copied (:func:`_scenario_in`); each one
    skipped is added to ``skipped`` as one line (the file and why)."""
    given = [(folder, _merged_index(folder)) for folder in folders]  # all read first: a bad one leaves no --out behind
    skipped = skipped if skipped is not None else []
    texts: dict[tuple[Path, str], str] = {}

    def usable(folder: Path, name: str) -> bool:
        if (folder, name) not in texts:
            text, why = _scenario_in(folder, name)
            if text is None:
                skipped.append(f"{one_line(str(folder / name))}: {one_line(why)}")
                return False
            texts[folder, name] = text
        return True

    index = prepare(out)
    best: dict[tuple, tuple[dict, Path]] = {}
    crashes: dict[str, tuple[dict, Path]] = {c["file"]: (c, out) for c in index["crashes"]}

    for e in index["found"]:
        best[_key(e)] = (e, out)
    for folder, data in given:
        for e in data["found"]:
            if (_key(e) not in best or e["steps_after"] < best[_key(e)][0]["steps_after"]) and usable(folder, e["file"]):
                best[_key(e)] = (e, folder)
    # where each copied scenario goes: its own signature's name (the file OUT's index gives that
    # signature, else entry_file of it), never the foreign index's name; a name another signature
    # or a crash of OUT holds is not replaced: that entry is skipped, said why
    held = {e["file"]: _key(e) for e in index["found"]} | {c["file"]: None for c in index["crashes"]}
    source: dict[tuple, str] = {}
    for k, (e, folder) in sorted(best.items()):
        if folder == out:
            continue
        own = next((x["file"] for x in index["found"] if _key(x) == k), None)
        dest = own if own is not None and _owners(index, own) == 1 else entry_file(k)
        if held.get(dest, k) != k:
            skipped.append(f"{one_line(str(folder / e['file']))}: {one_line(dest)} in {one_line(str(out))} holds another "
                           "signature's scenario; not merged")
            previous = next((x for x in index["found"] if _key(x) == k), None)
            if previous is not None:
                best[k] = (previous, out)
            else:
                del best[k]
            continue
        held[dest] = k
        source[k] = e["file"]
        best[k] = (e | {"file": dest}, folder)
    for folder, data in given:
        for c in data["crashes"]:
            if c["file"] in held and c["file"] not in crashes:
                skipped.append(f"{one_line(str(folder / c['file']))}: {one_line(str(out))} already holds a scenario of that name; not merged")
            elif c["file"] not in crashes and usable(folder, c["file"]):
                crashes[c["file"]] = (c, folder)
                held[c["file"]] = None
    copied = [(e, f, source[_key(e)]) for e, f in best.values() if f != out] + [(c, f, c["file"]) for c, f in crashes.values() if f != out]
    names = [e["file"] for e, _, _ in copied]
    _claim(out, index, names)
    _unchanged(out, index, names)
    _regular(out, names)
    chosen = {e["file"]: texts[folder, name] for e, folder, name in copied}
    stamped = {name: _digest(text.encode("utf-8")) for name, text in chosen.items()}

    def ours(e: dict) -> dict:  # its digest: of what this folder now holds
        return e | {"sha256": stamped[e["file"]]} if e["file"] in stamped else e

    kept = sorted((ours(e) for e, _ in best.values()), key=lambda e: e["file"])
    with _adding(out, names):
        for name, text in chosen.items():
            replace_entry(out / name, text)
        index.update(found=kept, crashes=sorted((ours(c) for c, _ in crashes.values()), key=lambda c: c["file"]))
        replace_entry(out / INDEX, json.dumps(index, indent=1) + "\n")
    return kept
