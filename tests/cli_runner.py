"""meshspec's command line run inside the test process: ``invoke(["run", path])``.

It calls :func:`meshspec.cli.app`, the parse-and-dispatch that the console entry point wraps,
with stdout and stderr captured apart (as bytes, decoded at the end: ``streams.write_stdout`` writes
to the stream's buffer). A bug in meshspec is not turned into exit 3 here: it is kept in
``exception``, so that a test sees the crash."""

from __future__ import annotations

import io
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Optional

from meshspec.cli import app


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str
    exception: Optional[BaseException] = None

    @property
    def output(self) -> str:
        """Everything printed: stdout, then stderr."""
        return self.stdout + self.stderr


@contextmanager
def _environment(env: Optional[dict]):
    """``env``'s variables set (None: unset) for the call, and restored after it."""
    saved = {k: os.environ.get(k) for k in env or {}}
    try:
        for k, v in (env or {}).items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)
        yield
    finally:
        for k, v in saved.items():
            os.environ.pop(k, None) if v is None else os.environ.__setitem__(k, v)


def invoke(args, env: Optional[dict] = None) -> Result:
    out, err = (io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="backslashreplace") for _ in range(2))
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err
    exception = None
    try:
        with _environment(env):
            code = app([str(a) for a in args])
    except Exception as bug:  # noqa: BLE001 - kept for the test to see
        code, exception = 1, bug
    finally:
        sys.stdout, sys.stderr = saved
    out.flush(), err.flush()
    return Result(code, out.buffer.getvalue().decode("utf-8", "replace"), err.buffer.getvalue().decode("utf-8", "replace"), exception)
