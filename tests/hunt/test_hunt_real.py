"""meshspec hunt --real (meshspec/hunt/real.py, worker.py) without ttnn: the comparison of a real
report with a simulated one on canned reports, the worker's protocol on a stand-in ttnn, and the
whole command on a stand-in Python (tests/hunt/fake_ttnn). The real ttnn's side: tests_ttnn/test_real_hunt.py."""

import copy
import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from meshspec.bridge.export import export
from meshspec.hunt.real import REAL_VOCABULARY, contradictions, differences, needs_of, part_names, refusal, view
from meshspec.judge.real import ADDRESS_SHIFT
from meshspec.runner import run
from meshspec.scenario.loader import parse

HERE = Path(__file__).parent
FAKE = HERE / "fake_ttnn"
WORKER = Path(__file__).parents[2] / "meshspec" / "hunt" / "worker.py"

SEED = """meshspec: 1
name: hunt
mesh: [1, 4]
steps:
  - {allocate_tensor_on_device: {as: dst, shape: [1, 1, 32, 32]}}
  - {from_torch: {as: src, shape: [1, 3, 32, 32], mesh_mapper: {shard: 1}}}
  - {copy_host_to_device_tensor: {src: src, dst: dst}}
"""


def _scenario(text=SEED):
    return parse(text, Path("hunt.yaml"))


def _simulated(text=SEED, profile="current"):
    return run(_scenario(text), profile).to_json()


def _tensor(report, name):
    return next(t for t in report["tensors"] if t["name"] == name)


# -- (a) the real report against the simulated one ----------------------------------------------


def test_the_same_records_are_no_difference():
    sim = _simulated()
    assert differences(sim, copy.deepcopy(sim), _scenario()) == []


def test_a_device_recorded_on_one_side_is_named_by_that_field_and_the_op_that_made_the_tensor():
    sim = _simulated()
    real = copy.deepcopy(sim)
    dev = next(d for d in _tensor(real, "dst")["devices"] if d["coord"] == [0, 3])
    dev["recorded"] = not dev["recorded"]
    found = differences(sim, real, _scenario())
    # recorded, not shape or pages: a tensor is named by its most telling field, once
    assert [(k, op) for k, op, _ in found] == [("recorded", "allocate_tensor_on_device")]
    assert "dst (0, 3) recorded" in found[0][2]


def test_a_run_that_stops_elsewhere_is_that_difference_alone():
    sim = _simulated()
    real = copy.deepcopy(sim) | {"error": {"step": 2, "op": "copy_host_to_device_tensor", "message": "TT_FATAL: no", "source": "ttnn"},
                                  "steps_run": 2}
    real["tensors"] = real["tensors"][:1]  # (and fewer tensors: not differences of their own)
    assert [(k, op) for k, op, _ in differences(sim, real, _scenario())] == [("error", "copy_host_to_device_tensor")]
    sim |= {"error": {"step": 1, "op": "from_torch", "message": "refused", "source": "ttnn"}}  # the first to stop names the op
    assert [(k, op) for k, op, _ in differences(sim, real, _scenario())] == [("error", "from_torch")]


def test_an_address_is_compared_after_the_versions_shift_only():
    sim = _simulated()
    real = copy.deepcopy(sim)
    _tensor(real, "dst")["address"] -= ADDRESS_SHIFT["0.67.0"]
    assert differences(*view(sim, real, "0.67.0"), _scenario()) == []
    assert [k for k, _, _ in differences(*view(sim, real, "0.81.1"), _scenario())] == ["address"]
    _tensor(real, "dst")["address"] -= 32  # a shift of another size is a difference on every version
    assert [k for k, _, _ in differences(*view(sim, real, "0.67.0"), _scenario())] == ["address"]


def test_a_tensor_the_observer_could_not_read_is_left_out_of_both():
    sim = _simulated()
    real = copy.deepcopy(sim)
    _tensor(real, "dst").update(devices=[], unreadable="1 device tensors but 4 coordinates in its topology: no device_coords() ...")
    a, b = view(sim, real, "0.67.0")
    assert [t["name"] for t in a["tensors"]] == [t["name"] for t in b["tensors"]] == ["src"]


# -- (b) the real records against themselves ----------------------------------------------------


def _device(coords, recorded, topo_coords, shape=None, placements=None, name="t", storage="device"):
    return {"name": name, "storage": storage,
            "topology": {"distribution_shape": shape or [len(topo_coords)], "placements": placements or ["R"], "coords": topo_coords},
            "devices": [{"coord": c, "recorded": c in recorded} for c in coords]}


MESH = [[0, 0], [0, 1], [0, 2], [0, 3]]


def test_records_that_agree_are_no_contradiction():
    assert contradictions({"mesh": [1, 4], "tensors": [_device(MESH, MESH, MESH)]}) == []


def test_the_seed_records_seven_of_eight_devices_its_topology_lists():
    """ttnn 0.81.1's partial-then-full gap (docs/semantics.md section 6), as a report shows it."""
    found = contradictions({"mesh": [1, 4], "tensors": [_device(MESH, MESH[:3], MESH)]})
    assert found == [("t", "its topology lists [(0, 3)] where the runtime records nothing")]
    found = contradictions({"mesh": [1, 4], "tensors": [_device(MESH, MESH, MESH[:3])]})
    assert found == [("t", "the runtime records [(0, 3)], which its topology does not list")]


def test_a_host_buffer_a_distribution_shape_and_placements_are_checked():
    host = _device(MESH, MESH[:2], MESH, name="h", storage="host")
    assert contradictions({"mesh": [1, 4], "tensors": [host]}) == [("h", "its topology lists [(0, 2), (0, 3)] where its host buffer has no shard")]
    bad = _device(MESH, MESH, MESH, shape=[2, 4], placements=["R"])
    assert [why for _, why in contradictions({"mesh": [1, 4], "tensors": [bad]})] == [
        "its distribution shape [2, 4] has 8 positions for 4 coordinates", "it has 1 placement(s) for a rank-2 distribution shape"]
    off = _device(MESH, MESH, MESH[:3] + [[1, 0]])
    assert "its topology lists [(1, 0)], not on its mesh [1, 4]" in [why for _, why in contradictions({"mesh": [1, 4], "tensors": [off]})]


def test_a_part_and_a_view_of_one_need_only_their_own_devices_listed():
    """A get_device_tensors part keeps its parent's topology (docs/semantics.md section 9), and so
    does a squeeze of one (0.81.1's mock: found by the hunt as a false contradiction)."""
    scenario = _scenario("meshspec: 1\nname: hunt\nmesh: [1, 4]\nsteps:\n"
                         "  - {allocate_tensor_on_device: {as: d, shape: [1, 1, 32, 32]}}\n"
                         "  - {get_device_tensors: {tensor: d, as: parts}}\n"
                         "  - {squeeze: {tensor: 'parts[0]', dim: 0, as: v}}\n  - {squeeze: {tensor: d, dim: 0, as: w}}\n")
    assert part_names(scenario) == {"parts", "v"}
    report = {"mesh": [1, 4], "tensors": [_device(MESH, MESH[:1], MESH, name="parts[0]"), _device(MESH, MESH[:1], MESH, name="v"),
                                          _device(MESH, MESH[:1], MESH, name="w")]}
    assert contradictions(report, part_names(scenario)) == [("w", "its topology lists [(0, 1), (0, 2), (0, 3)] where the runtime records nothing")]


# -- what a version cannot run --------------------------------------------------------------------


def test_a_script_calling_what_the_version_lacks_is_refused_before_it_runs():
    text = SEED.replace("  - {copy_host_to_device_tensor: {src: src, dst: dst}}",
                        "  - {copy_host_to_device_tensor_partial: {src: src, dst: dst, core_filter: [[[0, 0], [0, 0]]]}}")
    script = export(_scenario(text))
    assert "ttnn.copy_host_to_device_tensor_partial" in needs_of(script)
    assert refusal(script, "0.67.0") == "calls ttnn.copy_host_to_device_tensor_partial, which ttnn 0.67.0 has not"
    assert refusal(script, "0.81.1") is None


def test_the_real_vocabulary_has_no_collective_and_no_device_kernel():
    from meshspec.sim.ops import OPS

    assert not [o for o in REAL_VOCABULARY if OPS[o].fabric]
    assert not {"neg", "add", "permute"} & set(REAL_VOCABULARY)
    assert "from_torch" in REAL_VOCABULARY and "copy_host_to_device_tensor" in REAL_VOCABULARY


# -- the worker, on a stand-in ttnn ---------------------------------------------------------------


def test_the_worker_runs_each_script_and_closes_its_mesh(tmp_path):
    log = tmp_path / "log"
    good = tmp_path / "good.py"
    good.write_text("import ttnn, json, sys\nprint('noise on stdout')\n"
                    "def main(out):\n    m = ttnn.open_mesh_device((1, 2))\n    open(out, 'w').write(json.dumps({'ok': 1}))\n")
    stops = tmp_path / "stops.py"
    stops.write_text("import sys\ndef main(out):\n    sys.exit('this script calls ttnn.x, which ttnn 0.67.0 has not')\n")
    fails = tmp_path / "fails.py"
    fails.write_text("def main(out):\n    raise KeyError('k')\n")
    jobs = "".join(json.dumps({"script": str(p), "out": str(tmp_path / f"{p.stem}.json")}) + "\n" for p in (good, stops, fails, good))
    env = os.environ | {"PYTHONPATH": str(FAKE), "FAKE_TTNN_LOG": str(log)}
    done = subprocess.run([sys.executable, str(WORKER)], input=jobs, capture_output=True, text=True, env=env, timeout=60)
    answers = [json.loads(line) for line in done.stdout.splitlines()]  # the script's own print went to stderr
    assert answers == [{"ready": True}, {"ran": True}, {"exit": "this script calls ttnn.x, which ttnn 0.67.0 has not"},
                       {"failed": "KeyError: 'k'"}, {"ran": True}]
    assert "noise on stdout" in done.stderr
    assert log.read_text() == "closed (1, 2)\nclosed (1, 2)\n"  # each program's mesh, after it
    assert json.loads((tmp_path / "good.json").read_text()) == {"ok": 1}


# -- the command, on a stand-in Python -------------------------------------------------------------


def _fake_python(tmp_path) -> str:
    path = tmp_path / "python"
    path.write_text(f"#!/bin/sh\nexec {sys.executable} {FAKE / 'python.py'} \"$@\"\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def _hunt(tmp_path, mode, *more):
    env = os.environ | {"FAKE_TTNN_MODE": mode}
    return subprocess.run([sys.executable, "-m", "meshspec", "hunt", "--real", _fake_python(tmp_path), "--examples", "4",
                           "--out", str(tmp_path / "out"), "--format", "json", *more], capture_output=True, text=True, env=env, timeout=600)


def test_a_difference_is_shrunk_and_written_with_both_reports(tmp_path):
    done = _hunt(tmp_path, "error")
    assert done.returncode == 1, done.stderr
    data = json.loads(done.stdout)
    assert (data["version"], data["profile"], data["programs"], data["run"], data["refused"]) == ("0.81.1", "current", 4, 4, 0)
    assert data["disagreements"] == 4
    [entry] = data["found_now"]
    assert (entry["kind"], entry["op"], entry["steps_after"]) == ("error", "from_torch", 1)
    assert "real: step 0 (from_torch): fake refusal" in entry["difference"]
    out = tmp_path / "out"
    base = entry["file"][: -len(".yaml")]
    assert json.loads((out / f"{base}.real.json").read_text())["error"]["message"] == "fake refusal"
    assert json.loads((out / f"{base}.simulated.json").read_text())["error"] is None
    text = (out / entry["file"]).read_text()
    assert "ttnn 0.81.1" in text and "profile: current" in text
    assert len(parse(text, out / entry["file"]).steps) == 1
    index = json.loads((out / "real-hunt.json").read_text())
    assert index["found"] == [entry] and set(index["files"]) == {entry["file"], f"{base}.real.json", f"{base}.simulated.json"}


@pytest.mark.parametrize("mode, why", [("exit", "the script stopped: this script calls ttnn.fake, which ttnn 0.81.1 has not"),
                                       ("die", "the process died before its first step")])
def test_a_program_the_version_cannot_run_is_counted_not_a_disagreement(tmp_path, mode, why):
    done = _hunt(tmp_path, mode)
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert (data["programs"], data["run"], data["refused"], data["disagreements"], data["found_now"]) == (4, 0, 4, 0, [])
    assert [k for k in data["refused_why"] if k.startswith(why)], data["refused_why"]


def test_a_file_of_yours_in_the_folder_is_never_replaced(tmp_path):
    _hunt(tmp_path, "error")
    mine = next((tmp_path / "out").glob("*.real.json"))
    index = tmp_path / "out" / "real-hunt.json"
    data = json.loads(index.read_text())
    data["files"].remove(mine.name)
    index.write_text(json.dumps(data))
    done = _hunt(tmp_path, "error")
    assert done.returncode == 2 and "exists and is not one of this folder's real-hunt files" in done.stderr


@pytest.mark.parametrize("more, words", [
    (["--against", "reference"], "--against with --real"),
    (["--fault", "skip_write"], "--fault with --real"),
    (["--ops", "from_torch,neg"], "--ops 'neg' with --real"),
    (["--profile", "no-such-profile"], "no-such-profile"),
])
def test_options_a_real_hunt_cannot_take_are_refused_in_one_line(tmp_path, more, words):
    done = _hunt(tmp_path, "error", *more)
    assert done.returncode == 2 and words in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr


def test_a_version_no_profile_verifies_needs_one_named(tmp_path):
    env_version = {"FAKE_TTNN_VERSION": "0.12.0"}
    done = subprocess.run([sys.executable, "-m", "meshspec", "hunt", "--real", _fake_python(tmp_path), "--examples", "1", "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, env=os.environ | env_version | {"FAKE_TTNN_MODE": "error"})
    assert done.returncode == 2 and "ttnn 0.12.0 verifies no meshspec profile" in done.stderr and "--profile NAME" in done.stderr


def test_an_out_that_is_a_file_is_refused_in_one_line_and_kept(tmp_path):
    """--out names a file of the user's: one line, as the simulated hunt says it, and the file as it was."""
    mine = tmp_path / "notes.txt"
    mine.write_text("mine\n")
    done = subprocess.run([sys.executable, "-m", "meshspec", "hunt", "--real", _fake_python(tmp_path), "--examples", "1", "--out", str(mine)],
                          capture_output=True, text=True, env=os.environ | {"FAKE_TTNN_MODE": "error"})
    assert done.returncode == 2 and "is a file; give a folder" in done.stderr and len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert mine.read_text() == "mine\n"
