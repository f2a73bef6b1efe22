"""pytest plugin: scenario files as test items, one per scenario and profile.

Inert unless asked: ``pytest --meshspec PATH...`` collects every ``*.yaml`` scenario pytest
visits; the ``meshspec_paths`` ini option collects those under the listed paths. A failing item
shows the same mismatch lines as ``meshspec check``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import pytest

# Kept free of meshspec imports at module level: pytest loads this plugin in every session of a
# project that has meshspec installed, and one that does not ask for scenarios pays nothing.
SCENARIO_SUFFIXES = (".yaml", ".yml")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("meshspec", "meshspec scenarios as tests")
    group.addoption("--meshspec", action="store_true", default=False, help="collect meshspec scenario files (*.yaml) as tests")
    group.addoption(
        "--meshspec-profile",
        default=None,
        metavar="NAME",
        help="profile to run scenarios under, or 'all' (default: those each expect block names)",
    )
    parser.addini("meshspec_paths", type="paths", default=[], help="folders or files whose *.yaml scenarios are collected as tests")


def _wanted(file_path: Path, config: pytest.Config) -> bool:
    if file_path.suffix not in SCENARIO_SUFFIXES:
        return False
    if config.getoption("meshspec"):
        return True
    for root in config.getini("meshspec_paths"):
        root = Path(root)
        if file_path == root or root in file_path.parents:
            return True
    return False


def _is_scenario(file_path: Path) -> bool:
    """A YAML mapping with a top-level ``meshspec`` key (other YAML files are left alone)."""
    import yaml

    try:
        with open(file_path, encoding="utf-8") as f:
            for event in yaml.parse(f, Loader=yaml.SafeLoader):
                if isinstance(event, yaml.ScalarEvent):
                    return event.value == "meshspec"
                if isinstance(event, (yaml.SequenceStartEvent, yaml.DocumentEndEvent)):
                    return False
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return True  # let collection report it as an invalid scenario
    return False


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> Optional[pytest.Collector]:
    if _wanted(file_path, parent.config) and _is_scenario(file_path):
        return ScenarioFile.from_parent(parent, path=file_path)
    return None


class ScenarioError(Exception):
    """The scenario file is invalid."""


class ExpectMismatch(Exception):
    """The run does not match the scenario's expect block."""


class ScenarioFile(pytest.File):
    def collect(self):
        from .check import profiles_for
        from .errors import MeshspecError
        from .scenario import load

        try:
            scenario = load(self.path)
        except MeshspecError as err:
            yield InvalidScenarioItem.from_parent(self, name="load", error=str(err))
            return
        for profile in profiles_for(scenario, self.config.getoption("meshspec_profile")):
            yield ScenarioItem.from_parent(self, name=profile, scenario=scenario, profile=profile)


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
        raise ScenarioError(self.error)

    def repr_failure(self, excinfo, style=None):
        return str(excinfo.value) if isinstance(excinfo.value, ScenarioError) else super().repr_failure(excinfo, style)

    def reportinfo(self):
        return self.path, None, f"meshspec {self.path.name}"
