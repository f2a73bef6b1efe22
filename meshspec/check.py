"""``meshspec check``: scenarios as CI checks.

Collect scenario files, decide which profiles each runs under, run them (optionally in worker
processes), and check each run against the scenario's ``expect`` block. The pytest plugin uses
the same functions, so both report the same mismatch text.
"""

from __future__ import annotations

import contextlib
import time
from pathlib import Path
from typing import Optional, Sequence

from .errors import MeshspecError, UsageError, did_you_mean, internal_error, one_of
from .judge.expect import check_report, named_profiles, names_tensors
from .report import ERROR, FAIL, PASS, CaseResult
from .runner import missing_profile, run
from .scenario.loader import LoadedScenario, load
from .scenario.sniff import SCENARIO_SUFFIXES, looks_like_scenario
from .sim.profiles import DEFAULT_PROFILE, PROFILES


def collect(paths: Sequence[Path | str]) -> list[Path]:
    """Scenario files under each path, sorted within each folder. A file named on its own is
    always taken; in a folder, YAML that is not a scenario (a CI workflow, say) is skipped, but an
    empty file is taken (its load says it is empty).

    Raises UsageError for a path that does not exist or when nothing is found.
    """
    found: list[Path] = []
    skipped: list[Path] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            # not only regular files: a dangling link or a FIFO named *.yaml is an ERROR, not skipped
            for f in sorted(f for f in p.rglob("*") if f.suffix in SCENARIO_SUFFIXES and not f.is_dir()):
                (found if looks_like_scenario(f, empty=True) else skipped).append(f)
        elif p.is_file() or p.is_symlink() or p.exists():
            found.append(p)
        else:
            raise UsageError(f"{raw}: no such file or folder")
    unique = list(dict.fromkeys(found))
    if not unique:
        why = ""
        if skipped:
            shown = ", ".join(str(f) for f in skipped[:3]) + (f" and {len(skipped) - 3} more" if len(skipped) > 3 else "")
            why = f": {len(skipped)} YAML file(s) there ({shown}) have no top-level 'meshspec: 1' key, so are not scenarios"
        raise UsageError(f"no scenario (*.yaml) found under {', '.join(str(p) for p in paths)}{why}")
    return unique


def parse_shard(text: str) -> tuple[int, int]:
    """``K/N`` (1-based K, as CI matrices count) -> (K, N)."""
    try:
        k, n = (int(x) for x in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r}: write it as K/N, e.g. 1/4") from None
    if n < 1 or not 1 <= k <= n:
        raise UsageError(f"--shard {text!r}: K must be between 1 and N (N >= 1), e.g. 1/4")
    return k, n


def shard(files: list[Path], k: int, n: int) -> list[Path]:
    """Every n-th file starting at the k-th (1-based)."""
    return files[k - 1 :: n]


def check_profile_option(profile: Optional[str], scenarios: Sequence = ()) -> None:
    """A --profile value: 'all', one of meshspec's, or one that a scenario file given defines."""
    if profile is None or profile == "all" or profile in PROFILES:
        return
    from .scenario.loader import defined_profiles

    own = [n for path in scenarios for n in defined_profiles(path)]
    if profile not in own:
        valid = list(PROFILES) + ["all"] + list(dict.fromkeys(own))  # the scenarios' own last: a long list is cut there
        raise UsageError(f"unknown profile {profile!r}{did_you_mean(profile, valid)}; {one_of(valid)}")


def profiles_for(scenario: LoadedScenario, profile: Optional[str]) -> list[str]:
    """``all``: every profile; a name: that one; none: those the expect block names, else the
    scenario's own profile (or current)."""
    if profile == "all":
        return list(PROFILES) + list(scenario.profiles)
    if profile is not None:
        return [profile]
    return named_profiles(scenario.expect) or [scenario.profile or DEFAULT_PROFILE]


def check_scenario(scenario: LoadedScenario, profile: str) -> CaseResult:
    start = time.perf_counter()
    report = run(scenario, profile, trace=False, tensors=names_tensors(scenario.expect))  # a verdict needs no trace
    seconds = time.perf_counter() - start
    if report.error is not None and report.error.source == "meshspec":  # the run is incomplete: no verdict
        why = f"meshspec stopped at step {report.error.step} ({report.error.op}): {report.error.message}"
        return CaseResult(str(scenario.path), scenario.name, profile, ERROR, (why,), seconds, case=scenario.case)
    result = report.expect if report.expect is not None else check_report(report, None)
    outcome = PASS if result.passed else FAIL
    return CaseResult(str(scenario.path), scenario.name, profile, outcome, result.mismatches, seconds, case=scenario.case)


def check_file(path: Path | str, profile: Optional[str] = None, allow_outside_data: bool = False) -> list[CaseResult]:
    """Every case of one file; an invalid file is one ERROR result."""
    try:
        scenario = load(path, allow_outside_data=allow_outside_data)
    except MeshspecError as err:
        return [CaseResult(str(path), None, None, ERROR, (str(err),))]
    except Exception as err:  # a bug in the loader must not stop the suite either
        return [CaseResult(str(path), None, None, ERROR, (f"{path}: {_internal(err)}",))]
    missing = missing_profile(scenario, profile)
    if missing is not None:
        return [CaseResult(str(path), scenario.name, profile, ERROR, (str(missing),))]
    out = []
    for case in scenario.cases or (scenario,):  # a matrix's cases, each named by its values
        for p in profiles_for(case, profile):
            try:
                out.append(check_scenario(case, p))
            except Exception as err:  # one scenario's failure must not stop the suite
                out.append(CaseResult(str(path), case.name, p, ERROR, (f"{path}: {_internal(err)}",), case=case.case))
    return out


def _internal(err: Exception) -> str:
    return "out of memory" if isinstance(err, MemoryError) else internal_error(err)


def check_files(
    files: list[Path], profile: Optional[str] = None, jobs: int = 1, allow_outside_data: bool = False
) -> list[list[CaseResult]]:
    """Results per file, in the order given, whatever ``jobs`` is.

    With ``jobs > 1`` files run in worker processes. A worker that dies (killed, out of memory)
    takes its pool down; the files still pending are retried one per fresh worker, and a file whose
    worker dies again is an ERROR.
    """
    if jobs <= 1 or len(files) <= 1:
        return [check_file(f, profile, allow_outside_data) for f in files]
    from concurrent.futures.process import BrokenProcessPool  # only here: multiprocessing is slow to import

    results: dict[int, list[CaseResult]] = {}
    pending = list(range(len(files)))
    with _pool(jobs) as pool:
        futures = {i: pool.submit(check_file, files[i], profile, allow_outside_data) for i in pending}
        for i, fut in futures.items():
            try:
                results[i] = fut.result()
            except BrokenProcessPool:
                pass
    for i in [i for i in pending if i not in results]:
        with _pool(1) as solo:
            try:
                results[i] = solo.submit(check_file, files[i], profile, allow_outside_data).result()
            except BrokenProcessPool:
                died = f"{files[i]}: the worker process running it died (killed or out of memory)"
                results[i] = [CaseResult(str(files[i]), None, None, ERROR, (died,))]
    return [results[i] for i in range(len(files))]


@contextlib.contextmanager
def _pool(jobs: int):
    """A process pool whose workers die with the run: on an interrupt (SIGINT, SIGTERM) they are
    terminated, not left running (ProcessPoolExecutor would wait for them)."""
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(max_workers=jobs, initializer=_worker_init)
    try:
        yield pool
    except BaseException:
        # the pool has no public way to stop running workers before Python 3.14
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _worker_init() -> None:
    """Workers leave interrupts to the parent, which terminates them."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
