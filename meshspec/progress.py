"""How a long command shows its progress, and keeps the cycle collector out of its way.

A progress bar goes to stderr, only on a terminal and only for work long enough to want one (a run
whose tensors add up to :data:`LARGE_RUN_ELEMENTS`, a check of ten files or more). The cycle
collector: loading and running make no reference cycles
(tests/test_check.py::test_loading_and_running_make_no_reference_cycles), so its collections only
walk live objects; :func:`tune_collector` makes them rare for every command, :func:`one_pass` drops
them for a single scenario's run, :func:`check_in_chunks` collects once per chunk of files.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Callable, Iterator, Optional

LARGE_RUN_ELEMENTS = 1 << 26
"""A run whose tensors add up to more elements than this shows a progress bar on a terminal."""

COLLECT_EVERY = 64
"""A serial check runs the cycle collector once per this many files (see :func:`check_in_chunks`)."""


def terminal(stream) -> bool:
    """Whether ``stream`` is a terminal; a stream the process started without (``2>&-``) is None."""
    return stream is not None and stream.isatty()


def tune_collector() -> None:
    """For the whole process: a 65,536-device run holds millions of small objects and makes few
    reference cycles; with the default thresholds the cycle collector re-walks them all every few
    thousand allocations (a tenth of the run). Collect the young generation 70 times less often,
    and leave the objects of start-up out of every collection."""
    import gc

    gc.freeze()
    gc.set_threshold(50_000, 20, 100)


def one_pass() -> None:
    """One scenario run and reported, then the process ends: no cycle collection. The collector
    would only walk live objects: about a tenth of a 10,000-tensor table view's wall time
    (bench/run.py's row), for nothing. With several scenarios, one file's garbage could hold the
    next file's memory: :func:`tune_collector`'s thresholds stay (a serial check collects per chunk
    of files instead, :func:`check_in_chunks`)."""
    import gc

    gc.disable()


@contextlib.contextmanager
def run_progress(scenarios: list[Path]) -> Iterator[Optional[Callable[[int, int, str], None]]]:
    """A step progress bar on stderr for large runs on a terminal (``on_step`` for the runner);
    None when piped or small."""
    if not terminal(sys.stderr) or _elements(scenarios) < LARGE_RUN_ELEMENTS:
        yield None
        return
    from rich.console import Console
    from rich.progress import Progress

    with Progress(console=Console(stderr=True), transient=True) as bar:
        task = bar.add_task("meshspec run", total=None)

        def on_step(index: int, total: int, op: str) -> None:
            bar.update(task, total=total, completed=index, description=f"step {index} {op}")

        yield on_step


def _elements(scenarios: list[Path]) -> int:
    import math

    from .errors import MeshspecError
    from .scenario.loader import load

    total = 0
    for path in scenarios:
        try:
            steps = load(path).steps
        except MeshspecError:
            continue
        total += sum(math.prod(getattr(s.args, "shape", None) or [0]) for s in steps)
    return total


def check_in_chunks(check_files, files: list[Path], profile: Optional[str], jobs: int, allow_outside: bool) -> list:
    """check's work (``check_files`` over chunks of ``files``), with a progress bar on stderr when it
    is a terminal and the suite is long.

    A serial run collects cycles itself, once every :data:`COLLECT_EVERY` files, with the
    collector off in between: the automatic collections only walked live objects: 27 M of the
    800 M instructions of a one-file check, most of them while the first file's lazy imports ran.
    A file that did make some holds them until the next collection, never for the whole suite.
    Worker processes (-j) keep the automatic collector: they are forked with it on."""
    import gc

    bar = None
    if len(files) >= 10 and terminal(sys.stderr):
        from rich.console import Console
        from rich.progress import Progress

        bar = Progress(console=Console(stderr=True), transient=True)
    serial = jobs <= 1
    step = max(jobs, 1) * 4 if bar is not None else (COLLECT_EVERY if serial else len(files))
    out: list = []
    if serial:
        gc.freeze()  # the modules imported so far are no garbage: left out of every collection
        gc.disable()
    try:
        with bar if bar is not None else contextlib.nullcontext():
            task = bar.add_task("meshspec check", total=len(files)) if bar is not None else None
            since = 0
            for start in range(0, len(files), step):
                chunk = files[start : start + step]
                out += check_files(chunk, profile, jobs, allow_outside)
                since += len(chunk)
                if serial and since >= COLLECT_EVERY:
                    gc.collect()
                    since = 0
                if bar is not None:
                    bar.advance(task, len(chunk))
    finally:
        if serial:
            gc.enable()
    return out
