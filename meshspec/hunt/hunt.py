"""The hunt itself: generate, compare, shrink, deduplicate, write (``meshspec hunt``).

Example ``k`` of seed ``s`` is generated from ``random.Random(f"{s}:{k}")`` on the mesh
``meshes[k % len(meshes)]``; ``--shard K/N`` takes the examples with ``k % N == K - 1``, so a CI
matrix explores disjoint programs and ``--merge`` joins their folders. Each distinct signature
keeps its smallest program, written as a scenario whose ``expect`` block states what each profile
reports; ``hunt.json`` in the folder indexes them.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from ..errors import UsageError
from .programs import VOCABULARY, MeshSpec, Program, generate
from .search import Crash, Signature, Target, judge, shrink

INDEX = "hunt.json"
FORMAT = "meshspec.hunt/1"


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
    """(example, program, error) where meshspec itself failed: its bugs, kept to report."""


def check_ops(ops: Optional[list[str]]) -> tuple[str, ...]:
    if not ops:
        return VOCABULARY
    bad = [o for o in ops if o not in VOCABULARY]
    if bad:
        from ..errors import did_you_mean

        raise UsageError(f"--ops {bad[0]!r}: hunt writes {', '.join(VOCABULARY)}{did_you_mean(bad[0], list(VOCABULARY))}")
    if "from_torch" not in ops:
        raise UsageError("--ops: include from_torch (nothing reaches a device without a host tensor)")
    return tuple(ops)


def hunt(target: Target, meshes: list[tuple[MeshSpec, tuple[int, ...]]], ops: tuple[str, ...], *, seed: int = 0,
         examples: Optional[int] = None, seconds: Optional[float] = None, shard: tuple[int, int] = (1, 1),
         on_progress: Optional[Callable[[Progress], None]] = None, progress: Optional[Progress] = None) -> list[Found]:
    """Search until ``examples`` programs were tried (deterministic) or ``seconds`` passed;
    ``progress`` (given or made) counts what was tried and keeps meshspec's own crashes."""
    k_of, n_of = shard
    found: dict[Signature, Found] = {}
    progress = progress if progress is not None else Progress()
    start = time.monotonic()
    k = k_of - 1
    while True:
        if examples is not None and progress.tried >= examples:
            break
        if seconds is not None and time.monotonic() - start >= seconds:
            break
        mesh, shape = meshes[k % len(meshes)]
        program = generate(random.Random(f"{seed}:{k}"), shape, mesh, ops)
        progress.tried += 1
        try:
            out = judge(program, target)
            if out is not None and out.signatures:
                progress.disagreements += 1
                for sig in out.signatures:
                    if sig in found and len(found[sig].program.steps) <= 2:
                        continue
                    small = shrink(program, target, sig)
                    if sig not in found or _smaller(small, found[sig].program):
                        found[sig] = Found(sig, small, len(program.steps), k)
                progress.distinct = len(found)
        except Crash as err:
            progress.crashes.append((k, program, str(err)))
        if on_progress is not None:
            on_progress(progress)
        k += n_of
    return sorted(found.values(), key=lambda f: f.signature)


def _smaller(a: Program, b: Program) -> bool:
    from .search import _devices

    return (len(a.steps), _devices(a.mesh), len(a.text())) < (len(b.steps), _devices(b.mesh), len(b.text()))


def scenario_text(f: Found, target: Target, seed: int, name: str) -> str:
    """The kept program as a scenario: a description naming the rule, and an expect block with
    exactly what each side reports (so it drops into a ``meshspec check`` suite as written)."""
    from ..sim.profiles import RULES
    from .search import _load, _run, fault_for

    sig = f.signature
    extra: dict = {}
    own: dict = {}
    for wanted in (target.profile, target.against):  # user profiles named, and the user profiles they are based on
        while wanted in target.own and wanted not in own:
            own[wanted] = target.own[wanted]
            wanted = target.own[wanted].base or ""
    own = dict(reversed(list(own.items())))  # a base before the profiles built on it
    if own:
        extra["profiles"] = {n: _profile_block(p) for n, p in own.items()}
    scenario = _load(f.program, target.own)
    sides = [target.against] if target.fault else [target.profile, target.against]
    expect: dict = {}
    for prof in sides:
        report = _run(scenario, prof)
        block: dict = {"findings": [_pattern(x) for x in report.findings]}
        if report.error is not None:
            block["error"] = report.error.message[:80]
        expect[prof] = block
    extra["profile"] = target.against if target.fault else target.profile
    extra["expect"] = {"profiles": expect}
    if sig.rule.startswith("fault:"):
        kind = sig.rule.split(":")[1]
        fault = fault_for(f.program, kind, tuple(scenario.mesh_shape))
        why = (f"With the fault {kind} injected at its first write (step {fault.step}) on device {list(fault.coord)}, "
               f"{target.profile} reports {sig.kind} at {sig.op}; without it, nothing of the kind (the expect block: the "
               "unmodified profile; faults are not scenario settings).")
    elif sig.rule == "several":
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


def _profile_block(p) -> dict:
    from ..sim.profiles import RULES, get_profile

    base = get_profile(p.base) if p.base else None
    block: dict = {"base": p.base}
    if p.era:
        block["era"] = p.era
    for r in RULES:
        if base is None or p.rule(r) != base.rule(r):
            block[r] = p.rule(r).value
    return block


def write(found: list[Found], target: Target, seed: int, out: Path) -> list[Found]:
    """Write each kept program into ``out`` (made if missing; an existing file of the same name
    is another hunt's and is replaced only by this hunt's index) and the index ``hunt.json``."""
    out.mkdir(parents=True, exist_ok=True)
    index = _read_index(out) if (out / INDEX).exists() else {"format": FORMAT, "found": []}
    taken = {e["file"] for e in index["found"]}
    for f in found:
        name = f"hunt-{f.signature.slug()}"
        f.file = f"{name}.yaml"
        path = out / f.file
        if path.exists() and f.file not in taken:
            raise UsageError(f"{path}: exists and is not one of this folder's hunt files (hunt.json); choose another --out")
        path.write_text(scenario_text(f, target, seed, name), encoding="utf-8")
    entries = {e["file"]: e for e in index["found"]}
    for f in found:
        entries[f.file] = _entry(f, target)
    index["found"] = sorted(entries.values(), key=lambda e: e["file"])
    (out / INDEX).write_text(json.dumps(index, indent=1) + "\n", encoding="utf-8")
    return found


def _entry(f: Found, target: Target) -> dict:
    return {"file": f.file, "kind": f.signature.kind, "rule": f.signature.rule, "op": f.signature.op,
            "steps_before": f.steps_before, "steps_after": len(f.program.steps), "profile": target.profile,
            "against": target.against}


def _read_index(folder: Path) -> dict:
    path = folder / INDEX
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise UsageError(f"{path}: not a hunt index ({err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("found"), list):
        raise UsageError(f"{path}: not a hunt index (format {FORMAT})")
    return data


def merge(folders: list[Path], out: Path) -> list[dict]:
    """Join hunt folders into ``out``: per signature (kind, rule, op, profiles), the smallest
    scenario (fewest steps), its file copied."""
    best: dict[tuple, tuple[dict, Path]] = {}
    for folder in folders:
        if not (folder / INDEX).is_file():
            raise UsageError(f"{folder}: not a hunt folder (no {INDEX})")
        for e in _read_index(folder)["found"]:
            key = (e["kind"], e["rule"], e["op"], e["profile"], e["against"])
            if key not in best or e["steps_after"] < best[key][0]["steps_after"]:
                best[key] = (e, folder)
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise UsageError(f"--out {out}: {err.strerror or err}") from None
    kept = []
    for e, folder in sorted(best.values(), key=lambda v: v[0]["file"]):
        src, dst = folder / e["file"], out / e["file"]
        if src.resolve() != dst.resolve():
            if dst.exists() and not (out / INDEX).exists():
                raise UsageError(f"{dst}: exists and is not a hunt file; choose another --out")
            dst.write_text(src.read_text(encoding="utf-8"), encoding="utf-8")
        kept.append(e)
    (out / INDEX).write_text(json.dumps({"format": FORMAT, "found": kept}, indent=1) + "\n", encoding="utf-8")
    return kept
