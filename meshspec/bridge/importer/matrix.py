"""``meshspec import RUN RUN ...``: the runs of one parametrized test (one tracer folder or graph
capture a case, as ``pytest --trace-params`` of each ``test_x[...]`` gives them) as one scenario
with a ``matrix`` (meshspec/scenario/matrix.py), when they are that.

The runs must hold the same steps, differing in values alone (a dtype, a layout, a shape, the
mesh); each value that differs becomes a variable named after its key (``dtype``, ``shape``; one
variable for the values that differ alike, as a parametrized dtype given to two calls does), and
the runs must be every combination of the variables' values, once each, as stacked
``pytest.mark.parametrize`` marks make them. Anything else is one line saying where the runs part
ways: import them one by one.
"""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

from ...errors import UsageError
from ...scenario.matrix import MAX_CASES, VARIABLE
from ...text import flow, one_line, printable
from ...typed import where as _where

_FIXED = ("meshspec", "name", "description")
"""Keys the runs may differ in that are no parameter: the combined scenario says them itself."""


def combine(runs: list[tuple[str, dict]]) -> dict:
    """One scenario with a ``matrix`` for ``runs`` ((a label, an imported scenario) each, in the
    order given). Raises UsageError naming the first place the runs differ otherwise than in values,
    or the combinations missing.

    >>> a = {"meshspec": 1, "name": "t", "mesh": [1, 2], "steps": [{"from_torch": {"as": "x", "shape": [1, 32], "dtype": "bfloat16"}}]}
    >>> b = {**a, "steps": [{"from_torch": {"as": "x", "shape": [1, 32], "dtype": "float32"}}]}
    >>> combine([("a", a), ("b", b)])["matrix"], combine([("a", a), ("b", b)])["steps"][0]["from_torch"]["dtype"]
    ({'dtype': ['bfloat16', 'float32']}, '$dtype')
    """
    if len(runs) < 2:
        raise UsageError("a matrix needs two runs or more: give each case's tracer folder or capture")
    labels = [label for label, _ in runs]
    variables: dict[str, str] = {}  # the values (as JSON, one a run) -> the variable's name
    values_of: dict[str, list[Any]] = {}  # variable -> its value in each run

    def name_for(loc: tuple, values: list[Any]) -> str:
        seq = json.dumps(values, sort_keys=True)
        if seq in variables:
            return variables[seq]
        key = next((p for p in reversed(loc) if isinstance(p, str) and p not in ("as",)), "value")
        base = re.sub(r"[^a-z0-9_]+", "_", key.lower()).strip("_")[:28] or "value"
        base = base if VARIABLE.fullmatch(base) else f"v_{base}"[:32]
        name, n = base, 1
        while name in values_of:
            n += 1
            name = f"{base}_{n}"
        variables[seq] = name
        values_of[name] = values
        return name

    def merge(values: list[Any], loc: tuple) -> Any:
        first = values[0]
        if all(v == first for v in values[1:]):
            return first
        if all(isinstance(v, dict) for v in values):
            if any(list(v) != list(first) for v in values):
                other = next(i for i, v in enumerate(values) if list(v) != list(first))
                keys = sorted(set(first) ^ set(values[other]), key=str)
                raise _parted(labels[0], labels[other], loc, f"its keys differ ({', '.join(map(str, keys)) or 'their order'})")
            return {k: merge([v[k] for v in values], loc + (k,)) for k in first}
        if all(isinstance(v, list) for v in values) and not all(_plain(v) for v in values):
            if any(len(v) != len(first) for v in values):
                other = next(i for i, v in enumerate(values) if len(v) != len(first))
                raise _parted(labels[0], labels[other], loc, f"{len(first)} items against {len(values[other])}")
            return [merge([v[i] for v in values], loc + (i,)) for i in range(len(first))]
        if any(isinstance(v, (dict, list)) and not _plain(v) for v in values):
            other = next(i for i, v in enumerate(values) if v != first)
            raise _parted(labels[0], labels[other], loc, "one holds a value, the other a structure")
        if all(isinstance(v, str) and v in names[i] for i, v in enumerate(values)):
            other = next(i for i, v in enumerate(values) if v != first)
            raise _parted(labels[0], labels[other], loc, f"it names another tensor ({first}, {values[other]})")
        return "$" + name_for(loc, values)

    docs = [doc for _, doc in runs]
    names = [{a.get("as") for step in d.get("steps", []) if isinstance(step, dict) for a in step.values() if isinstance(a, dict)}
             for d in docs]  # the tensors each run binds: a step naming another is no value that differs
    body = {k: merge([d.get(k) for d in docs], (k,)) for k in docs[0] if k not in _FIXED}
    for i, d in enumerate(docs[1:], 1):
        extra = [k for k in d if k not in docs[0]]
        if extra:
            raise _parted(labels[0], labels[i], (extra[0],), "only the second has it")
    if not values_of:
        raise UsageError(f"the {len(runs)} runs hold the same steps and values: one of them is the scenario (import it alone)")
    matrix = {name: _distinct(values) for name, values in values_of.items()}
    _check_product(matrix, values_of, labels)
    base = re.sub(r"\[.*\]$", "", str(docs[0].get("name", "imported"))) or "imported"
    return {
        "meshspec": 1,
        "name": one_line(base),
        "description": one_line(f"Imported from {len(runs)} runs of one parametrized test, one case each: " + ", ".join(labels)),
        "matrix": matrix,
        **body,
    }


def _plain(v: Any) -> bool:
    """A list of plain values (a shape, a mesh shape): a value of its own, not a structure."""
    return isinstance(v, list) and all(not isinstance(x, (dict, list)) for x in v)


def _distinct(values: list[Any]) -> list[Any]:
    out: list[Any] = []
    for v in values:
        if v not in out:
            out.append(v)
    return out


def _check_product(matrix: dict[str, list[Any]], values_of: dict[str, list[Any]], labels: list[str]) -> None:
    """The runs are every combination of the variables' values, once each."""
    count = 1
    for values in matrix.values():
        count *= len(values)
    if count > MAX_CASES:
        raise UsageError(f"the runs differ in {len(matrix)} values making {count:,} combinations; a matrix makes at most {MAX_CASES}")
    runs = [tuple(json.dumps(values_of[n][i], sort_keys=True) for n in matrix) for i in range(len(labels))]
    if len(set(runs)) != len(runs):
        i = next(i for i, r in enumerate(runs) if runs.index(r) != i)
        raise UsageError(f"{printable(labels[i])} repeats the case of {printable(labels[runs.index(runs[i])])}: give each case once")
    every = {tuple(json.dumps(v, sort_keys=True) for v in combo) for combo in itertools.product(*matrix.values())}
    if set(runs) != every:
        sizes = " x ".join(f"{n}: {len(v)}" for n, v in matrix.items())
        missing = sorted(every - set(runs))[0]
        shown = ", ".join(f"{n}={json.loads(v)}" for n, v in zip(matrix, missing))
        raise UsageError(f"the {len(runs)} runs are not every combination of the values they differ in ({sizes}: {count} "
                         f"combinations; none is {shown}): add the missing runs, or import them one by one")


def _parted(a: str, b: str, loc: tuple, why: str) -> UsageError:
    return UsageError(f"{printable(a)} and {printable(b)} part ways at {_where(loc)}: {why}; a matrix's runs differ in values "
                      "alone (import them one by one)")


def render(scenario: dict, header: list[str]) -> str:
    """The combined scenario as YAML, a step a line, ``header`` above it as comments."""
    lines = [f"# {one_line(h)}".rstrip() for h in header]
    for key, value in scenario.items():
        if key == "matrix":
            lines.append("matrix:")
            lines += [f"  {name}: {flow(values)}" for name, values in value.items()]
        elif key == "steps":
            lines.append("steps:")
            for step in value:
                (op, args), = step.items()
                lines.append(f"  - {op}: {flow(args)}")
        else:
            lines.append(f"{key}: {flow(value)}")
    return "\n".join(lines) + "\n"
