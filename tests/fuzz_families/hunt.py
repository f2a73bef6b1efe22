"""Fuzz family for ``meshspec hunt`` (issue 34, sections 2, 3 and 5): hunts under user profile
names with path characters, great length, dunders and Unicode, and merges of foreign hunt
folders whose index names symbolic links, FIFOs, ``..`` paths and ANSI kinds. Each run must write
only inside ``--out`` and end as a report or a one-line error (exit 0, 1 or 2), never showing a
control character from its input, never copying a file from outside the merged folder."""

from __future__ import annotations

import json
import os
import random
from pathlib import Path

SECRET = "aws_secret_access_key = fuzz-hunter2"
_PIECES = ["/", "..", "../", "x", "p" * 120, "__init__", "__dunder__", "é", "ü/../", ".", "-", " ", "all", "default", "a.b", "😀",
           "\\", "~", "x/../../escaped", "/etc/"]
_RARE = ["\u2028", "\x1b[31m"]  # refused by the loader: now and then
_KINDS = ["\x1b[31mRED\x1b[0m", "lost\x1b]0;t\x07", "a\nb", "x" * 300, "", 7]
_SCENARIO = "meshspec: 1\nname: s\nmesh: [1, 2]\nsteps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n"


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _invoke(args: list[str]):
    from cli_runner import invoke

    r = invoke(args)
    assert r.exception is None, f"meshspec crashed: {r.exception!r} on {args!r}"
    assert r.exit_code in (0, 1, 2), (r.exit_code, args, r.output[-500:])
    if r.exit_code == 2:
        assert len(r.stderr.strip().splitlines()) == 1, f"not a one-line error: {r.stderr[:500]!r}"
    for ch in ("\x1b", "\x07", "\u2028"):
        assert ch not in r.output, f"{ch!r} shown raw: {r.output[:500]!r}"
    return r


def _profile_name(rng: random.Random) -> str:
    name = "".join(rng.choice(_PIECES if rng.random() < 0.95 else _RARE) for _ in range(rng.randint(1, 6)))
    if rng.random() < 0.3:
        name = "q" * rng.randint(240, 300) + name
    return name


def hunt_profile_name(rng: random.Random, scratch: Path) -> str:
    """A hunt of a user profile of a hostile name: writes only inside --out, files named safely."""
    name = _profile_name(rng)
    (scratch / "in").mkdir()
    spec = scratch / "in" / "profiles.yaml"
    spec.write_text(f"meshspec: 1\nmesh: [1, 2]\nprofiles:\n  {json.dumps(name, ensure_ascii=False)}: {{base: current, copy: lost}}\n"
                    "steps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n", encoding="utf-8")
    out = scratch / "in" / "out"
    if rng.random() < 0.5:
        (out / "hunt-x").mkdir(parents=True)  # a folder the escaped name would climb out of
    before = _tree(scratch)
    budget = ["--examples", str(rng.randint(1, 4))] if rng.random() < 0.7 else ["--time", "0.3s"]
    r = _invoke(["hunt", f"--profile={name}", "--profiles", str(spec), "--mesh", rng.choice(["1x2", "1x1", "2x1"]), *budget, "--out", str(out)])
    new = _tree(scratch) - before
    outside = sorted(p for p in new if not p.startswith("in/out/") and p != "in/out")
    assert not outside, f"hunt wrote outside --out: {outside[:3]}"
    for p in out.glob("*"):
        assert len(p.name.encode()) <= 255 and ".." not in p.name.replace("...", "") or p.name == "hunt-x", p.name
    return {0: "clean", 1: "findings", 2: "refused"}[r.exit_code]


def merge_foreign(rng: random.Random, scratch: Path) -> str:
    """A merge of a foreign folder whose index names links, FIFOs, paths and odd kinds."""
    secret = scratch / "credentials"
    secret.write_text(SECRET + "\n")
    src = scratch / "src"
    src.mkdir()
    entries, crashes = [], []
    for i in range(rng.randint(1, 5)):
        what = rng.choice(["link", "fifo", "ok", "copy", "inner-link", "missing", "dir", "link", "fifo", "ok"]
                          + (["dotdot", "abs"] if rng.random() < 0.3 else []))
        name = f"hunt-{i}.yaml"
        if what == "link":
            (src / name).symlink_to(secret)
        elif what == "inner-link":
            (src / f"real-{i}.yaml").write_text(_SCENARIO)
            (src / name).symlink_to(src / f"real-{i}.yaml")
        elif what == "fifo":
            os.mkfifo(src / name)
        elif what == "dotdot":
            name = "../credentials"
        elif what == "abs":
            name = str(secret)
        elif what == "ok":
            (src / name).write_text(_SCENARIO)
        elif what == "copy":
            (src / name).write_text(SECRET + "\n")
        elif what == "dir":
            (src / name).mkdir()
        entry = {"file": name, "kind": "stale", "rule": "several", "op": "neg", "steps_before": 3, "steps_after": 2,
                 "profile": "current", "against": "reference"}
        if rng.random() < 0.1:  # a hostile field too (else only the file is)
            key, value = rng.choice([("kind", rng.choice(_KINDS)), ("rule", "x\x1b[2J"), ("op", "\x1b[1m"), ("steps_before", -1),
                                     ("steps_before", "3"), ("profile", "../x"), ("against", "a b"), ("sha256", "zz")])
            entry[key] = value
        if rng.random() < 0.2:
            crashes.append({"file": name, "example": i, "error": "boom\x1b[2J\nline", "fault": None})
        else:
            entries.append(entry)
    index = {"format": "meshspec.hunt/1", "found": entries, "crashes": crashes}
    if rng.random() < 0.15:
        (scratch / "index.json").write_text(json.dumps(index))
        (src / "hunt.json").symlink_to(scratch / "index.json")
    elif rng.random() < 0.1:
        os.mkfifo(src / "hunt.json")
    else:
        (src / "hunt.json").write_text(json.dumps(index))
    before = _tree(scratch)
    out = scratch / "out"
    r = _invoke(["hunt", "--merge", str(src), "--out", str(out), *(["--format", "json"] if rng.random() < 0.3 else [])])
    new = _tree(scratch) - before
    assert all(p == "out" or p.startswith("out/") for p in new), f"merge wrote outside --out: {sorted(new)[:3]}"
    for p in out.glob("*") if out.exists() else ():
        assert p.is_file() and not p.is_symlink() and SECRET not in p.read_text(errors="replace"), f"{p.name}: copied from outside"
    return {0: "clean", 1: "merged", 2: "refused"}[r.exit_code]


FAMILIES = {"profile_names": hunt_profile_name, "merge_foreign": merge_foreign}
