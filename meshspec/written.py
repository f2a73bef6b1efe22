"""What meshspec wrote: a small record per path, so a file is replaced only if meshspec wrote
exactly the bytes it now holds.

The record of a path is a file in the state folder (``$MESHSPEC_STATE_DIR``, else
``$XDG_STATE_HOME/meshspec/written``, else ``~/.local/state/meshspec/written``), named by the hash
of the path's real path, holding the size and SHA-256 of what was written and the path itself.

Standard library only: ``meshspec export`` inlines this module into the scripts it writes, so a
script run on the hardware host keeps to the same rule as ``meshspec run -o`` (and shares the
record, where meshspec is installed too).
"""

import hashlib
import os


def state_folder():
    """Where the records are (a str)."""
    given = os.environ.get("MESHSPEC_STATE_DIR")
    if given:
        return given
    base = os.environ.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return os.path.join(base, "meshspec", "written")


def record_path(path):
    """The record of ``path`` (a str): the same file whichever name reaches it."""
    return os.path.join(state_folder(), hashlib.sha256(os.fsencode(os.path.realpath(path))).hexdigest()[:40])


def data_digest(data):
    """(size, SHA-256) of ``data`` (bytes), as :func:`file_digest` gives them for a file."""
    return len(data), hashlib.sha256(data).hexdigest()


def record_text(path, data):
    """What the record of ``data`` written at ``path`` holds (bytes): the size, the SHA-256 and the
    path's own bytes (``os.fsencode``), so any name the file system takes, UTF-8 or not, is recorded
    as it is (a name such as ``r\\xfe.txt`` once made the record fail after the report was written,
    and meshspec then refused to replace its own file)."""
    size, digest = data_digest(data)
    return b"%d\n%s\n%s\n" % (size, digest.encode("ascii"), os.fsencode(os.path.realpath(path)))


def file_digest(path):
    """(size, SHA-256) of the file at ``path``, or None if it cannot be read."""
    h = hashlib.sha256()
    size = 0
    try:
        with open(path, "rb") as f:
            while chunk := f.read(1 << 20):
                h.update(chunk)
                size += len(chunk)
    except OSError:
        return None
    return size, h.hexdigest()


def wrote_as_is(path):
    """Whether meshspec wrote exactly the bytes now at ``path``: its record of the path holds their
    size and SHA-256, and the file is read and hashed when its size is the same (its inode and
    modification time prove nothing: ``cp -p`` and ``rsync -t --inplace`` keep them through an
    edit)::

        meshspec run s.yaml -o r.json      r.json recorded      -> True
        (r.json edited)                                         -> False
        a report copied from the hardware host                  -> False
    """
    try:
        with open(record_path(path), "rb") as f:
            size, digest, _ = f.read(1 << 16).split(b"\n", 2)
        digest = digest.decode("ascii")
        if os.stat(path).st_size != int(size):
            return False
    except (OSError, ValueError):
        return False
    return file_digest(path) == (int(size), digest)


def may_replace(path):
    """Whether a file may be written at ``path``: nothing there, an empty file, or one meshspec
    wrote as it is now."""
    try:
        return os.stat(path).st_size == 0 or wrote_as_is(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False


def remember(path, data):
    """Record that ``data`` was written at ``path`` (best effort: without a state folder, a later
    run refuses to replace the file, nothing worse). The record is written to a new private file
    beside it and renamed into place; on any failure, an interrupt included, that file goes."""
    target = record_path(path)
    tmp = os.path.join(os.path.dirname(target), f".entry.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "wb") as f:
            f.write(record_text(path, data))
        os.replace(tmp, target)
    except BaseException as err:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if not isinstance(err, OSError):
            raise
