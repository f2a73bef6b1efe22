"""meshspec schema: the JSON Schema comes from the loader's own models, and every bundled
scenario validates against it with an independent validator (jsonschema)."""

import json
from pathlib import Path

import jsonschema
import pytest
import yaml

from cli_runner import invoke
from meshspec.scenario.schema import json_schema

SCENARIOS = sorted((Path(__file__).resolve().parents[2] / "scenarios").glob("*.yaml"))


@pytest.fixture(scope="module")
def validator():
    schema = json.loads(invoke(["schema"]).stdout)
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: p.stem)
def test_bundled_scenarios_validate(validator, path):
    validator.validate(yaml.safe_load(path.read_text()))


@pytest.mark.parametrize(
    "doc",
    [
        {"meshspec": 2, "mesh": "t3k", "steps": [{"cpu": {"tensor": "x"}}]},
        {"meshspec": 1, "mesh": "t3k", "steps": [{"cpu": {"tensor": "x", "bogus": 1}}]},
        {"meshspec": 1, "mesh": "t3k", "steps": [{"from_torch": {"as": "h", "shape": [1], "dtype": "bfloat61"}}]},
        {"meshspec": 1, "mesh": "t3k", "steps": []},
        {"meshspec": 1, "mesh": "t3k", "steps": [{"cpu": {"tensor": "x"}}], "expect": {"profiles": {"current": {"findings": [{"kind": "stail"}]}}}},
    ],
)
def test_invalid_documents_fail_the_schema(validator, doc):
    assert not validator.is_valid(doc)


def test_schema_is_deterministic_and_titled():
    a, b = invoke(["schema"]).stdout, invoke(["schema"]).stdout
    assert a == b
    assert json_schema()["title"] == "meshspec scenario (format 1)"
    assert "allocate_tensor_on_device" in a and "mesh_mapper" in a
