"""Where a pytest-xdist run of the bench's suite spends its time, process by process.

    python bench/xdist_phases.py              # the bench's suite, -n 0 and -n 2, three runs each
    python bench/xdist_phases.py --files 50   # a smaller suite
    python bench/xdist_phases.py -- -k current  # extra pytest arguments after --

``bench/run.py`` times ``pytest --meshspec SUITE --meshspec-profile all`` at ``-n 2`` against
``-n 0`` as whole processes. This script runs the same two commands with a plugin that stamps
wall-clock and CPU time (``getrusage``) in every process at each phase, and prints the medians:

- configured: launch to ``pytest_configure`` (start-up: imports, plugins);
- collected: to the end of collection (the controller of ``-n 2`` collects nothing);
- loop done: to ``pytest_sessionfinish``; the loop's CPU time, and its CPU time per test run;
- exited: to the process's ``atexit`` (pytest's unconfigure), then to the command's end (the
  interpreter's exit; the controller also waits for its workers to exit).

The loop's CPU per test, at ``-n 2`` against ``-n 0``, is what each test costs a worker beyond its
own work; the controller's CPU is what it takes from the two cores the workers share.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from run import bundled_suite  # noqa: E402 - the bench's own suite

PLUGIN = '''
import atexit, os, resource, time

LOG = os.environ["XDIST_PHASES_LOG"]
_tests = [0]


def _stamp(what):
    r = resource.getrusage(resource.RUSAGE_SELF)
    with open(LOG, "a") as f:
        f.write(f"{os.environ.get('PYTEST_XDIST_WORKER', 'main')} {what} {time.time():.6f} {r.ru_utime + r.ru_stime:.6f} {_tests[0]}\\n")


def pytest_configure(config):
    _stamp("configured")
    atexit.register(_stamp, "exited")


def pytest_collection_finish(session):
    _stamp("collected")


def pytest_runtest_logfinish(nodeid, location):
    _tests[0] += 1


def pytest_sessionfinish(session):
    _stamp("loop-done")
'''

PHASES = ("configured", "collected", "loop-done", "exited")


def run_once(cmd: list[str], env: dict, log: Path) -> dict[str, dict[str, tuple[float, float, int]]]:
    """{process: {phase: (seconds since launch, CPU seconds, tests run)}}, plus 'end' for the command."""
    log.write_text("")
    start = time.time()
    subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    end = time.time()
    out: dict[str, dict[str, tuple[float, float, int]]] = defaultdict(dict)
    for line in log.read_text().splitlines():
        proc, phase, at, cpu, tests = line.split()
        out[proc][phase] = (float(at) - start, float(cpu), int(tests))
    out["main"]["end"] = (end - start, float("nan"), 0)
    return out


def table(label: str, runs: list[dict]) -> list[str]:
    def med(proc: str, phase: str, i: int) -> float:
        values = [r[proc][phase][i] for r in runs if phase in r.get(proc, {})]
        return statistics.median(values) if values else float("nan")

    rows = []
    procs = sorted({p for r in runs for p in r}, key=lambda p: (p != "main", p))
    for proc in procs:
        at = [med(proc, ph, 0) for ph in PHASES]
        start = "collected" if proc != "main" or not label.endswith("2") else "configured"
        loop_cpu = med(proc, "loop-done", 1) - med(proc, start, 1)
        tests = med(proc, "loop-done", 2)
        per_test = f"{loop_cpu / tests * 1e3:6.2f} ms" if tests else "     -   "
        name = "controller" if proc == "main" and label.endswith("2") else proc
        rows.append(
            f"{label:6} {name:10} " + " ".join("        -" if x != x else f"{x:7.2f} s" for x in at)  # x != x: NaN, a phase it has not
            + f" {med(proc, 'exited', 1):7.2f} s {loop_cpu:7.2f} s {tests:6.0f} {per_test}"
        )
    rows.append(f"{label:6} {'command':10} {'':39} ended at {med('main', 'end', 0):.2f} s")
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--files", type=int, default=200, help="files in the suite (default: 200, as the bench)")
    parser.add_argument("--runs", type=int, default=3, help="runs of each command (default: 3); medians are printed")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments, after --")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="meshspec-xdist-") as tmp:
        work = Path(tmp)
        suite = bundled_suite(work / "suite", args.files)
        (work / "xdist_phases_plugin.py").write_text(PLUGIN)
        log = work / "phases.log"
        env = {**os.environ, "XDIST_PHASES_LOG": str(log), "PYTHONPATH": os.pathsep.join(filter(None, [tmp, os.environ.get("PYTHONPATH")]))}
        env.pop("PYTHONDONTWRITEBYTECODE", None)  # users keep bytecode caches
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "xdist_phases_plugin",
                "--meshspec", str(suite), "--meshspec-profile", "all", *args.pytest_args]
        results: dict[str, list] = {"-n 0": [], "-n 2": []}
        for _ in range(args.runs):  # interleaved, as the bench runs its pairs
            for label in results:
                results[label].append(run_once([*base, *label.split()], env, log))
    head = f"{'':6} {'process':10} " + " ".join(f"{h:>9}" for h in PHASES) + f" {'CPU':>9} {'loop CPU':>9} {'tests':>6} {'a test':>9}"
    print(head)
    for label, runs in results.items():
        print("\n".join(table(label, runs)))
    print(f"\nmedians of {args.runs} runs each; times are seconds since the command was launched, CPU is each process's own")


if __name__ == "__main__":
    main()
