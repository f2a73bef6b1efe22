"""pytest plugin: scenario files as test items, one per scenario and profile.

Inert unless asked: ``pytest --meshspec PATH...`` collects every ``*.yaml`` scenario pytest
visits; the ``meshspec_paths`` ini option collects those under the listed paths. A failing item
shows the same mismatch lines as ``meshspec check``.

The ``meshspec_check`` fixture checks a scenario (a path, or one built with ``meshspec.Builder``)
inside a test, as ``meshspec check`` does (docs/python-api.md).

The options are added once the project's own conftest files have added theirs: a project that
already has an option called ``--meshspec`` keeps it, and the plugin stays out of its way.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Optional

import pytest

# Only the sniffing module (yaml) is imported at module level: pytest loads this plugin in every
# session of a project that has meshspec installed, and one that does not ask pays almost nothing.
from .scenario.sniff import SCENARIO_SUFFIXES, looks_like_scenario


_INERT = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config: pytest.Config, parser: pytest.Parser, args: list[str]):
    result = yield  # the project's initial conftests are loaded now, with their options
    if _taken(parser) & {"--meshspec", "--meshspec-profile", "--meshspec-record"}:  # the project has an option of that name: it is theirs
        early_config.stash[_INERT] = True
        return result
    group = parser.getgroup("meshspec", "meshspec scenarios as tests")
    group.addoption(
        "--meshspec", action="store_true", default=False, dest="meshspec_collect",
        help="collect meshspec scenario files (*.yaml) as tests",
    )
    group.addoption(
        "--meshspec-profile", default=None, metavar="NAME", dest="meshspec_profile_name",
        help="profile to run scenarios under, or 'all' (default: those each expect block names)",
    )
    group.addoption(
        "--meshspec-record", default=None, metavar="DIR", dest="meshspec_record_dir", type=Path,
        help="record each test's ttnn calls as a scenario in DIR/<test> (meshspec record, for pytest)",
    )
    parser.addini("meshspec_paths", type="paths", default=[], help="folders or files whose *.yaml scenarios are collected as tests")
    return result


def _taken(parser: pytest.Parser) -> set[str]:
    """Option names already added (pytest has no public view of them; an unknown pytest gives none)."""
    groups = [getattr(parser, "_anonymous", None), *getattr(parser, "_groups", [])]
    return {name for group in groups if group is not None for opt in getattr(group, "options", []) for name in opt.names()}


def _inert(config: pytest.Config) -> bool:
    return config.stash.get(_INERT, False)


def _wanted(file_path: Path, config: pytest.Config) -> bool:
    if file_path.suffix not in SCENARIO_SUFFIXES or _inert(config):
        return False
    if config.getoption("meshspec_collect"):
        return True
    for root in config.getini("meshspec_paths"):
        root = Path(root)
        if file_path == root or root in file_path.parents:
            return True
    return False


def pytest_configure(config: pytest.Config) -> None:
    if _inert(config):
        return
    profile = config.getoption("meshspec_profile_name")
    if profile is not None and profile != "all":
        _check_profile(config, profile)
    record = config.getoption("meshspec_record_dir")
    if record is not None:
        from .bridge.launch import check_output_dir, check_ttnn
        from .errors import UsageError

        try:
            check_ttnn(sys.executable)
            check_output_dir(record)
        except UsageError as err:
            raise pytest.UsageError(str(err).replace("--output", "--meshspec-record", 1)) from None
    # With testpaths set, pytest visits only those; add meshspec_paths so the ini option works
    # on its own. Paths given on the command line are left as the user wrote them.
    paths = config.getini("meshspec_paths")
    if paths and config.args_source is pytest.Config.ArgsSource.TESTPATHS:
        config.args.extend(str(p) for p in paths if str(p) not in config.args)


def _check_profile(config: pytest.Config, profile: str) -> None:
    """``--meshspec-profile NAME``: one of meshspec's, or one that a scenario under the paths this
    session visits defines (as ``meshspec check --profile`` takes it). meshspec's names are checked
    from the registry alone: under xdist the controller runs this too, and collects nothing."""
    from .sim.profiles import PROFILES

    if profile in PROFILES:
        return
    from .check import check_profile_option
    from .errors import UsageError

    try:
        check_profile_option(profile, _visited_scenarios(config))
    except UsageError as err:
        raise pytest.UsageError(f"--meshspec-profile: {err}") from None


def _visited_scenarios(config: pytest.Config) -> list[Path]:
    """The scenario files under the session's paths (the command line's, testpaths or the
    invocation folder; node ids cut at ``::``), found as ``meshspec check`` finds them."""
    from .check import collect
    from .errors import UsageError

    found: list[Path] = []
    for arg in config.args:
        path = Path(config.invocation_params.dir, arg.split("::")[0])
        if path.is_dir() or path.suffix in SCENARIO_SUFFIXES:
            try:
                found += collect([path])
            except UsageError:  # nothing there: pytest says so in its own words
                pass
    return found


@pytest.hookimpl(wrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: Optional[pytest.Item]):
    """With --meshspec-record DIR: each test's ttnn calls (its fixtures' included) recorded in
    DIR/<test> as meshspec record writes them; a test that makes none leaves no directory."""
    record = None if _inert(item.config) else item.config.getoption("meshspec_record_dir", None)
    if record is None or isinstance(item, (ScenarioItem, InvalidScenarioItem)):
        return (yield)
    import re

    from .bridge.record import Recorder

    folder = _claim_folder(Path(record), re.sub(r"[^\w.-]+", "_", item.nodeid).strip("_")[:150])
    recorder = Recorder(folder, re.sub(r"\W", "_", item.name)[:80])
    recorder.install()
    try:
        return (yield)
    finally:
        recorder.uninstall()
        try:
            recorder.finish(program_ended_normally=not item.stash.get(_FAILED, False))
        finally:
            with contextlib.suppress(OSError):
                folder.rmdir()  # only if still empty: a test that made no ttnn call leaves no folder


def _claim_folder(record: Path, stem: str) -> Path:
    """A new folder of the test's name in ``record``, made here and now, so that test ids that
    clean to one name keep their own (``-2``, ``-3``), whichever process takes a name first (an
    xdist worker checking a name before another made it would otherwise share it)."""
    record.mkdir(parents=True, exist_ok=True)
    name, n = stem, 1
    while True:
        try:
            (record / name).mkdir()
            return record / name
        except FileExistsError:
            n += 1
            name = f"{stem}-{n}"


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call):
    """Whether the test failed: a call that raised last in a failing test ended it (kept as the
    recording's error); in a passing one it was caught."""
    report = yield
    if report.failed:
        item.stash[_FAILED] = True
    return report


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if _wanted(file_path, parent.config) and looks_like_scenario(file_path):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class InvalidScenario(Exception):
    """The scenario file is invalid (raised by an item standing for it)."""


class ExpectMismatch(Exception):
    """The run does not match the scenario's expect block."""


class ScenarioFile(pytest.File):
    def collect(self):
        from .check import profiles_for
        from .errors import MeshspecError
        from .runner import missing_profile
        from .scenario.loader import load

        try:
            scenario = load(self.path)
        except MeshspecError as err:
            yield InvalidScenarioItem.from_parent(self, name="load", error=str(err))
            return
        except Exception as err:  # a bug in meshspec's loader fails this file's item, not the session's collection
            from .errors import REPORT_IT, internal_error

            yield InvalidScenarioItem.from_parent(self, name="load", error=f"{self.path}: {internal_error(err)} ({REPORT_IT})")
            return
        wanted = self.config.getoption("meshspec_profile_name")
        missing = missing_profile(scenario, wanted)
        if missing is not None:  # another file given defines it (else the session stopped at configure)
            yield InvalidScenarioItem.from_parent(self, name=wanted, error=str(missing))
            return
        for case in scenario.cases or (scenario,):  # a matrix's cases: profile[values], as parametrize names them
            for profile in profiles_for(case, wanted):
                name = f"{profile}[{case.case}]" if case.case else profile
                yield ScenarioItem.from_parent(self, name=name, scenario=case, profile=profile)


class ScenarioItem(pytest.Item):
    def __init__(self, *, scenario, profile: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.scenario = scenario
        self.profile = profile

    def runtest(self) -> None:
        from .check import FAIL, check_scenario

        result = check_scenario(self.scenario, self.profile)
        if result.outcome == FAIL:
            raise ExpectMismatch(result.details)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, ExpectMismatch):
            lines = excinfo.value.args[0]
            return f"{self.scenario.name} [{self.profile}]: {len(lines)} mismatch(es)\n" + "\n".join(f"  {m}" for m in lines)
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"meshspec {self.scenario.name}[{self.profile}]"


class InvalidScenarioItem(pytest.Item):
    def __init__(self, *, error: str, **kwargs) -> None:
        super().__init__(**kwargs)
        self.error = error

    def runtest(self) -> None:
        raise InvalidScenario(self.error)

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value) if isinstance(excinfo.value, InvalidScenario) else super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"meshspec {self.path.name}"


@pytest.fixture
def meshspec_check():
    """``meshspec_check(scenario, profile=None, *, case=None)``: run a scenario (a path, a loaded
    scenario or a :class:`meshspec.Builder`) and check it against its ``expect`` block, as
    ``meshspec check`` does; the test fails with the mismatches and the run's findings. Without
    ``profile``, the profiles the expect block names (else the scenario's own); a matrix scenario,
    every case, or the one ``case`` names. Returns the results (``CaseResult``, one a case and profile)."""
    def check(scenario, profile: Optional[str] = None, *, case: Optional[str] = None) -> list:
        from .api import pick_case, scenario_of
        from .check import ERROR, FAIL, check_scenario, profiles_for
        from .errors import MeshspecError

        try:
            loaded = scenario_of(scenario)
            cases = [pick_case(loaded, case)] if case is not None else list(loaded.cases or (loaded,))
            results = [check_scenario(c, p) for c in cases for p in profiles_for(c, profile)]
        except MeshspecError as err:  # a missing file, a bad scenario, an unknown profile: its one line, as the CLI says it
            pytest.fail(f"meshspec: {err}", pytrace=False)
        failed = [r for r in results if r.outcome in (FAIL, ERROR)]
        if failed:
            pytest.fail("\n".join(_failure_text(r) for r in failed), pytrace=False)
        return results

    return check


def _failure_text(result) -> str:
    """A failed case as the plugin's scenario items show one: the case, the profile, each mismatch."""
    lines = result.details
    return f"{result.scenario} [{result.profile}]: {result.outcome}, {len(lines)} mismatch(es)\n" + "\n".join(f"  {m}" for m in lines)
