"""meshspec/files.py's own temporary files: what ``tempfile.mkstemp`` promised, kept without it."""

from __future__ import annotations

import os

import pytest

from meshspec import files


def test_a_temporary_file_is_new_private_and_beside_its_target(tmp_path):
    fd, path = files._private_file(tmp_path, ".r.json.", ".tmp")
    os.close(fd)
    name = os.path.basename(path)
    assert os.path.dirname(path) == str(tmp_path) and name.startswith(".r.json.") and name.endswith(".tmp")
    assert os.stat(path).st_mode & 0o777 == 0o600  # readable by this user only, whatever the umask
    fd2, other = files._private_file(tmp_path, ".r.json.", ".tmp")
    os.close(fd2)
    assert other != path


def test_a_name_already_taken_is_never_opened_and_another_is_tried(tmp_path, monkeypatch):
    # a link planted under the name the first draw gives: O_EXCL refuses it, and the next name is used
    target = tmp_path / "victim"
    target.write_text("mine")
    draws = iter([b"\x00" * 4, b"\x00" * 4, b"\x01" * 4])
    monkeypatch.setattr(files.os, "urandom", lambda n: next(draws))
    (tmp_path / f".x.{'00' * 4}").symlink_to(target)
    fd, path = files._private_file(tmp_path, ".x.")
    os.write(fd, b"new")
    os.close(fd)
    assert path.endswith("01" * 4) and target.read_text() == "mine"


def test_no_name_free_is_an_os_error_not_a_loop(tmp_path, monkeypatch):
    monkeypatch.setattr(files.os, "urandom", lambda n: b"\x07" * n)
    (tmp_path / f".y.{'07' * 4}").write_text("")
    with pytest.raises(FileExistsError):
        files._private_file(tmp_path, ".y.")


def test_a_name_near_the_length_limit_is_as_writable_as_with_mkstemp(tmp_path):
    # the temporary name adds 14 characters to the target's, as mkstemp's did: 241 + 14 = 255 bytes
    target = tmp_path / ("b" * 237 + ".txt")
    files.write_output(target, "report\n")
    assert target.read_text() == "report\n" and [p.name for p in tmp_path.iterdir()] == [target.name]


def test_an_interrupt_while_recording_a_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    state = tmp_path / "state"
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(state))
    real = os.replace

    def interrupted(a, b):
        if ".entry." in str(a):
            raise KeyboardInterrupt
        return real(a, b)

    monkeypatch.setattr(files.os, "replace", interrupted)
    with pytest.raises(KeyboardInterrupt):
        files.write_output(tmp_path / "out.txt", "x\n")
    assert [p.name for p in state.iterdir()] == []
