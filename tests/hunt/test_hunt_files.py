"""Which file of a hunt folder holds which signature: one name per (profile, against, kind, rule,
op), never another signature's file replaced (by a hunt or a merge), and a name hunt may replace
that is no regular file refused before the search (issue 34, sections 3 and 5)."""

import itertools
import json
import os
from pathlib import Path

from cli_runner import invoke

from meshspec.hunt.hunt import Found, entry_file, file_name, is_file, write  # noqa: F401
from meshspec.hunt.programs import Program
from meshspec.hunt.search import Signature, Target
from meshspec.sim.profiles import define
from meshspec.written import data_digest

SCENARIO_A = "meshspec: 1\nname: a\nmesh: [1, 2]\nsteps:\n  - from_torch: {as: a, shape: [1, 1, 32, 32]}\n"
SCENARIO_B = "meshspec: 1\nname: b\nmesh: [1, 2]\nsteps:\n  - from_torch: {as: b, shape: [1, 1, 32, 32]}\n"
PAIR = {"profile": "uniform-by-value", "against": "reference"}


def _entry(file: str, kind: str, rule: str, op: str, steps: int = 1, **kw) -> dict:
    return {"file": file, "kind": kind, "rule": rule, "op": op, "steps_before": steps, "steps_after": steps, **PAIR, **kw}


def _index(folder: Path, found: list, crashes: list = ()) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hunt.json").write_text(json.dumps({"format": "meshspec.hunt/1", "found": found, "crashes": list(crashes)}))


def _sha(text: str) -> str:
    return data_digest(text.encode())[1]


# -- 2: names are injective ------------------------------------------------------------------
def test_two_signatures_and_pairs_whose_slugs_join_alike_get_two_file_names():
    """With a profile reference-topology, (reference, topology_stale) and (reference-topology,
    stale) were both hunt-uniform-by-value-vs-reference-topology-stale-op-topology-imputed-permute.yaml:
    the second hunt's scenario replaced the first's."""
    own = {"reference-topology": define("reference-topology", "reference", {})}
    a = file_name(Signature("topology_stale", "op_topology=imputed", "permute"), Target("uniform-by-value", "reference", own))
    b = file_name(Signature("stale", "op_topology=imputed", "permute"), Target("uniform-by-value", "reference-topology", own))
    assert a != b and is_file(a) and is_file(b)
    assert a.startswith("hunt-uniform-by-value-vs-reference-topology-stale-op-topology-imputed-permute-")  # still readable


def test_distinct_keys_always_give_distinct_file_names():
    parts = ["a", "a-b", "b", "a_b", "b-c", "a-b-c", "c"]
    keys = [(kind, rule, op, profile, against) for kind, op, profile, against in itertools.product(parts, parts, ["p", "p-a"], parts)
            for rule in (f"r={op}", "several")]
    names = [entry_file(k) for k in keys]
    assert len(set(names)) == len(set(keys)) and all(is_file(n) for n in names)
    long = ("k" * 128, "several", "o" * 128, "p" * 128, "q" * 128)
    assert is_file(entry_file(long)) and entry_file(long) != entry_file(long[:4] + ("q" * 127,))


def test_a_folder_of_the_old_naming_is_still_what_a_later_hunt_compares_with(tmp_path):
    """A later hunt into a folder keeps its program when the folder's is as small: the folder's
    entry for the signature is found by the signature, whatever its file's name."""
    out = tmp_path / "o"
    old = "hunt-uniform-by-value-vs-reference-stale-several-to-torch.yaml"  # the naming before the hash
    _index(out, [_entry(old, "stale", "several", "to_torch", sha256=_sha(SCENARIO_A))])
    (out / old).write_text(SCENARIO_A)
    target = Target("uniform-by-value", "reference")
    program = Program([1, 2], ({"from_torch": {"as": "h", "shape": [1, 1, 32, 32]}}, {"to_torch": {"input": "h"}}))
    entries, _ = write([Found(Signature("stale", "several", "to_torch"), program, 5, 0)], target, 0, out)
    assert [e["file"] for e in entries] == [old] and sorted(p.name for p in out.iterdir()) == [old, "hunt.json"]
    assert [e["file"] for e in json.loads((out / "hunt.json").read_text())["found"]] == [old]


# -- 1: a merge never replaces another signature's file ----------------------------------------
def test_a_merge_never_replaces_a_file_of_out_that_holds_another_signature(tmp_path):
    """OUT's own hunt wrote signature A at F; a foreign folder's signature B named the same F:
    the merge replaced OUT's F with B's scenario and listed both against F (A's program lost).
    A merged scenario goes to its own signature's name, not the foreign index's."""
    name = "hunt-uniform-by-value-vs-reference-stale-allocation-all-unsqueeze.yaml"
    out, src = tmp_path / "m1", tmp_path / "src1"
    _index(out, [_entry(name, "stale", "allocation=all", "unsqueeze", sha256=_sha(SCENARIO_A))])
    (out / name).write_text(SCENARIO_A)
    _index(src, [_entry(name, "data_mismatch", "several", "to_torch")])
    (src / name).write_text(SCENARIO_B)
    r = invoke(["hunt", "--merge", str(src), "--out", str(out)])
    assert r.exit_code == 1, r.output
    assert (out / name).read_text() == SCENARIO_A
    theirs = entry_file(("data_mismatch", "several", "to_torch", "uniform-by-value", "reference"))
    assert (out / theirs).read_text() == SCENARIO_B
    found = json.loads((out / "hunt.json").read_text())["found"]
    assert sorted((e["file"], e["kind"], e["sha256"]) for e in found) == sorted(
        [(name, "stale", _sha(SCENARIO_A)), (theirs, "data_mismatch", _sha(SCENARIO_B))])


def test_a_merge_whose_own_name_is_taken_by_another_signature_skips_it_and_says_why(tmp_path):
    """Only a forged index holds a signature's hashed name for another signature: the merged
    scenario is skipped, said in the summary, and OUT's file is kept; a foreign crash named like
    one of OUT's scenarios is skipped the same way."""
    theirs = entry_file(("data_mismatch", "several", "to_torch", "uniform-by-value", "reference"))
    out, src = tmp_path / "m1", tmp_path / "src1"
    _index(out, [_entry(theirs, "stale", "allocation=all", "unsqueeze")])
    (out / theirs).write_text(SCENARIO_A)
    _index(src, [_entry("hunt-b.yaml", "data_mismatch", "several", "to_torch")],
           [{"file": theirs, "example": 1, "error": "x", "fault": None}])
    (src / "hunt-b.yaml").write_text(SCENARIO_B)
    (src / theirs).write_text(SCENARIO_B)
    r = invoke(["hunt", "--merge", str(src), "--out", str(out)])
    assert r.exit_code == 1 and r.exception is None, r.output
    assert (out / theirs).read_text() == SCENARIO_A and sorted(p.name for p in out.iterdir()) == [theirs, "hunt.json"]
    assert f"{src / 'hunt-b.yaml'}: {theirs} in {out} holds another signature's scenario; not merged" in r.stdout
    assert f"{src / theirs}: {out} already holds a scenario of that name; not merged" in r.stdout
    data = json.loads((out / "hunt.json").read_text())
    assert [e["kind"] for e in data["found"]] == ["stale"] and data["crashes"] == []


# -- 3: what hunt may replace is a regular file, checked before the search -------------------------
def test_a_listed_file_that_is_a_folder_link_or_fifo_is_refused_before_the_search(tmp_path, monkeypatch):
    """A listed hunt-*.yaml replaced by a folder (its steps_after set to 99, so the hunt would
    replace it): the hunt searched 18 s, then exit 2 "cannot write ...: Is a directory"."""
    import meshspec.hunt.hunt as hunting

    searched = []
    monkeypatch.setattr(hunting, "hunt", lambda *a, **k: searched.append(1) or [])
    for what, make in [("a folder", os.mkdir), ("a symbolic link", lambda p: p.symlink_to(tmp_path / "elsewhere.yaml")),
                       ("not a regular file", os.mkfifo)]:
        out = tmp_path / what.replace(" ", "-")
        name = "hunt-old-name.yaml"  # any name the index gives one of this pair's signatures
        _index(out, [_entry(name, "stale", "several", "to_torch", steps=99)])
        make(out / name)
        r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "1", "--seed", "1", "--out", str(out)])
        assert r.exit_code == 2 and r.exception is None and not searched, r.output
        assert len(r.stderr.strip().splitlines()) == 1 and f"{out / name}: {what}," in r.stderr and "choose another --out" in r.stderr
    out = tmp_path / "other-pair"  # an entry of another pair is none this hunt replaces
    _index(out, [_entry("hunt-x.yaml", "stale", "several", "to_torch", profile="current")])
    os.mkdir(out / "hunt-x.yaml")
    r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "1", "--seed", "1", "--out", str(out)])
    assert r.exit_code == 0 and searched, r.output


def test_an_index_giving_a_signature_another_signatures_name_is_refused_before_the_search(tmp_path, monkeypatch):
    """Such an index (forged: hunt never writes one) made the hunt refuse when writing, after the
    whole search, if it found that other signature."""
    import meshspec.hunt.hunt as hunting

    searched = []
    monkeypatch.setattr(hunting, "hunt", lambda *a, **k: searched.append(1) or [])
    theirs = entry_file(("data_mismatch", "several", "to_torch", "uniform-by-value", "reference"))
    out = tmp_path / "o"
    _index(out, [_entry(theirs, "stale", "several", "to_torch")])
    (out / theirs).write_text(SCENARIO_A)
    r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "1", "--out", str(out)])
    assert r.exit_code == 2 and not searched and len(r.stderr.strip().splitlines()) == 1, r.output
    assert f"lists {theirs} for stale / several / to_torch, a name hunt gives another signature" in r.stderr
    mine = entry_file(("stale", "several", "to_torch", "uniform-by-value", "reference"))
    _index(out, [_entry(mine, "stale", "several", "to_torch")])  # its own name: fine
    (out / theirs).rename(out / mine)
    assert invoke(["hunt", "-p", "uniform-by-value", "--examples", "1", "--out", str(out)]).exit_code == 0 and searched
