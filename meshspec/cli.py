"""The command line: thin typer commands over :mod:`meshspec.runner`.

Exit codes: 0 clean, 1 findings or a step error, 2 bad input or usage. The report goes to
stdout (or ``--output``); diagnostics go to stderr, one line each.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Annotated, Optional

import typer

from . import __version__
from .errors import MeshspecError, UsageError
from .render import Format

app = typer.Typer(
    name="meshspec",
    help="Reproduce and diagnose TT-NN mesh spec mismatches on a simulated device mesh.",
    context_settings={"help_option_names": ["-h", "--help"]},
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
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
    typer.echo(f"meshspec: {message}", err=True)


FormatOption = Annotated[Format, typer.Option("--format", "-f", help="Output format.")]
OutputOption = Annotated[Optional[Path], typer.Option("--output", "-o", help="Write to FILE instead of stdout.")]
NoColorOption = Annotated[bool, typer.Option("--no-color", help="Plain text even on a terminal.")]


def _use_color(no_color: bool, output: Optional[Path]) -> bool:
    if no_color or output is not None or os.environ.get("NO_COLOR"):
        return False
    return sys.stdout.isatty()


@app.command()
def run(
    scenarios: Annotated[list[Path], typer.Argument(help="Scenario YAML file(s).", show_default=False)],
    profile: Annotated[
        Optional[str],
        typer.Option("--profile", "-p", help="Runtime profile: current, uniform-by-value, unpopulated, reference. Overrides the scenario's."),
    ] = None,
    fmt: FormatOption = Format.TABLE,
    output: OutputOption = None,
    no_color: NoColorOption = False,
) -> None:
    """Run scenario(s) on a simulated mesh; flag every device whose record disagrees with what was written."""
    from .render import render
    from .runner import run_paths

    from .errors import ScenarioError

    try:
        results = run_paths(scenarios, profile)
    except UsageError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    reports = [r for r in results if not isinstance(r, ScenarioError)]
    for failure in results:
        if isinstance(failure, ScenarioError):
            _err(str(failure))
    code = max(EXIT_USAGE if isinstance(r, ScenarioError) else r.exit_code for r in results)
    if reports:
        shown = results if fmt is Format.JSON and len(scenarios) > 1 else reports
        text = render(shown, fmt, color=_use_color(no_color, output), width=_width(output))
        try:
            _emit(text, output, scenarios)
        except MeshspecError as err:
            _err(str(err))
            raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(code)


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
) -> None:
    """Expected vs actual per-device records; exit 1 when they differ."""
    from .diff import diff_reports

    try:
        exp, act, exp_label, act_label = _diff_sides(sources, expected, actual)
        result = diff_reports(exp, act, exp_label, act_label)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    if fmt is Format.JSON:
        from .render.json import dumps

        text = dumps(result.to_json())
    else:
        from .render.diff import render_diff

        text = render_diff(result, color=_use_color(no_color, output), width=_width(output), show_all=show_all)
    try:
        _emit(text, output, sources)
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(result.exit_code)


def _diff_sides(sources: list[Path], expected: Optional[str], actual: Optional[str]):
    import json

    from .diff import check_report
    from .profiles import get_profile
    from .runner import run
    from .scenario import load

    if len(sources) == 2:
        if expected or actual:
            raise UsageError("--expected/--actual name profiles for a scenario; with two reports the files are the sides")
        sides = []
        for p in sources:
            try:
                data = json.loads(p.read_text(encoding="utf-8"))
            except FileNotFoundError:
                raise UsageError(f"{p}: no such file") from None
            except (OSError, UnicodeDecodeError) as err:
                raise UsageError(f"{p}: cannot read: {err}") from None
            except json.JSONDecodeError as err:
                raise UsageError(f"{p}:{err.lineno}:{err.colno}: not JSON: {err.msg}") from None
            sides.append(check_report(data, str(p)))
        return sides[0], sides[1], str(sources[0]), str(sources[1])
    if len(sources) != 1:
        raise UsageError(f"diff takes one scenario or two reports, got {len(sources)} paths")
    scenario = load(sources[0])
    exp_p = get_profile(expected or "reference").name
    act_p = get_profile(actual or scenario.profile or "current").name
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
) -> None:
    """Run scenarios as CI checks against their expect blocks: PASS / FAIL / ERROR per case."""
    from . import check as checks
    from .render.check import junit_xml as to_junit
    from .render.check import result_line

    try:
        checks.check_profile_option(profile)
        files = checks.collect(paths)
        if shard_spec:
            files = checks.shard(files, *checks.parse_shard(shard_spec))
    except MeshspecError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    results = [r for per_file in checks.check_files(files, profile, jobs) for r in per_file]
    for r in results:
        typer.echo(result_line(r))
    summary = checks.summarize(results)
    typer.echo(summary.line())
    if junit_xml is not None:
        try:
            _emit(to_junit(results), junit_xml, files)
        except MeshspecError as err:
            _err(str(err))
            raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(summary.exit_code)


@app.command()
def schema() -> None:
    """Print the JSON Schema of scenario format 1 (for editors: yaml-language-server)."""
    from .render.json import dumps
    from .scenario.schema import json_schema

    sys.stdout.write(dumps(json_schema()))


def _width(output: Optional[Path]) -> int:
    import shutil

    return shutil.get_terminal_size(fallback=(120, 24)).columns if output is None else 120


def _emit(text: str, output: Optional[Path], inputs: list[Path]) -> None:
    """Write the report to stdout, or atomically to ``output`` (never over an input)."""
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from .files import write_atomic

    write_atomic(output, text, protect=inputs)


def main() -> None:
    """Console entry point."""
    app()
