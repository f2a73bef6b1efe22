"""Every run of every program a hunt makes is bounded by --max-memory and --max-work: a program
that would need more stops at the bound and is skipped and counted, not a crash (issue 34,
section 5: a 32x32 hunt reached 4.2 GB in 6 s; one all_gather took 26 s of a 4 s hunt)."""

import json

from cli_runner import invoke

import meshspec.runner


def test_hunt_passes_its_bounds_to_every_run(tmp_path, monkeypatch):
    real, seen = meshspec.runner.run, []

    def spy(*a, **k):
        seen.append((k.get("max_memory"), k.get("max_work")))
        return real(*a, **k)

    monkeypatch.setattr(meshspec.runner, "run", spy)
    r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "4", "--seed", "1", "--max-memory", "512M", "--max-work", "100000",
                "--out", str(tmp_path / "o")])
    assert r.exit_code in (0, 1) and r.exception is None, r.output
    assert seen and set(seen) == {(512 << 20, 100000)}  # searching, attributing, shrinking and writing alike


def test_a_tiny_bound_stops_every_program_and_the_hunt_ends_cleanly_saying_how_many(tmp_path):
    for option in (["--max-memory", "1K"], ["--max-work", "1"]):
        out = tmp_path / option[0].strip("-")
        r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "3", "--seed", "1", *option, "--out", str(out), "--format", "json"])
        assert r.exit_code == 0 and r.exception is None and r.stderr == "", r.output
        data = json.loads(r.stdout)
        assert data["tried"] == 3 and data["over_limit"] == 3 and data["found"] == [] and data["crashes"] == []
        r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "3", "--seed", "1", *option, "--out", str(out)])
        assert r.exit_code == 0 and "3 programs stopped at meshspec's memory or work bound (--max-memory, --max-work)" in r.stdout
    r = invoke(["hunt", "-p", "uniform-by-value", "--examples", "3", "--seed", "1", "--out", str(tmp_path / "free"), "--format", "json"])
    assert json.loads(r.stdout)["over_limit"] == 0 and json.loads(r.stdout)["disagreements"] > 0  # the same programs, unbounded
