"""The README's and the docs' examples work: every scenario they show loads and runs as described,
every meshspec command they show runs without a usage error, every output they show is what
meshspec prints, the CI workflow is valid YAML whose meshspec commands run, the set-up commands are
the ones .ci/run uses, and what the README says in prose about the seed holds.

The examples live in README.md, docs/*.md and bench/README.md (issue 38: the README keeps what a
newcomer reads, the reference moved to docs/); each test reads them all, so an example moved from
one file to another stays tested."""

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
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "README.md"]
README = (ROOT / "README.md").read_text()


def _blocks():
    """(file, language, body) of every fenced code block of the docs."""
    out = []
    for doc in DOCS:
        for lang, body in re.findall(r"```(\w*)\n(.*?)```", doc.read_text(), flags=re.S):
            out.append((doc.relative_to(ROOT).as_posix(), lang, body))
    return out


BLOCKS = _blocks()


def _scenarios():
    found = [(doc, body) for doc, lang, body in BLOCKS if lang == "yaml" and body.startswith("meshspec: 1")]
    counts = {}
    out = []
    for doc, body in found:
        counts[doc] = counts.get(doc, 0) + 1
        out.append(pytest.param(body, id=f"{doc}#{counts[doc]}"))
    return out


def test_the_examples_we_test_are_there():
    where = [doc for doc, lang, body in BLOCKS if lang == "yaml" and body.startswith("meshspec: 1")]
    assert where.count("README.md") == 1, "the README shows the seed scenario"
    assert where.count("docs/scenario-format.md") == 2, "the format example and the expect example"
    assert any("jobs:" in body for doc, lang, body in BLOCKS if doc == "docs/commands.md" and lang == "yaml")
    assert len(_commands()) >= 10 and len(_shown_runs()) >= 2


@pytest.mark.parametrize("body", _scenarios())
def test_doc_scenarios_load_and_run(body):
    scenario = parse(body, ROOT / "readme.yaml")
    for profile in ("current", "uniform-by-value", "unpopulated", "reference"):
        report = run(scenario, profile)
        if scenario.expect is not None:
            assert report.expect.passed, (profile, report.expect.mismatches)
    # a scenario without expect is the seed: stale (1,3) under uniform-by-value (docs/semantics.md section 1)
    if scenario.expect is None:
        stale = [f.device for f in run(scenario, "uniform-by-value").findings if f.kind.value == "stale"]
        assert stale == [(1, 3)]


COMMAND = re.compile(r"meshspec (run|diff|check|schema|profiles|explain|systems|export|hunt)\b")
#: Options whose value is a file or folder the command writes: the test writes it under tmp_path.
OUTPUTS = {"-o", "--output", "--out", "--junit-xml", "--svg", "--html"}


def _commands():
    cmds = []
    for doc, lang, body in BLOCKS:
        for line in body.splitlines():
            line = line.split("  #")[0].strip()  # a trailing comment says what the command is for
            # commands on a recording (rec/, real.json) need ttnn to have made it, and a hunt on the real
            # ttnn (--real) needs ttnn itself: the ttnn tier runs both (tests_ttnn/test_record.py, test_real_hunt.py)
            recording = "rec/" in line or "real.json" in line or "--real" in line
            if COMMAND.match(line) and "..." not in line and "[" not in line and not recording:
                cmds.append(pytest.param(line, id=f"{doc}: {line}"))
            if line.startswith("- run: meshspec "):
                cmds.append(pytest.param(line.removeprefix("- run: "), id=f"{doc}: {line}"))
    return cmds


@pytest.mark.parametrize("command", _commands())
def test_doc_commands_run(command, tmp_path, monkeypatch):
    command = command.replace("${{ matrix.shard }}", "1").replace(" > meshspec-scenario.schema.json", "")
    argv = shlex.split(command)[1:]
    argv = [str(tmp_path / Path(a).name) if i and argv[i - 1] in OUTPUTS else a for i, a in enumerate(argv)]
    monkeypatch.chdir(ROOT)
    res = invoke(argv)
    assert res.exception is None, (command, res.exception)
    assert res.exit_code in (0, 1), (command, res.stdout, res.stderr)
    assert "Traceback" not in res.stdout + res.stderr


def test_ci_workflow_is_valid_yaml():
    workflow = next(body for doc, lang, body in BLOCKS if lang == "yaml" and "jobs:" in body)
    data = yaml.safe_load(workflow)
    steps = data["jobs"]["scenarios"]["steps"]
    assert any("meshspec check" in s.get("run", "") for s in steps)


def _readme_lines():
    return [line for doc, lang, body in BLOCKS if doc == "README.md" for line in body.splitlines()]


def test_setup_commands_match_ci():
    ci = (ROOT / ".ci" / "run").read_text()
    test_cmd = next(line for line in _readme_lines() if "pytest" in line and "pip install" in line)
    assert test_cmd.strip() in ci
    run_cmd = next(line for line in _readme_lines() if "meshspec run scenarios/" in line and "pip install" in line)
    assert (ROOT / run_cmd.split("meshspec run ")[1].strip()).is_file()
    assert os.access(ROOT / ".ci" / "run", os.X_OK)


def test_step_table_is_the_registry():
    from meshspec.explain import step_table

    text = (ROOT / "docs/ttnn-spelling.md").read_text()
    assert step_table() in text, "docs/ttnn-spelling.md's step table differs from the registry: run tools/update_readme.py"


def _shown_runs():
    """Blocks that show a meshspec command and what it prints (``...`` elides lines)."""
    out = []
    for doc, lang, body in BLOCKS:
        lines = body.rstrip("\n").split("\n")
        if lines and lines[0].startswith("$ meshspec "):
            out.append(pytest.param(lines[0][2:], lines[1:], id=f"{doc}: {lines[0][2:]}"))
    return out


@pytest.mark.parametrize("command, shown", _shown_runs())
def test_shown_output_is_what_meshspec_prints(command, shown, monkeypatch):
    # every line a doc shows is printed, in that order (issue 10: keep README output under test)
    monkeypatch.setenv("COLUMNS", "120")
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.chdir(ROOT)
    printed = invoke(shlex.split(command)[1:]).stdout.split("\n")
    at = 0
    for line in shown:
        if line == "...":
            continue
        assert line in printed[at:], f"the docs show {line!r}, which `{command}` no longer prints (after line {at})"
        at = printed.index(line, at) + 1


def test_every_bundled_scenario_is_in_the_scenarios_table():
    """Each file of scenarios/ has its row in docs/scenarios.md (a new one is found there)."""
    text = (ROOT / "docs/scenarios.md").read_text()
    rows = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
    assert {p.stem for p in (ROOT / "scenarios").glob("*.yaml")} <= rows
    assert rows - {"scenario"} <= {p.stem for p in (ROOT / "scenarios").glob("*.yaml")}, "a row for a scenario that is gone"


def test_readme_is_short():
    """Issue 38: what it is, set-up, the seed, everyday commands and where to read on, read in ten
    minutes; the reference lives in docs/."""
    assert len(README.splitlines()) < 350


# -- what the README says in prose ---------------------------------------------------------------------------


def test_the_seed_prints_pass_and_exits_1_and_check_exits_0(monkeypatch):
    """README, "PASS, FAIL and exit codes": run judges the records, check the expectations."""
    monkeypatch.chdir(ROOT)
    ran = invoke(["run", "scenarios/seed-uneven-copy.yaml"])
    assert ran.exit_code == 1 and "expect (uniform-by-value): PASS" in ran.stdout
    checked = invoke(["check", "scenarios/seed-uneven-copy.yaml"])
    assert checked.exit_code == 0 and "FAIL" not in checked.stdout and "PASS" in checked.stdout
    everywhere = invoke(["check", "scenarios/seed-uneven-copy.yaml", "--profile", "all"])
    assert everywhere.exit_code == 0 and everywhere.stdout.count("PASS ") >= 7


def test_the_mesh_is_named_mesh_device(tmp_path, monkeypatch):
    """README, "The mesh is `mesh_device`": the inline step it shows runs, the step without its
    mesh is refused, and export's script opens the mesh under that name."""
    step = re.search(r"`(- empty: \{[^`]*device: mesh_device\})`", README).group(1)
    head = "meshspec: 1\nmesh: t3k\nsteps:\n"
    report = run(parse(head + "  " + step + "\n", tmp_path / "s.yaml"), "current")
    assert report.error is None and not report.findings
    path = tmp_path / "bare.yaml"
    path.write_text(head + "  " + step.replace(", device: mesh_device", "") + "\n")
    refused = invoke(["run", str(path)])
    assert refused.exit_code == 2 and "device: required key is missing" in refused.stderr
    monkeypatch.chdir(ROOT)
    script = invoke(["export", "scenarios/seed-uneven-copy.yaml", "--minimal"]).stdout
    assert "mesh_device = ttnn.open_mesh_device(" in script
    assert len(script.splitlines()) == int(re.search(r"the seed in (\d+) lines", README).group(1))
