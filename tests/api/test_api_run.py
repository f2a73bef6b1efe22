"""meshspec.run: the report ``meshspec run --format json`` prints, as data; errors the CLI's one line."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

import meshspec
from meshspec.errors import MeshspecError, ScenarioError, UsageError

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"


def _cli(*args: str) -> subprocess.CompletedProcess:
    """The CLI as a user runs it: a process of its own."""
    return subprocess.run([sys.executable, "-m", "meshspec", *args], capture_output=True, text=True, cwd=ROOT)


@pytest.mark.parametrize("name, profile", [
    ("seed-uneven-copy.yaml", None),  # its own profile: uniform-by-value
    ("seed-uneven-copy.yaml", "reference"),
    ("submesh-copy.yaml", "current"),
    ("user-profile-fix.yaml", None),  # a profile the scenario defines
    ("multihost-write-pinning.yaml", "unpopulated"),
])
def test_run_is_the_cli_json_as_data(name, profile, monkeypatch):
    monkeypatch.chdir(ROOT)  # the report's path is the one given: the same relative path to both
    args = ["run", f"scenarios/{name}", "--format", "json", *(["-p", profile] if profile else [])]
    cli = _cli(*args)
    assert cli.returncode in (0, 1), cli.stderr
    report = meshspec.run(f"scenarios/{name}", profile=profile)
    assert isinstance(report, dict)
    assert report == json.loads(cli.stdout)


def test_a_matrix_runs_every_case_as_the_cli_does_and_case_picks_one(monkeypatch):
    monkeypatch.chdir(ROOT)
    cli = json.loads(_cli("run", "scenarios/seed-uneven-copy-matrix.yaml", "--format", "json", "-p", "uniform-by-value").stdout)
    every = meshspec.run(Path("scenarios/seed-uneven-copy-matrix.yaml"), profile="uniform-by-value")
    assert isinstance(every, list) and len(every) == 8
    assert every == cli
    one = meshspec.run("scenarios/seed-uneven-copy-matrix.yaml", profile="uniform-by-value", case="bfloat16-tile-1x8")
    assert one == cli[1]  # the last variable fastest: [2, 4] then [1, 8]
    assert one["scenario"] == "seed-uneven-copy-matrix[bfloat16-tile-1x8]"
    assert [f["device"] for f in one["findings"] if f["kind"] == "stale" and f["tensor"] == "dst"] == [[0, 7]]


def test_profile_all_is_the_cli_comparison_data(monkeypatch):
    monkeypatch.chdir(ROOT)
    cli = json.loads(_cli("run", "scenarios/seed-uneven-copy.yaml", "--format", "json", "-p", "all").stdout)
    assert meshspec.run("scenarios/seed-uneven-copy.yaml", profile="all") == cli


def test_a_loaded_scenario_runs_as_its_path_does():
    scenario = meshspec.load(SCENARIOS / "seed-uneven-copy.yaml")
    assert meshspec.run(scenario, "reference") == meshspec.run(SCENARIOS / "seed-uneven-copy.yaml", "reference")


@pytest.mark.parametrize("call, cli_args, error", [
    (lambda: meshspec.run("scenarios/no-such.yaml"), ["run", "scenarios/no-such.yaml"], ScenarioError),
    (lambda: meshspec.run("scenarios/seed-uneven-copy.yaml", profile="curent"),
     ["run", "scenarios/seed-uneven-copy.yaml", "-p", "curent"], UsageError),
    (lambda: meshspec.run("scenarios/seed-uneven-copy-matrix.yaml", case="bfloat16-tile"),
     ["diff", "scenarios/seed-uneven-copy-matrix.yaml", "--case", "bfloat16-tile"], UsageError),
])
def test_errors_raise_the_root_with_the_line_the_cli_prints(call, cli_args, error, monkeypatch):
    monkeypatch.chdir(ROOT)
    with pytest.raises(error) as raised:
        call()
    assert isinstance(raised.value, MeshspecError)
    cli = _cli(*cli_args)
    assert cli.returncode == 2
    said = cli.stderr.strip().removeprefix("meshspec: ")
    if error is UsageError and "--case" in cli_args:  # the CLI names its option, the API its keyword
        said = said.replace("--case:", "case:", 1)
    assert str(raised.value) == said


def test_a_step_error_is_the_reports_not_an_exception():
    report = meshspec.run(SCENARIOS / "seed-uneven-copy.yaml", profile="unpopulated")
    assert report["error"]["op"] == "to_torch" and "nothing to compose" in report["error"]["message"]


def test_import_meshspec_loads_nothing_more():
    """The CLI imports the package first: its lazy names cost the CLI's start-up nothing."""
    code = ("import sys, meshspec; import meshspec.cli; "
            "print(sorted(m for m in sys.modules if m.startswith('meshspec.api') or m in ('meshspec.scenario.write',)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
    code = "import sys, meshspec; print(sorted(m for m in sys.modules if m.split('.')[0] in ('meshspec', 'yaml', 'rich', 'numpy')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "['meshspec']"


def test_public_names_are_lazy_and_listed():
    assert {"run", "load", "to_yaml", "Builder", "view", "MeshspecError"} <= set(dir(meshspec))
    assert meshspec.MeshspecError is MeshspecError
    with pytest.raises(AttributeError, match="no attribute 'rnu'"):
        meshspec.rnu  # noqa: B018


@pytest.mark.parametrize("kwargs", [{"profile": ["current"]}, {"case": 3}])
def test_a_profile_or_case_that_is_not_a_name_is_a_meshspec_error(kwargs):
    """profile=["current"] raised TypeError: unhashable type: 'list' (a tester): one line instead."""
    with pytest.raises(meshspec.MeshspecError, match="named by a string"):
        meshspec.run(ROOT / "scenarios" / "seed-uneven-copy.yaml", **kwargs)
