"""meshspec from Python: run a scenario and get its report, as ``meshspec run --format json`` prints it.

::

    import meshspec

    report = meshspec.run("scenarios/seed-uneven-copy.yaml", profile="uniform-by-value")
    [f["kind"] for f in report["findings"]]        # ['stale', 'data_mismatch', ...]

The report is plain data (dicts, lists, numbers, text): ``json.loads`` of the CLI's output for the
same scenario and profile. A scenario is a path, or a scenario loaded (:func:`load`) or built in
Python (:class:`~meshspec.api.builder.Builder`): the same object either way. Errors raise
:class:`meshspec.errors.MeshspecError` (a bad scenario :class:`~meshspec.errors.ScenarioError`, a
bad profile or case :class:`~meshspec.errors.UsageError`) whose text is the one line the CLI prints.
A step the simulated runtime refuses is no exception: it is the report's ``error``, as in the CLI.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional, Union

from ..errors import UsageError

Source = Union[str, Path, Any]
"""A scenario file's path, a loaded scenario, or a :class:`~meshspec.api.builder.Builder`."""


def load(path: Union[str, Path], *, allow_outside_data: bool = False):
    """The scenario in ``path``, validated (``meshspec.scenario.loader.load``): what :func:`run`
    takes and :func:`to_yaml` writes; a matrix scenario's cases are its ``cases``."""
    from ..scenario.loader import load as load_file

    return load_file(path, allow_outside_data=allow_outside_data)


def to_yaml(scenario: Source) -> str:
    """A loaded or built scenario as YAML text that loads back as the same scenario."""
    from ..scenario.write import to_yaml as write

    return write(scenario_of(scenario))


def run(scenario: Source, profile: Optional[str] = None, *, case: Optional[str] = None,
        allow_outside_data: bool = False) -> Union[dict, list]:
    """Run ``scenario`` under ``profile`` (default: the scenario's own, else ``current``; ``all``
    runs every profile) and return its report: ``meshspec run --format json``'s output as data.

    One run is one report (a dict). A matrix scenario runs each of its cases, as ``meshspec run``
    does (a list of reports, in order), unless ``case`` names one (as ``meshspec check`` names it,
    ``bfloat16-tile``: that case's report); ``profile="all"``, the list of every profile's.
    """
    from ..check import check_profile_option
    from ..runner import run as run_one

    from ..errors import UsageError

    for name, value in (("profile", profile), ("case", case)):
        if value is not None and not isinstance(value, str):
            raise UsageError(f"{name}={value!r}: a profile is named by a string ('current', 'all', or one the scenario defines)"
                             if name == "profile" else f"case={value!r}: a case is named by a string, as meshspec check names it")
    loaded = scenario_of(scenario, allow_outside_data)
    if profile not in loaded.profiles:  # an unknown profile, with the choices, as the CLI says it
        check_profile_option(profile, [loaded.path] if isinstance(scenario, (str, Path)) else [])
    cases = [pick_case(loaded, case)] if case is not None else list(loaded.cases or (loaded,))
    if profile == "all":
        from ..sim.profiles import PROFILES

        return [run_one(c, p).to_json() for c in cases for p in (*PROFILES, *loaded.profiles)]
    reports = [run_one(c, profile).to_json() for c in cases]
    return reports[0] if len(reports) == 1 else reports


def pick_case(scenario: Any, case: str):
    """The case named ``case`` of a matrix scenario, as the CLI's ``--case`` picks it (sides.pick_case),
    named as Python names it."""
    from ..sides import pick_case as pick

    return pick(scenario, case, option="case", drop="leave case out")


def scenario_of(source: Source, allow_outside_data: bool = False):
    """The loaded scenario ``source`` is or names."""
    if isinstance(source, (str, Path)):
        return load(source, allow_outside_data=allow_outside_data)
    built = getattr(source, "build", None)
    if callable(built):
        return built()
    from ..scenario.loader import LoadedScenario

    if not isinstance(source, LoadedScenario):
        raise UsageError(f"not a scenario: {type(source).__name__}; give a scenario file's path, meshspec.load(path) or a meshspec.Builder")
    return source


__all__ = ["load", "pick_case", "run", "scenario_of", "to_yaml"]
