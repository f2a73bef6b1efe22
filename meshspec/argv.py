"""The command line's grammar on typer: commands registered once, built when run, each usage error one line.

A command is a typer command function (its options declared with ``Annotated[..., typer.Option(...)]``)
that returns its exit code, registered with :func:`command`; the first line of its docstring is
its line in ``meshspec -h``, the whole docstring its description. Only the command that runs is
built into a click command (typer reads the function's signature then): ``meshspec run`` does not
pay for the other eleven, and ``meshspec -h`` for none.

typer (click underneath) parses; :class:`Command` and :class:`Group` turn every way a command line
can be wrong into :class:`Usage`, one line that names the word the user typed, what it should be,
and which ``-h`` lists the options, from the parser's own objects (the option, its value, its
help), never from the words of click's messages::

    meshspec: --view 'bogus': not one of table, map, data ('meshspec run -h' lists the options)
    meshspec: --device needs a value; '-1,3' looks like an option: write --device=-1,3 (...)
    meshspec: --no-color is an option of run: put it after 'run' ('meshspec run -h' lists the options)
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Callable, Optional

import typer
from typer.core import TyperCommand, TyperGroup

from .errors import MeshspecError, did_you_mean, one_of
from .streams import write_stdout

COMMANDS: dict[str, tuple[Callable[..., int], dict]] = {}
"""Each command's function and its context settings, in the order ``meshspec -h`` lists them."""


class Usage(MeshspecError):
    """A usage error as one line, and the program (``meshspec run``) whose ``-h`` lists the options."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog

    def line(self) -> str:
        return f"{self} ('{self.prog} -h' lists the options)"


def command(name: Optional[str] = None, **settings) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """Register a command: ``name`` (default: the function's), click context ``settings``."""

    def register(func: Callable[..., int]) -> Callable[..., int]:
        COMMANDS[name or func.__name__] = (func, settings)
        return func

    return register


# -- option values ---------------------------------------------------------------------------------
def choice(*flags: str, choices: tuple[str, ...], help: str, convert: Callable = str):
    """An option whose value is one of ``choices`` (``convert``-ed: a Format, a View), shown as
    ``-f, --format {table,json}``."""

    def pick(ctx: typer.Context, param, value: Optional[str]):
        if value is None:
            return None
        if value not in choices:
            raise Usage(f"{param.opts[-1]} {value!r}: not one of {', '.join(choices)}{did_you_mean(value, choices)}", ctx.command_path)
        return convert(value)

    pick.choices = choices  # type: ignore[attr-defined]
    return typer.Option(*flags, metavar="{" + ",".join(choices) + "}", callback=pick, help=help)


def count(*flags: str, least: Optional[int] = None, help: str, metavar: str = "N"):
    """A whole-number option (of at least ``least``); the help says the limit. Its value is read
    here (typer's own reading would word its errors), so the function's annotation is ``str``."""

    def whole(ctx: typer.Context, param, value: Optional[str]):
        if value is None or isinstance(value, int):  # not given: the default
            return value
        try:
            number = int(value)
        except ValueError:
            raise Usage(f"{param.opts[-1]} {value!r}: not a whole number", ctx.command_path) from None
        if least is not None and number < least:
            raise Usage(f"{param.opts[-1]} {number}: at least {least}", ctx.command_path)
        return number

    whole.least = least  # type: ignore[attr-defined]
    return typer.Option(*flags, metavar=metavar, callback=whole, help=help)


# -- help ------------------------------------------------------------------------------------------
def columns(fallback: int) -> int:
    """The terminal's width: ``COLUMNS``, then stdout's terminal, else ``fallback``."""
    import shutil  # typer has imported it already

    return shutil.get_terminal_size((fallback, 24)).columns


def _least(param) -> Optional[int]:
    return getattr(param.callback, "least", None)


def _choices(param) -> tuple[str, ...]:
    return getattr(param.callback, "choices", ())


def _shown_default(param) -> bool:
    default = param.default
    return param.param_type_name == "option" and not param.is_flag and default is not None and default is not False and default not in ((), [])


def help_line(param) -> str:
    """An option's help as ``-h`` shows it: its sentence, its limit, its default."""
    text = param.help or ""
    if _least(param) is not None:
        text = f"{text.rstrip('.')} (at least {_least(param)})."
    if _shown_default(param) and "default" not in text:
        text += f" (default: {param.default})"
    return text


def _invocation(param) -> str:
    if param.param_type_name == "argument":
        return param.metavar or param.name.upper()
    return ", ".join(sorted(param.opts, key=len)) + ("" if param.is_flag else f" {param.metavar}")  # -h, --help


def _help_option(command, ctx):
    """click's help option, printing through :func:`~meshspec.streams.write_stdout` (click's echo lets
    a full disk through as a traceback)."""
    option = super(type(command), command).get_help_option(ctx)
    if option is not None and not getattr(option, "meshspec", False):

        def show(ctx, param, value):
            if value and not ctx.resilient_parsing:
                write_stdout(ctx.get_help() + "\n")
                ctx.exit()

        option.callback, option.meshspec = show, True
    return option


# -- the commands ----------------------------------------------------------------------------------
class Command(TyperCommand):
    """A meshspec command: its help in meshspec's words, its usage errors as :class:`Usage`."""

    def get_help_option(self, ctx):
        return _help_option(self, ctx)

    def format_options(self, ctx, formatter) -> None:
        params = [p for p in self.get_params(ctx) if p.help is not None or p.param_type_name == "option"]
        arguments = [(_invocation(p), p.help or "") for p in params if p.param_type_name == "argument"]
        options = [(_invocation(p), help_line(p)) for p in params if p.param_type_name == "option"]
        for title, rows in (("Arguments", arguments), ("Options", options)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        self._short_equals(ctx, args)
        given = list(args)  # click's parser takes words off the list it is given
        self._option_for_a_value(ctx, given)
        try:
            rest = super().parse_args(ctx, args)
        except Usage:
            raise
        except typer.TyperException as err:  # click's usage errors (typer's root of them)
            raise Usage(self._said(err, ctx, given), ctx.command_path) from None
        if rest:
            takes = " ".join(_invocation(p) for p in self.params if p.param_type_name == "argument") or "no arguments"
            raise Usage(f"unexpected argument {rest[0]!r}: {ctx.info_name} takes {takes}", ctx.command_path)
        return rest

    def _options(self, ctx) -> dict[str, object]:
        return {o: p for p in self.get_params(ctx) if p.param_type_name == "option" for o in p.opts}

    def _short_equals(self, ctx, args: list[str]) -> None:
        """``-o=FILE`` is ``-o FILE``, as argparse read it; click would take ``=FILE`` as the value
        (a file named ``=out.txt``). Read as ``-oFILE``, which click takes as meant."""
        options = self._options(ctx)
        for at, word in enumerate(args):
            if word == "--" or (not word.startswith("-") and not ctx.allow_interspersed_args):
                return  # record: the program's own words from here on
            short = re.fullmatch(r"(-[A-Za-z])=(.*)", word, flags=re.S)
            if short and short[1] in options and not options[short[1]].is_flag:
                args[at] = short[1] + short[2]

    def _option_for_a_value(self, ctx, args: list[str]) -> None:
        """An option given another option as its value (``--format --view``), or a value that reads as
        an option (``--device -1,3``: written ``--device=-1,3``), is said before click takes it as the
        value."""
        options = self._options(ctx)
        for at, word in enumerate(args[:-1]):
            if word == "--":
                return
            param = options.get(word)
            if param is None or param.is_flag:
                if not word.startswith("-") and not ctx.allow_interspersed_args:
                    return  # record: the program's own words from here on
                continue
            given = args[at + 1]
            if given.split("=", 1)[0] in options:
                raise Usage(self._needs_value(param), ctx.command_path)
            if given.startswith("-") and given != "-" and not re.fullmatch(r"-\d+|-\d*\.\d+", given):
                raise Usage(f"{param.opts[-1]} needs a value; {given!r} looks like an option: write {param.opts[-1]}={given}", ctx.command_path)

    def _needs_value(self, param) -> str:
        text = (param.help or "").rstrip(".")
        choices = _choices(param)
        return f"{param.opts[-1]} needs a value" + (f": {text}" if text else "") + (f" ({one_of(list(choices))})" if choices else "")

    def _said(self, err: Exception, ctx, args: list[str]) -> str:
        """click's usage error ``err`` as meshspec says it, from the objects it carries."""
        options = self._options(ctx)
        param = getattr(err, "param", None)
        if isinstance(err, typer.BadParameter) and param is not None and param.param_type_name == "argument":  # missing
            return f"{_invocation(param)} missing" + (f": {param.help.rstrip('.')}" if param.help else "")
        name = getattr(err, "option_name", None)
        if name is None:
            return str(err)
        if name in options:  # a flag given a value, or an option its value
            param = options[name]
            if param.is_flag:
                given = next((w.split("=", 1)[1] for w in args if w.startswith(f"{name}=")), "")
                return f"{param.opts[-1]} takes no value (given {given!r})"
            return self._needs_value(param)
        word = next((w for w in args if w == name or w.startswith(f"{name}=") or (not w.startswith("--") and w.startswith(name))), name)
        if word.split("=", 1)[0] == "--version":
            return "--version is meshspec's own option: meshspec --version"
        message = f"no option {word!r} here" + did_you_mean(word.split("=", 1)[0], list(options))
        if not word.startswith("--") and "." in word:  # -dash.yaml: a file
            message += f"; a file whose name starts with '-' goes after -- (or write ./{word})"
        return message


class Group(TyperGroup):
    """meshspec itself: :data:`COMMANDS`, each built when it runs; its usage errors as :class:`Usage`."""

    def get_help_option(self, ctx):
        return _help_option(self, ctx)

    def list_commands(self, ctx) -> list[str]:
        return list(COMMANDS)

    def get_command(self, ctx, name: str):
        if name not in self.commands and name in COMMANDS:
            self.commands[name] = build(name)
        return self.commands.get(name)

    def format_commands(self, ctx, formatter) -> None:
        """Each command's first docstring line, without building the command."""
        rows = [(name, (func.__doc__ or "").strip().split("\n")[0]) for name, (func, _) in COMMANDS.items()]
        with formatter.section("Commands"):
            formatter.write_dl(rows)

    def resolve_command(self, ctx, args: list[str]):
        name = args[0]
        if name not in COMMANDS:
            names = list(COMMANDS)
            raise Usage(f"no command {name!r}{did_you_mean(name, names)}; the commands are {', '.join(names)}", ctx.command_path)
        return name, self.get_command(ctx, name), args[1:]

    def parse_args(self, ctx, args: list[str]) -> list[str]:
        given = list(args)  # click's parser takes words off the list it is given
        try:
            return super().parse_args(ctx, args)
        except Usage:
            raise
        except typer.TyperException as err:
            raise self._misplaced(ctx, getattr(err, "option_name", None) or str(err), given) from None

    def _misplaced(self, ctx, option: str, args: list[str]) -> Usage:
        """An option before the command (``meshspec --no-color run``): where it goes; else no such option."""
        at = next((i for i, w in enumerate(args) if w == option or w.startswith(f"{option}=")), 0)
        later = next((w for w in args[at + 1 :] if w in COMMANDS), None)
        if later is not None:
            sub = self.get_command(ctx, later)
            param = next((p for p in sub.params if option in getattr(p, "opts", ())), None)
            if param is not None and param.is_flag:
                return Usage(f"{option} is an option of {later}: put it after {later!r}", f"{ctx.command_path} {later}")
            if param is not None:
                value = args[at + 1] if at + 1 < len(args) else "VALUE"
                return Usage(f"{option} is not an option of meshspec itself: put it after the command, e.g. "
                             f"meshspec {later} {option} {value}", ctx.command_path)
        options = [o for p in self.get_params(ctx) for o in p.opts]
        return Usage(f"no option {option!r}" + did_you_mean(option, options), ctx.command_path)


def build(name: str):
    """The click command of registered command ``name`` (typer reads its function here)."""
    func, settings = COMMANDS[name]
    one = typer.Typer(add_completion=False, rich_markup_mode=None)
    one.command(name=name, cls=Command, context_settings={**CONTEXT, "allow_extra_args": True, **settings})(func)
    return typer.main.get_command(one)


CONTEXT = {"help_option_names": ["-h", "--help"]}


def prog() -> str:
    """The program as it was started: ``python -m meshspec`` or ``meshspec``."""
    started = Path(sys.argv[0])
    return "python -m meshspec" if started.name == "__main__.py" and started.parent.name == "meshspec" else "meshspec"
