"""The command line's grammar: commands declared once, argv parsed, a usage error made one line.

A command is a function of the parsed options that returns its exit code, registered with
:func:`command` and the arguments it takes (:func:`arg`, as ``add_argument`` takes them); the first
line of its docstring is its line in ``meshspec -h``, the whole docstring its description.
:func:`parse` builds the parser (argparse, from the standard library: see README, dependencies) and
turns every way argv can be wrong into :class:`Usage`, one line that names the word the user
typed, what it should be, and which ``-h`` lists the options::

    meshspec: --view 'bogus': not one of table, map, data ('meshspec run -h' lists the options)
    meshspec: --device needs a value; '-1,3' looks like an option: write --device=-1,3 (...)
    meshspec: --no-color is an option of run: put it after 'run' ('meshspec run -h' lists the options)
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Callable, Optional

from .errors import did_you_mean, one_of

Command = Callable[[argparse.Namespace], int]

COMMANDS: dict[str, tuple[Command, tuple]] = {}
"""Each command's function and its arguments, in the order ``meshspec -h`` lists them."""


def arg(*flags: str, **options) -> tuple[tuple[str, ...], dict]:
    """One option or argument of a command, as ``argparse.ArgumentParser.add_argument`` takes it."""
    return flags, options


def command(*arguments: tuple[tuple[str, ...], dict], name: Optional[str] = None) -> Callable[[Command], Command]:
    """Register a command: ``name`` (default: the function's), the arguments it takes."""

    def register(func: Command) -> Command:
        COMMANDS[name or func.__name__] = (func, arguments)
        return func

    return register


def count(least: Optional[int] = None) -> Callable[[str], int]:
    """A whole number (of at least ``least``), as an option's type; the help says the limit."""

    def whole(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{text!r}: not a whole number") from None
        if least is not None and value < least:
            raise argparse.ArgumentTypeError(f"{value}: at least {least}")
        return value

    whole.least = least  # type: ignore[attr-defined]
    return whole


class Usage(Exception):
    """A usage error as one line, and the program (``meshspec run``) whose ``-h`` lists the options."""

    def __init__(self, message: str, prog: str) -> None:
        super().__init__(message)
        self.prog = prog


class Unwritable(Exception):
    """The help or the version could not be written (the message: why, e.g. a full disk)."""


class Done(Exception):
    """``-h`` or ``--version``: printed; the exit code."""

    def __init__(self, code: int) -> None:
        super().__init__(code)
        self.code = code


def columns(fallback: int) -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it (``COLUMNS``, then stdout's
    terminal, else ``fallback``), without importing shutil: argparse makes a help formatter for
    every option it is given, each of which would import it (7 M instructions, the compression
    modules with it) on a run that prints no help."""
    try:
        if int(os.environ["COLUMNS"]) > 0:
            return int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        pass
    try:
        return os.get_terminal_size(sys.__stdout__.fileno()).columns or fallback
    except (AttributeError, ValueError, OSError):
        return fallback


class _Help(argparse.HelpFormatter):
    """argparse's help, with each option's default and limit where it has one, its value written
    once (``-f, --format {table,json}``), a description's paragraphs kept apart, and the commands
    listed without argparse's extra ``COMMAND`` line."""

    def __init__(self, prog: str, indent_increment: int = 2, max_help_position: int = 24, width: Optional[int] = None) -> None:
        super().__init__(prog, indent_increment, max_help_position, columns(80) - 2 if width is None else width)

    def _get_help_string(self, action: argparse.Action) -> str:
        text = action.help or ""
        least = getattr(action.type, "least", None)
        if least is not None:
            text = f"{text.rstrip('.')} (at least {least})."
        default = action.default
        if not (default is None or default is False or default is argparse.SUPPRESS) and action.option_strings and "default" not in text:
            text += " (default: %(default)s)"
        return text

    def _format_action_invocation(self, action: argparse.Action) -> str:
        if not action.option_strings or action.nargs == 0:
            return super()._format_action_invocation(action)
        return f"{', '.join(action.option_strings)} {self._format_args(action, self._get_default_metavar_for_optional(action))}"

    def _format_action(self, action: argparse.Action) -> str:
        if isinstance(action, argparse._SubParsersAction):
            return "".join(self._format_action(sub) for sub in action._get_subactions())
        return super()._format_action(action)

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        return "\n\n".join(super(_Help, self)._fill_text(p, width, indent) for p in re.split(r"\n\s*\n", text))


class _Parser(argparse.ArgumentParser):
    """An ArgumentParser that raises :class:`_Raw` with argparse's own message; :func:`parse`
    rephrases it into a :class:`Usage`, knowing the words the user typed."""

    def error(self, message: str):
        raise _Raw(message, self)

    def _print_message(self, message: str, file=None) -> None:
        """argparse's, but a full disk behind the help is said (argparse drops every OSError:
        ``meshspec --help > /dev/full`` exited 0 with nothing written)."""
        if not message:
            return
        file = file or sys.stderr
        try:
            file.write(message)
            file.flush()
        except (AttributeError, BrokenPipeError):  # no stream (started with it closed), or the reader left
            pass
        except OSError as err:
            raise Unwritable(err.strerror or str(err)) from None

    def action(self, name: str) -> Optional[argparse.Action]:
        for action in self._actions:
            if name in action.option_strings or name in (action.metavar, action.dest):
                return action
        return None

    def options(self) -> list[str]:
        return [o for a in self._actions for o in a.option_strings]


class _Raw(Exception):
    def __init__(self, message: str, parser: _Parser) -> None:
        super().__init__(message)
        self.parser = parser


def _prog() -> str:
    """The program as it was started: ``python -m meshspec`` or ``meshspec``."""
    started = Path(sys.argv[0])
    return "python -m meshspec" if started.name == "__main__.py" and started.parent.name == "meshspec" else "meshspec"


def parser(description: str, version: str) -> _Parser:
    """The command line: every command of :data:`COMMANDS` with its arguments."""
    top = _Parser(prog=_prog(), description=description, formatter_class=_Help, allow_abbrev=False)
    top.add_argument("--version", action="version", version=version, help="Show the version and exit.")
    commands = top.add_subparsers(title="commands", metavar="COMMAND", dest="command", parser_class=_Parser)
    for name, (func, arguments) in COMMANDS.items():
        doc = (func.__doc__ or "").strip()
        sub = commands.add_parser(name, help=doc.split("\n")[0], description=doc, formatter_class=_Help, allow_abbrev=False)
        for flags, options in arguments:
            sub.add_argument(*flags, **options)
        sub.set_defaults(func=func)
    return top


def parse(argv: list[str], description: str, version: str) -> argparse.Namespace:
    """The options of ``argv`` (the words after ``meshspec``), ``func`` the command to run; raises
    :class:`Usage` for a mistake, :class:`Done` when help or the version was printed."""
    top = parser(description, version)
    try:
        try:
            options, extra = top.parse_known_args(argv)
        except SystemExit as done:  # -h or --version, printed
            raise Done(done.code if isinstance(done.code, int) else 0) from None
        if options.command is None:
            raise _Raw(f"no option {extra[0]!r}" + did_you_mean(extra[0], top.options()) if extra else "give a command", top)
        sub: _Parser = _sub(top, options.command)
        _rest(options, extra, sub, argv)
    except _Raw as raw:
        raise Usage(_rephrase(str(raw), raw.parser, argv), raw.parser.prog) from None
    return options


def _sub(top: _Parser, name: str) -> _Parser:
    commands = next(a for a in top._actions if isinstance(a, argparse._SubParsersAction))
    return commands.choices[name]


def _rest(options: argparse.Namespace, extra: list[str], sub: _Parser, argv: list[str]) -> None:
    """The words argparse left: after ``--``, and words after an option (``run a.yaml -p x b.yaml``),
    join the command's list of files; anything else is a mistake, said as one."""
    listed = next((a for a in sub._actions if not a.option_strings and a.nargs in ("+", "*")), None)
    after: list[str] = []
    if "--" in extra:
        at = extra.index("--")
        extra, after = extra[:at], extra[at + 1 :]
    words = [w for w in extra if not w.startswith("-") or w == "-"]
    if listed is not None:
        setattr(options, listed.dest, [*(getattr(options, listed.dest) or []), *map(Path, words + after)])
        words, after = [], []
    unknown = [w for w in extra if w.startswith("-") and w != "-"]
    if unknown:
        raise _Raw(_unknown_option(unknown[0], sub, argv), sub)
    if words or after:
        takes = " ".join(a.metavar or a.dest for a in sub._actions if not a.option_strings) or "no arguments"
        raise _Raw(f"unexpected argument {(words or after)[0]!r}: {options.command} takes {takes}", sub)


def _unknown_option(word: str, sub: _Parser, argv: list[str]) -> str:
    """``no option '--profil' here (did you mean '--profile'?)``; an option of the command written
    before it; a file whose name starts with ``-``."""
    command = sub.prog.rsplit(" ", 1)[-1]
    option = word.split("=", 1)[0]
    if option in sub.options() and command in argv and argv.index(word) < argv.index(command):
        return f"{option} is an option of {command}: put it after {command!r}"
    if option == "--version":
        return "--version is meshspec's own option: meshspec --version"
    message = f"no option {word!r} here" + did_you_mean(option, sub.options())
    if not word.startswith("--") and "." in word:  # -dash.yaml: a file
        message += f"; a file whose name starts with '-' goes after -- (or write ./{word})"
    return message


def _rephrase(message: str, parser: _Parser, argv: list[str]) -> str:
    """argparse's message, as meshspec says it: the option first, the value as typed, the choices."""
    m = re.fullmatch(r"argument (\S+): (.*)", message, re.S)
    if m is None:
        if message.startswith("the following arguments are required: "):
            unknown = [w for w in argv if w.startswith("-") and w not in ("-", "--") and w.split("=", 1)[0] not in parser.options()]
            if unknown:  # `run --bogus`: the option, not the file it pushed out
                return _unknown_option(unknown[0], parser, argv)
            names = [n.split("/") for n in message.split(": ", 1)[1].split(", ")]
            helps = [(parser.action(n[0]).help or "").rstrip(".") for n in names if parser.action(n[0]) is not None]
            return f"{' and '.join(max(n, key=len) for n in names)} missing" + (f": {'; '.join(h for h in helps if h)}" if any(helps) else "")
        return message
    names, said = m.groups()
    action = parser.action(names.split("/")[0])
    option = max(names.split("/"), key=len)
    choices = [str(c) for c in (getattr(action, "choices", None) or ())]
    if said.startswith("expected one argument"):
        given = _after(argv, action)
        if given is not None and given.split("=", 1)[0] not in parser.options():
            return f"{option} needs a value; {given!r} looks like an option: write {option}={given}"
        help_text = (action.help or "").rstrip(".") if action is not None else ""
        return f"{option} needs a value" + (f": {help_text}" if help_text else "") + (f" ({one_of(choices)})" if choices else "")
    bad = re.fullmatch(r"invalid choice: (.*?) \(choose from .*\)", said, re.S)
    if bad:
        value = _typed(bad.group(1))
        if isinstance(action, argparse._SubParsersAction):
            at = argv.index(value) if value in argv else -1
            later = next((w for w in argv[at + 1 :] if w in COMMANDS), None) if at > 0 else None
            if later is not None and argv[at - 1].startswith("-"):  # `-f json run x`: an option before its command
                return f"{argv[at - 1]} is not an option of meshspec itself: put it after the command, e.g. meshspec {later} {argv[at - 1]} {value}"
            return f"no command {value!r}{did_you_mean(value, choices)}; the commands are {', '.join(choices)}"
        return f"{option} {value!r}: not one of {', '.join(choices)}{did_you_mean(value, choices)}"
    explicit = re.fullmatch(r"ignored explicit argument (.*)", said)
    if explicit:
        return f"{option} takes no value (given {_typed(explicit.group(1))!r})"
    return f"{option} {said}"


def _typed(shown: str) -> str:
    """The value argparse quoted with repr(), as the user typed it."""
    import ast

    try:
        value = ast.literal_eval(shown)
    except (ValueError, SyntaxError):
        return shown
    return value if isinstance(value, str) else shown


def _after(argv: list[str], action: Optional[argparse.Action]) -> Optional[str]:
    """The word after the last use of ``action``'s option in argv, if any."""
    if action is None:
        return None
    at = max((i for i, w in enumerate(argv) if w in action.option_strings), default=None)
    return argv[at + 1] if at is not None and at + 1 < len(argv) else None
