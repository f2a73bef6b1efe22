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
                raise UsageError(f"{path} is one of the input scenarios; refusing to overwrite it")
        except OSError:
            continue
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: folder {folder} does not exist")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise UsageError(f"cannot write {path}: {err.strerror}") from None
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        # mkstemp makes the file private (0600); give it the mode any new file would have
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except IsADirectoryError:
        _unlink(tmp)
        raise UsageError(f"cannot write {path}: it is a folder; give a file name") from None
    except OSError as err:
        _unlink(tmp)
        raise UsageError(f"cannot write {path}: {err.strerror}") from None
    except BaseException:
        _unlink(tmp)
        raise


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
