"""``meshspec diff`` of a simulation against a real runtime's report (meshspec/judge/real.py;
docs/semantics.md section 10): a tensor the real side could not describe is left out of both and
named, and a 0.66/0.67 address lower by exactly the version's allocator shift is taken as equal
(found by a tester: 76 false differences on a combine_device_tensors scenario)."""

import copy
import json
from pathlib import Path

from meshspec.judge.real import ADDRESS_SHIFT, comparable, real_version
from meshspec.runner import run
from meshspec.scenario.loader import load
from tests.cli_runner import invoke

SEED = Path(__file__).parents[2] / "scenarios" / "combine-round-trip.yaml"


def _pair(version="0.67.0", shift=None):
    sim = run(load(SEED), f"ttnn-{version}").to_json()
    real = copy.deepcopy(sim)
    real["profile"] = f"ttnn {version} (the real runtime)"
    real["findings"] = []
    for t in real["tensors"]:
        if t.get("address") is not None:
            t["address"] -= ADDRESS_SHIFT[version] if shift is None else shift
        if t["name"].startswith("parts["):
            t.update(devices=[], unreadable="1 device tensors but 8 coordinates in its topology: no device_coords() to tell them apart")
    return sim, real


def test_a_real_report_is_named_by_its_version():
    assert real_version({"profile": "ttnn 0.66.0 (the real runtime)"}) == "0.66.0"
    assert real_version({"profile": "ttnn-0.66.0"}) is None


def test_unreadable_tensors_are_left_out_and_the_shift_taken_as_equal(tmp_path):
    sim, real = _pair()
    e, a, skipped = comparable(sim, real)
    parts = [t["name"] for t in sim["tensors"] if t["name"].startswith("parts[")]
    assert len(parts) == 7 and [n for n, _ in skipped] == parts
    assert not any(t["name"].startswith("parts[") for t in e["tensors"] + a["tensors"])
    (tmp_path / "s.json").write_text(json.dumps(sim))
    (tmp_path / "r.json").write_text(json.dumps(real))
    out = invoke(["diff", str(tmp_path / "s.json"), str(tmp_path / "r.json")])
    assert out.exit_code == 0, out.stdout
    assert "equal: no differences" in out.stdout and "not compared, the real runtime's report could not describe them" in out.stdout
    data = json.loads(invoke(["diff", str(tmp_path / "s.json"), str(tmp_path / "r.json"), "-f", "json"]).stdout)
    assert data["equal"] and len(data["not_compared"]) == 7


def test_an_address_off_by_another_amount_still_differs(tmp_path):
    sim, real = _pair(shift=4096)
    (tmp_path / "s.json").write_text(json.dumps(sim))
    (tmp_path / "r.json").write_text(json.dumps(real))
    out = invoke(["diff", str(tmp_path / "s.json"), str(tmp_path / "r.json")])
    assert out.exit_code == 1 and "address" in out.stdout


def test_two_simulations_are_compared_whole(tmp_path):
    sim, _ = _pair()
    e, a, skipped = comparable(sim, copy.deepcopy(sim))
    assert skipped == () and e == sim
