"""``meshspec hunt`` behind its command: options checked and turned into a hunt, a progress
bar on a terminal, the folder written, the summary rendered."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Optional

from ..errors import UsageError

if TYPE_CHECKING:
    from ..render.options import Format


def parse_time(text: str) -> float:
    """``60s``, ``2m``, ``1h`` or a number of seconds."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([smh]?)\s*", text)
    if not m:
        raise UsageError(f"--time {text!r}: write a duration such as 60s, 2m or 1h")
    if float(m.group(1)) <= 0:
        raise UsageError(f"--time {text!r}: a hunt needs some time; give more than 0 (such as 60s, 2m or 1h)")
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600}[m.group(2)]


def parse_mesh(text: str) -> tuple[object, tuple[int, ...]]:
    """A system name or a shape (``2x4``, ``2,4``) -> (as a scenario writes it, its shape)."""
    from ..errors import did_you_mean
    from ..sim.mesh import SYSTEMS, volume

    if text in SYSTEMS:
        return text, tuple(SYSTEMS[text].shape)
    parts = re.split(r"[x,]", text.strip())
    if all(p.strip().isdigit() for p in parts) and 1 <= len(parts) <= 3:
        shape = tuple(int(p) for p in parts)
        if 0 in shape:
            raise UsageError(f"--mesh {text!r}: every dim of a mesh is at least 1 device")
        if len(shape) == 1:
            shape = (1, shape[0])
        n = volume(shape)
        if n > 1024:
            raise UsageError(f"--mesh {text!r}: {n} devices; hunt runs many programs, use a mesh of at most 1024 devices")
        return list(shape), shape
    raise UsageError(f"--mesh {text!r}: a system ({', '.join(SYSTEMS)}){did_you_mean(text, list(SYSTEMS))} or a shape such as 2x4")


def main(profile: Optional[str], against: Optional[str], meshes: Optional[list[str]], ops: Optional[str], time_budget: Optional[str],
         examples: Optional[int], seed: int, shard_spec: Optional[str], fault: Optional[str], profiles_file: Optional[Path],
         merge: Optional[list[Path]], out: Optional[Path], fmt: "Format", max_memory: Optional[int] = None,
         max_work: Optional[int] = None, real: Optional[str] = None) -> tuple[str, int]:
    """The summary to print and the exit code: 0 nothing found, 1 disagreements found, 3 when
    meshspec itself failed on a program (its bug; the program is kept), 130 when interrupted.
    ``max_memory`` and ``max_work`` bound every run of every program (the runner's defaults when
    None); a program past either is skipped and counted in the summary. ``real``: the programs
    run on the real ttnn of that Python (or env.sh) instead, against its version's profile."""
    if real is not None:
        return _real(real, profile, against, meshes, ops, time_budget, examples, seed, shard_spec, fault, profiles_file, merge, out, fmt)
    from ..check import parse_shard
    from ..render.hunt import summary_data
    from .hunt import Progress, check_ops, hunt, merge as merge_folders, prepare, unreachable, write
    from .search import Deadline, Target

    if out is None and profile is None and merge is None:  # nothing given: say all that a hunt needs at once
        raise UsageError(
            "hunt needs --profile NAME (the profile to hunt: e.g. current, uniform-by-value, or one --profiles defines) "
            "and --out DIR (the folder the scenarios go to); e.g. meshspec hunt --profile uniform-by-value --out hunt"
        )
    if out is None:
        raise UsageError("--out DIR: the folder the scenarios go to")
    if merge is not None:
        if not merge:
            raise UsageError("--merge: give the hunt folders to merge, e.g. meshspec hunt --merge run1 run2 --out all")
        skipped: list[str] = []
        entries = merge_folders(merge, out, skipped)
        data = summary_data(entries, None, None, [], str(out), merged=len(merge), skipped=skipped)
        return _summary(data, fmt), 1 if entries else 0
    if profile is None:
        raise UsageError("--profile: the profile to hunt (e.g. current, uniform-by-value, or one --profiles defines)")
    if examples is not None and time_budget is not None:
        raise UsageError("--time and --examples: give one (examples are deterministic, a time is not)")
    if fault is not None and against is not None and against != profile:
        raise UsageError(f"--fault compares {profile} with itself unmodified; drop --against {against}")
    seconds = parse_time(time_budget) if time_budget is not None else (None if examples is not None else 60.0)
    own = {}
    if profiles_file is not None:
        from ..scenario.loader import load

        own = dict(load(profiles_file).profiles)
    target = Target(profile, against or "reference", own, fault, max_memory=max_memory, max_work=max_work)
    if target.profile == target.against and not fault:
        raise UsageError(f"--profile {profile} --against {target.against}: the same profile never disagrees with itself")
    shard = parse_shard(shard_spec) if shard_spec else (1, 1)
    mesh_list = [parse_mesh(m) for m in (meshes or ["t3k"])]
    vocabulary = check_ops([o.strip() for o in ops.split(",") if o.strip()] if ops else None)
    deadline = Deadline(seconds)  # wall-clock for the whole hunt: from here, the search and every shrink
    prepare(out, target, seed)  # before the search: a folder that cannot take the files fails now, not after an hour
    progress = Progress()
    with _bar(seconds, examples) as tick:
        found = hunt(target, mesh_list, vocabulary, seed=seed, examples=examples, deadline=deadline, shard=shard, on_progress=tick,
                     progress=progress)
    entries, crashes = write(found, target, seed, out, progress.crashes)
    data = summary_data(entries, progress.tried, progress.disagreements, crashes, str(out),
                        unreachable=[] if fault else unreachable(target, vocabulary), interrupted=progress.interrupted,
                        shrinks_stopped=progress.shrinks_stopped, over_limit=progress.over_limit)
    code = 130 if progress.interrupted else 3 if crashes else 1 if entries else 0
    return _summary(data, fmt), code


def _summary(data: dict, fmt: "Format") -> str:
    from ..render.hunt import summary_json, summary_text
    from ..render.options import Format

    match fmt:
        case Format.TABLE:
            return summary_text(data)
        case Format.JSON:
            return summary_json(data)


def _real(real: str, profile: Optional[str], against: Optional[str], meshes: Optional[list[str]], ops: Optional[str],
          time_budget: Optional[str], examples: Optional[int], seed: int, shard_spec: Optional[str], fault: Optional[str],
          profiles_file: Optional[Path], merge: Optional[list[Path]], out: Optional[Path], fmt: "Format") -> tuple[str, int]:
    """``hunt --real``: its options checked, then :func:`meshspec.hunt.real.main`."""
    from .real import main as real_main

    for given, option in ((against, "--against"), (fault, "--fault"), (merge, "--merge"), (shard_spec, "--shard")):
        if given is not None:
            raise UsageError(f"{option} with --real: a real hunt compares ttnn with the simulation of its version's profile; drop {option}")
    if out is None:
        raise UsageError("--out DIR: the folder the scenarios and the real and simulated reports go to")
    if examples is not None and time_budget is not None:
        raise UsageError("--time and --examples: give one (examples are deterministic, a time is not)")
    seconds = parse_time(time_budget) if time_budget is not None else (None if examples is not None else 60.0)
    own = {}
    if profiles_file is not None:
        from ..scenario.loader import load

        own = dict(load(profiles_file).profiles)
    mesh_list = [parse_mesh(m) for m in (meshes or ["t3k"])]
    chosen = tuple(o.strip() for o in ops.split(",") if o.strip()) if ops else None
    return real_main(real, profile, mesh_list, chosen, seconds, examples, seed, own, out, fmt)


class _bar:
    """A rich progress bar on stderr when it is a terminal; otherwise nothing."""

    def __init__(self, seconds: Optional[float], examples: Optional[int]) -> None:
        self.total = examples
        self.seconds = seconds
        self.live = sys.stderr is not None and sys.stderr.isatty()  # (None: started with 2>&-)

    def __enter__(self):
        if not self.live:
            return None
        import time

        from rich.console import Console
        from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

        self.start = time.monotonic()
        self.bar = Progress(TextColumn("hunting"), BarColumn(), TextColumn("{task.fields[what]}"), TimeRemainingColumn(),
                            console=Console(stderr=True), transient=True)
        self.bar.__enter__()
        self.task = self.bar.add_task("hunt", total=self.total or self.seconds, what="")

        def tick(p) -> None:
            done = p.tried if self.total else time.monotonic() - self.start
            what = f"{p.tried} tried, {p.disagreements} disagreed, {p.distinct} signatures"
            self.bar.update(self.task, completed=done, what=what)

        return tick

    def __exit__(self, *exc) -> None:
        if self.live:
            self.bar.__exit__(*exc)
