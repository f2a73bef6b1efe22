"""How ``meshspec record`` starts a program: checks on its command line and its output directory,
made before anything runs (meshspec/bridge/record.py does the recording, in the program's process)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

from ..errors import UsageError
from .record import REPORT, SCENARIO

USAGE = "meshspec record -o DIR -- python prog.py ARGS...  (or -m MODULE, -c CODE; for pytest: pytest --meshspec-record DIR)"


#: Interpreter options that take a value (``-W error``); the others stand alone (``-u``, ``-O``).
VALUED_OPTIONS = {"-W", "-X"}
LONE_OPTIONS = {"-u", "-O", "-OO", "-B", "-b", "-bb", "-d", "-E", "-I", "-q", "-R", "-s", "-S", "-v"}


def check_output_dir(out: Path, probe: bool = True) -> None:
    """DIR is new, or an empty directory, and can be written: a recording never writes over another
    or over a file, and fails here rather than in the middle of the program."""
    if out.is_symlink() and not out.exists():
        raise UsageError(f"--output {out}: a symbolic link to nothing ({os.readlink(out)}); give a new directory")
    if out.exists() and not out.is_dir():
        what = "a file, not a directory" if out.is_file() else "not a directory"
        raise UsageError(f"--output {out}: {what}; give a new directory")
    if out.is_dir() and any(out.iterdir()):
        held = [n for n in (SCENARIO, REPORT) if (out / n).exists()]
        what = f"already holds {' and '.join(held)}" if held else "is not empty"
        raise UsageError(f"--output {out}: {what}; give a new directory (a recording never writes over files)")
    if not probe:
        return
    try:
        out.mkdir(parents=True, exist_ok=True)
        marker = out / ".meshspec-probe"
        marker.write_text("")
        marker.unlink()
    except OSError as err:
        raise UsageError(f"--output {out}: cannot write there ({err.strerror or err}); give a writable directory") from None


def recorder_command(out: Path, argv: list[str]) -> list[str]:
    """``python -m meshspec.bridge.record DIR -- ARGS`` for the program's own Python: the first
    word of the command (``python``, ``python3.10``, a venv's ``bin/python``) or, for a bare
    ``prog.py``, this Python."""
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        raise UsageError(f"no program given: {USAGE}")
    first = argv[0]
    if first.endswith(".py"):
        python, rest = sys.executable, argv
    elif re.fullmatch(r"python[\d.]*", Path(first).name):
        python = shutil.which(first) or first
        rest = argv[1:]
    else:
        raise UsageError(f"{first!r} is not a Python interpreter or a .py file: record runs Python programs; {USAGE}")
    options: list[str] = []
    while rest and rest[0].startswith("-") and rest[0] not in ("-m", "-c"):
        opt = rest.pop(0)
        if opt == "--":  # python's own end of options: the script comes next (python -- prog.py)
            if rest and rest[0].startswith("-"):
                raise UsageError(f"{first} -- {rest[0]}: a script named like an option is not one record runs; {USAGE}")
            break
        if opt in VALUED_OPTIONS or (opt[:2] in VALUED_OPTIONS and len(opt) == 2):
            if not rest:
                raise UsageError(f"{first} {opt} takes a value: {USAGE}")
            options += [opt, rest.pop(0)]
        elif opt in LONE_OPTIONS or opt[:2] in VALUED_OPTIONS:
            options.append(opt)  # -u, or -Wignore / -Xdev written as one word
        else:
            raise UsageError(f"{first} {opt}: an interpreter option record does not pass on (it passes -u, -O, -B, -E, -I, -s, -S, -W, -X); {USAGE}")
    if not rest:
        raise UsageError(f"{first} with no program: {USAGE}")
    if rest[0] in ("-m", "-c") and len(rest) < 2:
        raise UsageError(f"{first} {rest[0]} with nothing after it: {USAGE}")
    if not rest[0].startswith("-") and not Path(rest[0]).is_file():
        raise UsageError(f"{rest[0]}: no such file")
    if Path(python).resolve() != Path(sys.executable).resolve():
        probe = subprocess.run([python, "-c", "import meshspec.bridge.record"], capture_output=True, text=True,
                               env=os.environ | {"TT_LOGGER_LEVEL": os.environ.get("TT_LOGGER_LEVEL", "FATAL")})
        if probe.returncode != 0:
            raise UsageError(f"{python}: meshspec is not installed in this Python (pip install meshspec there, "
                             "beside ttnn); record runs inside the program's own process")
    return [python, *options, "-m", "meshspec.bridge.record", str(out.resolve()), "--", *rest]


def check_ttnn(python: str) -> None:
    """``python`` (the program's interpreter) can import ttnn: the recorder patches ttnn's calls in
    the program's own process, so without it there is nothing to record. Asked of the module
    finder, not by importing ttnn (which takes seconds): checked before anything runs or is made."""
    if Path(python).resolve() == Path(sys.executable).resolve():
        import importlib.util

        found = importlib.util.find_spec("ttnn") is not None
    else:
        code = "import importlib.util, sys; sys.exit(importlib.util.find_spec('ttnn') is None)"
        found = subprocess.run([python, "-c", code], capture_output=True).returncode == 0
    if not found:
        raise UsageError(f"this Python ({python}) has no 'ttnn': record patches ttnn's calls inside the program's own "
                         "process; run it with the Python where ttnn is installed (hardware, or the mock on a CPU)")


def exit_like(returncode: int) -> int:
    """The program's exit status as the shell saw it: a program killed by a signal is killed by
    it again here (the shell reports 128 + N, a CI job sees the signal); else its code."""
    import signal

    if returncode < 0:
        signal.signal(-returncode, signal.SIG_DFL)
        os.kill(os.getpid(), -returncode)
        return 128 - returncode  # not reached for a deadly signal
    return returncode
