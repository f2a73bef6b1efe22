"""One exception root for meshspec; only the CLI turns these into exit codes.

- :class:`ScenarioError` — the user's input is wrong (bad YAML, unknown key, unknown tensor):
  exit code 2, reported as ``file:line:column: message``.
- :class:`TTFatal` — the simulated runtime refuses an operation the way the real library's
  ``TT_FATAL`` does. It is not a crash of meshspec: the runner records it as the error of the
  step that raised it and stops the scenario there.
- :class:`UsageError` — a bad command-line value (unknown profile, unwritable output): exit 2.
"""

from __future__ import annotations

from typing import Optional


class MeshspecError(Exception):
    """Root of every error meshspec raises on purpose."""


def internal_error(err: BaseException) -> str:
    """The words for an exception meshspec did not raise on purpose (a bug): what, and its message."""
    return f"internal error: {type(err).__name__}: {err}"


REPORT_IT = "a bug in meshspec; please report it with the scenario"


class UsageError(MeshspecError):
    """A command-line value is wrong."""


class ScenarioError(MeshspecError):
    """A scenario file is invalid; carries where (file, 1-based line and column)."""

    def __init__(self, message: str, file: str | None = None, line: int | None = None, column: int | None = None):
        super().__init__(message)
        self.message = message
        self.file = file
        self.line = line
        self.column = column

    def __str__(self) -> str:
        from .text import printable, shorten_values

        where = printable(self.file) if self.file else "<scenario>"
        if self.line is not None:
            where += f":{self.line}"
            if self.column is not None:
                where += f":{self.column}"
        return bounded(f"{where}: {shorten_values(self.message)}")


MAX_LINE = 4096
"""Longest one-line error: its start (where, and what is wrong) and its end (the hint) are kept,
the middle cut (a matrix of 5,000 variables made a 10,179-character line). A message bounded by
design fits: :data:`MAX_LISTED` names of 128 characters, and the place of one."""


def bounded(line: str, limit: int = MAX_LINE) -> str:
    """``line`` if at most ``limit`` characters, else its start and end with how much was cut.

    >>> len(bounded("x" * 5000)) <= MAX_LINE
    True
    """
    if len(line) <= limit:
        return line
    tail = limit // 4
    head = limit - tail - 40  # room for the note below, up to a billion characters cut
    return line[:head] + f" ... ({len(line) - head - tail:,} characters cut) ... " + line[-tail:]


class StepInputError(MeshspecError):
    """A step's input cannot be used as given (data a dtype cannot hold); stops the run there."""


class Crash(StepInputError):
    """The real library kills the process at this step (a signal such as SIGSEGV, not an exception
    a program could catch): nothing after it runs, and a report of the real run ends here."""

    def __init__(self, message: str, signal: str) -> None:
        super().__init__(message)
        self.signal = signal


class ResourceLimit(MeshspecError):
    """A step would need more memory than meshspec may use; refused before allocating."""


class TTFatal(MeshspecError):
    """The simulated runtime rejects an operation, as the real library's TT_FATAL would."""


MAX_LISTED = 20
"""Most choices a message lists (:func:`listed`): a scenario may define thousands of names."""
MAX_COMPARED = 500
"""Most choices :func:`did_you_mean` compares (each comparison is quadratic in the names' length)."""


def did_you_mean(bad: object, choices: list[str] | tuple[str, ...]) -> str:
    """A hint naming the closest valid choice (among the first :data:`MAX_COMPARED`), or '' when
    none is close.

    >>> did_you_mean("bfloat61", ["bfloat16", "float32"])
    " (did you mean 'bfloat16'?)"
    """
    import difflib

    close = difflib.get_close_matches(str(bad), list(choices)[:MAX_COMPARED], n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def listed(choices, limit: Optional[int] = MAX_LISTED) -> str:
    """'a, b, c' for messages; past ``limit`` the first ones and how many more.

    >>> listed([str(i) for i in range(25)], 3)
    '0, 1, 2 and 22 more'
    """
    choices = list(choices)
    if limit is None or len(choices) <= limit:
        return ", ".join(choices)
    return ", ".join(choices[:limit]) + f" and {len(choices) - limit:,} more"


def one_of(choices: list[str] | tuple[str, ...], limit: Optional[int] = MAX_LISTED) -> str:
    """'one of: a, b, c' for messages (bounded as :func:`listed` bounds it)."""
    return "one of: " + listed(choices, limit)
