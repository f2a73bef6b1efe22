"""The command line: thin typer commands over :mod:`meshspec.runner`.

Exit codes: 0 clean, 1 findings or a step error, 2 bad input or usage. The report goes to
stdout (or ``--output``); diagnostics go to stderr, one line each.
"""

import contextlib
import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import REPORT_IT, MeshspecError, UsageError, internal_error
from .render.options import Format, View
from .sim.mesh import SYSTEMS
from .sim.modes import Uninitialized
from .sim.profiles import PROFILES

app = typer.Typer(
    name="meshspec",
    help="Reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh.",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    # plain click help and usage errors: a usage error is a short plain message, not a drawn box
    rich_markup_mode=None,
)

EXIT_USAGE = 2


def _version(value: bool) -> None:
    if value:
        typer.echo(f"meshspec {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: Annotated[
        Optional[bool],
        typer.Option("--version", callback=_version, is_eager=True, help="Show the version and exit."),
    ] = None,
) -> None:
    """Reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh."""


def _err(message: str) -> None:
    """One line to stderr; what a terminal would act on (from a file name, a trace's op name) and
    a newline in a value escaped, so the line stays one."""
    from .text import printable, shorten_values  # here: --help loads no more than it needs

    line = shorten_values(printable(message)).replace("\n", "\\n")
    typer.echo(f"meshspec: {line}", err=True)


FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to FILE instead of stdout.")]
NoColorOption = Annotated[bool, typer.Option("--no-color", help="Plain text even on a terminal.")]
AllowOutsideOption = Annotated[
    bool, typer.Option("--allow-outside-data", help="Let scenarios read data files outside their own folder.")
]


def _use_color(no_color: bool, output: Optional[Path]) -> bool:
    if no_color or output is not None or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@app.command()
def run(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML file(s).", show_default=False)],
    profile: Annotated[
        Optional[str],
        typer.Option(
            "--profile", "-p", help=f"Runtime profile: {', '.join(PROFILES)}, one the scenario defines, or 'all' to compare them. Overrides the scenario's."
        ),
    ] = None,
    fmt: FormatOption = Format.TABLE,
    view: Annotated[View, typer.Option("--view", help="table: per-device tables; map: the mesh as a grid; data: what a reader gets back.")] = View.TABLE,
    trace: Annotated[bool, typer.Option("--trace", help="Add a step trace: what each step wrote, recorded and revealed.")] = False,
    device: Annotated[
        Optional[str], typer.Option("--device", help="Draw this device of each sharded tensor core by core, e.g. 1,3.", show_default=False)
    ] = None,
    show_values: Annotated[int, typer.Option("--show-values", min=0, help="With the data view: print the first N values of each device.")] = 0,
    output: OutputOption = None,
    no_data: Annotated[
        bool, typer.Option("--no-data", help="Metadata mode: shapes, records and written pages only (no buffers; any mesh size).")
    ] = False,
    uninitialized: Annotated[
        Uninitialized, typer.Option("--uninitialized", help="What never-written device memory holds.")
    ] = Uninitialized.POISON,
    max_memory: Annotated[
        Optional[str], typer.Option("--max-memory", help="Memory a data-mode run may use, e.g. 8G or 512M (default: half the RAM).")
    ] = None,
    allow_outside_data: AllowOutsideOption = False,
    svg: Annotated[Optional[Path], typer.Option("--svg", help="Also save what was printed as SVG.")] = None,
    html: Annotated[Optional[Path], typer.Option("--html", help="Also save what was printed as HTML.")] = None,
    no_color: NoColorOption = False,
) -> None:
    """Run scenario(s) on a simulated mesh; flag every device whose record disagrees with what was written."""
    from .errors import ScenarioError
    from .render import Options, export, render
    from .runner import run_paths

    if fmt is Format.JSON and (svg or html):
        _err("--svg and --html save the table format as printed; drop --format json (or save the JSON with --output)")
        raise typer.Exit(EXIT_USAGE)
    compare = profile == "all"
    data = view is View.DATA or show_values > 0
    options: dict = {
        "data": data,
        "show_values": show_values,
        "uninitialized": uninitialized.value,
        "allow_outside_data": allow_outside_data,
    }
    if no_data:
        options["with_data"] = False
    try:
        if max_memory is not None:
            options["max_memory"] = parse_bytes(max_memory)
        if device is not None:
            options["device"] = _device_option(device)
        inputs = _check_outputs((("--output", output), ("--svg", svg), ("--html", html)), scenarios)
    except UsageError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    if show_values and view is not View.DATA:
        view = View.DATA
    try:
        from .check import check_profile_option

        check_profile_option(profile, scenarios)  # names 'all' among the choices
        if len(scenarios) == 1:
            _one_pass_memory()
        if compare:
            with _run_progress(scenarios) as on_step:
                results = run_paths(scenarios, "all", on_step=on_step, **options)
        else:
            with _run_progress(scenarios) as on_step:
                results = run_paths(scenarios, profile, on_step=on_step, **options)
    except UsageError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    reports = [r for r in results if not isinstance(r, ScenarioError)]
    failures = list(dict.fromkeys(str(r) for r in results if isinstance(r, ScenarioError)))
    for failure in failures:
        _err(failure)
    code = max(EXIT_USAGE if isinstance(r, ScenarioError) else r.exit_code for r in results)
    if device is not None and reports and not any(t.cores for r in reports for t in r.tensors):
        _err(f"--device {device}: no tensor of this run is sharded, so there is no core view to draw "
             "(--device draws each sharded tensor's device core by core)")
    if reports:
        opts = Options(view=view, trace=trace, color=_use_color(no_color, output), width=_width(output), show_values=show_values)
        shown = results if fmt is Format.JSON and (len(scenarios) > 1 or compare) else reports
        text = render(shown, fmt, opts, compare=compare)
        try:
            _emit(text, output, inputs)
            for path, kind in ((svg, "svg"), (html, "html")):
                if path is not None:
                    _emit(export(path, reports, opts, kind, compare=compare), path, inputs)
        except MeshspecError as err:
            _err(str(err))
            raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(code)


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
    if not sys.stderr.isatty() or _elements(scenarios) < LARGE_RUN_ELEMENTS:
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


def _order(result, scenarios: list[Path]) -> int:
    """Keep --profile all output grouped by scenario, in the order given."""
    path = getattr(result, "path", None) or getattr(result, "file", None)
    for i, s in enumerate(scenarios):
        if str(s) == str(path):
            return i
    return len(scenarios)


@app.command()
def diff(
    sources: Annotated[
        list[Path],
        typer.Argument(help="A scenario (run under two profiles), or EXPECTED.json ACTUAL.json (two saved reports).", show_default=False),
    ],
    expected: Annotated[Optional[str], typer.Option("--expected", help="Profile of the expected side (scenario mode).")] = None,
    actual: Annotated[
        Optional[str], typer.Option("--actual", help="Profile of the actual side (scenario mode; default: the scenario's, else current).")
    ] = None,
    fmt: FormatOption = Format.TABLE,
    show_all: Annotated[bool, typer.Option("--all", help="Show devices that agree too.")] = False,
    output: OutputOption = None,
    no_color: NoColorOption = False,
    allow_outside_data: AllowOutsideOption = False,
) -> None:
    """Expected vs actual per-device records; exit 1 when they differ."""
    from .judge.diff import diff_reports
    from .render import Options, render_diff

    try:
        exp, act, exp_label, act_label = _diff_sides(sources, expected, actual, allow_outside_data)
        result = diff_reports(exp, act, exp_label, act_label)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    opts = Options(color=_use_color(no_color, output), width=_width(output))
    text = render_diff(result, fmt, opts, show_all=show_all)
    try:
        _emit(text, output, sources)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(result.exit_code)


def _diff_sides(sources: list[Path], expected: Optional[str], actual: Optional[str], allow_outside_data: bool = False):
    import json

    from .judge.diff import check_report
    from .runner import run
    from .text import printable, printable_data
    from .scenario.loader import load
    from .sim.profiles import get_profile

    if len(sources) == 2:
        if expected or actual:
            raise UsageError("--expected/--actual name profiles for a scenario; with two reports the files are the sides")
        sides = []
        for p in sources:
            shown = printable(str(p))
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
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
    scenario = load(sources[0], allow_outside_data=allow_outside_data)
    exp_p = get_profile(expected or "reference", scenario.profiles).name
    act_p = get_profile(actual or scenario.profile or "current", scenario.profiles).name
    return run(scenario, exp_p).to_json(), run(scenario, act_p).to_json(), exp_p, act_p


@app.command()
def check(
    paths: Annotated[list[Path], typer.Argument(help="Scenario files or folders (searched for *.yaml).", show_default=False)],
    profile: Annotated[
        Optional[str],
        typer.Option("--profile", "-p", help="A profile name, or 'all'. Default: the profiles each scenario's expect block names, else its own."),
    ] = None,
    junit_xml: Annotated[Optional[Path], typer.Option("--junit-xml", help="Also write JUnit XML to FILE.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", min=1, help="Worker processes.")] = 1,
    shard_spec: Annotated[
        Optional[str], typer.Option("--shard", help="K/N: run every N-th scenario starting at the K-th (1-based), for CI matrices.")
    ] = None,
    allow_outside_data: AllowOutsideOption = False,
) -> None:
    """Run scenarios as CI checks against their expect blocks: PASS / FAIL / ERROR per case."""
    from . import check as checks
    from .render.check import junit_xml as to_junit
    from .render.check import result_line
    from .report import summarize

    try:
        files = every_file = checks.collect(paths)
        checks.check_profile_option(profile, files)
        if shard_spec:
            files = checks.shard(files, *checks.parse_shard(shard_spec))
        jobs = _cap_jobs(jobs, len(files))
        inputs = _check_outputs((("--junit-xml", junit_xml),), every_file)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    results = [r for per_file in _with_progress(checks.check_files, files, profile, jobs, allow_outside_data) for r in per_file]
    summary = summarize(results)
    typer.echo("\n".join([*map(result_line, results), summary.line()]))  # one write, not one a case
    if junit_xml is not None:
        try:
            _emit(to_junit(results), junit_xml, inputs)
        except MeshspecError as err:
            _err(str(err))
            raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(summary.exit_code)


@app.command()
def systems() -> None:
    """List the known systems and their mesh shapes."""
    from .sim.mesh import volume

    for name, system in SYSTEMS.items():
        n = volume(system.shape)
        shape = "x".join(map(str, system.shape))
        typer.echo(f"{name:<9} {shape:<5} {n:>3} {'device' if n == 1 else 'devices':<7}  {system.arch:<11}  {system.note}")


@app.command()
def export(
    scenario: Annotated[Path, typer.Argument(help="The scenario to export.", show_default=False)],
    to: Annotated[str, typer.Option("--to", help="What to export to: ttnn (a Python script on the real ttnn API).")] = "ttnn",
    output: OutputOption = None,
    allow_outside_data: AllowOutsideOption = False,
) -> None:
    """Write the scenario as a standalone ttnn script that reports what the real runtime records."""
    from .bridge.export import export as to_script
    from .scenario.loader import load

    try:
        if to != "ttnn":
            raise UsageError(f"--to {to!r}: one of ttnn")
        scenario_ = load(scenario, allow_outside_data=allow_outside_data)
        # the script finds the scenario's .npy files where they are now, relative to itself
        where = Path(os.path.relpath(scenario.resolve().parent, output.resolve().parent)) if output is not None else Path(".")
        _emit(to_script(scenario_, data_dir=str(where)), output, _inputs([scenario]))
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None


@app.command(name="import")
def import_(
    path: Annotated[Path, typer.Argument(help="A tracer folder (pytest --trace-params) or a graph capture .json.", show_default=False)],
    output: OutputOption = None,
) -> None:
    """Turn ttnn's operation-tracer output or a graph capture into a scenario; a line per call not imported."""
    from .bridge.importer import import_path

    try:
        imported = import_path(path)
        for line in imported.unmapped:
            _err(f"not imported: {line}")
        _emit(imported.text, output, [path, *sorted(path.iterdir())] if path.is_dir() else [path])
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def record(
    ctx: typer.Context,
    output: Annotated[Path, typer.Option("--output", "-o", help="A new directory for scenario.yaml, report.json and data files.", show_default=False)],
) -> None:
    """Run a ttnn program with ttnn's calls recorded: meshspec record -o DIR -- python prog.py ARGS...

    The program runs as it would (its output and exit code unchanged); DIR gets scenario.yaml (a
    step per call, opaque steps for calls meshspec does not model), its data files, and
    report.json (what the real runtime recorded, after every step in its steps). meshspec must be
    installed in the program's Python (the ttnn venv). For pytest: pytest --meshspec-record DIR."""
    import subprocess

    from .bridge.launch import check_output_dir, check_ttnn, exit_like, recorder_command

    try:
        check_output_dir(output, probe=False)
        command = recorder_command(output, list(ctx.args))
        check_ttnn(command[0])
        check_output_dir(output)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(exit_like(subprocess.run(command).returncode))


@app.command()
def hunt(
    profile: Annotated[Optional[str], typer.Option("--profile", "-p", help="The profile to hunt: one of meshspec's or one --profiles defines.")] = None,
    against: Annotated[Optional[str], typer.Option("--against", help="The profile it is compared with (default reference).")] = None,
    mesh: Annotated[Optional[list[str]], typer.Option("--mesh", help="A system (t3k, galaxy, ...) or a shape (2x4); repeat for several.")] = None,
    ops: Annotated[Optional[str], typer.Option("--ops", help="Comma-separated ops the programs use (default: all hunt writes).")] = None,
    time_budget: Annotated[Optional[str], typer.Option("--time", help="How long to search, e.g. 60s or 2m (default 60s).")] = None,
    examples: Annotated[Optional[int], typer.Option("--examples", min=1, help="Programs to try instead of a time (deterministic).")] = None,
    seed: Annotated[int, typer.Option("--seed", help="The seed: the same programs on every machine.")] = 0,
    shard_spec: Annotated[Optional[str], typer.Option("--shard", help="K/N: the K-th of N disjoint slices of the programs.")] = None,
    fault: Annotated[Optional[str], typer.Option("--fault", help="Inject a fault into the hunted profile: skip_write, drop_record or alter_shape.")] = None,
    profiles_file: Annotated[Optional[Path], typer.Option("--profiles", help="A scenario file whose profiles: block defines user profiles.")] = None,
    folders: Annotated[Optional[list[Path]], typer.Argument(help="With --merge: the hunt folders to merge.", show_default=False)] = None,
    merge: Annotated[bool, typer.Option("--merge", help="Merge the hunt folders given into --out (deduplicated) instead of hunting.")] = False,
    out: Annotated[Optional[Path], typer.Option("--out", help="The folder the scenarios and hunt.json go to.")] = None,
    fmt: FormatOption = Format.TABLE,
) -> None:
    """Find new mismatches: random programs run under two profiles, each disagreement shrunk to a scenario."""
    from .hunt import cli as hunting

    try:
        if folders and not merge:
            raise UsageError(f"{folders[0]}: hunt takes folders only with --merge")
        text, code = hunting.main(profile, against, mesh, ops, time_budget, examples, seed, shard_spec, fault, profiles_file,
                                  list(folders or []) if merge else None, out, fmt is Format.JSON)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(text, nl=False)
    raise typer.Exit(code)


@app.command()
def profiles(
    scenario: Annotated[Optional[Path], typer.Argument(help="Also show the profiles this scenario defines.", show_default=False)] = None,
    fmt: Annotated[str, typer.Option("--format", "-f", help="table or json.")] = "table",
) -> None:
    """Every profile's rules side by side, what each choice means, and its source."""
    import json

    from .render.profiles import profiles_data, profiles_text
    from .scenario.loader import load
    from .sim.profiles import PROFILES

    try:
        if fmt not in ("table", "json"):
            raise UsageError(f"--format {fmt!r}: one of table, json")
        shown = list(PROFILES.values()) + (list(load(scenario).profiles.values()) if scenario is not None else [])
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(json.dumps(profiles_data(shown), indent=2) if fmt == "json" else profiles_text(shown), nl=fmt == "json")


@app.command()
def explain(
    name: Annotated[Optional[str], typer.Argument(help="A finding kind (e.g. stale), a status, or a step (e.g. to_torch).", show_default=False)] = None,
) -> None:
    """Explain a finding kind or a step; with no name, list what can be explained."""
    from .explain import choices_text
    from .explain import explain as text_of

    try:
        typer.echo(text_of(name) if name is not None else choices_text(), nl=False)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None


@app.command()
def init(
    file: Annotated[Path, typer.Argument(help="Scenario file to create.", show_default=False)],
    system: Annotated[str, typer.Option("--system", "-s", help=f"System: {' '.join(SYSTEMS)}.")] = "t3k",
) -> None:
    """Write a commented starter scenario (never over an existing file)."""
    from .starter import starter

    try:
        text = starter(system, str(file))
        from .files import write_new

        write_new(file, text)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    typer.echo(f"wrote {file}; run it with: meshspec run {file}")


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
    if len(files) >= 10 and sys.stderr.isatty():
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


@app.command()
def schema(
    report: Annotated[bool, typer.Option("--report", help="The schema of saved reports (meshspec.report/1) instead.")] = False,
) -> None:
    """Print the JSON Schema of scenario format 1 (for editors: yaml-language-server), or of reports."""
    from .render.json import dumps

    if report:
        from .judge.reports import report_schema

        sys.stdout.write(dumps(report_schema()))
        return
    from .scenario.schema import json_schema

    sys.stdout.write(dumps(json_schema()))


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
    import shutil

    return shutil.get_terminal_size(fallback=(120, 24)).columns if output is None else 120


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
    buffer = getattr(stream, "buffer", None)
    if buffer is None:
        stream.write(text)
    else:
        stream.flush()
        buffer.write(text.encode(stream.encoding or "utf-8", "backslashreplace"))
    stream.flush()


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


EXIT_INTERNAL = 3


def _usage_line(err) -> str:
    """click's usage error as one line, naming the command whose ``-h`` lists the options. An
    option given without its value (which click reports with no command) also gets its help::

        meshspec: Option '-p' requires an argument: Runtime profile: current, ... ('meshspec run -h' lists the options)
    """
    message = err.format_message()
    where = getattr(getattr(err, "ctx", None), "command_path", None)
    option = getattr(err, "option_name", None)
    if where is None or option:
        group = typer.main.get_command(app)
        name = next((a for a in sys.argv[1:] if a in getattr(group, "commands", {})), None)
        command = group.commands[name] if name else None
        # the program as click names it: as it was started
        prog = "python -m meshspec" if Path(sys.argv[0]).name == "__main__.py" else Path(sys.argv[0]).name
        where = where or (f"{prog} {name}" if name else prog)
        param = next((p for p in getattr(command, "params", ()) if option in getattr(p, "opts", ())), None)
        help_text = getattr(param, "help", None)
        if help_text and message.endswith("requires an argument."):
            choices = [str(getattr(c, "value", c)) for c in getattr(getattr(param, "type", None), "choices", ())]
            message = f"{message[:-1]}: {help_text.rstrip('.')}" + (f" (one of: {', '.join(choices)})." if choices else ".")
    return f"{message} ('{where} -h' lists the options)"


def _empty_argument(args: list[str]) -> Optional[str]:
    """The message for an empty argument, or None. click makes ``''`` a ``Path('')``, which is the
    current folder: ``meshspec run "$FILE"`` with FILE unset would say '.: is a folder'::

        meshspec: argument 2 is empty (''), after 'run': give a file or a value (an unset shell variable?)
    """
    if "" not in args:
        return None
    from .text import printable

    at = args.index("")
    after = f", after {printable(args[at - 1])!r}" if at else ""
    return f"argument {at + 1} is empty (''){after}: give a file or a value (an unset shell variable?)"


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
    empty = _empty_argument(sys.argv[1:])
    if empty is not None:
        _err(empty)
        sys.exit(EXIT_USAGE)
    try:
        code = app(standalone_mode=False)  # usage errors come back as exceptions, to print as one line
    except SystemExit:
        if _signalled:
            sys.exit(128 + _signalled[0])
        raise
    except KeyboardInterrupt:
        sys.exit(128 + (_signalled[0] if _signalled else signal.SIGINT))
    except Exception as err:
        kinds = {k.__name__ for k in type(err).__mro__}
        if "Abort" in kinds:  # the command line's own word for an interrupt
            sys.exit(128 + (_signalled[0] if _signalled else signal.SIGINT))
        if "NoArgsIsHelpError" in kinds:  # meshspec alone: the help, as asked
            sys.stderr.write(err.format_message() + "\n")  # type: ignore[attr-defined]
            sys.exit(EXIT_USAGE)
        if "UsageError" in kinds:  # a bad option or argument: click's four lines made one
            _err(_usage_line(err))
            sys.exit(EXIT_USAGE)
        if os.environ.get("MESHSPEC_DEBUG"):
            raise
        _err(f"{internal_error(err)} ({REPORT_IT}, MESHSPEC_DEBUG=1 shows the traceback)")
        sys.exit(EXIT_INTERNAL)
    if _signalled:  # a command that stopped on an interrupt exits as the signal says
        sys.exit(128 + _signalled[0])
    sys.exit(code if isinstance(code, int) else 0)  # typer.Exit(n) comes back as n
