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
    found = _hunt("current", 80, tmp_path)
    lost = [f for f in found if f.signature.kind == "lost" and f.signature.op == "copy_host_to_device_tensor"]
    assert lost and len(lost[0].program.steps) <= 5
    assert lost[0].signature.rule == "copy=current"  # the rule, found by flipping it alone on reference
    copies = [s for s in lost[0].program.steps if "copy_host_to_device_tensor" in s]
    assert len(copies) == 2 and len({c["copy_host_to_device_tensor"]["src"] for c in copies}) == 2  # partial, then full
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
    mine = tmp_path / f"hunt-{found[0].signature.slug()}.yaml"
    mine.write_text("a scenario of my own\n")
    with pytest.raises(UsageError, match="not one of this folder's hunt files"):
        write(found, target, 0, tmp_path)
    assert mine.read_text() == "a scenario of my own\n"


def test_the_cli_hunts_merges_and_refuses_in_one_line(tmp_path):
    from typer.testing import CliRunner

    from meshspec.cli import app

    r = CliRunner().invoke(app, ["hunt", "-p", "current", "--examples", "10", "--out", str(tmp_path / "h"), "--format", "json"])
    assert r.exit_code == 0, r.output
    data = json.loads(r.stdout)
    assert data["tried"] == 10 and all((tmp_path / "h" / e["file"]).exists() for e in data["found"])
    r = CliRunner().invoke(app, ["hunt", "--merge", str(tmp_path / "h"), "--out", str(tmp_path / "m")])
    assert r.exit_code == 0 and "1 hunt folders merged" in r.stdout
    for args, words in ((["-p", "current", "--examples", "3"], "--out DIR"), (["-p", "current", "--time", "1x", "--out", "o"], "--time"),
                        (["-p", "current", "--mesh", "t3kk", "--examples", "2", "--out", "o"], "did you mean 't3k'"),
                        (["-p", "current", "--ops", "nope", "--examples", "2", "--out", "o"], "--ops 'nope'")):
        r = CliRunner().invoke(app, ["hunt", *args])
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
