"""meshspec/files.py's own temporary files: what ``tempfile.mkstemp`` promised, kept without it."""

from __future__ import annotations

import os
from pathlib import Path

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


def test_the_record_of_what_was_written_is_one_rule_for_meshspec_and_its_exported_scripts(tmp_path, monkeypatch):
    """meshspec/written.py is inlined into every exported script (meshspec/bridge/export.py): a
    report the script wrote may be replaced by meshspec run -o, and the other way round; an edit
    since, or a file of the user's, may not."""
    import ast

    from meshspec import written
    from meshspec.files import write_output

    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "state"))
    report = tmp_path / "real.json"
    assert written.may_replace(report)  # nothing there
    report.write_text('{"mine": 1}\n')
    assert not written.may_replace(report)  # a file of the user's
    data = b'{"format": "meshspec.report/1"}\n'
    report.write_bytes(data)
    written.remember(report, data)  # as the script records its report
    assert written.may_replace(report)
    write_output(report, '{"format": "meshspec.report/1", "again": 1}\n')  # run -o takes the script's report
    assert written.may_replace(report)  # and records its own
    with open(report, "a") as f:
        f.write(" ")
    assert not written.may_replace(report)  # annotated since
    imported = {a.name.split(".")[0] for n in ast.parse((Path(written.__file__)).read_text()).body
                if isinstance(n, ast.Import) for a in n.names}
    assert imported <= {"hashlib", "os"} and "ImportFrom" not in {type(n).__name__ for n in ast.parse(Path(written.__file__).read_text()).body}


def test_the_record_keeps_a_name_that_is_not_utf8_as_its_bytes(tmp_path, monkeypatch):
    """Issue 34, section 4: a path such as ``r\\xfe.txt`` (not UTF-8) made the record fail after the
    report was written. The record holds the path's own bytes, and a record written by the earlier
    UTF-8 form is still read."""
    from meshspec import written

    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path / "state"))
    out = Path(os.fsdecode(os.fsencode(tmp_path) + b"/r\xfe.txt"))
    files.write_output(out, "report\n")
    record = Path(written.record_path(out)).read_bytes()
    assert record.split(b"\n")[2] == os.fsencode(tmp_path) + b"/r\xfe.txt"
    assert written.wrote_as_is(out) and written.may_replace(out)
    files.write_output(out, "report again\n")  # meshspec's own file: replaced
    assert out.read_text() == "report again\n"
    plain = tmp_path / "plain.txt"
    plain.write_text("old\n")
    size, digest = written.data_digest(b"old\n")
    Path(written.record_path(plain)).write_text(f"{size}\n{digest}\n{plain}\n", encoding="utf-8")
    assert written.wrote_as_is(plain)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="FIFOs are POSIX")
def test_two_outputs_naming_one_fifo_are_refused_before_any_work(tmp_path):
    """Issue 34 attacked again: ``-o ff --svg ff`` on a FIFO skipped the same-file test (a stream is
    written through), and the second open waited for a reader for ever. /dev/null twice is fine."""
    from meshspec.errors import UsageError
    from meshspec.files import check_outputs

    fifo = tmp_path / "ff"
    os.mkfifo(fifo)
    with pytest.raises(UsageError, match="--output and --svg both name .*ff; give each its own file"):
        check_outputs([("--output", fifo), ("--svg", fifo)])
    check_outputs([("--output", Path(os.devnull)), ("--svg", Path(os.devnull))])
