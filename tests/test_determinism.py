"""Issue 6, section 3: the same scenario and options give byte-identical output, every run."""

import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from meshspec.cli import app

ROOT = Path(__file__).resolve().parents[1]


def _run(*args):
    return subprocess.run([sys.executable, "-m", "meshspec", *args], capture_output=True, cwd=ROOT, check=False)


def test_json_is_byte_identical_across_processes():
    args = ["run", "scenarios/seed-uneven-copy.yaml", "scenarios/partial-then-full.yaml", "--profile", "all", "--format", "json", "--view", "data"]
    first, second = _run(*args), _run(*args)
    assert first.returncode == second.returncode == 1
    assert first.stdout == second.stdout and len(first.stdout) > 1000


def test_check_output_is_identical_for_every_jobs_count():
    outs = {j: CliRunner().invoke(app, ["check", str(ROOT / "scenarios"), "--profile", "all", "-j", str(j)]).stdout for j in (1, 2, 3)}
    assert outs[1] == outs[2] == outs[3]
