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

EXIT_CLEAN, EXIT_FINDINGS, EXIT_USAGE = 0, 1, 2


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
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.TABLE,
    output: Annotated[
        Optional[Path], typer.Option("--output", "-o", help="Write the report to FILE instead of stdout.")
    ] = None,
    no_color: Annotated[bool, typer.Option("--no-color", help="Plain text even on a terminal.")] = False,
) -> None:
    """Run scenario(s) on a simulated mesh; flag every device whose record disagrees with what was written."""
    from .render import render
    from .runner import run_paths

    try:
        reports, failures = run_paths(scenarios, profile)
    except UsageError as err:
        _err(str(err))
        raise typer.Exit(EXIT_USAGE) from None
    for failure in failures:
        _err(str(failure))
    code = max([r.exit_code for r in reports] + [EXIT_USAGE if failures else EXIT_CLEAN])
    if reports:
        import shutil

        width = shutil.get_terminal_size(fallback=(120, 24)).columns if output is None else 120
        text = render(reports, fmt, color=_use_color(no_color, output), width=width)
        try:
            _emit(text, output, scenarios)
        except MeshspecError as err:
            _err(str(err))
            raise typer.Exit(EXIT_USAGE) from None
    raise typer.Exit(code)


def _emit(text: str, output: Optional[Path], inputs: list[Path]) -> None:
    if output is None:
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    from .files import write_atomic

    write_atomic(output, text, protect=inputs)


def main() -> None:
    """Console entry point."""
    app()
