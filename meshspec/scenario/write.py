"""A scenario as YAML text: what the loader reads back as the same scenario.

A loaded scenario keeps the plain data it was validated from (``LoadedScenario.document``: its
``repeat`` and ``distribute`` blocks and its matrix as written), whether it came from a file or from Python
(:class:`meshspec.api.builder.Builder`); :func:`to_yaml` writes that data, the header keys one line
each, each step on a line of its own (as ``import``, ``record`` and ``hunt`` write steps), the
expect block in block style::

    meshspec: 1
    name: seed
    mesh: t3k
    steps:
      - from_torch: {as: src, shape: [1, 7, 32, 32], mesh_mapper: {shard: 1}}
"""

from __future__ import annotations

from typing import Any

from ..errors import ScenarioError

_BLOCK_KEYS = ("description", "expect")
"""Top-level keys written in block style (long text folded at 100 columns, the expect block nested);
every other key is one flow line."""


def to_yaml(scenario: Any) -> str:
    """``scenario`` (a loaded scenario, or its document: plain data) as scenario YAML;
    ``loader.parse`` of the text gives the scenario back (tests/api/test_api_yaml.py)."""
    document = getattr(scenario, "document", scenario)
    if not isinstance(document, dict):
        raise ScenarioError("has no document to write (a scenario made by meshspec's loader or meshspec.Builder has one)",
                            str(getattr(scenario, "path", "<scenario>")))
    lines: list[str] = []
    for key, value in document.items():
        if key == "steps" and isinstance(value, list):
            lines.append("steps:")
            lines += [f"  - {_step(step)}" for step in value]
        elif key in _BLOCK_KEYS and value:
            # a mapping of only scalars is a flow line under flow=None: a one-line description would
            # be written as {description: hello}, no key at all; a scalar's mapping is written as a block
            lines.append(_dump({key: value}, flow=None if isinstance(value, (dict, list)) else False).rstrip("\n"))
        else:
            lines.append(f"{_dump(key)}: {_dump(value)}")
    return "\n".join(lines) + "\n"


def _step(step: Any) -> str:
    """``op: {args}`` for a one-key step, else the step as one flow value (the loader says what is wrong)."""
    if isinstance(step, dict) and len(step) == 1:
        (op, args), = step.items()
        return f"{_dump(op)}: {_dump(args)}"
    return _dump(step)


def _dump(value: Any, flow: Any = True) -> str:
    import yaml

    text = yaml.dump(value, Dumper=_dumper(), default_flow_style=flow, sort_keys=False, width=10**9 if flow else 100,
                     allow_unicode=True)
    if flow:
        text = text.strip()
        return text[: -len("...")].strip() if text.endswith("\n...") else text  # a plain scalar ends its document
    return text


_DUMPER = None


def _dumper():
    """text.flow's dumper (a line break in a string escaped, never a real one), writing a value
    used twice (a YAML alias in the file) out twice: the text has no anchors, and reads the same."""
    global _DUMPER
    if _DUMPER is None:
        from ..text import _one_line_dumper

        base = _one_line_dumper()

        class Plain(base):  # type: ignore[misc, valid-type]
            def ignore_aliases(self, data: Any) -> bool:
                return True

        def text(dumper: Any, data: str) -> Any:
            if len(data) > 100 and "\n" not in data.rstrip("\n") and not any(b in data for b in "\r\x85\u2028\u2029"):
                return dumper.represent_scalar("tag:yaml.org,2002:str", data, style=">")  # a long description, folded
            return base.yaml_representers[str](dumper, data)

        Plain.add_representer(str, text)
        _DUMPER = Plain
    return _DUMPER
