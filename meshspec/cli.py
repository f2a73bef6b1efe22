"""The command line: thin argparse commands over :mod:`meshspec.runner`.

Exit codes: 0 clean, 1 findings or a step error, 2 bad input or usage, 3 a bug in meshspec. The
report goes to stdout (or ``--output``); diagnostics go to stderr, one line each.

Each command is a function of the parsed options that returns its exit code, declared with
:func:`~meshspec.argv.command` and the options it takes (the grammar and its one-line usage errors
are :mod:`meshspec.argv`). :func:`app` parses and dispatches (what the tests call); :func:`main` is
the console entry point around it (signals, the cycle collector, a bug as one line).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import Optional

from . import __version__
from .argv import Done, Unwritable, Usage, arg, columns, command, count, parse, parser
from .errors import REPORT_IT, MeshspecError, UsageError, internal_error
from .render.options import Format, View
from .sim.mesh import SYSTEMS
from .sim.modes import Uninitialized
from .sim.profiles import PROFILES

DESCRIPTION = "Reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh."
VERSION = f"meshspec {__version__}"
FORMATS, VIEWS, UNINITIALIZED = ([c.value for c in choices] for choices in (Format, View, Uninitialized))

EXIT_USAGE = 2
EXIT_INTERNAL = 3


FORMAT = arg("-f", "--format", dest="fmt", choices=FORMATS, default="table", help="Output format.")
OUTPUT = arg("-o", "--output", type=Path, metavar="FILE", help="Write to FILE instead of stdout.")
NO_COLOR = arg("--no-color", action="store_true", help="Plain text even on a terminal.")
ALLOW_OUTSIDE = arg("--allow-outside-data", action="store_true", help="Let scenarios read data files outside their own folder.")
CASE = arg("--case", metavar="NAME", help="The case of a matrix scenario, as check names it (bfloat16-tile). Default: the first.")


# -- parsing and dispatch ------------------------------------------------------------------------
def app(argv: list[str]) -> int:
    """Parse ``argv`` (the words after ``meshspec``) and run the command; its exit code. A usage
    error or a MeshspecError is one line on stderr and exit 2; a bug in meshspec propagates."""
    empty = _empty_argument(argv)
    if empty is not None:
        _err(empty)
        return EXIT_USAGE
    if not argv:  # meshspec alone: the help, on stderr (it was not asked for)
        if sys.stderr is not None:
            parser(DESCRIPTION, VERSION).print_help(sys.stderr)
        return EXIT_USAGE
    try:
        options = parse(argv, DESCRIPTION, VERSION)
    except Done as done:
        return done.code
    except Unwritable as err:
        _err(str(_stdout_failed(str(err))))
        return EXIT_USAGE
    except Usage as usage:
        _err(f"{usage} ('{usage.prog} -h' lists the options)")
        return EXIT_USAGE
    try:
        return options.func(options)
    except MeshspecError as err:
        _err(str(err))
        return EXIT_USAGE


def _err(message: str) -> None:
    """One line to stderr; what a terminal would act on (from a file name, a trace's op name) and
    a newline in a value escaped, so the line stays one."""
    from .text import printable, shorten_values  # here: --help loads no more than it needs

    line = shorten_values(printable(message)).replace("\n", "\\n")
    try:
        sys.stderr.write(f"meshspec: {line}\n")
        sys.stderr.flush()
    except (AttributeError, OSError):  # stderr closed (2>&-) or full: the exit code still says what happened
        pass


def _use_color(no_color: bool, output: Optional[Path]) -> bool:
    if no_color or output is not None or os.environ.get("NO_COLOR"):
        return False
    return _terminal(sys.stdout)


def _terminal(stream) -> bool:
    """Whether ``stream`` is a terminal; a stream the process started without (``2>&-``) is None."""
    return stream is not None and stream.isatty()


# -- the commands --------------------------------------------------------------------------------
@command(
    arg("scenarios", nargs="+", type=Path, metavar="SCENARIO", help="Scenario YAML file(s)."),
    arg("-p", "--profile", metavar="NAME",
        help=f"Runtime profile: {', '.join(PROFILES)}, one the scenario defines, or 'all' to compare them. Overrides the scenario's."),
    FORMAT,
    arg("--view", choices=VIEWS, default="table", help="table: per-device tables; map: the mesh as a grid; data: what a reader gets back."),
    arg("--trace", action="store_true", help="Add a step trace: what each step wrote, recorded and revealed."),
    arg("--device", metavar="COORD", help="Draw this device of each sharded tensor core by core, e.g. 1,3."),
    arg("--show-values", type=count(0), default=0, metavar="N", help="With the data view: print the first N values of each device."),
    OUTPUT,
    arg("--no-data", action="store_true", help="Metadata mode: shapes, records and written pages only (no buffers; any mesh size)."),
    arg("--uninitialized", choices=UNINITIALIZED, default="poison", help="What never-written device memory holds."),
    arg("--max-memory", metavar="SIZE", help="Memory a run may use, its data, records and report, e.g. 8G or 512M (default: half the RAM)."),
    arg("--max-work", type=count(1), metavar="N",
        help="Work units a run may do (a device of each buffer, write, read or host shard, plus one a 16 KiB moved, "
             "a KiB of block floats; default 4,194,304)."),
    ALLOW_OUTSIDE,
    arg("--svg", type=Path, metavar="FILE", help="Also save what was printed as SVG."),
    arg("--html", type=Path, metavar="FILE", help="Also save what was printed as HTML."),
    NO_COLOR,
)
def run(a: argparse.Namespace) -> int:
    """Run scenario(s) on a simulated mesh; flag every device whose record disagrees with what was written."""
    from .errors import ScenarioError
    from .render import Options, export, render
    from .runner import run_paths

    fmt, view = Format(a.fmt), View(a.view)
    if fmt is Format.JSON and (a.svg or a.html):
        raise UsageError("--svg and --html save the table format as printed; drop --format json (or save the JSON with --output)")
    compare = a.profile == "all"
    options: dict = {
        "data": view is View.DATA or a.show_values > 0,
        "show_values": a.show_values,
        "uninitialized": a.uninitialized,
        "allow_outside_data": a.allow_outside_data,
    }
    if a.no_data:
        options["with_data"] = False
    if a.max_memory is not None:
        options["max_memory"] = parse_bytes(a.max_memory)
    if a.max_work is not None:
        options["max_work"] = a.max_work
    if a.device is not None:
        options["device"] = _device_option(a.device)
    inputs = _check_outputs((("--output", a.output), ("--svg", a.svg), ("--html", a.html)), a.scenarios)
    if a.show_values and view is not View.DATA:
        view = View.DATA
    from .check import check_profile_option

    check_profile_option(a.profile, a.scenarios)  # names 'all' among the choices
    if len(a.scenarios) == 1:
        _one_pass_memory()
    with _run_progress(a.scenarios) as on_step:
        results = run_paths(a.scenarios, a.profile, on_step=on_step, **options)
    reports = [r for r in results if not isinstance(r, ScenarioError)]
    for failure in dict.fromkeys(str(r) for r in results if isinstance(r, ScenarioError)):
        _err(failure)
    code = max(EXIT_USAGE if isinstance(r, ScenarioError) else r.exit_code for r in results)
    if a.device is not None and view is not View.MAP and reports and not any(t.cores for r in reports for t in r.tensors):
        _err(f"--device {a.device}: no tensor of this run is sharded, so there is no core view to draw "
             "(--device draws each sharded tensor's device core by core)")
    if reports:
        opts = Options(view=view, trace=a.trace, color=_use_color(a.no_color, a.output), width=_width(a.output), show_values=a.show_values,
                       device=options.get("device"))
        refused = _report_over_limit(reports, fmt, opts, options.get("max_memory"))
        if refused is not None:
            from .report import EXIT_LIMIT

            _err(refused)
            return EXIT_LIMIT
        shown = results if fmt is Format.JSON and (len(a.scenarios) > 1 or compare) else reports
        _emit(render(shown, fmt, opts, compare=compare), a.output, inputs)
        for path, kind in ((a.svg, "svg"), (a.html, "html")):
            if path is not None:
                _emit(export(path, reports, opts, kind, compare=compare), path, inputs)
    return code


@command(
    arg("sources", nargs="+", type=Path, metavar="SOURCE",
        help="A scenario (run under two profiles), or EXPECTED.json ACTUAL.json (two saved reports)."),
    arg("--expected", metavar="PROFILE", help="Profile of the expected side (scenario mode)."),
    arg("--actual", metavar="PROFILE", help="Profile of the actual side (scenario mode; default: the scenario's, else current)."),
    CASE,
    FORMAT,
    arg("--all", dest="show_all", action="store_true", help="Show devices that agree too."),
    OUTPUT,
    NO_COLOR,
    ALLOW_OUTSIDE,
    arg("--max-memory", metavar="SIZE", help="Memory each run and the diff may use, e.g. 8G or 512M (default: half the RAM)."),
    arg("--max-work", type=count(1), metavar="N",
        help="Work units each run and the diff may do (as run's; a device compared 1, a row drawn 16; default 4,194,304)."),
)
def diff(a: argparse.Namespace) -> int:
    """Expected vs actual per-device records; exit 1 when they differ."""
    from .judge.diff import DiffRefused, bound_diff, diff_reports
    from .render import DEVICE_ENTRY_BYTES, Options, render_diff
    from .report import EXIT_LIMIT
    from .sim.runtime import MAX_WORK, default_max_memory
    from .text import printable

    limits = {"max_memory": parse_bytes(a.max_memory) if a.max_memory is not None else default_max_memory(),
              "max_work": a.max_work or MAX_WORK}
    try:
        exp, act, exp_label, act_label = _diff_sides(a.sources, a.expected, a.actual, a.allow_outside_data, limits, a.show_all, a.case)
        result = diff_reports(exp, act, exp_label, act_label)
        compared = sum(len(t.rows) for t in result.tensors)
        drawn = compared if a.show_all else len({(d.tensor, d.device) for d in result.differences if d.device is not None})
        bound_diff(" vs ".join(printable(str(p)) for p in a.sources), compared, drawn, limits, DEVICE_ENTRY_BYTES)
    except DiffRefused as refused:
        _err(str(refused))
        return EXIT_LIMIT
    opts = Options(color=_use_color(a.no_color, a.output), width=_width(a.output), fit=a.output is None and _terminal(sys.stdout))
    _emit(render_diff(result, Format(a.fmt), opts, show_all=a.show_all), a.output, a.sources)
    return result.exit_code


@command(
    arg("paths", nargs="+", type=Path, metavar="PATH", help="Scenario files or folders (searched for *.yaml)."),
    arg("-p", "--profile", metavar="NAME",
        help="A profile name, or 'all'. Default: the profiles each scenario's expect block names, else its own."),
    arg("--junit-xml", type=Path, metavar="FILE", help="Also write JUnit XML to FILE."),
    arg("-j", "--jobs", type=count(1), default=1, metavar="N", help="Worker processes."),
    arg("--shard", dest="shard_spec", metavar="K/N", help="K/N: run every N-th scenario starting at the K-th (1-based), for CI matrices."),
    ALLOW_OUTSIDE,
)
def check(a: argparse.Namespace) -> int:
    """Run scenarios as CI checks against their expect blocks: PASS / FAIL / ERROR per case."""
    from . import check as checks
    from .render.check import junit_xml as to_junit
    from .render.check import result_line
    from .report import summarize

    files = every_file = checks.collect(a.paths)
    checks.check_profile_option(a.profile, files)
    if a.shard_spec:
        files = checks.shard(files, *checks.parse_shard(a.shard_spec))
    jobs = _cap_jobs(a.jobs, len(files))
    inputs = _check_outputs((("--junit-xml", a.junit_xml),), every_file)
    results = [r for per_file in _with_progress(checks.check_files, files, a.profile, jobs, a.allow_outside_data) for r in per_file]
    summary = summarize(results)
    _stdout("\n".join([*map(result_line, results), summary.line()]) + "\n")  # one write, not one a case
    if a.junit_xml is not None:
        _emit(to_junit(results), a.junit_xml, inputs)
    return summary.exit_code


@command()
def systems(a: argparse.Namespace) -> int:
    """List the known systems and their mesh shapes."""
    from .sim.mesh import volume

    lines = []
    for name, system in SYSTEMS.items():
        n = volume(system.shape)
        shape = "x".join(map(str, system.shape))
        lines.append(f"{name:<9} {shape:<5} {n:>3} {'device' if n == 1 else 'devices':<7}  {system.arch:<11}  {system.note}\n")
    _stdout("".join(lines))
    return 0


@command(
    arg("scenario", type=Path, metavar="SCENARIO", help="The scenario to export."),
    arg("--to", default="ttnn", choices=("ttnn",), help="What to export to: ttnn (a Python script on the real ttnn API)."),
    arg("--minimal", action="store_true",
        help="Only the plain ttnn calls, for a bug report: the steps, then what the runtime records for each tensor, printed."),
    CASE,
    OUTPUT,
    ALLOW_OUTSIDE,
)
def export(a: argparse.Namespace) -> int:
    """Write the scenario as a standalone ttnn script that reports what the real runtime records."""
    from .bridge.export import export as full_script
    from .bridge.minimal import export_minimal
    from .scenario.loader import load

    scenario = _one_case(load(a.scenario, allow_outside_data=a.allow_outside_data), a.case, "export")
    # the script finds the scenario's .npy files where they are now, relative to itself
    where = Path(os.path.relpath(a.scenario.resolve().parent, a.output.resolve().parent)) if a.output is not None else Path(".")
    to_script = export_minimal if a.minimal else full_script
    _emit(to_script(scenario, data_dir=str(where)), a.output, _inputs([a.scenario]))
    return 0


@command(
    arg("path", type=Path, nargs="+", metavar="PATH",
        help="A tracer folder (pytest --trace-params) or a graph capture .json; several: one parametrized test's runs, as a matrix."),
    OUTPUT,
    name="import",
)
def import_(a: argparse.Namespace) -> int:
    """Turn ttnn's operation-tracer output or a graph capture into a scenario; a line per call not imported."""
    from .bridge.importer import import_paths

    from .scenario.loads import check_loads

    imported = import_paths(a.path)
    shown = " ".join(str(p) for p in a.path)
    check_loads(imported.text, a.output if a.output is not None else Path("imported.yaml"), f"import {shown}")  # what it writes loads
    for line in imported.unmapped:
        _err(f"not imported: {line}")
    _emit(imported.text, a.output, [q for p in a.path for q in ([p, *sorted(p.iterdir())] if p.is_dir() else [p])])
    return 0


@command(
    arg("-o", "--output", type=Path, metavar="DIR", help="A new directory for scenario.yaml, report.json and data files (required)."),
    arg("program", nargs=argparse.REMAINDER, metavar="-- PROGRAM", help="python prog.py ARGS... (or prog.py ARGS...)."),
)
def record(a: argparse.Namespace) -> int:
    """Run a ttnn program with ttnn's calls recorded: meshspec record -o DIR -- python prog.py ARGS...

    The program runs as it would (its output and exit code unchanged); DIR gets scenario.yaml (a
    step per call, opaque steps for calls meshspec does not model), its data files, and
    report.json (what the real runtime recorded, after every step in its steps). meshspec must be
    installed in the program's Python (the ttnn venv). For pytest: pytest --meshspec-record DIR."""
    import subprocess

    from .bridge.launch import USAGE, check_output_dir, check_ttnn, exit_like, recorder_command

    if a.output is None:
        where = " (the -o after the program is the program's own)" if any(w in ("-o", "--output") or w.startswith("--output=") for w in a.program) else ""
        raise UsageError(f"--output DIR missing{where}: record's own options go before the program: {USAGE}")
    check_output_dir(a.output, probe=False)
    program = recorder_command(a.output, list(a.program))
    check_ttnn(program[0])
    check_output_dir(a.output)
    return exit_like(subprocess.run(program).returncode)


@command(
    arg("folders", nargs="*", type=Path, metavar="FOLDER", help="With --merge: the hunt folders to merge."),
    arg("-p", "--profile", metavar="NAME", help="The profile to hunt: one of meshspec's or one --profiles defines."),
    arg("--against", metavar="NAME", help="The profile it is compared with (default reference)."),
    arg("--mesh", action="append", metavar="MESH", help="A system (t3k, galaxy, ...) or a shape (2x4); repeat for several."),
    arg("--ops", metavar="OPS", help="Comma-separated ops the programs use (default: all hunt writes)."),
    arg("--time", dest="time_budget", metavar="TIME", help="How long to search, e.g. 60s or 2m (default 60s)."),
    arg("--examples", type=count(1), metavar="N", help="Programs to try instead of a time (deterministic)."),
    arg("--seed", type=count(), default=0, metavar="N", help="The seed: the same programs on every machine."),
    arg("--shard", dest="shard_spec", metavar="K/N", help="K/N: the K-th of N disjoint slices of the programs."),
    arg("--fault", metavar="FAULT", help="Inject a fault into the hunted profile: skip_write, drop_record or alter_shape."),
    arg("--profiles", dest="profiles_file", type=Path, metavar="FILE", help="A scenario file whose profiles: block defines user profiles."),
    arg("--merge", action="store_true", help="Merge the hunt folders given into --out (deduplicated) instead of hunting."),
    arg("--out", type=Path, metavar="DIR", help="The folder the scenarios and hunt.json go to."),
    arg("--max-memory", metavar="SIZE", help="Memory each program's run may use, e.g. 8G or 512M (default: half the RAM); "
        "a program that needs more is skipped and counted."),
    arg("--max-work", type=count(1), metavar="N", help="Device operations each program's run may do (default as run's); "
        "a program that needs more is skipped and counted."),
    FORMAT,
)
def hunt(a: argparse.Namespace) -> int:
    """Find new mismatches: random programs run under two profiles, each disagreement shrunk to a scenario."""
    from .hunt import cli as hunting

    if a.folders and not a.merge:
        raise UsageError(f"{a.folders[0]}: hunt takes folders only with --merge")
    text, code = hunting.main(a.profile, a.against, a.mesh, a.ops, a.time_budget, a.examples, a.seed, a.shard_spec, a.fault,
                              a.profiles_file, a.folders if a.merge else None, a.out, a.fmt == "json",
                              max_memory=parse_bytes(a.max_memory) if a.max_memory is not None else None, max_work=a.max_work)
    _stdout(text)
    return code


@command(
    arg("scenario", nargs="?", type=Path, metavar="SCENARIO", help="Also show the profiles this scenario defines."),
    FORMAT,
)
def profiles(a: argparse.Namespace) -> int:
    """Every profile's rules side by side, what each choice means, and its source."""
    import json

    from .render.profiles import profiles_data, profiles_text
    from .scenario.loader import load

    shown = list(PROFILES.values()) + (list(load(a.scenario).profiles.values()) if a.scenario is not None else [])
    _stdout(json.dumps(profiles_data(shown), indent=2) + "\n" if a.fmt == "json" else profiles_text(shown))
    return 0


@command(arg("name", nargs="?", metavar="NAME", help="A finding kind (e.g. stale), a status, or a step (e.g. to_torch)."))
def explain(a: argparse.Namespace) -> int:
    """Explain a finding kind or a step; with no name, list what can be explained."""
    from .explain import choices_text
    from .explain import explain as text_of

    _stdout(text_of(a.name) if a.name is not None else choices_text())
    return 0


@command(
    arg("file", type=Path, metavar="FILE", help="Scenario file to create."),
    arg("-s", "--system", default="t3k", metavar="SYSTEM", help=f"System: {' '.join(SYSTEMS)}."),
)
def init(a: argparse.Namespace) -> int:
    """Write a commented starter scenario (never over an existing file)."""
    from .files import write_new
    from .starter import starter

    write_new(a.file, starter(a.system, str(a.file)))
    _stdout(f"wrote {a.file}; run it with: meshspec run {a.file}\n")
    return 0


@command(arg("--report", action="store_true", help="The schema of saved reports (meshspec.report/1) instead."))
def schema(a: argparse.Namespace) -> int:
    """Print the JSON Schema of scenario format 1 (for editors: yaml-language-server), or of reports."""
    from .render.json import dumps

    if a.report:
        from .judge.reports import report_schema

        _stdout(dumps(report_schema()))
        return 0
    from .scenario.schema import json_schema

    _stdout(dumps(json_schema()))
    return 0


# -- helpers -------------------------------------------------------------------------------------
def _device_option(text: str) -> tuple[int, ...]:
    """``--device 1,3`` (or ``(1,3)``, ``1 3``) as a coordinate."""
    cleaned = text.strip().strip("()[]").replace(" ", ",")
    try:
        coord = tuple(int(x) for x in cleaned.split(",") if x)
    except ValueError:
        raise UsageError(f"--device {text!r}: a device coordinate such as 1,3 (row, column)") from None
    if not coord or any(c < 0 for c in coord):
        raise UsageError(f"--device {text!r}: a device coordinate such as 1,3 (row, column)")
    return coord


LARGE_RUN_ELEMENTS = 1 << 26
"""A run whose tensors add up to more elements than this shows a progress bar on a terminal."""


@contextlib.contextmanager
def _run_progress(scenarios: list[Path]):
    """A step progress bar on stderr for large runs on a terminal; nothing when piped."""
    if not _terminal(sys.stderr) or _elements(scenarios) < LARGE_RUN_ELEMENTS:
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

    from .scenario.loader import load

    total = 0
    for path in scenarios:
        try:
            steps = load(path).steps
        except MeshspecError:
            continue
        total += sum(math.prod(getattr(s.args, "shape", None) or [0]) for s in steps)
    return total


def parse_bytes(text: str) -> int:
    """``8G``, ``512M``, ``1.5GiB``, ``1000000`` -> bytes (binary units)."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not m:
        raise UsageError(f"--max-memory {text!r}: write a size like 8G, 512M or 1000000")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2)]
    return int(float(m.group(1)) * scale)


def _one_case(scenario, case: Optional[str], command: str):
    """The case ``--case`` names of a matrix scenario (each case is a scenario of its own); with no
    ``--case``, the first, said on stderr with how to pick another. A scenario without a matrix is
    itself, and refuses ``--case``."""
    from .errors import did_you_mean, listed
    from .text import printable

    shown = printable(str(scenario.path))
    names = [c.case for c in scenario.cases]
    if case is None:
        if len(names) > 1:
            _err(f"{shown}: a matrix of {len(names)} cases; {command} takes the first, [{names[0]}]: "
                 f"--case NAME picks another ({listed(names[1:], 8)})")
        return scenario
    if not names:
        raise UsageError(f"--case {case!r}: {shown} has no matrix, so no cases; drop --case")
    for c in scenario.cases:
        if c.case == case:
            return c
    raise UsageError(f"--case: {shown} has no case {case!r}{did_you_mean(case, names)}; its cases: {listed(names, 8)} "
                     "('meshspec check' names each)")


def _diff_sides(sources: list[Path], expected: Optional[str], actual: Optional[str], allow_outside_data: bool = False,
                limits: Optional[dict] = None, show_all: bool = False, case: Optional[str] = None):
    import json

    from .judge.diff import check_report
    from .runner import run
    from .text import printable, printable_data
    from .scenario.loader import load
    from .scenario.sniff import read_regular
    from .sim.profiles import get_profile

    if len(sources) == 2:
        if case is not None:
            raise UsageError("--case picks a case of a matrix scenario; with two reports the files are the sides")
        if expected or actual:
            raise UsageError("--expected/--actual name profiles for a scenario; with two reports the files are the sides")
        sides = []
        for p in sources:
            shown = printable(str(p))
            try:
                raw = read_regular(p, sys.maxsize - 1)  # one open: a FIFO or device is told from the open file
                if raw is None:
                    what = "is a folder" if p.is_dir() else "is not a regular file (a pipe or device?)"
                    raise UsageError(f"{shown}: {what}; give a report .json file")
                data = json.loads(raw.decode("utf-8"))
            except FileNotFoundError:
                raise UsageError(f"{shown}: no such file") from None
            except (OSError, UnicodeDecodeError) as err:
                raise UsageError(f"{shown}: cannot read: {err}") from None
            except json.JSONDecodeError as err:
                hint = ("; a scenario goes alone: 'meshspec diff SCENARIO' runs it under two profiles, 'meshspec diff A.json "
                        "B.json' compares two saved reports") if p.suffix in (".yaml", ".yml") else ""
                raise UsageError(f"{shown}:{err.lineno}:{err.colno}: not JSON: {err.msg}{hint}") from None
            except (ValueError, RecursionError) as err:  # integers past 4,300 digits; nesting past Python's limit
                why = "nested too deeply" if isinstance(err, RecursionError) else str(err).split(";")[0]
                raise UsageError(f"{shown}: not a report: {why}") from None
            sides.append(check_report(printable_data(data), shown))  # a report is a file anyone can write
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
    scenario = _one_case(load(sources[0], allow_outside_data=allow_outside_data), case, "diff")
    exp_p = get_profile(expected or "reference", scenario.profiles).name
    act_p = get_profile(actual or scenario.profile or "current", scenario.profiles).name
    from .judge.diff import DiffRefused, bound_runs
    from .report import EXIT_LIMIT

    reports = []
    for p in (exp_p, act_p):  # each run bounded as `run` is; the first to stop at a limit ends the diff
        report = run(scenario, p, **(limits or {}))
        if report.exit_code == EXIT_LIMIT:
            e = report.error
            at = f"step {e.step} ({e.op})"
            why = e.message[len(at) + 2:] if e.message.startswith(f"{at}: ") else e.message
            raise DiffRefused(f"{printable(str(sources[0]))}: the {p} run stopped at meshspec's own limit at {at}: {why}")
        reports.append(report)
    if limits:
        from .render import DEVICE_ENTRY_BYTES, Options, cost

        bound_runs(printable(str(sources[0])), reports, show_all, limits, cost(reports, Format.JSON, Options()), DEVICE_ENTRY_BYTES)  # before either is made JSON and compared
    return reports[0].to_json(), reports[1].to_json(), exp_p, act_p


def _cap_jobs(jobs: int, files: int) -> int:
    """At most one worker per file and four per CPU; says so on stderr when it lowers ``-j``."""
    cpus = os.cpu_count() or 1
    capped = max(1, min(jobs, files, 4 * cpus))
    if capped < jobs:
        why = f"the number of files ({files})" if capped == files else f"4 x the {cpus} CPUs"
        _err(f"-j {jobs} lowered to {capped}: no more workers than {why}")
    return capped


COLLECT_EVERY = 64
"""A serial check runs the cycle collector once per this many files (see :func:`_with_progress`)."""


def _with_progress(check_files, files: list[Path], profile: Optional[str], jobs: int, allow_outside: bool):
    """check's work, with a progress bar on stderr when it is a terminal and the suite is long.

    A serial run collects cycles itself, once every :data:`COLLECT_EVERY` files, with the
    collector off in between: a file's load and run make no reference cycles
    (tests/test_check.py::test_loading_and_running_make_no_reference_cycles), so the automatic
    collections only walked live objects: 27 M of the 800 M instructions of a one-file check, most
    of them while the first file's lazy imports ran. A file that did make some holds them until the
    next collection, never for the whole suite. Worker processes (-j) keep the automatic
    collector: they are forked with it on."""
    import gc

    bar = None
    if len(files) >= 10 and _terminal(sys.stderr):
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


def _report_over_limit(reports: list, fmt: "Format", opts, max_memory: Optional[int]) -> Optional[str]:
    """The refusal of a report that would take more than --max-memory to render (estimated from
    its counts before it is made), or None. 16,384 get_device_tensors parts of a 128x128 mesh, each
    with its whole topology, reached 7.5 GB under --max-memory 1G (issue 34)."""
    from .render import cost
    from .sim.runtime import default_max_memory, fmt_bytes

    limit = max_memory if max_memory is not None else default_max_memory()
    need, what = cost(reports, fmt, opts)
    if need <= limit:
        return None
    return (f"the {fmt.value} report ({what}) would need about {fmt_bytes(need)}, over meshspec's memory limit of "
            f"{fmt_bytes(limit)} (--max-memory; default half the machine's RAM); nothing was written: raise --max-memory, "
            "or ask for less (the table view instead of --view map, a smaller mesh, fewer tensors)")


def _one_pass_memory() -> None:
    """One scenario run and reported, then the process ends: no cycle collection. Loading and
    running make no reference cycles (tests/test_check.py::test_loading_and_running_make_no_reference_cycles),
    so the collector only walks live objects: about a tenth of a 10,000-tensor table view's wall
    time (bench/run.py's row), for nothing. With several scenarios, one file's garbage could hold
    the next file's memory: main()'s thresholds stay (a serial check collects per chunk of files
    instead, :func:`_with_progress`)."""
    import gc

    gc.disable()


def _width(output: Optional[Path]) -> int:
    return columns(120) if output is None else 120


def _emit(text: str, output: Optional[Path], inputs: list[Path]) -> None:
    """Write the report to stdout, or to ``output`` (never over an input: see files.py)."""
    if output is None:
        _stdout(text)
        return
    from .files import write_output

    write_output(output, text, protect=inputs)


def _stdout(text: str) -> None:
    """Print ``text``; what the stream's encoding cannot hold (a lone surrogate from a file name
    that is not UTF-8) is written as an escape rather than failing the run."""
    stream = sys.stdout
    if stream is None:  # started with stdout closed (`>&-`): nothing can be shown, nothing to fail over
        return
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:
            stream.write(text)
        else:
            stream.flush()
            buffer.write(text.encode(stream.encoding or "utf-8", "backslashreplace"))
        stream.flush()
    except BrokenPipeError:
        raise  # the reader left (| head): as before
    except OSError as err:  # a full disk or device behind it: the user's environment, not a bug in meshspec
        raise _stdout_failed(err.strerror or str(err)) from None


def _stdout_failed(why: str) -> UsageError:
    """The error for a stdout that cannot be written (``why``: e.g. no space left on device); what
    could not be written is dropped, not retried when the process exits."""
    sys.stdout = open(os.devnull, "w")
    return UsageError(f"cannot write standard output: {why}")


def _check_outputs(outputs, paths: list[Path]) -> list[Path]:
    """Refuse bad output paths before any work (UsageError); the run's inputs, which they must not be
    (none when nothing is written to a file: then no scenario is read for the data files it names)."""
    from .files import check_outputs

    if all(path is None for _, path in outputs):
        return []
    inputs = _inputs(paths)
    check_outputs(outputs, inputs)
    return inputs


def _inputs(paths: list[Path]) -> list[Path]:
    """Every file a run reads: the scenarios and the data files they name (never written over)."""
    from .scenario.loader import referenced_files

    return [p for path in paths for p in [path, *referenced_files(path)]]


def _empty_argument(args: list[str]) -> Optional[str]:
    """The message for an empty argument (``''``, or an option written ``--out=``), or None.
    ``Path('')`` is the current folder: ``meshspec run "$FILE"`` with FILE unset would say '.: is a
    folder', and ``hunt --out=`` would write into the current folder. A recorded program's own
    arguments (from the first word after ``record``'s own options, or after ``--``) are its business::

        meshspec: argument 2 is empty (''), after 'run': give a file or a value (an unset shell variable?)
    """
    words = _record_own(args) if next((w for w in args if not w.startswith("-")), None) == "record" else args
    for at, word in enumerate(words):
        if word == "":
            from .text import printable

            after = f", after {printable(words[at - 1])!r}" if at else ""
            return f"argument {at + 1} is empty (''){after}: give a file or a value (an unset shell variable?)"
        if word.startswith("-") and word.endswith("=") and word.count("=") == 1 and len(word) > 2:
            return f"argument {at + 1} ({word!r}) gives {word[:-1]} an empty value: give a file or a value (an unset shell variable?)"
    return None


def _record_own(args: list[str]) -> list[str]:
    """The words of a ``record`` command line before the program: its own options and their values."""
    start = args.index("record") + 1
    for at in range(start, len(args)):
        if args[at] == "--" or (not args[at].startswith("-") and args[at - 1] not in ("-o", "--output")):
            return args[:at]
    return args


_signalled: list[int] = []


def _interrupt(signum: int, frame) -> None:
    """SIGINT and SIGTERM alike: unwind (output files are cleaned up, workers stopped), then exit
    128 + the signal's number."""
    _signalled.append(signum)
    raise KeyboardInterrupt


def main() -> None:
    """Console entry point. A bug in meshspec is one line on stderr and exit 3, not a traceback
    (set MESHSPEC_DEBUG=1 to see it). An interrupt (SIGINT, SIGTERM) exits 130 or 143."""
    import gc
    import signal

    # A 65,536-device run holds millions of small objects and makes few reference cycles: with
    # the default thresholds the cycle collector re-walks them all every few thousand
    # allocations (a tenth of the run). Collect the young generation 70 times less often, and
    # leave the objects of start-up out of every collection.
    gc.freeze()
    gc.set_threshold(50_000, 20, 100)

    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _interrupt)
    try:
        code = app(sys.argv[1:])
    except KeyboardInterrupt:
        code = 128 + (_signalled[0] if _signalled else signal.SIGINT)
    except Exception as err:
        if os.environ.get("MESHSPEC_DEBUG"):
            raise
        _err(f"{internal_error(err)} ({REPORT_IT}, MESHSPEC_DEBUG=1 shows the traceback)")
        code = EXIT_INTERNAL
    if _signalled:  # a command that stopped on an interrupt exits as the signal says
        code = 128 + _signalled[0]
    sys.exit(code)
