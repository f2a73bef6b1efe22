"""The naive oracle on ttnn.all_gather's tile padding eras (rule gather_padding; docs/semantics.md
section 22): under ``padded`` it writes the padded shape times the ring, as meshspec records, and
agrees on the two bundled scenarios under the user profiles that hold their eras."""

from pathlib import Path

import pytest
import yaml

import oracle_diff
from meshspec.scenario.loader import load

SCENARIOS = Path(__file__).parents[2] / "scenarios"
ERAS = [("all-gather-padding-2024", "all-gather-2024"), ("all-gather-padding-window", "all-gather-cluster-axis-2025")]


@pytest.mark.parametrize("name, profile", ERAS)
def test_the_oracle_agrees_under_the_eras_profile(name, profile):
    path = SCENARIOS / f"{name}.yaml"
    for with_data in (True, False):
        out = oracle_diff.check(load(path), yaml.safe_load(path.read_text())["steps"], profile, with_data=with_data)
        assert out.skipped is None and out.disagreements == []


def test_a_model_that_ignores_the_padded_choice_disagrees(monkeypatch):
    # the oracle must model the padding gathered as data: without it, the gathered output's
    # recorded (1, 1, 128, 64) is more than the (1, 1, 32, 64) it wrote
    real = oracle_diff.Model

    def unpadded(*args, **kwargs):
        return real(*args, **{**kwargs, "gather_padded": False})

    monkeypatch.setattr(oracle_diff, "Model", unpadded)
    path = SCENARIOS / "all-gather-padding-2024.yaml"
    out = oracle_diff.check(load(path), yaml.safe_load(path.read_text())["steps"], "all-gather-2024")
    # the gathered tensor and its per-device parts (g[i]) are partial to a model that wrote less
    assert out.disagreements and {c for c, _ in out.disagreements} == {"status:partial/ok:all_gather", "status:partial/ok:get_device_tensors"}
