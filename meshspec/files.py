"""Writing files safely: atomically (temp file then rename), never over a scenario being read."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from .errors import UsageError


def write_atomic(path: Path, text: str, protect: list[Path] = ()) -> None:  # type: ignore[assignment]
    """Write ``text`` to ``path`` so a reader sees the old file or the new one, never half.

    Refuses to write over any file in ``protect`` (the run's own inputs).
    """
    target = Path(path)
    for p in protect:
        try:
            if target.exists() and target.resolve() == Path(p).resolve():
                raise UsageError(f"--output {path} is one of the input scenarios; refusing to overwrite it")
        except OSError:
            continue
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"--output {path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
