import textwrap

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario.loader import parse


def make_scenario(steps, mesh="t3k", **top):
    """A parsed scenario from a list of step dicts (written as YAML, so the loader checks it)."""
    doc = {"meshspec": 1, "mesh": mesh, **top, "steps": steps}
    return parse(yaml.safe_dump(doc, sort_keys=False), "inline.yaml")


def run_steps(steps, profile="current", mesh="t3k", **options):
    return run(make_scenario(steps, mesh), profile, **options)


@pytest.fixture(autouse=True)
def _own_state(tmp_path_factory, monkeypatch):
    """What meshspec remembers of the files it wrote (files.py) goes to a folder of the test
    session's, not the user's ~/.local/state: one per test, so no test sees another's outputs."""
    monkeypatch.setenv("MESHSPEC_STATE_DIR", str(tmp_path_factory.mktemp("state")))


@pytest.fixture(autouse=True)
def _terminal_width(monkeypatch):
    """The CLI sizes a report to stdout by the terminal (COLUMNS, else the real terminal's width,
    else 120); tests expect 120 wherever they run: pytest-xdist sets COLUMNS=80 in its workers, and a
    developer's terminal has its own width. A test that wants another width sets it itself."""
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def dedent():
    return lambda s: textwrap.dedent(s).lstrip("\n")


# hypothesis: small example counts by default (CI); `pytest --hypothesis-profile thorough` or
# MESHSPEC_HYPOTHESIS=thorough runs thousands.
try:
    import os

    from hypothesis import HealthCheck, settings

    settings.register_profile("ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("thorough", max_examples=3000, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.load_profile(os.environ.get("MESHSPEC_HYPOTHESIS", "ci"))
except ImportError:  # pragma: no cover
    pass


PARTIAL_CORE_STEPS = """  - allocate_tensor_on_device:
      as: kv
      shape: [1, 1, 96, 64]
      memory_config:
        memory_layout: height_sharded
        buffer_type: l1
        shard_spec: {grid: [[[0, 0], [1, 0]]], shape: [64, 64]}
  - from_torch: {as: new, shape: [1, 1, 96, 64], mesh_mapper: {create_mesh_mapper: {placements: [replicate, replicate]}}}
  - copy_host_to_device_tensor_partial: {src: new, dst: kv, core_filter: [[[0, 0], [0, 0]]]}
"""
"""Scenario steps: kv (1,1,96,64) height-sharded 64x64 on cores (0,0)-(1,0) of every device, of which a
partial core write reaches core (0,0) only: pages 0-3 hold its data, 4-5 were never written
(docs/semantics.md section 11; scenarios/partial-core-write.yaml is the bundled form)."""
