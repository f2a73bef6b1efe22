"""meshspec run --device R,C: one device of each sharded tensor, core by core (meshspec/judge/cores.py,
docs/semantics.md section 11)."""

from pathlib import Path


from cli_runner import invoke
from meshspec.runner import run
from meshspec.scenario.loader import load

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def _cores(name: str, tensor: str, device=(1, 3)):
    report = run(load(SCENARIOS / f"{name}.yaml"), "current", device=device).to_json()
    t = next(t for t in report["tensors"] if t["name"] == tensor)
    return {tuple(c["core"]): (c["pages"], c["status"]) for c in t["cores"]["cores"]}


def test_a_partial_write_leaves_the_other_cores_stale():
    # copy_host_to_device_tensor_partial on core (0,0): its 4 pages are new, (1,0)'s 2 are not
    assert _cores("partial-core-write", "kv") == {(0, 0): ([0, 1, 2, 3], "ok"), (1, 0): ([4, 5], "stale")}


def test_cores_past_the_last_shard_are_phantom():
    cores = _cores("phantom-core-grid", "act_l1", (0, 0))
    assert len(cores) == 64 and cores[(0, 0)] == ([0, 1], "ok") and cores[(7, 0)] == ([14, 15], "ok")
    assert {s for (x, y), (_, s) in cores.items() if y > 0} == {"phantom"}


def test_interleaved_tensors_have_no_core_view():
    report = run(load(SCENARIOS / "seed-uneven-copy.yaml"), "current", device=(0, 0)).to_json()
    assert all("cores" not in t for t in report["tensors"])


def test_the_cli_draws_the_grid_and_refuses_a_bad_coordinate():
    r = invoke(["run", str(SCENARIOS / "partial-core-write.yaml"), "--device", "1,3", "--no-color"])
    assert "kv on device (1,3): 2 cores (1 ok, 1 stale)" in r.stdout
    r = invoke(["run", str(SCENARIOS / "partial-core-write.yaml"), "--device", "one"])
    assert r.exit_code == 2 and "--device 'one': a device coordinate such as 1,3" in r.output


def test_the_cli_says_when_no_tensor_has_a_core_view():
    """An interleaved run has nothing for --device to draw: said on stderr, the report as ever."""
    r = invoke(["run", str(SCENARIOS / "seed-uneven-copy.yaml"), "--device", "0,1", "--no-color"])
    assert r.exit_code == 1  # the seed's findings, as without --device
    assert "--device 0,1: no tensor of this run is sharded, so there is no core view to draw" in r.stderr
    assert "dst" in r.stdout
    r = invoke(["run", str(SCENARIOS / "partial-core-write.yaml"), "--device", "1,3", "--no-color"])
    assert "no core view" not in r.stderr
