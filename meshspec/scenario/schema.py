"""The JSON Schema of scenario format 1, generated from the same models the loader validates with."""

from __future__ import annotations

SCHEMA_ID = "https://meshspec.dev/schema/scenario-1.json"


def json_schema() -> dict:
    from .model import Scenario

    schema = Scenario.model_json_schema(by_alias=True)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "meshspec scenario (format 1)",
    }
