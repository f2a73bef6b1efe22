"""The command line: thin typer commands over the modules that do the work.

Exit codes: 0 clean, 1 findings or a step error, 2 bad input or usage, 3 a bug in meshspec. The
report goes to stdout (or ``--output``); diagnostics go to stderr, one line each.

Each command is a typer function of its options that returns its exit code, registered with
:func:`~meshspec.argv.command` (the grammar, built only for the command that runs, and its one-line
usage errors are :mod:`meshspec.argv`). :func:`app` parses and dispatches (what the tests call);
:func:`main` is the console entry point around it (signals, the cycle collector, a bug as one line).
"""

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .argv import CONTEXT, Group, Usage, choice, columns, command, count, prog
from .errors import REPORT_IT, MeshspecError, UsageError, internal_error
from .streams import write_stdout as _stdout
from .render.options import Format, View
from .sim.mesh import SYSTEMS
from .sim.modes import Uninitialized
from .sim.profiles import PROFILES

DESCRIPTION = "Reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh."
VERSION = f"meshspec {__version__}"
FORMATS, VIEWS, UNINITIALIZED = (tuple(c.value for c in choices) for choices in (Format, View, Uninitialized))

EXIT_USAGE = 2
EXIT_INTERNAL = 3

# options several commands share
FORMAT = choice("-f", "--format", choices=FORMATS, convert=Format, help="Output format.")
OUTPUT = typer.Option("-o", "--output", metavar="FILE", help="Write to FILE instead of stdout.")
NO_COLOR = typer.Option("--no-color", help="Plain text even on a terminal.")
ALLOW_OUTSIDE = typer.Option("--allow-outside-data", help="Let scenarios read data files outside their own folder.")
CASE = typer.Option("--case", metavar="NAME", help="The case of a matrix scenario, as check names it (bfloat16-tile). Default: the first.")


# -- parsing and dispatch ------------------------------------------------------------------------
def _version(value: bool) -> None:
    if value:
        _stdout(VERSION + "\n")
        raise typer.Exit(0)


def _meshspec(
    version: Annotated[bool, typer.Option("--version", is_eager=True, callback=_version, help="Show the version and exit.")] = False,
) -> None:
    """meshspec's own options, before the command (the commands are argv.COMMANDS)."""


def _group():
    """meshspec itself as a click group (its commands are built when they run)."""
    top = typer.Typer(cls=Group, add_completion=False, rich_markup_mode=None, help=DESCRIPTION,
                      context_settings={**CONTEXT, "terminal_width": columns(80) - 2})
    top.callback()(_meshspec)
    return typer.main.get_command(top)


def app(argv: list[str]) -> int:
    """Parse ``argv`` (the words after ``meshspec``) and run the command; its exit code. A usage
    error or a MeshspecError is one line on stderr and exit 2; a bug in meshspec propagates."""
    empty = _empty_argument(argv)
    if empty is not None:
        _err(empty)
        return EXIT_USAGE
    group = _group()
    if not argv:  # meshspec alone: the help, on stderr (it was not asked for)
        if sys.stderr is not None:
            sys.stderr.write(group.get_help(group.make_context(prog(), [], resilient_parsing=True)) + "\n")
        return EXIT_USAGE
    try:
        return group.main(args=argv, prog_name=prog(), standalone_mode=False)
    except Usage as usage:
        _err(usage.line())
        return EXIT_USAGE
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
    from .progress import terminal

    if no_color or output is not None or os.environ.get("NO_COLOR"):
        return False
    return terminal(sys.stdout)


# -- the commands --------------------------------------------------------------------------------
@command()
def run(
    scenarios: Annotated[list[Path], typer.Argument(metavar="SCENARIO", help="Scenario YAML file(s).", show_default=False)],
    profile: Annotated[Optional[str], typer.Option(
        "-p", "--profile", metavar="NAME",
        help=f"Runtime profile: {', '.join(PROFILES)}, one the scenario defines, or 'all' to compare them. Overrides the scenario's.")] = None,
    fmt: Annotated[str, FORMAT] = "table",
    view: Annotated[str, choice("--view", choices=VIEWS, convert=View,
                                help="table: per-device tables; map: the mesh as a grid; data: what a reader gets back.")] = "table",
    trace: Annotated[bool, typer.Option("--trace", help="Add a step trace: what each step wrote, recorded and revealed.")] = False,
    device: Annotated[Optional[str], typer.Option(
        "--device", metavar="COORD", help="Draw this device of each sharded tensor core by core, e.g. 1,3.")] = None,
    show_values: Annotated[str, count("--show-values", least=0, help="With the data view: print the first N values of each device.")] = 0,
    output: Annotated[Optional[Path], OUTPUT] = None,
    no_data: Annotated[bool, typer.Option(
        "--no-data", help="Metadata mode: shapes, records and written pages only (no buffers; any mesh size).")] = False,
    uninitialized: Annotated[str, choice("--uninitialized", choices=UNINITIALIZED, help="What never-written device memory holds.")] = "poison",
    max_memory: Annotated[Optional[str], typer.Option(
        "--max-memory", metavar="SIZE",
        help="Memory a run may use, its data, records and report, e.g. 8G or 512M (default: half the RAM).")] = None,
    max_work: Annotated[Optional[str], count(
        "--max-work", least=1,
        help="Work units a run may do (a device of each buffer, write, read or host shard, plus one a 16 KiB moved, "
             "a KiB of block floats; default 4,194,304).")] = None,
    allow_outside_data: Annotated[bool, ALLOW_OUTSIDE] = False,
    svg: Annotated[Optional[Path], typer.Option("--svg", metavar="FILE", help="Also save what was printed as SVG.")] = None,
    html: Annotated[Optional[Path], typer.Option("--html", metavar="FILE", help="Also save what was printed as HTML.")] = None,
    no_color: Annotated[bool, NO_COLOR] = False,
) -> int:
    """Run scenario(s) on a simulated mesh; flag every device whose record disagrees with what was written."""
    from .errors import ScenarioError
    from .progress import one_pass, run_progress
    from .render import Options, export, render
    from .runner import run_paths

    if fmt is Format.JSON and (svg or html):
        raise UsageError("--svg and --html save the table format as printed; drop --format json (or save the JSON with --output)")
    compare = profile == "all"
    options: dict = {
        "data": view is View.DATA or show_values > 0,
        "show_values": show_values,
        "uninitialized": uninitialized,
        "allow_outside_data": allow_outside_data,
    }
    if no_data:
        options["with_data"] = False
    if max_memory is not None:
        options["max_memory"] = parse_bytes(max_memory)
    if max_work is not None:
        options["max_work"] = max_work
    if device is not None:
        options["device"] = _device_option(device)
    inputs = _check_outputs((("--output", output), ("--svg", svg), ("--html", html)), scenarios)
    if show_values and view is not View.DATA:
        view = View.DATA
    from .check import check_profile_option

    check_profile_option(profile, scenarios)  # names 'all' among the choices
    if len(scenarios) == 1:
        one_pass()
    with run_progress(scenarios) as on_step:
        results = run_paths(scenarios, profile, on_step=on_step, **options)
    reports = [r for r in results if not isinstance(r, ScenarioError)]
    for failure in dict.fromkeys(str(r) for r in results if isinstance(r, ScenarioError)):
        _err(failure)
    code = max(EXIT_USAGE if isinstance(r, ScenarioError) else r.exit_code for r in results)
    if device is not None and view is not View.MAP and reports and not any(t.cores for r in reports for t in r.tensors):
        _err(f"--device {device}: no tensor of this run is sharded, so there is no core view to draw "
             "(--device draws each sharded tensor's device core by core)")
    if reports:
        opts = Options(view=view, trace=trace, color=_use_color(no_color, output), width=_width(output), show_values=show_values,
                       device=options.get("device"))
        refused = _report_over_limit(reports, fmt, opts, options.get("max_memory"))
        if refused is not None:
            from .report import EXIT_LIMIT

            _err(refused)
            return EXIT_LIMIT
        shown = results if fmt is Format.JSON and (len(scenarios) > 1 or compare) else reports
        _emit(render(shown, fmt, opts, compare=compare), output, inputs)
        for path, kind in ((svg, "svg"), (html, "html")):
            if path is not None:
                _emit(export(path, reports, opts, kind, compare=compare), path, inputs)
    return code


@command()
def diff(
    sources: Annotated[list[Path], typer.Argument(metavar="SOURCE", help="A scenario (run under two profiles), or EXPECTED.json ACTUAL.json (two saved reports).", show_default=False)],
    expected: Annotated[Optional[str], typer.Option("--expected", metavar="PROFILE", help="Profile of the expected side (scenario mode).")] = None,
    actual: Annotated[Optional[str], typer.Option(
        "--actual", metavar="PROFILE", help="Profile of the actual side (scenario mode; default: the scenario's, else current).")] = None,
    case: Annotated[Optional[str], CASE] = None,
    fmt: Annotated[str, FORMAT] = "table",
    show_all: Annotated[bool, typer.Option("--all", help="Show devices that agree too.")] = False,
    output: Annotated[Optional[Path], OUTPUT] = None,
    no_color: Annotated[bool, NO_COLOR] = False,
    allow_outside_data: Annotated[bool, ALLOW_OUTSIDE] = False,
    max_memory: Annotated[Optional[str], typer.Option(
        "--max-memory", metavar="SIZE", help="Memory each run and the diff may use, e.g. 8G or 512M (default: half the RAM).")] = None,
    max_work: Annotated[Optional[str], count(
        "--max-work", least=1,
        help="Work units each run and the diff may do (as run's; a device compared 1, a row drawn 16; default 4,194,304).")] = None,
) -> int:
    """Expected vs actual per-device records; exit 1 when they differ."""
    from .judge.diff import DiffRefused, bound_diff, diff_reports
    from .judge.real import comparable
    from .render import DEVICE_ENTRY_BYTES, Options, render_diff
    from .report import EXIT_LIMIT
    from .sides import diff_sides
    from .sim.runtime import MAX_WORK, default_max_memory
    from .text import printable

    limits = {"max_memory": parse_bytes(max_memory) if max_memory is not None else default_max_memory(),
              "max_work": max_work or MAX_WORK}
    try:
        exp, act, exp_label, act_label = diff_sides(sources, expected, actual, allow_outside_data, limits, show_all, case, say=_err)
        exp, act, skipped = comparable(exp, act)  # a real runtime's report: what of it can be compared
        result = diff_reports(exp, act, exp_label, act_label).replace(not_compared=skipped)
        compared = sum(len(t.rows) for t in result.tensors)
        drawn = compared if show_all else len({(d.tensor, d.device) for d in result.differences if d.device is not None})
        bound_diff(" vs ".join(printable(str(p)) for p in sources), compared, drawn, limits, DEVICE_ENTRY_BYTES)
    except DiffRefused as refused:
        _err(str(refused))
        return EXIT_LIMIT
    from .progress import terminal

    opts = Options(color=_use_color(no_color, output), width=_width(output), fit=output is None and terminal(sys.stdout))
    _emit(render_diff(result, fmt, opts, show_all=show_all), output, sources)
    return result.exit_code


@command()
def check(
    paths: Annotated[list[Path], typer.Argument(metavar="PATH", help="Scenario files or folders (searched for *.yaml).", show_default=False)],
    profile: Annotated[Optional[str], typer.Option(
        "-p", "--profile", metavar="NAME",
        help="A profile name, or 'all'. Default: the profiles each scenario's expect block names, else its own.")] = None,
    junit_xml: Annotated[Optional[Path], typer.Option("--junit-xml", metavar="FILE", help="Also write JUnit XML to FILE.")] = None,
    jobs: Annotated[str, count("-j", "--jobs", least=1, help="Worker processes.")] = 1,
    shard_spec: Annotated[Optional[str], typer.Option(
        "--shard", metavar="K/N", help="K/N: run every N-th scenario starting at the K-th (1-based), for CI matrices.")] = None,
    allow_outside_data: Annotated[bool, ALLOW_OUTSIDE] = False,
) -> int:
    """Run scenarios as CI checks against their expect blocks: PASS / FAIL / ERROR per case."""
    from . import check as checks
    from .progress import check_in_chunks
    from .render.check import junit_xml as to_junit
    from .render.check import result_line
    from .report import summarize

    files = every_file = checks.collect(paths)
    checks.check_profile_option(profile, files)
    if shard_spec:
        files = checks.shard(files, *checks.parse_shard(shard_spec))
    jobs = _cap_jobs(jobs, len(files))
    inputs = _check_outputs((("--junit-xml", junit_xml),), every_file)
    results = [r for per_file in check_in_chunks(checks.check_files, files, profile, jobs, allow_outside_data) for r in per_file]
    summary = summarize(results)
    _stdout("\n".join([*map(result_line, results), summary.line()]) + "\n")  # one write, not one a case
    if junit_xml is not None:
        _emit(to_junit(results), junit_xml, inputs)
    return summary.exit_code


@command()
def systems() -> int:
    """List the known systems and their mesh shapes."""
    import textwrap

    from .sim.mesh import volume

    lines = []
    for name, system in SYSTEMS.items():
        n = volume(system.shape)
        shape = "x".join(map(str, system.shape))
        row = f"{name:<9} {shape:<5} {n:>3} {'device' if n == 1 else 'devices':<7}  {system.arch:<11}  "
        lines.append(textwrap.fill(system.note, width=max(len(row) + 20, _width(None)), initial_indent=row,
                                   subsequent_indent=" " * len(row), break_on_hyphens=False) + "\n")
    _stdout("".join(lines))
    return 0


@command()
def export(
    scenario: Annotated[Path, typer.Argument(metavar="SCENARIO", help="The scenario to export.", show_default=False)],
    to: Annotated[str, choice("--to", choices=("ttnn",), help="What to export to: ttnn (a Python script on the real ttnn API).")] = "ttnn",
    minimal: Annotated[bool, typer.Option(
        "--minimal",
        help="Only the plain ttnn calls, for a bug report: the steps, then what the runtime records for each tensor, printed.")] = False,
    case: Annotated[Optional[str], CASE] = None,
    output: Annotated[Optional[Path], OUTPUT] = None,
    allow_outside_data: Annotated[bool, ALLOW_OUTSIDE] = False,
) -> int:
    """Write the scenario as a standalone ttnn script that reports what the real runtime records."""
    from .bridge.export import export as full_script
    from .bridge.minimal import export_minimal
    from .scenario.loader import load
    from .sides import one_case

    chosen, note = one_case(load(scenario, allow_outside_data=allow_outside_data), case, "export")
    if note is not None:
        _err(note)
    # the script finds the scenario's .npy files where they are now, relative to itself
    where = Path(os.path.relpath(scenario.resolve().parent, output.resolve().parent)) if output is not None else Path(".")
    to_script = export_minimal if minimal else full_script
    _emit(to_script(chosen, data_dir=str(where)), output, _inputs([scenario]))
    return 0


@command(name="import")
def import_(
    path: Annotated[list[Path], typer.Argument(metavar="PATH", show_default=False,
        help="A tracer folder (pytest --trace-params) or a graph capture .json; several: one parametrized test's runs, as a matrix.")],
    output: Annotated[Optional[Path], OUTPUT] = None,
) -> int:
    """Turn ttnn's operation-tracer output or a graph capture into a scenario; a line per call not imported."""
    from .bridge.importer import import_paths
    from .scenario.loads import check_loads

    imported = import_paths(path)
    shown = " ".join(str(p) for p in path)
    check_loads(imported.text, output if output is not None else Path("imported.yaml"), f"import {shown}")  # what it writes loads
    for line in imported.unmapped:
        _err(f"not imported: {line}")
    _emit(imported.text, output, [q for p in path for q in ([p, *sorted(p.iterdir())] if p.is_dir() else [p])])
    return 0


@command(allow_interspersed_args=False)
def record(
    output: Annotated[Optional[Path], typer.Option("-o", "--output", metavar="DIR", help="A new directory for scenario.yaml, report.json and data files (required).")] = None,
    program: Annotated[Optional[list[str]], typer.Argument(
        metavar="-- PROGRAM", help="python prog.py ARGS... (or prog.py ARGS...).", show_default=False)] = None,
) -> int:
    """Run a ttnn program with ttnn's calls recorded: meshspec record -o DIR -- python prog.py ARGS...

    The program runs as it would (its output and exit code unchanged); DIR gets scenario.yaml (a
    step per call, opaque steps for calls meshspec does not model), its data files, and
    report.json (what the real runtime recorded, after every step in its steps). meshspec must be
    installed in the program's Python (the ttnn venv). For pytest: pytest --meshspec-record DIR."""
    import subprocess

    from .bridge.launch import USAGE, check_output_dir, check_ttnn, exit_like, recorder_command

    program = program or []
    if output is None:
        where = " (the -o after the program is the program's own)" if any(w in ("-o", "--output") or w.startswith("--output=") for w in program) else ""
        raise UsageError(f"--output DIR missing{where}: record's own options go before the program: {USAGE}")
    check_output_dir(output, probe=False)
    command_line = recorder_command(output, list(program))
    check_ttnn(command_line[0])
    check_output_dir(output)
    return exit_like(subprocess.run(command_line).returncode)


@command()
def hunt(
    folders: Annotated[Optional[list[Path]], typer.Argument(metavar="FOLDER", help="With --merge: the hunt folders to merge.", show_default=False)] = None,
    profile: Annotated[Optional[str], typer.Option(
        "-p", "--profile", metavar="NAME", help="The profile to hunt: one of meshspec's or one --profiles defines.")] = None,
    against: Annotated[Optional[str], typer.Option("--against", metavar="NAME", help="The profile it is compared with (default reference).")] = None,
    mesh: Annotated[Optional[list[str]], typer.Option(
        "--mesh", metavar="MESH", help="A system (t3k, galaxy, ...) or a shape (2x4); repeat for several.")] = None,
    ops: Annotated[Optional[str], typer.Option("--ops", metavar="OPS", help="Comma-separated ops the programs use (default: all hunt writes).")] = None,
    time_budget: Annotated[Optional[str], typer.Option("--time", metavar="TIME", help="How long to search, e.g. 60s or 2m (default 60s).")] = None,
    examples: Annotated[Optional[str], count("--examples", least=1, help="Programs to try instead of a time (deterministic).")] = None,
    seed: Annotated[str, count("--seed", help="The seed: the same programs on every machine.")] = 0,
    shard_spec: Annotated[Optional[str], typer.Option("--shard", metavar="K/N", help="K/N: the K-th of N disjoint slices of the programs.")] = None,
    fault: Annotated[Optional[str], typer.Option(
        "--fault", metavar="FAULT", help="Inject a fault into the hunted profile: skip_write, drop_record or alter_shape.")] = None,
    profiles_file: Annotated[Optional[Path], typer.Option("--profiles", metavar="FILE", help="A scenario file whose profiles: block defines user profiles.")] = None,
    merge: Annotated[bool, typer.Option("--merge", help="Merge the hunt folders given into --out (deduplicated) instead of hunting.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", metavar="DIR", help="The folder the scenarios and hunt.json go to.")] = None,
    max_memory: Annotated[Optional[str], typer.Option(
        "--max-memory", metavar="SIZE",
        help="Memory each program's run may use, e.g. 8G or 512M (default: half the RAM); a program that needs more is skipped and counted.")] = None,
    max_work: Annotated[Optional[str], count(
        "--max-work", least=1,
        help="Device operations each program's run may do (default as run's); a program that needs more is skipped and counted.")] = None,
    real: Annotated[Optional[str], typer.Option(
        "--real", metavar="PYTHON", help="Run the programs on the real ttnn this Python (or env.sh) has and compare with the simulation.")] = None,
    fmt: Annotated[str, FORMAT] = "table",
) -> int:
    """Find new mismatches: random programs run under two profiles, each disagreement shrunk to a scenario."""
    from .hunt import cli as hunting

    if folders and not merge:
        raise UsageError(f"{folders[0]}: hunt takes folders only with --merge")
    text, code = hunting.main(profile, against, mesh, ops, time_budget, examples, seed, shard_spec, fault,
                              profiles_file, (folders or []) if merge else None, out, fmt,
                              max_memory=parse_bytes(max_memory) if max_memory is not None else None, max_work=max_work, real=real)
    _stdout(text)
    return code


@command()
def profiles(
    scenario: Annotated[Optional[Path], typer.Argument(metavar="SCENARIO", help="Also show the profiles this scenario defines.", show_default=False)] = None,
    fmt: Annotated[str, FORMAT] = "table",
) -> int:
    """Every profile's rules side by side, what each choice means, and its source."""
    import json

    from .render.profiles import profiles_data, profiles_text
    from .scenario.loader import load

    shown = list(PROFILES.values()) + (list(load(scenario).profiles.values()) if scenario is not None else [])
    match fmt:
        case Format.TABLE:
            _stdout(profiles_text(shown, _width(None)))
        case Format.JSON:
            _stdout(json.dumps(profiles_data(shown), indent=2) + "\n")
    return 0


@command()
def explain(
    name: Annotated[Optional[str], typer.Argument(
        metavar="NAME", help="A finding kind (e.g. stale), a status, or a step (e.g. to_torch).", show_default=False)] = None,
) -> int:
    """Explain a finding kind or a step; with no name, list what can be explained."""
    from .explain import choices_text
    from .explain import explain as text_of

    from .text import wrap_lines

    _stdout(wrap_lines(text_of(name) if name is not None else choices_text(), _width(None)))
    return 0


@command()
def init(
    file: Annotated[Path, typer.Argument(metavar="FILE", help="Scenario file to create.", show_default=False)],
    system: Annotated[str, typer.Option("-s", "--system", metavar="SYSTEM", help=f"System: {' '.join(SYSTEMS)}.")] = "t3k",
) -> int:
    """Write a commented starter scenario (never over an existing file)."""
    from .files import write_new
    from .starter import starter

    write_new(file, starter(system, str(file)))
    _stdout(f"wrote {file}; run it with: meshspec run {file}\n")
    return 0


@command()
def schema(
    report: Annotated[bool, typer.Option("--report", help="The schema of saved reports (meshspec.report/1) instead.")] = False,
) -> int:
    """Print the JSON Schema of scenario format 1 (for editors: yaml-language-server), or of reports."""
    from .render.json import dumps

    if report:
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


def parse_bytes(text: str) -> int:
    """``8G``, ``512M``, ``1.5GiB``, ``1000000`` -> bytes (binary units)."""
    import re

    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*", text.lower())
    if not m:
        raise UsageError(f"--max-memory {text!r}: write a size like 8G, 512M or 1000000")
    scale = {"": 1, "k": 1 << 10, "m": 1 << 20, "g": 1 << 30, "t": 1 << 40}[m.group(2)]
    size = int(float(m.group(1)) * scale)
    if size < 1:  # as --max-work 0 is refused: no run fits in nothing
        raise UsageError(f"--max-memory {text!r}: give a size of at least one byte, like 8G, 512M or 1000000")
    return size


def _cap_jobs(jobs: int, files: int) -> int:
    """At most one worker per file and four per CPU; says so on stderr when it lowers ``-j``."""
    cpus = os.cpu_count() or 1
    capped = max(1, min(jobs, files, 4 * cpus))
    if capped < jobs:
        why = f"the number of files ({files})" if capped == files else f"4 x the {cpus} CPUs"
        _err(f"-j {jobs} lowered to {capped}: no more workers than {why}")
    return capped


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


def _width(output: Optional[Path]) -> int:
    return columns(120) if output is None else 120


def _emit(text: str, output: Optional[Path], inputs: list[Path]) -> None:
    """Write the report to stdout, or to ``output`` (never over an input: see files.py)."""
    if output is None:
        _stdout(text)
        return
    from .files import write_output

    write_output(output, text, protect=inputs)


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
    import signal

    from .progress import tune_collector

    tune_collector()
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
