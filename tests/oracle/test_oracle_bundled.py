"""The oracle on every bundled scenario (scenarios/*.yaml) it can model, under every profile (meshspec's
and the ones the scenario defines): their
verdicts are the ones docs/scenarios.md and docs/semantics.md show, so the naive model must agree with each
(partial-then-full's lost device, the seed's stale one, legacy-uneven-tail's shape_mismatch, ...)."""

import functools
from pathlib import Path

import pytest
import yaml

from meshspec.scenario.loader import load
from oracle_diff import PROFILE_NAMES, check

BUNDLED = sorted((Path(__file__).parents[2] / "scenarios").glob("*.yaml"))


@functools.lru_cache(maxsize=None)
def _outcomes(path):
    doc = yaml.safe_load(path.read_text())
    if "matrix" in doc:  # every case, each with its own steps (docs/semantics.md section 21)
        from meshspec.scenario.loader import MAX_VALUES
        from meshspec.scenario.matrix import expand

        cases = {c.case: c for c in load(path).cases}
        return [check(cases[name], case["steps"], profile)
                for name, case, _ in expand(doc, str(path), lambda loc: (1, 1), MAX_VALUES)
                for profile in (*PROFILE_NAMES, *cases[name].profiles)]
    scenario = load(path)  # and the profiles a scenario defines: an era's rules (docs/semantics.md section 19)
    return [check(scenario, doc["steps"], profile) for profile in (*PROFILE_NAMES, *scenario.profiles)]


@pytest.mark.parametrize("path", BUNDLED, ids=[p.stem for p in BUNDLED])
def test_bundled_scenario_agrees(path):
    outcomes = _outcomes(path)
    if outcomes[0].skipped is not None:
        pytest.skip(f"the naive model does not know {outcomes[0].skipped}")
    assert {o.profile: o.disagreements for o in outcomes if o.disagreements} == {}


def test_most_bundled_scenarios_are_modelled():
    modelled = [p.stem for p in BUNDLED if _outcomes(p)[0].skipped is None]
    for name in ("seed-uneven-copy", "partial-then-full", "legacy-uneven-tail", "even-copy", "squeeze-permute-topology",
                 "reshape-alias-deallocate", "submesh-override", "use-after-deallocate", "unit-mesh-single-device-copy",
                 "replicate-borrowed-aggregate", "readback-resized-to-devices", "to-device-replicated-allocation"):
        assert name in modelled
    assert len(modelled) >= 15
