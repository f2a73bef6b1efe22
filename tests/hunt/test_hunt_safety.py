"""hunt writes only inside --out, reads only regular files inside the folders it merges, and
shows nothing from a foreign index raw (issue 34, sections 2, 3 and 5)."""

import json
import os
import re
from pathlib import Path

import pytest
from cli_runner import invoke

from meshspec.errors import UsageError
from meshspec.hunt.hunt import Found, entry_file, file_name, hunt, is_file, merge, write
from meshspec.hunt.programs import VOCABULARY, Program
from meshspec.hunt.search import Signature, Target
from meshspec.names import file_slug
from meshspec.sim.mesh import SYSTEMS
from meshspec.sim.profiles import define

T3K = [("t3k", SYSTEMS["t3k"].shape)]


def _profiles(folder: Path, name: str) -> Path:
    spec = folder / "mine.yaml"
    spec.write_text(f"meshspec: 1\nmesh: [1, 2]\nprofiles:\n  {json.dumps(name)}: {{base: current, copy: lost}}\n"
                    "steps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n")
    return spec


def _everything(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


@pytest.mark.parametrize("name", ["x/../../escaped", "p" * 240])
def test_a_profile_name_never_leaves_out_nor_makes_a_name_too_long(name, tmp_path):
    """--profile "x/../../escaped" wrote five scenarios in the parent of --out; a 240-character
    name ended in exit 3 (File name too long) after the whole search. (Once the loader refuses such
    profile names, --profiles is refused with exit 2: nothing is written either way.)"""
    root = tmp_path / "a" / "b"
    root.mkdir(parents=True)
    spec = _profiles(root, name)
    out = root / "out"
    (out / "hunt-x").mkdir(parents=True)  # so that out/hunt-x/../../escaped... is the parent of out
    r = invoke(["hunt", "-p", name, "--profiles", str(spec), "--examples", "40", "--out", str(out), "--format", "json"])
    assert r.exception is None and r.exit_code in (1, 2), r.output
    assert {p for p in _everything(tmp_path) if not p.startswith("a/b/out/")} == {"a", "a/b", "a/b/mine.yaml", "a/b/out"}
    if r.exit_code == 1:
        found = json.loads(r.stdout)["found"]
        assert found and all(is_file(e["file"]) and (out / e["file"]).is_file() for e in found)
        assert all(len(p.name.encode()) <= 255 and is_file(p.name) for p in out.glob("*.yaml"))
    else:
        assert len(r.stderr.strip().splitlines()) == 1


def test_file_names_are_safe_slugs_of_the_profile_pair_and_the_signature():
    mine = define("x/../../escaped", "current", {"copy": "lost"})
    target = Target("x/../../escaped", "reference", {"x/../../escaped": mine})
    sig = Signature("stale", "copy=lost", "copy_host_to_device_tensor")
    assert target.label == file_slug("x/../../escaped-vs-reference", 64) and "/" not in target.label and ".." not in target.label
    assert re.fullmatch(rf"hunt-{re.escape(target.label)}-stale-copy-lost-copy-host-to-device-tensor-[0-9a-f]{{8}}\.yaml", file_name(sig, target))
    long = Target("p" * 240, "reference", {"p" * 240: define("p" * 240, "current", {"copy": "lost"})})
    assert is_file(file_name(sig, long)) and len(file_name(sig, long)) <= 128
    assert re.fullmatch(r"hunt-current-vs-reference-stale-copy-lost-copy-host-to-device-tensor-[0-9a-f]{8}\.yaml",
                        file_name(sig, Target("current", "reference")))


def test_a_naming_problem_is_found_before_the_search(tmp_path, monkeypatch):
    """A folder whose file system takes no names as long as the hunt's, or a seed too long for a
    file name, is refused before any search (it was found after it, losing it)."""
    import errno

    import meshspec.hunt.hunt as hunting

    searched = []
    monkeypatch.setattr(hunting, "hunt", lambda *a, **k: searched.append(1) or [])
    r = invoke(["hunt", "-p", "current", "--examples", "5", "--seed", "9" * 40, "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "--seed 999" in r.stderr and "at most 20 digits" in r.stderr and not searched
    real_open = os.open

    def short_names(path, flags, *mode):
        if ".hunt-probe-" in str(path) and len(os.path.basename(path)) > 60:
            raise OSError(errno.ENAMETOOLONG, "File name too long")
        return real_open(path, flags, *mode)

    monkeypatch.setattr(hunting.os, "open", short_names)
    r = invoke(["hunt", "-p", "current", "--examples", "5", "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and not searched and len(r.stderr.strip().splitlines()) == 1
    assert "takes no file names of" in r.stderr and "choose another --out" in r.stderr
    assert list((tmp_path / "o").iterdir()) == []  # the probe went again


def _index(folder: Path, found: list, crashes: list = ()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hunt.json").write_text(json.dumps({"format": "meshspec.hunt/1", "found": found, "crashes": list(crashes)}))


def _entry(name: str, **kw) -> dict:
    return {"file": name, "kind": "stale", "rule": "several", "op": "copy_host_to_device_tensor", "steps_before": 3,
            "steps_after": 3, "profile": "current", "against": "reference", **kw}


SCENARIO = "meshspec: 1\nname: s\nmesh: [1, 2]\nsteps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n"


def test_merge_reads_only_regular_files_inside_the_folder_that_load_and_says_what_it_skipped(tmp_path):
    """A foreign hunt.json naming a symlink copied any readable file (credentials, say) into --out
    as a scenario; a FIFO would hang the merge. Only regular files inside it that load are merged."""
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret_access_key = hunter2\n")
    src = tmp_path / "src"
    _index(src, [_entry("hunt-link.yaml", kind="lost"), _entry("hunt-fifo.yaml", kind="partial"),
                 _entry("hunt-copy.yaml", kind="stale_input"), _entry("hunt-ok.yaml")],
           [{"file": "crash-link.yaml", "example": 1, "error": "x", "fault": None}])
    (src / "hunt-link.yaml").symlink_to(secret)
    (src / "crash-link.yaml").symlink_to(src / "hunt-ok.yaml")  # a link even to a file inside is no regular file
    os.mkfifo(src / "hunt-fifo.yaml")
    (src / "hunt-copy.yaml").write_text(secret.read_text())  # a regular file that is no scenario
    (src / "hunt-ok.yaml").write_text(SCENARIO)
    out = tmp_path / "out"
    r = invoke(["hunt", "--merge", str(src), "--out", str(out)])
    assert r.exit_code == 1, r.output
    ok = entry_file(("stale", "several", "copy_host_to_device_tensor", "current", "reference"))  # its own signature's name
    assert sorted(p.name for p in out.iterdir()) == [ok, "hunt.json"] and (out / ok).read_text() == SCENARIO
    assert "hunter2" not in "".join(p.read_text() for p in out.iterdir())
    assert f"skipped 4 files of the merged folders" in r.stdout
    for name, why in [("hunt-link.yaml", "a symbolic link"), ("hunt-fifo.yaml", "not a regular file"),
                      ("crash-link.yaml", "a symbolic link"), ("hunt-copy.yaml", "does not load as a scenario")]:
        assert f"  {src / name}: {why}" in r.stdout
    assert [e["file"] for e in json.loads((out / "hunt.json").read_text())["found"]] == [ok]


def test_merge_refuses_an_index_that_is_a_link_or_a_fifo(tmp_path):
    for kind in ("link", "fifo"):
        src = tmp_path / kind
        src.mkdir()
        if kind == "link":
            _index(tmp_path / "elsewhere", [])
            (src / "hunt.json").symlink_to(tmp_path / "elsewhere" / "hunt.json")
        else:
            os.mkfifo(src / "hunt.json")
        with pytest.raises(UsageError, match=f"{src / 'hunt.json'}: not a hunt index \\((a symbolic link|not a regular file)\\)"):
            merge([src], tmp_path / f"out-{kind}")
        assert not (tmp_path / f"out-{kind}").exists()


@pytest.mark.parametrize("field, value", [("kind", "\x1b[31mRED\x1b[0m"), ("rule", "several\x1b]0;pwned\x07"),
                                          ("op", "neg\u2028live"), ("profile", "a b"), ("against", "reference\x1b[2J"),
                                          ("file", "..yaml"), ("file", ".hidden.yaml"), ("steps_after", -1)])
def test_merge_validates_every_field_of_a_foreign_index_and_shows_none_raw(field, value, tmp_path):
    """A foreign index's kind (an ANSI escape) was printed raw: each field is checked by the rule a
    hunt writes it by, and the refusal is one line with the value escaped."""
    src = tmp_path / "src"
    _index(src, [{**_entry("hunt-ok.yaml"), field: value}])
    (src / "hunt-ok.yaml").write_text(SCENARIO)
    r = invoke(["hunt", "--merge", str(src), "--out", str(tmp_path / "out")])
    assert r.exit_code == 2 and f"found[0]: {field} " in r.stderr, r.output
    assert len(r.stderr.strip().splitlines()) == 1 and "\x1b" not in r.output and "\u2028" not in r.output and "\x07" not in r.output
    assert not (tmp_path / "out").exists()


def test_the_summary_shows_each_text_on_one_line():
    from meshspec.render.hunt import summary_data, summary_text

    entry = {**_entry("hunt-a.yaml"), "kind": "stale\x1b[31m", "op": "a\nb"}
    crash = {"file": "crash-a.yaml", "example": 1, "error": "boom\x1b[2J\nsecond line", "fault": ["skip_write\x1b", 1, [0, 0]]}
    text = summary_text(summary_data([entry], 1, 1, [crash], "o\x1bx", skipped=["f\x1b: why"], merged=1))
    assert "\x1b" not in text and "boom\\x1b[2J\\nsecond line" in text and "stale\\x1b[31m" in text and "a\\nb" in text


def test_what_hunt_writes_loads_or_nothing_is_written(tmp_path, monkeypatch):
    """Whatever hunt writes loads: a scenario it made that does not load is refused (exit 2 at the
    command line), before the first file is written."""
    import meshspec.hunt.hunt as hunting

    target = Target("current", "reference")
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=20)
    assert len(found) >= 2
    real = hunting.scenario_text
    monkeypatch.setattr(hunting, "scenario_text", lambda f, *a: real(f, *a) + ("steps: [oops\n" if f is found[-1] else ""))
    with pytest.raises(UsageError, match=f"{found[-1].file}: hunt made a scenario that does not load .*nothing was written"):
        write(found, target, 0, tmp_path / "h")
    assert list((tmp_path / "h").iterdir()) == []
