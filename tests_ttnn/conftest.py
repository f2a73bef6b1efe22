"""The ttnn tier: meshspec held against a real ttnn (0.81.1, 0.67.0 or 0.66.0), in mock mode on a CPU.

Run by tools/ttnn-tier/run [--version V] (which builds the environment: Python 3.10, ttnn from the
package index, meshspec from this checkout) and by .ci/run for each version when Python 3.10 is on
the machine. Each test runs real ttnn in a child process: a mock cluster descriptor is read once per
process, and a step that kills the process (SIGSEGV in 0.81.1) must not take the tier with it.
``current`` is 0.81.1: a test that compares with it on another version names, where that version
records otherwise, the profile rule that differs, and the built-in profile that version verifies
(:data:`PROFILE`, ``ttnn-<version>``: meshspec/sim/profiles.py) has that rule's choice.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

try:
    import ttnn  # noqa: F401  (only to know it is there; the tests run it in child processes)
except ImportError:
    pytest.skip("the ttnn tier needs ttnn (0.81.1, 0.67.0 or 0.66.0): run tools/ttnn-tier/run", allow_module_level=True)

from importlib.metadata import version as _version

VERSION = _version("ttnn")
"""The ttnn this tier runs on."""

from meshspec.sim.profiles import PROFILES, profile_for_version  # noqa: E402

PROFILE = profile_for_version(VERSION)
"""The built-in profile this version verifies (``current`` for 0.81.1, else ``ttnn-<version>``)."""
if PROFILE is None:
    pytest.exit(f"the ttnn tier knows ttnn 0.81.1, 0.67.0 and 0.66.0, not {VERSION}: run tools/ttnn-tier/run --version V", returncode=77)


def version_profile(rules):
    """The name of this version's built-in profile, after checking that it differs from ``current``
    in each of ``rules`` (the rules a test names as where this version records otherwise)."""
    differ = {r for r in rules if PROFILES[PROFILE].rules()[r] != PROFILES["current"].rules()[r]}
    assert differ == set(rules), f"{PROFILE} has current's choice of {sorted(set(rules) - differ)}"
    return PROFILE

CLUSTERS = Path(os.environ.get("MESHSPEC_CLUSTERS", ROOT.parent / "shared" / "ttnn-mock" / "clusters"))

#: meshspec system -> its mock cluster descriptor (tools/golden/record_ttnn.py uses the same ones).
SYSTEM_CLUSTERS = {
    "n150": "wormhole_N150.yaml",
    "n300": "wormhole_N300.yaml",
    "t3k": "../t3k_cluster_desc.yaml",
    "galaxy": "6u_cluster_desc.yaml",
    "p150": "blackhole_P150.yaml",
    "p150x4": "blackhole_4xP150.yaml",
    # no P300 descriptor ships with the mock: its 1x2 mesh opens on two of four P150s (the same
    # Blackhole chip; a 1x2 mesh's records depend on the chips, not on the card)
    "p300": "blackhole_4xP150.yaml",
    "p150x8": "blackhole_8xP150.yaml",
    "bh-galaxy": "blackhole_galaxy.yaml",
}


def cluster_for(system: str | None) -> Path:
    """The descriptor a scenario's system opens on (a bare shape: the T3K, as meshspec's default
    Wormhole system); a system with none is skipped, saying so."""
    name = SYSTEM_CLUSTERS.get(system or "t3k")
    if name is None:
        pytest.skip(f"no mock cluster descriptor for {system}")
    return (CLUSTERS / name).resolve()


def run_mock(args: list[str], system: str | None, cwd: Path, timeout: int = 180) -> subprocess.CompletedProcess:
    """``python ARGS`` (or a command) in the mock, on ``system``'s cluster, in ``cwd``."""
    env = os.environ | {"TT_METAL_MOCK_CLUSTER_DESC_PATH": str(cluster_for(system)), "TT_LOGGER_LEVEL": "FATAL"}
    cmd = args if args[0] != "python" else [sys.executable, *args[1:]]
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def mock_json(program: str, system: str, cwd: Path):
    """Run ``program`` (Python source) on the real ttnn in the mock; the JSON it prints last."""
    import json

    result = run_mock(["python", "-c", program], system, cwd)
    assert result.returncode == 0, result.stderr[-2000:]
    return json.loads(result.stdout.strip().splitlines()[-1])


#: version -> how much lower its DRAM allocator hands out addresses than 0.81.1's (0.66.0 and 0.67.0
#: put the first buffer at 32, 0.81.1 at 1048640: observed in the tier). No profile rule holds buffer
#: addresses; the tier checks every address that differs differs by exactly this, then compares the rest.
from meshspec.judge.real import ADDRESS_SHIFT as _SHIFTED  # noqa: E402 (one table: diff, hunt --real and the tier)

ADDRESS_SHIFT = {"0.81.1": 0, **_SHIFTED}

#: words observe.py reports a tensor unreadable with where a version has no device_coords() and the
#: tensor's topology lists more coordinates than it has parts (a get_device_tensors part: its one
#: coordinate is not observable there)
from meshspec.hunt.real import NO_COORDS  # noqa: E402,F401


def version_view(simulated: dict, real: dict) -> tuple[dict, dict]:
    """The two reports as this version can compare them with 0.81.1's simulation: addresses lower by
    :data:`ADDRESS_SHIFT` (each checked), and tensors the observer cannot read here (:data:`NO_COORDS`)
    left out of both. On 0.81.1 the reports are returned as they are."""
    import copy

    if VERSION == "0.81.1":
        return simulated, real
    simulated, real = copy.deepcopy(simulated), copy.deepcopy(real)
    sim = {t["name"]: t for t in simulated["tensors"]}
    unreadable = {t["name"] for t in real["tensors"] if NO_COORDS in t.get("unreadable", "")}
    for t in real["tensors"]:
        s = sim.get(t["name"])
        if s is not None and s.get("address") is not None and t.get("address") is not None and s["address"] - t["address"] == ADDRESS_SHIFT[VERSION]:
            t["address"] = s["address"]
    simulated["tensors"] = [t for t in simulated["tensors"] if t["name"] not in unreadable]
    real["tensors"] = [t for t in real["tensors"] if t["name"] not in unreadable]
    return simulated, real


def absent_names(script: str) -> list[str]:
    """The ttnn names an exported script calls (its ``NEEDS``) that this version has not
    (meshspec/bridge/export.py ``ABSENT_IN``): such a script says so and stops before any step."""
    import ast

    from meshspec.bridge.export import ABSENT_IN

    needs = next(line for line in script.splitlines() if line.startswith("NEEDS = "))
    return [n for n in ast.literal_eval(needs.split(" = ", 1)[1]) if VERSION in ABSENT_IN.get(n, ())]
