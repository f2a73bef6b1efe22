"""Writing output files safely, and text that is safe to print.

A regular file is written atomically (a temporary file beside it, then a rename), so a reader sees
the old file or the new one, never half, and an interrupted write leaves no debris. A character
device or a FIFO (``-o /dev/null``, ``-o /dev/stdout``, a named pipe) is written through: renaming
over it would replace the device with a file. Anything else (a folder, a block device, a
socket) is refused.

No output ever goes over one of the run's inputs, nor over anything meshspec cannot show it wrote
as it is now: an existing file is replaced only when it is empty, or when this user's meshspec
wrote exactly its bytes at that path (:func:`wrote_as_is`, from a small record per path kept under
the user's state folder). A file you edited since, one written on another machine (a report
captured on hardware looks like any other), or a file of yours that merely begins like a report
is refused with exit 2 and left as it was. A read-only file is refused too, and a file replaced
keeps its permissions.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Callable, Iterable, Optional

from .errors import UsageError
from .text import printable
from .written import remember, state_folder, wrote_as_is


def _state_folder() -> Path:
    return Path(state_folder())


def _unrecorded_hint() -> str:
    """Why meshspec may have no record even of a file it wrote: its state folder cannot be written."""
    folder = _state_folder()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, probe = _private_file(folder, ".probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError:
        return f"; meshspec keeps its record of what it wrote in {printable(str(folder))}, which it cannot write: set MESHSPEC_STATE_DIR"
    return ""


def _replace(target: Path, data: bytes, prefix: str, suffix: str = "", mode: Optional[Callable[[], int]] = None) -> None:
    """Write ``data`` into a private temporary file beside ``target`` (made with ``mode()``, if
    given), then rename it over ``target``: a reader finds the old bytes or the new, never half.
    On any failure (OSError, a full disk, an interrupt) the temporary file goes, and it is raised."""
    fd, tmp = _private_file(target.parent, prefix, suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        if mode is not None:
            os.chmod(tmp, mode())
        os.replace(tmp, target)
    except BaseException:
        _unlink(tmp)
        raise


def _same_file(a: Path, b: Path) -> bool:
    try:
        return a.resolve() == b.resolve() or (a.exists() and b.exists() and os.path.samefile(a, b))
    except (OSError, RuntimeError, ValueError):  # ValueError: a NUL in a name (refused where the scenario says it)
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
    if info is not None and info.st_size > 0 and not wrote_as_is(target):
        raise UsageError(
            f"{printable(str(path))} exists, and meshspec did not write it as it is now (a file of yours, one written "
            "elsewhere, or one changed since); refusing to overwrite it (remove it first, or choose another name)"
            + _unrecorded_hint()
        )
    if info is not None and (not info.st_mode & 0o222 or not os.access(target, os.W_OK)):
        raise UsageError(f"{printable(str(path))} is read-only; refusing to replace it (make it writable first, or choose another name)")
    folder = target.parent if str(target.parent) else Path(".")
    if not folder.is_dir():
        raise UsageError(f"cannot write {printable(str(path))}: folder {printable(str(folder))} does not exist")
    return False


def check_outputs(outputs: Iterable[tuple[str, Optional[Path]]], protect: Iterable[Path] = ()) -> None:
    """:func:`check_output` of each named output given, and no two the same file
    (``-o out.txt --svg out.txt`` would keep only the last) or the same FIFO (the second open
    would wait for a reader that the first already had: the run hung). A character device may be
    named twice (``/dev/null``)."""
    given = [(option, Path(p)) for option, p in outputs if p is not None]
    protect = list(protect)
    for i, (option, path) in enumerate(given):
        if not check_output(path, protect) or _is_fifo(path):
            for other, earlier in given[:i]:
                if _same_file(path, earlier):
                    raise UsageError(f"{other} and {option} both name {printable(str(path))}; give each its own file")


def _is_fifo(path: Path) -> bool:
    try:
        return stat.S_ISFIFO(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


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
    remember(target, data)


def replace_entry(path: Path, text: str) -> None:
    """Write ``text`` as the file ``path`` names, atomically, replacing whatever entry is there (a
    symbolic link too) rather than writing through it: for a folder's own files (hunt's), where a
    link planted under one of their names must not carry the write elsewhere."""
    _atomic(Path(path), text.encode("utf-8"), path)


def _private_file(folder: Path, prefix: str, suffix: str = "") -> tuple[int, str]:
    """A new file in ``folder`` that no one else can have opened, as ``tempfile.mkstemp`` makes
    one: a random name, created exclusively (never through a link planted under that name),
    readable by this user only; its descriptor and path. Written here because importing
    tempfile (and the random module it needs) is 11 M instructions of every run that writes a file,
    3% of the seed's (bench/run.py's start-up rows)."""
    flags = os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        # eight characters, as mkstemp's: a temporary name longer than the target's by no more than
        # mkstemp's, so a target name near the 255-byte limit is as writable as it was
        path = os.path.abspath(os.path.join(folder, f"{prefix}{os.urandom(4).hex()}{suffix}"))
        try:
            return os.open(path, flags, 0o600), path
        except FileExistsError:  # 2**32 names: another run's file of the same name, rarely
            continue
    raise FileExistsError(errno.EEXIST, f"no unused temporary name in {folder}")


def _atomic(target: Path, data: bytes, shown: Path) -> None:
    try:
        _replace(target, data, f".{target.name}.", ".tmp", lambda: _mode_of(target))
    except OSError as err:
        raise UsageError(f"cannot write {printable(str(shown))}: {err.strerror}") from None


def _mode_of(target: Path) -> int:
    """The temporary file is private (0600): a file replaced keeps its own mode (a private report
    stays private), a new one gets the mode any new file would have."""
    try:
        return stat.S_IMODE(os.stat(target).st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def write_new(path: Path, text: str) -> None:
    """Create ``path`` with ``text``; refuse if anything is there already (``meshspec init``)."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    except FileExistsError:
        if Path(path).is_dir():
            raise UsageError(f"{printable(str(path))} is a folder; give the name of the file to create, e.g. "
                             f"{printable(str(Path(path) / 'scenario.yaml'))}") from None
        raise UsageError(f"{printable(str(path))} already exists; meshspec init never overwrites a file (choose another name)") from None
    except FileNotFoundError as err:
        folder = Path(path).parent
        if folder.is_dir():  # it is there, and makes no file of that name (/proc): say what the system said
            raise UsageError(f"cannot write {printable(str(path))}: {err.strerror} (folder {printable(str(folder))} takes no new file)") from None
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
