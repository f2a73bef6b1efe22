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


def check_output_dir(out: Path) -> None:
    """DIR is new, or an empty directory: a recording never writes over another, or over a file."""
    if out.exists() and not out.is_dir():
        raise UsageError(f"--output {out}: a file, not a directory; give a new directory")
    if out.is_dir() and any(out.iterdir()):
        held = [n for n in (SCENARIO, REPORT) if (out / n).exists()]
        what = f"already holds {' and '.join(held)}" if held else "is not empty"
        raise UsageError(f"--output {out}: {what}; give a new directory (a recording never writes over files)")


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
    if not rest:
        raise UsageError(f"{first} with no program: {USAGE}")
    if not rest[0].startswith("-") and not Path(rest[0]).is_file():
        raise UsageError(f"{rest[0]}: no such file")
    if Path(python).resolve() != Path(sys.executable).resolve():
        probe = subprocess.run([python, "-c", "import meshspec.bridge.record"], capture_output=True, text=True,
                               env=os.environ | {"TT_LOGGER_LEVEL": os.environ.get("TT_LOGGER_LEVEL", "FATAL")})
        if probe.returncode != 0:
            raise UsageError(f"{python}: meshspec is not installed in this Python (pip install meshspec there, "
                             "beside ttnn); record runs inside the program's own process")
    return [python, "-m", "meshspec.bridge.record", str(out), "--", *rest]
