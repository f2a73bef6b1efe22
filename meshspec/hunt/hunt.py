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
import glob
import json
import os
import random
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..files import replace_entry
from ..written import data_digest, file_digest

from ..errors import UsageError
from ..report import HUNT_FORMAT
from .programs import RULE_OPS, VOCABULARY, MeshSpec, Program, generate
from .search import Crash, Signature, Target, attribute, judge, shrink

INDEX = "hunt.json"
FORMAT = HUNT_FORMAT
_FILE = re.compile(r"[A-Za-z0-9][A-Za-z0-9._+-]*\.yaml")
"""A file an index may name: a plain scenario file name in the folder, no path."""


@dataclass
class Found:
    signature: Signature
    program: Program
    steps_before: int
    example: int
    file: str = ""


@dataclass
class Progress:
    tried: int = 0
    disagreements: int = 0
    distinct: int = 0
    crashes: list = field(default_factory=list)
    """(example, program, error, fault) where meshspec itself failed: its bugs, kept to report."""
    interrupted: bool = False
    """Stopped by an interrupt (Ctrl-C): what was found so far is kept."""


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
         on_progress: Optional[Callable[[Progress], None]] = None, progress: Optional[Progress] = None) -> list[Found]:
    """Search until ``examples`` programs were tried (deterministic) or ``seconds`` passed (the
    shrinking included), or an interrupt; ``progress`` (given or made) counts what was tried and
    keeps meshspec's own crashes."""
    k_of, n_of = shard
    found: dict[Signature, Found] = {}
    progress = progress if progress is not None else Progress()
    deadline = time.monotonic() + seconds if seconds is not None else None
    k = k_of - 1
    try:
        while True:
            if examples is not None and progress.tried >= examples:
                break
            if deadline is not None and time.monotonic() >= deadline:
                break
            mesh, shape = meshes[random.Random(f"{seed}:{k}:mesh").randrange(len(meshes))]  # by k alone, whatever the shard
            program = generate(random.Random(f"{seed}:{k}"), shape, mesh, ops)
            progress.tried += 1
            try:
                out = judge(program, target)
                if out is not None and out.signatures:
                    progress.disagreements += 1
                    for sig in out.signatures:
                        if sig in found and len(found[sig].program.steps) <= 2:
                            continue
                        small = shrink(program, target, sig, deadline=deadline)
                        final = attribute(small, target, sig)  # the rule again, on the program kept
                        if final not in found or _smaller(small, found[final].program):
                            found[final] = Found(final, small, len(program.steps), k)
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


def file_name(sig: Signature, target: Target) -> str:
    """``hunt-<profile>-vs-<against>-<kind>-<rule>-<op>.yaml`` (a fault: ``<profile>-with-<fault>``)."""
    return f"hunt-{target.label}-{sig.slug()}.yaml"


def scenario_text(f: Found, target: Target, seed: int, name: str) -> str:
    """The kept program as a scenario: a description naming the rule, and an expect block with
    exactly what each side reports (so it drops into a ``meshspec check`` suite as written). A
    fault is no scenario setting: the expect block states the unmodified profile only."""
    from ..sim.profiles import RULES
    from .search import _load, _run, fault_for

    sig = f.signature
    extra: dict = {}
    own = target.own_used()
    if own:
        extra["profiles"] = {n: _profile_block(p, target) for n, p in own.items()}
    scenario = _load(f.program, target.own)
    sides = [target.profile] if target.fault else [target.profile, target.against]
    expect: dict = {}
    for prof in sides:
        report = _run(scenario, prof)
        block: dict = {"findings": [_pattern(x) for x in report.findings]}
        if report.error is not None:
            block["error"] = report.error.message[:80]
        expect[prof] = block
    extra["profile"] = target.profile
    extra["expect"] = {"profiles": expect}
    if target.fault:
        fault = fault_for(f.program, target.fault, tuple(scenario.mesh_shape))
        head = (f"Found by meshspec hunt (seed {seed}, example {f.example}; {f.steps_before} steps, shrunk to {len(f.program.steps)}): "
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
    head = (f"Found by meshspec hunt (seed {seed}, example {f.example}; {f.steps_before} steps, shrunk to "
            f"{len(f.program.steps)}): under {target.profile}, {sig.kind} at {sig.op} that {target.against} does not report. ")
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
def prepare(out: Path, target: Optional[Target] = None, seed: int = 0) -> dict:
    """Make sure ``out`` can take a hunt's files before any search: a folder (made if missing)
    that can be written and, for ``target`` (and ``seed``), holds no file of a name its hunt may
    write that hunt did not write, nor one it wrote and you changed since (found after the search,
    the whole search would be lost); returns its index (empty for a new folder)."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--out {out}: {'is a file' if out.is_file() else 'is not a folder'}; give a folder (new, or one hunt wrote)")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: {err.strerror or err}") from None
    if not os.access(out, os.W_OK | os.X_OK):
        raise UsageError(f"--out {out}: this user cannot write there")
    index = read_index(out) if (out / INDEX).exists() else {"format": FORMAT, "found": [], "crashes": []}
    if target is not None:
        label = glob.escape(target.label)
        mine = sorted(p.name for pattern in (f"hunt-{label}-*.yaml", f"crash-{label}-{seed}-*.yaml") for p in out.glob(pattern))
        _claim(out, index, mine, " (a name this hunt may write)")
        _unchanged(out, index, mine)
    return index


def _claim(out: Path, index: dict, names: list[str], why: str = "") -> None:
    """Refuse, before anything is written, any name that is a file hunt did not write there."""
    ours = {e["file"] for e in index["found"]} | {c["file"] for c in index.get("crashes", [])}
    theirs = [n for n in names if (out / n).exists() and n not in ours]
    if theirs:
        raise UsageError(f"{out / theirs[0]}: exists and is not one of this folder's hunt files ({INDEX}){why}; rename it (not "
                         "'hunt-...' or 'crash-...'), or choose another --out")


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
                raise UsageError(f"{path}: changed since hunt wrote it ({INDEX} holds what it wrote); refusing to replace it: "
                                 "keep your copy under a name that does not start with 'hunt-' or 'crash-', or choose another --out")


def write(found: list[Found], target: Target, seed: int, out: Path, crashes: Optional[list] = None) -> tuple[list[dict], list[dict]]:
    """Write the kept programs into ``out`` and update its index: a signature already there keeps
    the smaller program. Returns the index entries of this hunt's signatures and its crashes."""
    index = prepare(out)
    crash_rows = []
    for k, program, error, fault in (crashes or [])[:20]:
        crash_rows.append({"file": f"crash-{target.label}-{seed}-{k}.yaml", "example": k, "error": error,
                           "fault": list(fault) if fault else None, "program": program})
    for f in found:
        f.file = file_name(f.signature, target)
    names = [f.file for f in found] + [c["file"] for c in crash_rows]
    _claim(out, index, names)
    old = {e["file"]: e for e in index["found"]}
    _unchanged(out, index, [f.file for f in found if f.file not in old or old[f.file]["steps_after"] > len(f.program.steps)]
               + [c["file"] for c in crash_rows])
    with _adding(out, names):
        return _write_files(found, crash_rows, target, seed, out, index), crash_rows


def _write_files(found: list[Found], crash_rows: list[dict], target: Target, seed: int, out: Path, index: dict) -> list[dict]:
    """Write the scenario files and then the index."""
    entries = {e["file"]: e for e in index["found"]}
    mine = []
    for f in found:
        old = entries.get(f.file)
        if old is not None and old["steps_after"] <= len(f.program.steps):
            mine.append(old)  # the folder's program is as small: kept
            continue
        text = scenario_text(f, target, seed, f.file[:-5])
        replace_entry(out / f.file, text)
        entries[f.file] = _entry(f, target) | {"sha256": _digest(text.encode("utf-8"))}
        mine.append(entries[f.file])
    known = {c["file"]: c for c in index.get("crashes", [])}
    for c in crash_rows:
        program = c.pop("program")
        fault = (f"; with meshspec.sim.faults.Fault(kind={c['fault'][0]}, step={c['fault'][1]}, coord={tuple(c['fault'][2])}) injected"
                 if c["fault"] else "")
        text = program.text(c["file"][:-5], f"meshspec itself failed on this program{fault}: {c['error']}")
        replace_entry(out / c["file"], text)
        known[c["file"]] = c | {"sha256": _digest(text.encode("utf-8"))}
    index["found"] = sorted(entries.values(), key=lambda e: e["file"])
    index["crashes"] = sorted(known.values(), key=lambda c: c["file"])
    replace_entry(out / INDEX, json.dumps(index, indent=1) + "\n")
    return mine


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


def read_index(folder: Path) -> dict:
    """A folder's ``hunt.json``, checked entry by entry (names are plain files in the folder)."""
    path = folder / INDEX
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: not a hunt index ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("found"), list):
        raise UsageError(f"{path}: not a hunt index (format {FORMAT})")
    for i, e in enumerate(data["found"]):
        bad = (not isinstance(e, dict) and "an object") or next(
            (f"{k!r} ({t.__name__})" for k, t in _ENTRY.items() if not isinstance(e.get(k), t) or isinstance(e.get(k), bool)), None)
        if bad:
            raise UsageError(f"{path}: found[{i}]: needs {bad}")
        if not _FILE.fullmatch(e["file"]):
            raise UsageError(f"{path}: found[{i}].file {e['file']!r}: a scenario file name in the folder, no path")
    crashes = data.setdefault("crashes", [])
    if not isinstance(crashes, list) or any(not isinstance(c, dict) or not _FILE.fullmatch(str(c.get("file", ""))) for c in crashes):
        raise UsageError(f"{path}: crashes: a list of {{file: NAME.yaml, ...}}")
    return data


def _merged_index(folder: Path) -> dict:
    """A hunt folder's index, once its every scenario file is there (a folder to merge)."""
    if not (folder / INDEX).is_file():
        raise UsageError(f"{folder}: not a hunt folder (no {INDEX})")
    data = read_index(folder)
    for e in data["found"]:
        if not (folder / e["file"]).is_file():
            raise UsageError(f"{folder / INDEX}: names {e['file']}, which is not in {folder}")
    return data


def merge(folders: list[Path], out: Path) -> list[dict]:
    """Join hunt folders into ``out`` (its own entries included): per signature and profile pair,
    the smallest scenario (fewest steps), its file copied; crashes kept."""
    given = [(folder, _merged_index(folder)) for folder in folders]  # all read first: a bad one leaves no --out behind
    index = prepare(out)
    best: dict[tuple, tuple[dict, Path]] = {}
    crashes: dict[str, tuple[dict, Path]] = {c["file"]: (c, out) for c in index["crashes"]}

    def key(e: dict) -> tuple:
        return e["kind"], e["rule"], e["op"], e["profile"], e["against"]

    for e in index["found"]:
        best[key(e)] = (e, out)
    for folder, data in given:
        for e in data["found"]:
            if key(e) not in best or e["steps_after"] < best[key(e)][0]["steps_after"]:
                best[key(e)] = (e, folder)
        for c in data["crashes"]:
            if (folder / c["file"]).is_file():
                crashes.setdefault(c["file"], (c, folder))
    copied = [(e, f) for e, f in best.values() if f != out] + [(c, f) for c, f in crashes.values() if f != out]
    names = [e["file"] for e, _ in copied]
    _claim(out, index, names)
    _unchanged(out, index, names)
    texts = {}
    for e, folder in copied:  # all read before anything is written
        try:
            texts[e["file"]] = (folder / e["file"]).read_bytes().decode("utf-8")
        except (OSError, UnicodeDecodeError) as err:
            raise UsageError(f"{folder / e['file']}: cannot read it as a scenario ({err})") from None
    stamped = {name: _digest(text.encode("utf-8")) for name, text in texts.items()}

    def ours(e: dict) -> dict:  # its digest: of what this folder now holds
        return e | {"sha256": stamped[e["file"]]} if e["file"] in stamped else e

    kept = sorted((ours(e) for e, _ in best.values()), key=lambda e: e["file"])
    with _adding(out, names):
        for name, text in texts.items():
            replace_entry(out / name, text)
        index.update(found=kept, crashes=sorted((ours(c) for c, _ in crashes.values()), key=lambda c: c["file"]))
        replace_entry(out / INDEX, json.dumps(index, indent=1) + "\n")
    return kept
