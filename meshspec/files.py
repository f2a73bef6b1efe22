"""Writing output files safely, and text that is safe to print.

A regular file is written atomically (a temporary file beside it, then a rename), so a reader sees
the old file or the new one, never half, and an interrupted write leaves no debris. A character
device or a FIFO (``-o /dev/null``, ``-o /dev/stdout``, a named pipe) is written through: renaming
over it would replace the device with a file. Anything else (a folder, a block device, a
socket) is refused. No output ever goes over one of the run's inputs, nor over a file meshspec did
not write: an existing file is replaced only when it is empty or begins as one of meshspec's own
outputs does (:func:`written_by_meshspec`), so ``-o`` pointed at a user's test or notes by mistake
loses nothing.
"""

from __future__ import annotations

import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Iterable, Optional

from .errors import UsageError
from .text import WRITTEN_MARK, printable


_OURS = re.compile(
    rb"""\A(?:
        meshspec[ ][^\n]*[ ][ ]mesh[ ]                           # a table or diff as text (its head line)
      | \s*\[?\s*\{\s*"format":\s*"meshspec\.                    # a report, a list of them, a diff (JSON)
      | <\?xml[^\n]*\n<testsuites[ ]name="meshspec"              # check --junit-xml
      | \#![^\n]*\n"{3}[^\n]*\(written[ ]by[ ]`meshspec[ ]export`\)   # an exported script
      | \#[ ]Imported[ ]by[ ]meshspec[ ]import[ ]                  # an imported scenario
      | (?:<!DOCTYPE[ ]html>\n)?MARK                              # SVG and HTML
    )""".replace(b"MARK", re.escape(WRITTEN_MARK.encode())),  # escaped: a literal under re.X
    re.X,
)
"""How each kind of file meshspec writes begins."""


def written_by_meshspec(path: Path) -> bool:
    """Whether the regular file at ``path`` is empty or one meshspec wrote (its first bytes tell)::

        meshspec seed-uneven-copy  mesh t3k (2x4) ...        a table     -> True
        {"format": "meshspec.report/1", ...                   a report    -> True
        import ttnn ...                                       the user's  -> False
    """
    try:
        with open(path, "rb") as f:
            head = f.read(512)
    except OSError:
        return False
    return not head or _OURS.match(head) is not None


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError):
        return False


def check_output(path: Path, protect: Iterable[Path] = ()) -> bool:
    """Refuse ``path`` as an output before anything is computed: one of ``protect`` (the run's own
    inputs), a folder, something that is neither a regular file, a character device nor a FIFO, or
    a file in a folder that does not exist. True when it is written straight through (a device or
    FIFO)."""
    target = Path(path)
    for p in protect:
        if _same_file(target, Path(p)):
            raise UsageError(f"{printable(str(path))} is one of the run's inputs ({printable(str(p))}); refusing to overwrite it")
    try:
        info = os.stat(target)
    except FileNotFoundError:
        info = None
    except OSError as err:
        raise UsageError(f"cannot write {printable(str(path))}: {err.strerror}") from None
    if info is not None and (stat.S_ISCHR(info.st_mode) or stat.S_ISFIFO(info.st_mode)):
        return True
    if info is not None and stat.S_ISDIR(info.st_mode):
        raise UsageError(f"cannot write {printable(str(path))}: it is a folder; give a file name")
    if info is not None and not stat.S_ISREG(info.st_mode):
        raise UsageError(f"cannot write {printable(str(path))}: it is not a regular file, a character device or a FIFO")
    if info is not None and not written_by_meshspec(target):
        raise UsageError(
            f"{printable(str(path))} exists and is not a file meshspec wrote; refusing to overwrite it "
            "(remove it first, or choose another name)"
        )
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {printable(str(path))}: folder {printable(str(folder))} does not exist")
    return False


def check_outputs(outputs: Iterable[tuple[str, Optional[Path]]], protect: Iterable[Path] = ()) -> None:
    """:func:`check_output` of each named output given, and no two the same file
    (``-o out.txt --svg out.txt`` would keep only the last)."""
    given = [(option, Path(p)) for option, p in outputs if p is not None]
    protect = list(protect)
    for i, (option, path) in enumerate(given):
        if not check_output(path, protect):
            for other, earlier in given[:i]:
                if _same_file(path, earlier):
                    raise UsageError(f"{other} and {option} both name {printable(str(path))}; give each its own file")


def write_output(path: Path, text: str, protect: Iterable[Path] = ()) -> None:
    """Write ``text`` to ``path``: atomically for a regular (or new) file, straight through for a
    character device or FIFO; never over a file in ``protect`` (the run's own inputs)."""
    target = Path(path)
    data = text.encode("utf-8", "backslashreplace")
    if check_output(target, protect):
        try:
            with open(target, "wb") as f:
                f.write(data)
        except OSError as err:
            raise UsageError(f"cannot write {printable(str(path))}: {err.strerror}") from None
        return
    if target.is_symlink():
        target = Path(os.path.realpath(target))  # replace what the link points at, not the link
    _atomic(target, data, path)


def _atomic(target: Path, data: bytes, shown: Path) -> None:
    folder = target.parent if str(target.parent) else Path(".")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=folder)
    except OSError as err:
        raise UsageError(f"cannot write {printable(str(shown))}: {err.strerror}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        # mkstemp makes the file private (0600); give it the mode any new file would have
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except OSError as err:
        _unlink(tmp)
        raise UsageError(f"cannot write {printable(str(shown))}: {err.strerror}") from None
    except BaseException:  # an interrupt (SIGINT, SIGTERM) mid-write leaves no debris
        _unlink(tmp)
        raise


def write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``; refuse if anything is there already (``meshspec init``)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        if Path(path).is_dir():
            raise UsageError(f"{printable(str(path))} is a folder; give the name of the file to create, e.g. "
                             f"{printable(str(Path(path) / 'scenario.yaml'))}") from None
        raise UsageError(f"{printable(str(path))} already exists; meshspec init never overwrites a file (choose another name)") from None
    except FileNotFoundError:
        folder = Path(path).parent
        raise UsageError(f"cannot write {printable(str(path))}: folder {printable(str(folder))} does not exist (create it first: "
                         f"mkdir -p {printable(str(folder))})") from None
    except OSError as err:
        raise UsageError(f"cannot write {printable(str(path))}: {err.strerror}") from None
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)


def _unlink(path: str) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass
