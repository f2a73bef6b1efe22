"""The two sides ``meshspec diff`` compares: two saved reports read back, or one scenario run under
two profiles; and the case of a matrix scenario that diff and export take.

Each side is a report as JSON data (what ``run --format json`` writes), checked as any file anyone
could write is (judge/reports.py). A bad file is a :class:`~meshspec.errors.UsageError` naming it;
a run that stops at meshspec's own limit is a :class:`~meshspec.judge.diff.DiffRefused`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Callable, Optional

from .errors import UsageError


def one_case(scenario, case: Optional[str], command: str) -> tuple[object, Optional[str]]:
    """The case ``--case`` names of a matrix scenario (each case is a scenario of its own), and a
    note for stderr or None. With no ``--case``: the first, the note saying how to pick another. A
    scenario without a matrix is itself, and refuses ``--case``."""
    from .errors import listed
    from .text import printable

    shown = printable(str(scenario.path))
    names = [c.case for c in scenario.cases]
    if case is None:
        if len(names) > 1:
            return scenario, (f"{shown}: a matrix of {len(names)} cases; {command} takes the first, [{names[0]}]: "
                              f"--case NAME picks another ({listed(names[1:], 8)})")
        return scenario, None
    return pick_case(scenario, case), None


def pick_case(scenario, case: str, option: str = "--case", drop: str = "drop --case"):
    """The case named ``case`` of a matrix scenario (each case is a scenario of its own); a
    :class:`UsageError` naming the cases when it has none of that name. ``option`` and ``drop`` say
    how the caller named it: ``--case`` on the command line, ``case`` in Python (meshspec.run)."""
    from .errors import did_you_mean, listed
    from .text import printable

    shown = printable(str(scenario.path))
    names = [c.case for c in scenario.cases]
    if not names:
        raise UsageError(f"{option} {case!r}: {shown} has no matrix, so no cases; {drop}")
    for c in scenario.cases:
        if c.case == case:
            return c
    raise UsageError(f"{option}: {shown} has no case {case!r}{did_you_mean(case, names)}; its cases: {listed(names, 8)} "
                     "('meshspec check' names each)")


def read_report(path: Path) -> dict:
    """A saved report's JSON data, checked (judge/reports.py): a report is a file anyone can write."""
    import json

    from .judge.diff import check_report
    from .scenario.sniff import read_regular
    from .text import printable, printable_data

    shown = printable(str(path))
    try:
        raw = read_regular(path, sys.maxsize - 1)  # one open: a FIFO or device is told from the open file
        if raw is None:
            what = "is a folder" if path.is_dir() else "is not a regular file (a pipe or device?)"
            raise UsageError(f"{shown}: {what}; give a report .json file")
        data = json.loads(raw.decode("utf-8"))
    except FileNotFoundError:
        raise UsageError(f"{shown}: no such file") from None
    except (OSError, UnicodeDecodeError) as err:
        raise UsageError(f"{shown}: cannot read: {err}") from None
    except json.JSONDecodeError as err:
        hint = ("; a scenario goes alone: 'meshspec diff SCENARIO' runs it under two profiles, 'meshspec diff A.json "
                "B.json' compares two saved reports") if path.suffix in (".yaml", ".yml") else ""
        raise UsageError(f"{shown}:{err.lineno}:{err.colno}: not JSON: {err.msg}{hint}") from None
    except (ValueError, RecursionError) as err:  # integers past 4,300 digits; nesting past Python's limit
        why = "nested too deeply" if isinstance(err, RecursionError) else str(err).split(";")[0]
        raise UsageError(f"{shown}: not a report: {why}") from None
    return check_report(printable_data(data), shown)


def diff_sides(sources: list[Path], expected: Optional[str], actual: Optional[str], allow_outside_data: bool = False,
               limits: Optional[dict] = None, show_all: bool = False, case: Optional[str] = None,
               say: Callable[[str], None] = print):
    """(expected, actual, expected label, actual label): two reports' data and what to call each
    side. ``say`` gets a note for stderr (a matrix's case chosen for the user) before the runs."""
    from .text import printable

    if len(sources) == 2:
        if case is not None:
            raise UsageError("--case picks a case of a matrix scenario; with two reports the files are the sides")
        if expected or actual:
            raise UsageError("--expected/--actual name profiles for a scenario; with two reports the files are the sides")
        sides = [read_report(p) for p in sources]
        return sides[0], sides[1], printable(str(sources[0])), printable(str(sources[1]))
    if len(sources) != 1:
        raise UsageError(f"diff takes one scenario or two reports, got {len(sources)} paths")
    if sources[0].suffix == ".json":
        if not sources[0].exists():
            raise UsageError(f"{printable(str(sources[0]))}: no such file (diff takes one scenario or two reports)")
        raise UsageError(
            f"{printable(str(sources[0]))} is a report; diff compares two reports (meshspec diff EXPECTED.json "
            "ACTUAL.json) or runs one scenario under two profiles (meshspec diff SCENARIO.yaml)"
        )
    return _run_both(sources[0], expected, actual, allow_outside_data, limits, show_all, case, say)


def _run_both(source: Path, expected: Optional[str], actual: Optional[str], allow_outside_data: bool,
              limits: Optional[dict], show_all: bool, case: Optional[str], say: Callable[[str], None]):
    from .judge.diff import DiffRefused, bound_runs
    from .render.options import Format
    from .report import EXIT_LIMIT
    from .runner import run
    from .scenario.loader import load
    from .sim.profiles import get_profile
    from .text import printable

    scenario, note = one_case(load(source, allow_outside_data=allow_outside_data), case, "diff")
    if note is not None:
        say(note)
    exp_p = get_profile(expected or "reference", scenario.profiles).name
    act_p = get_profile(actual or scenario.profile or "current", scenario.profiles).name
    reports = []
    for p in (exp_p, act_p):  # each run bounded as `run` is; the first to stop at a limit ends the diff
        report = run(scenario, p, **(limits or {}))
        if report.exit_code == EXIT_LIMIT:
            e = report.error
            at = f"step {e.step} ({e.op})"
            why = e.message[len(at) + 2:] if e.message.startswith(f"{at}: ") else e.message
            raise DiffRefused(f"{printable(str(source))}: the {p} run stopped at meshspec's own limit at {at}: {why}")
        reports.append(report)
    if limits:
        from .render import DEVICE_ENTRY_BYTES, Options, cost

        bound_runs(printable(str(source)), reports, show_all, limits, cost(reports, Format.JSON, Options()), DEVICE_ENTRY_BYTES)  # before either is made JSON and compared
    return reports[0].to_json(), reports[1].to_json(), exp_p, act_p
