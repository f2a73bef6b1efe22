"""The ttnn tier: meshspec held against the real ttnn 0.81.1, in mock mode on a CPU.

Run by tools/ttnn-tier/run (which builds the environment: Python 3.10, ttnn from the package
index, meshspec from this checkout) and by .ci/run when Python 3.10 is on the machine. Each test
runs real ttnn in a child process: a mock cluster descriptor is read once per process, and a
step that kills the process (SIGSEGV in 0.81.1) must not take the tier with it.
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
    pytest.skip("the ttnn tier needs ttnn 0.81.1: run tools/ttnn-tier/run", allow_module_level=True)

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
