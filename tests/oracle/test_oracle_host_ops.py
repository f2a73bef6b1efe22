"""The bundled scenarios of section 18's bug classes agree with the naive oracle under every profile,
their own era profiles included (``host_shard_ops``, ``block_float_mapper``): the oracle works each
host op's shard specs, and issue #8967's padded mapping, out on its own."""

from pathlib import Path

import pytest
import yaml

from meshspec.scenario.loader import load
from oracle_diff import PROFILE_NAMES, check

SCENARIOS = Path(__file__).parents[2] / "scenarios"
NAMES = ["host-unpad-multi-shard", "host-pad-replicated-tile", "block-float-padded-shape"]


@pytest.mark.parametrize("name", NAMES)
def test_section_18_scenarios_agree_with_the_oracle_under_their_eras(name):
    path = SCENARIOS / f"{name}.yaml"
    scenario, steps = load(path), yaml.safe_load(path.read_text())["steps"]
    for profile in [*PROFILE_NAMES, *(scenario.profiles or {})]:
        assert check(scenario, steps, profile).disagreements == [], profile
