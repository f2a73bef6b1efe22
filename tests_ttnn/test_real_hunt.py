"""Issue 37 items 3 and 6 on the real ttnn (conftest.VERSION, mock mode): a short ``meshspec hunt
--real`` finds no difference it does not know, and ``meshspec diff`` of a simulation under the
version's profile against the real report of the same exported scenario shows none, for a few
bundled scenarios. The plumbing without ttnn: tests/hunt/test_hunt_real.py."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT, VERSION, cluster_for, run_mock
from meshspec.bridge.export import export
from meshspec.hunt.real import REAL_VOCABULARY, Session, Tally, hunt_real, locate, version_profile
from meshspec.judge.real import ADDRESS_SHIFT
from meshspec.hunt.search import Deadline
from meshspec.scenario.loader import load
from meshspec.sim.mesh import SYSTEMS

#: version -> the signatures (kind, op) a real hunt finds there that are known, each with why
#: (docs/semantics.md, "Real record bugs found by hunting"): a record bug of that version, or a rule
#: of its profile that does not hold there, each kept with a scenario and the real reports.
KNOWN: dict[str, dict[tuple[str, str], str]] = {
    "0.81.1": {
        **{("storage", op): "a view of a deallocated tensor still records a live buffer at the freed address (a record bug of 0.81.1: "
           "tests/hunt/data/real-bugs/view-outlives-its-storage)" for op in ("squeeze", "unsqueeze")},
        **{("error", op): "meshspec says the process dies using the view of a freed buffer; 0.81.1 still records the view live "
           "(view-outlives-its-storage)" for op in ("cpu", "to_torch", "dump_tensor", "squeeze", "unsqueeze", "deallocate",
                                                    "copy_host_to_device_tensor", "get_device_tensors")},
        ("present", "get_device_tensors"): "get_device_tensors of a freed tensor gives one part in 0.81.1, one a recorded device in "
                                           "meshspec (found, not fixed: docs/semantics.md, Real record bugs found by hunting)",
    },
    # every class the first hunts found on 0.67.0 / 0.66.0 is now a rule of their profiles or was the
    # exported script's own (docs/semantics.md section 24: padding, freed uses, error words, dump_overwrite)
    **dict.fromkeys(("0.67.0", "0.66.0"), {}),
}

#: bundled scenarios whose simulation under the version's profile records what the real runtime does
#: on every verified version (tests_ttnn/test_export.py compares them all under current)
AGREEING = ("seed-uneven-copy", "partial-then-full", "even-copy", "to-device-replicated-allocation")


@pytest.fixture
def mock_env(monkeypatch):
    monkeypatch.setenv("TT_METAL_MOCK_CLUSTER_DESC_PATH", str(cluster_for("t3k")))


def test_a_short_real_hunt_finds_nothing_it_does_not_know(mock_env):
    ttnn = locate(sys.executable)
    assert ttnn.version == VERSION and ttnn.mock
    session = Session(ttnn, version_profile(VERSION, None))
    tally = Tally()
    try:
        found = hunt_real(session, [("t3k", tuple(SYSTEMS["t3k"].shape))], REAL_VOCABULARY, seed=0, examples=20,
                          deadline=Deadline(None), tally=tally)
    finally:
        session.close()
    assert tally.crashes == [], tally.crashes  # meshspec itself failed on none
    assert tally.tried == 20 and tally.run + sum(tally.refused.values()) == 20, tally
    assert tally.run >= 15, tally.refused  # the vocabulary is what the mock runs: few refused
    unknown = [(f.signature.kind, f.signature.op, f.detail) for f in found if (f.signature.kind, f.signature.op) not in KNOWN[VERSION]]
    assert unknown == [], unknown


@pytest.mark.parametrize("name", AGREEING)
def test_meshspec_diff_of_the_simulation_and_the_real_report_shows_nothing(name, tmp_path):
    """``meshspec run --profile <the version's> -f json`` and the exported script's real report,
    compared by ``meshspec diff``: exit 0. On a version whose allocator starts lower, the real
    addresses are moved by its documented shift first (docs/semantics.md section 10)."""
    path = ROOT / "scenarios" / f"{name}.yaml"
    scenario = load(path)
    profile = version_profile(VERSION, None)
    (tmp_path / "repro.py").write_text(export(scenario))
    done = run_mock(["python", "repro.py", "real.json"], scenario.mesh_name, tmp_path)
    assert done.returncode == 0, done.stderr[-2000:]
    real = json.loads((tmp_path / "real.json").read_text())
    for t in real["tensors"]:
        if t.get("address") is not None:
            t["address"] += ADDRESS_SHIFT.get(VERSION, 0)
    (tmp_path / "real.json").write_text(json.dumps(real))
    sim = subprocess.run([sys.executable, "-m", "meshspec", "run", str(path), "--profile", profile, "-f", "json",
                          "-o", str(tmp_path / "simulated.json")], capture_output=True, text=True)
    assert sim.returncode in (0, 1), sim.stderr  # 1: findings (the seed's lie), which diff does not compare
    diff = subprocess.run([sys.executable, "-m", "meshspec", "diff", str(tmp_path / "simulated.json"), str(tmp_path / "real.json")],
                          capture_output=True, text=True)
    assert diff.returncode == 0, diff.stdout + diff.stderr
