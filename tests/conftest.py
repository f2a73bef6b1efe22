import textwrap

import pytest
import yaml

from meshspec.runner import run
from meshspec.scenario import parse


def make_scenario(steps, mesh="t3k", **top):
    """A parsed scenario from a list of step dicts (written as YAML, so the loader checks it)."""
    doc = {"meshspec": 1, "mesh": mesh, **top, "steps": steps}
    return parse(yaml.safe_dump(doc, sort_keys=False), "inline.yaml")


def run_steps(steps, profile="current", mesh="t3k", **options):
    return run(make_scenario(steps, mesh), profile, **options)


@pytest.fixture
def dedent():
    return lambda s: textwrap.dedent(s).lstrip("\n")
