"""The pytest plugin (issue 3, section 4): scenario files as test items, only when asked.

Runs pytest in-process with the ``pytester`` fixture; the plugin is loaded there the way users get
it, through its ``pytest11`` entry point.
"""

from __future__ import annotations

import importlib.util
import shutil
from importlib.metadata import entry_points
from pathlib import Path

import pytest

from meshspec.scenario.loader import defined_profiles as _defined, load

from meshspec.sim.profiles import PROFILES
import yaml

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "scenarios"
BUNDLED = sorted(SCENARIOS.glob("*.yaml"))
# every profile of every bundled scenario: meshspec's, and the ones a scenario defines
ALL_CASES = sum((len(PROFILES) + len(_defined(f))) * max(1, len(load(f).cases)) for f in BUNDLED)
# one profile: an item per scenario, per case of a matrix scenario
ONE_PROFILE = sum(max(1, len(load(f).cases)) for f in BUNDLED)
SEED_NAME = "seed-uneven-copy.yaml"
BAD_SCENARIO = "meshspec: 1\nmesh: t3k\nsteps:\n  - cpux: {tensor: a}\n"
# the unknown op 'cpux' is on line 4, after "  - ": column 5

WORKFLOW = """\
name: CI
on: [push, pull_request]
jobs:
  test:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: meshspec check scenarios/ --junit-xml meshspec.xml
"""
A_LIST = "- meshspec\n- 1\n"
NESTED = "config:\n  meshspec: 1\n  mesh: t3k\n"


def default_profiles(path: Path) -> list[str]:
    """From the YAML alone: the profiles the expect block names, else the scenario's, else current;
    for a matrix scenario, each profile of each case, named ``profile[case]`` (tests/scenario/test_matrix.py
    checks the case names)."""
    doc = yaml.safe_load(path.read_text(encoding="utf-8"))
    named = [p for p in ((doc.get("expect") or {}).get("profiles") or {}) if p != "default"]
    profiles = named or [doc.get("profile") or "current"]
    return [f"{p}[{c}]" for c in _cases(path) for p in profiles] if "matrix" in doc else profiles


def _cases(path: Path) -> list[str]:
    from meshspec.scenario.loader import load

    return [c.case for c in load(path).cases]


@pytest.fixture
def scen(pytester):
    """A copy of the bundled scenarios in ``scen/`` under the pytester folder."""
    shutil.copytree(SCENARIOS, pytester.path / "scen")
    return pytester.path / "scen"


# hypothesis's pytest plugin imports all of hypothesis in every inner session (pytester drops
# modules an inner run imports), a second per run; it has nothing to do with scenarios.
QUIET = ("-p", "no:cacheprovider", "-p", "no:hypothesispytest")


def run(pytester, *args):
    return pytester.runpytest_inprocess(*QUIET, *args)


def test_entry_point_is_registered():
    eps = [ep for ep in entry_points(group="pytest11") if ep.name == "meshspec"]
    assert len(eps) == 1
    assert eps[0].value == "meshspec.pytest_plugin"


def test_meshspec_flag_collects_one_item_per_scenario_and_profile(pytester, scen):
    result = run(pytester, "--meshspec", "scen", "--collect-only", "-q")
    want = [f"scen/{f.name}::{p}" for f in BUNDLED for p in default_profiles(f)]
    got = [line for line in result.outlines if "::" in line]
    assert got == want
    # hand-checked: the seed names uniform-by-value and unpopulated (and default)
    assert f"scen/{SEED_NAME}::uniform-by-value" in got and f"scen/{SEED_NAME}::unpopulated" in got


def test_bundled_copy_passes(pytester, scen):
    result = run(pytester, "--meshspec", "scen")
    n = sum(len(default_profiles(f)) for f in BUNDLED)
    result.assert_outcomes(passed=n)
    assert result.ret == 0


def test_profile_all_gives_an_item_per_profile_and_scenario(pytester, scen):
    result = run(pytester, "--meshspec", "--meshspec-profile", "all", "scen")
    result.assert_outcomes(passed=ALL_CASES)
    result = run(pytester, "--meshspec", "--meshspec-profile", "all", "--collect-only", "-q", f"scen/{SEED_NAME}")
    got = [line for line in result.outlines if "::" in line]
    assert got == [f"scen/{SEED_NAME}::{p}" for p in PROFILES]


def test_single_profile_option(pytester, scen):
    result = run(pytester, "--meshspec", "--meshspec-profile", "reference", "scen")
    result.assert_outcomes(passed=ONE_PROFILE)


def test_unknown_profile_stops_the_session_with_the_choices(pytester, scen):
    result = run(pytester, "--meshspec", "--meshspec-profile", "refrence", "scen")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "--meshspec-profile: unknown profile 'refrence' (did you mean 'reference'?); one of: current" in err
    assert "Traceback" not in err + result.stdout.str()


def test_a_profile_a_scenario_defines_is_taken_as_meshspec_check_takes_it(pytester, scen):
    """``--meshspec-profile`` accepts a profile that one of the visited files defines, as ``meshspec
    check --profile`` does; every other file fails with the error check gives it."""
    from meshspec.check import check_file

    owner = scen / "cache-round-trip.yaml"
    assert "cache-mid-2025" in _defined(owner)
    other = scen / SEED_NAME
    result = run(pytester, "--meshspec", "--meshspec-profile", "cache-mid-2025", str(owner), str(other))
    result.assert_outcomes(passed=1, failed=1)
    [error] = check_file(other, "cache-mid-2025")
    assert error.outcome == "ERROR" and "does not define profile 'cache-mid-2025'" in error.details[0]
    assert error.details[0] in result.stdout.str()
    # named on its own, the file that lacks it leaves nothing to take the name from
    result = run(pytester, "--meshspec", "--meshspec-profile", "cache-mid-2025", str(other))
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "unknown profile 'cache-mid-2025'" in result.stderr.str()


def test_changed_expectation_fails_with_the_check_mismatch_line(pytester, scen):
    seed = scen / SEED_NAME
    text = seed.read_text(encoding="utf-8")
    assert text.count("written_bytes: 0}") == 1
    seed.write_text(text.replace("written_bytes: 0}", "written_bytes: 2048}"), encoding="utf-8")
    result = run(pytester, "--meshspec", f"scen/{SEED_NAME}")
    result.assert_outcomes(passed=1, failed=1)
    assert result.ret == 1
    # the same line `meshspec check` prints after "FAIL  ...: " (see test_check.py)
    mismatch = "dst (1,3): written_bytes: expected 2048, got 0"
    assert any(line.strip() == mismatch for line in result.outlines), result.stdout.str()
    result.stdout.fnmatch_lines(["*seed-uneven-copy [[]uniform-by-value[]]: 1 mismatch*", f"*{mismatch}"])
    assert "Traceback" not in result.stdout.str()

    # and it is the very text meshspec check gives
    from meshspec.check import check_file

    [fail] = [r for r in check_file(seed) if r.outcome == "FAIL"]
    assert fail.details == (mismatch,)


def test_every_mismatch_is_listed(pytester, scen):
    seed = scen / SEED_NAME
    text = seed.read_text(encoding="utf-8")
    old = "- {kind: stale, tensor: dst, device: [1, 3], step: 0}"
    assert text.count(old) == 1
    seed.write_text(text.replace(old, "- {kind: stale, tensor: dst, device: [1, 2], step: 0}"), encoding="utf-8")
    result = run(pytester, "--meshspec", "--meshspec-profile", "uniform-by-value", f"scen/{SEED_NAME}")
    result.assert_outcomes(failed=1)
    lines = [line.strip() for line in result.outlines]
    i = lines.index("seed-uneven-copy [uniform-by-value]: 2 mismatch(es)")
    assert lines[i + 1].startswith("unexpected finding: stale dst (1,3) (step 0): ")
    assert lines[i + 2] == "missing finding {kind: stale, tensor: dst, device: [1, 2], step: 0}"


def test_invalid_scenario_is_a_failing_item_with_file_line_col(pytester, scen):
    (scen / "bad.yaml").write_text(BAD_SCENARIO, encoding="utf-8")
    result = run(pytester, "--meshspec", "scen")
    n = sum(len(default_profiles(f)) for f in BUNDLED)
    result.assert_outcomes(passed=n, failed=1)
    text = result.stdout.str()
    assert "bad.yaml:4:5: steps[0]: unknown step 'cpux'" in text
    assert "Traceback" not in text
    result.stdout.fnmatch_lines(["FAILED scen/bad.yaml::load*"])


def test_invalid_yaml_is_collected_as_a_failing_item(pytester):
    pytester.makefile(".yaml", broken="meshspec: 1\nmesh: [2, 4\n")
    result = run(pytester, "--meshspec", "broken.yaml")
    result.assert_outcomes(failed=1)
    assert "broken.yaml:" in result.stdout.str()
    assert "invalid YAML" in result.stdout.str()


def test_without_the_flag_yaml_is_not_collected(pytester, scen):
    result = run(pytester, "scen")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED  # 5: 'no tests ran'
    result = run(pytester)
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED


def test_without_the_flag_python_tests_are_unchanged(pytester, scen):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = run(pytester, "--collect-only", "-q")
    assert [line for line in result.outlines if "::" in line] == ["test_one.py::test_one"]
    result = run(pytester)
    result.assert_outcomes(passed=1)


def test_with_the_flag_python_tests_still_run(pytester, scen):
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = run(pytester, "--meshspec", "--meshspec-profile", "current")
    result.assert_outcomes(passed=1 + ONE_PROFILE)


def test_ini_option_collects_without_the_flag(pytester, scen):
    pytester.makeini("[pytest]\nmeshspec_paths = scen\n")
    pytester.makefile(".yaml", **{"outside": (SCENARIOS / SEED_NAME).read_text(encoding="utf-8")})
    result = run(pytester, "--collect-only", "-q")
    got = [line for line in result.outlines if "::" in line]
    assert got == [f"scen/{f.name}::{p}" for f in BUNDLED for p in default_profiles(f)]
    # outside.yaml is a scenario too, but not under meshspec_paths
    assert not any(line.startswith("outside.yaml") for line in got)
    result = run(pytester)
    result.assert_outcomes(passed=len(got))


def test_pyproject_ini_option(pytester, scen):
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\nmeshspec_paths = ["scen"]\n')
    result = run(pytester, "--meshspec-profile", "all")
    result.assert_outcomes(passed=ALL_CASES)


def test_ini_option_with_testpaths(pytester, scen):
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_one.py").write_text("def test_one():\n    pass\n", encoding="utf-8")
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\ntestpaths = ["tests"]\nmeshspec_paths = ["scen"]\n')
    result = run(pytester, "--meshspec-profile", "current")
    result.assert_outcomes(passed=1 + ONE_PROFILE)


def test_non_scenario_yaml_is_not_collected_even_with_the_flag(pytester):
    wf = pytester.path / ".github" / "workflows"
    wf.mkdir(parents=True)
    (wf / "ci.yaml").write_text(WORKFLOW, encoding="utf-8")
    pytester.makefile(".yaml", alist=A_LIST, nested=NESTED, empty="")
    pytester.makefile(".yml", workflow=WORKFLOW)
    result = run(pytester, "--meshspec", ".", ".github/workflows/ci.yaml")
    assert result.ret == pytest.ExitCode.NO_TESTS_COLLECTED, result.stdout.str()


def test_yml_suffix_scenario_is_collected(pytester):
    (pytester.path / "seed.yml").write_text((SCENARIOS / SEED_NAME).read_text(encoding="utf-8"), encoding="utf-8")
    result = run(pytester, "--meshspec")
    result.assert_outcomes(passed=len(default_profiles(SCENARIOS / SEED_NAME)))


def test_scenario_with_a_leading_comment_is_collected(pytester):
    text = "# yaml-language-server: $schema=./meshspec-scenario.schema.json\n---\n" + (SCENARIOS / SEED_NAME).read_text(
        encoding="utf-8"
    )
    (pytester.path / "seed.yaml").write_text(text, encoding="utf-8")
    result = run(pytester, "--meshspec")
    result.assert_outcomes(passed=len(default_profiles(SCENARIOS / SEED_NAME)))


def test_scenario_with_name_before_meshspec_key_is_collected(pytester):
    text = "name: order\nmeshspec: 1\nmesh: n300\nsteps:\n  - from_torch: {as: src, shape: [1, 1, 32, 64], mesh_mapper: {shard: 3}}\n"
    (pytester.path / "order.yaml").write_text(text, encoding="utf-8")
    from meshspec.check import check_file

    assert [r.outcome for r in check_file(pytester.path / "order.yaml")] == ["PASS"]
    result = run(pytester, "--meshspec")
    result.assert_outcomes(passed=1)


def test_plugin_imports_nothing_of_meshspec_when_not_asked(pytester):
    """A project that does not ask pays (almost) nothing: the plugin and its yaml-only sniffer,
    none of the simulator, pydantic or numpy."""
    pytester.makepyfile(
        test_mods="""
import sys

def test_mods():
    loaded = sorted(m for m in sys.modules if m == "meshspec" or m.startswith("meshspec."))
    assert loaded == ["meshspec", "meshspec.pytest_plugin", "meshspec.scenario", "meshspec.scenario.sniff"], loaded
    assert "pydantic" not in sys.modules
"""
    )
    result = pytester.runpytest_subprocess(*QUIET)
    result.assert_outcomes(passed=1)


def test_help_lists_the_options(pytester):
    result = run(pytester, "--help")
    text = result.stdout.str()
    assert "--meshspec" in text and "--meshspec-profile" in text and "meshspec_paths" in text
    assert result.ret == 0


# issue 10, 2.13: a project with its own --meshspec option ----------------------------------------------------------------------------------------
def test_2_13_a_project_s_own_meshspec_option_wins(pytester):
    pytester.makeconftest("def pytest_addoption(parser):\n    parser.addoption('--meshspec', action='store', default='theirs')\n")
    pytester.makepyfile(test_mine="def test_it(request):\n    assert request.config.getoption('--meshspec') == 'theirs'\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "ValueError" not in result.stdout.str() + result.stderr.str()


@pytest.mark.skipif(importlib.util.find_spec("ttnn") is not None, reason="this Python has ttnn")
def test_recording_without_ttnn_stops_the_session_with_one_line(pytester):
    """--meshspec-record patches ttnn in the session's process: without ttnn, a usage error (not an
    INTERNALERROR per test), and no folder made."""
    pytester.makepyfile(test_one="def test_one():\n    pass\n")
    result = run(pytester, "--meshspec-record", "rec")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: this Python (*) has no 'ttnn': record patches ttnn's calls*"])
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert not (pytester.path / "rec").exists()


def test_a_bug_in_the_loader_fails_that_files_item_not_the_collection(pytester, scen, monkeypatch):
    """A loader that raises as a bug would (not a ScenarioError) is one failing item naming the
    file; the other scenarios are collected and pass."""
    import meshspec.scenario.loader as loader

    real = loader.load
    monkeypatch.setattr(loader, "load", lambda path, **kw: (_ for _ in ()).throw(RuntimeError("boom")) if path.name == SEED_NAME else real(path, **kw))
    result = run(pytester, "--meshspec", "scen")
    outcomes = result.parseoutcomes()
    assert outcomes["failed"] == 1 and outcomes["passed"] > 20 and "error" not in outcomes
    result.stdout.fnmatch_lines([f"*{SEED_NAME}: internal error: RuntimeError: boom (a bug in meshspec*"])


def _claim_many(record: str, stem: str, n: int, queue) -> None:
    from meshspec.pytest_plugin import _claim_folder

    queue.put([_claim_folder(Path(record), stem).name for _ in range(n)])


def test_recording_folders_are_claimed_by_making_them_so_two_processes_never_share_one(tmp_path):
    """pytest --meshspec-record under xdist: each worker names its tests' folders; test ids that
    clean to one name get -2, -3 ... and two processes taking names at once never get the same one."""
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=_claim_many, args=(str(tmp_path / "rec"), "test_x_y", 20, queue)) for _ in range(2)]
    for w in workers:
        w.start()
    names = queue.get(timeout=60) + queue.get(timeout=60)
    for w in workers:
        w.join(timeout=60)
    assert len(names) == len(set(names)) == 40
    assert sorted(p.name for p in (tmp_path / "rec").iterdir()) == sorted(names)
    assert set(names) == {"test_x_y"} | {f"test_x_y-{k}" for k in range(2, 41)}
