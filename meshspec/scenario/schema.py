"""The JSON Schema of scenario format 1, generated from the same declarations the loader validates
with (meshspec/typed.py). Field docstrings become ``description``s, read from the source when the
schema is asked for, never at import."""

from __future__ import annotations

import ast
import inspect

SCHEMA_ID = "https://meshspec.dev/schema/scenario-1.json"


def _field_docs(modules) -> dict[str, dict[str, str]]:
    """class name -> field name -> the docstring written under the field, in ``modules``."""
    out: dict[str, dict[str, str]] = {}
    for module in modules:
        out.update(_module_field_docs(module))
    return out


def _module_field_docs(module) -> dict[str, dict[str, str]]:
    tree = ast.parse(inspect.getsource(module))
    out: dict[str, dict[str, str]] = {}
    for node in tree.body:
        if not isinstance(node, ast.ClassDef):
            continue
        docs: dict[str, str] = {}
        body = node.body
        for stmt, nxt in zip(body, body[1:]):
            if (
                isinstance(stmt, ast.AnnAssign)
                and isinstance(stmt.target, ast.Name)
                and isinstance(nxt, ast.Expr)
                and isinstance(nxt.value, ast.Constant)
                and isinstance(nxt.value.value, str)
            ):
                docs[stmt.target.id] = inspect.cleandoc(nxt.value.value)
        out[node.name] = docs
    return out


def docs_of(classes) -> dict[str, dict[str, str]]:
    """class name -> field name -> the docstring under the field, for ``classes``."""
    return _field_docs(dict.fromkeys(inspect.getmodule(cls) for cls in classes))


def _add_blocks(schema: dict) -> None:
    """The step blocks the loader expands before validating (``repeat``, ``distribute``): a step
    is one of the ops or a block of steps."""
    steps = schema["properties"]["steps"]
    schema.setdefault("$defs", {})["AnyStep"] = steps["items"]
    nested = {"type": "array", "items": {"$ref": "#/$defs/AnyStep"}}
    repeat = {"type": "object", "additionalProperties": False, "required": ["repeat"], "properties": {"repeat": {
        "type": "object", "additionalProperties": False, "required": ["times", "steps"],
        "description": "The steps, `times` times in order (a decode loop); a scenario expands to at most 100,000 steps.",
        "properties": {"times": {"type": "integer", "minimum": 1, "maximum": 4096}, "steps": nested}}}}
    distribute = {"type": "object", "additionalProperties": False, "required": ["distribute"], "properties": {"distribute": {
        "type": "object", "additionalProperties": False, "required": ["steps"],
        "description": "with ttnn.distribute(mapper or composer): the steps inside take it as their default.",
        "properties": {"mesh_mapper": {}, "mesh_composer": {}, "steps": nested}}}}
    steps["items"] = {"anyOf": [{"$ref": "#/$defs/AnyStep"}, repeat, distribute]}


PLACEHOLDER = {"type": "string", "pattern": r"^\$[a-z_][a-z0-9_]{0,31}$",
               "description": "$name: the value of the matrix variable name, in each case (meshspec/scenario/matrix.py)"}


def _add_placeholders(schema: dict) -> None:
    """Any value of a field may be a matrix variable's ``$name`` (the loader fills it in per case,
    then validates the case), but not the version or the matrix itself."""
    records = [d for d in schema.get("$defs", {}).values() if "properties" in d]
    for record in records + [schema]:
        for key, prop in record["properties"].items():
            if record is schema and key in ("meshspec", "matrix", "steps", "expect", "profiles"):
                continue
            record["properties"][key] = {"anyOf": [prop, PLACEHOLDER]}


def json_schema() -> dict:
    from ..typed import json_schema as describe
    from . import model

    schema = describe(model.Scenario, docs_of(model.all_types().values()))
    _add_placeholders(schema)
    _add_blocks(schema)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "meshspec scenario (format 1)",
    }
