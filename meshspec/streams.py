"""Standard output that says when it cannot take what is written: the report, the help, the version.

A full disk or device behind stdout is the user's environment, not a bug in meshspec: it is a
:class:`~meshspec.errors.UsageError` (one line, exit 2), ``meshspec: cannot write standard output: No
space left on device``.
"""

from __future__ import annotations

import os
import sys

from .errors import UsageError


def write_stdout(text: str) -> None:
    """Print ``text``; what the stream's encoding cannot hold (a lone surrogate from a file name
    that is not UTF-8) is written as an escape rather than failing the run."""
    stream = sys.stdout
    if stream is None:  # started with stdout closed (`>&-`): nothing can be shown, nothing to fail over
        return
    buffer = getattr(stream, "buffer", None)
    try:
        if buffer is None:
            stream.write(text)
        else:
            stream.flush()
            buffer.write(text.encode(stream.encoding or "utf-8", "backslashreplace"))
        stream.flush()
    except BrokenPipeError:
        raise  # the reader left (| head): as before
    except OSError as err:  # a full disk or device behind it: the user's environment, not a bug in meshspec
        raise stdout_failed(err.strerror or str(err)) from None


def stdout_failed(why: str) -> UsageError:
    """The error for a stdout that cannot be written (``why``: e.g. no space left on device); what
    could not be written is dropped, not retried when the process exits."""
    sys.stdout = open(os.devnull, "w")
    return UsageError(f"cannot write standard output: {why}")
