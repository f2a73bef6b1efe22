"""meshspec hunt (meshspec/hunt/): from nothing it rediscovers the seed and the partial-then-full
gap, finds every injected fault, and every scenario it writes passes meshspec check as written
(issue 16; docs/semantics.md section 13)."""

import json
import random
from pathlib import Path

import pytest

from meshspec.check import check_files
from meshspec.errors import UsageError
from meshspec.hunt.hunt import hunt, merge, write
from meshspec.hunt.programs import VOCABULARY, generate
from meshspec.hunt.search import Target
from meshspec.runner import run
from meshspec.scenario.loader import load, parse
from meshspec.sim.faults import EXPECTED
from meshspec.sim.mesh import SYSTEMS
from meshspec.sim.ops import OPS

T3K = [("t3k", SYSTEMS["t3k"].shape)]


def _hunt(profile, examples, tmp_path, against="reference", fault=None, shard=(1, 1)):
    target = Target(profile, against, {}, fault)
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=examples, shard=shard)
    write(found, target, 0, tmp_path)
    return found


def _passes_check(folder: Path):
    results = [r for per_file in check_files(sorted(folder.glob("*.yaml")), None) for r in per_file]
    assert results and all(r.outcome == "PASS" for r in results), [(r.path, r.outcome, r.message) for r in results if r.outcome != "PASS"]


def test_from_nothing_it_rediscovers_the_seed_in_at_most_4_steps(tmp_path):
    found = _hunt("uniform-by-value", 30, tmp_path)
    seeds = [f for f in found if f.signature.kind == "stale" and f.signature.op == "allocate_tensor_on_device"
             and any("copy_host_to_device_tensor" in s for s in f.program.steps)]
    assert seeds and len(seeds[0].program.steps) <= 4
    # the seed's mechanism: stale exactly on the devices the copy gave no shard (recorded, 0 bytes written)
    report = run(load(tmp_path / seeds[0].file), "uniform-by-value").to_json()
    stale = {tuple(f["device"]) for f in report["findings"] if f["kind"] == "stale" and f["device"] is not None}
    dst = next(t for t in report["tensors"] if t["storage"] == "device")
    unwritten = {tuple(d["coord"]) for d in dst["devices"] if d["recorded"] and d["written_bytes"] == 0}
    assert stale and stale == unwritten
    _passes_check(tmp_path)


def test_from_nothing_it_rediscovers_the_partial_then_full_gap_in_at_most_5_steps(tmp_path):
    found = _hunt("current", 160, tmp_path)
    lost = [f for f in found if f.signature.kind == "lost" and f.signature.op == "copy_host_to_device_tensor"]
    assert lost and len(lost[0].program.steps) <= 5
    # the rule: copy=current alone (flipped on reference), or with allocation=all where the program reads
    # the allocation back before writing it
    assert lost[0].signature.rule in ("copy=current", "several")
    copies = [s for s in lost[0].program.steps if "copy_host_to_device_tensor" in s]
    assert len(copies) == 2 and len({c["copy_host_to_device_tensor"]["src"] for c in copies}) == 2  # partial, then full
    # the gap itself: a device the last copy wrote that the record leaves out
    report = run(load(tmp_path / lost[0].file), "current").to_json()
    dst = next(t for t in report["tensors"] if t["storage"] == "device" and any(d["status"] == "lost" for d in t["devices"]))
    assert any(not d["recorded"] and d["written_bytes"] > 0 for d in dst["devices"])
    _passes_check(tmp_path)


@pytest.mark.parametrize("fault", sorted(EXPECTED))
def test_an_injected_fault_is_found_every_time(fault, tmp_path):
    found = _hunt("current", 25, tmp_path, against="current", fault=fault)
    assert any(f.signature.kind == EXPECTED[fault] and f.signature.rule == f"fault:{fault}" for f in found)
    _passes_check(tmp_path)  # the written scenarios state the unmodified profile


def test_it_is_deterministic_and_shards_are_disjoint(tmp_path):
    a = _hunt("current", 20, tmp_path / "a", shard=(1, 2))
    b = _hunt("current", 20, tmp_path / "b", shard=(1, 2))
    assert (tmp_path / "a" / "hunt.json").read_text() == (tmp_path / "b" / "hunt.json").read_text()
    c = _hunt("current", 20, tmp_path / "c", shard=(2, 2))
    assert all(f.example % 2 == 0 for f in a + b) and all(f.example % 2 == 1 for f in c)
    kept = merge([tmp_path / "a", tmp_path / "c"], tmp_path / "m")
    keys = [(e["kind"], e["rule"], e["op"]) for e in kept]
    assert len(keys) == len(set(keys)) and set(keys) >= {(f.signature.kind, f.signature.rule, f.signature.op) for f in c}
    _passes_check(tmp_path / "m")


def test_generated_programs_load_and_use_only_the_registrys_fields():
    for k in range(150):
        program = generate(random.Random(f"7:{k}"), (2, 4), "t3k", VOCABULARY)
        parse(program.text(), Path("p.yaml"))  # valid by construction: no ScenarioError
        for step in program.steps:
            (op, args), = step.items()
            assert set(args) <= set(OPS[op].fields), (op, args)


def test_a_file_hunt_did_not_write_is_never_overwritten(tmp_path):
    target = Target("current", "reference")
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=20)
    from meshspec.hunt.hunt import file_name

    mine = tmp_path / file_name(found[-1].signature, target)
    mine.write_text("a scenario of my own\n")
    with pytest.raises(UsageError, match="not one of this folder's hunt files"):
        write(found, target, 0, tmp_path)
    assert mine.read_text() == "a scenario of my own\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == [mine.name]  # refused before anything was written


def test_a_file_of_a_name_the_hunt_may_write_is_refused_before_the_search(tmp_path, monkeypatch):
    """Found after the search, a foreign file of a name the hunt wants threw the whole search away
    (a minute by default): it is refused first, and no search runs."""
    from cli_runner import invoke

    import meshspec.hunt.hunt as hunting

    out = tmp_path / "h"
    out.mkdir()
    mine = out / "hunt-current-vs-reference-stale-copy-to-torch.yaml"
    mine.write_text("a scenario of my own\n")
    searched = []
    monkeypatch.setattr(hunting, "hunt", lambda *a, **k: searched.append(1) or [])
    r = invoke(["hunt", "-p", "current", "--examples", "5", "--out", str(out)])
    assert r.exit_code == 2 and not searched
    assert r.stderr.strip().endswith(
        f"{mine}: exists and is not one of this folder's hunt files (hunt.json) (a name this hunt may write); rename it (not "
        "'hunt-...' or 'crash-...'), or choose another --out")
    assert mine.read_text() == "a scenario of my own\n" and sorted(p.name for p in out.iterdir()) == [mine.name]
    # a name another target's hunt writes is no obstacle
    r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "5", "--out", str(out)])
    assert r.exit_code in (0, 1) and searched == [1]


def _edited_hunt_folder(tmp_path: Path) -> tuple[Path, list, Target, str]:
    """A folder one hunt wrote, with notes added to one of its scenarios; the folder's index says
    that scenario's program was longer, so a hunt or merge finding it again would replace it."""
    target = Target("current", "reference")
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=20)
    out = tmp_path / "h"
    write(found, target, 0, out)
    index = json.loads((out / "hunt.json").read_text())
    entry = index["found"][0]
    assert len(entry["sha256"]) == 64  # what hunt wrote, as its digest
    entry["steps_after"] = 99
    (out / "hunt.json").write_text(json.dumps(index))
    mine = out / entry["file"]
    mine.write_text(mine.read_text() + "# MY NOTES\n")
    return out, found, target, entry["file"]


def test_a_hunt_never_replaces_a_scenario_changed_since_it_wrote_it(tmp_path):
    out, found, target, name = _edited_hunt_folder(tmp_path)
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(UsageError, match=f"{name}: changed since hunt wrote it"):
        write(found, target, 0, out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # refused before anything was written
    (out / name).write_text((out / name).read_text().replace("# MY NOTES\n", ""))  # as hunt wrote it: replaced
    write(found, target, 0, out)
    assert json.loads((out / "hunt.json").read_text())["found"][0]["steps_after"] < 99


def test_a_scenario_changed_since_hunt_wrote_it_is_refused_before_the_search(tmp_path, monkeypatch):
    """Found only when the results are written, an edited hunt file would throw the search away:
    a hunt of the same pair checks the folder's files first; a crash file of another seed, or a
    copy not named like a hunt file, is no obstacle."""
    from cli_runner import invoke

    import meshspec.hunt.hunt as hunting

    out, _, _, name = _edited_hunt_folder(tmp_path)
    searched = []
    monkeypatch.setattr(hunting, "hunt", lambda *a, **k: searched.append(1) or [])
    r = invoke(["hunt", "-p", "current", "--examples", "5", "--seed", "3", "--out", str(out)])
    assert r.exit_code == 2 and not searched
    assert f"{out / name}: changed since hunt wrote it" in r.stderr
    (out / name).rename(out / f"mine-{name}")  # kept under a name of the user's: the hunt runs
    (out / "crash-current-vs-reference-7-0.yaml").write_text("another seed's crash file\n")
    index = json.loads((out / "hunt.json").read_text())
    index["found"] = [e for e in index["found"] if e["file"] != name]
    (out / "hunt.json").write_text(json.dumps(index))
    r = invoke(["hunt", "-p", "current", "--examples", "5", "--seed", "3", "--out", str(out)])
    assert r.exit_code in (0, 1) and searched == [1], r.stderr


def test_a_merge_never_replaces_a_scenario_changed_since_hunt_wrote_it(tmp_path):
    out, found, target, name = _edited_hunt_folder(tmp_path)
    other = tmp_path / "other"
    write(found, target, 0, other)  # the same signatures, shorter than the 99 steps out's index says
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    with pytest.raises(UsageError, match=f"{name}: changed since hunt wrote it"):
        merge([other], out)
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


def test_a_merge_skips_a_scenario_that_is_not_utf8_and_says_so(tmp_path):
    target = Target("current", "reference")
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=20)
    write(found, target, 0, tmp_path / "a")
    bad = tmp_path / "a" / found[0].file
    bad.write_bytes(b"\xff\xfe")
    skipped = []
    kept = merge([tmp_path / "a"], tmp_path / "m", skipped)
    assert skipped == [f"{bad}: not UTF-8 text"]
    assert not (tmp_path / "m" / found[0].file).exists() and found[0].file not in {e["file"] for e in kept}
    assert {e["file"] for e in kept} == {f.file for f in found[1:]}


def test_the_cli_hunts_merges_and_refuses_in_one_line(tmp_path):
    
    from cli_runner import invoke

    r = invoke(["hunt", "-p", "current", "--examples", "10", "--out", str(tmp_path / "h"), "--format", "json"])
    data = json.loads(r.stdout)
    assert r.exit_code == 1 and data["found"], r.output  # 1: disagreements found (0: none, 3: meshspec crashed)
    assert data["tried"] == 10 and all((tmp_path / "h" / e["file"]).exists() for e in data["found"])
    r = invoke(["hunt", "--merge", str(tmp_path / "h"), "--out", str(tmp_path / "m"), "--format", "json"])
    merged = json.loads(r.stdout)
    assert r.exit_code == 1 and merged["merged"] == 1 and "tried" not in merged and len(merged["found"]) == len(data["found"])
    for args, words in (([], "hunt needs --profile NAME (the profile to hunt: e.g. current"),
                        (["--examples", "3"], "and --out DIR (the folder the scenarios go to); e.g. meshspec hunt --profile"),
                        (["-p", "current", "--examples", "3"], "--out DIR"), (["-p", "current", "--time", "1x", "--out", "o"], "--time"),
                        (["-p", "current", "--mesh", "t3kk", "--examples", "2", "--out", "o"], "did you mean 't3k'"),
                        (["-p", "current", "--ops", "nope", "--examples", "2", "--out", "o"], "--ops 'nope'"),
                        # the did-you-mean comes before the long list of ops, which is shortened after it
                        (["-p", "current", "--ops", "from_torh,zeros", "--examples", "2", "--out", "o"],
                         "--ops 'from_torh': not an op hunt writes (did you mean 'from_torch'?); it writes from_torch, ")):
        r = invoke(["hunt", *args])
        assert r.exit_code == 2 and words in r.output and len(r.output.strip().splitlines()) == 1, r.output


def test_values_read_back_that_differ_silently_are_a_disagreement_of_their_own():
    from meshspec.hunt.search import silent

    text = ("meshspec: 1\nname: s\nmesh: [1, 2]\nsteps:\n"
            "  - from_torch: {as: h, shape: [1, 1, 32, 64], data: {random: SEED}, mesh_mapper: {shard: 3}, device: mesh_device}\n"
            "  - to_torch: {tensor: h, as: out, mesh_composer: {concat: 3}}\n")
    a, b = (run(parse(text.replace("SEED", str(n)), Path("s.yaml")), "current") for n in (1, 2))
    assert a.findings == b.findings == ()
    assert silent(a, b, parse(text.replace("SEED", "1"), Path("s.yaml"))) == [("values_differ", "to_torch")]
    assert silent(a, a, parse(text.replace("SEED", "1"), Path("s.yaml"))) == []


def _index(folder: Path, found: list) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "hunt.json").write_text(json.dumps({"format": "meshspec.hunt/1", "found": found, "crashes": []}))


ENTRY = {"file": "hunt-a.yaml", "kind": "stale", "rule": "several", "op": "copy_host_to_device_tensor", "steps_before": 3,
         "steps_after": 3, "profile": "current", "against": "reference"}


@pytest.mark.parametrize("entry, words", [
    ({**ENTRY, "file": "../victim/important.txt"}, "no path"),
    ({**ENTRY, "file": "/etc/passwd.yaml"}, "no path"),
    ({k: v for k, v in ENTRY.items() if k != "kind"}, "'kind'"),
    ({**ENTRY, "steps_after": "two"}, "'steps_after'"),
    (3, "an object"),
])
def test_merge_refuses_an_index_that_names_a_path_or_is_malformed(entry, words, tmp_path):
    # helper-13: merge wrote wherever an index entry pointed, and crashed on malformed entries
    _index(tmp_path / "evil", [entry])
    with pytest.raises(UsageError, match=words):
        merge([tmp_path / "evil"], tmp_path / "out")
    assert not (tmp_path / "victim").exists()


def test_merge_skips_an_index_entry_naming_a_missing_file(tmp_path):
    _index(tmp_path / "a", [ENTRY])
    skipped = []
    assert merge([tmp_path / "a"], tmp_path / "out", skipped) == []
    assert skipped == [f"{tmp_path / 'a' / 'hunt-a.yaml'}: missing"]
    assert json.loads((tmp_path / "out" / "hunt.json").read_text())["found"] == []


def test_merge_of_a_folder_that_is_no_hunt_leaves_no_out_folder(tmp_path):
    with pytest.raises(UsageError, match="nosuch: not a hunt folder"):
        merge([tmp_path / "nosuch"], tmp_path / "out")
    assert not (tmp_path / "out").exists()


def test_profiles_pairs_never_share_a_file_and_a_rerun_keeps_the_smaller_program(tmp_path):
    a = _hunt("current", 30, tmp_path)
    b = _hunt("uniform-by-value", 30, tmp_path)  # into the same folder
    assert not {f.file for f in a} & {f.file for f in b}  # the pair is in the name
    entries = json.loads((tmp_path / "hunt.json").read_text())["found"]
    assert len(entries) == len(a) + len(b)
    before = {e["file"]: e["steps_after"] for e in entries}
    _hunt("current", 5, tmp_path)  # fewer examples: its programs are no smaller
    after = {e["file"]: e["steps_after"] for e in json.loads((tmp_path / "hunt.json").read_text())["found"]}
    assert all(after[f] <= n for f, n in before.items())


def test_a_user_profile_based_on_another_user_profile_is_written_with_its_base(tmp_path):
    spec = tmp_path / "mine.yaml"
    spec.write_text("meshspec: 1\nmesh: [1, 2]\nprofiles:\n  mybranch: {base: current, copy: lost}\n"
                    "  mybranch2: {base: mybranch, composer: legacy}\nsteps:\n  - from_torch: {as: x, shape: [1, 1, 32, 32]}\n")
    own = dict(load(spec).profiles)
    target = Target("mybranch2", "reference", own)
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=40)
    assert found
    write(found, target, 0, tmp_path / "out")
    _passes_check(tmp_path / "out")
    text = (tmp_path / "out" / found[0].file).read_text()
    assert text.index("mybranch:") < text.index("mybranch2:")


def test_a_fault_scenario_states_the_unmodified_profile_and_a_crash_keeps_its_fault(tmp_path):
    from meshspec.hunt.hunt import Progress

    target = Target("current", "reference", {}, "skip_write")  # --against is the profile itself with a fault
    assert target.against == "current" and target.label == "current-with-skip_write"
    found = hunt(target, T3K, VOCABULARY, seed=0, examples=15)
    program = found[0].program
    entries, crashes = write(found, target, 0, tmp_path, [(7, program, "ValueError: x", ("skip_write", 1, (0, 0)))])
    text = (tmp_path / found[0].file).read_text()
    assert "profile: current\n" in text and "reference" not in text and "Fault(kind=skip_write" in load(tmp_path / found[0].file).description
    assert entries[0]["against"] == "current (no fault)"
    assert "Fault(kind=skip_write, step=1, coord=(0, 0))" in load(tmp_path / crashes[0]["file"]).description
    assert json.loads((tmp_path / "hunt.json").read_text())["crashes"][0]["fault"] == ["skip_write", 1, [0, 0]]


def _step_clock(seconds: float):
    """A deadline on a clock that moves one second with each step a run executes (time passes
    while meshspec works): deterministic, whatever the machine's load."""
    from meshspec.hunt.search import Deadline

    now = [0.0]
    return Deadline(seconds, clock=lambda: now[0]), now


def test_a_one_device_mesh_and_a_short_time_budget_hold(tmp_path, monkeypatch):
    """The budget is checked before each program, run and step (helper-13 measured it: 6.7 s
    against 6 s on a loaded machine; now no timing): no step of any run, the shrinking's
    included, starts once the deadline has passed, and a hunt without --examples ends there."""
    import meshspec.runner as runner
    from meshspec.hunt.hunt import Progress

    one = [("n150", SYSTEMS["n150"].shape), ([1, 1], (1, 1))]
    hunt(Target("current", "reference"), one, VOCABULARY, seed=0, examples=30)  # helper-13: ZeroDivisionError
    # Where seed 0's first shrink starts moves with every rule the pair differs in (each difference
    # found is attributed by flipping every one): a first hunt finds that step, the second's deadline
    # falls a few steps into the shrink.
    import meshspec.hunt.hunt as hunt_module

    class _ShrinkStarted(Exception):
        pass

    count = [0]
    real = runner.execute

    def counted(rt, step):
        count[0] += 1
        return real(rt, step)

    def first_shrink(*args, **kwargs):
        raise _ShrinkStarted

    monkeypatch.setattr(runner, "execute", counted)
    with monkeypatch.context() as m:
        m.setattr(hunt_module, "shrink", first_shrink)
        with pytest.raises(_ShrinkStarted):
            hunt(Target("uniform-by-value", "reference"), [([8, 8], (8, 8))], VOCABULARY, seed=0, examples=10_000)
    deadline, now = _step_clock(count[0] + 5)
    late = []

    def execute(rt, step):
        if now[0] >= deadline.at:  # a step started after the deadline: noted, and the hunt stopped at once
            late.append(now[0])
            raise KeyboardInterrupt
        now[0] += 1
        return real(rt, step)

    monkeypatch.setattr(runner, "execute", execute)
    progress = Progress()
    found = hunt(Target("uniform-by-value", "reference"), [([8, 8], (8, 8))], VOCABULARY, seed=0, deadline=deadline, progress=progress)
    assert deadline.passed() and late == [] and not progress.interrupted and progress.tried >= 1
    assert progress.shrinks_stopped == sum(f.stopped for f in found) >= 1  # the deadline fell in a shrink, which kept its best


def test_the_rules_no_op_exercises_are_named(tmp_path):
    from meshspec.hunt.hunt import unreachable

    assert unreachable(Target("ccl-padded", "current"), ("from_torch", "to_device")) == ["ccl_padding"]
    assert unreachable(Target("ccl-padded", "current"), VOCABULARY) == []


def test_an_out_folder_that_cannot_be_written_fails_before_the_search(tmp_path):
    
    from cli_runner import invoke

    # /proc takes no new folder, for root too (a chmod does not stop root)
    r = invoke(["hunt", "-p", "current", "--time", "1h", "--out", "/proc/meshspec-hunt-out"])
    assert r.exit_code == 2 and "/proc/meshspec-hunt-out" in r.output and len(r.output.strip().splitlines()) == 1


def test_an_interrupt_keeps_what_was_found(tmp_path, monkeypatch):
    import meshspec.hunt.hunt as h

    calls = {"n": 0}
    real = h.judge

    def judge_then_interrupt(program, target, **kw):
        calls["n"] += 1
        if calls["n"] > 12:
            raise KeyboardInterrupt
        return real(program, target, **kw)

    monkeypatch.setattr(h, "judge", judge_then_interrupt)
    from meshspec.hunt.hunt import Progress

    progress = Progress()
    found = h.hunt(Target("current", "reference"), T3K, VOCABULARY, seed=0, examples=100, progress=progress)
    assert progress.interrupted and progress.tried == 13 and found


def test_mesh_and_time_options_say_what_is_wrong():
    from meshspec.errors import UsageError
    from meshspec.hunt.cli import parse_mesh, parse_time

    for text, said in [("2x0", "every dim of a mesh is at least 1 device"), ("nosuch", "or a shape such as 2x4")]:
        with pytest.raises(UsageError, match=said):
            parse_mesh(text)
    with pytest.raises(UsageError, match="give more than 0"):
        parse_time("0s")
    assert parse_mesh("2x4") == ([2, 4], (2, 4)) and parse_time("2m") == 120


def _index_cannot_be_written(monkeypatch):
    """A full disk when hunt writes a folder's index (its scenario files go through); returns the real writer."""
    from meshspec.hunt import hunt as hunting

    real = hunting.replace_entry

    def full(path, text):
        if path.name == hunting.INDEX:
            raise UsageError(f"cannot write {path}: No space left on device")
        return real(path, text)

    monkeypatch.setattr(hunting, "replace_entry", full)
    return real


def test_a_hunt_whose_index_cannot_be_written_leaves_the_folder_as_it_was(tmp_path, monkeypatch):
    # a full disk after some scenarios were written: they go again, so the next hunt into the
    # folder is not refused over files its index does not list
    from cli_runner import invoke

    from meshspec.errors import UsageError
    from meshspec.hunt import hunt as hunting

    args = ["hunt", "-p", "uniform-by-value", "--examples", "20", "--out", str(tmp_path / "h"), "--format", "json"]
    real = _index_cannot_be_written(monkeypatch)
    failed = invoke(args)
    assert failed.exit_code == 2 and "No space left on device" in failed.stderr
    assert sorted(p.name for p in (tmp_path / "h").iterdir()) == []
    monkeypatch.setattr(hunting, "replace_entry", real)
    again = invoke(args)
    assert again.exit_code == 1 and json.loads(again.stdout)["found"], again.output


def test_a_merge_whose_index_cannot_be_written_leaves_the_out_folder_as_it_was(tmp_path, monkeypatch):
    # as a hunt's write: the files a merge copied go again when its index cannot follow them
    from meshspec.hunt import hunt as hunting

    assert _hunt("current", 20, tmp_path / "a")  # something to copy
    real = _index_cannot_be_written(monkeypatch)
    with pytest.raises(UsageError, match="No space left on device"):
        merge([tmp_path / "a"], tmp_path / "m")
    assert list((tmp_path / "m").iterdir()) == []
    monkeypatch.setattr(hunting, "replace_entry", real)
    assert merge([tmp_path / "a"], tmp_path / "m")  # not refused over files its index does not list
