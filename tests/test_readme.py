"""The README's examples work: every scenario it shows loads and runs as described, every
meshspec command it shows runs without a usage error, the CI workflow is valid YAML whose
meshspec commands run, and the set-up commands are the ones .ci/run uses."""

import os
import re
import shlex
from pathlib import Path

import pytest
import yaml

from cli_runner import invoke
from meshspec.runner import run
from meshspec.scenario.loader import parse

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text()
BLOCKS = re.findall(r"```(\w*)\n(.*?)```", README, flags=re.S)


def _scenarios():
    return [body for lang, body in BLOCKS if lang == "yaml" and body.startswith("meshspec: 1")]


def test_readme_has_the_examples_we_test():
    assert len(_scenarios()) == 2
    assert any("jobs:" in body for lang, body in BLOCKS if lang == "yaml")


@pytest.mark.parametrize("body", _scenarios(), ids=["format", "expect"])
def test_readme_scenarios_load_and_run(body):
    scenario = parse(body, ROOT / "readme.yaml")
    for profile in ("current", "uniform-by-value", "unpopulated", "reference"):
        report = run(scenario, profile)
        if scenario.expect is not None:
            assert report.expect.passed, (profile, report.expect.mismatches)
    # the format example is the seed: stale (1,3) under uniform-by-value (docs/semantics.md section 1)
    if scenario.expect is None:
        stale = [f.device for f in run(scenario, "uniform-by-value").findings if f.kind.value == "stale"]
        assert stale == [(1, 3)]


def _commands():
    cmds = []
    for lang, body in BLOCKS:
        for line in body.splitlines():
            line = line.strip()
            # commands on a recording (rec/, real.json) need ttnn to have made it: the ttnn tier runs that loop
            recording = "rec/" in line or "real.json" in line
            if re.match(r"meshspec (run|diff|check|schema)\b", line) and "..." not in line and "[" not in line and not recording:
                cmds.append(line)
            if line.startswith("- run: meshspec "):
                cmds.append(line.removeprefix("- run: "))
    return cmds


@pytest.mark.parametrize("command", _commands())
def test_readme_commands_run(command, tmp_path, monkeypatch):
    command = command.replace("${{ matrix.shard }}", "1").replace(" > meshspec-scenario.schema.json", "")
    argv = shlex.split(command)[1:]
    argv = [str(tmp_path / a) if a.endswith(".xml") else a for a in argv]
    monkeypatch.chdir(ROOT)
    res = invoke(argv)
    assert res.exit_code in (0, 1), (command, res.stdout, res.stderr)
    assert "Traceback" not in res.stdout + res.stderr


def test_ci_workflow_is_valid_yaml():
    workflow = next(body for lang, body in BLOCKS if lang == "yaml" and "jobs:" in body)
    data = yaml.safe_load(workflow)
    steps = data["jobs"]["scenarios"]["steps"]
    assert any("meshspec check" in s.get("run", "") for s in steps)


def test_setup_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = next(line for lang, body in BLOCKS for line in body.splitlines() if "pytest" in line and "pip install" in line)
    assert test_cmd.strip() in ci
    run_cmd = next(line for lang, body in BLOCKS for line in body.splitlines() if "meshspec run scenarios/" in line and "pip install" in line)
    assert (ROOT / run_cmd.split("meshspec run ")[1].strip()).is_file()
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_readme_step_table_is_the_registry():
    from meshspec.explain import step_table

    assert step_table() in README, "README's step table differs from meshspec.explain.step_table(); paste it in"


def _shown_runs():
    """README blocks that show a meshspec command and what it prints (``...`` elides lines)."""
    out = []
    for lang, body in BLOCKS:
        lines = body.rstrip("\n").split("\n")
        if lines and lines[0].startswith("$ meshspec "):
            out.append((lines[0][2:], lines[1:]))
    return out


@pytest.mark.parametrize("command, shown", _shown_runs(), ids=lambda v: v if isinstance(v, str) else "")
def test_readme_output_is_what_meshspec_prints(command, shown, monkeypatch):
    # every line the README shows is printed, in that order (issue 10: keep README output under test)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(ROOT)
    printed = invoke(shlex.split(command)[1:]).stdout.split("\n")
    at = 0
    for line in shown:
        if line == "...":
            continue
        assert line in printed[at:], f"README shows {line!r}, which `{command}` no longer prints (after line {at})"
        at = printed.index(line, at) + 1


def test_every_bundled_scenario_is_in_the_readmes_table():
    """Each file of scenarios/ has its row under "Bundled scenarios" (a new one is found there)."""
    text = (ROOT / "README.md").read_text()
    table = text[text.index("## Bundled scenarios"):]
    table = table[: table.index("\n## ")]
    rows = set(re.findall(r"^\| `([^`]+)` \|", table, re.M))
    assert {p.stem for p in (ROOT / "scenarios").glob("*.yaml")} <= rows
