"""The JSON Schema of scenario format 1, generated from the same models the loader validates with.

Field docstrings become ``description``s here, when the schema is asked for, rather than when the
models are built (pydantic's use_attribute_docstrings parses the source at import, which would
slow every ``meshspec run`` down by a tenth of a second).
"""

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


def json_schema() -> dict:
    from . import model

    schema = model.Scenario.model_json_schema(by_alias=True)
    models = model.all_models()
    docs = _field_docs(dict.fromkeys(inspect.getmodule(cls) for cls in models.values()))
    for name, definition in [("Scenario", schema)] + list(schema.get("$defs", {}).items()):
        cls = models.get(name)
        if not (isinstance(cls, type) and hasattr(cls, "model_fields")):
            continue  # enums and generated step wrappers have no field docstrings
        for field, info in cls.model_fields.items():
            doc = docs.get(name, {}).get(field)
            prop = definition.get("properties", {}).get(info.alias or field)
            if doc and prop is not None:
                prop.setdefault("description", doc)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
        "title": "meshspec scenario (format 1)",
    }
